//! TCP endpoint (sans-IO), modelling Linux defaults.
//!
//! Layout, one concern per file:
//! - `config`: `TcpConfig` (Linux defaults).
//! - `endpoint`: the socket (`TcpEndpoint`): handshake, application send
//!   buffer, app events, FIN/close. Implements `crate::endpoint::Endpoint`.
//! - `sender`: per-path sender (`PathSender`): scoreboard, RFC 6675 loss
//!   recovery with PRR, RFC 6582 without SACK, RTO, TLP, persist, Nagle.
//! - `receiver`: per-path receiver (`PathReceiver`): reassembly ranges,
//!   SACK/D-SACK, delayed and quick ACKs, window advertisement.
//! - `rtt`: RFC 6298 estimator. `cc`: congestion control trait + NewReno, CUBIC.
//!
//! Reuse by MPTCP: a subflow owns one `PathSender` + `PathReceiver` pair just
//! as `TcpEndpoint` does. The connection-level scheduler hands data down with
//! `PathSender::push_data` (recording its own subflow-seq -> DSN mapping),
//! builds packets from the `Tx` values `next_tx` returns (adding DSS
//! options), passes the slice of all subflows' `PathView`s to
//! `on_ack`/`on_timeout` so coupled congestion control sees every path, and
//! may take over the tail-loss-probe decision (`PathSender::tlp_probe`) to
//! probe on another subflow. Socket-level concerns (send buffer, events,
//! close) stay in `endpoint.rs`.

pub mod cc;
pub mod config;
pub mod endpoint;
pub mod receiver;
pub mod rtt;
pub mod sender;

#[cfg(test)]
mod tests;

pub use cc::{CaState, CcKind, CcState, CongestionControl, CwndEvent, PathView, UnknownCc};
pub use config::{RtoFormula, TcpConfig};
pub use endpoint::{Role, TcpEndpoint, TcpState};
pub use receiver::PathReceiver;
pub use sender::{AckInfo, PathSender, TlpProbe, Tx, TxKind};
