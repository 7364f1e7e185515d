//! mptlab-sim: the discrete-event simulator driving the sans-IO models of
//! mptlab-core over a simulated network.

mod addr_index;
pub mod aggregate;
pub mod apps;
pub mod bench;
mod calendar;
pub mod capture;
pub mod events;
pub mod failover;
pub mod metrics;
pub mod network;
pub mod output;
pub mod population;
mod prefetch;
pub mod routes;
pub mod runner;
pub mod topology;
pub mod world;

use std::cell::RefCell;
use std::rc::Rc;

use mptlab_core::time::MS;
use mptlab_results::RunOutput;
use mptlab_scenario::Scenario;

/// Names a scenario may use that the simulator does not implement yet, per
/// scenario key; `mptlab list` marks them. Keep in step with `supported`.
pub const NOT_SIMULATED: &[(&str, &str)] = &[];

/// Whether the simulator implements everything `scenario` asks for; the
/// error says what is missing. Checked before any run starts.
pub fn supported(scenario: &Scenario) -> Result<(), String> {
    runner::supported(scenario)
}

/// Simulate run `run_index` (0-based) of `scenario` with seed
/// `scenario.run_seed(run_index)`.
pub fn run_once(scenario: &Scenario, run_index: u32) -> Result<RunOutput, String> {
    let mut b = runner::build(scenario, run_index)?;
    let series = Rc::new(RefCell::new(output::Series::default()));
    let agg_series = Rc::new(RefCell::new(aggregate::Series::default()));
    let iv = scenario.output.timeseries_interval_ms;
    // the clients preset sums its rows per population unless asked
    let aggregate = scenario
        .population
        .as_ref()
        .is_some_and(|p| !p.per_connection_rows);
    if iv > 0.0 && aggregate {
        b.world.set_sampling(
            (iv * MS as f64).round().max(1.0) as u64,
            aggregate::sampler(agg_series.clone(), scenario.output.cwnd_series),
        );
    } else if iv > 0.0 {
        b.world.set_sampling(
            (iv * MS as f64).round().max(1.0) as u64,
            output::sampler(series.clone(), scenario.output.cwnd_series),
        );
    }
    if scenario.output.capture {
        b.world.capture = Some(Box::new(capture::start(scenario, run_index, &b.world)?));
    }
    b.world.run(b.end);
    if let Some(c) = b.world.capture.take() {
        c.finish().map_err(|e| format!("run {run_index}: {e}"))?;
    }
    let mut rep = metrics::Report::default();
    for a in &b.world.apps {
        if let Some(e) = a.error() {
            return Err(format!("run {run_index}: {e}"));
        }
        a.report(&mut rep);
    }
    let series = series.borrow();
    let rt = if aggregate {
        aggregate::tables(
            &b.world,
            &rep,
            (iv > 0.0).then_some(&*agg_series.borrow()),
            b.end,
            &b.drawn,
            b.layout.client_addrs.len(),
        )
    } else {
        output::tables(
            &b.world,
            &rep,
            (iv > 0.0).then_some(&*series),
            b.end,
            &b.drawn,
            &b.layout.client_addrs,
        )
    };
    let mut out = RunOutput::new(run_index, scenario.run_seed(run_index));
    out.tables = rt.tables;
    for (k, v) in rt.summary {
        out.set_metric(k, v);
    }
    Ok(out)
}
