//! Behaviour on the wire: bundling, fragmentation, unordered delivery, SACK timing, DAC.

use super::*;

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
