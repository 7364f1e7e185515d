//! Changes of a local address's backup priority during a run, and the
//! MP_PRIO option that tells the peer (RFC 8684 section 3.3.8).
//!
//! Upstream Linux changes a subflow's priority when the administrator
//! changes its endpoint (`ip mptcp endpoint change ADDR backup|nobackup`,
//! `mptcp_pm_nl_mp_prio_send_ack`): every subflow from that address is
//! re-flagged locally and sends an ACK carrying MP_PRIO, which makes the
//! peer's scheduler treat the subflow as backup (or regular) too.

use crate::packet::Addr;
use crate::time::Nanos;

/// At `at`, subflows from local address `addr` become backup (`true`) or
/// regular (`false`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrioChange {
    pub at: Nanos,
    pub addr: Addr,
    pub backup: bool,
}
