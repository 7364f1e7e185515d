use super::*;

impl PathSender {
    // ---- timers -------------------------------------------------------------

    /// When the retransmission timer (`icsk_retransmit_timer`, a wheel
    /// timer) armed now for `delay` runs: `inet_csk_reset_xmit_timer` /
    /// `sk_reset_timer` at jiffies + usecs_to_jiffies(delay), rounded up by
    /// the wheel (`tcp::timer_wheel`). Every kind (RTO, PTO, RACK reordering,
    /// zero-window probe) goes through it.
    ///
    /// Inlined, with `schedule_tlp_or_rto` and the wheel's `expiry` and
    /// `bucket_expiry` forced inline: out of line it was a call on every
    /// segment sent and every ACK (508,052 in the background cell), and
    /// `#[inline]` here alone pushed `schedule_tlp_or_rto` out of line
    /// instead (docs/performance.md "Session 25 pass: the background
    /// traffic").
    #[inline]
    pub(super) fn xmit_timer_at(&mut self, now: Nanos, delay: Nanos) -> Nanos {
        self.wheel.expiry(now, delay)
    }

    pub(super) fn arm_rto(&mut self, now: Nanos) {
        if self.packets_out == 0 {
            // RFC 6298 (5.2): all data acknowledged: stop the timer.
            self.timer = None;
            return;
        }
        // RFC 6298 (5.1)/(5.3): (re)start with the backed-off RTO.
        let at = self.xmit_timer_at(now, self.rtt.rto_backoff(self.backoff));
        self.timer = Some((at, Timer::Rto));
    }

    /// RFC 8985 7.2 conditions (and Linux tcp_schedule_loss_probe): TLP on,
    /// SACK negotiated, no SACKed data, not in recovery/loss, no probe
    /// outstanding.
    pub(super) fn tlp_eligible(&self) -> bool {
        self.tlp_enabled
            && self.sack_ok
            && self.sacked_out == 0
            && matches!(self.cc_state.ca_state, CaState::Open | CaState::Cwr)
            && self.tlp_high_seq.is_none()
    }

    /// Replace a pending PTO by the RTO, counted from the head segment's
    /// transmission (Linux tcp_rearm_rto with tcp_rto_delta_us).
    pub(super) fn rto_instead_of_tlp(&mut self, now: Nanos) {
        let head_sent = self.sb.front().map(|s| s.sent).unwrap_or(now);
        // tcp_rearm_rto: rto = usecs_to_jiffies(max(tcp_rto_delta_us, 1)).
        let delta = (head_sent + self.rtt.rto_backoff(self.backoff)).saturating_sub(now);
        let at = self.xmit_timer_at(now, delta.max(crate::time::US));
        self.timer = Some((at, Timer::Rto));
    }

    /// RFC 8985 7.2: schedule a PTO (else an RTO). (Forced inline: see
    /// `xmit_timer_at`.)
    #[inline(always)]
    pub(super) fn schedule_tlp_or_rto(&mut self, now: Nanos) {
        if self.packets_out == 0 {
            self.timer = None;
            return;
        }
        if !self.tlp_eligible() {
            self.arm_rto(now);
            return;
        }
        let mut pto = if self.rtt.has_sample() {
            // RFC 8985 7.2: PTO = 2*SRTT
            let mut p = 2 * self.rtt.srtt;
            if self.packets_out == 1 {
                // RFC 8985 7.2: FlightSize of one segment: + WCDelAckT (200 ms).
                p += self.wcdelack;
            } else {
                // Linux 6.18 tcp_schedule_loss_probe: `timeout_us +=
                // TCP_TIMEOUT_MIN_US` (2 ms for timer granularity; RFC 8985
                // 7.2 adds nothing here).
                p += super::rack::TCP_TIMEOUT_MIN_US;
            }
            p
        } else {
            // RFC 8985 7.2: no SRTT yet: PTO = 1 s.
            SEC
        };
        // RFC 8985 7.2: never later than the RTO would fire (Linux tcp_rto_delta_us:
        // RTO counted from the head segment's transmission).
        let head_sent = self.sb.front().map(|s| s.sent).unwrap_or(now);
        let rto_at = head_sent + self.rtt.rto_backoff(self.backoff);
        pto = pto.min(rto_at.saturating_sub(now));
        self.timer = Some((self.xmit_timer_at(now, pto), Timer::Tlp));
    }

    /// Expire due timers. Returns true if something must be transmitted.
    pub fn on_timeout(&mut self, now: Nanos, paths: Option<&[PathView]>) -> bool {
        let r = self.on_timeout_inner(now, paths);
        #[cfg(test)]
        self.check_rack_list();
        r
    }

    pub(super) fn on_timeout_inner(&mut self, now: Nanos, paths: Option<&[PathView]>) -> bool {
        let Some((at, kind)) = self.timer else {
            return false;
        };
        if now < at {
            return false;
        }
        self.timer = None;
        match kind {
            Timer::Rto => {
                self.enter_loss(now, paths);
                true
            }
            Timer::Tlp => {
                if self.tlp_eligible() && self.tlp_probe().is_some() {
                    self.tlp_fire = true;
                } else {
                    self.arm_rto(now);
                }
                true
            }
            Timer::Persist => {
                self.probe0_fire = true;
                true
            }
            Timer::RackReo => self.rack_reo_timeout(now, paths),
        }
    }

    /// RTO expiry (Linux tcp_retransmit_timer -> tcp_enter_loss).
    pub(super) fn enter_loss(&mut self, now: Nanos, paths: Option<&[PathView]>) {
        self.counters.rto_events += 1;
        self.sync_cc();
        // Linux tcp_enter_loss: reduce ssthresh only on the first RTO of an
        // episode (not again while already in Loss with backoff).
        if self.cc_state.ca_state != CaState::Loss || self.backoff == 0 {
            self.prior_ssthresh = self.current_ssthresh();
            self.prior_cwnd = self.cc_state.cwnd;
            self.init_undo();
            let me = [PathView::of(&self.cc_state)];
            let ps = paths.unwrap_or(&me);
            self.cc_state.ssthresh = self.cc.ssthresh(&self.cc_state, ps, now);
            self.cc_event(CwndEvent::Loss, now);
        }
        self.set_ca_state(CaState::Loss, now);
        // RFC 5681 (5) / Linux: cwnd = 1 packet (LW).
        self.cc_state.cwnd = 1;
        self.cc_state.cwnd_cnt = 0;
        // Linux tcp_timeout_mark_lost: without SACK the emulated SACKs are
        // forgotten first (tcp_reset_reno_sack, before the walk), then every
        // non-SACKed segment is lost and retransmissions are forgotten
        // (go-back-N through the scoreboard). The counts are resynced once
        // the three are set: in between, a Reno sender's duplicate-ACK count
        // plus the new lost count could exceed packets_out.
        if !self.sack_ok {
            self.sacked_out = 0;
        }
        let mut lost = 0;
        for s in self.sb.iter_mut() {
            // nothing is walkable any more: the time-ordered list empties
            s.flags &= !(RETRANS | TSORTED | ZOMBIE);
            if !s.has(SACKED) {
                s.flags |= LOST;
                lost += 1;
            }
        }
        self.lost_out = lost;
        self.retrans_out = 0;
        self.resync_in_flight();
        self.ts_len = 0;
        self.zombies = 0;
        self.lost_scan_seq = self.snd_nxt;
        self.lost_scan_sacked = self.sacked_out;
        self.retx_hint = self.snd_una;
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.tlp_fire = false;
        // RFC 6298 (5.5)/(5.6): back off and restart.
        self.backoff += 1;
        self.arm_rto(now);
    }

    /// Restart the retransmission timer after an ACK: RTO, PTO or persist
    /// (RFC 6298 (5.2)/(5.3), RFC 8985 7.2); `rack_armed`: RACK's
    /// reordering timer holds the slot.
    #[inline]
    pub(super) fn rearm_timers_on_ack(&mut self, now: Nanos, advanced: bool, rack_armed: bool) {
        // Linux tcp_rack_mark_lost: an armed reordering timer clears
        // FLAG_SET_XMIT_TIMER, so this ACK does not re-arm RTO/TLP over it.
        if !rack_armed && (advanced || self.timer.is_none() || self.tlp_pending()) {
            if self.packets_out == 0 {
                self.timer = None;
                if self.unsent() > 0 && self.wnd_end <= self.snd_nxt {
                    self.arm_persist(now);
                }
            } else if self.cc_state.ca_state == CaState::Open && advanced {
                // RFC 8985 7.2: restart the PTO on an ACK of new data.
                self.schedule_tlp_or_rto(now);
            } else if advanced || self.timer.is_none() {
                // RFC 6298 (5.3): restart the RTO when new data is acknowledged.
                self.arm_rto(now);
            } else if self.tlp_pending() {
                // SACKed data or recovery: no PTO (RFC 8985 7.2), keep the RTO.
                self.rto_instead_of_tlp(now);
            }
        }
        if self.persist_pending() && self.wnd_end > self.snd_nxt {
            // window reopened
            self.timer = None;
            self.backoff = 0;
            if self.packets_out > 0 {
                self.arm_rto(now);
            }
        }
    }

    pub(super) fn arm_persist(&mut self, now: Nanos) {
        // Linux tcp_probe_timer: the persist timer uses the backed-off RTO.
        let at = self.xmit_timer_at(now, self.rtt.rto_backoff(self.backoff));
        self.timer = Some((at, Timer::Persist));
    }
}
