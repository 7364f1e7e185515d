//! The emulator's clock: CLOCK_MONOTONIC in nanoseconds since the emulator
//! started, the same `Nanos` the link model counts in.
//!
//! CLOCK_MONOTONIC is not namespaced by network namespaces, so a timestamp
//! taken by a sender in one namespace and a receiver in another are directly
//! comparable (the benchmark relies on this to measure one-way delay).
//!
//! Precise release: a plain `nanosleep` on Linux is rounded up by the thread's
//! timer slack (50 us by default) and by wake-up latency. We set the slack to
//! 1 ns per emulator thread, sleep with `clock_nanosleep(TIMER_ABSTIME)` (an
//! absolute deadline does not accumulate drift) until `spin` before the
//! deadline, and busy-wait the rest. Measured figures are in
//! `crates/emu/README.md`.

use mptlab_core::Nanos;

/// Raw CLOCK_MONOTONIC in ns (global, comparable across namespaces and processes).
#[inline]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Time since the emulator started.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            origin: monotonic_ns(),
        }
    }

    /// A clock whose zero is the given raw CLOCK_MONOTONIC value.
    pub fn with_origin(origin_monotonic_ns: u64) -> Clock {
        Clock {
            origin: origin_monotonic_ns,
        }
    }

    /// The raw CLOCK_MONOTONIC value of this clock's zero.
    pub fn origin(&self) -> u64 {
        self.origin
    }

    #[inline]
    pub fn now(&self) -> Nanos {
        monotonic_ns().saturating_sub(self.origin)
    }

    /// Sleep until `deadline` (clock time): sleep in the kernel until `spin`
    /// before it, then busy-wait.
    pub fn sleep_until(&self, deadline: Nanos, spin: Nanos) {
        let now = self.now();
        if deadline > now + spin {
            sleep_abs(self.origin + deadline - spin);
        }
        while self.now() < deadline {
            std::hint::spin_loop();
        }
    }
}

/// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` until the raw monotonic time `t`.
pub fn sleep_abs(t: u64) {
    let ts = libc::timespec {
        tv_sec: (t / 1_000_000_000) as libc::time_t,
        tv_nsec: (t % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: valid timespec; a null remainder is allowed with TIMER_ABSTIME.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if r != libc::EINTR {
            break;
        }
    }
}

/// Set this thread's timer slack to 1 ns so kernel timeouts (ppoll,
/// clock_nanosleep) expire when asked rather than up to 50 us later.
pub fn set_min_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes an unsigned long; no pointers involved.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_advances_and_sleep_until_is_not_early() {
        set_min_timer_slack();
        let c = Clock::start();
        let t0 = c.now();
        let deadline = t0 + 2_000_000;
        c.sleep_until(deadline, 20_000);
        let t1 = c.now();
        assert!(t1 >= deadline, "woke at {t1}, deadline {deadline}");
        assert!(t1 < deadline + 50_000_000, "overslept: {t1} vs {deadline}");
    }
}
