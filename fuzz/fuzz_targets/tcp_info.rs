//! `struct tcp_info` as the kernel fills it, of any length
//! (`mptlab_emu::sock::parse_tcp_info`): fields beyond the length are
//! unknown, never read out of bounds.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_emu::sock::parse_tcp_info;

fuzz_target!(|data: &[u8]| {
    let i = parse_tcp_info(data);
    assert_eq!(i.bytes_sent.is_some(), data.len() >= 208);
});
