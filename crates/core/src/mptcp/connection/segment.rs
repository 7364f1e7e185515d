//! A segment on an established subflow: the subflow's ACK processing
//! (Linux `tcp_ack` on the subflow, then `mptcp_data_ack` /
//! `ack_update_msk` at the connection level, RFC 8684 3.3.2), its data
//! reaching the connection's reassembly (`mptcp_data_ready`, RFC 8684
//! 3.3.1) and the signalling the segment's options carry.
//!
//! `handle_packet` runs it for nearly every segment of a connection (both
//! ends of a transfer: the sender's ACKs, the receiver's data), so its body
//! is inlined there (`on_segment_inline`); the handshake arms, which run it
//! once per subflow, call the out-of-line `on_segment`. The steps that run
//! a handful of times per connection (the full-establishment watch before
//! the connection is fully established, the control options, the
//! DATA_FIN option) are out of line (`segment_start_rare`,
//! `segment_end_rare`), so that the inlined body stays small: inlined
//! whole, LLVM took other per-segment code out of line in exchange
//! (docs/performance.md, "Session 31 pass").

use super::full_estab::{v09x_full_by_data, v09x_full_by_data_ack};
use super::*;

impl MptcpConnection {
    /// `on_segment_inline` as a call: the handshake arms of
    /// `handle_packet` (the third ACK, a pre-established subflow's first
    /// segment) run it once per subflow.
    #[inline(never)]
    pub(super) fn on_segment(&mut self, now: Nanos, i: usize, seg: &TcpSegment) {
        self.on_segment_inline(now, i, seg);
    }

    /// `snd_quiet`: an idle ACK (`ack_is_idle`, the receiving end of a
    /// transfer) leaves every sender as it was; an ACK that subflow `i`'s
    /// sender processes changes that sender only (each subflow's sender
    /// holds its own window; a coupled congestion control changes only the
    /// ACKed subflow's); the rarer steps (control options, full
    /// establishment, the DATA_ACK width, DATA_FIN) clear every bit in
    /// their own functions.
    #[inline(always)]
    pub(super) fn on_segment_inline(&mut self, now: Nanos, i: usize, seg: &TcpSegment) {
        const NO_OPTIONS: MptcpOptions = MptcpOptions {
            dss: None,
            control: None,
        };
        let opts: &MptcpOptions = seg.mptcp.as_ref().unwrap_or(&NO_OPTIONS);
        if let Some(r) = &mut self.msk_rtx {
            r.on_receive(i, now);
        }
        // the client's initial subflow before the connection is fully
        // established (`full_estab.rs`, options.c `check_fully_established`)
        let watch_full = self.role == Role::Client
            && self.mode == Mode::Mptcp
            && !self.fully_established
            && self.sfs[i].initial;
        let v09x_full = (watch_full || opts.control.is_some())
            && self.segment_start_rare(now, i, seg, opts, watch_full);
        if seg.has(flags::ACK) {
            let sf = &self.sfs[i];
            let before = sf.snd.snd_una;
            let prior_nxt = sf.snd.snd_nxt;
            // (most segments carry no SACK block: nothing to unwrap)
            let sack = (seg.sack_len() > 0).then(|| seg.sack_blocks());
            let ai = AckInfo {
                ack: seg.ack,
                window: SUBFLOW_WND,
                sack: sack.as_deref().unwrap_or(&[]),
                ts_ecr: if sf.rcv.ts_ok {
                    seg.ts().map(|t| t.1)
                } else {
                    None
                },
                // the same test as `len > 0 || FIN || SYN`, evaluated without
                // short-circuit branches: one mask test for both flags
                carries_data: (seg.len > 0) | seg.has(flags::FIN | flags::SYN),
            };
            if sf.snd.ack_is_idle_inline(&ai) {
                // the receiving end of a transfer: nothing to do but the
                // snapshot, no paths needed
                self.sfs[i].snd.on_idle_ack();
            } else {
                self.forget(i);
                let mut views = std::mem::take(&mut self.path_buf);
                self.path_views(&mut views);
                self.sfs[i].snd.on_ack(now, &ai, Some(&views));
                self.path_buf = views;
            }
            let sf = &mut self.sfs[i];
            if sf.snd.snd_una > before {
                // v0.9x: new ACK progress clears "potentially failed".
                sf.pf = false;
                sf.prune_maps();
            }
            // tcp_ack -> tcp_ack_update_window, for the ACKs tcp_ack does
            // not discard as old or as acknowledging unsent data
            if (before..=prior_nxt).contains(&seg.ack) {
                sf.snd_wnd.on_ack(seg.ack, before, seg.seq, seg.window);
            }
            match self.mode {
                Mode::Mptcp => {
                    if let Some(da) = opts.dss.and_then(|d| d.data_ack()) {
                        self.send.note_announced(da, seg.window);
                        // ack_update_msk runs after tcp_ack: the subflow's
                        // snd_wnd as TCP kept it, not the ACK's window
                        let wnd = if self.send.kernel_wnd_edge() {
                            self.sfs[i].snd_wnd.wnd
                        } else {
                            seg.window
                        };
                        self.send.on_data_ack(da, wnd);
                    }
                }
                Mode::Fallback => {
                    // Infinite mapping: DSN == subflow sequence number.
                    let una = self.sfs[i].snd.snd_una;
                    self.send.on_data_ack(una, seg.window);
                }
                Mode::Handshake => {}
            }
        }
        if !self.ack64 && seg.len > 0 && opts.dss.is_some_and(|d| d.dsn().is_some()) {
            self.use_64bit_ack();
        }
        let sf = &mut self.sfs[i];
        if seg.len == 0 && !seg.has(flags::FIN) && seg.seq >= sf.rcv.rcv_nxt {
            // A pure ACK carries DSS options, so Linux takes
            // `tcp_rcv_established`'s slow path for it: `tcp_ack` refreshes
            // TS.Recent (`tcp_replace_ts_recent`), so this side's next data
            // echoes it and the peer's receive-RTT estimate (`rcv_space.rs`)
            // sees the path's current RTT; then `tcp_rcv_rtt_measure_ts`
            // remembers its echo (too short for a sample).
            sf.rcv.store_ts_recent(seg.seq, seg.ts().map(|t| t.0));
            if let (true, Some((_, ecr))) = (sf.rcv.ts_ok, seg.ts()) {
                sf.rcv_rtt.on_data(now, ecr, 0, sf.rcv.rcv_mss);
            }
        }
        if seg.len > 0 || seg.has(flags::FIN) || seg.seq < sf.rcv.rcv_nxt {
            // The segment's mapping, if it is not yet stored: in the common
            // case (nothing held back, the segment now in order) it reaches
            // the meta level below without entering `rx_maps` and leaving
            // it again at once.
            let mut fresh = None;
            if seg.len > 0 {
                let dsn = match self.mode {
                    Mode::Fallback => Some(seg.seq),
                    _ => opts.dss.and_then(|d| d.dsn()),
                };
                if let Some(d) = dsn {
                    if sf.rx_maps.is_empty() {
                        fresh = Some((d, seg.len));
                    } else {
                        sf.rx_maps.get_or_insert_with(seg.seq, || (d, seg.len));
                    }
                    sf.rx_map_check
                        .on_map(i, seg.seq, seg.len, d, sf.rcv.rcv_nxt);
                }
            }
            if let (true, Some((_, ecr))) = (sf.rcv.ts_ok, seg.ts()) {
                // tcp_rcv_established (slow path, step 5) ->
                // `tcp_rcv_rtt_measure_ts`, after `tcp_ack` and before the
                // data is queued (`tcp_data_queue`)
                sf.rcv_rtt.on_data(now, ecr, seg.len, sf.rcv.rcv_mss);
            }
            // PSH is not passed on (`PathReceiver::on_segment`'s `psh`):
            // which full-sized segments of an MPTCP subflow carry PSH has
            // not been checked against kernel captures (docs/validation.md,
            // "Session 22"), so the subflow receiver keeps its old ACK rule.
            let out = sf.rcv.on_segment(
                now,
                seg.seq,
                seg.len,
                seg.has(flags::FIN),
                false,
                seg.ts().map(|t| t.0),
                sf.snd.own_rtt(),
            );
            if out.ooo {
                sf.snd.counters.ooo_segments += 1;
            }
            // Subflow-level in-order data reaches the meta level (Linux
            // mptcp_data_ready after the subflow's own reassembly).
            let nxt = sf.rcv.rcv_nxt;
            let drops_before = self.recv.wnd_drops;
            let mut delivered = 0;
            let mut fin = false;
            if let Some((d, l)) = fresh {
                if seg.seq + l as u64 > nxt {
                    // held back: stored as it would have been above (the
                    // map was empty, so this is its only entry)
                    sf.rx_maps.get_or_insert_with(seg.seq, || (d, l));
                } else {
                    let r = self.recv.on_data(now, d, l);
                    delivered += r.delivered;
                    fin |= r.fin;
                }
            }
            while let Some((s, &(d, l))) = sf.rx_maps.first() {
                if s + l as u64 > nxt {
                    break;
                }
                sf.rx_maps.pop_first();
                let r = self.recv.on_data(now, d, l);
                delivered += r.delivered;
                fin |= r.fin;
            }
            // the drops of what this segment released, on its subflow
            sf.snd.counters.wnd_drops += self.recv.wnd_drops - drops_before;
            if out.fin && self.mode == Mode::Fallback {
                fin |= self.recv.on_data_fin(self.recv.rcv_nxt).fin;
            }
            if delivered > 0 {
                // the application reads it at once: mptcp_cleanup_rbuf ->
                // mptcp_subflow_could_cleanup / tcp_cleanup_rbuf on every
                // subflow (the msk's queue and the subflow's own empty)
                let msk_empty = self.recv.ofo_bytes() == 0;
                for sf in &mut self.sfs {
                    let empty = msk_empty && sf.rcv.ooo_bytes() == 0;
                    sf.rcv.ack_read(delivered, empty);
                }
                self.events.push_back(AppEvent::Delivered {
                    total: self.recv.delivered,
                });
                // the read: `mptcp_recvmsg` -> `mptcp_rcv_space_adjust`
                self.rcv_space_adjust(now);
                // `mptcp_data_ready` -> `sk_data_ready` (`wake.rs`)
                self.wake_blocked_writer();
            }
            if fin {
                self.peer_closed();
            }
        }
        if watch_full || opts.control.is_some() || opts.dss.is_some_and(|d| d.data_fin) {
            self.segment_end_rare(now, i, opts, watch_full, v09x_full);
        }
    }

    /// The segment's first steps that run before the connection is fully
    /// established (`watch_full`: the client's initial subflow) or when it
    /// carries control options (ADD_ADDR, MP_PRIO): whether it makes the
    /// connection fully established, and the control options. True when
    /// the v0.9x rule on a DATA_ACK did (`segment_end_rare` then starts the
    /// path manager's subflows).
    #[cold]
    #[inline(never)]
    fn segment_start_rare(
        &mut self,
        now: Nanos,
        i: usize,
        seg: &TcpSegment,
        opts: &MptcpOptions,
        watch_full: bool,
    ) -> bool {
        // options.c `check_fully_established` (client, in-kernel PM): the
        // first in-sequence packet of the initial subflow (subflow sequence
        // ISN + 1) carrying a DATA_ACK or an ADD_ADDR that is not an echo.
        let became_full = watch_full
            && self.kpm.is_some()
            && seg.seq == 1
            && (opts.dss.and_then(|d| d.data_ack()).is_some()
                || opts.add_addr().is_some_and(|a| !a.echo));
        // v0.9x (`full_estab.rs`): a DATA_ACK on a subflow ACK beyond the SYN.
        let v09x_full = watch_full
            && self.kpm.is_none()
            && v09x_full_by_data_ack(seg.has(flags::ACK), seg.ack, opts);
        if became_full || v09x_full {
            self.fully_established = true;
        }
        if let Some(c) = &opts.control {
            self.on_control(now, i, c);
        }
        if became_full {
            // the PM worker runs the ADD_ADDR it got before the establishment
            // (pm_kernel.c `__mptcp_pm_kernel_worker` order)
            self.pm_create(now);
        }
        v09x_full
    }

    /// The segment's last steps where it carries a DATA_FIN or a
    /// REMOVE_ADDR, or before the connection is fully established
    /// (`watch_full`; `v09x_full`: `segment_start_rare`'s answer).
    #[cold]
    #[inline(never)]
    fn segment_end_rare(
        &mut self,
        now: Nanos,
        i: usize,
        opts: &MptcpOptions,
        watch_full: bool,
        v09x_full: bool,
    ) {
        if let Some(d) = opts.dss {
            if d.data_fin {
                self.on_data_fin_option(i, d);
            }
        }
        if let Some(id) = opts.remove_addr() {
            self.on_remove_addr(now, id);
        }
        // v0.9x (`full_estab.rs`): a whole initial receive window of data
        // arrived in order on the master subflow.
        let v09x_full = v09x_full
            || (watch_full
                && self.kpm.is_none()
                && v09x_full_by_data(self.sfs[i].rcv.rcv_nxt, self.v09x_init_rcv_wnd as u64));
        if v09x_full {
            self.fully_established = true;
            // `mptcp_become_fully_estab` -> the PM's `fully_established`
            // hook queues `create_subflow_worker`, which opens the subflows
            self.pm_create(now);
        }
    }
}
