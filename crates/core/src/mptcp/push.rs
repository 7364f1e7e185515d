//! One scheduler push per application write (upstream scheduler).
//!
//! Linux 6.x `mptcp_sendmsg` (net/mptcp/protocol.c) copies the data of one
//! `sendmsg` call into the msk's fragments and ends with
//! `__mptcp_push_pending`, whose every round starts with a fresh
//! `mptcp_sched_get_send` -> `mptcp_subflow_get_send`: the linger-time pick
//! and a new `msk->snd_burst`. The data of the next `sendmsg` does not exist
//! yet, so one push never carries it: an application that writes thirty
//! messages back to back (a game server's setup burst) gets thirty picks,
//! each reading the `sk_wmem_queued` the previous writes left on every
//! subflow, and the writes spread over the subflows by their linger times.
//!
//! The simulated connection schedules when it is polled, after every write
//! of the same instant. `Pushes` keeps the end (DSN after the last byte) of
//! each write since the last scheduling pass, so the pass can replay them as
//! the kernel's pushes: the new data it offers stops at the current write's
//! end, and the scheduler is told a new push begins (`Scheduler::new_push`)
//! before the first write's data and at each later write's. Data left from
//! earlier (a push that found no room) goes with the first write, as the
//! kernel's first push after the write would take it. A push that stops
//! (no room, receive window) ends the pass: the later writes' pushes would
//! find the same state at the same instant and stop at once.
//!
//! Once the connection is established the write itself runs its push
//! (`MptcpConnection::push_write`), before the application's next write
//! copies anything: the next write's page-fragment layout depends on
//! whether the previous push handed everything out (`mptcp_pending_tail`,
//! `super::meta_send`), so replaying the pushes only at the next poll is
//! not enough there. The replay then covers one write at a time, and still
//! covers writes made before the connection is established.

use std::collections::VecDeque;

/// Ends of the application writes not yet replayed as pushes, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Pushes {
    ends: VecDeque<u64>,
}

/// What the scheduling loop does before offering new data at `nxt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// A new push starts here (end the scheduler's burst).
    pub new_push: bool,
    /// New data offered in this push ends before this DSN (`u64::MAX`: no
    /// write boundary ahead).
    pub end: u64,
}

impl Pushes {
    /// An application write ended at `write_seq` (the msk's next DSN).
    pub fn on_write(&mut self, write_seq: u64) {
        if self.ends.back().is_none_or(|&e| e < write_seq) {
            self.ends.push_back(write_seq);
        }
    }

    /// Whether a write is waiting to be pushed.
    pub fn pending(&self) -> bool {
        !self.ends.is_empty()
    }

    /// The scheduling pass starts: the first write's push begins if there
    /// is one.
    pub fn start(&self) -> bool {
        self.pending()
    }

    /// Before offering new data at `nxt`: drop the writes whose data was
    /// all handed out; a new push begins when one was dropped and another
    /// write follows.
    pub fn step(&mut self, nxt: u64) -> Step {
        let mut new_push = false;
        while let Some(&e) = self.ends.front() {
            if e > nxt {
                break;
            }
            self.ends.pop_front();
            new_push = !self.ends.is_empty();
        }
        Step {
            new_push,
            end: self.ends.front().copied().unwrap_or(u64::MAX),
        }
    }

    /// `step(nxt)`'s `end` when it would drop no write (so no new push
    /// begins), without changing anything; `None` when it would drop one.
    #[inline]
    pub fn quiet_at(&self, nxt: u64) -> Option<u64> {
        match self.ends.front() {
            Some(&e) if e <= nxt => None,
            f => Some(f.copied().unwrap_or(u64::MAX)),
        }
    }

    /// The scheduling pass ended: the writes not replayed merge into the
    /// next pass (the kernel's pushes would have stopped at once).
    pub fn clear(&mut self) {
        self.ends.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `quiet_at` is `Some(step(nxt).end)` exactly when `step(nxt)` drops no
    /// write (and so changes nothing), for every offer position around
    /// three writes.
    #[test]
    fn quiet_at_is_a_step_that_drops_nothing() {
        for nxt in [0, 1, 1460, 1461, 1462, 2920, 2921, 4381, 5000] {
            let mut p = Pushes::default();
            for k in 1..=3 {
                p.on_write(1 + 1460 * k);
            }
            let quiet = p.quiet_at(nxt);
            let before = p.ends.clone();
            let step = p.step(nxt);
            let dropped = p.ends != before;
            assert_eq!(quiet.is_none(), dropped, "{nxt}");
            if let Some(end) = quiet {
                assert_eq!((step.new_push, step.end), (false, end), "{nxt}");
            }
        }
        assert_eq!(Pushes::default().quiet_at(7), Some(u64::MAX));
    }

    #[test]
    fn each_write_is_a_push_of_its_own() {
        let mut p = Pushes::default();
        assert!(!p.start());
        // three writes of 1460 bytes from DSN 1
        for k in 1..=3 {
            p.on_write(1 + 1460 * k);
        }
        assert!(p.start());
        // first push: data up to the first write's end, no new push yet
        assert_eq!(
            p.step(1),
            Step {
                new_push: false,
                end: 1461
            }
        );
        assert_eq!(p.step(1425).end, 1461);
        // the first write's data is handed out: the second push begins
        assert_eq!(
            p.step(1461),
            Step {
                new_push: true,
                end: 2921
            }
        );
        assert_eq!(
            p.step(2921),
            Step {
                new_push: true,
                end: 4381
            }
        );
        // last write's data handed out: no boundary left, no new push
        assert_eq!(
            p.step(4381),
            Step {
                new_push: false,
                end: u64::MAX
            }
        );
        assert!(!p.pending());
    }

    #[test]
    fn a_write_of_nothing_is_no_push_and_clear_merges_the_rest() {
        let mut p = Pushes::default();
        p.on_write(100);
        p.on_write(100); // nothing new written
        p.on_write(200);
        assert_eq!(p.step(1).end, 100);
        p.clear();
        assert!(!p.pending());
        assert_eq!(p.step(1).end, u64::MAX);
    }
}
