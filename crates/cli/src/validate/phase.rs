//! The jiffy phase of a kernel run, for the simulator side of `validate
//! --decisions` (`transport.hz_phase_us`).
//!
//! Linux's tick is aligned to a multiple of TICK_NSEC of CLOCK_MONOTONIC
//! (kernel/time/tick-sched.c `tick_init_jiffy_update`), so `jiffies` steps
//! where CLOCK_MONOTONIC is a multiple of 1/HZ s, and the retransmission
//! timer fires on those steps (`mptlab_core::tcp::timer_wheel`). The emulator
//! records each run's time 0 on CLOCK_MONOTONIC ([`CLOCK_ORIGIN`]); modulo one
//! jiffy it is where the simulated run's time 0 falls in the kernel's jiffy.

use mptlab_results::RunOutput;
use mptlab_scenario::Scenario;

/// The summary key under which the emulator records a run's time 0 on
/// CLOCK_MONOTONIC, in ns (crates/emu/src/run.rs).
pub const CLOCK_ORIGIN: &str = "emu.clock_origin_ns";

/// Where the simulator side's jiffy phase of a run comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseFrom {
    /// The kernel run's recorded time 0 (0 when it has none: runs saved
    /// before it was recorded, said on stderr).
    Kernel,
    /// `--hz-phase-us N` for every run.
    Fixed(u32),
}

/// `transport.hz_phase_us` of a run whose time 0 was `origin_ns` on
/// CLOCK_MONOTONIC, at `hz`: the origin's offset into its jiffy, in whole
/// microseconds (below 1e6 / hz, as the key requires).
pub fn phase_us(origin_ns: u64, hz: u32) -> u32 {
    let jiffy_ns = 1_000_000_000 / u64::from(hz.max(1));
    ((origin_ns % jiffy_ns) / 1_000) as u32
}

/// The phase a kernel run records, if it does.
pub fn recorded(k: &RunOutput, hz: u32) -> Option<u32> {
    k.summary
        .get(CLOCK_ORIGIN)
        .and_then(|v| v.as_u64())
        .map(|o| phase_us(o, hz))
}

/// `s` with run `r`'s phase: `from`, or the kernel run `k`'s record. Says
/// on stderr which it took.
pub fn for_run(s: &Scenario, r: u32, k: Option<&RunOutput>, from: PhaseFrom) -> Scenario {
    let name = s.meta.name.trim_start_matches("validate-");
    let hz = s.transport.hz;
    let p = match from {
        PhaseFrom::Fixed(p) => p,
        PhaseFrom::Kernel => match k.and_then(|k| recorded(k, hz)) {
            Some(p) => {
                eprintln!(
                    "decisions: {name} run {r}: the kernel run began {p} us into its jiffy \
                     (CLOCK_MONOTONIC, HZ {hz}); simulator side at transport.hz_phase_us = {p}"
                );
                p
            }
            None => {
                eprintln!(
                    "decisions: {name} run {r}: the kernel run does not record its time 0 on \
                     CLOCK_MONOTONIC; simulator side at transport.hz_phase_us = 0 (assumed)"
                );
                0
            }
        },
    };
    let mut sc = s.clone();
    sc.transport.hz_phase_us = p;
    sc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_is_the_origin_within_its_jiffy() {
        // 84674.509460582 s: 1.460582 ms past a 4 ms boundary, 0.460582 ms
        // past a 1 ms one
        assert_eq!(phase_us(84_674_509_460_582, 250), 1460);
        assert_eq!(phase_us(84_674_509_460_582, 1000), 460);
        assert_eq!(phase_us(84_674_508_000_000, 250), 0);
        assert_eq!(phase_us(84_674_511_999_999, 250), 3999);
    }

    #[test]
    fn a_run_without_the_record_has_none() {
        let mut k = RunOutput::new(0, 1);
        assert_eq!(recorded(&k, 250), None);
        k.summary
            .insert(CLOCK_ORIGIN.into(), 84_674_509_460_582u64.into());
        assert_eq!(recorded(&k, 250), Some(1460));
    }
}
