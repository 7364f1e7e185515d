//! Helpers shared by the scenario-level integration tests: parse a scenario
//! text with `--set`-style overrides, run it, read summary metrics and
//! table cells. (Each test file includes this module; not every file uses
//! every helper.)
#![allow(dead_code)]

use mptlab_results::{RunOutput, Table, Value};
use mptlab_scenario::{Override, Scenario};

/// Seed 003's 2x2 multi-ISP mesh as a TOML fragment (`[topology]`, its
/// nodes and the four access/ISP links; no peering between the ISPs), shared
/// by the tests that build on it with `concat!`. A macro, not a `const`,
/// because `concat!` takes only literals.
#[macro_export]
macro_rules! mesh_2x2_topology {
    () => {
        r#"[topology]
client = "c"
server = "s"
[[topology.node]]
name = "c"
kind = "host"
addresses = ["10.1.0.2", "10.2.0.2"]
[[topology.node]]
name = "s"
kind = "host"
addresses = ["10.0.1.2", "10.0.2.2"]
[[topology.node]]
name = "ispA"
kind = "router"
[[topology.node]]
name = "ispB"
kind = "router"
[[topology.link]]
a = "c"
b = "ispA"
rate_mbit = 10
delay_ms = 15
queue_packets = 100
[[topology.link]]
a = "c"
b = "ispB"
rate_mbit = 10
delay_ms = 25
queue_packets = 100
[[topology.link]]
a = "ispA"
b = "s"
rate_mbit = 100
delay_ms = 5
queue_packets = 1000
[[topology.link]]
a = "ispB"
b = "s"
rate_mbit = 100
delay_ms = 5
queue_packets = 1000
"#
    };
}

/// Parse `text` with overrides such as `"transport.cc=olia"`.
pub fn scenario(text: &str, sets: &[&str]) -> Result<Scenario, String> {
    let ov: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Scenario::from_str_with_overrides(text, "test.toml", &ov).map_err(|e| e.to_string())
}

/// Every run of the scenario (`scenario.runs`), in order.
pub fn run_all(text: &str, sets: &[&str]) -> Vec<RunOutput> {
    let s = scenario(text, sets).unwrap();
    mptlab_sim::supported(&s).unwrap();
    (0..s.meta.runs)
        .map(|r| mptlab_sim::run_once(&s, r).unwrap())
        .collect()
}

/// A summary metric of one run (NaN when absent).
pub fn metric_of(r: &RunOutput, k: &str) -> f64 {
    r.summary
        .get(k)
        .and_then(|x| x.as_f64())
        .unwrap_or(f64::NAN)
}

/// Median over runs of a summary metric; `missing` stands in where a run
/// has none.
pub fn median(runs: &[RunOutput], k: &str, missing: f64) -> f64 {
    let mut v: Vec<f64> = runs
        .iter()
        .map(|r| r.summary.get(k).and_then(|x| x.as_f64()).unwrap_or(missing))
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Mean over runs of a summary metric (NaN if any run has none).
pub fn mean(runs: &[RunOutput], k: &str) -> f64 {
    runs.iter().map(|r| metric_of(r, k)).sum::<f64>() / runs.len() as f64
}

pub fn table<'a>(r: &'a RunOutput, name: &str) -> &'a Table {
    r.tables.iter().find(|t| t.name == name).unwrap()
}

pub fn cell_str(v: Option<Value>) -> String {
    match v {
        Some(Value::Str(s)) => s,
        other => panic!("not a string: {other:?}"),
    }
}

pub fn cell_f64(v: Option<Value>) -> f64 {
    v.and_then(|v| v.as_f64()).unwrap()
}
