//! TCP endpoint (sans-IO), modelling Linux defaults.
//!
//! Layout, one concern per file:
//! - `config`: `TcpConfig` (Linux defaults).
//! - `endpoint`: the socket (`TcpEndpoint`): handshake, application send
//!   buffer, app events, FIN/close. Implements `crate::endpoint::Endpoint`.
//! - `sender`: per-path sender (`PathSender`): scoreboard, RACK (RFC 8985 6)
//!   or RFC 6675 loss detection, recovery with PRR, RFC 6582 without SACK,
//!   RTO, TLP, persist, Nagle. One file per concern under `sender/`: `ack`
//!   (the order of ACK processing), `scoreboard` (cumulative ACK, SACK,
//!   loss marks), `rtt_sample`, `recovery` (state machine, PRR, undo),
//!   `cwnd` (congestion-control update), `timers`, `tlp`, `rack`,
//!   `tsorted` (RACK's time-ordered list), `transmit`.
//! - `receiver`: per-path receiver (`PathReceiver`): reassembly ranges,
//!   SACK/D-SACK, delayed and quick ACKs, window advertisement.
//! - `rtt`: Linux's tcp_rtt_estimator / tcp_set_rto (RFC 6298's on request).
//!   `timer_wheel`: when Linux's retransmission timer really fires. `cc`: congestion control trait + NewReno, CUBIC (Linux and RFC 9438), HyStart (Linux and HyStart++).
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

//! # Fidelity notes: what is simplified or left out, and why
//!
//! - Loss detection with SACK is RACK (RFC 8985 6, `TcpConfig::rack`, on by
//!   default as Linux's net.ipv4.tcp_recovery = 1 since 4.18), following
//!   Linux tcp_recovery.c: RACK.xmit_ts/end_seq/rtt advance on every newly
//!   (S)ACKed segment except ambiguous retransmission samples
//!   (tcp_rack_advance, tcp_skb_spurious_retrans); segments sent before
//!   RACK.xmit_ts are lost once RACK.rtt + reo_wnd has passed since their
//!   (re)transmission (tcp_rack_detect_loss), so lost retransmissions are
//!   found without an RTO; otherwise the reordering timer is armed in the
//!   retransmission-timer slot (tcp_rack_reo_timeout starts recovery when it
//!   marks something). reo_wnd = min(min_RTT/4 * mult, SRTT), zero without
//!   observed reordering in recovery or with DupThresh segments SACKed
//!   (tcp_rack_reo_wnd); mult grows by one per round trip with D-SACKs and
//!   resets after 16 recoveries (tcp_rack_update_reo_wnd, RFC 8985 6.2 step
//!   4). Simplifications: the scoreboard is walked in sequence order (Linux
//!   keeps a send-time-ordered list; see rack_detect_loss for why the walk
//!   may stop where it does); a lost retransmission found in Loss (after an
//!   RTO) is resent within the RTO recovery, where Linux would switch to
//!   Recovery. The reordering timer runs on the timer wheel (`timer_wheel`)
//!   with Linux 6.18's 2 ms TCP_TIMEOUT_MIN_US slack (tcp_rack_mark_lost),
//!   as does a loss probe with more than one packet out
//!   (tcp_schedule_loss_probe); equal send times are ordered by
//!   transmission (`sender::TxOrder`), as the kernel's per-pass clock
//!   stamps them.
//!   Non-SACK connections, and `rack = false`, use RFC 6675 (DupThresh = 3,
//!   packet-counting IsLost like Linux tcp_mark_head_lost) / RFC 6582, where
//!   a lost retransmission is repaired only by the RTO. Both are followed by
//!   TLP (RFC 8985 7). RFC 6675 NextSeg rules (3) and (4) (rescue
//!   retransmission) are not implemented: Linux has neither.
//! - PRR follows Linux tcp_cwnd_reduction: RecoverFS = prior cwnd, SSRB only
//!   when retransmitted data was ACKed, otherwise CRB.
//! - Undo (Linux tcp_try_undo_recovery / _loss / _dsack) uses Eifel
//!   timestamps or D-SACKs; F-RTO (RFC 5682) is not implemented. A late
//!   D-SACK undo is also accepted in Open (Linux: Disorder only), within one
//!   window after the episode.
//! - ssthresh halving uses cwnd (Linux) rather than FlightSize (RFC 5681 (4)).
//! - Congestion window validation (RFC 7661) is approximated by Linux's
//!   tcp_is_cwnd_limited / tcp_cwnd_validate; slow start after idle
//!   (tcp_cwnd_restart) is modelled and on by default.
//! - CUBIC is Linux's tcp_cubic.c (6.17) with Linux HyStart by default
//!   (cc/cubic_linux.rs, cc/hystart_linux.rs; jiffies at HZ = 1000, no
//!   pacing); RFC 9438 in floating point and RFC 9406 HyStart++ by
//!   configuration. Congestion control's RTT sample is Linux's ca_rtt_us:
//!   the newest newly SACKed segment's when the ACK SACKs, else the newest
//!   cumulatively acked one's (sender/rtt_sample.rs `cc_pkts_acked`).
//! - Receive side: the application reads instantly; the advertised window
//!   grows as Linux 6.18's (`rcvwnd.rs`: rcv_ssthresh, tcp_grow_window and
//!   the quick ACK each growth step sets, scaling_ratio from a modelled skb
//!   truesize) for a locked SO_RCVBUF of 2 x rcvbuf, so there is no
//!   receive-buffer autotuning (tcp_rcv_space_adjust); the right edge never
//!   shrinks. The delayed-ACK timeout `ato` adapts to the data's
//!   inter-arrival time between TCP_ATO_MIN and TCP_DELACK_MAX in jiffies,
//!   as Linux's (delack.rs). Quick-ACK mode covers the connection start, the
//!   window's growth and duplicates.
//! - Timestamps carry nanoseconds (a capture writer converts to ms ticks);
//!   RTT samples are therefore exact, where Linux has 1 ms / 1 us ticks
//!   (the RTO estimator itself works in whole microseconds, as Linux's).
//! - No TSO/GSO, no pacing, no ECN, no SYN cookies, no RST handling, no
//!   keepalive, no TIME_WAIT (the simulator never reuses a 4-tuple); SWS
//!   avoidance is reduced to "full segments, or whatever fits when nothing
//!   is in flight".
//! - SACK option bytes on data segments reduce the payload (tcp_current_mss),
//!   sized 4-byte aligned as Linux writes them (optlen.rs: NOP NOP SACK); a
//!   retransmission keeps its boundaries and carries only the SACK
//!   blocks that fit within the MTU (Linux would fragment it instead).
//! - SYN: 1 s initial RTO; the active side's first five retransmissions
//!   1 s apart (tcp_syn_linear_timeouts = 4), then backoff; it gives up after
//!   tcp_syn_retries + 4 = 10 (the passive side's SYN-ACK: backoff, 6); after a lost
//!   handshake segment the data RTO starts at 3 s (RFC 6298 (5.7)) and, after
//!   two or more, IW = 1 (Linux tcp_init_transfer). SYN timeouts count in
//!   `rto_events`.
//! - Counters are per path and held by `PathSender::counters` (receive-side
//!   fields are filled by the owner of the receiver).

pub mod cc;
pub mod comp_sack;
pub mod config;
pub mod delack;
pub mod endpoint;
pub mod rcvwnd;
pub mod receiver;
pub mod rtt;
pub mod sender;
pub mod sndbuf;
pub mod sndwnd;
pub mod timer_wheel;

#[cfg(test)]
mod tests;

pub use cc::{
    CaState, CcKind, CcState, CongestionControl, CubicVariant, CwndEvent, Hooks, HyStartMode,
    PathView, SharedCc,
};
pub use config::{RtoFormula, TcpConfig};
pub use endpoint::{Role, TcpEndpoint, TcpState};
pub use receiver::PathReceiver;
pub use sender::{AckInfo, PathSender, TlpProbe, Tx, TxKind};
