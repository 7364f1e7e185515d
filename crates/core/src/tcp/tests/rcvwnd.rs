//! Receive-window growth (Linux `tcp_grow_window`) seen from the wire:
//! the initial window, the window growing by two segments per segment, and
//! the quick ACK every growth step sets.

use super::receiving::{data, server_with, small_buf, QUICK_SMALL_BUF};
use super::*;

/// Server side (`tcp_openreq_init_rwin`): 64 KiB SO_RCVBUF -> sk_rcvbuf
/// 128 KiB, tcp_full_space at the default 50 % ratio = 65536, rounded down
/// to the MSS less timestamps (1448): rcv_wnd = 45 x 1448 = 65160.
/// `tcp_init_buffer_space` then reserves one segment (window_clamp and
/// rcv_ssthresh 65536 - 1448 = 64088), but the right edge rcv_wnd set
/// (1 + 65160) may not move left: after 100 bytes the window is 65060.
#[test]
fn initial_window_is_the_full_space_rounded_to_the_mss() {
    let mut ep = server_with(&small_buf());
    assert_eq!(ep.rcv.win.rcv_ssthresh, 64088);
    assert_eq!(ep.rcv.win.window_clamp, 64088);
    let t = 20 * MS;
    let mut lone = peer(sq(0), 1, 100, flags::ACK | flags::PSH);
    lone.set_ts(Some((100, 0)));
    // a short segment (under 128 bytes: no growth, no ratio) is ACKed at
    // once (the first quick ACK)
    send!(ep, t, lone);
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1);
    assert_eq!(tcp(&out[0]).window, 65160 - 100);
    assert_eq!(ep.rcv.win.rcv_ssthresh, 64088);
}

/// Client side (`tcp_connect_init`): no timestamp seen yet, so the full
/// MSS (1460): default 6 MiB buffer, full space 6291456, 4309 x 1460 =
/// 6291140, rounded up to the scale unit 128 (shift 7): 6291200. Without
/// the model it would have been the whole 6 MiB.
#[test]
fn client_first_ack_offers_rcv_wnd_of_the_full_mss() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    let syn = recv!(ep, 0);
    // RFC 7323 2.2: the SYN's window is not scaled
    assert_eq!(tcp(&syn[0]).window, 65535);
    send!(ep, 40 * MS, syn_ack(true));
    let out = recv!(ep, 40 * MS);
    assert_eq!(out.len(), 1, "handshake ACK");
    assert_eq!(tcp(&out[0]).window, 6291200);
}

/// While rcv_ssthresh grows every full segment is ACKed at once and the
/// window grows by 2 x 1448; once it reaches tcp_space the window stops
/// and, when the 16 initial quick ACKs are used up, ACKs go every second
/// segment (`QUICK_SMALL_BUF`).
#[test]
fn acks_every_segment_while_the_window_grows_then_every_second() {
    let mut ep = server_with(&small_buf());
    let mut t = 20 * MS;
    let mut wins = vec![];
    for i in 0..QUICK_SMALL_BUF {
        send!(ep, t, data(i));
        let out = recv!(ep, t);
        assert_eq!(out.len(), 1, "segment {i} ACKed at once");
        wins.push(tcp(&out[0]).window);
        t += MS;
    }
    // 65160 + 2896 k, aligned up to 2 bytes, up to ((128 KiB - 2304) x 160) >> 8
    assert_eq!(&wins[..6], &[68056, 70952, 73848, 76744, 79640, 80480]);
    assert!(wins[6..].iter().all(|&w| w == 80480), "{wins:?}");
    send!(ep, t, data(QUICK_SMALL_BUF));
    assert!(recv!(ep, t).is_empty(), "quick ACKs used up");
    send!(ep, t, data(QUICK_SMALL_BUF + 1));
    assert_eq!(recv!(ep, t).len(), 1);
}

/// With the default 6 MiB buffer the window grows for (7.86 MB - 6.29 MB) /
/// 2896 = 542 segments: long after the 16 initial quick ACKs, every
/// segment is still ACKed at once (Linux's "quick ACKs while the window
/// grows", the seed 002 Sprint 3G cell: 163 of 163).
#[test]
fn quick_acks_last_as_long_as_the_window_grows() {
    let mut ep = server_with(&cfg());
    let mut t = 20 * MS;
    for i in 0..200 {
        send!(ep, t, data(i));
        assert_eq!(recv!(ep, t).len(), 1, "segment {i}");
        t += MS;
    }
    // 4344 x 1448 = 6290112 at the start, then 2 x 1448 per segment
    assert_eq!(ep.rcv.win.rcv_ssthresh, 6290112 + 200 * 2896);
}

/// `tcp_in_quickack_mode` is `quick && !pingpong`: once we answered within
/// `ato` (ping-pong mode), neither the initial quick ACKs nor a growing
/// window ACK a lone full-sized segment at once; it waits for the timer.
#[test]
fn no_quick_ack_in_ping_pong_mode() {
    let mut ep = server_with(&cfg());
    let t = 20 * MS;
    send!(ep, t, data(0));
    assert_eq!(recv!(ep, t).len(), 1, "first segment: quick ACK");
    // a reply within ato (40 ms) of the data: ping-pong mode
    ep.write(t + MS, 100);
    assert_eq!(recv!(ep, t + MS).len(), 1);
    let before = ep.rcv.win.rcv_ssthresh;
    send!(ep, t + 2 * MS, data(1));
    assert!(ep.rcv.win.rcv_ssthresh > before, "the window grew");
    assert!(recv!(ep, t + 2 * MS).is_empty(), "but no quick ACK");
    // the delayed-ACK timer: jiffy 22 + 40, level 0: one jiffy later
    assert_eq!(ep.poll_timeout(), Some(t + 43 * MS));
}

/// An out-of-order segment grows the window as well (`tcp_data_queue_ofo`
/// -> `tcp_grow_window`) while `rcv_nxt`, and so the ACK number, stay: the
/// duplicate ACK it elicits at once advertises the grown window. The
/// endpoint keeps the last window with `rcv_nxt`, `rcv_wnd` and the right
/// edge (`WndMemo`); after the second ACK below, which repeats the first
/// one's window, the three are those the third ACK is built from, so only
/// the memo's clearing by the out-of-order segment keeps its window right.
#[test]
fn out_of_order_growth_shows_in_the_duplicate_ack() {
    let mut ep = server_with(&small_buf());
    let t = 20 * MS;
    let mut wins = vec![];
    // in order; the same segment again (a duplicate: ACKed at once, no
    // growth); then one segment beyond a hole
    for i in [0, 0, 2] {
        send!(ep, t, data(i));
        let out = recv!(ep, t);
        assert_eq!(out.len(), 1, "segment {i} ACKed at once");
        assert_eq!(tcp(&out[0]).ack, sq(1));
        wins.push(tcp(&out[0]).window);
    }
    // 65160 + 2896: the first segment grew the window, the duplicate did
    // not, the out-of-order one did (+ 2896)
    assert_eq!(wins, [68056, 68056, 70952]);
}
