//! A software prefetch hint: ask the CPU to start loading the cache line
//! holding `*p` while it goes on with other work. At thousands of
//! connections almost every record an event touches is a cache miss, and
//! the event queue says which records the next events will touch
//! (docs/performance.md "Scale"), so their loads can overlap the current
//! event's work instead of running one after another. A hint only: it never
//! faults, reads nothing the program sees and cannot change a result.

/// Start loading the cache line of `p` into all cache levels.
#[inline(always)]
pub fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint; it does not dereference `p` in the
    // program's sense (no fault for any address) and `sse`, the feature it
    // needs, is part of the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `line` for every cache line of `*p` (records that straddle two lines).
#[inline(always)]
pub fn record<T>(p: *const T) {
    line(p);
    let last = (p as *const u8).wrapping_add(std::mem::size_of::<T>().saturating_sub(1));
    if (last as usize) >> 6 != (p as usize) >> 6 {
        line(last);
    }
}
