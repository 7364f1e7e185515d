//! Adapter from a connection-wide `CoupledCc` (LIA, OLIA, BALIA, wVegas) to
//! the per-path TCP `CongestionControl` trait, so every subflow's
//! `PathSender` drives the shared coupled controller through the usual hooks
//! (Linux v0.9x does the same: `mptcp_ccc`/`mptcp_olia` are
//! `tcp_congestion_ops` that walk the meta socket's subflow list).
//!
//! The `paths` slice handed to each hook holds every subflow of the
//! connection in subflow-index order; `CcState::path_index` is this one.

use std::cell::RefCell;
use std::rc::Rc;

use crate::tcp::cc::{CaState, CcState, CongestionControl, PathView, INFINITE_SSTHRESH};
use crate::time::Nanos;

use super::cc::{CoupledCc, SubflowCc};

/// One subflow's handle on the shared coupled controller.
pub struct CoupledAdapter {
    pub inner: Rc<RefCell<Box<dyn CoupledCc>>>,
    name: &'static str,
    /// Reused for the snapshot of every hook call (no allocation per ACK).
    buf: Vec<SubflowCc>,
}

impl std::fmt::Debug for CoupledAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CoupledAdapter({})", self.name)
    }
}

impl CoupledAdapter {
    pub fn new(inner: Rc<RefCell<Box<dyn CoupledCc>>>) -> Self {
        let name = inner.borrow().name();
        CoupledAdapter {
            inner,
            name,
            buf: Vec::new(),
        }
    }
}

fn ss_in(x: u32) -> u32 {
    if x >= INFINITE_SSTHRESH {
        u32::MAX
    } else {
        x
    }
}

fn ss_out(x: u32) -> u32 {
    if x == u32::MAX {
        INFINITE_SSTHRESH
    } else {
        x
    }
}

/// The coupled algorithms' snapshot, into `v`: every path from `paths`, this
/// one from its live state `s` (the slice may be a little older than `s`).
/// Returns this path's position.
fn snapshot(s: &CcState, paths: &[PathView], v: &mut Vec<SubflowCc>) -> usize {
    v.clear();
    v.extend(paths.iter().map(|p| SubflowCc {
        cwnd: p.cwnd,
        ssthresh: ss_in(p.ssthresh),
        srtt: p.srtt,
        mss: p.mss,
        can_send: p.srtt > 0,
        in_recovery: false,
        snd_una: 0,
        snd_nxt: 0,
    }));
    let me = s.path_index.min(v.len().saturating_sub(1));
    let mine = SubflowCc {
        cwnd: s.cwnd,
        ssthresh: ss_in(s.ssthresh),
        srtt: s.srtt,
        mss: s.mss,
        can_send: true,
        in_recovery: matches!(s.ca_state, CaState::Recovery | CaState::Loss),
        snd_una: s.snd_una,
        snd_nxt: s.snd_nxt,
    };
    if v.is_empty() {
        v.push(mine);
    } else {
        v[me] = mine;
    }
    me
}

impl CongestionControl for CoupledAdapter {
    fn name(&self) -> &'static str {
        self.name
    }

    fn ssthresh(&mut self, s: &CcState, paths: &[PathView], _now: Nanos) -> u32 {
        let me = snapshot(s, paths, &mut self.buf);
        ss_out(self.inner.borrow_mut().ssthresh_on_loss(me, &self.buf))
    }

    fn cong_avoid(&mut self, s: &mut CcState, paths: &[PathView], acked: u32, _now: Nanos) {
        let me = snapshot(s, paths, &mut self.buf);
        let u = self.inner.borrow_mut().on_ack(me, &self.buf, acked);
        s.cwnd = u.cwnd.max(1);
        s.ssthresh = ss_out(u.ssthresh);
    }

    fn pkts_acked(&mut self, s: &mut CcState, _acked: u32, rtt: Option<Nanos>, _now: Nanos) {
        if let Some(r) = rtt {
            self.inner.borrow_mut().on_rtt_sample(s.path_index, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mptcp::cc::by_name;
    use crate::time::MS;

    fn st(cwnd: u32, idx: usize) -> CcState {
        CcState {
            cwnd,
            cwnd_cnt: 0,
            ssthresh: 5,
            mss: 1000,
            srtt: 50 * MS,
            min_rtt: 50 * MS,
            in_flight: cwnd,
            ca_state: CaState::Open,
            path_index: idx,
            snd_una: 1,
            snd_nxt: 1,
        }
    }

    /// Two equal subflows under LIA grow by 1/(4w)-ish per ACK, i.e. much
    /// slower than one Reno flow (1/w per ACK).
    #[test]
    fn adapter_couples_through_the_paths_slice() {
        let shared = Rc::new(RefCell::new(by_name("lia").unwrap()));
        let mut a = CoupledAdapter::new(shared.clone());
        let s0 = st(10, 0);
        let paths = [PathView::of(&s0), PathView::of(&st(10, 1))];
        let mut s = s0.clone();
        for _ in 0..10 {
            a.cong_avoid(&mut s, &paths, 1, 0);
        }
        // Reno would reach 11 after 10 ACKs; LIA with two equal paths needs ~40.
        assert_eq!(s.cwnd, 10);
        let mut alone = st(10, 0);
        let mut b = CoupledAdapter::new(Rc::new(RefCell::new(by_name("lia").unwrap())));
        for _ in 0..10 {
            b.cong_avoid(&mut alone, &[PathView::of(&st(10, 0))], 1, 0);
        }
        assert_eq!(alone.cwnd, 11);
        assert_eq!(a.ssthresh(&s, &paths, 0), 5);
    }
}
