//! Redundant scheduler (Linux v0.95 `mptcp_redundant.c`,
//! `redsched_use_subflow`): every segment on every available regular
//! subflow; backup subflows (all of them) only while no regular subflow is
//! usable.
//!
//! Simplification: the module keeps a per-subflow pointer into the
//! connection's send queue so a subflow that was full catches up later with
//! the not-yet-acked segments it has not carried. Here a segment is sent now
//! on the available subflows that do not have it yet (`sent_on`); through
//! `Scheduler::copy_candidate` the connection re-offers the oldest unacked
//! segment whose `sent_on` misses an available regular subflow (looking at
//! the 512 oldest), before any new data, and drops segments once acked.

use super::{nothing_now, ConnView, Decision, SchedOutcome, Scheduler, Segment, SubflowView};
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, Default)]
pub struct Redundant;

impl Scheduler for Redundant {
    fn name(&self) -> &'static str {
        "redundant"
    }

    fn sends_copies(&self) -> bool {
        true
    }

    /// Oldest unacked segment that some available regular subflow has not
    /// carried (v0.95: a subflow with room first sends the unacked segments
    /// it has not carried yet).
    fn copy_candidate(
        &mut self,
        subflows: &[SubflowView],
        unacked: &mut dyn Iterator<Item = (u64, u32, u64)>,
    ) -> Option<(u64, u32)> {
        let avail: u64 = subflows
            .iter()
            .filter(|v| v.available() && !v.backup)
            .fold(0, |m, v| m | v.bit());
        if avail == 0 {
            return None;
        }
        unacked
            .take(512)
            .find(|&(_, _, sent_on)| avail & !sent_on != 0)
            .map(|(d, len, _)| (d, len))
    }

    fn schedule(
        &mut self,
        _now: Nanos,
        subflows: &[SubflowView],
        _conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        // `redsched_use_subflow`: a copy goes to every available subflow that
        // lacks the segment; a segment not yet sent anywhere uses backup
        // subflows only when no regular subflow is usable at all, a segment
        // already sent somewhere only regular subflows.
        let regular_usable = subflows.iter().any(|s| !s.backup && !s.def_unavailable());
        let ids: Vec<usize> = subflows
            .iter()
            .filter(|s| s.available() && !seg.was_sent_on(s.id))
            .filter(|s| !s.backup || (seg.sent_on == 0 && !regular_usable))
            .map(|s| s.id)
            .collect();
        SchedOutcome::just(match ids.len() {
            0 => nothing_now(subflows),
            1 => Decision::Send(ids[0]),
            _ => Decision::SendMany(ids),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn every_available_regular_subflow() {
        let mut subs = [sv(0, 10), sv(1, 50), sv(2, 30)];
        subs[2].backup = true;
        let d = Redundant.schedule(0, &subs, &conn(), &seg()).decision;
        assert_eq!(d, Decision::SendMany(vec![0, 1]));
        // Subflow 1 full: only 0 now; 1 gets it when re-offered later.
        subs[1].inflight_pkts = 10;
        assert_eq!(
            Redundant.schedule(0, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        // Re-offer with sent_on {0} once 1 has space.
        subs[1].inflight_pkts = 0;
        let again = Segment {
            sent_on: 0b01,
            ..seg()
        };
        assert_eq!(
            Redundant.schedule(0, &subs, &conn(), &again).decision,
            Decision::Send(1)
        );
    }

    #[test]
    fn backup_only_when_regular_gone() {
        let mut subs = [sv(0, 10), sv(1, 50), sv(2, 30)];
        subs[1].backup = true;
        subs[2].backup = true;
        subs[0].inflight_pkts = 10; // regular but full: wait for it
        assert_eq!(
            Redundant.schedule(0, &subs, &conn(), &seg()).decision,
            Decision::Wait
        );
        subs[0].potentially_failed = true;
        assert_eq!(
            Redundant.schedule(0, &subs, &conn(), &seg()).decision,
            Decision::SendMany(vec![1, 2])
        );
        // A segment already sent on the (now failed) regular subflow is not
        // copied to backups.
        let sent = Segment {
            sent_on: 0b001,
            ..seg()
        };
        assert_eq!(
            Redundant.schedule(0, &subs, &conn(), &sent).decision,
            Decision::Wait
        );
    }

    /// The copy offered is the oldest unacked segment an available regular
    /// subflow lacks; none when every available subflow has them all, or
    /// when only backup subflows have room.
    #[test]
    fn copy_candidate_is_the_oldest_segment_a_regular_subflow_lacks() {
        let mut subs = [sv(0, 10), sv(1, 50), sv(2, 30)];
        subs[2].backup = true;
        // (dsn, len, sent_on): the first went on both regular subflows.
        let unacked = [
            (1u64, 100u32, 0b011u64),
            (101, 100, 0b001),
            (201, 50, 0b000),
        ];
        let mut r = Redundant;
        assert_eq!(
            r.copy_candidate(&subs, &mut unacked.iter().copied()),
            Some((101, 100))
        );
        // Subflow 1 full: subflow 0 lacks only the third.
        subs[1].inflight_pkts = 10;
        assert_eq!(
            r.copy_candidate(&subs, &mut unacked.iter().copied()),
            Some((201, 50))
        );
        // Only the backup subflow has room: no copy.
        subs[0].inflight_pkts = 10;
        assert_eq!(r.copy_candidate(&subs, &mut unacked.iter().copied()), None);
        // Other schedulers never copy.
        let mut m = super::super::SchedulerKind::Minrtt.build();
        assert!(!m.sends_copies());
        assert_eq!(m.copy_candidate(&subs, &mut unacked.iter().copied()), None);
    }
}
