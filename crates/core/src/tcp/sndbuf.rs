//! A plain TCP socket's send buffer as Linux 6.18 accounts it: `sk_sndbuf`
//! against `sk_wmem_queued`, which counts every queued skb's truesize (its
//! payload plus an empty skb's `crate::mptcp::sndbuf::SKB_TRUESIZE_EMPTY`),
//! not payload bytes. The skbs are tracked with the MPTCP model's
//! `crate::mptcp::skbq::SkbQueue` (plain-TCP variant) and sized with its
//! `crate::mptcp::sndbuf` functions, so both models charge the same way.
//!
//! - *Size*: `SO_SNDBUF(FORCE)` with `v` bytes (what the emulator sets from
//!   `transport.sndbuf_kib`) gives `sk_sndbuf = max(2 v, SOCK_MIN_SNDBUF)`
//!   and `SOCK_SNDBUF_LOCK` (net/core/sock.c, `__sock_set_sndbuf`: "We
//!   double it on the way in to account for struct sk_buff etc.
//!   overhead"). Unset (`TcpConfig::sndbuf` 0): `tcp_init_sock` starts at
//!   `tcp_wmem[1]`, `tcp_init_buffer_space` -> `tcp_sndbuf_expand` at
//!   establishment, and `tcp_new_space` -> `tcp_sndbuf_expand` while the
//!   writer waits (`SOCK_NOSPACE`) and the connection is not cwnd-limited
//!   (`tcp_should_expand_sndbuf`), capped by `tcp_wmem[2]`.
//! - *Writes* (net/ipv4/tcp.c, `tcp_sendmsg_locked`): data first fills the
//!   write queue's tail skb up to the size goal (`copy = size_goal -
//!   skb->len`, `tcp_skb_can_collapse_to`) without any memory check; a new
//!   skb (`tcp_stream_alloc_skb`, charged by `tcp_skb_entail`) is taken
//!   only while `sk_stream_memory_free` (`sk_wmem_queued < sk_sndbuf`),
//!   else the writer waits (`sk_stream_wait_memory`). So a write may
//!   overshoot `sk_sndbuf` by up to one skb (64 KB), and by more when
//!   pushes during the write (`crate::tcp::TcpEndpoint::write`:
//!   `tcp_push_one`, `forced_push`) cut pieces off the tail skb, whose
//!   rest then takes more data (`copy_step`, one step of the copy loop).
//! - *Wake-up* (`tcp_check_space` -> `tcp_new_space` ->
//!   `sk_stream_write_space`): the blocked writer is woken when
//!   `__sk_stream_is_writeable`: free space (`sk_sndbuf - sk_wmem_queued`)
//!   at least half of `sk_wmem_queued`, and memory free.
//!
//! Simplifications: memory pressure (`sk_wmem_schedule`,
//! `tcp_under_memory_pressure`) is not modelled; `tcp_notsent_lowat` is the
//! default (`UINT_MAX`); the page-fragment and `sysctl_max_skb_frags`
//! limits on one skb are not applied; skbs are cut (`tso_fragment`) once
//! per transmission round, see `SkbQueue::on_xmit`.

use crate::mptcp::skbq::SkbQueue;
use crate::mptcp::sndbuf::{
    memory_free, size_goal, sndbuf_expand, xmit_size_goal, SKB_TRUESIZE_EMPTY, TCP_WMEM,
};

/// Linux `TCP_MSS_DEFAULT`.
const TCP_MSS_DEFAULT: u64 = 536;

/// The size goal a plain TCP write fills its skbs to (net/ipv4/tcp.c,
/// `tcp_send_mss` -> `tcp_xmit_size_goal`): `sk_gso_max_size` bounded by
/// `tcp_bound_to_half_wnd` (include/net/tcp.h) to half the largest window
/// the peer has offered (`tp->max_window`; all of it while that is at most
/// `TCP_MSS_DEFAULT`, nothing before any is known), at least `68 -
/// tcp_header_len`, in whole segments of `mss`, at least one.
pub fn bounded_size_goal(mss: u32, max_window: u64, tcp_header_len: u64) -> u64 {
    let gso = xmit_size_goal(mss);
    let cutoff = if max_window > TCP_MSS_DEFAULT {
        max_window >> 1
    } else {
        max_window
    };
    if cutoff == 0 || gso <= cutoff {
        return gso;
    }
    let mss = mss.max(1) as u64;
    let new_size_goal = cutoff.max(68u64.saturating_sub(tcp_header_len));
    (new_size_goal / mss * mss).max(mss)
}

/// Linux `SOCK_MIN_SNDBUF` = 2 x `TCP_SKB_MIN_TRUESIZE` (2048 +
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))`, 256 on x86-64).
pub const SOCK_MIN_SNDBUF: u64 = 2 * (2048 + 256);

/// Linux `tp->reordering` default (`net.ipv4.tcp_reordering`).
const TCP_REORDERING: u32 = 3;

#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// `sk_sndbuf`.
    pub sk_sndbuf: u64,
    /// `SOCK_SNDBUF_LOCK`: set by `SO_SNDBUF`, no autotuning.
    locked: bool,
    skbs: SkbQueue,
    /// `snd_nxt` at the last `on_xmit` (nothing new to cut when unchanged).
    cut_to: u64,
}

impl SendBuffer {
    /// `so_sndbuf`: the `SO_SNDBUF` value in bytes, 0 when unset.
    pub fn new(so_sndbuf: u64) -> Self {
        let (sk_sndbuf, locked) = if so_sndbuf > 0 {
            // __sock_set_sndbuf: val = min(val, INT_MAX / 2), doubled.
            let v = so_sndbuf.min(i32::MAX as u64 / 2);
            ((2 * v).max(SOCK_MIN_SNDBUF), true)
        } else {
            // tcp_init_sock
            (TCP_WMEM[1], false)
        };
        SendBuffer {
            sk_sndbuf,
            locked,
            skbs: SkbQueue::plain_tcp(),
            cut_to: 0,
        }
    }

    /// `tcp_init_buffer_space` at establishment: an unlocked buffer gets
    /// `tcp_sndbuf_expand`'s room.
    pub fn on_established(&mut self, mss: u32, cwnd: u32) {
        if !self.locked {
            self.sk_sndbuf = sndbuf_expand(self.sk_sndbuf, mss, cwnd, TCP_REORDERING);
        }
    }

    /// `sk_wmem_queued` with `buffered` payload bytes held (unacked + unsent).
    pub fn wmem_queued(&self, buffered: u64) -> u64 {
        self.skbs.wmem_queued(buffered)
    }

    /// Bytes `tcp_sendmsg_locked` accepts of a write of `len` bytes at
    /// sequence `write_seq` with `buffered` payload bytes held, if nothing
    /// is sent while it copies; `goal` is the size goal (`size_goal_bounded`).
    pub fn space(&self, write_seq: u64, len: u64, buffered: u64, goal: u64) -> u64 {
        // Append to the tail skb: no memory check.
        let mut acc = self.skbs.tail_room(write_seq, write_seq, goal).min(len);
        let mut skbs = self.skbs.len() as u64;
        let wmem = |skbs: u64, acc: u64| {
            if buffered + acc == 0 {
                0
            } else {
                buffered + acc + skbs * SKB_TRUESIZE_EMPTY
            }
        };
        // New skbs while sk_stream_memory_free.
        while acc < len && memory_free(wmem(skbs, acc), self.sk_sndbuf) {
            acc += goal.min(len - acc);
            skbs += 1;
        }
        acc
    }

    /// One step of `tcp_sendmsg_locked`'s copy loop for the `len` bytes a
    /// write still holds at `write_seq` (`buffered` payload bytes held):
    /// fill the write queue's tail skb up to `goal` (`copy = size_goal -
    /// skb->len`, no memory check), or, when it is full or already sent,
    /// entail one new skb if `sk_stream_memory_free` (else 0: the writer
    /// waits, `wait_for_space`). Returns the bytes copied and whether the
    /// skb they went into is now full (`skb->len >= size_goal`, the point
    /// where the kernel considers `forced_push` / `tcp_push_one`).
    pub fn copy_step(&mut self, write_seq: u64, len: u64, buffered: u64, goal: u64) -> (u64, bool) {
        let goal = goal.max(1);
        let len = len.min(u32::MAX as u64 / 2);
        let room = self.skbs.tail_room(write_seq, write_seq, goal);
        let n = if room > 0 {
            room.min(len)
        } else if memory_free(self.skbs.wmem_queued(buffered), self.sk_sndbuf) {
            goal.min(len)
        } else {
            0
        };
        if n > 0 {
            self.skbs.entail(write_seq, write_seq, n as u32, goal);
        }
        (
            n,
            n > 0 && self.skbs.tail_room(write_seq + n, write_seq + n, goal) == 0,
        )
    }

    /// Whether the write queue's tail skb is the send head: nothing queued
    /// before it is left unsent (`skb == tcp_send_head(sk)` in
    /// `tcp_sendmsg_locked`, for the skb just filled).
    pub fn tail_is_send_head(&self, snd_nxt: u64) -> bool {
        self.skbs
            .unsent_skb_at(snd_nxt)
            .is_some_and(|(_, tail)| tail)
    }

    /// Whether anything was transmitted since the last `on_xmit` (the
    /// pacing rate it needs is not computed otherwise).
    #[inline]
    pub fn sent_since_cut(&self, snd_nxt: u64) -> bool {
        snd_nxt != self.cut_to
    }

    /// One transmission round ended at `snd_nxt` (`tcp_write_xmit`): cut the
    /// skbs it reached by `tcp_tso_autosize` of the current pacing rate.
    pub fn on_xmit(&mut self, snd_nxt: u64, mss: u32, pacing_rate_bps: u64, min_rtt_us: u64) {
        if snd_nxt == self.cut_to || self.skbs.is_empty() {
            self.cut_to = snd_nxt;
            return;
        }
        self.cut_to = snd_nxt;
        self.skbs
            .on_xmit(snd_nxt, size_goal(mss, pacing_rate_bps, min_rtt_us));
    }

    /// The skb `tcp_write_xmit` would send next from `snd_nxt`: its unsent
    /// bytes and whether it is the write queue's tail (`SkbQueue::unsent_skb_at`).
    #[inline]
    pub fn send_head(&self, snd_nxt: u64) -> Option<(u64, bool)> {
        self.skbs.unsent_skb_at(snd_nxt)
    }

    /// Free the skbs acknowledged up to `snd_una` (`tcp_clean_rtx_queue`);
    /// true if any was freed (`SOCK_QUEUE_SHRUNK`).
    pub fn on_ack(&mut self, snd_una: u64) -> bool {
        let before = self.skbs.len();
        self.skbs.on_ack(snd_una);
        self.skbs.len() < before
    }

    /// `tcp_new_space` for a waiting writer after the queue shrank: grow an
    /// unlocked buffer when not cwnd-limited (`tcp_should_expand_sndbuf`),
    /// then whether `sk_stream_write_space` wakes the writer
    /// (`__sk_stream_is_writeable`).
    pub fn new_space(&mut self, buffered: u64, mss: u32, cwnd: u32, in_flight: u32) -> bool {
        if !self.locked && in_flight < cwnd {
            self.sk_sndbuf = sndbuf_expand(self.sk_sndbuf, mss, cwnd, TCP_REORDERING);
        }
        self.writeable(buffered)
    }

    /// `__sk_stream_is_writeable(sk, 1)`: `sk_stream_wspace >=
    /// sk_stream_min_wspace` (free >= `sk_wmem_queued / 2`) and
    /// `sk_stream_memory_free`.
    pub fn writeable(&self, buffered: u64) -> bool {
        let wmem = self.wmem_queued(buffered);
        memory_free(wmem, self.sk_sndbuf) && self.sk_sndbuf - wmem >= wmem >> 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    /// `tcp_sendmsg_locked`'s copy loop without any push in between.
    fn write(b: &mut SendBuffer, write_seq: u64, len: u64, buffered: u64) -> u64 {
        let goal = xmit_size_goal(MSS);
        let mut acc = 0;
        while acc < len {
            let (n, _) = b.copy_step(write_seq + acc, len - acc, buffered + acc, goal);
            if n == 0 {
                break;
            }
            acc += n;
        }
        acc
    }

    #[test]
    fn the_size_goal_is_bounded_by_half_the_largest_window() {
        let gso = xmit_size_goal(MSS);
        assert_eq!(bounded_size_goal(MSS, 0, 32), gso, "no window known");
        assert_eq!(bounded_size_goal(MSS, 4 << 20, 32), gso);
        // 64 KiB offered: 32 KiB, 22 whole segments
        assert_eq!(bounded_size_goal(MSS, 65_535, 32), 22 * 1448);
        // a window of one small segment: at least one MSS
        assert_eq!(bounded_size_goal(MSS, 500, 32), 1448);
    }

    #[test]
    fn so_sndbuf_is_doubled_and_locked() {
        assert_eq!(SendBuffer::new(256 * 1024).sk_sndbuf, 512 * 1024);
        assert_eq!(SendBuffer::new(1000).sk_sndbuf, SOCK_MIN_SNDBUF);
        let mut b = SendBuffer::new(256 * 1024);
        b.on_established(MSS, 400);
        assert_eq!(b.sk_sndbuf, 512 * 1024, "locked: no autotuning");
        let mut a = SendBuffer::new(0);
        assert_eq!(a.sk_sndbuf, 16_384);
        a.on_established(MSS, 10);
        assert_eq!(a.sk_sndbuf, 87_040);
    }

    /// A bulk write into an empty 16 KiB (`SO_SNDBUF` 8 KiB) buffer: the
    /// first skb is allocated (memory free) and filled to the 64 KB size
    /// goal, then the buffer is full: the kernel overshoots by one skb.
    #[test]
    fn a_write_fills_the_allocated_skb_past_the_buffer() {
        let mut b = SendBuffer::new(8 * 1024);
        let goal = xmit_size_goal(MSS);
        assert_eq!(b.space(1, 1 << 20, 0, goal), goal);
        assert_eq!(b.copy_step(1, 1 << 20, 0, goal), (goal, true));
        assert_eq!(b.copy_step(1 + goal, 1 << 20, goal, goal), (0, false));
        assert_eq!(b.wmem_queued(goal), goal + SKB_TRUESIZE_EMPTY);
        assert_eq!(b.space(1 + goal, 1 << 20, goal, goal), 0, "tail full");
    }

    /// Small writes join the unsent tail skb without a memory check; once it
    /// is sent each write needs a new skb and memory.
    #[test]
    fn small_writes_join_the_unsent_tail() {
        let mut b = SendBuffer::new(4 * 1024); // sk_sndbuf 8192
        assert_eq!(write(&mut b, 1, 5000, 0), 5000);
        assert!(b.tail_is_send_head(1));
        // 5832 < 8192: a new skb would be allowed, but the tail takes it.
        assert_eq!(write(&mut b, 5001, 5000, 5000), 5000);
        assert_eq!(b.wmem_queued(10_000), 10_000 + 832);
        // The tail is still unsent: appending needs no memory.
        assert_eq!(write(&mut b, 10_001, 1000, 10_000), 1000);
        b.on_xmit(11_001, MSS, 20_000_000, 20_000);
        assert!(!b.tail_is_send_head(11_001), "all sent: no send head");
        // All sent: a new skb is needed and 11000 + n * 832 >= 8192.
        assert_eq!(write(&mut b, 11_001, 1000, 11_000), 0);
        assert!(!b.writeable(11_000));
        assert!(b.on_ack(11_001));
        assert!(b.writeable(0));
    }
}
