use super::*;

/// What `ack_chunks` found, per destination and overall.
#[derive(Clone, Debug, Default)]
pub(super) struct SackAcked {
    /// Per destination: newly acked TSNs (CMT SFR input).
    pub facts: Vec<SackFacts>,
    /// Per destination: newly acked bytes (cwnd update input).
    pub bytes: Vec<u64>,
    /// Highest TSN newly acked by this SACK (HTNA).
    pub htna: Option<u64>,
}

impl SctpAssociation {
    // ------------------------------------------------------------------
    // SACK processing (sections 6.2.1, 7.2, and CMT section 4)
    // ------------------------------------------------------------------

    /// Move chunk `t` to destination `i`, with its buffer-splitting bookings
    /// (send buffer while not freed, peer receive buffer until cum-acked).
    pub(super) fn rebook(&mut self, t: u64, i: usize) {
        let o = self.sent.get_mut(&t).unwrap();
        let (q, len) = (o.path, o.chunk.len as u64);
        o.path = i;
        if q == i {
            return;
        }
        if !o.freed {
            self.sbuf_booked[q] -= len;
            self.sbuf_booked[i] += len;
        }
        self.rbuf_booked[q] -= len;
        self.rbuf_booked[i] += len;
    }

    pub(super) fn free_chunk(&mut self, len: u64, path: usize) {
        self.sbuf_used -= len;
        self.sbuf_booked[path] -= len;
    }

    /// A SACK arrived (RFC 9260 6.2.1, CMT section 4). The steps, each in
    /// the module of its concern: which TSNs are newly acked and what that
    /// frees (here), the per-destination congestion windows (`sack_cwnd`),
    /// miss indications and fast retransmit (`fast_rtx`), T3-rtx (`timers`).
    pub(super) fn on_sack(&mut self, now: Nanos, s: &SackChunk) {
        if let (Some(old), new) = (self.peer_cum, s.cum_tsn) {
            if new.is_none_or(|n| n < old) {
                return; // older SACK (section 6.2.1 D i)
            }
        }
        let cum_advanced = s.cum_tsn.is_some() && s.cum_tsn != self.peer_cum;
        let n = self.paths.len();
        // lowest outstanding (not acked) TSN per destination before the SACK,
        // for CUC's pseudo-cumulative ack and T3 rule R3.
        let low_before = self.lowest_outstanding_per_path();
        for p in &mut self.paths {
            p.flight_before_sack = p.flight;
        }
        self.count_spurious_dups(s);

        let (cum_list, gap_list, sack_highest) = self.newly_acked_tsns(s);
        let acked = self.ack_chunks(now, n, &cum_list, &gap_list);
        // Remove cumulatively acked chunks; free NR-acked ones.
        let mut freed_any = self.remove_cum_acked(cum_list);
        if s.nr {
            freed_any |= self.free_nr_acked(&s.nr_gaps);
        }
        if s.cum_tsn.is_some() {
            self.peer_cum = s.cum_tsn;
        }
        self.peer_a_rwnd = s.a_rwnd;

        // Progress per destination: cumulative ack (RFC) or pseudo-cumulative (CUC).
        let low_after = self.lowest_outstanding_per_path();
        let progress = self.cwnd_progress(&low_before, &low_after, cum_advanced);
        self.exit_fast_recovery();
        self.update_cwnds(&acked.bytes, &progress);

        // Miss indications and fast retransmit (section 7.2.4, SFR, DAC, HTNA).
        self.count_misses(s, sack_highest, &acked, cum_advanced);

        self.restart_t3_on_sack(now, &low_before, &low_after);
        self.update_peer_rwnd();
        if freed_any {
            self.maybe_writable();
        }
        self.check_shutdown_progress();
    }

    /// A duplicate report of a chunk we sent more than once: the
    /// retransmission was unnecessary (RFC 3708 style detection).
    #[inline]
    pub(super) fn count_spurious_dups(&mut self, s: &SackChunk) {
        for d in &s.dups {
            let path = match self.sent.get(d) {
                Some(o) if o.tx_count > 1 => Some(o.path),
                Some(_) => None,
                None => self.acked_rtx.remove(d),
            };
            if let Some(p) = path {
                self.paths[p].counters.retrans_spurious += 1;
            }
        }
    }

    /// Newly acknowledged TSNs: cumulative first, then gap blocks (both
    /// lists of TSNs still in `sent`), and the highest TSN the SACK reports.
    #[inline]
    pub(super) fn newly_acked_tsns(&self, s: &SackChunk) -> (Vec<u64>, Vec<u64>, Option<u64>) {
        let mut sack_highest: Option<u64> = s.cum_tsn;
        let cum_list: Vec<u64> = match s.cum_tsn {
            Some(c) => self.sent.range(..=c).map(|(&t, _)| t).collect(),
            None => Vec::new(),
        };
        let mut gap_list: Vec<u64> = Vec::new();
        for &(a, b) in s.gaps.iter().chain(s.nr_gaps.iter()) {
            sack_highest = sack_highest.max(Some(b));
            gap_list.extend(self.sent.range(a..=b).map(|(&t, _)| t));
        }
        (cum_list, gap_list, sack_highest)
    }

    /// Mark the chunks `cum_list` and `gap_list` name as acknowledged:
    /// leave the flight of their destination, take the RTT sample, clear
    /// error counters; returns per-destination facts for the later steps.
    #[inline]
    pub(super) fn ack_chunks(
        &mut self,
        now: Nanos,
        n: usize,
        cum_list: &[u64],
        gap_list: &[u64],
    ) -> SackAcked {
        let mut facts = vec![SackFacts::default(); n];
        let mut acked_bytes = vec![0u64; n];
        let mut htna: Option<u64> = None;
        for t in cum_list.iter().copied().chain(gap_list.iter().copied()) {
            let o = self.sent.get_mut(&t).unwrap();
            if o.acked {
                continue;
            }
            o.acked = true;
            let q = o.path;
            let len = o.chunk.len as u64;
            let first_tx = o.tx_count == 1;
            if o.in_flight {
                o.in_flight = false;
                self.paths[q].flight -= len;
            }
            if o.rtx.take().is_some() {
                self.rtx_queue.remove(&t);
            }
            acked_bytes[q] += len;
            let f = &mut facts[q];
            f.saw_newack = true;
            f.highest_newly_acked = f.highest_newly_acked.max(Some(t));
            f.lowest_newly_acked = Some(f.lowest_newly_acked.map_or(t, |l| l.min(t)));
            htna = htna.max(Some(t));
            self.rtt_on_ack(now, q, t, first_tx);
            // an ack for data sent to a destination clears its error counter
            // (8.3). An inactive destination comes back only through a
            // HEARTBEAT-ACK: the ack of a chunk sent before it failed says
            // nothing about the path now.
            if self.paths[q].active {
                self.paths[q].error_count = 0;
            }
        }
        if htna.is_some() {
            self.assoc_errors = 0;
        }
        SackAcked {
            facts,
            bytes: acked_bytes,
            htna,
        }
    }

    /// RTT measurement (section 6.3.1 C5, Karn's rule): the chunk `t` just
    /// acked on destination `q` is that destination's RTT probe.
    #[inline]
    pub(super) fn rtt_on_ack(&mut self, now: Nanos, q: usize, t: u64, first_tx: bool) {
        if let Some((pt, sent_at)) = self.paths[q].rtt_probe {
            if pt == t {
                if first_tx {
                    let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
                    self.paths[q].rtt_sample(now - sent_at, mn, mx);
                }
                self.paths[q].rtt_probe = None;
            }
        }
    }

    /// Remove cumulatively acked chunks from `sent`, releasing their buffer
    /// bookings; returns whether any was removed.
    #[inline]
    pub(super) fn remove_cum_acked(&mut self, cum_list: Vec<u64>) -> bool {
        let mut freed_any = false;
        for t in cum_list {
            let o = self.sent.remove(&t).unwrap();
            if o.tx_count > 1 {
                self.acked_rtx.insert(t, o.path);
                if self.acked_rtx.len() > 1024 {
                    self.acked_rtx.pop_first();
                }
            }
            self.rbuf_booked[o.path] -= o.chunk.len as u64;
            if !o.freed {
                self.free_chunk(o.chunk.len as u64, o.path);
            }
            freed_any = true;
        }
        freed_any
    }

    /// NR-SACK (Natarajan et al.): free chunks in non-renegable gap blocks
    /// from the send buffer at once; returns whether any was freed.
    #[inline]
    pub(super) fn free_nr_acked(&mut self, nr_set: &[(u64, u64)]) -> bool {
        let mut freed_any = false;
        for &(a, b) in nr_set {
            let ts: Vec<u64> = self
                .sent
                .range(a..=b)
                .filter(|(_, o)| !o.freed)
                .map(|(&t, _)| t)
                .collect();
            for t in ts {
                let o = self.sent.get_mut(&t).unwrap();
                o.freed = true;
                let (len, p) = (o.chunk.len as u64, o.path);
                self.free_chunk(len, p);
                freed_any = true;
            }
        }
        freed_any
    }

    pub(super) fn lowest_outstanding_per_path(&self) -> Vec<Option<u64>> {
        let mut v = vec![None; self.paths.len()];
        let mut left = self.paths.len();
        for (&t, o) in &self.sent {
            if !o.acked && v[o.path].is_none() {
                v[o.path] = Some(t);
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        v
    }

    pub(super) fn maybe_writable(&mut self) {
        if self.writable_blocked && self.send_space() > 0 {
            self.writable_blocked = false;
            self.events.push_back(AppEvent::Writable);
        }
    }

    pub(super) fn check_shutdown_progress(&mut self) {
        let drained = self.unsent.is_empty() && self.sent.is_empty();
        match self.state {
            State::ShutdownPending if drained => {
                let p = self.current_primary();
                self.send_ctrl(
                    p,
                    Chunk::Shutdown {
                        cum_tsn: self.tsns.cum,
                    },
                );
                self.state = State::ShutdownSent;
                self.t2 = Some(self.t2_base() + self.paths[p].rto);
            }
            State::ShutdownReceived if drained => {
                let p = self.current_primary();
                self.send_ctrl(p, Chunk::ShutdownAck);
                self.state = State::ShutdownAckSent;
                self.t2 = Some(self.t2_base() + self.paths[p].rto);
            }
            _ => {}
        }
    }

    pub(super) fn t2_base(&self) -> Nanos {
        // the time of the last input; timers are relative to it
        self.last_now
    }
}
