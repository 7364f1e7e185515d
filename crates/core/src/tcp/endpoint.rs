//! The TCP socket: handshake, the application's send buffer, app events and
//! connection close, on top of one `PathSender` + `PathReceiver`.

use std::collections::VecDeque;

use crate::endpoint::{AppEvent, Counters, Endpoint, PathReport, PathState};
use crate::packet::{flags, Addr, FlowId, Packet, Payload, TcpSegment};
use crate::time::Nanos;

use super::cc::{CongestionControl, INFINITE_SSTHRESH};
use super::config::TcpConfig;
use super::receiver::PathReceiver;
use super::sender::{AckInfo, PathSender, Tx, TxKind};
use super::sndbuf::SendBuffer;

/// Which side opens the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Active open (`Endpoint::connect`).
    Client,
    /// Passive open: listens for the peer's SYN.
    Server,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Established,
    /// Both FINs exchanged and acknowledged. No TIME_WAIT is modelled: the
    /// simulator never reuses a 4-tuple, so the 2*MSL wait has no effect.
    Done,
}

#[derive(Debug)]
pub struct TcpEndpoint {
    cfg: TcpConfig,
    flow: FlowId,
    local: Addr,
    remote: Addr,
    local_port: u16,
    remote_port: u16,
    pub role: Role,
    pub state: TcpState,
    pub snd: PathSender,
    pub rcv: PathReceiver,
    events: VecDeque<AppEvent>,
    syn_pending: bool,
    syn_sent_at: Nanos,
    syn_retx: u32,
    /// Set when the SYN retries ran out (`Endpoint::gave_up`).
    gave_up: Option<&'static str>,
    syn_timer: Option<Nanos>,
    syn_rto: Nanos,
    /// Our window shift offered in the SYN.
    our_wscale: u8,
    /// `sk_sndbuf` and the skbs charged to `sk_wmem_queued` (`super::sndbuf`).
    pub(super) sndbuf: SendBuffer,
    /// A `tcp_write_xmit` round is under way: `poll_transmit` handed out a
    /// segment and has not yet found nothing more to send.
    xmit_round: bool,
    /// This round sent new data whose retransmission timer is armed when
    /// it ends (`PathSender::next_tx_with_new_unarmed`).
    pto_due: bool,
    /// Segments `tcp_push` sent at the end of a `write` (`push_at_write_end`),
    /// handed to the driver by the next `poll_transmit` calls.
    pushed: VecDeque<Packet>,
    /// `tp->max_window`: the largest window the peer has offered, for the
    /// size goal (`tcp_bound_to_half_wnd`) and `forced_push`.
    max_window: u64,
    /// `tp->pushed_seq`: `write_seq` at the last `tcp_mark_push`.
    pushed_seq: u64,
    write_blocked: bool,
    app_closed: bool,
    close_reported: bool,
    /// The window the last ACK fields advertised (`ack_window`).
    wnd_memo: WndMemo,
}

/// `PathReceiver::window()` (Linux `__tcp_select_window` and
/// `tcp_select_window`'s no-shrink rule and field limit) for the inputs it
/// was computed from. `window()` reads `rcv_nxt`, `rcv_wnd` and the right
/// edge (the key) and the receiver's buffer state (`win`, the out-of-order
/// bytes, `rcv_mss`, `rcv_wscale`), which only segments received change:
/// `valid` is cleared wherever `TcpEndpoint` hands the receiver a segment
/// (`on_segment`) or runs the handshake. The data sender of a bulk flow
/// builds one to two segments per ACK received, each advertising the same
/// window from the same state: Linux computes it for every segment
/// (`tcp_select_window` in `__tcp_transmit_skb`); the model computes it
/// once and advertises the value it would compute again.
#[derive(Clone, Copy, Debug, Default)]
struct WndMemo {
    valid: bool,
    key: (u64, u64, u64),
    wnd: u64,
}

impl TcpEndpoint {
    /// An endpoint using the congestion control named in `cfg.cc`.
    pub fn new(
        cfg: &TcpConfig,
        flow: FlowId,
        local: Addr,
        local_port: u16,
        remote: Addr,
        remote_port: u16,
        role: Role,
    ) -> Self {
        Self::with_cc(
            cfg,
            cfg.cc.build_with(cfg.cubic, cfg.hystart, cfg.jiffy_clock()),
            flow,
            local,
            local_port,
            remote,
            remote_port,
            role,
        )
    }

    /// An endpoint with a caller-supplied congestion control.
    #[allow(clippy::too_many_arguments)]
    pub fn with_cc(
        cfg: &TcpConfig,
        cc: Box<dyn CongestionControl>,
        flow: FlowId,
        local: Addr,
        local_port: u16,
        remote: Addr,
        remote_port: u16,
        role: Role,
    ) -> Self {
        let rcv = PathReceiver::new(cfg);
        // Linux tcp_select_initial_window (RcvWindow::initial_wscale)
        let our_wscale = rcv.win.initial_wscale();
        TcpEndpoint {
            cfg: cfg.clone(),
            flow,
            local,
            remote,
            local_port,
            remote_port,
            role,
            state: if role == Role::Server {
                TcpState::Listen
            } else {
                TcpState::Closed
            },
            snd: PathSender::new(cfg, cc),
            rcv,
            events: VecDeque::new(),
            syn_pending: false,
            syn_sent_at: 0,
            syn_retx: 0,
            gave_up: None,
            syn_timer: None,
            syn_rto: cfg.rto_initial,
            our_wscale,
            sndbuf: SendBuffer::new(cfg.sndbuf),
            xmit_round: false,
            pto_due: false,
            pushed: VecDeque::new(),
            max_window: 0,
            pushed_seq: 0,
            write_blocked: false,
            app_closed: false,
            close_reported: false,
            wnd_memo: WndMemo::default(),
        }
    }

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// A packet with an empty TCP segment, filled in place (no copies of
    /// the large `Packet` in the per-segment path).
    #[inline]
    fn new_packet(&self) -> Packet {
        Packet {
            src: self.local,
            dst: self.remote,
            flow: self.flow,
            size: 0,
            payload: Payload::Tcp(TcpSegment::new(self.local_port, self.remote_port)),
        }
    }

    // Always inlined into its two per-segment callers (`build_tx`,
    // `build_ack`): as a call its prologue and epilogue cost about as much
    // as its body.
    #[inline(always)]
    fn finish(&mut self, p: &mut Packet) {
        let s = seg_mut(p);
        let header = if s.has(flags::SYN) {
            s.header_len(self.cfg.ip)
        } else {
            established_header_len(s, self.cfg.ip)
        };
        p.size = header + s.len;
        self.snd.counters.packets_sent += 1;
    }

    /// The builders write the packet over `*p` (a pool slot, a queue's
    /// slot or a local): built where it is sent from, not copied there.
    /// What they write over owns nothing on the heap (`Packet::VACANT`, or
    /// a slot the engine's pool cleaned: `Endpoint::poll_transmit_into`).
    fn build_syn(&mut self, now: Nanos, p: &mut Packet) {
        p.overwrite_plain_with(|| self.new_packet());
        let s = seg_mut(p);
        s.seq = 0;
        s.flags = flags::SYN;
        // RFC 9293 3.7.1: MSS option = MTU - 40.
        s.set_mss(Some(self.cfg.mss_option() as u16));
        // RFC 7323 2.2: the window in a SYN is never scaled.
        s.window = self.cfg.rcvbuf.min(65535);
        if self.cfg.window_scaling {
            s.wscale = Some(self.our_wscale);
        }
        s.sack_permitted = self.cfg.sack;
        if self.role == Role::Server {
            s.flags |= flags::ACK;
            s.ack = 1;
            // Only echo what the client offered (RFC 7323 2.2, RFC 2018 2).
            if self.rcv.rcv_wscale.is_none() {
                s.wscale = None;
            }
            s.sack_permitted = self.rcv.sack_ok;
            if self.rcv.ts_ok {
                s.set_ts(Some((now, self.rcv.ts_recent())));
            }
        } else if self.cfg.timestamps {
            s.set_ts(Some((now, 0)));
        }
        self.finish(p);
    }

    // Always inlined into `transmit` and `push_one` (every data segment):
    // as a call it built its 128-byte `Packet` in a stack temporary and
    // copied it to the return slot (cg.sh: -5.9 M instructions in the cell).
    #[inline(always)]
    fn build_tx(&mut self, now: Nanos, tx: Tx, p: &mut Packet) {
        p.overwrite_plain_with(|| self.new_packet());
        let s = seg_mut(p);
        s.seq = tx.seq;
        s.len = tx.len;
        s.flags = flags::ACK;
        if tx.fin {
            s.flags |= flags::FIN;
        }
        if tx.len > 0 && tx.kind == TxKind::New && (self.snd.unsent() == 0 || self.snd.tso_psh) {
            // Linux sets PSH on the last segment of the queued data
            // (`tcp_push` -> `tcp_mark_push` on the write queue's tail), and
            // on the last segment of every transmission of two or more
            // segments (`__tcp_transmit_skb`: `tcp_skb_pcount(skb) > 1`,
            // "Force a PSH flag on all (GSO) packets"; `tso_fragment`
            // leaves the mark on the untransmitted rest, `tcp_gso_segment`
            // on the GSO skb's last segment). The kernel's captures of
            // nornet-video-wlanwlan show both (docs/validation.md, "Session
            // 22"). Simplification: retransmissions carry no PSH.
            s.flags |= flags::PSH;
        }
        // SACK blocks only as far as they fit in the MTU (a retransmission
        // keeps its boundaries; Linux would fragment it instead).
        let room = self
            .cfg
            .mtu
            .saturating_sub(established_header_len(s, self.cfg.ip) + tx.len);
        let mut n = self.rcv.pending_sack_blocks();
        while n > 0 && self.rcv.sack_option_bytes(n) > room {
            n -= 1;
        }
        if tx.len > 0 {
            self.rcv.on_data_sent(now);
        }
        let wnd = self.ack_window();
        self.rcv.fill_ack_window(s, now, n, wnd);
        self.finish(p);
    }

    /// The window to advertise: `PathReceiver::window()`, or the memo's
    /// value when none of its inputs changed since (`WndMemo`).
    #[inline(always)]
    fn ack_window(&mut self) -> u64 {
        let key = self.rcv.window_key();
        let m = &mut self.wnd_memo;
        if m.valid && m.key == key {
            #[cfg(any(debug_assertions, feature = "invariants"))]
            assert_eq!(m.wnd, self.rcv.window(), "window memo out of date");
            return m.wnd;
        }
        let wnd = self.rcv.window();
        *m = WndMemo {
            valid: true,
            key,
            wnd,
        };
        wnd
    }

    fn build_ack(&mut self, now: Nanos, p: &mut Packet) {
        p.overwrite_plain_with(|| self.new_packet());
        let s = seg_mut(p);
        s.seq = self.snd.snd_nxt;
        s.flags = flags::ACK;
        // (`fill_ack`'s body: `fill_ack` itself stayed a call)
        let wnd = self.ack_window();
        self.rcv
            .fill_ack_window(s, now, crate::packet::MAX_SACK_BLOCKS, wnd);
        self.finish(p);
    }

    /// Options agreed from the peer's SYN / SYN-ACK.
    fn negotiate(&mut self, now: Nanos, seg: &TcpSegment) {
        let ts_ok = self.cfg.timestamps && seg.ts().is_some();
        let sack_ok = self.cfg.sack && seg.sack_permitted;
        // RFC 7323 2.2: scaling only if both sides send the option.
        let wscale_ok = self.cfg.window_scaling && seg.wscale.is_some();
        self.rcv.ts_ok = ts_ok;
        self.rcv.sack_ok = sack_ok;
        self.rcv.rcv_wscale = if wscale_ok {
            Some(self.our_wscale)
        } else {
            None
        };
        let peer_mss = seg.mss().map(|m| m as u32).unwrap_or(536); // RFC 9293 3.7.1 default
        let mss = peer_mss.min(self.cfg.mss_option()) - if ts_ok { 12 } else { 0 };
        self.rcv.rcv_mss = mss;
        self.rcv
            .on_negotiated(self.cfg.mss_option(), self.role == Role::Client);
        let _ = now;
        self.snd.mss = mss;
        self.snd.cc_state.mss = mss;
    }

    /// `ts_ecr`: the TSecr of the SYN-ACK or ACK completing the handshake.
    fn establish(&mut self, now: Nanos, window: u64, ts_ecr: Option<Nanos>) {
        let (sack, ts) = (self.rcv.sack_ok, self.rcv.ts_ok);
        // RTT sample from the handshake (Linux tcp_synack_rtt_meas /
        // tcp_ack_update_rtt): by time if nothing was retransmitted, else
        // from the timestamp echo.
        self.snd.rtt.handshake_sample(
            now,
            self.syn_sent_at,
            self.syn_retx > 0,
            ts_ecr.filter(|_| ts),
            self.snd.snd_nxt,
        );
        self.snd.established(now, self.snd.mss, sack, ts, window);
        self.sndbuf.on_established(self.snd.mss, self.snd.cwnd());
        // tcp_rcv_synsent_state_process / tcp_create_openreq_child:
        // `max_window = snd_wnd`; tcp_connect / tcp_create_openreq_child:
        // `pushed_seq = write_seq`
        self.max_window = window;
        self.pushed_seq = self.snd.write_seq;
        if self.syn_retx > 0 {
            // RFC 6298 (5.7) / Linux tcp_init_transfer: 3 s RTO without a sample.
            self.snd.rtt.syn_lost_fallback(3 * crate::time::SEC);
        }
        if self.syn_retx > 1 {
            // RFC 5681 3.1 (lost SYN: IW = 1 segment); Linux applies it only
            // after more than one handshake retransmission (tcp_init_transfer).
            self.snd.cc_state.cwnd = 1;
        }
        self.syn_timer = None;
        self.syn_pending = false;
        self.state = TcpState::Established;
        self.events.push_back(AppEvent::Connected);
    }

    /// `tcp_write_xmit` ended a round: cut the skbs it sent
    /// (`super::sndbuf`, `tso_fragment` by `tcp_tso_autosize`). Always
    /// inlined: most calls return at the first test, and with the MPTCP
    /// connection module grown (session 29's quiet refill) the compiler took
    /// it out of line, a call on each of the cell's 831 k passes.
    #[inline(always)]
    fn cut_sent_skbs(&mut self) {
        let s = &self.snd;
        if !self.sndbuf.sent_since_cut(s.snd_nxt) {
            return;
        }
        let pace = self.pacing_rate_bps();
        self.sndbuf
            .on_xmit(s.snd_nxt, s.mss, pace, s.rtt.min_rtt / crate::time::US);
    }

    /// `transmit` would return false and write nothing but what it already
    /// holds: no SYN, no ACK due (`tcp_send_ack` / `__tcp_ack_snd_check`
    /// only when asked), an established connection whose sender has nothing
    /// to send and ends its pass without `tcp_cwnd_validate`
    /// (`PathSender::quiet_pass`: `tcp_write_xmit` sends nothing), no round
    /// open (`xmit_round` is false after every such pass) and nothing sent
    /// since the last cut (`cut_sent_skbs` returns at once). Tested before
    /// the call: the receiving end's drain after each data segment (half of
    /// the background cell's `transmit` calls) then costs no call.
    /// `transmit` would also set `snd.opt_overhead`; it is read only by
    /// `start_xmit_round`, `next_tx_slow` and `push_one_tx`, each after
    /// `transmit` or `push_one` set it again, so it is left as it is.
    #[inline(always)]
    pub(super) fn quiet(&self) -> bool {
        !self.rcv.ack_due()
            && self.snd.quiet_pass()
            && !self.syn_pending
            && !self.xmit_round
            && matches!(self.state, TcpState::Established | TcpState::Done)
            && !self.sndbuf.sent_since_cut(self.snd.snd_nxt)
    }

    /// Builds with invariants: a `transmit` call `quiet` skips would have
    /// sent nothing and changed nothing but `snd.opt_overhead` (restored
    /// here, so that these builds hold what release builds hold). Runs the
    /// call to see.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_quiet(&mut self, now: Nanos) {
        let state = |e: &Self| {
            (
                e.snd.pass_state(),
                (
                    e.snd.snd_nxt,
                    e.snd.counters.packets_sent,
                    e.snd.next_timeout(),
                ),
                (e.xmit_round, e.syn_pending, e.state),
                (e.sndbuf.sent_since_cut(e.snd.snd_nxt), e.rcv.ack_due()),
            )
        };
        let (before, opt) = (state(self), self.snd.opt_overhead);
        let mut p = Packet::VACANT;
        let sent = self.transmit(now, &mut p);
        assert!(
            !sent && state(self) == before,
            "quiet() skipped a transmit call that acted"
        );
        self.snd.opt_overhead = opt;
    }

    /// Builds with invariants: no timer is left to the end of a round
    /// (`pto_due`) where `what` happens: a read of the timers, or a
    /// segment or timeout that reads or re-arms them.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_round_ended(&self, what: &str) {
        assert!(
            !self.pto_due,
            "{what} in the middle of a transmission round"
        );
    }

    /// Builds with invariants: an idle ACK (`PathSender::ack_is_idle`)
    /// leaves no skb of the send buffer to free. Makes the call to see.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(super) fn check_idle_sndbuf(&mut self) {
        assert!(
            !self.sndbuf.on_ack(self.snd.snd_una),
            "an idle ACK skipped the send buffer's on_ack, which freed an skb"
        );
    }

    /// `Endpoint::poll_transmit_into` without the segments already pushed:
    /// the next packet written over `*p`, false if there is none.
    fn transmit(&mut self, now: Nanos, p: &mut Packet) -> bool {
        if self.syn_pending {
            self.syn_pending = false;
            if self.syn_retx == 0 {
                self.syn_sent_at = now;
            }
            self.syn_timer = Some(now + self.syn_rto);
            self.build_syn(now, p);
            return true;
        }
        if matches!(self.state, TcpState::Established | TcpState::Done) {
            // Linux tcp_current_mss: SACK blocks on this segment shrink it.
            self.snd.opt_overhead = self.rcv.sack_option_bytes(self.rcv.pending_sack_blocks());
            let tx = 'pass: {
                // (only new data is deferred: nothing to set up without it)
                if self.snd.unsent() > 0 {
                    if !self.xmit_round {
                        self.start_xmit_round();
                    }
                    if self.snd.tso_burst_left == 0 {
                        // the skb a new transmission is decided for
                        // (tcp_send_head), looked up only if `next_tx` can
                        // reach `tso_defers`, its one reader: a pass that
                        // finds the window full (`PathSender::window_full`)
                        // ends first. Linux tcp_write_xmit reads
                        // `tcp_send_head` at the top of its loop, then
                        // `tcp_cwnd_test` breaks before the skb is used; the
                        // model skips the read it would not use.
                        if self.snd.window_full() {
                            #[cfg(any(debug_assertions, feature = "invariants"))]
                            {
                                self.snd.tso_skb_stale = true;
                            }
                            // ... and, with no probe due, the `next_tx` call
                            // that would only end the pass there
                            // (`PathSender::end_full_pass`)
                            if self.snd.end_full_pass(now) {
                                break 'pass None;
                            }
                        } else {
                            self.snd.tso_skb = self.sndbuf.send_head(self.snd.snd_nxt);
                            #[cfg(any(debug_assertions, feature = "invariants"))]
                            {
                                self.snd.tso_skb_stale = false;
                            }
                        }
                    }
                    // (new data unsent: `next_tx`'s quick test fails; the
                    // timer of the new data sent is armed at the end of the
                    // round, below)
                    break 'pass self.snd.next_tx_with_new_unarmed(now);
                }
                self.snd.next_tx(now)
            };
            if let Some(tx) = tx {
                // (`next_tx` arms its own: arming once more at the end
                // computes the same timer again)
                self.pto_due |= tx.kind == TxKind::New;
                self.build_tx(now, tx, p);
                return true;
            }
            self.xmit_round = false;
            if self.pto_due {
                // Linux tcp_write_xmit: tcp_schedule_loss_probe once the
                // loop has sent its segments
                self.pto_due = false;
                self.snd.arm_after_new_data(now);
            }
            self.cut_sent_skbs();
        }
        if self.rcv.ack_due() && self.state != TcpState::Listen {
            self.build_ack(now, p);
            return true;
        }
        false
    }

    /// The size goal of this write's skbs (`tcp_send_mss`, see
    /// `super::sndbuf::bounded_size_goal`).
    fn size_goal(&self) -> u64 {
        let tcp_header_len = 20 + if self.rcv.ts_ok { 12 } else { 0 };
        super::sndbuf::bounded_size_goal(self.snd.mss, self.max_window, tcp_header_len)
    }

    /// `forced_push` (net/ipv4/tcp.c): more than half the largest window
    /// written since the last push mark.
    fn forced_push(&self) -> bool {
        self.snd.write_seq > self.pushed_seq + (self.max_window >> 1)
    }

    /// `tcp_push_one` (net/ipv4/tcp_output.c) from `tcp_sendmsg_locked` when
    /// the skb just filled is the send head: one `tcp_write_xmit` round
    /// with `push_one`, which sends that skb's first TSO piece without
    /// deferral (`PathSender::push_one`) and stops; `tso_fragment` cuts it
    /// at once, so the write's next `sk_stream_memory_free` sees the cut.
    fn push_one(&mut self, now: Nanos) {
        self.snd.opt_overhead = self.rcv.sack_option_bytes(self.rcv.pending_sack_blocks());
        self.start_xmit_round();
        self.snd.tso_skb = self.sndbuf.send_head(self.snd.snd_nxt);
        #[cfg(any(debug_assertions, feature = "invariants"))]
        {
            self.snd.tso_skb_stale = false;
        }
        self.snd.push_one = true;
        while let Some(tx) = self.snd.next_tx(now) {
            let mut p = Packet::VACANT;
            self.build_tx(now, tx, &mut p);
            self.pushed.push_back(p);
            if self.snd.tso_burst_left == 0 {
                break;
            }
        }
        self.snd.push_one = false;
        self.xmit_round = false;
        self.cut_sent_skbs();
    }

    /// `tcp_push` at the end of `tcp_sendmsg_locked` (net/ipv4/tcp.c; also
    /// before `sk_stream_wait_memory` when the buffer is full, and
    /// `__tcp_push_pending_frames` on a `forced_push` during the write):
    /// `__tcp_push_pending_frames` -> `tcp_write_xmit` sends what the
    /// window, Nagle, TSO deferral and pacing allow before the write
    /// returns, and `tso_fragment` cuts (and charges) the pieces sent. So
    /// the next write's `sk_stream_memory_free` already sees their
    /// truesize (`super::sndbuf`). The segments wait in `pushed` for the
    /// driver, at the same time `now`.
    fn push_at_write_end(&mut self, now: Nanos) {
        // Each segment is built in its place in `pushed` (a vacant packet
        // queued, then written over), not in a local copied in: the queue
        // is taken out of `self` meanwhile (`transmit` does not use it).
        let mut q = std::mem::take(&mut self.pushed);
        loop {
            q.push_back(Packet::VACANT);
            let slot = q.back_mut().expect("just pushed");
            if !self.transmit(now, slot) {
                // (left as it was: `Packet::VACANT`, which owns nothing, so
                // it is forgotten; a drop copied it out and called the drop
                // glue)
                std::mem::forget(q.pop_back());
                break;
            }
        }
        // (the queue `take` left is empty and holds no allocation: a plain
        // assignment called `VecDeque`'s drop out of line to free nothing)
        let left = std::mem::replace(&mut self.pushed, q);
        debug_assert!(left.is_empty() && left.capacity() == 0);
        std::mem::forget(left);
    }

    /// `sk_pacing_rate` as `tcp_update_pacing_rate` sets it (mss_cache:
    /// the MSS without SACK blocks).
    fn pacing_rate_bps(&self) -> u64 {
        let s = &self.snd;
        let ss = s.ssthresh();
        crate::mptcp::sched::upstream::linux_pacing_rate_bps(
            s.cwnd(),
            if ss >= INFINITE_SSTHRESH {
                u32::MAX
            } else {
                ss
            },
            s.packets_out,
            s.mss,
            s.rtt.srtt,
        )
    }

    /// A `tcp_write_xmit` round begins (net/ipv4/tcp_output.c): its
    /// `max_segs = tcp_tso_segs(sk, mss_now)`, i.e. `tcp_tso_autosize` of
    /// the current pacing rate in `mss_now` segments (at least
    /// `tcp_min_tso_segs`, 2), lets `tcp_tso_should_defer` hold a
    /// multi-segment skb of the send buffer back (`PathSender::tso_defers`).
    fn start_xmit_round(&mut self) {
        self.xmit_round = true;
        let pace = self.pacing_rate_bps();
        let s = &mut self.snd;
        let mss_now = s.mss.saturating_sub(s.opt_overhead).max(1);
        let autosize =
            crate::mptcp::sndbuf::size_goal(mss_now, pace, s.rtt.min_rtt / crate::time::US);
        s.tso_max_segs = (autosize / mss_now as u64) as u32;
        s.tso_burst_left = 0;
    }

    fn after_activity(&mut self, queue_shrunk: bool) {
        if self.write_blocked && queue_shrunk {
            // tcp_check_space -> tcp_new_space -> sk_stream_write_space.
            let s = &self.snd;
            if self
                .sndbuf
                .new_space(s.buffered(), s.mss, s.cwnd(), s.in_flight())
            {
                self.write_blocked = false;
                self.events.push_back(AppEvent::Writable);
            }
        }
        if !self.close_reported && self.app_closed && self.snd.fin_acked() && self.rcv.fin_received
        {
            self.close_reported = true;
            self.state = TcpState::Done;
            self.events.push_back(AppEvent::Closed);
        }
    }

    fn on_established_segment(&mut self, now: Nanos, seg: &TcpSegment) {
        // (the engine drains after each event: a segment arrives between
        // rounds, once the timer left to a round's end is armed)
        #[cfg(any(debug_assertions, feature = "invariants"))]
        self.check_round_ended("a segment handled");
        self.cut_sent_skbs();
        let mut queue_shrunk = false;
        if seg.has(flags::ACK) {
            // Most ACKs carry no SACK block: decode (and zero) the blocks
            // only when there are some, as `MptcpConnection` does.
            let sack = (seg.sack_len() > 0).then(|| seg.sack_blocks());
            let ai = AckInfo {
                ack: seg.ack,
                window: seg.window,
                sack: sack.as_deref().unwrap_or(&[]),
                ts_ecr: if self.rcv.ts_ok {
                    seg.ts().map(|t| t.1)
                } else {
                    None
                },
                // the same test as `len > 0 || FIN || SYN`, evaluated without
                // short-circuit branches: one mask test for both flags
                carries_data: (seg.len > 0) | seg.has(flags::FIN | flags::SYN),
            };
            // The ACK field of a data segment at an end that sends no data
            // (`ack_is_idle`) takes `on_ack`'s own first test, here, without
            // the call: about two in three segments in a bulk flow's cell.
            if self.snd.ack_is_idle(&ai) {
                self.snd.on_idle_ack();
                // Nothing outstanding or unsent and SND.UNA unmoved: the
                // send buffer's `on_ack` (tcp_clean_rtx_queue's skb
                // freeing) would find no skb acknowledged, the one after
                // the last `on_ack` having freed them all. Checked builds
                // make the call (`check_idle_sndbuf`).
                #[cfg(any(debug_assertions, feature = "invariants"))]
                self.check_idle_sndbuf();
            } else {
                self.snd.on_ack(now, &ai, None);
                queue_shrunk = self.sndbuf.on_ack(self.snd.snd_una);
            }
            // tcp_ack_update_window: a larger window raises max_window
            self.max_window = self.max_window.max(self.snd.snd_wnd);
        }
        if seg.len > 0 || seg.has(flags::FIN) || seg.seq < self.rcv.rcv_nxt {
            // (the receiver's buffer state may change: `WndMemo`)
            self.wnd_memo.valid = false;
            let out = self.rcv.on_segment_inlined(
                now,
                seg.seq,
                seg.len,
                seg.has(flags::FIN),
                seg.has(flags::PSH),
                seg.ts().map(|t| t.0),
                self.snd.own_rtt(),
            );
            if out.ooo {
                self.snd.counters.ooo_segments += 1;
            }
            if out.delivered > 0 {
                // the application reads it at once (tcp_cleanup_rbuf)
                let empty = self.rcv.ooo_bytes() == 0;
                self.rcv.ack_read(out.delivered, empty);
                self.events.push_back(AppEvent::Delivered {
                    total: self.rcv.delivered,
                });
            }
            if out.fin {
                self.events.push_back(AppEvent::PeerClosed);
            }
        }
        self.after_activity(queue_shrunk);
    }
}

impl TcpEndpoint {
    /// The earliest of the three timers (`Endpoint::poll_timeout`, asked
    /// after every drain, and `poll_event_or_timeout`). Folded over
    /// `u64::MAX` stand-ins rather than matching each pair of Options:
    /// fewer branches on the per-packet path. The `any` check keeps the
    /// result exact even for a timer set at `u64::MAX`.
    #[inline(always)]
    fn earliest_timer(&self) -> Option<Nanos> {
        // the timer of new data is armed when the round ends: asked only
        // after a drain, which ends it (`poll_transmit_into` until false)
        #[cfg(any(debug_assertions, feature = "invariants"))]
        self.check_round_ended("timers asked for");
        let (a, b, c) = (
            self.syn_timer,
            self.snd.next_timeout(),
            self.rcv.delack_deadline,
        );
        let t = a
            .unwrap_or(Nanos::MAX)
            .min(b.unwrap_or(Nanos::MAX))
            .min(c.unwrap_or(Nanos::MAX));
        (a.is_some() | b.is_some() | c.is_some()).then_some(t)
    }
}

impl Endpoint for TcpEndpoint {
    /// A plain TCP endpoint sends no MPTCP options (an MPTCP subflow's are
    /// added by its connection, the endpoint the engine sees).
    fn may_send_owning(&self) -> bool {
        false
    }

    fn gave_up(&self) -> Option<&'static str> {
        self.gave_up
    }

    fn connect(&mut self, now: Nanos) {
        if self.state == TcpState::Closed && self.role == Role::Client {
            self.state = TcpState::SynSent;
            self.syn_pending = true;
            self.syn_sent_at = now;
        }
    }

    fn handle_packet(&mut self, now: Nanos, pkt: &Packet) {
        let Payload::Tcp(seg) = &pkt.payload else {
            return;
        };
        let c = &mut self.snd.counters;
        c.packets_received += 1;
        if seg.len > 0 {
            c.data_packets_received += 1;
            c.bytes_received += seg.len as u64;
        }
        match self.state {
            TcpState::Closed => {}
            TcpState::Listen => {
                // (the handshake sets up the receiver: `WndMemo`)
                self.wnd_memo.valid = false;
                if seg.has(flags::SYN) && !seg.has(flags::ACK) {
                    self.negotiate(now, seg);
                    self.rcv.on_syn(seg.ts().map(|t| t.0));
                    self.state = TcpState::SynRcvd;
                    self.syn_pending = true;
                    self.syn_sent_at = now;
                }
            }
            TcpState::SynSent => {
                self.wnd_memo.valid = false;
                if seg.has(flags::SYN) && seg.has(flags::ACK) && seg.ack == 1 {
                    self.negotiate(now, seg);
                    self.rcv.on_syn(seg.ts().map(|t| t.0));
                    self.establish(now, seg.window, seg.ts().map(|t| t.1));
                    // RFC 9293 3.5: complete the handshake with an ACK.
                    self.rcv.force_ack();
                }
            }
            TcpState::SynRcvd => {
                self.wnd_memo.valid = false;
                if seg.has(flags::SYN) {
                    // duplicate SYN: our SYN-ACK was lost, resend it (a
                    // retransmission: no RTT sample from it, Karn's rule)
                    self.syn_pending = true;
                    self.syn_retx += 1;
                } else if seg.has(flags::ACK) && seg.ack >= 1 {
                    self.establish(now, seg.window, seg.ts().map(|t| t.1));
                    self.on_established_segment(now, seg);
                }
            }
            TcpState::Established | TcpState::Done => {
                if seg.has(flags::SYN) {
                    // retransmitted SYN-ACK: our ACK was lost
                    self.rcv.force_ack();
                    return;
                }
                self.on_established_segment(now, seg);
            }
        }
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Packet> {
        let mut p = Packet::VACANT;
        self.poll_transmit_into(now, &mut p).then_some(p)
    }

    fn poll_transmit_into(&mut self, now: Nanos, slot: &mut Packet) -> bool {
        if !self.pushed.is_empty() {
            // (popped inside the write: popped before it, the packet went
            // through a stack copy)
            slot.overwrite_plain_with(|| self.pushed.pop_front().expect("not empty"));
            return true;
        }
        if self.quiet() {
            // `transmit` would end an empty pass: see `quiet`.
            #[cfg(any(debug_assertions, feature = "invariants"))]
            self.check_quiet(now);
            return false;
        }
        self.transmit(now, slot)
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        self.earliest_timer()
    }

    /// The engine's poll at the end of a drain, both answers inline (as
    /// the trait's default it called the two methods out of line).
    fn poll_event_or_timeout(&mut self) -> Result<AppEvent, Option<Nanos>> {
        match self.events.pop_front() {
            Some(e) => Ok(e),
            None => Err(self.earliest_timer()),
        }
    }

    fn handle_timeout(&mut self, now: Nanos) {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        self.check_round_ended("a timeout handled");
        if let Some(t) = self.syn_timer {
            if now >= t {
                self.syn_timer = None;
                let active = self.state == TcpState::SynSent;
                if self.syn_retx >= self.cfg.max_syn_retx(active) {
                    // give up (Linux tcp_syn_retries)
                    self.gave_up = Some("tcp_syn_retries");
                    self.state = TcpState::Closed;
                    self.events.push_back(AppEvent::Closed);
                    return;
                }
                self.syn_retx += 1;
                self.snd.counters.rto_events += 1;
                // back off the SYN timer (RFC 6298 (5.5)), linearly at
                // first on the active side (tcp_syn_linear_timeouts)
                self.syn_rto = self.cfg.next_syn_rto(self.syn_rto, self.syn_retx, active);
                self.syn_pending = true;
            }
        }
        self.rcv.on_timeout(now);
        if matches!(self.state, TcpState::Established | TcpState::Done) {
            self.snd.on_timeout(now, None);
        }
    }

    fn poll_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn write(&mut self, now: Nanos, len: u64) -> u64 {
        if self.app_closed {
            return 0;
        }
        self.cut_sent_skbs();
        // tcp_sendmsg_locked (net/ipv4/tcp.c): copy skb by skb; after each
        // skb filled to the size goal with data still to copy, push (the
        // socket lock is held: no ACK is processed meanwhile)
        let goal = self.size_goal();
        let mut acc = 0;
        while acc < len {
            let s = &self.snd;
            let (n, full) = self
                .sndbuf
                .copy_step(s.write_seq, len - acc, s.buffered(), goal);
            if n == 0 {
                // wait_for_space
                self.write_blocked = true;
                break;
            }
            self.snd.push_data(n);
            acc += n;
            if acc == len || !full {
                continue;
            }
            if self.forced_push() {
                // tcp_mark_push + __tcp_push_pending_frames(TCP_NAGLE_PUSH)
                self.pushed_seq = self.snd.write_seq;
                self.push_at_write_end(now);
            } else if self.sndbuf.tail_is_send_head(self.snd.snd_nxt) {
                self.push_one(now);
            }
        }
        if acc > 0 {
            // tcp_push: no MSG_MORE, so tcp_mark_push
            self.pushed_seq = self.snd.write_seq;
            self.push_at_write_end(now);
        }
        acc
    }

    /// What `write` would accept now (`tcp_sendmsg_locked`, see
    /// `super::sndbuf`): room in the unsent tail skb plus whole new skbs
    /// while `sk_wmem_queued < sk_sndbuf`.
    fn send_space(&self) -> u64 {
        let s = &self.snd;
        self.sndbuf
            .space(s.write_seq, u64::MAX / 4, s.buffered(), self.size_goal())
    }

    fn close(&mut self, _now: Nanos) {
        if !self.app_closed {
            self.app_closed = true;
            self.snd.push_fin();
        }
    }

    fn paths(&self) -> Vec<PathReport> {
        vec![PathReport {
            local: self.local,
            remote: self.remote,
            counters: self.counters().clone(),
        }]
    }

    fn path_states(&self) -> Vec<PathState> {
        let mss = self.snd.mss as u64;
        let ss = self.snd.ssthresh();
        vec![PathState {
            local: self.local,
            remote: self.remote,
            cwnd_bytes: self.snd.cwnd() as u64 * mss,
            ssthresh_bytes: if ss >= INFINITE_SSTHRESH {
                u64::MAX
            } else {
                ss as u64 * mss
            },
            srtt: self.snd.rtt.srtt,
            inflight_bytes: self.snd.in_flight() as u64 * mss,
        }]
    }
}

/// `s.header_len(ip)` of an established (not SYN) segment, from its
/// timestamps, MPTCP options and SACK blocks as `optlen::Established`
/// counts them (`tcp_established_options`), without laying the whole
/// segment out (`optlen::layout_with` handles SYNs and the capture writer's
/// needs): this runs for every segment a TCP endpoint sends.
#[inline(always)]
fn established_header_len(s: &TcpSegment, ip: crate::packet::IpVersion) -> u32 {
    debug_assert!(!s.has(flags::SYN));
    let opt = crate::optlen::Established::of(s, s.ts().is_some());
    let len =
        ip.header_len() + crate::packet::TCP_HEADER + opt.len(s.sack_len().min(opt.sack_room()));
    debug_assert_eq!(len, s.header_len(ip), "option bytes of {s:?}");
    len
}

#[inline]
fn seg_mut(p: &mut Packet) -> &mut TcpSegment {
    match &mut p.payload {
        Payload::Tcp(s) => s,
        _ => unreachable!("TCP endpoints build TCP packets"),
    }
}

impl TcpEndpoint {
    pub fn counters(&self) -> &Counters {
        &self.snd.counters
    }
}
