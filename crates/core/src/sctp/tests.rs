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
        Link { delay, rate_bps, loss: 0.0, up: true }
    }
}

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
    drop: Box<dyn FnMut(bool, &Packet) -> bool>,
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
}

fn link_of(p: &Packet) -> usize {
    (p.dst.to_be_bytes()[2]) as usize
}

impl Harness {
    fn new(cfg_a: SctpConfig, cfg_b: SctpConfig, links: [Link; 2]) -> Harness {
        let a = SctpAssociation::new(1, &[A0, A1], 5000, &[B0, B1], 6000, cfg_a);
        let b = SctpAssociation::new(1, &[B0, B1], 6000, &[A0, A1], 5000, cfg_b);
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
        }
    }

    fn send(&mut self, from_a: bool, p: Packet) {
        let l = link_of(&p);
        let link = self.links[l];
        if from_a {
            if p.is_data() {
                self.data_pkts[l] += 1;
            }
            if let Payload::Sctp(s) = &p.payload {
                if s.chunks.iter().any(|c| matches!(c, Chunk::Heartbeat { .. })) {
                    self.hb_pkts[l] += 1;
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
        self.queue.push(Reverse((done + link.delay, self.seq, !from_a, self.pkts.len() - 1)));
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
            let t = [tq, self.a.poll_timeout(), self.b.poll_timeout()].into_iter().flatten().min();
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
            .filter_map(|(_, e)| if let AppEvent::Delivered { total } = e { Some(*total) } else { None })
            .max()
            .unwrap_or(0)
    }
}

fn fast_links() -> [Link; 2] {
    [Link::new(10 * MS, 10_000_000), Link::new(10 * MS, 10_000_000)]
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
}

#[test]
fn handshake_and_single_path_transfer() {
    let mut h = transfer(SctpConfig::sctp(), fast_links(), 1_000_000, 1452);
    h.run_until(60 * SEC);
    assert!(h.a_events.iter().any(|e| e.1 == AppEvent::Connected));
    assert!(h.b_events.iter().any(|e| e.1 == AppEvent::Connected));
    check_in_order(&h, 1_000_000);
    // plain SCTP: data only on the primary, heartbeats on the other path
    assert!(h.data_pkts[0] >= 689);
    assert_eq!(h.data_pkts[1], 0);
    assert!(h.hb_pkts[1] >= 1);
    // shutdown completed on both sides
    assert_eq!(h.a.state(), State::Closed);
    assert_eq!(h.b.state(), State::Closed);
    assert!(h.b_events.iter().any(|e| e.1 == AppEvent::PeerClosed));
}
