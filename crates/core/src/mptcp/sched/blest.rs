//! BLEST, the Blocking Estimation scheduler (Ferlin, Alay, Mehani, Boreli,
//! "BLEST: Blocking estimation-based MPTCP scheduler for heterogeneous
//! networks", IFIP Networking 2016; Linux v0.95 `mptcp_blest.c`).
//!
//! On top of the default (minRTT) choice: when the chosen subflow s is not
//! the fastest subflow f, estimate how many bytes f could send while a
//! segment sent now on s is in flight, and skip s (wait) if those bytes would
//! not fit in the connection-level send window next to what s holds:
//!
//! ```text
//!   linger_s  = srtt_min_s + (srtt_max_s - srtt_min_s) * (inflight_s + 1) / cwnd_s
//!               (srtt_max_s if inflight_s + 1 >= cwnd_s), at least srtt_s
//!   n         = linger_s / ((srtt_min_f + srtt_max_f) / 2) + 1      (rounds of f)
//!   packets_f = cwnd_f (2^n - 1)               in initial slow start (n <= 16)
//!             = (max(cwnd_f, ssthresh_f + 1) + (n - 1) / 2) n   otherwise (Reno)
//!   X         = packets_f * mss_f * lambda
//!   wait if X > snd_wnd - (len + unacked_s)
//! ```
//!
//! (paper eq. (1)-(3); `blestsched_estimate_linger_time`,
//! `blestsched_estimate_bytes`, `blest_get_available_subflow`). srtt_min and
//! srtt_max are the smallest and largest srtt seen on each subflow. lambda
//! starts at 1.2 and, at most once per srtt_min of the slow subflow, grows by
//! 0.04 if a head-of-line retransmission/penalisation happened since the last
//! update, else shrinks by 0.01, within [1.0, 1.3] (module parameters
//! lambda = 12, max_lambda = 13, min_lambda = 10, dyn_lambda_bad = 40,
//! dyn_lambda_good = 10, in tenths / thousandths). The receive-buffer
//! optimisation is the default scheduler's, except that every slower holder
//! of the head-of-line segment is penalised.

use std::collections::BTreeMap;

use super::{
    get_available_subflow, nothing_now, ConnView, Decision, RbufOpt, SchedOutcome, Scheduler,
    Segment, SubflowView,
};
use crate::time::Nanos;

pub const LAMBDA_1000: i32 = 1200;
pub const MAX_LAMBDA_1000: i32 = 1300;
pub const MIN_LAMBDA_1000: i32 = 1000;
pub const DYN_LAMBDA_GOOD: i32 = 10;
pub const DYN_LAMBDA_BAD: i32 = 40;

#[derive(Clone, Debug)]
pub struct Blest {
    lambda_1000: i32,
    retrans_flag: bool,
    last_lambda_update: Option<Nanos>,
    /// Per subflow id: (smallest, largest) srtt seen.
    srtt_range: BTreeMap<usize, (Nanos, Nanos)>,
    rbuf: RbufOpt,
}

impl Default for Blest {
    fn default() -> Self {
        Blest {
            lambda_1000: LAMBDA_1000,
            retrans_flag: false,
            last_lambda_update: None,
            srtt_range: BTreeMap::new(),
            rbuf: RbufOpt::default(),
        }
    }
}

impl Blest {
    /// Current lambda in thousandths.
    pub fn lambda_1000(&self) -> i32 {
        self.lambda_1000
    }

    fn range(&self, s: &SubflowView) -> (Nanos, Nanos) {
        self.srtt_range
            .get(&s.id)
            .copied()
            .unwrap_or((s.srtt, s.srtt))
    }

    /// `blestsched_update_lambda`, called for the slow subflow.
    fn update_lambda(&mut self, now: Nanos, slow: &SubflowView) {
        let last = *self.last_lambda_update.get_or_insert(now);
        if now.saturating_sub(last) < self.range(slow).0 {
            return;
        }
        self.lambda_1000 += if self.retrans_flag {
            DYN_LAMBDA_BAD
        } else {
            -DYN_LAMBDA_GOOD
        };
        self.retrans_flag = false;
        self.lambda_1000 = self.lambda_1000.clamp(MIN_LAMBDA_1000, MAX_LAMBDA_1000);
        self.last_lambda_update = Some(now);
    }

    /// Estimated time until a segment sent now on `s` is acked.
    pub fn linger_time(&self, s: &SubflowView) -> Nanos {
        let (min, max) = self.range(s);
        let inflight = s.inflight_pkts as u64 + 1;
        let cwnd = s.cwnd_pkts.max(1) as u64;
        let est = if inflight >= cwnd {
            max
        } else {
            min + (max - min) * inflight / cwnd
        };
        est.max(s.srtt)
    }

    /// Bytes the fast subflow `f` sends during `time`.
    pub fn estimate_bytes(&self, f: &SubflowView, time: Nanos) -> u64 {
        let (min, max) = self.range(f);
        let avg = (min + max) / 2;
        let mut n = time.checked_div(avg).map_or(1, |q| q + 1);
        let cwnd = f.cwnd_pkts as u64;
        let packets = if f.ssthresh_pkts == u32::MAX {
            n = n.min(16);
            cwnd * ((1u64 << n) - 1)
        } else {
            let ca_cwnd = cwnd.max(f.ssthresh_pkts as u64 + 1);
            (ca_cwnd + (n - 1) / 2) * n
        };
        packets * f.mss as u64 * self.lambda_1000 as u64 / 1000
    }

    fn rbuf(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        fast: usize,
        penal: bool,
    ) -> SchedOutcome {
        if penal || conn.send_buf_full {
            // A head-of-line event: make lambda more conservative.
            self.retrans_flag = true;
        }
        self.rbuf.run(now, subflows, conn, fast, penal, true)
    }

    /// `blest_get_available_subflow`: an index or None (wait / none).
    fn choose(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: Option<&Segment>,
    ) -> Option<usize> {
        self.last_lambda_update.get_or_insert(now);
        let mut minsk: Option<usize> = None;
        for (i, s) in subflows.iter().enumerate().filter(|(_, s)| s.established) {
            let r = self.srtt_range.entry(s.id).or_insert((s.srtt, s.srtt));
            r.0 = r.0.min(s.srtt);
            r.1 = r.1.max(s.srtt);
            if minsk.is_none_or(|m| s.srtt < subflows[m].srtt) {
                minsk = Some(i);
            }
        }
        let best = get_available_subflow(subflows, seg)?;
        let Some(f) = minsk.filter(|&m| m != best) else {
            return Some(best);
        };
        let slow = subflows[best];
        self.update_lambda(now, &slow);
        let fast_bytes = self.estimate_bytes(&subflows[f], self.linger_time(&slow));
        let slow_bytes = seg.map_or(0, |s| s.len as u64) + slow.unacked_bytes;
        let avail = conn.snd_wnd.saturating_sub(slow_bytes);
        if fast_bytes > avail {
            return None;
        }
        Some(best)
    }
}

impl Scheduler for Blest {
    fn name(&self) -> &'static str {
        "blest"
    }

    fn schedule(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        let Some(i) = self.choose(now, subflows, conn, Some(seg)) else {
            return SchedOutcome::just(nothing_now(subflows));
        };
        if !seg.reinjection && !conn.fits_rwnd {
            return self.rbuf(now, subflows, conn, i, true);
        }
        SchedOutcome::just(Decision::Send(subflows[i].id))
    }

    fn on_send_blocked(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
    ) -> SchedOutcome {
        match self.choose(now, subflows, conn, None) {
            Some(i) => self.rbuf(now, subflows, conn, i, false),
            None => SchedOutcome::just(nothing_now(subflows)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::HeadOfLine;
    use super::*;
    use crate::time::MS;

    /// Fast subflow 0 (10 ms, cwnd 10 full, ssthresh 20) and slow subflow 1
    /// (100 ms, cwnd 10, idle).
    fn pair() -> [SubflowView; 2] {
        let mut subs = [sv(0, 10), sv(1, 100)];
        subs[0].inflight_pkts = 10;
        subs[0].ssthresh_pkts = 20;
        subs
    }

    #[test]
    fn refuses_slow_path_when_fast_one_would_fill_the_window() {
        let subs = pair();
        // linger of 1: inflight+1 = 1 < 10, min = max = 100 ms -> 100 ms.
        // rounds of 0: 100/10 + 1 = 11; CA: ca_cwnd = max(10, 21) = 21;
        // packets = (21 + 10/2) * 11 = 286; bytes = 286 * 1000 * 1.2 = 343200.
        // slow_bytes = 1000 + 0.
        let mut b = Blest::default();
        assert_eq!(b.linger_time(&subs[1]), 100 * MS);
        assert_eq!(b.estimate_bytes(&subs[0], 100 * MS), 343_200);
        // snd_wnd 300000: avail 299000 < 343200 -> wait.
        let c = ConnView {
            snd_wnd: 300_000,
            ..conn()
        };
        assert_eq!(b.schedule(0, &subs, &c, &seg()).decision, Decision::Wait);
        // snd_wnd 400000: avail 399000 >= 343200 -> use the slow subflow.
        let c = ConnView {
            snd_wnd: 400_000,
            ..conn()
        };
        assert_eq!(b.schedule(0, &subs, &c, &seg()).decision, Decision::Send(1));
    }

    #[test]
    fn fast_subflow_available_is_just_minrtt() {
        let mut subs = pair();
        subs[0].inflight_pkts = 0;
        let c = ConnView {
            snd_wnd: 1000,
            ..conn()
        };
        assert_eq!(
            Blest::default().schedule(0, &subs, &c, &seg()).decision,
            Decision::Send(0)
        );
    }

    #[test]
    fn slow_start_estimate_and_linger_slope() {
        let mut b = Blest::default();
        let mut f = sv(0, 10);
        f.ssthresh_pkts = u32::MAX;
        // 25 ms at 10 ms rounds: n = 3 -> 10 * (2^3 - 1) = 70 packets * 1.2
        assert_eq!(b.estimate_bytes(&f, 25 * MS), 84_000);
        // Slow subflow seen at 100 ms and 200 ms, now 100 ms, 4 of 10 in flight:
        // 100 + 100 * 5 / 10 = 150 ms.
        let mut s = sv(1, 200);
        b.srtt_range.insert(1, (100 * MS, 200 * MS));
        s.srtt = 100 * MS;
        s.inflight_pkts = 4;
        assert_eq!(b.linger_time(&s), 150 * MS);
    }

    #[test]
    fn lambda_grows_after_hol_event_and_shrinks_otherwise() {
        let mut b = Blest::default();
        let mut subs = pair();
        let c = ConnView {
            snd_wnd: 1 << 30,
            ..conn()
        };
        // t = 0: fast subflow available but receive window full -> HoL event.
        subs[0].inflight_pkts = 0;
        let hol = ConnView {
            fits_rwnd: false,
            head: Some(HeadOfLine {
                len: 1000,
                sent_on: 0b10,
            }),
            ..c
        };
        let out = b.schedule(0, &subs, &hol, &seg());
        assert_eq!(out.retransmit_head_on, Some(0));
        assert_eq!(b.lambda_1000(), 1200);
        // 100 ms later (one srtt_min of the slow subflow) using the slow one:
        subs[0].inflight_pkts = 10;
        b.schedule(100 * MS, &subs, &c, &seg());
        assert_eq!(b.lambda_1000(), 1240);
        // 50 ms later: too early, unchanged; 100 ms later: -10.
        b.schedule(150 * MS, &subs, &c, &seg());
        assert_eq!(b.lambda_1000(), 1240);
        b.schedule(200 * MS, &subs, &c, &seg());
        assert_eq!(b.lambda_1000(), 1230);
        // Clamped to [1000, 1300].
        for k in 3..60 {
            b.schedule(k * 100 * MS, &subs, &c, &seg());
        }
        assert_eq!(b.lambda_1000(), 1000);
    }
}
