use super::*;

impl SctpAssociation {
    // ------------------------------------------------------------------
    // Receive side
    // ------------------------------------------------------------------

    /// Out-of-order delay and head-of-line time at the TSN level, measured
    /// like MPTCP's connection-level out-of-order queue (`ofo_stats`).
    pub(super) fn track_reordering(&mut self, now: Nanos, tsn: u64, expected: u64) {
        if tsn == expected {
            self.ooo_delays.push(0);
        } else {
            // keep the queue sorted by TSN (arrivals are mostly increasing)
            let pos = self.ooo_waiting.partition_point(|&(t, _)| t < tsn);
            self.ooo_waiting.insert(pos, (tsn, now));
        }
        let cum = self.tsns.cum;
        while let Some(&(t, at)) = self.ooo_waiting.front() {
            if cum.is_none_or(|c| t > c) {
                break;
            }
            self.ooo_waiting.pop_front();
            self.ooo_delays.push(now - at);
        }
        match (self.tsns.has_gaps(), self.gap_since) {
            (true, None) => self.gap_since = Some(now),
            (false, Some(since)) => {
                self.hol_time += now - since;
                self.gap_since = None;
            }
            _ => {}
        }
    }

    pub(super) fn on_data(
        &mut self,
        now: Nanos,
        path: usize,
        d: &DataChunk,
        delivered: &mut Vec<DeliveredMsg>,
    ) -> bool {
        let was_gap = self.tsns.has_gaps();
        let cum_before = self.tsns.cum;
        let expected = cum_before.map_or(0, |c| c + 1);
        if !self.tsns.on_tsn(d.tsn) {
            self.sack_now = true; // duplicates are reported at once (section 6.2)
            return false;
        }
        if d.tsn != expected {
            self.paths[path].counters.ooo_segments += 1;
        }
        self.track_reordering(now, d.tsn, expected);
        if was_gap || self.tsns.has_gaps() {
            // out of order or filling a gap: SACK at once (section 6.7),
            // unless DAC keeps delaying (Iyengar et al. section 4.3).
            if !(self.cfg.cmt && self.cfg.dac) {
                self.sack_now = true;
            }
        }
        // "Think about partial delivery" (Linux sctp_eat_data): a new chunk
        // at least as long as the receive window asks for PD before it is
        // queued (SCTP_CMD_PART_DELIVER runs before SCTP_CMD_CHUNK_ULP), so a
        // message larger than the buffer still completes (RFC 9260 6.9).
        // The application reads at once, so what PD hands over leaves the
        // buffer now and the next SACK advertises the reopened a_rwnd.
        if d.len as u64 >= self.a_rwnd() && !self.reasm.in_partial_delivery() {
            self.reasm.partial_delivery(now, cum_before, delivered);
        }
        self.reasm.add(now, d, delivered);
        true
    }

    pub(super) fn after_data_packet(&mut self, now: Nanos, path: usize) {
        self.sack_pending = true;
        self.sack_path = path;
        self.data_pkts_unacked += 1;
        if self.data_pkts_unacked >= self.cfg.sack_freq || self.state != State::Established {
            self.sack_now = true;
        }
        if !self.sack_now && self.sack_timer.is_none() {
            self.sack_timer = Some(now + self.cfg.sack_delay);
        }
    }

    /// Window update (Linux `sctp_assoc_rwnd_increase` /
    /// `sctp_peer_needs_update`; RFC 9260 section 6.2 allows a SACK "to
    /// update the offered window as the receiving application consumes new
    /// data"): the window grew by at least max(rcvbuf >> rwnd_update_shift
    /// (4), PMTU) since the last SACK, so one goes now instead of waiting
    /// for the delayed-SACK timer. Modelled only after a packet whose data
    /// was handed over by partial delivery: when PD starts, Linux's
    /// application reads up to a buffer's worth at once and this rule sends
    /// the SACK that reopens the sender's window. Other deliveries keep the
    /// model's SACK rules, which its calibrated results rest on (the rule
    /// applied to them too would add SACKs under CMT reordering).
    pub(super) fn window_update_due(&self) -> bool {
        let grown = self.a_rwnd().saturating_sub(self.adv_rwnd);
        grown > 0 && grown >= (self.cfg.recv_buffer >> 4).max(self.cfg.mtu as u64)
    }

    pub(super) fn make_sack(&mut self) -> SackChunk {
        let dac = self.data_pkts_unacked.clamp(1, 2) as u8;
        let nr = self.cfg.nr_sack && self.peer_nr_sack;
        self.adv_rwnd = self.a_rwnd();
        let s = self.tsns.make_sack(
            self.adv_rwnd,
            nr,
            if self.cfg.cmt && self.cfg.dac { dac } else { 0 },
        );
        self.sack_pending = false;
        self.sack_now = false;
        self.sack_timer = None;
        self.data_pkts_unacked = 0;
        s
    }
}
