use super::ack::CumAck;
use super::*;

impl PathSender {
    /// RTT sample of an ACK (RFC 6298 / RFC 7323 4), fed to the RTO
    /// estimator; returns it.
    #[inline]
    pub(super) fn sample_rtt(
        &mut self,
        now: Nanos,
        ts_ecr: Option<Nanos>,
        cum: &CumAck,
        advanced: bool,
    ) -> Option<Nanos> {
        let CumAck {
            first_ackt,
            retrans_acked,
            ..
        } = *cum;
        let mut rtt_sample = None;
        // Linux tcp_clean_rtx_queue takes the sequence RTT sample only `if
        // (likely(first_ackt) && !(flag & FLAG_RETRANS_DATA_ACKED))`: when
        // the ACK also covers retransmitted data, the never-retransmitted
        // segments above it were typically held in the receiver's
        // out-of-order queue behind the repaired hole, and now - sent would
        // count the whole repair (Karn's rule, RFC 6298 3, applied to the
        // ACK rather than to one segment). Without SACK every NewReno
        // partial ACK is such an ACK: a bursty loss episode repaired one
        // hole per RTT inflated SRTT by an RTT per round (to 2 s on a
        // 0.12-0.36 s path) and the RTO with it. The timestamp echo, which
        // names the segment that filled the hole (RFC 7323 4.3), still
        // gives a valid sample (tcp_ack_update_rtt).
        let seq_ackt = first_ackt.filter(|_| !retrans_acked);
        // Linux tcp_ack_update_rtt: `if (seq_rtt_us < 0) seq_rtt_us =
        // sack_rtt_us`, the RTT of the lowest never-retransmitted segment
        // this ACK newly SACKed (`first_sackt`, tcp_sacktag_one). So a
        // duplicate ACK that SACKs new data is a sample too: in recovery
        // every SACK moves SRTT, and with it the pacing rate that the
        // MPTCP scheduler reads (`mptcp_subflow_get_send`).
        if let Some(t) = seq_ackt.filter(|_| advanced) {
            rtt_sample = Some(now.saturating_sub(t));
        } else if let Some(s) = self.sackt() {
            rtt_sample = Some(now.saturating_sub(s.first.1));
        } else if advanced {
            // RFC 7323 4.1: timestamp samples are valid for retransmitted
            // data; only on an ACK that advances (FLAG_ACKED).
            if let Some(ecr) = ts_ecr {
                if ecr > 0 && ecr <= now {
                    rtt_sample = Some(now - ecr);
                }
            }
        }
        if let Some(r) = rtt_sample {
            self.rtt.sample(r, self.snd_una, self.snd_nxt);
            // Linux tcp_ack_update_rtt -> icsk_backoff = 0.
            self.backoff = 0;
        }
        rtt_sample
    }

    /// Hand congestion control the delivered packets and its RTT sample
    /// (`CongestionControl::pkts_acked`). `delivered` > 0.
    #[inline]
    pub(super) fn cc_pkts_acked(
        &mut self,
        now: Nanos,
        delivered: u32,
        cum: &CumAck,
        advanced: bool,
        rtt_sample: Option<Nanos>,
    ) {
        let CumAck {
            last_ackt,
            retrans_acked,
            ..
        } = *cum;
        // Linux (>= 4.1, tcp_clean_rtx_queue / tcp_ack_update_rtt) hands
        // congestion control ca_rtt_us, the RTT of the most recently sent
        // acked segment, not seq_rtt_us (the oldest one): with delayed or
        // stretch ACKs the oldest segment's sample includes the time the
        // receiver held the ACK back, which delay-based algorithms (Vegas,
        // wVegas) would read as queueing.
        // tcp_clean_rtx_queue: the newest newly SACKed segment's RTT
        // (`last_sackt`) replaces the cumulative one when the ACK SACKs.
        let ca_rtt = match (self.sackt(), last_ackt) {
            (Some(s), _) => Some(now.saturating_sub(s.last.1)),
            (None, Some(t)) if advanced && !retrans_acked => Some(now.saturating_sub(t)),
            _ => rtt_sample,
        };
        self.cc
            .pkts_acked(&mut self.cc_state, delivered, ca_rtt, now);
    }
}
