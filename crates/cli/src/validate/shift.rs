//! Whether a cell's runs can decide its verdict: a distribution-free 95 %
//! interval for the kernel-vs-simulator difference, beside the point
//! criterion of [`super::criteria`].
//!
//! The interval is the Hodges-Lehmann two-sample shift estimate with its
//! Moses interval (Hollander, Wolfe & Chicken, *Nonparametric Statistical
//! Methods*, 3rd ed., sections 4.2 and 4.3): with the simulator's `m` runs
//! `x` and the kernel's `n` runs `y`, the `m n` differences `y_j - x_i`
//! sorted as `d(1) <= ... <= d(mn)`; the estimate is their median and
//! `[d(k), d(mn+1-k)]` covers the shift with probability
//! `1 - 2 P(U <= k - 1)`, `U` the Mann-Whitney statistic under the null
//! (exact distribution below; no resampling, so deterministic). Times and
//! goodputs are compared as a ratio, so on `ln(value)`: the shift is a log
//! ratio and its interval, exponentiated, a ratio interval. Byte shares are
//! compared as a difference, on the values themselves. Below the sizes
//! where no `k` reaches 95 % (one kernel run against few simulated runs)
//! the interval is `[d(1), d(mn)]` with its actual coverage, as
//! [`super::criteria::median_ci`] does.
//!
//! The classification keeps the point criterion: `agree` when the point
//! (the medians) is within the band; `disagree` only when the whole
//! interval lies outside the band; `undecided` when the point is outside
//! but the interval reaches the band, or when the interval does not reach
//! 95 % (one kernel run against fewer than 39 simulated runs); with one
//! kernel run the cell is undecided in any case: its spread is unknown.

use super::criteria::{narrowest_k, Criterion, Verdict, LEVEL};
use serde_json::{json, Value};

/// `P(U <= u)` for `u = 0..=m n`, `U` the Mann-Whitney count of pairs with
/// the `y` above the `x` among `m` x's and `n` y's, every order equally
/// likely. Recurrence on the largest of the `i + j` values: a `y` (chance
/// `j / (i + j)`) lies above all `i` x's, an `x` above none, so
/// `p(i, j, u) = i/(i+j) p(i-1, j, u) + j/(i+j) p(i, j-1, u - i)`.
fn u_cdf(m: usize, n: usize) -> Vec<f64> {
    let len = m * n + 1;
    // prev[j]: p(i - 1, j, .); row i built over j
    let mut prev: Vec<Vec<f64>> = (0..=n)
        .map(|_| {
            let mut v = vec![0.0; len];
            v[0] = 1.0;
            v
        })
        .collect();
    for i in 1..=m {
        let mut cur: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
        let mut first = vec![0.0; len];
        first[0] = 1.0;
        cur.push(first);
        for j in 1..=n {
            let (a, b) = (i as f64 / (i + j) as f64, j as f64 / (i + j) as f64);
            let mut v = vec![0.0; len];
            for (u, x) in v.iter_mut().enumerate() {
                *x = a * prev[j][u] + if u >= i { b * cur[j - 1][u - i] } else { 0.0 };
            }
            cur.push(v);
        }
        prev = cur;
    }
    let mut cdf = prev.swap_remove(n);
    for u in 1..len {
        cdf[u] += cdf[u - 1];
    }
    cdf
}

/// A shift estimate with its interval, on the compared scale (log ratio or
/// difference).
#[derive(Debug, Clone, PartialEq)]
pub struct Shift {
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    /// Actual coverage of `[lo, hi]`: at least [`LEVEL`] when some `k`
    /// reaches it.
    pub coverage: f64,
    /// Simulated and kernel values behind it.
    pub m: usize,
    pub n: usize,
}

/// The Hodges-Lehmann estimate of the shift `y - x` and its Moses interval
/// (the narrowest with coverage at least [`LEVEL`], else `[d(1), d(mn)]`).
/// Non-finite values are left out; `None` when a side has none.
pub fn hodges_lehmann(x: &[f64], y: &[f64]) -> Option<Shift> {
    let fin = |v: &[f64]| -> Vec<f64> { v.iter().copied().filter(|a| a.is_finite()).collect() };
    let (x, y) = (fin(x), fin(y));
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 {
        return None;
    }
    let mut d: Vec<f64> = y
        .iter()
        .flat_map(|b| x.iter().map(move |a| b - a))
        .collect();
    d.sort_by(|a, b| a.total_cmp(b));
    let mn = d.len();
    let estimate = if mn % 2 == 1 {
        d[mn / 2]
    } else {
        (d[mn / 2 - 1] + d[mn / 2]) / 2.0
    };
    let cdf = u_cdf(m, n);
    // the largest k (1-based) whose interval still covers LEVEL
    let (k, coverage) = narrowest_k(mn, LEVEL - 1e-12, |j| cdf[j]);
    Some(Shift {
        estimate,
        lo: d[k - 1],
        hi: d[mn - k],
        coverage: coverage.max(0.0),
        m,
        n,
    })
}

/// The band of a criterion on the compared scale: `ln(1 -+ tol)` for a
/// ratio, `-+ tol` for a difference; `None` for a metric shown only.
fn band(c: Criterion) -> Option<(f64, f64)> {
    match c {
        Criterion::Relative(t) => Some(((1.0 - t).ln(), (1.0 + t).ln())),
        Criterion::Absolute(t) => Some((-t, t)),
        Criterion::Info => None,
    }
}

/// A metric's shift from the simulator's and the kernel's runs: on
/// `ln(value)` for a ratio criterion (non-positive values left out), on the
/// values for a difference; `None` for a metric shown only.
pub fn shift_of(c: Criterion, sim: &[f64], kernel: &[f64]) -> Option<Shift> {
    match c {
        Criterion::Relative(_) => {
            let ln = |v: &[f64]| -> Vec<f64> {
                v.iter().filter(|a| **a > 0.0).map(|a| a.ln()).collect()
            };
            hodges_lehmann(&ln(sim), &ln(kernel))
        }
        Criterion::Absolute(_) => hodges_lehmann(sim, kernel),
        Criterion::Info => None,
    }
}

/// What the runs say about a judged metric.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The point is within the band (the verdict PASS, unchanged).
    Agree,
    /// The point and the whole interval lie outside the band.
    Disagree,
    /// The point is outside, the runs cannot tell: `why`, and the kernel
    /// runs in all that would make the interval clear the band if the
    /// estimate stayed where it is (`None`: not with this many simulated
    /// runs, or the estimate sits on the band's edge); `many_sim`: the
    /// same with the simulator's side made exact (far more simulated runs,
    /// which are cheap): the kernel's share of the interval alone.
    Undecided {
        why: String,
        kernel_runs: Option<u64>,
        many_sim: Option<u64>,
    },
}

impl Decision {
    pub fn as_str(&self) -> &'static str {
        match self {
            Decision::Agree => "agree",
            Decision::Disagree => "disagree",
            Decision::Undecided { .. } => "undecided",
        }
    }
}

/// The most kernel runs an estimate is given for; beyond it the estimate
/// says "not with these simulated runs".
const MAX_RUNS: u64 = 1000;

/// Kernel runs that would decide: the interval's half-width on the side
/// facing the band's near edge, scaled as `sqrt(1/m + 1/n)` (the
/// asymptotic variance of the Hodges-Lehmann shift estimate is
/// proportional to `1/m + 1/n`: Hodges & Lehmann 1963, Ann. Math. Statist.
/// 34, 598-611), must shrink to the estimate's distance from that edge,
/// the estimate and the simulated runs `m` held fixed. An estimate inside
/// the band decides once the interval fits inside it (an agreement the
/// point had missed); one outside once the interval clears the edge.
/// `many_sim`: with `1/m` taken as 0 (the simulated side exact).
pub fn runs_to_decide(s: &Shift, (a, b): (f64, f64), many_sim: bool) -> Option<u64> {
    let e = s.estimate;
    // (distance to the edge, half-width facing it) for each edge that matters
    let need: Vec<(f64, f64)> = if e > b {
        vec![(e - b, e - s.lo)]
    } else if e < a {
        vec![(a - e, s.hi - e)]
    } else {
        vec![(e - a, e - s.lo), (b - e, s.hi - e)]
    };
    let (m, n) = (s.m as f64, s.n as f64);
    let mut scale = f64::INFINITY;
    for (gap, half) in need {
        if half > 0.0 {
            scale = scale.min(gap / half);
        }
    }
    if !scale.is_finite() {
        return Some(s.n as u64);
    }
    // sqrt((1/m' + 1/n') / (1/m + 1/n)) <= scale, m' = m or infinite
    let after = if many_sim { 0.0 } else { 1.0 / m };
    let inv = scale * scale * (1.0 / m + 1.0 / n) - after;
    if inv <= 0.0 {
        return None;
    }
    let runs = (1.0 / inv).ceil().max(n);
    (runs <= MAX_RUNS as f64).then_some(runs as u64)
}

/// The fewest kernel runs, more than `n`, whose interval against `m`
/// simulated runs can reach [`LEVEL`]: the widest interval `[d(1), d(mn)]`
/// misses with `2 P(U = 0) = 2 / C(m + n, n)`. `None` within [`MAX_RUNS`]
/// (one simulated run never gets there: `2 / (n + 1)` needs 39 runs).
fn runs_for_level(m: usize, n: usize) -> Option<u64> {
    let mut p0 = 1.0f64; // P(U = 0) = 1 / C(m + j, j), built over j
    for j in 1..=MAX_RUNS as usize {
        p0 *= j as f64 / (m + j) as f64;
        if j > n && 1.0 - 2.0 * p0 >= LEVEL - 1e-12 {
            return Some(j as u64);
        }
    }
    None
}

/// The decision of a judged metric from its point verdict and its shift
/// (`None` for a metric shown only or without values).
pub fn decide(c: Criterion, verdict: Verdict, shift: Option<&Shift>) -> Option<Decision> {
    let (a, b) = band(c)?;
    match verdict {
        Verdict::Info => return None,
        Verdict::Pass => return Some(Decision::Agree),
        Verdict::Fail => {}
    }
    let Some(s) = shift else {
        return Some(Decision::Undecided {
            why: "no interval (a side without values)".into(),
            kernel_runs: None,
            many_sim: None,
        });
    };
    // with one run, or an interval short of 95 %, at least the runs that
    // give a 95 % interval at all
    let short = s.n == 1 || s.coverage < LEVEL;
    let at_least = |r: Option<u64>| match (short, r) {
        (true, Some(r)) => runs_for_level(s.m, s.n).map(|l| l.max(r)),
        (_, r) => r,
    };
    let kernel_runs = at_least(runs_to_decide(s, (a, b), false));
    let many_sim = at_least(runs_to_decide(s, (a, b), true));
    if s.coverage < LEVEL {
        let why = if s.n == 1 {
            format!(
                "one kernel run: the interval over it and {} simulated runs covers {:.1} %, not 95 %",
                s.m,
                s.coverage * 100.0
            )
        } else {
            format!(
                "{} kernel and {} simulated runs: the interval covers {:.1} %, not 95 %",
                s.n,
                s.m,
                s.coverage * 100.0
            )
        };
        return Some(Decision::Undecided {
            why,
            kernel_runs,
            many_sim,
        });
    }
    if s.n == 1 {
        return Some(Decision::Undecided {
            why: "one kernel run: its spread is unknown".into(),
            kernel_runs,
            many_sim,
        });
    }
    if s.lo > b + 1e-12 || s.hi < a - 1e-12 {
        Some(Decision::Disagree)
    } else {
        Some(Decision::Undecided {
            why: "the point is outside the band, the 95 % interval reaches it".into(),
            kernel_runs,
            many_sim,
        })
    }
}

/// The shift on the scale it is reported on: a ratio kernel/sim
/// (`exp`) for a ratio criterion, the difference for a difference.
pub fn reported(c: Criterion, x: f64) -> f64 {
    match c {
        Criterion::Relative(_) => x.exp(),
        _ => x,
    }
}

/// A row's `shift` entry: the estimate and interval on the reported scale
/// (`ratio`: kernel/sim; `difference`: kernel - sim), coverage and run
/// counts; `null` without one.
pub fn shift_json(c: Criterion, s: Option<&Shift>) -> Value {
    let Some(s) = s else { return Value::Null };
    let scale = match c {
        Criterion::Relative(_) => "ratio (Hodges-Lehmann on ln values)",
        _ => "difference (Hodges-Lehmann)",
    };
    json!({
        "scale": scale,
        "estimate": reported(c, s.estimate),
        "lo": reported(c, s.lo),
        "hi": reported(c, s.hi),
        "coverage": s.coverage,
        "sim_runs": s.m,
        "kernel_runs": s.n,
    })
}

/// A row's `undecided` entry (`null` unless undecided): why, the kernel
/// runs in all that would decide it ([`runs_to_decide`]; `null`: not with
/// these simulated runs) and how many more that is.
pub fn undecided_json(d: &Decision, s: Option<&Shift>) -> Value {
    match d {
        Decision::Undecided {
            why,
            kernel_runs,
            many_sim,
        } => {
            let n = s.map_or(0, |s| s.n as u64);
            json!({
                "why": why,
                "kernel_runs": kernel_runs,
                "more_kernel_runs": kernel_runs.map(|r| r.saturating_sub(n)),
                "kernel_runs_many_sim": many_sim,
            })
        }
        _ => Value::Null,
    }
}

/// A cell's decision from its rows' (the shift's decision of each judged
/// row: `shift_decision` where the row itself is `not checkable` on fewer
/// than 2 paired runs, reproduce/kernel.rs `mark_unjudged`, else
/// `decision`): `disagree` when a row's interval lies outside its band,
/// else `undecided` when a row is, else `fallback` (the point verdict:
/// `agree` or `no verdict`); with the `undecided` entry of its undecided
/// rows merged: their reasons, and the most kernel runs any of them needs
/// (`null` when one cannot be decided by kernel runs alone).
pub fn cell_decision(rows: &[Value], fallback: &str) -> (String, Value) {
    let shift = |r: &Value| -> Value {
        match &r["shift_decision"] {
            Value::Null => r["decision"].clone(),
            d => d.clone(),
        }
    };
    let has = |d: &str| rows.iter().any(|r| shift(r) == d);
    if has("disagree") {
        return ("disagree".into(), Value::Null);
    }
    if !has("undecided") {
        return (fallback.into(), Value::Null);
    }
    let und: Vec<&Value> = rows.iter().filter(|r| shift(r) == "undecided").collect();
    let why: Vec<String> = und
        .iter()
        .map(|r| {
            format!(
                "{}: {}",
                r["metric"].as_str().unwrap_or("?"),
                r["undecided"]["why"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let most = |k: &str| -> Option<u64> {
        und.iter()
            .map(|r| r["undecided"][k].as_u64())
            .try_fold(0u64, |a, x| x.map(|x| a.max(x)))
    };
    let u = json!({
        "why": why.join("; "),
        "kernel_runs": most("kernel_runs"),
        "more_kernel_runs": most("more_kernel_runs"),
    });
    ("undecided".into(), u)
}

/// The clause of a summary line after "N of M cells agree": `; D disagree
/// beyond their 95 % interval; U undecided (about N more kernel runs each,
/// a-b; K not with these simulated runs)`, from each undecided cell's
/// `more_kernel_runs` (`None`: not decidable by kernel runs alone). The
/// "about" is the median.
pub fn clause(disagree: usize, more: &[Option<u64>]) -> String {
    let mut s = format!(
        "; {disagree} disagree beyond their 95 % interval; {} undecided",
        more.len()
    );
    if more.is_empty() {
        return s;
    }
    let mut known: Vec<u64> = more.iter().flatten().copied().collect();
    known.sort_unstable();
    let none = more.len() - known.len();
    let mut parts = Vec::new();
    if let (Some(lo), Some(hi)) = (known.first(), known.last()) {
        let mid = known[(known.len() - 1) / 2];
        let runs = if mid == 1 { "run" } else { "runs" };
        parts.push(if lo == hi {
            format!("about {mid} more kernel {runs} each")
        } else {
            format!("about {mid} more kernel {runs} each, {lo}-{hi}")
        });
    }
    if none > 0 {
        parts.push(format!("{none} not by kernel runs alone"));
    }
    s.push_str(&format!(" ({})", parts.join("; ")));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Mann-Whitney critical values of the printed tables (two-sided
    /// 5 %: reject when U <= c; Hollander, Wolfe & Chicken table A.6 gives
    /// them as rank sums W = U + n(n+1)/2): `P(U <= c) <= 2.5 % < P(U <= c+1)`.
    #[test]
    fn u_distribution_matches_the_printed_critical_values() {
        for (m, n, c) in [
            (5, 5, 2),
            (8, 8, 13),
            (10, 10, 23),
            (20, 20, 127),
            (10, 5, 8),
        ] {
            let cdf = u_cdf(m, n);
            assert!(
                cdf[c] <= 0.025 && cdf[c + 1] > 0.025,
                "{m},{n}: P(U<={c}) = {}, P(U<={}) = {}",
                cdf[c],
                c + 1,
                cdf[c + 1]
            );
            assert!((cdf[m * n] - 1.0).abs() < 1e-12);
        }
        // 2 and 2 by hand: the 6 orders give U = 0, 1, 2, 2, 3, 4
        let cdf = u_cdf(2, 2);
        let want = [1.0 / 6.0, 2.0 / 6.0, 4.0 / 6.0, 5.0 / 6.0, 1.0];
        for (a, b) in cdf.iter().zip(want) {
            assert!((a - b).abs() < 1e-12);
        }
        // one y among m x's: U uniform on 0..=m
        assert!((u_cdf(30, 1)[0] - 1.0 / 31.0).abs() < 1e-12);
    }

    #[test]
    fn hodges_lehmann_interval_by_hand() {
        // x = 1..=10, y = x + 5: every difference 5 - 9 ..= 5 + 9, the
        // estimate exactly 5; m = n = 10 gives k = 24 (c = 23 above)
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|a| a + 5.0).collect();
        let s = hodges_lehmann(&x, &y).unwrap();
        assert_eq!((s.estimate, s.m, s.n), (5.0, 10, 10));
        let mut d: Vec<f64> = y
            .iter()
            .flat_map(|b| x.iter().map(move |a| b - a))
            .collect();
        d.sort_by(|a, b| a.total_cmp(b));
        assert_eq!((s.lo, s.hi), (d[23], d[76]));
        assert_eq!((s.lo, s.hi), (2.0, 8.0));
        assert!(s.coverage >= LEVEL && s.coverage < 0.96, "{s:?}");
        // 3 and 3: no k reaches 95 %; [d(1), d(9)] covers 1 - 2/20 = 90 %
        let s = hodges_lehmann(&[1.0, 2.0, 3.0], &[10.0, 11.0, 13.0]).unwrap();
        assert_eq!((s.estimate, s.lo, s.hi), (9.0, 7.0, 12.0));
        assert!((s.coverage - 0.9).abs() < 1e-12);
        assert!(hodges_lehmann(&[1.0], &[f64::NAN]).is_none());
    }

    fn sim30() -> Vec<f64> {
        // 30 simulated runs spread 1.0 ..= 3.9 (noisy cell)
        (0..30).map(|i| 1.0 + f64::from(i) * 0.1).collect()
    }

    #[test]
    fn a_noisy_cell_is_undecided_a_clear_one_disagrees() {
        let c = Criterion::Relative(0.10);
        // three kernel runs in the same spread, their median x1.4 off the
        // simulator's (2.45): the point fails, the interval reaches the band
        let ker = [2.2, 3.4, 3.6];
        let s = shift_of(c, &sim30(), &ker).unwrap();
        assert_eq!((s.m, s.n), (30, 3));
        assert!(s.coverage >= LEVEL);
        let d = decide(c, Verdict::Fail, Some(&s)).unwrap();
        assert_eq!(d.as_str(), "undecided", "{d:?} {s:?}");
        let Decision::Undecided { kernel_runs, .. } = d else {
            unreachable!()
        };
        assert!(kernel_runs.is_some_and(|r| r > 3), "{kernel_runs:?}");
        // ten kernel runs all three times the simulator's: beyond the band
        let ker: Vec<f64> = sim30().iter().step_by(3).map(|v| v * 3.0).collect();
        let s = shift_of(c, &sim30(), &ker).unwrap();
        assert!(reported(c, s.lo) > 1.1, "{s:?}");
        assert_eq!(decide(c, Verdict::Fail, Some(&s)), Some(Decision::Disagree));
        // one kernel run, however far: undecided, and it says why
        let s = shift_of(c, &sim30(), &[30.0]).unwrap();
        match decide(c, Verdict::Fail, Some(&s)).unwrap() {
            Decision::Undecided { why, .. } => assert!(why.contains("one kernel run"), "{why}"),
            d => panic!("{d:?}"),
        }
        // a point within the band agrees as before; shown-only metrics none
        assert_eq!(decide(c, Verdict::Pass, Some(&s)), Some(Decision::Agree));
        assert_eq!(decide(Criterion::Info, Verdict::Info, None), None);
    }

    #[test]
    fn shares_are_judged_on_the_difference() {
        let c = Criterion::Absolute(0.05);
        let sim: Vec<f64> = (0..30).map(|i| 0.30 + f64::from(i % 5) * 0.01).collect();
        let ker = [0.50, 0.51, 0.52, 0.50, 0.49];
        let s = shift_of(c, &sim, &ker).unwrap();
        assert!((s.estimate - 0.18).abs() < 0.011, "{s:?}");
        assert_eq!(decide(c, Verdict::Fail, Some(&s)), Some(Decision::Disagree));
    }

    #[test]
    fn a_short_interval_asks_for_the_runs_that_reach_95_percent() {
        // 30 simulated runs: two kernel runs reach it (2 / C(32, 2) = 0.4 %)
        assert_eq!(runs_for_level(30, 1), Some(2));
        // 3 and 3 covers 90 %; 3 and 4: 1 - 2/35 = 94.3 %; 3 and 5: 1 - 2/56 = 96.4 %
        assert_eq!(runs_for_level(3, 3), Some(5));
        // one simulated run: 1 - 2 / (n + 1) >= 95 % from n = 39
        assert_eq!(runs_for_level(1, 1), Some(39));
        // one kernel run far beyond the band still asks for a second
        let c = Criterion::Relative(0.10);
        let s = shift_of(c, &sim30(), &[30.0]).unwrap();
        let d = decide(c, Verdict::Fail, Some(&s)).unwrap();
        assert!(
            matches!(
                d,
                Decision::Undecided {
                    kernel_runs: Some(2),
                    ..
                }
            ),
            "{d:?}"
        );
    }

    #[test]
    fn the_clause_counts_and_estimates() {
        assert_eq!(
            clause(0, &[]),
            "; 0 disagree beyond their 95 % interval; 0 undecided"
        );
        assert_eq!(
            clause(2, &[Some(7), Some(3), None, Some(20)]),
            "; 2 disagree beyond their 95 % interval; 4 undecided \
             (about 7 more kernel runs each, 3-20; 1 not by kernel runs alone)"
        );
        assert_eq!(
            clause(0, &[Some(4)]),
            "; 0 disagree beyond their 95 % interval; 1 undecided (about 4 more kernel runs each)"
        );
    }

    #[test]
    fn runs_to_decide_scales_the_half_width() {
        // estimate 0.2 above a band [-0.1, 0.1], half-width 0.2 toward it,
        // m = n = 10: the half-width must halve, 1/10 + 1/n' = (1/4)(1/5)
        // has no solution (1/m alone is 0.1 > 0.05): not with 10 simulated runs
        let s = Shift {
            estimate: 0.2,
            lo: 0.0,
            hi: 0.4,
            coverage: 0.95,
            m: 10,
            n: 10,
        };
        assert_eq!(runs_to_decide(&s, (-0.1, 0.1), false), None);
        // the simulated side exact: 1/n' = (1/4)(0.2), n' = 20
        assert_eq!(runs_to_decide(&s, (-0.1, 0.1), true), Some(20));
        // with 1000 simulated runs: 1/n' = (1/4)(0.101) - 0.001, n' = 42
        let s = Shift { m: 1000, ..s };
        assert_eq!(runs_to_decide(&s, (-0.1, 0.1), false), Some(42));
    }
}
