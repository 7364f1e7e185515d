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
