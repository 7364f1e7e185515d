use super::ack::AckEvent;
use super::*;

impl PathSender {
    pub(super) fn enter_recovery(&mut self, now: Nanos, ps: &[PathView]) {
        self.counters.recoveries += 1;
        // RFC 6675 5 (2)/(4): RecoveryPoint = HighData; ssthresh from CC.
        self.high_seq = self.snd_nxt;
        self.prior_ssthresh = self.current_ssthresh();
        self.prior_cwnd = self.cc_state.cwnd;
        self.init_undo();
        self.sync_cc();
        self.cc_state.ssthresh = self.cc.ssthresh(&self.cc_state, ps, now);
        // RFC 6937 3: prr_delivered = prr_out = 0 (Linux tcp_init_cwnd_reduction).
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.cc_state.cwnd_cnt = 0;
        self.tlp_high_seq = None;
        self.set_ca_state(CaState::Recovery, now);
    }

    /// Linux tcp_current_ssthresh: ssthresh to restore on undo.
    pub(super) fn current_ssthresh(&self) -> u32 {
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Cwr) {
            self.cc_state.ssthresh
        } else {
            let c = self.cc_state.cwnd;
            self.cc_state.ssthresh.max((c >> 1) + (c >> 2))
        }
    }

    /// Linux tcp_init_undo.
    pub(super) fn init_undo(&mut self) {
        self.undo_marker = Some(self.snd_una);
        self.undo_retrans = if self.retrans_out > 0 {
            self.retrans_out as i32
        } else {
            -1
        };
        self.retrans_stamped = false;
    }

    /// Linux tcp_may_undo: no retransmission left un-D-SACKed, or the ACK
    /// echoes a timestamp older than the first retransmission (Eifel,
    /// RFC 3522; Linux tcp_packet_delayed).
    pub(super) fn may_undo(&self, ts_ecr: Option<Nanos>) -> bool {
        self.undo_marker.is_some()
            && (self.undo_retrans == 0
                || (self.ts_ok
                    && matches!((self.retrans_stamp(), ts_ecr), (Some(r), Some(e)) if e > 0 && e < r)))
    }

    /// Linux tcp_undo_cwnd_reduction: restore cwnd/ssthresh; optionally
    /// forget the loss marks (after a spurious RTO).
    pub(super) fn undo(&mut self, unmark_loss: bool, now: Nanos) {
        if unmark_loss {
            for s in self.sb.iter_mut() {
                s.flags &= !LOST;
            }
            // unmarked segments are walked by RACK again
            self.ts_rebuild();
            self.lost_out = 0;
            self.resync_in_flight();
            self.lost_scan_seq = self.snd_una;
            self.lost_scan_sacked = 0;
        }
        self.sync_cc();
        self.cc_state.cwnd = self.cc.undo_cwnd(&self.cc_state, self.prior_cwnd);
        if self.prior_ssthresh > self.cc_state.ssthresh {
            self.cc_state.ssthresh = self.prior_ssthresh;
        }
        self.cc_state.cwnd_cnt = 0;
        self.undo_marker = None;
        self.set_ca_state(CaState::Open, now);
    }

    /// PRR (RFC 6937) as Linux tcp_cwnd_reduction implements it (since
    /// Linux 5.19, "tcp: improve PRR loss recovery", the rule of
    /// draft-ietf-tcpm-prr-rfc6937bis). `una_advanced`: the ACK moved SND.UNA
    /// (Linux FLAG_SND_UNA_ADVANCED); `newly_lost`: packets this ACK marked lost.
    pub(super) fn prr(&mut self, delivered: u32, una_advanced: bool, newly_lost: u32) {
        if delivered == 0 || self.prior_cwnd == 0 {
            return;
        }
        self.prr_delivered += delivered;
        let in_flight = self.in_flight() as i64;
        let ssthresh = self.cc_state.ssthresh as i64;
        let delta = ssthresh - in_flight;
        let mut sndcnt: i64 = if delta < 0 {
            // RFC 6937 3 (pipe > ssthresh): proportional rate reduction:
            // sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out,
            // with Linux's prior_cwnd as RecoverFS.
            let dividend = ssthresh as u64 * self.prr_delivered as u64 + self.prior_cwnd as u64 - 1;
            (dividend / self.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else {
            // pipe <= ssthresh: Linux tcp_cwnd_reduction (>= 5.19) /
            // RFC 6937bis: sndcnt = MAX(prr_delivered - prr_out, DeliveredData),
            // so sending banked earlier in the episode may catch up, + 1
            // (PRR-SSRB) if the ACK advanced SND.UNA without marking new
            // losses ("SafeACK"), at most ssthresh - pipe. (Linux before 5.19
            // sent only DeliveredData here, PRR-CRB, unless SafeACK.)
            let mut s = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64);
            if una_advanced && newly_lost == 0 {
                s += 1;
            }
            delta.min(s)
        };
        // Linux: force the fast retransmit on entering recovery.
        sndcnt = sndcnt.max(if self.prr_out == 0 { 1 } else { 0 });
        self.cc_state.cwnd = (in_flight + sndcnt.max(0)) as u32;
    }

    /// Non-SACK only: SND.UNA reached high_seq (RFC 6582 "recover") but
    /// nothing above it is acknowledged yet: stay in Recovery/Loss (Linux
    /// tcp_try_undo_recovery: "Hold old state until something *above*
    /// high_seq is ACKed. For Reno it is MUST to prevent false fast
    /// retransmits"). Duplicate ACKs now are typically caused by needless
    /// go-back-N or partial-ACK resends of data the receiver already holds;
    /// counting them or entering a new fast retransmit on them is what RFC
    /// 6582 3.2 (1) and 4.1 forbid (dup ACKs that do not cover more than
    /// recover do not start fast retransmit).
    pub(super) fn reno_hold_at_recover(&self) -> bool {
        !self.sack_ok && self.snd_una == self.high_seq
    }

    /// The recovery state machine on an ACK (Linux tcp_fastretrans_alert),
    /// after the scoreboard and loss marks are up to date.
    #[inline]
    pub(super) fn fastretrans_alert(
        &mut self,
        now: Nanos,
        ev: &AckEvent,
        paths: Option<&[PathView]>,
    ) {
        match self.cc_state.ca_state {
            CaState::Recovery => self.recovery_on_ack(now, ev),
            CaState::Loss => self.loss_on_ack(now, ev),
            _ => self.open_on_ack(now, ev, paths),
        }
    }

    /// In Recovery: exit at RecoveryPoint (with undo if spurious), else
    /// PRR (RFC 6937) and, without SACK, RFC 6582 partial ACKs. Out of
    /// line: most ACKs arrive in Open, and `on_ack`'s inlined code is
    /// larger than the instruction cache (docs/performance.md "Session 14").
    #[inline(never)]
    pub(super) fn recovery_on_ack(&mut self, now: Nanos, ev: &AckEvent) {
        let AckEvent {
            ts_ecr,
            advanced,
            delivered,
            lost_before_marking,
            prior_relost,
            ..
        } = *ev;
        if self.snd_una >= self.high_seq && !self.sack_ok {
            // Linux tcp_fastretrans_alert (state exit, Recovery):
            // tcp_reset_reno_sack. RFC 6582 3.2 (3): the full ACK
            // ends recovery; dup ACKs counted in it are void.
            self.sacked_out = 0;
            self.resync_in_flight();
        }
        if self.reno_hold_at_recover() {
            // held: no exit yet (Linux tcp_try_undo_recovery)
        } else if self.snd_una >= self.high_seq {
            self.undo_until = self.snd_nxt;
            if self.may_undo(ts_ecr) {
                // Linux tcp_try_undo_recovery: the reduction was spurious.
                self.undo(false, now);
            } else {
                // RFC 6675 / Linux tcp_end_cwnd_reduction: cwnd = ssthresh on exit.
                self.rack_recovery_exit();
                self.cc_state.cwnd = self.cc_state.ssthresh;
                self.cc_event(CwndEvent::CompleteCwr, now);
                self.set_ca_state(CaState::Open, now);
            }
        } else {
            if !self.sack_ok && advanced {
                // RFC 6582 3.2 (5): partial ACK: retransmit the first
                // unacknowledged segment.
                self.mark_head_lost_reno();
            }
            let newly_lost = self.lost_out.saturating_sub(lost_before_marking)
                + (self.lost_retrans - prior_relost) as u32;
            self.prr(delivered, advanced, newly_lost);
        }
    }

    /// In Loss (after an RTO): undo a spurious RTO, or return to Open at
    /// RecoveryPoint. Rare (after an RTO only): out of line.
    #[cold]
    #[inline(never)]
    pub(super) fn loss_on_ack(&mut self, now: Nanos, ev: &AckEvent) {
        let AckEvent {
            ts_ecr, advanced, ..
        } = *ev;
        if advanced && self.may_undo(ts_ecr) {
            // Linux tcp_try_undo_loss: spurious RTO (Eifel, RFC 3522, or
            // all retransmissions D-SACKed): restore and stop go-back-N.
            self.undo(true, now);
        } else if self.snd_una >= self.high_seq && !self.reno_hold_at_recover() {
            self.undo_until = self.snd_nxt;
            self.rack_recovery_exit();
            self.set_ca_state(CaState::Open, now);
        }
    }

    /// In Open, Disorder or CWR: enter fast recovery (RFC 6675 5 / RFC
    /// 6582 3.2), undo on late D-SACKs, or track Disorder.
    #[inline]
    pub(super) fn open_on_ack(&mut self, now: Nanos, ev: &AckEvent, paths: Option<&[PathView]>) {
        let dsack = ev.dsack;
        let start_recovery = if self.sack_ok {
            // RFC 6675 5: enter recovery once IsLost(HighACK+1), i.e.
            // DupThresh SACKed segments above the hole.
            self.lost_out > 0
        } else {
            // RFC 6582 3.2 (1)/(2) with RFC 5681 3.2: third duplicate ACK.
            self.sacked_out >= self.dupthresh
        };
        if start_recovery {
            self.start_recovery_on_ack(now, ev, paths);
        } else if self.undo_marker.is_some() && self.undo_retrans == 0 && dsack {
            // Late D-SACKs showed every retransmission of the last
            // episode was unnecessary (Linux tcp_try_undo_dsack; Linux
            // does this in Disorder only, we also allow Open).
            self.undo(false, now);
        } else if self.sacked_out > 0 {
            self.set_ca_state(CaState::Disorder, now);
        } else if self.cc_state.ca_state == CaState::Disorder {
            self.set_ca_state(CaState::Open, now);
        }
    }

    /// `open_on_ack` when this ACK starts fast recovery: once per loss
    /// episode, out of line.
    #[cold]
    #[inline(never)]
    fn start_recovery_on_ack(&mut self, now: Nanos, ev: &AckEvent, paths: Option<&[PathView]>) {
        let me;
        let ps = match paths {
            Some(p) => p,
            None => {
                // (`on_ack` syncs before this only for optional hooks)
                self.sync_cc();
                me = [self.view()];
                &me[..]
            }
        };
        self.enter_recovery(now, ps);
        if !self.sack_ok {
            self.mark_head_lost_reno();
        }
        let newly_lost = self.lost_out.saturating_sub(ev.lost_before_marking)
            + (self.lost_retrans - ev.prior_relost) as u32;
        self.prr(ev.delivered, ev.advanced, newly_lost);
    }

    /// The undo window of the last episode closed: SND.UNA passed
    /// `undo_until` outside Recovery/Loss.
    #[inline]
    pub(super) fn expire_undo(&mut self) {
        if self.undo_marker.is_some()
            && !matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss)
            && self.snd_una > self.undo_until
        {
            self.undo_marker = None; // too late to undo
        }
    }
}
