//! A first-in first-out queue of `Copy` entries: a vector and the index of
//! its front entry, for the engine's per-packet queues (the packets behind
//! a pipe's head, `mptlab_sim::network`'s `Pipe`, and a link's waiting
//! packets, `crate::link::LinkModel`).
//!
//! `VecDeque` maps its head and length to a slot of a ring on every access
//! (an add, a compare with the capacity and a conditional subtract, as
//! its `to_physical_idx` does), and a pop advances the head the same way:
//! in the seed-000 background cell a pipe's `push_back` took about 13
//! instructions besides the entry's stores and an arrival's `front` and
//! `pop_front` about 22 (docs/performance.md "Session 29 pass: the
//! engine's per-event cost"). Here `front` is one bounds-checked `get`, a
//! pop one increment and a push `Vec::push`. The popped entries stay in
//! the vector until a push finds it full (`make_room`), so a queue that
//! never empties (a busy pipe) still does not grow without bound.
//!
//! Not a power-of-two ring with masked counters: that was tried first and
//! kept a bounds check and the mask's arithmetic on both ends (the cell
//! 1,508.36 M instructions against this form's 1,499.08 M).

/// A FIFO of `T`: a vector and the index of its front entry.
#[derive(Clone, Debug)]
pub struct Fifo<T> {
    /// The entries from `head` on are queued, oldest first; those before
    /// it were popped and wait for `make_room` to drop them.
    buf: Vec<T>,
    head: usize,
}

impl<T: Copy + Default> Default for Fifo<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default> Fifo<T> {
    /// An empty queue; its first push allocates.
    pub fn new() -> Self {
        Fifo {
            buf: Vec::new(),
            head: 0,
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.buf.len() - self.head
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head == self.buf.len()
    }

    /// The entry pushed longest ago, if any.
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        self.buf.get(self.head)
    }

    /// Drop the front entry (`front` is `Some`).
    #[inline(always)]
    pub fn pop_front(&mut self) {
        debug_assert!(!self.is_empty(), "pop_front on an empty queue");
        self.head += 1;
    }

    /// Append `v` at the back.
    #[inline(always)]
    pub fn push_back(&mut self, v: T) {
        if self.buf.len() == self.buf.capacity() {
            self.make_room();
        }
        self.buf.push(v);
    }

    /// The vector is full: drop the popped entries if they are at least
    /// half of it (the queued ones move to the front, at most half the
    /// capacity, and at least as many pushes follow before it is full
    /// again: a constant number of moves per push), else let the push grow
    /// it.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        if self.head > 0 && 2 * self.head >= self.buf.len() {
            self.buf.drain(..self.head);
            self.head = 0;
        } else {
            self.buf.reserve(self.buf.len().max(4));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fifo;
    use std::collections::VecDeque;

    /// Interleaved pushes and pops, the queue growing, shrinking to empty
    /// and growing again, against a `VecDeque`; the buffer stays within
    /// four times the longest queue (popped entries are dropped).
    #[test]
    fn the_fifo_keeps_the_order_and_drops_what_was_popped() {
        let mut r: Fifo<u64> = Fifo::new();
        let mut reference: VecDeque<u64> = VecDeque::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = 0u64;
        let mut longest = 0;
        for step in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // phases that grow the queue, drain it, and hold it steady
            // (as a busy pipe does, never empty)
            let push = match (step / 500) % 3 {
                0 => x % 3 != 0,
                1 => x % 3 == 0,
                _ => x % 2 == 0 || reference.len() < 2,
            };
            if push {
                r.push_back(next);
                reference.push_back(next);
                next += 1;
            } else if !reference.is_empty() {
                assert_eq!(r.front(), reference.front());
                r.pop_front();
                reference.pop_front();
            }
            longest = longest.max(reference.len());
            assert_eq!(r.len(), reference.len());
            assert_eq!(r.is_empty(), reference.is_empty());
            assert_eq!(r.front(), reference.front());
            assert!(
                r.buf.capacity() <= 4 * longest.max(4),
                "capacity {} for a queue of at most {longest}",
                r.buf.capacity()
            );
        }
        while let Some(&v) = reference.front() {
            assert_eq!(r.front(), Some(&v));
            r.pop_front();
            reference.pop_front();
        }
        assert!(r.is_empty() && r.front().is_none());
    }
}
