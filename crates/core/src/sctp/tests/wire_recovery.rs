//! Behaviour on the wire: loss repair, failover, heartbeats, abort.

use super::*;

#[test]
fn one_loss_is_repaired_by_fast_retransmit_with_one_recovery() {
    let mut h = transfer(SctpConfig::sctp(), fast_links(), 300_000, 1452);
    h.drop = drop_first(&[40]);
    h.run_until(30 * SEC);
    check_in_order(&h, 300_000);
    let c = &h.a.paths()[0].counters;
    assert_eq!(
        (c.retrans_fast, c.recoveries, c.rto_events, c.retrans_rto),
        (1, 1, 0, 0)
    );
    assert_eq!(c.bytes_retransmitted, 1452);
    // two losses in the same window: one fast-recovery episode (HTNA/exit point)
    let mut h = transfer(SctpConfig::sctp(), fast_links(), 300_000, 1452);
    h.drop = drop_first(&[40, 43]);
    h.run_until(30 * SEC);
    check_in_order(&h, 300_000);
    let c = &h.a.paths()[0].counters;
    assert_eq!((c.retrans_fast, c.recoveries, c.rto_events), (2, 1, 0));
}

#[test]
fn tail_loss_is_repaired_by_t3_and_cwnd_collapses() {
    // the last chunk is lost: no later SACK can report it missing
    let total = 20 * 1452;
    let mut h = transfer(SctpConfig::sctp(), fast_links(), total, 1452);
    h.drop = drop_first(&[19]);
    h.close_after_write = false;
    h.run_until(30 * SEC);
    check_in_order(&h, total);
    let c = &h.a.paths()[0].counters;
    let c1 = &h.a.paths()[1].counters;
    assert_eq!(c.rto_events, 1);
    assert_eq!(c.retrans_fast, 0);
    // RFC 9260 6.4.1: the T3 retransmission goes to the alternate destination
    assert_eq!(c1.retrans_rto, 1);
    assert_eq!(h.a.path_states()[0].cwnd_bytes, 1500);
    // the RTO was backed off
    assert!(h.a.path_rto(0) >= 2 * SEC);
    // the chunk arrived ~RTO (>= 1 s) after it was first sent
    let t = h
        .b_events
        .iter()
        .find(|(_, e)| *e == AppEvent::Delivered { total })
        .unwrap()
        .0;
    assert!(t > SEC);
}

#[test]
fn primary_failure_fails_over_to_the_alternate_path() {
    let mut cfg = SctpConfig::sctp();
    cfg.rto_max = 4 * SEC;
    let mut h = transfer(cfg, fast_links(), 3_000_000, 1452);
    h.close_after_write = false;
    h.run_until(SEC);
    let before = h.delivered();
    assert!(before > 0 && before < 3_000_000);
    h.links[0].up = false;
    h.run_until(120 * SEC);
    check_in_order(&h, 3_000_000);
    assert!(
        !h.a.path_active(0),
        "primary marked unreachable after Path.Max.Retrans"
    );
    assert_eq!(h.a.primary(), 1);
    let c0 = &h.a.paths()[0].counters;
    // Path.Max.Retrans 5: inactive after the 6th consecutive timeout (acks of
    // chunks last sent to the primary before the outage may reset the counter
    // once, as section 8.3 requires)
    assert!(c0.rto_events >= 6, "{}", c0.rto_events);
    assert!(h.a.paths()[1].counters.bytes_sent > 1_000_000);
    assert_ne!(h.a.state(), State::Closed);
}

#[test]
fn heartbeats_detect_a_failed_idle_path_and_its_recovery() {
    let mut cfg = SctpConfig::sctp();
    cfg.hb_interval = SEC;
    let mut h = Harness::new(cfg.clone(), cfg, fast_links());
    h.a.connect(0);
    h.run_until(5 * SEC);
    assert!(h.hb_pkts[1] >= 2, "the idle path is probed");
    assert!(h.hb_pkts[0] >= 2, "the idle primary is probed too");
    assert!(h.a.path_active(1));
    h.links[1].up = false;
    h.run_until(200 * SEC);
    assert!(!h.a.path_active(1), "six unanswered heartbeats");
    assert!(h.a.path_active(0));
    assert_eq!(
        h.a.state(),
        State::Established,
        "one reachable path keeps the association up"
    );
    // the path comes back: the next heartbeat ack re-activates it
    h.links[1].up = true;
    h.run_until(400 * SEC);
    assert!(h.a.path_active(1));
    assert_eq!(h.a.path_errors(1), 0);
}

#[test]
fn association_max_retrans_aborts_when_everything_fails() {
    let mut cfg = SctpConfig::sctp();
    cfg.hb_interval = SEC;
    let mut h = transfer(cfg, fast_links(), 200_000, 1452);
    h.close_after_write = false;
    h.run_until(200 * MS);
    h.links[0].up = false;
    h.links[1].up = false;
    h.run_until(2000 * SEC);
    assert_eq!(h.a.state(), State::Closed);
    assert!(h.a_events.iter().any(|e| e.1 == AppEvent::Closed));
}
