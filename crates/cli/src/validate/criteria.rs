//! The statistics and pass/fail criteria of `mptlab validate`, as pure
//! functions (no root, no runs) so they can be unit-tested.
//!
//! Confidence interval: the distribution-free order-statistic interval for a
//! median (Conover, *Practical Nonparametric Statistics*, 3rd ed., section
//! 3.2; also Hollander, Wolfe & Chicken, section 3.6): with the runs sorted,
//! `[x(k), x(n+1-k)]` covers the true median with probability
//! `1 - 2 * P(Binomial(n, 1/2) <= k - 1)`. It needs no seed and no resampling,
//! so it is deterministic. Below six runs no `k` reaches 95 %; then the
//! interval is `[min, max]` and its actual coverage (75 % for 3 runs) is
//! reported beside it instead of pretending to 95 %.

/// The coverage aimed at.
pub const LEVEL: f64 = 0.95;

/// Median of the finite values, or `None` when there are none.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// `P(Binomial(n, 1/2) <= j)`.
fn binom_half_cdf(n: usize, j: usize) -> f64 {
    // Sum of C(n, i) / 2^n, with C computed incrementally in f64 (exact for
    // the run counts used here; n is at most a few hundred).
    let mut c = 1.0f64;
    let mut s = 0.0f64;
    for i in 0..=j.min(n) {
        if i > 0 {
            c = c * (n + 1 - i) as f64 / i as f64;
        }
        s += c;
    }
    s / 2f64.powi(n as i32)
}

/// The narrowest symmetric order-statistic interval `[x(k), x(len+1-k)]`
/// of `len` sorted values that still covers `level`: the largest 1-based
/// `k` up to `ceil(len / 2)` with `1 - 2 * below(k - 1) >= level`, and that
/// coverage, where `below(j)` is the statistic's `P(S <= j)` (the binomial
/// for a median, Mann-Whitney's for a shift). `k = 1` (the widest interval)
/// when none reaches `level`.
pub(crate) fn narrowest_k(len: usize, level: f64, below: impl Fn(usize) -> f64) -> (usize, f64) {
    let mut best = (1, 1.0 - 2.0 * below(0));
    for k in 2..=len.div_ceil(2) {
        let cov = 1.0 - 2.0 * below(k - 1);
        if cov >= level {
            best = (k, cov);
        } else {
            break;
        }
    }
    best
}

/// A median with its order-statistic confidence interval.
#[derive(Debug, Clone, PartialEq)]
pub struct MedianCi {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    /// Actual coverage of `[lo, hi]`: at least [`LEVEL`] when `n >= 6`,
    /// less (the best available, `[min, max]`) below.
    pub coverage: f64,
    /// Finite values behind it (runs that reported the metric).
    pub n: usize,
}

/// Median and the narrowest symmetric order-statistic interval whose
/// coverage is at least [`LEVEL`] (or `[min, max]` when none is).
pub fn median_ci(v: &[f64]) -> Option<MedianCi> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    let median = median(&v)?;
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    let (k, coverage) = narrowest_k(n, LEVEL, |j| binom_half_cdf(n, j));
    Some(MedianCi {
        median,
        lo: v[k - 1],
        hi: v[n - k],
        coverage: coverage.max(0.0),
        n,
    })
}

/// How a metric is compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Criterion {
    /// Pass when `|kernel / sim - 1| <= tol` (completion time, message delay).
    Relative(f64),
    /// Pass when `|kernel - sim| <= tol` (byte shares, in fractions).
    Absolute(f64),
    /// Shown, not counted toward the verdict.
    Info,
}

/// The stated criteria: median completion time and median message delay
/// within 10 %, per-path byte share within 5 points. The 95th percentile and
/// throughput are shown only (throughput follows from completion time; a
/// p95 over three runs of one 10 s video is too noisy to judge). The share
/// of path 1 is shown only too: with two paths it is one minus path 2's, so
/// counting both would count one disagreement twice, and for TCP on path 1
/// it is 1 on both sides by construction.
pub fn criterion(metric: &str) -> Criterion {
    match metric {
        "completion_time_ms" | "delay_ms_median" => Criterion::Relative(0.10),
        "fg_share_path1" => Criterion::Info,
        m if m.starts_with("fg_share_path") => Criterion::Absolute(0.05),
        _ => Criterion::Info,
    }
}

/// Verdict of a cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    Pass,
    Fail,
    /// Not counted ([`Criterion::Info`], or a relative comparison against 0).
    Info,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Info => "info",
        }
    }
}

/// The comparison of two medians: the ratio kernel/sim for relative
/// criteria (and info metrics), the difference kernel - sim for absolute
/// ones, and the verdict.
pub fn compare(metric: &str, sim: f64, kernel: f64) -> (Option<f64>, Option<f64>, Verdict) {
    let ratio = (sim != 0.0).then(|| kernel / sim);
    let diff = kernel - sim;
    match criterion(metric) {
        Criterion::Relative(tol) => match ratio {
            // small epsilon so a difference printed as exactly 10.0 % passes
            Some(r) if (r - 1.0).abs() <= tol + 1e-12 => (ratio, None, Verdict::Pass),
            Some(_) => (ratio, None, Verdict::Fail),
            None => (None, Some(diff), Verdict::Info),
        },
        Criterion::Absolute(tol) => {
            let v = if diff.abs() <= tol + 1e-12 {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (None, Some(diff), v)
        }
        Criterion::Info => (ratio, None, Verdict::Info),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_cdf_matches_hand_values() {
        assert_eq!(binom_half_cdf(3, 0), 0.125);
        assert_eq!(binom_half_cdf(4, 1), 5.0 / 16.0);
        assert_eq!(binom_half_cdf(5, 5), 1.0);
    }

    #[test]
    fn median_ci_uses_order_statistics_with_stated_coverage() {
        // 3 runs: no interval reaches 95 %; [min, max] covers 1 - 2/8 = 75 %.
        let c = median_ci(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((c.median, c.lo, c.hi, c.n), (2.0, 1.0, 3.0, 3));
        assert!((c.coverage - 0.75).abs() < 1e-12);
        // 6 runs: [x(1), x(6)] covers 1 - 2/64 = 96.9 %; x(2) would be 78 %.
        let c = median_ci(&[6.0, 5.0, 4.0, 3.0, 2.0, 1.0]).unwrap();
        assert_eq!((c.median, c.lo, c.hi), (3.5, 1.0, 6.0));
        assert!((c.coverage - (1.0 - 2.0 / 64.0)).abs() < 1e-12);
        // 20 runs: the textbook interval is [x(6), x(15)], coverage 95.9 %.
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        let c = median_ci(&v).unwrap();
        assert_eq!((c.lo, c.hi), (6.0, 15.0));
        assert!(c.coverage >= LEVEL && c.coverage < 0.96, "{c:?}");
        // non-finite values are not runs
        let c = median_ci(&[f64::NAN, 4.0]).unwrap();
        assert_eq!((c.median, c.n, c.coverage), (4.0, 1, 0.0));
        assert!(median_ci(&[f64::NAN]).is_none());
    }

    #[test]
    fn criteria_pass_and_fail_at_the_stated_tolerances() {
        let v = |m, a, b| compare(m, a, b).2;
        assert_eq!(v("completion_time_ms", 100.0, 109.9), Verdict::Pass);
        assert_eq!(v("completion_time_ms", 100.0, 110.0), Verdict::Pass);
        assert_eq!(v("completion_time_ms", 100.0, 110.5), Verdict::Fail);
        assert_eq!(v("delay_ms_median", 71.9, 47.3), Verdict::Fail);
        assert_eq!(v("delay_ms_median", 100.0, 91.0), Verdict::Pass);
        assert_eq!(v("fg_share_path2", 0.21, 0.25), Verdict::Pass);
        assert_eq!(v("fg_share_path2", 0.21, 0.427), Verdict::Fail);
        assert_eq!(v("fg_share_path3", 0.1, 0.16), Verdict::Fail);
        // path 1's share is the complement of path 2's: shown, not counted
        assert_eq!(v("fg_share_path1", 0.9, 0.5), Verdict::Info);
        assert_eq!(v("delay_ms_p95", 10.0, 100.0), Verdict::Info);
        assert_eq!(v("fg_throughput_mbit", 10.0, 1.0), Verdict::Info);
        let (r, d, _) = compare("completion_time_ms", 200.0, 150.0);
        assert_eq!((r, d), (Some(0.75), None));
        let (r, d, _) = compare("fg_share_path2", 0.25, 0.5);
        assert_eq!((r, d), (None, Some(0.25)));
        // relative against 0: no ratio, not counted
        assert_eq!(compare("completion_time_ms", 0.0, 1.0).2, Verdict::Info);
    }
}
