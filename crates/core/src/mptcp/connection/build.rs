//! Building the connection's packets: the MPTCP options every established
//! subflow segment carries (DATA_ACK and pending signalling), SYNs with
//! MP_CAPABLE / MP_JOIN, data segments with their DSS mapping, pure ACKs and
//! the DATA_FIN. Split from `connection.rs` (one concern per file); the
//! RFC 8684 sections are cited beside each builder.

use super::*;

impl MptcpConnection {
    /// Options every segment of an established MPTCP subflow carries: the
    /// DATA_ACK (RFC 8684 3.3.2) plus pending signalling.
    #[inline(always)]
    pub(super) fn base_options(&mut self, i: usize, data: bool) -> Option<MptcpOptions> {
        if self.mode != Mode::Mptcp {
            return None;
        }
        let mut dss = Dss::with_data_ack(self.recv.rcv_nxt);
        // 4- or 8-byte DATA_ACK as Linux `mptcp_established_options_dss`
        // chooses (`msk->use_64bit_ack`).
        dss.set_ack64(self.ack64);
        let sf = &self.sfs[i];
        // (nothing to signal on almost every segment: skip the room sums)
        let signalling = !self.add_addr_pending.is_empty()
            || !self.rm_addr_pending.is_empty()
            || sf.prio_pending.is_some();
        if !signalling && !sf.third_ack_pending {
            // what the general path returns then, built without `o`: LLVM
            // keeps `o`, whose address `control_mut` takes, on the stack,
            // and the segment built in its slot then copied the options
            // from there with wide loads of narrow stores (the stall
            // `queue_built` removes; docs/performance.md "Session 25 pass:
            // the segment built in its slot")
            return Some(MptcpOptions {
                dss: Some(dss),
                control: None,
            });
        }
        let mut o = MptcpOptions {
            dss: Some(dss),
            control: None,
        };
        let sf = &mut self.sfs[i];
        if sf.third_ack_pending {
            sf.third_ack_pending = false;
            if sf.initial {
                // RFC 8684 3.1: the third ACK echoes both keys.
                o.control_mut().capable = Some(MpCapable {
                    sender_key: self.key,
                    receiver_key: self.peer_key,
                    checksum: self.csum,
                });
            } else {
                o.control_mut().join = Some(MpJoin {
                    token: 0,
                    addr_id: 0,
                    backup: sf.backup,
                });
            }
        }
        if signalling && sf.established() {
            // Linux `mptcp_established_options`: ADD_ADDR or else
            // REMOVE_ADDR, then MP_PRIO, each only if it fits in the option
            // space the timestamps and a data segment's DSS leave (none
            // with timestamps and a 64-bit DATA_ACK; on a pure ACK an
            // ADD_ADDR drops the DSS, `mptcp_pm_add_addr_signal`). What does
            // not fit waits for the forced ACK (`poll_transmit`'s `signal`).
            let mut room = if data {
                let ts = if sf.rcv.ts_ok { 12 } else { 0 };
                let dss = crate::optlen::dss_len(true, self.csum, Some(self.ack64));
                crate::optlen::MAX_OPTION_SPACE.saturating_sub(ts + dss)
            } else {
                u32::MAX
            };
            let ip = self.ip;
            match self.add_addr_pending.front() {
                Some(&(id, a, echo)) if room >= crate::optlen::add_addr_len(ip, echo, false) => {
                    room = room.saturating_sub(crate::optlen::add_addr_len(ip, echo, false));
                    self.add_addr_pending.pop_front();
                    o.control_mut().add_addr = Some(AddAddr {
                        addr_id: id,
                        addr: a,
                        port: None,
                        echo,
                        ip,
                    });
                }
                Some(_) => {}
                None => {
                    if room >= 4 {
                        if let Some(id) = self.rm_addr_pending.pop_front() {
                            room -= 4;
                            o.control_mut().remove_addr = Some(id);
                        }
                    }
                }
            }
            if room >= 4 {
                if let Some(b) = sf.prio_pending.take() {
                    o.control_mut().prio_backup = Some(b);
                }
            }
        }
        Some(o)
    }

    pub(super) fn build_syn(&mut self, i: usize, now: Nanos) {
        let flow = self.flow;
        let mptcp = if self.sfs[i].initial {
            let capable =
                self.cfg.capable && (self.role == Role::Client || self.mode == Mode::Mptcp);
            capable.then(|| {
                MptcpOptions::with_control(MptcpControl {
                    capable: Some(MpCapable {
                        sender_key: self.key,
                        receiver_key: None,
                        // SYN: what this host requires; SYN/ACK: the
                        // outcome (the server's sysctl or the SYN's flag A).
                        checksum: if self.role == Role::Client {
                            self.cfg.checksum
                        } else {
                            self.csum
                        },
                    }),
                    ..Default::default()
                })
            })
        } else {
            let token = self.peer_key.map(token_of).unwrap_or(0);
            let addr_id = self
                .local_addrs
                .iter()
                .position(|&a| a == self.sfs[i].local)
                .unwrap_or(0) as u8;
            Some(MptcpOptions::with_control(MptcpControl {
                join: Some(MpJoin {
                    token,
                    addr_id,
                    backup: self.sfs[i].backup,
                }),
                ..Default::default()
            }))
        };
        let cfg = &self.cfg.tcp;
        let server = self.role == Role::Server;
        let sf = &mut self.sfs[i];
        let mut p = sf.new_packet(flow);
        let s = seg_mut(&mut p);
        s.seq = 0;
        s.flags = flags::SYN;
        s.set_mss(Some(cfg.mss_option() as u16));
        s.window = cfg.rcvbuf.min(65535);
        if cfg.window_scaling {
            // Linux tcp_select_initial_window on the subflow socket, whose
            // locked buffer is the connection's (sync_socket_options)
            s.wscale = Some(sf.rcv.win.initial_wscale());
        }
        s.sack_permitted = cfg.sack;
        if server {
            s.flags |= flags::ACK;
            s.ack = 1;
            if sf.rcv.rcv_wscale.is_none() {
                s.wscale = None;
            }
            s.sack_permitted = sf.rcv.sack_ok;
            if sf.rcv.ts_ok {
                s.set_ts(Some((now, sf.rcv.ts_recent())));
            }
        } else if cfg.timestamps {
            s.set_ts(Some((now, 0)));
        }
        s.mptcp = mptcp;
        self.finish(i, p);
    }

    /// The window subflow `i` advertises: Linux `__tcp_select_window`
    /// with `mptcp_space` (the connection's free space, capped by the
    /// subflow's own `rcv_ssthresh`), then `mptcp_set_rwin`: the
    /// connection-level right edge never moves left (RFC 8684 3.3.5), so a
    /// subflow whose `rcv_ssthresh` is behind another's offers the larger
    /// edge already sent. Always inlined into its two callers, the segment
    /// and ACK builders: it runs once per packet built.
    #[inline(always)]
    fn subflow_window(&mut self, i: usize) -> u64 {
        let w = self.sfs[i]
            .rcv
            .window_mptcp(self.recv.ofo_bytes(), self.msk_scaling_ratio());
        self.recv.advertise(w)
    }

    /// `msk->scaling_ratio`, the ratio `__mptcp_space` scales the
    /// connection's buffer with (`mptcp_win_from_space`), as the last
    /// `mptcp_rcv_space_adjust` left it (`rcv_space.rs`).
    #[inline]
    pub(crate) fn msk_scaling_ratio(&self) -> u32 {
        self.rcv_space.ratio()
    }

    /// Linux 6.18 `mptcp_rcv_space_adjust` at a read: at most once per
    /// receive RTT it sets `msk->scaling_ratio` to the minimum of its
    /// subflows' `tp->scaling_ratio` ("a worst-case estimate") over the
    /// connection's subflow list, which holds a subflow from its SYN on
    /// (`__mptcp_subflow_connect`) or, on the listener's side, from its
    /// accepted third ACK; the pace is the largest of their
    /// `rcv_rtt_est`. A subflow keeps `TCP_DEFAULT_SCALING_RATIO` (50 %)
    /// until its first data segment measures its own
    /// (`tcp_measure_rcv_mss`), so once a joined subflow is seen the
    /// connection's window stays at half its buffer until a pass after
    /// that subflow's first data. Measured (issue 15, lossy 8 MB Wi-Fi +
    /// 3G, `ss -tinmM` in the client's namespace): the kernel's window
    /// stayed at 2096000 until the 3G subflow's first data, then rose with
    /// its ratio (2325312 at 1280 bytes / 2304, 2569472 at 1420 / 2304);
    /// on UDE->HU ndiffports (session 18) it rose one receive RTT after it.
    ///
    /// Always inlined into its one caller, the segment path
    /// (`segment.rs`), which runs it for every segment that delivers data.
    #[inline(always)]
    pub(super) fn rcv_space_adjust(&mut self, now: Nanos) {
        let sfs = self.sfs.iter().filter(|s| {
            matches!(
                s.state,
                SfState::SynSent | SfState::PreEstablished | SfState::Established
            )
        });
        self.rcv_space
            .adjust(now, sfs.map(|s| (s.rcv_rtt.rtt_us8, s.rcv.win.ratio)));
    }

    pub(super) fn build_tx(&mut self, i: usize, now: Nanos, tx: Tx) {
        let sf = &self.sfs[i];
        let mut fl = flags::ACK;
        if tx.fin {
            fl |= flags::FIN;
        }
        if tx.len > 0 && tx.kind == TxKind::New && sf.snd.unsent() == 0 {
            fl |= flags::PSH;
        }
        let dsn = if tx.len > 0 {
            sf.map_of(tx.seq).map(|m| {
                // One mapping per segment (RFC 8684 3.3.1).
                debug_assert!(
                    tx.seq + tx.len as u64 <= m.sseq + m.len as u64,
                    "segment spans two mappings"
                );
                m.dsn + (tx.seq - m.sseq)
            })
        } else {
            None
        };
        self.build_data(i, now, tx.seq, tx.len, fl, dsn);
    }

    /// Subflow `i`'s segment [seq, seq + len) with TCP flags `fl`, and
    /// its DSS mapping from `dsn` when it carries data: what `build_tx`
    /// makes of a `Tx`, and the per-segment path (`send_on`) of a segment
    /// whose flags and mapping it knows without asking.
    #[inline(always)]
    pub(super) fn build_data(
        &mut self,
        i: usize,
        now: Nanos,
        seq: u64,
        len: u32,
        fl: u8,
        dsn: Option<u64>,
    ) {
        let opts = self.base_options(i, len > 0);
        let wnd = self.subflow_window(i);
        let csum = self.csum;
        // (the closure is kept out of line unless forced: a call per segment)
        #[rustfmt::skip]
        self.queue_built(i, opts, #[inline(always)] |s, sf| {
            s.seq = seq;
            s.len = len;
            s.flags = fl;
            if let (Some(dsn), Some(o)) = (dsn, s.mptcp.as_mut()) {
                let d = o.dss.get_or_insert_with(Dss::default);
                d.set_dsn(Some(dsn));
                d.map_len = len;
                d.csum = csum;
            }
            // SACK blocks in what the MPTCP options leave (`tcp_established_options`).
            let opt = crate::optlen::Established::of(s, sf.rcv.ts_ok);
            if len > 0 {
                sf.rcv.on_data_sent(now);
            }
            sf.rcv.fill_ack_window(s, now, opt.sack_room(), wnd);
            opt.len(s.sack_len())
        });
    }

    pub(super) fn build_ack(&mut self, i: usize, now: Nanos) {
        self.build_ack_at(None, i, now);
    }

    /// A pure ACK on subflow `i`, queued (`slot` `None`) or written over
    /// `*slot` (`ack_into`; `*slot` owns nothing).
    #[inline(always)]
    pub(super) fn build_ack_at(&mut self, slot: Option<&mut Packet>, i: usize, now: Nanos) {
        let opts = self.base_options(i, false);
        let wnd = self.subflow_window(i);
        // (the closure is kept out of line unless forced: a call per ACK)
        #[rustfmt::skip]
        self.built_at(slot, i, opts, #[inline(always)] |s, sf| {
            s.seq = sf.snd.snd_nxt;
            s.flags = flags::ACK;
            // SACK blocks in what the MPTCP options leave (`tcp_established_options`).
            let opt = crate::optlen::Established::of(s, sf.rcv.ts_ok);
            sf.rcv.fill_ack_window(s, now, opt.sack_room(), wnd);
            opt.len(s.sack_len())
        });
    }

    /// DATA_FIN on a pure ACK (RFC 8684 3.3.3), on the best usable subflow.
    pub(super) fn build_data_fin(&mut self, now: Nanos) {
        let Some(i) = self.best_subflow() else { return };
        let dsn = self.send.write_seq;
        self.build_ack(i, now);
        let ip = self.ip;
        if let Some(p) = self.out.back_mut() {
            let s = seg_mut(p);
            if let Some(d) = s.mptcp.as_mut().and_then(|o| o.dss.as_mut()) {
                d.set_dsn(Some(dsn));
                d.map_len = 0;
                d.data_fin = true;
                // a DATA_FIN-only mapping carries the checksum too
                // (`mptcp_write_options` writes it for every mapping)
                d.csum = self.csum;
            }
            // the mapping took the room of SACK blocks
            let fit = crate::optlen::layout(s).sack_blocks;
            s.set_sack_len(s.sack_len().min(fit));
            p.size = s.header_len(ip);
        }
        let srtt = self.sfs[i].snd.rtt.srtt;
        self.fin_timer = Some(now + (2 * srtt).max(200 * MS));
    }
}
