//! Run files read back by sweep resume (`runs/<point>/run-<r>.json`,
//! `decode_run`): decoded or a clean error; what decodes re-encodes to a
//! document that decodes to the same bytes again.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_results::{decode_run, decode_run_tables, encode_run};

fuzz_target!(|data: &[u8]| {
    // what a sweep without merged tables reads (summary.json needs `paths`)
    let _ = decode_run_tables(data, &|n| n == "paths");
    let Ok(o) = decode_run(data) else {
        return;
    };
    let e = encode_run(&o);
    let back = decode_run(&e).expect("an encoded run decodes");
    assert_eq!(encode_run(&back), e, "encode(decode(x)) is stable");
});
