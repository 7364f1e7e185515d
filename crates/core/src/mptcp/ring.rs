//! A first-in, first-out ring with a push the compiler inlines: what a
//! `VecDeque` did for the connection's built packets (`outq.rs`) and its
//! application events (`eventq.rs`). `VecDeque::push_back` stayed an
//! out-of-line call in both (`push_back_mut`: 39 instructions per data
//! segment for the 128-byte packet, docs/performance.md "Session 20 pass";
//! 27 for the `Delivered` event, "Session 32 pass ... (branch mp32)"). A
//! power-of-two number of `Option` slots, a head and a length; only the
//! growth is out of line.
//!
//! The slots' storage is a type parameter so that each queue keeps the
//! size the connection's hand-made layout counts on (`connection.rs`
//! `layout_tests`): a boxed slice for the events (24 bytes with the
//! 32-bit positions), a `Vec` for the packets (32). A generic ring over a
//! boxed slice alone moved the connection's fields (docs/performance.md
//! "Session 32 (lead)").

use std::marker::PhantomData;
use std::ops::DerefMut;

/// What a ring's slots are stored in: a `Vec` or a boxed slice of
/// `Option<T>`, built from a `Vec` when the ring grows.
pub(super) trait Slots<T>:
    Default + From<Vec<Option<T>>> + DerefMut<Target = [Option<T>]>
{
}

impl<T> Slots<T> for Vec<Option<T>> {}
impl<T> Slots<T> for Box<[Option<T>]> {}

#[derive(Debug)]
pub(super) struct Ring<T, S: Slots<T> = Box<[Option<T>]>> {
    /// Its length is 0 or a power of two; the queued items are the `len`
    /// slots from `head` on (wrapping), all `Some`; the others are `None`.
    /// 32-bit positions: the event queue (over a boxed slice) then takes
    /// 24 bytes and the packet queue (over a `Vec`) 32, which leaves the
    /// connection the 8 bytes of its `announcing` flag and `v09x`
    /// `init_rcv_wnd` before `send` (docs/performance.md "Session 33").
    buf: S,
    head: u32,
    len: u32,
    _item: PhantomData<T>,
}

impl<T, S: Slots<T>> Default for Ring<T, S> {
    fn default() -> Self {
        Ring {
            buf: S::default(),
            head: 0,
            len: 0,
            _item: PhantomData,
        }
    }
}

impl<T, S: Slots<T>> Ring<T, S> {
    #[inline(always)]
    pub fn push_back(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) as usize & (self.buf.len() - 1);
        // (the slot is free: nothing to drop)
        let old = self.buf[i].replace(x);
        debug_assert!(old.is_none());
        std::mem::forget(old);
        self.len += 1;
    }

    /// `push_back` of the item `make` returns, called once the slot is
    /// known, returning it in its slot so that the caller goes on building
    /// it there (`MptcpConnection::queue_built`). A packet is then written
    /// field by field straight into the slot. `push_back` of a packet built
    /// on the stack first copied it in 16-byte loads, and the first of them
    /// read three fields just stored by narrower stores (`src` 8 bytes,
    /// `flow` and `size` 4 each), which the store buffer cannot forward to
    /// one wider load: the copy waited for the stores to reach the cache, a
    /// fifth of `build_ack`'s timer samples and a seventh of `send_on`'s
    /// (docs/performance.md "Session 25 pass"). A closure, not the item
    /// itself: an argument is evaluated before the (cold) `grow` call, and
    /// LLVM then built it on the stack and copied it again ("Session 25
    /// pass: the segment built in its slot").
    #[inline(always)]
    pub fn push_back_mut(&mut self, make: impl FnOnce() -> T) -> &mut T {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) as usize & (self.buf.len() - 1);
        self.len += 1;
        // (the slot is free: nothing to drop)
        let old = self.buf[i].replace(make());
        debug_assert!(old.is_none());
        std::mem::forget(old);
        self.buf[i].as_mut().expect("just stored")
    }

    /// The take is the last step, after the head moves on: taken first, a
    /// packet went through two stack copies on its way to the engine's
    /// slot (`OutQueue::pop_front_into`), 2.6 M instructions more in the
    /// htsim scenario's `refill` than the same steps written for
    /// `OutQueue` alone.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let h = self.head;
        self.head = (h + 1) & (self.buf.len() as u32 - 1);
        self.len -= 1;
        self.buf[h as usize].take()
    }

    /// The item queued last.
    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            return None;
        }
        let i = (self.head + self.len - 1) as usize & (self.buf.len() - 1);
        self.buf[i].as_mut()
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(any(test, debug_assertions, feature = "invariants"))]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// The number of slots (tests: a ring never emptied stays small).
    #[cfg(test)]
    pub fn slots(&self) -> usize {
        self.buf.len()
    }

    /// Twice the slots (at least 8), the queued items moved to the front.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let n = (2 * self.buf.len()).max(8);
        // (the positions are 32-bit: a queue of 2^31 items is a runaway)
        assert!(n <= 1 << 31, "ring: {n} slots");
        let mut v: Vec<Option<T>> = Vec::with_capacity(n);
        let mask = self.buf.len().wrapping_sub(1);
        for k in 0..self.len as usize {
            v.push(self.buf[(self.head as usize + k) & mask].take());
        }
        v.resize_with(n, || None);
        self.buf = S::from(v);
        self.head = 0;
    }
}
