//! A small histogram of nanosecond durations: exact to 1 us up to 20 ms, then
//! a max. Fixed memory, O(1) record, good enough for p50/p99 of timer errors.

const BUCKET_NS: u64 = 1_000;
const BUCKETS: usize = 20_000;

#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    over: u64,
    n: u64,
    max: u64,
    sum: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            over: 0,
            n: 0,
            max: 0,
            sum: 0,
        }
    }
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = (v / BUCKET_NS) as usize;
        if b < BUCKETS {
            self.counts[b] += 1;
        } else {
            self.over += 1;
        }
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// Upper edge of the bucket holding quantile `q` (0 when empty; the max
    /// when it falls beyond the last bucket).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut acc = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= rank {
                return ((i as u64 + 1) * BUCKET_NS).min(self.max);
            }
        }
        self.max
    }

    pub fn merge(&mut self, o: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.over += o.over;
        self.n += o.n;
        self.sum += o.sum;
        self.max = self.max.max(o.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles() {
        let mut h = Histogram::default();
        for v in 0..100u64 {
            h.record(v * 1000 + 500);
        }
        assert_eq!(h.count(), 100);
        assert_eq!(h.quantile(0.5), 50_000);
        assert_eq!(h.quantile(0.99), 99_000);
        assert_eq!(h.quantile(1.0), 99_500);
        h.record(1_000_000_000);
        assert_eq!(h.quantile(1.0), 1_000_000_000);
        assert_eq!(Histogram::default().quantile(0.5), 0);
    }
}
