//! Tests: unit tests of the building blocks and an in-memory two-path wire
//! harness for whole transfers (deterministic; drops only via `SimRng` or
//! explicit rules).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::chunk::*;
#[allow(unused_imports)]
use super::cmt::*;
use super::config::*;
use super::congestion::*;
use super::path::Path;
use super::recv::{DeliveredMsg, Reassembly};
use super::sack::TsnTracker;
use super::*;
use crate::endpoint::{AppEvent, Endpoint};
use crate::packet::{addr, Addr, Packet, Payload};
use crate::rng::SimRng;
use crate::time::{tx_time, Nanos, MS, SEC};

// ---------------------------------------------------------------------------
// Harness: two hosts, two links (subnets 10.0.0.x and 10.0.1.x).
// ---------------------------------------------------------------------------

const A0: Addr = addr(10, 0, 0, 1);
const A1: Addr = addr(10, 0, 1, 1);
const B0: Addr = addr(10, 0, 0, 2);
const B1: Addr = addr(10, 0, 1, 2);

#[derive(Clone, Copy)]
struct Link {
    delay: Nanos,
    rate_bps: u64,
    loss: f64,
    up: bool,
}

impl Link {
    fn new(delay: Nanos, rate_bps: u64) -> Link {
        Link {
            delay,
            rate_bps,
            loss: 0.0,
            up: true,
        }
    }
}

type DropRule = Box<dyn FnMut(bool, &Packet) -> bool>;

struct Harness {
    a: SctpAssociation,
    b: SctpAssociation,
    links: [Link; 2],
    /// next free time per (link, direction a->b = 0)
    free_at: [[Nanos; 2]; 2],
    queue: BinaryHeap<Reverse<(Nanos, u64, bool, usize)>>,
    pkts: Vec<Option<Packet>>,
    seq: u64,
    now: Nanos,
    rng: SimRng,
    /// drop rule: (is a->b, packet) -> drop?
    drop: DropRule,
    a_events: Vec<(Nanos, AppEvent)>,
    b_events: Vec<(Nanos, AppEvent)>,
    /// bytes the sender still has to write
    to_write: u64,
    written: u64,
    close_after_write: bool,
    /// data-carrying packets per link, a->b
    data_pkts: [u64; 2],
    hb_pkts: [u64; 2],
    /// size of each message the sender writes
    msg: u64,
    /// (time, a_rwnd) of every SACK B sends
    b_sacks: Vec<(Nanos, u64)>,
    /// most bytes B's receive buffer held at any time
    b_max_held: u64,
    /// largest packet A sent (IP size)
    a_max_size: u32,
}

/// The link is given by host A's address (10.0.<link>.1): the source of
/// A's packets, the destination of B's (source-address routing).
fn link_of(p: &Packet, from_a: bool) -> usize {
    let a_side = if from_a { p.src } else { p.dst };
    a_side.to_be_bytes()[2] as usize
}

impl Harness {
    fn new(cfg_a: SctpConfig, cfg_b: SctpConfig, links: [Link; 2]) -> Harness {
        Self::with_addrs(cfg_a, cfg_b, links, &[B0, B1])
    }

    /// B with the given addresses (one: a single-homed server as in
    /// mptlab's Fig. 5 topology).
    fn with_addrs(
        cfg_a: SctpConfig,
        cfg_b: SctpConfig,
        links: [Link; 2],
        b_addrs: &[Addr],
    ) -> Harness {
        let a = SctpAssociation::new(1, &[A0, A1], 5000, b_addrs, 6000, cfg_a);
        let b = SctpAssociation::new(1, b_addrs, 6000, &[A0, A1], 5000, cfg_b);
        Harness {
            a,
            b,
            links,
            free_at: [[0; 2]; 2],
            queue: BinaryHeap::new(),
            pkts: Vec::new(),
            seq: 0,
            now: 0,
            rng: SimRng::stream(1, "wire"),
            drop: Box::new(|_, _| false),
            a_events: Vec::new(),
            b_events: Vec::new(),
            to_write: 0,
            written: 0,
            close_after_write: false,
            data_pkts: [0; 2],
            hb_pkts: [0; 2],
            msg: 1452,
            b_sacks: Vec::new(),
            b_max_held: 0,
            a_max_size: 0,
        }
    }

    fn send(&mut self, from_a: bool, p: Packet) {
        let l = link_of(&p, from_a);
        let link = self.links[l];
        if from_a {
            self.a_max_size = self.a_max_size.max(p.size);
            if p.is_data() {
                self.data_pkts[l] += 1;
            }
            if let Payload::Sctp(s) = &p.payload {
                if s.chunks
                    .iter()
                    .any(|c| matches!(c, Chunk::Heartbeat { .. }))
                {
                    self.hb_pkts[l] += 1;
                }
            }
        }
        if !from_a {
            if let Payload::Sctp(s) = &p.payload {
                for c in &s.chunks {
                    if let Chunk::Sack(k) = c {
                        self.b_sacks.push((self.now, k.a_rwnd));
                    }
                }
            }
        }
        let dir = if from_a { 0 } else { 1 };
        let start = self.free_at[l][dir].max(self.now);
        let done = start + tx_time(p.size as u64, link.rate_bps);
        self.free_at[l][dir] = done;
        if !link.up || (link.loss > 0.0 && self.rng.chance(link.loss)) || (self.drop)(from_a, &p) {
            return;
        }
        self.seq += 1;
        self.pkts.push(Some(p));
        self.queue.push(Reverse((
            done + link.delay,
            self.seq,
            !from_a,
            self.pkts.len() - 1,
        )));
    }

    fn pump(&mut self) {
        loop {
            let mut any = false;
            while let Some(p) = self.a.poll_transmit(self.now) {
                self.send(true, p);
                any = true;
            }
            while let Some(p) = self.b.poll_transmit(self.now) {
                self.send(false, p);
                any = true;
            }
            let mut evs = Vec::new();
            while let Some(e) = self.a.poll_event() {
                evs.push(e);
            }
            for e in evs {
                if matches!(e, AppEvent::Connected | AppEvent::Writable) {
                    self.fill();
                    any = true;
                }
                self.a_events.push((self.now, e));
            }
            while let Some(e) = self.b.poll_event() {
                self.b_events.push((self.now, e));
            }
            if !any {
                break;
            }
        }
        self.a.check_invariants();
        self.b.check_invariants();
        self.b_max_held = self.b_max_held.max(self.b.recv_buffer_held());
    }

    fn fill(&mut self) {
        while self.to_write > 0 {
            let n = self.a.write(self.now, self.to_write.min(self.msg_size()));
            if n == 0 {
                break;
            }
            self.to_write -= n;
            self.written += n;
        }
        if self.to_write == 0 && self.close_after_write {
            self.a.close(self.now);
        }
    }

    fn msg_size(&self) -> u64 {
        self.msg
    }

    fn run_until(&mut self, end: Nanos) {
        self.pump();
        loop {
            let tq = self.queue.peek().map(|r| r.0 .0);
            let t = [tq, self.a.poll_timeout(), self.b.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            let Some(t) = t else { break };
            if t > end {
                break;
            }
            self.now = t.max(self.now);
            if tq == Some(t) {
                let Reverse((_, _, to_a, idx)) = self.queue.pop().unwrap();
                let p = self.pkts[idx].take().unwrap();
                if to_a {
                    self.a.handle_packet(self.now, &p);
                } else {
                    self.b.handle_packet(self.now, &p);
                }
            } else {
                if self.a.poll_timeout().is_some_and(|x| x <= self.now) {
                    self.a.handle_timeout(self.now);
                }
                if self.b.poll_timeout().is_some_and(|x| x <= self.now) {
                    self.b.handle_timeout(self.now);
                }
            }
            self.pump();
        }
        self.now = self.now.max(end);
    }

    fn delivered(&self) -> u64 {
        self.b_events
            .iter()
            .filter_map(|(_, e)| {
                if let AppEvent::Delivered { total } = e {
                    Some(*total)
                } else {
                    None
                }
            })
            .max()
            .unwrap_or(0)
    }
}

fn fast_links() -> [Link; 2] {
    [
        Link::new(10 * MS, 10_000_000),
        Link::new(10 * MS, 10_000_000),
    ]
}

/// Sender-side transfer of `total` bytes in `msg`-byte messages.
fn transfer(cfg: SctpConfig, links: [Link; 2], total: u64, msg: u64) -> Harness {
    let mut h = Harness::new(cfg.clone(), cfg, links);
    h.to_write = total;
    h.msg = msg;
    h.close_after_write = true;
    h.a.connect(0);
    h
}

/// Every delivered byte arrives once, in order: Delivered totals increase
/// and end at the written total.
fn check_in_order(h: &Harness, total: u64) {
    let mut last = 0;
    for (_, e) in &h.b_events {
        if let AppEvent::Delivered { total: t } = e {
            assert!(*t > last, "delivered total must grow");
            last = *t;
        }
    }
    assert_eq!(last, total, "all bytes delivered exactly once");
    h.a.check_invariants();
    h.b.check_invariants();
}

// Helpers shared by the topic modules.

fn shares(h: &Harness) -> (f64, f64) {
    let p = h.a.paths();
    let b0 = p[0].counters.bytes_sent as f64;
    let b1 = p[1].counters.bytes_sent as f64;
    (b0 / (b0 + b1), b1 / (b0 + b1))
}

fn data(tsn: u64, ssn: u64, b: bool, e: bool, len: u32, off: u64, u: bool) -> DataChunk {
    DataChunk {
        tsn,
        stream: 0,
        ssn,
        unordered: u,
        begin: b,
        end: e,
        len,
        msg_offset: off,
    }
}

fn tsns_of(p: &Packet) -> Vec<u64> {
    match &p.payload {
        Payload::Sctp(s) => s
            .chunks
            .iter()
            .filter_map(|c| {
                if let Chunk::Data(d) = c {
                    Some(d.tsn)
                } else {
                    None
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn sacks_of(p: &Packet) -> Vec<SackChunk> {
    match &p.payload {
        Payload::Sctp(s) => s
            .chunks
            .iter()
            .filter_map(|c| {
                if let Chunk::Sack(x) = c {
                    Some(x.clone())
                } else {
                    None
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Drop the first transmission of the given TSNs (a -> b).
fn drop_first(tsns: &'static [u64]) -> DropRule {
    let mut seen = std::collections::HashSet::new();
    Box::new(move |a2b, p| {
        a2b && tsns_of(p)
            .iter()
            .any(|t| tsns.contains(t) && seen.insert(*t))
    })
}

// Topics; declared after the helpers.
mod partial_delivery;
mod transfers;
mod units;
mod wire_cmt;
mod wire_recovery;
mod wire_sending;
