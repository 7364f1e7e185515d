//! mptlab-sim: the discrete-event simulator driving the sans-IO models of
//! mptlab-core over a simulated network.

pub mod events;
pub mod network;
pub mod world;
pub mod apps;
pub mod metrics;
pub mod topology;
