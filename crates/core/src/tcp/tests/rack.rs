//! RACK loss detection (RFC 8985 6).

use super::*;

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
/// 11 out at 90 ms; the retransmission of 0 is lost too; at 130 ms the SACK
/// of 11 arrives.
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
    // (the second SACK's segment of room is deferred: tcp_tso_should_defer)
    assert_eq!(seqs(&out), vec![sq(10), sq(0)]);
    let t = 90 * MS;
    let mut out = Vec::new();
    for k in 4..8 {
        send!(ep, t, ack_sack(1, &[(sq(1), sq(k + 1))], 40 * MS));
        out.extend(recv!(ep, t));
    }
    // (PRR counts from one segment fewer sent at 80 ms than without the
    // deferral)
    assert_eq!(seqs(&out), vec![sq(11)]);
    let t = 130 * MS;
    send!(
        ep,
        t,
        ack_sack(1, &[(sq(11), sq(12)), (sq(1), sq(8))], 90 * MS)
    );
    let out = recv!(ep, t);
    (ep, out)
}

#[test]
fn rack_detects_lost_retransmission_without_rto() {
    // RFC 8985 6 (the key benefit over RFC 6675): segment 11, sent at 90 ms,
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
    // (+ Linux's TCP_TIMEOUT_MIN_US, 2 ms (tcp_rack_mark_lost); the timer
    // wheel runs a level-0 timer one jiffy after its expiry)
    assert_eq!(ep.poll_timeout(), Some(93 * MS));
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
    // (+ Linux's TCP_TIMEOUT_MIN_US, 2 ms (tcp_rack_mark_lost), + one
    // jiffy: level 0 of the timer wheel)
    assert_eq!(ep.poll_timeout(), Some(93 * MS));
    ep.handle_timeout(93 * MS);
    assert_eq!(seqs(&recv!(ep, 93 * MS)), vec![sq(8)]);
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
