//! Send-side memory of upstream Linux MPTCP, as far as the scheduler reads
//! it: each subflow's `sk_wmem_queued` (in skb truesize units), its
//! `sk_sndbuf` (fixed by `SO_SNDBUF`, else autotuned by `tcp_sndbuf_expand`)
//! and the connection's (msk's) send buffer.
//!
//! In Linux 6.x the msk copies application data into a subflow's own write
//! queue whenever `mptcp_subflow_get_send` picks it and
//! `sk_stream_memory_free(ssk)` holds (net/mptcp/protocol.c,
//! `__subflow_push_pending` / `mptcp_sendmsg_frag`), not only when the
//! subflow has congestion-window space: data committed to a subflow stays
//! there until that subflow delivers it. The scheduler's linger time reads
//! `sk_wmem_queued`, which counts every skb's truesize (`tcp_skb_entail`
//! charges the empty skb's truesize, `mptcp_sendmsg_frag` adds the payload).
//!
//! The skbs themselves are tracked per subflow in `super::skbq` (queued
//! to `tcp_xmit_size_goal`, 64 KB; cut to `tcp_tso_autosize` when sent).
//!
//! Simplifications: memory pressure
//! (`sk_wmem_schedule` failing) is not modelled; `tcp_notsent_lowat` is the
//! default (`UINT_MAX`), so `tcp_stream_memory_free` never refuses.

/// Linux `net.ipv4.tcp_wmem` defaults: min, default, max (bytes).
pub const TCP_WMEM: [u64; 3] = [4096, 16384, 4 * 1024 * 1024];

/// Linux `TCP_INIT_CWND`.
const TCP_INIT_CWND: u64 = 10;

/// truesize of an empty skb from `alloc_skb_fclone(MAX_TCP_HEADER)`
/// (`__mptcp_do_alloc_tx_skb`, as `tcp_stream_alloc_skb` for plain TCP),
/// charged to `sk_wmem_queued` by `tcp_skb_entail`. Measured on this
/// project's emulation host (Linux 6.18, x86-64) with
/// `scripts/measure-skb-truesize.py`: a TCP sender writes 200 chunks with
/// `MSG_EOR` (one skb each) to a peer whose window is closed, and `ss -tm`
/// shows `sk_wmem_queued` grow by the payload plus 832 bytes per skb (the
/// same for 100..2048-byte chunks). It is `SKB_TRUESIZE(256)`: a 256-byte
/// head from the small-head cache plus the aligned `struct sk_buff` (256)
/// and `struct skb_shared_info` (320).
pub const SKB_TRUESIZE_EMPTY: u64 = 832;

/// `tcp_sndbuf_expand`'s per-segment memory (net/ipv4/tcp_input.c):
/// `roundup_pow_of_two(mss + MAX_TCP_HEADER + SKB_DATA_ALIGN(shinfo)) +
/// SKB_DATA_ALIGN(sizeof(struct sk_buff))`, with the sizes above.
fn sndbuf_per_mss(mss: u64) -> u64 {
    (mss + 320 + 320).next_power_of_two() + 256
}

/// Linux `tcp_sndbuf_expand`: room for twice the larger of the initial
/// window, the current cwnd and `reordering + 1` segments, capped by
/// `tcp_wmem[2]`; the buffer never shrinks here. Called when the subflow
/// becomes established (`tcp_init_buffer_space`) and when ACKs free space
/// while the connection is send-buffer limited (`tcp_new_space`).
pub fn sndbuf_expand(current: u64, mss: u32, cwnd: u32, reordering: u32) -> u64 {
    let nr_segs = TCP_INIT_CWND.max(cwnd as u64).max(reordering as u64 + 1);
    let want = 2 * nr_segs * sndbuf_per_mss(mss as u64);
    current.max(want.min(TCP_WMEM[2]))
}

/// Linux `GSO_LEGACY_MAX_SIZE`: `sk_gso_max_size` on the emulator's
/// (software-GSO) devices.
const GSO_MAX_SIZE: u64 = 65_536;

/// `net.ipv4.tcp_tso_rtt_log` default (Linux 5.18+).
const TCP_TSO_RTT_LOG: u32 = 9;

/// Bytes one *transmitted* skb carries (`tcp_tso_autosize`, reached from
/// `tcp_write_xmit` -> `tcp_tso_segs`, which splits the queued skb with
/// `tso_fragment`): `sk_pacing_rate >> sk_pacing_shift` (shift 10, about
/// 1 ms), plus `sk_gso_max_size >> (min_rtt_us >> tcp_tso_rtt_log)` while
/// that shift is below 32 (paths with a minimum RTT under 16.4 ms), at most
/// `sk_gso_max_size`, in whole segments, at least `tcp_min_tso_segs` (2).
/// `min_rtt_us` is `u64::MAX` before the first sample (`tcp_min_rtt` is
/// then ~0U).
pub fn size_goal(mss: u32, pacing_rate_bps: u64, min_rtt_us: u64) -> u64 {
    let mss = mss.max(1) as u64;
    let mut bytes = (pacing_rate_bps / 8) >> 10;
    let r = (min_rtt_us.min(u32::MAX as u64)) >> TCP_TSO_RTT_LOG;
    if r < 32 {
        bytes += GSO_MAX_SIZE >> r;
    }
    let segs = (bytes.min(GSO_MAX_SIZE) / mss).max(2);
    segs * mss
}

/// Bytes one *queued* skb carries before transmission
/// (`tcp_xmit_size_goal`, via `tcp_send_mss` in `mptcp_sendmsg_frag`):
/// `sk_gso_max_size` in whole segments; "tcp_tso_autosize() will eventually
/// split this later" (net/ipv4/tcp.c). Seen on the kernel here: every DSS
/// mapping of the 4 MiB validation download is 65320 bytes = 46 x 1420
/// (docs/emulation.md, "Why the kernel's slow subflow overflows its queue").
/// Simplification: `tcp_bound_to_half_wnd` (at most half the peer's largest
/// window) is not applied.
pub fn xmit_size_goal(mss: u32) -> u64 {
    let mss = mss.max(1) as u64;
    (GSO_MAX_SIZE / mss).max(1) * mss
}

/// `sk_stream_memory_free` with the default `tcp_notsent_lowat`.
pub fn memory_free(wmem_queued: u64, sndbuf: u64) -> bool {
    wmem_queued < sndbuf
}

/// How the send buffers are sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SndBufMode {
    /// `SO_SNDBUF(FORCE)` with this many bytes on the MPTCP socket (what
    /// the emulator sets from `transport.sndbuf_kib`): the kernel stores
    /// twice the value (`sock_setsockopt`), locks it (`SOCK_SNDBUF_LOCK`)
    /// and gives every subflow the same `sk_sndbuf`
    /// (net/mptcp/sockopt.c, `mptcp_sol_socket_sync_intval` and
    /// `sync_socket_options`); no autotuning anywhere.
    Locked(u64),
    /// Autotuned: each subflow starts at `tcp_wmem[1]` and grows by
    /// `tcp_sndbuf_expand`; the msk's buffer is `tcp_wmem[0]` plus the sum
    /// of its subflows' (`__mptcp_sync_sndbuf`, net/mptcp/protocol.h).
    Auto,
}

impl SndBufMode {
    /// A new subflow's `sk_sndbuf`.
    pub fn initial_subflow(self) -> u64 {
        match self {
            SndBufMode::Locked(b) => 2 * b,
            SndBufMode::Auto => TCP_WMEM[1],
        }
    }

    /// The msk's `sk_sndbuf` given its subflows' buffers.
    pub fn msk(self, subflows: impl Iterator<Item = u64>) -> u64 {
        match self {
            SndBufMode::Locked(b) => 2 * b,
            SndBufMode::Auto => TCP_WMEM[0] + subflows.sum::<u64>(),
        }
    }
}

/// Per-subflow `sk_sndbuf`s of one connection and its msk buffer.
#[derive(Clone, Debug)]
pub struct SendBuffers {
    pub mode: SndBufMode,
    /// By subflow id; 0 until the subflow is established.
    sk_sndbuf: Vec<u64>,
}

/// What `SendBuffers::update` reads of one subflow.
#[derive(Clone, Copy, Debug)]
pub struct SubflowMem {
    pub established: bool,
    pub mss: u32,
    pub cwnd: u32,
    pub in_flight: u32,
}

/// Linux `tp->reordering` default (`net.ipv4.tcp_reordering`).
const TCP_REORDERING: u32 = 3;

impl SendBuffers {
    pub fn new(mode: SndBufMode) -> Self {
        SendBuffers {
            mode,
            sk_sndbuf: Vec::new(),
        }
    }

    /// `sk_sndbuf` of subflow `id` (0 before it is established).
    pub fn subflow(&self, id: usize) -> u64 {
        self.sk_sndbuf.get(id).copied().unwrap_or(0)
    }

    /// The msk's `sk_sndbuf`.
    pub fn msk(&self) -> u64 {
        self.mode.msk(self.sk_sndbuf.iter().copied())
    }

    /// Bring the buffers up to date: a newly established subflow gets its
    /// initial buffer (autotuned: `tcp_init_buffer_space` ->
    /// `tcp_sndbuf_expand`); while the application is blocked on the msk's
    /// buffer (`SOCK_NOSPACE` on the msk's socket, which every subflow is
    /// grafted to, `mptcp_sock_graft`) an autotuned subflow that has not
    /// filled its congestion window grows (`tcp_check_space` ->
    /// `tcp_new_space` -> `tcp_should_expand_sndbuf` -> `tcp_sndbuf_expand`).
    /// Here this runs once per scheduling pass, not per ACK. Returns the
    /// msk's buffer.
    pub fn update(&mut self, subflows: impl Iterator<Item = SubflowMem>, app_blocked: bool) -> u64 {
        for (id, m) in subflows.enumerate() {
            if self.sk_sndbuf.len() <= id {
                self.sk_sndbuf.resize(id + 1, 0);
            }
            if !m.established {
                continue;
            }
            let b = &mut self.sk_sndbuf[id];
            match self.mode {
                SndBufMode::Locked(_) => *b = self.mode.initial_subflow(),
                SndBufMode::Auto => {
                    if *b == 0 {
                        *b = sndbuf_expand(TCP_WMEM[1], m.mss, m.cwnd, TCP_REORDERING);
                    } else if app_blocked && m.in_flight < m.cwnd {
                        *b = sndbuf_expand(*b, m.mss, m.cwnd, TCP_REORDERING);
                    }
                }
            }
        }
        self.msk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_follows_cwnd_and_caps() {
        // mss 1448: 1448 + 640 -> 4096, + 256 = 4352 per segment.
        assert_eq!(sndbuf_per_mss(1448), 4352);
        // Initial window 10: 2 * 10 * 4352.
        assert_eq!(sndbuf_expand(TCP_WMEM[1], 1448, 3, 3), 87_040);
        // cwnd 100 -> 870 400; never shrinks; capped at tcp_wmem[2].
        assert_eq!(sndbuf_expand(0, 1448, 100, 3), 870_400);
        assert_eq!(sndbuf_expand(900_000, 1448, 100, 3), 900_000);
        assert_eq!(sndbuf_expand(0, 1448, 10_000, 3), TCP_WMEM[2]);
    }

    #[test]
    fn size_goals_and_room() {
        let slow = 20_000; // min RTT 20 ms: 20000 >> 9 = 39 >= 32, no term
                           // 20 Mbit/s: 2.5 MB/s >> 10 = 2441 B < 2 segments -> 2 x 1448.
        assert_eq!(size_goal(1448, 20_000_000, slow), 2896);
        // 1 Gbit/s: 122 070 B -> capped at 64 KB (45 segments).
        assert_eq!(size_goal(1448, 1_000_000_000, slow), 45 * 1448);
        // min RTT 1 ms: 1000 >> 9 = 1, + 65536 >> 1 = 32768 B -> 24 segments.
        assert_eq!(size_goal(1448, 20_000_000, 1000), 24 * 1448);
        // No RTT sample yet (tcp_min_rtt ~0U): no term.
        assert_eq!(size_goal(1448, 20_000_000, u64::MAX), 2896);
        assert_eq!(xmit_size_goal(1420), 65_320);
        assert!(memory_free(1000, 1001));
        assert!(!memory_free(1001, 1001));
    }

    #[test]
    fn msk_buffer_is_locked_or_the_sum() {
        let l = SndBufMode::Locked(256 * 1024);
        assert_eq!(l.initial_subflow(), 512 * 1024);
        assert_eq!(l.msk([1u64, 2].into_iter()), 512 * 1024);
        let a = SndBufMode::Auto;
        assert_eq!(a.initial_subflow(), 16_384);
        assert_eq!(a.msk([87_040u64, 16_384].into_iter()), 4096 + 103_424);
    }

    #[test]
    fn autotuned_buffers_grow_only_when_blocked_and_not_cwnd_limited() {
        let mem = |established, cwnd, in_flight| SubflowMem {
            established,
            mss: 1448,
            cwnd,
            in_flight,
        };
        let mut b = SendBuffers::new(SndBufMode::Auto);
        // Subflow 1 not established yet: only tcp_wmem[0] + subflow 0.
        assert_eq!(
            b.update([mem(true, 10, 0), mem(false, 10, 0)].into_iter(), false),
            4096 + 87_040
        );
        assert_eq!(b.subflow(1), 0);
        // cwnd 40, app not blocked: no growth.
        b.update([mem(true, 40, 0), mem(true, 10, 0)].into_iter(), false);
        assert_eq!(b.subflow(0), 87_040);
        // Blocked but cwnd full: no growth either.
        b.update([mem(true, 40, 40), mem(true, 10, 0)].into_iter(), true);
        assert_eq!(b.subflow(0), 87_040);
        // Blocked with room in cwnd: 2 * 40 * 4352.
        let msk = b.update([mem(true, 40, 39), mem(true, 10, 0)].into_iter(), true);
        assert_eq!(b.subflow(0), 348_160);
        assert_eq!(msk, 4096 + 348_160 + 87_040);
        let mut l = SendBuffers::new(SndBufMode::Locked(1000));
        assert_eq!(l.update([mem(true, 400, 0)].into_iter(), true), 2000);
        assert_eq!(l.subflow(0), 2000);
    }
}
