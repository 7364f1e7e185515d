//! Streaming statistics of waiting times (seed 002's connection-level
//! out-of-order delay) with memory bounded in simulated time.
//!
//! A long run delivers one segment after another, and keeping one value per
//! delivered segment (as this crate once did) costs memory linear in the
//! run's length. `DelayStats` keeps instead:
//! - exact counts: all samples, zero samples (segments that arrived in order),
//!   samples above the interactivity bound (150 ms), the exact sum and maximum;
//! - the positive samples themselves while there are at most
//!   [`EXACT_CAP`] of them, so short runs report exact nearest-rank
//!   quantiles and a mean summed in the same (sorted) order as before;
//! - beyond that, a log-linear (HDR-style) histogram of the positive
//!   samples: values below 2^[`SUB_BITS`] ns have one bucket each, larger
//!   values share a bucket with values within a factor 1 + 2^-`SUB_BITS` of
//!   them. A quantile read from it is the bucket's midpoint (clamped to the
//!   exact maximum), so its relative error is at most 2^-(`SUB_BITS` + 1)
//!   = 0.39 %; the mean is then the exact integer sum over the count.
//!
//! The histogram grows to the highest bucket used: at most
//! (64 - SUB_BITS + 1) * 2^SUB_BITS counters (58 KiB), about 20 KiB for
//! delays up to a few seconds.

use crate::time::Nanos;

/// Positive samples kept exactly before switching to the histogram: 2^20
/// values (8 MiB at most, allocated as they come). Exact where cheap: every
/// run of the seeds' experiments stays below it, so their figures are the
/// exact ones; only very long runs (about ten simulated minutes of a
/// saturated MPTCP download) reach the histogram.
pub const EXACT_CAP: usize = 1 << 20;
/// Linear sub-buckets per power of two: 2^7 = 128.
pub const SUB_BITS: u32 = 7;
/// Seed 002 sec. 5: the interactivity bound a waiting segment may exceed.
pub const INTERACTIVE_BOUND: Nanos = 150_000_000;

/// `repr(C)`, the counts every sample moves first (`n`, `zeros`: all an
/// in-order segment's zero delay touches, docs/performance.md "Session
/// 32"), `sum` after the 8-byte fields so the record stays 96 bytes.
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct DelayStats {
    n: u64,
    zeros: u64,
    over_bound: u64,
    max: Nanos,
    sum: u128,
    /// The positive samples, while `hist` is empty (exact mode).
    exact: Vec<Nanos>,
    /// Log-linear histogram of the positive samples, once `exact` spilled.
    hist: Vec<u64>,
}

/// The end of the counts a zero sample moves (`n`, `zeros`), from the
/// record's start: a record that embeds one places these bytes.
pub const COUNTS_END: usize = std::mem::offset_of!(DelayStats, zeros) + 8;

/// What the run summary reports of a set of delays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelaySummary {
    pub n: u64,
    /// Share of samples that waited at all.
    pub fraction_positive: f64,
    /// Share of samples that waited more than [`INTERACTIVE_BOUND`].
    pub fraction_over_bound: f64,
    pub mean_ms: f64,
    /// Nearest-rank 95th percentile (exact while [`DelayStats::is_exact`]).
    pub p95_ms: f64,
}

fn bucket(v: Nanos) -> usize {
    let h = 63 - v.leading_zeros();
    if h < SUB_BITS {
        return v as usize;
    }
    let shift = h - SUB_BITS;
    // (v >> shift) is in [2^SUB_BITS, 2^(SUB_BITS+1))
    ((shift as usize + 1) << SUB_BITS) + ((v >> shift) as usize - (1 << SUB_BITS))
}

/// Midpoint of a bucket's value range [lo, lo + width).
fn bucket_value(i: usize) -> Nanos {
    let sub = 1usize << SUB_BITS;
    if i < sub {
        return i as Nanos;
    }
    let shift = (i >> SUB_BITS) as u32 - 1;
    let lo = ((sub + (i & (sub - 1))) as Nanos) << shift;
    lo + ((1u64 << shift) - 1) / 2
}

impl DelayStats {
    pub fn new() -> Self {
        Self::default()
    }

    /// One sample: a segment that waited `d` ns (0 when it arrived in order).
    /// Inlined, with the histogram out of line: MPTCP's receiver pushes a
    /// sample for every out-of-order segment it delivers (73,437 in the
    /// htsim scenario), nearly all in exact mode, and the call's prologue
    /// and epilogue were a third of its cost (docs/performance.md
    /// "Session 23 pass: the htsim scenario's per-packet path").
    #[inline]
    pub fn push(&mut self, d: Nanos) {
        self.n += 1;
        if d == 0 {
            self.zeros += 1;
            return;
        }
        if d > INTERACTIVE_BOUND {
            self.over_bound += 1;
        }
        self.sum += d as u128;
        self.max = self.max.max(d);
        if self.hist.is_empty() && self.exact.len() < EXACT_CAP {
            self.exact.push(d);
        } else {
            self.push_hist(d);
        }
    }

    /// `push`'s histogram mode: spills the exact samples the first time.
    #[cold]
    #[inline(never)]
    fn push_hist(&mut self, d: Nanos) {
        if self.hist.is_empty() {
            self.spill();
        }
        self.hist_add(d, 1);
    }

    fn hist_add(&mut self, d: Nanos, c: u64) {
        let b = bucket(d);
        if b >= self.hist.len() {
            self.hist.resize(b + 1, 0);
        }
        self.hist[b] += c;
    }

    /// Move the exact samples into the histogram.
    fn spill(&mut self) {
        for d in std::mem::take(&mut self.exact) {
            self.hist_add(d, 1);
        }
    }

    /// Add another set of samples (e.g. all foreground connections). Stays
    /// exact only if both are exact, so merging never holds more samples than
    /// the inputs already hold.
    pub fn merge(&mut self, o: &DelayStats) {
        self.n += o.n;
        self.zeros += o.zeros;
        self.over_bound += o.over_bound;
        self.sum += o.sum;
        self.max = self.max.max(o.max);
        if self.hist.is_empty() && o.hist.is_empty() {
            self.exact.extend_from_slice(&o.exact);
            return;
        }
        self.spill();
        for &d in &o.exact {
            self.hist_add(d, 1);
        }
        for (b, &c) in o.hist.iter().enumerate() {
            if c > 0 {
                if b >= self.hist.len() {
                    self.hist.resize(b + 1, 0);
                }
                self.hist[b] += c;
            }
        }
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// True while quantiles are exact (no sample went to the histogram).
    pub fn is_exact(&self) -> bool {
        self.hist.is_empty()
    }

    /// Samples that waited (positive delay).
    pub fn positive(&self) -> u64 {
        self.n - self.zeros
    }

    pub fn max(&self) -> Nanos {
        self.max
    }

    /// Heap bytes held (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.exact.capacity() * 8 + self.hist.capacity() * 8
    }

    /// Nearest-rank quantile at index round(p (n - 1)) of the sorted samples,
    /// as `mptlab_results::stats::median_p95_mean` takes it. None if empty.
    pub fn quantile(&self, p: f64) -> Option<Nanos> {
        if self.n == 0 {
            return None;
        }
        let r = (p * (self.n - 1) as f64).round() as u64;
        if r < self.zeros {
            return Some(0);
        }
        let mut r = r - self.zeros;
        if self.is_exact() {
            let mut v = self.exact.clone();
            let (_, x, _) = v.select_nth_unstable(r as usize);
            return Some(*x);
        }
        for (b, &c) in self.hist.iter().enumerate() {
            if r < c {
                return Some(bucket_value(b).min(self.max));
            }
            r -= c;
        }
        Some(self.max)
    }

    /// The run summary's figures, None if there are no samples.
    pub fn summary(&self) -> Option<DelaySummary> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let to_ms = |d: Nanos| d as f64 / 1e6;
        let mean_ms = if self.is_exact() {
            // summed over the sorted values in ms, as the per-sample vector was
            // (zeros add nothing), so short runs keep their exact figures
            let mut v = self.exact.clone();
            v.sort_unstable();
            v.iter().fold(0.0, |a, &d| a + to_ms(d)) / n
        } else {
            self.sum as f64 / 1e6 / n
        };
        Some(DelaySummary {
            n: self.n,
            fraction_positive: self.positive() as f64 / n,
            fraction_over_bound: self.over_bound as f64 / n,
            mean_ms,
            p95_ms: to_ms(self.quantile(0.95).unwrap_or(0)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_within_relative_error() {
        let mut last = 0;
        for v in (1..2_000_000u64).step_by(7).chain([u64::MAX / 3, u64::MAX]) {
            let b = bucket(v);
            assert!(b >= last, "bucket order at {v}");
            last = b;
            let m = bucket_value(b) as f64;
            let err = (m - v as f64).abs() / v as f64;
            assert!(err <= 1.0 / 256.0, "v {v} mid {m} err {err}");
        }
        assert_eq!(bucket_value(bucket(100)), 100, "small values exact");
    }

    #[test]
    fn exact_mode_matches_sorted_vector_nearest_rank() {
        let mut s = DelayStats::new();
        let vals: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 1013 * 1000).collect();
        for &v in &vals {
            s.push(v);
        }
        let mut sorted = vals.clone();
        sorted.sort();
        let r = (0.95 * 999.0f64).round() as usize;
        assert!(s.is_exact());
        assert_eq!(s.quantile(0.95), Some(sorted[r]));
        let mut ms: Vec<f64> = sorted.iter().map(|&d| d as f64 / 1e6).collect();
        ms.sort_by(|a, b| a.total_cmp(b));
        let mean = ms.iter().sum::<f64>() / 1000.0;
        assert_eq!(s.summary().unwrap().mean_ms, mean);
    }

    #[test]
    fn histogram_mode_stays_bounded_and_close() {
        let mut s = DelayStats::new();
        // enough positive samples (3 in 4) to pass the exact cap
        let n = 2 * EXACT_CAP as u64;
        for i in 0..n {
            // 0 for every fourth, else 1..=500 ms in a scrambled order
            s.push(if i % 4 == 0 {
                0
            } else {
                (i * 104_729 % 500 + 1) * 1_000_000
            });
        }
        assert!(!s.is_exact());
        assert!(s.heap_bytes() < 64 * 1024, "{} bytes", s.heap_bytes());
        let sm = s.summary().unwrap();
        assert_eq!(sm.fraction_positive, 0.75);
        // exact p95 over the same samples
        let mut v: Vec<u64> = (0..n)
            .map(|i| {
                if i % 4 == 0 {
                    0
                } else {
                    (i * 104_729 % 500 + 1) * 1_000_000
                }
            })
            .collect();
        v.sort();
        let exact = v[(0.95 * (n - 1) as f64).round() as usize] as f64 / 1e6;
        assert!(
            (sm.p95_ms - exact).abs() / exact <= 1.0 / 256.0,
            "{} vs {exact}",
            sm.p95_ms
        );
        let mean = v.iter().sum::<u64>() as f64 / 1e6 / n as f64;
        assert!((sm.mean_ms - mean).abs() < 1e-9);
        let over = v.iter().filter(|&&d| d > INTERACTIVE_BOUND).count() as f64 / n as f64;
        assert_eq!(sm.fraction_over_bound, over);
    }

    #[test]
    fn merge_of_exact_sets_is_exact() {
        let (mut a, mut b) = (DelayStats::new(), DelayStats::new());
        a.push(0);
        a.push(30);
        b.push(5);
        a.merge(&b);
        assert!(a.is_exact());
        assert_eq!(a.len(), 3);
        assert_eq!(a.quantile(1.0), Some(30));
        assert_eq!(a.quantile(0.5), Some(5));
    }
}
