//! Byte decoders of the emulation agents (crates/emu/src/agent.rs): the
//! message framing of a TCP stream (`Framer`) and the reassembly of UDP
//! datagrams (`Reassembly`). First byte: the read size the stream is cut
//! into; the rest is the stream, and also a sequence of datagrams (2-byte
//! big-endian length, then the datagram).
#![no_main]
use libfuzzer_sys::fuzz_target;
use mptlab_emu::agent::{Framer, Reassembly};

fuzz_target!(|data: &[u8]| {
    let Some((&k, wire)) = data.split_first() else {
        return;
    };
    let mut whole = Framer::default();
    let all = whole.feed(wire);
    let mut cut = Framer::default();
    let pieces: Vec<_> = wire
        .chunks(k.max(1) as usize)
        .flat_map(|c| cut.feed(c))
        .collect();
    assert_eq!(all, pieces, "framing depends on how reads cut the stream");

    let mut r = Reassembly::default();
    let mut rest = wire;
    let mut now = 0u64;
    while rest.len() >= 2 {
        let n = u16::from_be_bytes([rest[0], rest[1]]) as usize;
        let d = &rest[2..(2 + n).min(rest.len())];
        now += 1;
        let _ = r.datagram(d, 7, now);
        rest = &rest[(2 + n).min(rest.len())..];
    }
});
