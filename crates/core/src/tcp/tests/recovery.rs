//! Fast retransmit and recovery: PRR, NewReno partial ACKs, RTT samples.

use super::*;

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
    // The second SACK's segment of room is held (tcp_tso_should_defer in
    // Disorder: a write this instant, segment 0's ACK due), as in
    // tcp::tests::sending::plain_tcp_one_segment_of_window_waits_for_the_next_ack.
    send!(ep, t, ack_sack(1, &[(sq(1), sq(3))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
    assert_eq!(ep.counters().dup_acks, 2);
    assert_eq!(ep.snd.ca_state(), CaState::Disorder);
    // third: IsLost(seg 0) -> recovery, RecoveryPoint = sq(11).
    // ssthresh = 10/2 = 5, prior_cwnd (RecoverFS) = 10.
    // pipe = 11 - 3 sacked - 1 lost = 7 > ssthresh:
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
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(11)]);
    // prr_delivered 4: ceil(20/10) = 2 - 2 = 0
    send!(ep, t, ack_sack(1, &[(sq(1), sq(7))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
    // prr_delivered 5, but pipe = 12 - 7 sacked - 1 lost + 1 retransmitted
    // = 5, not above ssthresh: sndcnt = MIN(ssthresh - pipe = 0, ..) = 0
    // (one segment less in flight than without the deferral above)
    send!(ep, t, ack_sack(1, &[(sq(1), sq(8))], 40 * MS));
    assert!(recv!(ep, t).is_empty());
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
    // The second one's segment of room is held (tcp_tso_should_defer, as
    // in fast_retransmit_after_three_dupacks_with_prr).
    send!(ep, t, ack(1, 40 * MS));
    assert_eq!(seqs(&recv!(ep, t)), vec![sq(10)]);
    send!(ep, t, ack(1, 40 * MS));
    assert!(recv!(ep, t).is_empty());
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
    // RecoveryPoint was sq(11) (segment 10 was sent on the first dup ACK,
    // the second's was deferred). An ACK of exactly sq(11) ends recovery in RFC 6582 3.2 (3);
    // Linux (tcp_try_undo_recovery) holds the state without SACK until
    // something above it is ACKed, so dup ACKs of sq(11) (typically caused
    // by needless resends) neither count nor start a fast retransmit
    // (RFC 6582 3.2 (1), 4.1).
    send!(ep, t + 80 * MS, ack(sq(11), t + 40 * MS));
    recv!(ep, t + 80 * MS);
    assert_eq!(ep.snd.ca_state(), CaState::Recovery);
    assert_eq!(ep.snd.sacked_out, 0);
    for _ in 0..4 {
        send!(ep, t + 80 * MS, ack(sq(11), t + 40 * MS));
        assert!(
            recv!(ep, t + 80 * MS).iter().all(|p| tcp(p).seq > sq(11)),
            "no retransmission on dup ACKs at recover"
        );
    }
    assert_eq!(ep.snd.sacked_out, 0);
    send!(ep, t + 81 * MS, ack(sq(12), t + 40 * MS));
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
