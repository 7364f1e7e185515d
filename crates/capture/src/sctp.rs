//! SCTP packets on the wire (RFC 9260 section 3): common header with the
//! CRC32c checksum (appendix A), chunks padded to 4 bytes. TSNs are the
//! model's 64-bit counters (first DATA chunk 0) plus an initial TSN per
//! direction drawn from the seed; SSNs are their low 16 bits.

use etherparse::IpNumber;
use mptlab_core::packet::{IpVersion, Packet};
use mptlab_core::sctp::chunk::{Chunk, SackChunk, SctpPacket};
use mptlab_core::FlowId;

use crate::ip::{v6, Ip};
use crate::keys;
use crate::messages::Messages;

/// Initial TSN of the side that is (or is not) the client.
fn initial_tsn(seed: u64, flow: FlowId, client: bool) -> u32 {
    keys::draw(seed, "sctp-tsn", &[flow as u64, client as u64]) as u32
}

/// Outbound streams and maximum inbound streams announced in INIT and
/// INIT-ACK (the model does not negotiate stream counts: 65535 admits
/// whatever stream ids it uses).
const STREAMS: u16 = 65535;

fn u32_of(v: u64) -> u32 {
    v.min(u32::MAX as u64) as u32
}

/// Write the IP packet of an SCTP packet into `out`.
pub fn encode(
    ip: IpVersion,
    msgs: &Messages,
    seed: u64,
    from_client: bool,
    p: &Packet,
    s: &SctpPacket,
    out: &mut Vec<u8>,
) {
    let my_tsn = initial_tsn(seed, p.flow, from_client);
    let peer_tsn = initial_tsn(seed, p.flow, !from_client);
    let mut b: Vec<u8> = Vec::with_capacity(s.wire_len() as usize);
    b.extend_from_slice(&s.src_port.to_be_bytes());
    b.extend_from_slice(&s.dst_port.to_be_bytes());
    b.extend_from_slice(&s.vtag.to_be_bytes());
    b.extend_from_slice(&[0; 4]);
    for c in &s.chunks {
        let start = b.len();
        match c {
            Chunk::Init {
                init_tag,
                a_rwnd,
                addrs,
                nr_sack,
                ip: fam,
            }
            | Chunk::InitAck {
                init_tag,
                a_rwnd,
                addrs,
                nr_sack,
                ip: fam,
                ..
            } => {
                let ty = if matches!(c, Chunk::Init { .. }) {
                    1
                } else {
                    2
                };
                b.extend_from_slice(&[ty, 0, 0, 0]);
                b.extend_from_slice(&init_tag.to_be_bytes());
                b.extend_from_slice(&u32_of(*a_rwnd).to_be_bytes());
                b.extend_from_slice(&STREAMS.to_be_bytes());
                b.extend_from_slice(&STREAMS.to_be_bytes());
                b.extend_from_slice(&my_tsn.to_be_bytes());
                if let Chunk::InitAck { cookie, .. } = c {
                    // State Cookie parameter (type 7): opaque to the peer.
                    b.extend_from_slice(&[0, 7, 0, 36]);
                    b.extend_from_slice(&cookie.to_be_bytes());
                    b.extend_from_slice(&[0; 24]);
                }
                for a in addrs {
                    if *fam == IpVersion::V6 {
                        // IPv6 Address parameter (type 6, section 3.3.2.1).
                        b.extend_from_slice(&[0, 6, 0, 20]);
                        b.extend_from_slice(&v6(*a));
                    } else {
                        // IPv4 Address parameter (type 5, section 3.3.2.1).
                        b.extend_from_slice(&[0, 5, 0, 8]);
                        b.extend_from_slice(&a.to_be_bytes());
                    }
                }
                if *nr_sack {
                    // Supported Extensions (RFC 5061 section 4.2.7) naming
                    // NR-SACK (chunk type 16).
                    b.extend_from_slice(&[0x80, 0x08, 0, 5, 16]);
                }
            }
            Chunk::CookieEcho { cookie } => {
                b.extend_from_slice(&[10, 0, 0, 0]);
                b.extend_from_slice(&cookie.to_be_bytes());
                b.extend_from_slice(&[0; 24]);
            }
            Chunk::CookieAck => b.extend_from_slice(&[11, 0, 0, 0]),
            Chunk::Data(d) => {
                // Flags U, B, E (section 3.3.1).
                let f = (d.unordered as u8) << 2 | (d.begin as u8) << 1 | d.end as u8;
                b.extend_from_slice(&[0, f, 0, 0]);
                b.extend_from_slice(&my_tsn.wrapping_add(d.tsn as u32).to_be_bytes());
                b.extend_from_slice(&d.stream.to_be_bytes());
                b.extend_from_slice(&(d.ssn as u16).to_be_bytes());
                b.extend_from_slice(&0u32.to_be_bytes()); // PPID
                let at = b.len();
                b.resize(at + d.len as usize, 0);
                if d.begin {
                    msgs.frame_stream(p.flow, from_client, d.msg_offset, &mut b[at..]);
                }
            }
            Chunk::Sack(k) => sack(&mut b, k, peer_tsn),
            Chunk::Heartbeat { src, dest, sent_at }
            | Chunk::HeartbeatAck { src, dest, sent_at } => {
                let ty = if matches!(c, Chunk::Heartbeat { .. }) {
                    4
                } else {
                    5
                };
                b.extend_from_slice(&[ty, 0, 0, 0]);
                // Heartbeat Info parameter (type 1): sender-specific.
                b.extend_from_slice(&[0, 1, 0, 20]);
                b.extend_from_slice(&src.to_be_bytes());
                b.extend_from_slice(&dest.to_be_bytes());
                b.extend_from_slice(&sent_at.to_be_bytes());
            }
            Chunk::Shutdown { cum_tsn } => {
                b.extend_from_slice(&[7, 0, 0, 0]);
                b.extend_from_slice(&cum(*cum_tsn, peer_tsn).to_be_bytes());
            }
            Chunk::ShutdownAck => b.extend_from_slice(&[8, 0, 0, 0]),
            Chunk::ShutdownComplete => b.extend_from_slice(&[14, 0, 0, 0]),
            Chunk::Abort => b.extend_from_slice(&[6, 0, 0, 0]),
        }
        let len = (b.len() - start) as u16;
        b[start + 2..start + 4].copy_from_slice(&len.to_be_bytes());
        while b.len() % 4 != 0 {
            b.push(0);
        }
    }
    // CRC32c over the packet with a zero checksum field, stored in the byte
    // order of RFC 9260 appendix A (as Linux `sctp_compute_cksum`).
    let crc = crc32c::crc32c(&b);
    b[8..12].copy_from_slice(&crc.to_le_bytes());
    let ip = Ip::new(ip, p.src, p.dst, IpNumber::SCTP, b.len());
    out.clear();
    let mut w = &mut *out;
    ip.write(&mut w).expect("vec");
    out.extend_from_slice(&b);
}

/// Cumulative TSN ack on the wire: the initial TSN - 1 before any DATA.
fn cum(c: Option<u64>, peer_tsn: u32) -> u32 {
    match c {
        Some(t) => peer_tsn.wrapping_add(t as u32),
        None => peer_tsn.wrapping_sub(1),
    }
}

/// SACK (section 3.3.4) or NR-SACK (draft-natarajan-tsvwg-sctp-nrsack
/// section 4.2): gap blocks as 16-bit offsets from the cumulative TSN ack.
fn sack(b: &mut Vec<u8>, k: &SackChunk, peer_tsn: u32) {
    b.extend_from_slice(&[if k.nr { 16 } else { 3 }, 0, 0, 0]);
    let c = cum(k.cum_tsn, peer_tsn);
    let base = k.cum_tsn.map_or(0, |t| t + 1);
    b.extend_from_slice(&c.to_be_bytes());
    b.extend_from_slice(&u32_of(k.a_rwnd).to_be_bytes());
    b.extend_from_slice(&(k.gaps.len() as u16).to_be_bytes());
    if k.nr {
        b.extend_from_slice(&(k.nr_gaps.len() as u16).to_be_bytes());
    }
    b.extend_from_slice(&(k.dups.len() as u16).to_be_bytes());
    if k.nr {
        b.extend_from_slice(&[0, 0]);
    }
    // offsets relative to the cumulative ack: TSN = cum + offset
    let off = |t: u64| (t + 1 - base) as u16;
    for &(s, e) in k.gaps.iter().chain(k.nr_gaps.iter()) {
        b.extend_from_slice(&off(s).to_be_bytes());
        b.extend_from_slice(&off(e).to_be_bytes());
    }
    for &d in &k.dups {
        b.extend_from_slice(&peer_tsn.wrapping_add(d as u32).to_be_bytes());
    }
}
