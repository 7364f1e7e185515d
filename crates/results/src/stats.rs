//! Statistics for run and sweep summaries: the per-run median / p95 / mean
//! both drivers report, mean, median, Student-t 95 % confidence interval of
//! the mean, box-plot statistics, per-path shares.
//!
//! No dependency: the t quantile comes from a table (df 1..30, exact to the
//! 6 printed digits) and a Cornish-Fisher expansion beyond (error < 2e-6 for
//! df > 30, checked in the tests against published values).

use crate::rows::Row;
use mptlab_core::time::{to_ms, Nanos};
use serde::Serialize;

/// A time in ms, or null (for the nullable time columns of the rows).
pub fn opt_ms(t: Option<Nanos>) -> Option<f64> {
    t.map(to_ms)
}

/// Median, 95th percentile (nearest rank) and mean of `v` (sorted in place;
/// not empty): the per-run `delay_ms_*` and similar summary metrics of the
/// simulator and of emulation.
pub fn median_p95_mean(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| v[((p * (v.len() - 1) as f64).round()) as usize];
    (q(0.5), q(0.95), v.iter().sum::<f64>() / v.len() as f64)
}

/// Two-sided 95 % Student t quantile t(0.975, df), df = 1..=30.
const T975: [f64; 30] = [
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
    2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
    2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
    2.048407, 2.045230, 2.042272,
];

/// t(0.975, df): the factor of the 95 % confidence interval of a mean of
/// df + 1 values. NaN for df = 0.
pub fn t975(df: u64) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T975[df as usize - 1],
        _ => {
            // Cornish-Fisher expansion of the t quantile around z(0.975)
            let z = 1.959963984540054_f64;
            let v = df as f64;
            let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
            z + (z3 + z) / (4.0 * v)
                + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
                + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v.powi(3))
                + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z)
                    / (92160.0 * v.powi(4))
        }
    }
}

/// Quantile `q` in [0, 1] of sorted values, linear interpolation between
/// order statistics (R type 7, numpy's default).
pub fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let h = (v.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// Everything a sweep summary reports about one metric of one point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Describe {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    /// 95 % confidence interval of the mean (Student t); null for n < 2.
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    pub boxplot: BoxPlot,
}

/// Tukey box plot: quartiles (type 7), whiskers at the most extreme values
/// within 1.5 IQR of the box, and the values beyond them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxPlot {
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub whisker_low: f64,
    pub whisker_high: f64,
    pub outliers: Vec<f64>,
}

impl BoxPlot {
    pub fn of_sorted(v: &[f64]) -> BoxPlot {
        let (q1, median, q3) = (
            quantile_sorted(v, 0.25),
            quantile_sorted(v, 0.5),
            quantile_sorted(v, 0.75),
        );
        let (lo, hi) = (q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1));
        let inside = || v.iter().copied().filter(|x| *x >= lo && *x <= hi);
        BoxPlot {
            q1,
            median,
            q3,
            whisker_low: inside().fold(f64::INFINITY, f64::min),
            whisker_high: inside().fold(f64::NEG_INFINITY, f64::max),
            outliers: v.iter().copied().filter(|x| *x < lo || *x > hi).collect(),
        }
    }
}

impl Describe {
    /// Statistics of the finite values (non-finite ones are dropped); None if none.
    pub fn of(values: &[f64]) -> Option<Describe> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let half = (n > 1).then(|| t975(n as u64 - 1) * stddev / (n as f64).sqrt());
        Some(Describe {
            n,
            mean,
            median: quantile_sorted(&v, 0.5),
            stddev,
            min: v[0],
            max: v[n - 1],
            ci95_low: half.map(|h| mean - h),
            ci95_high: half.map(|h| mean + h),
            boxplot: BoxPlot::of_sorted(&v),
        })
    }
}

/// Mean share of traffic per path over runs, from `paths` tables:
/// for every (role, side, path) the mean of `share_bytes` over the runs in
/// which it appears. Rows are in first-appearance order.
pub fn path_shares(paths: &[&crate::Table]) -> Vec<PathShare> {
    // read by column name, leniently (tables of older run files may lack
    // columns): a row without a path is skipped
    let col = crate::rows::PathRow::COL;
    let mut out: Vec<PathShare> = Vec::new();
    let mut sums: Vec<(f64, f64, usize)> = Vec::new();
    for t in paths {
        for r in 0..t.num_rows() {
            let s = |c: &str| match t.get(r, c) {
                Some(crate::Value::Str(s)) => s,
                _ => String::new(),
            };
            let (role, side) = (s(col.role), s(col.side));
            let Some(path) = t.get(r, col.path).and_then(|v| v.as_f64()) else {
                continue;
            };
            let path = path as u64;
            let sb = t.get(r, col.share_bytes).and_then(|v| v.as_f64());
            let sp = t.get(r, col.share_packets).and_then(|v| v.as_f64());
            let i = match out
                .iter()
                .position(|p| p.role == role && p.side == side && p.path == path)
            {
                Some(i) => i,
                None => {
                    out.push(PathShare {
                        role,
                        side,
                        path,
                        share_bytes: f64::NAN,
                        share_packets: f64::NAN,
                        rows: 0,
                    });
                    sums.push((0.0, 0.0, 0));
                    out.len() - 1
                }
            };
            sums[i].0 += sb.unwrap_or(0.0);
            sums[i].1 += sp.unwrap_or(0.0);
            sums[i].2 += 1;
        }
    }
    for (p, (b, k, n)) in out.iter_mut().zip(sums) {
        p.rows = n;
        p.share_bytes = b / n as f64;
        p.share_packets = k / n as f64;
    }
    out
}

/// One row of [`path_shares`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathShare {
    pub role: String,
    pub side: String,
    pub path: u64,
    /// Mean over rows (flows x runs) of the byte share.
    pub share_bytes: f64,
    pub share_packets: f64,
    /// Rows averaged.
    pub rows: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_published_values() {
        // R: qt(0.975, df)
        for (df, want) in [
            (1, 12.7062047),
            (2, 4.3026527),
            (10, 2.2281389),
            (30, 2.0422725),
            (31, 2.0395134),
            (40, 2.0210754),
            (60, 2.0002978),
            (120, 1.9799304),
            (1000, 1.9623391),
        ] {
            let got = t975(df);
            assert!((got - want).abs() < 2e-6, "df {df}: {got} vs {want}");
        }
        assert!(t975(0).is_nan());
        assert!((t975(u32::MAX as u64) - 1.959964).abs() < 1e-6);
    }

    #[test]
    fn describe_known_sample() {
        let d = Describe::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!((d.n, d.mean, d.median), (8, 5.0, 4.5));
        assert!((d.stddev - 2.138090).abs() < 1e-6);
        // 5 +- 2.364624 * 2.13809 / sqrt(8)
        assert!((d.ci95_low.unwrap() - 3.212504).abs() < 1e-5, "{d:?}");
        assert!((d.ci95_high.unwrap() - 6.787496).abs() < 1e-5);
        assert_eq!((d.boxplot.q1, d.boxplot.q3), (4.0, 5.5));
        let one = Describe::of(&[3.0, f64::NAN]).unwrap();
        assert_eq!((one.n, one.ci95_low), (1, None));
        assert!(Describe::of(&[]).is_none());
    }

    #[test]
    fn boxplot_whiskers_and_outliers() {
        let b = BoxPlot::of_sorted(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 100.0]);
        // q1 3, q3 7, IQR 4: fences -3 and 13
        assert_eq!((b.q1, b.median, b.q3), (3.0, 5.0, 7.0));
        assert_eq!((b.whisker_low, b.whisker_high), (1.0, 8.0));
        assert_eq!(b.outliers, [100.0]);
    }

    #[test]
    fn shares_average_over_runs() {
        let mut a = crate::schema::paths();
        let mut b = crate::schema::paths();
        for (t, s1) in [(&mut a, 0.75), (&mut b, 0.25)] {
            for (p, s) in [(1u64, s1), (2, 1.0 - s1)] {
                t.push_named(&[
                    ("role", crate::Value::Str("fg".into())),
                    ("side", crate::Value::Str("server".into())),
                    ("path", crate::Value::U64(p)),
                    ("share_bytes", crate::Value::F64(s)),
                    ("share_packets", crate::Value::F64(s)),
                ])
                .unwrap();
            }
        }
        let s = path_shares(&[&a, &b]);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].path, s[0].share_bytes, s[0].rows), (1, 0.5, 2));
    }

    #[test]
    fn median_p95_mean_use_nearest_rank_and_opt_ms_converts_ns() {
        let mut v: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        // ranks round(0.5 * 19) = 10 and round(0.95 * 19) = 18 (0-based)
        assert_eq!(median_p95_mean(&mut v), (11.0, 19.0, 10.5));
        assert_eq!(v[0], 1.0, "sorted in place");
        assert_eq!(opt_ms(Some(2_500_000)), Some(2.5));
        assert_eq!(opt_ms(None), None);
    }
}
