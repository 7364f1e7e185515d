//! Random loss models applied by links, one decision per packet.
//!
//! - Bernoulli: each packet is lost independently with probability `p`.
//! - Gilbert-Elliott (Gilbert 1960, Elliott 1963): a two-state Markov chain
//!   (Good, Bad) stepped once per packet; a packet is lost with probability
//!   `loss_good` in Good and `loss_bad` in Bad. With `loss_good = 0` and
//!   `loss_bad = 1` it is the simple Gilbert model of bursty loss. The mean
//!   loss rate is pi_B * loss_bad + pi_G * loss_good with
//!   pi_B = p_gb / (p_gb + p_bg) (see `mean_loss`).
//! - Train (deterministic, seed 001's controlled tail losses): data packets
//!   are grouped into trains (a data packet after an idle gap of at least
//!   `gap` starts a new one); the packets at the 1-based positions `drop` of
//!   every train are lost, and with `blackout > 0` everything offered within
//!   `blackout` after a train's first loss is lost too (a short path failure
//!   that also swallows a tail loss probe). Packets without payload (ACKs,
//!   SYNs) are never counted and only lost inside a blackout.

use crate::rng::SimRng;
use crate::time::Nanos;

#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    Train {
        gap: Nanos,
        drop: Vec<u32>,
        blackout: Nanos,
    },
}

impl LossModel {
    /// Long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                if p_gb + p_bg == 0.0 {
                    return loss_good;
                }
                let pi_b = p_gb / (p_gb + p_bg);
                pi_b * loss_bad + (1.0 - pi_b) * loss_good
            }
            // depends on the traffic's train lengths; not a per-packet rate
            LossModel::Train { .. } => f64::NAN,
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
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                check("p_gb", p_gb)?;
                check("p_bg", p_bg)?;
                check("loss_good", loss_good)?;
                check("loss_bad", loss_bad)
            }
            LossModel::Train { gap, ref drop, .. } => {
                if gap == 0 {
                    return Err("train: gap must be > 0".into());
                }
                if drop.is_empty() || drop.contains(&0) {
                    return Err("train: drop must list 1-based packet positions".into());
                }
                Ok(())
            }
        }
    }

    pub fn names() -> &'static [&'static str] {
        &["none", "bernoulli", "gilbert-elliott", "train"]
    }
}

/// A loss model with its per-link state and random stream.
///
/// Laid out by hand (`repr(C)`): a draw of the random models (Bernoulli,
/// Gilbert-Elliott) reads the stream, the model and `bad`, which come first
/// and fit one cache line (`link::LinkModel` puts this struct on a line of
/// its own, `LinkModel::hot_lines`); the compiler's order had put the
/// model's tag on the line after the stream's, two misses per packet on a
/// lossy link when thousands of links share the cache (docs/performance.md
/// "Session 19"). `Train`'s state follows.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct LossProcess {
    rng: SimRng,
    model: LossModel,
    bad: bool,
    train: TrainState,
}

/// Position in the current train (model `Train`).
#[derive(Clone, Debug, Default)]
struct TrainState {
    last_data: Option<Nanos>,
    index: u32,
    blackout_until: Option<Nanos>,
}

impl LossProcess {
    pub fn new(model: LossModel, rng: SimRng) -> Self {
        LossProcess {
            model,
            bad: false,
            rng,
            train: TrainState::default(),
        }
    }

    /// Bytes from the start that a draw of a model other than `Train`
    /// reads: the stream, the model and `bad` (`repr(C)` order).
    pub const DRAW_BYTES: usize = std::mem::offset_of!(LossProcess, bad) + 1;

    /// The `Train` model, whose drop list lives in a separate allocation.
    pub fn is_train(&self) -> bool {
        matches!(self.model, LossModel::Train { .. })
    }

    /// Decide whether the next packet is lost (random models; a `Train`
    /// model needs [`LossProcess::lose_packet`] and loses nothing here).
    #[inline]
    pub fn lose(&mut self) -> bool {
        self.lose_packet(0, 0)
    }

    /// Decide whether a packet offered at `now` carrying `payload` bytes of
    /// application data is lost.
    #[inline]
    pub fn lose_packet(&mut self, now: Nanos, payload: u32) -> bool {
        match self.model {
            LossModel::Train {
                gap,
                ref drop,
                blackout,
            } => {
                let t = &mut self.train;
                if t.blackout_until.is_some_and(|u| now < u) {
                    if payload > 0 {
                        t.last_data = Some(now);
                        t.index += 1;
                    }
                    return true;
                }
                if payload == 0 {
                    return false;
                }
                if t.last_data.is_none_or(|l| now.saturating_sub(l) >= gap) {
                    t.index = 0;
                    t.blackout_until = None;
                }
                t.last_data = Some(now);
                t.index += 1;
                let lost = drop.contains(&t.index);
                if lost && blackout > 0 && t.blackout_until.is_none() {
                    t.blackout_until = Some(now + blackout);
                }
                lost
            }
            LossModel::None => false,
            LossModel::Bernoulli { p } => self.rng.chance(p),
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
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
        let m = LossModel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.3,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
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

    /// Seed 001: the last packet of every 10-packet train is lost; ACKs are
    /// not counted; a packet after a gap starts a new train.
    #[test]
    fn train_drops_the_tail_of_every_train() {
        use crate::time::MS;
        let m = LossModel::Train {
            gap: 100 * MS,
            drop: vec![10],
            blackout: 0,
        };
        assert!(m.validate().is_ok());
        let mut lp = LossProcess::new(m, SimRng::from_u64(1));
        for burst in 0..3u64 {
            let t0 = burst * 1000 * MS;
            let mut lost = Vec::new();
            for i in 0..12u64 {
                // an ACK between data packets changes nothing
                assert!(!lp.lose_packet(t0 + i * MS, 0));
                if lp.lose_packet(t0 + i * MS, 1448) {
                    lost.push(i + 1);
                }
            }
            assert_eq!(lost, vec![10], "burst {burst}");
        }
        // 99 ms later is the same train (position 13), 100 ms later a new one
        assert!(!lp.lose_packet(2011 * MS + 99 * MS, 1448));
    }

    /// With a blackout the probe sent soon after the tail is lost too, and
    /// ACKs inside the blackout as well; the next train starts clean.
    #[test]
    fn train_blackout_swallows_the_probe() {
        use crate::time::MS;
        let m = LossModel::Train {
            gap: 300 * MS,
            drop: vec![3],
            blackout: 150 * MS,
        };
        let mut lp = LossProcess::new(m, SimRng::from_u64(1));
        assert!(!lp.lose_packet(0, 1000));
        assert!(!lp.lose_packet(MS, 1000));
        assert!(lp.lose_packet(2 * MS, 1000)); // tail
        assert!(lp.lose_packet(60 * MS, 0)); // ACK in the blackout
        assert!(lp.lose_packet(100 * MS, 1000)); // the probe
        assert!(!lp.lose_packet(160 * MS, 1000)); // after the blackout
        assert!(!lp.lose_packet(1000 * MS, 1000)); // next train, position 1
        assert!(LossModel::Train {
            gap: 0,
            drop: vec![1],
            blackout: 0
        }
        .validate()
        .is_err());
        assert!(LossModel::Train {
            gap: MS,
            drop: vec![0],
            blackout: 0
        }
        .validate()
        .is_err());
    }

    #[test]
    fn validation_rejects_non_probabilities() {
        assert!(LossModel::Bernoulli { p: 1.5 }.validate().is_err());
        assert!(LossModel::Bernoulli { p: 0.5 }.validate().is_ok());
    }
}
