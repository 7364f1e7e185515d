//! How far the decision headline could move with other runs: a 95 %
//! confidence interval for a ratio of sums over runs.
//!
//! `validate --decisions` reports bytes placed on the same path over bytes
//! placed, pooled over runs (y_i over x_i summed, not a mean of per-run
//! fractions), so large runs weigh more. The runs of one cell are a sample
//! of link realizations; the headline pools several cells, each with its
//! own runs. That is Cochran's *combined ratio estimate* over strata
//! (W. G. Cochran, Sampling Techniques, 3rd ed., 1977, 6.11, eq. 6.49, with
//! every run weighing one and no finite-population correction): with
//! R = sum(y) / sum(x) and d_i = y_i - R x_i,
//!
//!   V(R) ~ sum over strata h of n_h s_h^2(d) / X^2,   X = sum(x),
//!
//! s_h^2(d) the sample variance of d within stratum h (which is Cochran's
//! S_yh^2 + R^2 S_xh^2 - 2 R S_yxh). The interval is R +- t(0.975, df)
//! sqrt(V) with df = sum(n_h - 1), clamped to [0, 1]. It is a first-order
//! (delta-method) interval: for few runs, or runs of very unequal size, it is
//! an approximation, said where it is printed.

use mptlab_results::stats::t975;

/// A pooled ratio and its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatioCi {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    /// Degrees of freedom of the t factor: runs minus strata.
    pub df: u64,
}

/// The combined ratio estimate of `strata` (each a cell's runs as
/// `(numerator, denominator)`) and its 95 % interval. `None` when nothing
/// was placed, or when a stratum has fewer than 2 runs (its variance is
/// unknown, so any interval would be too narrow).
pub fn combined_ratio_ci(strata: &[Vec<(u64, u64)>]) -> Option<RatioCi> {
    if strata.is_empty() || strata.iter().any(|s| s.len() < 2) {
        return None;
    }
    let y: f64 = strata.iter().flatten().map(|p| p.0 as f64).sum();
    let x: f64 = strata.iter().flatten().map(|p| p.1 as f64).sum();
    if x <= 0.0 {
        return None;
    }
    let r = y / x;
    let mut v = 0.0;
    let mut df = 0u64;
    for s in strata {
        let n = s.len() as f64;
        let d: Vec<f64> = s.iter().map(|&(a, b)| a as f64 - r * b as f64).collect();
        let mean = d.iter().sum::<f64>() / n;
        let var = d.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (n - 1.0);
        v += n * var;
        df += s.len() as u64 - 1;
    }
    let half = t975(df) * v.sqrt() / x;
    Some(RatioCi {
        ratio: r,
        lo: (r - half).max(0.0),
        hi: (r + half).min(1.0),
        df,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_stratum_matches_a_hand_computed_interval() {
        // y/x = 8/10, 9/10, 10/10: R = 0.9, d = -1, 0, 1, s^2 = 1,
        // V = 3 * 1 / 30^2, t(0.975, 2) = 4.302653
        let c = combined_ratio_ci(&[vec![(8, 10), (9, 10), (10, 10)]]).unwrap();
        assert!((c.ratio - 0.9).abs() < 1e-12);
        let half = 4.302653 * 3f64.sqrt() / 30.0;
        assert!((c.lo - (0.9 - half)).abs() < 1e-9, "{c:?}");
        assert_eq!(c.hi, 1.0, "clamped at 1");
        assert_eq!(c.df, 2);
    }

    #[test]
    fn equal_fractions_give_a_zero_width_interval_whatever_the_sizes() {
        let c = combined_ratio_ci(&[vec![(5, 10), (50, 100)], vec![(1, 2), (3, 6)]]).unwrap();
        assert_eq!((c.ratio, c.lo, c.hi, c.df), (0.5, 0.5, 0.5, 2));
    }

    #[test]
    fn differences_between_strata_do_not_widen_it() {
        // each cell agrees with itself run by run; the cells differ: the
        // pooled ratio carries no sampling error from the between-cell part
        let c = combined_ratio_ci(&[vec![(9, 10), (9, 10)], vec![(5, 10), (5, 10)]]).unwrap();
        assert!((c.ratio - 0.7).abs() < 1e-12);
        assert!((c.hi - c.lo).abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn a_one_run_stratum_or_nothing_placed_has_no_interval() {
        assert_eq!(
            combined_ratio_ci(&[vec![(9, 10), (8, 10)], vec![(1, 1)]]),
            None
        );
        assert_eq!(combined_ratio_ci(&[vec![(0, 0), (0, 0)]]), None);
        assert_eq!(combined_ratio_ci(&[]), None);
    }
}
