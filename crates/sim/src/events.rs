//! The event queue: min-heaps ordered by (time, insertion sequence), so
//! events at the same nanosecond run in the order they were scheduled and a
//! run is reproducible (as nexosim keys its queue). No global state: each
//! simulation owns its queue, so many can run in one process and in parallel.
//!
//! Hand-rolled rather than `std::collections::BinaryHeap`, for speed (the
//! queue was a sixth of a run's instructions):
//!
//! * the key is one `u128` (time, then sequence), compared in two
//!   instructions;
//! * a pop leaves its slot at the root empty until the next push or pop. The
//!   event loop's common pattern, pop a packet arrival and push the next
//!   arrival on the same link, thus costs one sift-down instead of a
//!   sift-down and a sift-up;
//! * timers live in a heap of their own (`push_timer`). Every endpoint and
//!   application keeps a timer queued, most of them far in the future, while
//!   almost all pops and pushes are packet arrivals: those now sift through
//!   a heap of about a third of the size. A pop takes the earlier of the two
//!   roots.
//!
//! The sequence counter is shared and keys are unique, so the order of pops
//! is exactly that of a single priority queue.

use mptlab_core::Nanos;

#[derive(Clone, Copy)]
struct Entry<E> {
    /// `time << 64 | seq`: earliest time first, then insertion order.
    key: u128,
    ev: E,
}

/// One binary min-heap with a possibly empty root ("hole").
struct Lane<E: Copy> {
    heap: Vec<Entry<E>>,
    /// `heap[0]` was popped and is only a placeholder: the next push takes
    /// its place, the next pop fills it with the last entry first.
    hole: bool,
}

impl<E: Copy> Lane<E> {
    fn new() -> Self {
        Lane {
            heap: Vec::with_capacity(256),
            hole: false,
        }
    }

    fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }

    #[inline(always)]
    fn push(&mut self, e: Entry<E>) {
        // The entry travels in registers to its final slot: writing it
        // into the heap and reading it back at once, as a plain
        // `heap[0] = e; sift_down(0)` does, made the read wait for the
        // store (its fields are stored piecewise, then loaded as one 16-byte
        // value, which store-to-load forwarding cannot serve: 14 % of the
        // event loop's cycles in `perf annotate`).
        if self.hole {
            self.hole = false;
            self.sift_down(0, e);
        } else {
            let i = self.heap.len();
            self.heap.push(e);
            self.sift_up(i, e);
        }
    }

    /// The root's key, once any hole is filled.
    #[inline(always)]
    fn top_key(&mut self) -> Option<u128> {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().expect("a hole is a slot");
            if !self.heap.is_empty() {
                self.sift_down(0, last);
            }
        }
        self.heap.first().map(|e| e.key)
    }

    /// Take the root (call `top_key` first); it becomes the hole.
    #[inline]
    fn take_top(&mut self) -> Entry<E> {
        self.hole = true;
        self.heap[0]
    }

    /// Move `e`, bound for slot `i`, up to its place.
    #[inline]
    fn sift_up(&mut self, mut i: usize, e: Entry<E>) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key <= e.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = e;
    }

    /// Move `e`, bound for slot `i`, down to its place.
    #[inline]
    fn sift_down(&mut self, mut i: usize, e: Entry<E>) {
        let n = self.heap.len();
        loop {
            let mut c = 2 * i + 1;
            if c >= n {
                break;
            }
            if c + 1 < n && self.heap[c + 1].key < self.heap[c].key {
                c += 1;
            }
            if e.key <= self.heap[c].key {
                break;
            }
            self.heap[i] = self.heap[c];
            i = c;
        }
        self.heap[i] = e;
    }
}

pub struct EventQueue<E: Copy> {
    /// 0: events (packet arrivals), 1: timers.
    lanes: [Lane<E>; 2],
    seq: u64,
    popped: u64,
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            lanes: [Lane::new(), Lane::new()],
            seq: 0,
            popped: 0,
        }
    }

    #[inline]
    fn push_to(&mut self, lane: usize, time: Nanos, ev: E) {
        let e = Entry {
            key: (time as u128) << 64 | self.seq as u128,
            ev,
        };
        self.seq += 1;
        self.lanes[lane].push(e);
    }

    /// Schedule an event.
    #[inline]
    pub fn push(&mut self, time: Nanos, ev: E) {
        self.push_to(0, time, ev);
    }

    /// Schedule a timer: the same as `push` for the order of events, kept in
    /// the timer heap (see the module comment).
    #[inline]
    pub fn push_timer(&mut self, time: Nanos, ev: E) {
        self.push_to(1, time, ev);
    }

    /// The lane holding the earliest entry.
    #[inline]
    fn first_lane(&mut self) -> Option<usize> {
        match (self.lanes[0].top_key(), self.lanes[1].top_key()) {
            (Some(a), Some(b)) => Some(if a < b { 0 } else { 1 }),
            (Some(_), None) => Some(0),
            (None, Some(_)) => Some(1),
            (None, None) => None,
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        let l = self.first_lane()?;
        let e = self.lanes[l].take_top();
        self.popped += 1;
        Some(((e.key >> 64) as Nanos, e.ev))
    }

    pub fn peek_time(&mut self) -> Option<Nanos> {
        let l = self.first_lane()?;
        self.lanes[l].top_key().map(|k| (k >> 64) as Nanos)
    }

    pub fn len(&self) -> usize {
        self.lanes[0].len() + self.lanes[1].len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events handled so far (for speed reports).
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_fifo() {
        let mut q = EventQueue::new();
        q.push(5, "c");
        q.push(1, "a");
        q.push(5, "d");
        q.push(1, "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
    }

    /// Interleaved pushes (to both lanes) and pops (the hole at the root)
    /// against a sorted reference, with many equal times.
    #[test]
    fn matches_a_sorted_reference() {
        let mut q = EventQueue::new();
        let mut reference: Vec<(Nanos, u64)> = Vec::new();
        let mut x: u64 = 12345;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut id = 0u64;
        let mut now = 0;
        for step in 0..20_000 {
            let pushes = next() % 3;
            for _ in 0..pushes {
                let t = now + next() % 50;
                if next() % 4 == 0 {
                    q.push_timer(t, id);
                } else {
                    q.push(t, id);
                }
                reference.push((t, id));
                id += 1;
            }
            if step % 7 != 0 {
                if let Some((t, e)) = q.pop() {
                    let i = (0..reference.len()).min_by_key(|&i| reference[i]).unwrap();
                    assert_eq!((t, e), reference.remove(i));
                    now = t;
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        assert_eq!(q.peek_time(), reference.iter().map(|r| r.0).min());
    }
}
