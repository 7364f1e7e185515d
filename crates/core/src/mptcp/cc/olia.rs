//! OLIA, the Opportunistic Linked Increases Algorithm (Khalili, Gast,
//! Popovic, Le Boudec, "MPTCP is not Pareto-optimal: performance issues and a
//! possible solution", CoNEXT 2012 / IEEE/ACM ToN 2013; Linux `mptcp_olia.c`).
//!
//! Per ACK on path r, in congestion avoidance (ToN 2013 eq. (5); the increase
//! that `mptcp_olia_cong_avoid` implements):
//!
//! ```text
//!            w_r / rtt_r^2             alpha_r
//!   dw_r = ----------------------  +  --------
//!          (sum_p w_p / rtt_p)^2         w_r
//! ```
//!
//! with the sets (paper section V; `mptcp_get_epsilon`):
//! - l_r = max(l1_r, l2_r): l1_r bytes acked between the last two losses,
//!   l2_r bytes acked since the last loss on r;
//! - B: the presumably best paths, maximal l_r / rtt_r^2 as compared in
//!   `mptcp_get_epsilon` (equivalently, maximal estimated TCP rate
//!   sqrt(l_r)/rtt_r, since l_r ~ 1/loss probability);
//! - M: the paths with the largest window;
//! - alpha_r = 1/(|R| |B\M|) for r in B\M, -1/(|R| |M|) for r in M when B\M is
//!   not empty, 0 otherwise (|R| = number of established paths).
//!
//! Loss: Reno halving. Slow start: Reno. Paths in fast recovery count with
//! ssthresh instead of the inflated cwnd in the sums, M and B
//! (`mptcp_get_crt_cwnd`), while w_r of the own path is its cwnd, as in Linux.

use super::{ensure, reno_ssthresh, rtt_s, slow_start, CwndAcc, CwndUpdate, SubflowCc};

/// Window used for the sets and the sum (`mptcp_get_crt_cwnd`).
fn crt_cwnd(s: &SubflowCc) -> u32 {
    if s.in_recovery {
        s.ssthresh
    } else {
        s.cwnd
    }
}

/// OLIA's alpha_r for every subflow (0 for subflows outside the coupling),
/// given the inter-loss distance l_r in bytes of every subflow.
pub fn alphas(subflows: &[SubflowCc], l: &[u64]) -> Vec<f64> {
    let idx: Vec<usize> = (0..subflows.len())
        .filter(|&i| subflows[i].coupled())
        .collect();
    let mut a = vec![0.0; subflows.len()];
    if idx.is_empty() {
        return a;
    }
    let n_paths = subflows.iter().filter(|s| s.can_send).count() as f64;
    let max_w = idx.iter().map(|&i| crt_cwnd(&subflows[i])).max().unwrap();
    // Best l/rtt^2, compared exactly as integers: l_i * rtt_j^2 vs l_j * rtt_i^2.
    let key = |i: usize| {
        (
            l[i] as u128,
            (subflows[i].srtt as u128) * (subflows[i].srtt as u128),
        )
    };
    let better_or_eq = |i: usize, j: usize| {
        let ((li, ri), (lj, rj)) = (key(i), key(j));
        li * rj >= lj * ri
    };
    let mut best = idx[0];
    for &i in &idx[1..] {
        if better_or_eq(i, best) {
            best = i;
        }
    }
    let in_b = |i: usize| {
        let ((li, ri), (lb, rb)) = (key(i), key(best));
        li * rb == lb * ri
    };
    let in_m = |i: usize| crt_cwnd(&subflows[i]) == max_w;
    let m = idx.iter().filter(|&&i| in_m(i)).count() as f64;
    let b_not_m = idx.iter().filter(|&&i| !in_m(i) && in_b(i)).count() as f64;
    if b_not_m == 0.0 {
        return a;
    }
    for &i in &idx {
        if !in_m(i) && in_b(i) {
            a[i] = 1.0 / (n_paths * b_not_m);
        } else if in_m(i) {
            a[i] = -1.0 / (n_paths * m);
        }
    }
    a
}

/// The per-ACK increase (packets, may be negative) of subflow `me`, given the
/// inter-loss distances `l` of all subflows.
pub fn increase_with(me: usize, subflows: &[SubflowCc], l: &[u64]) -> f64 {
    let s = &subflows[me];
    let w = s.cwnd.max(1) as f64;
    if !s.coupled() {
        return 1.0 / w;
    }
    let sum: f64 = subflows
        .iter()
        .filter(|p| p.coupled())
        .map(|p| crt_cwnd(p) as f64 / rtt_s(p.srtt))
        .sum();
    let r = rtt_s(s.srtt);
    (w / (r * r)) / (sum * sum) + alphas(subflows, l)[me] / w
}

/// Per-subflow OLIA state: the `snd_una` at the last two losses
/// (`mptcp_loss1`, `mptcp_loss2`); the third point is the current `snd_una`.
#[derive(Clone, Copy, Debug, Default)]
struct OliaSub {
    init: bool,
    loss1: u64,
    loss2: u64,
    acc: CwndAcc,
}

#[derive(Clone, Debug, Default)]
pub struct Olia {
    subs: Vec<OliaSub>,
}

impl Olia {
    fn sync(&mut self, subflows: &[SubflowCc]) {
        ensure(&mut self.subs, subflows.len());
        for (st, s) in self.subs.iter_mut().zip(subflows) {
            if !st.init {
                // `mptcp_olia_init`: all three marks at snd_una.
                st.init = true;
                st.loss1 = s.snd_una;
                st.loss2 = s.snd_una;
            }
        }
    }

    /// l_r = max(l2_r, l1_r) for every subflow (`mptcp_get_epsilon`).
    pub fn inter_loss(&mut self, subflows: &[SubflowCc]) -> Vec<u64> {
        self.sync(subflows);
        self.subs
            .iter()
            .zip(subflows)
            .map(|(st, s)| s.snd_una.saturating_sub(st.loss2).max(st.loss2 - st.loss1))
            .collect()
    }

    pub fn increase_per_ack(&mut self, me: usize, subflows: &[SubflowCc]) -> f64 {
        let l = self.inter_loss(subflows);
        increase_with(me, subflows, &l)
    }
}

impl Olia {
    /// ACK of `acked_pkts` new packets on subflow `me` (cwnd-limited).
    pub fn on_ack(&mut self, me: usize, subflows: &[SubflowCc], acked_pkts: u32) -> CwndUpdate {
        self.sync(subflows);
        let s = subflows[me];
        let (mut cwnd, mut left) = (s.cwnd, acked_pkts);
        if s.in_slow_start() {
            (cwnd, left) = slow_start(cwnd, s.ssthresh, acked_pkts);
        }
        if left > 0 {
            let mut snap = subflows.to_vec();
            snap[me].cwnd = cwnd;
            let inc = self.increase_per_ack(me, &snap) * left as f64;
            cwnd = self.subs[me].acc.apply(cwnd, inc);
        }
        CwndUpdate {
            cwnd,
            ssthresh: s.ssthresh,
        }
    }

    /// Reno halving; the loss marks shift (`mptcp_olia_set_state`) unless no
    /// byte was acked since the previous loss. Call once per congestion event.
    pub fn ssthresh_on_loss(&mut self, me: usize, subflows: &[SubflowCc]) -> u32 {
        self.sync(subflows);
        let st = &mut self.subs[me];
        let loss3 = subflows[me].snd_una;
        if loss3 != st.loss2 {
            st.loss1 = st.loss2;
            st.loss2 = loss3;
        }
        st.acc = CwndAcc::default();
        reno_ssthresh(subflows[me].cwnd)
    }
}

super::coupled_cc!(Olia, "olia");

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn hand_computed_best_path_not_max_window() {
        // s0: w 10 @ 10 ms, s1: w 20 @ 20 ms, l = 100000 B on both.
        // l/rtt^2: 1e5/1e-4 = 1e9 (s0) > 1e5/4e-4 = 2.5e8 (s1) -> B = {s0}
        // M = {s1} (w 20), B\M = {s0}, |R| = 2
        // alpha_0 = 1/(2*1) = 0.5, alpha_1 = -1/(2*1) = -0.5
        // sum w/rtt = 10/0.01 + 20/0.02 = 2000, squared 4e6
        // dw_0 = (10/1e-4)/4e6 + 0.5/10 = 0.025 + 0.05 = 0.075
        // dw_1 = (20/4e-4)/4e6 - 0.5/20 = 0.0125 - 0.025 = -0.0125
        let s = [sf(10, 10), sf(20, 20)];
        let l = [100_000, 100_000];
        let a = alphas(&s, &l);
        assert!(close(a[0], 0.5) && close(a[1], -0.5));
        assert!(close(increase_with(0, &s, &l), 0.075));
        assert!(close(increase_with(1, &s, &l), -0.0125));
    }

    #[test]
    fn best_path_with_max_window_gets_no_alpha() {
        // s1 has both the best l/rtt^2 and the max window: B\M empty -> alpha 0.
        let s = [sf(10, 10), sf(20, 10)];
        let l = [1000, 5000];
        assert_eq!(alphas(&s, &l), vec![0.0, 0.0]);
        // dw_0 = (10/1e-4) / (1000+2000)^2 = 1e5/9e6 = 1/90
        assert!(close(increase_with(0, &s, &l), 1.0 / 90.0));
    }

    #[test]
    fn recovery_counts_ssthresh_and_negative_increase_shrinks_window() {
        let mut s = [sf(10, 10), sf(20, 20)];
        // s1 in recovery with ssthresh 8: crt windows 10, 8 -> M = {s0};
        // l/rtt^2 best is s0 too -> B\M empty -> alphas 0.
        s[1].in_recovery = true;
        s[1].ssthresh = 8;
        assert_eq!(alphas(&s, &[100_000, 100_000]), vec![0.0, 0.0]);

        // Negative increase: s1 from the first test loses a packet after
        // 1/0.0125 = 80 ACKs.
        let s = [sf(10, 10), sf(20, 20)];
        let mut cc = Olia::default();
        let mut snap = s;
        snap[0].snd_una = 0;
        snap[1].snd_una = 0;
        cc.sync(&snap);
        // give both paths l = 100000 B since the (virtual) start
        snap[0].snd_una = 100_000;
        snap[1].snd_una = 100_000;
        let mut w = 20;
        for _ in 0..80 {
            snap[1].cwnd = w;
            w = cc.on_ack(1, &snap, 1).cwnd;
        }
        assert_eq!(w, 19);
    }

    #[test]
    fn loss_marks_shift_like_the_kernel() {
        let mut s = [sf(10, 10)];
        let mut cc = Olia::default();
        s[0].snd_una = 1000;
        cc.sync(&s);
        s[0].snd_una = 51_000;
        assert_eq!(cc.inter_loss(&s), vec![50_000]);
        assert_eq!(cc.ssthresh_on_loss(0, &s), 5); // loss1=1000, loss2=51000
        s[0].snd_una = 61_000; // l2 = 10000 < l1 = 50000
        assert_eq!(cc.inter_loss(&s), vec![50_000]);
        cc.ssthresh_on_loss(0, &s); // loss1=51000, loss2=61000
        s[0].snd_una = 62_000;
        assert_eq!(cc.inter_loss(&s), vec![10_000]);
    }
}
