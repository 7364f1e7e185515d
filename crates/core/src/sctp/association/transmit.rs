use super::*;

impl SctpAssociation {
    // ------------------------------------------------------------------
    // Transmission
    // ------------------------------------------------------------------

    pub(super) fn new_data_allowed(&self, i: usize, t: u64, len: u64) -> bool {
        let p = &self.paths[i];
        if !p.active || !p.cwnd_open() || self.burst_used(i) {
            return false;
        }
        if !self.cfg.cmt && i != self.current_primary() {
            return false;
        }
        !self.buffer_blocked(i, t, len)
    }

    /// TSN `t` (unsent) is the next one the peer's cumulative ack waits for:
    /// every lower TSN is acked and every TSN sent so far is above it. That
    /// happens only when DAPS has planned TSNs out of order and the
    /// destination of `t` has not sent it yet.
    pub(super) fn at_cum_ack_point(&self, t: u64) -> bool {
        self.unsent.keys().next() == Some(&t) && self.sent.keys().next().is_none_or(|&s| t < s)
    }

    /// Max.Burst packets already sent to `i` in this send opportunity
    /// (RFC 4960 section 6.1 D: at most Max.Burst packets of new data after
    /// a SACK or other event; with "use it or lose it" cwnd is also clipped).
    pub(super) fn burst_used(&self, i: usize) -> bool {
        self.cfg.max_burst > 0 && self.paths[i].burst_sent >= self.cfg.max_burst
    }

    /// New data (TSN `t`, `len` bytes) for `i` is held back by a buffer: the
    /// peer's receive window (section 6.1 A; one chunk may go when nothing is
    /// outstanding) or, for CMT, this destination's buffer-splitting share.
    ///
    /// The chunk the cumulative ack waits for is exempt from the splitting
    /// shares. Buffer splitting (Dreibholz, Becke, Rathgeb, Tüxen, GLOBECOM
    /// 2010) bounds what one destination holds in the send / peer receive
    /// buffer, counting chunks acked in gap blocks until the cumulative ack
    /// frees them. With TSNs assigned at transmission (RFC 9260, INET's
    /// `dequeueOutboundDataMsg`) the chunk at the cumulative ack point is
    /// always already sent, and its retransmission is not subject to the
    /// shares; with DAPS's pre-planned TSNs it can still be unsent while the
    /// destination planned for it holds gap-acked chunks above it. Then
    /// that destination's share can only be freed by sending this very
    /// chunk, and holding it back would deadlock the association (found by
    /// the property test: `cmt_sctp_sender_split_daps_survives_an_outage`).
    /// Sending it never grows what is held behind the cumulative ack.
    pub(super) fn buffer_blocked(&self, i: usize, t: u64, len: u64) -> bool {
        if self.peer_rwnd < len && self.outstanding_bytes() > 0 {
            return true;
        }
        if self.cfg.cmt && !self.at_cum_ack_point(t) {
            let n = self.active_paths();
            if self.cfg.buffer_split.sender()
                && !split_allows(self.sbuf_booked[i], len, self.cfg.send_buffer, n)
            {
                return true;
            }
            if self.cfg.buffer_split.receiver()
                && !split_allows(self.rbuf_booked[i], len, self.peer_buffer, n)
            {
                return true;
            }
        }
        false
    }

    /// The next unsent TSN destination `i` would send.
    pub(super) fn next_unsent_for(&mut self, i: usize) -> Option<u64> {
        if self.cfg.cmt && self.cfg.scheduler == Scheduler::Daps {
            loop {
                match self.paths[i].daps_plan.front().copied() {
                    Some(t) if self.unsent.contains_key(&t) => return Some(t),
                    Some(_) => {
                        self.paths[i].daps_plan.pop_front();
                    }
                    None => {
                        if !self.daps_replan(i) {
                            return None;
                        }
                    }
                }
            }
        }
        self.unsent.keys().next().copied()
    }

    /// DAPS: destination `i` ran out of planned chunks; plan the next cycle
    /// (Kuhn et al. 2014) over the unplanned chunks, for `i` and every other
    /// destination that has also used up its plan (a path still working on
    /// its previous plan gets no new slots, so a path slower than estimated
    /// does not pile up chunks). Returns false if nothing was planned for `i`.
    pub(super) fn daps_replan(&mut self, i: usize) -> bool {
        let start = self
            .daps_next
            .max(self.unsent.keys().next().copied().unwrap_or(self.next_tsn));
        if start >= self.next_tsn || !self.paths[i].active {
            return false;
        }
        let idle: Vec<bool> = (0..self.paths.len())
            .map(|j| {
                j == i
                    || (self.paths[j].active
                        && !self.paths[j]
                            .daps_plan
                            .iter()
                            .any(|t| self.unsent.contains_key(t)))
            })
            .collect();
        let plan = daps_plan(&self.paths, self.cfg.mtu as u64, usize::MAX);
        let mut t = start;
        for j in plan {
            if t >= self.next_tsn {
                break;
            }
            if idle[j] {
                self.paths[j].daps_plan.push_back(t);
                t += 1;
            }
        }
        self.daps_next = t;
        !self.paths[i].daps_plan.is_empty()
    }

    pub(super) fn has_rtx_for(&self, i: usize) -> bool {
        self.rtx_queue
            .iter()
            .any(|t| self.sent[t].rtx.is_some_and(|r| r.1 == i))
    }

    /// Chunk rescheduling (Dreibholz, Becke, Rathgeb, Tüxen, "On the Use of
    /// Concurrent Multipath Transfer over Asymmetric Paths", GLOBECOM 2010):
    /// destination `i` is blocked when the bytes it sent that are acked in
    /// gap blocks but held behind the cumulative ack (queued minus
    /// outstanding) fill at least half of its share of the send buffer or of
    /// the peer's receive buffer (its buffer-splitting share, or the whole
    /// buffer without splitting). Then the chunk at the head (lowest TSN),
    /// if still in the network and never moved, is moved to `i` and sent
    /// again there, when it was last sent elsewhere or more than 2 SRTT ago.
    pub(super) fn reschedule_candidate(&self, i: usize) -> Option<u64> {
        const THRESHOLD: f64 = 0.5;
        let p = &self.paths[i];
        if !self.cfg.cmt
            || !self.cfg.chunk_rescheduling
            || !p.active
            || !p.cwnd_open()
            || self.burst_used(i)
            || p.fast_recovery_exit.is_some()
        {
            return None;
        }
        let (&t, o) = self.sent.iter().next()?;
        if o.acked || o.rtx.is_some() || o.rescheduled || !o.in_flight {
            return None;
        }
        if o.path == i && o.sent_at + 2 * p.srtt_or_rto() >= self.last_now {
            return None;
        }
        let split = if self.cfg.buffer_split == BufferSplit::None {
            1
        } else {
            self.active_paths() as u64
        };
        let waiting = self.rbuf_booked[i].saturating_sub(p.flight) as f64;
        let send_limit = (self.cfg.send_buffer / split).max(1) as f64;
        let total_queued: u64 = self.rbuf_booked.iter().sum();
        let recv_limit = ((self.peer_rwnd + total_queued) / split).max(1) as f64;
        if waiting / send_limit >= THRESHOLD || waiting / recv_limit >= THRESHOLD {
            Some(t)
        } else {
            None
        }
    }

    pub(super) fn can_send(&mut self, i: usize) -> bool {
        if !self.is_open() && self.state != State::ShutdownSent {
            return false;
        }
        if self.has_rtx_for(i) {
            // fast retransmissions go regardless of cwnd (section 7.2.4 step 3)
            return self.paths[i].cwnd_open()
                || (self.paths[i].fast_rtx_burst
                    && self
                        .rtx_queue
                        .iter()
                        .any(|t| self.sent[t].rtx == Some((RtxCause::Fast, i))));
        }
        if matches!(self.state, State::ShutdownSent | State::ShutdownAckSent) {
            return false;
        }
        if let Some(t) = self.next_unsent_for(i) {
            let len = self.unsent[&t].len as u64;
            if self.new_data_allowed(i, t, len) {
                return true;
            }
        }
        self.reschedule_candidate(i).is_some()
    }

    pub(super) fn pick_path(&mut self) -> Option<usize> {
        if !self.cfg.cmt {
            let p = self.current_primary();
            if self.can_send(p) {
                return Some(p);
            }
            // retransmissions re-targeted to an alternate (T3, section 6.4.1)
            return (0..self.paths.len())
                .find(|&i| i != p && self.has_rtx_for(i) && self.can_send(i));
        }
        if let Some(c) = self.rr_current {
            if self.can_send(c) {
                return Some(c);
            }
        }
        for i in round_robin_order(&self.paths, self.current_primary()) {
            if self.can_send(i) {
                self.rr_current = Some(i);
                return Some(i);
            }
        }
        None
    }

    pub(super) fn build_data_packet(&mut self, now: Nanos, i: usize) -> Option<Packet> {
        let mut chunks: Vec<Chunk> = Vec::new();
        let mut room = self.cfg.mtu - sctp_overhead(&self.cfg);
        if self.sack_pending && (self.sack_now || self.sack_path == i) {
            let s = self.make_sack();
            room -= pad4(s.wire_len());
            chunks.push(Chunk::Sack(s));
        }
        let mut data_bytes = 0u64;
        let fast_budget = self.paths[i].fast_rtx_burst;
        let mut sent_fast = false;
        // 1. retransmissions for this destination, lowest TSN first
        let rtx: Vec<u64> = self
            .rtx_queue
            .iter()
            .copied()
            .filter(|t| self.sent[t].rtx.is_some_and(|r| r.1 == i))
            .collect();
        for t in rtx {
            let o = &self.sent[&t];
            let len = o.chunk.len;
            let (cause, _) = o.rtx.unwrap();
            let need = DATA_HEADER + pad4(len);
            if need > room {
                break;
            }
            let allowed = self.paths[i].cwnd_open() || (cause == RtxCause::Fast && fast_budget);
            if !allowed {
                break;
            }
            room -= need;
            self.rebook(t, i);
            let o = self.sent.get_mut(&t).unwrap();
            o.rtx = None;
            o.sent_at = now;
            o.tx_count += 1;
            o.in_flight = true;
            o.miss = 0;
            // Invariant `retransmission-attributed` (crate::invariants): only
            // chunks still unacknowledged are resent; the cause is counted below.
            crate::invariant!(
                !o.acked && !o.freed,
                "retransmission-attributed",
                "sctp: TSN {t} retransmitted ({cause:?}) though acknowledged"
            );
            let c = &mut self.paths[i].counters;
            c.bytes_retransmitted += len as u64;
            match cause {
                RtxCause::Fast => c.retrans_fast += 1,
                RtxCause::Timeout => c.retrans_rto += 1,
            }
            self.paths[i].flight += len as u64;
            self.rtx_queue.remove(&t);
            chunks.push(Chunk::Data(o.chunk));
            data_bytes += len as u64;
            sent_fast |= cause == RtxCause::Fast;
        }
        if sent_fast {
            self.paths[i].fast_rtx_burst = false;
        }
        // 2. chunk rescheduling: the chunk blocking the buffers goes first
        if let Some(t) = self.reschedule_candidate(i) {
            let need = DATA_HEADER + pad4(self.sent[&t].chunk.len);
            if need <= room {
                room -= need;
                let q = self.sent[&t].path;
                self.rebook(t, i);
                let o = self.sent.get_mut(&t).unwrap();
                let len = o.chunk.len as u64;
                crate::invariant!(
                    !o.acked && !o.freed,
                    "retransmission-attributed",
                    "sctp: TSN {t} rescheduled though acknowledged"
                );
                o.rescheduled = true;
                o.tx_count += 1;
                o.sent_at = now;
                chunks.push(Chunk::Data(o.chunk));
                self.paths[q].flight -= len;
                self.paths[i].flight += len;
                if self.paths[q].rtt_probe.is_some_and(|(pt, _)| pt == t) {
                    self.paths[q].rtt_probe = None;
                }
                let c = &mut self.paths[i].counters;
                c.bytes_reinjected += len;
                c.bytes_retransmitted += len;
                data_bytes += len;
                // the path that held the chunk back is treated as congested,
                // once per window (INET's "moved chunks reduce cwnd")
                if q != i && self.paths[q].fast_recovery_exit.is_none() {
                    on_fast_retransmit(&mut self.paths, q, self.cfg.mtu, self.cfg.cc);
                    let highest = self.sent.keys().next_back().copied().unwrap_or(t);
                    self.paths[q].fast_recovery_exit = Some(highest);
                    self.paths[q].counters.penalizations += 1;
                }
            }
        }
        let only_rtx = data_bytes > 0;
        // 3. new data (not bundled after retransmissions that used up the window)
        if !only_rtx || self.paths[i].cwnd_open() {
            while let Some(t) = self.next_unsent_for(i) {
                let len = self.unsent[&t].len;
                let need = DATA_HEADER + pad4(len);
                if need > room || !self.new_data_allowed(i, t, len as u64) {
                    break;
                }
                room -= need;
                let d = self.unsent.remove(&t).unwrap();
                if self.cfg.scheduler == Scheduler::Daps {
                    self.paths[i].daps_plan.pop_front();
                }
                self.sent.insert(
                    t,
                    Outstanding {
                        chunk: d,
                        path: i,
                        tx_count: 1,
                        acked: false,
                        freed: false,
                        in_flight: true,
                        miss: 0,
                        rtx: None,
                        fast_retransmitted: false,
                        rescheduled: false,
                        sent_at: now,
                    },
                );
                self.paths[i].flight += len as u64;
                self.sbuf_booked[i] += len as u64;
                self.rbuf_booked[i] += len as u64;
                if self.paths[i].rtt_probe.is_none() {
                    self.paths[i].rtt_probe = Some((t, now));
                }
                chunks.push(Chunk::Data(d));
                data_bytes += len as u64;
            }
        }
        if data_bytes == 0 {
            // nothing fitted; give a pending SACK back its own packet
            if chunks.is_empty() {
                return None;
            }
        }
        let pkt = self.packet(i, chunks);
        let p = &mut self.paths[i];
        p.counters.packets_sent += 1;
        if data_bytes > 0 {
            p.burst_sent += 1;
            p.counters.data_packets_sent += 1;
            p.counters.bytes_sent += data_bytes;
            self.send_seq += 1;
            p.last_sent_seq = self.send_seq;
            p.last_data_sent = now;
            if p.t3.is_none() {
                p.t3 = Some(now + p.rto);
            }
        }
        self.update_peer_rwnd();
        Some(pkt)
    }

    pub(super) fn apply_burst_checks(&mut self) {
        for i in 0..self.paths.len() {
            if self.paths[i].burst_check {
                self.paths[i].burst_check = false;
                apply_max_burst(&mut self.paths[i], self.cfg.max_burst, self.cfg.mtu);
            }
        }
    }

    pub(super) fn queue_message(&mut self, len: u64) {
        let offset = self.write_offset;
        self.write_offset += len;
        let unordered = self.cfg.unordered;
        let ssn = self.next_ssn;
        if !unordered {
            self.next_ssn += 1;
        }
        let max = self.cfg.max_payload as u64;
        let mut left = len;
        let mut first = true;
        while left > 0 {
            let l = left.min(max);
            left -= l;
            let d = DataChunk {
                tsn: self.next_tsn,
                stream: 0,
                ssn,
                unordered,
                begin: first,
                end: left == 0,
                len: l as u32,
                msg_offset: offset,
            };
            first = false;
            self.unsent.insert(self.next_tsn, d);
            self.next_tsn += 1;
        }
        self.sbuf_used += len;
    }
}
