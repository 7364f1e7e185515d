//! CUBIC as Linux computes it: net/ipv4/tcp_cubic.c of Linux 6.17 (upstream;
//! the CUBIC arithmetic has been the same since 4.13, see below), with the
//! helpers of net/ipv4/tcp_cong.c (`tcp_slow_start`, `tcp_cong_avoid_ai`,
//! `tcp_reno_undo_cwnd`). Written from the kernel source in Rust, not copied.
//!
//! - Fixed point as the kernel: beta = 717/1024 (BICTCP_BETA_SCALE),
//!   C = bic_scale/1024 = 41/1024, time in 1/1024 s (BICTCP_HZ = 10),
//!   `cube_rtt_scale` = 410, `cube_factor` = 2^40/410, `beta_scale` = 15,
//!   and the kernel's table-plus-one-Newton-step `cubic_root`.
//! - Time: the epoch, `last_time` and the once-per-jiffy / HZ/32 limits use
//!   jiffies (`tcp_jiffies32`) at the modelled CONFIG_HZ and phase
//!   (`TcpConfig::jiffy_clock`, scenario keys `transport.hz` and
//!   `transport.hz_phase_us`; default 1000 as CONFIG_HZ_1000: Fedora/RHEL,
//!   Ubuntu since 24.04; Debian and older Ubuntu use 250). RTT samples,
//!   delay_min and HyStart use microseconds (`sample->rtt_us`, tcp_mstamp).
//!   The cubic target is taken at t + delay_min (`usecs_to_jiffies`, rounded
//!   up), not t + SRTT.
//! - Growth goes through `cnt`: cwnd += 1 per `cnt` acked packets via
//!   `tcp_cong_avoid_ai` and `snd_cwnd_cnt` (CcState::cwnd_cnt); the leftover
//!   of `tcp_slow_start` is carried into congestion avoidance on the same ACK.
//! - Reno-friendliness (`tcp_friendliness`): tcp_cwnd += 1 per
//!   cwnd * beta_scale / 8 = 1.875 cwnd packets acked (0.53 packets per RTT,
//!   3(1-beta)/(1+beta) with the kernel's rounding), never switching to 1.
//! - cnt >= 2 (at most +1 per 2 packets acked, 1.5x per RTT); before the
//!   first loss (last_max_cwnd = 0) cnt <= 20 (at least +5 % per RTT).
//! - HyStart: Linux's (hystart_linux.rs) by default; HyStart++ (hystart.rs)
//!   or none by configuration.
//! - undo: `tcp_reno_undo_cwnd` (max(cwnd, prior_cwnd)); CUBIC's own state
//!   (W_max, epoch) is not restored, as upstream since 4.13.
//!
//! Older kernels of 2014-2018 papers (3.x/4.x) differ: before 4.1 the update
//! counted ACKs (not acked packets) and scaled cnt by a delayed-ACK ratio;
//! before 4.5 there was no idle shift of the epoch (CA_EVENT_TX_START) and no
//! cnt >= 2 cap (instead `max_increment` = 16 per RTT via delay_min in
//! early 3.x); `bictcp_undo_cwnd` restored max(cwnd, last_max_cwnd) and a
//! `loss_cwnd` until 4.13; HyStart differences are listed in hystart_linux.rs.
//! Patches proposed in 2024 (update at least once per RTT when RTT < HZ/32,
//! RFC 9438 Reno increment) are not in 6.17 and not modelled.

use super::{
    slow_start, CaState, CcState, CongestionControl, CwndEvent, HyStartMode, HyStartPP,
    LinuxHyStart, PathView,
};
use crate::time::Nanos;

/// CONFIG_HZ assumed when none is given (`CubicLinux::new`).
pub const HZ: u32 = 1000;
/// BICTCP_BETA_SCALE.
pub const BETA_SCALE_FP: u32 = 1024;
/// BICTCP_HZ: the cubic function's time unit is 2^-10 s.
pub const BICTCP_HZ: u32 = 10;
/// Module parameter `beta` = 717 (0.7 * 1024).
pub const BETA: u32 = 717;
/// Module parameter `bic_scale` = 41 (C = 0.4 ~ 41/1024 * 10).
pub const BIC_SCALE: u32 = 41;
/// cubictcp_register: beta_scale = 8*(1024+beta)/3/(1024-beta) = 15.
pub const BETA_SCALE: u32 = 8 * (BETA_SCALE_FP + BETA) / 3 / (BETA_SCALE_FP - BETA);
/// cubictcp_register: cube_rtt_scale = bic_scale * 10 = 410.
pub const CUBE_RTT_SCALE: u32 = BIC_SCALE * 10;
/// cubictcp_register: cube_factor = 2^(10+3*BICTCP_HZ) / (bic_scale * 10).
pub const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE as u64 * 10);

/// tcp_jiffies32 at simulation time `now` (u32, wrapping like the kernel's),
/// on the same jiffy clock as the timer wheel (`timer_wheel::jiffy`: SEC /
/// hz ns, 3,333,333 ns at HZ = 300).
pub fn jiffies(now: Nanos, hz: u32) -> u32 {
    crate::tcp::timer_wheel::per_jiffy(now, hz) as u32
}

/// usecs_to_jiffies (include/linux/jiffies.h, `_usecs_to_jiffies` /
/// the USEC_TO_HZ_MUL32 path): rounds up, ceil(us * HZ / 10^6).
pub fn usecs_to_jiffies(us: u32, hz: u32) -> u32 {
    (us as u64 * hz as u64).div_ceil(1_000_000) as u32
}

/// `cubic_root` of tcp_cubic.c: a 64-entry table of cbrt(x << 18) - 1
/// (values tuned by hand upstream, Willy Tarreau) for the top bits, then one
/// Newton-Raphson step; average error ~0.2 %.
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    // fls64: index of the highest set bit, 1-based (0 for 0).
    let bits = 64 - a.leading_zeros();
    if bits < 7 {
        // a < 64: table only.
        return (V[a as usize] as u32 + 35) >> 6;
    }
    // b ~ bits/3 - 1 (84/256 ~ 1/3); the top 6 bits index the table.
    let b = ((bits * 84) >> 8) - 1;
    let top = (a >> (b * 3)) as usize;
    let x0: u32 = ((V[top] as u32 + 10) << b) >> 6;
    // One Newton-Raphson step x = (2x + a/x^2)/3, with x*(x-1) for x^2 and
    // *341/1024 for /3, in u32 as the kernel.
    let q = a / (x0 as u64 * (x0 as u64 - 1));
    let x = x0.wrapping_mul(2).wrapping_add(q as u32);
    x.wrapping_mul(341) >> 10
}

/// The kernel's `struct bictcp` (minus the HyStart fields, in LinuxHyStart).
#[derive(Clone, Debug)]
pub struct CubicLinux {
    /// Module parameter `fast_convergence` (1).
    pub fast_convergence: bool,
    /// Module parameter `tcp_friendliness` (1).
    pub tcp_friendliness: bool,
    /// Increase cwnd by 1 after `cnt` acked packets.
    pub cnt: u32,
    pub last_max_cwnd: u32,
    pub last_cwnd: u32,
    /// Jiffies when `last_cwnd` / cnt were last computed.
    pub last_time: u32,
    pub bic_origin_point: u32,
    /// K in 1/1024 s.
    pub bic_k: u32,
    /// Minimum RTT in us (0: none yet).
    pub delay_min: u32,
    /// Epoch start in jiffies (the kernel uses 0 for "none").
    pub epoch_start: Option<u32>,
    pub ack_cnt: u32,
    /// Reno-friendly estimate (packets).
    pub tcp_cwnd: u32,
    pub hystart: LinuxHyStart,
    /// RFC 9406 HyStart++ instead of Linux HyStart (transport.hystart = "hystart++").
    pub hystart_pp: HyStartPP,
    /// CONFIG_HZ of `tcp_jiffies32` (`TcpConfig::hz`).
    pub hz: u32,
    /// The jiffy clock's phase (`TcpConfig::hz_phase`, `JiffyClock::phase`):
    /// `tcp_jiffies32` ticks where the kernel's CLOCK_MONOTONIC is a multiple
    /// of the jiffy.
    pub phase: Nanos,
}

impl Default for CubicLinux {
    fn default() -> Self {
        Self::new(HyStartMode::Linux)
    }
}

impl CubicLinux {
    pub fn new(mode: HyStartMode) -> Self {
        let mut hystart_pp = HyStartPP::default();
        hystart_pp.active = mode == HyStartMode::HyStartPP;
        CubicLinux {
            fast_convergence: true,
            tcp_friendliness: true,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: LinuxHyStart::new(mode == HyStartMode::Linux),
            hystart_pp,
            hz: HZ,
            phase: 0,
        }
    }

    /// `new` with jiffies at `hz` ticks per second (CONFIG_HZ).
    pub fn with_hz(mode: HyStartMode, hz: u32) -> Self {
        Self::with_clock(mode, crate::tcp::timer_wheel::JiffyClock::new(hz))
    }

    /// `new` on the jiffy clock `c` (CONFIG_HZ and phase).
    pub fn with_clock(mode: HyStartMode, c: crate::tcp::timer_wheel::JiffyClock) -> Self {
        CubicLinux {
            hz: c.hz.max(1),
            phase: c.phase,
            ..Self::new(mode)
        }
    }

    /// `tcp_jiffies32` at simulation time `now`.
    #[inline]
    fn now_j(&self, now: Nanos) -> u32 {
        jiffies(now + self.phase, self.hz)
    }

    /// `bictcp_reset` (everything but the HyStart round fields; clears `found`).
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.hystart.clear_found();
    }

    /// `bictcp_update(ca, cwnd, acked)` at jiffies `now_j`: recompute `cnt`.
    /// (Forced inline into `cong_avoid_own`, so into the sender's ACK path:
    /// on most ACKs it returns at its first test; `update_cubic` stays a
    /// call.)
    #[inline(always)]
    pub fn update(&mut self, cwnd: u32, acked: u32, now_j: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd
            && (now_j.wrapping_sub(self.last_time) as i32) <= (self.hz / 32) as i32
        {
            return;
        }
        // The cubic part runs at most once per jiffy (a new epoch forces it).
        let once_per_jiffy = self.epoch_start.is_some() && now_j == self.last_time;
        if !once_per_jiffy {
            self.update_cubic(cwnd, acked, now_j);
        }
        if self.tcp_friendliness {
            // Reno estimate: +1 per cwnd*beta_scale/8 acked packets.
            let per = (cwnd.wrapping_mul(BETA_SCALE)) >> 3;
            if per > 0 && self.ack_cnt > per {
                let n = (self.ack_cnt - 1) / per; // the kernel's subtraction loop
                self.ack_cnt -= n * per;
                self.tcp_cwnd += n;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        // At most 1 packet per 2 acked (1.5x per RTT).
        self.cnt = self.cnt.max(2);
    }

    /// The cubic-function half of bictcp_update.
    fn update_cubic(&mut self, cwnd: u32, acked: u32, now_j: u32) {
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now_j);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    // K = cbrt((W_max - cwnd) * 2^40 / 410) in 1/1024 s.
                    self.bic_k =
                        cubic_root(CUBE_FACTOR.wrapping_mul((self.last_max_cwnd - cwnd) as u64));
                    self.bic_origin_point = self.last_max_cwnd;
                }
                now_j
            }
        };
        // t = (elapsed jiffies + delay_min in jiffies) in 1/1024 s; the (s32)
        // difference is sign-extended into the u64 like the kernel.
        let elapsed = now_j.wrapping_sub(epoch) as i32 as i64 as u64;
        // bictcp_update: `t <<= BICTCP_HZ; do_div(t, HZ)`.
        let hz = self.hz as u64;
        let t = (elapsed.wrapping_add(usecs_to_jiffies(self.delay_min, self.hz) as u64)
            << BICTCP_HZ)
            / hz;
        let k = self.bic_k as u64;
        let offs = t.abs_diff(k);
        // delta = C/rtt * offs^3 in packets: (410 * offs^3) >> 40, truncated to u32.
        let delta = ((CUBE_RTT_SCALE as u64)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * BICTCP_HZ)) as u32;
        let target = if t < k {
            self.bic_origin_point.wrapping_sub(delta)
        } else {
            self.bic_origin_point.wrapping_add(delta)
        };
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100u32.wrapping_mul(cwnd)
        };
        // No loss yet: grow at least 5 % per RTT.
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }
    }

    /// W(t) target in packets that `update` would compute at `t` (1/1024 s)
    /// since the epoch, for tests and traces.
    pub fn target_at(&self, t: u64) -> u32 {
        let k = self.bic_k as u64;
        let offs = t.abs_diff(k);
        let delta = (((CUBE_RTT_SCALE as u64) * offs * offs * offs) >> 40) as u32;
        if t < k {
            self.bic_origin_point - delta
        } else {
            self.bic_origin_point + delta
        }
    }
}

/// The two per-ACK hooks, called directly by the sender.
impl CubicLinux {
    /// cubictcp_cong_avoid (the caller has checked tcp_is_cwnd_limited).
    /// The trait's `cong_avoid`, without the paths it does not read; the
    /// sender calls it directly (`super::dispatch::SenderCc`), inlined
    /// into the ACK path.
    #[inline(always)]
    pub fn cong_avoid_own(&mut self, s: &mut CcState, acked: u32, now: Nanos) {
        let mut acked = acked;
        if s.in_slow_start() {
            if self.hystart_pp.active {
                self.hystart_pp.slow_start(s, acked);
                return;
            }
            acked = slow_start(s, acked);
            if acked == 0 {
                return;
            }
        }
        self.update(s.cwnd, acked, self.now_j(now));
        super::cong_avoid_ai(s, self.cnt, acked);
    }

    /// cubictcp_acked: delay_min and HyStart from the ACK's RTT sample.
    /// The trait's `pkts_acked`, forced inline for the sender's direct
    /// call (`super::dispatch::SenderCc`).
    #[inline(always)]
    pub fn pkts_acked_inline(
        &mut self,
        s: &mut CcState,
        _acked: u32,
        rtt: Option<Nanos>,
        now: Nanos,
    ) {
        self.hystart_pp.on_ack(s, rtt);
        // rtt_us < 0: no sample on this ACK.
        let Some(rtt) = rtt else { return };
        // Discard samples for 1 s after an epoch start (after recovery).
        if let Some(e) = self.epoch_start {
            if (self.now_j(now).wrapping_sub(e) as i32) < self.hz as i32 {
                return;
            }
        }
        let delay = ((rtt / 1000).min(u32::MAX as u64) as u32).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        self.hystart.on_sample(s, delay, self.delay_min, now);
    }
}

impl CongestionControl for CubicLinux {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// `cubictcp`: `init`, `pkts_acked` (`cubictcp_acked`), `set_state`,
    /// `cwnd_event`.
    fn hooks(&self) -> super::Hooks {
        super::Hooks::ALL
    }

    /// cubictcp_init: bictcp_reset, and a HyStart round starting now.
    fn init(&mut self, s: &mut CcState, now: Nanos) {
        self.reset();
        if self.hystart.enabled {
            self.hystart.reset_round(s, now);
        }
        // initial_ssthresh = 0: ssthresh stays "infinite".
    }

    /// cubictcp_recalc_ssthresh.
    fn ssthresh(&mut self, s: &CcState, _paths: &[PathView], _now: Nanos) -> u32 {
        self.hystart_pp.stop();
        self.epoch_start = None;
        let cwnd = s.cwnd;
        if cwnd < self.last_max_cwnd && self.fast_convergence {
            // W_max = cwnd * (1 + beta) / 2
            self.last_max_cwnd = cwnd * (BETA_SCALE_FP + BETA) / (2 * BETA_SCALE_FP);
        } else {
            self.last_max_cwnd = cwnd;
        }
        (cwnd * BETA / BETA_SCALE_FP).max(2)
    }

    /// cubictcp_cong_avoid (`cong_avoid_own`: CUBIC reads no path but its
    /// own).
    fn cong_avoid(&mut self, s: &mut CcState, _paths: &[PathView], acked: u32, now: Nanos) {
        self.cong_avoid_own(s, acked, now);
    }

    /// cubictcp_acked (`pkts_acked_inline`).
    fn pkts_acked(&mut self, s: &mut CcState, acked: u32, rtt: Option<Nanos>, now: Nanos) {
        self.pkts_acked_inline(s, acked, rtt, now);
    }

    fn as_linux_cubic(&self) -> Option<&CubicLinux> {
        Some(self)
    }

    /// cubictcp_state: an RTO (TCP_CA_Loss) resets everything, HyStart included.
    fn set_state(&mut self, s: &mut CcState, new: CaState, now: Nanos) {
        if new == CaState::Loss {
            self.reset();
            self.hystart.reset_round(s, now);
            self.hystart_pp.stop();
        }
    }

    /// cubictcp_cwnd_event(CA_EVENT_TX_START): shift the epoch by the idle
    /// time (jiffies since the last send), never past now.
    fn cwnd_event(&mut self, _s: &mut CcState, ev: CwndEvent, now: Nanos) {
        if let (CwndEvent::TxStart { idle }, Some(e)) = (ev, self.epoch_start) {
            let now_j = self.now_j(now);
            let delta = now_j.wrapping_sub(self.now_j(now.saturating_sub(idle))) as i32;
            if delta > 0 {
                let mut e = e.wrapping_add(delta as u32);
                if (e.wrapping_sub(now_j) as i32) > 0 {
                    e = now_j;
                }
                self.epoch_start = Some(e);
            }
        }
    }
    // undo_cwnd: tcp_reno_undo_cwnd (the trait default).
}

#[cfg(test)]
mod tests {
    use super::super::{test_state, INFINITE_SSTHRESH};
    use super::*;
    use crate::time::{MS, SEC};

    #[test]
    fn constants() {
        assert_eq!(BETA_SCALE, 15); // 8*1741/3 = 4642; 4642/307 = 15
        assert_eq!(CUBE_RTT_SCALE, 410);
        assert_eq!(CUBE_FACTOR, 2_681_735_677); // 2^40 / 410
        assert_eq!(usecs_to_jiffies(40_000, 1000), 40);
        assert_eq!(usecs_to_jiffies(40_001, 1000), 41);
        assert_eq!(jiffies(1_234_567_890, 1000), 1234);
        // HZ = 250: 4 ms jiffies; HZ = 300: ceil(us * 300 / 10^6)
        assert_eq!(usecs_to_jiffies(40_000, 250), 10);
        assert_eq!(usecs_to_jiffies(40_001, 250), 11);
        assert_eq!(jiffies(1_234_567_890, 250), 308);
        assert_eq!(usecs_to_jiffies(10_000, 300), 3);
        assert_eq!(usecs_to_jiffies(10_001, 300), 4);
    }

    #[test]
    fn cubic_root_hand_values() {
        // Small values straight from the table: (v[a] + 35) >> 6.
        assert_eq!(cubic_root(0), 0); // (0+35)>>6
        assert_eq!(cubic_root(1), 1); // (54+35)>>6 = 89>>6
        assert_eq!(cubic_root(8), 2); // (123+35)>>6 = 158>>6
        assert_eq!(cubic_root(63), 4); // (254+35)>>6 = 289>>6
                                       // a = 1000: fls = 10, b = (840>>8)-1 = 2, top = 1000>>6 = 15, v = 156:
                                       // x0 = (166<<2)>>6 = 10; a/(10*9) = 11; x = (20+11)*341>>10 = 10571>>10 = 10.
        assert_eq!(cubic_root(1000), 10);
        // K for W_max - cwnd = 30 packets: a = 30*2681735677 = 80452070310,
        // fls = 37, b = (3108>>8)-1 = 11, top = a>>33 = 9, v = 129:
        // x0 = (139<<11)>>6 = 4448; a/(4448*4447) = 4067; x = (8896+4067)*341>>10 = 4316.
        // 4316/1024 = 4.2148 s against the exact cbrt(30/0.4) = 4.2172 s.
        assert_eq!(cubic_root(30 * CUBE_FACTOR), 4316);
        // Error of the approximation stays within ~1 % of the exact root.
        for a in [
            1_000u64,
            123_456_789,
            80_452_070_310,
            1 << 50,
            u64::MAX >> 4,
        ] {
            let exact = (a as f64).cbrt();
            let got = cubic_root(a) as f64;
            assert!(
                (got - exact).abs() / exact < 0.01,
                "a {a}: {got} vs {exact}"
            );
        }
    }

    #[test]
    fn reduction_and_fast_convergence() {
        let mut c = CubicLinux::new(HyStartMode::Off);
        let s = test_state(100, 50);
        let v = [PathView::of(&s)];
        // 100*717/1024 = 70.02 -> 70; W_max = 100
        assert_eq!(c.ssthresh(&s, &v, 0), 70);
        assert_eq!(c.last_max_cwnd, 100);
        // 80 < 100: W_max = 80*1741/2048 = 68.0 -> 68; ssthresh 80*717/1024 = 56
        let s = test_state(80, 70);
        assert_eq!(c.ssthresh(&s, &v, 0), 56);
        assert_eq!(c.last_max_cwnd, 68);
        assert_eq!(c.ssthresh(&test_state(2, 2), &v, 0), 2);
    }

    /// W_max 100, cwnd 70 after the loss, delay_min 40 ms: K = 4316/1024 s.
    /// 1 s into the epoch: t = (1000 + 40) jiffies * 1024 / 1000 = 1064;
    /// offs = 4316 - 1064 = 3252; delta = 410 * 3252^3 >> 40 = 12.87 -> 12;
    /// target = 100 - 12 = 88; cnt = 70 / (88 - 70) = 3.
    #[test]
    fn k_target_and_cnt_hand_computed() {
        let mut c = CubicLinux::new(HyStartMode::Off);
        let mut s = test_state(100, INFINITE_SSTHRESH);
        let v = [PathView::of(&s)];
        s.ssthresh = c.ssthresh(&s, &v, 0);
        s.cwnd = s.ssthresh; // 70
        c.delay_min = 40_000;
        let t0 = 10 * SEC; // jiffies 10000
        c.cong_avoid(&mut s, &v, 1, t0);
        assert_eq!(c.bic_k, 4316);
        assert_eq!(c.bic_origin_point, 100);
        // t = 40 jiffies -> 40 * 1024 / 1000 = 40; offs = 4276;
        // delta = 410 * 4276^3 >> 40 = 29.25 -> 29; target 71; cnt = 70 / 1 = 70.
        assert_eq!(c.cnt, 70);
        assert_eq!(c.target_at(40), 71);
        c.cong_avoid(&mut s, &v, 1, t0 + SEC);
        assert_eq!(c.target_at(1064), 88);
        assert_eq!(c.cnt, 3);
        // tcp_cong_avoid_ai: 2 packets counted so far (1 + 1), cnt 3: one more
        // acked packet reaches 3 -> cwnd 71, cwnd_cnt 0.
        assert_eq!(s.cwnd, 70);
        assert_eq!(s.cwnd_cnt, 2);
        c.cong_avoid(&mut s, &v, 1, t0 + SEC + MS);
        assert_eq!(s.cwnd, 71);
        assert_eq!(s.cwnd_cnt, 0);
        // Beyond K the curve is convex: at t = K + 1024 (1 s after K),
        // delta = 410 * 1024^3 >> 40 = 0.4 -> 0; 2 s: 410*2048^3>>40 = 3.2 -> 3.
        assert_eq!(c.target_at(4316 + 1024), 100);
        assert_eq!(c.target_at(4316 + 2048), 103);
    }

    /// cnt is recomputed at most every HZ/32 = 31 jiffies while cwnd is
    /// unchanged, and never twice in one jiffy.
    #[test]
    fn update_rate_limits() {
        let mut c = CubicLinux::new(HyStartMode::Off);
        c.last_max_cwnd = 100;
        c.update(70, 1, 10_000);
        let k = c.bic_k;
        let cnt = c.cnt;
        c.last_max_cwnd = 200; // would change nothing: epoch already set
        c.update(70, 1, 10_031); // same cwnd, 31 jiffies: skipped
        assert_eq!(c.last_time, 10_000);
        c.update(70, 1, 10_032);
        assert_eq!(c.last_time, 10_032);
        assert_eq!(c.bic_k, k);
        assert!(c.cnt <= cnt);
        c.update(71, 1, 10_032); // new cwnd, same jiffy: cubic part skipped
        assert_eq!(c.last_cwnd, 70);
    }

    /// At CONFIG_HZ = 250 (`with_hz`) the clock is 4 ms jiffies: the
    /// HZ/32 limit is 7 jiffies (28 ms, not 31 ms), and the cubic time t is
    /// jiffies * 1024 / 250. Fails if any of them kept HZ = 1000.
    #[test]
    fn hz_250_clock() {
        let mut c = CubicLinux::with_hz(HyStartMode::Off, 250);
        let mut s = test_state(70, 50);
        let v = [PathView::of(&s)];
        c.last_max_cwnd = 100;
        c.delay_min = 40_001; // 11 jiffies of 4 ms (41 at HZ = 1000)
        let t0 = 10 * SEC; // jiffy 2500
        c.cong_avoid(&mut s, &v, 1, t0);
        assert_eq!(c.epoch_start, Some(2500));
        assert_eq!(c.last_time, 2500);
        let cwnd = s.cwnd;
        // 28 ms later = 7 jiffies <= HZ/32: skipped; 32 ms = 8 jiffies: runs.
        c.cong_avoid(&mut s, &v, 1, t0 + 28 * MS);
        assert_eq!((s.cwnd, c.last_time), (cwnd, 2500));
        c.cong_avoid(&mut s, &v, 1, t0 + 32 * MS);
        assert_eq!(c.last_time, 2508);
        // 1 s in: t = (250 + 11) * 1024 / 250 = 1069 (1065 at HZ = 1000);
        // K = 4316: offs 3247, delta = 410 * 3247^3 >> 40 = 12; target 88.
        let k = c.bic_k;
        assert_eq!(k, 4316);
        c.cong_avoid(&mut s, &v, 1, t0 + SEC);
        assert_eq!(c.last_time, 2750);
        assert_eq!(c.target_at(1069), 88);
        assert_eq!(c.cnt, 3); // 70 / (88 - 70)
                              // the 1 s delay_min hold-off after the epoch start counts 250 jiffies
        c.pkts_acked(&mut s, 1, Some(30 * MS), t0 + SEC - 4 * MS);
        assert_eq!(c.delay_min, 40_001);
        c.pkts_acked(&mut s, 1, Some(30 * MS), t0 + SEC);
        assert_eq!(c.delay_min, 30_000);
    }

    /// Reno-friendly estimate: +1 per 70*15>>3 = 131 acked packets at cwnd 70,
    /// i.e. 70/131 = 0.534 packets per RTT of 70 acked packets.
    #[test]
    fn friendliness_growth_per_rtt() {
        let mut c = CubicLinux::new(HyStartMode::Off);
        // Epoch at 10 s with W_max 70 = cwnd: K = 0, origin 70; the cubic term
        // grows slowly at first (t small), so the Reno estimate decides cnt.
        c.last_max_cwnd = 70;
        c.update(70, 1, 10_000);
        assert_eq!(c.tcp_cwnd, 70);
        assert_eq!(c.ack_cnt, 1);
        // 10 RTTs of 70 acked packets, one per jiffy. With cwnd unchanged the
        // update (friendliness included) runs only every 32 jiffies; the last
        // one at jiffy 672: ack_cnt = 1 + 672 = 673 -> tcp_cwnd += 5
        // (5*131 = 655), ack_cnt 18; then 28 more packets: 46.
        for j in 1..=700u32 {
            c.update(70, 1, 10_000 + j);
        }
        assert_eq!(c.tcp_cwnd, 75);
        assert_eq!(c.ack_cnt, 46);
        // Cubic part at jiffy 672: t = 672*1024/1000 = 688, K = 0, delta =
        // 410*688^3 >> 40 = 0, target 70 = cwnd -> cnt 100*70; tcp_cwnd 75 > 70:
        // cnt = 70 / 5 = 14.
        assert_eq!(c.cnt, 14);
    }

    /// Slow start: the packets left over at ssthresh go into CA on the same
    /// ACK (tcp_slow_start returns them); before any loss cnt <= 20.
    #[test]
    fn slow_start_leftover_into_ca() {
        let mut c = CubicLinux::new(HyStartMode::Off);
        let mut s = test_state(18, 20);
        let v = [PathView::of(&s)];
        c.cong_avoid(&mut s, &v, 5, SEC); // 18 -> 20, 3 left for CA
        assert_eq!(s.cwnd, 20);
        // W_max = 0 -> origin = cwnd, target = 20 + small: cnt = 100*20 -> capped to 20
        assert_eq!(c.cnt, 20);
        assert_eq!(c.ack_cnt, 3);
        assert_eq!(s.cwnd_cnt, 3);
    }

    /// The idle shift moves the epoch by the jiffies since the last send.
    #[test]
    fn idle_shifts_epoch() {
        let mut c = CubicLinux::new(HyStartMode::Off);
        let mut s = test_state(20, 10);
        c.epoch_start = Some(5_000);
        c.cwnd_event(&mut s, CwndEvent::TxStart { idle: 300 * MS }, 6 * SEC);
        assert_eq!(c.epoch_start, Some(5_300));
        // never past now
        c.cwnd_event(&mut s, CwndEvent::TxStart { idle: 5 * SEC }, 6 * SEC);
        assert_eq!(c.epoch_start, Some(6_000));
    }

    /// delay samples within 1 s of the epoch start are ignored; an RTO resets.
    #[test]
    fn delay_min_and_rto_reset() {
        let mut c = CubicLinux::new(HyStartMode::Linux);
        let mut s = test_state(10, INFINITE_SSTHRESH);
        c.init(&mut s, 0);
        c.pkts_acked(&mut s, 1, Some(40 * MS + 123), 50 * MS);
        assert_eq!(c.delay_min, 40_000);
        c.epoch_start = Some(1_000);
        c.pkts_acked(&mut s, 1, Some(30 * MS), 1_999 * MS);
        assert_eq!(c.delay_min, 40_000);
        c.pkts_acked(&mut s, 1, Some(30 * MS), 2_000 * MS);
        assert_eq!(c.delay_min, 30_000);
        c.last_max_cwnd = 50;
        c.hystart.found = true;
        c.set_state(&mut s, CaState::Loss, 3 * SEC);
        assert_eq!(
            (c.last_max_cwnd, c.delay_min, c.epoch_start, c.hystart.found),
            (0, 0, None, false)
        );
    }

    /// HyStart in slow start via pkts_acked: delay increase sets ssthresh = cwnd,
    /// and cong_avoid then grows in CA.
    #[test]
    fn hystart_delay_exit_through_pkts_acked() {
        let mut c = CubicLinux::new(HyStartMode::Linux);
        let mut s = test_state(32, INFINITE_SSTHRESH);
        s.snd_nxt = 1 + 32 * 1448;
        c.init(&mut s, 0);
        let v = [PathView::of(&s)];
        // round 1 (ends when snd_una passes snd_nxt at init): base RTT 40 ms,
        // ACKs 5 ms apart (no train)
        let mut t = 100 * MS;
        for _ in 0..4 {
            s.snd_una += 1448;
            c.pkts_acked(&mut s, 1, Some(40 * MS), t);
            t += 5 * MS;
        }
        assert_eq!(c.delay_min, 40_000);
        // RTT grows to 46 ms: threshold 40 + 5 = 45 ms; the 9th sample of the
        // round exits.
        s.snd_una = s.snd_nxt + 1; // a new round
        s.snd_nxt += 64 * 1448;
        for i in 0..9 {
            c.pkts_acked(&mut s, 1, Some(46 * MS), t);
            t += 5 * MS;
            assert_eq!(c.hystart.found, i == 8, "sample {i}");
        }
        assert_eq!(s.ssthresh, 32);
        c.cong_avoid(&mut s, &v, 2, t);
        assert_eq!(s.cwnd, 32); // CA now: cnt 20, 2 counted
        assert_eq!(s.cwnd_cnt, 2);
    }
}
