//! The IP header of a captured packet: IPv4 (RFC 791) or IPv6 (RFC 8200),
//! as the scenario's `transport.ip_version` asks.
//!
//! The simulator's addresses are the scenario's IPv4 address plan; over
//! IPv6 a capture writes each one inside the documentation prefix
//! 2001:db8::/96 (RFC 3849), the IPv4 address in the low 32 bits
//! (10.1.0.2 becomes 2001:db8::a01:2, written 2001:db8::10.1.0.2 in the
//! RFC 4291 section 2.2 mixed notation): deterministic, one to one, and
//! `mptlab analyze` maps it back (`v4_of`).

use etherparse::{IpNumber, Ipv4Header, Ipv6FlowLabel, Ipv6Header, TcpHeader, UdpHeader};
use mptlab_core::packet::{Addr, IpVersion};

/// The first 12 bytes of every IPv6 address a capture writes.
pub const V6_PREFIX: [u8; 12] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0];

/// The IPv6 address of a scenario address.
pub fn v6(a: Addr) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(&V6_PREFIX);
    b[12..].copy_from_slice(&a.to_be_bytes());
    b
}

/// The scenario address inside an IPv6 address written by [`v6`].
pub fn v4_of(b: [u8; 16]) -> Option<Addr> {
    (b[..12] == V6_PREFIX).then(|| u32::from_be_bytes([b[12], b[13], b[14], b[15]]))
}

/// The address as the family writes it: 4 bytes, or 16 under the prefix.
pub fn addr_bytes(ip: IpVersion, a: Addr) -> Vec<u8> {
    match ip {
        IpVersion::V4 => a.to_be_bytes().to_vec(),
        IpVersion::V6 => v6(a).to_vec(),
    }
}

/// An IP header ready to write.
pub enum Ip {
    V4(Ipv4Header),
    V6(Ipv6Header),
}

impl Ip {
    /// The header of a packet from `src` to `dst` carrying `payload` bytes
    /// of protocol `proto`: IPv4 with TTL 64 and DF (as Linux sends TCP) and
    /// its checksum; IPv6 with hop limit 64 and flow label 0.
    pub fn new(ip: IpVersion, src: Addr, dst: Addr, proto: IpNumber, payload: usize) -> Ip {
        match ip {
            IpVersion::V4 => Ip::V4(ipv4(src, dst, proto, payload)),
            IpVersion::V6 => Ip::V6(Ipv6Header {
                traffic_class: 0,
                flow_label: Ipv6FlowLabel::ZERO,
                payload_length: payload as u16,
                next_header: proto,
                hop_limit: 64,
                source: v6(src),
                destination: v6(dst),
            }),
        }
    }

    pub fn header_len(&self) -> usize {
        match self {
            Ip::V4(h) => h.header_len(),
            Ip::V6(_) => Ipv6Header::LEN,
        }
    }

    pub fn write(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        match self {
            Ip::V4(h) => h.write(w),
            Ip::V6(h) => h.write(w),
        }
    }

    /// TCP checksum over the family's pseudo-header (RFC 9293 section
    /// 3.1; RFC 8200 section 8.1 for IPv6).
    pub fn tcp_checksum(&self, th: &TcpHeader, payload: &[u8]) -> u16 {
        match self {
            Ip::V4(h) => th.calc_checksum_ipv4(h, payload),
            Ip::V6(h) => th.calc_checksum_ipv6(h, payload),
        }
        .expect("segment fits")
    }

    /// A UDP header with its checksum (RFC 768; mandatory over IPv6, RFC
    /// 8200 section 8.1).
    pub fn udp(&self, src_port: u16, dst_port: u16, payload: &[u8]) -> UdpHeader {
        match self {
            Ip::V4(h) => UdpHeader::with_ipv4_checksum(src_port, dst_port, h, payload),
            Ip::V6(h) => UdpHeader::with_ipv6_checksum(src_port, dst_port, h, payload),
        }
        .expect("datagram fits")
    }
}

/// An IPv4 header (TTL 64, DF set as Linux sends TCP) with its checksum.
pub fn ipv4(src: Addr, dst: Addr, proto: IpNumber, payload: usize) -> Ipv4Header {
    let mut ip = Ipv4Header::new(
        payload as u16,
        64,
        proto,
        src.to_be_bytes(),
        dst.to_be_bytes(),
    )
    .expect("payload fits in an IPv4 packet");
    ip.dont_fragment = true;
    ip.header_checksum = ip.calc_header_checksum();
    ip
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_core::packet::addr;

    #[test]
    fn v6_addresses_embed_the_plan_and_map_back() {
        let a = addr(10, 1, 0, 2);
        let b = v6(a);
        assert_eq!(
            std::net::Ipv6Addr::from(b).to_string(),
            "2001:db8::a01:2",
            "documentation prefix, IPv4 address in the low 32 bits"
        );
        assert_eq!(v4_of(b), Some(a));
        let mut other = b;
        other[3] = 0xb9;
        assert_eq!(v4_of(other), None);
    }

    #[test]
    fn header_lengths_are_the_models() {
        for v in [IpVersion::V4, IpVersion::V6] {
            let h = Ip::new(v, 1, 2, IpNumber::TCP, 100);
            assert_eq!(h.header_len() as u32, v.header_len());
            let mut out = Vec::new();
            h.write(&mut out).unwrap();
            assert_eq!(out.len() as u32, v.header_len());
            assert_eq!(out[0] >> 4, v.number());
        }
    }
}
