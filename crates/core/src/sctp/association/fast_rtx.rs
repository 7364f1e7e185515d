use super::sack::SackAcked;
use super::*;

impl SctpAssociation {
    /// Miss indications (section 7.2.4, CMT SFR and DAC, or HTNA) for the
    /// chunks below the highest TSN the SACK reports; a third miss marks a
    /// chunk for fast retransmit.
    #[inline]
    pub(super) fn count_misses(
        &mut self,
        s: &SackChunk,
        sack_highest: Option<u64>,
        acked: &SackAcked,
        cum_advanced: bool,
    ) {
        let (facts, htna) = (&acked.facts, acked.htna);
        let any_fr = self.paths.iter().any(|p| p.fast_recovery_exit.is_some());
        let mut misses: Vec<(u64, u32)> = Vec::new();
        if let Some(highest) = sack_highest {
            for (&t, o) in self.sent.range(..highest) {
                if o.acked || o.rtx.is_some() {
                    continue;
                }
                let inc = if self.cfg.cmt && self.cfg.sfr {
                    sfr_miss_increment(&facts[o.path], t, self.cfg.dac, s.dac_packets)
                } else {
                    // HTNA: only below the highest newly acked TSN, except in
                    // fast recovery when the cum ack advanced (section 7.2.4)
                    ((any_fr && cum_advanced) || htna.is_some_and(|h| t < h)) as u32
                };
                if inc > 0 {
                    misses.push((t, inc));
                }
            }
        }
        for (t, inc) in misses {
            let o = self.sent.get_mut(&t).unwrap();
            o.miss += inc;
            if o.miss >= 3 && !o.fast_retransmitted {
                self.mark_fast_rtx(t);
            }
        }
    }

    pub(super) fn mark_fast_rtx(&mut self, t: u64) {
        let (q, len) = {
            let o = &self.sent[&t];
            (o.path, o.chunk.len as u64)
        };
        let dest = if self.cfg.cmt {
            rtx_destination(&self.paths, q, self.cfg.rtx_policy)
        } else {
            q
        };
        {
            let o = self.sent.get_mut(&t).unwrap();
            o.fast_retransmitted = true;
            o.rtx = Some((RtxCause::Fast, dest));
            if o.in_flight {
                o.in_flight = false;
                self.paths[q].flight -= len;
            }
        }
        self.rtx_queue.insert(t);
        self.paths[dest].fast_rtx_burst = true;
        // Enter fast recovery on the destination the loss happened on, once
        // per window (section 7.2.4: not again until the exit point).
        if self.paths[q].fast_recovery_exit.is_none() {
            on_fast_retransmit(&mut self.paths, q, self.cfg.mtu, self.cfg.cc);
            let highest = self.next_tsn.saturating_sub(1);
            let highest_sent = self.sent.keys().next_back().copied().unwrap_or(highest);
            self.paths[q].fast_recovery_exit = Some(highest_sent);
            self.paths[q].counters.recoveries += 1;
        }
        if self.paths[q].rtt_probe.is_some_and(|(pt, _)| pt == t) {
            self.paths[q].rtt_probe = None;
        }
    }
}
