//! Nagle, window scaling, zero-window probes, send buffer, FIN.

use super::receiving::{data, server_with};
use super::*;

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
    // tcp_select_initial_window: ilog2(100000) - 15 = 1
    let ws = |b: u64| crate::tcp::rcvwnd::RcvWindow::new(b, 1448, 52).initial_wscale();
    assert_eq!(ws(100_000), 1);
    assert_eq!(ws(65535), 0);
    assert_eq!(ws(1 << 30), 14);
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
    // persist fires after the RTO (SRTT 40, RTO 240): window probe with an
    // old seq; expires at jiffy 320, level 1 of the timer wheel: runs at 328
    let t = ep.poll_timeout().unwrap();
    assert_eq!(t, 328 * MS);
    ep.handle_timeout(t);
    let out = recv!(ep, t);
    assert_eq!(out.len(), 1);
    assert_eq!((tcp(&out[0]).seq, tcp(&out[0]).len), (sq(4) - 1, 0));
    // backed off: 480 ms, expires at jiffy 808, runs at 816
    assert_eq!(ep.poll_timeout(), Some(816 * MS));
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

/// `SO_SNDBUF` 8 KiB as the kernel takes it (`super::super::sndbuf`):
/// `sk_sndbuf` 16 KiB charged with skb truesize, and `tcp_sendmsg_locked`
/// checks memory only when it allocates an skb, which it then fills to the
/// 64 KB size goal. A payload-bytes buffer would accept 8 KiB here.
#[test]
fn send_buffer_limits_writes_and_reports_writable() {
    use crate::mptcp::sndbuf::{xmit_size_goal, SKB_TRUESIZE_EMPTY};
    let c = TcpConfig {
        sndbuf: 8 * 1024,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    let goal = xmit_size_goal(MSS as u32);
    assert_eq!(goal, 45 * MSS);
    // The first skb, full and the send head, is pushed (`tcp_push_one`):
    // its first 2-segment piece leaves and is cut off (tso_fragment), so
    // the rest is the tail again and the write appends to it up to the
    // size goal without a memory check; five such pushes fill the initial
    // window, then the full tail needs a new skb and the memory is gone.
    let written = goal + 10 * MSS;
    assert_eq!(ep.write(40 * MS, 100 * MSS), written);
    assert_eq!(ep.send_space(), 0);
    let sent = recv!(ep, 40 * MS).len() as u64;
    assert_eq!(sent, 10, "initial window");
    // ACK segment by segment: the writer is woken only once
    // sk_sndbuf - sk_wmem_queued >= sk_wmem_queued / 2, i.e. the payload
    // plus 832 bytes per skb still held is at most 2/3 of 16384.
    let mut woke_at = None;
    for i in 1..=55u64 {
        let t = 80 * MS + i * MS;
        send!(ep, t, ack(sq(i), 40 * MS));
        recv!(ep, t);
        if events(&mut ep).contains(&AppEvent::Writable) {
            woke_at = Some(written - i * MSS);
            break;
        }
    }
    let held = woke_at.expect("woken once the queue drained");
    // At least one skb is held: payload + 832 <= 2/3 of sk_sndbuf (a
    // payload-bytes buffer of 16 KiB would wake at up to 10922 bytes held).
    assert!(
        held + SKB_TRUESIZE_EMPTY <= 16_384 * 2 / 3,
        "woken at {held}"
    );
    assert!(held > 0, "woken before the queue emptied");
    assert!(ep.send_space() >= goal, "a new skb may be allocated");
}

/// Every `write` ends in `tcp_push` (net/ipv4/tcp.c,
/// `tcp_sendmsg_locked`): what the window allows is sent, and cut into
/// `tso_fragment` pieces charged to `sk_wmem_queued`, before the next
/// write call, even at the same instant. Two 10,000-byte writes: the first
/// goes out as 6 full segments and a 1,312-byte one (no Nagle here), and its
/// pieces' truesize is charged when the second write comes; had the writes
/// merged, the first 10 segments would all be full-sized and the second
/// write would join the first's unsent skb.
#[test]
fn each_write_is_pushed_before_the_next() {
    use crate::mptcp::sndbuf::SKB_TRUESIZE_EMPTY;
    let c = TcpConfig {
        sndbuf: 64 * 1024,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    let t = 40 * MS;
    assert_eq!(ep.write(t, 10_000), 10_000);
    // The first write's pieces are already cut: more than one skb's
    // overhead is charged for its 10,000 bytes.
    assert!(ep.sndbuf.wmem_queued(10_000) > 10_000 + SKB_TRUESIZE_EMPTY);
    assert_eq!(ep.write(t, 10_000), 10_000);
    let lens: Vec<u32> = recv!(ep, t).iter().map(|p| tcp(p).len).collect();
    assert_eq!(lens.len(), 10, "initial window: {lens:?}");
    assert_eq!(lens[6], 10_000 - 6 * MSS as u32, "{lens:?}");
    assert_eq!(
        lens.iter().map(|&l| l as u64).sum::<u64>(),
        10_000 + 3 * MSS
    );
}

#[test]
fn fin_both_ways() {
    let mut ep = client();
    ep.write(40 * MS, 1000);
    ep.close(40 * MS);
    let out = recv!(ep, 40 * MS);
    // The write's tcp_push sent the data before close: the FIN
    // (tcp_send_fin) finds no unsent skb to ride on and goes alone.
    assert_eq!(out.len(), 2);
    assert_eq!(tcp(&out[0]).flags & flags::FIN, 0);
    assert_eq!(tcp(&out[0]).len, 1000);
    assert_eq!(tcp(&out[1]).flags & flags::FIN, flags::FIN);
    assert_eq!(tcp(&out[1]).len, 0);
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

/// Linux `tcp_select_initial_window` (6.18) with a locked buffer: the
/// offered scale is ilog2(tcp_full_space) - 15, tcp_full_space being the
/// configured `rcvbuf` at the initial 50 % scaling ratio; `tcp_rmem[2]` and
/// `rmem_max` only matter above the clamp. A value just under a power of two
/// gives the lower scale (the former "smallest shift with 65535 << shift >=
/// rcvbuf" gave one more: 7 for 4 MiB - 1).
#[test]
fn offered_window_scale_follows_tcp_select_initial_window() {
    let ws = |b: u64| crate::tcp::rcvwnd::RcvWindow::new(b, 1448, 52).initial_wscale();
    assert_eq!(ws(2 << 20), 6); // the video cell's 2 MiB: the kernel's 6
    assert_eq!(ws(4 << 20), 7);
    assert_eq!(ws((4 << 20) - 1), 6);
    assert_eq!(ws(1024), 0);
    let c = TcpConfig {
        rcvbuf: (4 << 20) - 1,
        ..cfg()
    };
    let mut ep = TcpEndpoint::new(&c, 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    let syn = recv!(ep, 0);
    assert_eq!(tcp(&syn[0]).wscale, Some(6));
}
