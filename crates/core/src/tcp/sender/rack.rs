use super::*;

/// Linux `TCP_TIMEOUT_MIN_US` (include/net/tcp.h): 2 ms, the slack the
/// RACK reordering timer and a loss probe with more than one packet out
/// are armed with (`tcp_rack_mark_lost`, `tcp_schedule_loss_probe`).
pub(super) const TCP_TIMEOUT_MIN_US: Nanos = 2 * crate::time::MS;

impl PathSender {
    // ---- RACK (RFC 8985 6, Linux tcp_recovery.c) ----------------------------

    /// RFC 8985 6.2 step 2 (Linux tcp_rack_advance): a segment sent at
    /// `xmit` and ending at `end` was newly delivered. `retrans`: it was
    /// ever retransmitted.
    #[inline]
    pub(super) fn rack_advance(&mut self, now: Nanos, retrans: bool, end: u64, xmit: TxOrder) {
        let min_rtt = self.rtt.min_rtt;
        self.rack.advance(now, retrans, end, xmit, min_rtt);
    }

    /// RFC 8985 6.2 RACK_sent_after (Linux tcp_rack_sent_after): t1 was
    /// sent after t2. Linux orders equal times by sequence, the order of
    /// one sending pass; the simulator by transmission serial, which is
    /// that order inside one pass and, between passes of different
    /// contexts at one simulated instant, the order the kernel's clock
    /// would give them (`TxOrder`).
    #[inline]
    pub(super) fn rack_sent_after(t1: TxOrder, t2: TxOrder) -> bool {
        t1 > t2
    }

    /// RFC 8985 6.2 step 4 (Linux tcp_rack_update_reo_wnd): grow the
    /// reordering window by one min_RTT/4 step per round trip with D-SACKs;
    /// keep it for 16 recoveries.
    pub(super) fn rack_update_reo_wnd(&mut self, dsack: bool) {
        if matches!(self.rack.dsack_round, Some(r) if self.snd_una >= r) {
            self.rack.dsack_round = None;
        }
        if self.rack.dsack_round.is_none() && dsack {
            self.rack.dsack_round = Some(self.snd_nxt);
            self.rack.reo_wnd_mult = (self.rack.reo_wnd_mult + 1).min(0xFF);
            self.rack.reo_wnd_persist = RACK_RECOVERY_THRESH;
        }
    }

    /// RFC 8985 6.2 step 4: on leaving fast or RTO recovery without undo
    /// (Linux tcp_try_undo_recovery decrements reo_wnd_persist there).
    pub(super) fn rack_recovery_exit(&mut self) {
        if self.rack.reo_wnd_persist > 0 {
            self.rack.reo_wnd_persist -= 1;
            if self.rack.reo_wnd_persist == 0 {
                self.rack.reo_wnd_mult = 1;
            }
        }
    }

    /// RFC 8985 6.2 step 4 RACK.reo_wnd (Linux tcp_rack_reo_wnd): zero while
    /// no reordering was seen and the sender is in recovery or DupThresh
    /// segments are SACKed (so RACK never waits longer than RFC 6675 would),
    /// else min(min_RTT/4 * reo_wnd_mult, SRTT).
    pub fn rack_reo_wnd(&self) -> Nanos {
        if !self.rack.reord {
            if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss) {
                return 0;
            }
            if self.sacked_out >= self.dupthresh {
                return 0;
            }
        }
        let min_rtt = if self.rtt.min_rtt == Nanos::MAX {
            self.rtt.srtt
        } else {
            self.rtt.min_rtt
        };
        ((min_rtt / 4) * self.rack.reo_wnd_mult as u64).min(self.rtt.srtt)
    }

    /// RFC 8985 6.2 step 5 / 6.3 RACK_detect_loss (Linux
    /// tcp_rack_detect_loss): mark lost every segment sent before RACK.xmit_ts
    /// whose delivery is overdue by RACK.rtt + RACK.reo_wnd; returns the
    /// longest remaining wait of the others (0: none). Like Linux it walks
    /// the time-ordered list (`ts_head`) from the oldest transmission and
    /// stops at the first segment not sent before RACK.xmit_ts; a segment
    /// marked lost leaves the list.
    ///
    /// The exception, kept from the sequence-ordered walk this replaces: a
    /// segment marked lost while it carries a retransmission that was not
    /// for a loss (a TLP probe) stays walkable (LOST and RETRANS). It stays
    /// in the list if some segment below it in sequence is still in the list
    /// after this walk, else it becomes a "zombie", out of the list until a
    /// retransmission at or below its sequence (`retransmit_at`) or an
    /// `undo` brings it back.
    pub(super) fn rack_detect_loss(&mut self, now: Nanos) -> Nanos {
        // The common case, an in-order cumulative ACK: the oldest
        // transmission in the list was not sent before RACK.xmit_ts, so the
        // walk below would stop at once and change nothing (return 0 before
        // computing the window).
        if self.ts_len == 0 {
            return 0;
        }
        let head = self.sb[self.idx_of_id(self.ts_head)];
        if !Self::rack_sent_after(self.rack.xmit, head.ts_key()) {
            return 0;
        }
        self.rack_walk(now)
    }

    /// `rack_detect_loss` past its first test: at least the list's head
    /// was sent before RACK.xmit_ts.
    #[inline(never)]
    fn rack_walk(&mut self, now: Nanos) -> Nanos {
        let reo_wnd = self.rack_reo_wnd();
        let (rxts, rrtt) = (self.rack.xmit, self.rack.rtt);
        let mut timeout: Nanos = 0;
        let mut kept_walkable = std::mem::take(&mut self.zombie_buf);
        let mut left = self.ts_len;
        let mut id = self.ts_head;
        while left > 0 {
            left -= 1;
            let i = self.idx_of_id(id);
            let s = self.sb[i];
            if !Self::rack_sent_after(rxts, s.ts_key()) {
                break; // and so was everything after it in the list
            }
            // Linux tcp_rack_skb_timeout: RACK.rtt + reo_wnd - elapsed.
            let deadline = s.sent + rrtt + reo_wnd;
            if deadline <= now {
                self.rack_mark_seg_lost(i);
                if self.sb[i].walkable() {
                    kept_walkable.push(id);
                } else {
                    self.ts_unlink(i);
                }
            } else {
                timeout = timeout.max(deadline - now);
            }
            id = s.ts_next;
        }
        if !kept_walkable.is_empty() {
            self.rack_settle_zombies(&kept_walkable);
            kept_walkable.clear();
        }
        self.zombie_buf = kept_walkable;
        timeout
    }

    /// After a walk that marked the still walkable segments `marked` (ids,
    /// all in the list): those below the lowest-sequence other segment of
    /// the list (all of them if there is none) leave it as zombies.
    #[cold]
    pub(super) fn rack_settle_zombies(&mut self, marked: &[u32]) {
        let mut low: Option<u64> = None;
        let mut id = self.ts_head;
        for _ in 0..self.ts_len {
            let s = self.sb[self.idx_of_id(id)];
            if !marked.contains(&id) && low.is_none_or(|l| s.start < l) {
                low = Some(s.start);
            }
            id = s.ts_next;
        }
        for &id in marked {
            let i = self.idx_of_id(id);
            if low.is_none_or(|l| self.sb[i].start < l) {
                self.ts_unlink(i);
                self.sb[i].flags |= ZOMBIE;
                self.zombies += 1;
            }
        }
    }

    /// Linux tcp_mark_skb_lost: a lost retransmission loses its RETRANS
    /// mark (it is retransmitted again), anything else becomes LOST.
    pub(super) fn rack_mark_seg_lost(&mut self, i: usize) {
        let s = &mut self.sb[i];
        if s.has(LOST) {
            if s.has(RETRANS) {
                s.flags &= !RETRANS;
                self.retrans_out -= 1;
                self.in_flight_n = self.in_flight_n.wrapping_sub(1);
                self.lost_retrans += 1;
            }
        } else {
            s.flags |= LOST;
            self.lost_out += 1;
            self.in_flight_n = self.in_flight_n.wrapping_sub(1);
        }
        let st = s.start;
        if st < self.retx_hint {
            self.retx_hint = st;
        }
    }

    /// Linux tcp_rack_mark_lost: detect losses if RACK advanced; arm the
    /// reordering timer for the ones still within the window (RFC 8985 6.3).
    /// Returns true if the timer was armed.
    pub(super) fn rack_mark_lost(&mut self, now: Nanos) -> bool {
        if !self.rack.advanced {
            return false;
        }
        self.rack.advanced = false;
        let timeout = self.rack_detect_loss(now);
        if timeout > 0 {
            // Linux 6.18 tcp_rack_mark_lost: `usecs_to_jiffies(timeout +
            // TCP_TIMEOUT_MIN_US)` (2 ms of slack for timer granularity,
            // since 6.7; before, 2 jiffies; RFC 8985 6.3 has none). Seen in
            // the validate video cell, run 0: the kernel's timer fired 16.2
            // ms after the SACK, the model's without the slack 11.9 ms
            // (docs/validation.md, session 11).
            self.timer = Some((
                self.xmit_timer_at(now, timeout + TCP_TIMEOUT_MIN_US),
                Timer::RackReo,
            ));
            return true;
        }
        false
    }

    /// RFC 8985 6.3 RACK_detect_loss_and_arm_timer on expiry (Linux
    /// tcp_rack_reo_timeout): mark what is now overdue; if anything was,
    /// start fast recovery unless already in it (PRR with one delivered
    /// packet, as Linux calls tcp_cwnd_reduction(sk, 1, ...)), and let the
    /// owner retransmit. The RTO is re-armed afterwards. In Loss the marks
    /// feed the RTO recovery's go-back-N (Linux would enter Recovery: not
    /// modelled).
    pub(super) fn rack_reo_timeout(&mut self, now: Nanos, paths: Option<&[PathView]>) -> bool {
        let prior_in_flight = self.in_flight();
        let prior_lost = self.lost_out as u64 + self.lost_retrans;
        self.rack_detect_loss(now);
        let changed = self.in_flight() != prior_in_flight;
        if changed
            && matches!(
                self.cc_state.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            )
        {
            let newly_lost = (self.lost_out as u64 + self.lost_retrans - prior_lost) as u32;
            self.sync_cc();
            let me = [self.view()];
            let ps = paths.unwrap_or(&me);
            self.enter_recovery(now, ps);
            self.prr(1, false, newly_lost);
        }
        if self.timer.is_none() {
            self.arm_rto(now);
        }
        changed
    }
}

impl Rack {
    /// `PathSender::rack_advance` on the RACK state alone (`min_rtt`: the
    /// sender's), so that checked builds can replay it on a copy
    /// (`PathSender::check_plain_run`).
    #[inline]
    pub(super) fn advance(
        &mut self,
        now: Nanos,
        retrans: bool,
        end: u64,
        xmit: TxOrder,
        min_rtt: Nanos,
    ) {
        let rtt = now.saturating_sub(xmit.at);
        if retrans && rtt < min_rtt {
            // Ambiguous: the ACK may be for the original transmission (RFC
            // 8985 6.2 step 2: RTT below min_RTT after a retransmission).
            return;
        }
        // RFC 8985 6.2 step 2 walks the newly delivered segments in order of
        // transmission, so RACK.rtt ends as the RTT of the most recently sent
        // one, i.e. the smallest of this ACK (`advanced` is false at the start
        // of every ACK: rack_mark_lost clears it). Linux keeps the last one
        // in its scoreboard walk instead.
        self.rtt = if self.advanced {
            self.rtt.min(rtt)
        } else {
            rtt
        };
        self.advanced = true;
        if PathSender::rack_sent_after(xmit, self.xmit) {
            self.xmit = xmit;
            self.end_seq = end;
        }
    }
}
