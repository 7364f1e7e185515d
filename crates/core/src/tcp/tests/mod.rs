//! Endpoint tests in the smoltcp style: put an endpoint into a known state,
//! feed it a segment, check exactly what it emits. Then a two-endpoint
//! harness with a lossy in-memory wire.

use std::collections::VecDeque;

use super::cc::{CcKind, CubicVariant, HyStartMode};
use super::*;
use crate::endpoint::{AppEvent, Endpoint};
use crate::packet::{addr, flags, Packet, Payload, SackBlock, TcpSegment};
use crate::rng::SimRng;
use crate::time::{Nanos, MS, SEC};

const MSS: u64 = 1448;
const A: crate::Addr = addr(10, 0, 0, 1);
const B: crate::Addr = addr(10, 0, 0, 2);

/// Start of data segment `i` (0-based).
fn sq(i: u64) -> u64 {
    1 + i * MSS
}

fn cfg() -> TcpConfig {
    TcpConfig {
        cc: CcKind::NewReno,
        nagle: false,
        ..TcpConfig::default()
    }
}

fn tcp(p: &Packet) -> &TcpSegment {
    p.tcp().expect("tcp")
}

/// All packets the endpoint emits now.
macro_rules! recv {
    ($ep:expr, $now:expr) => {{
        let mut v = Vec::new();
        while let Some(p) = $ep.poll_transmit($now) {
            v.push(p);
        }
        v
    }};
}

/// Feed a segment (built by the fake peer) into an endpoint.
macro_rules! send {
    ($ep:expr, $now:expr, $seg:expr) => {{
        let s: TcpSegment = $seg;
        let p = Packet {
            src: B,
            dst: A,
            flow: 0,
            size: s.header_len(crate::packet::IpVersion::V4) + s.len,
            payload: Payload::Tcp(s),
        };
        $ep.handle_packet($now, &p);
    }};
}

fn events(ep: &mut TcpEndpoint) -> Vec<AppEvent> {
    let mut v = Vec::new();
    while let Some(e) = ep.poll_event() {
        v.push(e);
    }
    v
}

/// A segment from the fake peer.
fn peer(seq: u64, ack: u64, len: u32, fl: u8) -> TcpSegment {
    let mut s = TcpSegment::new(80, 1000);
    s.seq = seq;
    s.ack = ack;
    s.len = len;
    s.flags = fl;
    s.window = 1 << 20;
    s
}

/// ACK from the fake peer with SACK blocks (byte ranges) and TS echo.
fn ack_sack(ack: u64, blocks: &[(u64, u64)], ecr: Nanos) -> TcpSegment {
    let mut s = peer(1, ack, 0, flags::ACK);
    for (i, b) in blocks.iter().enumerate() {
        s.set_sack_block(
            i,
            SackBlock {
                start: b.0,
                end: b.1,
            },
        );
    }
    s.set_sack_len(blocks.len());
    s.set_ts(Some((0, ecr)));
    s
}

fn ack(ack: u64, ecr: Nanos) -> TcpSegment {
    ack_sack(ack, &[], ecr)
}

/// A SYN-ACK from a Linux-like peer.
fn syn_ack(sack: bool) -> TcpSegment {
    let mut s = peer(0, 1, 0, flags::SYN | flags::ACK);
    s.set_mss(Some(1460));
    s.wscale = Some(7);
    s.sack_permitted = sack;
    s.set_ts(Some((0, 0)));
    s.window = 65535;
    s
}

/// A client connected to the fake peer at t = 40 ms (SRTT = 40 ms).
fn client_with(c: &TcpConfig, sack: bool) -> TcpEndpoint {
    let mut ep = TcpEndpoint::new(c, 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    let syn = recv!(ep, 0);
    assert_eq!(syn.len(), 1);
    send!(ep, 40 * MS, syn_ack(sack));
    // window update to a big window
    let out = recv!(ep, 40 * MS);
    assert_eq!(out.len(), 1, "handshake ACK");
    send!(ep, 40 * MS, ack(1, 0));
    assert_eq!(events(&mut ep), vec![AppEvent::Connected]);
    ep
}

fn client() -> TcpEndpoint {
    client_with(&cfg(), true)
}

fn seqs(v: &[Packet]) -> Vec<u64> {
    v.iter().map(|p| tcp(p).seq).collect()
}

// Topics; declared after the helpers so their macros are in scope.
mod handshake;
mod harness;
mod hz;
mod pacing;
mod rack;
mod rcvwnd;
mod receiving;
mod recovery;
mod round_timer;
mod rto_tlp_undo;
mod sending;
mod timer_slack;
mod windows;
