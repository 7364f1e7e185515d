//! A map from host address to a small value for the routers' hashed routes
//! (`crate::routes::Routes::Hashed`), laid out for the `clients` preset's
//! address plan.
//!
//! That plan numbers addresses consecutively (servers 10.1.0.1.., path k's
//! client interfaces 10.(64k).0.1.., `mptlab_scenario::population`), so the
//! addresses form a few dense runs. A value is then found by its run's start
//! (a search among a few starts, which stay in the L1 cache) and one load
//! from a flat array of 12-byte slots: at 10,000 MPTCP clients that array
//! is 240 KiB and mostly stays in the L2 cache, where the hash map it replaces
//! (control bytes, then the entry: two dependent loads, each a cache miss
//! at that scale) was 5 % of the run's time (docs/performance.md "Session
//! 12"). Addresses that do not form few dense runs keep the hash map.

use mptlab_core::packet::Addr;

use crate::routes::IntMap;

/// At most this many runs (the clients plan has one per path plus the
/// servers'); more and a lookup's search is no longer a few compares.
const MAX_RUNS: usize = 16;
/// Addresses at most this far apart share a run (the gap is filled with
/// empty slots).
const MAX_GAP: u32 = 64;

/// An address's value, or none.
pub enum AddrIndex {
    /// Runs of addresses: run r covers `start[r] .. start[r] + len[r]` and
    /// its values are `vals[at[r] ..]`, `None` in the gaps.
    Runs {
        start: Vec<Addr>,
        len: Vec<u32>,
        at: Vec<u32>,
        vals: Vec<Option<(u32, u32)>>,
    },
    Hashed(IntMap<Addr, (u32, u32)>),
}

impl AddrIndex {
    /// The index of `entries` (addresses unique).
    pub fn new(mut entries: Vec<(Addr, (u32, u32))>) -> AddrIndex {
        entries.sort_unstable_by_key(|e| e.0);
        let (mut start, mut len, mut at) = (Vec::new(), Vec::<u32>::new(), Vec::new());
        let mut vals: Vec<Option<(u32, u32)>> = Vec::with_capacity(entries.len());
        for &(a, v) in &entries {
            let last = start.len().checked_sub(1);
            match last {
                Some(r) if a - start[r] - len[r] < MAX_GAP => {
                    // a is past the run's end (sorted, unique): fill the gap
                    let end = start[r] + len[r];
                    vals.extend(std::iter::repeat_n(None, (a - end) as usize));
                    vals.push(Some(v));
                    len[r] = a - start[r] + 1;
                }
                _ => {
                    if start.len() == MAX_RUNS {
                        return AddrIndex::Hashed(entries.into_iter().collect());
                    }
                    start.push(a);
                    len.push(1);
                    at.push(u32::try_from(vals.len()).expect("fewer than 2^32 slots"));
                    vals.push(Some(v));
                }
            }
        }
        AddrIndex::Runs {
            start,
            len,
            at,
            vals,
        }
    }

    #[inline]
    pub fn get(&self, a: Addr) -> Option<(u32, u32)> {
        match self {
            AddrIndex::Runs {
                start,
                len,
                at,
                vals,
            } => {
                // the last run starting at or before a: the starts are
                // sorted, so it is the count of those at or below a, less
                // one; a count over the few starts (at most `MAX_RUNS`)
                // has no data-dependent branch, where the binary search
                // had one per step (docs/performance.md "Session 24")
                let r = start
                    .iter()
                    .fold(0usize, |n, &s| n + (s <= a) as usize)
                    .checked_sub(1)?;
                let off = a - start[r];
                if off < len[r] {
                    vals[(at[r] + off) as usize]
                } else {
                    None
                }
            }
            AddrIndex::Hashed(m) => m.get(&a).copied(),
        }
    }

    /// Whether the runs layout is in use (for tests).
    #[cfg(test)]
    pub fn is_runs(&self) -> bool {
        matches!(self, AddrIndex::Runs { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn check(addrs: &[Addr], runs: bool) {
        let entries: Vec<(Addr, (u32, u32))> = addrs
            .iter()
            .enumerate()
            .map(|(i, &a)| (a, (i as u32, a ^ 7)))
            .collect();
        let m: HashMap<Addr, (u32, u32)> = entries.iter().copied().collect();
        let ix = AddrIndex::new(entries.clone());
        assert_eq!(ix.is_runs(), runs);
        for &(a, v) in &entries {
            assert_eq!(ix.get(a), Some(v), "{a:x}");
        }
        // neighbours of every address, and the extremes
        for &a in addrs {
            for b in [
                a.wrapping_sub(1),
                a.wrapping_add(1),
                a.wrapping_add(MAX_GAP),
            ] {
                assert_eq!(ix.get(b), m.get(&b).copied(), "{b:x}");
            }
        }
        for b in [0, 1, u32::MAX] {
            assert_eq!(ix.get(b), m.get(&b).copied());
        }
    }

    /// The clients plan (servers, then one block per path, consecutive),
    /// with holes, and addresses at the ends of the range.
    #[test]
    fn dense_runs_find_every_address_and_nothing_else() {
        let mut a: Vec<Addr> = (0..100).map(|j| 0x0a01_0001 + j).collect();
        a.extend((0..1000).map(|i| 0x0a40_0001 + i));
        a.extend((0..1000).filter(|i| i % 7 != 0).map(|i| 0x0a80_0001 + i));
        a.push(0x0a80_0001 + 1000 + MAX_GAP);
        a.push(u32::MAX);
        a.push(0);
        check(&a, true);
        check(&[], true);
    }

    /// Scattered addresses (more runs than `MAX_RUNS`) keep the hash map.
    #[test]
    fn scattered_addresses_are_hashed() {
        let a: Vec<Addr> = (0..40u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        check(&a, false);
    }
}
