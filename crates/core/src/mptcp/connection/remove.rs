//! REMOVE_ADDR (RFC 8684 3.4.2) on the connection: withdrawing a local
//! address at a scheduled time, closing the subflows the peer names in a
//! received REMOVE_ADDR, and closing one subflow with the reinjection of
//! its unacknowledged data. See `super::super::remove_addr` for the Linux
//! functions modelled.

use super::*;

impl MptcpConnection {
    /// This host withdraws `addr`: its subflows close and REMOVE_ADDR with
    /// the address id goes out on a remaining subflow (an ACK is forced,
    /// `mptcp_pm_nl_addr_send_ack`). No new subflow will use the address.
    #[cold]
    #[inline(never)]
    pub(super) fn remove_local_addr(&mut self, now: Nanos, addr: Addr) {
        let Some(id) = self.local_addrs.iter().position(|&a| a == addr) else {
            return;
        };
        if self.removed_addrs.contains(&addr) {
            return;
        }
        self.removed_addrs.push(addr);
        let mut any = false;
        for i in 0..self.sfs.len() {
            if self.sfs[i].local == addr && self.sfs[i].state != SfState::Closed {
                self.close_subflow(now, i);
                any = true;
            }
        }
        // Linux signals the removal only once MPTCP is agreed; an address
        // without subflows is still announced as removed (the peer may
        // hold it from ADD_ADDR).
        if self.mode == Mode::Mptcp && (any || self.role == Role::Server) {
            self.rm_addr_pending.push_back(id as u8);
        }
    }

    /// The peer withdrew its address `id` (REMOVE_ADDR): close our
    /// subflows to it (`mptcp_pm_nl_rm_addr_received`).
    #[cold]
    #[inline(never)]
    pub(super) fn on_remove_addr(&mut self, now: Nanos, id: u8) {
        for i in 0..self.sfs.len() {
            if self.sfs[i].remote_id == Some(id) && self.sfs[i].state != SfState::Closed {
                self.close_subflow(now, i);
            }
        }
    }

    /// Close subflow `i`: it sends and receives nothing more, and its
    /// unacknowledged data goes to the reinjection queue for the other
    /// subflows. Upstream scheduler: all of the connection's unacknowledged
    /// data (`__mptcp_retransmit_pending_data`); v0.9x: the subflow's own
    /// mappings (`mptcp_reinject_data` before `mptcp_sub_force_close`).
    fn close_subflow(&mut self, _now: Nanos, i: usize) {
        // (its scheduler view: no longer established)
        self.forget_all();
        let sf = &mut self.sfs[i];
        sf.state = SfState::Closed;
        sf.syn_pending = false;
        sf.syn_timer = None;
        sf.third_ack_pending = false;
        sf.prio_pending = None;
        if self.mode != Mode::Mptcp {
            return;
        }
        let segs: Vec<(u64, u32)> = if self.msk_rtx.is_some() {
            self.send.inflight.iter().map(|(d, s)| (d, s.len)).collect()
        } else {
            self.sfs[i].tx_maps.iter().map(|m| (m.dsn, m.len)).collect()
        };
        for (d, l) in segs {
            self.send.queue_reinject(d, l);
        }
    }
}
