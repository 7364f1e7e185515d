//! mptlab-setup: the setup layer both drivers share. It turns a validated
//! scenario into configured things (the link parameters of a run, the
//! traffic source and its schedule), so the simulator (`mptlab-sim`) and the
//! emulator (`mptlab-emu`) build a run from the very same values and never
//! depend on each other (docs/architecture.md).
//!
//! * [`background`]: the background flows of a run ([`background::flows`]).
//! * [`draw`]: per-run values drawn from scenario ranges, by key.
//! * [`links`]: the link parameters of a run ([`Duplex`], [`links::preset_links`]).
//! * [`traffic`]: the foreground traffic of a run ([`traffic::foreground`]),
//!   message schedules ([`traffic::Schedule`]) and trace loading.

pub mod background;
pub mod draw;
pub mod links;
pub mod traffic;

pub use links::Duplex;
