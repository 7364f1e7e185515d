//! Unit tests of the ACK-processing steps, in the style of smoltcp's
//! state-machine tests: put a sender into a known state, run one step (or
//! feed one ACK), and check exactly what changed.

use super::ack::{AckEvent, CumAck};
use super::*;
use crate::tcp::cc::CcKind;
use crate::time::MS;

const MSS: u64 = 1000;
const WND: u64 = 1 << 20;

/// An established sender with NewReno (so cwnd arithmetic is plain),
/// MSS 1000, a large peer window, and the given options.
fn sender_with(sack: bool, rack: bool, ts: bool) -> PathSender {
    let cfg = TcpConfig {
        rack,
        tlp: true,
        timestamps: ts,
        ..TcpConfig::default()
    };
    let mut s = PathSender::new(&cfg, CcKind::NewReno.build());
    s.established(0, MSS as u32, sack, ts, WND);
    s
}

fn sender() -> PathSender {
    sender_with(true, true, false)
}

/// `sender()` without tail loss probes, so the first timeout is the RTO.
fn rto_sender() -> PathSender {
    let mut s = sender();
    s.tlp_enabled = false;
    s
}

/// Start of segment `i` (sequence space starts at 1).
fn sq(i: u64) -> u64 {
    1 + i * MSS
}

/// Queue `n` full segments and send as many as the window allows at `now`.
fn send(s: &mut PathSender, now: Nanos, n: u64) -> Vec<Tx> {
    s.push_data(n * MSS);
    std::iter::from_fn(|| s.next_tx(now)).collect()
}

fn ack<'a>(ack: u64, sack: &'a [SackBlock]) -> AckInfo<'a> {
    AckInfo {
        ack,
        window: WND,
        sack,
        ts_ecr: None,
        carries_data: false,
    }
}

fn block(from: u64, to: u64) -> SackBlock {
    SackBlock {
        start: sq(from),
        end: sq(to),
    }
}

fn event(delivered: u32, advanced: bool, s: &PathSender) -> AckEvent {
    AckEvent {
        ts_ecr: None,
        advanced,
        delivered,
        dsack: false,
        lost_before_marking: s.lost_out,
        prior_relost: s.lost_retrans,
    }
}

/// A SACK sender (DupThresh rule, no RACK) with 10 segments out, segment
/// 0 lost and 1..=3 SACKed: recovery has just started.
fn in_recovery() -> PathSender {
    let mut s = sender_with(true, false, false);
    send(&mut s, 0, 10);
    let b = [block(1, 4)];
    s.on_ack(100 * MS, &ack(sq(0), &b), None);
    assert_eq!(s.ca_state(), CaState::Recovery);
    s
}

// ---------------------------------------------------------------- ack.rs

#[test]
fn update_window_classifies_duplicate_acks() {
    let mut s = sender();
    send(&mut s, 0, 3);
    // RFC 5681 2: same ACK, same window, no data, data outstanding.
    assert!(s.update_window(&ack(sq(0), &[]), sq(0)));
    assert_eq!(s.counters.dup_acks, 1);
    // A window update is not a duplicate.
    let mut a = ack(sq(0), &[]);
    a.window = WND / 2;
    assert!(!s.update_window(&a, sq(0)));
    assert_eq!((s.snd_wnd, s.wnd_end), (WND / 2, sq(0) + WND / 2));
    // Nor is a segment carrying data.
    let mut a = ack(sq(0), &[]);
    a.window = WND / 2;
    a.carries_data = true;
    assert!(!s.update_window(&a, sq(0)));
    assert_eq!(s.counters.dup_acks, 1);
}

#[test]
fn ack_of_unsent_data_changes_nothing() {
    let mut s = sender();
    send(&mut s, 0, 3);
    let timer = s.next_timeout();
    s.on_ack(10 * MS, &ack(sq(4), &[]), None);
    assert_eq!((s.snd_una, s.packets_out), (sq(0), 3));
    assert_eq!(s.next_timeout(), timer);
    assert_eq!(s.counters.dup_acks, 0);
}

#[test]
fn old_ack_only_reads_its_dsack() {
    let mut s = rto_sender();
    send(&mut s, 0, 4);
    s.on_ack(100 * MS, &ack(sq(2), &[]), None);
    // An RTO retransmits segment 2, then an old ACK D-SACKs it.
    assert!(s.on_timeout(s.next_timeout().unwrap(), None));
    let tx = s.next_tx(2 * SEC).unwrap();
    assert_eq!((tx.seq, tx.kind), (sq(2), TxKind::RtoRetrans));
    s.on_ack(2 * SEC + 50 * MS, &ack(sq(3), &[]), None);
    // A reordered, older ACK D-SACKs the segment the retransmission repaired.
    let b = [block(2, 3)];
    let window = s.wnd_end;
    s.on_ack(2 * SEC + 51 * MS, &ack(sq(2), &b), None);
    assert_eq!(
        (s.snd_una, s.wnd_end),
        (sq(3), window),
        "an old ACK moves nothing"
    );
    assert_eq!(
        s.counters.retrans_spurious, 1,
        "RFC 3708: D-SACK of a retransmission"
    );
}

// ---------------------------------------------------------------- scoreboard.rs

#[test]
fn clean_rtx_queue_drops_covered_segments_and_reports_send_times() {
    let mut s = sender();
    for t in 0..4 {
        send(&mut s, t * MS, 1);
    }
    let cum = s.clean_rtx_queue(100 * MS, &ack(sq(3), &[]), s.rack.fack);
    assert_eq!(
        cum,
        CumAck {
            acked_pkts: 3,
            first_ackt: Some(0),
            last_ackt: Some(2 * MS),
            retrans_acked: false,
        }
    );
    assert_eq!((s.snd_una, s.packets_out), (sq(3), 1));
    // RACK advanced to the newest delivered segment (RFC 8985 6.2 step 2).
    assert_eq!((s.rack.xmit.at, s.rack.end_seq), (2 * MS, sq(3)));
    assert_eq!(s.rack.rtt, 98 * MS);
}

#[test]
fn clean_rtx_queue_flags_retransmitted_data_and_skips_its_send_time() {
    let mut s = rto_sender();
    send(&mut s, 0, 2);
    assert!(s.on_timeout(s.next_timeout().unwrap(), None));
    let now = 2 * SEC;
    let tx = s.next_tx(now).unwrap();
    assert_eq!(tx.kind, TxKind::RtoRetrans);
    let cum = s.clean_rtx_queue(now + 50 * MS, &ack(sq(1), &[]), s.rack.fack);
    assert_eq!(cum.acked_pkts, 1);
    assert!(cum.retrans_acked, "Linux FLAG_RETRANS_DATA_ACKED");
    assert_eq!(
        cum.first_ackt, None,
        "Karn: no sample from a retransmission"
    );
    assert_eq!(s.retrans_out, 0);
}

/// A cumulative ACK over a plain run (segments sent once, in order) and
/// then a retransmitted segment and one more plain one: the run goes in one
/// step (`ack_plain_run`), the rest through the per-segment loop, with the
/// counts, send times and RACK state of the loop alone.
#[test]
fn clean_rtx_queue_takes_a_plain_run_then_loops_over_the_rest() {
    let mut s = sender();
    for t in 0..4 {
        send(&mut s, t * MS, 1);
    }
    s.retransmit_at(10 * MS, 2, TxKind::FastRetrans);
    // (a min_RTT below the retransmission's RTT: RACK takes it, RFC 8985
    // 6.2 step 2)
    s.rtt.sample(20 * MS, sq(0), sq(4));
    assert_eq!(s.plain_run(sq(4)), 2, "the retransmission ends the run");
    let now = 100 * MS;
    let cum = s.clean_rtx_queue(now, &ack(sq(4), &[]), s.rack.fack);
    assert_eq!(
        cum,
        CumAck {
            acked_pkts: 4,
            first_ackt: Some(0),
            last_ackt: Some(3 * MS),
            retrans_acked: true,
        }
    );
    assert_eq!((s.snd_una, s.packets_out, s.ts_len), (sq(4), 0, 0));
    // RACK: the newest transmission delivered is the retransmission at
    // 10 ms; RACK.rtt the smallest RTT of the ACK (RFC 8985 6.2 step 2)
    assert_eq!((s.rack.xmit.at, s.rack.end_seq), (10 * MS, sq(3)));
    assert_eq!(s.rack.rtt, 90 * MS);
    assert!(!s.rack.reord);
    s.check_rack_list();
}

/// Checked builds replay the per-segment loop over a plain run and compare
/// (`check_plain_run`): a run whose first segment was sent last (the send
/// time moved by hand, the list no longer in transmission order) is caught.
#[cfg(any(debug_assertions, feature = "invariants"))]
#[test]
#[should_panic(expected = "ack_plain_run: RACK state or list head differs")]
fn check_plain_run_catches_a_run_out_of_transmission_order() {
    let mut s = sender();
    for t in 0..3 {
        send(&mut s, t * MS, 1);
    }
    s.sb[0].sent = 5 * MS;
    let _ = s.clean_rtx_queue(100 * MS, &ack(sq(3), &[]), s.rack.fack);
}

/// The cumulative ACK's one-step removal (`pop_front_forgotten`) leaves the
/// scoreboard and RACK's time-ordered list exactly as `ts_forget(0)` then
/// `pop_front` did, with the front segment at the head, in the middle and at
/// the tail of the list (retransmissions move a segment to the tail).
#[test]
fn pop_front_forgotten_equals_forget_then_pop() {
    let orders: [&[usize]; 5] = [&[], &[0], &[0, 2], &[0, 1], &[1, 0]];
    for retx in orders {
        let build = || {
            let mut s = sender();
            for t in 0..4 {
                send(&mut s, t * MS, 1);
            }
            for (k, &i) in retx.iter().enumerate() {
                s.retransmit_at((10 + k as u64) * MS, i, TxKind::FastRetrans);
            }
            s
        };
        let (mut a, mut b) = (build(), build());
        let got = a.pop_front_forgotten();
        b.ts_forget(0);
        let want = b.sb.pop_front().unwrap();
        b.sb_base = b.sb_base.wrapping_add(1);
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{retx:?}");
        assert_eq!(format!("{:?}", a.sb), format!("{:?}", b.sb), "{retx:?}");
        assert_eq!(
            (a.ts_head, a.ts_tail, a.ts_len, a.zombies, a.sb_base),
            (b.ts_head, b.ts_tail, b.ts_len, b.zombies, b.sb_base),
            "{retx:?}"
        );
        a.check_rack_list();
    }
}

#[test]
fn tag_sacks_marks_blocks_and_recognises_a_dsack() {
    let mut s = sender();
    send(&mut s, 0, 6);
    let fack = s.rack.fack;
    let b = [block(2, 4)];
    assert_eq!(
        s.tag_sacks(50 * MS, &ack(sq(0), &b), fack, true, false),
        (2, false)
    );
    assert_eq!(s.sacked_out, 2);
    assert_eq!(s.rack.fack, sq(4));
    // The same block again is not new (recv_sack_cache).
    assert_eq!(
        s.tag_sacks(51 * MS, &ack(sq(0), &b), fack, true, false),
        (0, false)
    );
    // RFC 2883 4: a first block inside the second is a D-SACK.
    let b = [block(2, 3), block(2, 5)];
    assert_eq!(
        s.tag_sacks(52 * MS, &ack(sq(0), &b), fack, true, false),
        (1, true)
    );
    assert_eq!(s.sacked_out, 3);
}

#[test]
fn without_sack_duplicate_acks_emulate_sacked_packets() {
    let mut s = sender_with(false, false, false);
    send(&mut s, 0, 6);
    for k in 1..=2 {
        s.on_ack(50 * MS, &ack(sq(0), &[]), None);
        assert_eq!(s.sacked_out, k, "Linux tcp_add_reno_sack");
    }
    assert_eq!(s.ca_state(), CaState::Disorder);
    // An ACK that advances SND.UNA in Disorder ends the run
    // (tcp_reset_reno_sack).
    s.on_ack(60 * MS, &ack(sq(1), &[]), None);
    assert_eq!(s.sacked_out, 0);
    assert_eq!(s.ca_state(), CaState::Open);
}

#[test]
fn mark_losses_applies_dupthresh_without_rack() {
    let mut s = sender_with(true, false, false);
    send(&mut s, 0, 6);
    let b = [block(1, 3)];
    s.on_ack(50 * MS, &ack(sq(0), &b), None);
    assert_eq!(s.lost_out, 0, "two SACKed segments: below DupThresh");
    assert_eq!(s.ca_state(), CaState::Disorder);
    let b = [block(1, 4)];
    let fack = s.rack.fack;
    s.tag_sacks(60 * MS, &ack(sq(0), &b), fack, true, false);
    assert!(!s.mark_losses(60 * MS, false));
    assert_eq!(s.lost_out, 1, "RFC 6675 IsLost: DupThresh SACKed above");
    assert!(s.sb[0].has(LOST));
}

#[test]
fn mark_losses_with_rack_waits_for_the_reordering_window() {
    let mut s = sender();
    send(&mut s, 0, 1);
    send(&mut s, 10 * MS, 1);
    // Segment 1 (sent 10 ms after segment 0) is SACKed 100 ms after it left.
    let b = [block(1, 2)];
    let fack = s.rack.fack;
    s.tag_sacks(110 * MS, &ack(sq(0), &b), fack, true, false);
    s.rtt.sample(100 * MS, s.snd_una, s.snd_nxt);
    // RACK: segment 0 is lost once RACK.rtt + reo_wnd has passed since it
    // was sent (RFC 8985 6.2 step 5); RACK.rtt = 100 ms, reo_wnd = min_rtt
    // / 4 = 25 ms. Not yet: the reordering timer is armed for the rest
    // (15 ms) plus Linux's TCP_TIMEOUT_MIN_US (2 ms, tcp_rack_mark_lost),
    // level 0 of the timer wheel: one jiffy late.
    assert!(s.mark_losses(110 * MS, false));
    assert_eq!(s.lost_out, 0);
    assert!(s.rack_reo_pending());
    assert_eq!(s.next_timeout(), Some(128 * MS));
    // RFC 8985 6.3: the timer marks it and starts recovery.
    assert!(s.on_timeout(128 * MS, None));
    assert_eq!(s.lost_out, 1);
    assert_eq!(s.ca_state(), CaState::Recovery);
}

// ---------------------------------------------------------------- rtt_sample.rs

#[test]
fn sample_rtt_takes_the_oldest_never_retransmitted_segment() {
    let mut s = sender();
    s.backoff = 2;
    let cum = CumAck {
        acked_pkts: 2,
        first_ackt: Some(10 * MS),
        last_ackt: Some(20 * MS),
        retrans_acked: false,
    };
    assert_eq!(s.sample_rtt(110 * MS, None, &cum, true), Some(100 * MS));
    assert_eq!(s.rtt.srtt, 100 * MS, "RFC 6298 (2.2): first sample");
    assert_eq!(s.backoff, 0, "Linux tcp_ack_update_rtt resets the backoff");
}

#[test]
fn sample_rtt_after_a_retransmission_trusts_only_the_timestamp() {
    let mut s = sender();
    let cum = CumAck {
        acked_pkts: 2,
        first_ackt: Some(10 * MS),
        last_ackt: Some(20 * MS),
        retrans_acked: true,
    };
    assert_eq!(s.sample_rtt(110 * MS, None, &cum, true), None);
    assert_eq!(s.rtt.srtt, 0);
    assert_eq!(
        s.sample_rtt(110 * MS, Some(50 * MS), &cum, true),
        Some(60 * MS),
        "RFC 7323 4.1"
    );
}

#[test]
fn sample_rtt_needs_snd_una_to_advance() {
    let mut s = sender();
    let cum = CumAck {
        first_ackt: Some(10 * MS),
        ..CumAck::default()
    };
    assert_eq!(s.sample_rtt(110 * MS, Some(50 * MS), &cum, false), None);
    assert_eq!(s.rtt.srtt, 0);
}

/// Linux tcp_ack_update_rtt: with no cumulative sample the ACK's SACK RTT
/// (`sack_rtt_us`, from `first_sackt` of tcp_sacktag_one) is the sample, so
/// a duplicate ACK that SACKs never-retransmitted data moves SRTT.
#[test]
fn a_duplicate_ack_that_sacks_new_data_is_an_rtt_sample() {
    let mut s = sender();
    send(&mut s, 0, 2);
    s.on_ack(100 * MS, &ack(sq(2), &[]), None);
    assert_eq!(s.rtt.srtt, 100 * MS);
    send(&mut s, 100 * MS, 4);
    // Segments 3-4 (sent at 100 ms) SACKed at 160 ms, segment 2 missing:
    // SND.UNA stays, the sample is the lowest newly SACKed one, 60 ms.
    let b = [block(3, 5)];
    s.on_ack(160 * MS, &ack(sq(2), &b), None);
    assert_eq!(s.snd_una, sq(2));
    // SRTT = 7/8 * 100 + 1/8 * 60 ms (RFC 6298 2.3, tcp_rtt_estimator)
    assert_eq!(s.rtt.srtt, 95 * MS);
    // The same block again SACKs nothing new: no sample.
    s.on_ack(170 * MS, &ack(sq(2), &b), None);
    assert_eq!(s.rtt.srtt, 95 * MS);
}

// ---------------------------------------------------------------- recovery.rs

#[test]
fn open_on_ack_enters_recovery_on_a_lost_segment() {
    let mut s = in_recovery();
    // RFC 6675 5: RecoveryPoint = HighData; NewReno halves cwnd.
    assert_eq!(s.high_seq, sq(10));
    assert_eq!(s.ssthresh(), 5);
    assert_eq!(s.counters.recoveries, 1);
    assert_eq!(s.undo_marker, Some(sq(0)));
    // PRR forces the fast retransmit (prr_out == 0).
    assert_eq!(
        s.next_tx(100 * MS).map(|t| (t.seq, t.kind)),
        Some((sq(0), TxKind::FastRetrans))
    );
}

#[test]
fn open_on_ack_tracks_disorder() {
    let mut s = sender_with(true, false, false);
    send(&mut s, 0, 6);
    s.sacked_out = 1;
    s.resync_in_flight();
    s.open_on_ack(MS, &event(0, false, &s), None);
    assert_eq!(s.ca_state(), CaState::Disorder);
    s.sacked_out = 0;
    s.resync_in_flight();
    s.open_on_ack(MS, &event(0, false, &s), None);
    assert_eq!(s.ca_state(), CaState::Open);
}

#[test]
fn recovery_on_ack_applies_prr_while_pipe_exceeds_ssthresh() {
    let mut s = in_recovery();
    s.next_tx(100 * MS).unwrap();
    // One more SACK: delivered = 1, pipe = 10 - 4 SACKed - 1 lost + 1
    // retransmitted = 6 > ssthresh 5.
    let b = [block(1, 5)];
    let fack = s.rack.fack;
    let (n, _) = s.tag_sacks(110 * MS, &ack(sq(0), &b), fack, true, false);
    assert_eq!(n, 1);
    let ev = event(1, false, &s);
    s.recovery_on_ack(110 * MS, &ev);
    // prr_delivered = 3 SACKs that started recovery + this one; prr_out =
    // the fast retransmit. RFC 6937 3: sndcnt = ceil(prr_delivered *
    // ssthresh / RecoverFS) - prr_out = ceil(4 * 5 / 10) - 1 = 1, and
    // cwnd = pipe + sndcnt.
    assert_eq!((s.prr_delivered, s.prr_out, s.in_flight()), (4, 1, 6));
    assert_eq!(s.cwnd(), 7);
    assert_eq!(s.ca_state(), CaState::Recovery);
}

#[test]
fn recovery_exit_at_the_recovery_point_sets_cwnd_to_ssthresh() {
    let mut s = in_recovery();
    s.next_tx(100 * MS).unwrap();
    s.undo_retrans = 1; // the retransmission was needed: no undo
    s.on_ack(200 * MS, &ack(sq(10), &[]), None);
    assert_eq!(s.ca_state(), CaState::Open);
    // RFC 6675 / Linux tcp_end_cwnd_reduction: cwnd = ssthresh (5) on exit;
    // then the same ACK's tcp_cong_avoid adds one (NewReno in congestion
    // avoidance, 6 newly delivered >= cwnd 5): the send of 10 filled the
    // window, so the sender is cwnd-limited (tcp_write_xmit's
    // `is_cwnd_limited |= in_flight >= cwnd`; the retransmission does not
    // re-validate).
    assert_eq!((s.cwnd(), s.ssthresh()), (6, 5));
}

#[test]
fn recovery_exit_undoes_a_spurious_reduction() {
    let mut s = in_recovery();
    s.next_tx(100 * MS).unwrap();
    // A D-SACK for the retransmission arrives first (RFC 2883), so every
    // retransmission of the episode was unnecessary.
    s.dsack_seen(block(0, 1));
    assert_eq!(s.undo_retrans, 0);
    s.snd_una = s.high_seq;
    s.rack.fack = s.high_seq;
    s.recovery_on_ack(200 * MS, &event(1, true, &s));
    // Linux tcp_try_undo_recovery -> tcp_undo_cwnd_reduction.
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.cwnd(), 10);
    assert_eq!(s.undo_marker, None);
}

#[test]
fn loss_on_ack_returns_to_open_at_the_recovery_point() {
    let mut s = rto_sender();
    send(&mut s, 0, 3);
    assert!(s.on_timeout(s.next_timeout().unwrap(), None));
    assert_eq!(s.ca_state(), CaState::Loss);
    s.undo_retrans = 1;
    s.snd_una = sq(2);
    s.loss_on_ack(2 * SEC, &event(1, true, &s));
    assert_eq!(s.ca_state(), CaState::Loss, "below high_seq");
    s.snd_una = s.high_seq;
    s.loss_on_ack(2 * SEC, &event(1, true, &s));
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.undo_until, s.snd_nxt);
}

#[test]
fn expire_undo_forgets_the_marker_past_undo_until() {
    let mut s = sender();
    s.undo_marker = Some(1);
    s.undo_until = 10;
    s.snd_una = 10;
    s.expire_undo();
    assert_eq!(s.undo_marker, Some(1));
    s.snd_una = 11;
    s.expire_undo();
    assert_eq!(s.undo_marker, None);
}

// ---------------------------------------------------------------- cwnd.rs

#[test]
fn raise_cwnd_slow_starts_only_when_cwnd_limited_outside_recovery() {
    let mut s = sender();
    send(&mut s, 0, 20);
    assert_eq!(s.packets_out, 10);
    s.raise_cwnd(MS, 2, 2, None);
    assert_eq!(s.cwnd(), 12, "RFC 5681 3.1 slow start: +1 per packet");
    // Nothing cumulatively acked (SACK only): no growth.
    s.raise_cwnd(MS, 0, 2, None);
    assert_eq!(s.cwnd(), 12);
    // Not in Recovery (RFC 6937: PRR sets cwnd there).
    s.cc_state.ca_state = CaState::Recovery;
    s.raise_cwnd(MS, 2, 2, None);
    assert_eq!(s.cwnd(), 12);
}

#[test]
fn raise_cwnd_holds_when_the_window_is_not_used() {
    let mut s = sender();
    send(&mut s, 0, 2);
    // slow start: cwnd-limited only while cwnd < 2 * max_packets_out
    // (Linux tcp_is_cwnd_limited): 10 >= 2 * 2.
    s.raise_cwnd(MS, 1, 1, None);
    assert_eq!(s.cwnd(), 10);
}

/// Linux `tcp_write_xmit` calls `tcp_cwnd_validate` only `if (sent_pkts ||
/// is_cwnd_limited)`, and an ACK with nothing queued does not reach it at
/// all: a window filled by the last send stays "cwnd-limited" for the ACKs
/// after it until new data goes out, even once SND.UNA passed
/// `cwnd_usage_seq`. (The model validated on every empty poll and cleared it,
/// so an application-limited sender's later ACKs did not grow cwnd.)
#[test]
fn a_poll_with_nothing_to_send_keeps_the_window_cwnd_limited() {
    let mut s = sender();
    s.cc_state.cwnd = 4;
    s.cc_state.ssthresh = 3;
    assert_eq!(send(&mut s, 0, 4).len(), 4);
    assert!(s.cwnd_limited(), "the send filled the window");
    s.on_ack(50 * MS, &ack(sq(4), &[]), None);
    assert!(s.next_tx(50 * MS).is_none());
    assert!(
        s.cwnd_limited(),
        "nothing sent: usage as the last send left it"
    );
    // the next send re-validates: 1 packet out of 4 is not cwnd-limited
    // once SND.UNA passed cwnd_usage_seq
    assert_eq!(send(&mut s, 60 * MS, 1).len(), 1);
    assert!(!s.cwnd_limited());
}

// ---------------------------------------------------------------- timers.rs

#[test]
fn rearm_timers_on_ack_stops_the_timer_when_everything_is_acked() {
    let mut s = sender();
    send(&mut s, 0, 2);
    assert!(s.next_timeout().is_some());
    s.on_ack(100 * MS, &ack(sq(2), &[]), None);
    assert_eq!(s.next_timeout(), None, "RFC 6298 (5.2)");
}

#[test]
fn rearm_timers_on_ack_restarts_the_probe_timeout_in_open() {
    let mut s = sender();
    send(&mut s, 0, 3);
    s.on_ack(100 * MS, &ack(sq(1), &[]), None);
    assert!(
        s.tlp_pending(),
        "RFC 8985 7.2: PTO restarted on new data acked"
    );
    // Without progress the PTO gives way to the RTO, counted from the
    // head segment's transmission (Linux tcp_rearm_rto).
    s.rearm_timers_on_ack(110 * MS, false, false);
    assert!(s.rto_pending());
    // RTO 300 ms from 0: 190 ms from now, expires at jiffy 300, level 1 of
    // the timer wheel (8-jiffy buckets): runs at 304 ms.
    assert_eq!(s.rtt.rto(), 300 * MS);
    assert_eq!(s.next_timeout(), Some(304 * MS));
}

#[test]
fn rearm_timers_on_ack_leaves_an_armed_reordering_timer() {
    let mut s = sender();
    send(&mut s, 0, 3);
    s.timer = Some((150 * MS, Timer::RackReo));
    s.rearm_timers_on_ack(100 * MS, true, true);
    assert!(s.rack_reo_pending(), "Linux: no FLAG_SET_XMIT_TIMER");
    assert_eq!(s.next_timeout(), Some(150 * MS));
}

// ---- shortcuts and their checks (session 30) ---------------------------------

/// A sender whose window is full (10 segments out, NewReno's initial cwnd)
/// with 10 more unsent: the state `TcpEndpoint::transmit` hands to
/// `end_full_pass`.
fn window_full_with_data_unsent() -> PathSender {
    let mut s = sender();
    let sent = send(&mut s, 0, 20);
    assert_eq!(sent.len(), 10);
    assert!(s.window_full() && s.unsent() > 0);
    s
}

/// `make test` runs this crate's tests a second time on their own
/// (`cargo test --release -p mptlab-core`, with `MPTLAB_PLAIN_RELEASE=1`)
/// because its workspace line builds them with the `invariants` feature
/// (mptlab-sim's dev-dependency turns it on), which replaces the
/// release-only bodies of the shortcuts by their checks
/// (`end_full_pass`). This test fails if that second line ever gets the
/// feature or debug assertions, so the release bodies run there.
#[test]
fn the_plain_release_line_runs_without_checks() {
    let checked = cfg!(feature = "invariants") || cfg!(debug_assertions);
    if std::env::var_os("MPTLAB_PLAIN_RELEASE").is_some() && checked {
        panic!("MPTLAB_PLAIN_RELEASE: this build has the invariants feature or debug assertions");
    }
}

#[test]
fn end_full_pass_ends_the_pass_as_next_tx_does() {
    let mut a = window_full_with_data_unsent();
    let mut b = window_full_with_data_unsent();
    // a segment sent in this pass: `end_pass` must run `cwnd_validate`
    a.sent_in_pass = true;
    b.sent_in_pass = true;
    assert!(a.end_full_pass(5 * MS));
    assert_eq!(b.next_tx(5 * MS), None);
    let pass = |s: &PathSender| {
        (
            s.is_cwnd_limited,
            s.max_packets_out,
            s.cwnd_usage_seq,
            s.sent_in_pass,
        )
    };
    assert_eq!(pass(&a), pass(&b));
    assert!(a.is_cwnd_limited && !a.sent_in_pass && a.max_packets_out == 10);
}

#[test]
fn end_full_pass_leaves_a_due_probe_to_next_tx() {
    // a window probe, a TLP and a `tcp_push_one` round are decided before
    // the window test: the shortcut must not take their passes
    for which in 0..3 {
        let mut s = window_full_with_data_unsent();
        match which {
            0 => s.probe0_fire = true,
            1 => s.tlp_fire = true,
            _ => s.push_one = true,
        }
        assert!(!s.end_full_pass(5 * MS), "case {which}");
    }
    let mut s = window_full_with_data_unsent();
    s.probe0_fire = true;
    assert!(!s.end_full_pass(5 * MS));
    let tx = s.next_tx(5 * MS).expect("the probe");
    assert_eq!(tx.kind, TxKind::WindowProbe);
}

/// The check behind `end_full_pass` catches a pass that `next_tx` would
/// not have ended at the window test (a window probe due).
#[cfg(any(debug_assertions, feature = "invariants"))]
#[test]
#[should_panic(expected = "end_full_pass skipped a next_tx call that acted")]
fn check_full_pass_catches_a_pass_that_sends() {
    let mut s = window_full_with_data_unsent();
    s.probe0_fire = true;
    s.check_full_pass(5 * MS);
}

#[test]
fn an_ack_of_nothing_outstanding_is_idle() {
    let s = sender();
    assert!(s.ack_is_idle(&ack(sq(0), &[])));
    let mut t = sender();
    let _ = send(&mut t, 0, 2);
    assert!(!t.ack_is_idle(&ack(sq(0), &[])));
}

/// `ack_is_idle` leaves out the SACKed / lost counts (they follow from
/// `packets_out == 0`); checked builds assert them.
#[cfg(any(debug_assertions, feature = "invariants"))]
#[test]
#[should_panic(expected = "ack_is_idle: nothing outstanding, but sacked_out 1")]
fn ack_is_idle_checks_the_counts_it_does_not_test() {
    let mut s = sender();
    s.sacked_out = 1;
    let _ = s.ack_is_idle(&ack(sq(0), &[]));
}

#[test]
#[should_panic(expected = "dupthresh must be at least 1")]
fn a_dupthresh_of_zero_is_refused() {
    let cfg = TcpConfig {
        dupthresh: 0,
        ..TcpConfig::default()
    };
    let _ = PathSender::new(&cfg, CcKind::NewReno.build());
}

/// `in_flight_n` follows the four counts through sends, SACKs, loss marks,
/// retransmissions, cumulative ACKs and an RTO: every step equals Linux
/// `tcp_packets_in_flight` of the counts.
#[test]
fn in_flight_follows_the_counts() {
    use crate::time::SEC;
    let mut s = rto_sender();
    let check = |s: &PathSender, at: &str| {
        assert_eq!(s.in_flight_n, s.in_flight_of_counts(), "{at}");
    };
    let _ = send(&mut s, 0, 10);
    check(&s, "sent");
    // SACK 3..10 above a hole of three: the SACKed leave the flight, RACK
    // marks the hole lost (now or at its reordering timer)
    s.on_ack(20 * MS, &ack(sq(0), &[block(sq(3), sq(10))]), None);
    check(&s, "sacked");
    // the timers as they come (RACK's, then the RTO and its backoff), each
    // followed by what they let out
    for k in 1..4 {
        let now = k * 3 * SEC;
        let _ = s.on_timeout(now, None);
        check(&s, "timeout");
        while s.next_tx(now).is_some() {
            check(&s, "retransmitted");
        }
    }
    assert!(s.counters.rto_events > 0, "an RTO fired");
    s.on_ack(10 * SEC, &ack(sq(10), &[]), None);
    check(&s, "all acked");
    assert_eq!(s.in_flight(), 0);
}

/// An RTO on a Reno sender (no SACK) that has counted duplicate ACKs: Linux
/// `tcp_timeout_mark_lost` forgets the emulated SACKs before marking every
/// segment lost, so `sacked_out + lost_out` never exceeds `packets_out`. In
/// the other order the resync read packets_out - (2 + 6): a panic with
/// overflow checks, and `resync_in_flight`'s check in checked builds.
#[test]
fn a_reno_rto_after_duplicate_acks_keeps_the_counts_whole() {
    let mut s = sender_with(false, false, false);
    s.tlp_enabled = false;
    let _ = send(&mut s, 0, 6);
    for _ in 0..2 {
        s.on_ack(50 * MS, &ack(sq(0), &[]), None);
    }
    assert_eq!(s.sacked_out, 2, "two duplicate ACKs counted");
    let _ = s.on_timeout(5 * crate::time::SEC, None);
    assert_eq!((s.sacked_out, s.lost_out, s.retrans_out), (0, 6, 0));
    assert_eq!(s.in_flight(), 0);
}

/// Checked builds compare `in_flight_n` with the counts on every read: a
/// count changed by hand without it panics (without the check nothing
/// panics and the test fails).
#[cfg(any(debug_assertions, feature = "invariants"))]
#[test]
#[should_panic(expected = "in_flight_n out of step")]
fn in_flight_n_out_of_step_is_caught() {
    let mut s = sender();
    let _ = send(&mut s, 0, 4);
    s.lost_out += 1;
    let _ = s.in_flight();
}
