//! The scheduler loop's rounds that repeat the last pick
//! (`Scheduler::repeats_fresh_pick`), run in a loop of their own.
//!
//! After a fresh segment was sent alone on pick `p` by a subflow with
//! packets in flight, `schedule_loop` knows the scheduler's next decision
//! while `p` stays available and the next offer is new data that fits the
//! peer's window: `Send(p)` (minRTT: Linux v0.9x `mptcp_sched.c:
//! get_available_subflow`; the argument is beside `schedule_loop`'s
//! `repeat`). Such a round reads nothing else, so it runs here, in a loop
//! of its own, without the general round's tests of reinjection copies, held
//! fragment pieces, view rebuilds and multi-subflow decisions. Each round is
//! the general round's steps in its order; where the general round would
//! take another branch (a reinjection or re-push queued, a new push, a cut
//! at a page fragment, a segment past the window, `p` unavailable) this
//! loop stops before changing anything, and the general round runs it
//! (`next_reinject` and `next_resend` drop acknowledged entries, which the
//! general round's second call finds gone: the same answer).

use super::*;

/// How `repeat_sends` ended.
pub(super) enum Repeated {
    /// The next round is the general one's, with this repeated pick (the
    /// rounds here stopped before a round they do not run, or at the
    /// loop's bound) or none (the last send drained the subflow).
    General(Option<usize>),
    /// A round handed nothing out, or the next general round would end the
    /// loop before handing anything out (no subflow available): the loop
    /// ends here.
    Stop,
}

impl MptcpConnection {
    /// Rounds of `schedule_loop` that repeat pick `p`, while they are the
    /// plain kind (see the module comment); `rounds` counts them against the
    /// loop's bound `max`.
    ///
    /// Inlined into `schedule_loop` (its one caller, once per pass: the
    /// pass starts here, `pick_at_pass_start`): out of line, its call
    /// and prologue cost about 38 instructions per pass (htsim scenario,
    /// docs/performance.md "Session 32 pass").
    #[inline(always)]
    pub(super) fn repeat_sends(
        &mut self,
        now: Nanos,
        mss: u32,
        views: &mut [SubflowView],
        p: usize,
        rounds: &mut u32,
        max: u32,
    ) -> Repeated {
        let bit = 1u64 << p;
        while *rounds < max {
            // the general round's `again`, with every view kept (no
            // rebuild to run) and no copy to offer
            if self.views_valid != u64::MAX || self.copies {
                break;
            }
            if !views[p].available() {
                // The general round would now find no pick to repeat and,
                // with nothing queued for reinjection or a re-push (whose
                // queues it would trim), end at its idle test (or before
                // it) when no subflow is available (v0.9x `mptcp_write_xmit`
                // stops when `get_available_subflow` finds none;
                // `Scheduler::idle_without_available`): every view is kept,
                // so the views answer what `sf_available` would. The pass
                // ends here without that round's reads (the common end of a
                // pass in the htsim scenario: the ACK's window used up).
                if self.idle_unavailable
                    && !self.send.repeat_queued()
                    && !views.iter().any(|v| v.available())
                {
                    debug_assert!(!self.sfs.iter().any(|s| self.sf_available(s)));
                    return Repeated::Stop;
                }
                break;
            }
            if self.send.next_reinject().is_some() || self.send.next_resend().is_some() {
                break;
            }
            let Some((dsn, l)) = self.send.peek_new(mss) else {
                break;
            };
            // `Pushes::step` without a write handed out (no new push)
            let Some(end) = self.pushes.quiet_at(dsn) else {
                break;
            };
            let l = (l as u64).min(end.saturating_sub(dsn)) as u32;
            let (len, cut) = self.frag_cut(dsn, l);
            if cut.is_some() || dsn + len as u64 > self.send.wnd_end() {
                break;
            }
            *rounds += 1;
            #[cfg(any(debug_assertions, feature = "invariants"))]
            {
                self.check_views(views);
                self.check_repeat(now, views, dsn, len, p);
            }
            let over = self.send.overshoots(dsn + len as u64);
            self.views_valid &= !bit;
            let handed = self.send_on(now, p, dsn, len);
            if !handed.taken() {
                return Repeated::Stop;
            }
            self.sfs[p].snd.counters.wnd_overshoots += over as u64;
            if handed != Handed::AloneInFlight {
                return Repeated::General(None);
            }
            let v = &mut views[p];
            v.inflight_pkts += 1;
            v.unacked_bytes += len as u64;
            self.views_valid |= bit;
        }
        Repeated::General(Some(p))
    }
}
