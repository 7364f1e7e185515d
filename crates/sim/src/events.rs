//! The event queue: min-heaps ordered by (time, insertion sequence), so
//! events at the same nanosecond run in the order they were scheduled and a
//! run is reproducible (as nexosim keys its queue). No global state: each
//! simulation owns its queue, so many can run in one process and in parallel.
//!
//! Hand-rolled rather than `std::collections::BinaryHeap`, for speed (the
//! queue was a sixth of a run's instructions):
//!
//! * an entry is one `u128`: `time << 64 | seq << CODE_BITS | code`, the
//!   event packed into `code` (`Packed`). Sequence numbers are unique, so
//!   comparing entries compares (time, seq) and the code never decides; a
//!   16-byte entry is moved in one copy (the 32-byte key-plus-event entry it
//!   replaced took two) and four share a cache line, which at 10,000
//!   connections (heaps of tens of thousands of entries) took 6 % off the
//!   run's L1 misses (docs/performance.md "Scale");
//! * a pop leaves its slot at the root empty until the next push or pop. The
//!   event loop's common pattern, pop a packet arrival and push the next
//!   arrival on the same link, thus costs one sift-down instead of a
//!   sift-down and a sift-up;
//! * while the event lane holds at most a few dozen entries (a run with a
//!   few busy links: 4-5 in the seed-000 background cell) it is a vector
//!   sorted in descending order rather than a heap (`Lane::sorted`): a pop
//!   takes the last entry and a push moves only the entries due before it,
//!   where the heap sifted two or three levels on each (3.6 % of that
//!   cell's instructions, docs/performance.md "Session 27 pass");
//! * timers live in a heap of their own (`push_timer`). Every endpoint and
//!   application keeps a timer queued, most of them far in the future, while
//!   almost all pops and pushes are packet arrivals: those now sift through
//!   a heap of about a third of the size. A pop takes the earlier of the two
//!   roots; the timer heap's root is kept beside the heaps (`timer_top`),
//!   so that a pop reads one key for the timers (the earlier of the root's
//!   children while the timer heap has a hole, `pop_timer`);
//! * once the event heap holds `calendar::SPILL_FROM` entries (thousands of
//!   connections), the events not due soon wait in a calendar of time
//!   buckets (`crate::calendar`) and the heap holds only the current
//!   bucket's, so a push no longer sifts through tens of thousands of
//!   entries (docs/performance.md "Session 13").
//!
//! The sequence counter is shared and keys are unique, so the order of pops
//! is exactly that of a single priority queue. When the counter reaches
//! `SEQ_LIMIT` (2^38 pushes) the queued entries are renumbered in their
//! order (`renumber`), which keeps every comparison as it was.

use mptlab_core::invariants;
use mptlab_core::Nanos;

use crate::calendar::{Calendar, SPILL_FROM};

/// Bits of an entry's low word that hold the event's code.
pub const CODE_BITS: u32 = 26;
/// Codes are below this.
pub const CODE_LIMIT: u32 = 1 << CODE_BITS;
/// Sequence numbers are below this (the rest of the low word).
const SEQ_LIMIT: u64 = 1 << (64 - CODE_BITS);

/// An event type the queue can store: packed into a code below `CODE_LIMIT`.
pub trait Packed: Copy {
    fn pack(self) -> u32;
    fn unpack(code: u32) -> Self;
}

impl Packed for u32 {
    #[inline(always)]
    fn pack(self) -> u32 {
        self
    }
    #[inline(always)]
    fn unpack(code: u32) -> Self {
        code
    }
}

/// One binary min-heap with a possibly empty root ("hole"), or, while the
/// event lane holds few entries (`sorted`), an array sorted in descending
/// order, the earliest entry last.
pub(crate) struct Lane {
    /// The heap form's entries (empty while `sorted`).
    heap: Vec<u128>,
    /// `heap[0]` was popped and is only a placeholder: the next push takes
    /// its place, the next pop fills it with the last entry first.
    hole: bool,
    /// The lane is in its sorted form: `small[..small_len]` in descending
    /// order, `heap` empty with no hole. A pop takes the last entry and a
    /// push moves the entries earlier than it up by one.
    /// The event lane of a run with a few busy links holds a handful of
    /// entries (4-5 in the seed-000 background cell), where a push moves
    /// only the entries due before it and a pop moves none, against a sift
    /// of two or three levels either way in the heap (docs/performance.md
    /// "Session 27 pass"). Beyond `SORTED_MAX` entries the lane becomes a heap (a
    /// vector sorted in ascending order is one), and back once it has
    /// shrunk to `SORTED_BACK`.
    sorted: bool,
    /// The sorted form's entry count.
    small_len: usize,
    /// The sorted form's entries: a fixed array, where they were kept in
    /// `heap` until session 31, so that a push has no capacity test and
    /// no buffer pointer to load, and the compiler sees every index below
    /// `SORTED_MAX` (docs/performance.md "Session 31 pass: the engine's
    /// per-event cost").
    small: [u128; SORTED_MAX],
}

/// Checked builds: queued entry `prev` was numbered before the key `k`
/// being pushed (its sequence number and code, the key's lower half, are
/// below `k`'s), so comparing their times gives the order of the whole
/// keys (`Lane::insert_sorted`).
#[cold]
#[inline(never)]
fn check_numbered_before(prev: u128, k: u128) {
    assert!(
        (prev as u64) < (k as u64),
        "event key {k:#x} pushed after {prev:#x}, which was numbered later"
    );
}

/// The event lane becomes a heap when a push finds this many entries.
const SORTED_MAX: usize = 32;
/// A heap lane becomes sorted again when a pop leaves at most this many.
const SORTED_BACK: usize = 8;

impl Lane {
    fn new(sorted: bool) -> Self {
        Lane {
            heap: Vec::with_capacity(256),
            hole: false,
            sorted,
            small_len: 0,
            small: [0; SORTED_MAX],
        }
    }

    /// `push` in the sorted form: `k` goes after the entries later than it
    /// (keys are unique), the earlier ones move up by one.
    ///
    /// `BY_TIME`: the entries' times alone are compared with `k`'s, one
    /// 64-bit compare of the entry's upper half where the whole keys'
    /// compare takes two loads, a subtract with borrow and a move. The
    /// answer is the same: `k` was numbered after every entry queued
    /// (`EventQueue::push_to` numbers each push from a counter; `renumber`
    /// pushes the entries in key order with their new numbers), so an
    /// entry is later than `k` exactly when its time is. Checked builds
    /// assert that each entry compared was numbered first
    /// (`check_numbered_before`). Only the event loop's own pushes (the
    /// arrivals pushed by `World::on_router_arrive` and `on_host_arrive`)
    /// take it: in `World::settle` the same loop moved `self` out of its
    /// register, and `settle` counted 12 M instructions more in the
    /// background cell than the 7 M it saved in `run` (docs/performance.md "Session 33 pass: the engine's
    /// per-event cost").
    #[inline(always)]
    fn insert_sorted<const BY_TIME: bool>(&mut self, k: u128) {
        let n = self.small_len;
        if n >= SORTED_MAX {
            return self.make_heap(k);
        }
        let time = (k >> 64) as u64;
        let h = &mut self.small;
        let mut j = n;
        // `j < SORTED_MAX` throughout
        while j > 0 {
            let prev = h[j - 1];
            let later = if BY_TIME {
                if invariants::ENABLED {
                    check_numbered_before(prev, k);
                }
                (prev >> 64) as u64 > time
            } else {
                prev > k
            };
            if later {
                break;
            }
            h[j] = prev;
            j -= 1;
        }
        h[j] = k;
        self.small_len = n + 1;
    }

    /// Checked builds: the lane holds its entries in one form only, the
    /// sorted form's array empty in the heap form (`pop_sorted` reads the
    /// array without testing the form) and the heap empty in the sorted.
    #[cold]
    #[inline(never)]
    fn check_form(&self) {
        if self.sorted {
            assert!(
                self.heap.is_empty() && !self.hole,
                "a sorted event lane holds {} heap entries",
                self.heap.len()
            );
        } else {
            assert_eq!(self.small_len, 0, "a heap event lane holds sorted entries");
        }
    }

    /// The sorted form's earliest entry (the last), if any.
    #[inline(always)]
    fn small_last(&self) -> Option<&u128> {
        // (`small_len` 0 wraps to past the array: one test for both)
        self.small.get(self.small_len.wrapping_sub(1))
    }

    /// The sorted lane is full: reverse it (ascending order is a heap) and
    /// push `k` as a heap does.
    #[cold]
    #[inline(never)]
    fn make_heap(&mut self, k: u128) {
        debug_assert!(self.sorted && !self.hole && self.heap.is_empty());
        self.heap.extend(self.small[..self.small_len].iter().rev());
        self.small_len = 0;
        self.sorted = false;
        self.push_end(k);
    }

    /// A heap lane with a hole at the root and at most `SORTED_BACK`
    /// entries besides: drop the hole and sort the rest in descending order.
    #[cold]
    #[inline(never)]
    fn make_sorted(&mut self) {
        debug_assert!(!self.sorted && self.hole);
        self.heap.swap_remove(0);
        self.hole = false;
        self.heap.sort_unstable_by(|a, b| b.cmp(a));
        let n = self.heap.len();
        self.small[..n].copy_from_slice(&self.heap);
        self.small_len = n;
        self.heap.clear();
        self.sorted = true;
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len() - self.hole as usize + self.small_len
    }

    /// Empty the lane (the heap's hole included), keeping the buffer.
    pub(crate) fn clear(&mut self) {
        self.heap.clear();
        self.hole = false;
        self.small_len = 0;
    }

    /// The heap's buffer, for `Calendar::refill` to fill while the heap is
    /// empty (then `heapify`).
    pub(crate) fn buffer(&mut self) -> &mut Vec<u128> {
        debug_assert!(!self.hole);
        &mut self.heap
    }

    #[inline(always)]
    fn push(&mut self, k: u128) {
        if self.sorted {
            self.insert_sorted::<false>(k);
        } else if self.hole {
            self.fill_hole(k);
        } else {
            self.push_end(k);
        }
    }

    /// `push` when there is a hole: `k` takes the root's place.
    #[inline(always)]
    fn fill_hole(&mut self, k: u128) {
        self.hole = false;
        self.sift_down(0, k);
    }

    /// `push` when there is no hole: the heap grows by one slot.
    #[inline(always)]
    fn push_end(&mut self, k: u128) {
        let i = self.heap.len();
        self.heap.push(k);
        self.sift_up(i, k);
    }

    /// The root, once any hole is filled (`fill_root`). A reference, not
    /// the key: `first` compares the two lanes' roots in place, where an
    /// `Option<u128>` per lane was built on the stack and read back, 8
    /// instructions per lane and pop (docs/performance.md "Session 16 pass").
    #[inline(always)]
    fn top(&mut self) -> Option<&u128> {
        if self.sorted {
            return self.small_last();
        }
        if self.hole {
            self.fill_root();
        }
        self.heap.first()
    }

    /// Fill the hole at the root with the last entry.
    #[inline(always)]
    fn fill_root(&mut self) {
        self.hole = false;
        let last = self.heap.pop().expect("a hole is a slot");
        if !self.heap.is_empty() {
            self.sift_down(0, last);
        }
    }

    /// Move `k`, bound for slot `i`, up to its place.
    #[inline]
    fn sift_up(&mut self, mut i: usize, k: u128) {
        let h = &mut self.heap[..];
        while i > 0 {
            let parent = (i - 1) / 2;
            if h[parent] <= k {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = k;
    }

    /// Move `k`, bound for slot `i`, down to its place.
    #[inline]
    fn sift_down(&mut self, mut i: usize, k: u128) {
        let h = &mut self.heap[..];
        // `i` always indexes the slot `k` is bound for, a valid one: the
        // checked accesses below are written so that the compiler sees
        // the children it reads exist and keeps the smaller one in a
        // register rather than loading it again
        loop {
            let c = 2 * i + 1;
            let Some(&l) = h.get(c) else { break };
            // which child is smaller is a coin toss to the branch
            // predictor (in the htsim benchmark this line was 6 % of all
            // mispredicted branches): select it with a mask instead
            let (c, v) = match h.get(c + 1) {
                Some(&r) => {
                    let right = r < l;
                    let m = (right as u128).wrapping_neg();
                    (c + right as usize, (r & m) | (l & !m))
                }
                None => (c, l),
            };
            if k <= v {
                break;
            }
            h[i] = v;
            i = c;
        }
        h[i] = k;
    }

    /// Make the buffer (filled through `buffer`, no hole) a heap: Floyd's
    /// bottom-up construction, each inner slot's entry sifted down, about
    /// two compares per entry where sorting took about log2(n)
    /// (docs/performance.md "Session 24"). Keys are unique, so the pops
    /// come out in the same order from any heap of the same keys.
    pub(crate) fn heapify(&mut self) {
        debug_assert!(!self.hole && self.small_len == 0);
        self.sorted = false;
        for i in (0..self.heap.len() / 2).rev() {
            let k = self.heap[i];
            self.sift_down(i, k);
        }
    }

    /// The live entries (not the hole), in no particular order.
    pub(crate) fn drain_all(&mut self) -> Vec<u128> {
        let skip = self.hole as usize;
        let mut v = self.heap[skip..].to_vec();
        v.extend_from_slice(&self.small[..self.small_len]);
        self.clear();
        v
    }
}

pub struct EventQueue<E: Packed> {
    /// 0: events (packet arrivals), 1: timers.
    lanes: [Lane; 2],
    /// The events (lane 0) not due soon, once there are many
    /// (`crate::calendar`).
    cal: Calendar,
    seq: u64,
    popped: u64,
    /// The time of the last pop.
    last: Nanos,
    /// Renumber when `seq` reaches this (`SEQ_LIMIT`; lower in tests).
    seq_limit: u64,
    /// The timer heap's root (lane 1's earliest key), `NO_TIMER_KEY` when
    /// it is empty. Every pop compares the two lanes' earliest keys, and
    /// almost all pops are packet arrivals while timers are pushed and
    /// popped about once per thousand events (the htsim benchmark): the
    /// key kept here spares each pop the timer heap's hole test, its
    /// emptiness test and the load of its buffer (docs/performance.md
    /// "Session 22 pass"). While the timer heap has a hole (`pop_timer`)
    /// it is the earlier of the root's children.
    timer_top: u128,
    _ev: std::marker::PhantomData<E>,
}

/// `EventQueue::timer_top` when the timer heap is empty. A real key could
/// equal it only with time `Nanos::MAX` and the last sequence number before
/// a renumbering; even then the comparison in `first` stays right, since
/// the event key it is compared with differs from it and `first` asks the
/// heap itself whether a timer exists when there is no event.
const NO_TIMER_KEY: u128 = u128::MAX;

impl<E: Packed> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            lanes: [Lane::new(true), Lane::new(false)],
            cal: Calendar::new(),
            seq: 0,
            popped: 0,
            last: 0,
            seq_limit: SEQ_LIMIT,
            timer_top: NO_TIMER_KEY,
            _ev: std::marker::PhantomData,
        }
    }

    #[inline(always)]
    fn push_to<const BY_TIME: bool>(&mut self, lane: usize, time: Nanos, ev: E) {
        let code = ev.pack();
        debug_assert!(code < CODE_LIMIT, "event code {code} out of range");
        if self.seq >= self.seq_limit {
            self.renumber();
        }
        let k = (time as u128) << 64 | ((self.seq << CODE_BITS) | code as u64) as u128;
        self.seq += 1;
        if lane == 1 {
            // a hole left by `pop_timer` takes `k`, and the root is then
            // the earlier of `k` and the root's children, which
            // `timer_top` was
            let t = &mut self.lanes[1];
            if t.hole {
                t.fill_hole(k);
            } else {
                t.push_end(k);
            }
            self.timer_top = self.timer_top.min(k);
        } else if time >= self.cal.bot_end {
            // (never while the calendar is off: `bot_end` is the largest time)
            self.cal.push(k);
        } else if self.lanes[0].sorted {
            self.lanes[0].insert_sorted::<BY_TIME>(k);
        } else if self.lanes[0].hole {
            self.lanes[0].fill_hole(k);
        } else {
            // only a push that grows the heap can take it to `SPILL_FROM`:
            // the common one, which fills the hole a pop left, tests
            // nothing, and the calendar's state is read only once the heap
            // is that large
            self.lanes[0].push_end(k);
            if self.lanes[0].heap.len() >= SPILL_FROM && !self.cal.is_on() {
                self.cal.spill(&mut self.lanes[0]);
            }
        }
    }

    /// Give the queued entries the sequence numbers 0, 1, ... in their
    /// order, and continue counting from there: every comparison between
    /// queued and later entries is as it was, since all of them differ in
    /// (time, seq) and the order of the seq values is kept.
    #[cold]
    fn renumber(&mut self) {
        let mut all: Vec<(u128, usize)> = Vec::with_capacity(self.len());
        for (l, lane) in self.lanes.iter_mut().enumerate() {
            all.extend(lane.drain_all().into_iter().map(|k| (k, l)));
        }
        all.extend(self.cal.drain_all().into_iter().map(|k| (k, 0)));
        all.sort_unstable();
        let code_mask = (CODE_LIMIT - 1) as u128;
        for (seq, &(k, l)) in all.iter().enumerate() {
            let k = (k >> 64) << 64 | ((seq as u64) << CODE_BITS) as u128 | (k & code_mask);
            // in key order, so each push lands at the end: a sorted array
            // is a heap (with the calendar off, as `drain_all` left it; it
            // spills again once the heap is large)
            self.lanes[l].push(k);
        }
        self.seq = all.len() as u64;
        self.timer_top = self.lanes[1].heap.first().copied().unwrap_or(NO_TIMER_KEY);
    }

    /// Schedule an event.
    #[inline]
    pub fn push(&mut self, time: Nanos, ev: E) {
        self.push_to::<false>(0, time, ev);
    }

    /// `push`, the sorted lane comparing times alone (`Lane::insert_sorted`):
    /// the same order, for the event loop's own pushes.
    #[inline]
    pub fn push_by_time(&mut self, time: Nanos, ev: E) {
        self.push_to::<true>(0, time, ev);
    }

    /// Schedule a timer: the same as `push` for the order of events, kept in
    /// the timer heap (see the module comment).
    #[inline]
    pub fn push_timer(&mut self, time: Nanos, ev: E) {
        self.push_to::<false>(1, time, ev);
    }

    /// The lane holding the earliest entry, and that entry.
    #[inline(always)]
    fn first(&mut self) -> Option<(usize, u128)> {
        let timer = self.timer_top;
        match self.lanes[0].top() {
            // an empty timer heap's `NO_TIMER_KEY` is never below `a`
            Some(&a) => Some(if timer < a { (1, timer) } else { (0, a) }),
            // the calendar is asked only when the event heap runs dry
            // (below `SPILL_FROM` it holds nothing, and a pop costs no
            // test of it)
            None if self.cal.held() > 0 => self.first_refilled(),
            None => (self.lanes[1].len() > 0).then_some((1, timer)),
        }
    }

    /// `first` when the event heap is empty and the calendar is not: move
    /// the calendar's next bucket into the heap first.
    #[inline(never)]
    fn first_refilled(&mut self) -> Option<(usize, u128)> {
        self.cal.refill(&mut self.lanes[0], self.popped, self.last);
        self.first()
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        self.pop_code().map(|(t, c)| (t, E::unpack(c)))
    }

    /// `pop`, the event as its code (`Packed::pack`).
    #[inline]
    pub fn pop_code(&mut self) -> Option<(Nanos, u32)> {
        self.pop_code_hinted(usize::MAX).map(|(t, c, _)| (t, c))
    }

    /// `pop_code`, and `hints_from(n)` after the pop. The common case, a
    /// sorted event lane whose earliest entry comes before the timers', is
    /// on its own path, and there the answer is known to be no (no hints
    /// from a sorted lane): the event loop asked `hints_from` after every
    /// pop, two instructions that read the flag again (docs/performance.md
    /// "Session 28 pass").
    #[inline]
    pub fn pop_code_hinted(&mut self, n: usize) -> Option<(Nanos, u32, bool)> {
        if let Some((t, c)) = self.pop_sorted() {
            return Some((t, c, false));
        }
        self.pop_general_hinted(n)
    }

    /// `pop_code` in the common case, a sorted event lane whose earliest
    /// entry comes before the timers'; `None` (nothing popped) otherwise,
    /// and `pop_general_hinted` pops. Two calls, not `pop_code_hinted`, for
    /// the event loop: the hint flag then exists only on the general path
    /// (on the merged path it was cleared, then tested, on every pop:
    /// docs/performance.md "Session 30 pass: the engine's per-event cost").
    ///
    /// `lane.sorted` is not tested: the heap form keeps nothing in the
    /// sorted form's array (`small_len` is 0, checked in checked builds), so
    /// there `small_last` finds nothing and the general path pops, as the
    /// flag's test sent it (two instructions a pop fewer in the common
    /// case: docs/performance.md "Session 31 pass: the engine's per-event
    /// cost").
    #[inline(always)]
    pub fn pop_sorted(&mut self) -> Option<(Nanos, u32)> {
        let lane = &mut self.lanes[0];
        if invariants::ENABLED {
            lane.check_form();
        }
        if let Some(&a) = lane.small_last() {
            // (`first`'s choice: the timers' only if earlier)
            if a <= self.timer_top {
                lane.small_len -= 1;
                self.popped += 1;
                self.last = (a >> 64) as Nanos;
                return Some((self.last, a as u32 & (CODE_LIMIT - 1)));
            }
        }
        None
    }

    /// `pop_code_hinted` when `pop_sorted` popped nothing.
    #[inline(always)]
    pub fn pop_general_hinted(&mut self, n: usize) -> Option<(Nanos, u32, bool)> {
        let (t, c) = self.pop_general()?;
        Some((t, c, self.hints_from(n)))
    }

    /// `pop_code` when the sorted lane's path did not apply.
    #[inline(always)]
    fn pop_general(&mut self) -> Option<(Nanos, u32)> {
        let (l, k) = self.first()?;
        if l == 0 {
            let lane = &mut self.lanes[0];
            if lane.sorted {
                // `first` found it last
                lane.small_len -= 1;
            } else {
                // the root becomes the hole
                lane.hole = true;
                if lane.heap.len() <= SORTED_BACK + 1 {
                    lane.make_sorted();
                }
            }
        } else {
            self.pop_timer();
        }
        self.popped += 1;
        self.last = (k >> 64) as Nanos;
        Some((self.last, k as u32 & (CODE_LIMIT - 1)))
    }

    /// Take the timer heap's root (`first` chose it): it becomes the hole,
    /// and `timer_top` the earlier of its children. A call: timers are
    /// about one pop in a thousand.
    ///
    /// The hole waits for the next timer push, as the event heap's does:
    /// almost every timer pop is followed by its endpoint's or its
    /// application's re-arm (`World::rearm_ep`, `rearm_app`), and the new
    /// key then sifts down from the root once, where filling the hole at
    /// once sifted the last entry down and the re-arm's key up from the
    /// end (docs/performance.md "Session 28 pass: the timer heap's pop").
    /// A second pop before a push fills the hole first.
    #[inline(never)]
    fn pop_timer(&mut self) {
        let t = &mut self.lanes[1];
        if t.hole {
            t.fill_root();
        }
        t.hole = true;
        // (`first` found a timer, so the heap has a root to pop)
        self.timer_top = match t.heap.get(1..) {
            Some([a, b, ..]) => *a.min(b),
            Some([a]) => *a,
            _ => NO_TIMER_KEY,
        };
    }

    /// Events (not timers) that may come soon, for prefetching their
    /// state: `near(e)` for the likely next pop (the earlier of the root's
    /// children after a pop from the event heap, else the root), `far(e)`
    /// for the candidates of the pop after it that are not the root's
    /// subtree (near's sibling and children). A hint only; the order of
    /// pops is not affected, and an earlier event pushed meanwhile simply
    /// comes first.
    #[inline(always)]
    pub fn upcoming(&self, near: impl FnOnce(E), mut far: impl FnMut(E)) {
        let lane = &self.lanes[0];
        let h = &lane.heap[..];
        let code = |k: u128| E::unpack(k as u32 & (CODE_LIMIT - 1));
        // no hints from a sorted lane: it is sorted only while it holds a
        // few dozen events at most, and the hints run only with
        // `PREFETCH_FROM` (1,024) events queued, so with the rest in the
        // calendar (and handling the sorted form here made the engine's
        // closure a call, docs/performance.md "Session 27 pass")
        let n = if lane.sorted {
            return;
        } else if lane.hole {
            match (h.get(1), h.get(2)) {
                (Some(&a), Some(&b)) => {
                    let (n, sib) = if a < b { (1, b) } else { (2, a) };
                    far(code(sib));
                    n
                }
                (Some(_), None) => 1,
                _ => return,
            }
        } else if h.is_empty() {
            return;
        } else {
            0
        };
        near(code(h[n]));
        for &k in h.iter().skip(2 * n + 1).take(2) {
            far(code(k));
        }
    }

    /// Events queued (not timers), in the heap or the calendar.
    #[inline(always)]
    pub fn events_len(&self) -> usize {
        let lane = &self.lanes[0];
        lane.heap.len() + lane.small_len + self.cal.held()
    }

    /// `events_len() >= n` where `upcoming` has hints to give: none while
    /// the event lane is sorted (`upcoming`), so that test comes first and
    /// a small run's event loop reads one flag instead of two lengths.
    #[inline(always)]
    pub fn hints_from(&self, n: usize) -> bool {
        !self.lanes[0].sorted && self.events_len() >= n
    }

    pub fn peek_time(&mut self) -> Option<Nanos> {
        self.first().map(|(_, k)| (k >> 64) as Nanos)
    }

    pub fn len(&self) -> usize {
        self.lanes[0].len() + self.lanes[1].len() + self.cal.held()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events handled so far (for speed reports).
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

impl<E: Packed> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marsaglia's xorshift64 (13, 7, 17) from `seed`: the tests' cheap,
    /// reproducible draws.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// A queue, the reference priority queue the order tests compare its
    /// pops with (entries `Reverse((time, push order, ...))`), and the
    /// tests' draws from `seed`.
    fn against<T: Ord>(
        seed: u64,
    ) -> (
        EventQueue<u32>,
        std::collections::BinaryHeap<T>,
        impl FnMut() -> u64,
    ) {
        (
            EventQueue::new(),
            std::collections::BinaryHeap::new(),
            xorshift(seed),
        )
    }

    /// The grow-and-shrink workload of the lane tests: how many pushes a
    /// step makes (more while growing), each push's time (within 40 ns of
    /// `now`) and whether it is a timer (one in eight), and how many pops
    /// follow (more while shrinking).
    fn pushes_in_step(next: &mut impl FnMut() -> u64, growing: bool) -> u64 {
        if growing {
            next() % 3
        } else {
            next() % 2
        }
    }

    fn push_draw(next: &mut impl FnMut() -> u64, now: Nanos) -> (Nanos, bool) {
        let r = next();
        (now + r % 40, r % 8 == 0)
    }

    fn pops_in_step(next: &mut impl FnMut() -> u64, growing: bool) -> u64 {
        if growing {
            next() % 2
        } else {
            1 + next() % 2
        }
    }

    #[test]
    fn earliest_first_then_fifo() {
        let mut q = EventQueue::<u32>::new();
        q.push(5, 2);
        q.push(1, 0);
        q.push(5, 3);
        q.push(1, 1);
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![0, 1, 2, 3]);
    }

    /// Interleaved pushes (to both lanes) and pops (the hole at the root)
    /// against a sorted reference, with many equal times; with
    /// `seq_limit`, renumbering every that many pushes.
    fn against_reference(seq_limit: Option<u64>) {
        let mut q = EventQueue::<u32>::new();
        if let Some(l) = seq_limit {
            q.seq_limit = l;
        }
        let mut reference: Vec<(Nanos, u32)> = Vec::new();
        let mut next = xorshift(12345);
        let mut id = 0u32;
        let mut now = 0;
        let mut max_len = 0;
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
                id = (id + 1) % CODE_LIMIT;
            }
            if step % 7 != 0 {
                if let Some((t, e)) = q.pop() {
                    // ids rise with insertion: (time, id) is the order
                    let i = (0..reference.len()).min_by_key(|&i| reference[i]).unwrap();
                    assert_eq!((t, e), reference.remove(i));
                    now = t;
                }
            }
            assert_eq!(q.len(), reference.len());
            assert_timer_top(&q);
            max_len = max_len.max(q.len());
        }
        assert!(max_len > 1000, "the heaps must grow deep: {max_len}");
        assert_eq!(q.peek_time(), reference.iter().map(|r| r.0).min());
    }

    /// The kept key is the earliest timer's (`EventQueue::timer_top`), and
    /// the timer heap, its hole aside, is a heap.
    fn assert_timer_top(q: &EventQueue<u32>) {
        let t = &q.lanes[1];
        let live = &t.heap[t.hole as usize..];
        assert_eq!(
            q.timer_top,
            live.iter().copied().min().unwrap_or(NO_TIMER_KEY)
        );
        for i in 1 + t.hole as usize..t.heap.len() {
            let p = (i - 1) / 2;
            assert!(
                p == 0 && t.hole || t.heap[p] < t.heap[i],
                "heap order at {i}"
            );
        }
    }

    #[test]
    fn matches_a_sorted_reference() {
        against_reference(None);
    }

    #[test]
    fn renumbering_keeps_the_order() {
        // renumbered about every 1,000 pushes, with ~thousands queued
        against_reference(Some(5_003));
    }

    /// The event lane in both of its forms (`Lane::sorted`): the queue grows
    /// past `SORTED_MAX` events and shrinks below `SORTED_BACK` again and
    /// again, with equal times and timers beside, and the pops come in
    /// exactly (time, push order) against a reference; while sorted the
    /// lane is in strictly descending order with no hole.
    #[test]
    fn the_event_lane_changes_form_and_keeps_the_order() {
        use std::cmp::Reverse;
        let (mut q, mut reference, mut next) = against(2027);
        let (mut id, mut now, mut seq) = (0u32, 0, 0u64);
        let (mut to_heap, mut to_sorted) = (0, 0);
        let mut was_sorted = q.lanes[0].sorted;
        for step in 0..60_000u64 {
            // phases of growth (up to about 100 queued) and of shrinking
            // (down to none)
            let growing = (step / 600) % 2 == 0;
            for _ in 0..pushes_in_step(&mut next, growing) {
                let (t, timer) = push_draw(&mut next, now);
                if timer {
                    q.push_timer(t, id);
                } else {
                    q.push(t, id);
                }
                reference.push(Reverse((t, seq, id)));
                seq += 1;
                id = (id + 1) % CODE_LIMIT;
            }
            for _ in 0..pops_in_step(&mut next, growing) {
                let want = reference.pop().map(|Reverse((t, _, e))| (t, e));
                assert_eq!(q.pop(), want, "step {step}");
                if let Some((t, _)) = want {
                    now = t;
                }
            }
            let lane = &q.lanes[0];
            if lane.sorted {
                assert!(!lane.hole, "a sorted lane has no hole");
                assert!(lane.heap.is_empty(), "a sorted lane's heap is empty");
                assert!(lane.small_len <= SORTED_MAX);
                assert!(
                    lane.small[..lane.small_len].windows(2).all(|w| w[0] > w[1]),
                    "descending at step {step}"
                );
            }
            match (was_sorted, lane.sorted) {
                (true, false) => to_heap += 1,
                (false, true) => to_sorted += 1,
                _ => {}
            }
            was_sorted = lane.sorted;
            assert_eq!(q.len(), reference.len());
            assert_timer_top(&q);
        }
        assert!(to_heap >= 10 && to_sorted >= 10, "{to_heap} {to_sorted}");
    }

    /// `pop_sorted` reads the sorted form's array without testing the
    /// lane's form: a heap lane with an entry left in the array would pop
    /// it ahead of the heap's. Checked builds catch the state at the pop.
    #[test]
    #[should_panic(expected = "a heap event lane holds sorted entries")]
    fn a_heap_lane_with_sorted_entries_is_caught() {
        let mut q: EventQueue<u32> = EventQueue::new();
        for i in 0..=SORTED_MAX as u32 {
            q.push(1_000 + i as Nanos, i);
        }
        assert!(!q.lanes[0].sorted, "the lane became a heap");
        // a stale entry, earlier than the heap's, in the sorted array
        q.lanes[0].small[0] = 5u128 << 64;
        q.lanes[0].small_len = 1;
        let _ = q.pop();
    }

    /// The timer heap's hole (`pop_timer`): timers popped and re-armed as
    /// the engine does (most timer pops followed by a timer push, some by
    /// none, so that two timer pops meet a hole), many due at once or at
    /// equal times, some far ahead, stale ones left behind, with events
    /// beside and the heap from empty to about a hundred timers. Pops come
    /// in exactly (time, push order) against a reference priority queue,
    /// and `assert_timer_top` checks the kept key after every step.
    #[test]
    fn the_timer_heap_hole_keeps_the_order() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let (mut q, mut reference, mut next) = against(1628);
        let (mut id, mut now, mut seq) = (0u32, 0, 0u64);
        let (mut timer_pops, mut holes_met, mut max_timers) = (0u32, 0u32, 0);
        let mut push = |q: &mut EventQueue<u32>, reference: &mut BinaryHeap<_>, r: u64, now| {
            let (t, timer) = match r % 8 {
                0 => (now + r % 30, false),            // an event
                1 => (now, true),                      // a timer due now
                2 | 3 => (now + r % 64, true),         // soon, equal times
                _ => (now + 1_000 + r % 50_000, true), // far ahead
            };
            if timer {
                q.push_timer(t, id);
            } else {
                q.push(t, id);
            }
            reference.push(Reverse((t, seq, id, timer)));
            seq += 1;
            id = (id + 1) % CODE_LIMIT;
        };
        for step in 0..80_000u64 {
            let growing = (step / 700) % 2 == 0;
            for _ in 0..(if growing { next() % 3 } else { next() % 2 }) {
                push(&mut q, &mut reference, next(), now);
            }
            for _ in 0..(if growing { next() % 2 } else { 1 + next() % 2 }) {
                let hole = q.lanes[1].hole;
                let want = reference.pop();
                let got = q.pop();
                assert_eq!(got, want.map(|Reverse((t, _, e, _))| (t, e)), "step {step}");
                let Some(Reverse((t, _, _, timer))) = want else {
                    break;
                };
                now = t;
                if timer {
                    timer_pops += 1;
                    holes_met += hole as u32;
                    // the re-arm, mostly
                    if next() % 4 != 0 {
                        let r = next() | 1; // any timer, not an event
                        push(&mut q, &mut reference, r, now);
                    }
                }
                assert_timer_top(&q);
            }
            assert_eq!(q.len(), reference.len());
            assert_timer_top(&q);
            max_timers = max_timers.max(q.lanes[1].len());
        }
        assert!(
            timer_pops >= 20_000 && holes_met >= 1_000,
            "{timer_pops} {holes_met}"
        );
        assert!(max_timers >= 64, "{max_timers}");
    }

    /// `pop_code_hinted`'s answer is `hints_from` asked after the pop, in
    /// both forms of the event lane (the sorted one's own path answers no
    /// without asking), and its pops are `pop_code`'s: the queue grows past
    /// `SORTED_MAX` (a heap, where the threshold holds) and shrinks to a
    /// sorted lane again, with timers beside.
    #[test]
    fn the_hinted_pop_answers_as_hints_from() {
        let (mut q, mut plain) = (EventQueue::<u32>::new(), EventQueue::<u32>::new());
        let mut next = xorshift(28);
        let (mut id, mut now) = (0u32, 0);
        let n = 20;
        let (mut yes, mut no) = (0, 0);
        for step in 0..40_000u64 {
            let growing = (step / 500) % 2 == 0;
            for _ in 0..pushes_in_step(&mut next, growing) {
                let (t, timer) = push_draw(&mut next, now);
                if timer {
                    q.push_timer(t, id);
                    plain.push_timer(t, id);
                } else {
                    q.push(t, id);
                    plain.push(t, id);
                }
                id = (id + 1) % CODE_LIMIT;
            }
            for _ in 0..pops_in_step(&mut next, growing) {
                let got = q.pop_code_hinted(n);
                assert_eq!(got.map(|(t, c, _)| (t, c)), plain.pop_code(), "step {step}");
                if let Some((t, _, hints)) = got {
                    assert_eq!(hints, q.hints_from(n), "step {step}");
                    if hints {
                        yes += 1;
                    } else {
                        no += 1;
                    }
                    now = t;
                }
            }
        }
        assert!(yes >= 1_000 && no >= 1_000, "{yes} {no}");
    }

    /// Tens of thousands of queued events, as at 10,000 connections: the
    /// calendar (`crate::calendar`) turns on, and pops still come in exactly
    /// (time, push order), through many bucket refills and passes, with
    /// near and far pushes, equal times, timers beside them and a
    /// renumbering in the middle.
    #[test]
    fn the_calendar_keeps_the_exact_order_at_scale() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let (mut q, mut reference, mut next) = against(99);
        q.seq_limit = 150_001;
        let (mut id, mut now, mut seq) = (0u32, 0, 0u64);
        let mut push = |q: &mut EventQueue<u32>, reference: &mut BinaryHeap<_>, t, timer| {
            if timer {
                q.push_timer(t, id);
            } else {
                q.push(t, id);
            }
            reference.push(Reverse((t, seq, id)));
            seq += 1;
            id = (id + 1) % CODE_LIMIT;
        };
        for _ in 0..20_000 {
            push(&mut q, &mut reference, next() % 1_000_000, false);
        }
        assert!(q.cal.is_on(), "20,000 events turn the calendar on");
        let mut popped = 0;
        for step in 0..400_000u64 {
            // a burst of events then a quiet phase: the pop rate, and with
            // it the bucket width, changes between passes
            let far = if step % 100_000 < 50_000 {
                1_000_000
            } else {
                50_000_000
            };
            for _ in 0..(next() % 3) {
                let r = next();
                let t = match r % 4 {
                    0 => now,           // due now: the heap
                    1 => now + r % 64,  // soon, equal times likely
                    2 => now + r % far, // the calendar or beyond
                    _ => now + 1_000 + r % 5_000,
                };
                push(&mut q, &mut reference, t, r % 16 == 0);
            }
            if step % 3 != 0 || q.len() > 30_000 {
                let Reverse((t, _, e)) = reference.pop().expect("never empty");
                assert_eq!(q.pop(), Some((t, e)), "pop {popped}");
                now = t;
                popped += 1;
            }
            assert_eq!(q.len(), reference.len());
            assert_timer_top(&q);
        }
        while let Some(Reverse((t, _, e))) = reference.pop() {
            assert_eq!(q.pop(), Some((t, e)));
        }
        assert_eq!(q.pop(), None);
        assert!(popped > 200_000);
    }

    /// `Lane::heapify` (the calendar's bucket handed to the heap, docs/
    /// performance.md "Session 24") leaves a heap of the same keys, which
    /// pops them in sorted order, for sizes around the powers of two.
    #[test]
    fn a_heapified_bucket_pops_in_key_order() {
        let mut next = xorshift(0x2545_f491);
        for n in [0usize, 1, 2, 3, 7, 8, 9, 63, 64, 65, 200] {
            let mut keys: Vec<u128> = (0..n as u64)
                .map(|i| ((next() % 50) as u128) << 64 | i as u128)
                .collect();
            let mut lane = Lane::new(true);
            lane.buffer().extend(&keys);
            lane.heapify();
            let h = &lane.heap;
            for i in 1..h.len() {
                assert!(h[(i - 1) / 2] < h[i], "heap order at {i} of {n}");
            }
            let mut popped = Vec::new();
            while let Some(&k) = lane.top() {
                popped.push(k);
                lane.hole = true;
                if lane.len() == 0 {
                    break;
                }
            }
            keys.sort_unstable();
            assert_eq!(popped, keys);
        }
    }

    /// The sorted lane compares times alone (`Lane::insert_sorted`),
    /// which orders the keys only because each key pushed was numbered
    /// after those queued: a key numbered earlier than a queued one of the
    /// same time is caught in checked builds (without the check it would be
    /// queued after it, out of key order, and the test fails: no panic).
    #[test]
    #[should_panic(expected = "which was numbered later")]
    fn a_sorted_push_numbered_before_a_queued_key_is_caught() {
        const { assert!(invariants::ENABLED, "the sim's tests build with invariants") };
        let mut lane = Lane::new(true);
        lane.insert_sorted::<true>(5u128 << 64 | 2 << CODE_BITS);
        lane.insert_sorted::<true>(5u128 << 64 | 1 << CODE_BITS);
    }

    /// Keys pushed as `EventQueue::push_to` numbers them (times in any
    /// order, ties included) leave the sorted lane in descending key order.
    #[test]
    fn the_sorted_lane_orders_keys_by_time_then_number() {
        let mut next = xorshift(0x9e37_79b9);
        let mut lane = Lane::new(true);
        let mut keys = Vec::new();
        for seq in 0..SORTED_MAX as u64 {
            let k = ((next() % 4) as u128) << 64 | ((seq << CODE_BITS) | (seq % 3)) as u128;
            lane.insert_sorted::<true>(k);
            keys.push(k);
        }
        keys.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(&lane.small[..lane.small_len], &keys[..]);
    }

    #[test]
    fn codes_round_trip_beside_large_times_and_sequences() {
        let mut q = EventQueue::<u32>::new();
        q.seq = SEQ_LIMIT - 2;
        q.push(u64::MAX - 1, CODE_LIMIT - 1);
        q.push(u64::MAX - 1, 7);
        q.push_timer(3, 0); // renumbers first
        assert_eq!(q.seq, 3);
        assert_eq!(q.pop(), Some((3, 0)));
        assert_eq!(q.pop(), Some((u64::MAX - 1, CODE_LIMIT - 1)));
        assert_eq!(q.pop(), Some((u64::MAX - 1, 7)));
        assert_eq!(q.pop(), None);
    }
}
