//! UDP datagrams on the wire (RFC 768), checksummed, with the agent's
//! header in every datagram of a message (docs/emulation.md).

use etherparse::{IpNumber, UdpHeader};
use mptlab_core::packet::{Packet, UdpDatagram};

use crate::messages::Messages;
use crate::tcp::ipv4;

pub fn encode(msgs: &Messages, from_client: bool, p: &Packet, d: &UdpDatagram, out: &mut Vec<u8>) {
    let ip = ipv4(p.src, p.dst, IpNumber::UDP, UdpHeader::LEN + d.len as usize);
    let at = ip.header_len() + UdpHeader::LEN;
    out.clear();
    out.resize(at + d.len as usize, 0);
    msgs.frame_datagram(p.flow, from_client, d.seq, &mut out[at..]);
    let uh = UdpHeader::with_ipv4_checksum(d.src_port, d.dst_port, &ip, &out[at..])
        .expect("datagram fits");
    let mut w = &mut out[..at];
    ip.write(&mut w).expect("buffer sized");
    uh.write(&mut w).expect("buffer sized");
}
