use super::*;

impl SctpAssociation {
    // ------------------------------------------------------------------
    // Timers
    // ------------------------------------------------------------------

    pub(super) fn on_t3(&mut self, i: usize) {
        self.paths[i].t3 = None;
        self.paths[i].counters.rto_events += 1;
        on_timeout(&mut self.paths[i], self.cfg.mtu);
        self.paths[i].fast_recovery_exit = None;
        self.paths[i].rtt_probe = None;
        self.paths[i].rto = (self.paths[i].rto * 2).min(self.cfg.rto_max);
        self.path_error(i);
        // Mark everything outstanding on this destination for retransmission
        // (section 6.3.3 E3) and pick the destination (section 6.4.1 / CMT policy).
        let ts: Vec<u64> = self
            .sent
            .iter()
            .filter(|(_, o)| o.path == i && !o.acked && o.in_flight)
            .map(|(&t, _)| t)
            .collect();
        for t in ts {
            let dest = if self.cfg.cmt {
                rtx_destination(&self.paths, i, self.cfg.rtx_policy)
            } else {
                alternate_destination(&self.paths, i, self.primary)
            };
            let o = self.sent.get_mut(&t).unwrap();
            o.in_flight = false;
            o.rtx = Some((RtxCause::Timeout, dest));
            o.miss = 0;
            self.paths[i].flight -= o.chunk.len as u64;
            self.rtx_queue.insert(t);
        }
    }

    pub(super) fn path_error(&mut self, i: usize) {
        self.paths[i].error_count += 1;
        self.assoc_errors += 1;
        if self.paths[i].error_count > self.cfg.path_max_retrans && self.paths[i].active {
            // Destination unreachable (section 8.2); data fails over to an
            // active alternate (current_primary) and retransmissions are re-targeted.
            self.paths[i].active = false;
            let alt = alternate_destination(&self.paths, i, self.primary);
            let ts: Vec<u64> = self.rtx_queue.iter().copied().collect();
            for t in ts {
                if let Some(r) = self.sent.get_mut(&t).unwrap().rtx.as_mut() {
                    if r.1 == i {
                        r.1 = alt;
                    }
                }
            }
            // DAPS: hand this destination's planned chunks to an active one
            let orphans = std::mem::take(&mut self.paths[i].daps_plan);
            if alt != i {
                let mut v: Vec<u64> = self.paths[alt].daps_plan.drain(..).chain(orphans).collect();
                v.sort_unstable();
                self.paths[alt].daps_plan = v.into();
            }
        }
        if self.assoc_errors > self.cfg.assoc_max_retrans {
            // Association.Max.Retrans exceeded (section 8.1)
            self.gave_up = Some("sctp_association_max_retrans");
            self.closed();
        }
    }

    pub(super) fn on_heartbeat_timer(&mut self, now: Nanos, i: usize) {
        let idle = self.paths[i].flight == 0
            && (self.paths[i].last_data_sent == 0
                || now >= self.paths[i].last_data_sent + self.cfg.hb_interval)
            || !self.paths[i].active;
        if self.paths[i].hb_outstanding.take().is_some() {
            // the previous heartbeat was not answered (section 8.3)
            self.paths[i].rto = (self.paths[i].rto * 2).min(self.cfg.rto_max);
            self.path_error(i);
            if self.state == State::Closed {
                return;
            }
        }
        if idle || self.paths[i].srtt.is_none() {
            self.paths[i].hb_outstanding = Some(now);
            let (src, dest) = (self.paths[i].local, self.paths[i].remote);
            self.send_ctrl(
                i,
                Chunk::Heartbeat {
                    src,
                    dest,
                    sent_at: now,
                },
            );
        }
        let d = self.hb_delay(i);
        // an unconfirmed/unanswered destination is probed again after one RTO
        let d = if self.paths[i].srtt.is_none() {
            self.paths[i].rto
        } else {
            d
        };
        self.paths[i].hb_at = Some(now + d);
    }

    /// T3-rtx timers (section 6.3.2 R2, R3) after a SACK: stop where
    /// nothing is outstanding, restart where the lowest outstanding TSN was
    /// acked or none runs.
    #[inline]
    pub(super) fn restart_t3_on_sack(
        &mut self,
        now: Nanos,
        low_before: &[Option<u64>],
        low_after: &[Option<u64>],
    ) {
        let n = self.paths.len();
        for i in 0..n {
            if self.paths[i].flight == 0 {
                self.paths[i].t3 = None;
            } else if low_before[i] != low_after[i] || self.paths[i].t3.is_none() {
                self.paths[i].t3 = Some(now + self.paths[i].rto);
            }
        }
    }
}
