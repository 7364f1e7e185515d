//! The poll that would refill nothing (`quiet_refill`), tested inline
//! before `refill`'s call.
//!
//! On the receiving end of a transfer every data segment marks the
//! connection dirty, and the engine's next `poll_transmit_into` called
//! `refill` (`fill`, then `after_activity`). For about half of those
//! segments (one ACK per two data segments, the delayed ACK) nothing
//! comes of it: Linux's receive path runs `tcp_rcv_established` ->
//! `__tcp_ack_snd_check` (net/ipv4/tcp_input.c), which only arms the
//! delayed-ACK timer, and the MPTCP socket's `mptcp_data_ready`
//! (net/mptcp/protocol.c) pushes nothing; the model reached the same
//! answer only after `fill`'s chain of tests (the subflows' drains, the
//! scheduler pass's entry tests, SYNs, DATA_FIN, the connection timer, the
//! ACK loop). `quiet_refill` reads the same inputs without the call.
//! Test and invariants builds run the skipped `refill` and check that it
//! queued nothing and changed nothing (`check_quiet_refill`).
//!
//! For the other half (the segment that asks for an ACK) `refill` builds
//! one pure ACK and nothing else; `refill_kind` tells that poll too, and
//! the ACK is built straight into the engine's slot (`ack_into`), not
//! queued and copied out.

use super::*;

/// What `refill` would do (`MptcpConnection::refill_kind`).
pub(super) enum Refill {
    /// Something `refill` must run for.
    Full,
    /// Nothing: `refill` would queue nothing and change nothing but `dirty`.
    Nothing,
    /// One pure ACK on subflow `i` and nothing else.
    AckOnly(usize),
}

impl MptcpConnection {
    /// `refill` would queue nothing and change nothing but `dirty`
    /// (`Refill::Nothing` of `refill_kind`). Checked builds and tests.
    #[cfg(any(test, debug_assertions, feature = "invariants"))]
    pub(super) fn quiet_refill(&self) -> bool {
        matches!(self.refill_kind(), Refill::Nothing)
    }

    /// What the next poll's `refill` would do, where that can be told
    /// without running it. `Refill::Nothing`, it would queue nothing and
    /// change nothing but `dirty`:
    /// - every subflow's drain is skipped (`snd_quiet` holds all of them,
    ///   at most 64: `fill`'s drain loop then only tests bits);
    /// - `note_owner_pending` writes nothing: `owner_has_data` is already
    ///   false on every sender, and nothing is unsent or queued for a
    ///   repeat (so the pass's entry test in `pass_if_any` returns too,
    ///   with no redundant copies and no blocked writer: the
    ///   `__mptcp_push_pending` the pass models would find no send head);
    /// - no write's push to replay (`schedule_pushes`), no SYN due, no
    ///   DATA_FIN to build (`fin_ready` with no FIN timer), no
    ///   connection-level retransmission timer (`quiet_tracked`), which
    ///   also means an MPTCP connection (`schedule`'s handshake and
    ///   fallback arms);
    /// - no subflow with an ACK to send: `ack_due` (`__tcp_ack_snd_check`
    ///   asked for one now), the third ACK, an MP_PRIO, and no ADD_ADDR or
    ///   REMOVE_ADDR waiting (stricter than `fill`'s `signal`, which also
    ///   looks at the subflow's state; stricter only sends a few polls to
    ///   `refill` that it would have skipped);
    /// - `after_activity` pushes no event: no blocked writer (above), no
    ///   close to report (stricter than its test: the application has not
    ///   closed, or the close was reported).
    ///
    /// `Refill::AckOnly(i)`: all of that but for one subflow `i`, established
    /// or pre-established, whose receiver asks for an ACK now (`ack_due`,
    /// with no third ACK or MP_PRIO pending on any subflow): `refill` would
    /// build that one pure ACK (`fill`'s ACK loop, `build_ack`) and do
    /// nothing else, as the other steps of `fill` and `after_activity`
    /// read none of what the ACK changes (the subflow's receiver, its
    /// `packets_sent`, the connection's advertised edge). Linux sends it
    /// from `__tcp_ack_snd_check` -> `tcp_send_ack` on the subflow
    /// (net/ipv4/tcp_input.c), the MPTCP socket's `mptcp_data_ready`
    /// (net/mptcp/protocol.c) pushing nothing. `poll_transmit_into` builds
    /// it straight into the engine's slot (`ack_into`). The receiving end
    /// of a transfer, on every other data segment (the delayed ACK's
    /// second).
    ///
    /// `Refill::Full` otherwise.
    ///
    /// Ordered for the two ends: the sending end fails at the first test
    /// (the ACKed subflow's `snd_quiet` bit is cleared by the ACK), the
    /// receiving end after a data segment that asks for an ACK at the
    /// subflows' ACK test. The flags are or-ed (`|`, no early exit) where
    /// they are plain loads: one branch for all of them.
    #[inline(always)]
    pub(super) fn refill_kind(&self) -> Refill {
        // every subflow's bit: the low `len` bits all set (none of 65 or more)
        if !((!self.snd_quiet).trailing_zeros() as usize >= self.sfs.len()
            && self.send.unsent() == 0)
        {
            return Refill::Full;
        }
        let mut asks = self
            .sfs
            .iter()
            .map(|s| s.rcv.ack_due() | s.third_ack_pending | s.prio_pending.is_some());
        let ack = match asks.position(|a| a) {
            None => None,
            Some(i) => {
                let s = &self.sfs[i];
                // the one subflow that asks (`position` left the iterator
                // after it), for a plain ACK only, which `fill` builds
                if asks.any(|a| a)
                    || s.third_ack_pending
                    || s.prio_pending.is_some()
                    || !matches!(s.state, SfState::Established | SfState::PreEstablished)
                {
                    return Refill::Full;
                }
                Some(i)
            }
        };
        let quiet = self.owner_pending == Some(false)
            && self.quiet_tracked()
            && !(self.send.repeat_queued()
                | self.copies
                | self.write_blocked
                | self.syn_due
                | (self.app_closed & !self.close_reported))
            && !self.pushes.pending()
            && self.add_addr_pending.is_empty()
            && self.rm_addr_pending.is_empty()
            && !(self.send.fin_ready() && self.fin_timer.is_none());
        match (quiet, ack) {
            (false, _) => Refill::Full,
            (true, None) => Refill::Nothing,
            (true, Some(i)) => Refill::AckOnly(i),
        }
    }

    /// `Refill::AckOnly(i)`: the one pure ACK `refill` would queue, built
    /// straight into the engine's slot (`*slot` owns nothing:
    /// `Endpoint::poll_transmit_into`) instead of queued in `out` and
    /// copied from there (36 instructions per packet), and without
    /// `fill`'s chain of tests. Test and invariants builds check that the
    /// `refill` skipped would have done nothing more: after the ACK,
    /// nothing is left for it (`quiet_refill`), and the `refill` run then
    /// queues and changes nothing (`check_quiet_refill`).
    #[inline(never)]
    pub(super) fn ack_into(&mut self, now: Nanos, i: usize, slot: &mut Packet) {
        self.build_ack_at(Some(slot), i, now);
        #[cfg(any(debug_assertions, feature = "invariants"))]
        {
            assert!(
                self.quiet_refill(),
                "refill_kind() gave AckOnly({i}) where refill had more to do"
            );
            self.check_quiet_refill(now);
        }
    }

    /// Test and invariants builds: the `refill` that `quiet_refill` skipped
    /// would have sent nothing, queued nothing, pushed no event and left
    /// the connection's and its subflows' state as it was. (Runs it.)
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(super) fn check_quiet_refill(&mut self, now: Nanos) {
        let state = |c: &Self| {
            let sfs: Vec<_> = c
                .sfs
                .iter()
                .map(|s| {
                    (
                        s.snd.pass_state(),
                        (s.snd.snd_nxt, s.snd.counters.packets_sent),
                        (s.snd.next_timeout(), s.syn_timer, s.rcv.ack_due()),
                        (s.third_ack_pending, s.prio_pending, s.syn_pending),
                    )
                })
                .collect();
            (
                (c.snd_quiet, c.views_valid, c.owner_pending, c.syn_due),
                (c.write_blocked, c.close_reported, c.fin_timer),
                (c.send.nxt, c.send.unsent(), c.send.repeat_queued()),
                (c.out.len(), c.events.len(), c.mode),
                sfs,
            )
        };
        let before = state(self);
        let mut p = Packet::VACANT;
        let sent = self.refill(now, &mut p);
        assert!(
            !sent && state(self) == before,
            "quiet_refill() skipped a refill that acted"
        );
    }

    /// Tests: the next `poll_transmit_into` takes the quiet exit (nothing
    /// queued, something new, `quiet_refill`).
    #[cfg(test)]
    pub(in crate::mptcp) fn quiet_poll(&self) -> bool {
        self.out.is_empty() && self.dirty && self.quiet_refill()
    }

    /// Tests: the next `poll_transmit_into` builds one pure ACK in the
    /// slot (`Refill::AckOnly`).
    #[cfg(test)]
    pub(in crate::mptcp) fn ack_only_poll(&self) -> bool {
        self.out.is_empty() && self.dirty && matches!(self.refill_kind(), Refill::AckOnly(_))
    }

    /// Tests: something changed that the next poll must look at (what
    /// every `Endpoint` entry point marks).
    #[cfg(test)]
    pub(in crate::mptcp) fn mark_dirty(&mut self) {
        self.dirty = true;
    }
}
