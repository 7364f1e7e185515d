//! UDP datagrams on the wire (RFC 768), checksummed, with the agent's
//! header in every datagram of a message (docs/emulation.md).

use etherparse::{IpNumber, UdpHeader};
use mptlab_core::packet::{IpVersion, Packet, UdpDatagram};

use crate::ip::Ip;
use crate::messages::Messages;

pub fn encode(
    ip: IpVersion,
    msgs: &Messages,
    from_client: bool,
    p: &Packet,
    d: &UdpDatagram,
    out: &mut Vec<u8>,
) {
    let ip = Ip::new(
        ip,
        p.src,
        p.dst,
        IpNumber::UDP,
        UdpHeader::LEN + d.len as usize,
    );
    let at = ip.header_len() + UdpHeader::LEN;
    out.clear();
    out.resize(at + d.len as usize, 0);
    msgs.frame_datagram(p.flow, from_client, d.seq, &mut out[at..]);
    let uh = ip.udp(d.src_port, d.dst_port, &out[at..]);
    let mut w = &mut out[..at];
    ip.write(&mut w).expect("buffer sized");
    uh.write(&mut w).expect("buffer sized");
}
