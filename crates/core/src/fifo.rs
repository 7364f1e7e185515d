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
//! pop that bounds check and one increment, and a push `Vec::push`. The
//! popped entries stay in the vector until a push finds it full
//! (`make_room`), so a queue that never empties (a busy pipe) still does
//! not grow without bound.
//!
//! The buffer may reach four times the longest queue where a `VecDeque`'s
//! reaches two (in the background cell 249 KiB for 16 queues against
//! 126 KiB). The eight-run cell's higher peak RSS since this type is not
//! that memory (it is freed before the peak, the results' merge) but
//! glibc's placement: with its mmap threshold fixed both forms peak alike,
//! and compacting at a quarter popped instead of half raised the peak
//! (docs/performance.md "Session 30 pass: the engine's per-event cost").
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

    /// Copy the front entry into `dst` and drop it from the queue: true,
    /// or false with `dst` and the queue unchanged when it is empty.
    ///
    /// The pops return what they checked, so that no pop can run on an
    /// empty queue: until session 30 `pop_front` only advanced the head,
    /// after the caller's `front()`, and a pop on an empty queue was a
    /// `debug_assert` (in a release build the head then passed the end
    /// and `len` underflowed). The copy goes straight into the caller's
    /// record (`Pipe::head` in `mptlab_sim::network`), not through a
    /// returned temporary, as before (docs/performance.md "Session 22
    /// pass": two stores and two loads more through the stack).
    #[inline(always)]
    pub fn pop_front_into(&mut self, dst: &mut T) -> bool {
        match self.buf.get(self.head) {
            Some(v) => {
                *dst = *v;
                self.head += 1;
                true
            }
            None => false,
        }
    }

    /// Remove and return the front entry if there is one and `take` says
    /// so (a link's queue drops the packets whose serialisation has
    /// started, `crate::link::LinkModel::expire`).
    #[inline(always)]
    pub fn pop_front_if(&mut self, take: impl FnOnce(&T) -> bool) -> Option<T> {
        match self.buf.get(self.head) {
            Some(&v) if take(&v) => {
                self.head += 1;
                Some(v)
            }
            _ => None,
        }
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
                let mut got = u64::MAX;
                if step % 2 == 0 {
                    assert!(r.pop_front_into(&mut got));
                } else {
                    got = r.pop_front_if(|_| true).expect("an entry");
                }
                assert_eq!(Some(got), reference.pop_front());
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
            assert_eq!(r.pop_front_if(|&e| e == v), Some(v));
            reference.pop_front();
        }
        assert!(r.is_empty() && r.front().is_none());
    }

    /// A pop on an empty queue returns nothing and changes nothing (until
    /// session 30 `pop_front` on an empty queue was only a `debug_assert`:
    /// in a release build it moved the head past the end, `len` then
    /// underflowed and the next push's entry was skipped). A refused
    /// `pop_front_if` leaves the entry in place.
    #[test]
    fn a_pop_on_an_empty_queue_is_refused() {
        let mut r: Fifo<u32> = Fifo::new();
        let mut dst = 7;
        assert!(!r.pop_front_into(&mut dst));
        assert_eq!(dst, 7, "the destination is left alone");
        assert_eq!(r.pop_front_if(|_| true), None);
        assert!(r.is_empty() && r.front().is_none());
        r.push_back(1);
        r.push_back(2);
        assert_eq!(r.pop_front_if(|&e| e > 1), None, "the front is 1");
        assert!(r.pop_front_into(&mut dst));
        assert_eq!(dst, 1);
        assert_eq!(r.pop_front_if(|_| true), Some(2));
        assert!(!r.pop_front_into(&mut dst) && r.pop_front_if(|_| true).is_none());
        assert_eq!((r.len(), dst), (0, 1));
        r.push_back(3);
        assert_eq!(
            r.front(),
            Some(&3),
            "the push after the refused pops is the front"
        );
        assert_eq!(r.len(), 1);
    }
}
