//! A subflow's send queue skb by skb, as far as `sk_wmem_queued` (which
//! the upstream scheduler's linger time and room test read) counts it: the
//! payload plus one empty skb's truesize per skb
//! (`super::sndbuf::SKB_TRUESIZE_EMPTY`).
//!
//! Which skbs exist depends on how the data came and went, as in Linux 6.18:
//!
//! - *Queueing* (net/mptcp/protocol.c, `mptcp_sendmsg_frag`): data handed
//!   to the subflow is appended to the tail skb of its write queue when
//!   that skb is not transmitted yet, its mapping ends where the new data
//!   starts (`mptcp_skb_can_collapse_to`: `data_seq + data_len ==
//!   write_seq`, mapping not `frozen`) and it is below the size goal
//!   (`tcp_send_mss` -> `tcp_xmit_size_goal`, `copy = size_goal -
//!   skb->len`); otherwise a new skb is allocated (`mptcp_alloc_tx_skb`,
//!   charged by `tcp_skb_entail`). So every application write that finds
//!   the subflow's previous data already sent costs one more skb; a write
//!   that finds it still queued does not.
//! - *Transmission* (net/ipv4/tcp_output.c, `tcp_write_xmit`): an skb
//!   longer than what one transmission may send (`tcp_tso_autosize`, at
//!   least two segments, see `super::sndbuf::size_goal`; or what the
//!   congestion window allows) is cut by `tso_fragment`, which allocates
//!   and charges a new skb for the rest. The transmitted part of an skb is
//!   counted here as one skb per `size_goal` bytes sent in one round; an
//!   untransmitted rest is one more skb, whose mapping is frozen (it was
//!   written in the DSS of the transmitted part), so later data is not
//!   appended to it.
//! - *Acknowledgement* (`tcp_clean_rtx_queue`): an skb is freed when all of
//!   it is acknowledged; a partly acknowledged one keeps its overhead
//!   (`tcp_trim_head` gives back the payload only).
//!
//! Simplifications: retransmissions do not split skbs (`tcp_fragment` on a smaller MSS);
//! the frag limit (`sysctl_max_skb_frags`) is not applied.

use std::collections::VecDeque;

use super::sndbuf::SKB_TRUESIZE_EMPTY;

/// One skb: subflow sequence range, the DSN its mapping ends at, and
/// whether any of its data was transmitted (`sent`) or its mapping can no
/// longer grow (`frozen`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Skb {
    start: u64,
    end: u64,
    dsn_end: u64,
    sent: bool,
    frozen: bool,
}

/// The skbs of one subflow's write and retransmission queues, in sequence
/// order: the transmitted ones (`tcp_rtx_queue`) then the rest of the write
/// queue from the send head on (`tcp_send_head`).
///
/// Two queues rather than one with the send head's index: a transmission
/// cuts the send head into pieces, which then join the back of `sent`
/// while the untransmitted rest stays at the front of `unsent`. In one
/// queue each piece and each rest was an insertion in the middle (a bulk
/// sender has many 64 KB skbs queued behind the send head), which was most
/// of `on_xmit`'s cost (docs/performance.md "Session 16 pass").
#[derive(Clone, Debug, Default)]
pub struct SkbQueue {
    /// Skbs with data transmitted, in sequence order.
    sent: VecDeque<Skb>,
    /// Skbs not transmitted yet, in sequence order, all after `sent`'s.
    unsent: VecDeque<Skb>,
    /// A plain TCP socket's queue (`crate::tcp::sndbuf`): the untransmitted
    /// rest of a cut skb stays open for more data, as `tcp_sendmsg_locked`
    /// appends to the write queue's tail skb whenever
    /// `tcp_skb_can_collapse_to` holds (no `MSG_EOR`); only an MPTCP
    /// mapping freezes it.
    plain_tcp: bool,
}

impl SkbQueue {
    /// The queue of a plain TCP socket (no DSS mappings to freeze).
    pub fn plain_tcp() -> Self {
        SkbQueue {
            plain_tcp: true,
            ..Self::default()
        }
    }

    /// The write queue's tail skb.
    fn tail(&self) -> Option<&Skb> {
        self.unsent.back().or(self.sent.back())
    }

    /// Bytes a write of data at `sseq` / `dsn` may still append to the tail
    /// skb without allocating one (`copy = size_goal - skb->len` in
    /// `tcp_sendmsg_locked` / `mptcp_sendmsg_frag`): no memory check applies
    /// to them.
    pub fn tail_room(&self, sseq: u64, dsn: u64, goal: u64) -> u64 {
        match self.tail() {
            Some(t) if !t.sent && !t.frozen && t.end == sseq && t.dsn_end == dsn => {
                goal.max(1).saturating_sub(t.end - t.start)
            }
            _ => 0,
        }
    }

    /// `len` bytes at subflow sequence `sseq` carrying DSN `dsn` join the
    /// write queue (`mptcp_sendmsg_frag`); `goal` is the queued size goal
    /// (`super::sndbuf::xmit_size_goal`). Returns how many of the bytes
    /// joined the tail skb.
    pub fn entail(&mut self, sseq: u64, dsn: u64, len: u32, goal: u64) -> u64 {
        let goal = goal.max(1);
        let (mut sseq, mut dsn, mut left) = (sseq, dsn, len as u64);
        let mut joined = 0;
        // a transmitted tail (the back of `sent`, when nothing is unsent)
        // takes no more data: only the back of `unsent` can join
        if let Some(t) = self.unsent.back_mut() {
            if !t.sent && !t.frozen && t.end == sseq && t.dsn_end == dsn && t.end - t.start < goal {
                let take = left.min(goal - (t.end - t.start));
                t.end += take;
                t.dsn_end += take;
                sseq += take;
                dsn += take;
                left -= take;
                joined = take;
            }
        }
        while left > 0 {
            let take = left.min(goal);
            self.unsent.push_back(Skb {
                start: sseq,
                end: sseq + take,
                dsn_end: dsn + take,
                sent: false,
                frozen: false,
            });
            sseq += take;
            dsn += take;
            left -= take;
        }
        joined
    }

    /// The subflow has transmitted new data up to `snd_nxt` in one round
    /// (`tcp_write_xmit`), in pieces of at most `autosize` bytes
    /// (`tcp_tso_autosize`): each skb it reached is cut into the pieces
    /// sent and, if not all of it went out, a frozen rest (`tso_fragment`).
    pub fn on_xmit(&mut self, snd_nxt: u64, autosize: u64) {
        let autosize = autosize.max(1);
        while let Some(&s) = self.unsent.front() {
            if s.start >= snd_nxt {
                break;
            }
            let sent_end = s.end.min(snd_nxt);
            let mut a = s.start;
            while a < sent_end {
                let b = (a + autosize).min(sent_end);
                self.sent.push_back(Skb {
                    start: a,
                    end: b,
                    dsn_end: s.dsn_end - (s.end - b),
                    sent: true,
                    frozen: true,
                });
                a = b;
            }
            if sent_end < s.end {
                // the rest stays the send head, its mapping frozen
                if let Some(rest) = self.unsent.front_mut() {
                    rest.start = sent_end;
                    rest.frozen = !self.plain_tcp;
                }
                break;
            }
            self.unsent.pop_front();
        }
    }

    /// The queued skb holding sequence `seq` (the next byte to send, so
    /// `tcp_send_head` as `tso_fragment` would have cut it at `seq`): its
    /// bytes from `seq` on and whether it is the write queue's tail
    /// (`tcp_skb_is_last`), for `tcp_tso_should_defer`. None when no skb
    /// holds `seq`.
    #[inline]
    pub fn unsent_skb_at(&self, seq: u64) -> Option<(u64, bool)> {
        // The send head holds `seq` (almost always: `seq` is `snd_nxt`), or
        // nothing is unsent and every transmitted skb ends at or before
        // `seq`. Both are what the search below finds first: the unsent
        // skbs follow the transmitted ones in sequence order, so when the
        // front unsent skb holds `seq` every transmitted one ends at or
        // before it.
        let r = match self.unsent.front() {
            Some(f) if f.start <= seq && seq < f.end => Some((f.end - seq, self.unsent.len() == 1)),
            None if self.sent.back().is_none_or(|b| b.end <= seq) => None,
            _ => return self.skb_at_searched(seq),
        };
        #[cfg(any(debug_assertions, feature = "invariants"))]
        assert_eq!(r, self.skb_at_searched(seq), "send head at {seq}");
        r
    }

    /// `unsent_skb_at` by search: the first skb whose end is past `seq`.
    #[inline(never)]
    fn skb_at_searched(&self, seq: u64) -> Option<(u64, bool)> {
        let held = |s: &&Skb| s.start <= seq;
        // The first skb whose end is past `seq` (ends rise along the
        // queue), almost always the send head: `seq` is `snd_nxt`.
        let (s, last) = if self.sent.back().is_none_or(|b| b.end <= seq) {
            let i = match self.unsent.front() {
                Some(f) if f.end > seq => 0,
                _ => self.unsent.partition_point(|s| s.end <= seq),
            };
            (self.unsent.get(i), i + 1 == self.unsent.len())
        } else {
            let i = self.sent.partition_point(|s| s.end <= seq);
            (
                self.sent.get(i),
                i + 1 == self.sent.len() && self.unsent.is_empty(),
            )
        };
        let s = s.filter(held)?;
        Some((s.end - seq, last))
    }

    /// Free the skbs acknowledged up to `snd_una` (`tcp_clean_rtx_queue`).
    pub fn on_ack(&mut self, snd_una: u64) {
        let acked = |s: &Skb| s.end <= snd_una;
        while self.sent.front().is_some_and(acked) {
            self.sent.pop_front();
        }
        if self.sent.is_empty() {
            while self.unsent.front().is_some_and(acked) {
                self.unsent.pop_front();
            }
        }
    }

    /// Number of skbs held.
    pub fn len(&self) -> usize {
        self.sent.len() + self.unsent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sent.is_empty() && self.unsent.is_empty()
    }

    /// `sk_wmem_queued`: the `unacked` payload bytes held plus each skb's
    /// empty truesize.
    pub fn wmem_queued(&self, unacked: u64) -> u64 {
        if unacked == 0 {
            return 0;
        }
        unacked + self.len() as u64 * SKB_TRUESIZE_EMPTY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOAL: u64 = 65_320;

    /// `tcp_send_head` for TSO deferral: the skb holding the next byte to
    /// send, its bytes from there on, and whether it is the tail.
    #[test]
    fn unsent_skb_at_finds_the_send_head() {
        let mut q = SkbQueue::plain_tcp();
        q.entail(0, 0, 2 * GOAL as u32 + 100, GOAL);
        assert_eq!(q.len(), 3);
        assert_eq!(q.unsent_skb_at(0), Some((GOAL, false)));
        assert_eq!(q.unsent_skb_at(GOAL + 10), Some((GOAL - 10, false)));
        assert_eq!(q.unsent_skb_at(2 * GOAL), Some((100, true)));
        assert_eq!(q.unsent_skb_at(2 * GOAL + 100), None);
    }

    /// Two writes of one game message each: the second finds the first
    /// still queued and joins its skb; once that skb is sent, the next
    /// write needs a new one (kernel: 2292 bytes per 1460-byte message,
    /// 1460 more for one appended).
    #[test]
    fn writes_join_an_unsent_tail_skb_only() {
        let mut q = SkbQueue::default();
        q.entail(0, 100, 1460, GOAL);
        assert_eq!(q.wmem_queued(1460), 1460 + 832);
        assert_eq!(q.entail(1460, 1560, 1460, GOAL), 1460);
        assert_eq!(q.len(), 1, "appended to the unsent tail");
        q.on_xmit(2920, 2840);
        assert_eq!(q.len(), 2, "one round of 2920 bytes in 2840-byte pieces");
        assert_eq!(q.entail(2920, 3020, 1460, GOAL), 0);
        assert_eq!(q.len(), 3, "the tail was sent: a new skb");
        // DSN not contiguous (another subflow took data in between): new skb.
        q.entail(4380, 9000, 1460, GOAL);
        assert_eq!(q.len(), 4);
        q.on_ack(2840);
        assert_eq!(q.len(), 3);
        // partly acknowledged: the skb stays
        q.on_ack(2900);
        assert_eq!(q.len(), 3);
        assert_eq!(q.wmem_queued(5840 - 2900), 2940 + 3 * 832);
    }

    /// A video frame of 3958 bytes sent at once with a two-segment
    /// autosize: 2840 + 1118, two skbs (kernel: 5622 = 3958 + 2 x 832).
    #[test]
    fn a_transmission_cuts_by_autosize_and_freezes_the_rest() {
        let mut q = SkbQueue::default();
        q.entail(0, 0, 3958, GOAL);
        q.on_xmit(3958, 2840);
        assert_eq!(q.wmem_queued(3958), 3958 + 2 * 832);
        // Congestion window for one segment only: sent piece + frozen rest.
        let mut q = SkbQueue::default();
        q.entail(0, 0, 3958, GOAL);
        q.on_xmit(1420, 2840);
        assert_eq!(q.len(), 2);
        q.entail(3958, 3958, 100, GOAL);
        assert_eq!(q.len(), 3, "the frozen rest takes no more data");
        q.on_xmit(4058, 2840);
        assert_eq!(q.len(), 3);
        q.on_ack(4058);
        assert!(q.is_empty());
        assert_eq!(q.wmem_queued(0), 0);
    }

    /// The queue as one sequence with the send head's index, as it was
    /// kept before the split into `sent` and `unsent`: the oracle for
    /// `matches_one_queue_with_a_send_head_index`.
    #[derive(Default)]
    struct OneQueue {
        q: Vec<Skb>,
        first_unsent: usize,
        plain_tcp: bool,
    }

    impl OneQueue {
        fn entail(&mut self, sseq: u64, dsn: u64, len: u32, goal: u64) -> u64 {
            let goal = goal.max(1);
            let (mut sseq, mut dsn, mut left) = (sseq, dsn, len as u64);
            let mut joined = 0;
            if let Some(t) = self.q.last_mut() {
                if !t.sent
                    && !t.frozen
                    && t.end == sseq
                    && t.dsn_end == dsn
                    && t.end - t.start < goal
                {
                    joined = left.min(goal - (t.end - t.start));
                    t.end += joined;
                    t.dsn_end += joined;
                    (sseq, dsn, left) = (sseq + joined, dsn + joined, left - joined);
                }
            }
            while left > 0 {
                let take = left.min(goal);
                self.q.push(Skb {
                    start: sseq,
                    end: sseq + take,
                    dsn_end: dsn + take,
                    sent: false,
                    frozen: false,
                });
                (sseq, dsn, left) = (sseq + take, dsn + take, left - take);
            }
            joined
        }

        fn on_xmit(&mut self, snd_nxt: u64, autosize: u64) {
            while let Some(&s) = self.q.get(self.first_unsent) {
                if s.start >= snd_nxt {
                    break;
                }
                let sent_end = s.end.min(snd_nxt);
                let i = self.first_unsent;
                self.q.remove(i);
                let mut at = i;
                let mut a = s.start;
                while a < sent_end {
                    let b = (a + autosize.max(1)).min(sent_end);
                    let dsn_end = s.dsn_end - (s.end - b);
                    self.q.insert(
                        at,
                        Skb {
                            start: a,
                            end: b,
                            dsn_end,
                            sent: true,
                            frozen: true,
                        },
                    );
                    (at, a) = (at + 1, b);
                }
                self.first_unsent = at;
                if sent_end < s.end {
                    let rest = Skb {
                        start: sent_end,
                        frozen: !self.plain_tcp,
                        ..s
                    };
                    self.q.insert(at, rest);
                    break;
                }
            }
        }

        fn unsent_skb_at(&self, seq: u64) -> Option<(u64, bool)> {
            let i = self.q.partition_point(|s| s.end <= seq);
            let s = self.q.get(i).filter(|s| s.start <= seq)?;
            Some((s.end - seq, i + 1 == self.q.len()))
        }

        fn tail_room(&self, sseq: u64, dsn: u64, goal: u64) -> u64 {
            match self.q.last() {
                Some(t) if !t.sent && !t.frozen && t.end == sseq && t.dsn_end == dsn => {
                    goal.max(1).saturating_sub(t.end - t.start)
                }
                _ => 0,
            }
        }

        fn on_ack(&mut self, snd_una: u64) {
            while self.q.first().is_some_and(|s| s.end <= snd_una) {
                self.q.remove(0);
                self.first_unsent = self.first_unsent.saturating_sub(1);
            }
        }
    }

    /// Random writes, transmission rounds (cut skbs, frozen rests) and
    /// acknowledgements, plain TCP and MPTCP (gaps in the DSN): every answer
    /// is the one-queue oracle's.
    #[test]
    fn matches_one_queue_with_a_send_head_index() {
        for plain_tcp in [false, true] {
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut next = |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let mut q = if plain_tcp {
                SkbQueue::plain_tcp()
            } else {
                SkbQueue::default()
            };
            let mut r = OneQueue {
                plain_tcp,
                ..OneQueue::default()
            };
            let (mut write, mut dsn, mut nxt, mut una) = (0u64, 0u64, 0u64, 0u64);
            for step in 0..3_000 {
                let goal = [1420, 2840, 8_000, GOAL][next(4) as usize];
                match next(4) {
                    0 | 1 => {
                        let len = 1 + next(10_000) as u32;
                        if !plain_tcp && next(8) == 0 {
                            dsn += 1 + next(5_000);
                        }
                        let joined = q.entail(write, dsn, len, goal);
                        assert_eq!(joined, r.entail(write, dsn, len, goal), "step {step}");
                        write += len as u64;
                        dsn += len as u64;
                    }
                    2 => {
                        nxt = (nxt + next(20_000)).min(write);
                        let autosize = 1 + next(6_000);
                        q.on_xmit(nxt, autosize);
                        r.on_xmit(nxt, autosize);
                    }
                    _ => {
                        una = (una + next(12_000)).min(nxt);
                        q.on_ack(una);
                        r.on_ack(una);
                    }
                }
                assert_eq!(q.len(), r.q.len(), "step {step}");
                assert_eq!(q.sent.len(), r.first_unsent, "step {step}");
                for seq in [una, nxt, nxt + 1, write, una + next(write - una + 1)] {
                    assert_eq!(
                        q.unsent_skb_at(seq),
                        r.unsent_skb_at(seq),
                        "step {step}, {seq}"
                    );
                }
                assert_eq!(q.tail_room(write, dsn, goal), r.tail_room(write, dsn, goal));
                let skbs: Vec<Skb> = q.sent.iter().chain(&q.unsent).copied().collect();
                assert_eq!(skbs, r.q, "step {step}");
            }
        }
    }

    /// Bulk data fills 64 KB skbs up to the size goal.
    #[test]
    fn bulk_data_fills_skbs_to_the_goal() {
        let mut q = SkbQueue::default();
        let mut s = 0;
        for _ in 0..100 {
            q.entail(s, s, 1420, GOAL);
            s += 1420;
        }
        assert_eq!(q.len(), 3, "142000 bytes: 65320 + 65320 + 11360");
    }
}
