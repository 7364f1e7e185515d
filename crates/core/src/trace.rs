//! Capacity traces in Mahimahi's format (Netravali et al., USENIX ATC 2015):
//! one integer millisecond timestamp per line, each a delivery opportunity for
//! one MTU-sized packet (Mahimahi counts 1504 bytes; we use 1500, the IP MTU).
//! Several opportunities may share a timestamp. The trace repeats with a
//! period equal to its last timestamp, as `mm-link` loops it.

use crate::time::{Nanos, MS};

/// Bytes one delivery opportunity can carry.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// Largest timestamp accepted, ms (10^10 ms = 116 days, the longest run
/// mptlab simulates). Times are kept in u64 nanoseconds: a bounded period
/// keeps `cycle * period + offset` far below overflow (1.8e19 ns) for any
/// run, where unbounded stamps near 1.8e13 ms used to wrap.
pub const MAX_TIMESTAMP_MS: u64 = 10_000_000_000;

#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Opportunity times within one period, non-decreasing, in ms.
    pub opportunities_ms: Vec<u64>,
    /// Period after which the trace repeats, in ms (> 0).
    pub period_ms: u64,
}

impl Trace {
    /// Parse a trace. `origin` names the file in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Trace, String> {
        let mut ops = Vec::new();
        let mut last = 0u64;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let v: u64 = line.parse().map_err(|_| {
                format!("{origin}:{}: expected a non-negative integer millisecond timestamp, found {line:?}", i + 1)
            })?;
            if v > MAX_TIMESTAMP_MS {
                return Err(format!(
                    "{origin}:{}: timestamp {v} ms is beyond the largest accepted, {MAX_TIMESTAMP_MS} ms",
                    i + 1
                ));
            }
            if v < last {
                return Err(format!(
                    "{origin}:{}: timestamps must not decrease (found {v} after {last})",
                    i + 1
                ));
            }
            last = v;
            ops.push(v);
        }
        if ops.is_empty() {
            return Err(format!("{origin}: trace has no delivery opportunities"));
        }
        if last == 0 {
            return Err(format!(
                "{origin}: trace period is 0 ms (last timestamp must be > 0)"
            ));
        }
        Ok(Trace {
            opportunities_ms: ops,
            period_ms: last,
        })
    }

    /// A constant-rate trace, handy for tests: `per_ms` opportunities each ms.
    pub fn constant(per_ms: usize, period_ms: u64) -> Trace {
        let mut ops = Vec::new();
        for t in 1..=period_ms {
            for _ in 0..per_ms {
                ops.push(t);
            }
        }
        Trace {
            opportunities_ms: ops,
            period_ms,
        }
    }

    /// Mean capacity in bits per second.
    pub fn mean_rate_bps(&self) -> f64 {
        self.opportunities_ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 * 1000.0
            / self.period_ms as f64
    }
}

/// Walks a trace's delivery opportunities in time order, looping it.
#[derive(Clone, Debug)]
pub struct TraceCursor {
    idx: usize,
    cycle: u64,
}

impl TraceCursor {
    pub fn new() -> Self {
        TraceCursor { idx: 0, cycle: 0 }
    }

    /// Time of the current opportunity.
    #[inline]
    pub fn time(&self, tr: &Trace) -> Nanos {
        // saturating: with timestamps <= MAX_TIMESTAMP_MS this never
        // saturates within a run; a saturated time is "never", not a wrap
        self.cycle
            .saturating_mul(tr.period_ms)
            .saturating_add(tr.opportunities_ms[self.idx])
            .saturating_mul(MS)
    }

    /// Move to the next opportunity.
    #[inline]
    pub fn advance(&mut self, tr: &Trace) {
        self.idx += 1;
        if self.idx == tr.opportunities_ms.len() {
            self.idx = 0;
            self.cycle += 1;
        }
    }

    /// Skip to the first opportunity at or after `t`.
    pub fn seek(&mut self, tr: &Trace, t: Nanos) {
        let period = tr.period_ms.saturating_mul(MS);
        if self.time(tr) >= t {
            return;
        }
        // Jump whole periods first so long idle gaps cost O(log n). The
        // cycle holding the first opportunity at or after t (t > 0 here):
        // the last opportunity of cycle c is at (c + 1) x period, so an
        // opportunity at exactly k x period belongs to cycle k - 1 (t /
        // period skipped it).
        let target_cycle = (t - 1) / period;
        if target_cycle > self.cycle {
            self.cycle = target_cycle;
            self.idx = 0;
        }
        let within = t - self.cycle.saturating_mul(period);
        let pos = tr.opportunities_ms.partition_point(|&o| o * MS < within);
        if pos >= tr.opportunities_ms.len() {
            self.cycle += 1;
            self.idx = 0;
            // Opportunities start at >= 0 ms, so the next cycle's first one is >= t.
        } else {
            self.idx = pos;
        }
        debug_assert!(self.time(tr) >= t);
    }
}

impl Default for TraceCursor {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_computes_rate() {
        let t = Trace::parse("1\n1\n2\n3\n4\n", "x").unwrap();
        assert_eq!(t.period_ms, 4);
        // 5 opportunities of 1500 B per 4 ms = 15 Mbit/s
        assert!((t.mean_rate_bps() - 15e6).abs() < 1.0);
    }

    #[test]
    fn rejects_bad_lines_with_location() {
        let e = Trace::parse("1\nabc\n", "wifi.trace").unwrap_err();
        assert!(e.contains("wifi.trace:2"), "{e}");
        assert!(Trace::parse("3\n2\n", "t")
            .unwrap_err()
            .contains("decrease"));
        assert!(Trace::parse("\n", "t").unwrap_err().contains("no delivery"));
    }

    /// fuzz/regressions/mahimahi_trace/: a 6e12 ms timestamp overflowed the
    /// cursor's u64 nanoseconds (a panic in debug builds, a wrap-around to a
    /// near-zero time in release builds).
    #[test]
    fn rejects_timestamps_beyond_the_bound() {
        let e = Trace::parse("1\n6006000006000\n", "big.trace").unwrap_err();
        assert!(
            e.starts_with("big.trace:2: timestamp 6006000006000 ms is beyond"),
            "{e}"
        );
        let t = Trace::parse(&format!("{MAX_TIMESTAMP_MS}\n"), "x").unwrap();
        let mut c = TraceCursor::new();
        // the longest run (10^7 s) and more, without overflow
        c.seek(&t, 2 * 10_000_000 * 1000 * MS + 1);
        assert_eq!(c.time(&t), 3 * MAX_TIMESTAMP_MS * MS);
    }

    #[test]
    fn bounds_timestamps() {
        let e = Trace::parse("1\n18000000000000\n", "big.trace").unwrap_err();
        assert!(e.contains("big.trace:2") && e.contains("beyond"), "{e}");
        let t = Trace::parse(&format!("1\n{MAX_TIMESTAMP_MS}\n"), "x").unwrap();
        let mut c = TraceCursor::new();
        for _ in 0..5 {
            c.advance(&t);
        }
        // cycle 2 of a 1e10 ms period: 2e16 ns + 1 ms, no wrap
        assert_eq!(c.time(&t), (2 * MAX_TIMESTAMP_MS + MAX_TIMESTAMP_MS) * MS);
    }

    #[test]
    fn cursor_loops_and_seeks() {
        let t = Trace::parse("2\n5\n", "x").unwrap();
        let mut c = TraceCursor::new();
        assert_eq!(c.time(&t), 2 * MS);
        c.advance(&t);
        assert_eq!(c.time(&t), 5 * MS);
        c.advance(&t);
        assert_eq!(c.time(&t), 7 * MS);
        c.seek(&t, 23 * MS); // period 5: cycle 4 starts at 20 -> 22, 25
        assert_eq!(c.time(&t), 25 * MS);
        c.seek(&t, 1001 * MS);
        assert_eq!(c.time(&t), 1002 * MS);
        // exactly on a period boundary: the opportunity at 1000 ms (the
        // last of cycle 199, at 199 x 5 + 5) is the first at or after
        // it (this seek used to skip it, to 1002 ms)
        let mut c = TraceCursor::new();
        c.seek(&t, 1000 * MS);
        assert_eq!(c.time(&t), 1000 * MS);
    }
}
