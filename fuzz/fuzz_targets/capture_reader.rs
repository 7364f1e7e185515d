//! `mptlab analyze` on any bytes: pcap/pcapng reading (pcap-parser), link
//! and IP/TCP/UDP decoding (etherparse), the MPTCP option and SCTP chunk
//! decoders, connection tracking, the result tables and the figures.
//! Contract: a value or a clean error naming the input, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = mptlab_analyze::Options::default();
    match mptlab_analyze::analyze_bytes("fuzz.pcap", data, &opts) {
        Ok(fa) => {
            assert!(fa.analysed <= fa.frames);
            assert_eq!(fa.frames - fa.analysed, fa.skipped.values().sum::<u64>());
            let out = mptlab_analyze::to_run_output(0, &fa, &opts);
            assert!(out.table("paths").is_some());
            for (i, f) in fa.flows.iter().enumerate().take(4) {
                let (a, b) = mptlab_analyze::svg::flow_figures(&fa, i, f, 100.0);
                assert!(a.ends_with("</svg>\n") && b.ends_with("</svg>\n"));
            }
        }
        Err(e) => assert!(e.starts_with("fuzz.pcap: "), "{e}"),
    }
});
