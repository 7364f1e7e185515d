use super::*;

const NSEC_PER_MSEC: Nanos = 1_000_000;

impl PathSender {
    // ---- transmission ---------------------------------------------------------

    // Always inlined: of its two callers only `new_segment` is on the
    // per-segment path, and the call was not inlined with `#[inline]`.
    #[inline(always)]
    pub(super) fn send_new(&mut self, now: Nanos, len: u32, kind: TxKind) -> Tx {
        self.sent_in_pass = true;
        let fin = self.fin_queued && !self.fin_sent && self.snd_nxt + len as u64 == self.write_seq;
        // New data ends above everything sent and is sent last: it goes to
        // the tail of the time-ordered list without a search.
        let id = self.id_at(self.sb.len());
        let seg = Seg {
            start: self.snd_nxt,
            len,
            fin,
            flags: TSORTED,
            tx: self.tx_serial,
            ts_prev: self.ts_tail,
            ts_next: 0,
            sent: now,
        };
        self.tx_serial = self.tx_serial.wrapping_add(1);
        self.snd_nxt = seg.end();
        while self.chunk_ends.front().is_some_and(|&e| e <= self.snd_nxt) {
            self.chunk_ends.pop_front();
        }
        if fin {
            self.fin_sent = true;
        }
        if self.ts_len == 0 {
            self.ts_head = id;
        } else {
            let t = self.idx_of_id(self.ts_tail);
            self.sb[t].ts_next = id;
        }
        self.ts_tail = id;
        self.ts_len += 1;
        self.sb.push_back(seg);
        self.packets_out += 1;
        self.in_flight_n = self.in_flight_n.wrapping_add(1);
        if self.packets_out == 1 && self.lost_scan_seq < seg.start {
            self.lost_scan_seq = seg.start;
        }
        self.account_send(now, len, false);
        Tx {
            seq: seg.start,
            len,
            fin,
            kind,
        }
    }

    pub(super) fn retransmit_at(&mut self, now: Nanos, i: usize, kind: TxKind) -> Tx {
        // a retransmitted segment is walked by RACK again, at the list's tail
        self.ts_forget(i);
        if self.zombies > 0 {
            self.wake_zombies(i);
        }
        let s = &mut self.sb[i];
        // Invariant `retransmission-attributed` (crate::invariants): never
        // resend what the peer SACKed, and always under a counted cause.
        crate::invariant!(
            kind.is_retrans() && !s.has(SACKED),
            "retransmission-attributed",
            "tcp: segment [{}, {}) retransmitted as {kind:?} with flags {:#x} (SACKED = 1)",
            s.start,
            s.end(),
            s.flags
        );
        if !s.has(RETRANS) {
            s.flags |= RETRANS;
            self.retrans_out += 1;
            self.in_flight_n = self.in_flight_n.wrapping_add(1);
        }
        s.flags |= EVER_RETRANS;
        s.flags &= !SPURIOUS;
        s.sent = now;
        s.tx = self.tx_serial;
        self.tx_serial = self.tx_serial.wrapping_add(1);
        let (seq, len, fin) = (s.start, s.len, s.fin);
        if s.walkable() {
            self.ts_insert(i);
        }
        self.account_send(now, len, true);
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss)
            && self.undo_marker.is_some()
        {
            // Linux tcp_retransmit_skb: count retransmissions to be undone by D-SACKs.
            self.undo_retrans = self.undo_retrans.max(0) + 1;
            if !self.retrans_stamped {
                self.retrans_stamp_at = now;
                self.retrans_stamped = true;
            }
        }
        match kind {
            TxKind::FastRetrans => self.counters.retrans_fast += 1,
            TxKind::RtoRetrans => self.counters.retrans_rto += 1,
            TxKind::TlpRetrans => self.counters.retrans_tlp += 1,
            _ => {}
        }
        Tx {
            seq,
            len,
            fin,
            kind,
        }
    }

    /// A retransmission of segment `i`: zombies above it are walked by RACK
    /// again (see `rack_detect_loss`).
    #[cold]
    pub(super) fn wake_zombies(&mut self, i: usize) {
        for j in i + 1..self.sb.len() {
            if self.sb[j].has(ZOMBIE) {
                self.unzombie(j);
                self.ts_insert(j);
                if self.zombies == 0 {
                    break;
                }
            }
        }
    }

    pub(super) fn account_send(&mut self, now: Nanos, len: u32, retrans: bool) {
        if len > 0 {
            self.counters.data_packets_sent += 1;
            self.counters.bytes_sent += len as u64;
            if retrans {
                self.counters.bytes_retransmitted += len as u64;
            }
        }
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Cwr) {
            // RFC 6937: prr_out counts every packet sent during recovery.
            self.prr_out += 1;
        }
        self.last_send = now;
    }

    /// Decide the next transmission, or None. The owner calls this until it
    /// returns None; it also arms the RTO/TLP/persist timer.
    #[inline]
    pub fn next_tx(&mut self, now: Nanos) -> Option<Tx> {
        // Most calls find nothing to send (an MPTCP subflow gets one segment
        // at a time; a receiver sends no data): no probe due, nothing lost
        // to retransmit, nothing new. Then `next_tx_slow` would only do the
        // window-validation step of its `in_flight >= cwnd` branch (limited
        // iff the owner holds data) or of its end (not limited).
        if self.nothing_to_send() {
            self.end_pass(
                (self.owner_has_data || self.sent_in_pass)
                    && self.in_flight() >= self.cc_state.cwnd,
            );
            return None;
        }
        let tx = self.next_tx_slow::<false>(now);
        #[cfg(test)]
        self.check_rack_list();
        tx
    }

    /// `next_tx` when the owner knows new data is unsent (`unsent() > 0`):
    /// its quick test (`nothing_to_send`, false with new data) left out.
    #[inline(always)]
    pub fn next_tx_with_new(&mut self, now: Nanos) -> Option<Tx> {
        debug_assert!(self.has_new());
        let tx = self.next_tx_slow::<false>(now);
        #[cfg(test)]
        self.check_rack_list();
        tx
    }

    /// `next_tx_with_new` for an owner that ends its sending pass itself
    /// and then calls `arm_after_new_data` if the pass sent new data
    /// (`TxKind::New`): the retransmission timer of new data is not armed
    /// on each segment but once, at the end, as Linux `tcp_write_xmit`
    /// calls `tcp_schedule_loss_probe` once after its loop (the plain
    /// endpoint's `transmit`). Until then the timer is out of date: the
    /// owner reads nothing of it before the pass ends. The result is the
    /// same: every arm of new data in a pass computes the timer from `now`
    /// and state the segments sent do not change (SRTT, the RTO and its
    /// backoff, the head's send time, one segment out or more, the TLP
    /// conditions; `arm_after_new_data`), and nothing else arms it after a
    /// segment of new data in the pass (retransmissions and probes come
    /// first in `next_tx_slow`). Checked builds arm on each segment as
    /// before and compare at the end (`arm_after_new_data`).
    #[inline(always)]
    pub fn next_tx_with_new_unarmed(&mut self, now: Nanos) -> Option<Tx> {
        debug_assert!(self.has_new());
        let tx = self.next_tx_slow::<true>(now);
        #[cfg(test)]
        self.check_rack_list();
        tx
    }

    /// `next_tx` for a pass whose congestion-window test fails with new
    /// data unsent, taken without the call: the owner found
    /// `window_full` with `unsent() > 0` and nothing changed since. True
    /// when the pass ended (what `next_tx` returning None would have done),
    /// false when `next_tx` must run: a `tcp_push_one` round, a window probe
    /// or a TLP due, each decided before the window test.
    ///
    /// `next_tx` would find `nothing_to_send` false (`has_new`), and
    /// `next_tx_slow`, past those three, stop at `in_flight >= cwnd` with
    /// `limited` true (`has_new`): `end_pass(true)`, None. Linux
    /// `tcp_write_xmit`: `tcp_cwnd_test` returns 0 and the loop breaks,
    /// then `is_cwnd_limited |= (tcp_packets_in_flight >= tcp_snd_cwnd)`
    /// and `tcp_cwnd_validate`. In a bulk flow this is the last call of
    /// nearly every drain after an ACK (the segments it freed sent, the
    /// window full again). Checked builds make the `next_tx` call and
    /// assert it did just that (`check_full_pass`).
    #[inline(always)]
    pub fn end_full_pass(&mut self, now: Nanos) -> bool {
        if self.push_one | self.probe0_fire | self.tlp_fire {
            return false;
        }
        #[cfg(any(debug_assertions, feature = "invariants"))]
        self.check_full_pass(now);
        #[cfg(not(any(debug_assertions, feature = "invariants")))]
        {
            let _ = now;
            self.end_pass(true);
            #[cfg(test)]
            self.check_rack_list();
        }
        true
    }

    /// Builds with invariants: `end_full_pass`'s shortcut is `next_tx`
    /// returning None after `end_pass(true)`. Makes the call and compares.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(super) fn check_full_pass(&mut self, now: Nanos) {
        let rest = |s: &Self| {
            (
                s.snd_nxt,
                s.counters.packets_sent,
                s.next_timeout(),
                s.in_flight(),
                s.cc_state.cwnd,
            )
        };
        assert!(
            self.has_new() && self.window_full(),
            "end_full_pass on a pass whose window test would not fail"
        );
        let expect = (true, self.packets_out, self.snd_nxt, false);
        let before = rest(self);
        let tx = self.next_tx(now);
        assert!(
            tx.is_none() && self.pass_state() == expect && rest(self) == before,
            "end_full_pass skipped a next_tx call that acted"
        );
    }

    /// `next_tx`'s quick test: no probe due, nothing lost to retransmit,
    /// nothing new; `next_tx` then only ends the pass (`end_pass`) and
    /// returns None, without reading the time. Once such a call has run,
    /// another one on the unchanged sender changes nothing: the first left
    /// `sent_in_pass` false, so the second's `limited` (owner holds data
    /// and the window is full) implies the first's, and the
    /// `cwnd_validate(true)` it may run sets the values the first set
    /// (`MptcpConnection`'s `snd_quiet` skips such repeated calls).
    #[inline]
    pub fn nothing_to_send(&self) -> bool {
        !self.probe0_fire && !self.tlp_fire && self.lost_out <= self.retrans_out && !self.has_new()
    }

    /// `next_tx` would return None and change nothing: `nothing_to_send`,
    /// and `end_pass(limited)` with `limited` false (neither the owner's
    /// data nor a segment sent in this pass) and `sent_in_pass` already
    /// false, so `cwnd_validate` does not run. The plain endpoint's
    /// `poll_transmit_into` skips its `transmit` call on it (the receiving
    /// end's drains after each data segment).
    #[inline(always)]
    pub fn quiet_pass(&self) -> bool {
        !self.sent_in_pass && !self.owner_has_data && self.nothing_to_send()
    }

    /// What ending a sending pass writes (`end_pass`), for the debug check
    /// that a skipped `next_tx` would have changed nothing.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub fn pass_state(&self) -> (bool, u32, u64, bool) {
        (
            self.is_cwnd_limited,
            self.max_packets_out,
            self.cwnd_usage_seq,
            self.sent_in_pass,
        )
    }

    /// Unsent data or an unsent FIN.
    #[inline]
    pub(super) fn has_new(&self) -> bool {
        self.unsent() > 0 || (self.fin_queued && !self.fin_sent)
    }

    /// `DEFER`: new data's timer left to the owner (`next_tx_with_new_unarmed`).
    pub(super) fn next_tx_slow<const DEFER: bool>(&mut self, now: Nanos) -> Option<Tx> {
        if self.push_one {
            return self.push_one_tx(now);
        }
        if self.probe0_fire {
            self.probe0_fire = false;
            self.backoff += 1;
            self.arm_persist(now);
            // Linux tcp_xmit_probe_skb: an old sequence number elicits an ACK.
            return Some(Tx {
                seq: self.snd_una - 1,
                len: 0,
                fin: false,
                kind: TxKind::WindowProbe,
            });
        }
        if self.tlp_fire {
            self.tlp_fire = false;
            if let Some(tx) = self.send_tlp(now) {
                return Some(tx);
            }
        }
        let in_flight = self.in_flight();
        let cwnd = self.cc_state.cwnd;
        let has_new = self.has_new();
        if in_flight >= cwnd {
            // Linux tcp_write_xmit: `is_cwnd_limited |= (tcp_packets_in_flight
            // >= tcp_snd_cwnd)` after the pass, so a pass whose sends filled
            // the window is cwnd-limited even with nothing left to send
            let limited = has_new
                || self.sent_in_pass
                || self.owner_has_data
                || self.lost_out > self.retrans_out;
            self.end_pass(limited);
            return None;
        }
        // RFC 6675 NextSeg rule (1) / Linux tcp_xmit_retransmit_queue: the
        // first lost, not yet retransmitted segment.
        if self.lost_out > self.retrans_out {
            let mut i = self.idx_of(self.retx_hint);
            while i < self.sb.len() {
                let s = self.sb[i];
                // (RFC 6675 marks only below its scan point; RACK anywhere.)
                if s.start >= self.lost_scan_seq
                    && self.cc_state.ca_state != CaState::Loss
                    && !self.rack_on()
                {
                    break;
                }
                if s.has(LOST) && !s.has(RETRANS) && !s.has(SACKED) {
                    self.retx_hint = s.start;
                    let kind = if self.cc_state.ca_state == CaState::Loss {
                        TxKind::RtoRetrans
                    } else {
                        TxKind::FastRetrans
                    };
                    let tx = self.retransmit_at(now, i, kind);
                    if self.timer.is_none() {
                        self.arm_rto(now);
                    } else if self.tlp_pending() {
                        self.rto_instead_of_tlp(now);
                    }
                    return Some(tx);
                }
                i += 1;
            }
            self.retx_hint = self.sb.back().map(|s| s.end()).unwrap_or(self.snd_nxt);
        }
        // RFC 6675 NextSeg rule (2): new data, within the peer's window.
        if has_new {
            let unsent = self.unsent_in_chunk();
            let mss_now = self.mss.saturating_sub(self.opt_overhead).max(1);
            let len = unsent.min(mss_now as u64) as u32;
            let fits = self.snd_nxt + len as u64 <= self.wnd_end;
            let mut len = len;
            if !fits {
                let room = self.wnd_end.saturating_sub(self.snd_nxt);
                if room > 0 && self.packets_out == 0 {
                    // avoid a deadlock on windows below one MSS
                    len = room.min(len as u64) as u32;
                } else {
                    if self.wnd_end <= self.snd_nxt && self.packets_out == 0 && self.timer.is_none()
                    {
                        self.arm_persist(now);
                    }
                    self.end_pass(false);
                    return None;
                }
            }
            // Nagle (RFC 896, RFC 1122 4.2.3.4): hold a sub-MSS segment while
            // data is unacknowledged, unless the FIN is queued (Linux pushes
            // with TCP_NAGLE_OFF on close).
            // Only the tail is held (Linux tcp_write_xmit passes
            // TCP_NAGLE_PUSH for an skb that is not the last one): a short
            // chunk before the next one goes out.
            if self.nagle
                && len < mss_now
                && len > 0
                && len as u64 == self.unsent()
                && self.packets_out > 0
                && !self.fin_queued
            {
                self.end_pass(false);
                return None;
            }
            return self.new_segment::<DEFER>(now, len, mss_now);
        }
        self.end_pass(false);
        None
    }

    /// Send `len` bytes of new data unless TSO deferral holds them, and arm
    /// the timers. (Forced inline into `next_tx_slow`, which calls it for
    /// every new segment: with `#[inline]` it stayed a call, whose prologue
    /// and epilogue cost 17 instructions a segment; `tso_defers` and
    /// `unsent_in_chunk` are forced in with it, or they leave as calls.)
    #[inline(always)]
    fn new_segment<const DEFER: bool>(&mut self, now: Nanos, len: u32, mss_now: u32) -> Option<Tx> {
        self.tx_start(now);
        self.tso_psh = false;
        if self.tso_max_segs > 0 {
            if let Some(cwnd_limited) = self.tso_defers(now, mss_now) {
                self.cwnd_validate(cwnd_limited);
                return None;
            }
        }
        Some(self.send_new_armed::<DEFER>(now, len))
    }

    /// Linux `tcp_event_data_sent`'s start of a transmission with nothing
    /// in flight: the restart after idle and CA_EVENT_TX_START.
    #[inline(always)]
    fn tx_start(&mut self, now: Nanos) {
        if self.packets_out == 0 {
            let idle = now.saturating_sub(self.last_send);
            if self.slow_start_after_idle && idle > self.rtt.rto() {
                self.cwnd_restart(idle);
            }
            // Linux tcp_event_data_sent: CA_EVENT_TX_START with nothing in flight.
            self.cc_event(CwndEvent::TxStart { idle }, now);
        }
    }

    /// `send_new` of new data, then the timers a transmission of new data
    /// (re)arms, unless `DEFER` leaves them to the owner's
    /// `arm_after_new_data` at the end of the pass (checked builds arm
    /// here all the same, for that call to compare).
    #[inline(always)]
    fn send_new_armed<const DEFER: bool>(&mut self, now: Nanos, len: u32) -> Tx {
        let tx = self.send_new(now, len, TxKind::New);
        if !DEFER || crate::invariants::ENABLED {
            self.arm_new_data(now);
        }
        tx
    }

    /// The timers a transmission of new data (re)arms.
    #[inline(always)]
    fn arm_new_data(&mut self, now: Nanos) {
        if self.tlp_eligible() {
            // RFC 8985 7.2: (re)schedule the PTO after sending new data
            // (Linux tcp_schedule_loss_probe at the end of tcp_write_xmit).
            self.schedule_tlp_or_rto(now);
        } else if self.timer.is_none() {
            // RFC 6298 (5.1): start the RTO if it is not running.
            self.arm_rto(now);
        }
    }

    /// The end of a pass whose new data `next_tx_with_new_unarmed` sent:
    /// the timers those segments' transmissions would have armed, armed
    /// once (Linux `tcp_write_xmit`: `tcp_schedule_loss_probe` after the
    /// loop when `sent_pkts`). Each of those arms set the timer from the
    /// same inputs (its doc), so the last one's result is this one's.
    /// Checked builds armed on each segment: they assert this call changes
    /// nothing, i.e. that arming once at the end gives what arming on
    /// every segment gave.
    #[inline]
    pub fn arm_after_new_data(&mut self, now: Nanos) {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        let armed = self.timer;
        self.arm_new_data(now);
        #[cfg(any(debug_assertions, feature = "invariants"))]
        assert_eq!(
            self.timer, armed,
            "the timer armed at the end of the pass differs from the one armed on each segment"
        );
    }

    /// Whether, with the `len` bytes the owner has just queued as all of
    /// its unsent data, `next_tx` would send exactly them as one new
    /// segment and the `next_tx` after it would find nothing: no probe
    /// due, nothing lost to retransmit, room in cwnd and the peer's
    /// window, at most one MSS, no Nagle hold, no TSO deferral (its
    /// `tso_max_segs` is 0), no chunk end inside and no FIN queued. Then
    /// `send_alone` is those two calls without their tests and hand-over
    /// (the MPTCP connection's per-segment path, where each segment is
    /// its own mapping: docs/performance.md, "Session 19 pass").
    #[inline(always)]
    pub fn sends_alone(&self, len: u32) -> bool {
        debug_assert_eq!(self.unsent(), len as u64, "not all of the unsent data");
        let mss_now = self.mss.saturating_sub(self.opt_overhead).max(1);
        !self.push_one
            && !self.probe0_fire
            && !self.tlp_fire
            && !self.fin_queued
            && self.tso_max_segs == 0
            && self.lost_out <= self.retrans_out
            && self.in_flight() < self.cc_state.cwnd
            && self.chunk_ends.is_empty()
            && len > 0
            && len <= mss_now
            && self.snd_nxt + len as u64 <= self.wnd_end
            && !(self.nagle && len < mss_now && self.packets_out > 0)
    }

    /// Where `sends_alone(len)` holds: what `next_tx` (`new_segment`) and
    /// the `next_tx` after it do, the second one reduced to the end of the
    /// pass (nothing is left to send, and `send_new` has set
    /// `sent_in_pass`, so the pass is cwnd-limited iff the window is now
    /// full). Returns the segment's sequence number.
    #[inline(never)]
    pub fn send_alone(&mut self, now: Nanos, len: u32) -> u64 {
        self.tx_start(now);
        let tx = self.send_new_armed::<false>(now, len);
        debug_assert!(self.nothing_to_send() && self.sent_in_pass && !tx.fin);
        self.end_pass(self.in_flight() >= self.cc_state.cwnd);
        #[cfg(test)]
        self.check_rack_list();
        tx.seq
    }

    /// `tcp_push_one` (net/ipv4/tcp_output.c): `tcp_write_xmit` with
    /// `push_one` set sends new data of the send head only (no
    /// retransmission, probe or MTU probe) within the windows, without TSO
    /// deferral, and stops after that one skb; the owner stops asking once
    /// `tso_burst_left` is 0 again.
    fn push_one_tx(&mut self, now: Nanos) -> Option<Tx> {
        if !self.has_new() || self.in_flight() >= self.cc_state.cwnd {
            return None;
        }
        let mss_now = self.mss.saturating_sub(self.opt_overhead).max(1);
        let len = self.unsent_in_chunk().min(mss_now as u64) as u32;
        if len == 0 || self.snd_nxt + len as u64 > self.wnd_end {
            return None;
        }
        self.new_segment::<false>(now, len, mss_now)
    }

    /// Linux 6.18 `tcp_write_xmit` (net/ipv4/tcp_output.c) for an skb of
    /// more than one segment (`tcp_init_tso_segs` > 1): whether to hold it
    /// back for a bigger send (`tcp_tso_should_defer`), and if not, how
    /// many segments this transmission takes (`tcp_mss_split_point` with
    /// `min(tcp_cwnd_test, max_segs)`); the segments of one decided
    /// transmission are handed out without asking again. The untransmitted
    /// part of the current owner chunk (`unsent_in_chunk`) is the skb, the
    /// tail of the write queue when no other chunk follows (an MPTCP
    /// subflow starts a new skb, with `eor` set on the previous, where its
    /// mapping changes: `mptcp_sendmsg_frag`), unless the owner lays its
    /// skbs out itself (`tso_skb`, plain TCP). Returns `Some` to defer,
    /// with whether the round ends cwnd-limited (`is_cwnd_limited`, for
    /// `tcp_cwnd_validate`).
    #[inline(always)]
    pub(super) fn tso_defers(&mut self, now: Nanos, mss_now: u32) -> Option<bool> {
        if self.tso_burst_left > 0 {
            self.tso_burst_left -= 1;
            // the last segment of a transmission of two or more
            // (`__tcp_transmit_skb`: PSH when `tcp_skb_pcount(skb) > 1`)
            self.tso_psh = self.tso_burst_left == 0;
            return None;
        }
        let chunk = self.unsent_in_chunk();
        // with nothing unsent (a FIN alone, after a tail-loss probe sent
        // the last bytes with the window full) the send head is not read:
        // `skb_len` is 0 whatever it holds, and no deferral follows
        #[cfg(any(debug_assertions, feature = "invariants"))]
        assert!(
            chunk == 0 || !self.tso_skb_stale,
            "tso_defers read a send head left from an earlier pass"
        );
        let (skb_len, tail) = match self.tso_skb {
            // plain TCP: the send buffer's skb (`tcp_send_head`), within
            // what is unsent
            Some((len, tail)) => (len.min(chunk), tail),
            None => (chunk, chunk >= self.unsent()),
        };
        let mss_now64 = mss_now.max(1) as u64;
        // tcp_init_tso_segs
        let tso_segs = skb_len.div_ceil(mss_now64);
        if tso_segs <= 1 {
            return None;
        }
        let cwnd = self.cc_state.cwnd;
        let in_flight = self.in_flight();
        // tcp_write_xmit: `!push_one && tcp_tso_should_defer(..)`
        let defer = if self.push_one {
            None
        } else {
            self.tso_should_defer(now, skb_len, tail)
        };
        if defer.is_none() {
            // tcp_cwnd_test: at most half the window in one TSO skb
            let quota = (cwnd / 2).max(1).min(cwnd.saturating_sub(in_flight)) as u64;
            let segs = tso_segs.min(quota).min(self.tso_max_segs as u64).max(1);
            self.tso_burst_left = (segs - 1) as u32;
        }
        defer
    }

    /// Linux 6.18 `tcp_tso_should_defer` (net/ipv4/tcp_output.c, with the
    /// October 2025 "expected ACK" rule, in 6.18 and its stable updates):
    /// hold a multi-segment skb back while the window allows less than a
    /// full TSO send, if something left in the last millisecond and the
    /// next ACK, expected one smoothed RTT after the oldest unacknowledged
    /// segment left, is due within min(srtt / 2, 1 ms).
    /// `Some(is_cwnd_limited)` to defer. Its first two tests are inline
    /// in `tso_defers` (the second ends most calls: in a bulk flow the
    /// round starts on an ACK more than 1 ms after the last send), the
    /// rest is a call.
    #[inline(always)]
    fn tso_should_defer(&self, now: Nanos, skb_len: u64, tail: bool) -> Option<bool> {
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss) {
            return None;
        }
        // "allow defer only if the last write was recent (1 ms)"
        if now > self.last_send + NSEC_PER_MSEC {
            return None;
        }
        self.tso_should_defer_recent(now, skb_len, tail)
    }

    /// `tso_should_defer` past its first two tests.
    #[inline(never)]
    fn tso_should_defer_recent(&self, now: Nanos, skb_len: u64, tail: bool) -> Option<bool> {
        let mss_cache = self.mss.max(1) as u64;
        let in_flight = self.in_flight() as u64;
        let cwnd = self.cc_state.cwnd as u64;
        let send_win = self.wnd_end.saturating_sub(self.snd_nxt);
        let cong_win = cwnd.saturating_sub(in_flight) * mss_cache;
        let limit = send_win.min(cong_win);
        // a full-sized TSO skb can be sent
        if limit >= self.tso_max_segs as u64 * mss_cache {
            return None;
        }
        // middle of the queue, won't get more data, all of it sendable
        if !tail && limit >= skb_len {
            return None;
        }
        // sysctl_tcp_tso_win_divisor = 3: a third of the window is enough
        let chunk = self.snd_wnd.min(cwnd * mss_cache) / 3;
        if limit >= chunk {
            return None;
        }
        // no segment in flight: nothing to wait for
        let head = self.sb.front()?;
        let srtt = self.rtt.srtt;
        let expected_ack = head.sent + srtt;
        let threshold = (srtt / 2).min(NSEC_PER_MSEC);
        if expected_ack as i128 - now as i128 - threshold as i128 > 0 {
            return None;
        }
        // cwnd- or rwnd-limited: defer
        if cong_win < send_win {
            if cong_win <= skb_len {
                return Some(true);
            }
        } else if send_win <= skb_len {
            // rwnd-limited
            return Some(false);
        }
        // "If this packet won't get more data, do not wait": the FIN, or
        // an skb closed by a following one (`eor`)
        if self.fin_queued || !tail {
            return None;
        }
        // application-limited: in flight below cwnd, so not cwnd-limited
        Some(false)
    }
}
