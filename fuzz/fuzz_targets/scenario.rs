//! Scenario reader + validator: any text is a valid scenario or a clean
//! `ScenarioError` (printable), never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_scenario::Scenario;

fuzz_target!(|data: &[u8]| {
    // `Scenario::from_file` reads text (a non-UTF-8 file is an I/O error)
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::from_str(text, "fuzz.toml") {
        Ok(s) => {
            // what `check` and `run` do next with a valid scenario
            let _ = mptlab_sim::supported(&s);
            let _ = s.input_files();
            let _ = s.run_seed(0);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
