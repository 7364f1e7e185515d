//! BALIA, the Balanced Linked Adaptation algorithm (Peng, Walid, Hwang, Low,
//! "Multipath TCP: analysis, design and implementation", IEEE/ACM ToN 2016;
//! draft-walid-mptcp-congestion-control-04 section 3; Linux `mptcp_balia.c`).
//!
//! With x_k = w_k / tau_k (rate in packets per second, tau = RTT) and
//! alpha_r = max_k x_k / x_r:
//!
//! ```text
//!   per ACK on r:  w_r += x_r / (tau_r (sum_k x_k)^2) * (1 + alpha_r)/2 * (4 + alpha_r)/5
//!   per loss on r: w_r -= w_r / 2 * min(alpha_r, 1.5)
//! ```
//!
//! With a single path alpha = 1 and both reduce to Reno (+1/w, -w/2); Linux
//! then uses `tcp_reno_ssthresh` and so do we. The decrease is rounded like
//! `mptcp_balia_recalc_ai`: md = floor(floor(w/2) * min(alpha, 1.5)),
//! ssthresh = max(w - md, 1); Linux truncates alpha to an integer first
//! (`div64_u64(max_rate, rate)`), we keep the real alpha of the draft.

use super::{ensure, linked_increase, reno_ssthresh, rtt_s, CwndAcc, CwndUpdate, SubflowCc};

/// (x_r, sum_k x_k, max_k x_k) over the coupled subflows, x in packets/s.
fn rates(me: usize, subflows: &[SubflowCc]) -> (f64, f64, f64) {
    let x = |s: &SubflowCc| s.cwnd as f64 / rtt_s(s.srtt);
    let (mut sum, mut max) = (0.0, 0.0f64);
    for s in subflows.iter().filter(|s| s.coupled()) {
        sum += x(s);
        max = max.max(x(s));
    }
    (x(&subflows[me]), sum, max)
}

/// alpha_r = max_k x_k / x_r.
pub fn alpha(me: usize, subflows: &[SubflowCc]) -> f64 {
    let (xr, _, max) = rates(me, subflows);
    max / xr
}

/// Per-ACK increase of w_me in packets.
pub fn increase_per_ack(me: usize, subflows: &[SubflowCc]) -> f64 {
    let s = &subflows[me];
    if !s.coupled() {
        return 1.0 / s.cwnd.max(1) as f64;
    }
    let (xr, sum, max) = rates(me, subflows);
    let a = max / xr;
    xr / (rtt_s(s.srtt) * sum * sum) * ((1.0 + a) / 2.0) * ((4.0 + a) / 5.0)
}

/// ssthresh after a loss on `me`.
pub fn ssthresh(me: usize, subflows: &[SubflowCc]) -> u32 {
    let s = &subflows[me];
    if !s.coupled() || subflows.iter().filter(|s| s.coupled()).count() <= 1 {
        return reno_ssthresh(s.cwnd);
    }
    let md = ((s.cwnd / 2) as f64 * alpha(me, subflows).min(1.5)).floor() as u32;
    s.cwnd.saturating_sub(md).max(1)
}

#[derive(Clone, Debug, Default)]
pub struct Balia {
    acc: Vec<CwndAcc>,
}

impl Balia {
    /// ACK of `acked_pkts` new packets on subflow `me` (cwnd-limited).
    pub fn on_ack(&mut self, me: usize, subflows: &[SubflowCc], acked_pkts: u32) -> CwndUpdate {
        ensure(&mut self.acc, subflows.len());
        linked_increase(
            &mut self.acc[me],
            me,
            subflows,
            acked_pkts,
            increase_per_ack,
        )
    }

    pub fn ssthresh_on_loss(&mut self, me: usize, subflows: &[SubflowCc]) -> u32 {
        ensure(&mut self.acc, subflows.len());
        self.acc[me] = CwndAcc::default();
        ssthresh(me, subflows)
    }
}

super::coupled_cc!(Balia, "balia");

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn hand_computed_two_paths() {
        // s0: w 10 @ 10 ms -> x0 = 1000 pkt/s; s1: w 10 @ 20 ms -> x1 = 500
        // sum = 1500, squared 2.25e6
        // s0: alpha = 1;  inc = 1000 / (0.01 * 2.25e6) * 1 * 1 = 2/45
        // s1: alpha = 2;  inc = 500 / (0.02 * 2.25e6) * 1.5 * 1.2 = (1/90) * 1.8 = 0.02
        let s = [sf(10, 10), sf(10, 20)];
        assert!(close(alpha(1, &s), 2.0));
        assert!(close(increase_per_ack(0, &s), 2.0 / 45.0));
        assert!(close(increase_per_ack(1, &s), 0.02));
        // decrease: s0 md = 5 * 1 = 5 -> 5; s1 md = floor(5 * 1.5) = 7 -> 3
        assert_eq!(ssthresh(0, &s), 5);
        assert_eq!(ssthresh(1, &s), 3);
    }

    #[test]
    fn equal_paths_quarter_increase() {
        // alpha = 1: inc = x / (tau * 4 x^2) = 1 / (4 w)
        let s = [sf(12, 30), sf(12, 30)];
        assert!(close(increase_per_ack(0, &s), 1.0 / 48.0));
        assert_eq!(ssthresh(0, &s), 6);
    }
}
