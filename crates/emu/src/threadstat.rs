//! How an emulator thread fared on the host's CPUs (issue 15, session 18).
//!
//! An emulator thread is SCHED_FIFO (`EmuOptions::realtime_priority`), so the
//! host's normal (CFS) load cannot delay it, but two things still can:
//! - **RT throttling**: the kernel lets real-time tasks use at most
//!   `sched_rt_runtime_us` of every `sched_rt_period_us` on a CPU (950000 of
//!   1000000 by default, Documentation/scheduler/sched-rt-group.rst, "System
//!   wide settings"); a thread past it is not run for the rest of the period,
//!   ~50 ms. Session 18 saw the one-thread emulator at an 83 Mbit/s, four-hop
//!   path use 90-100 % of a CPU per second under load and freeze for 47-52 ms
//!   about once a second: every direction's release was late by that much at
//!   once, the sender's data then reached the bottleneck in one clump.
//! - A CPU saturated by the emulator's own work (its TUN writes run the
//!   receiving namespaces' stacks): packets wait in the TUN queues unread.
//!
//! Neither shows in the release lateness percentiles (a 50 ms freeze a second
//! touches well under 1 % of the packets). So each thread reports its CPU time
//! and run-queue wait from `/proc/thread-self/schedstat` (the kernel's
//! `sched_info`: "time spent on the cpu", "time spent waiting on a runqueue",
//! Documentation/scheduler/sched-stats.rst) and the gaps in its own loop
//! longer than [`STALL_NS`] while it was not sleeping ([`StallMeter`]).

use mptlab_core::Nanos;

/// A gap in an emulator loop at least this long, while the thread was not
/// blocked, counts as a stall (a TUN write of one packet takes ~10-100 us).
pub const STALL_NS: Nanos = 5_000_000;

/// CPU time and run-queue wait of the calling thread so far, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SchedStat {
    pub cpu_ns: u64,
    pub wait_ns: u64,
}

impl SchedStat {
    /// The calling thread's `/proc/thread-self/schedstat`; `None` where the
    /// kernel has no schedstats (CONFIG_SCHED_INFO off).
    pub fn now() -> Option<SchedStat> {
        parse(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
    }
}

fn parse(text: &str) -> Option<SchedStat> {
    let mut it = text.split_whitespace().map(|f| f.parse::<u64>().ok());
    Some(SchedStat {
        cpu_ns: it.next()??,
        wait_ns: it.next()??,
    })
}

/// What one emulator thread did on the CPU over its run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThreadReport {
    /// CPU time over the run (schedstat), ns; 0 where unknown.
    pub cpu_ns: u64,
    /// Time runnable but not running (run-queue wait, including RT
    /// throttling), ns.
    pub wait_ns: u64,
    /// Loop gaps of at least [`STALL_NS`] while not sleeping.
    pub stalls: u64,
    /// The longest such gap, ns.
    pub stall_max_ns: Nanos,
    /// Wall time the thread ran, ns.
    pub elapsed_ns: Nanos,
}

impl ThreadReport {
    /// CPU time over wall time (0 where unknown).
    pub fn cpu_fraction(&self) -> f64 {
        if self.elapsed_ns == 0 {
            0.0
        } else {
            self.cpu_ns as f64 / self.elapsed_ns as f64
        }
    }
}

/// Finds stalls: call [`tick`](StallMeter::tick) once per loop iteration and
/// [`resume`](StallMeter::resume) after every blocking wait, with the clock's
/// time.
#[derive(Clone, Debug)]
pub struct StallMeter {
    last: Nanos,
    start: Option<SchedStat>,
    started_at: Nanos,
    pub stalls: u64,
    pub max_ns: Nanos,
}

impl StallMeter {
    pub fn new(now: Nanos) -> StallMeter {
        StallMeter {
            last: now,
            start: SchedStat::now(),
            started_at: now,
            stalls: 0,
            max_ns: 0,
        }
    }

    /// One loop iteration at `now`: a gap since the last tick or resume of
    /// at least [`STALL_NS`] is a stall.
    #[inline]
    pub fn tick(&mut self, now: Nanos) {
        let gap = now.saturating_sub(self.last);
        if gap >= STALL_NS {
            self.stalls += 1;
            self.max_ns = self.max_ns.max(gap);
        }
        self.last = now;
    }

    /// The thread returns from a wait at `now` (sleeping is not a stall).
    #[inline]
    pub fn resume(&mut self, now: Nanos) {
        self.last = now;
    }

    /// The report at the end of the run (call on the measured thread).
    pub fn finish(&self, now: Nanos) -> ThreadReport {
        let (cpu_ns, wait_ns) = match (self.start, SchedStat::now()) {
            (Some(a), Some(b)) => (
                b.cpu_ns.saturating_sub(a.cpu_ns),
                b.wait_ns.saturating_sub(a.wait_ns),
            ),
            _ => (0, 0),
        };
        ThreadReport {
            cpu_ns,
            wait_ns,
            stalls: self.stalls,
            stall_max_ns: self.max_ns,
            elapsed_ns: now.saturating_sub(self.started_at),
        }
    }
}

/// A thread busier than this fraction of its run is at the RT limit (0.95)
/// in its busier seconds. Session 18's fixed runs used 0.86-0.88 of a CPU
/// with the simulator's result (docs/emulation.md, "Under load").
pub const BUSY_WARN: f64 = 0.92;
/// A stall this long is worth a warning (RT throttling freezes ~50 ms;
/// the fixed runs above had stalls of 5-13 ms and read x0.999-1.000).
pub const STALL_WARN_NS: Nanos = 20_000_000;

/// The run's summary entries over its emulator threads: the busiest thread's
/// CPU fraction and run-queue wait, all stalls and the longest.
pub fn summary<'a>(threads: impl Iterator<Item = &'a ThreadReport>) -> Vec<(String, f64)> {
    let (mut cpu, mut wait, mut n, mut max, mut any) = (0f64, 0u64, 0u64, 0u64, false);
    for t in threads {
        any = true;
        cpu = cpu.max(t.cpu_fraction());
        wait = wait.max(t.wait_ns);
        n += t.stalls;
        max = max.max(t.stall_max_ns);
    }
    if !any {
        return Vec::new();
    }
    vec![
        ("emu.thread_cpu_fraction_max".into(), cpu),
        ("emu.thread_runqueue_wait_ms_max".into(), wait as f64 / 1e6),
        ("emu.stalls".into(), n as f64),
        ("emu.stall_ms_max".into(), max as f64 / 1e6),
    ]
}

/// The warning for a run whose emulator stalled or ran near saturation.
pub fn warning<'a>(threads: impl Iterator<Item = &'a ThreadReport>, run: u32) -> Option<String> {
    let s: std::collections::HashMap<String, f64> = summary(threads).into_iter().collect();
    let (cpu, n, max) = (
        *s.get("emu.thread_cpu_fraction_max")?,
        s["emu.stalls"],
        s["emu.stall_ms_max"],
    );
    (max >= STALL_WARN_NS as f64 / 1e6 || cpu > BUSY_WARN).then(|| {
        format!(
            "warning: run {run}: the link emulator stalled {n} time(s) (longest {max:.1} ms) and its \
             busiest thread used {:.0} % of a CPU: packets waited unread, so the kernel's result \
             may be the emulator's, not the scenario's (emu.stalls, emu.thread_cpu_fraction_max; \
             docs/emulation.md, \"Under load\")",
            cpu * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_schedstat_and_counts_only_gaps_outside_waits() {
        assert_eq!(
            parse("123456 789 42\n"),
            Some(SchedStat {
                cpu_ns: 123456,
                wait_ns: 789
            })
        );
        assert_eq!(parse("x 1 2"), None);
        assert_eq!(parse("1"), None);
        let mut m = StallMeter::new(0);
        m.tick(1_000_000);
        m.tick(1_000_000 + STALL_NS - 1);
        assert_eq!(m.stalls, 0);
        m.tick(2 * STALL_NS + 1_000_000);
        assert_eq!((m.stalls, m.max_ns), (1, STALL_NS + 1));
        // A long wait followed by resume is no stall.
        m.resume(100 * STALL_NS);
        m.tick(100 * STALL_NS + 10);
        assert_eq!(m.stalls, 1);
        let r = m.finish(200 * STALL_NS);
        assert_eq!(r.elapsed_ns, 200 * STALL_NS);
        assert!(r.cpu_fraction() >= 0.0);
    }
}
