//! Sending: initial window, slow start, congestion avoidance.

use super::*;

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

/// PSH as the 6.18 kernel sets it: a 3958-byte video frame written on an
/// idle connection goes out as one 2-segment transmission (`tcp_tso_segs`
/// 2) and the rest. `__tcp_transmit_skb` forces PSH on every skb of more
/// than one segment, and GSO keeps it on its last segment; `tcp_push` marks
/// the write's tail. Captured (seed 000 nornet-video-wlanwlan TCP path 2,
/// every frame: 1448, 1448 PSH, 1062 PSH; docs/validation.md, "Session
/// 22"); the model set PSH on the last segment only.
#[test]
fn a_two_segment_transmission_ends_with_psh() {
    let mut ep = client();
    assert_eq!(ep.write(40 * MS, 3958), 3958);
    let out = recv!(ep, 40 * MS);
    let got: Vec<(u32, bool)> = out
        .iter()
        .map(|p| (tcp(p).len, tcp(p).has(flags::PSH)))
        .collect();
    assert_eq!(got, vec![(1448, false), (1448, true), (1062, true)]);
}

/// Plain TCP defers as Linux 6.18's `tcp_write_xmit` does
/// (`tcp_tso_should_defer`, net/ipv4/tcp_output.c): in congestion
/// avoidance with a full window, each ACK of one segment opens one segment
/// of window. The first ACK, 40 ms after the last write, sends at once;
/// the next, 0.1 ms later (a recent write, the head's ACK due within
/// min(srtt / 2, 1 ms)), finds one segment of room, fewer than `max_segs =
/// tcp_tso_segs` (2 at this pacing rate) and less than a third of the
/// window, so the send buffer's 64 KB skb waits; the third makes two and
/// both go. Without deferral each ACK would send one.
#[test]
fn plain_tcp_one_segment_of_window_waits_for_the_next_ack() {
    let mut ep = client();
    ep.snd.cc_state.ssthresh = 10;
    ep.write(40 * MS, 1_000_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    send!(ep, 80 * MS, ack(sq(1), 40 * MS));
    assert_eq!(ep.snd.tso_max_segs, 2);
    assert_eq!(seqs(&recv!(ep, 80 * MS)), vec![sq(10)]);
    let t = 80 * MS + 100 * crate::time::US;
    send!(ep, t, ack(sq(2), 40 * MS));
    assert_eq!(recv!(ep, t).len(), 0, "one segment of window: deferred");
    let t = 80 * MS + 200 * crate::time::US;
    send!(ep, t, ack(sq(3), 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(11), sq(12)]);
}

/// `tcp_sendmsg_locked` (net/ipv4/tcp.c) pushes during a write: the first
/// write of 64 KiB on an idle connection fills a 65,160-byte skb, which is
/// the send head, so `tcp_push_one` sends its first TSO piece (2 segments)
/// and `tso_fragment` cuts it there. The untransmitted rest is the write
/// queue's tail, so the write's last 376 bytes and the next write join it
/// up to the size goal: the skb holding segment 44 runs on to 79,641
/// (= 14,481 + 65,160) instead of ending at 65,161, where, without the
/// push, the 376 bytes started a skb of their own. The 6.18 kernel sends
/// segments 44 and 45 together after one ACK in slow start (captured:
/// docs/validation.md, "Session 13: pushes during a write"); with the
/// skb boundary at 65,161 the model sent 44 alone and deferred 45.
#[test]
fn the_send_head_skb_is_pushed_when_a_write_fills_it() {
    let mut ep = client();
    assert_eq!(ep.write(40 * MS, 65_536), 65_536);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    assert_eq!(ep.write(40 * MS, 65_536), 65_536);
    let (left, tail) = ep.sndbuf.send_head(sq(44)).expect("queued");
    assert_eq!(sq(44) + left, 14_481 + 65_160);
    assert!(!tail);
}

/// A client whose peer offered at most 64 KiB (the SYN-ACK's 65,535, then
/// an ACK with the same window).
fn client_of_a_64k_window() -> TcpEndpoint {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    recv!(ep, 0);
    send!(ep, 40 * MS, syn_ack(true));
    recv!(ep, 40 * MS);
    let mut a = ack(1, 0);
    a.window = 65_535;
    send!(ep, 40 * MS, a);
    events(&mut ep);
    ep
}

/// A peer offering at most 64 KiB: `tcp_bound_to_half_wnd` cuts the size
/// goal to 22 segments (31,856 bytes). The first skb is pushed as the send
/// head (`tcp_push_one`: 2 segments) and its rest takes the write's next
/// bytes up to the goal, and so on until the initial window is out: the
/// skb at segment 10 holds 22 segments (with the 64 KB goal: 37).
#[test]
fn a_small_window_bounds_the_skbs_of_a_write() {
    let mut ep = client_of_a_64k_window();
    assert_eq!(ep.write(40 * MS, 100_000), 100_000);
    assert_eq!(recv!(ep, 40 * MS).len(), 10);
    let (left, _) = ep.sndbuf.send_head(sq(10)).expect("queued");
    assert_eq!(left, 22 * 1448);
}
