//! Receiving: delayed and quick ACKs, SACK and D-SACK generation.

use super::*;

/// A server that completed the handshake with the fake client.
pub(super) fn server_with(c: &TcpConfig) -> TcpEndpoint {
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

/// A 64 KiB receive buffer, so that the window stops growing early.
pub(super) fn small_buf() -> TcpConfig {
    TcpConfig {
        rcvbuf: 64 * 1024,
        ..cfg()
    }
}

/// Immediate ACKs at the start with `small_buf()`: the first data segment
/// starts 16 quick ACKs (`tcp_incr_quickack`), and each of the 6 segments
/// that grow `rcv_ssthresh` (`tcp_grow_window`: 65160 -> 80480, the limit
/// `tcp_space` = ((128 KiB - 2304) x 160) >> 8, in steps of 2896) sets
/// `quick |= 1` on top (16 | 1 = 17, back to 16 when that ACK is sent).
pub(super) const QUICK_SMALL_BUF: u64 = 16 + 6;

pub(super) fn data(i: u64) -> TcpSegment {
    let mut s = peer(sq(i), 1, MSS as u32, flags::ACK);
    s.set_ts(Some((i + 100, 0)));
    s
}

/// Linux `tcp_event_ack_sent` -> `tcp_dec_quickack_mode` uses a quick ACK
/// only when an ACK was scheduled (`inet_csk_ack_scheduled`): a data
/// segment of our own sent with nothing to acknowledge leaves the count as
/// it is, so all `QUICK_SMALL_BUF` quick ACKs remain. (The model used one
/// per segment sent, and with the growth steps' `quick |= 1` two were lost.)
#[test]
fn own_data_without_a_scheduled_ack_keeps_the_quick_acks() {
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    for i in 0..QUICK_SMALL_BUF {
        if i == 4 {
            // nothing to acknowledge, and more than ato after the last
            // segment (no ping-pong mode): our own data
            t += 100 * MS;
            ep.write(t, 100);
            let out = recv!(ep, t);
            assert_eq!(out.len(), 1);
            assert_eq!(tcp(&out[0]).len, 100);
            t += MS;
        }
        send!(ep, t, data(i));
        let out = recv!(ep, t);
        assert_eq!(out.len(), 1, "quick ack {i}");
        t += MS;
    }
    send!(ep, t, data(QUICK_SMALL_BUF));
    assert!(recv!(ep, t).is_empty(), "quick ACKs used up");
}

/// Linux `tcp_incr_quickack`: quickacks = rcv_wnd / (2 * rcv_mss), and 2
/// only when that is 0. A 4 KiB buffer offers 2896 = 2 segments: one
/// quick ACK, so the second segment waits for the delayed-ACK timer (the
/// model's former "at least 2" ACKed it at once).
#[test]
fn a_two_segment_window_starts_one_quick_ack() {
    let c = TcpConfig {
        rcvbuf: 4096,
        ..cfg()
    };
    let mut ep = server_with(&c);
    send!(ep, 20 * MS, data(0));
    assert_eq!(recv!(ep, 20 * MS).len(), 1, "the quick ACK");
    send!(ep, 21 * MS, data(1));
    assert!(recv!(ep, 21 * MS).is_empty(), "delayed");
    // jiffy 21 + ato 40, level 0 of the wheel: runs at 62 ms (delack.rs)
    assert_eq!(ep.poll_timeout(), Some(62 * MS), "delayed-ACK timer");
}

#[test]
fn quickack_at_start_then_delayed_ack_every_second_segment() {
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    // 16 quick ACKs (TCP_MAX_QUICKACKS) and 6 from the window's growth,
    // one per segment
    for i in 0..QUICK_SMALL_BUF {
        send!(ep, t, data(i));
        let out = recv!(ep, t);
        assert_eq!(out.len(), 1, "quick ack {i}");
        assert_eq!(tcp(&out[0]).ack, sq(i + 1));
        t += MS;
    }
    // then every second full-sized segment
    let q = QUICK_SMALL_BUF;
    send!(ep, t, data(q));
    assert!(recv!(ep, t).is_empty());
    send!(ep, t, data(q + 1));
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1);
    assert_eq!(tcp(&out[0]).ack, sq(q + 2));
    // a lone segment: ACKed by the delayed-ACK timer, ato 40 jiffies
    // from the segment's jiffy (t is whole ms), run one jiffy after its
    // expiry at level 0 of the wheel (tcp_send_delayed_ack, delack.rs)
    send!(ep, t, data(q + 2));
    assert!(recv!(ep, t).is_empty());
    assert_eq!(ep.poll_timeout(), Some(t + 41 * MS));
    ep.handle_timeout(t + 41 * MS);
    let out = recv!(ep, t + 41 * MS);
    assert_eq!(tcp(&out[0]).ack, sq(q + 3));
    let ev = events(&mut ep);
    assert_eq!(
        ev.last(),
        Some(&AppEvent::Delivered {
            total: (q + 3) * MSS
        })
    );
}

/// Linux `tcp_measure_rcv_mss`: "full-sized" is what the peer sends. An
/// MPTCP receiver whose own MSS shrank by 4 bytes (8-byte DATA_ACK) while
/// the peer still sends 4 bytes more must ACK every second segment, not
/// every one.
#[test]
fn delayed_ack_measures_the_peers_segments_not_our_mss() {
    let mut ep = server_with(&small_buf());
    ep.rcv.rcv_mss = MSS as u32 - 4;
    let mut t = 20 * MS;
    for i in 0..QUICK_SMALL_BUF {
        send!(ep, t, data(i));
        assert_eq!(recv!(ep, t).len(), 1, "quick ack {i}");
        t += MS;
    }
    assert_eq!(ep.rcv.rcv_mss, MSS as u32);
    let q = QUICK_SMALL_BUF;
    send!(ep, t, data(q));
    assert!(
        recv!(ep, t).is_empty(),
        "one full segment is not ACKed at once"
    );
    send!(ep, t, data(q + 1));
    assert_eq!(recv!(ep, t).len(), 1);
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

/// Linux `tcp_measure_rcv_mss` marks a segment shorter than `rcv_mss`
/// `ICSK_ACK_PUSHED`, and `tcp_cleanup_rbuf` sends the scheduled delayed
/// ACK as soon as the application's read empties the queue (the model's
/// applications read at once): a lone small message is ACKed at once,
/// not after 40 ms (issue 15, gaming trace: the kernel's client ACKed
/// each small message within 80 us). In ping-pong mode (we replied
/// within `ato` of the last data) one short segment is not enough.
#[test]
fn a_short_segment_is_acked_when_the_application_reads_it() {
    let q = QUICK_SMALL_BUF;
    let small = |i: u64, len: u32| {
        let mut s = peer(sq(q) + i * 100, 1, len, flags::ACK | flags::PSH);
        s.set_ts(Some((i + 200, 0)));
        s
    };
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    // use up the quick ACKs with full-sized segments
    for i in 0..q {
        send!(ep, t, data(i));
        recv!(ep, t);
        t += MS;
    }
    // a full-sized lone segment still waits for the delayed-ACK timer
    // (covered above); a short one is ACKed at once
    send!(ep, t, small(0, 100));
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1, "short segment ACKed on read");
    assert_eq!(tcp(&out[0]).ack, sq(q) + 100);
    // we reply with data within ato: ping-pong mode
    t += MS;
    ep.write(t, 10);
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1);
    assert_eq!(tcp(&out[0]).len, 10);
    t += MS;
    send!(ep, t, small(1, 100));
    assert!(
        recv!(ep, t).is_empty(),
        "ping-pong: one short segment waits"
    );
    // a second short segment (ICSK_ACK_PUSHED2) goes out at once
    send!(ep, t, small(2, 100));
    assert_eq!(recv!(ep, t).len(), 1, "second short segment");
}

/// Linux 6.6 on (`tcp_measure_rcv_mss`, commit 4720852ed9af "tcp: fix
/// delayed ACKs for MSS boundary condition"): a full-sized segment with PSH
/// sets `ICSK_ACK_PUSHED`, so `tcp_cleanup_rbuf` ACKs it as soon as the
/// application's read empties the queue; without PSH it still waits for
/// the delayed-ACK timer. (The kernel's client in seed 000's
/// nornet-video-wlanwlan TCP path 2 ACKs such segments at once: the
/// sender's 2-segment transmissions end with PSH, `__tcp_transmit_skb`.
/// docs/validation.md, "Session 22".) The model delayed both.
#[test]
fn a_full_sized_segment_with_psh_is_acked_when_the_application_reads_it() {
    let q = QUICK_SMALL_BUF;
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    // use up the quick ACKs
    for i in 0..q {
        send!(ep, t, data(i));
        recv!(ep, t);
        t += MS;
    }
    let mut pushed = data(q);
    pushed.flags |= flags::PSH;
    send!(ep, t, pushed);
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1, "full-sized PSH segment ACKed on read");
    assert_eq!(tcp(&out[0]).ack, sq(q + 1));
    // the next full-sized one without PSH waits (one segment unacknowledged)
    t += MS;
    send!(ep, t, data(q + 1));
    assert!(recv!(ep, t).is_empty(), "without PSH: delayed");
}

/// Linux `tcp_event_data_recv`: in-order data after a silence longer than
/// the receiver's own RTO ("Too long gap. Apparently sender failed to
/// restart window, so that we send ACKs quickly.") calls
/// `tcp_incr_quickack` again: a lone full-sized segment is ACKed at once
/// instead of waiting for the delayed-ACK timer, as before the silence.
/// (The model had no such rule: it waited 40 ms.) The server's RTO is 1 s
/// here: its only RTT sample is the handshake's 10 ms, which gives the
/// 200 ms minimum, and a gap of 1.5 s is longer either way.
#[test]
fn data_after_a_silence_longer_than_the_rto_is_acked_quickly_again() {
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    for i in 0..QUICK_SMALL_BUF {
        send!(ep, t, data(i));
        assert_eq!(recv!(ep, t).len(), 1, "quick ack {i}");
        t += MS;
    }
    let q = QUICK_SMALL_BUF;
    // quick ACKs used up: a lone segment waits for the timer
    send!(ep, t, data(q));
    assert!(recv!(ep, t).is_empty(), "delayed");
    let d = ep.poll_timeout().unwrap();
    ep.handle_timeout(d);
    assert_eq!(tcp(&recv!(ep, d)[0]).ack, sq(q + 1));
    assert!(ep.snd.own_rtt().rto < 1500 * MS);
    // 1.5 s of silence, then one segment: ACKed at once
    let t = d + 1500 * MS;
    send!(ep, t, data(q + 1));
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1, "quick ACK after the silence");
    assert_eq!(tcp(&out[0]).ack, sq(q + 2));
}

/// Linux SACK compression (`__tcp_ack_snd_check`, `comp_sack.rs`) with the
/// out-of-order window growth (`tcp_data_queue_ofo`: `tcp_grow_window`
/// before the segment is charged). With `small_buf()` the in-order window
/// has stopped growing after `QUICK_SMALL_BUF` + 2 segments; the first
/// out-of-order segment, charged only after the test, grows it once more
/// and is quick-ACKed; the next three are the three duplicate ACKs sent at
/// once; the two after are held and ACKed together when the
/// compressed-ACK timer fires, 5 % of the 10 ms SRTT later. Before the
/// change every one of the six was ACKed at once.
#[test]
fn out_of_order_acks_after_three_duplicates_are_compressed() {
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    let q = QUICK_SMALL_BUF;
    for i in 0..q + 2 {
        send!(ep, t, data(i));
        recv!(ep, t);
        t += MS;
    }
    let grown = ep.rcv.win.rcv_ssthresh;
    send!(ep, t, data(q + 3)); // q + 2 is lost
    assert_eq!(recv!(ep, t).len(), 1, "the growth's quick ACK");
    assert!(
        ep.rcv.win.rcv_ssthresh > grown,
        "the first out-of-order segment grew the window"
    );
    for i in q + 4..q + 7 {
        send!(ep, t, data(i));
        assert_eq!(recv!(ep, t).len(), 1, "duplicate ACK at once, segment {i}");
    }
    for i in q + 7..q + 9 {
        send!(ep, t, data(i));
        assert!(recv!(ep, t).is_empty(), "compressed, segment {i}");
    }
    let fire = t + 500 * crate::time::US;
    assert_eq!(ep.poll_timeout(), Some(fire));
    ep.handle_timeout(fire);
    let a = recv!(ep, fire);
    assert_eq!(a.len(), 1, "one ACK for the two held");
    assert_eq!(tcp(&a[0]).ack, sq(q + 2));
    assert_eq!(tcp(&a[0]).sack_blocks()[0].end, sq(q + 9));
    // the hole filled: ACKed at once, nothing held
    send!(ep, fire, data(q + 2));
    let a = recv!(ep, fire);
    assert_eq!(tcp(&a[0]).ack, sq(q + 9));
    assert_eq!(ep.poll_timeout(), None);
}
