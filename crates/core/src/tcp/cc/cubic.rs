//! CUBIC per RFC 9438, computed in floating point on packet units
//! (`transport.cubic = "rfc9438"`). The default is Linux's CUBIC, modelled
//! separately in cubic_linux.rs.
//!
//! Differences from Linux tcp_cubic.c (kept deliberately RFC-exact here):
//! - Linux uses fixed point (beta = 717/1024, cube_factor, BICTCP_HZ) and
//!   measures the target at t + delay_min (minimum RTT) where RFC 9438 4.2
//!   uses t + RTT (we use SRTT).
//! - Linux's Reno-friendly estimate (bictcp_update `tcp_friendliness`) grows by
//!   one packet per cwnd * beta_scale / 8 = 1.875 cwnd acked (about
//!   3(1-beta)/(1+beta) = 0.53 per RTT) and never switches alpha to 1.
//! - Linux recomputes its increase at most once per jiffy and, with cwnd
//!   unchanged, every HZ/32; this variant on every ACK.
//! - Undo restores W_max, K, the epoch and W_est (RFC 9438 4.9); Linux only
//!   restores cwnd (tcp_reno_undo_cwnd).
//! - Slow-start exit: `TcpConfig::hystart` picks Linux HyStart (ACK train /
//!   delay increase, hystart_linux.rs, with delay_min kept as
//!   cubictcp_acked does), RFC 9406 HyStart++ (hystart.rs) or none. The
//!   default is Linux HyStart, as for the Linux variant.
//! - Like Linux (cubictcp_cwnd_event), the epoch is shifted by idle periods
//!   (CA_EVENT_TX_START), so an app-limited pause does not count as growth time.

use super::{
    slow_start, CaState, CcState, CongestionControl, CwndEvent, HyStartMode, HyStartPP,
    LinuxHyStart, PathView,
};
use crate::time::{Nanos, SEC};

/// RFC 9438 4.6: beta_cubic = 0.7.
pub const BETA_CUBIC: f64 = 0.7;
/// RFC 9438 5: C = 0.4.
pub const C_CUBIC: f64 = 0.4;

#[derive(Clone, Debug)]
pub struct Cubic {
    /// RFC 9438 4.7: fast convergence (Linux fast_convergence = 1).
    pub fast_convergence: bool,
    /// W_max in packets (0 before the first congestion event).
    pub w_max: f64,
    /// K in seconds.
    pub k: f64,
    /// Start of the current congestion-avoidance stage.
    pub epoch_start: Option<Nanos>,
    pub cwnd_epoch: f64,
    /// Reno-friendly estimate W_est (RFC 9438 4.3).
    pub w_est: f64,
    /// Fractional cwnd increase not yet applied.
    frac: f64,
    /// HyStart++ (RFC 9406) state; inactive unless enabled.
    pub hystart: HyStartPP,
    /// Linux HyStart; inactive unless enabled.
    pub linux_hystart: LinuxHyStart,
    /// Minimum RTT in us for Linux HyStart (cubictcp_acked's delay_min).
    pub delay_min_us: u32,
    /// State before the last reduction, for undo (RFC 9438 4.9).
    saved: Option<(f64, f64, Option<Nanos>, f64, f64)>,
}

impl Default for Cubic {
    fn default() -> Self {
        Self::new()
    }
}

impl Cubic {
    pub fn new() -> Self {
        Cubic {
            fast_convergence: true,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            frac: 0.0,
            hystart: HyStartPP::default(),
            linux_hystart: LinuxHyStart::new(false),
            delay_min_us: 0,
            saved: None,
        }
    }

    /// With the given slow-start exit.
    pub fn with_hystart(mode: HyStartMode) -> Self {
        let mut c = Self::new();
        c.hystart.active = mode == HyStartMode::HyStartPP;
        c.linux_hystart.enabled = mode == HyStartMode::Linux;
        c
    }

    /// RFC 9438 (1): W_cubic(t) = C*(t-K)^3 + W_max.
    pub fn w_cubic(&self, t: f64) -> f64 {
        C_CUBIC * (t - self.k).powi(3) + self.w_max
    }

    fn reset(&mut self) {
        self.epoch_start = None;
        self.frac = 0.0;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// Linux `cubictcp`: `init`, `pkts_acked`, `set_state`, `cwnd_event`
    /// (and `undo_cwnd`, always called).
    fn hooks(&self) -> super::Hooks {
        super::Hooks::ALL
    }

    fn ssthresh(&mut self, s: &CcState, _paths: &[PathView], _now: Nanos) -> u32 {
        self.hystart.stop();
        self.saved = Some((
            self.w_max,
            self.k,
            self.epoch_start,
            self.cwnd_epoch,
            self.w_est,
        ));
        let cwnd = s.cwnd as f64;
        // RFC 9438 4.7: fast convergence: if cwnd < W_max, W_max = cwnd*(1+beta)/2.
        if self.fast_convergence && cwnd < self.w_max {
            self.w_max = cwnd * (1.0 + BETA_CUBIC) / 2.0;
        } else {
            // RFC 9438 4.6: W_max = cwnd at the congestion event.
            self.w_max = cwnd;
        }
        self.reset();
        // RFC 9438 4.6: ssthresh = cwnd * beta_cubic (RFC says flight size;
        // Linux uses cwnd), at least 2 (RFC 9438 4.6 / RFC 5681).
        ((cwnd * BETA_CUBIC) as u32).max(2)
    }

    fn cong_avoid(&mut self, s: &mut CcState, _paths: &[PathView], acked: u32, now: Nanos) {
        let mut acked = acked;
        if self.hystart.active && s.in_slow_start() {
            // RFC 9406 HyStart++ replaces standard slow start growth.
            self.hystart.slow_start(s, acked);
            return;
        }
        // RFC 9438 4.10: slow start below ssthresh (RFC 5681).
        if s.in_slow_start() {
            acked = slow_start(s, acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = s.cwnd as f64;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                // RFC 9438 4.2 eq. (2): K = cubic_root((W_max - cwnd_epoch)/C);
                // also start W_est at cwnd_epoch (4.3).
                self.epoch_start = Some(now);
                self.cwnd_epoch = cwnd;
                self.w_est = cwnd;
                self.frac = 0.0;
                if self.w_max == 0.0 {
                    // No congestion event yet (slow start ended at a configured
                    // ssthresh): treat the current window as W_max.
                    self.w_max = cwnd;
                }
                self.k = ((self.w_max - self.cwnd_epoch) / C_CUBIC).cbrt();
                now
            }
        };
        let t = (now - epoch) as f64 / SEC as f64;
        let rtt = s.srtt as f64 / SEC as f64;

        // RFC 9438 4.3 eq. (4): W_est += alpha_cubic * segments_acked / cwnd, with
        // alpha_cubic = 3(1-beta)/(1+beta), and 1 once W_est >= W_max.
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC)
        };
        self.w_est += alpha * acked as f64 / cwnd;

        if self.w_cubic(t) < self.w_est {
            // RFC 9438 4.3: Reno-friendly region: cwnd = W_est.
            let w = self.w_est.floor() as u32;
            if w > s.cwnd {
                s.cwnd = w;
            }
            return;
        }
        // RFC 9438 4.2 eq. (3): target = W_cubic(t + RTT) clamped to [cwnd, 1.5*cwnd].
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        // RFC 9438 4.4 (concave, cwnd < W_max) and 4.5 (convex): cwnd grows by
        // (target - cwnd)/cwnd per acked segment.
        self.frac += acked as f64 * (target - cwnd) / cwnd;
        if self.frac >= 1.0 {
            let inc = self.frac.floor();
            self.frac -= inc;
            s.cwnd += inc as u32;
        }
    }

    /// RFC 9438 4.9: after a spurious congestion event, restore the state
    /// saved before it (W_max, K, epoch, W_est) and cwnd.
    fn undo_cwnd(&mut self, s: &CcState, prior_cwnd: u32) -> u32 {
        if let Some((w_max, k, epoch, cwnd_epoch, w_est)) = self.saved.take() {
            self.w_max = w_max;
            self.k = k;
            self.epoch_start = epoch;
            self.cwnd_epoch = cwnd_epoch;
            self.w_est = w_est;
        }
        s.cwnd.max(prior_cwnd)
    }

    fn cwnd_event(&mut self, _s: &mut CcState, ev: CwndEvent, now: Nanos) {
        // Linux cubictcp_cwnd_event: shift the epoch by the idle time.
        if let (CwndEvent::TxStart { idle }, Some(e)) = (ev, self.epoch_start) {
            self.epoch_start = Some((e + idle).min(now));
        }
    }

    fn init(&mut self, s: &mut CcState, now: Nanos) {
        if self.linux_hystart.enabled {
            self.linux_hystart.reset_round(s, now);
        }
    }

    fn pkts_acked(&mut self, s: &mut CcState, _acked: u32, rtt: Option<Nanos>, now: Nanos) {
        self.hystart.on_ack(s, rtt);
        if !self.linux_hystart.enabled {
            return;
        }
        // Linux cubictcp_acked: delay_min, ignoring samples for 1 s after an
        // epoch start, then hystart_update.
        let Some(rtt) = rtt else { return };
        if self
            .epoch_start
            .is_some_and(|e| now.saturating_sub(e) < SEC)
        {
            return;
        }
        let delay = ((rtt / 1000).min(u32::MAX as u64) as u32).max(1);
        if self.delay_min_us == 0 || self.delay_min_us > delay {
            self.delay_min_us = delay;
        }
        self.linux_hystart
            .on_sample(s, delay, self.delay_min_us, now);
    }

    fn set_state(&mut self, s: &mut CcState, new: CaState, now: Nanos) {
        // Linux cubictcp_state: reset the epoch on RTO (RFC 9438 4.8); Linux
        // HyStart starts over (bictcp_reset / bictcp_hystart_reset).
        if new == CaState::Loss {
            self.reset();
            self.hystart.stop();
            self.delay_min_us = 0;
            self.linux_hystart.clear_found();
            if self.linux_hystart.enabled {
                self.linux_hystart.reset_round(s, now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_state;
    use super::*;
    use crate::time::MS;

    #[test]
    fn reduction_and_fast_convergence() {
        let mut c = Cubic::new();
        let s = test_state(100, 50);
        let v = [PathView::of(&s)];
        // first event: W_max = 100, ssthresh = 100*0.7 = 70
        assert_eq!(c.ssthresh(&s, &v, 0), 70);
        assert_eq!(c.w_max, 100.0);
        // second event below W_max: W_max = 80*(1.7)/2 = 68, ssthresh = 56
        let s = test_state(80, 70);
        assert_eq!(c.ssthresh(&s, &v, 0), 56);
        assert!((c.w_max - 68.0).abs() < 1e-9);
    }

    #[test]
    fn concave_growth_matches_hand_computation() {
        let mut c = Cubic::new();
        let mut s = test_state(100, 50);
        let v = [PathView::of(&s)];
        let ss = c.ssthresh(&s, &v, 0); // W_max = 100
        s.cwnd = ss; // 70
        s.ssthresh = ss;
        // epoch starts at t0 = 10 s: K = cbrt((100-70)/0.4) = cbrt(75) = 4.21716 s
        let t0 = 10_000 * MS;
        c.cong_avoid(&mut s, &v, 1, t0);
        assert!((c.k - 4.217163).abs() < 1e-5);
        // t = 0: W_est = 70 + 0.52941/70 = 70.0076 > W_cubic(0) = 70: Reno-friendly, cwnd stays 70
        assert_eq!(s.cwnd, 70);
        // t = 1 s, RTT 40 ms: W_cubic(1) = 0.4*(1-4.21716)^3 + 100 = 86.68 > W_est (70.015):
        // target = W_cubic(1.04) = 0.4*(-3.17716)^3 + 100 = 0.4*(-32.0716) + 100 = 87.171
        // per acked segment: (87.171-70)/70 = 0.24530; 5 segments: 1.2265 -> cwnd 71
        c.cong_avoid(&mut s, &v, 5, t0 + 1000 * MS);
        assert_eq!(s.cwnd, 71);
        assert!((c.frac - 0.2265).abs() < 1e-3, "frac {}", c.frac);
    }

    #[test]
    fn convex_growth_is_capped_at_1_5_cwnd() {
        let mut c = Cubic::new();
        let mut s = test_state(100, 50);
        let v = [PathView::of(&s)];
        s.cwnd = c.ssthresh(&s, &v, 0);
        s.ssthresh = s.cwnd;
        c.cong_avoid(&mut s, &v, 1, 0);
        // t = 10 s: W_cubic(10.04) = 0.4*(5.8228)^3 + 100 = 0.4*197.42 + 100 = 178.97
        // clamp to 1.5*70 = 105: +(105-70)/70 = 0.5 per segment; 4 segments -> +2
        c.cong_avoid(&mut s, &v, 4, 10_000 * MS);
        assert_eq!(s.cwnd, 72);
    }

    #[test]
    fn reno_friendly_region_follows_w_est() {
        // Small W_max and long RTT region: W_max = 10, cwnd_epoch = 7,
        // K = cbrt(3/0.4) = 1.957 s. At t = 0.5 s W_cubic = 0.4*(-1.457)^3 + 10 = 8.763.
        let mut c = Cubic::new();
        let mut s = test_state(10, 50);
        let v = [PathView::of(&s)];
        s.cwnd = c.ssthresh(&s, &v, 0);
        s.ssthresh = s.cwnd;
        c.cong_avoid(&mut s, &v, 1, 0); // W_est = 7 + 0.5294/7 = 7.0756
                                        // 30 segments acked: W_est += 0.52941*30/7 = 2.2689 -> 9.3445 > 8.763: cwnd = 9
        c.cong_avoid(&mut s, &v, 30, 500 * MS);
        assert_eq!(s.cwnd, 9);
        assert!((c.w_est - 9.3445).abs() < 1e-3, "{}", c.w_est);
    }
}
