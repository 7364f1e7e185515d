//! wVegas, weighted Vegas (Cao, Xu, Fu, "Delay-based congestion control for
//! multipath TCP", ICNP 2012; Linux `mptcp_wvegas.c`).
//!
//! Once per round (when `snd_una` passes the `snd_nxt` recorded at the start
//! of the round, `mptcp_wvegas_cong_avoid`), with rtt = mean of the round's RTT
//! samples and base_rtt = the smallest sample ever seen:
//!
//! ```text
//!   diff_i = (w_i / base_rtt_i - w_i / rtt_i) * base_rtt_i = w_i (rtt_i - base_rtt_i) / rtt_i
//!   slow start:  if diff_i > gamma: w_i = min(w_i, w_i base_rtt_i / rtt_i + 1), leave slow start
//!   avoidance:   if diff_i >= alpha_i: weight_i = x_i / sum_k x_k, x = w / rtt,
//!                                      alpha_i = max(2, weight_i * total_alpha)
//!                if diff_i > alpha_i: w_i -= 1;  if diff_i < alpha_i: w_i += 1
//!   queue drain: q_i = rtt_i - base_rtt_i; queue_delay_i = min seen (0 = unset);
//!                if q_i >= 2 queue_delay_i: w_i = w_i base_rtt_i / (2 rtt_i), reset queue_delay_i
//! ```
//!
//! Constants are the module defaults: initial_alpha = 2, total_alpha = 10,
//! gamma = 1. As in Linux, `diff` and the window arithmetic are integer
//! (floored), rounds with at most 2 RTT samples fall back to Reno, and outside
//! the Open state (recovery) wVegas is disabled and Reno runs; returning to
//! Open re-enables it with fresh per-round state.
//!
//! Note (kernel behaviour, kept): right after a queue drain `queue_delay` is 0,
//! so the next round with rtt == base_rtt (q = 0) satisfies q >= 2 * 0 and
//! drains again (halves the window).

use super::{ensure, reno_ssthresh, rtt_s, slow_start, CwndAcc, CwndUpdate, SubflowCc};
use crate::time::Nanos;

pub const INITIAL_ALPHA: u32 = 2;
pub const TOTAL_ALPHA: u32 = 10;
pub const GAMMA: u32 = 1;

#[derive(Clone, Copy, Debug, Default)]
struct WvSub {
    init: bool,
    doing: bool,
    beg_snd_nxt: u64,
    cnt_rtt: u32,
    sampled_rtt: Nanos,
    base_rtt: Nanos,
    /// cwnd / rtt in packets per second at the last rate update.
    instant_rate: f64,
    weight: f64,
    alpha: u32,
    queue_delay: Nanos,
    acc: CwndAcc,
}

impl WvSub {
    /// `wvegas_enable`: fresh round, initial alpha and weight.
    fn enable(&mut self, snd_nxt: u64) {
        self.doing = true;
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.sampled_rtt = 0;
        self.instant_rate = 0.0;
        self.alpha = INITIAL_ALPHA;
        self.weight = 1.0;
        self.queue_delay = 0;
    }
}

#[derive(Clone, Debug, Default)]
pub struct WVegas {
    subs: Vec<WvSub>,
}

/// Reno's per-ACK behaviour on one subflow (`tcp_reno_cong_avoid`).
fn reno(s: &SubflowCc, acc: &mut CwndAcc, acked: u32) -> u32 {
    let (mut cwnd, mut left) = (s.cwnd, acked);
    if s.in_slow_start() {
        (cwnd, left) = slow_start(cwnd, s.ssthresh, acked);
    }
    if left > 0 {
        cwnd = acc.apply(cwnd, left as f64 / cwnd as f64);
    }
    cwnd
}

impl WVegas {
    /// State of `me`, initialised on first use (`mptcp_wvegas_init`) with the
    /// round ending at `snd_nxt` (0 when first seen through an RTT sample).
    fn sub(&mut self, me: usize, len: usize, snd_nxt: u64) -> &mut WvSub {
        ensure(&mut self.subs, len.max(me + 1));
        let st = &mut self.subs[me];
        if !st.init {
            st.init = true;
            st.base_rtt = Nanos::MAX;
            st.enable(snd_nxt);
        }
        st
    }

    /// The rate share of `me` among subflows that can send and have RTT
    /// samples in their current round (`mptcp_wvegas_weight`).
    fn weight(&self, me: usize, subflows: &[SubflowCc]) -> f64 {
        let total: f64 = self
            .subs
            .iter()
            .zip(subflows)
            .filter(|(st, s)| s.can_send && st.sampled_rtt > 0)
            .map(|(st, _)| st.instant_rate)
            .sum();
        let st = &self.subs[me];
        if total > 0.0 && st.instant_rate > 0.0 {
            st.instant_rate / total
        } else {
            st.weight
        }
    }

    /// The end-of-round update; returns (cwnd, ssthresh).
    fn round(&mut self, me: usize, subflows: &[SubflowCc], acked: u32) -> (u32, u32) {
        let s = subflows[me];
        let st = self.subs[me];
        if st.cnt_rtt <= 2 {
            let cwnd = reno(&s, &mut self.subs[me].acc, acked);
            return (cwnd, s.ssthresh);
        }
        let rtt = st.sampled_rtt / st.cnt_rtt as u64;
        let base = st.base_rtt;
        let (mut cwnd, mut ssthresh) = (s.cwnd, s.ssthresh);
        let target = (cwnd as u128 * base as u128 / rtt as u128) as u32;
        let diff = (cwnd as u128 * (rtt - base) as u128 / rtt as u128) as u32;
        if diff > GAMMA && cwnd <= ssthresh {
            // Leave slow start towards the expected window.
            cwnd = cwnd.min(target + 1);
            ssthresh = ssthresh.min(cwnd.saturating_sub(1));
        } else if cwnd <= ssthresh {
            cwnd = slow_start(cwnd, ssthresh, acked).0;
        } else {
            if diff >= self.subs[me].alpha {
                self.subs[me].instant_rate = cwnd as f64 / rtt_s(rtt);
                let w = self.weight(me, subflows);
                self.subs[me].weight = w;
                self.subs[me].alpha = 2u32.max((w * TOTAL_ALPHA as f64).floor() as u32);
            }
            let alpha = self.subs[me].alpha;
            if diff > alpha {
                cwnd = cwnd.saturating_sub(1);
                ssthresh = ssthresh.min(cwnd.saturating_sub(1));
            } else if diff < alpha {
                cwnd += 1;
            }
            // Drain the queue so base_rtt can be re-measured.
            let q = rtt - base;
            let st = &mut self.subs[me];
            if st.queue_delay == 0 || st.queue_delay > q {
                st.queue_delay = q;
            }
            if q >= 2 * st.queue_delay {
                cwnd = (cwnd as u128 * base as u128 / (2 * rtt as u128)) as u32;
                st.queue_delay = 0;
            }
        }
        cwnd = cwnd.max(2);
        // tcp_current_ssthresh in the Open state: max(ssthresh, 3/4 cwnd).
        ssthresh = ssthresh.max((cwnd >> 1) + (cwnd >> 2));
        (cwnd, ssthresh)
    }
}

impl WVegas {
    /// `mptcp_wvegas_pkts_acked`: sum and count the samples, keep the minimum.
    pub fn on_rtt_sample(&mut self, me: usize, rtt: Nanos) {
        let st = self.sub(me, me + 1, 0);
        let v = rtt.max(1);
        st.base_rtt = st.base_rtt.min(v);
        st.sampled_rtt += v;
        st.cnt_rtt += 1;
    }

    /// ACK of `acked_pkts` new packets on subflow `me` (cwnd-limited).
    pub fn on_ack(&mut self, me: usize, subflows: &[SubflowCc], acked_pkts: u32) -> CwndUpdate {
        let s = subflows[me];
        let st = self.sub(me, subflows.len(), s.snd_nxt);
        if s.in_recovery {
            st.doing = false;
            let cwnd = reno(&s, &mut st.acc, acked_pkts);
            return CwndUpdate {
                cwnd,
                ssthresh: s.ssthresh,
            };
        }
        if !st.doing {
            st.enable(s.snd_nxt);
        }
        let (mut cwnd, mut ssthresh) = (s.cwnd, s.ssthresh);
        if s.snd_una > st.beg_snd_nxt {
            st.beg_snd_nxt = s.snd_nxt;
            (cwnd, ssthresh) = self.round(me, subflows, acked_pkts);
            let st = &mut self.subs[me];
            st.cnt_rtt = 0;
            st.sampled_rtt = 0;
        } else if cwnd <= ssthresh {
            cwnd = slow_start(cwnd, ssthresh, acked_pkts).0;
        }
        CwndUpdate { cwnd, ssthresh }
    }

    pub fn ssthresh_on_loss(&mut self, me: usize, subflows: &[SubflowCc]) -> u32 {
        let st = self.sub(me, subflows.len(), subflows[me].snd_nxt);
        st.acc = CwndAcc::default();
        reno_ssthresh(subflows[me].cwnd)
    }
}

super::coupled_cc!(WVegas, "wvegas", rtt);

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::time::MS;

    /// One round on subflow `me`: first ACK opens the round at snd_nxt =
    /// `nxt`, then `samples` RTT samples, then an ACK past `nxt`.
    fn round(
        cc: &mut WVegas,
        me: usize,
        s: &mut [SubflowCc],
        nxt: u64,
        samples: &[u64],
    ) -> CwndUpdate {
        s[me].snd_nxt = nxt;
        let u = cc.on_ack(me, s, 1);
        s[me].cwnd = u.cwnd;
        s[me].ssthresh = u.ssthresh;
        for &r in samples {
            cc.on_rtt_sample(me, r * MS);
        }
        s[me].snd_una = nxt + 1;
        s[me].snd_nxt = nxt + 100_000;
        let u = cc.on_ack(me, s, 1);
        s[me].cwnd = u.cwnd;
        s[me].ssthresh = u.ssthresh;
        u
    }

    #[test]
    fn avoidance_increase_then_queue_drain() {
        let mut s = [sf(20, 100)];
        s[0].ssthresh = 10;
        let mut cc = WVegas::default();
        // Round 1: base 100 ms (one sample), mean rtt (100+125+125+150)/4 = 125 ms.
        // diff = floor(20 * 25 / 125) = 4 >= alpha 2 -> rate update, single
        // subflow: weight 1, alpha = max(2, 10) = 10; 4 < 10 -> cwnd 21.
        // q = 25 ms -> queue_delay 25 ms; 25 < 50 no drain.
        // ssthresh = max(10, 10 + 5) = 15.
        let u = round(&mut cc, 0, &mut s, 20_000, &[100, 125, 125, 150]);
        assert_eq!(
            u,
            CwndUpdate {
                cwnd: 21,
                ssthresh: 15
            }
        );
        // Round 2: 3 samples of 150 ms: diff = floor(21 * 50 / 150) = 7 < 10 -> 22;
        // q = 50 ms >= 2 * 25 ms -> drain: floor(22 * 100 / 300) = 7.
        // ssthresh = max(15, 3 + 1) = 15.
        let u = round(&mut cc, 0, &mut s, 200_000, &[150, 150, 150]);
        assert_eq!(
            u,
            CwndUpdate {
                cwnd: 7,
                ssthresh: 15
            }
        );
    }

    #[test]
    fn weight_sets_alpha_and_diff_above_alpha_decreases() {
        let mut s = [sf(20, 100), sf(30, 100)];
        s[0].ssthresh = 10;
        s[1].ssthresh = 10;
        let mut cc = WVegas::default();
        // Subflow 1 has a rate of 240 pkt/s and samples in its current round.
        cc.on_rtt_sample(1, 125 * MS);
        cc.subs[1].instant_rate = 240.0;
        // Subflow 0: rtt 125 ms, base 100 ms -> diff 4 >= 2;
        // rate 20 / 0.125 = 160, weight 160 / 400 = 0.4 -> alpha = max(2, 4) = 4;
        // diff == alpha -> window unchanged at 20; q = 25 ms first -> no drain.
        let u = round(&mut cc, 0, &mut s, 20_000, &[100, 125, 125, 150]);
        assert_eq!(u.cwnd, 20);
        assert_eq!(cc.subs[0].alpha, 4);
        // Next round at 150 ms: diff = floor(20 * 50 / 150) = 6 >= 4 ->
        // rate 20/0.15 = 133.3, weight 133.3/373.3 = 0.357 -> alpha 3; 6 > 3 -> 19,
        // then q = 50 >= 2 * 25 -> drain floor(19 * 100 / 300) = 6.
        let u = round(&mut cc, 0, &mut s, 200_000, &[150, 150, 150]);
        assert_eq!(cc.subs[0].alpha, 3);
        assert_eq!(u.cwnd, 6);
    }

    #[test]
    fn slow_start_exit_on_diff_above_gamma() {
        let mut s = [sf(20, 100)];
        s[0].ssthresh = u32::MAX;
        let mut cc = WVegas::default();
        // The opening ACK slow-starts 20 -> 21. At the round end diff =
        // floor(21 * 25 / 125) = 4 > gamma 1 in slow start: target =
        // floor(21 * 100 / 125) = 16, cwnd = min(21, 17) = 17,
        // ssthresh = min(inf, 16) = 16, then max(16, 8 + 4) = 16.
        let u = round(&mut cc, 0, &mut s, 20_000, &[100, 125, 125, 150]);
        assert_eq!(
            u,
            CwndUpdate {
                cwnd: 17,
                ssthresh: 16
            }
        );
    }

    #[test]
    fn few_samples_or_recovery_is_reno() {
        let mut s = [sf(10, 100)];
        s[0].ssthresh = 5;
        let mut cc = WVegas::default();
        // Only 2 samples in the round -> Reno: +1/10.
        round(&mut cc, 0, &mut s, 10_000, &[100, 100]);
        assert!(close(cc.subs[0].acc.frac, 0.1));
        s[0].in_recovery = true;
        let _ = cc.on_ack(0, &s, 1);
        assert!(!cc.subs[0].doing);
        assert_eq!(cc.ssthresh_on_loss(0, &s), 5);
    }
}
