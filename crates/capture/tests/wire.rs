//! The encodings read back with etherparse (independent of tshark): header
//! checksums verify, sequence numbers and SACK blocks keep their distances,
//! frames have the size the simulator serialised, the SCTP CRC32c verifies.

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use mptlab_capture::messages::{header, Messages};
use mptlab_capture::{sctp, tcp};
use mptlab_core::packet::{addr, flags, Dss, MptcpOptions, Packet, Payload, SackBlock, TcpSegment};
use mptlab_core::sctp::chunk::{Chunk, DataChunk, SackChunk, SctpPacket};

fn tcp_packet(s: TcpSegment) -> Packet {
    Packet {
        src: addr(10, 0, 0, 2),
        dst: addr(10, 1, 0, 2),
        flow: 3,
        size: s.header_len(mptlab_core::packet::IpVersion::V4) + s.len,
        payload: Payload::Tcp(s),
    }
}

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

#[test]
fn tcp_data_segment_round_trips() {
    let mut s = TcpSegment::new(80, 40000);
    s.seq = 1 + 1448 * 5;
    s.ack = 1;
    s.len = 1448;
    s.flags = flags::ACK;
    s.window = 1 << 20;
    s.set_ts(Some((5_000_000, 4_000_000)));
    s.set_sack_block(0, SackBlock { start: 1, end: 2 });
    s.set_sack_len(0);
    let mut d = Dss::with_data_ack(1);
    d.set_dsn(Some(1 + 1448 * 5));
    d.map_len = 1448;
    s.mptcp = Some(MptcpOptions {
        dss: Some(d),
        control: None,
    });
    let p = tcp_packet(s);
    let mut msgs = Messages::default();
    // a message starting inside this segment's bytes (server -> client)
    msgs.stream(3, false, 0, 1448 * 5 + 100);
    msgs.stream(3, false, 77, 500);
    let mut st = tcp::TcpState::default();
    let mut out = Vec::new();
    let Payload::Tcp(seg) = &p.payload else {
        unreachable!()
    };
    tcp::encode(&mut st, &msgs, 9, false, &p, seg, &mut out);
    assert_eq!(out.len() as u32, p.size, "frame = simulated size");
    let sp = SlicedPacket::from_ip(&out).unwrap();
    let Some(NetSlice::Ipv4(ip)) = &sp.net else {
        panic!("ipv4")
    };
    let iph = ip.header().to_header();
    assert_eq!(iph.header_checksum, iph.calc_header_checksum());
    let Some(TransportSlice::Tcp(t)) = &sp.transport else {
        panic!("tcp")
    };
    let th = t.to_header();
    assert_eq!(
        th.checksum,
        th.calc_checksum_ipv4(&iph, t.payload()).unwrap()
    );
    // the second message starts 100 bytes into the payload
    assert_eq!(t.payload()[100..124], header(1, 77, 0, 1, 500));
    assert!(t.payload()[..100].iter().all(|&b| b == 0));
}

#[test]
fn sack_blocks_keep_their_distance_to_the_ack() {
    let mut s = TcpSegment::new(40000, 80);
    s.seq = 1;
    s.ack = 10_001;
    s.flags = flags::ACK;
    s.set_ts(Some((1, 1)));
    s.set_sack_block(
        0,
        SackBlock {
            start: 20_001,
            end: 30_001,
        },
    );
    s.set_sack_len(1);
    let p = tcp_packet(s);
    let Payload::Tcp(seg) = &p.payload else {
        unreachable!()
    };
    let mut out = Vec::new();
    tcp::encode(
        &mut tcp::TcpState::default(),
        &Messages::default(),
        1,
        true,
        &p,
        seg,
        &mut out,
    );
    let sp = SlicedPacket::from_ip(&out).unwrap();
    let Some(TransportSlice::Tcp(t)) = &sp.transport else {
        panic!("tcp")
    };
    let ack = t.acknowledgment_number();
    let o = t.options();
    let i = o
        .windows(2)
        .position(|w| w == [5, 10])
        .expect("SACK option");
    let start = u32::from_be_bytes(o[i + 2..i + 6].try_into().unwrap());
    let end = u32::from_be_bytes(o[i + 6..i + 10].try_into().unwrap());
    assert_eq!(start.wrapping_sub(ack), 10_000);
    assert_eq!(end.wrapping_sub(ack), 20_000);
    assert_eq!(out.len() as u32, p.size);
}

#[test]
fn sctp_crc32c_verifies_and_gaps_are_offsets() {
    let s = SctpPacket {
        src_port: 80,
        dst_port: 40000,
        vtag: 0xdead_beef,
        chunks: vec![
            Chunk::Data(DataChunk {
                tsn: 7,
                stream: 0,
                ssn: 3,
                unordered: false,
                begin: true,
                end: true,
                len: 100,
                msg_offset: 0,
            }),
            Chunk::Sack(SackChunk {
                cum_tsn: Some(4),
                a_rwnd: 65536,
                gaps: vec![(6, 8)],
                ..Default::default()
            }),
        ],
    };
    let p = Packet {
        src: addr(10, 0, 0, 2),
        dst: addr(10, 1, 0, 2),
        flow: 0,
        size: 20 + s.wire_len(),
        payload: Payload::Sctp(Box::new(s)),
    };
    let Payload::Sctp(sp) = &p.payload else {
        unreachable!()
    };
    let mut out = Vec::new();
    sctp::encode(
        mptlab_core::packet::IpVersion::V4,
        &Messages::default(),
        1,
        false,
        &p,
        sp,
        &mut out,
    );
    assert_eq!(out.len() as u32, p.size);
    let mut b = out[20..].to_vec();
    let got = u32::from_le_bytes(b[8..12].try_into().unwrap());
    b[8..12].fill(0);
    assert_eq!(got, crc32c::crc32c(&b));
    // SACK after the 116-byte DATA chunk: gap block offsets 2..4 from cum
    let k = 12 + 116;
    assert_eq!(b[k], 3);
    assert_eq!(b[k + 16..k + 20], [0, 2, 0, 4]);
}

/// Over IPv6: the frame is the size the model serialised (40-byte header),
/// the addresses are the plan's inside 2001:db8::/96, the TCP checksum
/// verifies over the IPv6 pseudo-header, ADD_ADDR carries the IPv6 address
/// in 28 bytes with the HMAC over id, 16-byte address and port (RFC 8684
/// 3.4.1), and UDP is checksummed over the IPv6 pseudo-header.
#[test]
fn ipv6_segments_round_trip() {
    use mptlab_capture::{ip, keys, Capture, HostIfaces, Options};
    use mptlab_core::packet::{AddAddr, IpVersion, MptcpControl, UdpDatagram};
    let v6 = IpVersion::V6;
    let mut s = TcpSegment::new(80, 40000);
    s.seq = 1;
    s.ack = 1;
    s.flags = flags::ACK;
    s.window = 1 << 20;
    s.set_ts(Some((5_000_000, 4_000_000)));
    let announced = addr(10, 0, 1, 2);
    s.mptcp = Some(MptcpOptions::with_control(MptcpControl {
        add_addr: Some(AddAddr {
            addr_id: 1,
            addr: announced,
            port: None,
            ip: v6,
            echo: false,
        }),
        ..Default::default()
    }));
    let p = Packet {
        size: s.header_len(v6) + s.len,
        ..tcp_packet(s)
    };
    let mut st = tcp::TcpState::new(v6);
    let mut out = Vec::new();
    let Payload::Tcp(seg) = &p.payload else {
        unreachable!()
    };
    tcp::encode(&mut st, &Messages::default(), 9, false, &p, seg, &mut out);
    assert_eq!(out.len() as u32, p.size, "frame = simulated size");
    let sp = SlicedPacket::from_ip(&out).unwrap();
    let Some(NetSlice::Ipv6(iph)) = &sp.net else {
        panic!("ipv6")
    };
    let iph = iph.header().to_header();
    assert_eq!(iph.source, ip::v6(p.src));
    assert_eq!(ip::v4_of(iph.destination), Some(p.dst));
    let Some(TransportSlice::Tcp(t)) = &sp.transport else {
        panic!("tcp")
    };
    let th = t.to_header();
    assert_eq!(
        th.checksum,
        th.calc_checksum_ipv6(&iph, t.payload()).unwrap()
    );
    let opts = th.options.as_slice();
    let at = opts
        .windows(3)
        .position(|w| w[0] == 30 && w[2] >> 4 == 3)
        .expect("ADD_ADDR");
    assert_eq!(opts[at + 1], 28, "IPv6 ADD_ADDR with HMAC");
    assert_eq!(opts[at + 4..at + 20], ip::v6(announced));
    let who = mptlab_capture::mptcp::Who {
        seed: 9,
        flow: p.flow,
        from_client: false,
        src: p.src,
        dst: p.dst,
    };
    let h = keys::add_addr_hmac(who.key(false), who.key(true), 1, &ip::v6(announced), 0);
    assert_eq!(opts[at + 20..at + 28], h);
    // UDP through a capture file, read back: checksum over the IPv6
    // pseudo-header
    let scratch = scratch::Scratch::unmade("wire-v6");
    let dir = scratch.to_path_buf();
    let hosts = [HostIfaces {
        host: 0,
        name: "h".into(),
        links: vec![(0, "l".into(), Some(p.src))],
    }];
    let opts = Options {
        dir: dir.clone(),
        snaplen: 0,
        seed: 1,
        ip: v6,
    };
    let mut cap = Capture::create(&opts, &hosts).unwrap();
    let d = UdpDatagram {
        src_port: 5000,
        dst_port: 80,
        len: 1452,
        seq: 0,
        sent_at: 0,
    };
    let up = Packet {
        src: p.src,
        dst: p.dst,
        flow: 1,
        size: 1500,
        payload: Payload::Udp(d),
    };
    cap.packet(0, 0, 0, true, true, &up);
    let stats = cap.finish().unwrap();
    assert_eq!(stats.bytes, 1500);
    let file = std::fs::read(Capture::host_file(&dir, "h")).unwrap();
    let at = file
        .windows(4)
        .position(|w| w == [0x60, 0, 0, 0])
        .expect("the IPv6 packet");
    let sp = SlicedPacket::from_ip(&file[at..at + 1500]).unwrap();
    let (Some(NetSlice::Ipv6(iph)), Some(TransportSlice::Udp(u))) = (&sp.net, &sp.transport) else {
        panic!("ipv6 udp")
    };
    let iph = iph.header().to_header();
    let uh = u.to_header();
    assert_ne!(uh.checksum, 0, "mandatory over IPv6");
    assert_eq!(
        uh.checksum,
        uh.calc_checksum_ipv6(&iph, u.payload()).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
