//! `mptlab bench --scale FILE`: one timed run of a scenario (meant for the
//! `clients` preset, `--set population.clients=N`), printing what the scale
//! table of docs/performance.md needs: connections, build and run wall time,
//! data packets, events, run time per data packet (wall and on-CPU: the
//! thread's own CPU time, which the load of other processes does not
//! inflate), and the process's
//! resident memory after building (every connection idle) and at its peak.
//! Run one point per process, so the peak belongs to that point. `--runs K`
//! times K runs (seeds) of the point and sums them (session 25: points with
//! few connections at the large points' short duration).

use std::path::PathBuf;
use std::process::ExitCode;

use mptlab_scenario::Override;

/// `VmRSS` and `VmHWM` (peak) of this process in KiB (Linux; 0 elsewhere).
fn rss_kib() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Nanoseconds this thread has run on a CPU (`/proc/thread-self/schedstat`,
/// first field), or `None` when not available. On a loaded machine the wall
/// time includes the time other processes had the CPU; this does not.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Time runs 0..`runs` of the scenario (`--runs`, 1 by default) one after
/// another, each built and then run; the figures printed are their sums
/// (build and run time, on-CPU time, packets, events), the memory after the
/// first build and the process's peak. The on-CPU time is read from
/// schedstat, which the kernel brings up to date at its ticks and context
/// switches only, so a run of a few milliseconds (one connection for 3 s)
/// is timed only when many are summed.
pub fn run(file: &PathBuf, set: &[Override], runs: u32) -> ExitCode {
    eprintln!("# build: {}", crate::build_flavor());
    let s = match crate::load(file, set) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let mut built = None;
    let mut total: Option<mptlab_sim::bench::ScenarioTiming> = None;
    let mut cpu = Some(0.0);
    for run in 0..runs.max(1) {
        let mut cpu0 = None;
        let t = match mptlab_sim::bench::time_scenario_run(&s, run, &mut || {
            built.get_or_insert_with(rss_kib);
            cpu0 = cpu_ns();
        }) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                return ExitCode::from(1);
            }
        };
        let this = cpu_ns().zip(cpu0).map(|(b, a)| (b - a) as f64 / 1e9);
        cpu = cpu.zip(this).map(|(a, b)| a + b);
        match total.as_mut() {
            None => total = Some(t),
            Some(sum) => {
                sum.build_s += t.build_s;
                sum.run.wall_s += t.run.wall_s;
                sum.run.data_packets += t.run.data_packets;
                sum.run.events += t.run.events;
            }
        }
    }
    if runs > 1 {
        eprintln!("# runs: {runs} (sums over runs 0..{runs}; sim_s is one run's)");
    }
    let t = total.expect("at least one run");
    let built = built.unwrap_or((0, 0));
    let (_, peak) = rss_kib();
    let r = &t.run;
    outln!(
        "{:>11} {:>8} {:>8} {:>8} {:>8} {:>12} {:>12} {:>9} {:>9} {:>13} {:>13}",
        "connections",
        "sim_s",
        "build_s",
        "run_s",
        "cpu_s",
        "data_pkts",
        "events",
        "ns/pkt",
        "cpu_ns/pkt",
        "rss_built_kib",
        "peak_rss_kib"
    );
    outln!(
        "{:>11} {:>8.2} {:>8.3} {:>8.3} {:>8.3} {:>12} {:>12} {:>9.0} {:>9.0} {:>13} {:>13}",
        t.connections,
        r.sim_s,
        t.build_s,
        r.wall_s,
        cpu.unwrap_or(f64::NAN),
        r.data_packets,
        r.events,
        r.wall_s * 1e9 / r.data_packets.max(1) as f64,
        cpu.unwrap_or(f64::NAN) * 1e9 / r.data_packets.max(1) as f64,
        built.0,
        peak
    );
    ExitCode::SUCCESS
}
