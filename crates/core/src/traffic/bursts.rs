//! Request/response bursts: `count` bursts of `bytes` each, one every
//! `interval`, the first at offset 0.
//!
//! Seed 001 (thesis summary, Paper II "Probe or Wait") measures the *burst
//! completion time* of short request/response exchanges whose tail is lost.
//! Each burst is one application message, so the simulator's per-message
//! delay (time the burst is handed to the transport until its last byte is
//! delivered in order) is the burst completion time. The summary gives no
//! burst sizes or period; the scenario library picks them (docs/report.md).

use super::{invalid, Message, MessageSource};
use crate::rng::SimRng;
use crate::time::Nanos;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BurstsConfig {
    /// Number of bursts, >= 1.
    pub count: u32,
    /// Bytes per burst, 1..=u32::MAX.
    pub bytes: u64,
    /// Time between the starts of consecutive bursts, > 0 (ignored when
    /// `count` is 1).
    pub interval: Nanos,
}

/// Emits the bursts at 0, interval, 2 interval, ... Deterministic: no draws.
#[derive(Clone, Debug)]
pub struct BurstSource {
    cfg: BurstsConfig,
    sent: u32,
}

impl BurstsConfig {
    /// From the scenario's keys (`interval_s` in seconds).
    pub fn from_scenario(count: u32, bytes: u64, interval_s: f64) -> Self {
        BurstsConfig {
            count,
            bytes,
            interval: crate::time::secs(interval_s),
        }
    }
}

impl BurstSource {
    pub fn new(cfg: BurstsConfig) -> Result<Self, String> {
        if cfg.count == 0 {
            return Err(invalid("bursts", "count must be >= 1"));
        }
        if cfg.bytes == 0 || cfg.bytes > u32::MAX as u64 {
            return Err(invalid(
                "bursts",
                format!(
                    "burst size must be 1..={} bytes, found {}",
                    u32::MAX,
                    cfg.bytes
                ),
            ));
        }
        if cfg.interval == 0 && cfg.count > 1 {
            return Err(invalid("bursts", "interval must be > 0"));
        }
        Ok(BurstSource { cfg, sent: 0 })
    }

    /// Offset of the last burst (the schedule's length).
    pub fn last_at(&self) -> Nanos {
        self.cfg.interval * (self.cfg.count as Nanos - 1)
    }
}

impl MessageSource for BurstSource {
    fn next(&mut self, _rng: &mut SimRng) -> Option<Message> {
        if self.sent >= self.cfg.count {
            return None;
        }
        let at = self.cfg.interval * self.sent as Nanos;
        self.sent += 1;
        Some(Message {
            at,
            bytes: self.cfg.bytes as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    #[test]
    fn emits_count_bursts_at_the_interval() {
        let mut s = BurstSource::new(BurstsConfig {
            count: 3,
            bytes: 14360,
            interval: SEC,
        })
        .unwrap();
        assert_eq!(s.last_at(), 2 * SEC);
        let mut rng = SimRng::from_u64(1);
        let v: Vec<_> = std::iter::from_fn(|| s.next(&mut rng)).collect();
        assert_eq!(
            v,
            vec![
                Message {
                    at: 0,
                    bytes: 14360
                },
                Message {
                    at: SEC,
                    bytes: 14360
                },
                Message {
                    at: 2 * SEC,
                    bytes: 14360
                },
            ]
        );
    }

    #[test]
    fn rejects_bad_configs() {
        assert!(BurstSource::new(BurstsConfig {
            count: 0,
            bytes: 1,
            interval: MS
        })
        .is_err());
        assert!(BurstSource::new(BurstsConfig {
            count: 2,
            bytes: 0,
            interval: MS
        })
        .is_err());
        assert!(BurstSource::new(BurstsConfig {
            count: 2,
            bytes: 1,
            interval: 0
        })
        .is_err());
        assert!(BurstSource::new(BurstsConfig {
            count: 1,
            bytes: 1,
            interval: 0
        })
        .is_ok());
    }
}
