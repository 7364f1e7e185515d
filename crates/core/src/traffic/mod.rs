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

/// Model names, for `mptlab list`.
pub fn names() -> &'static [&'static str] {
    &[
        "video-cbr",
        "gaming-trace",
        "gaming-synthetic",
        "web",
        "file",
        "bulk",
        "pareto-onoff",
        "background-tcp",
    ]
}

/// Convenience: a uniform error constructor so messages read alike.
pub(crate) fn invalid(model: &str, what: impl std::fmt::Display) -> String {
    format!("{model}: {what}")
}
