//! Gaming trace readers: CSV `time_ms,size_bytes`, and the D-ITG pair
//! (inter-departure file + size file). First byte even: CSV; odd: D-ITG,
//! the two files separated by the first NUL byte. A parsed trace is
//! replayed as the simulator does (`TraceSource`, shifted by a start time).
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_core::rng::SimRng;
use mptlab_core::time::MS;
use mptlab_core::traffic::gaming_trace::{Trace, TraceSource};
use mptlab_core::traffic::MessageSource;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let t = if sel % 2 == 0 {
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        Trace::from_csv("g.csv", text)
    } else {
        let cut = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let (a, b) = rest.split_at(cut);
        let (Ok(idt), Ok(ps)) = (
            std::str::from_utf8(a),
            std::str::from_utf8(b.get(1..).unwrap_or(&[])),
        ) else {
            return;
        };
        Trace::from_ditg("g.idt", idt, "g.ps", ps)
    };
    let Ok(t) = t else {
        return;
    };
    let _ = t.means();
    // `traffic.start_s` = 1 s
    let mut src = TraceSource::new(t, 1000 * MS);
    let mut rng = SimRng::from_u64(1);
    let mut last = 0;
    while let Some(m) = src.next(&mut rng) {
        assert!(m.at >= last, "replay goes back in time");
        last = m.at;
    }
});
