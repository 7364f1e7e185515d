//! Mahimahi link trace reader (one ms timestamp per line). A parsed trace
//! is walked as a link does (`TraceCursor`: time, advance, seek), over the
//! first minute of a run.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_core::time::MS;
use mptlab_core::trace::{Trace, TraceCursor};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(t) = Trace::parse(text, "fuzz.trace") else {
        return;
    };
    assert!(t.period_ms > 0 && !t.opportunities_ms.is_empty());
    let _ = t.mean_rate_bps();
    let mut c = TraceCursor::new();
    let mut last = c.time(&t);
    for _ in 0..256 {
        c.advance(&t);
        let now = c.time(&t);
        assert!(now >= last, "opportunities go back in time");
        last = now;
    }
    for at in [0, 1, 999 * MS, 1000 * MS, 1000 * MS + 1, 60_000 * MS] {
        let mut c = TraceCursor::new();
        c.seek(&t, at);
        assert!(c.time(&t) >= at);
        // the first such opportunity: what walking one by one finds
        let mut w = TraceCursor::new();
        for _ in 0..4096 {
            if w.time(&t) >= at {
                assert_eq!(
                    w.time(&t),
                    c.time(&t),
                    "seek to {at} ns skipped an opportunity"
                );
                break;
            }
            w.advance(&t);
        }
    }
});
