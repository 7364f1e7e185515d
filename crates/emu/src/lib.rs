//! mptlab-emu: run mptlab scenarios over the real Linux kernel (MPTCP, TCP,
//! UDP) between network namespaces, with delay, rate, queue, loss and outages
//! emulated in userspace by the same `LinkModel` the simulator uses.
//!
//! - `topology`: builds the namespaces, TUN pairs, routes and policy rules
//!   (seed 000: client with two paths, core router, server) and tears them down.
//! - `emulator`: moves packets between TUN devices, one thread and one
//!   `LinkModel` per direction, releasing them at the model's delivery time.
//! - `clock`, `tun`, `netns`, `cleanup`, `signals`, `hist`: the pieces.
//!
//! Everything needs root, /dev/net/tun and a kernel with MPTCP;
//! `netns::preflight` says clearly which is missing.

pub mod agent;
pub mod agentprio;
pub mod background;
pub mod bench;
pub mod capture;
pub mod cleanup;
pub mod clock;
pub mod emulator;
pub mod explicit;
pub mod failover;
pub mod hello;
pub mod hist;
pub mod hostload;
pub mod latency;
pub mod live;
pub mod net;
pub mod netns;
pub mod oneloop;
pub mod probe;
pub mod run;
pub mod signals;
pub mod sock;
pub mod substitute;
pub mod threadstat;
pub mod topology;
pub mod tun;
pub mod userpm;

pub use emulator::{DirectionReport, DirectionSpec, EmuOptions, Emulator};
pub use topology::{PathSpec, Shape, Topology, TopologyOptions};
