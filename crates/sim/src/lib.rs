//! mptlab-sim: the discrete-event simulator (stub; the engine replaces it).

use mptlab_results::RunOutput;
use mptlab_scenario::Scenario;

/// Simulate run `run_index` (0-based) of `scenario` with seed
/// `scenario.run_seed(run_index)`.
pub fn run_once(scenario: &Scenario, run_index: u32) -> Result<RunOutput, String> {
    Ok(RunOutput::new(run_index, scenario.run_seed(run_index)))
}
