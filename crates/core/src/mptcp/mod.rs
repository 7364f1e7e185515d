//! MPTCP decision algorithms, sans-IO: coupled congestion control (`cc`) and
//! packet schedulers (`sched`).
//!
//! Both parts are pure with respect to I/O: they look at a snapshot of all
//! subflows that the MPTCP connection builds for each call and return numbers
//! (a new cwnd, an ssthresh) or a decision (send on subflow X, wait, ...). The
//! connection carries the decision out and updates its counters
//! (`Counters::bytes_reinjected`, `bytes_probe_extra`, `penalizations`).
//! Algorithms keep their own small state (per subflow, indexed by the position
//! in the snapshot for `cc` and by the stable subflow id for `sched`); nothing
//! iterates a hash map, so results are deterministic.
//!
//! See `docs/mptcp.md` for the equations, their sources and the
//! simplifications.

pub mod add_addr;
pub mod cc;
pub mod connection;
mod eventq;
pub mod meta_recv;
pub mod meta_send;
pub mod msk_rtx;
mod outq;
pub mod pm;
pub mod pm_kernel;
pub mod prio;
pub mod push;
pub mod rcv_space;
pub mod remove_addr;
mod ring;
pub mod sched;
pub mod seqmap;
pub mod skbq;
pub mod sndbuf;
pub mod subflow;

#[cfg(test)]
mod tests;

pub use connection::TlpMode;
pub use connection::{Mode, MptcpConfig, MptcpConnection, Role};
pub use pm::{EpFlags, PathManager, PmKind};
pub use sched::SchedulerKind;
