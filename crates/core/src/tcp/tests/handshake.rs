//! Handshake: active and passive opens, option negotiation.

use super::*;

#[test]
fn handshake_active_side() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    let syn = recv!(ep, 0);
    let s = tcp(&syn[0]);
    assert_eq!(s.flags, flags::SYN);
    assert_eq!((s.seq, s.mss(), s.sack_permitted), (0, Some(1460), true));
    // rcvbuf 6 MiB: 65535 << 7 = 8388480 >= 6291456, << 6 is not.
    assert_eq!(s.wscale, Some(7));
    assert!(s.ts().is_some());
    // 20 + 20 + (4 + 3 + 2 + 10 = 19 -> 20) = 60 bytes
    assert_eq!(syn[0].size, 60);
    // no answer: SYN retransmitted after 1 s (RFC 6298 2.1), then 1 s
    // again (tcp_syn_linear_timeouts)
    assert_eq!(ep.poll_timeout(), Some(SEC));
    ep.handle_timeout(SEC);
    assert_eq!(recv!(ep, SEC).len(), 1);
    assert_eq!(ep.poll_timeout(), Some(2 * SEC));
    send!(ep, SEC + 40 * MS, syn_ack(true));
    assert_eq!(events(&mut ep), vec![AppEvent::Connected]);
    let a = recv!(ep, SEC + 40 * MS);
    assert_eq!(a.len(), 1);
    assert_eq!(
        (tcp(&a[0]).flags, tcp(&a[0]).ack, tcp(&a[0]).seq),
        (flags::ACK, 1, 1)
    );
    // Karn: SYN was retransmitted, no RTT sample; RFC 6298 (5.7): RTO 3 s
    assert_eq!(ep.snd.rtt.srtt, 0);
    assert_eq!(ep.snd.rtt.rto(), 3 * SEC);
    assert_eq!(ep.snd.cwnd(), 10);
    assert_eq!(ep.snd.mss, 1448);
}

/// Linux 6.18 (`tcp_retransmit_timer`, `out_reset_timer`): in SYN_SENT the
/// RTO is not backed off while `total_rto <= tcp_syn_linear_timeouts` (4),
/// so SYNs leave at 0, 1, 2, 3, 4, 5 s, then 7, 11, 19, 35, 67 s; the
/// connection gives up when `icsk_retransmits` reaches `tcp_syn_retries +
/// tcp_syn_linear_timeouts` = 10 (`tcp_write_timeout`), at 131 s. The
/// validation host's kernel: SYN retransmissions 1.02 s apart (seed 000
/// `nornet-video-wlanwlan` run 5, docs/validation.md session 21). The model
/// doubled from the first timeout (0, 1, 3, 7 s) and gave up after 6.
#[test]
fn active_open_syn_timeouts_are_linear_first() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    assert_eq!(recv!(ep, 0).len(), 1);
    let mut sent = vec![0];
    while let Some(t) = ep.poll_timeout() {
        ep.handle_timeout(t);
        if ep.gave_up().is_some() {
            assert_eq!(t, 131 * SEC);
            break;
        }
        assert_eq!(recv!(ep, t).len(), 1);
        sent.push(t / SEC);
    }
    assert_eq!(sent, vec![0, 1, 2, 3, 4, 5, 7, 11, 19, 35, 67]);
    assert_eq!(ep.gave_up(), Some("tcp_syn_retries"));
}

/// The passive side's SYN-ACK keeps the exponential backoff
/// (`reqsk_timer_handler`): 1 s, then 2 s.
#[test]
fn passive_open_synack_timeouts_back_off() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 80, B, 1000, Role::Server);
    let mut syn = peer(0, 0, 0, flags::SYN);
    syn.set_mss(Some(1460));
    send!(ep, 0, syn);
    assert_eq!(recv!(ep, 0).len(), 1);
    assert_eq!(ep.poll_timeout(), Some(SEC));
    ep.handle_timeout(SEC);
    assert_eq!(recv!(ep, SEC).len(), 1);
    assert_eq!(ep.poll_timeout(), Some(3 * SEC));
}

#[test]
fn handshake_passive_side() {
    let mut ep = TcpEndpoint::new(&cfg(), 0, A, 80, B, 1000, Role::Server);
    assert!(recv!(ep, 0).is_empty());
    let mut syn = peer(0, 0, 0, flags::SYN);
    syn.set_mss(Some(1460));
    syn.wscale = Some(7);
    syn.sack_permitted = true;
    syn.set_ts(Some((5, 0)));
    send!(ep, 0, syn);
    let sa = recv!(ep, 0);
    assert_eq!(sa.len(), 1);
    let s = tcp(&sa[0]);
    assert_eq!((s.flags, s.seq, s.ack), (flags::SYN | flags::ACK, 0, 1));
    assert_eq!(
        (s.wscale, s.sack_permitted, s.ts()),
        (Some(7), true, Some((0, 5)))
    );
    // SYN-ACK retransmitted after 1 s if the ACK is lost
    ep.handle_timeout(SEC);
    assert_eq!(recv!(ep, SEC).len(), 1);
    send!(ep, SEC + 10 * MS, ack(1, 0));
    assert_eq!(events(&mut ep), vec![AppEvent::Connected]);
    assert_eq!(ep.state, TcpState::Established);
}

#[test]
fn handshake_without_options_caps_window() {
    let c = TcpConfig {
        timestamps: false,
        window_scaling: false,
        sack: false,
        ..cfg()
    };
    let mut ep = TcpEndpoint::new(&c, 0, A, 80, B, 1000, Role::Server);
    let mut syn = peer(0, 0, 0, flags::SYN);
    syn.set_mss(Some(1460));
    send!(ep, 0, syn);
    let sa = recv!(ep, 0);
    let s = tcp(&sa[0]);
    assert_eq!((s.wscale, s.sack_permitted, s.ts()), (None, false, None));
    send!(ep, MS, ack(1, 0));
    // data at 1: ACK advertises at most 65535 without scaling
    let mut d = peer(1, 1, 1460, flags::ACK);
    d.set_ts(None);
    send!(ep, 2 * MS, d);
    let a = recv!(ep, 2 * MS);
    assert_eq!(tcp(&a[0]).window, 65535);
    assert_eq!(ep.snd.mss, 1460);
}

#[test]
fn ipv6_costs_20_bytes_of_every_packet_and_of_the_mss() {
    use crate::packet::IpVersion;
    let c = TcpConfig {
        ip: IpVersion::V6,
        ..cfg()
    };
    // MSS option = MTU - 40 (IPv6) - 20 (TCP): Linux tcp_mtu_to_mss
    let mut ep = TcpEndpoint::new(&c, 0, A, 1000, B, 80, Role::Client);
    ep.connect(0);
    let syn = recv!(ep, 0);
    assert_eq!(tcp(&syn[0]).mss(), Some(1440));
    assert_eq!(syn[0].size, 40 + 20 + tcp(&syn[0]).options_len());
    // the peer offers 1460; ours is smaller, less 12 bytes of timestamps
    let mut ep = client_with(&c, true);
    assert_eq!(ep.snd.mss, 1428);
    ep.write(40 * MS, 100_000);
    let out = recv!(ep, 40 * MS);
    assert!(!out.is_empty());
    for p in &out {
        assert_eq!(p.size, 1500, "full segments fill the 1500-byte MTU");
        assert_eq!(p.payload_len(), 1428);
    }
}

/// Linux `tcp_ack_update_rtt`: a retransmitted SYN-ACK gives no RTT sample
/// by time (Karn), but the ACK's timestamp echo does (RFC 7323 4.1): it
/// names the SYN-ACK transmission the client answered.
#[test]
fn retransmitted_syn_ack_is_timed_by_the_timestamp_echo() {
    let passive = |ecr: Nanos| {
        let mut ep = TcpEndpoint::new(&cfg(), 0, A, 80, B, 1000, Role::Server);
        let mut syn = peer(0, 0, 0, flags::SYN);
        syn.set_mss(Some(1460));
        syn.set_ts(Some((5, 0)));
        send!(ep, 0, syn);
        assert_eq!(recv!(ep, 0).len(), 1);
        ep.handle_timeout(SEC);
        let sa = recv!(ep, SEC);
        assert_eq!(
            tcp(&sa[0]).ts().map(|t| t.0),
            Some(SEC),
            "TSval of the retransmission"
        );
        send!(ep, SEC + 30 * MS, ack(1, ecr));
        assert_eq!(ep.state, TcpState::Established);
        (ep.snd.rtt.srtt, ep.snd.rtt.rto())
    };
    // the ACK echoes the retransmitted SYN-ACK: a 30 ms sample
    assert_eq!(passive(SEC).0, 30 * MS);
    // an ACK echoing the first SYN-ACK (Linux's challenge ACK to the
    // retransmission when the first ACK was lost) is timed from it (in
    // whole microseconds, as Linux's srtt_us)
    assert_eq!(passive(1).0, SEC + 30 * MS - crate::time::US);
    // no echo: no sample, RFC 6298 (5.7) RTO of 3 s
    assert_eq!(passive(0), (0, 3 * SEC));
}
