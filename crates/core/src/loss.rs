//! Random loss models applied by links, one decision per packet.
//!
//! - Bernoulli: each packet is lost independently with probability `p`.
//! - Gilbert-Elliott (Gilbert 1960, Elliott 1963): a two-state Markov chain
//!   (Good, Bad) stepped once per packet; a packet is lost with probability
//!   `loss_good` in Good and `loss_bad` in Bad. With `loss_good = 0` and
//!   `loss_bad = 1` it is the simple Gilbert model of bursty loss. The mean
//!   loss rate is pi_B * loss_bad + pi_G * loss_good with
//!   pi_B = p_gb / (p_gb + p_bg) (see `mean_loss`).

use crate::rng::SimRng;

#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    Bernoulli { p: f64 },
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64 },
}

impl LossModel {
    /// Long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                if p_gb + p_bg == 0.0 {
                    return loss_good;
                }
                let pi_b = p_gb / (p_gb + p_bg);
                pi_b * loss_bad + (1.0 - pi_b) * loss_good
            }
        }
    }

    /// Check parameters are probabilities.
    pub fn validate(&self) -> Result<(), String> {
        let check = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} must be a probability in [0, 1], found {v}"))
            }
        };
        match *self {
            LossModel::None => Ok(()),
            LossModel::Bernoulli { p } => check("p", p),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                check("p_gb", p_gb)?;
                check("p_bg", p_bg)?;
                check("loss_good", loss_good)?;
                check("loss_bad", loss_bad)
            }
        }
    }

    pub fn names() -> &'static [&'static str] {
        &["none", "bernoulli", "gilbert-elliott"]
    }
}

/// A loss model with its per-link state and random stream.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    bad: bool,
    rng: SimRng,
}

impl LossProcess {
    pub fn new(model: LossModel, rng: SimRng) -> Self {
        LossProcess { model, bad: false, rng }
    }

    /// Decide whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli { p } => self.rng.chance(p),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                // Step the chain first, then draw the loss in the new state.
                if self.bad {
                    if self.rng.chance(p_bg) {
                        self.bad = false;
                    }
                } else if self.rng.chance(p_gb) {
                    self.bad = true;
                }
                self.rng.chance(if self.bad { loss_bad } else { loss_good })
            }
        }
    }

    pub fn model(&self) -> &LossModel {
        &self.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(model: LossModel, n: usize) -> f64 {
        let mut lp = LossProcess::new(model, SimRng::from_u64(42));
        (0..n).filter(|_| lp.lose()).count() as f64 / n as f64
    }

    #[test]
    fn bernoulli_rate() {
        let r = rate(LossModel::Bernoulli { p: 0.02 }, 500_000);
        assert!((r - 0.02).abs() < 0.001, "{r}");
    }

    #[test]
    fn gilbert_elliott_mean_and_burstiness() {
        let m = LossModel::GilbertElliott { p_gb: 0.01, p_bg: 0.3, loss_good: 0.0, loss_bad: 1.0 };
        let expect = m.mean_loss();
        let r = rate(m.clone(), 1_000_000);
        assert!((r - expect).abs() < 0.003, "{r} vs {expect}");
        // Bursts: mean burst length is 1 / p_bg = 3.33 packets.
        let mut lp = LossProcess::new(m, SimRng::from_u64(7));
        let (mut bursts, mut lost, mut prev) = (0usize, 0usize, false);
        for _ in 0..1_000_000 {
            let l = lp.lose();
            if l {
                lost += 1;
                if !prev {
                    bursts += 1;
                }
            }
            prev = l;
        }
        let mean_burst = lost as f64 / bursts as f64;
        assert!((mean_burst - 1.0 / 0.3).abs() < 0.15, "{mean_burst}");
    }

    #[test]
    fn validation_rejects_non_probabilities() {
        assert!(LossModel::Bernoulli { p: 1.5 }.validate().is_err());
        assert!(LossModel::Bernoulli { p: 0.5 }.validate().is_ok());
    }
}
