//! RTO with backoff, tail loss probes, spurious retransmissions and undo.

use super::*;

#[test]
fn rto_backoff_and_go_back_n() {
    let c = TcpConfig {
        tlp: false,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 1_000_000);
    recv!(ep, 40 * MS);
    // SRTT 40, rttvar_us 200 ms: RTO = 240 ms, armed at 40 ms: expires at
    // jiffy 280, level 1 of the timer wheel (8-jiffy buckets): runs at 288.
    assert_eq!(ep.poll_timeout(), Some(288 * MS));
    ep.handle_timeout(288 * MS);
    let out = recv!(ep, 288 * MS);
    assert_eq!(seqs(&out), vec![sq(0)]);
    assert_eq!((ep.snd.cwnd(), ep.snd.ssthresh()), (1, 5));
    assert_eq!(ep.snd.ca_state(), CaState::Loss);
    // backoff: 480 ms, expires 768, level 1: 776
    assert_eq!(ep.poll_timeout(), Some(776 * MS));
    ep.handle_timeout(776 * MS);
    assert_eq!(seqs(&recv!(ep, 776 * MS)), vec![sq(0)]);
    // 960 ms: expires 1736, level 2 (64-jiffy buckets): 1792
    assert_eq!(ep.poll_timeout(), Some(1792 * MS));
    assert_eq!(
        (ep.counters().rto_events, ep.counters().retrans_rto),
        (2, 2)
    );
    // ssthresh not reduced again on the second RTO
    assert_eq!(ep.snd.ssthresh(), 5);
    // ACK of segment 0: slow start cwnd 2, go-back-N retransmits 1 and 2
    send!(ep, 800 * MS, ack(sq(1), 776 * MS));
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
    // PTO = 2 * 40 = 80 ms from now, earlier than the RTO (40 + 240);
    // expires at jiffy 160, level 1: runs at 168
    assert_eq!(ep.poll_timeout(), Some(168 * MS));
    ep.handle_timeout(168 * MS);
    let out = recv!(ep, 168 * MS);
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
    // (head sent at 40 ms + RTO 240 ms = 280 ms): 200 ms from now, expires
    // at jiffy 280, level 1 of the timer wheel: runs at 288 ms
    assert_eq!(ep.poll_timeout(), Some(288 * MS));
    // with rto_min = 1 s the cap does not bind: PTO = 2*40 + 200 = 280 ms
    // after the ACK at 80 ms (RTO would fire at 40 + 40 + 1000 = 1080 ms);
    // expires at jiffy 360, runs at 368
    let c = TcpConfig {
        rto_min: SEC,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(9), 40 * MS));
    assert_eq!(ep.poll_timeout(), Some(368 * MS));
    ep.handle_timeout(368 * MS);
    assert_eq!(seqs(&recv!(ep, 368 * MS)), vec![sq(9)]);
    assert_eq!(ep.counters().tlp_probes, 1);
    // a shorter RTO caps the PTO
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 45 * MS, ack(sq(9), 40 * MS));
    // sample 5 ms (Linux tcp_rtt_estimator): SRTT = 40 - 35/8 = 35.625 ms,
    // rttvar_us stays 200 ms (the RTO minimum), RTO = 235.625 ms, rounded
    // up to the jiffy: 236 ms from the head's send time (40 ms) = 276 ms;
    // PTO = 71.25 + 200 = 271.25 -> 45 + 271.25 = 316.25 > 276: capped to
    // 231 ms from now; expires at jiffy 276, level 1: runs at 280 ms.
    assert_eq!(ep.poll_timeout(), Some(280 * MS));
}

#[test]
fn tlp_new_data_probe_and_loss_detection_reduces_cwnd() {
    let mut ep = client();
    ep.write(40 * MS, 10 * MSS);
    recv!(ep, 40 * MS);
    send!(ep, 80 * MS, ack(sq(7), 40 * MS));
    ep.handle_timeout(168 * MS);
    assert_eq!(seqs(&recv!(ep, 168 * MS)), vec![sq(9)]);
    let cwnd = ep.snd.cwnd();
    // the probe repairs the loss of 9 (7, 8 arrive too): ACK up to TLPHighRxt
    send!(ep, 200 * MS, ack(sq(10), 168 * MS));
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
    ep.handle_timeout(168 * MS);
    recv!(ep, 168 * MS);
    send!(ep, 170 * MS, ack(sq(10), 40 * MS));
    send!(ep, 200 * MS, ack_sack(sq(10), &[(sq(9), sq(10))], 168 * MS));
    assert_eq!(ep.counters().retrans_spurious, 1);
    // Eifel: RTO retransmission acked by an ACK echoing the original's TSval
    let c = TcpConfig {
        tlp: false,
        ..cfg()
    };
    let mut ep = client_with(&c, true);
    ep.write(40 * MS, MSS);
    recv!(ep, 40 * MS);
    ep.handle_timeout(288 * MS);
    assert_eq!(recv!(ep, 288 * MS).len(), 1);
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
    ep.handle_timeout(288 * MS);
    assert_eq!(seqs(&recv!(ep, 288 * MS)), vec![sq(0)]);
    assert_eq!((ep.snd.cwnd(), ep.snd.ssthresh()), (1, 5));
    // the ACK of segment 0 echoes the original's TSval (40 ms < 288 ms):
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
