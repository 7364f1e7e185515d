//! Upstream Linux's in-kernel path manager (Linux 6.18 `net/mptcp/pm.c`,
//! `net/mptcp/pm_kernel.c`): the per-connection counters and limits that
//! decide which subflows a host opens and which announced addresses it
//! accepts, ported decision by decision. The connection calls it on the
//! kernel's events (fully established, ADD_ADDR received, join received) and
//! carries out what it returns; `add_addr.rs` holds the ADD_ADDR
//! retransmission timer.
//!
//! Simplifications (docs/mptcp.md, "In-kernel path manager"): addresses are
//! IPv4 only (`mptcp_pm_addr_families_match` always holds); the C flag
//! (`allow_join_initial_addr_port = 0`) is never set, so its special cases
//! (`mptcp_pm_add_addr_c_flag_case`) never apply; the passive side (server)
//! announces its `signal` endpoints but opens no subflows of its own; an
//! announced address is joined from the first local address when no
//! `fullmesh` or `laminar` endpoint applies (the kernel lets routing pick the
//! source, `fill_local_address_any`; the simulated client has one route per
//! destination, the first path's).

use crate::packet::Addr;
use crate::time::{Nanos, SEC};

use super::pm::EpFlags;

/// `MPTCP_PM_ADDR_MAX` (pm_kernel.c): the most endpoints, and the largest
/// value `ip mptcp limits set` accepts (`parse_limit`).
pub const MPTCP_PM_ADDR_MAX: u32 = 8;
/// `ADD_ADDR_RETRANS_MAX` (pm.c): retransmissions of an unechoed ADD_ADDR.
pub const ADD_ADDR_RETRANS_MAX: u8 = 3;
/// `net.mptcp.add_addr_timeout` default (ctrl.c `mptcp_pernet_set_defaults`:
/// `TCP_RTO_MAX`, 120 s).
pub const ADD_ADDR_TIMEOUT_DEFAULT: Nanos = 120 * SEC;

/// `ip mptcp limits`: extra subflows (besides the initial one) and accepted
/// ADD_ADDRs per connection. Kernel defaults (pm_kernel.c `pm_nl_init_net`):
/// 2 subflows ("2 subflows ought to be enough for anybody"), 0 ADD_ADDRs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmLimits {
    pub subflows: u8,
    pub add_addr_accepted: u8,
}

impl PmLimits {
    pub const KERNEL_DEFAULT: PmLimits = PmLimits {
        subflows: 2,
        add_addr_accepted: 0,
    };
}

/// The in-kernel PM's state of one connection (`struct mptcp_pm_data`).
#[derive(Clone, Debug)]
pub struct KernelPm {
    limits: PmLimits,
    /// `pm.extra_subflows`: subflows besides the initial one, opened or accepted.
    pub extra_subflows: u8,
    /// `pm.add_addr_accepted`.
    pub add_addr_accepted: u8,
    /// `pm.add_addr_signaled`.
    pub add_addr_signaled: u8,
    /// `pm.local_addr_used` (never counts the initial subflow's endpoint).
    local_addr_used: u8,
    /// Endpoints no longer available to this connection (`pm.id_avail_bitmap`
    /// cleared), by address.
    used: Vec<Addr>,
    /// `pm.accept_addr`, `pm.accept_subflow`.
    accept_addr: bool,
    accept_subflow: bool,
    /// The initial subflow's endpoint was accounted (`mptcp_mpc_endpoint_setup`).
    mpc_accounted: bool,
}

impl KernelPm {
    /// `mptcp_pm_data_reset` for the in-kernel PM.
    pub fn new(limits: PmLimits) -> KernelPm {
        let subflows_allowed = limits.subflows > 0;
        KernelPm {
            limits,
            extra_subflows: 0,
            add_addr_accepted: 0,
            add_addr_signaled: 0,
            local_addr_used: 0,
            used: Vec::new(),
            accept_addr: limits.add_addr_accepted > 0 && subflows_allowed,
            accept_subflow: subflows_allowed,
            mpc_accounted: false,
        }
    }

    pub fn limits(&self) -> PmLimits {
        self.limits
    }

    /// pm_kernel.c `mptcp_mpc_endpoint_setup`: the endpoint of the initial
    /// subflow's address is taken by it (id 0), once.
    fn mpc_setup(&mut self, local0: Addr, eps: &[(Addr, EpFlags)]) {
        if !self.mpc_accounted {
            self.mpc_accounted = true;
            if eps.iter().any(|&(a, _)| a == local0) {
                self.used.push(local0);
            }
        }
    }

    /// The subflow part of pm_kernel.c `mptcp_pm_create_subflow_or_signal_addr`
    /// (run by the PM worker when the connection is fully established and
    /// whenever a subflow becomes established): for each `subflow` endpoint
    /// not yet used, in list order, one subflow to the initial remote address
    /// (`fill_remote_addr`), or with `fullmesh` one to every remote address
    /// the existing subflows reach (`fill_remote_addresses_fullmesh`), while
    /// `local_addr_used < endp_subflow_max` and `extra_subflows < limit`.
    /// `existing`: (local, remote) of the connection's subflows, the initial
    /// one first. Returns the subflows to open, in order.
    pub fn create_subflows(
        &mut self,
        eps: &[(Addr, EpFlags)],
        existing: &[(Addr, Addr)],
    ) -> Vec<(Addr, Addr)> {
        let Some(&(local0, remote0)) = existing.first() else {
            return Vec::new();
        };
        self.mpc_setup(local0, eps);
        let endp_subflow_max = eps.iter().filter(|(_, f)| f.subflow).count() as u8;
        let mut all = existing.to_vec();
        let mut out = Vec::new();
        while self.local_addr_used < endp_subflow_max && self.extra_subflows < self.limits.subflows
        {
            // select_local_address: the first `subflow` endpoint still available
            let Some(&(a, f)) = eps
                .iter()
                .find(|(a, f)| f.subflow && !self.used.contains(a))
            else {
                break;
            };
            self.used.push(a);
            if a != local0 {
                // "local_addr_used is not decr for ID 0"
                self.local_addr_used += 1;
            }
            let new: Vec<(Addr, Addr)> = if f.fullmesh {
                // fill_remote_addresses_fullmesh: every remote id reached by a
                // subflow, once, except those this local address already reaches
                let mut v: Vec<(Addr, Addr)> = Vec::new();
                for &(_, r) in &all {
                    if all.contains(&(a, r)) || v.iter().any(|&(_, x)| x == r) {
                        continue;
                    }
                    v.push((a, r));
                    self.extra_subflows += 1;
                    if self.extra_subflows >= self.limits.subflows {
                        break;
                    }
                }
                v
            } else {
                // fill_remote_addr: the initial subflow's remote address
                self.extra_subflows += 1;
                vec![(a, remote0)]
            };
            all.extend_from_slice(&new);
            out.extend(new);
        }
        out
    }

    /// The signal part of `mptcp_pm_create_subflow_or_signal_addr`: the next
    /// `signal` endpoint to announce (`select_signal_address`), unless every
    /// one was announced or an announcement is still waiting to be sent
    /// (`in_flight`: `pm.addr_signal & MPTCP_ADD_ADDR_SIGNAL`). Returns the
    /// address and its id (0 for the initial subflow's address).
    pub fn next_signal(
        &mut self,
        eps: &[(Addr, EpFlags)],
        local0: Addr,
        in_flight: bool,
    ) -> Option<Addr> {
        self.mpc_setup(local0, eps);
        let endp_signal_max = eps.iter().filter(|(_, f)| f.signal).count() as u8;
        if self.add_addr_signaled >= endp_signal_max || in_flight {
            return None;
        }
        let &(a, _) = eps
            .iter()
            .find(|(a, f)| f.signal && !self.used.contains(a))?;
        self.used.push(a);
        self.add_addr_signaled += 1;
        Some(a)
    }

    /// pm.c `mptcp_pm_add_addr_received` + pm_kernel.c
    /// `mptcp_pm_nl_add_addr_received`: an ADD_ADDR for `remote` (address id
    /// `id`) arrived. It is always echoed (the caller sends the echo); the
    /// subflows to open are returned: none when `accept_addr` is off (for
    /// id > 0), or when a subflow already reaches `remote`
    /// (`lookup_subflow_by_daddr`); else those `fill_local_addresses_vec`
    /// picks: every `fullmesh` endpoint; else, with `laminar` endpoints, the
    /// first one not used by an existing subflow (`fill_local_laminar_endp`),
    /// or none; else one from the first local address
    /// (`fill_local_address_any`).
    pub fn add_addr_received(
        &mut self,
        remote: Addr,
        id: u8,
        eps: &[(Addr, EpFlags)],
        existing: &[(Addr, Addr)],
    ) -> Vec<(Addr, Addr)> {
        let Some(&(local0, remote0)) = existing.first() else {
            return Vec::new();
        };
        // mptcp_pm_add_addr_received: id 0 must be the initial remote address;
        // other ids need accept_addr (the C flag case never applies here)
        if (id == 0 && remote != remote0) || (id > 0 && !self.accept_addr) {
            return Vec::new();
        }
        self.mpc_setup(local0, eps);
        if existing.iter().any(|&(_, r)| r == remote) {
            return Vec::new();
        }
        let mut locals: Vec<Addr> = Vec::new();
        if eps.iter().any(|(_, f)| f.fullmesh) {
            // fill_local_addresses_vec_fullmesh
            for &(a, f) in eps {
                if !f.fullmesh {
                    continue;
                }
                locals.push(a);
                self.extra_subflows += 1;
                if self.extra_subflows >= self.limits.subflows {
                    break;
                }
            }
        }
        if locals.is_empty() {
            if eps.iter().any(|(_, f)| f.laminar) {
                // fill_local_laminar_endp: local ids of live subflows are
                // unavailable (the initial subflow's address is id 0)
                if let Some(&(a, f)) = eps
                    .iter()
                    .find(|(a, f)| f.laminar && !existing.iter().any(|&(l, _)| l == *a))
                {
                    if f.subflow {
                        if !self.used.contains(&a) {
                            self.used.push(a);
                        }
                        if a != local0 {
                            self.local_addr_used += 1;
                        }
                    }
                    self.extra_subflows += 1;
                    locals.push(a);
                }
            } else {
                // fill_local_address_any
                self.extra_subflows += 1;
                locals.push(local0);
            }
        }
        if locals.is_empty() {
            return Vec::new();
        }
        if id != 0 {
            // "add_addr_accepted is not decr for ID 0"
            self.add_addr_accepted += 1;
        }
        if self.add_addr_accepted >= self.limits.add_addr_accepted
            || self.extra_subflows >= self.limits.subflows
        {
            self.accept_addr = false;
        }
        locals.into_iter().map(|l| (l, remote)).collect()
    }

    /// pm.c `mptcp_pm_allow_new_subflow`: the passive side accepts a join
    /// while `extra_subflows < limit` (counting it).
    pub fn allow_new_subflow(&mut self) -> bool {
        if !self.accept_subflow {
            return false;
        }
        let ok = self.extra_subflows < self.limits.subflows;
        if ok {
            self.extra_subflows += 1;
            if self.extra_subflows == self.limits.subflows {
                self.accept_subflow = false;
            }
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> EpFlags {
        EpFlags::parse(s).unwrap()
    }

    #[test]
    fn subflow_endpoints_stop_at_the_subflows_limit() {
        let eps = [(2, f("subflow")), (3, f("subflow")), (4, f("subflow"))];
        let mut pm = KernelPm::new(PmLimits::KERNEL_DEFAULT);
        // default limit 2: two of the three endpoints
        assert_eq!(pm.create_subflows(&eps, &[(1, 10)]), vec![(2, 10), (3, 10)]);
        assert_eq!(pm.extra_subflows, 2);
        // later worker runs open nothing more
        assert!(pm
            .create_subflows(&eps, &[(1, 10), (2, 10), (3, 10)])
            .is_empty());
        let mut pm = KernelPm::new(PmLimits {
            subflows: 0,
            add_addr_accepted: 0,
        });
        assert!(pm.create_subflows(&eps, &[(1, 10)]).is_empty());
    }

    #[test]
    fn the_initial_address_endpoint_is_taken_by_the_initial_subflow() {
        let eps = [(1, f("subflow")), (2, f("subflow"))];
        let mut pm = KernelPm::new(PmLimits::KERNEL_DEFAULT);
        assert_eq!(pm.create_subflows(&eps, &[(1, 10)]), vec![(2, 10)]);
    }

    #[test]
    fn fullmesh_endpoint_reaches_every_known_remote() {
        let eps = [(2, f("subflow,fullmesh"))];
        let mut pm = KernelPm::new(PmLimits {
            subflows: 8,
            add_addr_accepted: 8,
        });
        let ex = [(1, 10), (1, 20)];
        assert_eq!(pm.create_subflows(&eps, &ex), vec![(2, 10), (2, 20)]);
    }

    #[test]
    fn add_addr_needs_the_accepted_limit() {
        let eps = [(2, f("subflow"))];
        // kernel default: add_addr_accepted 0, the announcement is only echoed
        let mut pm = KernelPm::new(PmLimits::KERNEL_DEFAULT);
        assert!(pm.add_addr_received(20, 1, &eps, &[(1, 10)]).is_empty());
        let mut pm = KernelPm::new(PmLimits {
            subflows: 2,
            add_addr_accepted: 1,
        });
        assert_eq!(pm.add_addr_received(20, 1, &eps, &[(1, 10)]), vec![(1, 20)]);
        assert_eq!(pm.add_addr_accepted, 1);
        // the limit is reached: a second announced address is not joined
        assert!(pm
            .add_addr_received(30, 2, &eps, &[(1, 10), (1, 20)])
            .is_empty());
        // an address already reached by a subflow is not joined again
        let mut pm = KernelPm::new(PmLimits {
            subflows: 2,
            add_addr_accepted: 2,
        });
        assert!(pm
            .add_addr_received(20, 1, &eps, &[(1, 10), (2, 20)])
            .is_empty());
    }

    #[test]
    fn laminar_endpoints_are_used_once_each() {
        let eps = [(2, f("laminar")), (3, f("laminar"))];
        let mut pm = KernelPm::new(PmLimits {
            subflows: 8,
            add_addr_accepted: 8,
        });
        assert_eq!(pm.add_addr_received(20, 1, &eps, &[(1, 10)]), vec![(2, 20)]);
        assert_eq!(
            pm.add_addr_received(30, 2, &eps, &[(1, 10), (2, 20)]),
            vec![(3, 30)]
        );
        // every laminar endpoint in use: no subflow (not routing's pick)
        assert!(pm
            .add_addr_received(40, 3, &eps, &[(1, 10), (2, 20), (3, 30)])
            .is_empty());
    }

    #[test]
    fn server_accepts_joins_up_to_its_limit() {
        let mut pm = KernelPm::new(PmLimits::KERNEL_DEFAULT);
        assert!(pm.allow_new_subflow());
        assert!(pm.allow_new_subflow());
        assert!(!pm.allow_new_subflow());
    }

    #[test]
    fn signal_endpoints_are_announced_one_at_a_time() {
        let eps = [(5, f("signal")), (6, f("signal"))];
        let mut pm = KernelPm::new(PmLimits::KERNEL_DEFAULT);
        assert_eq!(pm.next_signal(&eps, 4, false), Some(5));
        assert_eq!(pm.next_signal(&eps, 4, true), None);
        assert_eq!(pm.next_signal(&eps, 4, false), Some(6));
        assert_eq!(pm.next_signal(&eps, 4, false), None);
    }
}
