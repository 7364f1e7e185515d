use super::*;

impl PathSender {
    // ---- ACK processing -------------------------------------------------------

    /// True if `on_ack(a)` would change nothing but the congestion-control
    /// snapshot (`sync_cc`): nothing is outstanding or queued, the ACK
    /// neither moves SND.UNA nor the window nor carries SACK blocks, and no
    /// recovery, undo, TLP, RACK or timer state is pending. This is the ACK
    /// field of every data segment arriving at a receiver that sends no
    /// data itself, so `on_ack` returns early then, and an owner may skip
    /// building the `paths` view it would not read.
    ///
    /// Three of the conditions are not tested, they follow from
    /// `packets_out == 0`: no segment SACKed or marked lost (`sacked_out`
    /// and `lost_out` count segments of the scoreboard, so neither exceeds
    /// `packets_out`; Linux `tcp_left_out` <= `packets_out`, which
    /// `tcp_packets_in_flight` relies on), and so `sacked_out <
    /// dupthresh` (`dupthresh` >= 1, `PathSender::new`). Checked builds
    /// assert them (`check_idle_counts`). All the tests pass on each data
    /// segment a receiving end gets.
    #[inline]
    pub fn ack_is_idle(&self, a: &AckInfo) -> bool {
        self.ack_is_idle_inline(a)
    }

    /// `ack_is_idle`'s body, always inlined: the MPTCP connection's
    /// segment path (`mptcp/connection/segment.rs`), inlined into its
    /// `handle_packet`, made LLVM keep `ack_is_idle` out of line there, a
    /// call per segment. Plain TCP's callers keep `ack_is_idle`, so their
    /// code is as before.
    #[inline(always)]
    pub fn ack_is_idle_inline(&self, a: &AckInfo) -> bool {
        let idle = self.packets_out == 0
            && a.ack == self.snd_una
            && self.snd_nxt == self.snd_una
            && a.sack.is_empty()
            && a.window == self.snd_wnd
            && self.wnd_end == self.snd_una + self.snd_wnd
            && self.timer.is_none()
            && self.unsent() == 0
            && self.tlp_high_seq.is_none()
            && self.undo_marker.is_none()
            && self.cc_state.ca_state == CaState::Open
            && self.lost_scan_seq >= self.snd_una
            && self.retx_hint >= self.snd_una
            && !self.rack.advanced
            && self.rack.fack >= self.snd_una
            && self.rack.dsack_round.is_none();
        #[cfg(any(debug_assertions, feature = "invariants"))]
        if idle {
            self.check_idle_counts();
        }
        idle
    }

    /// Builds with invariants: the tests `ack_is_idle` leaves out hold
    /// when the others pass (nothing outstanding: nothing SACKed or lost).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(super) fn check_idle_counts(&self) {
        assert!(
            self.sacked_out == 0
                && self.lost_out == 0
                && self.retrans_out == 0
                && self.sacked_out < self.dupthresh,
            "ack_is_idle: nothing outstanding, but sacked_out {} lost_out {} retrans_out {} \
             dupthresh {}",
            self.sacked_out,
            self.lost_out,
            self.retrans_out,
            self.dupthresh
        );
    }

    /// `on_ack` for an ACK that `ack_is_idle` accepted: every step of
    /// `on_ack` would leave the state as it is, except the final snapshot.
    /// `sync_cc` with nothing outstanding: `in_flight` is 0 without its
    /// arithmetic (`packets_out` is 0, and so are the SACKed, lost and
    /// retransmitted counts of segments out: `check_idle_counts`).
    #[inline]
    pub fn on_idle_ack(&mut self) {
        self.cc_state.in_flight = 0;
        self.cc_state.srtt = self.rtt.srtt;
        self.cc_state.min_rtt = self.rtt.min_rtt;
        self.cc_state.snd_una = self.snd_una;
        self.cc_state.snd_nxt = self.snd_nxt;
    }

    /// Process the ACK fields of an incoming segment. `paths` is the view of
    /// all paths of the connection (None: just this one).
    pub fn on_ack(&mut self, now: Nanos, a: &AckInfo, paths: Option<&[PathView]>) {
        self.on_ack_inner(now, a, paths);
        #[cfg(test)]
        self.check_rack_list();
    }

    /// The steps of ACK processing, in Linux tcp_ack's order; each step is
    /// one function in the module of its concern.
    fn on_ack_inner(&mut self, now: Nanos, a: &AckInfo, paths: Option<&[PathView]>) {
        if self.ack_is_idle(a) {
            self.on_idle_ack();
            return;
        }
        if a.ack > self.snd_nxt {
            return; // RFC 9293 3.10.7.4: ACK of unsent data: ignore
        }
        let prior_una = self.snd_una;
        if a.ack < prior_una {
            self.on_old_ack(a);
            return;
        }
        let prior_fack = self.rack.fack;
        let prior_relost = self.lost_retrans;
        let is_dup = self.update_window(a, prior_una);

        // --- cumulative ACK (scoreboard.rs) ---
        let cum = self.clean_rtx_queue(now, a, prior_fack);
        let advanced = a.ack > prior_una;

        // --- SACK (scoreboard.rs) ---
        let (newly_sacked, dsack) = self.tag_sacks(now, a, prior_fack, is_dup, advanced);

        // --- RTT sample (rtt_sample.rs) ---
        let rtt_sample = self.sample_rtt(now, a.ts_ecr, &cum, advanced);
        // The optional hooks from here on read `cc_state`'s copies of the
        // sender's counts and RTT. Without optional hooks (LIA, NewReno)
        // nothing reads them before the next sync: every mandatory hook
        // (`ssthresh`, `cong_avoid`, `undo_cwnd`) and every own `view()`
        // syncs first, and the ACK ends with one.
        if self.cc_hooks != Hooks::NONE {
            self.sync_cc();
        }
        let delivered = cum.acked_pkts + newly_sacked;
        // tcp_clean_rtx_queue: `if (ca_ops->pkts_acked)`; LIA has none.
        if delivered > 0 && self.cc_hooks.has(Hooks::PKTS_ACKED) {
            self.cc_pkts_acked(now, delivered, &cum, advanced, rtt_sample);
        }

        // --- loss marking (scoreboard.rs) ---
        // Packets this ACK marks lost (Linux rate_sample.losses, the
        // newly_lost of tcp_cwnd_reduction) = growth of lost_out from here
        // to the PRR step: nothing in between removes LOST marks.
        let lost_before_marking = self.lost_out;
        let rack_armed = self.mark_losses(now, dsack);

        // --- TLP loss detection (RFC 8985 7.4, tlp.rs) ---
        self.process_tlp_ack(now, a.ack, dsack, !is_dup, paths);

        // --- state machine (Linux tcp_fastretrans_alert, recovery.rs) ---
        let ev = AckEvent {
            ts_ecr: a.ts_ecr,
            advanced,
            delivered,
            dsack,
            lost_before_marking,
            prior_relost,
        };
        self.fastretrans_alert(now, &ev, paths);
        self.expire_undo();

        // --- cwnd growth (Linux tcp_may_raise_cwnd / tcp_cong_avoid, cwnd.rs) ---
        self.raise_cwnd(now, cum.acked_pkts, delivered, paths);
        // Linux tcp_cong_control ends with tcp_update_pacing_rate.
        self.pacing_seen = Some((
            self.cc_state.cwnd,
            self.cc_state.ssthresh,
            self.packets_out,
            self.rtt.srtt,
        ));

        // --- timers (timers.rs) ---
        self.rearm_timers_on_ack(now, advanced, rack_armed);
        self.sync_cc();
    }

    /// An ACK below SND.UNA: old, but it may still carry a D-SACK.
    #[inline]
    pub(super) fn on_old_ack(&mut self, a: &AckInfo) {
        if self.sack_ok && !a.sack.is_empty() && a.sack[0].end <= self.snd_una {
            self.dsack_seen(a.sack[0]);
        }
    }

    /// Take the peer's window from the ACK and classify it; returns whether
    /// it is a duplicate ACK (counted in `counters.dup_acks`).
    #[inline]
    pub(super) fn update_window(&mut self, a: &AckInfo, prior_una: u64) -> bool {
        let prior_wnd_end = self.wnd_end;
        // RFC 9293 3.10.7.4: window update (SND.WL checks simplified: ACKs
        // are processed in order in the simulator).
        self.snd_wnd = a.window;
        self.wnd_end = a.ack + a.window;
        let window_changed = self.wnd_end != prior_wnd_end;

        // RFC 5681 2: a duplicate ACK acknowledges nothing new, carries no
        // data, does not change the window, and data is outstanding.
        let is_dup =
            a.ack == prior_una && !a.carries_data && !window_changed && self.packets_out > 0;
        if is_dup {
            self.counters.dup_acks += 1;
        }
        is_dup
    }
}

/// What the cumulative part of an ACK took off the scoreboard (the outputs
/// of Linux tcp_clean_rtx_queue that later steps read).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct CumAck {
    /// Packets delivered by this cumulative ACK that were not SACKed before.
    pub acked_pkts: u32,
    /// Send times of the oldest and the newest never-retransmitted, not
    /// previously SACKed segment covered (Linux first_ackt / last_ackt).
    pub first_ackt: Option<Nanos>,
    /// Linux tcp_clean_rtx_queue: the newest never-retransmitted segment
    /// this ACK covers; its RTT (ca_rtt_us) is what congestion control sees.
    pub last_ackt: Option<Nanos>,
    /// Linux FLAG_RETRANS_DATA_ACKED: the ACK covers a segment that was
    /// ever retransmitted (TCPCB_RETRANS, SACKed or not).
    pub retrans_acked: bool,
}

/// One ACK as the recovery state machine (`fastretrans_alert`) sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckEvent {
    pub ts_ecr: Option<Nanos>,
    /// The ACK moved SND.UNA (Linux FLAG_SND_UNA_ADVANCED).
    pub advanced: bool,
    /// Packets newly delivered, cumulatively or by SACK.
    pub delivered: u32,
    /// The ACK carried a D-SACK.
    pub dsack: bool,
    /// `lost_out` before loss marking and `lost_retrans` before the ACK:
    /// their growth is what this ACK marked lost.
    pub lost_before_marking: u32,
    pub prior_relost: u64,
}
