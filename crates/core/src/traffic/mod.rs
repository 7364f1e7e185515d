//! Traffic models: deterministic, sans-IO generators of application messages.
//!
//! Every open-loop model implements [`MessageSource`]: given its config and a
//! `SimRng` stream it yields `(time offset, size)` messages in time order. The
//! same config and seed give the same schedule in the simulator and in a
//! real-socket traffic agent, because nothing here reads a clock or does IO.
//! Closed-loop traffic (web page loads, saturated bulk) is a state machine the
//! driver calls back into instead (see [`browser`] and [`bulk`]).
//!
//! Where every distribution and number comes from: `docs/traffic.md`.

pub mod browser;
pub mod bulk;
pub mod bursts;
pub mod framing;
pub mod gaming;
pub mod gaming_trace;
pub mod metrics;
pub mod onoff;
pub mod video;
pub mod web;

use crate::rng::SimRng;
use crate::time::Nanos;

/// One application message (a video frame, a game packet, a file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// Offset from the start of the source, in ns.
    pub at: Nanos,
    /// Application payload bytes.
    pub bytes: u32,
}

/// An open-loop message generator. `next` returns messages with
/// non-decreasing `at`; `None` means the source is exhausted.
pub trait MessageSource {
    fn next(&mut self, rng: &mut SimRng) -> Option<Message>;
}

impl<S: MessageSource + ?Sized> MessageSource for Box<S> {
    fn next(&mut self, rng: &mut SimRng) -> Option<Message> {
        (**self).next(rng)
    }
}

/// All messages of `src` with `at < end` (convenience for tests and drivers
/// that pre-compute a schedule). Stops at the first message at or after `end`.
pub fn take_until<S: MessageSource + ?Sized>(
    src: &mut S,
    rng: &mut SimRng,
    end: Nanos,
) -> Vec<Message> {
    let mut out = Vec::new();
    while let Some(m) = src.next(rng) {
        if m.at >= end {
            break;
        }
        out.push(m);
    }
    out
}

/// Any open-loop source, for drivers that hold a mix without boxing.
#[derive(Clone, Debug)]
pub enum OpenLoop {
    Video(video::VideoSource),
    Trace(gaming_trace::TraceSource),
    Gaming(gaming::GamingSource),
    OnOff(onoff::OnOffSource),
    File(bulk::FileSource),
    Bursts(bursts::BurstSource),
}

impl MessageSource for OpenLoop {
    fn next(&mut self, rng: &mut SimRng) -> Option<Message> {
        match self {
            OpenLoop::Video(s) => s.next(rng),
            OpenLoop::Trace(s) => s.next(rng),
            OpenLoop::Gaming(s) => s.next(rng),
            OpenLoop::OnOff(s) => s.next(rng),
            OpenLoop::File(s) => s.next(rng),
            OpenLoop::Bursts(s) => s.next(rng),
        }
    }
}

/// Convenience: a uniform error constructor so messages read alike.
pub(crate) fn invalid(model: &str, what: impl std::fmt::Display) -> String {
    format!("{model}: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same (config, seed) => identical schedule, for every open-loop model.
    #[test]
    fn every_open_loop_model_is_deterministic() {
        let make = || {
            vec![
                OpenLoop::Video(
                    video::VideoSource::new(video::VideoConfig {
                        phase: video::FramePhase::Random,
                        ..Default::default()
                    })
                    .unwrap(),
                ),
                OpenLoop::Gaming(
                    gaming::GamingSource::new(gaming::GamingConfig::preset("aoc-trace3").unwrap())
                        .unwrap(),
                ),
                OpenLoop::OnOff(
                    onoff::OnOffSource::new(onoff::OnOffConfig::for_mean_rate(100e3).unwrap())
                        .unwrap(),
                ),
                OpenLoop::File(bulk::FileSource::new(bulk::FileConfig::new(8192)).unwrap()),
                OpenLoop::Bursts(
                    bursts::BurstSource::new(bursts::BurstsConfig {
                        count: 5,
                        bytes: 4000,
                        interval: crate::time::SEC,
                    })
                    .unwrap(),
                ),
            ]
        };
        let run = |seed: u64| {
            make()
                .into_iter()
                .enumerate()
                .map(|(i, mut s)| {
                    let mut rng = SimRng::stream(seed, &format!("traffic.{i}"));
                    take_until(&mut s, &mut rng, 120 * crate::time::SEC)
                })
                .collect::<Vec<_>>()
        };
        let a = run(42);
        assert_eq!(a, run(42));
        assert!(a.iter().all(|m| !m.is_empty()));
        assert!(a.iter().all(|m| m.windows(2).all(|w| w[0].at <= w[1].at)));
    }
}
