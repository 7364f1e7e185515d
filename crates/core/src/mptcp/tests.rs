//! Connection-level unit tests in the smoltcp style: two `MptcpConnection`s
//! joined by a tiny wire with a fixed one-way delay per client address, and
//! a drop filter.

use crate::endpoint::{AppEvent, Endpoint};
use crate::packet::{addr, flags, Addr, Packet};
use crate::time::{Nanos, MS, SEC};

use super::connection::token_of;
use super::pm_kernel;
use super::*;
use crate::tcp::CcKind;

const A1: Addr = addr(10, 1, 0, 2);
const A2: Addr = addr(10, 2, 0, 2);
const S1: Addr = addr(10, 0, 0, 2);

type DropFn = Box<dyn FnMut(Nanos, &Packet) -> bool>;

struct Wire {
    now: Nanos,
    c: MptcpConnection,
    s: MptcpConnection,
    /// (arrival, to_server, packet)
    q: Vec<(Nanos, bool, Packet)>,
    delay: fn(Addr) -> Nanos,
    drop: DropFn,
    /// Server-to-client rate in bit/s per client address (0: unlimited);
    /// each direction's packets then leave one after another, from an
    /// unbounded queue.
    rate: fn(Addr) -> u64,
    /// When each rate-limited direction's last packet finished leaving.
    busy: Vec<(Addr, Nanos)>,
    log: Vec<(Nanos, Packet)>,
    c_events: Vec<AppEvent>,
    s_events: Vec<AppEvent>,
    /// Polls that took `poll_transmit_into`'s quiet exit (client, server).
    quiet: [u64; 2],
    /// Polls that built one pure ACK in the slot (`Refill::AckOnly`).
    ack_only: [u64; 2],
}

fn delay_of(a: Addr) -> Nanos {
    if a == A2 {
        40 * MS
    } else {
        10 * MS
    }
}

impl Wire {
    fn new(cfg_c: MptcpConfig, cfg_s: MptcpConfig) -> Wire {
        let c = MptcpConnection::new(cfg_c, 0, Role::Client, &[A1, A2], 40000, &[S1], 80).unwrap();
        let s = MptcpConnection::new(cfg_s, 0, Role::Server, &[S1], 80, &[], 40000).unwrap();
        Wire {
            now: 0,
            c,
            s,
            q: Vec::new(),
            delay: delay_of,
            drop: Box::new(|_, _| false),
            rate: |_| 0,
            busy: Vec::new(),
            log: Vec::new(),
            c_events: Vec::new(),
            s_events: Vec::new(),
            quiet: [0, 0],
            ack_only: [0, 0],
        }
    }

    fn pump(&mut self) {
        loop {
            let mut any = false;
            self.quiet[0] += self.c.quiet_poll() as u64;
            self.ack_only[0] += self.c.ack_only_poll() as u64;
            while let Some(p) = self.c.poll_transmit(self.now) {
                any = true;
                self.log.push((self.now, p.clone()));
                if !(self.drop)(self.now, &p) {
                    let d = (self.delay)(p.src);
                    self.q.push((self.now + d, true, p));
                }
            }
            self.quiet[1] += self.s.quiet_poll() as u64;
            self.ack_only[1] += self.s.ack_only_poll() as u64;
            while let Some(p) = self.s.poll_transmit(self.now) {
                any = true;
                self.log.push((self.now, p.clone()));
                if !(self.drop)(self.now, &p) {
                    let d = (self.delay)(p.dst) + self.serialise(&p);
                    self.q.push((self.now + d, false, p));
                }
            }
            while let Some(e) = self.c.poll_event() {
                self.c_events.push(e);
            }
            while let Some(e) = self.s.poll_event() {
                self.s_events.push(e);
            }
            if !any {
                break;
            }
        }
    }

    /// How long a server-to-client packet waits for and takes to leave at
    /// its direction's `rate` (0 when unlimited).
    fn serialise(&mut self, p: &Packet) -> Nanos {
        let rate = (self.rate)(p.dst);
        if rate == 0 {
            return 0;
        }
        let i = match self.busy.iter().position(|b| b.0 == p.dst) {
            Some(i) => i,
            None => {
                self.busy.push((p.dst, 0));
                self.busy.len() - 1
            }
        };
        let done = self.busy[i].1.max(self.now) + p.size as u64 * 8 * SEC / rate;
        self.busy[i].1 = done;
        done - self.now
    }

    /// Advance to `until`, delivering packets and firing timers in order.
    fn run(&mut self, until: Nanos) {
        self.pump();
        loop {
            let next_pkt = self.q.iter().map(|x| x.0).min();
            let next_t = [self.c.poll_timeout(), self.s.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            let t = match (next_pkt, next_t) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(x) => x,
                    None => break,
                },
            };
            if t > until {
                break;
            }
            self.now = self.now.max(t);
            if next_pkt == Some(t) {
                let i = self.q.iter().position(|x| x.0 == t).unwrap();
                let (_, to_server, p) = self.q.remove(i);
                if to_server {
                    self.s.handle_packet(self.now, &p);
                } else {
                    self.c.handle_packet(self.now, &p);
                }
            } else {
                self.c.handle_timeout(self.now);
                self.s.handle_timeout(self.now);
            }
            self.pump();
        }
        self.now = until;
    }
}

fn cfg(pm: PmKind) -> MptcpConfig {
    MptcpConfig {
        pm,
        cc: CcKind::Lia,
        ..MptcpConfig::default()
    }
}

fn syns(log: &[(Nanos, Packet)]) -> Vec<(Nanos, Packet)> {
    log.iter()
        .filter(|(_, p)| {
            p.tcp()
                .is_some_and(|s| s.has(flags::SYN) && !s.has(flags::ACK))
        })
        .cloned()
        .collect()
}

#[test]
fn mp_capable_then_join_only_after_the_first_subflow_is_established() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(5 * MS);
    let s = syns(&w.log);
    assert_eq!(
        s.len(),
        1,
        "only the MP_CAPABLE SYN before the handshake completes"
    );
    let first = s[0].1.tcp().unwrap().mptcp.clone().unwrap();
    assert!(first.capable().is_some() && first.join().is_none());
    assert_eq!(
        s[0].1.src, A1,
        "initial subflow on the default (first) address"
    );
    // v0.9x (`connection/full_estab.rs`): established, but not fully
    // established while the client has sent nothing: no join yet
    w.run(200 * MS);
    assert_eq!(syns(&w.log).len(), 1, "no join before full establishment");
    // the application writes a request; the server's ACK of it carries a
    // DATA_ACK beyond the SYN (`mptcp_process_data_ack`): the join goes
    // out as that ACK arrives (sent on the path of A1, 10 ms)
    w.c.write(w.now, 100);
    w.run(400 * MS);
    let acked = w
        .log
        .iter()
        .find(|(_, p)| {
            p.src == S1
                && p.tcp().is_some_and(|t| {
                    t.ack > 1
                        && t.mptcp
                            .as_ref()
                            .is_some_and(|o| o.dss.is_some_and(|d| d.data_ack().is_some()))
                })
        })
        .map(|(t, _)| *t + 10 * MS)
        .expect("the server acknowledged the request");
    let s = syns(&w.log);
    assert_eq!(s.len(), 2);
    let (t_join, join) = (
        &s[1].0,
        s[1].1
            .tcp()
            .unwrap()
            .mptcp
            .as_ref()
            .unwrap()
            .join()
            .unwrap(),
    );
    assert_eq!(*t_join, acked);
    assert!(acked > 200 * MS);
    assert_eq!(s[1].1.src, A2);
    assert_ne!(join.token, 0, "the join names the server's token");
    let _ = token_of;
    assert_eq!(w.s.sfs.len(), 2, "server accepted the join");
    assert!(w.s.sfs.iter().all(|s| s.established()));
    assert_eq!(w.c.mode, Mode::Mptcp);
    assert_eq!(w.c_events.first(), Some(&AppEvent::Connected));
    // The third ACK of the first subflow echoes both keys (RFC 8684 3.1).
    let third = w
        .log
        .iter()
        .find(|(_, p)| {
            p.src == A1
                && p.tcp()
                    .unwrap()
                    .mptcp
                    .as_ref()
                    .is_some_and(|o| o.capable().is_some_and(|c| c.receiver_key.is_some()))
        })
        .is_some();
    assert!(third);
}

#[test]
fn join_with_a_wrong_token_is_ignored() {
    let mut w = Wire::new(cfg(PmKind::Default), cfg(PmKind::Default));
    w.c.connect(0);
    w.run(100 * MS);
    assert_eq!(w.c.sfs.len(), 1, "default path manager opens no subflows");
    let mut p = w.log.iter().find(|(_, p)| p.src == A1).unwrap().1.clone();
    p.src = A2;
    if let crate::packet::Payload::Tcp(s) = &mut p.payload {
        s.src_port = 999;
        s.mptcp = Some(crate::packet::MptcpOptions::with_control(
            crate::packet::MptcpControl {
                join: Some(crate::packet::MpJoin {
                    token: 7,
                    addr_id: 1,
                    backup: false,
                }),
                ..Default::default()
            },
        ));
    }
    w.s.handle_packet(w.now, &p);
    assert_eq!(w.s.sfs.len(), 1);
}

/// Connect, and have the client write a short request at once, as an
/// application's request does: with a v0.9x path manager the client opens
/// its extra subflows only once the server DATA_ACKs it (fully established,
/// `connection/full_estab.rs`), one round trip after the SYN-ACK.
fn connect_with_request(w: &mut Wire) {
    w.c.connect(0);
    w.c.write(0, 100);
}

fn transfer(w: &mut Wire, bytes: u64, until: Nanos) {
    w.s.write(w.now, bytes);
    w.s.close(w.now);
    w.run(until);
}

#[test]
fn dss_mappings_and_data_ack_carry_a_transfer_over_two_subflows() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    connect_with_request(&mut w);
    w.run(200 * MS);
    transfer(&mut w, 300_000, 5 * SEC);
    assert_eq!(w.c.recv.delivered, 300_000);
    assert!(w.c_events.contains(&AppEvent::PeerClosed));
    // Every data segment carries one mapping that covers exactly its payload.
    let mut data = 0;
    for (_, p) in &w.log {
        let s = p.tcp().unwrap();
        if s.len > 0 {
            let d = s.mptcp.as_ref().unwrap().dss.unwrap();
            assert_eq!(d.map_len, s.len);
            assert!(d.dsn().is_some() && d.data_ack().is_some());
            data += 1;
        }
    }
    assert!(data >= 300_000 / 1424);
    // Both subflows carried data; DATA_ACK covers everything plus DATA_FIN.
    let per: Vec<u64> = w.s.sfs.iter().map(|s| s.snd.counters.bytes_sent).collect();
    assert!(per.iter().all(|&b| b > 0), "{per:?}");
    assert!(w.s.send.fin_acked);
    assert_eq!(w.s.send.una, 300_001);
    w.c.close(w.now);
    w.run(w.now + SEC);
    assert!(w.s_events.contains(&AppEvent::Closed));
}

#[test]
fn rto_on_a_subflow_reinjects_its_data_on_the_other() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    connect_with_request(&mut w);
    w.run(300 * MS);
    assert_eq!(w.s.sfs.len(), 2);
    // Path 2 becomes a black hole from now on.
    let t0 = w.now;
    w.drop = Box::new(move |now, p| now >= t0 && (p.src == A2 || p.dst == A2));
    transfer(&mut w, 500_000, 10 * SEC);
    assert_eq!(
        w.c.recv.delivered, 500_000,
        "the transfer completes on path 1"
    );
    let sf2 = w.s.sfs.iter().find(|s| s.remote == A2).unwrap();
    let sf1 = w.s.sfs.iter().find(|s| s.remote == A1).unwrap();
    assert!(sf2.snd.counters.rto_events > 0);
    assert!(sf2.pf, "potentially failed after the RTO");
    assert!(
        sf1.snd.counters.bytes_reinjected > 0,
        "data of subflow 2 reinjected on subflow 1"
    );
}

#[test]
fn fallback_to_tcp_when_the_server_is_not_mptcp_capable() {
    let mut srv = cfg(PmKind::Fullmesh { per_pair: 1 });
    srv.capable = false;
    let mut w = Wire::new(cfg(PmKind::Fullmesh { per_pair: 1 }), srv);
    w.c.connect(0);
    w.run(200 * MS);
    assert_eq!(w.c.mode, Mode::Fallback);
    assert_eq!(w.s.mode, Mode::Fallback);
    assert_eq!(w.c.sfs.len(), 1, "no joins after fallback");
    transfer(&mut w, 100_000, 3 * SEC);
    assert_eq!(w.c.recv.delivered, 100_000);
    assert!(w.c_events.contains(&AppEvent::PeerClosed));
    let synack = w
        .log
        .iter()
        .find(|(_, p)| p.tcp().unwrap().has(flags::SYN) && p.tcp().unwrap().has(flags::ACK))
        .unwrap();
    assert!(synack.1.tcp().unwrap().mptcp.is_none());
    assert!(w
        .log
        .iter()
        .filter(|(_, p)| p.tcp().unwrap().len > 0)
        .all(|(_, p)| p.tcp().unwrap().mptcp.is_none()));
}

/// Seed 001's tail-loss scenario: a burst over a fast (20 ms RTT) and a slow
/// (80 ms RTT) subflow whose last segment is lost once on `lossy` (A1 fast,
/// A2 slow). Returns (completion time after the write, bytes_probe_extra).
fn tail_loss_burst(mptcp_tlp: bool, lossy: Addr, segs: u64) -> (Nanos, u64) {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.tlp = if mptcp_tlp {
        TlpMode::MptcpLevel
    } else {
        TlpMode::Subflow
    };
    let mut w = Wire::new(c.clone(), c);
    connect_with_request(&mut w);
    w.run(300 * MS);
    assert_eq!(w.s.sfs.len(), 2);
    let mss = w.s.sfs[0].snd.mss as u64;
    let bytes = segs * mss;
    let end = 1 + bytes;
    let mut dropped = false;
    w.drop = Box::new(move |_, p| {
        let s = p.tcp().unwrap();
        let last = s.len > 0
            && s.mptcp
                .as_ref()
                .and_then(|o| o.dss)
                .and_then(|d| d.dsn())
                .is_some_and(|d| d + s.len as u64 == end);
        if last && p.dst == lossy && !dropped {
            dropped = true;
            return true;
        }
        false
    });
    let t0 = w.now;
    w.s.write(t0, bytes);
    let mut done = None;
    while w.now < t0 + 3 * SEC {
        let next = w.now + MS;
        w.run(next);
        if done.is_none() && w.c.recv.delivered >= bytes {
            done = Some(w.now - t0);
        }
    }
    let extra: u64 =
        w.s.sfs
            .iter()
            .map(|s| s.snd.counters.bytes_probe_extra)
            .sum();
    let on_lossy = w
        .log
        .iter()
        .any(|(t, p)| *t >= t0 && p.dst == lossy && p.tcp().unwrap().len > 0);
    assert!(on_lossy);
    (done.expect("burst completes"), extra)
}

/// Seed 001: the MPTCP-level probe shortens a burst whose tail is lost on
/// the slow subflow (the copy goes on the fast one), and costs extra bytes
/// without gain when the tail is lost on the fast subflow.
#[test]
fn mptcp_level_tlp_helps_when_the_tail_is_lost_on_the_slow_subflow() {
    // 15 segments: 10 on the fast subflow (its initial window), the last 5 on the slow one.
    let (plain, e0) = tail_loss_burst(false, A2, 15);
    let (probe, e1) = tail_loss_burst(true, A2, 15);
    eprintln!("tail lost on the slow subflow: {} ms with subflow TLP, {} ms with MPTCP-level TLP (extra {e1} bytes)", plain / MS, probe / MS);
    assert_eq!(e0, 0);
    assert!(e1 > 0);
    assert!(probe + 20 * MS <= plain, "{probe} vs {plain}");
    // 8 segments: all on the fast subflow; its own probe repairs the loss
    // as early as the copy on the slow subflow could.
    let (plain, e0) = tail_loss_burst(false, A1, 8);
    let (probe, e1) = tail_loss_burst(true, A1, 8);
    eprintln!("tail lost on the fast subflow: {} ms with subflow TLP, {} ms with MPTCP-level TLP (extra {e1} bytes)", plain / MS, probe / MS);
    assert_eq!(e0, 0);
    assert!(e1 > 0, "the copy on the slow subflow is sent anyway");
    assert_eq!(probe, plain, "no gain");
}

/// Server-side bytes sent on the subflow to client address `a`.
fn sent_to(w: &Wire, a: Addr) -> u64 {
    w.s.sfs
        .iter()
        .find(|s| s.remote == a)
        .map_or(0, |s| s.snd.counters.bytes_sent)
}

/// Keep the server's send buffer full (a bulk application) until `until`.
fn bulk_until(w: &mut Wire, until: Nanos) {
    while w.now < until {
        let space = w.s.send_space();
        if space > 0 {
            w.s.write(w.now, space);
        }
        w.run((w.now + 10 * MS).min(until));
    }
}

/// Issue 12 item 2: without SACK, an RTO leaves the subflow in Loss with
/// SND.UNA == high_seq once the go-back-N resends are acknowledged; TCP
/// holds Loss until something above high_seq is acknowledged (Linux
/// tcp_try_undo_recovery), so the scheduler must offer it new data
/// (`mptcp_is_temp_unavailable` exempts such a Reno subflow). Before the
/// fix the subflow never sent again.
#[test]
fn reno_subflow_resumes_after_an_rto() {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.tcp.sack = false;
    c.tcp.rack = false;
    c.tcp.tlp = false;
    // The wire has no rate limit: bound the window (and the run time).
    c.tcp.rcvbuf = 128 * 1024;
    c.tcp.sndbuf = 128 * 1024;
    let mut w = Wire::new(c.clone(), c);
    connect_with_request(&mut w);
    w.run(300 * MS);
    assert_eq!(w.s.sfs.len(), 2);
    // Path 1 is a black hole for 600 ms: its subflow times out.
    let t0 = w.now + 200 * MS;
    w.drop =
        Box::new(move |now, p| (t0..t0 + 600 * MS).contains(&now) && (p.src == A1 || p.dst == A1));
    bulk_until(&mut w, t0 + 3 * SEC);
    let sf1 = w.s.sfs.iter().find(|s| s.remote == A1).unwrap();
    assert!(sf1.snd.counters.rto_events > 0, "the outage caused an RTO");
    let before = sent_to(&w, A1);
    let end = w.now + 5 * SEC;
    bulk_until(&mut w, end);
    let after = sent_to(&w, A1);
    // Path 1 (10 ms) is the faster path: it must keep carrying data.
    assert!(
        after - before > 500_000,
        "path 1 sent {} bytes in the 5 s after recovery",
        after - before
    );
}

/// Issue 15: the third ACK of the initial subflow is lost, the server
/// retransmits its SYN/ACK and, by Karn's rule and without timestamps, has
/// no RTT sample when the subflow is established. The upstream scheduler
/// must still use it (Linux's pacing rate without SRTT is not zero); before
/// the fix its pacing rate was 0 and `get_send` skipped it for good.
#[test]
fn upstream_scheduler_uses_a_subflow_without_rtt_sample() {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.scheduler = SchedulerKind::Upstream;
    c.tcp.timestamps = false;
    let mut w = Wire::new(c.clone(), c);
    let mut dropped = false;
    w.drop = Box::new(move |_, p| {
        let s = p.tcp().unwrap();
        let third_ack = p.src == A1 && !s.has(flags::SYN) && s.has(flags::ACK) && s.len == 0;
        let hit = third_ack && !dropped;
        dropped |= hit;
        hit
    });
    w.c.connect(0);
    w.run(3 * SEC);
    let sf1 = w.s.sfs.iter().find(|s| s.remote == A1).unwrap();
    assert!(
        sf1.established(),
        "established by the SYN/ACK retransmission"
    );
    assert_eq!(sf1.snd.rtt.srtt, 0, "no RTT sample from the handshake");
    transfer(&mut w, 2_000_000, 20 * SEC);
    assert_eq!(w.c.recv.delivered, 2_000_000);
    assert!(sent_to(&w, A1) > 0, "subflow 1 never carried data");
}

/// The server's SYN/ACK of the join is lost (issue 15, the 8 MB Wi-Fi +
/// LTE download's run 5): the server's timer and the client's SYN
/// retransmission both bring a second SYN/ACK, the client answers the first
/// to arrive and its third ACK echoes that SYN/ACK's timestamp. Linux takes
/// the RTT sample from the echo (`tcp_ack_update_rtt`, FLAG_SYN_ACKED), so
/// the subflow starts with its path's RTT, not without a sample (whose
/// near-infinite pacing rate made the upstream scheduler's linger time 0
/// and handed it the whole send buffer at cwnd 1). Without timestamps there
/// is no sample.
#[test]
fn retransmitted_join_syn_ack_is_timed_by_the_timestamp_echo() {
    for ts in [true, false] {
        let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
        c.scheduler = SchedulerKind::Upstream;
        c.tcp.timestamps = ts;
        let mut w = Wire::new(c.clone(), c);
        let mut dropped = false;
        w.drop = Box::new(move |_, p| {
            let s = p.tcp().unwrap();
            let join_syn_ack = p.dst == A2 && s.has(flags::SYN) && s.has(flags::ACK);
            let hit = join_syn_ack && !dropped;
            dropped |= hit;
            hit
        });
        w.c.connect(0);
        w.run(50 * MS);
        w.s.write(w.now, 2_000_000);
        w.s.close(w.now);
        // SRTT of the server's join subflow when it becomes established
        let mut at_establish = None;
        while w.now < 3 * SEC && at_establish.is_none() {
            let t = w.now + MS;
            w.run(t);
            at_establish =
                w.s.sfs
                    .iter()
                    .find(|s| s.remote == A2 && s.established())
                    .map(|s| (s.syn_retx, s.snd.rtt.srtt));
        }
        let (retx, srtt) = at_establish.expect("the join is established");
        assert!(retx > 0, "the SYN/ACK was retransmitted");
        // the path's RTT is 80 ms (40 ms each way, no queue)
        assert_eq!(srtt, if ts { 80 * MS } else { 0 }, "timestamps {ts}");
        w.run(20 * SEC);
        assert_eq!(w.c.recv.delivered, 2_000_000);
    }
}

/// Upstream Linux wakes a writer blocked on the send buffer whenever a
/// subflow changes state (`__subflow_state_change` on the msk's wait queue,
/// which every subflow shares after `mptcp_sock_graft`), and the writer
/// then fills whatever space there is, not only once a third of the buffer
/// is free. So a join established while the buffer is full of the first
/// subflow's data finds fresh data at once (issue 15: the kernel's LTE
/// subflow sends at its third ACK in all 17 captured 8 MB runs).
#[test]
fn join_established_wakes_the_blocked_writer() {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.scheduler = SchedulerKind::Upstream;
    c.tcp.sndbuf = 2 << 20; // locked: 4 MiB
    let mut w = Wire::new(c.clone(), c);
    w.c.connect(0);
    w.run(50 * MS);
    let total = 8u64 << 20;
    let mut written = w.s.write(w.now, total);
    assert!(written < total, "the writer blocks on the send buffer");
    let mut established = None;
    while w.now < 2 * SEC && established.is_none() {
        let t = w.now + MS;
        w.run(t);
        established =
            w.s.sfs
                .iter()
                .find(|s| s.remote == A2 && s.established())
                .map(|_| w.now);
        if established.is_none() && w.s_events.contains(&AppEvent::Writable) {
            w.s_events.retain(|e| *e != AppEvent::Writable);
            written += w.s.write(w.now, total - written);
        }
    }
    let at = established.expect("the join is established");
    // less than a third of the buffer acknowledged: no threshold wakeup yet
    assert!(w.s.send.una - 1 < (4 << 20) / 3, "una {}", w.s.send.una);
    // the application answers the wakeup at once
    assert!(
        w.s_events.contains(&AppEvent::Writable),
        "the join woke the writer"
    );
    w.s.write(w.now, total - written);
    w.run(w.now);
    let first_data = w
        .log
        .iter()
        .find(|(_, p)| p.dst == A2 && p.tcp().is_some_and(|s| s.len > 0))
        .map(|(t, _)| *t)
        .expect("data on the join");
    assert!(
        first_data <= at,
        "first data on the join at {first_data} ns, established by {at} ns"
    );
}

/// The in-kernel path manager (`pm_kernel.rs`): a client with a `subflow`
/// endpoint on its second address.
fn kernel_cfg(limits: pm_kernel::PmLimits) -> MptcpConfig {
    MptcpConfig {
        endpoints: vec![(A2, EpFlags::parse("subflow").unwrap())],
        limits,
        ..cfg(PmKind::Upstream)
    }
}

fn joins(log: &[(Nanos, Packet)]) -> Vec<Nanos> {
    syns(log)
        .iter()
        .filter(|(_, p)| p.tcp().unwrap().mptcp.as_ref().unwrap().join().is_some())
        .map(|(t, _)| *t)
        .collect()
}

#[test]
fn kernel_pm_joins_once_the_first_dss_from_the_server_arrives() {
    let limits = pm_kernel::PmLimits::KERNEL_DEFAULT;
    let mut w = Wire::new(kernel_cfg(limits), kernel_cfg(limits));
    w.c.connect(0);
    // handshake done at 20 ms; the server says nothing until it writes
    w.run(50 * MS);
    assert!(joins(&w.log).is_empty(), "not fully established yet");
    // the server's first segment (subflow sequence 1, with a DATA_ACK)
    // leaves at 50 ms and arrives at 60 ms: the join goes out then
    transfer(&mut w, 20_000, 400 * MS);
    assert_eq!(joins(&w.log), vec![60 * MS]);
    assert_eq!(w.s.sfs.len(), 2);
    // the same download with a v0.9x path manager (the client writes
    // nothing): fully established only once more than a whole initial
    // receive window (10 x 1460 = 14600 bytes, `mptcp_prevalidate_skb`)
    // arrived in order on the initial subflow, the 11th 1424-byte segment
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(50 * MS);
    assert!(joins(&w.log).is_empty(), "v0.9x: not fully established");
    transfer(&mut w, 20_000, 400 * MS);
    let data_in: Vec<Nanos> = w
        .log
        .iter()
        .filter(|(_, p)| p.src == S1 && p.tcp().is_some_and(|t| t.len > 0))
        .map(|(t, _)| *t + 10 * MS)
        .collect();
    assert!(data_in.len() >= 11);
    assert_eq!(joins(&w.log), vec![data_in[10]]);
}

#[test]
fn kernel_pm_server_refuses_joins_beyond_its_subflows_limit() {
    let none = pm_kernel::PmLimits {
        subflows: 0,
        add_addr_accepted: 0,
    };
    // the client may open one, the server accepts none
    let mut w = Wire::new(
        kernel_cfg(pm_kernel::PmLimits::KERNEL_DEFAULT),
        kernel_cfg(none),
    );
    w.c.connect(0);
    w.run(30 * MS);
    transfer(&mut w, 20_000, 400 * MS);
    assert_eq!(joins(&w.log).len(), 1, "the join SYN, unanswered");
    assert_eq!(w.s.sfs.len(), 1);
    // limits.subflows = 0 on the client: it opens none
    let mut w = Wire::new(kernel_cfg(none), kernel_cfg(none));
    w.c.connect(0);
    w.run(30 * MS);
    transfer(&mut w, 20_000, 400 * MS);
    assert!(joins(&w.log).is_empty());
}

#[test]
fn add_addr_is_echoed_and_re_sent_until_echoed() {
    const S2: Addr = addr(10, 0, 1, 2);
    let limits = pm_kernel::PmLimits {
        subflows: 2,
        add_addr_accepted: 1,
    };
    let c = MptcpConfig {
        endpoints: Vec::new(),
        ..kernel_cfg(limits)
    };
    let s = MptcpConfig {
        endpoints: vec![(S2, EpFlags::parse("signal").unwrap())],
        ..kernel_cfg(limits)
    };
    let mut w = Wire::new(c, s.clone());
    w.s = MptcpConnection::new(s, 0, Role::Server, &[S1, S2], 80, &[], 40000).unwrap();
    // the first packet carrying the ADD_ADDR is lost
    let lost = std::rc::Rc::new(std::cell::Cell::new(0));
    let l = lost.clone();
    w.drop = Box::new(move |_, p: &Packet| {
        let a = p
            .tcp()
            .and_then(|s| s.mptcp.as_ref())
            .and_then(|o| o.add_addr());
        if a.is_some_and(|a| !a.echo) && l.get() == 0 {
            l.set(1);
            return true;
        }
        false
    });
    w.c.connect(0);
    w.run(3 * SEC);
    let adds: Vec<(Nanos, bool)> = w
        .log
        .iter()
        .filter_map(|(t, p)| {
            let a = p.tcp()?.mptcp.as_ref()?.add_addr()?;
            Some((*t, a.echo))
        })
        .collect();
    // announced at the third ACK (30 ms), lost, re-sent one RTO later
    // (the sysctl's 120 s capped by the largest subflow RTO), echoed once
    assert_eq!(adds.iter().filter(|(_, e)| !e).count(), 2, "{adds:?}");
    assert_eq!(adds.iter().filter(|(_, e)| *e).count(), 1, "{adds:?}");
    assert_eq!(adds[0].0, 30 * MS);
    assert!(adds[1].0 > 200 * MS, "{adds:?}");
    // the announced address is accepted: a subflow from the first address to it
    assert!(w.c.sfs.iter().any(|s| s.local == A1 && s.remote == S2));
}

/// With a port block (the `clients` preset's port plan) subflow k leaves
/// from `base + k` and the path manager opens no more subflows than the
/// block holds; without one, from `base + 1 + 97 k` as before.
#[test]
fn subflow_ports_come_from_the_connection_block() {
    let ports = |block: Option<u16>, per_pair: u32| {
        let mut w = Wire::new(
            cfg(PmKind::Fullmesh { per_pair }),
            cfg(PmKind::Fullmesh { per_pair }),
        );
        if let Some(n) = block {
            w.c = MptcpConnection::new(
                cfg(PmKind::Fullmesh { per_pair }),
                0,
                Role::Client,
                &[A1, A2],
                40000,
                &[S1],
                80,
            )
            .unwrap()
            .with_port_block(n);
        }
        connect_with_request(&mut w);
        w.run(300 * MS);
        syns(&w.log)
            .iter()
            .map(|(_, p)| p.tcp().unwrap().src_port)
            .collect::<Vec<_>>()
    };
    assert_eq!(ports(None, 1), vec![40000, 40098]);
    assert_eq!(ports(Some(2), 1), vec![40000, 40001]);
    // fullmesh with 2 subflows per pair wants 4; a block of 3 allows 3
    assert_eq!(ports(Some(3), 2), vec![40000, 40001, 40002]);
    assert_eq!(ports(Some(4), 2), vec![40000, 40001, 40002, 40003]);
}

/// A 300 kB transfer with the given checksum requirements of client and
/// server: (DSS checksums negotiated on the data segments, largest payload,
/// largest packet).
fn checksum_run(client: bool, server: bool, request: bool) -> (bool, u32, u32) {
    let mut w = Wire::new(
        MptcpConfig {
            checksum: client,
            ..cfg(PmKind::Fullmesh { per_pair: 1 })
        },
        MptcpConfig {
            checksum: server,
            ..cfg(PmKind::Fullmesh { per_pair: 1 })
        },
    );
    w.c.connect(0);
    w.run(200 * MS);
    if request {
        // a 16-byte request first (as the emulator's agent sends its hello)
        w.c.write(w.now, 16);
        w.run(400 * MS);
    }
    transfer(&mut w, 300_000, 5 * SEC);
    assert_eq!(w.c.recv.delivered, 300_000);
    assert!(w.s.send.fin_acked);
    let (mut csum, mut plain, mut max_len, mut max_size) = (0, 0, 0, 0);
    for (_, p) in &w.log {
        let s = p.tcp().unwrap();
        let Some(o) = &s.mptcp else { continue };
        if let Some(c) = o.capable() {
            // flag A: the client's SYN says what it requires, every later
            // MP_CAPABLE what was negotiated (RFC 8684 3.1)
            if s.has(flags::SYN) && !s.has(flags::ACK) {
                assert_eq!(c.checksum, client);
            } else {
                assert_eq!(c.checksum, client || server);
            }
        }
        if let Some(d) = o.dss.filter(|d| d.dsn().is_some()) {
            if d.csum {
                csum += 1;
            } else {
                plain += 1;
            }
        }
        max_len = max_len.max(s.len);
        max_size = max_size.max(p.size);
    }
    assert!(csum == 0 || plain == 0, "{csum} with, {plain} without");
    (csum > 0, max_len, max_size)
}

#[test]
fn dss_checksum_is_negotiated_by_either_side_and_data_ack_width_sets_the_mss() {
    // off unless a side requires it (Linux net.mptcp.checksum_enabled = 0).
    // The server has received no data, so its DATA_ACKs are 32-bit
    // (`msk->use_64bit_ack` unset): DSS 4 + 14 + 4 = 22 -> 24 bytes beside
    // timestamps 12, MSS 1460 - 36 = 1424; the checksum's 2 bytes fit in
    // the same alignment (`mptcp_established_options_dss`).
    assert_eq!(checksum_run(false, false, false), (false, 1424, 1500));
    // either side's flag A turns it on for both directions
    assert_eq!(checksum_run(true, false, false), (true, 1424, 1500));
    assert_eq!(checksum_run(false, true, false), (true, 1424, 1500));
    assert_eq!(checksum_run(true, true, false), (true, 1424, 1500));
    // after the client's request (a 64-bit DSN) the DATA_ACK takes 8 bytes:
    // DSS 26 -> 28, options 40, MSS 1420 as in the kernel's capture, with
    // or without checksums
    assert_eq!(checksum_run(false, false, true), (false, 1420, 1500));
    assert_eq!(checksum_run(true, false, true), (true, 1420, 1500));
}

#[test]
fn remove_addr_closes_the_subflows_and_reinjects_their_data() {
    // the client withdraws its first address (the initial subflow's, id 0)
    // at 260 ms, in the middle of a 4 MB download (the wire has no rate
    // limit: it takes a few round trips)
    const RM: Nanos = 260 * MS;
    let mut w = Wire::new(
        MptcpConfig {
            removals: vec![remove_addr::AddrRemoval { at: RM, addr: A1 }],
            ..cfg(PmKind::Fullmesh { per_pair: 1 })
        },
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    connect_with_request(&mut w);
    w.run(200 * MS);
    transfer(&mut w, 4_000_000, 30 * SEC);
    // everything arrives, over the remaining subflow
    assert_eq!(w.c.recv.delivered, 4_000_000);
    assert!(w.s.send.fin_acked);
    // REMOVE_ADDR id 0 went out once, from the client on the A2 subflow
    let rm: Vec<_> = w
        .log
        .iter()
        .filter(|(_, p)| {
            p.tcp()
                .and_then(|s| s.mptcp.as_ref()?.remove_addr())
                .is_some()
        })
        .collect();
    assert_eq!(rm.len(), 1, "{rm:?}");
    assert_eq!((rm[0].0, rm[0].1.src), (RM, A2));
    assert_eq!(
        rm[0].1.tcp().unwrap().mptcp.as_ref().unwrap().remove_addr(),
        Some(0)
    );
    // both ends closed their A1 subflows: nothing is sent on them once the
    // REMOVE_ADDR arrived (40 ms one-way on A2)
    for sf in w.c.sfs.iter().chain(&w.s.sfs) {
        let a1 = sf.local == A1 || sf.remote == A1;
        assert_eq!(sf.state == subflow::SfState::Closed, a1, "{sf:?}");
    }
    let late = w
        .log
        .iter()
        .filter(|(t, p)| *t > RM + 40 * MS && (p.src == A1 || p.dst == A1))
        .count();
    assert_eq!(late, 0);
    // the server's data in flight on the closed subflow was reinjected
    let reinjected: u64 =
        w.s.sfs
            .iter()
            .map(|s| s.snd.counters.bytes_reinjected)
            .sum();
    assert!(reinjected > 0);
    // without the removal: nothing is reinjected, both subflows carry data
    // to the end
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(200 * MS);
    transfer(&mut w, 4_000_000, 30 * SEC);
    let reinjected: u64 =
        w.s.sfs
            .iter()
            .map(|s| s.snd.counters.bytes_reinjected)
            .sum();
    assert_eq!(reinjected, 0);
    assert!(w.log.iter().any(|(t, p)| *t > RM + 100 * MS && p.src == A1));
}

#[test]
fn fastclose_resets_every_subflow_and_both_ends_report_the_abort() {
    const AT: Nanos = 260 * MS;
    let mut w = Wire::new(
        MptcpConfig {
            fastclose_at: Some(AT),
            ..cfg(PmKind::Fullmesh { per_pair: 1 })
        },
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    connect_with_request(&mut w);
    w.run(200 * MS);
    transfer(&mut w, 4_000_000, 30 * SEC);
    // the download was cut short
    assert!(w.c.recv.delivered > 0 && w.c.recv.delivered < 4_000_000);
    // option B (Linux mptcp_do_fastclose): a RST with MP_FASTCLOSE on
    // each of the two subflows, at the abort time, and nothing else after
    let from_client: Vec<_> = w
        .log
        .iter()
        .filter(|(t, p)| *t >= AT && (p.src == A1 || p.src == A2))
        .collect();
    assert_eq!(from_client.len(), 2, "{from_client:?}");
    for (t, p) in &from_client {
        let s = p.tcp().unwrap();
        assert_eq!(*t, AT);
        assert!(s.has(flags::RST) && s.len == 0);
        assert!(s.mptcp.as_ref().unwrap().fastclose());
    }
    // the server stops once the RST arrived (one-way 10 / 40 ms)
    assert!(!w.log.iter().any(|(t, p)| *t > AT + 40 * MS && p.src == S1));
    for c in [&w.c, &w.s] {
        assert_eq!(c.gave_up(), Some("mp_fastclose"));
        assert!(c.sfs.iter().all(|s| s.state == subflow::SfState::Closed));
        assert_eq!(c.poll_timeout(), None);
    }
    assert!(w.c_events.contains(&AppEvent::Closed));
    assert!(w.s_events.contains(&AppEvent::Closed));
    // an abort after the connection closed normally sends nothing
    let mut w = Wire::new(
        MptcpConfig {
            fastclose_at: Some(10 * SEC),
            ..cfg(PmKind::Fullmesh { per_pair: 1 })
        },
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(200 * MS);
    transfer(&mut w, 100_000, 5 * SEC);
    w.c.close(w.now);
    w.run(20 * SEC);
    assert_eq!(w.c.recv.delivered, 100_000);
    assert_eq!(w.c.gave_up(), None);
    assert!(!w.log.iter().any(|(_, p)| p.tcp().unwrap().has(flags::RST)));
}

/// Issue 15 (gaming trace T1): a game server's thirty 1460-byte writes at
/// one instant are thirty `mptcp_sendmsg` calls, each ending with
/// `__mptcp_push_pending` and a fresh `mptcp_subflow_get_send` (`push.rs`):
/// they spread over both subflows by linger time. The same bytes in one
/// write are one push, whose 64 KB send burst keeps them on one subflow.
/// The client writes first (as the emulator's agent writes its hello):
/// with the in-kernel path manager it joins only once fully established.
#[test]
fn upstream_each_application_write_is_a_push_of_its_own() {
    let run = |writes: u64| {
        let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
        c.scheduler = SchedulerKind::Upstream;
        let mut w = Wire::new(c.clone(), c);
        w.c.connect(0);
        w.run(30 * MS);
        w.c.write(w.now, 16);
        w.run(500 * MS);
        assert_eq!(w.s.sfs.len(), 2, "the client joined after its hello");
        assert!(w.s.sfs.iter().all(|s| s.established()));
        for _ in 0..writes {
            w.s.write(w.now, 43_800 / writes);
        }
        w.run(3 * SEC);
        assert_eq!(w.c.recv.delivered, 43_800);
        (sent_to(&w, A1), sent_to(&w, A2))
    };
    let (one_a1, one_a2) = run(1);
    assert_eq!((one_a1, one_a2), (43_800, 0), "one write, one burst");
    let (a1, a2) = run(30);
    assert_eq!(a1 + a2, 43_800);
    // 10 ms vs 40 ms one way: the faster subflow's linger time grows
    // four times slower, so it takes most but not all of the writes
    assert!(a2 >= 2 * 1460 && a1 > 2 * a2, "{a1} {a2}");
    assert_eq!(a2 % 1460, 0, "each write goes whole to one subflow");
}

/// The server of `writer_wakeups`: blocked on its 64 KB send buffer from
/// 50 ms, path 1 black-holed after its initial window so that only 10
/// segments are ever acknowledged there. Returns the times (ms) at which
/// the server's application was told `Writable`, with the connection's
/// buffered bytes and free space at each.
fn writer_wakeups(upstream: bool, client_writes_at: Option<Nanos>) -> Vec<(Nanos, u64, u64)> {
    let mut c = kernel_cfg(pm_kernel::PmLimits::KERNEL_DEFAULT);
    // 64 KB either way (upstream: SO_SNDBUF 32 KiB, doubled by the kernel)
    c.tcp.sndbuf = 64 * 1024;
    if upstream {
        c.scheduler = SchedulerKind::Upstream;
        c.tcp.sndbuf = 32 * 1024;
    }
    let mut w = Wire::new(c.clone(), c);
    // everything the server sends to A1 after its first 10 segments is lost
    w.drop = Box::new(|now, p| p.dst == A1 && now > 55 * MS && p.tcp().unwrap().len > 0);
    w.c.connect(0);
    w.run(50 * MS);
    let n = w.s.write(w.now, 1 << 20);
    assert!(n < 1 << 20, "the server's writer blocks");
    let mut out = Vec::new();
    let mut seen = 0;
    while w.now < 400 * MS {
        if client_writes_at == Some(w.now) {
            w.c.write(w.now, 100);
        }
        w.run(w.now + MS);
        let writable = w
            .s_events
            .iter()
            .filter(|e| matches!(e, AppEvent::Writable))
            .count();
        if writable > seen {
            seen = writable;
            out.push((w.now / MS, w.s.send.buffered(), w.s.send.space()));
        }
    }
    out
}

/// Upstream Linux: a writer blocked in `sk_stream_wait_memory` resumes on
/// any wakeup of the msk's wait queue once the buffer is not full, without
/// the write-space hysteresis (`connection/wake.rs`): here when the LTE
/// join's third ACK reaches the server (SYN at 60 ms from A2, 40 ms each
/// way: 180 ms), and when the client's data arrives (`sk_data_ready`).
#[test]
fn blocked_writer_wakes_at_a_join_and_at_incoming_data() {
    let up = writer_wakeups(true, None);
    let (t, buffered, free) = up[0];
    assert_eq!(t, 180, "{up:?}");
    assert!(free > 0, "memory free: the writer goes on");
    assert!(
        2 * free < buffered,
        "not the write-space hysteresis: {up:?}"
    );
    // The client's 100 bytes leave at 100 ms and arrive at 110 ms.
    let up = writer_wakeups(true, Some(100 * MS));
    assert_eq!(up[0].0, 110, "{up:?}");
    // The v0.9x model keeps the hysteresis as its only waker.
    let v09 = writer_wakeups(false, Some(100 * MS));
    assert!(v09.iter().all(|&(_, b, f)| 2 * f >= b), "{v09:?}");
    assert!(v09.first().is_none_or(|&(t, _, _)| t > 180), "{v09:?}");
}

/// A subflow marked stale by the connection-level timer has its unacked data
/// pushed again through `mptcp_subflow_get_send` (`mptcp_pm_nl_subflow_chk_stale`
/// -> `__mptcp_retransmit_pending_data` + `__mptcp_push_pending`), so the
/// other subflow re-sends it as fast as its window allows. Through
/// `get_retrans`, which takes only an idle subflow, it went one segment per
/// round trip of the other path (the 8 MB Wi-Fi outage cell, issue 15).
#[test]
fn stale_subflow_data_is_pushed_again_at_the_other_subflows_pace() {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.scheduler = SchedulerKind::Upstream;
    c.cc = CcKind::Cubic;
    let mut w = Wire::new(c.clone(), c);
    w.c.connect(0);
    w.run(50 * MS);
    let total = 8_000_000u64;
    let mut written = w.s.write(w.now, total);
    // Path 1 (10 ms one way) turns into a black hole once the join is up.
    while w.s.sfs.iter().filter(|s| s.established()).count() < 2 && w.now < 2 * SEC {
        let t = w.now + MS;
        w.run(t);
    }
    let t0 = w.now;
    w.drop = Box::new(move |now, p| now >= t0 && (p.src == A1 || p.dst == A1));
    while w.now < 60 * SEC && w.c.recv.delivered < total {
        let t = w.now + MS;
        w.run(t);
        if w.s_events.contains(&AppEvent::Writable) {
            w.s_events.retain(|e| *e != AppEvent::Writable);
            written += w.s.write(w.now, total - written);
        }
    }
    assert_eq!(w.s.sfs.len(), 2);
    assert_eq!(w.c.recv.delivered, total, "completes over path 2");
    let sf2 = w.s.sfs.iter().find(|s| s.remote == A2).unwrap();
    let lost_on_1 = w
        .log
        .iter()
        .filter(|(t, p)| *t >= t0 && p.dst == A1 && p.tcp().is_some_and(|s| s.len > 0))
        .count();
    assert!(lost_on_1 > 0, "path 1 held data when it went dark");
    assert!(
        sf2.snd.counters.bytes_reinjected > 100_000,
        "path 1's data re-sent on path 2: {} bytes",
        sf2.snd.counters.bytes_reinjected
    );
    // 2 MB over an 80 ms round trip at Cubic's pace takes a few seconds;
    // one re-sent segment per round trip would take more than 10 s for the
    // data path 1 held.
    assert!(
        w.now < t0 + 8 * SEC,
        "done {} ms after path 1 went dark",
        (w.now - t0) / MS
    );
}

/// `sk_wmem_queued` skb by skb (`super::skbq`), as the kernel's
/// tracepoints show for a game server's setup burst (docs/validation.md,
/// "Decision level"): each small write that finds the subflow's earlier
/// data transmitted costs one skb (payload + 832 bytes), not a share of a
/// two-segment transmit skb; once the congestion window is full, the next
/// writes join the unsent tail skb and cost only their payload.
#[test]
fn upstream_each_small_write_is_an_skb_until_the_window_fills() {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.scheduler = SchedulerKind::Upstream;
    let mut w = Wire::new(c.clone(), c);
    w.c.connect(0);
    w.run(30 * MS);
    w.c.write(w.now, 16);
    w.run(500 * MS);
    assert!(w.s.sfs.len() == 2 && w.s.sfs.iter().all(|s| s.established()));
    let wmem = |w: &Wire| -> Vec<(u64, u64)> {
        w.s.sfs
            .iter()
            .map(|s| (s.snd.buffered(), s.skbs.wmem_queued(s.snd.buffered())))
            .collect()
    };
    // Four 1000-byte writes with room in both windows: sent at once, one
    // skb each, wherever they went.
    for _ in 0..4 {
        w.s.write(w.now, 1000);
    }
    w.run(w.now + 1);
    for (bytes, mem) in wmem(&w) {
        assert_eq!(bytes % 1000, 0);
        assert_eq!(mem, bytes + bytes / 1000 * 832, "one skb per write");
    }
    w.run(w.now + SEC);
    assert!(wmem(&w).iter().all(|&(b, m)| b == 0 && m == 0));
    // Eighty more: the windows fill, so later writes join the queued tail
    // skb (at most 64 KB each): far fewer skbs than writes.
    for _ in 0..80 {
        w.s.write(w.now, 1000);
    }
    w.run(w.now + 1);
    // (a write that goes to the other subflow than the previous one ends
    // that tail's mapping: `mptcp_skb_can_collapse_to` needs the DSN to
    // continue, so the count depends on how the picks alternate)
    let skbs: usize = w.s.sfs.iter().map(|s| s.skbs.len()).sum();
    let out: u32 = w.s.sfs.iter().map(|s| s.snd.packets_out).sum();
    assert!(out >= 20, "both windows full: {out} segments out");
    assert!(skbs < 40, "{skbs} skbs for 80 writes");
    // The joined writes share their skb's mapping, so the segments sent
    // from it run on across the 1000-byte write boundaries (full-sized),
    // as the kernel's do; without the shared mapping each write would end
    // in a short segment.
    let from = w.log.len();
    w.run(w.now + SEC);
    let lens: Vec<u32> = w.log[from..]
        .iter()
        .filter(|(_, p)| p.src == S1)
        .filter_map(|(_, p)| p.tcp().map(|t| t.len))
        .filter(|&l| l > 0)
        .collect();
    let full = lens.iter().filter(|&&l| l > 1000).count();
    assert!(full * 2 > lens.len(), "segments after the fill: {lens:?}");
}

/// Linux runs `tcp_grow_window` on every subflow (its own `rcv_ssthresh`,
/// with the connection's buffer copied to it), so each subflow ACKs every
/// data segment while its window grows: 300 KB over two subflows is well
/// within the ~181 growth steps of each (2 MiB buffer). The window
/// offered is relative to the DATA_ACK and the connection's right edge
/// (DATA_ACK + window) never moves left (`mptcp_set_rwin`).
#[test]
fn every_subflow_acks_each_segment_while_its_window_grows() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(200 * MS);
    transfer(&mut w, 300_000, 5 * SEC);
    assert_eq!(w.c.recv.delivered, 300_000);
    let mut last_ack = std::collections::HashMap::new();
    let (mut acks, mut multi, mut edge) = (0, 0, 0u64);
    for (_, p) in &w.log {
        let s = p.tcp().unwrap();
        let from_client = p.src == A1 || p.src == A2;
        if !from_client || s.has(flags::SYN) || s.len > 0 {
            continue;
        }
        let prev = last_ack.insert(p.src, s.ack).unwrap_or(s.ack);
        if s.ack > prev {
            acks += 1;
            // one full-sized data segment is at most 1424 bytes here
            if s.ack - prev > 1424 && !s.has(flags::FIN) {
                multi += 1;
            }
        }
        if let Some(da) = s
            .mptcp
            .as_ref()
            .and_then(|o| o.dss)
            .and_then(|d| d.data_ack())
        {
            assert!(da + s.window >= edge, "right edge moved left");
            edge = edge.max(da + s.window);
        }
    }
    assert!(acks >= 300_000 / 1424, "{acks} ACKs");
    assert_eq!(multi, 0, "an ACK covered two segments");
    // both subflows grew their own rcv_ssthresh past the initial window
    let grown: Vec<u64> = w.c.sfs.iter().map(|s| s.rcv.win.rcv_ssthresh).collect();
    assert!(grown.iter().all(|&g| g > 2_096_576), "{grown:?}");
}

/// The connection's window scales its buffer by `msk->scaling_ratio`, the
/// minimum of its subflows' ratios (`mptcp_rcv_space_adjust`,
/// `mptcp_win_from_space`): while a subflow has received no data its ratio
/// is still `TCP_DEFAULT_SCALING_RATIO` (50 %), so no subflow offers more
/// than half the buffer, however far its own `rcv_ssthresh` grew; once
/// every subflow measured its ratio the window can open. The kernel's
/// connection window in the lossy 8 MB Wi-Fi + 3G download stayed at
/// 2096000 until the 3G subflow's first data (docs/validation.md, session
/// 11). Before, each subflow scaled with its own measured ratio and the
/// window opened with the first subflow's data.
#[test]
fn connection_window_waits_for_every_subflow_to_measure_its_ratio() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(200 * MS);
    assert_eq!(
        w.c.msk_scaling_ratio(),
        crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO
    );
    let buf = w.c.sfs[0].rcv.win.sk_rcvbuf;
    // half the buffer, rounded up to the window scale unit as
    // `__tcp_select_window` rounds (ALIGN(window, 1 << rcv_wscale))
    let unit = 1u64 << w.c.sfs[0].rcv.rcv_wscale.unwrap_or(0);
    let cap =
        ((buf * crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO as u64) >> 8).next_multiple_of(unit);
    // A first write measures the first subflow's ratio; the second subflow
    // joins meanwhile (it is in the connection's list from its SYN on) and
    // `msk->scaling_ratio` takes its 50 % only at a read
    // (`mptcp_rcv_space_adjust`, `rcv_space.rs`): none comes before the
    // second write.
    // (the second subflow's data is lost on the way: it never measures)
    w.drop = Box::new(|_, p| p.dst == A2 && p.tcp().is_some_and(|s| s.len > 0));
    w.s.write(w.now, 100_000);
    w.run(600 * MS);
    assert_eq!(w.c.recv.delivered, 100_000);
    assert_eq!(w.c.sfs.len(), 2);
    assert!(w.c.sfs[0].rcv.win.ratio > crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO);
    assert_eq!(w.c.msk_scaling_ratio(), w.c.sfs[0].rcv.win.ratio);
    w.s.write(w.now, 3_000_000);
    w.s.close(w.now);
    let mut halved = None;
    while w.now < 5 * SEC {
        w.run(w.now + MS);
        let half = w.c.msk_scaling_ratio() == crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO;
        if halved.is_none() && half {
            halved = Some(w.now);
        }
    }
    assert_eq!(w.c.recv.delivered, 3_100_000);
    assert_eq!(w.c.sfs.len(), 2);
    // the first read of the second write, within the step
    let halved = halved.unwrap();
    assert!(halved <= 600 * MS + 20 * MS + MS, "{halved}");
    // Client ACKs on the first subflow from then on: above half the buffer
    // the window only shrinks (the right edge may not move left,
    // `mptcp_set_rwin`), and it comes down to it.
    let mut prev = u64::MAX;
    let (mut phase, mut at_cap) = (0, 0);
    for (t, p) in &w.log {
        let s = p.tcp().unwrap();
        if p.src != A1 || s.has(flags::SYN) {
            continue;
        }
        if *t >= halved {
            phase += 1;
            assert!(
                s.window <= cap || s.window <= prev,
                "window {} grew above {cap} (from {prev})",
                s.window
            );
            at_cap += (s.window <= cap) as u32;
        }
        prev = s.window;
    }
    assert!(
        phase > 0 && at_cap > 0,
        "{phase} ACKs in the phase, {at_cap} at the cap"
    );
    // here the second subflow never receives data, so its ratio stays 50 %
    // and caps the connection's window, although the first subflow's own
    // rcv_ssthresh grew far past it (before session 11: the window
    // followed it)
    assert_eq!(
        w.c.sfs[1].rcv.win.ratio,
        crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO
    );
    assert!(phase > 400, "{phase} ACKs");
    assert!(w.c.sfs[0].rcv.win.rcv_ssthresh > cap + 1_000_000);
    assert!(w.c.sfs[0].rcv.win.ratio > crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO);
    assert_eq!(
        w.c.msk_scaling_ratio(),
        w.c.sfs.iter().map(|s| s.rcv.win.ratio).min().unwrap()
    );
}

/// `msk->scaling_ratio` changes only where Linux 6.18 writes it,
/// `mptcp_rcv_space_adjust` at a read, at most once per receive RTT
/// (`rcv_space.rs`): when the joined subflow's first data has measured its
/// own ratio, the connection goes on scaling its buffer by 50 % until the
/// next pass, up to one receive RTT (the largest subflow `rcv_rtt_est`)
/// later, and the first subflow's window stays within half the buffer
/// meanwhile. Read at every window instead (before session 19), the ratio
/// followed that first data at once.
#[test]
fn connection_learns_a_joined_subflows_ratio_up_to_a_receive_rtt_late() {
    use crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO as HALF;
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    // 2 Mbit/s towards each client address: the first path fills and the
    // scheduler uses the second (40 ms each way) as well
    w.rate = |_| 2_000_000;
    w.c.connect(0);
    w.run(200 * MS);
    let buf = w.c.sfs[0].rcv.win.sk_rcvbuf;
    let unit = 1u64 << w.c.sfs[0].rcv.rcv_wscale.unwrap_or(0);
    let cap = ((buf * HALF as u64) >> 8).next_multiple_of(unit);
    w.s.write(w.now, 2_000_000);
    w.s.close(w.now);
    let (mut first2, mut opened) = (None, None);
    let (mut logged, mut prev) = (w.log.len(), u64::MAX);
    while w.now < 10 * SEC && opened.is_none() {
        w.run(w.now + MS);
        let ratio = w.c.msk_scaling_ratio();
        if first2.is_none() && w.c.sfs.len() == 2 && w.c.sfs[1].rcv.win.ratio != HALF {
            // the step in which the second subflow's first data arrived:
            // measured, and the subflows' minimum is above 50 % now
            let min = w.c.sfs.iter().map(|s| s.rcv.win.ratio).min().unwrap();
            assert!(min > HALF, "{min}");
            assert_eq!(ratio, HALF, "re-read at once");
            let rtt =
                w.c.sfs
                    .iter()
                    .map(|s| s.rcv_rtt.rtt_us8 >> 3)
                    .max()
                    .unwrap();
            assert!(rtt > 0, "no receive-RTT estimate yet");
            first2 = Some((w.now, rtt * 1000));
        }
        if let Some((t, rtt)) = first2 {
            // the first subflow's ACKs meanwhile: above half the buffer
            // (from before the join) the window only shrinks, as the right
            // edge may not move left (`mptcp_set_rwin`)
            for (_, p) in &w.log[logged..] {
                let seg = p.tcp().unwrap();
                if p.src != A1 || seg.len > 0 {
                    continue;
                }
                if ratio == HALF {
                    let ok = seg.window <= cap || seg.window <= prev;
                    assert!(ok, "window {} above {cap} (from {prev})", seg.window);
                }
                prev = seg.window;
            }
            if ratio != HALF {
                opened = Some(w.now);
                // held for some of the time, and not past one receive RTT
                // (with a read in it) after that first data
                assert!(w.now > t + MS, "opened at once");
                assert!(w.now <= t + rtt + 10 * MS, "{} > {} + {rtt}", w.now, t);
            }
        }
        logged = w.log.len();
    }
    assert!(opened.is_some(), "{first2:?}");
    assert_eq!(
        w.c.msk_scaling_ratio(),
        w.c.sfs.iter().map(|s| s.rcv.win.ratio).min().unwrap()
    );
}

/// A pure ACK on a subflow refreshes TS.Recent (`tcp_ack` ->
/// `tcp_replace_ts_recent`, Linux's slow path for segments with DSS
/// options), so the sender's data echoes the receiver's latest ACK and the
/// receiver's `rcv_rtt_est` (`tcp_rcv_rtt_measure_ts`) measures the path's
/// round trip. Before session 19 only data refreshed it on an MPTCP
/// subflow: a download's data echoed the handshake's timestamp, and every
/// sample grew with the connection's age.
#[test]
fn data_echoes_the_latest_pure_ack_and_the_receive_rtt_is_the_path_rtt() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    // the handshakes' timestamps are a second old when the data starts
    w.run(SEC);
    w.s.write(w.now, 400_000);
    w.s.close(w.now);
    w.run(3 * SEC);
    assert_eq!(w.c.recv.delivered, 400_000);
    let mut n = 0;
    for (t, p) in &w.log {
        let s = p.tcp().unwrap();
        if p.src == S1 && s.len > 0 && *t > SEC {
            // the echo is at most a round trip (80 ms on the slower path)
            // and a delayed ACK old
            let (_, ecr) = s.ts().unwrap();
            assert!(t - ecr <= 80 * MS + 200 * MS, "{t}: echoes {ecr}");
            n += 1;
        }
    }
    assert!(n > 200, "{n}");
    // the first subflow's receive RTT is its path's (20 ms), not the
    // connection's age (the scheduler kept the data off the second path)
    let rtt_ms = w.c.sfs[0].rcv_rtt.rtt_us8 >> 3 >> 10;
    assert!(rtt_ms > 0 && rtt_ms <= 30, "{rtt_ms} ms on a 20 ms path");
}

/// Upstream `mptcp_sendmsg` pushes each call's data before it returns
/// (`__mptcp_push_pending`), so the next call finds no pending tail and
/// carves a new page fragment (40-byte header at the next aligned offset,
/// charged to `sk_wmem_queued`). The 4 MiB validation download's server
/// (SO_SNDBUF 256 KiB, 64 KiB calls) blocked after 523368 bytes on the
/// kernel (`mptcp:mptcp_sendmsg_frag` trace, docs/validation.md "Session
/// 10: 4 MiB"): eight calls, the second one's first fragment 32608 bytes
/// (a page holding 120 bytes already, aligned, + 40). Copying every call
/// of the instant before pushing any extends the pending tail instead and
/// stops 280 bytes later (seven headers fewer).
#[test]
fn upstream_each_write_is_pushed_before_the_next_write_is_copied() {
    let mut c = kernel_cfg(pm_kernel::PmLimits::KERNEL_DEFAULT);
    c.scheduler = SchedulerKind::Upstream;
    c.tcp.sndbuf = 256 * 1024;
    let mut w = Wire::new(c.clone(), c);
    w.c.connect(0);
    w.run(35 * MS);
    assert!(w.s.sfs[0].established());
    let mut calls = Vec::new();
    loop {
        let n = w.s.write(w.now, 64 * 1024);
        calls.push(n);
        if n < 64 * 1024 {
            break;
        }
    }
    assert_eq!(calls.len(), 8, "{calls:?}");
    assert_eq!(calls.iter().sum::<u64>(), 523_368, "{calls:?}");
    assert_eq!(w.s.send.una, 1, "nothing acknowledged yet");
}

/// `tcp_update_pacing_rate` counts in `tp->mss_cache`, the MSS less the
/// timestamp option (1448 here), not in the 1424 bytes an MPTCP data
/// segment carries (`tcp_current_mss` also takes off the DSS): the
/// kernel's first `mptcp_subflow_get_send` of the 4 MiB validation
/// download shows 1353777 B/s = 1448 x 10 x 2 / 21.392 ms.
#[test]
fn upstream_pacing_rate_counts_the_mss_without_mptcp_options() {
    let mut c = kernel_cfg(pm_kernel::PmLimits::KERNEL_DEFAULT);
    c.scheduler = SchedulerKind::Upstream;
    let mut w = Wire::new(c.clone(), c);
    w.c.connect(0);
    w.run(35 * MS);
    let sf = &w.s.sfs[0];
    assert_eq!((sf.snd.mss, sf.mss_cache), (1424, 1448));
    assert_eq!(sf.snd.rtt.srtt, 20 * MS);
    // 1448 x 10 segments x 200 % (slow start) per 20 ms, in bit/s
    assert_eq!(MptcpConnection::pacing_rate_bps(sf), 11_584_000);
}

/// Every subflow's SYN and SYN-ACK offers the scale Linux's
/// `tcp_select_initial_window` computes for the subflow socket, whose
/// locked buffer is the connection's (2 MiB: 6, as the 6.18 kernel's
/// capture of the video cell shows, docs/validation.md session 11); the
/// model offered 14 before.
#[test]
fn subflows_offer_the_window_scale_of_their_buffer() {
    let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
    c.tcp.rcvbuf = 2 << 20;
    let mut w = Wire::new(c.clone(), c);
    w.c.connect(0);
    transfer(&mut w, 100_000, 2 * SEC);
    let offered: Vec<_> = w
        .log
        .iter()
        .filter_map(|(_, p)| p.tcp().filter(|s| s.has(flags::SYN)).map(|s| s.wscale))
        .collect();
    assert!(
        offered.len() >= 4,
        "both subflows' SYN and SYN-ACK: {offered:?}"
    );
    assert!(offered.iter().all(|&s| s == Some(6)), "{offered:?}");
    assert_eq!(w.c.sfs[1].rcv.rcv_wscale, Some(6));
}

/// With the upstream scheduler's send buffers a subflow's write queue holds
/// multi-segment skbs, and each transmission round gives its TCP sender
/// Linux's `max_segs = tcp_tso_segs` (at least `tcp_min_tso_segs`, 2), so
/// `tcp_tso_should_defer` can hold a send smaller than that back
/// (`PathSender::tso_defers`); without send buffers (one segment handed
/// at a time) nothing is deferred.
#[test]
fn upstream_subflows_get_tso_max_segs_each_round() {
    for (upstream, want_defer) in [(true, true), (false, false)] {
        let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
        if upstream {
            c.scheduler = SchedulerKind::Upstream;
            c.tcp.sndbuf = 256 * 1024;
        }
        let mut w = Wire::new(c.clone(), c);
        w.c.connect(0);
        w.run(50 * MS);
        w.s.write(w.now, 1 << 20);
        w.run(w.now + 200 * MS);
        let segs = w.s.sfs[0].snd.tso_max_segs;
        assert_eq!(
            segs >= 2,
            want_defer,
            "upstream {upstream}: max_segs {segs}"
        );
    }
}

/// Upstream Linux hands each page fragment of application data to one
/// subflow to its end (`__subflow_push_pending`, net/mptcp/protocol.c)
/// and picks again only there: in the kernel's captures a subflow's first
/// transmissions end at a fragment start, with a short segment, and the
/// next subflow's begin there (docs/validation.md, "Session 14: the file
/// downloads' request and page-fragment starts"). Here a 4 MiB download
/// in 64 KiB calls over two subflows (10 and 40 ms, 20 and 2 Mbit/s,
/// 256 KiB buffer): every point where the first transmissions change
/// subflow is a fragment start, and a segment crossing a fragment start on
/// one subflow stays whole. Without the cut a segment straddling a
/// fragment start was decided whole at its own start.
#[test]
fn upstream_subflows_change_only_at_page_fragment_starts() {
    let mut c = kernel_cfg(pm_kernel::PmLimits::KERNEL_DEFAULT);
    c.scheduler = SchedulerKind::Upstream;
    c.tcp.sndbuf = 256 * 1024;
    let mut w = Wire::new(c.clone(), c);
    // 20 and 2 Mbit/s towards the client
    w.rate = |a| if a == A1 { 20_000_000 } else { 2_000_000 };
    w.c.connect(0);
    w.run(30 * MS);
    w.c.write(w.now, 16);
    w.run(200 * MS);
    assert_eq!(w.s.sfs.len(), 2, "the client joined after its hello");
    let total: u64 = 4 << 20;
    let (mut written, mut starts) = (0, std::collections::BTreeSet::new());
    let mut write_ends = std::collections::BTreeSet::new();
    while w.s.send.una < total + 1 && w.now < 10 * SEC {
        while written < total && w.s.send_space() > 0 {
            let n = w.s.write(w.now, (64 * 1024).min(total - written));
            written += n;
            write_ends.insert(written + 1);
            if n == 0 {
                break;
            }
        }
        starts.extend(w.s.send.frag_starts());
        w.run(w.now + MS);
        starts.extend(w.s.send.frag_starts());
    }
    assert_eq!(w.c.recv.delivered, total);
    // first transmission of each DSN: (dsn, len, subflow address)
    let (mut first, mut sent_at) = (
        std::collections::BTreeMap::new(),
        std::collections::HashMap::new(),
    );
    for (t, p) in w.log.iter().filter(|(_, p)| p.src == S1) {
        let s = p.tcp().unwrap();
        let dsn = s.mptcp.as_ref().and_then(|m| m.dss).and_then(|d| d.dsn());
        if let (Some(d), true) = (dsn, s.len > 0) {
            first.entry(d).or_insert((s.len, p.dst));
            sent_at.entry(d).or_insert(*t);
        }
    }
    let segs: Vec<_> = first.iter().map(|(&d, &(l, a))| (d, l, a)).collect();
    let mut switches = Vec::new();
    for pair in segs.windows(2) {
        let ((d0, l0, a0), (d1, _, a1)) = (pair[0], pair[1]);
        assert_eq!(d0 + l0 as u64, d1, "first transmissions tile the DSN space");
        if a0 != a1 {
            assert!(
                starts.contains(&d1),
                "subflow changes at DSN {d1}, not a fragment start"
            );
            switches.push(d1);
        }
    }
    assert!(switches.len() >= 4, "changes of subflow at {switches:?}");
    // The first 64 KiB write, from an empty page, is three fragments:
    // [1, 32729), [32729, 65457), [65457, 65537). The first two exceed the
    // 65428-byte burst, so the third is a fresh pick (the 3G subflow here),
    // inside the write. Without the cut the write's last segment, 216 bytes
    // across 65457, was tested at its start with burst left, and stayed.
    assert_eq!(switches[0], 65_457, "changes of subflow at {switches:?}");
    // A fragment start crossed by one push on one subflow leaves no short
    // segment: a short one (not a write's end) is its subflow's last of
    // that instant; the kernel sends it alone only when the push stops
    // there (`mptcp_push_release` -> `tcp_push`).
    let full = segs.iter().map(|s| s.1).max().unwrap();
    for &(d, l, a) in &segs {
        let end = d + l as u64;
        if l == full || write_ends.contains(&end) {
            continue;
        }
        let at = sent_at[&d];
        let run_on = segs
            .iter()
            .any(|&(d2, _, a2)| d2 == end && a2 == a && sent_at[&d2] == at);
        assert!(
            !run_on,
            "a {l}-byte segment at DSN {d}, continued at the same instant"
        );
    }
    let crossed = segs
        .iter()
        .filter(|&&(d, l, _)| starts.range(d + 1..d + l as u64).next().is_some())
        .count();
    assert!(crossed > 0, "some segments run on across a fragment start");
}

/// Fullmesh with the in-kernel PM's timing (`kpm`): the joins take their
/// places in the subflow list in the endpoint list's order (path order, as
/// emulation adds the endpoints; pm_kernel.c `fill_local_addresses_vec` walks
/// `pernet->local_addr_list`), not the initial address first. With the
/// initial subflow on the client's second address, the join from the first
/// address to the announced server address comes before the one from the
/// second (seed 003's UiB->HKC fullmesh 2/1, docs/validation.md "Session 20";
/// `mptcp_subflow_get_send` keeps the first of two equally idle subflows).
#[test]
fn kernel_fullmesh_joins_follow_the_endpoint_order() {
    const S2: Addr = addr(10, 0, 1, 2);
    let order = |endpoint_order: Vec<Addr>| {
        let mut c = cfg(PmKind::Fullmesh { per_pair: 1 });
        c.scheduler = SchedulerKind::Upstream;
        let s = c.clone();
        c.endpoint_order = endpoint_order;
        let mut w = Wire::new(c.clone(), s.clone());
        w.c = MptcpConnection::new(c, 0, Role::Client, &[A2, A1], 40000, &[S1], 80).unwrap();
        w.s = MptcpConnection::new(s, 0, Role::Server, &[S1, S2], 80, &[], 40000).unwrap();
        w.c.connect(0);
        w.c.write(0, 200_000);
        w.run(2 * SEC);
        w.c.sfs
            .iter()
            .map(|s| (s.local, s.remote))
            .collect::<Vec<_>>()
    };
    // the ADD_ADDR arrives with the first DATA_ACK and makes the connection
    // fully established: its joins (every fullmesh endpoint, in list order)
    // come first, then the `subflow` endpoint's join to the first address
    // (`__mptcp_pm_kernel_worker`: ADD_ADDR_RECEIVED before ESTABLISHED)
    let kernel = order(vec![A1, A2]);
    assert_eq!(kernel, vec![(A2, S1), (A1, S2), (A2, S2), (A1, S1)]);
    // the local addresses initial first instead (v0.9x's order, and main's
    // before session 20): the join from the initial address leads
    let initial_first = order(Vec::new());
    let at = |v: &[(Addr, Addr)], p: (Addr, Addr)| v.iter().position(|&x| x == p).unwrap();
    assert!(
        at(&initial_first, (A2, S2)) < at(&initial_first, (A1, S2)),
        "{initial_first:?}"
    );
}

/// The PM opens a join from its worker (net/mptcp/pm.c
/// `mptcp_pm_fully_established` only schedules `mptcp_worker`), after the
/// softirq that processed the ACK has sent the data that ACK released: an
/// uploading client's join SYN leaves behind the segments its first
/// DATA_ACK released, from the subflow's queue or handed out by the
/// scheduler in the same `fill` (`send_on` builds them at once). Before
/// session 20 the SYN went first (docs/validation.md, "Session 20: UDE->HU").
/// Not asserted: segments after the SYN at the same instant. This wire has
/// no rate, so the other ACKs of the first flight arrive in the same
/// nanosecond, each handled on its own, and their data follows the SYN
/// (the kernel's worker would run after the whole softirq batch); with the
/// ACKs spaced none follows ("Session 21: the kernel's ADD_ADDR").
#[test]
fn a_join_syn_leaves_after_the_data_its_ack_released() {
    for pm in [
        PmKind::Fullmesh { per_pair: 1 },
        PmKind::Ndiffports { n: 2 },
    ] {
        let mut w = Wire::new(cfg(pm), cfg(pm));
        w.c.connect(0);
        w.c.write(0, 1 << 20);
        w.run(300 * MS);
        let log: Vec<(Nanos, bool, bool)> = w
            .log
            .iter()
            .filter(|(_, p)| p.src == A1 || p.src == A2)
            .map(|(t, p)| {
                let s = p.tcp().unwrap();
                let join =
                    s.has(flags::SYN) && s.mptcp.as_ref().is_some_and(|o| o.join().is_some());
                (*t, join, s.len > 0)
            })
            .collect();
        let j = log.iter().position(|x| x.1).expect("a join");
        let at = log[j].0;
        let data_before = log[..j].iter().filter(|x| x.0 == at && x.2).count();
        assert!(
            data_before > 0,
            "{pm:?}: the SYN left before the ACK's data"
        );
    }
}

/// Both ends with `sched` and `pm`; every `every`-th packet after the
/// handshake (300 ms) is lost, data and ACKs alike (0: none).
fn wire_dropping_every(sched: crate::mptcp::sched::SchedulerKind, pm: PmKind, every: u64) -> Wire {
    let mut c = cfg(pm);
    c.scheduler = sched;
    let mut w = Wire::new(c.clone(), c);
    let mut n = 0u64;
    w.drop = Box::new(move |now, _| {
        n += 1;
        now > 300 * MS && every > 0 && n % every == 0
    });
    w
}

/// The receiving end's polls after a data segment that asks for no ACK yet
/// skip `refill` (`quiet_refill`); test builds run each skipped `refill`
/// and assert that it would have queued and changed nothing
/// (`check_quiet_refill`). Transfers with minRTT (no loss, one data segment
/// in 23 dropped, ACKs too; the default path manager, one packet in 17),
/// the redundant scheduler (`copies`: never quiet) and the upstream
/// scheduler and path manager (send buffers and the connection-level
/// timer: never quiet); the client closes at the end.
#[test]
fn quiet_polls_would_refill_nothing() {
    use crate::mptcp::sched::SchedulerKind;
    let runs: [(SchedulerKind, PmKind, u64); 5] = [
        (SchedulerKind::Minrtt, PmKind::Fullmesh { per_pair: 1 }, 0),
        (SchedulerKind::Minrtt, PmKind::Fullmesh { per_pair: 1 }, 23),
        (
            SchedulerKind::Redundant,
            PmKind::Fullmesh { per_pair: 1 },
            23,
        ),
        (SchedulerKind::Upstream, PmKind::Upstream, 0),
        (SchedulerKind::Minrtt, PmKind::Default, 17),
    ];
    for (sched, pm, every) in runs {
        let mut w = wire_dropping_every(sched, pm, every);
        connect_with_request(&mut w);
        w.run(200 * MS);
        transfer(&mut w, 600_000, 30 * SEC);
        assert_eq!(w.c.recv.delivered, 600_000, "{sched:?} {pm:?}");
        w.c.close(w.now);
        w.run(w.now + 5 * SEC);
        assert!(w.s_events.contains(&AppEvent::Closed), "{sched:?} {pm:?}");
        // the receiving end (the client) takes the exit with minRTT; never
        // with copies to send (redundant) or where drains are not tracked
        // (upstream)
        let expect = sched == SchedulerKind::Minrtt;
        assert_eq!(w.quiet[0] > 0, expect, "{sched:?} {pm:?} {:?}", w.quiet);
        // and its polls after a segment that asks for an ACK build that
        // ACK alone in the slot (`Refill::AckOnly`; test builds check that
        // `refill` had nothing more to do: `ack_into`)
        assert_eq!(
            w.ack_only[0] > 0,
            expect,
            "{sched:?} {pm:?} {:?}",
            w.ack_only
        );
    }
}

/// A poll that finds one established subflow asking for an ACK, and
/// nothing else to do, builds that pure ACK alone (`Refill::AckOnly`,
/// written in the engine's slot); with a second subflow asking for an ACK
/// or for an MP_PRIO, the poll refills in full and sends both. Test builds
/// check after each ACK-only poll that `refill` had nothing more to do
/// (`ack_into`): without the test of the other subflows, the second case
/// fails there.
#[test]
fn a_poll_with_one_ack_due_builds_that_ack_alone() {
    let mut w = wire_dropping_every(
        crate::mptcp::sched::SchedulerKind::Minrtt,
        PmKind::Fullmesh { per_pair: 1 },
        0,
    );
    connect_with_request(&mut w);
    w.run(200 * MS);
    w.s.write(w.now, 60_000);
    w.run(w.now + 3 * SEC);
    assert_eq!(w.c.recv.delivered, 60_000);
    assert!(w.c.sfs.len() >= 2 && w.c.sfs.iter().all(|s| s.established()));
    let now = w.now;
    let polls = |c: &mut MptcpConnection| {
        let mut v = Vec::new();
        while let Some(p) = c.poll_transmit(now) {
            v.push(p);
        }
        v
    };
    let pure_ack_on = |p: &Packet, sf: &super::subflow::Subflow| {
        let s = p.tcp().expect("a TCP segment");
        p.src == sf.local && s.flags == flags::ACK && s.len == 0
    };
    // one subflow asks: its ACK alone
    w.c.sfs[1].rcv.force_ack();
    w.c.mark_dirty();
    assert!(w.c.ack_only_poll());
    let sent = polls(&mut w.c);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(pure_ack_on(&sent[0], &w.c.sfs[1]), "{sent:?}");
    assert!(!w.c.sfs[1].rcv.ack_due());
    // two ask: both ACKs, in subflow order
    w.c.sfs[0].rcv.force_ack();
    w.c.sfs[1].rcv.force_ack();
    w.c.mark_dirty();
    assert!(!w.c.ack_only_poll());
    let sent = polls(&mut w.c);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(pure_ack_on(&sent[0], &w.c.sfs[0]), "{sent:?}");
    assert!(pure_ack_on(&sent[1], &w.c.sfs[1]), "{sent:?}");
    // one asks for an ACK, the other has an MP_PRIO to send: both
    w.c.sfs[0].rcv.force_ack();
    w.c.sfs[1].prio_pending = Some(true);
    w.c.mark_dirty();
    assert!(!w.c.ack_only_poll());
    let sent = polls(&mut w.c);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(pure_ack_on(&sent[0], &w.c.sfs[0]), "{sent:?}");
    let prio = sent[1]
        .tcp()
        .and_then(|s| s.mptcp.as_ref())
        .and_then(|o| o.control.as_ref());
    assert_eq!(prio.and_then(|c| c.prio_backup), Some(true), "{sent:?}");
    // nothing asks: nothing sent
    w.c.mark_dirty();
    assert!(w.c.quiet_poll());
    assert!(polls(&mut w.c).is_empty());
}

/// The sending end's decisions on new data that fits the peer's window are
/// read off the views with minRTT (`Scheduler::picks_fresh_by_views`): in
/// the general round and at a pass's start (`pick_at_pass_start`, whose
/// pick `repeat_sends` then repeats); test builds ask the scheduler each
/// time and assert the same answer (`check_fresh_pick`, `check_repeat`) and
/// compare the kept views with fresh ones (`check_views`: a pass-start pick
/// made without rebuilding the ACKed subflow's view fails there). Transfers
/// with minRTT without loss and with one
/// packet in 23 dropped (data and ACKs: reinjections and re-pushes, which
/// still ask the scheduler), and with BLEST, which may wait for the fast
/// subflow and is always asked.
#[test]
fn fresh_decisions_are_read_off_the_views() {
    use crate::mptcp::sched::SchedulerKind;
    let runs: [(SchedulerKind, u64); 3] = [
        (SchedulerKind::Minrtt, 0),
        (SchedulerKind::Minrtt, 23),
        (SchedulerKind::Blest, 23),
    ];
    for (sched, every) in runs {
        let mut w = wire_dropping_every(sched, PmKind::Fullmesh { per_pair: 1 }, every);
        super::connection::FRESH_PICKS.with(|n| n.set(0));
        connect_with_request(&mut w);
        w.run(200 * MS);
        transfer(&mut w, 600_000, 30 * SEC);
        assert_eq!(w.c.recv.delivered, 600_000, "{sched:?} {every}");
        // (both ends': the client's are its request's)
        let by_views = super::connection::FRESH_PICKS.with(|n| n.get());
        if sched == SchedulerKind::Minrtt {
            // most of the transfer's segments, fewer when a pick repeats
            // (`repeat_sends`)
            assert!(by_views > 20, "{sched:?} {every}: {by_views}");
        } else {
            assert_eq!(by_views, 0, "{sched:?}");
        }
    }
}

/// minRTT that also starts a subflow's penalisation clock when it first
/// picks it for a send (Linux `defsched_init` starts `last_rbuf_opti` when
/// the subflow is created): the same answers, and a state that the
/// scheduler's call writes on a fresh decision, which the connection's
/// decisions taken without the call (`Scheduler::repeats_fresh_pick`,
/// `picks_fresh_by_views`) would leave unwritten.
#[cfg(any(debug_assertions, feature = "invariants"))]
#[derive(Debug, Default)]
struct ClockAtFirstPick {
    inner: super::sched::minrtt::MinRtt,
    first_pick: std::collections::BTreeMap<usize, Nanos>,
}

#[cfg(any(debug_assertions, feature = "invariants"))]
impl super::sched::Scheduler for ClockAtFirstPick {
    fn name(&self) -> &'static str {
        "minrtt-clock-at-first-pick"
    }

    fn schedule(
        &mut self,
        now: Nanos,
        subflows: &[super::sched::SubflowView],
        conn: &super::sched::ConnView,
        seg: &super::sched::Segment,
    ) -> super::sched::SchedOutcome {
        let out = self.inner.schedule(now, subflows, conn, seg);
        if let super::sched::Decision::Send(p) = out.decision {
            self.first_pick.entry(p).or_insert(now);
        }
        out
    }

    fn on_send_blocked(
        &mut self,
        now: Nanos,
        subflows: &[super::sched::SubflowView],
        conn: &super::sched::ConnView,
    ) -> super::sched::SchedOutcome {
        self.inner.on_send_blocked(now, subflows, conn)
    }

    fn idle_without_available(&self) -> bool {
        true
    }

    fn repeats_fresh_pick(&self) -> bool {
        true
    }

    fn picks_fresh_by_views(&self) -> bool {
        true
    }

    fn checked_state(&self) -> Option<String> {
        Some(format!("{self:?}"))
    }
}

/// The checks of the decisions the connection takes without asking
/// (`check_fresh_pick`, `check_repeat`) compare the scheduler's state as
/// well as its answer: a scheduler whose call writes state on a fresh
/// decision (`ClockAtFirstPick`, whose answers are minRTT's) fails them in
/// a 600 kB transfer, where the answers alone would pass.
#[cfg(any(debug_assertions, feature = "invariants"))]
#[test]
#[should_panic(expected = "the call changed the scheduler's state")]
fn a_skipped_call_that_writes_state_is_caught() {
    let mut w = wire_dropping_every(
        crate::mptcp::sched::SchedulerKind::Minrtt,
        PmKind::Fullmesh { per_pair: 1 },
        0,
    );
    w.c.replace_scheduler(Box::new(ClockAtFirstPick::default()));
    w.s.replace_scheduler(Box::new(ClockAtFirstPick::default()));
    connect_with_request(&mut w);
    w.run(200 * MS);
    transfer(&mut w, 600_000, 30 * SEC);
}

/// `pass_mss`: the segment size a scheduler pass cuts new data by is
/// carried from pass to pass, and must be found again when a subflow's MSS
/// changes. Here the server sends before it has received any data (32-bit
/// DATA_ACKs: MSS 1424), then the client's request brings a 64-bit DSN,
/// which widens the server's DATA_ACK and shrinks every subflow's MSS to
/// 1420 (`use_64bit_ack`, which runs `forget_all`). The server's next
/// write must be cut at 1420: with the MSS carried past the change, its
/// segments would be cut at 1424 and each then split by its subflow into
/// 1420 + 4 bytes (and checked builds stop at `check_pass_mss`).
#[test]
fn a_pass_after_the_data_ack_widens_cuts_segments_at_the_new_mss() {
    let mut w = Wire::new(
        cfg(PmKind::Fullmesh { per_pair: 1 }),
        cfg(PmKind::Fullmesh { per_pair: 1 }),
    );
    w.c.connect(0);
    w.run(200 * MS);
    let server_data = |w: &Wire, from: usize| -> Vec<u32> {
        w.log[from..]
            .iter()
            .map(|(_, p)| p.tcp().unwrap())
            .filter(|s| s.src_port == 80 && s.len > 0)
            .map(|s| s.len)
            .collect()
    };
    let mark = w.log.len();
    w.s.write(w.now, 30_000);
    w.run(SEC);
    assert_eq!(w.c.recv.delivered, 30_000);
    let before = server_data(&w, mark);
    assert_eq!(before[..before.len() - 1], vec![1424; before.len() - 1][..]);
    // the request: its 64-bit DSN reaches the server, which has nothing
    // to send until its next write
    w.c.write(w.now, 16);
    w.run(1500 * MS);
    assert_eq!(w.s.recv.delivered, 16);
    let mark = w.log.len();
    w.s.write(w.now, 30_000);
    w.run(3 * SEC);
    assert_eq!(w.c.recv.delivered, 60_000);
    let after = server_data(&w, mark);
    // 30,000 = 21 x 1420 + 180
    assert_eq!(after.len(), 22, "{after:?}");
    assert_eq!(after[..21], [1420; 21][..], "{after:?}");
}
