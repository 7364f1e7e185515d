//! Unit tests of the SACK-processing steps, in the style of smoltcp's
//! state-machine tests: bring an association into a known state, run one
//! step (or feed one SACK), and check exactly what changed.

use super::*;
use crate::packet::addr;
use crate::time::MS;

const A0: Addr = addr(10, 0, 0, 1);
const A1: Addr = addr(10, 0, 1, 1);
const B0: Addr = addr(10, 0, 0, 2);
const B1: Addr = addr(10, 0, 1, 2);
/// Message size: one DATA chunk per packet.
const MSG: u64 = 1000;

/// The active side of an association over two paths, established by
/// exchanging the handshake with a peer at time 0.
fn established(cfg: SctpConfig) -> SctpAssociation {
    let mut a = SctpAssociation::new(1, &[A0, A1], 5000, &[B0, B1], 6000, cfg.clone());
    let mut b = SctpAssociation::new(1, &[B0, B1], 6000, &[A0, A1], 5000, cfg);
    a.connect(0);
    for _ in 0..4 {
        while let Some(p) = a.poll_transmit(0) {
            b.handle_packet(0, &p);
        }
        while let Some(p) = b.poll_transmit(0) {
            a.handle_packet(0, &p);
        }
    }
    assert_eq!(a.state(), State::Established);
    a
}

/// `established` with `n` messages of `MSG` bytes written at `now` and
/// sent as far as the window allows; returns the TSNs sent.
fn with_data(cfg: SctpConfig, now: Nanos, n: u64) -> (SctpAssociation, Vec<u64>) {
    let mut a = established(cfg);
    for _ in 0..n {
        assert_eq!(a.write(now, MSG), MSG);
    }
    while a.poll_transmit(now).is_some() {}
    let tsns = a.sent.keys().copied().collect();
    (a, tsns)
}

fn sack(cum: Option<u64>, gaps: &[(u64, u64)]) -> SackChunk {
    SackChunk {
        cum_tsn: cum,
        a_rwnd: 1 << 20,
        gaps: gaps.to_vec(),
        ..SackChunk::default()
    }
}

// ---------------------------------------------------------------- sack.rs

#[test]
fn newly_acked_tsns_lists_cumulative_then_gap_tsns() {
    // The initial window (4380 bytes, section 7.2.1) takes four chunks.
    let (a, tsns) = with_data(SctpConfig::default(), 0, 5);
    assert_eq!(tsns, vec![0, 1, 2, 3]);
    let (cum, gap, highest) = a.newly_acked_tsns(&sack(Some(1), &[(3, 3)]));
    assert_eq!((cum, gap, highest), (vec![0, 1], vec![3], Some(3)));
    // Nothing received yet: no cumulative TSN.
    let (cum, gap, highest) = a.newly_acked_tsns(&sack(None, &[(2, 2)]));
    assert_eq!((cum, gap, highest), (vec![], vec![2], Some(2)));
}

#[test]
fn ack_chunks_takes_them_out_of_flight_and_reports_per_destination_facts() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 4);
    let flight = a.paths[0].flight;
    assert_eq!(flight, 4 * MSG);
    let acked = a.ack_chunks(MS, 2, &[0, 1], &[3]);
    assert_eq!(acked.bytes, vec![3 * MSG, 0]);
    assert_eq!(acked.htna, Some(3), "highest TSN newly acked");
    let f = &acked.facts[0];
    assert!(f.saw_newack);
    assert_eq!(
        (f.lowest_newly_acked, f.highest_newly_acked),
        (Some(0), Some(3))
    );
    assert!(!acked.facts[1].saw_newack && acked.facts[1].highest_newly_acked.is_none());
    assert_eq!(a.paths[0].flight, MSG);
    assert!(a.sent[&3].acked && !a.sent[&2].acked);
    // Acked twice (a gap block repeated in the next SACK): nothing new.
    let again = a.ack_chunks(MS, 2, &[], &[3]);
    assert_eq!((again.bytes, again.htna), (vec![0, 0], None));
}

#[test]
fn rtt_on_ack_samples_only_the_probe_and_only_a_first_transmission() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 3);
    let probe = a.paths[0].rtt_probe;
    let (t, sent_at) = probe.expect("a DATA chunk is timed (section 6.3.1 C4)");
    let srtt = a.paths[0].srtt;
    assert_eq!(srtt, Some(0), "the handshake at time 0 measured 0");
    a.rtt_on_ack(100 * MS, 0, t + 1, true);
    assert_eq!((a.paths[0].rtt_probe, a.paths[0].srtt), (probe, srtt));
    // Karn's rule (C5): a retransmitted probe gives no sample, but ends it.
    a.rtt_on_ack(100 * MS, 0, t, false);
    assert_eq!((a.paths[0].rtt_probe, a.paths[0].srtt), (None, srtt));
    a.paths[0].rtt_probe = probe;
    a.rtt_on_ack(sent_at + 100 * MS, 0, t, true);
    assert_eq!(a.paths[0].rtt_probe, None);
    // Section 6.3.1 C3: SRTT = 7/8 SRTT + 1/8 R'.
    assert_eq!(a.paths[0].srtt, Some(100 * MS / 8));
}

#[test]
fn remove_cum_acked_frees_the_send_buffer_and_remembers_retransmissions() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 3);
    let used = a.sbuf_used;
    a.sent.get_mut(&1).unwrap().tx_count = 2;
    assert!(a.remove_cum_acked(vec![0, 1]));
    assert_eq!(a.sent.keys().copied().collect::<Vec<_>>(), vec![2]);
    assert_eq!(a.sbuf_used, used - 2 * MSG);
    assert_eq!(
        a.acked_rtx.get(&1),
        Some(&0),
        "for RFC 3708-style dup detection"
    );
    assert!(!a.remove_cum_acked(vec![]));
}

#[test]
fn free_nr_acked_frees_gap_chunks_but_keeps_them_outstanding() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 4);
    let used = a.sbuf_used;
    assert!(a.free_nr_acked(&[(2, 3)]));
    assert_eq!(a.sbuf_used, used - 2 * MSG);
    assert!(a.sent[&2].freed && a.sent[&3].freed && !a.sent[&1].freed);
    assert_eq!(a.sent.len(), 4, "removed only by the cumulative ack");
    assert!(!a.free_nr_acked(&[(2, 3)]), "freed once");
}

#[test]
fn count_spurious_dups_counts_duplicates_of_retransmitted_chunks_only() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 3);
    a.sent.get_mut(&1).unwrap().tx_count = 2;
    a.acked_rtx.insert(7, 1);
    let mut s = sack(Some(0), &[]);
    s.dups = vec![0, 1, 7, 9];
    a.count_spurious_dups(&s);
    assert_eq!(a.paths[0].counters.retrans_spurious, 1, "TSN 1");
    assert_eq!(
        a.paths[1].counters.retrans_spurious, 1,
        "TSN 7, acked earlier"
    );
    assert!(a.acked_rtx.is_empty());
}

#[test]
fn on_sack_ignores_an_older_cumulative_ack() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 3);
    a.on_sack(MS, &sack(Some(1), &[]));
    let flight = a.paths[0].flight;
    a.on_sack(2 * MS, &sack(Some(0), &[(2, 2)]));
    assert_eq!(a.peer_cum, Some(1), "section 6.2.1 D i");
    assert_eq!(a.paths[0].flight, flight);
    assert!(!a.sent[&2].acked);
}

// ---------------------------------------------------------------- sack_cwnd.rs

#[test]
fn cwnd_progress_is_the_cumulative_ack_or_with_cuc_the_pseudo_cumulative_one() {
    let mut cfg = SctpConfig::default();
    let (a, _) = with_data(cfg.clone(), 0, 1);
    let before = [Some(5), Some(9)];
    let after = [Some(6), Some(9)];
    assert_eq!(a.cwnd_progress(&before, &after, true), vec![true, true]);
    assert_eq!(a.cwnd_progress(&before, &after, false), vec![false, false]);
    cfg.cmt = true;
    cfg.cuc = true;
    let (a, _) = with_data(cfg, 0, 1);
    // CUC: only the destination whose lowest outstanding TSN was acked.
    assert_eq!(a.cwnd_progress(&before, &after, false), vec![true, false]);
    assert_eq!(
        a.cwnd_progress(&[None, Some(9)], &after, true),
        vec![false, false]
    );
}

#[test]
fn update_cwnds_slow_starts_by_at_most_one_mtu_on_a_fully_used_window() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 5);
    let cwnd = a.paths[0].cwnd;
    a.paths[0].flight_before_sack = cwnd;
    a.update_cwnds(&[3 * MSG, 0], &[true, true]);
    // RFC 9260 7.2.1: cwnd += min(acked, MTU).
    assert_eq!(a.paths[0].cwnd, cwnd + 1500);
    assert_eq!(a.paths[1].cwnd, cwnd, "nothing acked there");
    a.update_cwnds(&[MSG, 0], &[false, false]);
    assert_eq!(a.paths[0].cwnd, cwnd + 1500, "no progress: no growth");
    a.paths[0].flight_before_sack = 0;
    a.update_cwnds(&[MSG, 0], &[true, true]);
    assert_eq!(a.paths[0].cwnd, cwnd + 1500, "window not fully used");
}

#[test]
fn exit_fast_recovery_once_the_cumulative_ack_reaches_the_exit_point() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 1);
    a.paths[0].fast_recovery_exit = Some(4);
    a.peer_cum = Some(3);
    a.exit_fast_recovery();
    assert_eq!(a.paths[0].fast_recovery_exit, Some(4));
    a.peer_cum = Some(4);
    a.exit_fast_recovery();
    assert_eq!(a.paths[0].fast_recovery_exit, None, "section 7.2.4");
}

// ---------------------------------------------------------------- fast_rtx.rs

#[test]
fn third_miss_indication_marks_a_fast_retransmit_and_enters_fast_recovery() {
    let (mut a, tsns) = with_data(SctpConfig::default(), 0, 4);
    assert_eq!(tsns.len(), 4);
    let cwnd = a.paths[0].cwnd;
    // TSN 0 is missing; each SACK newly acks one more TSN above it (HTNA).
    for (k, top) in [1u64, 2, 3].into_iter().enumerate() {
        a.on_sack((k as u64 + 1) * MS, &sack(None, &[(1, top)]));
        assert_eq!(a.sent[&0].miss, k as u32 + 1);
    }
    let o = &a.sent[&0];
    assert!(o.fast_retransmitted);
    assert_eq!(o.rtx, Some((RtxCause::Fast, 0)));
    assert!(a.rtx_queue.contains(&0));
    // Section 7.2.3: ssthresh = max(cwnd / 2, 4 MTU), cwnd = ssthresh.
    assert_eq!(a.paths[0].ssthresh, (cwnd / 2).max(4 * 1500));
    assert_eq!(a.paths[0].cwnd, a.paths[0].ssthresh);
    assert_eq!(a.paths[0].fast_recovery_exit, Some(3), "highest TSN sent");
    assert_eq!(a.paths[0].counters.recoveries, 1);
}

#[test]
fn count_misses_without_a_newly_acked_tsn_above_adds_nothing() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 5);
    let acked = a.ack_chunks(MS, 2, &[], &[]);
    a.count_misses(&sack(None, &[(1, 3)]), Some(3), &acked, false);
    assert!(
        a.sent.values().all(|o| o.miss == 0),
        "HTNA: none newly acked"
    );
}

#[test]
fn sfr_counts_misses_only_for_the_destination_that_saw_a_newer_ack() {
    let cfg = SctpConfig {
        cmt: true,
        sfr: true,
        dac: false,
        ..SctpConfig::default()
    };
    let (mut a, tsns) = with_data(cfg, 0, 4);
    // Put TSNs 0 and 2 on destination 0, 1 and 3 on destination 1.
    for &t in &tsns {
        let o = &a.sent[&t];
        let (from, len) = (o.path, o.chunk.len as u64);
        let to = (t % 2) as usize;
        a.paths[from].flight -= len;
        a.paths[to].flight += len;
        a.rebook(t, to);
    }
    // TSN 3 (destination 1) is newly acked: TSN 1 missing on the same
    // destination counts a miss; TSNs 0 and 2 on destination 0 do not
    // (CMT SFR, Iyengar et al. section 4.1).
    a.on_sack(MS, &sack(None, &[(3, 3)]));
    assert_eq!(a.sent[&1].miss, 1);
    assert_eq!((a.sent[&0].miss, a.sent[&2].miss), (0, 0));
}

// ---------------------------------------------------------------- timers.rs

#[test]
fn restart_t3_on_sack_stops_idle_timers_and_restarts_on_progress() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 3);
    a.paths[0].t3 = Some(5 * MS);
    a.paths[1].t3 = Some(5 * MS);
    // Section 6.3.2 R3: the lowest outstanding TSN was acked: restart.
    a.restart_t3_on_sack(MS, &[Some(0), None], &[Some(1), None]);
    assert_eq!(a.paths[0].t3, Some(MS + a.paths[0].rto));
    // R2: nothing outstanding on destination 1: stop.
    assert_eq!(a.paths[1].t3, None);
    // No progress and a running timer: keep it.
    let t3 = a.paths[0].t3;
    a.restart_t3_on_sack(2 * MS, &[Some(1), None], &[Some(1), None]);
    assert_eq!(a.paths[0].t3, t3);
}

// ---------------------------------------------------------------- control.rs

#[test]
fn heartbeat_ack_reactivates_a_failed_destination() {
    let mut a = established(SctpConfig::default());
    a.paths[1].active = false;
    a.paths[1].error_count = 5;
    a.paths[1].hb_outstanding = Some(10 * MS);
    a.assoc_errors = 3;
    let srtt = a.paths[1].srtt;
    a.on_heartbeat_ack(60 * MS, A1, B1, 10 * MS);
    let p = &a.paths[1];
    assert!(p.active, "section 8.3");
    assert_eq!(
        (p.error_count, p.hb_outstanding, a.assoc_errors),
        (0, None, 0)
    );
    assert_ne!(p.srtt, srtt, "the heartbeat gives an RTT sample");
    // An ack naming no known path changes nothing.
    a.paths[0].error_count = 2;
    a.on_heartbeat_ack(70 * MS, A1, B0, 10 * MS);
    assert_eq!(a.paths[0].error_count, 2);
}

#[test]
fn init_ack_outside_cookie_wait_is_ignored() {
    let mut a = established(SctpConfig::default());
    let (vtag, rwnd) = (a.peer_vtag, a.peer_a_rwnd);
    a.on_init_ack(MS, 0, vtag + 1, 1, 7, false);
    assert_eq!((a.peer_vtag, a.peer_a_rwnd), (vtag, rwnd));
    assert_eq!(a.state(), State::Established);
}

#[test]
fn shutdown_acks_its_cumulative_tsn_and_reports_the_peer_closing() {
    let (mut a, _) = with_data(SctpConfig::default(), 0, 3);
    a.on_shutdown(MS, Some(1));
    assert_eq!(a.peer_cum, Some(1), "section 9.2: cum TSN acks like a SACK");
    assert_eq!(a.sent.keys().copied().collect::<Vec<_>>(), vec![2]);
    assert_eq!(a.state(), State::ShutdownReceived);
    assert!(a.events.contains(&AppEvent::PeerClosed));
}
