//! End-to-end on synthetic captures, and bad captures.

use super::*;
use crate::mptcp::token_idsn;
use crate::testutil::*;
use mptlab_core::traffic::framing::{hdr, hello, KIND_MESSAGES};

const C1: [u8; 4] = [10, 1, 0, 2];
const C2: [u8; 4] = [10, 2, 0, 2];
const S: [u8; 4] = [10, 0, 0, 2];
const KC: u64 = 0x1111_2222_3333_4444;
const KS: u64 = 10457894358159658117;
const MS: u64 = 1_000_000;

fn msg(id: u64, gen: u64, len: usize) -> Vec<u8> {
    let mut m = vec![0u8; len];
    m[..24].copy_from_slice(&hdr(id, gen, 0, 1, len as u32));
    m
}

/// An MPTCP connection over two subflows: the client sends the agent's
/// hello, the server two 1000-byte messages (generated at 5 and 6 ms), the
/// second on subflow 2 arriving 20 ms before the first; then the second is
/// reinjected on subflow 1.
fn mptcp_capture() -> Vec<(u64, Vec<u8>, u32)> {
    let (_, idsn_c) = token_idsn(KC);
    let (tok_s, idsn_s) = token_idsn(KS);
    let none = Flags::default();
    let syn = Flags { syn: true, ..none };
    let ack = |a| Flags {
        ack: Some(a),
        ..none
    };
    let mut r = Vec::new();
    let mut push = |t: u64, p: Vec<u8>| {
        let n = p.len() as u32;
        r.push((t, p, n));
    };
    push(
        0,
        tcp(
            C1,
            S,
            1000,
            80,
            100,
            syn,
            &mp_capable(None, None, None),
            &[],
        ),
    );
    push(
        MS,
        tcp(
            S,
            C1,
            80,
            1000,
            500,
            Flags {
                syn: true,
                ack: Some(101),
                ..none
            },
            &mp_capable(Some(KS), None, None),
            &[],
        ),
    );
    push(
        2 * MS,
        tcp(
            C1,
            S,
            1000,
            80,
            101,
            ack(501),
            &mp_capable(Some(KC), Some(KS), None),
            &[],
        ),
    );
    push(
        2 * MS,
        tcp(
            C1,
            S,
            1000,
            80,
            101,
            ack(501),
            &mp_capable(Some(KC), Some(KS), Some(16)),
            &hello(KIND_MESSAGES, 0, 0),
        ),
    );
    // second subflow
    push(
        3 * MS,
        tcp(C2, S, 2000, 80, 9000, syn, &mp_join_syn(tok_s, 1), &[]),
    );
    push(
        4 * MS,
        tcp(
            S,
            C2,
            80,
            2000,
            7000,
            Flags {
                syn: true,
                ack: Some(9001),
                ..none
            },
            &[],
            &[],
        ),
    );
    push(5 * MS, tcp(C2, S, 2000, 80, 9001, ack(7001), &[], &[]));
    let m0 = msg(0, 5 * MS, 1000);
    let m1 = msg(1, 6 * MS, 1000);
    // message 1 (DSN 1001) on subflow 2 at 10 ms, message 0 on subflow 1 at 30 ms
    push(
        10 * MS,
        tcp(
            S,
            C2,
            80,
            2000,
            7001,
            ack(9001),
            &dss(Some(idsn_c + 17), Some((idsn_s + 1001, 1, 1000))),
            &m1,
        ),
    );
    push(
        30 * MS,
        tcp(
            S,
            C1,
            80,
            1000,
            501,
            ack(117),
            &dss(Some(idsn_c + 17), Some((idsn_s + 1, 1, 1000))),
            &m0,
        ),
    );
    push(
        31 * MS,
        tcp(
            C1,
            S,
            1000,
            80,
            117,
            ack(1501),
            &dss(Some(idsn_s + 2001), None),
            &[],
        ),
    );
    // reinjection of message 1 on subflow 1
    push(
        40 * MS,
        tcp(
            S,
            C1,
            80,
            1000,
            1501,
            ack(117),
            &dss(Some(idsn_c + 17), Some((idsn_s + 1001, 1001, 1000))),
            &m1,
        ),
    );
    r
}

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;
#[test]
fn mptcp_connection_counts_ofo_delay_messages_and_reinjection() {
    let buf = pcap(LINKTYPE_RAW, &mptcp_capture());
    let fa = analyze_bytes("syn.pcap", &buf, &Options::default()).unwrap();
    assert_eq!(fa.frames, 11);
    assert_eq!(fa.analysed, 11);
    assert_eq!(
        fa.flows.len(),
        1,
        "the join belongs to the MP_CAPABLE connection"
    );
    let f = &fa.flows[0];
    assert_eq!(f.protocol, "mptcp");
    assert_eq!(f.paths.len(), 2);
    // server bytes per subflow: 1000 + 1000 reinjected on 1, 1000 on 2
    assert_eq!(f.paths[0].dir[1].bytes, 2000);
    assert_eq!(f.paths[1].dir[1].bytes, 1000);
    assert_eq!(f.paths[0].dir[1].bytes_reinjected, 1000);
    assert_eq!(f.paths[0].dir[1].bytes_retransmitted, 0);
    assert_eq!(f.paths[0].dir[0].bytes, 16);
    assert_eq!(f.hello, Some((KIND_MESSAGES, 0, 0)));
    // message 1 waited 20 ms for message 0 at connection level
    let d = &f.ofo_delays;
    assert_eq!((d.len(), d.positive(), d.max()), (3, 1, 20 * MS));
    assert_eq!(f.hol_ns, 20 * MS);
    // both complete at 30 ms: delays 25 and 24 ms (simulated clock)
    let got: Vec<_> = f
        .msgs
        .iter()
        .map(|m| (m.id, m.gen_ns, m.delivered))
        .collect();
    assert_eq!(
        got,
        vec![(0, 5 * MS, 30 * MS as i128), (1, 6 * MS, 30 * MS as i128)]
    );
    // one RTT sample on subflow 1 (seq/ack matching): 30 ms -> 31 ms
    assert_eq!(
        f.paths[0].dir[1].rtt,
        vec![(31 * MS as i128, MS as i128, "seq")]
    );
    let out = to_run_output(0, &fa, &Options::default());
    // index round(0.5 (n-1)) of [24, 25], as the simulator takes it
    assert_eq!(out.summary["delay_ms_median"], 25.0);
    assert_eq!(out.summary["hol_blocking_ms"], 20.0);
    let m = out.table("messages").unwrap();
    assert_eq!(m.num_rows(), 2);
    assert_eq!(m.get(0, "delay_ms").unwrap().as_f64(), Some(25.0));
    let p = out.table("paths").unwrap();
    assert_eq!(p.num_rows(), 4);
    assert_eq!(p.get(2, "bytes_reinjected").unwrap().as_f64(), Some(1000.0));
    // the same packets in pcapng give the same analysis
    let ng = pcapng(101, &mptcp_capture());
    let fb = analyze_bytes("syn.pcapng", &ng, &Options::default()).unwrap();
    assert_eq!(fb.flows[0].msgs.len(), 2);
    assert_eq!(fb.flows[0].ofo_delays.len(), 3);
}

#[test]
fn empty_and_garbage_files_are_errors_naming_the_file() {
    let e = analyze_bytes("empty.pcap", &[], &Options::default()).unwrap_err();
    assert!(e.contains("empty.pcap") && e.contains("empty"), "{e}");
    let e = analyze_bytes(
        "junk.pcap",
        b"this is not a capture at all, just text",
        &Options::default(),
    )
    .unwrap_err();
    assert!(e.contains("junk.pcap") && e.contains("not a pcap"), "{e}");
}

#[test]
fn truncated_file_keeps_the_records_before_the_cut() {
    let buf = pcap(LINKTYPE_RAW, &mptcp_capture());
    for cut in [buf.len() - 1, buf.len() - 30, 24 + 16 + 3] {
        let fa = analyze_bytes("cut.pcap", &buf[..cut], &Options::default()).unwrap();
        assert!(
            fa.damaged.as_deref().unwrap().contains("truncated"),
            "{:?}",
            fa.damaged
        );
        assert!(fa.frames < 11);
    }
    let ng = pcapng(101, &mptcp_capture());
    let fa = analyze_bytes("cut.pcapng", &ng[..ng.len() - 7], &Options::default()).unwrap();
    assert!(fa.damaged.is_some());
    assert_eq!(fa.frames, 10);
    // a header cut short is not a capture
    assert!(analyze_bytes("h.pcap", &buf[..10], &Options::default()).is_err());
}

#[test]
fn gzip_capture_reads_as_the_capture_and_a_damaged_one_is_refused() {
    let dir = scratch::Scratch::new("gz");
    let buf = pcap(LINKTYPE_RAW, &mptcp_capture());
    let gz = crate::gz::compress(&buf);
    assert_eq!(&gz[..2], &[0x1f, 0x8b]);
    assert_eq!(gz, crate::gz::compress(&buf), "deterministic bytes");
    let (plain, packed) = (dir.join("run0.pcap"), dir.join("run0.pcap.gz"));
    std::fs::write(&plain, &buf).unwrap();
    std::fs::write(&packed, &gz).unwrap();
    assert_eq!(crate::gz::read_file(&packed).unwrap(), buf);
    let (a, b) = (
        crate::analyze_file(&plain, &Options::default()).unwrap(),
        crate::analyze_file(&packed, &Options::default()).unwrap(),
    );
    assert_eq!((a.frames, a.analysed), (b.frames, b.analysed));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    // cut short, or one byte of the compressed stream changed: refused with
    // the file's name, not read as a shorter capture
    let mut flipped = gz.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x55;
    for (name, bytes) in [
        ("cut.pcap.gz", &gz[..gz.len() - 9]),
        ("flip.pcap.gz", &flipped[..]),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let e = crate::analyze_file(&p, &Options::default()).unwrap_err();
        assert!(e.contains(name) && e.contains("damaged gzip file"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_link_type_is_a_counted_skip() {
    let recs = mptcp_capture();
    let buf = pcap(147, &recs);
    let fa = analyze_bytes("user0.pcap", &buf, &Options::default()).unwrap();
    assert_eq!(fa.analysed, 0);
    assert_eq!(fa.skipped.get("unsupported link type 147"), Some(&11));
}

#[test]
fn snap_length_cut_inside_options_is_skipped_and_cut_payload_keeps_its_length() {
    let mut recs = mptcp_capture();
    // record 3 (third ACK with MP_CAPABLE, 20 + 32 octets of TCP header): cut in its options
    let orig = recs[2].1.len() as u32;
    recs[2].1.truncate(20 + 20 + 7);
    recs[2].2 = orig;
    // record 8 (message 0): cut inside the payload
    let orig = recs[8].1.len() as u32;
    recs[8].1.truncate(100);
    recs[8].2 = orig;
    let fa = analyze_bytes("snap.pcap", &pcap(LINKTYPE_RAW, &recs), &Options::default()).unwrap();
    assert_eq!(fa.skipped.get("cut inside TCP header or options"), Some(&1));
    let f = &fa.flows[0];
    // the wire length counts, the framing after the cut is not guessed
    assert_eq!(f.paths[0].dir[1].bytes, 2000);
    assert!(f.msgs.is_empty());
}

#[test]
fn unrelated_traffic_is_counted_not_fatal() {
    // Ethernet: an ARP request, an ICMP echo, a DNS query over UDP
    let eth = |ty: u16, body: &[u8]| {
        let mut v = vec![0xff; 6];
        v.extend([2, 0, 0, 0, 0, 1]);
        v.extend(ty.to_be_bytes());
        v.extend(body);
        v
    };
    let mut arp = vec![0, 1, 8, 0, 6, 4, 0, 1];
    arp.extend([0u8; 20]);
    let mut icmp = Vec::new();
    etherparse::PacketBuilder::ipv4(C1, S, 64)
        .icmpv4_echo_request(1, 1)
        .write(&mut icmp, b"ping")
        .unwrap();
    let mut dns = Vec::new();
    etherparse::PacketBuilder::ipv4(C1, [8, 8, 8, 8], 64)
        .udp(5353, 53)
        .write(&mut dns, &[0u8; 30])
        .unwrap();
    let recs: Vec<_> = [
        eth(0x0806, &arp),
        eth(0x0800, &icmp),
        eth(0x0800, &dns),
        vec![1, 2, 3],
    ]
    .into_iter()
    .enumerate()
    .map(|(i, p)| {
        let n = p.len() as u32;
        (i as u64 * MS, p, n)
    })
    .collect();
    let fa = analyze_bytes("lan.pcap", &pcap(1, &recs), &Options::default()).unwrap();
    assert_eq!(fa.analysed, 1);
    assert_eq!(fa.flows.len(), 1);
    assert_eq!(fa.flows[0].protocol, "udp");
    assert_eq!(fa.skipped.values().sum::<u64>(), 3, "{:?}", fa.skipped);
    assert_eq!(fa.skipped.get("other IP protocol"), Some(&1));
}

#[test]
fn linux_cooked_and_loopback_headers() {
    let p = tcp(C1, S, 1, 2, 3, Flags::default(), &[], b"abc");
    let n = p.len() as u32;
    let mut sll = vec![0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0];
    sll.extend(&p);
    let mut sll2 = vec![8, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0];
    sll2.extend(&p);
    let mut null = 2u32.to_le_bytes().to_vec();
    null.extend(&p);
    for (lt, d) in [(113, sll), (276, sll2), (0, null)] {
        let fa = analyze_bytes(
            "x.pcap",
            &pcap(lt, &[(0, d.clone(), n + (d.len() - p.len()) as u32)]),
            &Options::default(),
        )
        .unwrap();
        assert_eq!(fa.analysed, 1, "linktype {lt}: {:?}", fa.skipped);
        assert_eq!(fa.flows[0].paths[0].dir[0].bytes, 3);
    }
}

#[test]
fn garbage_frames_never_panic() {
    // pseudo-random frames on every supported link type
    let mut x = 0x9e3779b97f4a7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for lt in [0, 1, 101, 108, 113, 228, 229, 276] {
        let recs: Vec<_> = (0..300)
            .map(|i| {
                let len = (next() % 120) as usize;
                let mut d: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                if i % 2 == 0 && len > 20 {
                    // mostly valid IPv4/TCP header start
                    d[..20].copy_from_slice(&tcp(C1, S, 1, 2, 3, Flags::default(), &[], &[])[..20]);
                }
                let n = d.len() as u32 + (next() % 3) as u32;
                (i * 1000, d, n)
            })
            .collect();
        let _ = analyze_bytes("rand.pcap", &pcap(lt, &recs), &Options::default());
    }
}

/// Writes the synthetic captures as fuzz seeds when `MPTLAB_FUZZ_SEEDS`
/// names a directory (fuzz/corpus/capture_reader was made so); otherwise
/// checks that they decode whole.
#[test]
fn synthetic_captures_as_fuzz_seeds() {
    let pc = pcap(LINKTYPE_RAW, &mptcp_capture());
    let ng = pcapng(101, &mptcp_capture());
    for b in [&pc, &ng] {
        let fa = analyze_bytes("seed", b, &Options::default()).unwrap();
        assert!(fa.damaged.is_none() && fa.skipped.is_empty());
    }
    if let Some(d) = std::env::var_os("MPTLAB_FUZZ_SEEDS") {
        let d = std::path::PathBuf::from(d);
        std::fs::write(d.join("synthetic-mptcp-two-subflows.pcap"), &pc).unwrap();
        std::fs::write(d.join("synthetic-mptcp-two-subflows.pcapng"), &ng).unwrap();
    }
}

/// Inputs the fuzz targets found crashing (docs/fuzzing.md), fixed.
#[test]
fn fuzz_regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    for e in std::fs::read_dir(dir.join("capture_reader")).unwrap() {
        let b = std::fs::read(e.unwrap().path()).unwrap();
        if let Ok(fa) = analyze_bytes("r", &b, &Options::default()) {
            to_run_output(0, &fa, &Options::default());
        }
    }
    for e in std::fs::read_dir(dir.join("mptcp_option")).unwrap() {
        let b = std::fs::read(e.unwrap().path()).unwrap();
        let _ = crate::mptcp::parse_tcp_options(&b);
        let _ = crate::mptcp::parse_mptcp(&b);
    }
    // the option one: a 5-octet ADD_ADDR (its length minus the HMAC underflowed)
    assert!(crate::mptcp::parse_mptcp(&[30, 5, 0x30, 1, 2]).is_err());
}

/// CI's fuzz smoke (session 11): a pcapng block giving its length as 6 made
/// pcap-parser 0.17 subtract 12 from it unchecked (a panic with overflow
/// checks, a wrapped length without). The reader now stops before such a
/// block and says which one, in either byte order.
#[test]
fn a_pcapng_block_shorter_than_its_header_is_named_not_parsed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let b =
        std::fs::read(dir.join("capture_reader/crash-cbe66203e7f69f1eac29dc498e06ec054dc98b9c"))
            .unwrap();
    let c = crate::capture::read(&b).unwrap();
    assert_eq!(
        c.damaged.as_deref(),
        Some("pcapng block at byte 28 gives its length as 6, below the 12-byte minimum")
    );
    // the same file big-endian: section header magic and lengths swapped
    let mut be = b.clone();
    for w in [4usize, 8, 24, 32] {
        be[w..w + 4].reverse();
    }
    let c = crate::capture::read(&be).unwrap();
    assert!(c
        .damaged
        .unwrap()
        .contains("at byte 28 gives its length as 6"));
    // a well-formed capture is not cut
    let ng = pcapng(101, &mptcp_capture());
    let c = crate::capture::read(&ng).unwrap();
    assert!(c.damaged.is_none() && !c.frames.is_empty());
}

/// A tcpdump capture of an IPv6 TCP connection on Ethernet (link type 1,
/// microsecond pcap): SYN, SYN/ACK, ACK, 1000 bytes from the server sent
/// twice (a retransmission), the client's ACK.
#[test]
fn ipv6_tcpdump_capture_over_ethernet() {
    use etherparse::PacketBuilder;
    let c: [u8; 16] = "2001:db8:1::10"
        .parse::<std::net::Ipv6Addr>()
        .unwrap()
        .octets();
    let s: [u8; 16] = "2001:db8:2::20"
        .parse::<std::net::Ipv6Addr>()
        .unwrap()
        .octets();
    let eth = |from_client: bool| {
        let (a, b) = if from_client { (c, s) } else { (s, c) };
        PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv6(a, b, 64)
    };
    let frame = |b: etherparse::PacketBuilderStep<etherparse::TcpHeader>, pl: &[u8]| {
        let mut v = Vec::new();
        b.write(&mut v, pl).unwrap();
        v
    };
    let data = vec![0u8; 1000];
    let pkts = [
        frame(eth(true).tcp(40000, 443, 100, 65535).syn(), &[]),
        frame(eth(false).tcp(443, 40000, 500, 65535).syn().ack(101), &[]),
        frame(eth(true).tcp(40000, 443, 101, 65535).ack(501), &[]),
        frame(eth(false).tcp(443, 40000, 501, 65535).ack(101), &data),
        frame(eth(false).tcp(443, 40000, 501, 65535).ack(101), &data),
        frame(eth(true).tcp(40000, 443, 101, 65535).ack(1501), &[]),
    ];
    let recs: Vec<(u64, Vec<u8>, u32)> = pkts
        .iter()
        .enumerate()
        .map(|(i, p)| (i as u64 * 10 * MS, p.clone(), p.len() as u32))
        .collect();
    let fa = analyze_bytes("v6.pcap", &pcap(1, &recs), &Options::default()).unwrap();
    assert_eq!(fa.analysed, 6, "{:?}", fa.skipped);
    assert_eq!(fa.flows.len(), 1);
    let f = &fa.flows[0];
    assert_eq!(f.protocol, "tcp");
    assert_eq!(f.paths[0].client_addr, std::net::IpAddr::from(c));
    assert_eq!(f.paths[0].server_addr, std::net::IpAddr::from(s));
    let srv = &f.paths[0].dir[1];
    assert_eq!((srv.bytes, srv.bytes_retransmitted), (2000, 1000));
}
