//! When a Linux `timer_list` timer really fires: the jiffy clock and the
//! timer wheel's level granularity (kernel/time/timer.c).
//!
//! TCP's retransmission timer (`icsk_retransmit_timer`: RTO, loss probe,
//! RACK reordering timeout, zero-window probe) is a wheel timer armed by
//! `inet_csk_reset_xmit_timer` at `jiffies + when`, `when` in whole jiffies
//! (`usecs_to_jiffies` rounds up). `calc_wheel_index` files it in a level by
//! its distance from the wheel clock and `calc_index` rounds its expiry up
//! to the *next* boundary of that level's granularity ("the timer wheel has
//! to guarantee that a timer does not fire early"): level 0 (under 63
//! jiffies) fires one jiffy after the expiry, level 1 (63-503) on the next
//! multiple of 8 jiffies, level 2 (504-4031) of 64, and so on by 8. At HZ =
//! 250 a 256 ms RTO fires 260-288 ms after it was armed, its backoffs 512
//! and 1024 ms after a level-1 boundary 544 and 1056 ms later, which is
//! what the 6.18 kernel of the validation machine shows (docs/validation.md).
//!
//! The jiffy clock's phase: Linux aligns its tick to a multiple of
//! TICK_NSEC of CLOCK_MONOTONIC (kernel/time/tick-sched.c
//! `tick_init_jiffy_update`: "Ensure that the tick is aligned to a multiple
//! of TICK_NSEC"), and `tick_do_update_jiffies64` advances `jiffies` in
//! whole TICK_NSEC steps from there, so a jiffy begins wherever
//! CLOCK_MONOTONIC is a multiple of 1/HZ s. Simulated time `t` is the
//! kernel's CLOCK_MONOTONIC `origin + t`; [`JiffyClock::phase`] is `origin`
//! modulo one jiffy (`transport.hz_phase_us`, recorded by the emulator for
//! each kernel run; 0, the default, puts a jiffy boundary at time 0). The
//! absolute jiffies count (INITIAL_JIFFIES plus uptime) is left out: only
//! differences and boundaries matter to the timers here.
//!
//! Simplification: the wheel clock is taken equal to `jiffies`
//! (`forward_timer_base`).

use crate::time::{Nanos, SEC};

/// `LVL_CLK_SHIFT`: each level is 8 times coarser than the one below.
const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_SIZE`: 64 buckets per level.
const LVL_SIZE: u64 = 64;
/// `LVL_DEPTH` for HZ > 100.
const LVL_DEPTH: u32 = 9;

/// `LVL_START(n)`: the smallest distance filed in level n.
fn lvl_start(n: u32) -> u64 {
    (LVL_SIZE - 1) << ((n - 1) * LVL_CLK_SHIFT)
}

/// One jiffy at `hz` ticks per second.
pub const fn jiffy(hz: u32) -> Nanos {
    SEC / hz as Nanos
}

/// `x / jiffy(hz)`: the jiffy clock's count of a time. The kernel divides
/// by a constant (CONFIG_HZ is a build choice: Kconfig `HZ_100` / `HZ_250`
/// / `HZ_300` / `HZ_1000`); here `hz` is the scenario's (`transport.hz`).
/// Its common values (1000, the default, and 250, the validation
/// machine's) take a branch each that divides by a constant, which the
/// compiler turns into a multiply and shifts, exact for every `u64` (the
/// same quotient); any other divides at run time.
#[inline(always)]
pub fn per_jiffy(x: Nanos, hz: u32) -> u64 {
    match hz {
        1000 => x / jiffy(1000),
        250 => x / jiffy(250),
        _ => x / jiffy(hz),
    }
}

/// The modelled kernel's jiffy clock: CONFIG_HZ and where simulated time 0
/// falls in its jiffy (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JiffyClock {
    /// CONFIG_HZ (`TcpConfig::hz`).
    pub hz: u32,
    /// CLOCK_MONOTONIC at simulated time 0, modulo one jiffy: the next
    /// jiffy begins at simulated time `jiffy(hz) - phase` (at 0 when the
    /// phase is 0). Always below one jiffy.
    pub phase: Nanos,
}

impl JiffyClock {
    /// `hz` with a jiffy boundary at time 0.
    pub fn new(hz: u32) -> Self {
        JiffyClock::with_phase(hz, 0)
    }

    /// `hz` with `phase` (taken modulo one jiffy).
    pub fn with_phase(hz: u32, phase: Nanos) -> Self {
        let hz = hz.max(1);
        JiffyClock {
            hz,
            phase: phase % jiffy(hz),
        }
    }

    /// The jiffies count at simulated time `now` (`jiffies`, from 0 at the
    /// jiffy that holds time 0; u64, the caller truncates like the kernel).
    #[inline]
    pub fn jiffies(&self, now: Nanos) -> u64 {
        per_jiffy(now + self.phase, self.hz)
    }
}

/// `usecs_to_jiffies` (rounds up), for a delay in ns.
pub fn to_jiffies(delay: Nanos, hz: u32) -> u64 {
    delay.div_ceil(jiffy(hz))
}

/// The time a wheel timer armed at `now` for `delay` runs: `mod_timer(t,
/// jiffies + usecs_to_jiffies(delay))` through `calc_wheel_index` /
/// `calc_index`. Always later than `now + delay`. Phase 0: a jiffy boundary
/// at time 0 ([`expiry_on`] for another).
pub fn expiry(now: Nanos, delay: Nanos, hz: u32) -> Nanos {
    expiry_on(JiffyClock::new(hz), now, delay)
}

/// [`expiry`] on the jiffy clock `c`: the same on the kernel's clock
/// (`now + phase`), back on simulated time.
pub fn expiry_on(c: JiffyClock, now: Nanos, delay: Nanos) -> Nanos {
    let j = jiffy(c.hz);
    bucket_expiry((now + c.phase) / j, to_jiffies(delay, c.hz), j) - c.phase
}

/// [`expiry_on`] for a timer armed at the jiffy `clk` (`c.jiffies(now)`,
/// which the caller has) for `when` whole jiffies, without dividing again:
/// the same as `expiry_on(c, now, when * jiffy(c.hz))`, whose
/// `usecs_to_jiffies` of whole jiffies is `when` exactly.
#[inline(always)]
pub fn expiry_at_jiffy(c: JiffyClock, clk: u64, when: u64) -> Nanos {
    bucket_expiry(clk, when, jiffy(c.hz)) - c.phase
}

/// `expiry` from the wheel clock `clk` (jiffies), the delay in whole
/// jiffies `when` and the jiffy `j`. (Forced inline, as `Wheel::expiry`:
/// `PathSender::xmit_timer_at`'s note.)
#[inline(always)]
fn bucket_expiry(clk: u64, when: u64, j: Nanos) -> Nanos {
    bucket_expiry_shifted(clk, when, level_shift(when), j)
}

/// `calc_wheel_index`'s level for a timer `delta` jiffies ahead, as the
/// shift `LVL_SHIFT(lvl)`: the lowest level whose range holds delta; the
/// deepest level holds the rest (WHEEL_TIMEOUT_CUTOFF is days, beyond any
/// TCP timer here). It depends on the delay alone (`delta = expires - clk`
/// is `when`), so `Wheel` keeps it with the delay's jiffies.
#[inline(always)]
fn level_shift(delta: u64) -> u32 {
    let lvl = (1..LVL_DEPTH)
        .find(|&n| delta < lvl_start(n))
        .map_or(LVL_DEPTH - 1, |n| n - 1);
    lvl * LVL_CLK_SHIFT
}

/// `bucket_expiry` with the level's shift known (`level_shift(when)`).
#[inline(always)]
fn bucket_expiry_shifted(clk: u64, when: u64, shift: u32, j: Nanos) -> Nanos {
    let expires = clk + when;
    // calc_index: `expires = (expires >> LVL_SHIFT(lvl)) + 1`, bucket expiry
    // = expires << LVL_SHIFT(lvl).
    (((expires >> shift) + 1) << shift) * j
}

/// `expiry` for one timer owner (a TCP sender arms its retransmission
/// timer on almost every segment sent and ACK received), with the two
/// 64-bit divisions by the jiffy remembered: the jiffy clock `now / j`
/// stays the same while `now` is within the same jiffy, and the delay's
/// jiffies `delay.div_ceil(j)` while the delay stays within the same
/// jiffy-sized range (PTO and RTO move by microseconds between calls).
/// Each is tested against its range and recomputed outside it, so the
/// result is always `expiry`'s.
#[derive(Clone, Debug)]
pub struct Wheel {
    /// One jiffy (`jiffy(hz)`).
    j: Nanos,
    /// `JiffyClock::phase`: `now` below is on the kernel's clock, `now +
    /// phase`.
    phase: Nanos,
    /// `now / j` for every `now` in [`clk_start`, `clk_start + j`).
    clk: u64,
    clk_start: Nanos,
    /// `delay.div_ceil(j)` for every `delay` in (`when_lo`, `when_hi`].
    when: u64,
    when_lo: Nanos,
    when_hi: Nanos,
    /// `level_shift(when)`: the wheel level's shift, a function of `when`
    /// alone, found again only when `when` is.
    shift: u32,
    /// The last call's arguments (on the kernel's clock) and result: a
    /// sender re-arms its timer several times at one instant with the same
    /// delay (the PTO after an ACK, then after each segment the ACK lets
    /// out: `tcp_schedule_loss_probe` of the same flight), and `expiry` is
    /// a function of the two.
    last_now: Nanos,
    last_delay: Nanos,
    last_at: Nanos,
}

impl Wheel {
    pub fn new(hz: u32) -> Self {
        Wheel::on(JiffyClock::new(hz))
    }

    /// A wheel on the jiffy clock `c` (`expiry_on`).
    pub fn on(c: JiffyClock) -> Self {
        let mut w = Wheel {
            j: jiffy(c.hz),
            phase: c.phase,
            // clk 0 for now in [0, j)
            clk: 0,
            clk_start: 0,
            // an empty range: the first delay is computed
            when: 0,
            when_lo: 0,
            when_hi: 0,
            shift: level_shift(0),
            last_now: c.phase,
            last_delay: 0,
            last_at: 0,
        };
        // the memo starts with a call of its own (simulated time 0, delay 0)
        w.last_at = w.expiry_computed(c.phase, 0);
        w
    }

    /// `expiry_on(clock, now, delay)`. (Forced inline into the sender's
    /// timer paths: `PathSender::xmit_timer_at`'s note.)
    #[inline(always)]
    pub fn expiry(&mut self, now: Nanos, delay: Nanos) -> Nanos {
        // on the kernel's clock from here to the return
        let now = now + self.phase;
        if now == self.last_now && delay == self.last_delay {
            // checked builds: the memo is what the computation gives
            #[cfg(any(debug_assertions, feature = "invariants"))]
            {
                let computed = self.expiry_computed(now, delay);
                assert_eq!(
                    self.last_at, computed,
                    "timer wheel: the last call's memo differs from its expiry"
                );
            }
            return self.last_at;
        }
        let at = self.expiry_computed(now, delay);
        self.last_now = now;
        self.last_delay = delay;
        self.last_at = at;
        at
    }

    /// `expiry` without the last call's memo (`now` on the kernel's clock).
    #[inline(always)]
    fn expiry_computed(&mut self, now: Nanos, delay: Nanos) -> Nanos {
        let j = self.j;
        // now < clk_start wraps to a large value: recomputed as well
        if now.wrapping_sub(self.clk_start) >= j {
            self.clk = now / j;
            self.clk_start = self.clk * j;
        }
        if !(delay > self.when_lo && delay <= self.when_hi) {
            self.when = delay.div_ceil(j);
            self.shift = level_shift(self.when);
            // (when - 1) j < delay <= when j; empty when it overflows or
            // for delay 0 (when 0)
            match self.when.checked_mul(j) {
                Some(hi) if self.when > 0 => {
                    self.when_hi = hi;
                    self.when_lo = hi - j;
                }
                _ => {
                    self.when_hi = 0;
                    self.when_lo = 0;
                }
            }
        }
        debug_assert_eq!(self.shift, level_shift(self.when));
        bucket_expiry_shifted(self.clk, self.when, self.shift, j) - self.phase
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn level_zero_fires_one_jiffy_late() {
        // HZ = 1000, 40 ms from a tick: expires = 40, fires at 41.
        assert_eq!(expiry(0, 40 * MS, 1000), 41 * MS);
        // HZ = 250: 40 ms = 10 jiffies, +1 = 44 ms; armed mid-jiffy at 1 ms:
        // clk 0, still 44 ms.
        assert_eq!(expiry(0, 40 * MS, 250), 44 * MS);
        assert_eq!(expiry(MS, 40 * MS, 250), 44 * MS);
        // a delay that is not whole jiffies is rounded up first: 41 ms -> 11 + 1.
        assert_eq!(expiry(0, 41 * MS, 250), 48 * MS);
    }

    /// The kernel capture's RTO backoff gaps (HZ = 250): RTO 256 ms (64
    /// jiffies, level 1), then 512 and 1024 ms armed on a level-1 boundary.
    #[test]
    fn hz250_rto_backoffs_match_the_kernel_capture() {
        // Armed 3 jiffies past a multiple of 8: expires 67 -> (67 >> 3) + 1 = 9 -> 72.
        let t0 = 3 * 4 * MS;
        let first = expiry(t0, 256 * MS, 250);
        assert_eq!(first - t0, 276 * MS);
        // From a boundary: 64 jiffies -> 72 (288 ms), the most it can be late.
        assert_eq!(expiry(0, 256 * MS, 250), 288 * MS);
        let second = expiry(first, 512 * MS, 250);
        assert_eq!(second - first, 544 * MS);
        let third = expiry(second, 1024 * MS, 250);
        assert_eq!(third - second, 1056 * MS);
        // 2048 ms = 512 jiffies: level 2 (>= 504), 64-jiffy buckets.
        let fourth = expiry(third, 2048 * MS, 250);
        assert_eq!(fourth % (256 * MS), 0, "on a 64-jiffy boundary");
        assert!(fourth - third > 2048 * MS && fourth - third <= 2304 * MS);
    }

    /// The remembered divisions give `expiry`'s result for any sequence of
    /// calls: times moving forward by small and large steps (and once
    /// back), delays drifting by microseconds, jumping, at jiffy
    /// boundaries and 0.
    #[test]
    fn wheel_equals_expiry() {
        for hz in [100, 250, 1000] {
            let j = jiffy(hz);
            let mut w = Wheel::new(hz);
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let mut now: Nanos = 0;
            let mut delay: Nanos = 200 * MS;
            for i in 0..200_000u64 {
                now += match next() % 8 {
                    0 => next() % (3 * j),
                    1 => j - now % j, // to the next boundary exactly
                    _ => next() % 200_000,
                };
                if i == 1000 {
                    now -= 5 * j; // a clock that goes back is recomputed
                }
                delay = match next() % 16 {
                    0 => next() % (4 * SEC),
                    1 => (next() % 100) * j, // whole jiffies
                    2 => (next() % 100) * j + 1,
                    3 => 0,
                    _ => (delay + next() % 2_000).saturating_sub(1_000),
                };
                assert_eq!(
                    w.expiry(now, delay),
                    expiry(now, delay, hz),
                    "hz {hz} now {now} delay {delay}"
                );
            }
        }
    }

    /// Calls repeated at one instant with one delay (a sender's re-arms
    /// after an ACK and after each segment it lets out) take the last
    /// call's memo: still `expiry_on`'s result, at every phase, between
    /// calls that change the time, the delay or both, and for the memo's
    /// first value (simulated time 0, delay 0).
    #[test]
    fn repeated_calls_take_the_memo_and_equal_expiry() {
        for (hz, phase) in [(1000, 0), (250, 0), (250, 1_320_000), (100, 7)] {
            let c = JiffyClock::with_phase(hz, phase);
            let mut w = Wheel::on(c);
            assert_eq!(w.expiry(0, 0), expiry_on(c, 0, 0));
            let steps = [
                (0, 200 * MS),
                (0, 200 * MS),
                (0, 202 * MS),
                (0, 200 * MS),
                (MS, 200 * MS),
                (MS, 200 * MS),
                (MS, 0),
                (MS, 0),
                (5 * SEC, 3 * SEC),
                (5 * SEC, 3 * SEC),
                (5 * SEC, 1),
                (4 * SEC, 1), // back in time
                (4 * SEC, 1),
            ];
            for (now, delay) in steps {
                assert_eq!(
                    w.expiry(now, delay),
                    expiry_on(c, now, delay),
                    "hz {hz} phase {phase} now {now} delay {delay}"
                );
            }
        }
    }

    /// Checked builds compare a memo taken with the computation it skips:
    /// a memo changed by hand panics there (without the check the changed
    /// value is returned, nothing panics and the test fails).
    #[test]
    #[cfg(any(debug_assertions, feature = "invariants"))]
    #[should_panic(expected = "memo differs from its expiry")]
    fn a_wrong_memo_is_caught() {
        let mut w = Wheel::new(250);
        let at = w.expiry(3 * MS, 200 * MS);
        w.last_at += 1;
        let _ = w.expiry(3 * MS, 200 * MS);
        let _ = at;
    }

    /// With a phase the wheel runs on the kernel's clock `now + phase`:
    /// the same expiry as at phase 0 shifted by it, on a boundary of the
    /// kernel's jiffies; `Wheel` gives `expiry_on`'s result.
    #[test]
    fn a_phase_moves_the_jiffy_boundaries() {
        let c = JiffyClock::with_phase(250, 1_320_000);
        // kernel clock 1.32 ms: jiffy 0; 40 ms = 10 jiffies, level 0:
        // runs at jiffy 11 = 44 ms kernel = 42.68 ms simulated
        assert_eq!(expiry_on(c, 0, 40 * MS), 42_680_000);
        // armed at 2.68 ms simulated = 4 ms kernel: jiffy 1, runs at 48 ms
        assert_eq!(expiry_on(c, 2_680_000, 40 * MS), 46_680_000);
        assert_eq!(expiry_on(c, 2_679_999, 40 * MS), 42_680_000);
        assert_eq!(c.jiffies(2_679_999), 0);
        assert_eq!(c.jiffies(2_680_000), 1);
        // the phase is taken modulo one jiffy
        assert_eq!(JiffyClock::with_phase(250, 5_320_000), c);
        let mut w = Wheel::on(c);
        for (now, delay) in [
            (0, 40 * MS),
            (2_680_000, 40 * MS),
            (7 * MS, 300 * MS),
            (MS, 3 * SEC),
        ] {
            let at = w.expiry(now, delay);
            assert_eq!(at, expiry_on(c, now, delay));
            assert_eq!((at + c.phase) % (4 * MS), 0);
            assert!(at >= now + delay);
        }
    }

    /// `per_jiffy`'s constant branches give the run-time quotient, and
    /// `expiry_at_jiffy` gives `expiry_on`'s result for a whole-jiffy
    /// delay, at every HZ (the constant ones and others) and phase.
    #[test]
    fn jiffy_divisions_by_a_constant_are_exact() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for hz in [100, 250, 300, 1000, 1024] {
            let j = SEC / hz as u64;
            for t in [0, 1, j - 1, j, j + 1, 605 * SEC, u64::MAX - 1, u64::MAX] {
                assert_eq!(per_jiffy(t, hz), t / j, "hz {hz} t {t}");
            }
            for _ in 0..20_000 {
                let t = next() >> (next() % 64);
                assert_eq!(per_jiffy(t, hz), t / j, "hz {hz} t {t}");
            }
            for phase in [0, 1, j / 3, j - 1] {
                let c = JiffyClock::with_phase(hz, phase);
                for _ in 0..2_000 {
                    let now = next() % (700 * SEC);
                    let when = next() % 5_000;
                    assert_eq!(
                        expiry_at_jiffy(c, c.jiffies(now), when),
                        expiry_on(c, now, when * j),
                        "hz {hz} phase {phase} now {now} when {when}"
                    );
                }
            }
        }
    }

    #[test]
    fn never_early_and_at_most_one_granule_late() {
        for hz in [100, 250, 1000] {
            let j = jiffy(hz);
            for now in [0, 1, j - 1, 7 * j + 3, 12_345 * MS] {
                for delay in [1, MS, 40 * MS, 200 * MS, 300 * MS, 3 * SEC, 30 * SEC] {
                    let at = expiry(now, delay, hz);
                    assert!(at >= now + delay, "hz {hz} now {now} delay {delay}");
                    // at most 1/8 of the delay (level granularity) + 2 jiffies late
                    assert!(
                        at <= now + delay + delay / 8 + 2 * j,
                        "hz {hz} {now} {delay}"
                    );
                }
            }
        }
    }
}
