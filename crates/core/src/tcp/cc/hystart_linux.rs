//! Linux HyStart: the slow-start exit of net/ipv4/tcp_cubic.c (Linux 6.17;
//! `hystart_update`, `bictcp_hystart_reset`, `hystart_ack_delay`). It is not
//! RFC 9406 HyStart++ (see hystart.rs): it only sets ssthresh = cwnd when it
//! sees either
//! - an ACK train: ACKs at most `hystart_ack_delta_us` = 2 ms apart since the
//!   start of the round that have lasted longer than
//!   (delay_min + ack_delay) / 2, or
//! - a delay increase: after HYSTART_MIN_SAMPLES = 8 RTT samples in the round,
//!   the round's minimum RTT exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
//!
//! It only runs while cwnd >= hystart_low_window = 16 and in slow start, and
//! not again once it has fired until an RTO (cubictcp_state resets it).
//! Module defaults as upstream: hystart = 1, hystart_detect = 3 (both).
//!
//! Times are microseconds, as upstream since 5.7 (bictcp_clock_us =
//! tcp_mstamp). Older kernels (the 3.x/4.x of 2014-2018 papers) differ:
//! - the clock was in milliseconds (bictcp_clock, jiffies-based) and the
//!   ACK spacing limit `hystart_ack_delta` = 2 ms in those units;
//! - RTT samples were kept in 1/8 ms (`delay = rtt_us * 8 / 1000`); the delay
//!   clamp was HYSTART_DELAY_MIN/MAX = 4U<<3 / 16U<<3 in those units (the same
//!   4-16 ms; 2.6.29-2.6.39 used a 2 ms minimum);
//! - the ACK-train threshold was plain delay_min / 2 (`delay_min >> 4` of the
//!   1/8-ms value): no `hystart_ack_delay` TSO/GRO cushion (added in 5.7) and
//!   no pacing test (5.7: halve only without pacing);
//! - the delay test took the minimum over the first 8 samples of a round only
//!   (upstream takes it over all samples and tests from the 9th on).

use super::CcState;
use crate::time::{Nanos, SEC, US};

/// tcp_cubic.c `hystart_low_window` (module parameter, default 16).
pub const HYSTART_LOW_WINDOW: u32 = 16;
/// tcp_cubic.c `hystart_ack_delta_us` (module parameter, default 2000).
pub const HYSTART_ACK_DELTA_US: u64 = 2000;
/// tcp_cubic.c HYSTART_MIN_SAMPLES.
pub const HYSTART_MIN_SAMPLES: u8 = 8;
/// tcp_cubic.c HYSTART_DELAY_MIN / HYSTART_DELAY_MAX (us).
pub const HYSTART_DELAY_MIN_US: u32 = 4000;
pub const HYSTART_DELAY_MAX_US: u32 = 16000;
/// Linux GSO_LEGACY_MAX_SIZE: sk_gso_max_size of a socket on a device with
/// the default (software) GSO; used by `hystart_ack_delay`.
pub const GSO_MAX_SIZE: u64 = 65536;

/// Microsecond clock (tcp_mstamp / bictcp_clock_us).
pub fn clock_us(now: Nanos) -> u64 {
    now / US
}

/// Linux's `sk_pacing_rate` in bytes/s as tcp_update_pacing_rate computes
/// it: mss * max(cwnd, packets_out) / srtt, times sysctl_tcp_pacing_ss_ratio
/// (200 %) while cwnd < ssthresh / 2, else tcp_pacing_ca_ratio (120 %).
/// Linux maintains it even without pacing (the fq qdisc or BBR use it).
/// None before the first RTT sample (Linux then does not divide by srtt and
/// the rate is huge).
pub fn pacing_rate(s: &CcState) -> Option<u64> {
    if s.srtt == 0 {
        return None;
    }
    let ratio: u64 = if s.cwnd < s.ssthresh / 2 { 200 } else { 120 };
    let pkts = s.cwnd.max(s.in_flight) as u64;
    Some((s.mss as u64 * pkts * ratio * SEC / 100) / s.srtt)
}

/// tcp_cubic.c `hystart_ack_delay`: a TSO/GRO cushion of
/// 4 * sk_gso_max_size / sk_pacing_rate, at most 1 ms (us).
pub fn hystart_ack_delay_us(s: &CcState) -> u64 {
    match pacing_rate(s) {
        Some(rate) if rate > 0 => (GSO_MAX_SIZE * 4 * 1_000_000 / rate).min(1000),
        _ => 0,
    }
}

#[derive(Clone, Debug, Default)]
pub struct LinuxHyStart {
    /// Module parameter `hystart` (on by default in Linux).
    pub enabled: bool,
    /// `found`: the exit point was found (no more detection until an RTO).
    pub found: bool,
    /// Which detector fired last (1 = ACK train, 2 = delay), for tests/traces.
    pub found_by: u8,
    round_start: u64,
    end_seq: u64,
    last_ack: u64,
    curr_rtt: u32,
    sample_cnt: u8,
}

impl LinuxHyStart {
    pub fn new(enabled: bool) -> Self {
        LinuxHyStart {
            enabled,
            curr_rtt: u32::MAX,
            ..Default::default()
        }
    }

    /// `bictcp_hystart_reset`: a new round starts now and ends when SND.UNA
    /// passes the current SND.NXT.
    pub fn reset_round(&mut self, s: &CcState, now: Nanos) {
        let t = clock_us(now);
        self.round_start = t;
        self.last_ack = t;
        self.end_seq = s.snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// `bictcp_reset` clears `found` (cubictcp_state on TCP_CA_Loss, init).
    pub fn clear_found(&mut self) {
        self.found = false;
        self.found_by = 0;
    }

    /// The tail of `cubictcp_acked`: `if (!found && tcp_in_slow_start && hystart)`.
    /// (Forced inline: out of slow start it is these tests alone.)
    #[inline(always)]
    pub fn on_sample(&mut self, s: &mut CcState, delay_us: u32, delay_min_us: u32, now: Nanos) {
        if self.enabled && !self.found && s.in_slow_start() {
            self.update(s, delay_us, delay_min_us, now);
        }
    }

    /// `hystart_update(sk, delay)`: on detection sets ssthresh = cwnd.
    pub fn update(&mut self, s: &mut CcState, delay_us: u32, delay_min_us: u32, now: Nanos) {
        // after(snd_una, end_seq): the round is over.
        if s.snd_una > self.end_seq {
            self.reset_round(s, now);
        }
        if s.cwnd < HYSTART_LOW_WINDOW {
            return;
        }
        // hystart_detect & HYSTART_ACK_TRAIN
        let now_us = clock_us(now);
        if now_us.saturating_sub(self.last_ack) <= HYSTART_ACK_DELTA_US {
            self.last_ack = now_us;
            let mut threshold = delay_min_us as u64 + hystart_ack_delay_us(s);
            // sk_pacing_status == SK_PACING_NONE: mptlab does not pace, so
            // the train must last half of delay_min (+ cushion).
            threshold >>= 1;
            if now_us.saturating_sub(self.round_start) > threshold {
                self.found = true;
                self.found_by = 1;
                s.ssthresh = s.cwnd;
            }
        }
        // hystart_detect & HYSTART_DELAY
        self.curr_rtt = self.curr_rtt.min(delay_us);
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = (delay_min_us >> 3).clamp(HYSTART_DELAY_MIN_US, HYSTART_DELAY_MAX_US);
            if self.curr_rtt as u64 > delay_min_us as u64 + thresh as u64 {
                self.found = true;
                self.found_by = 2;
                s.ssthresh = s.cwnd;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_state, INFINITE_SSTHRESH};
    use super::*;
    use crate::time::MS;

    #[test]
    fn ack_delay_cushion_is_capped_at_1ms() {
        // 10 Mbit/s-like: cwnd 20, mss 1448, srtt 40 ms, slow start (200 %):
        // rate = 1448*20*2/0.04 = 1,448,000 B/s; 65536*4e6/1.448e6 = 181,039 us -> 1000 us.
        let mut s = test_state(20, INFINITE_SSTHRESH);
        assert_eq!(pacing_rate(&s), Some(1_448_000));
        assert_eq!(hystart_ack_delay_us(&s), 1000);
        // A 10 Gbit/s-like rate: cwnd 10000, srtt 10 ms -> 2.896e9 B/s: 65536*4e6/2.896e9 = 90 us.
        s.cwnd = 10_000;
        s.in_flight = 10_000;
        s.srtt = 10 * MS;
        assert_eq!(hystart_ack_delay_us(&s), 90);
    }

    /// Delay detection: delay_min 40 ms -> threshold 40 + clamp(5, 4, 16) = 45 ms.
    /// The first 8 samples of a round are only collected; the 9th tests.
    #[test]
    fn delay_increase_exit_after_eight_samples() {
        let mut h = LinuxHyStart::new(true);
        let mut s = test_state(20, INFINITE_SSTHRESH);
        s.snd_nxt = 100_000;
        let t0 = SEC;
        h.reset_round(&s, t0);
        // samples 45 ms apart by 10 ms so the ACK train never fires
        let mut t = t0;
        for i in 0..8 {
            t += 10 * MS;
            h.on_sample(&mut s, 46_000 + i, 40_000, t);
            assert!(!h.found, "sample {i}");
        }
        // 9th sample: curr_rtt = 46,000 us > 45,000 us -> exit, ssthresh = cwnd
        t += 10 * MS;
        h.on_sample(&mut s, 47_000, 40_000, t);
        assert!(h.found);
        assert_eq!(h.found_by, 2);
        assert_eq!(s.ssthresh, 20);
        // A round whose minimum stays at 45 ms (not > 45) does not exit.
        let mut h = LinuxHyStart::new(true);
        let mut s = test_state(20, INFINITE_SSTHRESH);
        h.reset_round(&s, t0);
        let mut t = t0;
        for _ in 0..20 {
            t += 10 * MS;
            h.on_sample(&mut s, 45_000, 40_000, t);
        }
        assert!(!h.found);
        // Clamps: delay_min 200 ms -> +16 ms (not 25); 10 ms -> +4 ms (not 1.25).
        for (dmin, hit, miss) in [
            (200_000u32, 216_001u32, 216_000u32),
            (10_000, 14_001, 14_000),
        ] {
            for (rtt, exit) in [(hit, true), (miss, false)] {
                let mut h = LinuxHyStart::new(true);
                let mut s = test_state(20, INFINITE_SSTHRESH);
                h.reset_round(&s, t0);
                let mut t = t0;
                for _ in 0..9 {
                    t += 10 * MS;
                    h.on_sample(&mut s, rtt, dmin, t);
                }
                assert_eq!(h.found, exit, "delay_min {dmin} rtt {rtt}");
            }
        }
    }

    /// ACK train: delay_min 40 ms, cushion 1 ms -> threshold (40,000 + 1000) >> 1
    /// = 20,500 us. ACKs 1 ms apart from the round start: the ACK at 21 ms
    /// (> 20.5 ms) fires; a 3 ms gap breaks the train.
    #[test]
    fn ack_train_exit() {
        let mut h = LinuxHyStart::new(true);
        let mut s = test_state(30, INFINITE_SSTHRESH);
        let t0 = SEC;
        h.reset_round(&s, t0);
        for ms in 1..=20u64 {
            // 40 ms samples: no delay exit
            h.on_sample(&mut s, 40_000, 40_000, t0 + ms * MS);
            assert!(!h.found, "at {ms} ms");
        }
        h.on_sample(&mut s, 40_000, 40_000, t0 + 21 * MS);
        assert!(h.found);
        assert_eq!(h.found_by, 1);
        assert_eq!(s.ssthresh, 30);

        // gap of 3 ms at 10 ms: last_ack stays at 10 ms, later ACKs never count
        let mut h = LinuxHyStart::new(true);
        let mut s = test_state(30, INFINITE_SSTHRESH);
        h.reset_round(&s, t0);
        for ms in (1..=10u64).chain(13..=40) {
            h.on_sample(&mut s, 40_000, 40_000, t0 + ms * MS);
        }
        assert!(!h.found);
        // below hystart_low_window nothing is detected
        let mut h = LinuxHyStart::new(true);
        let mut s = test_state(15, INFINITE_SSTHRESH);
        h.reset_round(&s, t0);
        for ms in 1..=40u64 {
            h.on_sample(&mut s, 60_000, 40_000, t0 + ms * MS);
        }
        assert!(!h.found);
    }

    #[test]
    fn new_round_when_snd_una_passes_end_seq() {
        let mut h = LinuxHyStart::new(true);
        let mut s = test_state(20, INFINITE_SSTHRESH);
        s.snd_nxt = 10_000;
        let t0 = SEC;
        h.reset_round(&s, t0);
        s.snd_una = 10_000; // not after end_seq
        h.on_sample(&mut s, 40_000, 40_000, t0 + 10 * MS);
        assert_eq!(h.round_start, clock_us(t0));
        s.snd_una = 10_001;
        s.snd_nxt = 30_000;
        h.on_sample(&mut s, 40_000, 40_000, t0 + 50 * MS);
        assert_eq!(h.round_start, clock_us(t0 + 50 * MS));
        assert_eq!(h.end_seq, 30_000);
    }
}
