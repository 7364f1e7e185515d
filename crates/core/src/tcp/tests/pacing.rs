//! When the sender's pacing-rate inputs are taken (`PathSender::pacing_seen`).

use super::*;
use crate::tcp::sender::AckInfo;

const SEG: u64 = 1000;

/// Linux recomputes `sk_pacing_rate` only at the end of an ACK's processing
/// (`tcp_cong_control` -> `tcp_update_pacing_rate`; and once on entering
/// ESTABLISHED): the data that ACK releases, and a timer that cuts cwnd,
/// leave the rate as the ACK set it. The MPTCP scheduler's linger time
/// (`mptcp_subflow_get_send`) and the TSO size goal read that value.
#[test]
fn pacing_inputs_are_those_of_the_last_ack() {
    let cfg = TcpConfig {
        tlp: false,
        timestamps: false,
        ..TcpConfig::default()
    };
    let mut s = PathSender::new(&cfg, CcKind::NewReno.build());
    s.established(0, SEG as u32, true, false, 1 << 20);
    s.push_data(40 * SEG);
    let first: Vec<Tx> = std::iter::from_fn(|| s.next_tx(0)).collect();
    assert_eq!(first.len(), 10);
    assert_eq!(s.pacing_seen, None, "no ACK yet");
    let ss = s.ssthresh();
    // two segments acknowledged after 100 ms: slow start to cwnd 12, 8 out
    let a = AckInfo {
        ack: 1 + 2 * SEG,
        window: 1 << 20,
        sack: &[],
        ts_ecr: None,
        carries_data: false,
    };
    s.on_ack(100 * MS, &a, None);
    let seen = Some((12, ss, 8, 100 * MS));
    assert_eq!(s.pacing_seen, seen);
    // the four segments this ACK lets out do not change it
    let more: Vec<Tx> = std::iter::from_fn(|| s.next_tx(100 * MS)).collect();
    assert_eq!(more.len(), 4);
    assert_eq!(s.packets_out, 12);
    assert_eq!(s.pacing_seen, seen);
    // nor does the RTO that cuts cwnd to 1
    let rto = s.next_timeout().unwrap();
    assert!(s.on_timeout(rto, None));
    assert_eq!(s.cwnd(), 1);
    assert_eq!(s.pacing_seen, seen);
}
