//! Sweep file reader (`[sweep]` axes and points over a base scenario): a
//! planned sweep or a clean error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_scenario::Sweep;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Sweep::from_str(text, "fuzz.toml", &[], None) {
        Ok(sw) => {
            for p in &sw.points {
                let _ = (&p.id, &p.label, p.scenario.input_files());
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
