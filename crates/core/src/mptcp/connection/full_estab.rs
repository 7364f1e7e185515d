//! When a v0.9x client's connection becomes *fully established*, which is
//! when the v0.9x path managers (fullmesh, ndiffports, binder) open their
//! extra subflows.
//!
//! `create_subflow_worker` in `mptcp_fullmesh.c`, `mptcp_ndiffports.c` and
//! `mptcp_binder.c` (multipath-tcp/mptcp, v0.89-v0.96) exits while
//! `!tcp_sk(mpcb->master_sk)->mptcp->fully_established`; the worker is
//! queued by the path manager's `fully_established` hook, which
//! `mptcp_become_fully_estab` (`mptcp_input.c`) calls for the master
//! subflow. The master subflow becomes fully established, in `mptcp_input.c`:
//!
//! - `mptcp_process_data_ack`: "as soon as a subflow-data-ack (not acking
//!   syn, thus snt_isn + 1) includes a data-ack": an ACK whose subflow
//!   acknowledgment is beyond ISN + 1 and that carries a DSS DATA_ACK, i.e.
//!   the peer acknowledged our first data (one round trip after the
//!   handshake when the client writes at once, as an upload does);
//! - `mptcp_prevalidate_skb`: "when a whole rcv-window has been received":
//!   `init_rcv_wnd -= skb->len` for every data segment of the subflow, fully
//!   established once it drops below zero. `init_rcv_wnd` is the master's
//!   `rcv_wnd` when the connection became MPTCP (`mptcp_create_master_sk`:
//!   `master_tp->mptcp->init_rcv_wnd = master_tp->rcv_wnd`), chosen at
//!   connect by `tcp_select_initial_window` (tcp_output.c):
//!   `min(space, TCP_DEFAULT_INIT_RCVWND * mss)` with
//!   `TCP_DEFAULT_INIT_RCVWND` = 10 and `mss` the advertised MSS
//!   (`tcp_connect_init` subtracts the timestamp option only once a
//!   timestamp was received, not yet at connect). A client that writes
//!   nothing (a download without a request) becomes fully established this
//!   way.
//!
//! The in-kernel PM of upstream Linux (`kpm`) has its own rule
//! (options.c `check_fully_established`, in `connection.rs`).
//! Simplifications: `space` is the scenario's receive buffer (Linux uses
//! `tcp_full_space`, the part of it the window may use); the data counted
//! is the master's in-order data (`rcv_nxt`), which `mptcp_prevalidate_skb`
//! sees as it is queued in order; fallback (which also sets the flag)
//! opens no subflows, so it is not tracked here.

use crate::packet::MptcpOptions;

use crate::tcp::TcpConfig;

/// Linux `TCP_DEFAULT_INIT_RCVWND` (include/net/tcp.h): the initial receive
/// window in segments.
const TCP_DEFAULT_INIT_RCVWND: u64 = 10;

/// `mptcp_process_data_ack`: an ACK of the master subflow whose subflow
/// acknowledgment `ack` (relative: ISN + 1 = 1) is beyond the SYN and that
/// carries a DATA_ACK.
pub(super) fn v09x_full_by_data_ack(has_ack: bool, ack: u64, opts: &MptcpOptions) -> bool {
    has_ack && ack > 1 && opts.dss.and_then(|d| d.data_ack()).is_some()
}

/// `mptcp_prevalidate_skb`: more than `init_rcv_wnd` bytes arrived on the
/// master subflow (`rcv_nxt` is relative: ISN + 1 = 1, so the in-order data
/// is `rcv_nxt - 1`).
pub(super) fn v09x_full_by_data(rcv_nxt: u64, init_rcv_wnd: u64) -> bool {
    rcv_nxt.saturating_sub(1) > init_rcv_wnd
}

/// The master subflow's `init_rcv_wnd` (module doc):
/// `min(rcvbuf, 10 * advertised MSS)`, at most ten 16-bit MSSs. Computed
/// once, when the connection is built (`MptcpConnection::v09x_init_rcv_wnd`),
/// as Linux fixes it in `mptcp_create_master_sk`.
pub(super) fn v09x_init_rcv_wnd(tcp: &TcpConfig) -> u32 {
    let mss = tcp.mss_option() as u64;
    let w = (TCP_DEFAULT_INIT_RCVWND * mss).min(tcp.rcvbuf);
    u32::try_from(w).expect("init_rcv_wnd: at most ten 16-bit MSSs")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Dss;

    #[test]
    fn data_ack_counts_only_beyond_the_syn_and_with_a_data_ack() {
        let with_ack = MptcpOptions {
            dss: Some(Dss::with_data_ack(7)),
            control: None,
        };
        let without = MptcpOptions {
            dss: None,
            control: None,
        };
        // the ACK of the third ACK / SYN-ACK (subflow ack = ISN + 1): no
        assert!(!v09x_full_by_data_ack(true, 1, &with_ack));
        // our first data acknowledged, with a DATA_ACK: yes
        assert!(v09x_full_by_data_ack(true, 1425, &with_ack));
        // acknowledged without a DSS DATA_ACK (MPTCPHDR_ACK unset): no
        assert!(!v09x_full_by_data_ack(true, 1425, &without));
        assert!(!v09x_full_by_data_ack(false, 1425, &with_ack));
    }

    #[test]
    fn a_whole_initial_window_must_arrive_before_the_data_rule_fires() {
        // 10 x 1460 = 14600 bytes: ten 1424-byte segments (14240) are not
        // enough, the eleventh is
        assert!(!v09x_full_by_data(1 + 14_240, 14_600));
        assert!(!v09x_full_by_data(1 + 14_600, 14_600));
        assert!(v09x_full_by_data(1 + 15_664, 14_600));
        assert!(!v09x_full_by_data(0, 14_600));
    }
}
