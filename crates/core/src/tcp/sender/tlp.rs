use super::*;

impl PathSender {
    // ---- TLP ------------------------------------------------------------------

    /// RFC 8985 7.3: what a probe would send now: new data if available and
    /// the peer window allows, else the last outstanding segment.
    pub fn tlp_probe(&self) -> Option<TlpProbe> {
        let unsent = self.unsent_in_chunk();
        if unsent > 0 {
            let len = unsent.min(self.mss as u64) as u32;
            if self.snd_nxt + len as u64 <= self.wnd_end {
                return Some(TlpProbe::NewData { len });
            }
        }
        let last = self.sb.back()?;
        if last.has(SACKED) {
            return None;
        }
        Some(TlpProbe::Retransmit {
            seq: last.start,
            len: last.len,
            fin: last.fin,
        })
    }

    /// A PTO expired and a probe is due on the next `next_tx` call.
    pub fn tlp_due(&self) -> bool {
        self.tlp_fire
    }

    /// Take over a due probe (e.g. an MPTCP connection-level TLP that sends
    /// it on another subflow): `next_tx` will not send it, the RTO is armed
    /// as after a probe, and the decision is returned.
    pub fn take_tlp(&mut self, now: Nanos) -> Option<TlpProbe> {
        if !self.tlp_fire {
            return None;
        }
        self.tlp_fire = false;
        self.arm_rto(now);
        self.tlp_probe()
    }

    /// Send the probe decided by `tlp_probe` on this path (RFC 8985 7.3).
    pub fn send_tlp(&mut self, now: Nanos) -> Option<Tx> {
        let probe = self.tlp_probe()?;
        self.counters.tlp_probes += 1;
        let tx = match probe {
            TlpProbe::NewData { len } => {
                let tx = self.send_new(now, len, TxKind::TlpNew);
                self.tlp_retrans = false;
                tx
            }
            TlpProbe::Retransmit { .. } => {
                let i = self.sb.len() - 1;
                self.tlp_retrans = true;
                self.retransmit_at(now, i, TxKind::TlpRetrans)
            }
        };
        // RFC 8985 7.3: TLPRxtOut / TLPHighRxt = SND.NXT.
        self.tlp_high_seq = Some(self.snd_nxt);
        // RFC 8985 7.3: after the probe, arm the RTO.
        self.arm_rto(now);
        Some(tx)
    }

    /// RFC 8985 7.4 (Linux tcp_process_tlp_ack): detect whether the probe
    /// repaired a loss; if so reduce cwnd once (CWR).
    pub(super) fn process_tlp_ack(
        &mut self,
        now: Nanos,
        ack: u64,
        dsack: bool,
        not_dup: bool,
        paths: Option<&[PathView]>,
    ) {
        let Some(hs) = self.tlp_high_seq else { return };
        if ack < hs {
            return;
        }
        if !self.tlp_retrans || dsack {
            // new-data probe, or D-SACK: original and probe both arrived, no loss.
            self.tlp_high_seq = None;
        } else if ack > hs {
            // RFC 8985 7.4.2: the probe repaired a loss: invoke congestion control.
            self.tlp_high_seq = None;
            self.sync_cc();
            self.prior_cwnd = self.cc_state.cwnd;
            let me = [PathView::of(&self.cc_state)];
            let ps = paths.unwrap_or(&me);
            let ss = self.cc.ssthresh(&self.cc_state, ps, now);
            self.cc_state.ssthresh = ss;
            // Linux: tcp_init_cwnd_reduction + CWR + tcp_end_cwnd_reduction.
            self.cc_state.cwnd = ss;
            self.cc_state.cwnd_cnt = 0;
            self.cc_event(CwndEvent::CompleteCwr, now);
        } else if !not_dup {
            // pure duplicate ACK for the probe: no loss
            self.tlp_high_seq = None;
        }
    }
}
