//! Round-robin scheduler (Linux v0.9x `mptcp_rr.c`, `mptcp_rr_next_segment`).
//!
//! Each subflow gets a quota of `num_segments` consecutive segments per round;
//! a subflow that has started its quota continues it, otherwise an unused
//! subflow is taken (the last one in subflow order, as the module's loop
//! keeps overwriting its choice, which makes the cycle run in descending
//! order); when every considered subflow has used its quota, all quotas are
//! reset. With `cwnd_limited` (module default) subflows without cwnd space are
//! skipped, so the scheduler fills every window; without it the rotation is
//! strict and waits for a full subflow. Reinjections go to an available
//! subflow the segment was not sent on (`rr_get_available_subflow`).
//! Backup flags are ignored, as in the module.

use std::collections::BTreeMap;

use super::{nothing_now, ConnView, Decision, SchedOutcome, Scheduler, Segment, SubflowView};
use crate::time::Nanos;

#[derive(Clone, Debug)]
pub struct RoundRobin {
    /// Consecutive segments per subflow (module parameter, default 1).
    pub num_segments: u32,
    /// Skip subflows without cwnd space (module parameter, default true).
    pub cwnd_limited: bool,
    quota: BTreeMap<usize, u32>,
}

impl Default for RoundRobin {
    fn default() -> Self {
        RoundRobin {
            num_segments: 1,
            cwnd_limited: true,
            quota: BTreeMap::new(),
        }
    }
}

/// `mptcp_rr_is_available`.
fn rr_available(s: &SubflowView, cwnd_test: bool) -> bool {
    if s.def_unavailable() || s.in_loss {
        return false;
    }
    !cwnd_test || !s.temp_unavailable()
}

impl RoundRobin {
    pub fn new(num_segments: u32, cwnd_limited: bool) -> Self {
        RoundRobin {
            num_segments: num_segments.max(1),
            cwnd_limited,
            quota: BTreeMap::new(),
        }
    }

    fn reinject(&self, subflows: &[SubflowView], seg: &Segment) -> Option<usize> {
        let (mut best, mut used) = (None, None);
        for s in subflows.iter().filter(|s| rr_available(s, true)) {
            if seg.was_sent_on(s.id) {
                used = Some(s.id);
            } else {
                best = Some(s.id);
            }
        }
        best.or(used)
    }
}

impl Scheduler for RoundRobin {
    fn name(&self) -> &'static str {
        "roundrobin"
    }

    fn schedule(
        &mut self,
        _now: Nanos,
        subflows: &[SubflowView],
        _conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        if seg.reinjection {
            return SchedOutcome::just(match self.reinject(subflows, seg) {
                Some(id) => Decision::Send(id),
                None => nothing_now(subflows),
            });
        }
        let num = self.num_segments;
        let mut choose: Option<&SubflowView> = None;
        for _retry in 0..2 {
            let (mut iter, mut full) = (0, 0);
            let mut found = false;
            for s in subflows
                .iter()
                .filter(|s| rr_available(s, self.cwnd_limited))
            {
                iter += 1;
                let q = self.quota.get(&s.id).copied().unwrap_or(0);
                if q > 0 && q < num {
                    choose = Some(s);
                    found = true;
                    break;
                }
                if q == 0 {
                    choose = Some(s);
                }
                if q >= num {
                    full += 1;
                }
            }
            if found || !(iter > 0 && iter == full) {
                break;
            }
            // Everybody used its quota: new round.
            for s in subflows
                .iter()
                .filter(|s| rr_available(s, self.cwnd_limited))
            {
                self.quota.insert(s.id, 0);
            }
        }
        let Some(s) = choose else {
            return SchedOutcome::just(nothing_now(subflows));
        };
        if !rr_available(s, true) {
            return SchedOutcome::just(Decision::Wait);
        }
        let segs = seg.len.div_ceil(s.mss.max(1)).max(1);
        *self.quota.entry(s.id).or_insert(0) += segs;
        SchedOutcome::just(Decision::Send(s.id))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn seq(rr: &mut RoundRobin, subs: &[SubflowView], n: usize) -> Vec<Decision> {
        (0..n)
            .map(|_| rr.schedule(0, subs, &conn(), &seg()).decision)
            .collect()
    }

    #[test]
    fn cycles_through_subflows() {
        let subs = [sv(0, 10), sv(1, 50), sv(2, 30)];
        let d = seq(&mut RoundRobin::default(), &subs, 6);
        let ids: Vec<_> = [2, 1, 0, 2, 1, 0]
            .iter()
            .map(|&i| Decision::Send(i))
            .collect();
        assert_eq!(d, ids);
    }

    #[test]
    fn bursts_of_num_segments() {
        let subs = [sv(0, 10), sv(1, 50)];
        let d = seq(&mut RoundRobin::new(2, true), &subs, 6);
        let ids: Vec<_> = [1, 1, 0, 0, 1, 1]
            .iter()
            .map(|&i| Decision::Send(i))
            .collect();
        assert_eq!(d, ids);
    }

    #[test]
    fn cwnd_limited_skips_full_subflow_strict_mode_waits() {
        let mut subs = [sv(0, 10), sv(1, 50)];
        subs[1].inflight_pkts = 10;
        assert_eq!(
            seq(&mut RoundRobin::default(), &subs, 2),
            vec![Decision::Send(0), Decision::Send(0)]
        );
        // Strict rotation: subflow 1 (full) is next in turn -> wait.
        assert_eq!(
            seq(&mut RoundRobin::new(1, false), &subs, 1),
            vec![Decision::Wait]
        );
    }

    #[test]
    fn reinjection_goes_to_a_subflow_without_the_segment() {
        let subs = [sv(0, 10), sv(1, 50)];
        let re = Segment {
            reinjection: true,
            sent_on: 0b10,
            ..seg()
        };
        let out = RoundRobin::default().schedule(0, &subs, &conn(), &re);
        assert_eq!(out.decision, Decision::Send(0));
    }
}
