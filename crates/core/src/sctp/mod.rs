//! SCTP (RFC 9260, which obsoletes RFC 4960) and CMT-SCTP (Iyengar, Amer,
//! Stewart, IEEE/ACM ToN 2006) as a sans-IO endpoint, for seed 000's
//! CMT-SCTP versus SCTP comparison.
//!
//! One concern per file: `chunk` (packet and chunk types, wire sizes),
//! `association` (state machine, send/receive paths; one file per concern:
//! `endpoint`, `receive`, `sack` (SACK processing, with `sack_cwnd` and
//! `fast_rtx` for its window and fast-retransmit steps), `timers`,
//! `transmit`), `path` (per-destination
//! state), `sack` (receiver TSN map, gap blocks, NR-SACK), `recv`
//! (reassembly, ordered/unordered delivery, reordering delay), `cmt` (SFR,
//! CUC, DAC, retransmission policies, buffer splitting), `sched`
//! (round-robin, DAPS), `congestion` (section 7, Max.Burst, CMT/RPv2),
//! `config` (options and their scenario names).

pub mod association;
pub mod chunk;
pub mod cmt;
pub mod config;
pub mod congestion;
pub mod path;
pub mod recv;
pub mod sack;
pub mod sched;
#[cfg(test)]
mod tests;

pub use association::{SctpAssociation, State};
pub use chunk::{Chunk, DataChunk, SackChunk, SctpPacket};
pub use config::{BufferSplit, CcVariant, Preset, RtxPolicy, Scheduler, SctpConfig};
pub use recv::ReorderStats;
