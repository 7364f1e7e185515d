//! Partial delivery (RFC 9260 section 6.9; Linux ulpqueue.c).

use super::*;

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
