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

use super::*;

impl MptcpConnection {
    /// `refill` would queue nothing and change nothing but `dirty`:
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
    /// Ordered for the two ends: the sending end fails at the first test
    /// (the ACKed subflow's `snd_quiet` bit is cleared by the ACK), the
    /// receiving end after a data segment that asks for an ACK at the
    /// subflows' ACK test. The flags are or-ed (`|`, no early exit) where
    /// they are plain loads: one branch for all of them.
    #[inline(always)]
    pub(super) fn quiet_refill(&self) -> bool {
        // every subflow's bit: the low `len` bits all set (none of 65 or more)
        (!self.snd_quiet).trailing_zeros() as usize >= self.sfs.len()
            && self.send.unsent() == 0
            && !self
                .sfs
                .iter()
                .any(|s| s.rcv.ack_due() | s.third_ack_pending | s.prio_pending.is_some())
            && self.owner_pending == Some(false)
            && self.quiet_tracked()
            && !(self.send.repeat_queued()
                | self.copies
                | self.write_blocked
                | self.syn_due
                | (self.app_closed & !self.close_reported))
            && !self.pushes.pending()
            && self.add_addr_pending.is_empty()
            && self.rm_addr_pending.is_empty()
            && !(self.send.fin_ready() && self.fin_timer.is_none())
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
        self.out.len() == 0 && self.dirty && self.quiet_refill()
    }
}
