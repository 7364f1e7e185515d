use super::ack::CumAck;
use super::*;

impl PathSender {
    /// Process SACK blocks; returns (newly SACKed packets, D-SACK present).
    pub(super) fn process_sack(
        &mut self,
        now: Nanos,
        blocks: &[SackBlock],
        ack: u64,
        prior_fack: u64,
    ) -> (u32, bool) {
        let mut first = 0;
        let mut dsack = false;
        // RFC 2883 4: the first block is a D-SACK if it lies below the
        // cumulative ACK or inside the second block.
        let b0 = blocks[0];
        if b0.end <= ack
            || (blocks.len() > 1 && b0.start >= blocks[1].start && b0.end <= blocks[1].end)
        {
            dsack = true;
            first = 1;
            self.dsack_seen(b0);
        }
        let mut newly = 0;
        let cache = self.sack_cache;
        let cache_n = self.sack_cache_n as usize;
        let mut n = 0;
        for b in &blocks[first..] {
            let s = b.start.max(self.snd_una);
            let e = b.end.min(self.snd_nxt);
            if s >= e {
                continue;
            }
            // Skip parts already processed for the previous ACK (Linux
            // recv_sack_cache), so work is proportional to new coverage.
            let mut cur = s;
            let mut sorted = [SackBlock::default(); 4];
            sorted[..cache_n].copy_from_slice(&cache[..cache_n]);
            sorted[..cache_n].sort_unstable_by_key(|c| c.start);
            for c in &sorted[..cache_n] {
                if c.end <= cur || c.start >= e {
                    continue;
                }
                if c.start > cur {
                    newly += self.sack_range(now, cur, c.start.min(e), s, e, prior_fack);
                }
                cur = cur.max(c.end);
                if cur >= e {
                    break;
                }
            }
            if cur < e {
                newly += self.sack_range(now, cur, e, s, e, prior_fack);
            }
            if n < 4 {
                self.sack_cache[n] = SackBlock { start: s, end: e };
                n += 1;
            }
        }
        self.sack_cache_n = n as u8;
        (newly, dsack)
    }

    /// Mark segments starting in [from, to) and lying fully inside [bs, be) as SACKed.
    pub(super) fn sack_range(
        &mut self,
        now: Nanos,
        from: u64,
        to: u64,
        bs: u64,
        be: u64,
        prior_fack: u64,
    ) -> u32 {
        // start at the segment containing `from`
        let mut i = self.idx_of(from);
        if i > 0 && self.sb[i - 1].end() > from {
            i -= 1;
        }
        let mut newly = 0;
        while i < self.sb.len() {
            let s = &mut self.sb[i];
            if s.start >= to {
                break;
            }
            if s.start >= bs && s.end() <= be && !s.has(SACKED) {
                s.flags |= SACKED;
                newly += 1;
                if s.has(LOST) {
                    s.flags &= !LOST;
                    self.lost_out -= 1;
                    self.in_flight_n = self.in_flight_n.wrapping_add(1);
                }
                if s.has(RETRANS) {
                    s.flags &= !RETRANS;
                    self.retrans_out -= 1;
                    self.in_flight_n = self.in_flight_n.wrapping_sub(1);
                }
                let (st, en, sent, ever) = (s.start, s.end(), s.ts_key(), s.has(EVER_RETRANS));
                if !ever {
                    // Linux tcp_sacktag_one: `if (!(sacked & TCPCB_RETRANS))`
                    // records first_sackt / last_sackt, the SACK RTT samples
                    // of tcp_clean_rtx_queue.
                    let t = (st, sent.at);
                    self.sackt_times = match self.sackt() {
                        None => SackTimes { first: t, last: t },
                        Some(x) => SackTimes {
                            first: if st < x.first.0 { t } else { x.first },
                            last: if st > x.last.0 { t } else { x.last },
                        },
                    };
                    self.sackt_set = true;
                }
                self.ts_forget(i);
                self.sacked_out += 1;
                self.in_flight_n = self.in_flight_n.wrapping_sub(1);
                if st < self.lost_scan_seq {
                    self.lost_scan_sacked += 1;
                }
                if self.rack_enabled {
                    // Linux tcp_sacktag_one: RACK advances on newly SACKed
                    // segments; one never retransmitted SACKed below the
                    // highest SACK so far means reordering (RFC 8985 6.2 step 3).
                    self.rack_advance(now, ever, en, sent);
                    if !ever && en <= prior_fack {
                        self.rack.reord = true;
                    }
                    if en > self.rack.fack {
                        self.rack.fack = en;
                    }
                }
            }
            i += 1;
        }
        newly
    }

    /// A D-SACK arrived (RFC 2883): if it covers a retransmitted segment,
    /// that retransmission was spurious (RFC 3708).
    pub(super) fn dsack_seen(&mut self, b: SackBlock) {
        if let Some(m) = self.undo_marker {
            // Linux tcp_check_dsack / tcp_sacktag_one: a D-SACK above the undo
            // marker cancels one retransmission of the episode.
            if b.end > m && self.undo_retrans > 0 {
                self.undo_retrans -= 1;
            }
        }
        for r in self.recent_retx.iter_mut() {
            if r.0 < r.1 && r.0 < b.end && b.start < r.1 && !r.2 {
                r.2 = true;
                self.counters.retrans_spurious += 1;
                return;
            }
        }
        let i = self.idx_of(b.start);
        let i = if i > 0 && self.sb.get(i - 1).is_some_and(|s| s.end() > b.start) {
            i - 1
        } else {
            i
        };
        if let Some(s) = self.sb.get_mut(i) {
            if s.start < b.end && s.has(EVER_RETRANS) && !s.has(SPURIOUS) {
                s.flags |= SPURIOUS;
                self.counters.retrans_spurious += 1;
            }
        }
    }

    /// Cumulative ACK (Linux tcp_clean_rtx_queue): drop the segments the
    /// ACK covers from the scoreboard, advance SND.UNA and the scan hints,
    /// and advance RACK on the newly delivered ones.
    #[inline]
    pub(super) fn clean_rtx_queue(&mut self, now: Nanos, a: &AckInfo, prior_fack: u64) -> CumAck {
        let mut acked_pkts = 0u32;
        let mut first_ackt: Option<Nanos> = None;
        // Linux tcp_clean_rtx_queue: the newest never-retransmitted segment
        // this ACK covers; its RTT (ca_rtt_us) is what congestion control sees.
        let mut last_ackt: Option<Nanos> = None;
        // Linux FLAG_RETRANS_DATA_ACKED: the ACK covers a segment that was
        // ever retransmitted (TCPCB_RETRANS, SACKed or not).
        let mut retrans_acked = false;
        // The segments at the front that were sent once, in order, and are
        // neither SACKed nor marked: taken off in one step (`ack_plain_run`).
        let run = self.plain_run(a.ack);
        if run > 0 {
            let (first, last) = self.ack_plain_run(now, run, prior_fack);
            acked_pkts = run as u32;
            first_ackt = Some(first);
            last_ackt = Some(last);
        }
        while let Some(s) = self.sb.front() {
            if s.end() > a.ack {
                break;
            }
            let s = self.pop_front_forgotten();
            self.packets_out -= 1;
            self.in_flight_n = self.in_flight_n.wrapping_sub(1);
            if !s.has(SACKED) && self.rack_on() {
                // Linux tcp_clean_rtx_queue: RACK advances on every newly
                // delivered segment, unless the TSecr proves the ACK was for
                // an earlier transmission (tcp_skb_spurious_retrans).
                let ts_says_earlier =
                    s.has(EVER_RETRANS) && matches!(a.ts_ecr, Some(e) if e > 0 && e < s.sent);
                if !ts_says_earlier {
                    self.rack_advance(now, s.has(EVER_RETRANS), s.end(), s.ts_key());
                }
                // RFC 8985 6.2 step 3: a never-retransmitted segment delivered
                // below RACK.fack arrived out of order.
                if !s.has(EVER_RETRANS) && s.end() <= prior_fack {
                    self.rack.reord = true;
                }
            }
            if s.has(SACKED) {
                self.sacked_out -= 1;
                self.in_flight_n = self.in_flight_n.wrapping_add(1);
                if s.start < self.lost_scan_seq {
                    self.lost_scan_sacked = self.lost_scan_sacked.saturating_sub(1);
                }
            } else {
                acked_pkts += 1;
            }
            if s.has(LOST) {
                self.lost_out -= 1;
                self.in_flight_n = self.in_flight_n.wrapping_add(1);
            }
            if s.has(RETRANS) {
                self.retrans_out -= 1;
                self.in_flight_n = self.in_flight_n.wrapping_sub(1);
            }
            if s.has(EVER_RETRANS) {
                retrans_acked = true;
                let mut spurious = s.has(SPURIOUS);
                // Eifel (RFC 3522) with timestamps: the ACK echoes a TSval older
                // than the retransmission, so the original was delivered.
                if !spurious && !s.has(SACKED) {
                    if let Some(ecr) = a.ts_ecr {
                        if ecr < s.sent {
                            spurious = true;
                            self.counters.retrans_spurious += 1;
                        }
                    }
                }
                let i = self.recent_retx_i as usize;
                self.recent_retx[i] = (s.start, s.end(), spurious);
                self.recent_retx_i = ((i + 1) % RECENT_RETX) as u8;
            } else if !s.has(SACKED) {
                // Karn's rule (RFC 6298 3): sample only never-retransmitted segments.
                if first_ackt.is_none() {
                    first_ackt = Some(s.sent);
                }
                last_ackt = Some(s.sent);
            }
        }
        if !self.sack_ok && acked_pkts > 0 {
            // Linux tcp_remove_reno_sacks: cumulative ACK consumes emulated SACKs.
            let k = self.sacked_out.min(acked_pkts.saturating_sub(1));
            self.sacked_out -= k;
            self.in_flight_n = self.in_flight_n.wrapping_add(k);
            self.limit_reno_sacked();
        }
        self.snd_una = a.ack;
        if self.lost_scan_seq < self.snd_una {
            self.lost_scan_seq = self.snd_una;
            self.lost_scan_sacked = 0;
        }
        if self.retx_hint < self.snd_una {
            self.retx_hint = self.snd_una;
        }
        CumAck {
            acked_pkts,
            first_ackt,
            last_ackt,
            retrans_acked,
        }
    }

    /// How many segments from the scoreboard's front form a plain run the
    /// cumulative ACK `ack` covers: each ends at or below `ack`, carries no
    /// flag but `TSORTED` (never retransmitted, not SACKed, not marked lost,
    /// no zombie) and is the head of RACK's time-ordered list once the ones
    /// before it are gone. This is every segment of an in-order ACK in a
    /// bulk flow: the loop of Linux `tcp_clean_rtx_queue` takes none of its
    /// branches for them.
    #[inline(always)]
    pub(super) fn plain_run(&self, ack: u64) -> usize {
        let mut head = self.ts_head;
        let mut id = self.sb_base;
        let mut k = 0;
        for s in self.sb.iter() {
            if s.end() > ack || s.flags != TSORTED || id != head {
                break;
            }
            head = s.ts_next;
            id = id.wrapping_add(1);
            k += 1;
        }
        k
    }

    /// `clean_rtx_queue`'s loop over the first `k` segments, a plain run
    /// (`plain_run`), in one step; returns their first and last send times
    /// (Linux `first_ackt` / `last_ackt`). The state is the loop's: the run
    /// is the head of RACK's time-ordered list, sorted by transmission, so
    /// of the run's RACK steps (Linux `tcp_rack_advance` per segment) the
    /// last one's sets RACK.xmit_ts and end_seq and gives the smallest RTT,
    /// which RACK.rtt keeps; the run's ends rise with its sequence, so one
    /// ends at or below `prior_fack` (RFC 8985 6.2 step 3, reordering) if
    /// the first does; the list's head moves to the run's last segment's
    /// successor (left at that segment when the list empties, as the loop
    /// leaves it). Checked builds replay the loop's steps and compare
    /// (`check_plain_run`).
    #[inline(always)]
    fn ack_plain_run(&mut self, now: Nanos, k: usize, prior_fack: u64) -> (Nanos, Nanos) {
        let first = self.sb[0];
        let last = self.sb[k - 1];
        #[cfg(any(debug_assertions, feature = "invariants"))]
        let want = self.replay_plain_run(now, k, prior_fack);
        self.sb.drain(..k);
        let last_id = self.sb_base.wrapping_add(k as u32 - 1);
        self.sb_base = self.sb_base.wrapping_add(k as u32);
        self.ts_len -= k as u32;
        self.ts_head = if self.ts_len != 0 {
            last.ts_next
        } else {
            last_id
        };
        self.packets_out -= k as u32;
        self.in_flight_n = self.in_flight_n.wrapping_sub(k as u32);
        if self.rack_on() {
            self.rack_advance(now, false, last.end(), last.ts_key());
            if first.end() <= prior_fack {
                self.rack.reord = true;
            }
        }
        #[cfg(any(debug_assertions, feature = "invariants"))]
        self.check_plain_run(want);
        (first.sent, last.sent)
    }

    /// Builds with invariants: what `clean_rtx_queue`'s loop, segment by
    /// segment, leaves in RACK's state and list head after the plain run of
    /// `k` segments (computed before the run is taken off).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn replay_plain_run(&self, now: Nanos, k: usize, prior_fack: u64) -> (Rack, u32, u32) {
        let mut rack = self.rack;
        let (mut head, mut len) = (self.ts_head, self.ts_len);
        for s in self.sb.range(..k) {
            len -= 1;
            if len != 0 {
                head = s.ts_next;
            }
            if self.rack_on() {
                rack.advance(now, false, s.end(), s.ts_key(), self.rtt.min_rtt);
                if s.end() <= prior_fack {
                    rack.reord = true;
                }
            }
        }
        (rack, head, len)
    }

    /// Builds with invariants: `ack_plain_run` left what the loop would
    /// have (`replay_plain_run`).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(super) fn check_plain_run(&self, want: (Rack, u32, u32)) {
        assert_eq!(
            (self.rack, self.ts_head, self.ts_len),
            want,
            "ack_plain_run: RACK state or list head differs from the per-segment loop's"
        );
    }

    /// SACK blocks of the ACK (RFC 2018, RFC 2883), or without SACK the
    /// emulated SACKs Linux counts from duplicate ACKs. Returns (newly
    /// SACKed packets, D-SACK present).
    #[inline]
    pub(super) fn tag_sacks(
        &mut self,
        now: Nanos,
        a: &AckInfo,
        prior_fack: u64,
        is_dup: bool,
        advanced: bool,
    ) -> (u32, bool) {
        let mut newly_sacked = 0u32;
        let mut dsack = false;
        self.sackt_set = false;
        if self.sack_ok && !a.sack.is_empty() {
            let (n, d) = self.process_sack(now, a.sack, a.ack, prior_fack);
            newly_sacked = n;
            dsack = d;
        } else if !self.sack_ok {
            let st = self.cc_state.ca_state;
            // Linux tcp_fastretrans_alert / tcp_process_loss: in Loss dup ACKs
            // count only once new data above high_seq is out (before that
            // they answer go-back-N resends already counted as lost); in
            // Recovery or Loss held at SND.UNA == high_seq (see
            // reno_hold_at_recover) they do not count at all.
            let counts = match st {
                CaState::Loss => self.snd_nxt > self.high_seq && self.snd_una < self.high_seq,
                CaState::Recovery => self.snd_una < self.high_seq,
                _ => true,
            };
            if is_dup && counts {
                // Linux tcp_add_reno_sack: each dup ACK emulates one SACKed packet.
                self.sacked_out += 1;
                self.in_flight_n = self.in_flight_n.wrapping_sub(1);
                newly_sacked = 1;
                self.limit_reno_sacked();
            } else if advanced && self.cc_state.ca_state != CaState::Recovery {
                // Linux tcp_reset_reno_sack (tcp_fastretrans_alert default
                // branch, tcp_process_loss): an ACK that advances SND.UNA in
                // Open/Disorder/Loss ends the dup-ACK run, so the emulated
                // SACKs are forgotten. tcp_remove_reno_sacks above only eats
                // acked-1 of them, so a lone dup ACK followed by one-segment
                // ACKs would otherwise keep sacked_out > 0 forever, pipe would
                // undercount by it and the sender would exceed cwnd (RFC 5681
                // 3.2 / RFC 6582 count dup ACKs only until new data is ACKed).
                self.sacked_out = 0;
                self.resync_in_flight();
            }
        }
        (newly_sacked, dsack)
    }

    /// Loss marking after the scoreboard update: RACK, or RFC 6675's
    /// DupThresh rule with SACK. Returns whether RACK armed its reordering
    /// timer.
    #[inline]
    pub(super) fn mark_losses(&mut self, now: Nanos, dsack: bool) -> bool {
        let mut rack_armed = false;
        if self.rack_on() {
            if self.rack.fack < self.snd_una {
                self.rack.fack = self.snd_una;
            }
            self.rack_update_reo_wnd(dsack);
            // Linux tcp_identify_packet_loss -> tcp_rack_mark_lost (RFC 8985
            // 6.2 step 5); RACK replaces the DupThresh rule (tcp_mark_head_lost
            // runs only for !tcp_is_rack).
            rack_armed = self.rack_mark_lost(now);
        } else if self.sack_ok {
            self.mark_head_lost();
        }
        rack_armed
    }

    /// Linux tcp_limit_reno_sacked: emulated SACKs never exceed the packets
    /// that can have left the network (at least one hole stays).
    pub(super) fn limit_reno_sacked(&mut self) {
        let holes = self.lost_out.max(1).min(self.packets_out);
        if self.sacked_out + holes > self.packets_out {
            self.sacked_out = self.packets_out - holes;
            self.resync_in_flight();
        }
    }

    /// Non-SACK: mark the head segment lost (fast retransmit / partial ACK).
    pub(super) fn mark_head_lost_reno(&mut self) {
        if let Some(s) = self.sb.front_mut() {
            if !s.has(LOST) {
                s.flags |= LOST;
                self.lost_out += 1;
                self.in_flight_n = self.in_flight_n.wrapping_sub(1);
                self.ts_after_lost_mark(0);
            }
            let s = self.sb[0];
            let end = s.end();
            self.retx_hint = self.snd_una;
            self.lost_scan_seq = self.lost_scan_seq.max(end);
        }
    }

    /// RFC 6675 IsLost() applied from the head (Linux tcp_mark_head_lost):
    /// a non-SACKed segment is lost if at least DupThresh SACKed segments
    /// lie above it. Resumes from a hint, so it is amortised O(1) per segment.
    pub(super) fn mark_head_lost(&mut self) {
        if self.sacked_out < self.dupthresh {
            return;
        }
        let mut i = self.idx_of(self.lost_scan_seq);
        let mut k = self.lost_scan_sacked;
        while i < self.sb.len() && self.sacked_out.saturating_sub(k) >= self.dupthresh {
            let s = &mut self.sb[i];
            if s.has(SACKED) {
                k += 1;
            } else if !s.has(LOST) {
                s.flags |= LOST;
                self.lost_out += 1;
                self.in_flight_n = self.in_flight_n.wrapping_sub(1);
                if s.start < self.retx_hint {
                    self.retx_hint = s.start;
                }
                self.ts_after_lost_mark(i);
            }
            i += 1;
        }
        self.lost_scan_seq = if i < self.sb.len() {
            self.sb[i].start
        } else {
            self.snd_nxt
        };
        self.lost_scan_sacked = k;
    }
}
