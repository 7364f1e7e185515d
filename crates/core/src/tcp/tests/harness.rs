//! Two endpoints over a lossy in-memory wire.

use super::*;

/// Two endpoints joined by a wire: fixed one-way delay, a rate limit, and
/// deterministic random drops of data packets (both directions for ACKs when
/// `ack_loss` is set).
struct Wire {
    a: TcpEndpoint,
    b: TcpEndpoint,
    delay: Nanos,
    rate_bps: u64,
    free_at: [Nanos; 2],
    /// Packets on the wire per direction (FIFO: arrivals are monotone).
    inflight: [VecDeque<(Nanos, Packet)>; 2],
    /// Drop-tail queue limit in packets at each sender's link.
    queue_pkts: u64,
    rng: SimRng,
    loss: f64,
    ack_loss: f64,
    now: Nanos,
    data_pkts: u64,
    dropped: u64,
    /// Check the cwnd invariant at every data transmission of `a`.
    check_cwnd: bool,
    /// Violations found, one description each.
    cwnd_violations: Vec<String>,
    /// Data packets of `a` still on the forward wire that were sent before
    /// its last RTO, and the RTO count seen so far.
    pre_rto_on_wire: u64,
    rto_seen: u64,
    /// Data copies B received although it already had them: how many per
    /// rcv_nxt at the time (the ACK number of the dup ACK each elicited).
    stale_dups: std::collections::BTreeMap<u64, u64>,
    /// Polls of `a` and `b` that `TcpEndpoint::quiet` answered without the
    /// `transmit` call (each checked against that call in test builds).
    quiet_polls: [u64; 2],
}

impl Wire {
    fn new(cfg_a: &TcpConfig, cfg_b: &TcpConfig, loss: f64, seed: u64) -> Wire {
        Wire {
            a: TcpEndpoint::new(cfg_a, 0, A, 1000, B, 80, Role::Client),
            b: TcpEndpoint::new(cfg_b, 0, B, 80, A, 1000, Role::Server),
            delay: 20 * MS,
            rate_bps: 20_000_000,
            free_at: [0, 0],
            inflight: [VecDeque::new(), VecDeque::new()],
            queue_pkts: 1_000_000,
            rng: SimRng::stream(seed, "wire"),
            loss,
            ack_loss: 0.0,
            now: 0,
            data_pkts: 0,
            dropped: 0,
            check_cwnd: false,
            cwnd_violations: Vec::new(),
            pre_rto_on_wire: 0,
            rto_seen: 0,
            stale_dups: Default::default(),
            quiet_polls: [0, 0],
        }
    }

    fn pump(&mut self) {
        for dir in [true, false] {
            loop {
                let ep = if dir { &mut self.a } else { &mut self.b };
                let tlp_before = ep.counters().tlp_probes;
                self.quiet_polls[!dir as usize] += ep.quiet() as u64;
                let Some(p) = ep.poll_transmit(self.now) else {
                    break;
                };
                if dir && self.check_cwnd && p.is_data() {
                    self.check_cwnd_invariant(tlp_before);
                }
                // size = headers + payload, never above the MTU
                assert_eq!(
                    p.size,
                    tcp(&p).header_len(crate::packet::IpVersion::V4) + p.payload_len()
                );
                assert!(p.size <= 1500, "{} bytes", p.size);
                let p_loss = if p.is_data() {
                    self.loss
                } else {
                    self.ack_loss
                };
                if p.is_data() {
                    self.data_pkts += 1;
                }
                let d = dir as usize;
                let start = self.free_at[d].max(self.now);
                let ser = crate::time::tx_time(p.size as u64, self.rate_bps);
                if self.rng.chance(p_loss) || start - self.now > self.queue_pkts * ser {
                    self.dropped += p.is_data() as u64;
                    continue;
                }
                let done = start + ser;
                self.free_at[d] = done;
                self.inflight[d].push_back((done + self.delay, p));
            }
        }
    }

    /// Invariant at every data transmission of `a` (new data or
    /// retransmission): the packets in flight do not exceed cwnd. Checked
    /// twice: against the sender's own estimate (RFC 6675 pipe / Linux
    /// tcp_packets_in_flight) and against the ground truth, the data
    /// packets of `a` actually in the network now (on the forward wire,
    /// including the one just sent). The estimate must never undercount the
    /// truth by more than the network can account for, so the truth bounds
    /// what a broken estimate lets out. Allowances: a TLP probe (RFC 8985
    /// 7.3) is sent regardless of cwnd: +1. The fast retransmit (RFC 5681
    /// 3.2 / RFC 6582 3.2 (2)) and PRR's sndcnt (RFC 6937) are inside cwnd
    /// because PRR sets cwnd = pipe + sndcnt before sending (and forces
    /// sndcnt >= 1 for the fast retransmit, as Linux). After an RTO every
    /// outstanding segment is deemed lost (RFC 5681 3.1 / RFC 6298 5,
    /// Linux tcp_timeout_mark_lost), so the truth only counts packets sent
    /// after the last RTO (the wire is FIFO: the older ones are in front),
    /// and not copies of data already cumulatively acknowledged (a packet
    /// that is both may be subtracted twice: that only weakens the check).
    /// Without SACK, dup ACKs caused by needless copies are allowed for
    /// (below).
    fn check_cwnd_invariant(&mut self, tlp_before: u64) {
        let on_wire = self.inflight[1].iter().filter(|x| x.1.is_data()).count() as u64;
        let rto = self.a.counters().rto_events;
        if rto != self.rto_seen {
            self.rto_seen = rto;
            self.pre_rto_on_wire = on_wire;
        }
        let s = &self.a.snd;
        // Copies of data already cumulatively ACKed (go-back-N resends of
        // segments the receiver had buffered) are invisible to any sender.
        let una = s.snd_una;
        let stale = self.inflight[1]
            .iter()
            .filter(|x| x.1.is_data() && tcp(&x.1).seq + (x.1.payload_len() as u64) <= una)
            .count() as u64;
        let on_wire = on_wire - stale;
        let mut allow = if s.counters.tlp_probes > tlp_before {
            1
        } else {
            0
        };
        self.stale_dups = self.stale_dups.split_off(&una);
        if let Some(&n) = self.stale_dups.get(&una).filter(|_| !s.sack_ok()) {
            // Without SACK a duplicate ACK elicited by a needless copy (a
            // go-back-N resend after an RTO of data the receiver already
            // had, in order or buffered) cannot be told apart from one
            // elicited by new data above a hole (RFC 5681 3.2; RFC 6582 4.1
            // and 6): each such dup ACK counted as an emulated SACK lets
            // one more segment out.
            allow += n.min(s.sacked_out as u64);
        }
        let cwnd = s.cwnd() as u64;
        let est = s.in_flight() as u64;
        let truth = on_wire - self.pre_rto_on_wire.min(on_wire) + 1;
        if est > cwnd + allow || truth > cwnd + allow {
            self.cwnd_violations.push(format!(
                "t={}ms ca={:?} cwnd={} est={} truth={} allow={} po={} so={} lo={} ro={} una={} nxt={}",
                self.now / MS,
                s.ca_state(),
                cwnd,
                est,
                truth,
                allow,
                s.packets_out,
                s.sacked_out,
                s.lost_out,
                s.retrans_out,
                s.snd_una,
                s.snd_nxt
            ));
        }
    }

    /// Run until `done` returns true or time `limit`.
    fn run(&mut self, limit: Nanos, mut app: impl FnMut(&mut Wire) -> bool) {
        self.a.connect(0);
        loop {
            if app(self) {
                return;
            }
            self.pump();
            let mut next = self
                .inflight
                .iter()
                .filter_map(|q| q.front().map(|x| x.0))
                .min();
            for t in [self.a.poll_timeout(), self.b.poll_timeout()]
                .into_iter()
                .flatten()
            {
                next = Some(next.map_or(t, |n: Nanos| n.min(t)));
            }
            let Some(next) = next else { return };
            if next > limit {
                panic!(
                    "ran past the time limit: a={:?} una={} nxt={} wseq={} ca={:?} cwnd={} inflight={} po={} so={} lo={} ro={} timer={:?} | b={:?} rcv_nxt={} fin={} | {:?}",
                    self.a.state, self.a.snd.snd_una, self.a.snd.snd_nxt, self.a.snd.write_seq, self.a.snd.ca_state(), self.a.snd.cwnd(),
                    self.a.snd.in_flight(), self.a.snd.packets_out, self.a.snd.sacked_out, self.a.snd.lost_out, self.a.snd.retrans_out,
                    self.a.poll_timeout(), self.b.state, self.b.rcv.rcv_nxt, self.b.rcv.fin_received, self.a.counters()
                );
            }
            self.now = next.max(self.now);
            // deliver everything due, in arrival order
            for d in [1usize, 0] {
                while self.inflight[d].front().is_some_and(|x| x.0 <= self.now) {
                    let (_, p) = self.inflight[d].pop_front().unwrap();
                    if d == 1 {
                        if p.is_data() && self.pre_rto_on_wire > 0 {
                            self.pre_rto_on_wire -= 1;
                        }
                        let before = (self.b.rcv.rcv_nxt, self.b.rcv.ooo_bytes());
                        self.b.handle_packet(self.now, &p);
                        if p.is_data() && before == (self.b.rcv.rcv_nxt, self.b.rcv.ooo_bytes()) {
                            // a copy of data B already had (below rcv_nxt or
                            // already buffered): it elicits a duplicate ACK
                            *self.stale_dups.entry(self.b.rcv.rcv_nxt).or_default() += 1;
                        }
                    } else {
                        self.a.handle_packet(self.now, &p);
                    }
                }
            }
            if self.a.poll_timeout().is_some_and(|t| t <= self.now) {
                self.a.handle_timeout(self.now);
            }
            if self.b.poll_timeout().is_some_and(|t| t <= self.now) {
                self.b.handle_timeout(self.now);
            }
        }
    }
}

/// Transfer `total` bytes A -> B; returns the wire after both sides closed.
fn transfer(cfg_a: &TcpConfig, cfg_b: &TcpConfig, total: u64, loss: f64, seed: u64) -> (Wire, u64) {
    let mut w = Wire::new(cfg_a, cfg_b, loss, seed);
    let mut written = 0u64;
    let mut delivered = 0u64;
    let mut closed_a = false;
    let mut closed_b = false;
    let mut connected = 0;
    w.run(600 * SEC, |w| {
        while let Some(e) = w.a.poll_event() {
            match e {
                AppEvent::Connected => connected += 1,
                AppEvent::Closed => closed_a = true,
                AppEvent::PeerClosed => {}
                AppEvent::Writable | AppEvent::Delivered { .. } => {}
                e => panic!("{e:?}"),
            }
        }
        while let Some(e) = w.b.poll_event() {
            match e {
                AppEvent::Connected => connected += 1,
                AppEvent::Delivered { total: t } => {
                    assert!(t > delivered, "delivery must advance");
                    delivered = t;
                }
                AppEvent::PeerClosed => {
                    assert_eq!(delivered, total);
                    w.b.close(w.now);
                }
                AppEvent::Closed => closed_b = true,
                e => panic!("{e:?}"),
            }
        }
        if connected == 2 && written < total {
            written += w.a.write(w.now, total - written);
            if written == total {
                w.a.close(w.now);
            }
        }
        closed_a && closed_b
    });
    assert!(closed_a && closed_b, "connection did not close");
    (w, delivered)
}

#[test]
fn harness_lossless_transfer() {
    let (w, delivered) = transfer(&cfg(), &cfg(), 1_000_000, 0.0, 1);
    assert_eq!(delivered, 1_000_000);
    let c = w.a.counters();
    assert_eq!(c.bytes_retransmitted, 0);
    assert_eq!(c.bytes_sent, 1_000_000);
    assert_eq!(c.data_packets_sent, 1_000_000u64.div_ceil(MSS));
    assert_eq!(w.b.counters().bytes_received, 1_000_000);
    // 1 MB at 20 Mbit/s with 40 ms RTT takes well under 2 s
    assert!(w.now < 2 * SEC, "took {}", w.now);
}

/// An idle ACK (`PathSender::ack_is_idle`) leaves the send buffer's
/// `on_ack` out; checked builds make the call (`check_idle_sndbuf`) and
/// panic if it freed an skb. Here B has written data and SND.UNA is moved
/// past it by hand, leaving its skbs acknowledged but not freed.
#[cfg(any(debug_assertions, feature = "invariants"))]
#[test]
#[should_panic(expected = "an idle ACK skipped the send buffer's on_ack, which freed an skb")]
fn check_idle_sndbuf_catches_an_skb_left_to_free() {
    let mut w = Wire::new(&cfg(), &cfg(), 0.0, 1);
    w.run(10 * SEC, |w| w.b.state == TcpState::Established);
    assert!(w.b.write(w.now, 3 * MSS) > 0);
    w.b.snd.snd_una = w.b.snd.write_seq;
    w.b.check_idle_sndbuf();
}

/// `poll_transmit_into` returns false without calling `transmit` when
/// `TcpEndpoint::quiet` holds (the receiving end's drain after a data
/// segment that asks for no ACK yet). Test builds run the skipped call as
/// well (`check_quiet`) and panic if it would have sent or changed anything:
/// here through loss, recovery, RTOs and the close, on both ends, and with
/// delayed ACKs off (every data segment answered at once).
#[test]
fn quiet_polls_would_send_nothing() {
    let mut no_delack = cfg();
    no_delack.delayed_ack = false;
    for (c, loss) in [(cfg(), 0.0), (cfg(), 0.03), (no_delack, 0.03)] {
        for seed in 1..4 {
            let mut w = Wire::new(&c, &c, loss, seed);
            w.ack_loss = loss;
            let (mut written, total) = (0u64, 600_000u64);
            w.run(600 * SEC, |w| {
                while w.a.poll_event().is_some() {}
                while let Some(e) = w.b.poll_event() {
                    if e == AppEvent::PeerClosed {
                        w.b.close(w.now);
                    }
                }
                if w.a.state == TcpState::Established && written < total {
                    written += w.a.write(w.now, total - written);
                    if written == total {
                        w.a.close(w.now);
                    }
                }
                w.a.state == TcpState::Done && w.b.state == TcpState::Done
            });
            assert_eq!(w.b.rcv.delivered, total);
            // the receiving end takes the quiet exit after most data segments
            // with delayed ACKs; never with them off (each asks for an ACK)
            assert!(
                w.quiet_polls[1] > 0 || !c.delayed_ack,
                "{:?}",
                w.quiet_polls
            );
        }
    }
}

fn check_lossy(cfg_a: &TcpConfig, cfg_b: &TcpConfig, seed: u64) {
    let total = 1_000_000;
    let (w, delivered) = transfer(cfg_a, cfg_b, total, 0.01, seed);
    assert_eq!(delivered, total);
    let c = w.a.counters();
    if std::env::var("TCP_DIAG").is_ok() {
        eprintln!("{:?} took {} ms: {c:?}", w.a.snd.cc_name(), w.now / MS);
    }
    // every payload byte sent once plus the retransmissions
    assert_eq!(c.bytes_sent, total + c.bytes_retransmitted);
    let retrans_pkts = c.retrans_fast + c.retrans_rto + c.retrans_tlp;
    assert!(retrans_pkts > 0);
    let mss = w.a.snd.mss as u64;
    assert_eq!(
        c.data_packets_sent,
        total.div_ceil(mss) + retrans_pkts,
        "{c:?}"
    );
    // the receiver got what was not dropped
    let rb = w.b.counters();
    assert_eq!(rb.data_packets_received + w.dropped, c.data_packets_sent);
    assert!(rb.bytes_received >= total);
    assert!(c.recoveries + c.rto_events + c.tlp_probes > 0);
}

#[test]
fn harness_rack_repairs_lost_retransmissions_without_rto() {
    // 3 % random loss (no reordering on the wire), TLP off to isolate loss
    // detection: with RACK, lost retransmissions are found by time
    // (RFC 8985 6) instead of by the RTO, and nothing is retransmitted
    // spuriously; RFC 6675 alone waits for the RTO.
    let run = |rack: bool| {
        let c = TcpConfig {
            rack,
            tlp: false,
            ..cfg()
        };
        let (mut rto, mut relost, mut spurious) = (0, 0, 0);
        for seed in 1..=10 {
            let (w, delivered) = transfer(&c, &c, 1_000_000, 0.03, seed);
            assert_eq!(delivered, 1_000_000);
            rto += w.a.counters().rto_events;
            spurious += w.a.counters().retrans_spurious;
            relost += w.a.snd.lost_retrans;
        }
        (rto, relost, spurious)
    };
    let (rto_rack, relost_rack, spurious_rack) = run(true);
    let (rto_6675, relost_6675, _) = run(false);
    eprintln!("RTOs: RACK {rto_rack}, RFC 6675 {rto_6675}; lost retransmissions found by RACK: {relost_rack}");
    assert!(relost_rack > 0);
    assert_eq!(relost_6675, 0);
    assert!(rto_rack < rto_6675, "{rto_rack} vs {rto_6675}");
    assert_eq!(spurious_rack, 0);
}

#[test]
fn harness_one_percent_loss_sack_cubic() {
    let c = TcpConfig {
        cc: CcKind::Cubic,
        ..TcpConfig::default()
    };
    for seed in 1..4 {
        check_lossy(&c, &c, seed);
    }
}

#[test]
fn harness_one_percent_loss_newreno_no_sack() {
    let c = TcpConfig {
        sack: false,
        ..cfg()
    };
    for seed in 1..4 {
        check_lossy(&c, &c, seed);
    }
}

#[test]
fn harness_one_percent_loss_no_timestamps_no_delack() {
    let c = TcpConfig {
        timestamps: false,
        delayed_ack: false,
        tlp: false,
        ..cfg()
    };
    for seed in 1..4 {
        check_lossy(&c, &c, seed);
    }
}

#[test]
fn harness_saturated_flow_behaviour() {
    // Behaviour only (no wall-clock assertions): 20 Mbit/s, 40 ms RTT, 10 s
    // saturated. The scoreboard must stay bounded and the link busy.
    let c = TcpConfig {
        cc: CcKind::Cubic,
        ..TcpConfig::default()
    };
    let (w, delivered) = transfer(&c, &c, 20_000_000, 0.001, 9);
    assert_eq!(delivered, 20_000_000);
    // goodput at least half the link rate
    assert!(w.now < 16 * SEC, "took {} ms", w.now / MS);
}

/// Speed check, run by hand: `cargo test --release -p mptlab-core -- --ignored
/// speed --nocapture`. Prints simulated data packets per wall-clock second
/// for a saturated CUBIC flow at 20 Mbit/s / 40 ms RTT with a drop-tail queue
/// of one BDP. Never asserts on time.
#[test]
#[ignore]
fn speed_saturated_flow() {
    let c = TcpConfig::default();
    let mut w = Wire::new(&c, &c, 0.0, 1);
    w.queue_pkts = 70;
    let total = 1_000_000_000u64;
    let mut written = 0u64;
    let wall = std::time::Instant::now();
    w.run(1000 * SEC, |w| {
        while w.a.poll_event().is_some() {}
        while w.b.poll_event().is_some() {}
        if w.a.state == TcpState::Established && written < total {
            written += w.a.write(w.now, total - written);
        }
        w.now >= 200 * SEC
    });
    let el = wall.elapsed().as_secs_f64();
    let c = w.a.counters();
    println!(
        "{} data packets in {:.3} s wall: {:.0} pkts/s; goodput {:.2} Mbit/s; {:?}",
        w.data_pkts,
        el,
        w.data_pkts as f64 / el,
        w.b.rcv.delivered as f64 * 8.0 / 200.0 / 1e6,
        c
    );
}

#[test]
fn harness_heavy_loss_both_directions() {
    // 5 % data loss and 5 % ACK loss: recovery, RTO and TLP all exercised;
    // every byte still delivered in order exactly once.
    for (cc, sack, seed) in [
        (CcKind::Cubic, true, 11),
        (CcKind::NewReno, true, 12),
        (CcKind::NewReno, false, 13),
        (CcKind::Cubic, true, 14),
    ] {
        let c = TcpConfig {
            cc,
            sack,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&c, &c, 0.05, seed);
        w.ack_loss = 0.05;
        let total = 300_000u64;
        let mut written = 0u64;
        let mut delivered = 0u64;
        let (mut ca, mut cb) = (false, false);
        w.run(3600 * SEC, |w| {
            while let Some(e) = w.a.poll_event() {
                if e == AppEvent::Closed {
                    ca = true;
                }
            }
            while let Some(e) = w.b.poll_event() {
                match e {
                    AppEvent::Delivered { total: t } => {
                        assert!(t > delivered);
                        delivered = t;
                    }
                    AppEvent::PeerClosed => w.b.close(w.now),
                    AppEvent::Closed => cb = true,
                    _ => {}
                }
            }
            if w.a.state == TcpState::Established && written < total {
                written += w.a.write(w.now, total - written);
                if written == total {
                    w.a.close(w.now);
                }
            }
            ca && cb
        });
        assert!(ca && cb, "seed {seed}: not closed");
        assert_eq!(delivered, total);
        let c = w.a.counters();
        assert_eq!(c.bytes_sent, total + c.bytes_retransmitted);
        assert!(c.retrans_fast + c.retrans_rto + c.retrans_tlp > 0);
    }
}

#[test]
fn harness_bidirectional_with_nagle_and_small_writes() {
    // Both sides write 200-byte messages; Nagle on; both close after 100 kB.
    let c = TcpConfig {
        nagle: true,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&c, &c, 0.01, 21);
    let total = 100_000u64;
    let mut written = [0u64; 2];
    let mut delivered = [0u64; 2];
    let mut closed = [false; 2];
    w.run(600 * SEC, |w| {
        for (i, ep) in [&mut w.a, &mut w.b].into_iter().enumerate() {
            while let Some(e) = ep.poll_event() {
                match e {
                    AppEvent::Delivered { total: t } => delivered[i] = t,
                    AppEvent::Closed => closed[i] = true,
                    _ => {}
                }
            }
            if ep.state == TcpState::Established && written[i] < total {
                written[i] += ep.write(w.now, 200.min(total - written[i]));
                if written[i] == total {
                    ep.close(w.now);
                }
            }
        }
        closed[0] && closed[1]
    });
    assert_eq!(delivered, [total, total]);
    assert!(closed[0] && closed[1]);
    // Nagle coalesced the 500 writes into far fewer segments
    assert!(
        w.a.counters().data_packets_sent < 300,
        "{}",
        w.a.counters().data_packets_sent
    );
}

#[test]
#[ignore]
fn fuzz_many_seeds() {
    let from: u64 = std::env::var("FUZZ_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for seed in from..from + 2000u64 {
        let cc = if seed % 2 == 0 {
            CcKind::Cubic
        } else {
            CcKind::NewReno
        };
        let c = TcpConfig {
            cc,
            sack: seed % 3 != 0,
            timestamps: seed % 5 != 0,
            delayed_ack: seed % 7 != 0,
            tlp: seed % 4 != 0,
            nagle: seed % 2 == 0,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&c, &c, 0.01 * (seed % 8) as f64, seed);
        w.ack_loss = 0.01 * (seed % 6) as f64;
        w.queue_pkts = 20 + seed % 100;
        eprintln!("seed {seed}");
        let total = 200_000u64 + seed * 1000;
        let mut written = 0u64;
        let mut delivered = 0u64;
        let (mut ca, mut cb) = (false, false);
        w.run(36000 * SEC, |w| {
            while let Some(e) = w.a.poll_event() {
                if e == AppEvent::Closed {
                    ca = true;
                }
            }
            while let Some(e) = w.b.poll_event() {
                match e {
                    AppEvent::Delivered { total: t } => {
                        assert!(t > delivered);
                        delivered = t;
                    }
                    AppEvent::PeerClosed => w.b.close(w.now),
                    AppEvent::Closed => cb = true,
                    _ => {}
                }
            }
            if w.a.state == TcpState::Established && written < total {
                written += w.a.write(w.now, (total - written).min(3000 + seed * 7));
                if written == total {
                    w.a.close(w.now);
                }
            }
            ca && cb
        });
        assert!(ca && cb, "seed {seed}: not closed");
        assert_eq!(delivered, total, "seed {seed}");
        let c = w.a.counters();
        assert_eq!(c.bytes_sent, total + c.bytes_retransmitted);
    }
}

#[test]
fn harness_hystart_pp_leaves_slow_start_on_queueing_delay() {
    // No loss, unbounded queue: queueing raises the RTT, HyStart++ moves to
    // CSS and then congestion avoidance without any loss.
    for cubic in [CubicVariant::Rfc9438, CubicVariant::Linux] {
        let c = TcpConfig {
            cc: CcKind::Cubic,
            cubic,
            hystart: HyStartMode::HyStartPP,
            ..TcpConfig::default()
        };
        let (w, delivered) = transfer(&c, &c, 5_000_000, 0.0, 3);
        assert_eq!(delivered, 5_000_000);
        assert_eq!(w.a.counters().recoveries + w.a.counters().rto_events, 0);
        assert!(
            w.a.snd.ssthresh() < cc::INFINITE_SSTHRESH,
            "still in slow start"
        );
        // without HyStart slow start never ends here
        let c = TcpConfig {
            cc: CcKind::Cubic,
            cubic,
            hystart: HyStartMode::Off,
            ..TcpConfig::default()
        };
        let (w, _) = transfer(&c, &c, 5_000_000, 0.0, 3);
        assert_eq!(w.a.snd.ssthresh(), cc::INFINITE_SSTHRESH);
    }
}

#[test]
fn harness_linux_hystart_leaves_slow_start_on_queueing_delay() {
    // The same with Linux HyStart (the default), for both CUBIC variants.
    for cubic in [CubicVariant::Linux, CubicVariant::Rfc9438] {
        let c = TcpConfig {
            cc: CcKind::Cubic,
            cubic,
            ..TcpConfig::default()
        };
        assert_eq!(c.hystart, HyStartMode::Linux);
        let (w, delivered) = transfer(&c, &c, 5_000_000, 0.0, 3);
        assert_eq!(delivered, 5_000_000);
        assert_eq!(
            w.a.counters().recoveries + w.a.counters().rto_events,
            0,
            "{cubic:?}"
        );
        assert!(
            w.a.snd.ssthresh() < cc::INFINITE_SSTHRESH,
            "{cubic:?} still in slow start"
        );
    }
}

#[test]
fn cwnd_restart_after_idle() {
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    for i in 1..=10u64 {
        send!(ep, 80 * MS, ack(sq(i), 40 * MS));
    }
    assert_eq!(ep.snd.cwnd(), 20);
    // idle 1 s > RTO (240 ms): 20 halves to 10 (= IW, the floor);
    // ssthresh = max(inf, 3/4 * 20) stays infinite (Linux tcp_current_ssthresh)
    ep.write(1080 * MS, 30 * MSS);
    assert_eq!(recv!(ep, 1080 * MS).len(), 10);
    assert_eq!(ep.snd.cwnd(), 10);
    // without slow start after idle the window is kept
    let c = TcpConfig {
        slow_start_after_idle: false,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    for i in 1..=10u64 {
        send!(ep, 80 * MS, ack(sq(i), 40 * MS));
    }
    ep.write(1080 * MS, 30 * MSS);
    assert_eq!(recv!(ep, 1080 * MS).len(), 20);
}

#[test]
fn sack_blocks_on_data_segments_shrink_the_payload() {
    // The client has out-of-order data from the peer, so its next data
    // segment carries one SACK block. Options: NOP NOP TS 12 + NOP NOP SACK
    // 4 + 8 = 24 bytes (Linux `tcp_options_write`), 12 more than the 12 of
    // TS alone: `tcp_current_mss` gives 1448 - 12 = 1436 payload bytes.
    let mut ep = client();
    let mut d = peer(1 + MSS, 1, MSS as u32, flags::ACK);
    d.set_ts(Some((50, 0)));
    send!(ep, 50 * MS, d);
    ep.write(50 * MS, 3 * MSS);
    let out = recv!(ep, 50 * MS);
    assert_eq!(tcp(&out[0]).sack_len(), 1);
    assert_eq!(tcp(&out[0]).len, 1436);
    assert_eq!(out[0].size, 1500);
    // every segment repeats the block while the hole exists (RFC 2018 4)
    assert_eq!((tcp(&out[1]).sack_len(), tcp(&out[1]).len), (1, 1436));
    // the hole is filled: full-sized segments again
    let mut d = peer(1, 1, MSS as u32, flags::ACK);
    d.set_ts(Some((51, 0)));
    send!(ep, 51 * MS, d);
    ep.write(51 * MS, 3 * MSS);
    let out = recv!(ep, 51 * MS);
    assert_eq!(
        (tcp(&out[0]).sack_len(), tcp(&out[0]).len, out[0].size),
        (0, 1448, 1500)
    );
}

#[test]
fn tlp_decision_can_be_taken_over() {
    // An MPTCP connection can take the due probe and send it elsewhere.
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(7), 40 * MS));
    ep.handle_timeout(168 * MS); // PTO 80 ms, timer wheel level 1
    assert!(ep.snd.tlp_due());
    assert_eq!(
        ep.snd.tlp_probe(),
        Some(TlpProbe::Retransmit {
            seq: sq(9),
            len: MSS as u32,
            fin: false
        })
    );
    assert_eq!(
        ep.snd.take_tlp(160 * MS),
        Some(TlpProbe::Retransmit {
            seq: sq(9),
            len: MSS as u32,
            fin: false
        })
    );
    assert!(recv!(ep, 160 * MS).is_empty());
    assert!(ep.snd.rto_pending());
    assert_eq!(ep.counters().tlp_probes, 0);
}

/// Bulk transfer A -> B for `secs` seconds with the cwnd invariant checked
/// at every data transmission; returns (violations, goodput bytes).
fn cwnd_invariant_run(
    c: &TcpConfig,
    loss: f64,
    ack_loss: f64,
    seed: u64,
    secs: u64,
) -> (Vec<String>, u64) {
    // 20 Mbit/s, 40 ms RTT, a drop-tail queue of about one BDP
    cwnd_invariant_run_on(c, loss, ack_loss, seed, secs, 20_000_000, 70)
}

fn cwnd_invariant_run_on(
    c: &TcpConfig,
    loss: f64,
    ack_loss: f64,
    seed: u64,
    secs: u64,
    rate_bps: u64,
    queue_pkts: u64,
) -> (Vec<String>, u64) {
    let mut w = Wire::new(c, c, loss, seed);
    w.ack_loss = ack_loss;
    w.check_cwnd = true;
    w.rate_bps = rate_bps;
    w.queue_pkts = queue_pkts;
    let total = 1_000_000_000u64;
    let mut written = 0u64;
    w.run(10 * secs * SEC, |w| {
        while w.a.poll_event().is_some() {}
        while w.b.poll_event().is_some() {}
        if w.a.state == TcpState::Established && written < total {
            written += w.a.write(w.now, total - written);
        }
        w.now >= secs * SEC
    });
    (std::mem::take(&mut w.cwnd_violations), w.b.rcv.delivered)
}

#[test]
fn cwnd_invariant_under_random_loss() {
    // RFC 5681 / RFC 6675 / RFC 6582: whatever the sender transmits (new
    // data, fast retransmits, partial-ACK retransmits, go-back-N after an
    // RTO), the packets in flight stay within cwnd (allowances above).
    let mut bad = Vec::new();
    for sack in [false, true] {
        for tlp in [false, true] {
            for (loss, ack_loss) in [
                (0.01, 0.0),
                (0.03, 0.0),
                (0.10, 0.0),
                (0.01, 0.02),
                (0.03, 0.05),
                (0.10, 0.05),
            ] {
                for seed in 1..11 {
                    let c = TcpConfig {
                        sack,
                        tlp,
                        cc: CcKind::NewReno,
                        ..TcpConfig::default()
                    };
                    let (v, _) = cwnd_invariant_run(&c, loss, ack_loss, seed, 20);
                    if !v.is_empty() {
                        bad.push(format!(
                            "sack={sack} tlp={tlp} loss={loss} ack_loss={ack_loss} seed={seed}: {} violations, first {}",
                            v.len(),
                            v[0]
                        ));
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} runs violate the cwnd invariant:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn goodput_does_not_increase_with_loss() {
    // More random loss must not give more goodput. In the simulator
    // (100 Mbit/s, 40 ms, 1000-packet queue) it did without SACK when
    // emulated SACKs outlived their dup-ACK run and inflated the window;
    // on this wire the ordering happened to hold even then, so this is a
    // guard, and cwnd_invariant_under_random_loss is the test that caught it.
    for sack in [false, true] {
        for tlp in [false, true] {
            let c = TcpConfig {
                sack,
                tlp,
                cc: CcKind::NewReno,
                ..TcpConfig::default()
            };
            for (rate, queue) in [(20_000_000, 70), (100_000_000, 1000)] {
                let mut prev = u64::MAX;
                for loss in [0.001, 0.01, 0.03, 0.10] {
                    let g: u64 = (1..4)
                        .map(|seed| cwnd_invariant_run_on(&c, loss, 0.0, seed, 30, rate, queue).1)
                        .sum();
                    assert!(g <= prev, "sack={sack} tlp={tlp} rate={rate}: goodput {g} at loss {loss} above {prev} at lower loss");
                    prev = g;
                }
            }
        }
    }
}
