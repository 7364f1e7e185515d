//! Pareto on/off UDP background flows (seed 000 section 4.4, generated there
//! with NetPerfMeter): "Pareto on-off traffic with shape 1.5 and scale
//! 0.1666667, sending 25 frames per second each of size 5000 bytes"; the UDP
//! flows together use 10 % of the bottleneck, "500 Kbit/s each in the
//! WLAN-WLAN scenario and 100 Kbit/s each in the 3G-3G scenario".
//!
//! We read the scale as seconds for both the on and the off period. Then the
//! mean period is shape * scale / (shape - 1) = 0.5 s, the duty cycle is 1/2
//! and the mean rate is 1 Mbit/s peak x 1/2 = 500 kbit/s, exactly the paper's
//! WLAN figure. For other target rates, [`OnOffConfig::for_mean_rate`] keeps
//! the on period and stretches the off period:
//! mean rate = peak x on / (on + off)  =>  off = on x (peak / rate - 1).
//!
//! Frames are emitted on a clock that runs only while "on" and carries its
//! phase across off periods, so the long-run frame count is exactly on-time /
//! frame interval (no rounding up per on period) and the mean rate formula is
//! exact. A 5000-byte frame exceeds one MTU: the model emits frames and the
//! UDP driver splits each into MTU-sized datagrams (as the sender's IP stack
//! would fragment it).

use super::{invalid, Message, MessageSource};
use crate::rng::SimRng;
use crate::time::{secs, Nanos, SEC};

/// Configuration of one Pareto on/off flow.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffConfig {
    /// Pareto shape for both periods. Default 1.5 (seed 000). Must be > 1.
    pub shape: f64,
    /// Pareto scale (minimum) of on periods, seconds. Default 0.1666667.
    pub on_scale_s: f64,
    /// Pareto scale of off periods, seconds; 0 = always on. Default 0.1666667.
    pub off_scale_s: f64,
    /// Frames per second while on. Default 25 (seed 000).
    pub frame_rate: u32,
    /// Bytes per frame. Default 5000 (seed 000).
    pub frame_bytes: u32,
    /// Offset of the first on period. Default 0 (the paper starts background
    /// flows before the foreground traffic; drivers add a lead time).
    pub start: Nanos,
}

impl Default for OnOffConfig {
    fn default() -> Self {
        OnOffConfig {
            shape: 1.5,
            on_scale_s: 0.1666667,
            off_scale_s: 0.1666667,
            frame_rate: 25,
            frame_bytes: 5000,
            start: 0,
        }
    }
}

fn pareto_mean(shape: f64, scale: f64) -> f64 {
    shape * scale / (shape - 1.0)
}

impl OnOffConfig {
    /// Rate while on, bit/s.
    pub fn peak_bps(&self) -> f64 {
        self.frame_bytes as f64 * 8.0 * self.frame_rate as f64
    }

    /// Long-run mean rate, bit/s: peak x E[on] / (E[on] + E[off]).
    pub fn mean_bps(&self) -> f64 {
        let on = pareto_mean(self.shape, self.on_scale_s);
        let off = pareto_mean(self.shape, self.off_scale_s);
        self.peak_bps() * on / (on + off)
    }

    /// The paper's flow with the off period set for `rate_bps` on average.
    pub fn for_mean_rate(rate_bps: f64) -> Result<Self, String> {
        let base = Self::default();
        let peak = base.peak_bps();
        if !(rate_bps.is_finite() && rate_bps > 0.0 && rate_bps <= peak) {
            return Err(invalid(
                "pareto-onoff",
                format!("mean rate {rate_bps} bit/s not in (0, {peak}]"),
            ));
        }
        let on = pareto_mean(base.shape, base.on_scale_s);
        let off = on * (peak / rate_bps - 1.0);
        Ok(OnOffConfig {
            off_scale_s: off * (base.shape - 1.0) / base.shape,
            ..base
        })
    }

    /// Named presets: `wlan-500k` and `3g-100k`, the per-flow rates of seed
    /// 000 section 4.4.
    pub fn preset(name: &str) -> Result<Self, String> {
        match name {
            "wlan-500k" => Self::for_mean_rate(500e3),
            "3g-100k" => Self::for_mean_rate(100e3),
            _ => Err(invalid("pareto-onoff", format!("unknown preset {name:?}"))),
        }
    }

    fn validate(&self) -> Result<(), String> {
        if !(self.shape.is_finite() && self.shape > 1.0) {
            return Err(invalid("pareto-onoff", "shape must be > 1 (finite mean)"));
        }
        if !(self.on_scale_s.is_finite() && self.on_scale_s > 0.0) {
            return Err(invalid("pareto-onoff", "on_scale_s must be > 0"));
        }
        if !(self.off_scale_s.is_finite() && self.off_scale_s >= 0.0) {
            return Err(invalid("pareto-onoff", "off_scale_s must be >= 0"));
        }
        // a zero frame interval would emit endless frames at one instant
        if self.frame_rate == 0 || self.frame_rate as u64 > SEC || self.frame_bytes == 0 {
            return Err(invalid(
                "pareto-onoff",
                "need 0 < frame_rate <= 1e9 and frame_bytes > 0",
            ));
        }
        Ok(())
    }
}

/// How many background UDP flows and at what mean rate each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackgroundPlan {
    pub flows: u32,
    pub per_flow_bps: f64,
}

/// Flows for `share` (e.g. 0.10) of a bottleneck of `capacity_bps`.
///
/// Rule, from the paper's two cases: a flow carries 500 kbit/s on a WLAN-class
/// bottleneck and 100 kbit/s on a 3G-class one; we call a bottleneck
/// WLAN-class from 10 Mbit/s up (Table 3: WLAN 20-30, 3G 3-5 Mbit/s). The
/// flow count is the nearest integer to share x capacity / class rate (at
/// least 1), and the per-flow rate is then share x capacity / flows so the
/// aggregate is exact. E.g. 20 Mbit/s -> 4 x 500 kbit/s, 4 Mbit/s -> 4 x 100
/// kbit/s. (The flow count in the paper's text is lost in extraction.)
pub fn background_plan(capacity_bps: f64, share: f64) -> Result<BackgroundPlan, String> {
    if !(capacity_bps.is_finite() && capacity_bps > 0.0) {
        return Err(invalid("background", "capacity must be > 0"));
    }
    if !(share.is_finite() && share > 0.0 && share <= 1.0) {
        return Err(invalid("background", "share must be in (0, 1]"));
    }
    let target = capacity_bps * share;
    let class_rate = if capacity_bps >= 10e6 { 500e3 } else { 100e3 };
    let peak = OnOffConfig::default().peak_bps();
    let flows = ((target / class_rate).round().max(1.0)).max((target / peak).ceil()) as u32;
    Ok(BackgroundPlan {
        flows,
        per_flow_bps: target / flows as f64,
    })
}

/// A Pareto on/off frame source.
#[derive(Clone, Debug)]
pub struct OnOffSource {
    cfg: OnOffConfig,
    interval: Nanos,
    /// position in the current on period
    cur: Nanos,
    on_end: Option<Nanos>,
    /// on-time left until the next frame
    until_frame: Nanos,
}

impl OnOffSource {
    pub fn new(cfg: OnOffConfig) -> Result<Self, String> {
        cfg.validate()?;
        let interval = SEC / cfg.frame_rate as u64;
        Ok(OnOffSource {
            cur: cfg.start,
            cfg,
            interval,
            on_end: None,
            until_frame: 0,
        })
    }
}

impl MessageSource for OnOffSource {
    fn next(&mut self, rng: &mut SimRng) -> Option<Message> {
        loop {
            let on_end = match self.on_end {
                Some(e) => e,
                None => {
                    let e = self
                        .cur
                        .saturating_add(secs(rng.pareto(self.cfg.shape, self.cfg.on_scale_s)));
                    self.on_end = Some(e);
                    e
                }
            };
            let t = self.cur.saturating_add(self.until_frame);
            if t < on_end {
                self.cur = t;
                self.until_frame = self.interval;
                return Some(Message {
                    at: t,
                    bytes: self.cfg.frame_bytes,
                });
            }
            if on_end == Nanos::MAX {
                return None;
            }
            // carry the unused part of the frame interval into the next on period
            self.until_frame -= on_end - self.cur;
            let off = if self.cfg.off_scale_s > 0.0 {
                secs(rng.pareto(self.cfg.shape, self.cfg.off_scale_s))
            } else {
                0
            };
            self.cur = on_end.saturating_add(off);
            self.on_end = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(cfg: OnOffConfig, seed: u64, secs_: u64) -> f64 {
        let mut s = OnOffSource::new(cfg).unwrap();
        let mut rng = SimRng::stream(seed, "bg");
        let ms = super::super::take_until(&mut s, &mut rng, secs_ * SEC);
        ms.iter().map(|m| m.bytes as f64 * 8.0).sum::<f64>() / secs_ as f64
    }

    #[test]
    fn paper_defaults_give_500_kbit() {
        let c = OnOffConfig::default();
        assert_eq!(c.peak_bps(), 1e6);
        assert!((c.mean_bps() - 500e3).abs() < 1.0);
        // heavy tails (shape 1.5) converge slowly: average a few long runs
        let r: f64 = (0..4).map(|s| rate(c.clone(), s, 20_000)).sum::<f64>() / 4.0;
        assert!((r / 500e3 - 1.0).abs() < 0.08, "rate {r}");
    }

    #[test]
    fn derived_100_kbit_flow() {
        let c = OnOffConfig::for_mean_rate(100e3).unwrap();
        assert!((c.mean_bps() - 100e3).abs() < 1e-6);
        // on period unchanged, off mean 9 x on mean
        assert_eq!(c.on_scale_s, 0.1666667);
        assert!((c.off_scale_s / c.on_scale_s - 9.0).abs() < 1e-9);
        let r: f64 = (0..4).map(|s| rate(c.clone(), s, 50_000)).sum::<f64>() / 4.0;
        assert!((r / 100e3 - 1.0).abs() < 0.1, "rate {r}");
        assert!(OnOffConfig::for_mean_rate(2e6).is_err());
        assert!(OnOffConfig::for_mean_rate(0.0).is_err());
    }

    #[test]
    fn frames_on_a_40ms_grid_within_on_periods() {
        let mut s = OnOffSource::new(OnOffConfig {
            off_scale_s: 0.0,
            ..Default::default()
        })
        .unwrap();
        let mut rng = SimRng::from_u64(1);
        let ms = super::super::take_until(&mut s, &mut rng, SEC);
        // always on: exactly 25 frames per second, 40 ms apart
        assert_eq!(ms.len(), 25);
        assert!(ms.windows(2).all(|w| w[1].at - w[0].at == 40_000_000));
    }

    #[test]
    fn deterministic() {
        let run = |seed| {
            let mut s = OnOffSource::new(OnOffConfig::default()).unwrap();
            let mut rng = SimRng::stream(seed, "bg");
            super::super::take_until(&mut s, &mut rng, 100 * SEC)
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn plans_match_the_paper() {
        assert_eq!(
            background_plan(20e6, 0.1).unwrap(),
            BackgroundPlan {
                flows: 4,
                per_flow_bps: 500e3
            }
        );
        assert_eq!(
            background_plan(4e6, 0.1).unwrap(),
            BackgroundPlan {
                flows: 4,
                per_flow_bps: 100e3
            }
        );
        let p = background_plan(25e6, 0.1).unwrap();
        assert_eq!(p.flows, 5);
        assert!((p.per_flow_bps - 500e3).abs() < 1e-6);
        assert!(background_plan(0.0, 0.1).is_err());
        assert!(background_plan(1e6, 0.0).is_err());
    }

    #[test]
    fn bad_configs() {
        // the WLAN preset is the paper's literal configuration
        let w = OnOffConfig::preset("wlan-500k").unwrap();
        assert!((w.off_scale_s - 0.1666667).abs() < 1e-12);
        assert!(OnOffConfig::preset("x").is_err());
        assert!(OnOffSource::new(OnOffConfig {
            shape: 1.0,
            ..Default::default()
        })
        .is_err());
        assert!(OnOffSource::new(OnOffConfig {
            frame_rate: 2_000_000_000,
            ..Default::default()
        })
        .is_err());
        assert!(OnOffSource::new(OnOffConfig {
            frame_rate: 0,
            ..Default::default()
        })
        .is_err());
        assert!(OnOffSource::new(OnOffConfig {
            on_scale_s: -1.0,
            ..Default::default()
        })
        .is_err());
    }
}
