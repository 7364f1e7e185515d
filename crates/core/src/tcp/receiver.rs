//! Per-path receive side: reassembly bookkeeping (the application reads
//! instantly, so only out-of-order *ranges* are kept, no bytes), SACK and
//! D-SACK generation, delayed/quick ACK policy, window advertisement and
//! timestamp echo.
//!
//! The advertised window follows Linux 6.18 (`rcvwnd.rs`): it starts at
//! `tcp_select_initial_window`'s `rcv_wnd`, grows with `rcv_ssthresh`
//! (`tcp_grow_window`, which also sets a quick ACK) up to the buffer's
//! `tcp_space`, and the right edge never moves left (RFC 7323 2.4 / Linux
//! tcp_select_window).

use crate::invariants::StreamCheck;
use crate::packet::{SackBlock, TcpSegment, MAX_SACK_BLOCKS};
use crate::time::Nanos;

use super::comp_sack::{CompSack, OfoAck, SACK_BLOCKS_EXPECTED};
use super::config::TcpConfig;
use super::delack::{Delack, DelackEngine, OwnRtt};
use super::rcvwnd::RcvWindow;

/// Linux `TCP_MSS_DEFAULT`.
const TCP_MSS_DEFAULT: u32 = 536;

/// What one received segment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxOutcome {
    /// In-order payload bytes newly delivered.
    pub delivered: u64,
    /// The peer's FIN was consumed now.
    pub fin: bool,
    /// The segment arrived out of order (above rcv_nxt).
    pub ooo: bool,
    /// The segment was entirely a duplicate.
    pub duplicate: bool,
}

/// Laid out by hand (`repr(C)`, docs/performance.md "Session 18"): what
/// an in-order segment reads (sequence state, window, timestamps, the
/// delayed-ACK state, then the fields smaller than 8 bytes) first, the SACK
/// blocks, which only out-of-order data fills, last. Session 22: in the
/// order a segment built reads them (`fill_ack_window`, `window_mptcp`:
/// the head, the small fields, the SACK count and D-SACK block, the window,
/// the delayed-ACK and SACK-compression state), so that sending end of a
/// transfer, which reads the receiver for every segment it builds and
/// `ts_ok` with `rcv_wup` and `ts_recent` for every ACK, finds them in one
/// run of 256 bytes; the in-order data's own fields (`delivered`, `rcvbuf`,
/// `ooo`), which only the receiving end reads, behind them.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct PathReceiver {
    /// Next expected sequence offset (RCV.NXT).
    pub rcv_nxt: u64,
    /// rcv_nxt when the last ACK was sent (Linux rcv_wup).
    rcv_wup: u64,
    right_edge: u64,
    /// The window last advertised (Linux `tp->rcv_wnd`).
    rcv_wnd: u64,
    ts_recent: Nanos,
    pub delack_deadline: Option<Nanos>,
    pub rcv_mss: u32,
    /// Upper bound of `rcv_mss` (Linux `tp->advmss`: MTU less IP and TCP
    /// headers).
    advmss: u32,
    quick: u32,
    max_quickacks: u32,
    /// Linux `icsk_ack.last_seg_size` (`measure_rcv_mss`).
    last_seg_size: u32,
    /// Our window shift (None: no window scaling negotiated).
    pub rcv_wscale: Option<u8>,
    /// Linux `ICSK_ACK_PUSHED` / `ICSK_ACK_PUSHED2`: one / two segments
    /// shorter than `rcv_mss` arrived since the last ACK (`ack_read`).
    pushed: u8,
    pub fin_received: bool,
    pub sack_ok: bool,
    ack_pending: bool,
    ack_now: bool,
    delayed_ack: bool,
    /// Linux ping-pong (interactive) mode: we sent data within `ato` of
    /// the last data we received (`tcp_event_data_sent`).
    pingpong: bool,
    pub ts_ok: bool,
    sack_n: usize,
    dsack: Option<SackBlock>,
    /// Linux receive-window growth (`rcv_ssthresh`, `window_clamp`).
    pub win: RcvWindow,
    /// `icsk_ack.ato`, `lrcvtime` and the delayed-ACK timer, in jiffies
    /// (`delack.rs`).
    dack: DelackEngine,
    /// SACK compression while out-of-order data is queued (`comp_sack.rs`;
    /// every ACK sent clears it, so it sits before the SACK blocks).
    comp: CompSack,
    ooo_bytes: u64,
    /// Payload bytes delivered in order.
    pub delivered: u64,
    fin_seq: Option<u64>,
    /// Bytes accepted above rcv_nxt (the subflows of an MPTCP connection
    /// never limit here: `u64` large).
    pub rcvbuf: u64,
    /// Disjoint, sorted out-of-order ranges above rcv_nxt.
    ooo: Vec<(u64, u64)>,
    /// SACK blocks, most recently changed first (RFC 2018 4).
    sack: [SackBlock; MAX_SACK_BLOCKS + 1],
    /// Invariant `stream-in-order` (zero-sized unless checks are on).
    inv: StreamCheck,
}

impl PathReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        PathReceiver {
            rcv_nxt: 0,
            ooo: Vec::with_capacity(16),
            ooo_bytes: 0,
            delivered: 0,
            fin_seq: None,
            fin_received: false,
            sack_ok: false,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS + 1],
            sack_n: 0,
            dsack: None,
            rcvbuf: cfg.rcvbuf,
            win: Self::rcv_window(cfg, cfg.rcvbuf),
            rcv_wnd: 0,
            rcv_wscale: None,
            right_edge: 0,
            rcv_wup: 0,
            rcv_mss: cfg.mss_option(),
            advmss: cfg.mss_option(),
            ack_pending: false,
            ack_now: false,
            delack_deadline: None,
            delayed_ack: cfg.delayed_ack,
            dack: DelackEngine::new(cfg),
            quick: 0,
            max_quickacks: cfg.max_quickacks,
            comp: CompSack::default(),
            pushed: 0,
            last_seg_size: 0,
            pingpong: false,
            ts_ok: false,
            ts_recent: 0,
            inv: Default::default(),
        }
    }

    fn rcv_window(cfg: &TcpConfig, rcvbuf: u64) -> RcvWindow {
        let ts = if cfg.timestamps { 12 } else { 0 };
        let hdr = cfg.ip.header_len() + crate::packet::TCP_HEADER + ts;
        let mut w = RcvWindow::new(rcvbuf, cfg.mss_option() - ts, hdr);
        w.init(cfg.mss_option(), cfg.mss_option() - ts);
        w
    }

    /// The socket's receive buffer (`SO_RCVBUF`) when it differs from the
    /// acceptance limit `rcvbuf` (an MPTCP subflow: the connection's buffer,
    /// which Linux copies to every subflow socket).
    pub fn set_sock_rcvbuf(&mut self, cfg: &TcpConfig, rcvbuf: u64) {
        self.win = Self::rcv_window(cfg, rcvbuf);
    }

    /// Options agreed (`ts_ok`, `rcv_wscale` set): the initial window
    /// (`tcp_select_initial_window`). The active opener computes it at
    /// `connect` with its full MSS (`tcp_connect_init`: no timestamp seen
    /// yet), the passive one for the SYN-ACK with the MSS less the
    /// timestamp option (`tcp_openreq_init_rwin`); `advmss` loses the
    /// timestamp option either way (`tcp_rcv_synsent_state_process`).
    pub fn on_negotiated(&mut self, mss_option: u32, active: bool) {
        let ts = if self.ts_ok { 12 } else { 0 };
        let mss = if active { mss_option } else { mss_option - ts };
        self.rcv_wnd = self.win.init(mss, mss_option - ts);
        // the peer may use rcv_wnd from the SYN on (Linux tp->rcv_wnd,
        // rcv_wup = rcv_nxt): the right edge starts there
        self.right_edge = self.right_edge.max(self.rcv_nxt.max(1) + self.rcv_wnd);
    }

    /// The window that went out on the last ACK (set after `fill_ack`
    /// when the owner advertises another one: an MPTCP subflow).
    pub fn set_advertised(&mut self, wnd: u64) {
        self.rcv_wnd = wnd;
        self.right_edge = self.right_edge.max(self.rcv_nxt + wnd);
    }

    /// An MPTCP subflow's window (Linux `__tcp_select_window` with
    /// `mptcp_space`): the connection's free space (its buffer less `ofo`
    /// out-of-order bytes) at the connection's scaling ratio `msk_ratio`
    /// (`__mptcp_space` / `mptcp_win_from_space`), as far as this
    /// subflow's `rcv_ssthresh` and `window_clamp` allow. The connection
    /// then keeps its own right edge from moving left (`mptcp_set_rwin`).
    /// Inlined: it runs for every segment built (`subflow_window`).
    #[inline(always)]
    pub fn window_mptcp(&self, ofo: u64, msk_ratio: u32) -> u64 {
        let rmem = self.win.rmem_of(ofo, self.rcv_mss);
        let buf = self.win.sk_rcvbuf;
        self.win.select(
            RcvWindow::win_from_space_at(msk_ratio, buf.saturating_sub(rmem)),
            RcvWindow::win_from_space_at(msk_ratio, buf),
            self.rcv_mss,
            self.rcv_wscale,
            self.rcv_wnd,
        )
    }

    /// The peer's SYN (at offset 0) was received.
    pub fn on_syn(&mut self, tsval: Option<Nanos>) {
        self.rcv_nxt = 1;
        self.rcv_wup = 1;
        if let Some(v) = tsval {
            self.ts_recent = v;
        }
    }

    /// TS.Recent (RFC 7323 4.3), echoed as TSecr.
    pub fn ts_recent(&self) -> Nanos {
        self.ts_recent
    }

    /// RFC 7323 4.3: TS.Recent <- SEG.TSval if SEG.SEQ <= Last.ACK.sent
    /// (Linux `tcp_replace_ts_recent`, from `tcp_ack` for every segment the
    /// slow path accepts, pure ACKs included).
    #[inline]
    pub fn store_ts_recent(&mut self, seq: u64, tsval: Option<Nanos>) {
        if let Some(v) = tsval {
            if seq <= self.rcv_wup && v >= self.ts_recent {
                self.ts_recent = v;
            }
        }
    }

    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// An ACK should go out now (immediately).
    pub fn ack_due(&self) -> bool {
        self.ack_now
    }

    /// Request an immediate ACK (e.g. for a SYN-ACK retransmission or a probe).
    pub fn force_ack(&mut self) {
        self.ack_pending = true;
        self.ack_now = true;
    }

    /// Delayed-ACK timer (Linux `tcp_delack_timer_handler`, `delack.rs`).
    pub fn on_timeout(&mut self, now: Nanos) {
        // the compressed-ACK timer (`tcp_compressed_ack_kick`) runs on its
        // own hrtimer; the deadline is the earlier of the two (`arm`)
        if self.comp.due(now) {
            self.ack_now = true;
            return;
        }
        if let Some(d) = self.delack_deadline {
            if now >= d {
                self.delack_deadline = None;
                if self.ack_pending {
                    match self.dack.on_timer(now, self.pingpong) {
                        // icsk_ack.timeout still ahead: re-armed
                        Some(t) => self.delack_deadline = Some(t),
                        None => {
                            self.ack_now = true;
                            // a delayed ACK missed in ping-pong mode leaves it
                            self.pingpong = false;
                        }
                    }
                }
            }
        }
        if let Some(t) = self.comp.timer() {
            self.arm(t);
        }
    }

    /// Window to advertise (bytes, already rounded for the scale).
    ///
    /// Always inlined into its one caller (`fill_ack_limited`, itself
    /// inlined into `TcpEndpoint::build_tx` and `fill_ack`): with the TCP
    /// builders writing into a slot (session 26) LLVM made it a call, 38 M
    /// instructions of its own in the background cell.
    #[inline(always)]
    pub fn window(&self) -> u64 {
        // Linux __tcp_select_window: tcp_space less the out-of-order queue,
        // limited by rcv_ssthresh and window_clamp
        let rmem = self.win.rmem_of(self.ooo_bytes, self.rcv_mss);
        let w = self.win.select(
            self.win.space(rmem),
            self.win.full_space(),
            self.rcv_mss,
            self.rcv_wscale,
            self.rcv_wnd,
        );
        // RFC 7323 2.3: the window field is 16 bits, scaled by the shift;
        // RFC 9293 3.1: without scaling the window is at most 65535.
        let shift = self.rcv_wscale.map_or(0, u32::from);
        let cap = 65535u64 << shift;
        let mut w = w;
        // Never shrink the right edge (RFC 7323 2.4, Linux tcp_select_window).
        let cur = self.right_edge.saturating_sub(self.rcv_nxt);
        if w < cur {
            // cur.div_ceil(unit) * unit
            let up = (cur & ((1u64 << shift) - 1) != 0) as u64;
            w = ((cur >> shift) + up) << shift;
        }
        // then the field's limit (tcp_select_window: after the no-shrink rule)
        w.min(cap)
    }

    /// A segment with `len` payload bytes at `seq` (and maybe FIN, PSH)
    /// arrived; `own` is the receiving socket's own RTO and SRTT
    /// (`delack.rs`).
    #[allow(clippy::too_many_arguments)]
    pub fn on_segment(
        &mut self,
        now: Nanos,
        seq: u64,
        len: u32,
        fin: bool,
        psh: bool,
        tsval: Option<Nanos>,
        own: OwnRtt,
    ) -> RxOutcome {
        self.on_segment_inlined(now, seq, len, fin, psh, tsval, own)
    }

    /// `on_segment`'s body, forced inline into the plain endpoint's
    /// per-segment path (`TcpEndpoint::on_established_segment`): as a call
    /// its prologue, epilogue and argument set-up cost about 30
    /// instructions a data segment. The MPTCP subflow keeps the call.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn on_segment_inlined(
        &mut self,
        now: Nanos,
        seq: u64,
        len: u32,
        fin: bool,
        psh: bool,
        tsval: Option<Nanos>,
        own: OwnRtt,
    ) -> RxOutcome {
        let mut out = RxOutcome::default();
        let end = seq + len as u64;
        if fin {
            self.fin_seq = Some(end);
        }
        self.store_ts_recent(seq, tsval);
        if len == 0 && !fin {
            // Pure ACK, or a probe below rcv_nxt: RFC 9293 3.10.7.4, an
            // unacceptable segment elicits an immediate ACK.
            if seq < self.rcv_nxt {
                self.force_ack();
            }
            return out;
        }
        let had_ooo = !self.ooo.is_empty();
        // new data at rcv_nxt (tcp_data_queue's queue_and_out)
        let mut in_order = false;
        let mut grew = false;
        let limit = self.rcv_nxt
            + self
                .rcvbuf
                .max(self.right_edge.saturating_sub(self.rcv_nxt));
        if len > 0 && seq >= limit {
            // RFC 9293 3.10.7.4: beyond the window: drop, but ACK.
            self.force_ack();
            return out;
        }
        let end = end.min(limit);
        if len > 0 && end <= self.rcv_nxt {
            // RFC 2883 4.1 (1): whole segment below rcv_nxt: D-SACK it, ACK now.
            out.duplicate = true;
            self.dsack = Some(SackBlock {
                start: seq,
                end: seq + len as u64,
            });
            self.force_ack();
            self.enter_quickack();
        } else if len > 0 && seq > self.rcv_nxt {
            out.ooo = true;
            // tcp_sack_new_ofo_skb: the block this segment extends (first
            // match in list order, `tcp_sack_extend`), or a new one
            let pos = self.sack[..self.sack_n]
                .iter()
                .position(|b| b.start <= end && seq <= b.end);
            let flush = self.sack_ok && pos.map_or(self.sack_n, |p| p) >= SACK_BLOCKS_EXPECTED;
            if flush && self.comp.flush() {
                self.ack_now = true;
            }
            let queued = self.ooo_bytes;
            if self.ooo_insert(seq, end) {
                out.duplicate = true;
                // RFC 2883 4.1 (2): duplicate of out-of-order data.
                self.dsack = Some(SackBlock { start: seq, end });
            }
            // The ACK (RFC 5681 4.2: immediate for an out-of-order
            // segment) is Linux's: at once or compressed
            // (`data_ack_policy`).
            if !out.duplicate && self.sack_ok && self.win.may_grow() {
                // Linux tcp_data_queue_ofo: a queued out-of-order segment
                // grows the window too (with SACK only), before it is
                // charged to the socket (`skb_set_owner_r` follows
                // `tcp_grow_window`): the segments queued before it count
                let rmem = self.win.rmem_of(queued, self.rcv_mss);
                grew = self.win.grow(len, rmem);
            }
        } else if len > 0 {
            in_order = true;
            if seq < self.rcv_nxt {
                // partial duplicate: D-SACK the old part (RFC 2883 4.1.2)
                self.dsack = Some(SackBlock {
                    start: seq,
                    end: self.rcv_nxt,
                });
            }
            let mut new_nxt = end;
            // pull in contiguous out-of-order ranges
            let mut i = 0;
            while i < self.ooo.len() && self.ooo[i].0 <= new_nxt {
                new_nxt = new_nxt.max(self.ooo[i].1);
                self.ooo_bytes -= self.ooo[i].1 - self.ooo[i].0;
                i += 1;
            }
            if i > 0 {
                self.ooo.drain(..i);
            }
            out.delivered = new_nxt - self.rcv_nxt;
            self.inv
                .deliver("tcp receiver", self.rcv_nxt, out.delivered);
            self.delivered += out.delivered;
            self.rcv_nxt = new_nxt;
            self.sack_drop_below();
            // Linux tcp_event_data_recv: tcp_measure_rcv_mss (the scaling
            // ratio), then tcp_grow_window for a segment of 128 bytes or
            // more, this segment still queued (unread) in sk_rmem_alloc
            self.win.measure(len, self.rcv_wnd);
            if len >= super::rcvwnd::GROW_MIN_LEN && self.win.may_grow() {
                let rmem = self.win.truesize(len) + self.win.rmem_of(self.ooo_bytes, self.rcv_mss);
                grew = self.win.grow(len, rmem);
            }
        }
        if fin && len == 0 && seq > self.rcv_nxt {
            // out-of-order FIN (data before it missing): immediate duplicate
            // ACK like any out-of-order segment (RFC 5681 4.2)
            self.force_ack();
        }
        if fin && self.fin_received {
            // retransmitted FIN: our ACK was lost, ACK again (RFC 9293 3.10.7.4)
            self.force_ack();
        }
        if self.fin_seq == Some(self.rcv_nxt) && !self.fin_received {
            self.fin_received = true;
            self.inv.fin("tcp receiver", self.rcv_nxt);
            self.rcv_nxt += 1;
            out.fin = true;
            // Linux tcp_fin(): ACK the FIN promptly.
            self.force_ack();
        }
        if len > 0 {
            // in order (`tcp_data_queue`'s queue_and_out, partial duplicates
            // included): `tcp_event_data_recv`
            self.data_ack_policy(now, had_ooo, grew, in_order.then_some((len, psh)), own);
        }
        out
    }

    /// Linux `tcp_measure_rcv_mss`: the delayed-ACK rule's "full-sized
    /// segment" is the largest segment the peer has sent, at most `advmss`.
    /// It follows what arrives, not our own MSS: an MPTCP peer that has not
    /// received data yet sends 4 bytes more payload than we do (4-byte
    /// DATA_ACK, `crate::optlen`), and measuring against our smaller MSS
    /// would ACK every segment. Simplification: `rcv_mss` starts at our
    /// MSS, not at `TCP_MSS_DEFAULT`.
    ///
    /// A shorter segment marks the pending ACK "pushed" (`ICSK_ACK_PUSHED`,
    /// a second one `ICSK_ACK_PUSHED2`), which `ack_read` acts on, unless
    /// it is at least `TCP_MSS_DEFAULT` (536) and as long as the previous
    /// one: then the peer's MSS is smaller and `rcv_mss` follows it.
    /// A full-sized segment with PSH marks it "pushed" too (Linux 6.6 on,
    /// commit 4720852ed9af "tcp: fix delayed ACKs for MSS boundary
    /// condition": "If the skb has a len of exactly 1*MSS and has the PSH
    /// bit set then it is likely the end of an application write"), so the
    /// application's read ACKs it at once (`ack_read`) and its delayed ACK
    /// is bounded by `TCP_DELACK_MAX` (`delack.rs`).
    ///
    /// Simplification: Linux compares the length with its TCP header
    /// (536 + 20) and also accepts segments of 88 bytes or more without
    /// PSH as full-sized in this test; neither the header nor the PSH
    /// branch of that test is modelled.
    fn measure_rcv_mss(&mut self, len: u32, psh: bool) {
        let lss = self.last_seg_size;
        self.last_seg_size = 0;
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.advmss);
            if psh {
                // `icsk->icsk_ack.pending |= ICSK_ACK_PUSHED`
                self.pushed = self.pushed.max(1);
            }
            return;
        }
        if len >= TCP_MSS_DEFAULT {
            self.last_seg_size = len;
            if len == lss {
                self.rcv_mss = len;
                return;
            }
        }
        self.pushed = if self.pushed > 0 { 2 } else { 1 };
    }

    /// The application read `copied` bytes just delivered, and nothing is
    /// left in the receive queue when `rx_empty` (Linux `__tcp_cleanup_rbuf`
    /// after `tcp_recvmsg`; for an MPTCP subflow `mptcp_cleanup_rbuf` ->
    /// `mptcp_subflow_could_cleanup`, the queue being the connection's).
    /// A scheduled delayed ACK goes out now when a short segment was
    /// received (`ICSK_ACK_PUSHED2`, or `ICSK_ACK_PUSHED` outside ping-pong
    /// mode): "user drained receive buffer and there was a small segment
    /// in queue". The model's applications read at once, so this is called
    /// when the data is delivered.
    pub fn ack_read(&mut self, copied: u64, rx_empty: bool) {
        if !self.ack_pending || copied == 0 || !rx_empty || !self.delayed_ack {
            return;
        }
        if self.pushed >= 2 || (self.pushed == 1 && !self.pingpong) {
            self.ack_now = true;
        }
    }

    /// We sent data at `now` (Linux `tcp_event_data_sent`): a reply within
    /// `ato` of the last data received (jiffies) enters ping-pong mode
    /// (`inet_csk_inc_pingpong_cnt`, `tcp_pingpong_thresh` 1).
    pub fn on_data_sent(&mut self, now: Nanos) {
        if self.dack.reply_within_ato(now) {
            self.pingpong = true;
        }
    }

    /// Linux `tcp_enter_quickack_mode`: `tcp_incr_quickack`, leave
    /// ping-pong mode, `ato = TCP_ATO_MIN`.
    fn enter_quickack(&mut self) {
        self.incr_quickack();
        self.pingpong = false;
        self.dack.reset_ato();
    }

    fn incr_quickack(&mut self) {
        // Linux tcp_incr_quickack: quickacks =
        // rcv_wnd / (2 * rcv_mss), 2 if that is 0 (a window of 2 to 4
        // segments keeps its 1), at most TCP_MAX_QUICKACKS.
        let q = match self.rcv_wnd / (2 * self.rcv_mss as u64) {
            0 => 2,
            q => q,
        }
        .min(self.max_quickacks as u64) as u32;
        self.quick = self.quick.max(q);
    }

    /// `in_order`: the segment's length and PSH flag for `tcp_event_data_recv`
    /// (in-order data only: out-of-order and duplicate segments do not
    /// measure `rcv_mss`, adapt `ato` or move `lrcvtime`); `own`: the
    /// socket's own RTO and SRTT.
    #[inline(always)]
    fn data_ack_policy(
        &mut self,
        now: Nanos,
        had_ooo: bool,
        grew: bool,
        in_order: Option<(u32, bool)>,
        own: OwnRtt,
    ) {
        // inet_csk_schedule_ack
        self.ack_pending = true;
        if let Some((len, psh)) = in_order {
            self.measure_rcv_mss(len, psh);
            // the first data segment, or one after a silence longer than
            // the RTO: tcp_incr_quickack (delack.rs)
            if self.dack.on_data(now, own) {
                self.incr_quickack();
            }
        }
        if grew {
            // Linux tcp_grow_window: `icsk_ack.quick |= 1` whenever
            // rcv_ssthresh grew, so this segment is ACKed at once (a bitwise
            // or: an odd count of initial quick ACKs stays as it is)
            self.quick |= 1;
        }
        if !self.delayed_ack {
            self.ack_now = true;
            return;
        }
        // Linux __tcp_ack_snd_check: ACK now if more than one full-sized
        // segment is unacknowledged (RFC 5681 4.2 / RFC 1122 4.2.3.2: at least
        // every second full-sized segment), in quick-ACK mode, or when this
        // segment emptied the out-of-order queue (`tcp_data_queue`:
        // `ICSK_ACK_NOW`, "gap in queue is filled", RFC 5681 4.2).
        // Quick-ACK mode counts only outside ping-pong mode
        // (tcp_in_quickack_mode: `quick && !inet_csk_in_pingpong_mode`).
        if self.rcv_nxt - self.rcv_wup > self.rcv_mss as u64
            || (self.quick > 0 && !self.pingpong)
            || (had_ooo && self.ooo.is_empty())
        {
            self.ack_now = true;
        } else if self.ooo.is_empty() {
            // Linux tcp_send_delayed_ack: the timer at jiffies + ato on the
            // wheel, an earlier pending one kept (delack.rs)
            match self.dack.schedule(now, self.pingpong, self.pushed > 0) {
                Delack::SendNow => self.ack_now = true,
                Delack::At(t) => self.delack_deadline = Some(t),
            }
        } else if !self.sack_ok {
            self.ack_now = true;
        } else {
            // out-of-order data queued: three ACKs at once per rcv_nxt,
            // then SACK compression (comp_sack.rs)
            match self.comp.on_ofo_segment(now, self.rcv_nxt, own.srtt) {
                OfoAck::Now => self.ack_now = true,
                OfoAck::At(t) => self.arm(t),
                OfoAck::Pending => {}
            }
        }
    }

    /// Arm the compressed-ACK timer: the deadline is the delayed-ACK
    /// timer's or this one's, whichever comes first (any ACK sent stops
    /// both).
    fn arm(&mut self, t: Nanos) {
        self.delack_deadline = Some(self.delack_deadline.map_or(t, |d| d.min(t)));
    }

    /// Insert [s, e) into the out-of-order ranges; returns true if it was
    /// entirely a duplicate. Moves the block containing it to the front of
    /// the SACK list (RFC 2018 4).
    fn ooo_insert(&mut self, s: u64, e: u64) -> bool {
        let i = self.ooo.partition_point(|r| r.1 < s);
        if i < self.ooo.len() && self.ooo[i].0 <= s && self.ooo[i].1 >= e {
            let (bs, be) = self.ooo[i];
            self.sack_front(bs, be);
            return true;
        }
        let mut ns = s;
        let mut ne = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= ne {
            ns = ns.min(self.ooo[j].0);
            ne = ne.max(self.ooo[j].1);
            self.ooo_bytes -= self.ooo[j].1 - self.ooo[j].0;
            j += 1;
        }
        if j > i {
            self.ooo[i] = (ns, ne);
            self.ooo.drain(i + 1..j);
        } else {
            self.ooo.insert(i, (ns, ne));
        }
        self.ooo_bytes += ne - ns;
        self.sack_front(ns, ne);
        false
    }

    fn sack_front(&mut self, s: u64, e: u64) {
        // drop blocks now covered by [s, e), then put it first
        let mut tmp = [SackBlock::default(); MAX_SACK_BLOCKS + 1];
        tmp[0] = SackBlock { start: s, end: e };
        let mut k = 1;
        for b in &self.sack[..self.sack_n] {
            if (b.end < s || b.start > e) && k < tmp.len() {
                tmp[k] = *b;
                k += 1;
            }
        }
        self.sack = tmp;
        self.sack_n = k;
    }

    fn sack_drop_below(&mut self) {
        let nxt = self.rcv_nxt;
        let mut k = 0;
        for i in 0..self.sack_n {
            if self.sack[i].end > nxt {
                self.sack[k] = self.sack[i];
                k += 1;
            }
        }
        self.sack_n = k;
    }

    /// SACK blocks the next ACK would carry.
    pub fn pending_sack_blocks(&self) -> usize {
        if !self.sack_ok {
            return 0;
        }
        (self.sack_n + self.dsack.is_some() as usize).min(MAX_SACK_BLOCKS)
    }

    /// Extra option bytes that `n` SACK blocks add to a segment: Linux
    /// writes them as `NOP NOP SACK` (`tcp_options_write`), 4 + 8n bytes
    /// whether or not timestamps precede them (`crate::optlen::sack_len`).
    pub fn sack_option_bytes(&self, n: usize) -> u32 {
        crate::optlen::sack_len(n)
    }

    /// The inputs of `window()` that building an ACK writes
    /// (`fill_ack_window`: `rcv_wnd`, the right edge) or that each in-order
    /// segment moves (`rcv_nxt`): the key of `TcpEndpoint`'s window memo.
    #[inline(always)]
    pub fn window_key(&self) -> (u64, u64, u64) {
        (self.rcv_nxt, self.rcv_wnd, self.right_edge)
    }

    /// Fill the ACK fields of an outgoing segment (ack, window, SACK/D-SACK,
    /// TSecr) and account for the ACK being sent.
    pub fn fill_ack(&mut self, seg: &mut TcpSegment, now: Nanos) {
        self.fill_ack_limited(seg, now, MAX_SACK_BLOCKS);
    }

    /// Like `fill_ack`, with at most `max_sack` SACK blocks (so a full-sized
    /// retransmission stays within the MTU).
    ///
    /// Inlined into its two callers (`TcpEndpoint::build_tx`, `build_ack`:
    /// every segment a TCP endpoint sends), whose call overhead it spares.
    #[inline]
    pub fn fill_ack_limited(&mut self, seg: &mut TcpSegment, now: Nanos, max_sack: usize) {
        let wnd = self.window();
        self.fill_ack_window(seg, now, max_sack, wnd);
    }

    /// Like `fill_ack_limited`, advertising `wnd`, which the owner chose:
    /// an MPTCP subflow (`window_mptcp`, then the connection's right edge,
    /// `mptcp_set_rwin`). The subflow's own `window()` is not computed: it
    /// was overwritten by `set_advertised` at once, and the right edge it
    /// could raise is never read for a subflow (its acceptance limit,
    /// `rcvbuf` = 2^40, is above any window, 65535 << 14), so results are
    /// the same without it.
    #[inline]
    pub fn fill_ack_window(&mut self, seg: &mut TcpSegment, now: Nanos, max_sack: usize, wnd: u64) {
        seg.ack = self.rcv_nxt;
        seg.window = wnd;
        self.rcv_wnd = wnd;
        self.right_edge = self.right_edge.max(self.rcv_nxt + wnd);
        if self.sack_ok {
            let mut n = 0;
            if let Some(d) = self.dsack.take_if(|_| max_sack > 0) {
                // RFC 2883 4: the D-SACK block is the first block.
                seg.set_sack_block(0, d);
                n = 1;
            }
            let max = max_sack.min(MAX_SACK_BLOCKS);
            if n > max {
                n = max;
            }
            for b in &self.sack[..self.sack_n] {
                if n >= max {
                    break;
                }
                seg.set_sack_block(n, *b);
                n += 1;
            }
            seg.set_sack_len(n);
        }
        if self.ts_ok {
            seg.set_ts(Some((now, self.ts_recent)));
        }
        // Linux tcp_event_ack_sent -> tcp_dec_quickack_mode: one quick ACK
        // is used only by a segment that acknowledges data an ACK was
        // scheduled for (`pkts = inet_csk_ack_scheduled(sk) ? 1 : 0`), not
        // by our own data, a window update or an MPTCP signal sent with
        // nothing to acknowledge.
        if self.ack_pending {
            self.quick = self.quick.saturating_sub(1);
        }
        self.rcv_wup = self.rcv_nxt;
        self.ack_pending = false;
        self.ack_now = false;
        self.delack_deadline = None;
        self.dack.clear();
        self.comp.on_ack_sent();
        // Linux inet_csk_clear_xmit_timer(ICSK_TIME_DACK): pending flags,
        // the pushed marks among them, are cleared with every ACK sent
        self.pushed = 0;
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// docs/performance.md "Session 22": what a segment built reads
    /// (`fill_ack_window`, `window_mptcp`) lies in the first 256 bytes, what
    /// an ACK received reads (`ts_ok`, `rcv_wup`, `ts_recent`) in the first
    /// 96, the in-order data's own fields and the SACK blocks behind.
    #[test]
    fn a_segment_built_reads_the_first_256_bytes() {
        assert!(offset_of!(PathReceiver, ts_ok) < 96);
        assert!(offset_of!(PathReceiver, rcv_wscale) < 96);
        assert!(offset_of!(PathReceiver, dsack) + size_of::<Option<SackBlock>>() <= 128);
        let comp = offset_of!(PathReceiver, comp);
        assert!(comp + size_of::<CompSack>() <= 256);
        assert!(offset_of!(PathReceiver, win) < comp && offset_of!(PathReceiver, dack) < comp);
        assert!(offset_of!(PathReceiver, delivered) >= 256);
        // (the invariant checker, compiled in by debug builds and when a
        // dependent crate enables `invariants` in the same build, adds its
        // own fields: `invariants::ENABLED`)
        if !crate::invariants::ENABLED {
            assert_eq!(size_of::<PathReceiver>(), 384);
        }
    }
}
