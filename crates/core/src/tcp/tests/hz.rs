//! CONFIG_HZ (`TcpConfig::hz`, scenario key `transport.hz`): at HZ = 250
//! every retransmission-timer expiry is on a 4 ms jiffy boundary and the
//! RTO is whole 4 ms jiffies. Each test fails if a timer kept HZ = 1000.

use super::*;
use crate::tcp::sender::AckInfo;

const SEG: u64 = 1000;

fn sender(hz: u32, tlp: bool, rto_min: Nanos) -> PathSender {
    let cfg = TcpConfig {
        rack: true,
        tlp,
        timestamps: false,
        rto_min,
        hz,
        ..TcpConfig::default()
    };
    let mut s = PathSender::new(&cfg, CcKind::NewReno.build());
    s.established(0, SEG as u32, true, false, 1 << 20);
    s
}

fn send_n(s: &mut PathSender, now: Nanos, n: u64) {
    s.push_data(n * SEG);
    while s.next_tx(now).is_some() {}
}

fn ack(ack: u64) -> AckInfo<'static> {
    AckInfo {
        ack,
        window: 1 << 20,
        sack: &[],
        ts_ecr: None,
        carries_data: false,
    }
}

/// `__tcp_set_rto`: `usecs_to_jiffies(srtt_us / 8 + rttvar_us)`. The first
/// sample R = 21 ms gives SRTT 21 ms and rttvar_us = mdev_us = 2R: 63 ms,
/// 63 jiffies at HZ = 1000, 16 jiffies (64 ms) at HZ = 250. The RTO timer
/// armed at the ACK (21 ms, jiffy 5 at HZ = 250) for 64 ms = 16 jiffies
/// expires at jiffy 21, level 0 of the wheel: runs one jiffy later, jiffy
/// 22 = 88 ms (`calc_index`). At HZ = 1000: 63 jiffies from jiffy 21, level
/// 1 (8-jiffy buckets): (84 + 8) & !7 = 88 ms as well, so the RTO value
/// itself is what tells the two apart here.
#[test]
fn rto_is_whole_4ms_jiffies_at_hz_250() {
    for (hz, rto) in [(1000, 63 * MS), (250, 64 * MS)] {
        let mut s = sender(hz, false, 10 * MS);
        send_n(&mut s, 0, 3);
        s.on_ack(21 * MS, &ack(1 + SEG), None);
        assert_eq!(s.rtt.srtt, 21 * MS);
        assert_eq!(s.rtt.rto(), rto, "hz {hz}");
        assert_eq!(s.next_timeout(), Some(88 * MS), "hz {hz}");
    }
}

/// Linux 6.18 `tcp_schedule_loss_probe`: PTO = 2 SRTT + TCP_TIMEOUT_MIN_US
/// = 42 ms from the ACK at 20 ms, `usecs_to_jiffies`: 42 jiffies at HZ =
/// 1000 (expires 62, level 0: runs at 63 ms, tests/timer_slack.rs), 11
/// jiffies of 4 ms at HZ = 250 (jiffy 5 + 11 = 16, level 0: 17 = 68 ms).
/// RTO minimum 200 ms, so the RTO (220 ms) does not cap the PTO.
#[test]
fn loss_probe_lands_on_a_4ms_jiffy_at_hz_250() {
    for (hz, at) in [(1000, 63 * MS), (250, 68 * MS)] {
        let mut s = sender(hz, true, 200 * MS);
        send_n(&mut s, 0, 3);
        s.on_ack(20 * MS, &ack(1 + SEG), None);
        assert!(s.tlp_pending());
        assert_eq!(s.next_timeout(), Some(at), "hz {hz}");
    }
}

/// The jiffy's phase (`TcpConfig::hz_phase`, `tick_init_jiffy_update`):
/// the kernel's jiffies step where its CLOCK_MONOTONIC is a multiple of
/// 4 ms, so with time 0 at 1.509 ms into a jiffy the boundaries fall at
/// 2.491 ms + k * 4 ms. The RTO of the first test (64 ms, 16 jiffies) armed
/// at the ACK at 21 ms (kernel clock 22.509 ms, jiffy 5) expires at jiffy
/// 21 and runs at jiffy 22: kernel 88 ms, simulated 86.491 ms. At 3.999
/// ms the ACK comes at kernel 24.999 ms, jiffy 6: it runs at jiffy 23,
/// simulated 88.001 ms. The
/// validate video cell's run 0 (live pass, docs/validation.md, session 12)
/// retransmitted on this kernel 34 us after such a boundary.
#[test]
fn the_rto_fires_on_the_kernels_jiffy_boundary_at_its_phase() {
    for (phase, at) in [
        (0, 88 * MS),
        (1_509_000, 86_491_000),
        (3_999_000, 88_001_000),
    ] {
        let cfg = TcpConfig {
            rack: true,
            tlp: false,
            timestamps: false,
            rto_min: 10 * MS,
            hz: 250,
            hz_phase: phase,
            ..TcpConfig::default()
        };
        let mut s = PathSender::new(&cfg, CcKind::NewReno.build());
        s.established(0, SEG as u32, true, false, 1 << 20);
        send_n(&mut s, 0, 3);
        s.on_ack(21 * MS, &ack(1 + SEG), None);
        assert_eq!(s.rtt.rto(), 64 * MS);
        assert_eq!(s.next_timeout(), Some(at), "phase {phase}");
        // on a boundary of the kernel's clock
        assert_eq!((at + phase) % (4 * MS), 0, "phase {phase}");
    }
}
