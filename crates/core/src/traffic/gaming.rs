//! Synthetic thin-stream model of seed 000's three Age of Conan traces
//! (section 4.3.2). The raw traces are not public, so we keep only what the
//! paper states about them and fill the rest with documented assumptions:
//!
//! * stated: mean packet inter-departure 81.4 / 74.1 / 167.7 ms and mean packet
//!   size 142.7 / 113 / 101.7 bytes; 10-minute traces; "a huge chunk of game
//!   setup data in the beginning ... followed by occasional small bursts of
//!   MTU-sized packets and small packets for the rest of the time".
//! * model: a setup chunk of `setup_packets` MTU-sized packets at t = 0, then
//!   "events" as a Poisson process (exponential gaps, the usual first-order fit
//!   for MMO server-to-client inter-departures, cf. Chen et al. 2006, Svoboda et
//!   al. 2007); an event is with probability `burst_prob` a burst of
//!   `burst_min..=burst_max` back-to-back MTU-sized packets, otherwise one small
//!   packet whose size is `min_small_bytes` + log-normal (heavy-tailed small
//!   payloads, cf. Griwodz & Halvorsen 2006 on Anarchy Online).
//! * calibration (analytic, no tuning): the event rate and the log-normal mean
//!   are solved so that over `duration` (the paper's 10 minutes) the expected
//!   packet count is `duration / mean_idt` and the expected bytes are that
//!   count times `mean_size`, setup chunk included. See `docs/traffic.md`.
//!
//! Sizes are rounded randomly (`floor(x + U)`, which has expectation exactly x)
//! and inter-event gaps are kept in f64 until each is added to the clock, so
//! rounding does not bias the means.

use super::{invalid, Message, MessageSource};
use crate::rng::SimRng;
use crate::time::{secs, Nanos, SEC};

/// Configuration of the synthetic thin-stream model.
#[derive(Clone, Debug, PartialEq)]
pub struct GamingConfig {
    /// Target mean packet inter-departure time, ms (seed 000: 81.4 / 74.1 / 167.7).
    pub mean_idt_ms: f64,
    /// Target mean packet size, bytes (seed 000: 142.7 / 113 / 101.7).
    pub mean_size_bytes: f64,
    /// Trace length; the source ends here and the means are calibrated over it.
    /// Default 600 s (seed 000: "a duration of 10 minutes each").
    pub duration: Nanos,
    /// Packets in the setup chunk at t = 0. Default 30 (assumption: ~43 KB,
    /// limited by Trace 3's budget of ~364 KB in 10 minutes).
    pub setup_packets: u32,
    /// Size of an "MTU-sized" packet: payload of a 1500-byte IPv4/TCP packet
    /// without options. Default 1460 (same as seed 000's background TCP frames).
    pub mtu_bytes: u32,
    /// Probability that an event is a burst of MTU-sized packets. Default 0.01
    /// (assumption: "occasional").
    pub burst_prob: f64,
    /// Burst length range, packets, uniform. Default 2..=4 (assumption: "small bursts").
    pub burst_min: u32,
    pub burst_max: u32,
    /// Smallest small-packet payload, bytes. Default 1.
    pub min_small_bytes: u32,
    /// Shape (sigma of the underlying normal) of the small-packet log-normal.
    /// Default 0.8 (assumption: a few-times spread around the mean).
    pub small_sigma: f64,
}

impl GamingConfig {
    /// Defaults for everything but the two targets.
    pub fn with_targets(mean_idt_ms: f64, mean_size_bytes: f64) -> Self {
        GamingConfig {
            mean_idt_ms,
            mean_size_bytes,
            duration: 600 * SEC,
            setup_packets: 30,
            mtu_bytes: 1460,
            burst_prob: 0.01,
            burst_min: 2,
            burst_max: 4,
            min_small_bytes: 1,
            small_sigma: 0.8,
        }
    }

    /// A named preset (`aoc-trace1`, `aoc-trace2`, `aoc-trace3`).
    pub fn preset(name: &str) -> Result<Self, String> {
        presets()
            .iter()
            .find(|p| p.name == name)
            .map(|p| Self::with_targets(p.mean_idt_ms, p.mean_size_bytes))
            .ok_or_else(|| invalid("gaming", format!("unknown preset {name:?}")))
    }
}

/// A named trace calibration target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GamingPreset {
    pub name: &'static str,
    pub mean_idt_ms: f64,
    pub mean_size_bytes: f64,
}

/// Seed 000, section 4.3.2: Trace 1..3.
pub fn presets() -> &'static [GamingPreset] {
    &[
        GamingPreset {
            name: "aoc-trace1",
            mean_idt_ms: 81.4,
            mean_size_bytes: 142.7,
        },
        GamingPreset {
            name: "aoc-trace2",
            mean_idt_ms: 74.1,
            mean_size_bytes: 113.0,
        },
        GamingPreset {
            name: "aoc-trace3",
            mean_idt_ms: 167.7,
            mean_size_bytes: 101.7,
        },
    ]
}

/// Parameters derived from a [`GamingConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// Mean gap between events after the setup chunk, seconds.
    pub mean_event_gap_s: f64,
    /// Mean packets per event, 1 - p + p E[burst length].
    pub packets_per_event: f64,
    /// Mean small-packet size, bytes.
    pub mean_small_bytes: f64,
    /// mu of the log-normal part (small size minus `min_small_bytes`).
    pub small_mu: f64,
}

impl Calibration {
    fn derive(c: &GamingConfig) -> Result<Self, String> {
        let h = c.duration as f64 / SEC as f64;
        // expected totals over the trace, from the two targets
        let n_total = h / (c.mean_idt_ms / 1e3);
        let b_total = n_total * c.mean_size_bytes;
        // what is left for the steady phase after the setup chunk
        let n_steady = n_total - c.setup_packets as f64;
        let b_steady = b_total - c.setup_packets as f64 * c.mtu_bytes as f64;
        if n_steady < 1.0 || b_steady <= 0.0 {
            return Err(invalid(
                "gaming",
                "setup chunk exceeds the packets or bytes the targets allow over `duration`",
            ));
        }
        let mean_burst = (c.burst_min + c.burst_max) as f64 / 2.0;
        let g = 1.0 - c.burst_prob + c.burst_prob * mean_burst;
        // Poisson events: E[events in h] = h / gap, and E[packets] = E[events] g (Wald)
        let mean_event_gap_s = h * g / n_steady;
        // per-event bytes = (1-p) E[S] + p E[k] mtu must equal b_steady g / n_steady
        let per_event = b_steady * g / n_steady;
        let mean_small =
            (per_event - c.burst_prob * mean_burst * c.mtu_bytes as f64) / (1.0 - c.burst_prob);
        let excess = mean_small - c.min_small_bytes as f64;
        if excess <= 0.0 {
            return Err(invalid(
                "gaming",
                format!("bursts and setup leave {mean_small:.1} bytes per small packet, below min_small_bytes"),
            ));
        }
        // log-normal mean = exp(mu + sigma^2/2)
        let small_mu = excess.ln() - c.small_sigma * c.small_sigma / 2.0;
        Ok(Calibration {
            mean_event_gap_s,
            packets_per_event: g,
            mean_small_bytes: mean_small,
            small_mu,
        })
    }
}

/// The synthetic game traffic source.
#[derive(Clone, Debug)]
pub struct GamingSource {
    cfg: GamingConfig,
    cal: Calibration,
    setup_left: u32,
    burst_left: u32,
    /// current event time, seconds (f64 so gaps do not round each time)
    t: f64,
}

impl GamingSource {
    pub fn new(cfg: GamingConfig) -> Result<Self, String> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !pos(cfg.mean_idt_ms) {
            return Err(invalid("gaming", "mean_idt_ms must be finite and > 0"));
        }
        if !pos(cfg.mean_size_bytes) {
            return Err(invalid("gaming", "mean_size_bytes must be finite and > 0"));
        }
        if cfg.duration == 0 {
            return Err(invalid("gaming", "duration must be > 0"));
        }
        if cfg.mtu_bytes == 0 {
            return Err(invalid("gaming", "mtu_bytes must be > 0"));
        }
        if !(0.0..1.0).contains(&cfg.burst_prob) {
            return Err(invalid("gaming", "burst_prob must be in [0, 1)"));
        }
        if cfg.burst_min == 0 || cfg.burst_max < cfg.burst_min {
            return Err(invalid("gaming", "need 1 <= burst_min <= burst_max"));
        }
        if !(cfg.small_sigma.is_finite() && cfg.small_sigma >= 0.0) {
            return Err(invalid("gaming", "small_sigma must be finite and >= 0"));
        }
        let cal = Calibration::derive(&cfg)?;
        Ok(GamingSource {
            setup_left: cfg.setup_packets,
            cfg,
            cal,
            burst_left: 0,
            t: 0.0,
        })
    }

    pub fn calibration(&self) -> Calibration {
        self.cal
    }

    fn at(&self) -> Nanos {
        secs(self.t)
    }
}

/// Unbiased rounding to an integer: E[floor(x + U)] = x for x >= 0.
fn round_random(x: f64, rng: &mut SimRng) -> u64 {
    (x + rng.uniform()).floor().min(u32::MAX as f64) as u64
}

impl MessageSource for GamingSource {
    fn next(&mut self, rng: &mut SimRng) -> Option<Message> {
        let mtu = self.cfg.mtu_bytes;
        if self.setup_left > 0 {
            self.setup_left -= 1;
            return Some(Message { at: 0, bytes: mtu });
        }
        if self.burst_left > 0 {
            self.burst_left -= 1;
            return Some(Message {
                at: self.at(),
                bytes: mtu,
            });
        }
        self.t += rng.exponential(self.cal.mean_event_gap_s);
        if self.at() >= self.cfg.duration {
            self.t = f64::INFINITY;
            return None;
        }
        if rng.chance(self.cfg.burst_prob) {
            let k = self.cfg.burst_min as u64
                + rng.below((self.cfg.burst_max - self.cfg.burst_min + 1) as u64);
            self.burst_left = k as u32 - 1;
            return Some(Message {
                at: self.at(),
                bytes: mtu,
            });
        }
        let extra = rng.lognormal(self.cal.small_mu, self.cfg.small_sigma);
        let bytes = self.cfg.min_small_bytes as u64 + round_random(extra, rng);
        Some(Message {
            at: self.at(),
            bytes: bytes.min(u32::MAX as u64) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(cfg: &GamingConfig, seeds: u64) -> (f64, f64) {
        let (mut n, mut b) = (0u64, 0u64);
        for s in 0..seeds {
            let mut src = GamingSource::new(cfg.clone()).unwrap();
            let mut rng = SimRng::stream(s, "gaming");
            let mut last = 0;
            while let Some(m) = src.next(&mut rng) {
                assert!(m.at >= last && m.at < cfg.duration);
                last = m.at;
                n += 1;
                b += m.bytes as u64;
            }
        }
        let idt_ms = (seeds * cfg.duration) as f64 / 1e6 / n as f64;
        (idt_ms, b as f64 / n as f64)
    }

    #[test]
    fn long_run_means_match_the_three_traces() {
        for p in presets() {
            let cfg = GamingConfig::preset(p.name).unwrap();
            let (idt, size) = totals(&cfg, 20);
            assert!(
                (idt / p.mean_idt_ms - 1.0).abs() < 0.03,
                "{}: idt {idt}",
                p.name
            );
            assert!(
                (size / p.mean_size_bytes - 1.0).abs() < 0.03,
                "{}: size {size}",
                p.name
            );
        }
    }

    #[test]
    fn setup_chunk_then_thin_stream() {
        let cfg = GamingConfig::preset("aoc-trace1").unwrap();
        let mut src = GamingSource::new(cfg).unwrap();
        let mut rng = SimRng::from_u64(9);
        for _ in 0..30 {
            assert_eq!(src.next(&mut rng).unwrap(), Message { at: 0, bytes: 1460 });
        }
        let m = src.next(&mut rng).unwrap();
        assert!(m.at > 0);
        let c = src.calibration();
        assert!(
            c.mean_small_bytes > 50.0 && c.mean_small_bytes < 142.7,
            "{c:?}"
        );
    }

    #[test]
    fn same_seed_same_schedule() {
        let cfg = GamingConfig::preset("aoc-trace2").unwrap();
        let run = |seed| {
            let mut src = GamingSource::new(cfg.clone()).unwrap();
            let mut rng = SimRng::stream(seed, "gaming");
            super::super::take_until(&mut src, &mut rng, 60 * SEC)
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }

    #[test]
    fn bad_configs_are_rejected() {
        let ok = GamingConfig::with_targets(80.0, 100.0);
        assert!(GamingSource::new(ok.clone()).is_ok());
        assert!(GamingSource::new(GamingConfig {
            mean_idt_ms: 0.0,
            ..ok.clone()
        })
        .is_err());
        assert!(GamingSource::new(GamingConfig {
            mean_size_bytes: f64::NAN,
            ..ok.clone()
        })
        .is_err());
        assert!(GamingSource::new(GamingConfig {
            burst_prob: 1.0,
            ..ok.clone()
        })
        .is_err());
        assert!(GamingSource::new(GamingConfig {
            burst_min: 3,
            burst_max: 2,
            ..ok.clone()
        })
        .is_err());
        // a setup chunk bigger than the whole byte budget
        assert!(GamingSource::new(GamingConfig {
            setup_packets: 5000,
            ..ok.clone()
        })
        .is_err());
        assert!(GamingConfig::preset("nope").is_err());
    }
}
