//! An ordered map from sequence numbers to values for the MPTCP queues whose
//! keys arrive almost always in increasing order and leave from the front:
//! the sender's in-flight segments by DSN, each subflow's received mappings
//! by subflow sequence number, and the connection-level out-of-order queue.
//!
//! It is a `VecDeque` sorted by key. Appending a key larger than every key
//! present and removing the smallest are O(1) without allocation (a
//! `BTreeMap` allocates and frees nodes on that path, which showed up in
//! the profile of every data packet); an out-of-order key is placed by
//! binary search and shifts the shorter side. Iteration order and contents
//! are those of a `BTreeMap` with the same operations.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct SeqMap<V> {
    q: VecDeque<(u64, V)>,
}

impl<V> Default for SeqMap<V> {
    fn default() -> Self {
        SeqMap { q: VecDeque::new() }
    }
}

impl<V> SeqMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Position of `key`: Ok(index) if present, Err(insertion index) if not.
    fn find(&self, key: u64) -> Result<usize, usize> {
        match self.q.back() {
            None => Err(0),
            Some(&(k, _)) if key > k => Err(self.q.len()),
            _ => self.q.binary_search_by(|(k, _)| k.cmp(&key)),
        }
    }

    /// The value at `key`, inserting `make()` first if absent (the
    /// `entry(key).or_insert_with(make)` of a `BTreeMap`). The bool is true
    /// when it was inserted.
    #[inline]
    pub fn get_or_insert_with(&mut self, key: u64, make: impl FnOnce() -> V) -> (&mut V, bool) {
        // The common case, a new largest key (every data segment sent, most
        // received), inline in the caller; the rest out of line.
        if self.q.back().is_none_or(|&(k, _)| key > k) {
            self.q.push_back((key, make()));
            return (&mut self.q.back_mut().expect("just pushed").1, true);
        }
        self.get_or_insert_slow(key, make)
    }

    #[inline(never)]
    fn get_or_insert_slow(&mut self, key: u64, make: impl FnOnce() -> V) -> (&mut V, bool) {
        match self.q.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => (&mut self.q[i].1, false),
            Err(i) => {
                self.q.insert(i, (key, make()));
                (&mut self.q[i].1, true)
            }
        }
    }

    pub fn get(&self, key: u64) -> Option<&V> {
        self.find(key).ok().map(|i| &self.q[i].1)
    }

    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        self.find(key).ok().map(|i| &mut self.q[i].1)
    }

    /// The entry with the smallest key.
    pub fn first(&self) -> Option<(u64, &V)> {
        self.q.front().map(|(k, v)| (*k, v))
    }

    /// Remove and return the entry with the smallest key.
    pub fn pop_first(&mut self) -> Option<(u64, V)> {
        self.q.pop_front()
    }

    /// Entries in increasing key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        self.q.iter().map(|(k, v)| (*k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Same answers as a BTreeMap under a mix of in-order and out-of-order
    /// inserts, duplicates, lookups and front removals.
    #[test]
    fn behaves_like_a_btreemap() {
        let mut m = SeqMap::new();
        let mut b = BTreeMap::new();
        let mut x: u64 = 12345;
        let mut next_key = 0u64;
        for step in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 33) % 10;
            match r {
                0..=4 => {
                    // mostly increasing keys, sometimes an older or a repeated one
                    let key = if r == 0 {
                        next_key.saturating_sub((x >> 40) % 50)
                    } else {
                        next_key
                    };
                    next_key += 1 + (x >> 50) % 3;
                    let (v, ins) = m.get_or_insert_with(key, || step);
                    *v += 1;
                    let bins = !b.contains_key(&key);
                    *b.entry(key).or_insert(step) += 1;
                    assert_eq!(ins, bins);
                }
                5..=7 => assert_eq!(m.pop_first(), b.pop_first()),
                _ => {
                    let key = next_key.saturating_sub((x >> 40) % 60);
                    assert_eq!(m.get(key), b.get(&key));
                }
            }
            assert_eq!(m.len(), b.len());
            assert_eq!(m.first(), b.iter().next().map(|(k, v)| (*k, v)));
        }
        assert!(m.iter().eq(b.iter().map(|(k, v)| (*k, v))));
    }
}
