//! The connection's built packets waiting for `poll_transmit`, first in,
//! first out: what a `VecDeque<Packet>` did, with a push the compiler
//! inlines. `VecDeque::push_back` of the 128-byte packet stayed an
//! out-of-line call (`push_back_mut`, 39 instructions per data segment in
//! the htsim scenario: docs/performance.md, "Session 20 pass"), which
//! copied the packet a second time. The ring (`ring.rs`) over `Option`
//! slots (`None` where no packet is queued; the size of a packet, as
//! `Packet`'s payload enum has a niche).

use super::ring::Ring;
use crate::packet::Packet;

const _: () = assert!(std::mem::size_of::<Option<Packet>>() == std::mem::size_of::<Packet>());

/// The connection's queue of built packets (`ring.rs`): over a `Vec`, 32
/// bytes (the connection's layout counts them).
pub(super) type OutQueue = Ring<Packet, Vec<Option<Packet>>>;

impl OutQueue {
    /// `pop_front` written over `*slot` (`Endpoint::poll_transmit_into`):
    /// false, and `*slot` untouched, when the queue is empty.
    #[inline(always)]
    pub fn pop_front_into(&mut self, slot: &mut Packet) -> bool {
        if self.is_empty() {
            return false;
        }
        // (taken inside the write: taken before it, the packet went through
        // a stack copy; `*slot` owns nothing: `Endpoint::poll_transmit_into`)
        slot.overwrite_plain_with(|| self.pop_front().expect("not empty"));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Addr, FlowId, Payload, UdpDatagram};
    use std::collections::VecDeque;

    fn pkt(n: u32) -> Packet {
        Packet {
            src: Addr::default(),
            dst: Addr::default(),
            flow: FlowId::default(),
            size: n,
            payload: Payload::Udp(UdpDatagram {
                src_port: 1,
                dst_port: 2,
                len: n,
                seq: n as u64,
                sent_at: 0,
            }),
        }
    }

    /// Any interleaving of pushes, pops and `back_mut` edits gives what a
    /// `VecDeque` gives, and a queue never emptied stays small.
    #[test]
    fn same_order_as_a_vecdeque() {
        let (mut q, mut r) = (OutQueue::default(), VecDeque::new());
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 5 {
                0 | 1 => {
                    q.push_back(pkt(n));
                    r.push_back(pkt(n));
                }
                2 => {
                    if let (Some(a), Some(b)) = (q.back_mut(), r.back_mut()) {
                        a.size += 7;
                        b.size += 7;
                    }
                }
                _ => assert_eq!(q.pop_front(), r.pop_front()),
            }
            assert_eq!(q.len(), r.len());
        }
        // a queue that keeps one packet at all times
        let mut q = OutQueue::default();
        q.push_back(pkt(0));
        for n in 1..10_000 {
            q.push_back(pkt(n));
            assert_eq!(q.pop_front().map(|p| p.size), Some(n - 1));
        }
        assert_eq!(q.slots(), 8);
        assert_eq!(std::mem::size_of::<OutQueue>(), 32);
    }
}
