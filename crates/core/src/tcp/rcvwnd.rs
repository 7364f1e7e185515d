//! Linux 6.18 receive-window growth: `rcv_ssthresh`, `window_clamp`, the
//! `scaling_ratio` between payload and socket memory, and the quick ACKs
//! that growth sets (net/ipv4/tcp_input.c, tcp_output.c, include/net/tcp.h).
//!
//! The window a Linux receiver advertises is not its free buffer: it starts
//! at `tcp_select_initial_window`'s `rcv_wnd` and then grows by about two
//! segments per received segment (`tcp_grow_window`) up to
//! min(`window_clamp`, `tcp_space`). Every growth step sets
//! `icsk_ack.quick |= 1`, so while the window grows the receiver ACKs every
//! segment (`__tcp_ack_snd_check` / `tcp_in_quickack_mode`); once
//! `rcv_ssthresh` reaches its limit it falls back to delayed ACKs.
//!
//! Socket memory. `sk_rcvbuf` counts skb *truesize*, not payload:
//! - The scenario's `rcvbuf` is what the emulator passes to
//!   `SO_RCVBUFFORCE`, which Linux doubles (`sk_setsockopt`) and locks
//!   (`SOCK_RCVBUF_LOCK`): `sk_rcvbuf = 2 * rcvbuf`, and receive-buffer
//!   autotuning (`tcp_rcv_space_adjust`, DRS) never raises it. The model
//!   therefore has no DRS: with a locked buffer it only re-measures
//!   (`rcvq_space`) without changing `tcp_space` or `window_clamp`.
//! - `scaling_ratio` (payload bytes per 256 bytes of truesize,
//!   `tcp_win_from_space`) starts at `TCP_DEFAULT_SCALING_RATIO` (128, 50 %)
//!   and is measured from the first in-order segment longer than
//!   `icsk_ack.rcv_mss` (`tcp_measure_rcv_mss`), after which `window_clamp`
//!   follows (`tcp_set_window_clamp`).
//! - truesize (`skb_truesize`) is modelled as the linear skb the emulator's
//!   TUN device builds (`tun_get_user` -> `__alloc_skb`): the packet plus
//!   `NET_SKB_PAD` (64) aligned to 64 bytes, plus `skb_shared_info` (320),
//!   rounded up to its kmalloc size class, plus the `sk_buff` itself (256).
//!   For a 1500-byte packet this is 2304 bytes and the ratio 160 (62.5 %).
//!   Measured on this machine's kernel (6.18.44, 2026-11-27, one
//!   `mptlab emulate` run of the seed 002 Sprint 3G 256 KiB cell with
//!   `--capture`): the client's window starts at 2096576 and grows by 2896
//!   bytes (2 x advmss) per segment to 2620032 = ALIGN(((4 MiB - 2304) x
//!   160) >> 8, 64), which fixes both the initial ratio (128) and the
//!   truesize (2303-2316 bytes). Other drivers (GRO, page frags) differ.

/// Linux `TCP_RMEM_TO_WIN_SCALE`: `scaling_ratio` is in 1/256.
const RMEM_TO_WIN_SCALE: u32 = 8;
/// Linux `TCP_DEFAULT_SCALING_RATIO` (6.18): 50 %.
pub const DEFAULT_SCALING_RATIO: u32 = 1 << (RMEM_TO_WIN_SCALE - 1);
/// Linux `TCP_MSS_DEFAULT`: the initial `icsk_ack.rcv_mss` hint
/// (`tcp_initialize_rcv_mss`), against which the ratio is first measured.
const TCP_MSS_DEFAULT: u32 = 536;
/// `net.ipv4.tcp_rmem[2]` on the validation machine (sysctl, 2026-11-27;
/// Linux's default is 6 MiB; a new network namespace copies init_net's).
/// `__tcp_grow_window` and `tcp_select_initial_window` read it.
pub const TCP_RMEM_MAX: u64 = 32 << 20;
/// `net.core.rmem_max` on the validation machine (sysctl, 2026-11-27):
/// `tcp_select_initial_window` reads it (`sock_net(sk)->core.sysctl_rmem_max`).
pub const RMEM_MAX: u64 = 4 << 20;
/// Linux `TCP_MAX_WSCALE` (RFC 7323 2.3: at most 14).
const TCP_MAX_WSCALE: u32 = 14;
/// `NET_SKB_PAD` (x86-64) and the aligned sizes of `struct skb_shared_info`
/// and `struct sk_buff` on x86-64 (`SKB_DATA_ALIGN` to 64-byte cache lines).
const NET_SKB_PAD: u64 = 64;
const SHINFO: u64 = 320;
const SKB: u64 = 256;
/// Linux `tcp_event_data_recv`: only segments of at least 128 bytes grow
/// the window.
pub const GROW_MIN_LEN: u32 = 128;

/// truesize of the skb holding one received packet of `pkt` bytes (IP
/// header included): see the module comment. kmalloc's general size
/// classes above 256 bytes are powers of two.
#[inline]
pub fn skb_truesize(pkt: u32) -> u64 {
    let head = (NET_SKB_PAD + pkt as u64).div_ceil(64) * 64 + SHINFO;
    let class = match head {
        0..=96 => 96,
        97..=128 => 128,
        129..=192 => 192,
        _ => head.next_power_of_two(),
    };
    class + SKB
}

/// Receive-window state of one (sub)flow.
#[derive(Clone, Debug)]
pub struct RcvWindow {
    /// `sk->sk_rcvbuf` (truesize bytes): 2 x the configured buffer.
    pub sk_rcvbuf: u64,
    /// `tp->scaling_ratio`, in 1/256.
    pub ratio: u32,
    /// `tp->window_clamp`.
    pub window_clamp: u64,
    /// `tp->rcv_ssthresh`: the window the receiver is willing to offer now.
    pub rcv_ssthresh: u64,
    /// `tp->advmss` (after the handshake: MSS option less timestamps).
    advmss: u32,
    /// `icsk_ack.rcv_mss` as Linux keeps it for the ratio rule (starts at
    /// `TCP_MSS_DEFAULT`, follows longer segments up to advmss).
    ratio_mss: u32,
    /// IP + TCP header bytes of a received data segment (for truesize).
    hdr: u32,
}

impl RcvWindow {
    /// A socket whose buffer was set to `rcvbuf` (`SO_RCVBUFFORCE`, doubled
    /// and locked by Linux). `hdr`: IP + TCP (+ timestamps) header bytes.
    pub fn new(rcvbuf: u64, advmss: u32, hdr: u32) -> Self {
        let sk_rcvbuf = rcvbuf.saturating_mul(2);
        let mut w = RcvWindow {
            sk_rcvbuf,
            ratio: DEFAULT_SCALING_RATIO,
            window_clamp: 0,
            rcv_ssthresh: 0,
            advmss,
            ratio_mss: TCP_MSS_DEFAULT,
            hdr,
        };
        // tcp_connect_init: a locked buffer clamps the window to
        // tcp_full_space.
        w.window_clamp = w.full_space();
        w
    }

    /// Linux `__tcp_win_from_space`: payload bytes `space` truesize bytes hold.
    #[inline]
    pub fn win_from_space(&self, space: u64) -> u64 {
        (space * self.ratio as u64) >> RMEM_TO_WIN_SCALE
    }

    /// Linux `__tcp_win_from_space` at another ratio: an MPTCP connection's
    /// `mptcp_win_from_space` scales with `msk->scaling_ratio`, not with
    /// the subflow's own.
    #[inline]
    pub fn win_from_space_at(ratio: u32, space: u64) -> u64 {
        (space * ratio as u64) >> RMEM_TO_WIN_SCALE
    }

    /// Linux `tcp_full_space`.
    #[inline]
    pub fn full_space(&self) -> u64 {
        self.win_from_space(self.sk_rcvbuf)
    }

    /// Linux `tcp_space`: window the free buffer would hold when `rmem`
    /// truesize bytes are queued (`sk_rmem_alloc`).
    #[inline]
    pub fn space(&self, rmem: u64) -> u64 {
        self.win_from_space(self.sk_rcvbuf.saturating_sub(rmem))
    }

    /// truesize of `bytes` of payload held as segments of `mss` bytes
    /// (the out-of-order queue; Linux charges each skb's truesize).
    #[inline(always)]
    pub fn rmem_of(&self, bytes: u64, mss: u32) -> u64 {
        if bytes == 0 {
            return 0;
        }
        let mss = mss.max(1) as u64;
        bytes.div_ceil(mss) * skb_truesize(self.hdr + mss as u32)
    }

    /// truesize of one received segment of `len` payload bytes.
    #[inline]
    pub fn truesize(&self, len: u32) -> u64 {
        skb_truesize(self.hdr + len)
    }

    /// The window scale this socket offers in its SYN or SYN-ACK: Linux
    /// `tcp_select_initial_window` (net/ipv4/tcp_output.c, 6.18), called
    /// by `tcp_connect_init` / `tcp_openreq_init_rwin` with `space` =
    /// `tcp_full_space` and, the buffer being locked (`SOCK_RCVBUF_LOCK`),
    /// `window_clamp` = `tcp_full_space` too: space = min(max(space,
    /// tcp_rmem[2], rmem_max), window_clamp), and
    /// rcv_wscale = clamp(ilog2(space) - 15, 0, TCP_MAX_WSCALE). So the locked buffer, not the sysctls,
    /// decides: `tcp_full_space` is `sk_rcvbuf` (2 x `SO_RCVBUF`) at the
    /// initial `scaling_ratio` of 50 %, i.e. the configured `rcvbuf`
    /// (2 MiB -> 6, 4 MiB -> 7). Call it before the ratio is first measured
    /// (no data received yet), as Linux computes it before the handshake.
    pub fn initial_wscale(&self) -> u8 {
        let full = self.full_space();
        let space = full.max(TCP_RMEM_MAX).max(RMEM_MAX).min(full);
        // ilog2 of a u32 in Linux (space is min_t(u32, ...)); 0 -> 0
        let space = space.min(u32::MAX as u64).max(1);
        (space.ilog2().saturating_sub(15)).min(TCP_MAX_WSCALE) as u8
    }

    /// Linux `tcp_select_initial_window` (with `tcp_connect_init` /
    /// `tcp_openreq_init_rwin`, which call it with `tcp_full_space` and an
    /// MSS of `mss`) followed by `tcp_init_buffer_space`: `rcv_wnd` is the
    /// full space rounded down to a multiple of `mss` (no `init_rcv_wnd`
    /// route metric) and `rcv_ssthresh` starts there; then `window_clamp`
    /// keeps one `advmss` free ("force reservation of one segment",
    /// `tcp_app_win` = 31) and `rcv_ssthresh` is cut to it. `advmss` is the
    /// MSS less the timestamp option once it is agreed. Returns `rcv_wnd`,
    /// the window the peer may already use (Linux's `tp->rcv_wnd`, though
    /// the SYN's 16-bit field shows at most 65535): the receiver never
    /// offers less (`tcp_select_window`), which is why the measured 6.18
    /// client's first ACK offers 2096576 = ALIGN(rounddown(2 MiB, 1460),
    /// 64) rather than ALIGN(2 MiB - 1448, 64).
    pub fn init(&mut self, mss: u32, advmss: u32) -> u64 {
        self.advmss = advmss;
        // tcp_connect_init: a locked buffer clamps the window to the full
        // space (again here: `init` may run twice, at creation and once the
        // options are agreed)
        self.window_clamp = self.full_space();
        let mut space = self.window_clamp;
        if space > mss as u64 {
            space = space / mss as u64 * mss as u64;
        }
        self.rcv_ssthresh = space;
        // tcp_init_buffer_space (the clamp is at most the full space here:
        // a locked buffer)
        let maxwin = self.full_space();
        let adv = advmss as u64;
        self.window_clamp = self.window_clamp.min(maxwin);
        if self.window_clamp > 2 * adv && self.window_clamp + adv > maxwin {
            self.window_clamp = (2 * adv).max(maxwin.saturating_sub(adv));
        }
        self.rcv_ssthresh = self.rcv_ssthresh.min(self.window_clamp);
        space
    }

    /// Linux `tcp_measure_rcv_mss` (the `scaling_ratio` part) for an
    /// in-order segment of `len` bytes: a segment longer than `rcv_mss`
    /// (other than equal to it) re-measures the ratio as len / truesize,
    /// and `window_clamp` follows `tcp_win_from_space(sk_rcvbuf)`
    /// (`tcp_set_window_clamp`). `rcv_wnd` is the last advertised window.
    pub fn measure(&mut self, len: u32, rcv_wnd: u64) {
        if len < self.ratio_mss {
            return;
        }
        if len != self.ratio_mss {
            let r = ((len as u64) << RMEM_TO_WIN_SCALE) / self.truesize(len);
            let old = self.ratio;
            self.ratio = (r as u32).clamp(1, 255);
            if self.ratio != old {
                let clamp = self.full_space();
                self.set_window_clamp(clamp, rcv_wnd);
            }
        }
        self.ratio_mss = len.min(self.advmss);
    }

    /// Linux `tcp_set_window_clamp`: a growing clamp lets `rcv_ssthresh`
    /// catch up with the window already offered, a shrinking one cuts it
    /// (`__tcp_adjust_rcv_ssthresh`, no reserved memory).
    fn set_window_clamp(&mut self, val: u64, rcv_wnd: u64) {
        // SOCK_MIN_RCVBUF / 2 (2 x TCP_SKB_MIN_TRUESIZE / 2 = 2304 / 2 on
        // x86-64)
        let new = val.max(1152);
        let old = self.window_clamp;
        if new == old {
            return;
        }
        self.window_clamp = new;
        if new < old {
            self.rcv_ssthresh = self.rcv_ssthresh.min(new);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(rcv_wnd.min(new));
        }
    }

    /// False when `grow` cannot grow the window whatever is queued:
    /// `rcv_ssthresh` has reached `window_clamp`, the first bound of
    /// `tcp_grow_window`'s limit, so `grow` would return false. Tested
    /// first, it spares computing the queued memory for `grow` on every
    /// segment once the window is fully open (the steady state).
    #[inline]
    pub fn may_grow(&self) -> bool {
        self.rcv_ssthresh < self.window_clamp
    }

    /// Linux `tcp_grow_window` (called from `tcp_event_data_recv` for an
    /// in-order segment of at least 128 bytes, and from
    /// `tcp_data_queue_ofo` for a queued out-of-order one with SACK) for a
    /// segment of `len` bytes while `rmem` truesize bytes are queued (this
    /// segment included). Returns true when `rcv_ssthresh` grew: Linux then
    /// sets `icsk_ack.quick |= 1`. Not modelled: memory pressure
    /// (`tcp_under_memory_pressure`), and `truesize_adjust` (only for skbs
    /// without a linear part, which TUN does not build).
    #[inline(always)]
    pub fn grow(&mut self, len: u32, rmem: u64) -> bool {
        let limit = self.window_clamp.min(self.space(rmem));
        if limit <= self.rcv_ssthresh {
            return false;
        }
        let room = limit - self.rcv_ssthresh;
        let truesize = self.truesize(len);
        // Check #2: a segment with this overhead fits the buffer in future.
        let mut incr = if self.win_from_space(truesize) <= len as u64 {
            2 * self.advmss as u64
        } else {
            self.grow_slow(len, truesize)
        };
        if incr == 0 {
            return false;
        }
        incr = incr.max(2 * len as u64);
        self.rcv_ssthresh += room.min(incr);
        true
    }

    /// Linux `__tcp_grow_window`: a segment whose truesize overhead is above
    /// the ratio still grows the window while `rcv_ssthresh` is small
    /// compared with the largest buffer (`tcp_rmem[2]`). Linux returns
    /// 2 x `icsk_ack.rcv_mss`; the ratio's `rcv_mss` stands in for it.
    fn grow_slow(&self, len: u32, truesize: u64) -> u64 {
        let mut t = self.win_from_space(truesize) >> 1;
        let mut window = self.win_from_space(TCP_RMEM_MAX) >> 1;
        while self.rcv_ssthresh <= window {
            if t <= len as u64 {
                return 2 * self.ratio_mss as u64;
            }
            t >>= 1;
            window >>= 1;
        }
        0
    }

    /// Linux `__tcp_select_window`: the window to offer with `free` bytes
    /// of window free (`tcp_space`, or the MPTCP connection's
    /// `__mptcp_space`) out of `allowed` (`tcp_full_space` /
    /// `mptcp_win_from_space(sk_rcvbuf)`), `mss` the peer's segment size
    /// (`icsk_ack.rcv_mss`), `shift` our window scale, and `rcv_wnd` the
    /// window last offered (used without scaling). Not modelled: dropping
    /// quick-ACK mode when less than half the space is free, and
    /// `tcp_shrink_window` (default off).
    ///
    /// Always inlined (into `PathReceiver::window` and `window_mptcp`, one
    /// call per segment built): LLVM's choice moves with unrelated edits
    /// (session 28: out of line for the MPTCP callers on main f06e3c2,
    /// 4.57 M instructions of its own in the htsim run; docs/performance.md,
    /// "Session 28 pass: follow-ups").
    #[inline(always)]
    pub fn select(
        &self,
        free: u64,
        allowed: u64,
        mss: u32,
        shift: Option<u8>,
        rcv_wnd: u64,
    ) -> u64 {
        let full = self.window_clamp.min(allowed);
        let mut mss = mss as u64;
        if mss > full {
            mss = full;
            if mss == 0 {
                return 0;
            }
        }
        let unit = 1u64 << shift.unwrap_or(0);
        let mut free = free;
        if free < full >> 1 {
            // free space might become the window: keep it a multiple of
            // the scale unit, and close the window when it is below an MSS
            // or 1/16 of the buffer
            free = free / unit * unit;
            if free < allowed >> 4 || free < mss {
                return 0;
            }
        }
        free = free.min(self.rcv_ssthresh);
        if shift.is_some() {
            // "Advertise enough space so that it won't get scaled away."
            free.div_ceil(unit) * unit
        } else if rcv_wnd + mss <= free || rcv_wnd > free {
            free / mss * mss
        } else if mss == full && free > rcv_wnd + (full >> 1) {
            free
        } else {
            rcv_wnd
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truesize_of_a_full_packet_is_2304() {
        assert_eq!(skb_truesize(1500), 2304);
        // 1448 payload bytes per 2304 of memory: ratio 160 (62.5 %)
        assert_eq!((1448u64 << 8) / skb_truesize(1500), 160);
    }

    /// The measured 6.18 client (module comment): 2 MiB SO_RCVBUF, window
    /// 2096576 after the handshake, +2896 per 1448-byte segment, stopping
    /// at 2620032.
    #[test]
    fn growth_matches_the_measured_kernel() {
        let mut w = RcvWindow::new(2 << 20, 1460, 52);
        let rcv_wnd = w.init(1460, 1448);
        assert_eq!(rcv_wnd, 2096560);
        // tcp_init_buffer_space: one segment reserved
        assert_eq!(w.window_clamp, 2097152 - 1448);
        assert_eq!(w.rcv_ssthresh, 2097152 - 1448);
        let sel = w.select(w.space(0), w.full_space(), 536, Some(6), 0);
        assert_eq!(sel, 2095744);
        // ... but the offered window may not shrink below rcv_wnd
        // (tcp_select_window rounds it up to the scale unit)
        let first = sel.max(rcv_wnd.div_ceil(64) * 64);
        assert_eq!(first, 2096576);
        w.measure(1448, first);
        assert_eq!(w.ratio, 160);
        assert_eq!(w.rcv_ssthresh, 2096576);
        let mut wins = vec![];
        let mut grew = 0;
        let mut wnd = first;
        for _ in 0..300 {
            let ts = w.truesize(1448);
            if w.grow(1448, ts) {
                grew += 1;
            }
            wnd = w.select(w.space(ts), w.full_space(), 1448, Some(6), wnd);
            wins.push(wnd);
        }
        assert_eq!(&wins[..3], &[2099520, 2102400, 2105280]);
        assert_eq!(*wins.last().unwrap(), 2620032);
        // (2620000 - 2096576) / 2896 = 180.7: 181 growth steps, then none
        assert_eq!(grew, 181);
    }

    #[test]
    fn small_segments_grow_only_while_the_window_is_small() {
        // 130-byte segments: truesize 1280, far above the ratio (__tcp_grow_window)
        let mut w = RcvWindow::new(4 << 20, 1460, 52);
        w.init(1460, 1448);
        w.measure(1448, 0);
        assert_eq!(w.truesize(130), 1280);
        // halving (1280 x 160/256) / 2 until it is <= 130 takes three steps,
        // so rcv_ssthresh must be below (32 MiB x 160/256) / 2 >> 2 = 2.6 MB
        w.rcv_ssthresh = 2_700_000;
        assert!(!w.grow(130, 0));
        assert!(w.grow(1448, 0));
        w.rcv_ssthresh = 2_600_000;
        let before = w.rcv_ssthresh;
        assert!(w.grow(130, 0));
        // 2 x rcv_mss, at least 2 x len
        assert_eq!(w.rcv_ssthresh - before, 2 * 1448);
    }

    #[test]
    fn window_closes_when_little_space_is_left() {
        let mut w = RcvWindow::new(1 << 20, 1460, 52);
        w.init(1460, 1448);
        let full = w.full_space();
        assert_eq!(w.select(full / 20, full, 1448, Some(5), 0), 0);
        assert!(w.select(full / 3, full, 1448, Some(5), 0) > 0);
    }
}
