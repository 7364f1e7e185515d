//! Unit tests of the building blocks: TSN tracker, chunk formats, reassembly, congestion control, CMT rules, presets.

use super::*;

#[test]
fn tsn_tracker_builds_gap_blocks_and_duplicates() {
    let mut t = TsnTracker::default();
    for tsn in [0, 1, 3, 4, 7, 9, 10] {
        assert!(t.on_tsn(tsn));
    }
    assert!(!t.on_tsn(1), "duplicate below cum");
    assert!(!t.on_tsn(9), "duplicate in a gap block");
    assert_eq!(t.cum, Some(1));
    assert_eq!(t.gaps(), vec![(3, 4), (7, 7), (9, 10)]);
    let s = t.make_sack(1000, false, 0);
    assert_eq!(s.cum_tsn, Some(1));
    assert_eq!(s.gaps, vec![(3, 4), (7, 7), (9, 10)]);
    assert_eq!(s.dups, vec![1, 9]);
    assert!(s.nr_gaps.is_empty());
    // 16 + 3 gap blocks + 2 dups, 4 bytes each
    assert_eq!(s.wire_len(), 16 + 4 * 5);
    assert!(s.acks(0) && s.acks(4) && !s.acks(5) && s.acks(10));
    // filling the hole moves the cumulative ack over the first block
    assert!(t.on_tsn(2));
    assert_eq!(t.cum, Some(4));
    assert_eq!(t.gaps(), vec![(7, 7), (9, 10)]);
    // duplicates are reported once
    assert!(t.make_sack(1000, false, 0).dups.is_empty());
}

#[test]
fn nr_sack_reports_non_renegable_blocks() {
    let mut t = TsnTracker::default();
    for tsn in [0, 2, 3, 5] {
        t.on_tsn(tsn);
    }
    let s = t.make_sack(500, true, 0);
    assert!(s.nr);
    assert_eq!(s.gaps, vec![(2, 3), (5, 5)]);
    assert_eq!(s.nr_gaps, vec![(2, 3), (5, 5)]);
    assert_eq!(s.wire_len(), 20 + 4 * 4);
}

#[test]
fn wire_sizes_follow_the_chunk_formats() {
    let d = DataChunk {
        tsn: 0,
        stream: 0,
        ssn: 0,
        unordered: false,
        begin: true,
        end: true,
        len: 1452,
        msg_offset: 0,
    };
    let p = SctpPacket {
        src_port: 1,
        dst_port: 2,
        vtag: 1,
        chunks: vec![Chunk::Data(d)],
    };
    // seed 000: 1452 bytes of payload fill a 1500-byte IP packet
    assert_eq!(20 + p.wire_len(), 1500);
    let small = DataChunk { len: 101, ..d };
    let p = SctpPacket {
        src_port: 1,
        dst_port: 2,
        vtag: 1,
        chunks: vec![Chunk::Data(small), Chunk::Data(small)],
    };
    // chunks are padded to 4 bytes: 16 + 101 -> 120
    assert_eq!(p.wire_len(), 12 + 2 * 120);
    assert_eq!(p.data_len(), 202);
    assert_eq!(initial_cwnd(1500), 4380);
    assert_eq!(initial_cwnd(9000), 18000);
}

#[test]
fn reassembly_orders_messages_and_fragments() {
    let mut r = Reassembly::default();
    let mut out: Vec<DeliveredMsg> = Vec::new();
    // message 0 = TSN 0..2 (3 fragments), message 1 = TSN 3 (single)
    r.add(10, &data(3, 1, true, true, 100, 3000, false), &mut out);
    assert!(out.is_empty(), "message 1 waits for message 0");
    r.add(20, &data(0, 0, true, false, 1000, 0, false), &mut out);
    r.add(30, &data(2, 0, false, true, 1000, 0, false), &mut out);
    assert!(out.is_empty(), "fragment 1 missing");
    assert_eq!(r.held, 2100);
    r.add(50, &data(1, 0, false, false, 1000, 0, false), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].offset, out[0].len), (0, 3000));
    assert_eq!((out[1].offset, out[1].len), (3000, 100));
    assert_eq!(r.held, 0);
    // waiting time: 1000 B waited 30, 1000 B waited 20, 1000 B 0, 100 B waited 40
    assert_eq!(r.stats.bytes, 3100);
    assert_eq!(r.stats.wait_ns_bytes, 30_000 + 20_000 + 4_000);
    assert_eq!(r.stats.max_wait, 40);
}

#[test]
fn unordered_messages_are_delivered_when_complete() {
    let mut r = Reassembly::default();
    let mut out = Vec::new();
    r.add(0, &data(5, 0, true, true, 10, 500, true), &mut out);
    assert_eq!(out.len(), 1, "no waiting for earlier TSNs");
    r.add(1, &data(2, 0, true, false, 10, 200, true), &mut out);
    assert_eq!(out.len(), 1);
    r.add(2, &data(3, 0, false, true, 10, 200, true), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(
        (out[1].offset, out[1].len, out[1].unordered),
        (200, 20, true)
    );
}

fn path(cwnd: u64, ssthresh: u64, flight: u64) -> Path {
    let mut p = Path::new(1, 2, cwnd, ssthresh, SEC);
    p.flight = flight;
    p.flight_before_sack = flight;
    p
}

#[test]
fn congestion_control_follows_rfc_section_7() {
    let mtu = 1500;
    // slow start: + min(acked, MTU) when fully used and the cum ack advanced
    let mut ps = vec![path(4380, 100_000, 4380)];
    on_ack(&mut ps, 0, 2904, true, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 5880);
    // no increase without (pseudo-)cumulative progress (CUC) ...
    on_ack(&mut ps, 0, 2904, false, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 5880);
    // ... or when the window was not fully used
    ps[0].flight_before_sack = 1000;
    on_ack(&mut ps, 0, 1000, true, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 5880);
    // congestion avoidance: one MTU per cwnd of acked bytes
    let mut ps = vec![path(10_000, 5_000, 10_000)];
    on_ack(&mut ps, 0, 6000, true, mtu, CcVariant::Uncoupled);
    assert_eq!((ps[0].cwnd, ps[0].pba), (10_000, 6000));
    on_ack(&mut ps, 0, 6000, true, mtu, CcVariant::Uncoupled);
    assert_eq!((ps[0].cwnd, ps[0].pba), (11_500, 2000));
    // fast retransmit halves (floor 4 MTU), T3 collapses to 1 MTU
    let mut ps = vec![path(20_000, 50_000, 0)];
    on_fast_retransmit(&mut ps, 0, mtu, CcVariant::Uncoupled);
    assert_eq!((ps[0].cwnd, ps[0].ssthresh), (10_000, 10_000));
    on_fast_retransmit(&mut ps, 0, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].ssthresh, 6000);
    on_timeout(&mut ps[0], mtu);
    assert_eq!((ps[0].cwnd, ps[0].ssthresh), (1500, 6000));
    // no growth during fast recovery
    let mut ps = vec![path(4380, 100_000, 4380)];
    ps[0].fast_recovery_exit = Some(10);
    on_ack(&mut ps, 0, 1452, true, mtu, CcVariant::Uncoupled);
    assert_eq!(ps[0].cwnd, 4380);
}

#[test]
fn max_burst_use_it_or_lose_it() {
    let mut p = path(100_000, 100_000, 3000);
    apply_max_burst(&mut p, 4, 1500);
    assert_eq!(p.cwnd, 3000 + 4 * 1500);
    // a sender using its window keeps it
    let mut p = path(10_000, 100_000, 9000);
    apply_max_burst(&mut p, 4, 1500);
    assert_eq!(p.cwnd, 10_000);
    // Max.Burst 0 disables the rule
    let mut p = path(100_000, 100_000, 0);
    apply_max_burst(&mut p, 0, 1500);
    assert_eq!(p.cwnd, 100_000);
}

#[test]
fn cmt_rpv2_shares_increase_and_gives_back_half_of_the_aggregate() {
    let mtu = 1500;
    let mut a = path(30_000, 10_000, 30_000);
    a.srtt = Some(10 * MS);
    let mut b = path(10_000, 5_000, 10_000);
    b.srtt = Some(10 * MS);
    let mut ps = vec![a, b];
    // CA increase scaled by the path's share of the aggregate bandwidth (3/4)
    on_ack(&mut ps, 0, 30_000, true, mtu, CcVariant::CmtRpv2);
    assert_eq!(ps[0].cwnd, 30_000 + 1125);
    // the decrease takes half of the aggregate (20 000) from path 0
    let mut ps2 = ps.clone();
    ps2[0].cwnd = 30_000;
    on_fast_retransmit(&mut ps2, 0, mtu, CcVariant::CmtRpv2);
    assert_eq!(ps2[0].cwnd, 10_000);
    // and at least half of its own window from path 1
    let mut ps3 = ps.clone();
    ps3[0].cwnd = 30_000;
    on_fast_retransmit(&mut ps3, 1, mtu, CcVariant::CmtRpv2);
    assert_eq!(ps3[1].cwnd, 1500, "10 000 - 20 000 floors at one MTU");
}

#[test]
fn sfr_counts_misses_only_below_the_highest_newly_acked_tsn_on_the_same_destination() {
    let f = SackFacts {
        saw_newack: true,
        highest_newly_acked: Some(10),
        lowest_newly_acked: Some(8),
    };
    assert_eq!(sfr_miss_increment(&f, 5, false, 0), 1);
    assert_eq!(
        sfr_miss_increment(&f, 10, false, 0),
        0,
        "not below the highest acked on its path"
    );
    assert_eq!(sfr_miss_increment(&f, 12, false, 0), 0);
    let none = SackFacts::default();
    assert_eq!(
        sfr_miss_increment(&none, 5, false, 0),
        0,
        "no new ack on that destination"
    );
    // DAC: the SACK acked two packets and all newly acked TSNs are above the hole
    assert_eq!(sfr_miss_increment(&f, 5, true, 2), 2);
    // ... but not when a newly acked TSN is below it
    assert_eq!(sfr_miss_increment(&f, 9, true, 2), 1);
    assert_eq!(sfr_miss_increment(&f, 5, true, 1), 1);
}

#[test]
fn retransmission_policies_pick_the_documented_destination() {
    let mut a = path(10_000, 50_000, 0);
    a.srtt = Some(50 * MS);
    let mut b = path(20_000, 8_000, 0);
    b.srtt = Some(10 * MS);
    let mut c = path(5_000, 90_000, 0);
    c.srtt = Some(30 * MS);
    let ps = vec![a, b, c];
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::Same), 0);
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::LowestRtt), 1);
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::LargestCwnd), 1);
    assert_eq!(rtx_destination(&ps, 0, RtxPolicy::LargestSsthresh), 2);
    let mut ps2 = ps.clone();
    ps2[0].active = false;
    assert_eq!(
        rtx_destination(&ps2, 0, RtxPolicy::Same),
        1,
        "a failed destination is avoided"
    );
    assert_eq!(alternate_destination(&ps, 0, 0), 1);
    assert_eq!(alternate_destination(&ps, 1, 0), 0);
}

#[test]
fn buffer_split_share() {
    assert!(
        split_allows(0, 1452, 1000, 2),
        "a path may always hold one chunk"
    );
    assert!(split_allows(40_000, 1452, 100_000, 2));
    assert!(!split_allows(49_000, 1452, 100_000, 2));
}

#[test]
fn names_and_presets() {
    assert_eq!(Scheduler::NAMES, &["roundrobin", "daps"]);
    assert_eq!(Scheduler::from_name("daps"), Some(Scheduler::Daps));
    assert_eq!(CcVariant::from_name("cmt-rpv2"), Some(CcVariant::CmtRpv2));
    assert_eq!(BufferSplit::from_name("both"), Some(BufferSplit::Both));
    assert!(RtxPolicy::from_name("bogus").is_none());
    assert_eq!(Preset::Seed000.config(1, 2), SctpConfig::seed000(1, 2));
    let rfc = Preset::Rfc.config(1, 2);
    assert!(!rfc.cmt && (rfc.send_buffer, rfc.recv_buffer) == (1, 2));
    let s = SctpConfig::seed000(256 * 1024, 256 * 1024);
    assert!(s.cmt && s.chunk_rescheduling);
    assert_eq!(s.scheduler, Scheduler::RoundRobin);
    assert_eq!(s.rtx_policy, RtxPolicy::LowestRtt);
    assert_eq!(s.buffer_split, BufferSplit::Both);
    assert_eq!(s.cc, CcVariant::Uncoupled);
    assert_eq!((s.max_burst, s.max_payload), (4, 1452));
    let d = SctpConfig::default();
    assert_eq!(
        (d.rto_initial, d.rto_min, d.rto_max),
        (3 * SEC, SEC, 60 * SEC)
    );
    assert_eq!(
        (d.path_max_retrans, d.hb_interval, d.sack_delay),
        (5, 30 * SEC, 200 * MS)
    );
}

#[test]
fn daps_plan_sends_more_on_the_fast_path_in_arrival_order() {
    let mut fast = path(4 * 1500, 1 << 20, 0);
    fast.srtt = Some(10 * MS);
    let mut slow = path(4 * 1500, 1 << 20, 0);
    slow.srtt = Some(40 * MS);
    let plan = super::sched::daps_plan(&[fast, slow], 1500, 1000);
    let n_fast = plan.iter().filter(|&&i| i == 0).count();
    let n_slow = plan.iter().filter(|&&i| i == 1).count();
    assert_eq!((n_fast, n_slow), (16, 4));
    // first packets go on the fast path (the slow one's first arrives at 20 ms)
    assert_eq!(&plan[..4], &[0, 0, 0, 0]);
}
