//! RTT estimation and RTO: Linux `tcp_rtt_estimator` / `tcp_set_rto`
//! (net/ipv4/tcp_input.c, 6.18) by default, RFC 6298 on request
//! (`RtoFormula`).
//!
//! Linux keeps four variables in microseconds: `srtt_us` (SRTT scaled by
//! 8), `mdev_us` (mean deviation scaled by 4), `mdev_max_us` (the largest
//! `mdev_us` of the current round trip, at least the RTO minimum) and
//! `rttvar_us` (what the RTO adds to SRTT). `rttvar_us` follows `mdev_max_us`
//! up at once, but comes down only once per round trip (when SND.UNA passes
//! `rtt_seq`), by a quarter of the gap; RFC 6298 decays RTTVAR on every
//! sample instead. The RTO is `srtt_us / 8 + rttvar_us` in jiffies
//! (`__tcp_set_rto`, include/net/tcp.h), so it is never below the RTO
//! minimum without an explicit clamp.

use super::config::{RtoFormula, TcpConfig};
use crate::time::{Nanos, MS, US};

/// RFC 6298 clock granularity G of the RFC formula (`RtoFormula::Rfc6298`):
/// 1 ms at every `TcpConfig::hz` on purpose, since that formula models RFC
/// 6298, not a Linux kernel (the Linux formula rounds to `hz`'s jiffy).
const CLOCK_G: Nanos = MS;

/// Linux's estimator state, in microseconds as `struct tcp_sock` keeps it.
#[derive(Clone, Debug, Default)]
struct LinuxRtt {
    /// `srtt_us`: SRTT << 3.
    srtt_us: u64,
    /// `mdev_us`: mean deviation << 2.
    mdev_us: u64,
    /// `mdev_max_us`: the largest `mdev_us` in this round trip.
    mdev_max_us: u64,
    /// `rttvar_us`: smoothed `mdev_max_us`, the RTO's variance term.
    rttvar_us: u64,
    /// `rtt_seq`: SND.NXT when the current round trip started.
    rtt_seq: u64,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT (Linux `srtt_us >> 3`).
    pub srtt: Nanos,
    /// RTTVAR in RFC 6298 units (RTO = SRTT + 4 RTTVAR): Linux `rttvar_us / 4`.
    pub rttvar: Nanos,
    pub min_rtt: Nanos,
    pub latest: Nanos,
    has_sample: bool,
    rto: Nanos,
    rto_min: Nanos,
    rto_max: Nanos,
    formula: RtoFormula,
    /// One jiffy in microseconds (`TcpConfig::hz`): `usecs_to_jiffies`
    /// rounds the RTO up to it.
    jiffy_us: u64,
    lx: LinuxRtt,
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
            jiffy_us: 1_000_000 / cfg.hz.max(1) as u64,
            lx: LinuxRtt::default(),
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
        snd_nxt: u64,
    ) {
        // The SYN (or SYN-ACK) is all that was sent: SND.UNA = SND.NXT.
        if !retransmitted {
            self.sample(now - sent_at, snd_nxt, snd_nxt);
        } else if let Some(ecr) = ts_ecr.filter(|&e| e > 0 && e <= now) {
            self.sample(now - ecr, snd_nxt, snd_nxt);
        }
    }

    /// RFC 6298 (5.7): the SYN (or SYN-ACK) was retransmitted and no RTT
    /// sample exists: RTO for data starts at 3 s (Linux TCP_TIMEOUT_FALLBACK).
    pub fn syn_lost_fallback(&mut self, fallback: Nanos) {
        if !self.has_sample {
            self.rto = fallback;
        }
    }

    /// Feed one RTT sample `r` (Linux `tcp_ack_update_rtt` ->
    /// `tcp_rtt_estimator` + `tcp_set_rto`). `snd_una` and `snd_nxt` are the
    /// sender's after the ACK was applied (`tcp_ack` moves SND.UNA before
    /// `tcp_clean_rtx_queue` takes the sample): Linux ends a round trip of
    /// the variance estimate when SND.UNA passes `rtt_seq`.
    ///
    /// Forced inline: nearly every ACK of a bulk sender takes a sample
    /// (`PathSender::sample_rtt`), and as a call its prologue, epilogue
    /// and argument set-up cost about a fifth of its instructions.
    #[inline(always)]
    pub fn sample(&mut self, r: Nanos, snd_una: u64, snd_nxt: u64) {
        self.latest = r.max(1);
        self.min_rtt = self.min_rtt.min(self.latest);
        match self.formula {
            RtoFormula::Linux => {
                self.linux_estimator(r / US, snd_una, snd_nxt);
                self.linux_set_rto();
                self.srtt = (self.lx.srtt_us >> 3) * US;
                self.rttvar = self.lx.rttvar_us * US / 4;
            }
            RtoFormula::Rfc6298 => self.rfc6298_sample(self.latest),
        }
        self.has_sample = true;
    }

    /// Linux `tcp_rtt_estimator` (net/ipv4/tcp_input.c), Van Jacobson's
    /// scaled integer EWMA with Linux's changes: the mean deviation gets a
    /// gain of 1/32 instead of 1/4 when the sample is below SRTT (so an RTT
    /// drop does not inflate the RTO), and `rttvar_us` is smoothed per
    /// round trip rather than per sample.
    fn linux_estimator(&mut self, mrtt_us: u64, snd_una: u64, snd_nxt: u64) {
        let rto_min_us = self.rto_min / US; // tcp_rto_min_us
        let lx = &mut self.lx;
        let mut m = mrtt_us as i64;
        if lx.srtt_us != 0 {
            m -= (lx.srtt_us >> 3) as i64; // error of the SRTT estimate
            let srtt = lx.srtt_us as i64 + m; // SRTT = 7/8 SRTT + 1/8 R
            lx.srtt_us = srtt.max(1) as u64;
            if m < 0 {
                // Sample below SRTT: |error| - mdev/4, and if that is
                // positive only an eighth of it (gain alpha * beta = 1/32),
                // "similar to one of Eifel findings".
                m = -m - (lx.mdev_us >> 2) as i64;
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= (lx.mdev_us >> 2) as i64;
            }
            // mdev = 3/4 mdev + 1/4 |error| (cannot go below 0: m >= -mdev/4)
            lx.mdev_us = (lx.mdev_us as i64 + m) as u64;
            if lx.mdev_us > lx.mdev_max_us {
                lx.mdev_max_us = lx.mdev_us;
                if lx.mdev_max_us > lx.rttvar_us {
                    lx.rttvar_us = lx.mdev_max_us; // up at once
                }
            }
            // `after(tp->snd_una, tp->rtt_seq)`: a round trip has ended.
            if snd_una > lx.rtt_seq {
                if lx.mdev_max_us < lx.rttvar_us {
                    lx.rttvar_us -= (lx.rttvar_us - lx.mdev_max_us) >> 2;
                }
                lx.rtt_seq = snd_nxt;
                lx.mdev_max_us = rto_min_us;
            }
        } else {
            // First measurement: SRTT = R, mdev = R/2 (scaled: R << 1), so
            // the RTO is 3 R unless the RTO minimum is larger.
            lx.srtt_us = (mrtt_us << 3).max(1);
            lx.mdev_us = mrtt_us << 1;
            lx.rttvar_us = lx.mdev_us.max(rto_min_us);
            lx.mdev_max_us = lx.rttvar_us;
            lx.rtt_seq = snd_nxt;
        }
    }

    /// Linux `tcp_set_rto`: `__tcp_set_rto` (include/net/tcp.h) =
    /// `usecs_to_jiffies(srtt_us / 8 + rttvar_us)`, rounded up to a jiffy,
    /// then `tcp_bound_rto` caps it at TCP_RTO_MAX. No lower clamp: the
    /// kernel notes that `rttvar_us >= mdev_max_us >= tcp_rto_min_us`
    /// already keeps it above the minimum.
    fn linux_set_rto(&mut self) {
        let us = (self.lx.srtt_us >> 3) + self.lx.rttvar_us;
        self.rto = (us.div_ceil(self.jiffy_us) * self.jiffy_us * US).min(self.rto_max);
    }

    /// RFC 6298 (2.2)-(2.5), RTTVAR decayed on every sample.
    fn rfc6298_sample(&mut self, r: Nanos) {
        if !self.has_sample {
            // RFC 6298 (2.2): SRTT = R, RTTVAR = R/2.
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            // RFC 6298 (2.3): RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'| (beta = 1/4),
            // then SRTT = 7/8 SRTT + 1/8 R' (alpha = 1/8).
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        // RFC 6298 (2.3) + (2.4): RTO = SRTT + max(G, K*RTTVAR), at least rto_min.
        self.rto = (self.srtt + (4 * self.rttvar).max(CLOCK_G))
            .max(self.rto_min)
            .min(self.rto_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (srtt_us, mdev_us, mdev_max_us, rttvar_us, RTO in ms)
    fn lx(e: &RttEstimator) -> (u64, u64, u64, u64, u64) {
        let l = &e.lx;
        let rto_ms = e.rto() / MS;
        (l.srtt_us, l.mdev_us, l.mdev_max_us, l.rttvar_us, rto_ms)
    }

    /// A sequence of samples worked by hand through `tcp_rtt_estimator`'s
    /// integer arithmetic (rto_min 200 ms): first sample, a drop below SRTT
    /// with the full and with the 1/32 mdev gain, a spike that lifts
    /// rttvar at once, and the per-round-trip decay.
    #[test]
    fn linux_estimator_follows_the_kernel_arithmetic() {
        let mut e = RttEstimator::new(&TcpConfig::default());
        assert_eq!(e.rto(), 1_000 * MS);
        // First sample: srtt = 8 R, mdev = 2 R, rttvar = max(mdev, rto_min).
        e.sample(100 * MS, 1, 1);
        assert_eq!(lx(&e), (800_000, 200_000, 200_000, 200_000, 300));
        assert_eq!((e.srtt, e.rttvar), (100 * MS, 50 * MS));
        // 60 ms, same round (snd_una 1 not after rtt_seq 1): m = -40000,
        // |m| - mdev/4 = -10000 <= 0, so mdev falls by the full 10000.
        e.sample(60 * MS, 1, 10_001);
        assert_eq!(lx(&e), (760_000, 190_000, 200_000, 200_000, 295));
        // 20 ms: m = -75000, |m| - mdev/4 = 27500 > 0: gain 1/8 of it (3437).
        e.sample(20 * MS, 1, 10_001);
        assert_eq!(lx(&e), (685_000, 193_437, 200_000, 200_000, 286));
        // 300 ms: m = 214375, mdev += 214375 - 48359; mdev_max and rttvar
        // follow at once; RTO = 112421 + 359453 us, rounded up to 472 ms.
        e.sample(300 * MS, 1, 10_001);
        assert_eq!(lx(&e), (899_375, 359_453, 359_453, 359_453, 472));
        // snd_una 5001 passes rtt_seq 1: the round ends; mdev_max is not
        // below rttvar, so no decay; mdev_max resets to rto_min, rtt_seq = 20001.
        e.sample(100 * MS, 5_001, 20_001);
        assert_eq!(lx(&e), (886_954, 282_011, 200_000, 359_453, 471));
        // Inside the round rttvar holds although mdev keeps falling.
        e.sample(100 * MS, 10_001, 20_001);
        assert_eq!(lx(&e), (876_085, 222_378, 222_378, 359_453, 469));
        // Round ends (20002 after 20001): rttvar -= (359453 - 222378) >> 2.
        e.sample(100 * MS, 20_002, 30_001);
        assert_eq!(lx(&e), (866_575, 176_294, 200_000, 325_185, 434));
        assert_eq!(e.lx.rtt_seq, 30_001);
    }

    /// RFC 6298 would let RTTVAR fall on every ACK; Linux only once per
    /// round trip, however many samples arrive in it.
    #[test]
    fn linux_rttvar_decays_once_per_round_trip() {
        let mut e = RttEstimator::new(&TcpConfig::default());
        e.sample(100 * MS, 1, 1);
        e.sample(400 * MS, 2, 100); // round ends; spike sets rttvar
        let spiked = e.lx.rttvar_us;
        assert!(spiked > 200_000);
        for una in 3..=100 {
            e.sample(100 * MS, una, 200);
            assert_eq!(e.lx.rttvar_us, spiked, "same round trip (snd_una {una})");
        }
        // This 100 ms sample lowers mdev, so mdev_max stays what the round saw.
        let round_max = e.lx.mdev_max_us;
        e.sample(100 * MS, 101, 300);
        let once = e.lx.rttvar_us;
        assert_eq!(once, spiked - ((spiked - round_max) >> 2));
        assert_eq!(e.lx.mdev_max_us, 200_000, "reset to tcp_rto_min_us");
        assert!(once < spiked);
    }

    /// The RTO never drops below rto_min + SRTT's share: rttvar_us is floored
    /// at tcp_rto_min_us, so on a steady 10 ms path the RTO is 210 ms
    /// (RFC 6298 with the same floor would give 200 ms).
    #[test]
    fn linux_rto_keeps_the_minimum_inside_rttvar() {
        let mut e = RttEstimator::new(&TcpConfig::default());
        let mut seq = 1;
        for _ in 0..50 {
            e.sample(10 * MS, seq, seq + 1000);
            seq += 1000;
            assert!(e.rto() >= 210 * MS);
        }
        assert_eq!(e.rto(), 210 * MS);
        assert_eq!(e.lx.rttvar_us, 200_000);
        let cfg = TcpConfig {
            rto_formula: RtoFormula::Rfc6298,
            ..TcpConfig::default()
        };
        let mut r = RttEstimator::new(&cfg);
        for _ in 0..50 {
            r.sample(10 * MS, 0, 0);
        }
        assert_eq!(r.rto(), 200 * MS);
    }

    #[test]
    fn linux_rto_is_capped_and_backed_off() {
        let mut e = RttEstimator::new(&TcpConfig::default());
        e.sample(100 * MS, 1, 1);
        assert_eq!(e.rto_backoff(2), 1200 * MS);
        assert_eq!(e.rto_backoff(20), 120_000 * MS);
        e.sample(200_000 * MS, 2, 2);
        assert_eq!(e.rto(), 120_000 * MS, "tcp_bound_rto: TCP_RTO_MAX");
    }

    #[test]
    fn rfc6298_first_and_second_sample() {
        let cfg = TcpConfig {
            rto_formula: RtoFormula::Rfc6298,
            ..TcpConfig::default()
        };
        let mut e = RttEstimator::new(&cfg);
        assert_eq!(e.rto(), 1_000 * MS);
        e.sample(100 * MS, 1, 1);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + max(200, 1) = 300 ms
        assert_eq!((e.srtt, e.rttvar, e.rto()), (100 * MS, 50 * MS, 300 * MS));
        e.sample(60 * MS, 1, 1);
        // RTTVAR = (3*50 + 40)/4 = 47.5; SRTT = (7*100+60)/8 = 95; RTO = 95 + 190 = 285
        assert_eq!(e.rttvar, 47_500_000);
        assert_eq!(e.srtt, 95 * MS);
        assert_eq!(e.rto(), 285 * MS);
        assert_eq!(e.rto_backoff(2), 1140 * MS);
        assert_eq!(e.rto_backoff(20), 120_000 * MS);
    }
}
