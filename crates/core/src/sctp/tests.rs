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
        }
    }

    fn send(&mut self, from_a: bool, p: Packet) {
        let l = link_of(&p, from_a);
        let link = self.links[l];
        if from_a {
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

fn shares(h: &Harness) -> (f64, f64) {
    let p = h.a.paths();
    let b0 = p[0].counters.bytes_sent as f64;
    let b1 = p[1].counters.bytes_sent as f64;
    (b0 / (b0 + b1), b1 / (b0 + b1))
}

#[test]
fn cmt_bulk_transfer_uses_both_equal_paths_about_equally() {
    let mut h = transfer(SctpConfig::cmt(), fast_links(), 4_000_000, 1452);
    h.run_until(60 * SEC);
    check_in_order(&h, 4_000_000);
    let (s0, s1) = shares(&h);
    assert!(
        (0.4..=0.6).contains(&s0) && (0.4..=0.6).contains(&s1),
        "shares {s0} {s1}"
    );
    assert!(h.data_pkts[0] > 1000 && h.data_pkts[1] > 1000);
    assert_eq!(h.a.state(), State::Closed);
}

#[test]
fn cmt_is_faster_than_sctp_on_two_bottlenecks() {
    let mut s = transfer(SctpConfig::sctp(), fast_links(), 4_000_000, 1452);
    s.run_until(60 * SEC);
    let mut c = transfer(SctpConfig::cmt(), fast_links(), 4_000_000, 1452);
    c.run_until(60 * SEC);
    let done = |h: &Harness| {
        h.b_events
            .iter()
            .find(|(_, e)| *e == AppEvent::Delivered { total: 4_000_000 })
            .unwrap()
            .0
    };
    assert!(
        done(&c) * 10 < done(&s) * 7,
        "cmt {} sctp {}",
        done(&c),
        done(&s)
    );
}

#[test]
fn sctp_with_random_loss_delivers_everything_once_in_order() {
    let mut links = fast_links();
    links[0].loss = 0.02;
    let mut h = transfer(SctpConfig::sctp(), links, 2_000_000, 1452);
    h.run_until(300 * SEC);
    check_in_order(&h, 2_000_000);
    let c = &h.a.paths()[0].counters;
    assert!(c.retrans_fast > 0 && c.recoveries > 0);
    assert_eq!(h.data_pkts[1], h.a.paths()[1].counters.data_packets_sent);
}

#[test]
fn cmt_with_loss_and_different_delays_delivers_in_order() {
    for (policy, split, nr) in [
        (RtxPolicy::Same, BufferSplit::None, false),
        (RtxPolicy::LowestRtt, BufferSplit::Both, false),
        (RtxPolicy::LargestCwnd, BufferSplit::Sender, true),
        (RtxPolicy::LargestSsthresh, BufferSplit::Receiver, true),
    ] {
        let mut links = [Link::new(5 * MS, 10_000_000), Link::new(40 * MS, 5_000_000)];
        links[0].loss = 0.01;
        links[1].loss = 0.02;
        let cfg = SctpConfig {
            rtx_policy: policy,
            buffer_split: split,
            nr_sack: nr,
            ..SctpConfig::cmt()
        };
        let mut h = transfer(cfg, links, 2_000_000, 1452);
        h.run_until(600 * SEC);
        check_in_order(&h, 2_000_000);
        assert_eq!(h.a.state(), State::Closed, "{policy:?} {split:?}");
    }
}

#[test]
fn seed000_preset_transfers_with_rescheduling_and_lowest_rtt_retransmissions() {
    let mut links = [Link::new(5 * MS, 10_000_000), Link::new(50 * MS, 2_000_000)];
    links[1].loss = 0.02;
    let cfg = SctpConfig::seed000(256 * 1024, 256 * 1024);
    let mut h = transfer(cfg, links, 3_000_000, 1452);
    h.run_until(600 * SEC);
    check_in_order(&h, 3_000_000);
    let p = h.a.paths();
    // lowest-RTT policy: retransmissions of chunks lost on the slow path go to the fast one
    assert!(p[0].counters.bytes_retransmitted > p[1].counters.bytes_retransmitted);
    assert!(
        p[0].counters.bytes_reinjected + p[1].counters.bytes_reinjected > 0,
        "chunk rescheduling"
    );
}

// ---------------------------------------------------------------------------
// Unit tests of the building blocks
// ---------------------------------------------------------------------------

#[test]
fn tsn_tracker_builds_gap_blocks_and_duplicates() {
    let mut t = TsnTracker::default();
    for tsn in [0, 1, 3, 4, 7, 9, 10] {
        assert!(t.on_tsn(tsn));
    }
    assert!(!t.on_tsn(1), "duplicate below cum");
    assert!(!t.on_tsn(9), "duplicate in a gap block");
    assert_eq!(t.cum, Some(1));
    assert_eq!(t.gaps(), vec![(3, 4), (7, 7), (9, 10)]);
    let s = t.make_sack(1000, false, 0);
    assert_eq!(s.cum_tsn, Some(1));
    assert_eq!(s.gaps, vec![(3, 4), (7, 7), (9, 10)]);
    assert_eq!(s.dups, vec![1, 9]);
    assert!(s.nr_gaps.is_empty());
    // 16 + 3 gap blocks + 2 dups, 4 bytes each
    assert_eq!(s.wire_len(), 16 + 4 * 5);
    assert!(s.acks(0) && s.acks(4) && !s.acks(5) && s.acks(10));
    // filling the hole moves the cumulative ack over the first block
    assert!(t.on_tsn(2));
    assert_eq!(t.cum, Some(4));
    assert_eq!(t.gaps(), vec![(7, 7), (9, 10)]);
    // duplicates are reported once
    assert!(t.make_sack(1000, false, 0).dups.is_empty());
}

#[test]
fn nr_sack_reports_non_renegable_blocks() {
    let mut t = TsnTracker::default();
    for tsn in [0, 2, 3, 5] {
        t.on_tsn(tsn);
    }
    let s = t.make_sack(500, true, 0);
    assert!(s.nr);
    assert_eq!(s.gaps, vec![(2, 3), (5, 5)]);
    assert_eq!(s.nr_gaps, vec![(2, 3), (5, 5)]);
    assert_eq!(s.wire_len(), 20 + 4 * 4);
}

#[test]
fn wire_sizes_follow_the_chunk_formats() {
    let d = DataChunk {
        tsn: 0,
        stream: 0,
        ssn: 0,
        unordered: false,
        begin: true,
        end: true,
        len: 1452,
        msg_offset: 0,
    };
    let p = SctpPacket {
        src_port: 1,
        dst_port: 2,
        vtag: 1,
        chunks: vec![Chunk::Data(d)],
    };
    // seed 000: 1452 bytes of payload fill a 1500-byte IP packet
    assert_eq!(20 + p.wire_len(), 1500);
    let small = DataChunk { len: 101, ..d };
    let p = SctpPacket {
        src_port: 1,
        dst_port: 2,
        vtag: 1,
        chunks: vec![Chunk::Data(small), Chunk::Data(small)],
    };
    // chunks are padded to 4 bytes: 16 + 101 -> 120
    assert_eq!(p.wire_len(), 12 + 2 * 120);
    assert_eq!(p.data_len(), 202);
    assert_eq!(initial_cwnd(1500), 4380);
    assert_eq!(initial_cwnd(9000), 18000);
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

#[test]
fn reassembly_orders_messages_and_fragments() {
    let mut r = Reassembly::default();
    let mut out: Vec<DeliveredMsg> = Vec::new();
    // message 0 = TSN 0..2 (3 fragments), message 1 = TSN 3 (single)
    r.add(10, &data(3, 1, true, true, 100, 3000, false), &mut out);
    assert!(out.is_empty(), "message 1 waits for message 0");
    r.add(20, &data(0, 0, true, false, 1000, 0, false), &mut out);
    r.add(30, &data(2, 0, false, true, 1000, 0, false), &mut out);
    assert!(out.is_empty(), "fragment 1 missing");
    assert_eq!(r.held, 2100);
    r.add(50, &data(1, 0, false, false, 1000, 0, false), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].offset, out[0].len), (0, 3000));
    assert_eq!((out[1].offset, out[1].len), (3000, 100));
    assert_eq!(r.held, 0);
    // waiting time: 1000 B waited 30, 1000 B waited 20, 1000 B 0, 100 B waited 40
    assert_eq!(r.stats.bytes, 3100);
    assert_eq!(r.stats.wait_ns_bytes, 30_000 + 20_000 + 4_000);
    assert_eq!(r.stats.max_wait, 40);
}

#[test]
fn unordered_messages_are_delivered_when_complete() {
    let mut r = Reassembly::default();
    let mut out = Vec::new();
    r.add(0, &data(5, 0, true, true, 10, 500, true), &mut out);
    assert_eq!(out.len(), 1, "no waiting for earlier TSNs");
    r.add(1, &data(2, 0, true, false, 10, 200, true), &mut out);
    assert_eq!(out.len(), 1);
    r.add(2, &data(3, 0, false, true, 10, 200, true), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(
        (out[1].offset, out[1].len, out[1].unordered),
        (200, 20, true)
    );
}

fn path(cwnd: u64, ssthresh: u64, flight: u64) -> Path {
    let mut p = Path::new(1, 2, cwnd, ssthresh, SEC);
    p.flight = flight;
    p.flight_before_sack = flight;
    p
}

#[test]
fn congestion_control_follows_rfc_section_7() {
    let mtu = 1500;
    // slow start: + min(acked, MTU) when fully used and the cum ack advanced
    let mut ps = vec![path(4380, 100_000, 4380)];
    on_ack(&mut ps, 0, 2904, true, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 5880);
    // no increase without (pseudo-)cumulative progress (CUC) ...
    on_ack(&mut ps, 0, 2904, false, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 5880);
    // ... or when the window was not fully used
    ps[0].flight_before_sack = 1000;
    on_ack(&mut ps, 0, 1000, true, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 5880);
    // congestion avoidance: one MTU per cwnd of acked bytes
    let mut ps = vec![path(10_000, 5_000, 10_000)];
    on_ack(&mut ps, 0, 6000, true, mtu, CcVariant::Uncoupled);
    assert_eq!((ps[0].cwnd, ps[0].pba), (10_000, 6000));
    on_ack(&mut ps, 0, 6000, true, mtu, CcVariant::Uncoupled);
    assert_eq!((ps[0].cwnd, ps[0].pba), (11_500, 2000));
    // fast retransmit halves (floor 4 MTU), T3 collapses to 1 MTU
    let mut ps = vec![path(20_000, 50_000, 0)];
    on_fast_retransmit(&mut ps, 0, mtu, CcVariant::Uncoupled);
    assert_eq!((ps[0].cwnd, ps[0].ssthresh), (10_000, 10_000));
    on_fast_retransmit(&mut ps, 0, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].ssthresh, 6000);
    on_timeout(&mut ps[0], mtu);
    assert_eq!((ps[0].cwnd, ps[0].ssthresh), (1500, 6000));
    // no growth during fast recovery
    let mut ps = vec![path(4380, 100_000, 4380)];
    ps[0].fast_recovery_exit = Some(10);
    on_ack(&mut ps, 0, 1452, true, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 4380);
}

#[test]
fn max_burst_use_it_or_lose_it() {
    let mut p = path(100_000, 100_000, 3000);
    apply_max_burst(&mut p, 4, 1500);
    assert_eq!(p.cwnd, 3000 + 4 * 1500);
    // a sender using its window keeps it
    let mut p = path(10_000, 100_000, 9000);
    apply_max_burst(&mut p, 4, 1500);
    assert_eq!(p.cwnd, 10_000);
    // Max.Burst 0 disables the rule
    let mut p = path(100_000, 100_000, 0);
    apply_max_burst(&mut p, 0, 1500);
    assert_eq!(p.cwnd, 100_000);
}

#[test]
fn cmt_rpv2_shares_increase_and_gives_back_half_of_the_aggregate() {
    let mtu = 1500;
    let mut a = path(30_000, 10_000, 30_000);
    a.srtt = Some(10 * MS);
    let mut b = path(10_000, 5_000, 10_000);
    b.srtt = Some(10 * MS);
    let mut ps = vec![a, b];
    // CA increase scaled by the path's share of the aggregate bandwidth (3/4)
    on_ack(&mut ps, 0, 30_000, true, mtu, CcVariant::CmtRpv2);
    assert_eq!(ps[0].cwnd, 30_000 + 1125);
    // the decrease takes half of the aggregate (20 000) from path 0
    let mut ps2 = ps.clone();
    ps2[0].cwnd = 30_000;
    on_fast_retransmit(&mut ps2, 0, mtu, CcVariant::CmtRpv2);
    assert_eq!(ps2[0].cwnd, 10_000);
    // and at least half of its own window from path 1
    let mut ps3 = ps.clone();
    ps3[0].cwnd = 30_000;
    on_fast_retransmit(&mut ps3, 1, mtu, CcVariant::CmtRpv2);
    assert_eq!(ps3[1].cwnd, 1500, "10 000 - 20 000 floors at one MTU");
}

#[test]
fn sfr_counts_misses_only_below_the_highest_newly_acked_tsn_on_the_same_destination() {
    let f = SackFacts {
        saw_newack: true,
        highest_newly_acked: Some(10),
        lowest_newly_acked: Some(8),
    };
    assert_eq!(sfr_miss_increment(&f, 5, false, 0), 1);
    assert_eq!(
        sfr_miss_increment(&f, 10, false, 0),
        0,
        "not below the highest acked on its path"
    );
    assert_eq!(sfr_miss_increment(&f, 12, false, 0), 0);
    let none = SackFacts::default();
    assert_eq!(
        sfr_miss_increment(&none, 5, false, 0),
        0,
        "no new ack on that destination"
    );
    // DAC: the SACK acked two packets and all newly acked TSNs are above the hole
    assert_eq!(sfr_miss_increment(&f, 5, true, 2), 2);
    // ... but not when a newly acked TSN is below it
    assert_eq!(sfr_miss_increment(&f, 9, true, 2), 1);
    assert_eq!(sfr_miss_increment(&f, 5, true, 1), 1);
}

#[test]
fn retransmission_policies_pick_the_documented_destination() {
    let mut a = path(10_000, 50_000, 0);
    a.srtt = Some(50 * MS);
    let mut b = path(20_000, 8_000, 0);
    b.srtt = Some(10 * MS);
    let mut c = path(5_000, 90_000, 0);
    c.srtt = Some(30 * MS);
    let ps = vec![a, b, c];
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::Same), 0);
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::LowestRtt), 1);
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::LargestCwnd), 1);
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::LargestSsthresh), 2);
    let mut ps2 = ps.clone();
    ps2[0].active = false;
    assert_eq!(
        rtx_destination(&ps2, 0, RtxPolicy::Same),
        1,
        "a failed destination is avoided"
    );
    assert_eq!(alternate_destination(&ps, 0, 0), 1);
    assert_eq!(alternate_destination(&ps, 1, 0), 0);
}

#[test]
fn buffer_split_share() {
    assert!(
        split_allows(0, 1452, 1000, 2),
        "a path may always hold one chunk"
    );
    assert!(split_allows(40_000, 1452, 100_000, 2));
    assert!(!split_allows(49_000, 1452, 100_000, 2));
}

#[test]
fn names_and_presets() {
    assert_eq!(Scheduler::NAMES, &["roundrobin", "daps"]);
    assert_eq!(Scheduler::from_name("daps"), Some(Scheduler::Daps));
    assert_eq!(CcVariant::from_name("cmt-rpv2"), Some(CcVariant::CmtRpv2));
    assert_eq!(BufferSplit::from_name("both"), Some(BufferSplit::Both));
    assert!(RtxPolicy::from_name("bogus").is_none());
    assert_eq!(Preset::Seed000.config(1, 2), SctpConfig::seed000(1, 2));
    let rfc = Preset::Rfc.config(1, 2);
    assert!(!rfc.cmt && (rfc.send_buffer, rfc.recv_buffer) == (1, 2));
    let s = SctpConfig::seed000(256 * 1024, 256 * 1024);
    assert!(s.cmt && s.chunk_rescheduling);
    assert_eq!(s.scheduler, Scheduler::RoundRobin);
    assert_eq!(s.rtx_policy, RtxPolicy::LowestRtt);
    assert_eq!(s.buffer_split, BufferSplit::Both);
    assert_eq!(s.cc, CcVariant::Uncoupled);
    assert_eq!((s.max_burst, s.max_payload), (4, 1452));
    let d = SctpConfig::default();
    assert_eq!(
        (d.rto_initial, d.rto_min, d.rto_max),
        (3 * SEC, SEC, 60 * SEC)
    );
    assert_eq!(
        (d.path_max_retrans, d.hb_interval, d.sack_delay),
        (5, 30 * SEC, 200 * MS)
    );
}

#[test]
fn daps_plan_sends_more_on_the_fast_path_in_arrival_order() {
    let mut fast = path(4 * 1500, 1 << 20, 0);
    fast.srtt = Some(10 * MS);
    let mut slow = path(4 * 1500, 1 << 20, 0);
    slow.srtt = Some(40 * MS);
    let plan = super::sched::daps_plan(&[fast, slow], 1500, 1000);
    let n_fast = plan.iter().filter(|&&i| i == 0).count();
    let n_slow = plan.iter().filter(|&&i| i == 1).count();
    assert_eq!((n_fast, n_slow), (16, 4));
    // first packets go on the fast path (the slow one's first arrives at 20 ms)
    assert_eq!(&plan[..4], &[0, 0, 0, 0]);
}

// ---------------------------------------------------------------------------
// Behaviour on the wire
// ---------------------------------------------------------------------------

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

#[test]
fn one_loss_is_repaired_by_fast_retransmit_with_one_recovery() {
    let mut h = transfer(SctpConfig::sctp(), fast_links(), 300_000, 1452);
    h.drop = drop_first(&[40]);
    h.run_until(30 * SEC);
    check_in_order(&h, 300_000);
    let c = &h.a.paths()[0].counters;
    assert_eq!(
        (c.retrans_fast, c.recoveries, c.rto_events, c.retrans_rto),
        (1, 1, 0, 0)
    );
    assert_eq!(c.bytes_retransmitted, 1452);
    // two losses in the same window: one fast-recovery episode (HTNA/exit point)
    let mut h = transfer(SctpConfig::sctp(), fast_links(), 300_000, 1452);
    h.drop = drop_first(&[40, 43]);
    h.run_until(30 * SEC);
    check_in_order(&h, 300_000);
    let c = &h.a.paths()[0].counters;
    assert_eq!((c.retrans_fast, c.recoveries, c.rto_events), (2, 1, 0));
}

#[test]
fn tail_loss_is_repaired_by_t3_and_cwnd_collapses() {
    // the last chunk is lost: no later SACK can report it missing
    let total = 20 * 1452;
    let mut h = transfer(SctpConfig::sctp(), fast_links(), total, 1452);
    h.drop = drop_first(&[19]);
    h.close_after_write = false;
    h.run_until(30 * SEC);
    check_in_order(&h, total);
    let c = &h.a.paths()[0].counters;
    let c1 = &h.a.paths()[1].counters;
    assert_eq!(c.rto_events, 1);
    assert_eq!(c.retrans_fast, 0);
    // RFC 9260 6.4.1: the T3 retransmission goes to the alternate destination
    assert_eq!(c1.retrans_rto, 1);
    assert_eq!(h.a.path_states()[0].cwnd_bytes, 1500);
    // the RTO was backed off
    assert!(h.a.path_rto(0) >= 2 * SEC);
    // the chunk arrived ~RTO (>= 1 s) after it was first sent
    let t = h
        .b_events
        .iter()
        .find(|(_, e)| *e == AppEvent::Delivered { total })
        .unwrap()
        .0;
    assert!(t > SEC);
}

#[test]
fn primary_failure_fails_over_to_the_alternate_path() {
    let mut cfg = SctpConfig::sctp();
    cfg.rto_max = 4 * SEC;
    let mut h = transfer(cfg, fast_links(), 3_000_000, 1452);
    h.close_after_write = false;
    h.run_until(SEC);
    let before = h.delivered();
    assert!(before > 0 && before < 3_000_000);
    h.links[0].up = false;
    h.run_until(120 * SEC);
    check_in_order(&h, 3_000_000);
    assert!(
        !h.a.path_active(0),
        "primary marked unreachable after Path.Max.Retrans"
    );
    assert_eq!(h.a.primary(), 1);
    let c0 = &h.a.paths()[0].counters;
    // Path.Max.Retrans 5: inactive after the 6th consecutive timeout (acks of
    // chunks last sent to the primary before the outage may reset the counter
    // once, as section 8.3 requires)
    assert!(c0.rto_events >= 6, "{}", c0.rto_events);
    assert!(h.a.paths()[1].counters.bytes_sent > 1_000_000);
    assert_ne!(h.a.state(), State::Closed);
}

#[test]
fn heartbeats_detect_a_failed_idle_path_and_its_recovery() {
    let mut cfg = SctpConfig::sctp();
    cfg.hb_interval = SEC;
    let mut h = Harness::new(cfg.clone(), cfg, fast_links());
    h.a.connect(0);
    h.run_until(5 * SEC);
    assert!(h.hb_pkts[1] >= 2, "the idle path is probed");
    assert!(h.hb_pkts[0] >= 2, "the idle primary is probed too");
    assert!(h.a.path_active(1));
    h.links[1].up = false;
    h.run_until(200 * SEC);
    assert!(!h.a.path_active(1), "six unanswered heartbeats");
    assert!(h.a.path_active(0));
    assert_eq!(
        h.a.state(),
        State::Established,
        "one reachable path keeps the association up"
    );
    // the path comes back: the next heartbeat ack re-activates it
    h.links[1].up = true;
    h.run_until(400 * SEC);
    assert!(h.a.path_active(1));
    assert_eq!(h.a.path_errors(1), 0);
}

#[test]
fn association_max_retrans_aborts_when_everything_fails() {
    let mut cfg = SctpConfig::sctp();
    cfg.hb_interval = SEC;
    let mut h = transfer(cfg, fast_links(), 200_000, 1452);
    h.close_after_write = false;
    h.run_until(200 * MS);
    h.links[0].up = false;
    h.links[1].up = false;
    h.run_until(2000 * SEC);
    assert_eq!(h.a.state(), State::Closed);
    assert!(h.a_events.iter().any(|e| e.1 == AppEvent::Closed));
}

#[test]
fn small_messages_are_bundled_and_sacks_ride_with_data() {
    let mut h = Harness::new(SctpConfig::sctp(), SctpConfig::sctp(), fast_links());
    // ten 100-byte messages written before the association is up
    for _ in 0..10 {
        assert_eq!(h.a.write(0, 100), 100);
    }
    h.a.connect(0);
    h.run_until(200 * MS);
    assert_eq!(h.data_pkts[0], 1, "ten chunks in one packet");
    assert_eq!(h.delivered(), 1000);
    // 1 packet: 20 + 12 + 10 * (16 + 100)
    let d = h.a.paths()[0].counters.clone();
    assert_eq!((d.data_packets_sent, d.bytes_sent), (1, 1000));

    // SACK bundling: a bidirectional exchange carries SACK and DATA together
    let mut h = Harness::new(SctpConfig::sctp(), SctpConfig::sctp(), fast_links());
    h.a.connect(0);
    h.run_until(100 * MS);
    h.a.write(h.now, 1000);
    h.pump();
    // let the data arrive at B, then B answers with its own data before its delayed-SACK timer
    let bundled = std::rc::Rc::new(std::cell::Cell::new(false));
    let flag = bundled.clone();
    h.drop = Box::new(move |a2b, p| {
        if !a2b && !sacks_of(p).is_empty() && !tsns_of(p).is_empty() {
            flag.set(true);
        }
        false
    });
    h.run_until(100 * MS + 15 * MS);
    h.b.write(h.now, 500);
    h.run_until(SEC);
    assert!(bundled.get(), "B bundled its SACK with its DATA");
}

#[test]
fn first_packet_size_with_bundled_chunks() {
    let mut a = SctpAssociation::new(1, &[A0], 1, &[B0], 2, SctpConfig::sctp());
    let mut b = SctpAssociation::new(1, &[B0], 2, &[A0], 1, SctpConfig::sctp());
    for _ in 0..10 {
        a.write(0, 100);
    }
    a.connect(0);
    // handshake by hand
    let init = a.poll_transmit(0).unwrap();
    b.handle_packet(1, &init);
    let init_ack = b.poll_transmit(1).unwrap();
    a.handle_packet(2, &init_ack);
    let echo = a.poll_transmit(2).unwrap();
    b.handle_packet(3, &echo);
    let cookie_ack = b.poll_transmit(3).unwrap();
    a.handle_packet(4, &cookie_ack);
    let d = a.poll_transmit(4).unwrap();
    assert_eq!(tsns_of(&d), (0..10).collect::<Vec<_>>());
    assert_eq!(d.size, 20 + 12 + 10 * (16 + 100));
    assert_eq!(d.payload_len(), 1000);
    assert!(a.poll_transmit(4).is_none());
}

#[test]
fn large_messages_are_fragmented_and_reassembled() {
    let mut links = fast_links();
    links[0].loss = 0.01;
    let mut h = transfer(SctpConfig::sctp(), links, 1_000_000, 100_000);
    h.run_until(120 * SEC);
    check_in_order(&h, 1_000_000);
    // Delivered advances by whole messages only
    for (_, e) in &h.b_events {
        if let AppEvent::Delivered { total } = e {
            assert_eq!(total % 100_000, 0, "partial message delivered");
        }
    }
    // 100 000 = 68 full chunks + 1 of 1264
    assert_eq!(
        h.a.paths()[0].counters.bytes_sent - h.a.paths()[0].counters.bytes_retransmitted,
        1_000_000
    );
}

#[test]
fn unordered_delivery_reports_each_message_once() {
    let mut cfg = SctpConfig::cmt();
    cfg.unordered = true;
    cfg.send_buffer = 4 << 20;
    let mut links = [
        Link::new(5 * MS, 10_000_000),
        Link::new(30 * MS, 10_000_000),
    ];
    links[0].loss = 0.02;
    let mut h = transfer(cfg, links, 1_452_000, 1452);
    h.run_until(120 * SEC);
    let mut offs: Vec<u64> = h
        .b_events
        .iter()
        .filter_map(|(_, e)| {
            if let AppEvent::Message { offset, len } = e {
                assert_eq!(*len, 1452);
                Some(*offset)
            } else {
                None
            }
        })
        .collect();
    let arrival = offs.clone();
    offs.sort();
    assert_eq!(
        offs,
        (0..1000).map(|i| i * 1452).collect::<Vec<_>>(),
        "every message exactly once"
    );
    assert_ne!(arrival, offs, "some messages overtook earlier ones");
    assert_eq!(h.delivered(), 1_452_000);
    // unordered data does not wait for reordering
    assert_eq!(h.b.reorder_stats().max_wait, 0);
}

#[test]
fn ordered_cmt_data_waits_in_the_reordering_buffer() {
    let links = [
        Link::new(5 * MS, 10_000_000),
        Link::new(30 * MS, 10_000_000),
    ];
    let mut h = transfer(SctpConfig::cmt(), links, 1_000_000, 1452);
    h.run_until(60 * SEC);
    check_in_order(&h, 1_000_000);
    let r = h.b.reorder_stats();
    assert_eq!(r.bytes, 1_000_000);
    assert!(
        r.waited_chunks > 0 && r.mean_wait_ns() > 1.0 * MS as f64,
        "{r:?}"
    );
}

#[test]
fn delayed_sack_every_second_packet_or_after_200ms() {
    let mut h = Harness::new(SctpConfig::sctp(), SctpConfig::sctp(), fast_links());
    h.a.connect(0);
    h.run_until(100 * MS);
    let b_sent = h.b.paths()[0].counters.packets_sent;
    // one small message: B waits for the delayed-SACK timer
    h.a.write(h.now, 100);
    h.pump();
    h.run_until(100 * MS + 150 * MS);
    assert_eq!(
        h.b.paths()[0].counters.packets_sent,
        b_sent,
        "SACK still delayed at 140 ms"
    );
    h.run_until(100 * MS + 250 * MS);
    assert_eq!(
        h.b.paths()[0].counters.packets_sent,
        b_sent + 1,
        "SACK after 200 ms"
    );
    // two packets: SACK at once
    h.a.write(h.now, 1452);
    h.a.write(h.now, 1452);
    h.pump();
    h.run_until(h.now + 25 * MS);
    assert_eq!(h.b.paths()[0].counters.packets_sent, b_sent + 2);
}

#[test]
fn dac_receiver_reports_the_packet_count_in_its_sacks() {
    let links = [
        Link::new(5 * MS, 10_000_000),
        Link::new(30 * MS, 10_000_000),
    ];
    let mut h = transfer(SctpConfig::cmt(), links, 300_000, 1452);
    let counts = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let c2 = counts.clone();
    h.drop = Box::new(move |a2b, p| {
        if !a2b {
            for s in sacks_of(p) {
                c2.borrow_mut().push((s.dac_packets, !s.gaps.is_empty()));
            }
        }
        false
    });
    h.run_until(30 * SEC);
    check_in_order(&h, 300_000);
    let v = counts.borrow();
    assert!(v.iter().all(|&(n, _)| n == 1 || n == 2));
    // with DAC, SACKs with gaps still ack two packets at a time
    assert!(v.iter().any(|&(n, gaps)| n == 2 && gaps));
}

#[test]
fn nr_sack_frees_send_buffer_before_the_cumulative_ack() {
    let mut cfg = SctpConfig::cmt();
    cfg.nr_sack = true;
    let mut h = transfer(cfg.clone(), fast_links(), 200_000, 1452);
    h.drop = drop_first(&[10]);
    h.close_after_write = false;
    let nr_seen = std::rc::Rc::new(std::cell::Cell::new(false));
    let f = nr_seen.clone();
    let inner = std::mem::replace(&mut h.drop, Box::new(|_, _| false));
    let mut inner = inner;
    h.drop = Box::new(move |a2b, p| {
        if !a2b && sacks_of(p).iter().any(|s| s.nr && !s.nr_gaps.is_empty()) {
            f.set(true);
        }
        inner(a2b, p)
    });
    // run until the first NR gap report has been processed but TSN 10 is not repaired yet
    let mut min_used_with_hole = u64::MAX;
    let mut t = 0;
    while t < 5 * SEC {
        t += MS;
        h.run_until(t);
        if h.delivered() < 11 * 1452 && nr_seen.get() {
            min_used_with_hole = min_used_with_hole.min(h.a.send_buffer_used());
        }
    }
    assert!(nr_seen.get());
    check_in_order(&h, 200_000);
    // without NR-SACK the buffer holds at least TSN 10 and everything gap-acked above it;
    // with NR-SACK gap-acked chunks are freed at once
    let mut h2 = transfer(SctpConfig::cmt(), fast_links(), 200_000, 1452);
    h2.drop = drop_first(&[10]);
    h2.close_after_write = false;
    let mut max_used_no_nr = 0;
    let mut t = 0;
    while t < 5 * SEC {
        t += MS;
        h2.run_until(t);
        if h2.delivered() < 11 * 1452 && h2.delivered() > 0 {
            max_used_no_nr = max_used_no_nr.max(h2.a.send_buffer_used());
        }
    }
    assert!(
        min_used_with_hole < max_used_no_nr,
        "{min_used_with_hole} {max_used_no_nr}"
    );
}

#[test]
fn daps_and_cmt_rpv2_transfers_complete_in_order() {
    let links = [Link::new(5 * MS, 10_000_000), Link::new(40 * MS, 5_000_000)];
    for cfg in [
        SctpConfig {
            scheduler: Scheduler::Daps,
            ..SctpConfig::cmt()
        },
        SctpConfig {
            cc: CcVariant::CmtRpv2,
            ..SctpConfig::cmt()
        },
        SctpConfig {
            scheduler: Scheduler::Daps,
            cc: CcVariant::CmtRpv2,
            nr_sack: true,
            ..SctpConfig::seed000(1 << 20, 1 << 20)
        },
    ] {
        let mut l = links;
        l[1].loss = 0.01;
        let mut h = transfer(cfg.clone(), l, 2_000_000, 1452);
        h.run_until(300 * SEC);
        check_in_order(&h, 2_000_000);
        let (s0, s1) = shares(&h);
        assert!(
            s0 > 0.05 && s1 > 0.05,
            "{:?} {:?} shares {s0} {s1}",
            cfg.scheduler,
            cfg.cc
        );
    }
}

#[test]
fn runs_are_deterministic() {
    let run = || {
        let mut links = [Link::new(5 * MS, 10_000_000), Link::new(40 * MS, 5_000_000)];
        links[0].loss = 0.01;
        links[1].loss = 0.01;
        let mut h = transfer(
            SctpConfig::seed000(256 * 1024, 256 * 1024),
            links,
            1_000_000,
            1452,
        );
        h.run_until(100 * SEC);
        (h.a.paths(), h.b_events.clone())
    };
    assert_eq!(run(), run());
}

#[test]
fn max_burst_limits_each_path_to_four_packets_after_an_idle_period() {
    let mut h = Harness::new(SctpConfig::cmt(), SctpConfig::cmt(), fast_links());
    h.to_write = 3_000_000;
    h.a.connect(0);
    // grow the windows with a bulk transfer, then go idle
    h.run_until(3 * SEC);
    assert_eq!(h.delivered(), 3_000_000);
    // use it or lose it: as the transfer drained, the unused window was given up
    assert!(h
        .a
        .path_states()
        .iter()
        .all(|p| p.cwnd_bytes <= 4 * 1500 && p.inflight_bytes == 0));
    // one large write: every destination sends at most Max.Burst packets at once
    let before = h.data_pkts;
    h.a.write(h.now, 100_000);
    h.pump();
    let burst = [h.data_pkts[0] - before[0], h.data_pkts[1] - before[1]];
    assert_eq!(
        burst,
        [4, 4],
        "4 packets per path, then the next path (round-robin)"
    );
}

#[test]
fn sfr_avoids_spurious_fast_retransmissions_from_path_reordering() {
    // no loss at all; the paths differ in delay, so SACKs report "holes"
    // that are really chunks still in flight on the slow path
    let links = [
        Link::new(5 * MS, 10_000_000),
        Link::new(40 * MS, 10_000_000),
    ];
    let fast_rtx = |sfr: bool| {
        let cfg = SctpConfig {
            sfr,
            dac: sfr,
            ..SctpConfig::cmt()
        };
        let mut h = transfer(cfg, links, 2_000_000, 1452);
        h.run_until(60 * SEC);
        check_in_order(&h, 2_000_000);
        let p = h.a.paths();
        (
            p.iter().map(|p| p.counters.retrans_fast).sum::<u64>(),
            p.iter().map(|p| p.counters.retrans_spurious).sum::<u64>(),
        )
    };
    assert_eq!(
        fast_rtx(true),
        (0, 0),
        "SFR: no spurious fast retransmissions"
    );
    let (fast, spurious) = fast_rtx(false);
    assert!(
        fast > 0 && spurious > 0,
        "without SFR reordering triggers fast retransmit: {fast} {spurious}"
    );
}

#[test]
fn cuc_lets_windows_grow_while_the_cumulative_ack_is_held_by_the_other_path() {
    let links = [
        Link::new(5 * MS, 50_000_000),
        Link::new(60 * MS, 50_000_000),
    ];
    let growth = |cuc: bool| {
        let cfg = SctpConfig {
            cuc,
            ..SctpConfig::cmt()
        };
        let mut h = transfer(cfg, links, 6_000_000, 1452);
        h.close_after_write = false;
        // slow start on the fast path while the slow path holds the cum ack
        h.run_until(150 * MS);
        h.a.path_states()[0].cwnd_bytes
    };
    let (with, without) = (growth(true), growth(false));
    assert!(
        with > 4 * without,
        "cwnd of the fast path: CUC {with}, without {without}"
    );
}

/// Speed check (run with `--ignored --nocapture`): 100 MB of CMT over two
/// 100 Mbit/s paths with loss; about 0.5 s of wall time on the dev box.
#[test]
#[ignore]
fn perf_large_transfer() {
    let mut links = [
        Link::new(10 * MS, 100_000_000),
        Link::new(30 * MS, 100_000_000),
    ];
    links[0].loss = 0.001;
    links[1].loss = 0.001;
    let t0 = std::time::Instant::now();
    let mut h = transfer(
        SctpConfig::seed000(1 << 20, 2 << 20),
        links,
        100_000_000,
        1452,
    );
    h.run_until(600 * SEC);
    check_in_order(&h, 100_000_000);
    println!(
        "wall {:?} sim-done {:?}",
        t0.elapsed(),
        h.b_events
            .iter()
            .find(|(_, e)| *e == AppEvent::Delivered { total: 100_000_000 })
            .map(|x| x.0)
    );
}

#[test]
fn lost_init_and_cookie_echo_are_retransmitted_by_t1() {
    let mut h = transfer(SctpConfig::sctp(), fast_links(), 100_000, 1452);
    let mut dropped = (false, false);
    h.drop = Box::new(move |a2b, p| {
        if let (true, Payload::Sctp(s)) = (a2b, &p.payload) {
            match s.chunks[0] {
                Chunk::Init { .. } if !dropped.0 => {
                    dropped.0 = true;
                    return true;
                }
                Chunk::CookieEcho { .. } if !dropped.1 => {
                    dropped.1 = true;
                    return true;
                }
                _ => {}
            }
        }
        false
    });
    h.run_until(60 * SEC);
    let t = h
        .a_events
        .iter()
        .find(|e| e.1 == AppEvent::Connected)
        .unwrap()
        .0;
    // INIT again after RTO.Initial (3 s); the COOKIE-ECHO after the backed-off
    // RTO (6 s): the INIT-ACK answering a retransmitted INIT gives no RTT
    // sample (Karn)
    assert!(t > 9 * SEC && t < 10 * SEC, "connected at {t}");
    check_in_order(&h, 100_000);
}

#[test]
fn cmt_keeps_going_on_the_remaining_path_when_one_fails() {
    let mut cfg = SctpConfig::seed000(1 << 20, 1 << 20);
    cfg.rto_max = 4 * SEC;
    let mut h = transfer(cfg, fast_links(), 6_000_000, 1452);
    h.close_after_write = false;
    h.run_until(SEC);
    h.links[1].up = false;
    h.run_until(60 * SEC);
    check_in_order(&h, 6_000_000);
    // after the transfer, unanswered heartbeats finish the failure detection
    h.run_until(300 * SEC);
    assert!(
        !h.a.path_active(1) && h.a.path_active(0),
        "{}",
        h.a.debug_dump()
    );
    assert!(h.a.paths()[1].counters.rto_events >= 1);
}

#[test]
fn heavy_loss_in_both_directions_never_loses_or_duplicates_data() {
    let cfgs = [
        SctpConfig::sctp(),
        SctpConfig::cmt(),
        SctpConfig::seed000(128 * 1024, 128 * 1024),
        SctpConfig {
            nr_sack: true,
            scheduler: Scheduler::Daps,
            cc: CcVariant::CmtRpv2,
            ..SctpConfig::seed000(256 * 1024, 64 * 1024)
        },
        SctpConfig {
            unordered: true,
            nr_sack: true,
            send_buffer: 4 << 20,
            ..SctpConfig::cmt()
        },
    ];
    for seed in 0..12u64 {
        for (k, cfg) in cfgs.iter().enumerate() {
            let mut links = [Link::new(5 * MS, 10_000_000), Link::new(25 * MS, 4_000_000)];
            links[0].loss = 0.03 + 0.01 * (seed % 3) as f64;
            links[1].loss = 0.05;
            let mut h = transfer(
                cfg.clone(),
                links,
                400_000,
                if seed % 2 == 0 { 1452 } else { 5000 },
            );
            h.rng = SimRng::stream(seed, "wire");
            h.run_until(3000 * SEC);
            if cfg.unordered {
                assert_eq!(
                    h.delivered(),
                    400_000,
                    "seed {seed} cfg {k}: {}",
                    h.a.debug_dump()
                );
            } else {
                check_in_order(&h, 400_000);
            }
            assert!(
                h.a.is_finished() && h.b.is_finished(),
                "seed {seed} cfg {k}: {}",
                h.a.debug_dump()
            );
        }
    }
}

#[test]
fn single_homed_server_gets_one_path_per_client_address() {
    // mptlab's Fig. 5: the client has one address per access network, the
    // server one address; paths differ by the client's address
    let cfg = SctpConfig::cmt();
    let mut h = Harness::with_addrs(cfg.clone(), cfg, fast_links(), &[B0]);
    h.to_write = 2_000_000;
    h.close_after_write = true;
    h.a.connect(0);
    h.run_until(60 * SEC);
    check_in_order(&h, 2_000_000);
    let pa = h.a.paths();
    assert_eq!(
        pa.iter().map(|p| (p.local, p.remote)).collect::<Vec<_>>(),
        vec![(A0, B0), (A1, B0)]
    );
    let pb = h.b.paths();
    assert_eq!(
        pb.iter().map(|p| (p.local, p.remote)).collect::<Vec<_>>(),
        vec![(B0, A0), (B0, A1)]
    );
    let (s0, s1) = shares(&h);
    assert!(
        (0.4..=0.6).contains(&s0) && (0.4..=0.6).contains(&s1),
        "shares {s0} {s1}"
    );
    // SACKs come back per path: the server's counters see data on both
    assert!(
        pb[0].counters.data_packets_received > 500 && pb[1].counters.data_packets_received > 500
    );
    assert!(h.a.is_finished() && h.b.is_finished());
}

#[test]
fn the_passive_side_can_send_too() {
    // B opens the association, A (passive, as a server would be) sends
    let mut links = [
        Link::new(5 * MS, 10_000_000),
        Link::new(25 * MS, 10_000_000),
    ];
    links[1].loss = 0.01;
    let cfg = SctpConfig::seed000(256 * 1024, 256 * 1024);
    let mut h = Harness::new(cfg.clone(), cfg, links);
    h.to_write = 2_000_000;
    h.close_after_write = true;
    h.b.connect(0);
    h.run_until(120 * SEC);
    check_in_order(&h, 2_000_000);
    let (s0, s1) = shares(&h);
    assert!(s0 > 0.2 && s1 > 0.2, "{s0} {s1}");
    assert!(h.a.is_finished() && h.b.is_finished());
}

#[test]
#[ignore]
fn report_buffer_blocking() {
    let links = [
        Link::new(5 * MS, 20_000_000),
        Link::new(100 * MS, 2_000_000),
    ];
    for (name, split, resched, nr) in [
        ("none", BufferSplit::None, false, false),
        ("both", BufferSplit::Both, false, false),
        ("both+resched", BufferSplit::Both, true, false),
        ("both+resched+nr", BufferSplit::Both, true, true),
    ] {
        let cfg = SctpConfig {
            buffer_split: split,
            chunk_rescheduling: resched,
            nr_sack: nr,
            send_buffer: 128 * 1024,
            recv_buffer: 128 * 1024,
            ..SctpConfig::cmt()
        };
        let mut h = transfer(cfg, links, 5_000_000, 1452);
        h.run_until(600 * SEC);
        let done = h
            .b_events
            .iter()
            .find(|(_, e)| *e == AppEvent::Delivered { total: 5_000_000 })
            .map(|x| x.0);
        let (s0, _) = shares(&h);
        let re: u64 =
            h.a.paths()
                .iter()
                .map(|p| p.counters.bytes_reinjected)
                .sum();
        println!(
            "{name}: done {:?} s, share fast {s0:.2}, rescheduled {re}",
            done.map(crate::time::to_secs)
        );
    }
    let cfg = SctpConfig {
        send_buffer: 128 * 1024,
        recv_buffer: 128 * 1024,
        ..SctpConfig::sctp()
    };
    let mut h = transfer(cfg, links, 5_000_000, 1452);
    h.run_until(600 * SEC);
    let done = h
        .b_events
        .iter()
        .find(|(_, e)| *e == AppEvent::Delivered { total: 5_000_000 })
        .map(|x| x.0);
    println!("sctp: done {:?} s", done.map(crate::time::to_secs));
}

/// A paced sender: one `msg`-byte message every `gap`, `count` times.
fn paced(cfg: SctpConfig, links: [Link; 2], msg: u64, gap: Nanos, count: u64) -> Harness {
    let mut h = Harness::new(cfg.clone(), cfg, links);
    h.a.connect(0);
    h.run_until(SEC);
    let mut t = SEC;
    for _ in 0..count {
        h.a.write(t, msg);
        h.run_until(t);
        t += gap;
        h.run_until(t);
    }
    h.run_until(t + 10 * SEC);
    h
}

#[test]
#[ignore]
fn report_scheduler_reordering() {
    let links = [
        Link::new(10 * MS, 10_000_000),
        Link::new(50 * MS, 10_000_000),
    ];
    for (name, cfg) in [
        ("sctp", SctpConfig::sctp()),
        ("cmt rr", SctpConfig::cmt()),
        (
            "cmt daps",
            SctpConfig {
                scheduler: Scheduler::Daps,
                ..SctpConfig::cmt()
            },
        ),
        ("seed000", SctpConfig::seed000(1 << 20, 1 << 20)),
    ] {
        let h = paced(cfg, links, 1452, 2 * MS, 2000);
        let r = h.b.reorder_stats();
        let (s0, s1) = shares(&h);
        println!(
            "{name}: delivered {} mean wait {:.2} ms max {:.1} ms shares {s0:.2}/{s1:.2}",
            h.delivered(),
            r.mean_wait_ns() / 1e6,
            r.max_wait as f64 / 1e6
        );
    }
}

#[test]
fn both_directions_at_once_with_sacks_bundled_on_data() {
    let mut links = [
        Link::new(5 * MS, 10_000_000),
        Link::new(20 * MS, 10_000_000),
    ];
    links[0].loss = 0.01;
    for cfg in [SctpConfig::sctp(), SctpConfig::seed000(1 << 20, 1 << 20)] {
        let mut h = transfer(cfg, links, 500_000, 1452);
        h.close_after_write = false;
        h.run_until(200 * MS);
        assert_eq!(h.b.write(h.now, 300_000), 300_000);
        h.run_until(60 * SEC);
        assert_eq!(h.delivered(), 500_000);
        let back = h
            .a_events
            .iter()
            .filter_map(|(_, e)| {
                if let AppEvent::Delivered { total } = e {
                    Some(*total)
                } else {
                    None
                }
            })
            .max();
        assert_eq!(back, Some(300_000));
        h.a.check_invariants();
        h.b.check_invariants();
    }
}

// ---------------------------------------------------------------------------
// Partial delivery (RFC 9260 section 6.9; Linux ulpqueue.c)
// ---------------------------------------------------------------------------

#[test]
fn partial_delivery_hands_a_large_message_over_in_pieces() {
    let mut r = Reassembly::default();
    let mut out: Vec<DeliveredMsg> = Vec::new();
    // one ordered message of 10 fragments (TSN 0..=9, 100 bytes each)
    let frag = |t: u64| data(t, 0, t == 0, t == 9, 100, 0, false);
    for t in 0..5 {
        r.add(10 * t, &frag(t), &mut out);
    }
    assert!(out.is_empty(), "incomplete message is held");
    assert_eq!(r.held, 500);
    // window pressure: the first fragment and the ones after it go up
    assert!(r.partial_delivery(100, Some(4), &mut out));
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].offset, out[0].len, out[0].eor), (0, 500, false));
    assert_eq!(r.held, 0, "partially delivered bytes leave the buffer");
    assert!(r.in_partial_delivery());
    assert!(
        !r.partial_delivery(100, Some(4), &mut out),
        "one PD at a time"
    );
    // TSN 6 before 5: it waits; 5 then takes 6 along
    r.add(110, &frag(6), &mut out);
    assert_eq!((out.len(), r.held), (1, 100));
    r.add(120, &frag(5), &mut out);
    assert_eq!((out.len(), out[1].len, out[1].eor), (2, 200, false));
    r.add(130, &frag(7), &mut out);
    r.add(140, &frag(9), &mut out);
    assert_eq!(out.len(), 3, "9 waits for 8");
    r.add(150, &frag(8), &mut out);
    assert_eq!(out.len(), 4);
    let last = out[3];
    assert_eq!((last.len, last.eor, last.msg_len), (200, true, 1000));
    assert_eq!(out.iter().map(|m| m.len).sum::<u64>(), 1000);
    assert!(
        out[..3].iter().all(|m| !m.eor),
        "only the last piece ends it"
    );
    assert!(!r.in_partial_delivery());
    assert_eq!((r.held, r.pd_started, r.pd_bytes), (0, 1, 1000));
    // waiting time per fragment: 0..4 waited 100, 90, 80, 70, 60 ns; 6 and
    // 9 waited 10 ns each; the others went up on arrival
    assert_eq!(r.stats.bytes, 1000);
    assert_eq!(r.stats.wait_ns_bytes, (400 + 10 + 10) * 100);
    assert_eq!(r.stats.max_wait, 100);
}

#[test]
fn partial_delivery_needs_the_first_fragment_at_or_below_the_cumulative_tsn() {
    let mut out: Vec<DeliveredMsg> = Vec::new();
    // first fragment (TSN 0) missing: the head is a middle fragment
    let mut r = Reassembly::default();
    r.add(0, &data(1, 0, false, false, 100, 0, false), &mut out);
    r.add(0, &data(2, 0, false, false, 100, 0, false), &mut out);
    assert!(!r.partial_delivery(0, None, &mut out));
    assert!(!r.partial_delivery(0, Some(2), &mut out));
    assert!(out.is_empty() && !r.in_partial_delivery());
    // message at TSN 5.. with its first fragments in, but TSN 4 missing
    let mut r = Reassembly::default();
    r.add(0, &data(5, 1, true, false, 100, 0, false), &mut out);
    r.add(0, &data(6, 1, false, false, 100, 0, false), &mut out);
    assert!(
        !r.partial_delivery(0, Some(3), &mut out),
        "above the cum TSN"
    );
    assert!(out.is_empty());
    // no message held at all
    assert!(!Reassembly::default().partial_delivery(0, Some(9), &mut out));
}

#[test]
fn partial_delivery_does_not_interleave_and_keeps_stream_order() {
    let mut r = Reassembly::default();
    let mut out: Vec<DeliveredMsg> = Vec::new();
    let on = |s: u16, d: DataChunk| DataChunk { stream: s, ..d };
    // stream 0: A (SSN 0, TSN 0..=3, offset 0), B (SSN 1, TSN 4, offset 400)
    // stream 1: C (SSN 0, TSN 5), E (SSN 1, TSN 8), F (SSN 2, TSN 9)
    // unordered D (TSN 6) on stream 2
    r.add(0, &data(0, 0, true, false, 100, 0, false), &mut out);
    r.add(0, &data(1, 0, false, false, 100, 0, false), &mut out);
    assert!(r.partial_delivery(0, Some(1), &mut out));
    r.add(1, &data(4, 1, true, true, 50, 400, false), &mut out);
    r.add(1, &on(1, data(5, 0, true, true, 60, 450, false)), &mut out);
    r.add(1, &on(2, data(6, 0, true, true, 80, 510, true)), &mut out);
    r.add(1, &on(1, data(9, 2, true, true, 90, 660, false)), &mut out);
    r.add(2, &data(3, 0, false, true, 100, 0, false), &mut out);
    assert_eq!(out.len(), 1, "nothing else goes up while A is partial");
    // A's missing fragment ends PD; what completed meanwhile follows in
    // TSN order, F (SSN 2 of stream 1) still waits for E (SSN 1)
    r.add(3, &data(2, 0, false, false, 100, 0, false), &mut out);
    let got: Vec<(u64, u64, bool)> = out.iter().map(|m| (m.offset, m.len, m.eor)).collect();
    assert_eq!(
        got,
        vec![
            (0, 200, false),
            (0, 200, true),
            (400, 50, true),
            (450, 60, true),
            (510, 80, true),
        ]
    );
    assert_eq!(r.held, 90);
    r.add(4, &on(1, data(8, 1, true, true, 70, 590, false)), &mut out);
    let tail: Vec<u64> = out[5..].iter().map(|m| m.offset).collect();
    assert_eq!(tail, vec![590, 660], "stream 1 in SSN order");
    assert_eq!(r.held, 0);
    // after PD, stream 0 goes on as usual
    r.add(5, &data(10, 2, true, true, 10, 750, false), &mut out);
    assert_eq!(out.last().map(|m| m.offset), Some(750));
}

/// A message several times the receive buffer, over plain SCTP and CMT
/// (with and without buffer splitting, with loss): delivered exactly once,
/// in order, in pieces, and the buffer never holds more than its size plus
/// the one chunk section 6.1 A lets the sender put into a closed window.
#[test]
fn message_larger_than_the_receive_buffer_completes() {
    let rbuf = 64 * 1024;
    let lossy = {
        let mut l = fast_links();
        l[0].loss = 0.01;
        l
    };
    let cases = [
        (
            "sctp",
            SctpConfig {
                recv_buffer: rbuf,
                ..SctpConfig::sctp()
            },
            fast_links(),
        ),
        (
            "cmt, no splitting, 1% loss",
            SctpConfig {
                recv_buffer: rbuf,
                ..SctpConfig::cmt()
            },
            lossy,
        ),
        (
            "cmt seed000 (splitting both)",
            SctpConfig::seed000(512 * 1024, rbuf),
            fast_links(),
        ),
        (
            "cmt seed000 (splitting both), 1% loss",
            SctpConfig::seed000(512 * 1024, rbuf),
            lossy,
        ),
    ];
    for (name, cfg, links) in cases {
        let total = 300_000;
        let mut h = transfer(cfg, links, total, total);
        h.run_until(300 * SEC);
        check_in_order(&h, total);
        assert_eq!(h.b.partial_deliveries(), 1, "{name}");
        assert!(h.b_max_held <= rbuf + 1452, "{name}: held {}", h.b_max_held);
        let pieces = h
            .b_events
            .iter()
            .filter(|(_, e)| matches!(e, AppEvent::Delivered { .. }))
            .count();
        assert!(pieces > 1, "{name}: delivered in pieces");
        assert_eq!(h.a.state(), State::Closed, "{name}");
    }
}

/// The window closes while the message is reassembled and reopens when
/// partial delivery starts: at that instant the receiver sends the window
/// update (Linux `sctp_assoc_rwnd_increase`) instead of waiting for the
/// delayed-SACK timer.
#[test]
fn receive_window_reopens_when_partial_delivery_starts() {
    let rbuf = 64 * 1024;
    let cfg = SctpConfig {
        recv_buffer: rbuf,
        ..SctpConfig::sctp()
    };
    let total = 300_000;
    let mut h = transfer(cfg, fast_links(), total, total);
    h.run_until(60 * SEC);
    check_in_order(&h, total);
    let (t_pd, first) = h
        .b_events
        .iter()
        .find_map(|(t, e)| match e {
            AppEvent::Delivered { total } => Some((*t, *total)),
            _ => None,
        })
        .unwrap();
    assert!(
        first < total && first > rbuf - 2 * 1452,
        "first piece {first}"
    );
    assert!(
        h.b_sacks.iter().any(|&(t, w)| t < t_pd && w < 1452),
        "the window closed before PD"
    );
    assert!(
        h.b_sacks
            .iter()
            .any(|&(t, w)| t == t_pd && w >= rbuf - 1452),
        "window update at PD start: {:?}",
        h.b_sacks
            .iter()
            .filter(|&&(t, _)| t >= t_pd)
            .take(3)
            .collect::<Vec<_>>()
    );
}

/// Unordered delivery: the message event comes once, with the last piece.
#[test]
fn unordered_message_larger_than_the_buffer_is_reported_once() {
    let cfg = SctpConfig {
        recv_buffer: 64 * 1024,
        unordered: true,
        ..SctpConfig::cmt()
    };
    let total = 200_000;
    let mut h = transfer(cfg, fast_links(), total, total);
    h.run_until(60 * SEC);
    check_in_order(&h, total);
    let msgs: Vec<&AppEvent> = h
        .b_events
        .iter()
        .map(|(_, e)| e)
        .filter(|e| matches!(e, AppEvent::Message { .. }))
        .collect();
    assert_eq!(
        msgs,
        vec![&AppEvent::Message {
            offset: 0,
            len: total
        }]
    );
    assert_eq!(h.b.partial_deliveries(), 1);
}
