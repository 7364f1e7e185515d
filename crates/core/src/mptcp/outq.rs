//! The connection's built packets waiting for `poll_transmit`, first in,
//! first out: what a `VecDeque<Packet>` did, with a push the compiler
//! inlines. `VecDeque::push_back` of the 128-byte packet stayed an
//! out-of-line call (`push_back_mut`, 39 instructions per data segment in
//! the htsim scenario: docs/performance.md, "Session 20 pass"), which
//! copied the packet a second time. This is the same ring buffer (a
//! power-of-two number of slots, a head and a length) over `Option` slots
//! (`None` where no packet is queued; the size of a packet, as `Packet`'s
//! payload enum has a niche), with only the growth out of line.

use crate::packet::Packet;

const _: () = assert!(std::mem::size_of::<Option<Packet>>() == std::mem::size_of::<Packet>());

#[derive(Debug, Default)]
pub(super) struct OutQueue {
    /// The ring: its length is 0 or a power of two; the queued packets are
    /// the `len` slots from `head` on (wrapping), all `Some`; the others
    /// are `None`.
    buf: Vec<Option<Packet>>,
    head: usize,
    len: usize,
}

impl OutQueue {
    #[inline(always)]
    pub fn push_back(&mut self, p: Packet) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & (self.buf.len() - 1);
        // (the slot is free: nothing to drop)
        let old = self.buf[i].replace(p);
        debug_assert!(old.is_none());
        std::mem::forget(old);
        self.len += 1;
    }

    /// `push_back` of the packet `make` returns, called once the slot is
    /// known, returning it in its slot so that the caller goes on building
    /// it there (`MptcpConnection::queue_built`). The packet is then written
    /// field by field straight into the slot. `push_back` of a packet built
    /// on the stack first copied it in 16-byte loads, and the first of them
    /// read three fields just stored by narrower stores (`src` 8 bytes,
    /// `flow` and `size` 4 each), which the store buffer cannot forward to
    /// one wider load: the copy waited for the stores to reach the cache, a
    /// fifth of `build_ack`'s timer samples and a seventh of `send_on`'s
    /// (docs/performance.md "Session 25 pass"). A closure, not the packet
    /// itself: a packet argument is evaluated before the (cold) `grow`
    /// call, and LLVM then built it on the stack and copied it again
    /// ("Session 25 pass: the segment built in its slot").
    #[inline(always)]
    pub fn push_back_mut(&mut self, make: impl FnOnce() -> Packet) -> &mut Packet {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & (self.buf.len() - 1);
        self.len += 1;
        // (the slot is free: nothing to drop)
        let old = self.buf[i].replace(make());
        debug_assert!(old.is_none());
        std::mem::forget(old);
        self.buf[i].as_mut().expect("just stored")
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        let p = self.buf[self.head].take();
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        p
    }

    /// `pop_front` written over `*slot` (`Endpoint::poll_transmit_into`):
    /// false, and `*slot` untouched, when the queue is empty.
    #[inline(always)]
    pub fn pop_front_into(&mut self, slot: &mut Packet) -> bool {
        if self.len == 0 {
            return false;
        }
        // (taken inside the write: taken before it, the packet went through
        // a stack copy; `*slot` owns nothing: `Endpoint::poll_transmit_into`)
        slot.overwrite_plain_with(|| self.pop_front().expect("not empty"));
        true
    }

    /// The packet queued last.
    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut Packet> {
        if self.len == 0 {
            return None;
        }
        let i = (self.head + self.len - 1) & (self.buf.len() - 1);
        self.buf[i].as_mut()
    }

    #[cfg(any(test, debug_assertions, feature = "invariants"))]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Twice the slots (at least 8), the queued packets moved to the front.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let n = (2 * self.buf.len()).max(8);
        let mut v: Vec<Option<Packet>> = Vec::with_capacity(n);
        let mask = self.buf.len().wrapping_sub(1);
        for k in 0..self.len {
            v.push(self.buf[(self.head + k) & mask].take());
        }
        v.resize_with(n, || None);
        self.buf = v;
        self.head = 0;
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
        assert_eq!(q.buf.len(), 8);
    }
}
