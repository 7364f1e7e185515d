//! RTT estimation and RTO (RFC 6298, Linux tcp_rtt_estimator / tcp_set_rto).

use super::config::{RtoFormula, TcpConfig};
use crate::time::{Nanos, MS};

/// RFC 6298 clock granularity G; we model a 1 ms clock like Linux jiffies at HZ=1000.
const CLOCK_G: Nanos = MS;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Nanos,
    pub rttvar: Nanos,
    pub min_rtt: Nanos,
    pub latest: Nanos,
    has_sample: bool,
    rto: Nanos,
    rto_min: Nanos,
    rto_max: Nanos,
    formula: RtoFormula,
}

impl RttEstimator {
    pub fn new(cfg: &TcpConfig) -> Self {
        RttEstimator {
            srtt: 0,
            rttvar: 0,
            min_rtt: Nanos::MAX,
            latest: 0,
            has_sample: false,
            // RFC 6298 (2.1): initial RTO 1 s.
            rto: cfg.rto_initial,
            rto_min: cfg.rto_min,
            rto_max: cfg.rto_max,
            formula: cfg.rto_formula,
        }
    }

    pub fn has_sample(&self) -> bool {
        self.has_sample
    }

    /// Base RTO (without backoff).
    pub fn rto(&self) -> Nanos {
        self.rto
    }

    /// RTO after `backoff` doublings, capped at rto_max (RFC 6298 (5.5), (2.5)).
    pub fn rto_backoff(&self, backoff: u32) -> Nanos {
        self.rto
            .saturating_mul(1u64 << backoff.min(30))
            .min(self.rto_max)
    }

    /// The RTT sample of the ACK (or SYN-ACK) that completes the handshake.
    /// Never retransmitted: `now - sent_at` (Linux `tcp_synack_rtt_meas`
    /// on the passive side, `tcp_clean_rtx_queue`'s `first_ackt` on the
    /// active side). Retransmitted: Karn's rule forbids that sample, but
    /// `tcp_ack_update_rtt` (net/ipv4/tcp_input.c) still takes one from the
    /// timestamp echo ("RTTM Rule": `saw_tstamp && rcv_tsecr && flag &
    /// FLAG_ACKED`, and `FLAG_SYN_ACKED` is part of `FLAG_ACKED`): the
    /// TSecr names the SYN or SYN-ACK transmission that was answered (RFC
    /// 7323 4.1). Without timestamps there is no sample (`srtt_us` stays 0).
    /// Simplification: the kernel's timestamp clock ticks in ms
    /// (`tcp_rtt_tsopt_us`); the sample here is exact, as the model's
    /// other timestamp samples (`sender::rtt_sample`).
    pub fn handshake_sample(
        &mut self,
        now: Nanos,
        sent_at: Nanos,
        retransmitted: bool,
        ts_ecr: Option<Nanos>,
    ) {
        if !retransmitted {
            self.sample(now - sent_at);
        } else if let Some(ecr) = ts_ecr.filter(|&e| e > 0 && e <= now) {
            self.sample(now - ecr);
        }
    }

    /// RFC 6298 (5.7): the SYN (or SYN-ACK) was retransmitted and no RTT
    /// sample exists: RTO for data starts at 3 s (Linux TCP_TIMEOUT_FALLBACK).
    pub fn syn_lost_fallback(&mut self, fallback: Nanos) {
        if !self.has_sample {
            self.rto = fallback;
        }
    }

    pub fn sample(&mut self, r: Nanos) {
        let r = r.max(1);
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        if !self.has_sample {
            // RFC 6298 (2.2): SRTT = R, RTTVAR = R/2.
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_sample = true;
        } else {
            // RFC 6298 (2.3): RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'| (beta = 1/4),
            // then SRTT = 7/8 SRTT + 1/8 R' (alpha = 1/8).
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        self.rto = match self.formula {
            // Linux tcp_set_rto(): srtt + max(mdev_max, rto_min), mdev scaled by 4.
            RtoFormula::Linux => self.srtt + (4 * self.rttvar).max(self.rto_min),
            // RFC 6298 (2.3) + (2.4): RTO = SRTT + max(G, K*RTTVAR), at least rto_min.
            RtoFormula::Rfc6298 => (self.srtt + (4 * self.rttvar).max(CLOCK_G)).max(self.rto_min),
        }
        .min(self.rto_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = RttEstimator::new(&TcpConfig::default());
        assert_eq!(e.rto(), 1_000 * MS);
        e.sample(100 * MS);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + max(200, 200) = 300 ms
        assert_eq!((e.srtt, e.rttvar, e.rto()), (100 * MS, 50 * MS, 300 * MS));
        e.sample(60 * MS);
        // RTTVAR = (3*50 + 40)/4 = 47.5; SRTT = (7*100+60)/8 = 95; RTO = 95 + 200 = 295
        assert_eq!(e.rttvar, 47_500_000);
        assert_eq!(e.srtt, 95 * MS);
        assert_eq!(e.rto(), 295 * MS);
        assert_eq!(e.rto_backoff(2), 1180 * MS);
        assert_eq!(e.rto_backoff(20), 120_000 * MS);
    }
}
