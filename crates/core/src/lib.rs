//! mptlab-core: sans-IO models shared by the simulator and the emulator.
//!
//! Nothing in this crate reads a clock, opens a socket or keeps global state:
//! time (`Nanos`) and randomness (`SimRng`) always come in as arguments, so the
//! same model runs in the discrete-event simulator and against real packets.

pub mod delay_stats;
pub mod endpoint;
pub mod fifo;
pub mod invariants;
pub mod link;
pub mod loss;
pub mod mptcp;
pub mod optlen;
pub mod packet;
pub mod registry;
pub mod rng;
pub mod sctp;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod traffic;
pub mod udp;

pub use packet::{Addr, FlowId, Packet, Payload};
pub use rng::SimRng;
pub use time::Nanos;
