//! Linux 6.18's retransmission-timer slack (`TCP_TIMEOUT_MIN_US`) and the
//! order RACK gives two transmissions of one simulated instant.

use super::*;
use crate::tcp::sender::AckInfo;

const SEG: u64 = 1000;

/// An established SACK sender (RACK, TLP, NewReno), 1000-byte segments,
/// HZ = 1000 (the model's default).
fn sack_sender() -> PathSender {
    let cfg = TcpConfig {
        rack: true,
        tlp: true,
        timestamps: false,
        ..TcpConfig::default()
    };
    let mut s = PathSender::new(&cfg, CcKind::NewReno.build());
    s.established(0, SEG as u32, true, false, 1 << 20);
    s
}

/// Start of segment `i` (sequence space starts at 1).
fn at(i: u64) -> u64 {
    1 + i * SEG
}

fn send_n(s: &mut PathSender, now: Nanos, n: u64) -> Vec<u64> {
    s.push_data(n * SEG);
    std::iter::from_fn(|| s.next_tx(now))
        .map(|t| t.seq)
        .collect()
}

fn sack_ack(ack: u64, sack: &[SackBlock]) -> AckInfo<'_> {
    AckInfo {
        ack,
        window: 1 << 20,
        sack,
        ts_ecr: None,
        carries_data: false,
    }
}

/// Linux 6.18 `tcp_schedule_loss_probe`: PTO = 2 SRTT + TCP_TIMEOUT_MIN_US
/// (2 ms) with more than one packet out (+ TCP_RTO_MIN with one), then
/// `usecs_to_jiffies`. SRTT 20 ms: 42 ms from the ACK at 20 ms, level 0
/// of the timer wheel (one jiffy late): 63 ms (61 ms without the slack).
#[test]
fn loss_probe_has_the_kernels_2ms_slack_with_more_than_one_packet_out() {
    let mut s = sack_sender();
    assert_eq!(send_n(&mut s, 0, 3).len(), 3);
    s.on_ack(20 * MS, &sack_ack(at(1), &[]), None);
    assert_eq!(s.rtt.srtt, 20 * MS);
    assert!(s.tlp_pending());
    assert_eq!(s.next_timeout(), Some(63 * MS));
}

/// The validate video cell's run 2 (docs/validation.md, session 11): a
/// video frame is written and, at the same nanosecond, the RACK reordering
/// timer retransmits an older segment. The kernel stamps the later pass
/// later (`tcp_mstamp_refresh`), so when the frame is SACKed the
/// retransmission counts as sent after it and is not lost. Ordered by
/// sequence (`tcp_rack_sent_after`'s tie-break within one pass) it would
/// be dated before the frame and, with reo_wnd = 0 in recovery, marked
/// lost again at once.
#[test]
fn a_retransmission_after_new_data_of_the_same_instant_is_later_for_rack() {
    let mut s = sack_sender();
    assert_eq!(send_n(&mut s, 0, 3), vec![at(0), at(1), at(2)]);
    // at 100 ms segment 0 is acknowledged (SRTT = min_RTT = 100 ms) and 2
    // SACKed: RACK waits min_RTT / 4 = 25 ms (+ 2 ms slack) for 1
    let b = [SackBlock {
        start: at(2),
        end: at(3),
    }];
    s.on_ack(100 * MS, &sack_ack(at(1), &b), None);
    assert!(s.rack_reo_pending());
    let t = s.next_timeout().unwrap();
    assert_eq!(t, 128 * MS);
    // at the timer's instant, first the application's write goes out...
    assert_eq!(send_n(&mut s, t, 1), vec![at(3)]);
    // ...then the timer marks 1 lost and retransmits it
    assert!(s.on_timeout(t, None));
    assert_eq!(s.ca_state(), CaState::Recovery);
    let rtx: Vec<u64> = std::iter::from_fn(|| s.next_tx(t)).map(|x| x.seq).collect();
    assert_eq!(rtx, vec![at(1)]);
    // the new segment is SACKed one RTT later; the retransmission, sent
    // after it, is still in flight and not overdue
    let b = [SackBlock {
        start: at(2),
        end: at(4),
    }];
    s.on_ack(t + 100 * MS, &sack_ack(at(1), &b), None);
    assert_eq!(s.lost_retrans, 0, "the retransmission is not lost");
    s.on_ack(t + 101 * MS, &sack_ack(at(4), &[]), None);
    assert_eq!(s.packets_out, 0);
    assert_eq!(s.lost_retrans, 0);
}
