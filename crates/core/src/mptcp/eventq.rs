//! The connection's application events waiting for `poll_event`, first in,
//! first out: what a `VecDeque<AppEvent>` did, with a push the compiler
//! inlines. With the segment path inlined into `handle_packet`
//! (`connection/segment.rs`), `VecDeque::push_back` of the `Delivered`
//! event that nearly every in-order data segment raises stayed an
//! out-of-line call (`push_back_mut`, 27 instructions a call in the htsim
//! scenario). The same ring buffer as `OutQueue`'s (a power-of-two number
//! of slots, a head and a length, over `Option` slots), with only the
//! growth out of line.

use crate::endpoint::AppEvent;

#[derive(Debug, Default)]
pub(super) struct EventQueue {
    /// The ring: its length is 0 or a power of two; the queued events are
    /// the `len` slots from `head` on (wrapping), all `Some`; the others
    /// are `None`. A boxed slice, not a `Vec` (its length is its
    /// capacity), and 32-bit positions: the queue takes 24 bytes, 8 fewer
    /// than `VecDeque` took, which hold `MptcpConnection::announcing`, so
    /// that the connection's hand-made layout (`layout_tests`) keeps `send`
    /// on a cache line (docs/performance.md "Session 33").
    buf: Box<[Option<AppEvent>]>,
    head: u32,
    len: u32,
}

impl EventQueue {
    #[inline(always)]
    pub fn push_back(&mut self, e: AppEvent) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) as usize & (self.buf.len() - 1);
        self.buf[i] = Some(e);
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<AppEvent> {
        if self.len == 0 {
            return None;
        }
        let e = self.buf[self.head as usize].take();
        self.head = (self.head + 1) & (self.buf.len() as u32 - 1);
        self.len -= 1;
        e
    }

    #[cfg(any(test, debug_assertions, feature = "invariants"))]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Twice the slots (at least 8), the queued events moved to the front.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let n = (2 * self.buf.len()).max(8);
        assert!(n <= 1 << 31, "eventq: {n} slots");
        let mut v: Vec<Option<AppEvent>> = Vec::with_capacity(n);
        let mask = self.buf.len().wrapping_sub(1);
        for k in 0..self.len as usize {
            v.push(self.buf[(self.head as usize + k) & mask].take());
        }
        v.resize_with(n, || None);
        self.buf = v.into_boxed_slice();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events leave in the order they came, across growth and wrap-around.
    #[test]
    fn first_in_first_out_across_growth_and_wrap() {
        let mut q = EventQueue::default();
        let mut model = std::collections::VecDeque::new();
        let mut total = 0;
        for round in 0..200u64 {
            for _ in 0..(round % 11) {
                total += 1;
                let e = AppEvent::Delivered { total };
                q.push_back(e.clone());
                model.push_back(e);
            }
            for _ in 0..(round % 7) {
                assert_eq!(q.pop_front(), model.pop_front());
            }
            assert_eq!(q.len(), model.len());
        }
        assert_eq!(std::mem::size_of::<EventQueue>(), 24);
        while let Some(e) = model.pop_front() {
            assert_eq!(q.pop_front(), Some(e));
        }
        assert_eq!(q.pop_front(), None);
    }
}
