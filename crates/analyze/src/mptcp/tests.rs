use super::*;
use crate::testutil;

#[test]
fn token_and_idsn_match_wireshark() {
    // Key, token and expected IDSN as Wireshark 4 shows them for a kernel
    // MPTCP SYN/ACK (emulator capture, `tshark -V`).
    let (tok, idsn) = token_idsn(10457894358159658117);
    assert_eq!(tok, 3226935390);
    assert_eq!(idsn, 10099943400840837694);
}

#[test]
fn mp_capable_forms() {
    let o = parse_mptcp(&testutil::mp_capable(None, None, None)).unwrap();
    assert!(matches!(
        o,
        MptcpOpt::Capable {
            version: 1,
            sender_key: None,
            ..
        }
    ));
    let o = parse_mptcp(&testutil::mp_capable(Some(7), Some(9), Some(16))).unwrap();
    assert_eq!(
        o,
        MptcpOpt::Capable {
            version: 1,
            flags: 1,
            sender_key: Some(7),
            receiver_key: Some(9),
            data_len: Some(16),
            checksum: None
        }
    );
    // 13 octets: no such form
    let mut bad = testutil::mp_capable(Some(7), None, None);
    bad.push(0);
    bad[1] = 13;
    assert!(parse_mptcp(&bad).is_err());
}

#[test]
fn dss_32_and_64_bit() {
    let o = parse_mptcp(&testutil::dss(Some(1 << 40), Some((5 << 33, 77, 1400)))).unwrap();
    let MptcpOpt::Dss(d) = o else {
        panic!("not DSS")
    };
    assert_eq!(d.data_ack, Some((1 << 40, true)));
    assert_eq!(
        d.map,
        Some(DssMap {
            dsn: 5 << 33,
            dsn64: true,
            ssn: 77,
            len: 1400
        })
    );
    // 4-octet DATA_ACK and DSN, with checksum, DATA_FIN
    let o = [
        30, 20, 0x20, 0x15, 0, 0, 0, 9, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0xab, 0xcd,
    ];
    let MptcpOpt::Dss(d) = parse_mptcp(&o).unwrap() else {
        panic!()
    };
    assert_eq!(d.data_ack, Some((9, false)));
    assert_eq!(d.map.unwrap().dsn, 256);
    assert!(!d.map.unwrap().dsn64);
    assert_eq!(d.checksum, Some(0xabcd));
    assert!(d.data_fin);
    // flags announce a mapping the option has no room for
    assert!(parse_mptcp(&[30, 8, 0x20, 0x0f, 0, 0, 0, 0]).is_err());
}

#[test]
fn join_add_remove_prio_fail_fastclose() {
    let MptcpOpt::Join(Join::Syn {
        token,
        nonce,
        backup,
        addr_id,
    }) = parse_mptcp(&testutil::mp_join_syn(0xdeadbeef, 5)).unwrap()
    else {
        panic!()
    };
    assert_eq!((token, nonce, backup, addr_id), (0xdeadbeef, 5, false, 1));
    // ADD_ADDR IPv4 with HMAC (16 octets), echo without (8), IPv6 with port (30)
    let mut a = vec![30, 16, 0x30, 2, 10, 2, 0, 2];
    a.extend(42u64.to_be_bytes());
    assert_eq!(
        parse_mptcp(&a).unwrap(),
        MptcpOpt::AddAddr {
            echo: false,
            addr_id: 2,
            addr: "10.2.0.2".parse().unwrap(),
            port: None,
            hmac: Some(42)
        }
    );
    assert!(matches!(
        parse_mptcp(&[30, 8, 0x31, 2, 10, 2, 0, 2]).unwrap(),
        MptcpOpt::AddAddr {
            echo: true,
            hmac: None,
            ..
        }
    ));
    let mut v6 = vec![30, 30, 0x30, 3];
    v6.extend([0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    v6.extend(8080u16.to_be_bytes());
    v6.extend(1u64.to_be_bytes());
    assert!(matches!(
        parse_mptcp(&v6).unwrap(),
        MptcpOpt::AddAddr {
            port: Some(8080),
            ..
        }
    ));
    assert_eq!(
        parse_mptcp(&[30, 5, 0x40, 1, 2]).unwrap(),
        MptcpOpt::RemoveAddr {
            addr_ids: vec![1, 2]
        }
    );
    assert_eq!(
        parse_mptcp(&[30, 4, 0x51, 3]).unwrap(),
        MptcpOpt::Prio {
            backup: true,
            addr_id: Some(3)
        }
    );
    let mut f = vec![30, 12, 0x60, 0];
    f.extend(99u64.to_be_bytes());
    assert_eq!(parse_mptcp(&f).unwrap(), MptcpOpt::Fail { dsn: 99 });
    f[2] = 0x70;
    assert_eq!(
        parse_mptcp(&f).unwrap(),
        MptcpOpt::FastClose { receiver_key: 99 }
    );
    assert!(parse_mptcp(&f[..11]).is_err());
}

#[test]
fn tcp_option_walk_keeps_what_precedes_damage() {
    // MSS, SACK-permitted, timestamps, then an option whose length runs
    // past the field (a snap-length or a bad length byte)
    let mut o = vec![2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
    o.extend([30, 20, 0x20]);
    let t = parse_tcp_options(&o);
    assert_eq!(t.mss, Some(1460));
    assert!(t.sack_perm);
    assert_eq!(t.ts, Some((1, 2)));
    assert!(t.error.is_some());
    assert!(parse_tcp_options(&[5]).error.is_some());
    assert!(parse_tcp_options(&[5, 0]).error.is_some());
    assert_eq!(parse_tcp_options(&[1, 1, 0, 99]), TcpOpts::default());
}

#[test]
fn decoder_never_panics_on_any_short_option() {
    // every subtype and length up to 40 with patterned bytes
    for sub in 0..16u8 {
        for len in 0..=40usize {
            let mut o: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(37)).collect();
            if len > 0 {
                o[0] = 30;
            }
            if len > 1 {
                o[1] = len as u8;
            }
            if len > 2 {
                o[2] = sub << 4 | 0x0f;
            }
            let _ = parse_mptcp(&o);
            let _ = parse_tcp_options(&o);
        }
    }
}
