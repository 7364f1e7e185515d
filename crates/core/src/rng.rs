//! Randomness. One explicit seed per run; every component draws from its own
//! stream derived from (run seed, component label), so adding a component or
//! reordering draws in one component never perturbs another.
//!
//! The generator is PCG64 (Mcg variant) from `rand_pcg`, whose output is
//! specified and portable across platforms and crate versions; `SmallRng` and
//! `StdRng` make no such promise.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// The generator every model uses.
#[derive(Clone, Debug)]
pub struct SimRng(Pcg64Mcg);

/// SplitMix64 finaliser: a bijective mix, used to turn (seed, label) into
/// well-separated stream seeds.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over a label, so streams can be named by strings.
pub fn label_hash(label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl SimRng {
    /// A stream for `label` within the run seeded by `seed`.
    pub fn stream(seed: u64, label: &str) -> SimRng {
        Self::from_u64(splitmix64(seed ^ splitmix64(label_hash(label))))
    }

    /// A stream from a raw 64-bit seed.
    pub fn from_u64(seed: u64) -> SimRng {
        let hi = splitmix64(seed);
        let lo = splitmix64(hi ^ seed);
        SimRng(Pcg64Mcg::new(((hi as u128) << 64) | lo as u128 | 1))
    }

    /// A child stream, for components created at run time (per flow, per path).
    pub fn fork(&mut self, label: &str) -> SimRng {
        let base: u64 = self.0.random();
        Self::from_u64(base ^ splitmix64(label_hash(label)))
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// Uniform in [lo, hi] (hi included only by rounding).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        if hi <= lo {
            return lo;
        }
        lo + (hi - lo) * self.uniform()
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.0.random_range(0..n)
        }
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so ln never sees zero.
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Pareto with shape `alpha` and scale (minimum) `xm`.
    pub fn pareto(&mut self, alpha: f64, xm: f64) -> f64 {
        xm / (1.0 - self.uniform()).powf(1.0 / alpha)
    }

    /// Standard normal (Box-Muller; one value per call keeps the stream simple).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Log-normal with the given parameters of the underlying normal.
    pub fn lognormal(&mut self, mu: f64, sigma: f64) -> f64 {
        self.normal(mu, sigma).exp()
    }

    /// Access to the raw generator, for `rand_distr` distributions.
    pub fn raw(&mut self) -> &mut impl Rng {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::stream(7, "path1.loss");
        let mut b = SimRng::stream(7, "path1.loss");
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }

    #[test]
    fn labels_separate_streams() {
        let mut a = SimRng::stream(7, "path1.loss");
        let mut b = SimRng::stream(7, "path2.loss");
        let same = (0..100).filter(|_| a.uniform() == b.uniform()).count();
        assert_eq!(same, 0);
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = SimRng::from_u64(1);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((m - 3.0).abs() < 0.05, "mean {m}");
    }
}
