//! ECF, Earliest Completion First (Lim, Nahum, Towsley, Gibbens, "ECF: An
//! MPTCP path scheduler to manage heterogeneous paths", CoNEXT 2017,
//! Algorithm 1; Linux v0.95 `mptcp_ecf.c`).
//!
//! On top of the default (minRTT) choice: when the chosen subflow s is not
//! the fastest subflow f (f has no cwnd space), compare finishing the k bytes
//! waiting at the connection on f alone (waiting for its window) with using s:
//!
//! ```text
//!   x_f = max(k, cwnd_f mss), x_s = max(k, cwnd_s mss), delta = max(sigma_f, sigma_s)
//!   if  rtt_f (x_f / (cwnd_f mss) + 1) < (1 + waiting * beta) (rtt_s + delta):
//!       if  rtt_s x_s / (cwnd_s mss) >= 2 rtt_f + delta:  waiting = 1, wait for f
//!       else: use s
//!   else: waiting = 0, use s
//! ```
//!
//! beta = 1/4 (`mptcp_ecf_r_beta = 4`); the `waiting` flag gives the
//! hysteresis. Kernel details kept: both sides are multiplied out in integers
//! (`r_beta * lhs < r_beta * rhs + waiting * rhs`), the MSS of s is used for
//! both subflows, and sigma is `rttvar_us >> 1`, i.e. 2 x RTTVAR: the view's
//! RTTVAR is Linux's `rttvar_us / 4` (`tcp::rtt`). Simplification: k is the connection send
//! queue (`ConnView::send_queue_bytes`), where the kernel derives it from the
//! meta socket's queued memory minus what the subflows hold.

use super::{
    get_available_subflow, ConnView, RbufOpt, SchedOutcome, Scheduler, Segment, SubflowView,
};
use crate::time::Nanos;

pub const R_BETA: u128 = 4;

#[derive(Clone, Debug, Default)]
pub struct Ecf {
    waiting: bool,
    rbuf: RbufOpt,
}

impl Ecf {
    pub fn waiting(&self) -> bool {
        self.waiting
    }

    /// True if the segment should wait for the fast subflow `f` instead of
    /// going on the slow subflow `s`; updates the hysteresis flag.
    pub fn should_wait(&mut self, f: &SubflowView, s: &SubflowView, k: u64) -> bool {
        let mss = s.mss as u128;
        let (cwnd_f, srtt_f) = (f.cwnd_pkts as u128, f.srtt as u128);
        let (cwnd_s, srtt_s) = (s.cwnd_pkts as u128, s.srtt as u128);
        let delta = 2 * f.rttvar.max(s.rttvar) as u128;
        let k = k as u128;
        let x_f = k.max(cwnd_f * mss);
        let lhs = srtt_f * (x_f + cwnd_f * mss);
        let rhs = cwnd_f * mss * (srtt_s + delta);
        if R_BETA * lhs < R_BETA * rhs + self.waiting as u128 * rhs {
            let x_s = k.max(cwnd_s * mss);
            if srtt_s * x_s >= cwnd_s * mss * (2 * srtt_f + delta) {
                self.waiting = true;
                return true;
            }
        } else {
            self.waiting = false;
        }
        false
    }

    fn choose(
        &mut self,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: Option<&Segment>,
    ) -> Option<usize> {
        let mut minsk: Option<usize> = None;
        for (i, s) in subflows.iter().enumerate().filter(|(_, s)| s.established) {
            if minsk.is_none_or(|m| s.srtt < subflows[m].srtt) {
                minsk = Some(i);
            }
        }
        let best = get_available_subflow(subflows, seg)?;
        match minsk {
            Some(f)
                if f != best
                    && self.should_wait(&subflows[f], &subflows[best], conn.send_queue_bytes) =>
            {
                None
            }
            _ => Some(best),
        }
    }
}

impl Scheduler for Ecf {
    fn name(&self) -> &'static str {
        "ecf"
    }

    fn schedule(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        let pick = self.choose(subflows, conn, Some(seg));
        self.rbuf.outcome(now, subflows, conn, seg, pick, false)
    }

    fn on_send_blocked(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
    ) -> SchedOutcome {
        let pick = self.choose(subflows, conn, None);
        self.rbuf.blocked(now, subflows, conn, pick, false)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::Decision;
    use super::*;

    /// Fast subflow 0 (10 ms, cwnd 10, full), slow subflow 1 (100 ms, cwnd
    /// 10), rttvar 0 (delta 0), MSS 1000; `k` bytes queued at the connection.
    fn run(ecf: &mut Ecf, k: u64) -> Decision {
        let mut subs = [sv(0, 10), sv(1, 100)];
        subs[0].inflight_pkts = 10;
        subs[0].rttvar = 0;
        subs[1].rttvar = 0;
        let c = ConnView {
            send_queue_bytes: k,
            ..conn()
        };
        ecf.schedule(0, &subs, &c, &seg()).decision
    }

    #[test]
    fn waits_for_fast_path_with_little_data() {
        // k = 5000: x_f = max(5000, 10000) = 10000;
        // lhs = 10 ms * 20000 B, rhs = 10000 B * 100 ms -> 4 lhs = 0.8e6 < 4 rhs = 4e6;
        // x_s = 10000: 100 ms * 10000 = 1e6 >= 10000 * 20 ms = 2e5 -> wait.
        let mut e = Ecf::default();
        assert_eq!(run(&mut e, 5_000), Decision::Wait);
        assert!(e.waiting());
    }

    #[test]
    fn uses_slow_path_with_large_backlog() {
        // k = 1e6: lhs = 10 ms * (1e6 + 1e4) = 10.1e6, rhs = 1e6 -> 40.4e6 >= 4e6 -> use slow.
        let mut e = Ecf::default();
        assert_eq!(run(&mut e, 1_000_000), Decision::Send(1));
        assert!(!e.waiting());
    }

    #[test]
    fn hysteresis_keeps_waiting() {
        // k = 100000: lhs = 10 ms * 110000 = 1.1e6 vs rhs = 1e6:
        // not waiting: 4.4e6 < 4e6 false -> use slow;
        // waiting:     4.4e6 < 4e6 + 1e6 true, 100 ms * 1e5 >= 2e5 -> keep waiting.
        let mut fresh = Ecf::default();
        assert_eq!(run(&mut fresh, 100_000), Decision::Send(1));
        let mut w = Ecf::default();
        assert_eq!(run(&mut w, 5_000), Decision::Wait);
        assert_eq!(run(&mut w, 100_000), Decision::Wait);
    }

    #[test]
    fn slow_path_close_to_fast_is_used() {
        // Slow 15 ms vs fast 10 ms, k = 5000: first test true (0.8e6 < 4 * 0.15e6 = 0.6e6? no)
        // 4 * 10 * 20000 = 0.8e6 vs 4 * 10000 * 15 = 0.6e6 -> not smaller -> use slow.
        let mut subs = [sv(0, 10), sv(1, 15)];
        subs[0].inflight_pkts = 10;
        subs[0].rttvar = 0;
        subs[1].rttvar = 0;
        let c = ConnView {
            send_queue_bytes: 5_000,
            ..conn()
        };
        assert_eq!(
            Ecf::default().schedule(0, &subs, &c, &seg()).decision,
            Decision::Send(1)
        );
    }
}
