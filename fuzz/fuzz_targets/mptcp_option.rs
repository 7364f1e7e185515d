//! The TCP options walk and the MPTCP option decoder (RFC 8684 section 3),
//! and the SCTP chunk walk (RFC 9260 3), on any bytes. Contract: no panic;
//! an MPTCP option decodes only when its length octet is its length.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_analyze::mptcp::{parse_mptcp, parse_tcp_options};

fuzz_target!(|data: &[u8]| {
    let t = parse_tcp_options(data);
    // every decoded MPTCP option came from a whole option of the field
    assert!(t.mptcp.len() <= data.len() / 3);
    if parse_mptcp(data).is_ok() {
        assert_eq!(data[1] as usize, data.len());
        assert_eq!(data[0], 30);
    }
    if let Ok(p) = mptlab_analyze::sctp::parse_sctp(data, data.len() % 7) {
        assert!(p.chunks.len() <= data.len() / 4);
    }
});
