//! Speed measurement: simulated data packets per wall-clock second on one
//! core. Used by `mptlab bench`; never by tests (tests check behaviour, not
//! speed).

use std::time::Instant;

use mptlab_scenario::Scenario;

use crate::runner;

/// What one timed run did.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub name: String,
    pub wall_s: f64,
    pub sim_s: f64,
    pub data_packets: u64,
    pub events: u64,
}

impl BenchResult {
    pub fn packets_per_s(&self) -> f64 {
        self.data_packets as f64 / self.wall_s
    }
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s
    }
}

/// Time run 0 of a scenario (topology building excluded; no sampling).
pub fn time_run(name: &str, s: &Scenario) -> Result<BenchResult, String> {
    let mut b = runner::build(s, 0)?;
    let t0 = Instant::now();
    b.world.run(b.end);
    let wall = t0.elapsed().as_secs_f64();
    Ok(BenchResult {
        name: name.to_string(),
        wall_s: wall,
        sim_s: b.world.now as f64 / 1e9,
        data_packets: b.world.data_packets_delivered,
        events: b.world.events.popped(),
    })
}

/// The benchmark scenarios of issues 2 and 3, as scenario text.
pub fn scenarios(duration_s: f64) -> Vec<(&'static str, String)> {
    vec![
        (
            "single-flow-20mbit-40ms",
            format!(
                r#"
[scenario]
name = "bench-single"
duration_s = {duration_s}
[topology]
preset = "single-path"
paths = ["p"]
[profile.p]
rate_mbit = 20
delay_ms = 20
queue_packets = 100
[transport]
protocol = "tcp"
cc = "cubic"
[traffic]
model = "bulk"
[output]
timeseries_interval_ms = 0
"#
            ),
        ),
        (
            "seed000-wlan-3g-background",
            format!(
                r#"
[scenario]
name = "bench-seed000"
duration_s = {duration_s}
[topology]
preset = "two-path"
paths = ["wlan", "3g"]
[transport]
protocol = "tcp"
cc = "cubic"
[traffic]
model = "video"
bitrate_kbit = 950
fps = 30
[background]
enabled = true
[output]
timeseries_interval_ms = 0
"#
            ),
        ),
        (
            // htsim's classic MPTCP example: one LIA connection over a 3G path
            // (166 packets/s of 1500 bytes = 1.992 Mbit/s, 150 ms RTT) and a
            // Wi-Fi path (8000 packets/s = 96 Mbit/s, 10 ms RTT).
            "mptcp-lia-3g-wifi",
            format!(
                r#"
[scenario]
name = "bench-mptcp"
duration_s = {duration_s}
[topology]
preset = "two-path"
paths = ["wifi", "threeg"]
[profile.wifi]
rate_mbit = 96
delay_ms = 5
queue_packets = 100
[profile.threeg]
rate_mbit = 1.992
delay_ms = 75
queue_packets = 100
[transport]
protocol = "mptcp"
cc = "lia"
sndbuf_kib = 8192
rcvbuf_kib = 8192
[traffic]
model = "bulk"
[output]
timeseries_interval_ms = 0
"#
            ),
        ),
    ]
}

/// A timed run of any scenario (`mptlab bench --scale`): building the world
/// and running it are timed apart, and `after_build` is called between them
/// (the caller reads the process's memory there).
#[derive(Clone, Debug)]
pub struct ScenarioTiming {
    /// Flows (connections) of the run.
    pub connections: usize,
    pub build_s: f64,
    pub run: BenchResult,
}

/// Time run 0 of `s` as it is written (sampling as configured is not
/// installed: the time series is output, `mptlab run` measures it).
pub fn time_scenario(
    s: &Scenario,
    after_build: &mut dyn FnMut(),
) -> Result<ScenarioTiming, String> {
    time_scenario_run(s, 0, after_build)
}

/// `time_scenario` for run `run` of `s` (its seed is the run's).
pub fn time_scenario_run(
    s: &Scenario,
    run: u32,
    after_build: &mut dyn FnMut(),
) -> Result<ScenarioTiming, String> {
    let t0 = Instant::now();
    let mut b = runner::build(s, run)?;
    let build_s = t0.elapsed().as_secs_f64();
    after_build();
    let t1 = Instant::now();
    b.world.run(b.end);
    let wall = t1.elapsed().as_secs_f64();
    Ok(ScenarioTiming {
        connections: b.world.flows.len(),
        build_s,
        run: BenchResult {
            name: s.meta.name.clone(),
            wall_s: wall,
            sim_s: b.world.now as f64 / 1e9,
            data_packets: b.world.data_packets_delivered,
            events: b.world.events.popped(),
        },
    })
}
