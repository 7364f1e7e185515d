//! From a captured frame to the transport segment: link layer by link type
//! (tcpdump.org/linktypes.html), IPv4/IPv6 and TCP/UDP headers with
//! `etherparse` (its lax parser, so a snap-length-cut payload still yields
//! its headers), TCP options and SCTP by this crate's decoders. Anything
//! else is a [`Skip`] with a reason, counted by the caller.

use std::net::IpAddr;

use etherparse::{EtherType, IpNumber, LaxNetSlice, LaxSlicedPacket, TcpSlice};

use crate::capture::Frame;
use crate::mptcp::{parse_tcp_options, TcpOpts};
use crate::sctp::{parse_sctp, SctpPacket};

/// LINKTYPE_* values handled (tcpdump.org/linktypes.html).
pub const LINKTYPE_NULL: i32 = 0;
pub const LINKTYPE_ETHERNET: i32 = 1;
pub const LINKTYPE_RAW: i32 = 101;
pub const LINKTYPE_LOOP: i32 = 108;
pub const LINKTYPE_LINUX_SLL: i32 = 113;
pub const LINKTYPE_IPV4: i32 = 228;
pub const LINKTYPE_IPV6: i32 = 229;
pub const LINKTYPE_LINUX_SLL2: i32 = 276;
/// DLT_RAW as some platforms write it into pcap headers (12 and 14).
pub const DLT_RAW_ALT: [i32; 2] = [12, 14];

#[derive(Clone, Debug)]
pub struct TcpSeg<'a> {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub syn: bool,
    pub ack_flag: bool,
    pub fin: bool,
    pub rst: bool,
    pub opts: TcpOpts,
    /// The captured payload (shorter than `len` when the snap length cut it).
    pub payload: &'a [u8],
    /// Payload length on the wire.
    pub len: u32,
}

#[derive(Clone, Debug)]
pub enum L4<'a> {
    Tcp(TcpSeg<'a>),
    Udp {
        sport: u16,
        dport: u16,
        payload: &'a [u8],
        len: u32,
    },
    Sctp(SctpPacket<'a>),
}

#[derive(Clone, Debug)]
pub struct Pkt<'a> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub l4: L4<'a>,
}

/// Why a frame was not analysed (counted per reason, printed).
pub type Skip = &'static str;

/// Decode one frame down to its transport segment.
pub fn decode(f: &Frame) -> Result<Pkt<'_>, Skip> {
    let d = &f.data[..];
    let lax = match f.linktype {
        LINKTYPE_ETHERNET => {
            LaxSlicedPacket::from_ethernet(d).map_err(|_| "cut inside link header")?
        }
        LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6 => from_ip(d)?,
        l if DLT_RAW_ALT.contains(&l) => from_ip(d)?,
        LINKTYPE_NULL | LINKTYPE_LOOP => {
            // 4-byte address family, host byte order for NULL, network for
            // LOOP; AF_INET is 2 everywhere, AF_INET6 is 10/24/28/30.
            let fam = d.get(..4).ok_or("cut inside link header")?;
            let fam = if f.linktype == LINKTYPE_LOOP {
                u32::from_be_bytes(fam.try_into().unwrap())
            } else {
                u32::from_le_bytes(fam.try_into().unwrap())
                    .min(u32::from_be_bytes(fam.try_into().unwrap()))
            };
            match fam {
                2 | 10 | 24 | 28 | 30 => from_ip(&d[4..])?,
                _ => return Err("not IP"),
            }
        }
        LINKTYPE_LINUX_SLL => {
            // 16-byte header, protocol type in the last two octets.
            let h = d.get(..16).ok_or("cut inside link header")?;
            LaxSlicedPacket::from_ether_type(
                EtherType(u16::from_be_bytes([h[14], h[15]])),
                &d[16..],
            )
        }
        LINKTYPE_LINUX_SLL2 => {
            // 20-byte header, protocol type in the first two octets.
            let h = d.get(..20).ok_or("cut inside link header")?;
            LaxSlicedPacket::from_ether_type(EtherType(u16::from_be_bytes([h[0], h[1]])), &d[20..])
        }
        _ => return Err("unsupported link type"),
    };
    let net = lax.net.as_ref().ok_or(if lax.stop_err.is_some() {
        "cut inside IP header"
    } else {
        "not IP"
    })?;
    let (src, dst): (IpAddr, IpAddr) = match net {
        LaxNetSlice::Ipv4(v4) => (
            v4.header().source_addr().into(),
            v4.header().destination_addr().into(),
        ),
        LaxNetSlice::Ipv6(v6) => (
            v6.header().source_addr().into(),
            v6.header().destination_addr().into(),
        ),
        LaxNetSlice::Arp(_) => return Err("not IP"),
    };
    let pl = net.ip_payload_ref().ok_or("not IP")?;
    if pl.fragmented {
        return Err("IP fragment");
    }
    // Bytes the snap length cut off the end (the IP header says how long
    // the packet was; for a cut frame the capture's original length does).
    let cut = if pl.incomplete {
        (f.orig_len as usize).saturating_sub(f.data.len())
    } else {
        0
    };
    let p = pl.payload;
    let l4 = match pl.ip_number {
        IpNumber::TCP => {
            let t = TcpSlice::from_slice(p).map_err(|_| "cut inside TCP header or options")?;
            let opts = parse_tcp_options(t.options());
            let payload = t.payload();
            L4::Tcp(TcpSeg {
                sport: t.source_port(),
                dport: t.destination_port(),
                seq: t.sequence_number(),
                ack: t.acknowledgment_number(),
                syn: t.syn(),
                ack_flag: t.ack(),
                fin: t.fin(),
                rst: t.rst(),
                opts,
                payload,
                len: (payload.len() + cut) as u32,
            })
        }
        IpNumber::UDP => {
            let h = p.get(..8).ok_or("cut inside UDP header")?;
            L4::Udp {
                sport: u16::from_be_bytes([h[0], h[1]]),
                dport: u16::from_be_bytes([h[2], h[3]]),
                payload: &p[8..],
                len: (p.len() - 8 + cut) as u32,
            }
        }
        IpNumber::SCTP => L4::Sctp(parse_sctp(p, cut)?),
        _ => return Err("other IP protocol"),
    };
    Ok(Pkt { src, dst, l4 })
}

fn from_ip(d: &[u8]) -> Result<LaxSlicedPacket<'_>, Skip> {
    LaxSlicedPacket::from_ip(d).map_err(|_| "cut inside IP header or not IP")
}
