//! The retransmission timer of new data, armed once at the end of a
//! transmission round (`PathSender::next_tx_with_new_unarmed`, Linux
//! `tcp_write_xmit` calling `tcp_schedule_loss_probe` after its loop).

use super::*;

/// A SACK client (TLP on) that has written `n` segments, sent the first
/// ten (IW10) and received the ACK of the first two at 100 ms: the next
/// polls run the round that sends the rest.
fn client_in_round(n: u64) -> TcpEndpoint {
    let mut ep = client();
    assert_eq!(ep.write(50 * MS, n * MSS), n * MSS);
    let first = recv!(ep, 50 * MS);
    assert_eq!(first.len(), 10, "IW10 sent by the write");
    send!(ep, 100 * MS, ack(sq(2), 0));
    ep
}

/// What arming on each segment gives after the round: the PTO (2 SRTT +
/// 2 ms with more than one segment out, + WCDelAckT with one; RFC 8985
/// 7.2, Linux `tcp_schedule_loss_probe`) within the RTO counted from the
/// head's transmission, on the timer wheel.
fn pto_after(ep: &TcpEndpoint, now: Nanos, head_sent: Nanos) -> Nanos {
    let s = &ep.snd;
    let pto = 2 * s.rtt.srtt + if s.packets_out == 1 { 200 * MS } else { 2 * MS };
    let rto_at = head_sent + s.rtt.rto_backoff(0);
    let pto = pto.min(rto_at.saturating_sub(now));
    crate::tcp::timer_wheel::expiry_on(ep.config().jiffy_clock(), now, pto)
}

/// The round sends the two segments left; the timer the engine reads
/// after the drain is the PTO of the flight, as when each segment armed it.
#[test]
fn new_data_arms_its_timer_when_the_round_ends() {
    let mut ep = client_in_round(12);
    let out = recv!(ep, 100 * MS);
    assert_eq!(seqs(&out), vec![sq(10), sq(11)]);
    // the head (segment 2) left at 50 ms
    assert_eq!(ep.poll_timeout(), Some(pto_after(&ep, 100 * MS, 50 * MS)));
    assert!(ep.snd.tlp_pending());
}

/// Checked builds: the timers are asked for only after a drain (the round
/// ended); a read in the middle of a round panics.
#[test]
#[cfg(any(debug_assertions, feature = "invariants"))]
#[should_panic(expected = "middle of a transmission round")]
fn a_timer_asked_for_in_the_middle_of_a_round_is_caught() {
    let mut ep = client_in_round(12);
    assert!(ep.poll_transmit(100 * MS).is_some_and(|p| p.is_data()));
    let _ = ep.poll_timeout();
}

/// Checked builds arm on each segment and compare with the arm at the end
/// of the round: an input of the PTO changed by hand after the round's
/// last segment makes them differ, and the comparison panics (without it
/// nothing panics and the test fails).
#[test]
#[cfg(any(debug_assertions, feature = "invariants"))]
#[should_panic(expected = "differs from the one armed on each segment")]
fn an_end_of_round_timer_unlike_the_per_segment_one_is_caught() {
    let mut ep = client_in_round(12);
    for _ in 0..2 {
        assert!(ep.poll_transmit(100 * MS).is_some_and(|p| p.is_data()));
    }
    ep.snd.rtt.srtt += 10 * MS;
    while ep.poll_transmit(100 * MS).is_some() {}
}

/// Checked builds: a segment handled in the middle of a round (its ACK
/// would read and re-arm the timer left to the round's end) panics; the
/// engine drains after each event.
#[test]
#[cfg(any(debug_assertions, feature = "invariants"))]
#[should_panic(expected = "a segment handled in the middle of a transmission round")]
fn a_segment_handled_in_the_middle_of_a_round_is_caught() {
    let mut ep = client_in_round(12);
    assert!(ep.poll_transmit(100 * MS).is_some_and(|p| p.is_data()));
    send!(ep, 101 * MS, ack(sq(3), 0));
}
