//! The host's load beside each emulation run (issue 15, session 17).
//!
//! Kernel runs are real time: on this 2-vCPU host, the one-thread emulator
//! (`EmuOptions::one_thread`, the default) read an 83 Mbit/s path x0.75-0.94
//! of the simulator at a load average of 8-18 and x0.98-1.00 at 0.4-1
//! (docs/validation.md, "Session 17: the NTNU->HiN cells ..."), while its
//! release-lateness figures did not show it. So every run records the load
//! average at its start and end, and preparing an emulation warns when the
//! host is busier than it has CPUs. Session 18 traced it to the traffic
//! agent's threads waiting for a CPU (the kernel's receiver ACKs late while
//! its application does not read) and runs them SCHED_FIFO (`agentprio`);
//! the warning stays, for load it cannot rule out (real-time tasks, a
//! saturated emulator thread: `threadstat`).

/// The 1-minute load average (`/proc/loadavg`'s first field); `None` where
/// it cannot be read.
pub fn load1() -> Option<f64> {
    parse(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

fn parse(text: &str) -> Option<f64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The CPUs this process may run on.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The warning for a load average above the CPU count, else `None`.
pub fn warning(load: Option<f64>, cpus: usize) -> Option<String> {
    let l = load?;
    (l > cpus as f64).then(|| {
        format!(
            "warning: load average {l:.1} on {cpus} CPU(s): kernel runs are real time; the agent \
             and emulator run SCHED_FIFO so normal-priority load should not change them (before \
             session 18 an 83 Mbit/s path read x0.75-0.97 at load 8-18; docs/emulation.md, \
             \"Under load\"), but real-time load or a saturated emulator thread still can: each \
             run records emu.loadavg_1m_start/_end, emu.stalls and emu.thread_cpu_fraction_max"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_first_field_and_warns_above_the_cpu_count() {
        assert_eq!(parse("8.25 4.10 2.00 3/120 4567\n"), Some(8.25));
        assert_eq!(parse(""), None);
        assert_eq!(parse("x 1 2"), None);
        assert!(warning(Some(2.0), 2).is_none());
        let w = warning(Some(8.3), 2).expect("8.3 > 2");
        assert!(w.contains("load average 8.3 on 2 CPU(s)"), "{w}");
        assert!(warning(None, 2).is_none());
        assert!(cpus() >= 1);
    }
}
