//! What runs a scenario: the simulator or the emulator. The CLI's run loop
//! (`runner::run`), sweeps and `validate` are handed a [`Driver`]
//! explicitly, so the emulator's options (the Ctrl-C flag, the capture
//! directory) travel with it instead of through process-wide state.

use mptlab_emu::run::EmulateOptions;
use mptlab_results::RunOutput;
use mptlab_scenario::Scenario;

/// Runs run `run` (0-based) of a scenario; shared by the worker threads.
pub trait Driver: Sync {
    /// What this driver supports of `s`, checked before the first run.
    fn supported(&self, _s: &Scenario) -> Result<(), String> {
        Ok(())
    }

    /// One run, with seed `s.run_seed(run)`.
    fn run_once(&self, s: &Scenario, run: u32) -> Result<RunOutput, String>;
}

/// The discrete-event simulator (`mptlab run`, sweeps, `reproduce`).
pub struct Simulate;

impl Driver for Simulate {
    fn supported(&self, s: &Scenario) -> Result<(), String> {
        mptlab_sim::supported(s)
    }

    fn run_once(&self, s: &Scenario, run: u32) -> Result<RunOutput, String> {
        mptlab_sim::run_once(s, run)
    }
}

/// Emulation over the real kernel (`mptlab emulate`, `validate`), with the
/// options `mptlab_emu::run::prepare` returned.
pub struct Emulate(pub EmulateOptions);

impl Driver for Emulate {
    fn supported(&self, s: &Scenario) -> Result<(), String> {
        mptlab_emu::run::supported(s)
    }

    fn run_once(&self, s: &Scenario, run: u32) -> Result<RunOutput, String> {
        mptlab_emu::run::run_once(s, run, &self.0)
    }
}

/// A plain function or closure is a driver too (the tests' fake runs).
impl<F: Fn(&Scenario, u32) -> Result<RunOutput, String> + Sync> Driver for F {
    fn run_once(&self, s: &Scenario, run: u32) -> Result<RunOutput, String> {
        self(s, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulate_runs_the_simulator_and_closures_are_drivers() {
        let text = "[scenario]\nname = \"t\"\nduration_s = 1\nruns = 1\n[topology]\npreset = \"single-path\"\npaths = [\"lte\"]\n[traffic]\nmodel = \"bulk\"\n";
        let s = Scenario::from_str(text, "t.toml").unwrap();
        let d: &dyn Driver = &Simulate;
        d.supported(&s).unwrap();
        assert_eq!(
            d.run_once(&s, 0).unwrap(),
            mptlab_sim::run_once(&s, 0).unwrap()
        );
        let fake = |s: &Scenario, i: u32| Ok(RunOutput::new(i, s.run_seed(i)));
        let d: &dyn Driver = &fake;
        assert!(d.supported(&s).is_ok());
        assert_eq!(d.run_once(&s, 0).unwrap().run, 0);
    }
}
