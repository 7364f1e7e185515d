//! Live video as constant bit rate (seed 000 section 4.3.1: "a constant bit
//! rate application generating 950 Kbit/s with 30 frames/s", Skype-like).
//!
//! 950 kbit/s / 8 / 30 = 3958.33 bytes per frame. Sizes are computed from the
//! cumulative byte count, `bytes(n) = floor((n+1) R / 8f) - floor(n R / 8f)`,
//! so the fraction is carried exactly (here 3958, 3958, 3959, ...) and the long
//! run carries exactly R bits per second with integer arithmetic only.

use super::{invalid, Message, MessageSource};
use crate::rng::SimRng;
use crate::time::{Nanos, SEC};

/// Where the first frame falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramePhase {
    /// First frame at this offset (ns).
    Fixed(Nanos),
    /// First frame uniformly in [0, frame interval), drawn once from the rng,
    /// so several video flows do not tick in lock-step.
    Random,
}

/// Configuration of the CBR video source.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoConfig {
    /// Video bit rate in bit/s. Default 950_000 (seed 000, 4.3.1).
    pub bit_rate_bps: u64,
    /// Frames per second. Default 30 (seed 000, 4.3.1).
    pub frame_rate: u32,
    /// Start phase. Default `Fixed(0)`.
    pub phase: FramePhase,
    /// Stop after this many frames (`None` = endless).
    pub max_frames: Option<u64>,
}

impl Default for VideoConfig {
    fn default() -> Self {
        VideoConfig {
            bit_rate_bps: 950_000,
            frame_rate: 30,
            phase: FramePhase::Fixed(0),
            max_frames: None,
        }
    }
}

impl VideoConfig {
    /// Named presets: `skype-950k` (seed 000: 950 kbit/s at 30 frames/s).
    pub fn preset(name: &str) -> Result<Self, String> {
        match name {
            "skype-950k" => Ok(Self::default()),
            _ => Err(invalid("video", format!("unknown preset {name:?}"))),
        }
    }
}

/// The CBR frame generator.
#[derive(Clone, Debug)]
pub struct VideoSource {
    cfg: VideoConfig,
    phase: Option<Nanos>,
    n: u64,
}

impl VideoSource {
    pub fn new(cfg: VideoConfig) -> Result<Self, String> {
        if cfg.frame_rate == 0 {
            return Err(invalid("video", "frame_rate must be > 0"));
        }
        if cfg.bit_rate_bps == 0 {
            return Err(invalid("video", "bit_rate_bps must be > 0"));
        }
        // every frame must carry at least one byte, or it is not a message
        if cfg.bit_rate_bps < 8 * cfg.frame_rate as u64 {
            return Err(invalid("video", "bit rate below 1 byte per frame"));
        }
        if cfg.bit_rate_bps / (8 * cfg.frame_rate as u64) >= u32::MAX as u64 {
            return Err(invalid("video", "frame size exceeds u32"));
        }
        let phase = match cfg.phase {
            FramePhase::Fixed(p) => Some(p),
            FramePhase::Random => None,
        };
        Ok(VideoSource { cfg, phase, n: 0 })
    }

    /// Nominal (fractional) bytes per frame, for reporting.
    pub fn mean_frame_bytes(&self) -> f64 {
        self.cfg.bit_rate_bps as f64 / 8.0 / self.cfg.frame_rate as f64
    }

    fn cum_bytes(&self, n: u64) -> u64 {
        (n as u128 * self.cfg.bit_rate_bps as u128 / (8 * self.cfg.frame_rate as u128)) as u64
    }

    fn frame_time(&self, n: u64) -> Nanos {
        (n as u128 * SEC as u128 / self.cfg.frame_rate as u128) as Nanos
    }
}

impl MessageSource for VideoSource {
    fn next(&mut self, rng: &mut SimRng) -> Option<Message> {
        if self.cfg.max_frames.is_some_and(|m| self.n >= m) {
            return None;
        }
        let phase = match self.phase {
            Some(p) => p,
            None => {
                let p = rng.below(SEC / self.cfg.frame_rate as u64);
                self.phase = Some(p);
                p
            }
        };
        let n = self.n;
        self.n += 1;
        let bytes = self.cum_bytes(n + 1) - self.cum_bytes(n);
        Some(Message {
            at: phase + self.frame_time(n),
            bytes: bytes as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn paper_defaults_carry_the_fraction() {
        let mut v = VideoSource::new(VideoConfig::default()).unwrap();
        let mut rng = SimRng::from_u64(1);
        let f: Vec<_> = (0..30).map(|_| v.next(&mut rng).unwrap()).collect();
        assert_eq!(f[0], Message { at: 0, bytes: 3958 });
        assert_eq!(f[1].at, 33_333_333);
        // one second of video is exactly 950 kbit
        assert_eq!(f.iter().map(|m| m.bytes as u64).sum::<u64>(), 950_000 / 8);
        assert!(f.iter().all(|m| m.bytes == 3958 || m.bytes == 3959));
        assert!((v.mean_frame_bytes() - 3958.333).abs() < 0.001);
    }

    #[test]
    fn phase_and_limit() {
        let cfg = VideoConfig {
            phase: FramePhase::Fixed(5 * MS),
            max_frames: Some(3),
            ..Default::default()
        };
        let mut v = VideoSource::new(cfg).unwrap();
        let mut rng = SimRng::from_u64(1);
        let all = super::super::take_until(&mut v, &mut rng, u64::MAX);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].at, 5 * MS);
    }

    #[test]
    fn random_phase_is_deterministic_and_in_range() {
        let cfg = VideoConfig {
            phase: FramePhase::Random,
            ..Default::default()
        };
        let run = |seed| {
            let mut v = VideoSource::new(cfg.clone()).unwrap();
            let mut rng = SimRng::stream(seed, "video");
            (0..10)
                .map(|_| v.next(&mut rng).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert!(run(3)[0].at < 33_333_334);
    }

    #[test]
    fn bad_configs_are_rejected() {
        assert!(VideoConfig::preset("skype-950k").is_ok());
        assert!(VideoConfig::preset("x").is_err());
        assert!(VideoSource::new(VideoConfig {
            frame_rate: 0,
            ..Default::default()
        })
        .is_err());
        assert!(VideoSource::new(VideoConfig {
            bit_rate_bps: 0,
            ..Default::default()
        })
        .is_err());
        assert!(VideoSource::new(VideoConfig {
            bit_rate_bps: 100,
            ..Default::default()
        })
        .is_err());
    }
}
