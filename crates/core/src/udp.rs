//! UDP endpoint: no state beyond counters. Each write becomes one datagram
//! (the caller splits messages larger than the MTU), stamped with its flow
//! sequence number and send time so the receiver can measure loss and
//! one-way delay.

use std::collections::VecDeque;

use crate::endpoint::{AppEvent, Counters, Endpoint, PathReport, PathState};
use crate::packet::{Addr, FlowId, IpVersion, Packet, Payload, UdpDatagram, UDP_HEADER};
use crate::time::Nanos;

/// Largest UDP payload in one 1500-byte IPv4 packet.
pub const MAX_UDP_PAYLOAD: u32 = max_udp_payload(IpVersion::V4);

/// Largest UDP payload in one 1500-byte packet of IP version `ip` (1472
/// over IPv4, 1452 over IPv6: RFC 768 header after RFC 791 / RFC 8200's).
pub const fn max_udp_payload(ip: IpVersion) -> u32 {
    1500 - ip.header_len() - UDP_HEADER
}

#[derive(Debug)]
pub struct UdpEndpoint {
    local: Addr,
    remote: Addr,
    local_port: u16,
    remote_port: u16,
    flow: FlowId,
    next_seq: u64,
    /// Datagrams written and not yet handed to the network, oldest first:
    /// only their 24 bytes, the 128-byte `Packet` is built when it leaves
    /// (`poll_transmit`), rather than copied into and out of the queue.
    out: VecDeque<UdpDatagram>,
    events: VecDeque<AppEvent>,
    counters: Counters,
    ip: IpVersion,
}

impl UdpEndpoint {
    pub fn new(flow: FlowId, local: Addr, local_port: u16, remote: Addr, remote_port: u16) -> Self {
        UdpEndpoint {
            local,
            remote,
            local_port,
            remote_port,
            flow,
            next_seq: 0,
            out: VecDeque::new(),
            events: VecDeque::new(),
            counters: Counters::default(),
            ip: IpVersion::V4,
        }
    }

    /// Send over IP version `ip` (IPv4 unless set).
    pub fn with_ip(mut self, ip: IpVersion) -> Self {
        self.ip = ip;
        self
    }
}

impl Endpoint for UdpEndpoint {
    /// A datagram owns nothing on the heap.
    fn may_send_owning(&self) -> bool {
        false
    }

    fn connect(&mut self, _now: Nanos) {
        self.events.push_back(AppEvent::Connected);
    }

    fn handle_packet(&mut self, _now: Nanos, pkt: &Packet) {
        if let Payload::Udp(d) = &pkt.payload {
            self.counters.packets_received += 1;
            self.counters.data_packets_received += 1;
            self.counters.bytes_received += d.len as u64;
            self.events.push_back(AppEvent::Datagram {
                seq: d.seq,
                len: d.len,
                sent_at: d.sent_at,
            });
        }
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Packet> {
        let mut p = Packet::VACANT;
        self.poll_transmit_into(now, &mut p).then_some(p)
    }

    fn poll_transmit_into(&mut self, _now: Nanos, slot: &mut Packet) -> bool {
        let Some(d) = self.out.pop_front() else {
            return false;
        };
        slot.overwrite_plain_with(|| Packet {
            src: self.local,
            dst: self.remote,
            flow: self.flow,
            size: self.ip.header_len() + UDP_HEADER + d.len,
            payload: Payload::Udp(d),
        });
        true
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        None
    }

    fn handle_timeout(&mut self, _now: Nanos) {}

    fn poll_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    /// (No timer: `poll_timeout`.)
    fn poll_event_or_timeout(&mut self) -> Result<AppEvent, Option<Nanos>> {
        self.events.pop_front().ok_or(None)
    }

    /// One datagram of `len` bytes (capped at `max_udp_payload`); always accepted.
    fn write(&mut self, now: Nanos, len: u64) -> u64 {
        let len = (len as u32).min(max_udp_payload(self.ip));
        let d = UdpDatagram {
            src_port: self.local_port,
            dst_port: self.remote_port,
            len,
            seq: self.next_seq,
            sent_at: now,
        };
        self.next_seq += 1;
        self.counters.packets_sent += 1;
        self.counters.data_packets_sent += 1;
        self.counters.bytes_sent += len as u64;
        self.out.push_back(d);
        len as u64
    }

    fn send_space(&self) -> u64 {
        u64::MAX
    }

    fn close(&mut self, _now: Nanos) {}

    fn paths(&self) -> Vec<PathReport> {
        vec![PathReport {
            local: self.local,
            remote: self.remote,
            counters: self.counters.clone(),
        }]
    }

    fn path_states(&self) -> Vec<PathState> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_datagrams_carry_20_bytes_less() {
        for (ip, most) in [(IpVersion::V4, 1472), (IpVersion::V6, 1452)] {
            let mut ep = UdpEndpoint::new(0, 1, 5000, 2, 80).with_ip(ip);
            assert_eq!(ep.write(0, 4000), most);
            let p = ep.poll_transmit(0).unwrap();
            assert_eq!(p.size, 1500, "{ip:?}");
            assert_eq!(max_udp_payload(ip), most as u32);
        }
    }
}
