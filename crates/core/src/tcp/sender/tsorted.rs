use super::*;

impl PathSender {
    // ---- RACK's time-ordered list -------------------------------------------

    /// Id of the segment at index `i`.
    #[inline]
    pub(super) fn id_at(&self, i: usize) -> u32 {
        self.sb_base.wrapping_add(i as u32)
    }

    /// Index of the segment with id `id`.
    #[inline]
    pub(super) fn idx_of_id(&self, id: u32) -> usize {
        id.wrapping_sub(self.sb_base) as usize
    }

    /// Take segment `i` out of the time-ordered list, if it is in it.
    #[inline(always)]
    pub(super) fn ts_unlink(&mut self, i: usize) {
        let s = self.sb[i];
        if !s.has(TSORTED) {
            return;
        }
        self.sb[i].flags &= !TSORTED;
        self.ts_len -= 1;
        if self.ts_len == 0 {
            return;
        }
        self.ts_bridge(self.id_at(i), &s);
    }

    /// Close the list over segment `id` (`s`, already counted out of a list
    /// that is not empty): its neighbours, or the head or tail, point past it.
    #[inline(always)]
    fn ts_bridge(&mut self, id: u32, s: &Seg) {
        if id == self.ts_head {
            self.ts_head = s.ts_next;
        } else if id == self.ts_tail {
            self.ts_tail = s.ts_prev;
        } else {
            let (p, n) = (self.idx_of_id(s.ts_prev), self.idx_of_id(s.ts_next));
            self.sb[p].ts_next = s.ts_next;
            self.sb[n].ts_prev = s.ts_prev;
        }
    }

    /// Put segment `i` (not in the list) into the time-ordered list at its
    /// place; a segment just (re)transmitted goes to the tail, in O(1).
    pub(super) fn ts_insert(&mut self, i: usize) {
        debug_assert!(!self.sb[i].has(TSORTED));
        let id = self.id_at(i);
        let key = self.sb[i].ts_key();
        self.sb[i].flags |= TSORTED;
        if self.ts_len == 0 {
            self.ts_head = id;
            self.ts_tail = id;
            self.ts_len = 1;
            return;
        }
        self.ts_len += 1;
        // the last member sent before this one, looking back from the tail
        let mut cur = self.ts_tail;
        loop {
            let c = self.idx_of_id(cur);
            if self.sb[c].ts_key() < key {
                let next = self.sb[c].ts_next;
                self.sb[i].ts_prev = cur;
                self.sb[i].ts_next = next;
                self.sb[c].ts_next = id;
                if cur == self.ts_tail {
                    self.ts_tail = id;
                } else {
                    let n = self.idx_of_id(next);
                    self.sb[n].ts_prev = id;
                }
                return;
            }
            if cur == self.ts_head {
                self.sb[i].ts_next = cur;
                self.sb[c].ts_prev = id;
                self.ts_head = id;
                return;
            }
            cur = self.sb[c].ts_prev;
        }
    }

    /// Unit-test builds check after every ACK, timeout and transmission
    /// decision that the list holds exactly the walkable segments that are
    /// not zombies, in (time, end) order, and that the counts agree.
    #[cfg(test)]
    pub(super) fn check_rack_list(&self) {
        let mut id = self.ts_head;
        let mut prev: Option<TxOrder> = None;
        for _ in 0..self.ts_len {
            let s = self.sb[self.idx_of_id(id)];
            assert!(
                s.has(TSORTED) && s.walkable() && !s.has(ZOMBIE),
                "list member {s:?}"
            );
            assert!(
                prev.is_none_or(|p| p < s.ts_key()),
                "list out of order at {s:?}"
            );
            prev = Some(s.ts_key());
            id = s.ts_next;
        }
        for s in &self.sb {
            if s.walkable() {
                assert!(s.has(TSORTED) != s.has(ZOMBIE), "walkable {s:?}");
            } else {
                assert!(!s.has(TSORTED) && !s.has(ZOMBIE), "not walkable {s:?}");
            }
        }
        assert_eq!(
            self.sb.iter().filter(|s| s.has(TSORTED)).count(),
            self.ts_len as usize
        );
        assert_eq!(
            self.sb.iter().filter(|s| s.has(ZOMBIE)).count(),
            self.zombies as usize
        );
    }

    /// Segment `i` stops being a zombie, if it was one.
    #[inline]
    pub(super) fn unzombie(&mut self, i: usize) {
        if self.sb[i].has(ZOMBIE) {
            self.sb[i].flags &= !ZOMBIE;
            self.zombies -= 1;
        }
    }

    /// Segment `i` got SACKed or is about to be acknowledged: out of RACK's view.
    #[inline]
    pub(super) fn ts_forget(&mut self, i: usize) {
        self.ts_unlink(i);
        self.unzombie(i);
    }

    /// `ts_forget(0)`, then the front segment taken off the scoreboard
    /// (`sb_base` moved past it), in one step: the cumulative ACK's loop
    /// (Linux `tcp_clean_rtx_queue`) does this for every acknowledged
    /// segment, and the segment is read once here instead of indexed in the
    /// deque for each test. The same list, flags and counts as the two steps.
    #[inline(always)]
    pub(super) fn pop_front_forgotten(&mut self) -> Seg {
        let mut s = self.sb.pop_front().expect("a segment to acknowledge");
        let id = self.sb_base;
        self.sb_base = self.sb_base.wrapping_add(1);
        if s.has(TSORTED) {
            s.flags &= !TSORTED;
            self.ts_len -= 1;
            if self.ts_len != 0 {
                // (indexes after the pop: `sb_base` already moved)
                self.ts_bridge(id, &s);
            }
        }
        if s.has(ZOMBIE) {
            s.flags &= !ZOMBIE;
            self.zombies -= 1;
        }
        s
    }

    /// Segment `i` was just marked lost outside RACK: out of the list unless
    /// still walkable (a retransmission in flight).
    #[inline]
    pub(super) fn ts_after_lost_mark(&mut self, i: usize) {
        if !self.sb[i].walkable() {
            self.ts_unlink(i);
        }
    }

    /// Rebuild the list from the scoreboard: every walkable segment, no
    /// zombies (after `undo` forgot the loss marks).
    pub(super) fn ts_rebuild(&mut self) {
        let mut idx: Vec<usize> = Vec::new();
        for (i, s) in self.sb.iter_mut().enumerate() {
            s.flags &= !(TSORTED | ZOMBIE);
            if s.walkable() {
                idx.push(i);
            }
        }
        self.ts_len = 0;
        self.zombies = 0;
        idx.sort_unstable_by_key(|&i| self.sb[i].ts_key());
        for i in idx {
            self.ts_insert(i);
        }
    }
}
