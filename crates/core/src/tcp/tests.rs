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
            size: s.header_len() + s.len,
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

// ---------------------------------------------------------------- handshake

#[test]
fn handshake_active_side() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    let syn = recv!(ep, 0);
    let s = tcp(&syn[0]);
    assert_eq!(s.flags, flags::SYN);
    assert_eq!((s.seq, s.mss(), s.sack_permitted), (0, Some(1460), true));
    // rcvbuf 6 MiB: 65535 << 7 = 8388480 >= 6291456, << 6 is not.
    assert_eq!(s.wscale, Some(7));
    assert!(s.ts().is_some());
    // 20 + 20 + (4 + 3 + 2 + 10 = 19 -> 20) = 60 bytes
    assert_eq!(syn[0].size, 60);
    // no answer: SYN retransmitted after 1 s (RFC 6298 2.1), then 2 s
    assert_eq!(ep.poll_timeout(), Some(SEC));
    ep.handle_timeout(SEC);
    assert_eq!(recv!(ep, SEC).len(), 1);
    assert_eq!(ep.poll_timeout(), Some(3 * SEC));
    send!(ep, 3 * SEC + 40 * MS, syn_ack(true));
    assert_eq!(events(&mut ep), vec![AppEvent::Connected]);
    let a = recv!(ep, 3 * SEC + 40 * MS);
    assert_eq!(a.len(), 1);
    assert_eq!(
        (tcp(&a[0]).flags, tcp(&a[0]).ack, tcp(&a[0]).seq),
        (flags::ACK, 1, 1)
    );
    // Karn: SYN was retransmitted, no RTT sample; RFC 6298 (5.7): RTO 3 s
    assert_eq!(ep.snd.rtt.srtt, 0);
    assert_eq!(ep.snd.rtt.rto(), 3 * SEC);
    assert_eq!(ep.snd.cwnd(), 10);
    assert_eq!(ep.snd.mss, 1448);
}

#[test]
fn handshake_passive_side() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 80, B, 1000, Role::Server);
    assert!(recv!(ep, 0).is_empty());
    let mut syn = peer(0, 0, 0, flags::SYN);
    syn.set_mss(Some(1460));
    syn.wscale = Some(7);
    syn.sack_permitted = true;
    syn.set_ts(Some((5, 0)));
    send!(ep, 0, syn);
    let sa = recv!(ep, 0);
    assert_eq!(sa.len(), 1);
    let s = tcp(&sa[0]);
    assert_eq!((s.flags, s.seq, s.ack), (flags::SYN | flags::ACK, 0, 1));
    assert_eq!(
        (s.wscale, s.sack_permitted, s.ts()),
        (Some(7), true, Some((0, 5)))
    );
    // SYN-ACK retransmitted after 1 s if the ACK is lost
    ep.handle_timeout(SEC);
    assert_eq!(recv!(ep, SEC).len(), 1);
    send!(ep, SEC + 10 * MS, ack(1, 0));
    assert_eq!(events(&mut ep), vec![AppEvent::Connected]);
    assert_eq!(ep.state, TcpState::Established);
}

#[test]
fn handshake_without_options_caps_window() {
    let c = TcpConfig {
        timestamps: false,
        window_scaling: false,
        sack: false,
        ..cfg()
    };
    let mut ep = TcpEndpoint::new(&c, 0, A, 80, B, 1000, Role::Server);
    let mut syn = peer(0, 0, 0, flags::SYN);
    syn.set_mss(Some(1460));
    send!(ep, 0, syn);
    let sa = recv!(ep, 0);
    let s = tcp(&sa[0]);
    assert_eq!((s.wscale, s.sack_permitted, s.ts()), (None, false, None));
    send!(ep, MS, ack(1, 0));
    // data at 1: ACK advertises at most 65535 without scaling
    let mut d = peer(1, 1, 1460, flags::ACK);
    d.set_ts(None);
    send!(ep, 2 * MS, d);
    let a = recv!(ep, 2 * MS);
    assert_eq!(tcp(&a[0]).window, 65535);
    assert_eq!(ep.snd.mss, 1460);
}

// ---------------------------------------------------------------- sending

#[test]
fn iw10_burst_of_full_segments() {
    let mut ep = client();
    assert_eq!(ep.write(40 * MS, 100_000), 100_000);
    let out = recv!(ep, 40 * MS);
    assert_eq!(out.len(), 10);
    for (i, p) in out.iter().enumerate() {
        assert_eq!(tcp(p).seq, sq(i as u64));
        assert_eq!(tcp(p).len, 1448);
        assert_eq!(p.size, 1500);
    }
    assert_eq!(ep.snd.in_flight(), 10);
    assert_eq!(ep.path_states()[0].cwnd_bytes, 10 * 1448);
}

#[test]
fn slow_start_grows_one_packet_per_ack() {
    let mut ep = client();
    ep.write(40 * MS, 1_000_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    for i in 1..=10u64 {
        send!(ep, 80 * MS, ack(sq(i), 40 * MS));
        // each ACK of one packet: cwnd + 1, two new packets out
        assert_eq!(ep.snd.cwnd() as u64, 10 + i);
        assert_eq!(recv!(ep, 80 * MS).len(), 2);
    }
    assert_eq!(ep.snd.in_flight(), 20);
}

#[test]
fn newreno_congestion_avoidance_adds_one_per_window() {
    let mut ep = client();
    ep.snd.cc_state.ssthresh = 10;
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS);
    // 10 ACKs of one packet each: cwnd_cnt reaches 10 = cwnd -> cwnd 11
    for i in 1..=10u64 {
        send!(ep, 80 * MS, ack(sq(i), 40 * MS));
        recv!(ep, 80 * MS);
    }
    assert_eq!(ep.snd.cwnd(), 11);
    assert_eq!(ep.snd.cc_state.cwnd_cnt, 0);
}

#[test]
fn cubic_congestion_avoidance_grows() {
    let c = TcpConfig {
        cc: CcKind::Cubic,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    assert_eq!(ep.snd.cc_name(), "cubic");
    ep.snd.cc_state.ssthresh = 10;
    ep.write(40 * MS, 10_000_000);
    recv!(ep, 40 * MS);
    let mut next = 10u64;
    let mut una = 0u64;
    let mut t = 80 * MS;
    for _ in 0..200 {
        una += 1;
        send!(ep, t, ack(sq(una), t - 40 * MS));
        next += recv!(ep, t).len() as u64;
        t += MS;
    }
    // W_max = cwnd_epoch = 10 (no loss yet): K = 0, convex growth plus the
    // Reno-friendly floor: must exceed NewReno's ~ +1 per window.
    assert!(ep.snd.cwnd() > 15, "cwnd {}", ep.snd.cwnd());
    assert!(next > una);
}

// ---------------------------------------------------------------- recovery

#[test]
fn fast_retransmit_after_three_dupacks_with_prr() {
    let mut ep = client();
    ep.write(40 * MS, 1_000_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    let t = 80 * MS;
    // segment 0 lost. SACK of 1: pipe = 10 - 1 = 9 < cwnd 10, so one new
    // segment goes out (Linux tcp_packets_in_flight; RFC 6675 pipe, like
    // RFC 3042 limited transmit), but no retransmission yet.
    send!(ep, t, ack_sack(1, &[(sq(1), sq(2))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(10)]);
    send!(ep, t, ack_sack(1, &[(sq(1), sq(3))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(11)]);
    assert_eq!(ep.counters().dup_acks, 2);
    assert_eq!(ep.snd.ca_state(), CaState::Disorder);
    // third: IsLost(seg 0) -> recovery, RecoveryPoint = sq(12).
    // ssthresh = 10/2 = 5, prior_cwnd (RecoverFS) = 10.
    // pipe = 12 - 3 sacked - 1 lost = 8 > ssthresh:
    // sndcnt = ceil(5 * prr_delivered 1 / 10) - prr_out 0 = 1 -> fast retransmit
    send!(ep, t, ack_sack(1, &[(sq(1), sq(4))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(0)]);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    assert_eq!(
        (
            ep.snd.ssthresh(),
            ep.counters().retrans_fast,
            ep.counters().recoveries
        ),
        (5, 1, 1)
    );
    // PRR sends ssthresh/RecoverFS = 1 packet per 2 delivered:
    // prr_delivered 2: ceil(10/10) = 1 - prr_out 1 = 0 -> nothing
    send!(ep, t, ack_sack(1, &[(sq(1), sq(5))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
    // prr_delivered 3: ceil(15/10) = 2 - 1 = 1 -> one new segment
    send!(ep, t, ack_sack(1, &[(sq(1), sq(6))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(12)]);
    // prr_delivered 4: ceil(20/10) = 2 - 2 = 0
    send!(ep, t, ack_sack(1, &[(sq(1), sq(7))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
    // prr_delivered 5: ceil(25/10) = 3 - 2 = 1
    send!(ep, t, ack_sack(1, &[(sq(1), sq(8))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(13)]);
    // The retransmission arrives: the cumulative ACK reaches RecoveryPoint
    // and ends recovery with cwnd = ssthresh (Linux tcp_end_cwnd_reduction),
    // then CA growth may add one packet on the same ACK.
    send!(ep, t + 40 * MS, ack(sq(12), t));
    assert_eq!(ep.snd.ca_state(), CaState::Open);
    assert_eq!(ep.snd.ssthresh(), 5);
    assert!((5..=6).contains(&ep.snd.cwnd()), "cwnd {}", ep.snd.cwnd());
}

#[test]
fn prr_catches_up_to_ssthresh_when_pipe_falls_below_it() {
    // Linux tcp_cwnd_reduction since 5.19 ("tcp: improve PRR loss recovery",
    // RFC 6937bis): with pipe <= ssthresh, sndcnt = MIN(ssthresh - pipe,
    // MAX(prr_delivered - prr_out, DeliveredData)), so what proportional
    // reduction held back earlier in the episode is sent at once when more
    // losses are found. (The older rule, MIN(ssthresh - pipe, DeliveredData),
    // would send one packet per ACK here.)
    // RFC 6675 marking (DupThresh SACKed above a hole): with RACK, 5..8 would
    // be marked at the SACK of 9 already (reo_wnd = 0 in recovery), see
    // rack_marks_all_earlier_holes_in_recovery.
    let mut ep = client_with(
        &TcpConfig {
            rack: false,
            ..cfg()
        },
        true,
    );
    ep.write(40 * MS, 1_000_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    let t = 80 * MS;
    // 0 and 5..8 are lost. SACKs of 1, 2: two new segments (pipe < cwnd).
    send!(ep, t, ack_sack(1, &[(sq(1), sq(2))], 40 * MS));
    send!(ep, t, ack_sack(1, &[(sq(1), sq(3))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(10), sq(11)]);
    // SACK of 3: recovery, ssthresh 5, prior_cwnd 10, fast retransmit of 0.
    send!(ep, t, ack_sack(1, &[(sq(1), sq(4))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(0)]);
    // SACK of 4: prr_delivered 2, pipe 12 - 4 - 1 + 1 = 8 > 5:
    // ceil(5 * 2 / 10) - prr_out 1 = 0.
    send!(ep, t, ack_sack(1, &[(sq(1), sq(5))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
    // SACK of 9: prr_delivered 3, pipe 7: ceil(15 / 10) - 1 = 1 new segment.
    send!(
        ep,
        t,
        ack_sack(1, &[(sq(9), sq(10)), (sq(1), sq(5))], 40 * MS)
    );
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(12)]);
    // SACK of 10: prr_delivered 4, pipe 7: ceil(20 / 10) - 2 = 0.
    send!(
        ep,
        t,
        ack_sack(1, &[(sq(9), sq(11)), (sq(1), sq(5))], 40 * MS)
    );
    assert!(recv!(ep, t).is_empty());
    // SACK of 11: 5..8 now have three SACKed segments above them: lost.
    // pipe = 13 - 7 sacked - 5 lost + 1 retransmitted = 2, ssthresh - pipe = 3;
    // prr_delivered 5 - prr_out 2 = 3 > DeliveredData 1, no SND.UNA advance:
    // sndcnt = 3, cwnd = 5 = ssthresh: three retransmissions at once.
    send!(
        ep,
        t,
        ack_sack(1, &[(sq(9), sq(12)), (sq(1), sq(5))], 40 * MS)
    );
    assert_eq!(ep.snd.lost_out, 5);
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(5), sq(6), sq(7)]);
    assert_eq!((ep.snd.cwnd(), ep.snd.in_flight()), (5, 5));
    // The retransmission of 0 arrives, SND.UNA advances to 5 and no new loss
    // is marked (SafeACK): pipe = 8 - 3 sacked - 4 lost + 3 retransmitted = 4,
    // sndcnt = MIN(5 - 4, MAX(6 - 5, 1) + 1) = 1: the last lost segment.
    send!(ep, t + 40 * MS, ack_sack(sq(5), &[(sq(9), sq(12))], t));
    assert_eq!(seqs(&recv!(ep, t + 40 * MS)), vec![sq(8)]);
    assert_eq!((ep.snd.cwnd(), ep.snd.in_flight()), (5, 5));
}

#[test]
fn two_losses_in_one_window_one_recovery() {
    let mut ep = client();
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS);
    let t = 80 * MS;
    // 0 and 5 lost
    for k in 1..5 {
        send!(ep, t, ack_sack(1, &[(sq(1), sq(k + 1))], 40 * MS));
    }
    // polled only after the 4th SACK: recovery has started (IsLost(0)) and
    // PRR allows just the fast retransmission of 0
    let out = recv!(ep, t);
    assert_eq!(seqs(&out), vec![sq(0)]);
    for k in 6..10 {
        send!(
            ep,
            t,
            ack_sack(1, &[(sq(6), sq(k + 1)), (sq(1), sq(5))], 40 * MS)
        );
    }
    // segment 5 now has 4 SACKed above it: lost, retransmitted under PRR
    let out = recv!(ep, t);
    assert!(seqs(&out).contains(&sq(5)), "{:?}", seqs(&out));
    // retransmission of 0 arrives: partial ACK up to 5
    send!(ep, t + 40 * MS, ack_sack(sq(5), &[(sq(6), sq(10))], t));
    recv!(ep, t + 40 * MS);
    send!(ep, t + 41 * MS, ack(sq(10), t));
    recv!(ep, t + 41 * MS);
    assert_eq!(ep.counters().recoveries, 1);
    assert_eq!(ep.counters().retrans_fast, 2);
    assert_eq!(ep.counters().rto_events, 0);
}

#[test]
fn newreno_partial_ack_without_sack() {
    let mut ep = client_with(&cfg(), false);
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS);
    let t = 80 * MS;
    // 0 and 5 lost. Each dup ACK counts as one emulated SACKed packet
    // (Linux tcp_add_reno_sack), letting one new segment out (RFC 3042).
    send!(ep, t, ack(1, 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(10)]);
    send!(ep, t, ack(1, 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(11)]);
    // third dup ACK: fast retransmit of 0 (RFC 6582 3.2 (2), RFC 5681 3.2)
    send!(ep, t, ack(1, 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(0)]);
    assert_eq!(ep.counters().dup_acks, 3);
    // more dup ACKs for 6..9
    for _ in 0..5 {
        send!(ep, t, ack(1, 40 * MS));
        recv!(ep, t);
    }
    // partial ACK up to segment 5: retransmit 5 immediately (RFC 6582 3.2 (5))
    send!(ep, t + 40 * MS, ack(sq(5), t));
    let out = recv!(ep, t + 40 * MS);
    assert_eq!(seqs(&out)[0], sq(5));
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    // RecoveryPoint was sq(12) (segments 10 and 11 were sent on the first dup
    // ACKs). An ACK of exactly sq(12) ends recovery in RFC 6582 3.2 (3);
    // Linux (tcp_try_undo_recovery) holds the state without SACK until
    // something above it is ACKed, so dup ACKs of sq(12) (typically caused
    // by needless resends) neither count nor start a fast retransmit
    // (RFC 6582 3.2 (1), 4.1).
    send!(ep, t + 80 * MS, ack(sq(12), t + 40 * MS));
    recv!(ep, t + 80 * MS);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    assert_eq!(ep.snd.sacked_out, 0);
    for _ in 0..4 {
        send!(ep, t + 80 * MS, ack(sq(12), t + 40 * MS));
        assert!(
            recv!(ep, t + 80 * MS).iter().all(|p| tcp(p).seq > sq(12)),
            "no retransmission on dup ACKs at recover"
        );
    }
    assert_eq!(ep.snd.sacked_out, 0);
    send!(ep, t + 81 * MS, ack(sq(13), t + 40 * MS));
    assert_eq!(ep.snd.ca_state(), CaState::Open);
    assert_eq!(ep.snd.cwnd(), ep.snd.ssthresh());
    assert_eq!(
        (ep.counters().recoveries, ep.counters().retrans_fast),
        (1, 2)
    );
}

/// Linux tcp_clean_rtx_queue (FLAG_RETRANS_DATA_ACKED): an ACK that covers
/// retransmitted data gives no sequence RTT sample, even from the
/// never-retransmitted segments it also covers (they waited in the
/// receiver's out-of-order queue behind the hole); the timestamp echo of the
/// segment that filled the hole gives the sample instead (RFC 7323 4.3).
#[test]
fn ack_covering_a_retransmission_samples_rtt_from_the_timestamp_only() {
    let mut ep = client_with(&cfg(), false);
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS); // segments 0..9 sent at 40 ms
    let t = 80 * MS;
    for _ in 0..3 {
        send!(ep, t, ack(1, 40 * MS));
        recv!(ep, t);
    }
    assert_eq!(ep.counters().retrans_fast, 1, "0 resent at 80 ms");
    // 300 ms: ACK of 0..4; it echoes the retransmission's TSval (80 ms).
    send!(ep, 300 * MS, ack(sq(5), t));
    assert_eq!(
        ep.snd.rtt.latest,
        220 * MS,
        "300 - 80 ms from the echo, not 300 - 40 ms from segment 1"
    );
    // Without timestamps such an ACK gives no sample at all.
    let no_ts = TcpConfig {
        timestamps: false,
        ..cfg()
    };
    let mut ep = client_with(&no_ts, false);
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS);
    for _ in 0..3 {
        send!(ep, t, ack(1, 0));
        recv!(ep, t);
    }
    let before = ep.snd.rtt.latest;
    send!(ep, 300 * MS, ack(sq(5), 0));
    assert_eq!(ep.snd.rtt.latest, before);
}

// ---------------------------------------------------------------- RACK (RFC 8985 6)

#[test]
fn rack_marks_all_earlier_holes_in_recovery() {
    // As prr_catches_up_to_ssthresh_when_pipe_falls_below_it, with RACK: in
    // recovery and without reordering seen, RACK.reo_wnd = 0 (RFC 8985 6.2
    // step 4, Linux tcp_rack_reo_wnd), so the first SACK of a segment sent
    // after 5..8 (here 9, same transmission time, higher sequence) marks
    // them all lost, where RFC 6675 waits for DupThresh SACKs above them.
    let mut ep = client();
    ep.write(40 * MS, 1_000_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    let t = 80 * MS;
    send!(ep, t, ack_sack(1, &[(sq(1), sq(2))], 40 * MS));
    send!(ep, t, ack_sack(1, &[(sq(1), sq(3))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(10), sq(11)]);
    // third SACK: DupThresh SACKed, reo_wnd = 0: 0 is lost -> recovery
    send!(ep, t, ack_sack(1, &[(sq(1), sq(4))], 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(0)]);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    send!(ep, t, ack_sack(1, &[(sq(1), sq(5))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
    assert_eq!(ep.snd.lost_out, 1);
    send!(
        ep,
        t,
        ack_sack(1, &[(sq(9), sq(10)), (sq(1), sq(5))], 40 * MS)
    );
    assert_eq!(ep.snd.lost_out, 5);
    // pipe = 12 - 5 sacked - 5 lost + 1 = 3 <= ssthresh 5: PRR catches up
    // (prr_delivered 3 - prr_out 1 = 2), retransmitting 5 and 6.
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(5), sq(6)]);
    assert_eq!(ep.counters().rto_events, 0);
}

/// 10 segments at 40 ms, 0 lost; recovery at 80 ms retransmits 0; PRR lets
/// 12 and 13 out at 90 ms; the retransmission of 0 is lost too; at 130 ms
/// the SACK of 12 arrives.
fn lost_retransmission_run(rack: bool) -> (TcpEndpoint, Vec<Packet>) {
    let mut ep = client_with(&TcpConfig { rack, ..cfg() }, true);
    ep.write(40 * MS, 1_000_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    let t = 80 * MS;
    let mut out = Vec::new();
    for k in 1..4 {
        send!(ep, t, ack_sack(1, &[(sq(1), sq(k + 1))], 40 * MS));
        out.extend(recv!(ep, t));
    }
    assert_eq!(seqs(&out), vec![sq(10), sq(11), sq(0)]);
    let t = 90 * MS;
    let mut out = Vec::new();
    for k in 4..8 {
        send!(ep, t, ack_sack(1, &[(sq(1), sq(k + 1))], 40 * MS));
        out.extend(recv!(ep, t));
    }
    assert_eq!(seqs(&out), vec![sq(12), sq(13)]);
    let t = 130 * MS;
    send!(
        ep,
        t,
        ack_sack(1, &[(sq(12), sq(13)), (sq(1), sq(8))], 90 * MS)
    );
    let out = recv!(ep, t);
    (ep, out)
}

#[test]
fn rack_detects_lost_retransmission_without_rto() {
    // RFC 8985 6 (the key benefit over RFC 6675): segment 12, sent at 90 ms,
    // is SACKed 40 ms later; the retransmission of 0, sent at 80 ms before
    // it, is overdue by RACK.rtt + reo_wnd (0 in recovery) = 40 ms at 120 ms:
    // lost again, retransmitted again at once.
    let (ep, out) = lost_retransmission_run(true);
    assert_eq!(seqs(&out)[0], sq(0));
    assert_eq!(ep.snd.lost_retrans, 1);
    assert_eq!(
        ep.counters().retrans_fast,
        2 + seqs(&out).iter().filter(|&&q| q != sq(0)).count() as u64
    );
    assert_eq!(ep.counters().rto_events, 0);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    // RFC 6675 alone cannot tell: the retransmission of 0 is only repaired by
    // the RTO.
    let (ep, out) = lost_retransmission_run(false);
    assert!(!seqs(&out).contains(&sq(0)), "{:?}", seqs(&out));
    assert_eq!(ep.snd.lost_retrans, 0);
    assert!(ep.snd.rto_pending());
}

#[test]
fn rack_reordering_within_window_is_not_a_loss() {
    // min_RTT = 40 ms (handshake): RACK.reo_wnd = 10 ms. Segment 0 is late:
    // the SACK of 1 at 80 ms (RACK.rtt 40 ms) would declare it lost at
    // 40 + 40 + 10 = 90 ms; it arrives at 85 ms.
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    assert_eq!(ep.snd.rack_reo_wnd(), 10 * MS);
    send!(ep, 80 * MS, ack_sack(1, &[(sq(1), sq(2))], 40 * MS));
    assert!(recv!(ep, 80 * MS).is_empty());
    assert!(ep.snd.rack_reo_pending());
    assert_eq!(ep.poll_timeout(), Some(90 * MS));
    assert_eq!(ep.snd.ca_state(), CaState::Disorder);
    send!(ep, 85 * MS, ack(sq(2), 40 * MS));
    recv!(ep, 85 * MS);
    assert!(!ep.snd.rack_reo_pending());
    assert_eq!(ep.snd.ca_state(), CaState::Open);
    assert_eq!(
        (
            ep.counters().retrans_fast,
            ep.counters().recoveries,
            ep.snd.lost_out
        ),
        (0, 0, 0)
    );
    // reordering seen (RACK.reord): from now on three SACKs do not force
    // reo_wnd to 0 (RFC 8985 6.2 step 4)
    send!(ep, 90 * MS, ack_sack(sq(2), &[(sq(3), sq(6))], 40 * MS));
    assert_eq!(ep.snd.sacked_out, 3);
    assert_eq!(ep.snd.rack_reo_wnd(), 10 * MS);
    assert_eq!(ep.snd.lost_out, 0);
    assert!(ep.snd.rack_reo_pending());
}

#[test]
fn rack_reo_timer_recovers_the_last_segment() {
    // 10 segments, 8 lost, 9 SACKed: one SACK only, so RFC 6675 never marks
    // 8, and TLP is not armed with SACKed data (RFC 8985 7.2): without RACK
    // only the RTO repairs it. RACK's reordering timer fires at
    // 40 + RACK.rtt 40 + reo_wnd 10 = 90 ms (RFC 8985 6.3).
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    send!(ep, 80 * MS, ack_sack(sq(8), &[(sq(9), sq(10))], 40 * MS));
    assert!(recv!(ep, 80 * MS).is_empty());
    assert_eq!(ep.poll_timeout(), Some(90 * MS));
    ep.handle_timeout(90 * MS);
    assert_eq!(seqs(&recv!(ep, 90 * MS)), vec![sq(8)]);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    assert_eq!(
        (
            ep.counters().retrans_fast,
            ep.counters().recoveries,
            ep.counters().rto_events
        ),
        (1, 1, 0)
    );
    assert!(ep.snd.rto_pending());
    send!(ep, 130 * MS, ack(sq(10), 90 * MS));
    assert_eq!(ep.snd.ca_state(), CaState::Open);
    assert_eq!(ep.snd.packets_out, 0);
    // without RACK: the RTO (SRTT 40 + 200 ms after the head's ACK at 80 ms)
    let mut ep = client_with(
        &TcpConfig {
            rack: false,
            ..cfg()
        },
        true,
    );
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack_sack(sq(8), &[(sq(9), sq(10))], 40 * MS));
    assert!(ep.snd.rto_pending());
    assert!(ep.poll_timeout().unwrap() > 200 * MS);
}

#[test]
fn rack_dsack_widens_the_reordering_window() {
    // RFC 8985 6.2 step 4 (Linux tcp_rack_update_reo_wnd): each round trip
    // with a D-SACK adds min_RTT/4 to reo_wnd, up to SRTT.
    let mut ep = client();
    ep.write(40 * MS, 100 * MSS);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    assert_eq!(ep.snd.rack_reo_wnd(), 10 * MS);
    // a D-SACK (below the cumulative ACK, RFC 2883)
    send!(ep, 80 * MS, ack_sack(sq(2), &[(sq(0), sq(1))], 40 * MS));
    assert_eq!(ep.snd.rack_reo_wnd(), 20 * MS);
    // another one in the same round trip: no change
    send!(ep, 80 * MS, ack_sack(sq(3), &[(sq(1), sq(2))], 40 * MS));
    assert_eq!(ep.snd.rack_reo_wnd(), 20 * MS);
    recv!(ep, 80 * MS);
    // the round (SND.NXT at the first D-SACK = sq(10)) is over: +10 ms
    send!(ep, 81 * MS, ack_sack(sq(10), &[(sq(2), sq(3))], 40 * MS));
    assert_eq!(ep.snd.rack_reo_wnd(), 30 * MS);
    recv!(ep, 81 * MS);
    let nxt = ep.snd.snd_nxt;
    send!(ep, 121 * MS, ack_sack(nxt, &[(sq(3), sq(4))], 81 * MS));
    // capped at SRTT (40 ms)
    assert_eq!(ep.snd.rack_reo_wnd(), ep.snd.rtt.srtt.min(40 * MS));
    // the wider window keeps a 15 ms late segment from being retransmitted:
    // one SACK above a hole waits RACK.rtt + reo_wnd, not RACK.rtt + 10 ms
    let out = recv!(ep, 121 * MS);
    let first = tcp(&out[0]).seq;
    let una = ep.snd.snd_una;
    assert_eq!(first, una);
    send!(
        ep,
        161 * MS,
        ack_sack(una, &[(una + MSS, una + 2 * MSS)], 121 * MS)
    );
    assert!(ep.snd.rack_reo_pending());
    assert!(
        ep.poll_timeout().unwrap() >= 121 * MS + 40 * MS + 30 * MS,
        "{:?}",
        ep.poll_timeout()
    );
    assert_eq!(ep.counters().retrans_fast, 0);
}

#[test]
fn rto_backoff_and_go_back_n() {
    let c = TcpConfig {
        tlp: false,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS);
    // SRTT 40, RTTVAR 20: RTO = 40 + max(80, 200) = 240 ms
    assert_eq!(ep.poll_timeout(), Some(280 * MS));
    ep.handle_timeout(280 * MS);
    let out = recv!(ep, 280 * MS);
    assert_eq!(seqs(&out), vec![sq(0)]);
    assert_eq!((ep.snd.cwnd(), ep.snd.ssthresh()), (1, 5));
    assert_eq!(ep.snd.ca_state(), CaState::Loss);
    // backoff: 480 ms
    assert_eq!(ep.poll_timeout(), Some(760 * MS));
    ep.handle_timeout(760 * MS);
    assert_eq!(seqs(&recv!(ep, 760 * MS)), vec![sq(0)]);
    assert_eq!(ep.poll_timeout(), Some(760 * MS + 960 * MS));
    assert_eq!(
        (ep.counters().rto_events, ep.counters().retrans_rto),
        (2, 2)
    );
    // ssthresh not reduced again on the second RTO
    assert_eq!(ep.snd.ssthresh(), 5);
    // ACK of segment 0: slow start cwnd 2, go-back-N retransmits 1 and 2
    send!(ep, 800 * MS, ack(sq(1), 760 * MS));
    assert_eq!(seqs(&recv!(ep, 800 * MS)), vec![sq(1), sq(2)]);
    assert_eq!(ep.counters().retrans_rto, 4);
    assert_eq!(ep.snd.backoff, 0);
}

#[test]
fn tlp_fires_at_two_srtt_and_retransmits_last_segment() {
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    // ACK of 7 segments at 80 ms (sample 40 ms, SRTT stays 40)
    send!(ep, 80 * MS, ack(sq(7), 40 * MS));
    assert!(recv!(ep, 80 * MS).is_empty());
    // PTO = 2 * 40 = 80 ms from now, earlier than the RTO (40 + 240)
    assert_eq!(ep.poll_timeout(), Some(160 * MS));
    ep.handle_timeout(160 * MS);
    let out = recv!(ep, 160 * MS);
    assert_eq!(seqs(&out), vec![sq(9)]);
    assert_eq!(
        (ep.counters().tlp_probes, ep.counters().retrans_tlp),
        (1, 1)
    );
    // one probe outstanding: next timer is the RTO
    assert!(ep.snd.rto_pending());
}

#[test]
fn tlp_with_one_segment_adds_delayed_ack_time() {
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(9), 40 * MS));
    // one segment in flight: PTO = 2*40 + 200 = 280 ms, capped at the RTO
    // (head sent at 40 ms + RTO 240 ms = 280 ms): deadline 280 ms
    assert_eq!(ep.poll_timeout(), Some(280 * MS));
    // with rto_min = 1 s the cap does not bind: PTO = 2*40 + 200 = 280 ms
    // after the ACK at 80 ms (RTO would fire at 40 + 40 + 1000 = 1080 ms)
    let c = TcpConfig {
        rto_min: SEC,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(9), 40 * MS));
    assert_eq!(ep.poll_timeout(), Some(360 * MS));
    ep.handle_timeout(360 * MS);
    assert_eq!(seqs(&recv!(ep, 360 * MS)), vec![sq(9)]);
    assert_eq!(ep.counters().tlp_probes, 1);
    // a shorter RTO caps the PTO
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 45 * MS, ack(sq(9), 40 * MS));
    // sample 5 ms: SRTT = (7*40+5)/8 = 35.625, RTTVAR = (3*20 + 35)/4 = 23.75,
    // RTO = 35.625 + 200 = 235.625 ms from the head's send time (40 ms) = 275.625;
    // PTO = 71.25 + 200 = 271.25 -> 45 + 271.25 = 316.25 > 275.625: capped.
    assert_eq!(ep.poll_timeout(), Some(275_625_000));
}

#[test]
fn tlp_new_data_probe_and_loss_detection_reduces_cwnd() {
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(7), 40 * MS));
    ep.handle_timeout(160 * MS);
    assert_eq!(seqs(&recv!(ep, 160 * MS)), vec![sq(9)]);
    let cwnd = ep.snd.cwnd();
    // the probe repairs the loss of 9 (7, 8 arrive too): ACK up to TLPHighRxt
    send!(ep, 200 * MS, ack(sq(10), 160 * MS));
    // more data; once an ACK goes beyond TLPHighRxt without D-SACK, cwnd is reduced
    ep.write(200 * MS, 2 * MSS);
    recv!(ep, 200 * MS);
    send!(ep, 240 * MS, ack(sq(12), 200 * MS));
    assert!(ep.snd.cwnd() < cwnd, "{} vs {}", ep.snd.cwnd(), cwnd);
    // new-data probe when data is waiting but cwnd is full
    let mut ep = client();
    ep.write(40 * MS, 20 * MSS);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    ep.snd.cc_state.cwnd = 10; // keep cwnd full
    ep.handle_timeout(ep.poll_timeout().unwrap());
    let out = recv!(ep, 200 * MS);
    assert_eq!(seqs(&out), vec![sq(10)]);
    assert_eq!(
        (ep.counters().tlp_probes, ep.counters().retrans_tlp),
        (1, 0)
    );
}

#[test]
fn spurious_retransmission_counted_by_dsack_and_timestamps() {
    // D-SACK: TLP retransmission of 9 was unnecessary
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(7), 40 * MS));
    ep.handle_timeout(160 * MS);
    recv!(ep, 160 * MS);
    send!(ep, 165 * MS, ack(sq(10), 40 * MS));
    send!(ep, 200 * MS, ack_sack(sq(10), &[(sq(9), sq(10))], 160 * MS));
    assert_eq!(ep.counters().retrans_spurious, 1);
    // Eifel: RTO retransmission acked by an ACK echoing the original's TSval
    let c = TcpConfig {
        tlp: false,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, MSS);
    recv!(ep, 40 * MS);
    ep.handle_timeout(280 * MS);
    assert_eq!(recv!(ep, 280 * MS).len(), 1);
    send!(ep, 300 * MS, ack(sq(1), 40 * MS));
    assert_eq!(ep.counters().retrans_spurious, 1);
}

#[test]
fn spurious_rto_is_undone_by_eifel() {
    let c = TcpConfig {
        tlp: false,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    ep.handle_timeout(280 * MS);
    assert_eq!(seqs(&recv!(ep, 280 * MS)), vec![sq(0)]);
    assert_eq!((ep.snd.cwnd(), ep.snd.ssthresh()), (1, 5));
    // the ACK of segment 0 echoes the original's TSval (40 ms < 280 ms):
    // Linux tcp_try_undo_loss restores cwnd 10 and ssthresh (infinite),
    // unmarks the loss, so segments 1.. are not retransmitted.
    send!(ep, 300 * MS, ack(sq(1), 40 * MS));
    assert_eq!(ep.snd.ca_state(), CaState::Open);
    assert_eq!(ep.snd.ssthresh(), cc::INFINITE_SSTHRESH);
    assert!(ep.snd.cwnd() >= 10);
    assert!(recv!(ep, 300 * MS).is_empty());
    assert_eq!(ep.counters().retrans_rto, 1);
}

#[test]
fn spurious_fast_retransmit_is_undone_on_recovery_exit() {
    // segment 0 is only delayed (reordering): recovery starts on 3 SACKs,
    // 0 is retransmitted, then the original's ACK (older TSval) ends it.
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    for k in 1..4 {
        send!(ep, 80 * MS, ack_sack(1, &[(sq(1), sq(k + 1))], 40 * MS));
    }
    assert_eq!(seqs(&recv!(ep, 80 * MS)), vec![sq(0)]);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    send!(ep, 81 * MS, ack(sq(10), 40 * MS));
    assert_eq!(ep.snd.ca_state(), CaState::Open);
    assert_eq!(ep.snd.ssthresh(), cc::INFINITE_SSTHRESH);
    // cwnd restored to 10, then slow start on the same ACK (Linux calls
    // tcp_cong_avoid after the undo): 7 newly acked packets -> 17
    assert_eq!(ep.snd.cwnd(), 17);
    assert_eq!(ep.counters().retrans_spurious, 1);
}

// ---------------------------------------------------------------- receiving

/// A server that completed the handshake with the fake client.
fn server_with(c: &TcpConfig) -> TcpEndpoint {
    let mut ep = TcpEndpoint::new(c, 0, A, 80, B, 1000, Role::Server);
    let mut syn = peer(0, 0, 0, flags::SYN);
    syn.set_mss(Some(1460));
    syn.wscale = Some(7);
    syn.sack_permitted = true;
    syn.set_ts(Some((1, 0)));
    send!(ep, 0, syn);
    recv!(ep, 0);
    send!(ep, 10 * MS, ack(1, 0));
    events(&mut ep);
    ep
}

fn data(i: u64) -> TcpSegment {
    let mut s = peer(sq(i), 1, MSS as u32, flags::ACK);
    s.set_ts(Some((i + 100, 0)));
    s
}

#[test]
fn quickack_at_start_then_delayed_ack_every_second_segment() {
    let mut ep = server_with(&cfg());
    let mut t = 20 * MS;
    // 16 quick ACKs (TCP_MAX_QUICKACKS), one per segment
    for i in 0..16 {
        send!(ep, t, data(i));
        let out = recv!(ep, t);
        assert_eq!(out.len(), 1, "quick ack {i}");
        assert_eq!(tcp(&out[0]).ack, sq(i + 1));
        t += MS;
    }
    // then every second full-sized segment
    send!(ep, t, data(16));
    assert!(recv!(ep, t).is_empty());
    send!(ep, t, data(17));
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1);
    assert_eq!(tcp(&out[0]).ack, sq(18));
    // a lone segment: ACKed by the 40 ms delayed-ACK timer
    send!(ep, t, data(18));
    assert!(recv!(ep, t).is_empty());
    assert_eq!(ep.poll_timeout(), Some(t + 40 * MS));
    ep.handle_timeout(t + 40 * MS);
    let out = recv!(ep, t + 40 * MS);
    assert_eq!(tcp(&out[0]).ack, sq(19));
    let ev = events(&mut ep);
    assert_eq!(ev.last(), Some(&AppEvent::Delivered { total: 19 * MSS }));
}

#[test]
fn no_delayed_ack_acks_every_segment() {
    let c = TcpConfig {
        delayed_ack: false,
        ..cfg()
    };
    let mut ep = server_with(&c);
    for i in 0..40 {
        send!(ep, 20 * MS, data(i));
        assert_eq!(recv!(ep, 20 * MS).len(), 1);
    }
}

#[test]
fn out_of_order_sack_order_and_dsack() {
    let mut ep = server_with(&cfg());
    let t = 20 * MS;
    send!(ep, t, data(0));
    recv!(ep, t);
    // 2 arrives (1 missing): immediate ACK with SACK [2,3)
    send!(ep, t, data(2));
    let a = recv!(ep, t);
    assert_eq!(a.len(), 1);
    assert_eq!(tcp(&a[0]).ack, sq(1));
    assert_eq!(
        &*tcp(&a[0]).sack_blocks(),
        &[SackBlock {
            start: sq(2),
            end: sq(3)
        }]
    );
    // 4 and then 6: most recent block first
    send!(ep, t, data(4));
    recv!(ep, t);
    send!(ep, t, data(6));
    let a = recv!(ep, t);
    let blocks: Vec<_> = tcp(&a[0])
        .sack_blocks()
        .iter()
        .map(|b| (b.start, b.end))
        .collect();
    assert_eq!(blocks, vec![(sq(6), sq(7)), (sq(4), sq(5)), (sq(2), sq(3))]);
    // 3 joins [2,3) and [4,5): that block moves first
    send!(ep, t, data(3));
    let a = recv!(ep, t);
    let blocks: Vec<_> = tcp(&a[0])
        .sack_blocks()
        .iter()
        .map(|b| (b.start, b.end))
        .collect();
    assert_eq!(blocks, vec![(sq(2), sq(5)), (sq(6), sq(7))]);
    // duplicate of 4: D-SACK first (inside the second block), immediate ACK
    send!(ep, t, data(4));
    let a = recv!(ep, t);
    let blocks: Vec<_> = tcp(&a[0])
        .sack_blocks()
        .iter()
        .map(|b| (b.start, b.end))
        .collect();
    assert_eq!(blocks, vec![(sq(4), sq(5)), (sq(2), sq(5)), (sq(6), sq(7))]);
    // hole filled by 1: immediate ACK up to 5, SACK [6,7) remains
    send!(ep, t, data(1));
    let a = recv!(ep, t);
    assert_eq!(tcp(&a[0]).ack, sq(5));
    assert_eq!(tcp(&a[0]).sack_len(), 1);
    // duplicate below rcv_nxt: D-SACK below the ACK
    send!(ep, t, data(0));
    let a = recv!(ep, t);
    assert_eq!(
        tcp(&a[0]).sack_blocks()[0],
        SackBlock {
            start: sq(0),
            end: sq(1)
        }
    );
    assert_eq!(ep.counters().ooo_segments, 5);
}

#[test]
fn immediate_ack_on_out_of_order_after_quickacks() {
    let mut ep = server_with(&cfg());
    let mut t = 20 * MS;
    for i in 0..20 {
        send!(ep, t, data(i));
        recv!(ep, t);
        t += MS;
    }
    send!(ep, t, data(21));
    assert_eq!(recv!(ep, t).len(), 1);
    // hole filled: ACK now
    send!(ep, t, data(20));
    let a = recv!(ep, t);
    assert_eq!(tcp(&a[0]).ack, sq(22));
}

// ---------------------------------------------------------------- Nagle, windows

#[test]
fn nagle_holds_small_segment_while_data_unacked() {
    let c = TcpConfig {
        nagle: true,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 100);
    assert_eq!(recv!(ep, 40 * MS).len(), 1); // nothing unacked: sent
    ep.write(41 * MS, 100);
    assert!(recv!(ep, 41 * MS).is_empty()); // held
    ep.write(42 * MS, 100);
    assert!(recv!(ep, 42 * MS).is_empty());
    send!(ep, 80 * MS, ack(101, 40 * MS));
    let out = recv!(ep, 80 * MS);
    // coalesced at transmit time: one 200-byte segment
    assert_eq!(out.len(), 1);
    assert_eq!((tcp(&out[0]).seq, tcp(&out[0]).len), (101, 200));
    // Nagle off: every write goes out at once
    let mut ep = client();
    ep.write(40 * MS, 100);
    ep.write(40 * MS, 0);
    assert_eq!(recv!(ep, 40 * MS).len(), 1);
    ep.write(41 * MS, 100);
    assert_eq!(recv!(ep, 41 * MS).len(), 1);
}

#[test]
fn window_scaling_rounds_advertised_window() {
    let c = TcpConfig {
        rcvbuf: 100_000,
        ..cfg()
    };
    // 65535 << 1 = 131070 >= 100000: shift 1
    assert_eq!(config::wscale_for(100_000), 1);
    assert_eq!(config::wscale_for(65535), 0);
    assert_eq!(config::wscale_for(1 << 30), 14);
    let mut ep = server_with(&c);
    send!(ep, 20 * MS, data(1)); // out of order: 1448 bytes held
    let a = recv!(ep, 20 * MS);
    // free 100000 - 1448 = 98552, a multiple of 2: 98552; but the right edge
    // advertised before (at the SYN-ACK-time ACK) may not shrink
    assert_eq!(tcp(&a[0]).window % 2, 0);
    assert!(tcp(&a[0]).window >= 98552);
}

#[test]
fn zero_window_persist_probe() {
    let mut ep = client();
    ep.write(40 * MS, 4 * MSS);
    assert_eq!(recv!(ep, 40 * MS).len(), 4);
    // peer ACKs everything with a zero window
    let mut z = ack(sq(4), 40 * MS);
    z.window = 0;
    send!(ep, 80 * MS, z.clone());
    ep.write(80 * MS, MSS);
    assert!(recv!(ep, 80 * MS).is_empty());
    assert!(ep.snd.persist_pending());
    // persist fires after the RTO (SRTT 40, RTO 240): window probe with an old seq
    let t = ep.poll_timeout().unwrap();
    assert_eq!(t, 80 * MS + 240 * MS);
    ep.handle_timeout(t);
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1);
    assert_eq!((tcp(&out[0]).seq, tcp(&out[0]).len), (sq(4) - 1, 0));
    // backed off
    assert_eq!(ep.poll_timeout(), Some(t + 480 * MS));
    // window opens: data flows
    send!(ep, t + 10 * MS, ack(sq(4), t));
    assert_eq!(seqs(&recv!(ep, t + 10 * MS)), vec![sq(4)]);
}

#[test]
fn receiver_answers_window_probe() {
    let mut ep = server_with(&cfg());
    let mut p = peer(0, 1, 0, flags::ACK);
    p.set_ts(Some((1, 0)));
    send!(ep, 20 * MS, p);
    let a = recv!(ep, 20 * MS);
    assert_eq!(a.len(), 1);
    assert_eq!(tcp(&a[0]).ack, 1);
}

#[test]
fn send_buffer_limits_writes_and_reports_writable() {
    let c = TcpConfig {
        sndbuf: 10 * MSS,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    assert_eq!(ep.write(40 * MS, 20 * MSS), 10 * MSS);
    assert_eq!(ep.send_space(), 0);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(2), 40 * MS));
    assert!(events(&mut ep).is_empty()); // 2 free of 10: not yet (needs free >= queued/2)
    send!(ep, 81 * MS, ack(sq(4), 40 * MS));
    assert_eq!(events(&mut ep), vec![AppEvent::Writable]);
    assert_eq!(ep.send_space(), 4 * MSS);
}

#[test]
fn fin_both_ways() {
    let mut ep = client();
    ep.write(40 * MS, 1000);
    ep.close(40 * MS);
    let out = recv!(ep, 40 * MS);
    // FIN rides on the last data segment
    assert_eq!(out.len(), 1);
    assert_eq!(tcp(&out[0]).flags & flags::FIN, flags::FIN);
    assert_eq!(tcp(&out[0]).len, 1000);
    send!(ep, 80 * MS, ack(1002, 40 * MS));
    assert!(events(&mut ep).is_empty());
    // peer's FIN
    let mut f = peer(1, 1002, 0, flags::ACK | flags::FIN);
    f.set_ts(Some((2, 40 * MS)));
    send!(ep, 90 * MS, f);
    assert_eq!(
        events(&mut ep),
        vec![AppEvent::PeerClosed, AppEvent::Closed]
    );
    let a = recv!(ep, 90 * MS);
    assert_eq!(tcp(&a[0]).ack, 2);
    assert_eq!(ep.state, TcpState::Done);
    // the peer retransmits its FIN (our ACK was lost): ACK it again
    let mut f = peer(1, 1002, 0, flags::ACK | flags::FIN);
    f.set_ts(Some((3, 40 * MS)));
    send!(ep, 400 * MS, f);
    let a = recv!(ep, 400 * MS);
    assert_eq!(a.len(), 1);
    assert_eq!(tcp(&a[0]).ack, 2);
    assert!(events(&mut ep).is_empty());
}

// ---------------------------------------------------------------- harness

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
        }
    }

    fn pump(&mut self) {
        for dir in [true, false] {
            loop {
                let ep = if dir { &mut self.a } else { &mut self.b };
                let tlp_before = ep.counters().tlp_probes;
                let Some(p) = ep.poll_transmit(self.now) else {
                    break;
                };
                if dir && self.check_cwnd && p.is_data() {
                    self.check_cwnd_invariant(tlp_before);
                }
                // size = headers + payload, never above the MTU
                assert_eq!(p.size, tcp(&p).header_len() + p.payload_len());
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
    // segment carries one SACK block. Options: 10 (TS) + 2 + 8 = 20 bytes
    // (packet.rs pads the total), 8 more than the 12 of TS alone:
    // 1448 - 8 = 1440 payload bytes. (Linux aligns SACK separately, 4 + 8n,
    // which would give 1436.)
    let mut ep = client();
    let mut d = peer(1 + MSS, 1, MSS as u32, flags::ACK);
    d.set_ts(Some((50, 0)));
    send!(ep, 50 * MS, d);
    ep.write(50 * MS, 3 * MSS);
    let out = recv!(ep, 50 * MS);
    assert_eq!(tcp(&out[0]).sack_len(), 1);
    assert_eq!(tcp(&out[0]).len, 1440);
    assert_eq!(out[0].size, 1500);
    // every segment repeats the block while the hole exists (RFC 2018 4)
    assert_eq!((tcp(&out[1]).sack_len(), tcp(&out[1]).len), (1, 1440));
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
    ep.handle_timeout(160 * MS);
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
