//! The in-kernel path manager's announced addresses and their
//! retransmission timer (Linux 6.18 net/mptcp/pm.c `mptcp_pm_announced_alloc`,
//! `mptcp_pm_add_timer`, `mptcp_pm_announced_del_timer`,
//! `mptcp_adjust_add_addr_timeout`). An ADD_ADDR (RFC 8684 3.4.1) rides on
//! one packet, which a lossy path may drop; MPTCP v1 has the receiver echo it
//! (E flag), and the announcer re-sends it until the echo arrives: first
//! after `timeout`, then `2 * timeout`, then `4 * timeout`
//! (`ADD_ADDR_RETRANS_MAX` = 3 re-sends), where `timeout` is
//! `net.mptcp.add_addr_timeout` (120 s) capped by the largest RTO of the
//! connection's subflows, recomputed at each expiry.

use crate::packet::Addr;
use crate::time::Nanos;

use super::pm_kernel::ADD_ADDR_RETRANS_MAX;

/// `TCP_RTO_MAX / 8` (15 s): the timer's re-arm while the previous
/// announcement still waits to be written (`mptcp_pm_add_timer`).
const BUSY_REARM: Nanos = 15 * crate::time::SEC;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Announced {
    id: u8,
    addr: Addr,
    /// `retrans_times`.
    retrans: u8,
    deadline: Option<Nanos>,
}

/// What an expiry asks for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Expiry {
    /// ADD_ADDRs to send again: (address id, address).
    pub resend: Vec<(u8, Addr)>,
    /// An announcement was given up (no echo after the last re-send): the
    /// PM worker runs again (`mptcp_pm_subflow_established`) and may
    /// announce the next address.
    pub gave_up: bool,
}

/// The connection's announced addresses (`pm.anno_list`).
#[derive(Clone, Debug)]
pub struct AddAddrTimers {
    /// `net.mptcp.add_addr_timeout` (0 disables the timer).
    timeout: Nanos,
    list: Vec<Announced>,
}

impl AddAddrTimers {
    pub fn new(timeout: Nanos) -> AddAddrTimers {
        AddAddrTimers {
            timeout,
            list: Vec::new(),
        }
    }

    /// `mptcp_adjust_add_addr_timeout`: the sysctl, or the largest subflow
    /// RTO if that is smaller.
    fn adjusted(&self, max_rto: Nanos) -> Nanos {
        if max_rto > 0 && max_rto < self.timeout {
            max_rto
        } else {
            self.timeout
        }
    }

    /// `mptcp_pm_announced_alloc`: `addr` (id `id`) was announced now.
    pub fn announce(&mut self, now: Nanos, id: u8, addr: Addr, max_rto: Nanos) {
        let t = self.adjusted(max_rto);
        let deadline = (t > 0).then_some(now + t);
        self.list.push(Announced {
            id,
            addr,
            retrans: 0,
            deadline,
        });
    }

    /// No address announced (so no timer: `deadline` is `None`).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The earliest timer.
    pub fn deadline(&self) -> Option<Nanos> {
        self.list.iter().filter_map(|a| a.deadline).min()
    }

    /// `mptcp_pm_add_timer` for every entry due at `now`. `busy`: an
    /// announcement still waits to be written (`mptcp_pm_should_add_signal_addr`).
    pub fn on_timeout(&mut self, now: Nanos, max_rto: Nanos, busy: bool) -> Expiry {
        let mut out = Expiry::default();
        let t = self.adjusted(max_rto);
        for a in &mut self.list {
            if a.deadline.is_none_or(|d| d > now) {
                continue;
            }
            a.deadline = None;
            if a.id == 0 {
                // "if (!entry->addr.id) return": id 0 is never re-sent
                continue;
            }
            if busy {
                a.deadline = Some(now + BUSY_REARM);
                continue;
            }
            if t == 0 {
                continue;
            }
            if a.retrans < ADD_ADDR_RETRANS_MAX {
                out.resend.push((a.id, a.addr));
                a.retrans += 1;
            }
            if a.retrans < ADD_ADDR_RETRANS_MAX {
                a.deadline = Some(now + (t << a.retrans));
            } else {
                out.gave_up = true;
            }
        }
        out
    }

    /// The echo of `addr` arrived (options.c `mptcp_incoming_options` ->
    /// `mptcp_pm_announced_del_timer`): its timer stops. True when `addr`
    /// was announced (`mptcp_pm_add_addr_echoed` then runs the PM worker).
    pub fn on_echo(&mut self, addr: Addr) -> bool {
        match self.list.iter_mut().find(|a| a.addr == addr) {
            Some(a) => {
                a.retrans = ADD_ADDR_RETRANS_MAX;
                a.deadline = None;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    #[test]
    fn resent_three_times_with_doubling_intervals_then_given_up() {
        let mut t = AddAddrTimers::new(120 * SEC);
        // the largest subflow RTO (300 ms) caps the 120 s sysctl
        t.announce(0, 1, 7, 300 * MS);
        assert_eq!(t.deadline(), Some(300 * MS));
        let e = t.on_timeout(300 * MS, 300 * MS, false);
        assert_eq!(e.resend, vec![(1, 7)]);
        assert!(!e.gave_up);
        assert_eq!(t.deadline(), Some(900 * MS));
        assert_eq!(t.on_timeout(900 * MS, 300 * MS, false).resend.len(), 1);
        assert_eq!(t.deadline(), Some(2100 * MS));
        let e = t.on_timeout(2100 * MS, 300 * MS, false);
        assert_eq!(e.resend.len(), 1);
        assert!(e.gave_up);
        assert_eq!(t.deadline(), None);
    }

    #[test]
    fn an_echo_stops_the_timer() {
        let mut t = AddAddrTimers::new(120 * SEC);
        t.announce(0, 1, 7, 0);
        assert_eq!(t.deadline(), Some(120 * SEC));
        assert!(t.on_echo(7));
        assert_eq!(t.deadline(), None);
        assert!(!t.on_echo(8));
        // a zero sysctl disables the timer, whatever the RTOs
        let mut t = AddAddrTimers::new(0);
        t.announce(0, 1, 7, 200 * MS);
        assert_eq!(t.deadline(), None);
    }
}
