//! The event heap's far part at scale: a calendar of time buckets
//! (a two-tier ladder queue, Tang, Goh and Thng 2005) holding the packet
//! arrivals that are not due soon, so that the binary heap only ever holds
//! the arrivals of the current bucket.
//!
//! Why: at 10,000 connections the arrival heap holds tens of thousands of
//! entries, and the common push (the next arrival on the link just popped,
//! a serialisation time or more ahead) sifted from the root to near the
//! leaves: a chain of dependent loads, the deep ones cache misses, about a
//! tenth of a run's time (docs/performance.md "Session 13"). Here a push
//! beyond the current bucket is an append to an unsorted bucket; a bucket
//! becomes the heap's content only when the heap runs dry, heapified then.
//!
//! Exact: the heap holds every key whose time is below `bot_end`, the
//! buckets and the overflow (`top`) every other one, bucket `i` the times
//! `[start + i w, start + (i + 1) w)`. So the heap's least key, while it
//! has one, is the least of all; when it is empty the first non-empty
//! bucket holds the least keys, and made a heap by the full key (time, then
//! push sequence) they pop in exactly the heap's order.
//!
//! Off (everything in the heap, `bot_end` the largest time) until the
//! heap first holds `SPILL_FROM` entries: small runs (the htsim benchmark,
//! every single-client scenario) never pay for it.

use mptlab_core::Nanos;

use crate::events::Lane;

/// Turn the calendar on when the event heap holds this many entries.
pub const SPILL_FROM: usize = 8192;
/// Buckets in one pass of the calendar (`rebuild`).
const BUCKETS: usize = 4096;
/// Entries a bucket should receive (bucket width = this many events at the
/// recent pop rate): the heap stays a few cache lines deep.
const PER_BUCKET: u64 = 64;
/// Pops between two measurements of the pop rate (`rebuild`).
const RATE_MIN_POPS: u64 = 1024;
/// Buckets of a pass whose width is a guess (no pop rate measured yet):
/// a short pass, after which the width follows the measured rate.
const GUESS_BUCKETS: usize = 64;
/// A bucket's buffer handed back with more room than this many keys is
/// dropped (after a pass of too wide buckets, which filled some with
/// thousands): the buckets' memory stays about `BUCKETS` x `PER_BUCKET`.
const KEEP_CAPACITY: usize = 8 * PER_BUCKET as usize;

pub struct Calendar {
    /// Keys with a time below this go to the heap (the largest time while
    /// the calendar is off).
    pub bot_end: Nanos,
    on: bool,
    buckets: Vec<Vec<u128>>,
    /// The first bucket that may hold keys (those before are empty).
    cur: usize,
    /// Buckets in this pass (`BUCKETS`, or `GUESS_BUCKETS`).
    nb: usize,
    start: Nanos,
    /// Bucket width `1 << shift` ns.
    shift: u32,
    /// `start + BUCKETS << shift`: keys at or beyond go to `top`.
    end: Nanos,
    /// Keys beyond the buckets, unsorted.
    top: Vec<u128>,
    /// Keys in the buckets and in `top`.
    held: usize,
    /// Pop count and time at the last `rebuild`, for the pop rate.
    rate_pops: u64,
    rate_time: Nanos,
}

#[inline(always)]
fn time_of(k: u128) -> Nanos {
    (k >> 64) as Nanos
}

impl Calendar {
    pub fn new() -> Self {
        Calendar {
            bot_end: Nanos::MAX,
            on: false,
            buckets: Vec::new(),
            cur: 0,
            nb: 0,
            start: 0,
            shift: 0,
            end: 0,
            top: Vec::new(),
            held: 0,
            rate_pops: 0,
            rate_time: 0,
        }
    }

    /// On: `spill` ran (and no `drain_all` since).
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Keys held outside the heap.
    #[inline(always)]
    pub fn held(&self) -> usize {
        self.held
    }

    /// Take a key at or beyond `bot_end`.
    #[inline(always)]
    pub fn push(&mut self, k: u128) {
        let t = time_of(k);
        debug_assert!(t >= self.bot_end);
        self.held += 1;
        if t < self.end {
            self.buckets[((t - self.start) >> self.shift) as usize].push(k);
        } else {
            self.top.push(k);
        }
    }

    /// The heap (`lane`) reached `SPILL_FROM` entries with the calendar
    /// off: move all of them here; the next `refill` sorts them into
    /// buckets.
    #[cold]
    #[inline(never)]
    pub fn spill(&mut self, lane: &mut Lane) {
        debug_assert!(!self.on);
        self.on = true;
        self.buckets = (0..BUCKETS).map(|_| Vec::new()).collect();
        let all = lane.drain_all();
        self.held += all.len();
        self.top.extend(all);
        // nothing below: every key now goes to `top` until `rebuild`
        self.bot_end = 0;
        self.start = 0;
        self.end = 0;
        self.cur = 0;
        self.nb = 0;
    }

    /// The heap (`lane`) is empty and this holds keys: give the heap the
    /// first non-empty bucket, as a heap. `popped`/`now`: the queue's pop
    /// count and the time of the last pop (for the bucket width).
    #[inline(never)]
    pub fn refill(&mut self, lane: &mut Lane, popped: u64, now: Nanos) {
        debug_assert!(lane.len() == 0 && self.held > 0);
        loop {
            while self.cur < self.nb && self.buckets[self.cur].is_empty() {
                self.cur += 1;
            }
            if self.cur < self.nb {
                break;
            }
            self.rebuild(popped, now);
        }
        let b = &mut self.buckets[self.cur];
        lane.clear();
        // the bucket's buffer becomes the heap's and the heap's (emptied)
        // the bucket's: no copy, and both keep their capacity
        std::mem::swap(lane.buffer(), b);
        if b.capacity() > KEEP_CAPACITY {
            *b = Vec::new();
        }
        // built as a heap in place (until session 24 sorted: a sorted
        // array is a heap too, but sorting cost more than the pops it saved)
        lane.heapify();
        self.held -= lane.len();
        self.cur += 1;
        self.bot_end = self.start + ((self.cur as u64) << self.shift);
    }

    /// Every bucket is empty: start a new pass at the least time in `top`,
    /// with a width of `PER_BUCKET` events at the recent pop rate, and
    /// sort `top` into it.
    #[cold]
    fn rebuild(&mut self, popped: u64, now: Nanos) {
        let start = self
            .top
            .iter()
            .map(|&k| time_of(k))
            .min()
            .expect("the calendar holds keys");
        let pops = popped - self.rate_pops;
        let rated = self.rate_time > 0 && pops >= RATE_MIN_POPS && now > self.rate_time;
        let width = if rated {
            ((now - self.rate_time) as u128 * PER_BUCKET as u128 / pops as u128) as u64
        } else {
            // no rate yet (just spilled): the keys' own spread, the time
            // within which the nearest quarter of them fall
            let mut ts: Vec<Nanos> = self.top.iter().map(|&k| time_of(k) - start).collect();
            let q = ts.len() / 4;
            let (_, &mut d, _) = ts.select_nth_unstable(q);
            (d as u128 * PER_BUCKET as u128 / (q as u128 + 1)) as u64
        };
        // measure the rate from here, unless a measurement is under way
        // (short guessed passes add up until it spans `RATE_MIN_POPS`)
        if rated || self.rate_time == 0 {
            self.rate_pops = popped;
            // (a time of 0 marks "no measurement yet")
            self.rate_time = now.max(1);
        }
        // a power of two, at most 2^40 ns (so that the pass's end fits)
        self.shift = (64 - width.max(1).leading_zeros()).min(40);
        self.nb = if rated { BUCKETS } else { GUESS_BUCKETS };
        self.start = start;
        self.end = start.saturating_add((self.nb as u64) << self.shift);
        self.cur = 0;
        // pushes below the new start (none are due before it: they are not
        // earlier than the last pop) go to the heap
        self.bot_end = start;
        let (end, shift) = (self.end, self.shift);
        let buckets = &mut self.buckets;
        self.top.retain(|&k| {
            let t = time_of(k);
            if t < end {
                buckets[((t - start) >> shift) as usize].push(k);
                false
            } else {
                true
            }
        });
    }

    /// Every key held, in no order; the calendar is off afterwards.
    pub fn drain_all(&mut self) -> Vec<u128> {
        let mut v = std::mem::take(&mut self.top);
        for b in &mut self.buckets {
            v.append(b);
        }
        *self = Calendar {
            rate_pops: self.rate_pops,
            rate_time: self.rate_time,
            ..Calendar::new()
        };
        v
    }
}

impl Default for Calendar {
    fn default() -> Self {
        Self::new()
    }
}
