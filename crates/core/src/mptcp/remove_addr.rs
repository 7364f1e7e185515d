//! Withdrawal of a local address during a run, and the REMOVE_ADDR option
//! that tells the peer (RFC 8684 section 3.4.2).
//!
//! Upstream Linux withdraws an address when the administrator deletes its
//! endpoint (`ip mptcp endpoint delete id N`,
//! `mptcp_nl_remove_subflow_and_signal_addr`): the subflows from that
//! address are closed (`mptcp_pm_nl_rm_addr_or_subflow` ->
//! `mptcp_close_ssk`), their unacknowledged data is retransmitted on the
//! remaining subflows (`__mptcp_close_ssk` -> `__mptcp_retransmit_pending_data`)
//! and an ACK carrying REMOVE_ADDR with the address id goes out on a
//! remaining subflow (`mptcp_pm_remove_addr`, `mptcp_pm_nl_addr_send_ack`;
//! it has no retransmission timer, unlike ADD_ADDR). The peer closes its
//! subflows to that address id (`mptcp_pm_nl_rm_addr_received`) and
//! retransmits their unacknowledged data the same way.
//!
//! The connection side is in `connection/remove.rs`.

use crate::packet::Addr;
use crate::time::Nanos;

/// At `at`, this host withdraws local address `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrRemoval {
    pub at: Nanos,
    pub addr: Addr,
}
