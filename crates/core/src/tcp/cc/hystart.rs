//! HyStart++ (RFC 9406): leave slow start early when the RTT starts to
//! grow, through a Conservative Slow Start (CSS) phase.
//!
//! Note: Linux's tcp_cubic implements the older HyStart (ACK-train and delay
//! detection, tcp_cubic.c hystart_update, modelled in hystart_linux.rs and
//! the default), not HyStart++. This is RFC 9406, offered as
//! `HyStartMode::HyStartPP` (`transport.hystart = "hystart++"`), used only in
//! the initial slow start (RFC 9406 4.3: standard slow start after an RTO).

use super::CcState;
use crate::time::{Nanos, MS};

/// RFC 9406 4.3 constants.
const MIN_RTT_THRESH: Nanos = 4 * MS;
const MAX_RTT_THRESH: Nanos = 16 * MS;
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u32 = 4;
const CSS_ROUNDS: u32 = 5;
/// RFC 9406 4.3: L = 8 segments per ACK for a non-paced sender.
const L: u32 = 8;

#[derive(Clone, Debug)]
pub struct HyStartPP {
    /// Still in the initial slow start with HyStart++ enabled.
    pub active: bool,
    pub in_css: bool,
    window_end: Option<u64>,
    last_round_min_rtt: Nanos,
    current_round_min_rtt: Nanos,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Nanos,
    css_rounds: u32,
    css_frac: u32,
    exit: bool,
}

impl Default for HyStartPP {
    fn default() -> Self {
        HyStartPP {
            active: false,
            in_css: false,
            window_end: None,
            last_round_min_rtt: Nanos::MAX,
            current_round_min_rtt: Nanos::MAX,
            rtt_sample_count: 0,
            css_baseline_min_rtt: Nanos::MAX,
            css_rounds: 0,
            css_frac: 0,
            exit: false,
        }
    }
}

impl HyStartPP {
    /// Per ACK, before growth (from `pkts_acked`): round tracking and RTT samples.
    pub fn on_ack(&mut self, s: &CcState, rtt: Option<Nanos>) {
        if !self.active || !s.in_slow_start() {
            return;
        }
        // RFC 9406 4.2: a round ends when the ACK passes windowEnd.
        if self.window_end.is_none_or(|w| s.snd_una >= w) {
            self.window_end = Some(s.snd_nxt);
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = Nanos::MAX;
            self.rtt_sample_count = 0;
            if self.in_css {
                self.css_rounds += 1;
                // RFC 9406 4.2: after CSS_ROUNDS rounds in CSS, enter
                // congestion avoidance with ssthresh = cwnd.
                if self.css_rounds >= CSS_ROUNDS {
                    self.exit = true;
                }
            }
        }
        if let Some(r) = rtt {
            self.current_round_min_rtt = self.current_round_min_rtt.min(r);
            self.rtt_sample_count += 1;
        }
    }

    /// Slow-start growth for `acked` packets (replaces tcp_slow_start).
    pub fn slow_start(&mut self, s: &mut CcState, acked: u32) {
        if self.exit {
            self.exit = false;
            self.active = false;
            self.in_css = false;
            s.ssthresh = s.cwnd;
            return;
        }
        let a = acked.min(L);
        if self.in_css {
            // RFC 9406 4.2: cwnd += min(N, L*SMSS) / CSS_GROWTH_DIVISOR.
            self.css_frac += a;
            s.cwnd += self.css_frac / CSS_GROWTH_DIVISOR;
            self.css_frac %= CSS_GROWTH_DIVISOR;
            if self.rtt_sample_count >= N_RTT_SAMPLE
                && self.current_round_min_rtt < self.css_baseline_min_rtt
            {
                // RFC 9406 4.2: the RTT increase was spurious: back to slow start.
                self.css_baseline_min_rtt = Nanos::MAX;
                self.in_css = false;
                self.css_rounds = 0;
            }
        } else {
            // RFC 9406 4.2: cwnd += min(N, L*SMSS).
            s.cwnd += a;
            if self.rtt_sample_count >= N_RTT_SAMPLE
                && self.current_round_min_rtt != Nanos::MAX
                && self.last_round_min_rtt != Nanos::MAX
            {
                let thresh = (self.last_round_min_rtt / MIN_RTT_DIVISOR)
                    .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if self.current_round_min_rtt >= self.last_round_min_rtt + thresh {
                    self.css_baseline_min_rtt = self.current_round_min_rtt;
                    self.in_css = true;
                    self.css_rounds = 0;
                }
            }
        }
    }

    /// Loss or RTO: HyStart++ ends (RFC 9406 4.2).
    pub fn stop(&mut self) {
        self.active = false;
        self.in_css = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_state;
    use super::*;

    /// One round: 8 ACKs of one packet each with the given RTT.
    fn round(h: &mut HyStartPP, s: &mut CcState, rtt: Nanos) {
        s.snd_nxt = s.snd_una + s.cwnd as u64 * 1448;
        for _ in 0..8 {
            h.on_ack(s, Some(rtt));
            h.slow_start(s, 1);
            s.snd_una += 1448;
        }
        s.snd_una = s.snd_nxt; // the round ends with everything acked
    }

    #[test]
    fn enters_css_on_rtt_increase_and_exits_after_five_rounds() {
        let mut h = HyStartPP {
            active: true,
            ..Default::default()
        };
        let mut s = test_state(10, super::super::INFINITE_SSTHRESH);
        round(&mut h, &mut s, 40 * MS); // cwnd 10 -> 18
        assert_eq!(s.cwnd, 18);
        // RttThresh = clamp(40/8 = 5 ms, 4, 16) = 5 ms: 44 ms is no increase
        round(&mut h, &mut s, 44 * MS);
        assert!(!h.in_css);
        assert_eq!(s.cwnd, 26);
        // last round min 44: thresh 5.5 ms; 50 >= 49.5 -> CSS after the 8th sample
        round(&mut h, &mut s, 50 * MS);
        assert!(h.in_css);
        assert_eq!(s.cwnd, 34); // 8 packets: the 8th ACK detects, growth was already +1
                                // CSS: + acked/4 per ACK: 8 ACKs -> +2 per round
        round(&mut h, &mut s, 50 * MS);
        assert_eq!(s.cwnd, 36);
        for _ in 0..3 {
            round(&mut h, &mut s, 50 * MS);
        }
        assert_eq!(s.cwnd, 42);
        // the 5th CSS round starts: next growth call exits to CA with ssthresh = cwnd
        h.on_ack(&s, Some(50 * MS));
        h.slow_start(&mut s, 1);
        assert_eq!(s.ssthresh, 42);
        assert!(!h.active);
    }
}
