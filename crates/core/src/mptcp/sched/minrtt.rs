//! The Linux MPTCP v0.9x default scheduler ("default", LowRTT / minRTT;
//! `mptcp_sched.c`: `get_available_subflow`, `mptcp_next_segment`,
//! `mptcp_rcv_buf_optimization`).
//!
//! - Choose the available subflow with the lowest srtt (cwnd space, not
//!   potentially failed, not in RTO recovery); backup subflows only when no
//!   regular one is available; reinjections prefer subflows the segment was
//!   not sent on yet (`get_available_subflow`).
//! - "Retransmission and penalisation" (seed 000 Table 1): when a new segment
//!   does not fit in the peer's receive window, the head-of-line segment is
//!   retransmitted on the chosen (fast) subflow if the subflow holding it is
//!   tiny or > 4x slower, and that slower subflow's cwnd (and, outside slow
//!   start, ssthresh) is halved, at most once per srtt of the fast subflow.
//!
//! Difference: Linux starts each subflow's penalisation clock at its creation
//! (`defsched_init`), so no penalisation happens in its first srtt; here a
//! subflow that never penalised may do so at once.

use super::{
    get_available_subflow, ConnView, RbufOpt, SchedOutcome, Scheduler, Segment, SubflowView,
};
use crate::time::Nanos;

#[derive(Clone, Debug, Default)]
pub struct MinRtt {
    rbuf: RbufOpt,
}

impl Scheduler for MinRtt {
    fn name(&self) -> &'static str {
        "minrtt"
    }

    fn schedule(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        let pick = get_available_subflow(subflows, Some(seg));
        self.rbuf.outcome(now, subflows, conn, seg, pick, false)
    }

    fn on_send_blocked(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
    ) -> SchedOutcome {
        let pick = get_available_subflow(subflows, None);
        self.rbuf.blocked(now, subflows, conn, pick, false)
    }

    /// `get_available_subflow` picks only available subflows, and
    /// `RbufOpt::outcome` / `blocked` without a pick return `nothing_now`.
    fn idle_without_available(&self) -> bool {
        true
    }

    /// A segment sent nowhere yet goes to `available_fresh`'s pick, the
    /// first lowest-srtt available subflow of the regular ones (the backup
    /// ones only with no regular one available or temporarily unavailable),
    /// and `RbufOpt::outcome` with the segment fitting the receive window
    /// sends it there and touches no state. A send on that subflow `p`
    /// changes neither its srtt nor its backup flag nor any other subflow:
    /// the others' availability and srtt are those `p` won against, so
    /// while `p` is available it wins again (the same first of equals).
    fn repeats_fresh_pick(&self) -> bool {
        true
    }

    /// `schedule` is `get_available_subflow` and `RbufOpt::outcome`; for a
    /// segment sent nowhere yet the first is `fresh_pick` (its one-pass
    /// case, `available_fresh`), and the second, with the segment fitting
    /// the receive window, sends to the pick and touches no state (its
    /// penalisation clock is read and written only by `RbufOpt::run`), or,
    /// with no pick, answers `nothing_now`.
    fn picks_fresh_by_views(&self) -> bool {
        true
    }

    /// The penalisation clock (`RbufOpt`), the only state: `RbufOpt::run`
    /// writes it, which the decisions taken without asking never reach.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn checked_state(&self) -> Option<String> {
        Some(format!("{self:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::{Decision, HeadOfLine, Penalize};
    use super::*;
    use crate::time::MS;

    fn send(s: &mut MinRtt, subs: &[SubflowView]) -> Decision {
        s.schedule(0, subs, &conn(), &seg()).decision
    }

    #[test]
    fn lowest_rtt_with_space_and_not_failed() {
        let mut s = MinRtt::default();
        let mut subs = [sv(0, 50), sv(1, 10), sv(2, 30)];
        assert_eq!(send(&mut s, &subs), Decision::Send(1));
        subs[1].inflight_pkts = 10; // cwnd full
        assert_eq!(send(&mut s, &subs), Decision::Send(2));
        subs[2].potentially_failed = true;
        assert_eq!(send(&mut s, &subs), Decision::Send(0));
        subs[0].inflight_pkts = 10;
        assert_eq!(send(&mut s, &subs), Decision::Wait);
        for x in subs.iter_mut() {
            x.established = false;
        }
        assert_eq!(send(&mut s, &subs), Decision::NoneAvailable);
    }

    /// `picks_fresh_by_views`: for a segment sent nowhere yet that fits the
    /// receive window, `schedule` answers `fresh_pick`'s subflow (or, with
    /// none, Wait / NoneAvailable) and nothing else, whatever the rest of
    /// the connection's view (a head of line held by a slower subflow, the
    /// writer blocked), over every combination of state, backup flag and
    /// srtt order of one to three subflows, ties included; the scheduler's
    /// penalisation clock is left as it was (a later rwnd-limited decision
    /// still penalises at once).
    #[test]
    fn fresh_decision_is_read_off_the_views() {
        use super::super::fresh_pick;
        let mut s = MinRtt::default();
        let mut picked = 0;
        for n in 1..=3usize {
            for code in 0..10u32.pow(n as u32) {
                for srtts in [[10, 20, 10], [30, 20, 10], [20, 10, 30]] {
                    let mut v: Vec<SubflowView> = (0..n).map(|i| sv(i, srtts[i])).collect();
                    let mut c = code;
                    for x in v.iter_mut() {
                        let k = c % 10;
                        c /= 10;
                        x.backup = k >= 5;
                        match k % 5 {
                            1 => x.inflight_pkts = x.cwnd_pkts,
                            2 => x.in_loss = true,
                            3 => x.established = false,
                            4 => x.potentially_failed = true,
                            _ => {}
                        }
                    }
                    for head_blocked in [false, true] {
                        let cv = ConnView {
                            send_buf_full: head_blocked,
                            head: head_blocked.then_some(HeadOfLine {
                                len: 1000,
                                sent_on: 0b10,
                            }),
                            ..conn()
                        };
                        let out = s.schedule(7 * MS * code as u64, &v, &cv, &seg());
                        match fresh_pick(&v) {
                            Some(p) => {
                                picked += 1;
                                assert_eq!(out, SchedOutcome::just(Decision::Send(p)), "{v:?}");
                            }
                            None => {
                                assert!(out.retransmit_head_on.is_none(), "{v:?}");
                                assert!(out.penalize.is_empty(), "{v:?}");
                                assert!(
                                    matches!(
                                        out.decision,
                                        Decision::Wait | Decision::NoneAvailable
                                    ),
                                    "{v:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(picked > 1000);
        // no penalisation clock was started above
        let (subs, c) = rwnd_limited();
        assert_eq!(s.schedule(0, &subs, &c, &seg()).penalize.len(), 1);
    }

    /// `checked_state` (what the connection's checks compare around each
    /// decision it takes without asking) shows the penalisation clock: a
    /// fresh decision leaves it as it was, a rwnd-limited one that
    /// penalises changes it, and so does a later one a srtt on.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    #[test]
    fn checked_state_shows_the_penalisation_clock() {
        let mut s = MinRtt::default();
        let start = s.checked_state().expect("minRTT gives its state");
        let subs = [sv(0, 10), sv(1, 100)];
        assert_eq!(
            s.schedule(0, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        assert_eq!(s.checked_state().as_deref(), Some(start.as_str()));
        let (subs, c) = rwnd_limited();
        assert_eq!(s.schedule(0, &subs, &c, &seg()).penalize.len(), 1);
        let once = s.checked_state().expect("minRTT gives its state");
        assert_ne!(once, start);
        assert_eq!(s.schedule(20 * MS, &subs, &c, &seg()).penalize.len(), 1);
        assert_ne!(s.checked_state().expect("minRTT gives its state"), once);
    }

    #[test]
    fn backup_only_without_regular() {
        let mut s = MinRtt::default();
        let mut subs = [sv(0, 100), sv(1, 10)];
        subs[1].backup = true;
        assert_eq!(send(&mut s, &subs), Decision::Send(0));
        subs[0].potentially_failed = true;
        assert_eq!(send(&mut s, &subs), Decision::Send(1));
    }

    /// Fast subflow 0 (10 ms), slow subflow 1 (100 ms, cwnd 20, ssthresh 16)
    /// holds the head-of-line segment; the new segment does not fit the
    /// receive window.
    fn rwnd_limited() -> ([SubflowView; 2], ConnView) {
        let mut subs = [sv(0, 10), sv(1, 100)];
        subs[1].cwnd_pkts = 20;
        subs[1].ssthresh_pkts = 16;
        let c = ConnView {
            fits_rwnd: false,
            head: Some(HeadOfLine {
                len: 1000,
                sent_on: 0b10,
            }),
            ..conn()
        };
        (subs, c)
    }

    #[test]
    fn retransmission_and_penalisation_once_per_rtt() {
        let (subs, c) = rwnd_limited();
        let mut s = MinRtt::default();
        let out = s.schedule(0, &subs, &c, &seg());
        // 4 * 10 ms < 100 ms -> retransmit head on 0; halve 1: cwnd 20 -> 10,
        // cwnd 20 >= ssthresh 16 -> ssthresh 8.
        assert_eq!(out.decision, Decision::Wait);
        assert_eq!(out.retransmit_head_on, Some(0));
        assert_eq!(
            out.penalize,
            vec![Penalize {
                subflow: 1,
                new_cwnd: 10,
                new_ssthresh: 8
            }]
        );
        // 5 ms later (< srtt of the fast subflow): retransmit only.
        let out = s.schedule(5 * MS, &subs, &c, &seg());
        assert_eq!(out.retransmit_head_on, Some(0));
        assert!(out.penalize.is_empty());
        // One srtt (10 ms) after the penalisation: again.
        let out = s.schedule(10 * MS, &subs, &c, &seg());
        assert_eq!(out.penalize.len(), 1);
    }

    #[test]
    fn no_retransmission_when_holder_not_much_slower() {
        let (mut subs, c) = rwnd_limited();
        subs[1].srtt = 30 * MS; // 4 * 10 >= 30
        let out = MinRtt::default().schedule(0, &subs, &c, &seg());
        assert_eq!(out.retransmit_head_on, None);
        // Still slower and Open -> penalised; in slow start ssthresh is kept.
        subs[1].ssthresh_pkts = u32::MAX;
        let out = MinRtt::default().schedule(0, &subs, &c, &seg());
        assert_eq!(
            out.penalize,
            vec![Penalize {
                subflow: 1,
                new_cwnd: 10,
                new_ssthresh: u32::MAX
            }]
        );
        // A tiny holder (cwnd <= 4) always triggers the retransmission.
        subs[1].cwnd_pkts = 4;
        let out = MinRtt::default().schedule(0, &subs, &c, &seg());
        assert_eq!(out.retransmit_head_on, Some(0));
    }

    #[test]
    fn reinjection_ignores_receive_window_and_send_blocked_path() {
        let (subs, c) = rwnd_limited();
        let re = Segment {
            reinjection: true,
            sent_on: 0b10,
            ..seg()
        };
        let out = MinRtt::default().schedule(0, &subs, &c, &re);
        assert_eq!(out, SchedOutcome::just(Decision::Send(0)));
        // Application blocked, send buffer not full: retransmit without penalising.
        let out = MinRtt::default().on_send_blocked(
            0,
            &subs,
            &ConnView {
                fits_rwnd: true,
                ..c
            },
        );
        assert_eq!(out.retransmit_head_on, Some(0));
        assert!(out.penalize.is_empty());
        let full = ConnView {
            send_buf_full: true,
            ..c
        };
        assert_eq!(
            MinRtt::default()
                .on_send_blocked(0, &subs, &full)
                .penalize
                .len(),
            1
        );
    }
}
