use super::*;

impl Endpoint for SctpAssociation {
    fn gave_up(&self) -> Option<&'static str> {
        self.gave_up
    }

    fn connect(&mut self, now: Nanos) {
        self.last_now = now;
        if self.state != State::Closed || self.finished {
            return;
        }
        self.state = State::CookieWait;
        let c = self.init_chunk();
        self.send_ctrl(self.primary, c);
        self.t1 = Some(now + self.paths[self.primary].rto);
        self.t1_count = 0;
        self.t1_sent_at = now;
    }

    fn handle_packet(&mut self, now: Nanos, pkt: &Packet) {
        self.last_now = now;
        let Payload::Sctp(sp) = &pkt.payload else {
            return;
        };
        let path = self.path_of(pkt.src, pkt.dst);
        if self.finished {
            // section 9.2: a stray SHUTDOWN-ACK is answered with SHUTDOWN-COMPLETE;
            // everything else to a closed association is dropped
            if sp.chunks.iter().any(|c| matches!(c, Chunk::ShutdownAck)) {
                self.send_ctrl(path, Chunk::ShutdownComplete);
            }
            return;
        }
        {
            let c = &mut self.paths[path].counters;
            c.packets_received += 1;
            let dl = sp.data_len();
            if dl > 0 {
                c.data_packets_received += 1;
                c.bytes_received += dl as u64;
            }
        }
        self.mark_input();
        let mut delivered: Vec<DeliveredMsg> = Vec::new();
        let mut had_data = false;
        let pd_bytes_before = self.reasm.pd_bytes;
        for ch in &sp.chunks {
            match ch {
                Chunk::Init {
                    init_tag,
                    a_rwnd,
                    nr_sack,
                    ..
                } => self.on_init(now, path, *init_tag, *a_rwnd, *nr_sack),
                Chunk::InitAck {
                    init_tag,
                    a_rwnd,
                    cookie,
                    nr_sack,
                    ..
                } => self.on_init_ack(now, path, *init_tag, *a_rwnd, *cookie, *nr_sack),
                Chunk::CookieEcho { cookie } => self.on_cookie_echo(now, path, *cookie),
                Chunk::CookieAck => {
                    if self.state == State::CookieEchoed {
                        self.establish(now);
                    }
                }
                Chunk::Data(d) => {
                    if !self.is_open() && !matches!(self.state, State::ShutdownSent) {
                        continue;
                    }
                    had_data = true;
                    self.on_data(now, path, d, &mut delivered);
                }
                Chunk::Sack(s) => {
                    let before = self.peer_cum;
                    self.on_sack(now, s);
                    if self.peer_cum == before && !s.gaps.is_empty() {
                        // a SACK that reports holes without advancing the cum ack
                        self.paths[path].counters.dup_acks += 1;
                    }
                }
                Chunk::Heartbeat { src, dest, sent_at } => {
                    self.send_ctrl(
                        path,
                        Chunk::HeartbeatAck {
                            src: *src,
                            dest: *dest,
                            sent_at: *sent_at,
                        },
                    );
                }
                Chunk::HeartbeatAck { src, dest, sent_at } => {
                    self.on_heartbeat_ack(now, *src, *dest, *sent_at)
                }
                Chunk::Shutdown { cum_tsn } => self.on_shutdown(now, *cum_tsn),
                Chunk::ShutdownAck => {
                    if matches!(self.state, State::ShutdownSent | State::ShutdownAckSent) {
                        self.send_ctrl(path, Chunk::ShutdownComplete);
                        self.closed();
                    }
                }
                Chunk::ShutdownComplete => {
                    if self.state == State::ShutdownAckSent {
                        self.closed();
                    }
                }
                Chunk::Abort => self.closed(),
            }
        }
        if had_data {
            self.after_data_packet(now, path);
            if self.reasm.pd_bytes > pd_bytes_before && self.window_update_due() {
                self.sack_now = true;
            }
        }
        self.report_delivered(delivered);
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Packet> {
        if let Some(p) = self.out.pop_front() {
            return Some(p);
        }
        if let Some((path, c)) = self.ctrl_out.pop_front() {
            // bundle a pending SACK with control chunks to the same destination
            let mut chunks = vec![c];
            while let Some((p2, _)) = self.ctrl_out.front() {
                if *p2 != path {
                    break;
                }
                chunks.push(self.ctrl_out.pop_front().unwrap().1);
            }
            let pkt = self.packet(path, chunks);
            self.paths[path].counters.packets_sent += 1;
            return Some(pkt);
        }
        if self.state == State::Closed {
            return None;
        }
        self.apply_burst_checks();
        if let Some(i) = self.pick_path() {
            if let Some(p) = self.build_data_packet(now, i) {
                return Some(p);
            }
        }
        if self.sack_pending && self.sack_now {
            let path = self.sack_path;
            let s = self.make_sack();
            let pkt = self.packet(path, vec![Chunk::Sack(s)]);
            self.paths[path].counters.packets_sent += 1;
            return Some(pkt);
        }
        None
    }

    // The packet moved into the slot: an SCTP packet's chunks are boxed
    // (`Payload::Sctp`), and SCTP runs only as the foreground flow of its
    // cells, so the 128-byte copy is left here (docs/performance.md
    // "Session 26 pass: the sent packet built in its slot").
    fn poll_transmit_into(&mut self, now: Nanos, slot: &mut Packet) -> bool {
        match self.poll_transmit(now) {
            Some(p) => {
                slot.overwrite_plain_with(|| p);
                true
            }
            None => false,
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        let mut t = [self.t1, self.t2, self.sack_timer]
            .into_iter()
            .flatten()
            .min();
        for p in &self.paths {
            for x in [p.t3, p.hb_at].into_iter().flatten() {
                t = Some(t.map_or(x, |y: Nanos| y.min(x)));
            }
        }
        t
    }

    fn handle_timeout(&mut self, now: Nanos) {
        self.last_now = now;
        self.mark_input();
        if self.t1.is_some_and(|t| t <= now) {
            self.t1_count += 1;
            let p = self.primary;
            self.paths[p].rto = (self.paths[p].rto * 2).min(self.cfg.rto_max);
            if self.t1_count > self.cfg.max_init_retrans {
                self.gave_up = Some("sctp_max_init_retransmits");
                self.closed();
                return;
            }
            let c = match self.state {
                State::CookieWait => self.init_chunk(),
                State::CookieEchoed => Chunk::CookieEcho {
                    cookie: self.cookie_echoed(),
                },
                _ => {
                    self.t1 = None;
                    return;
                }
            };
            self.send_ctrl(p, c);
            self.t1 = Some(now + self.paths[p].rto);
            self.t1_sent_at = now;
        }
        if self.t2.is_some_and(|t| t <= now) {
            self.t2_count += 1;
            if self.t2_count > self.cfg.assoc_max_retrans {
                self.gave_up = Some("sctp_shutdown_max_retrans");
                self.closed();
                return;
            }
            let p = self.current_primary();
            let c = match self.state {
                State::ShutdownSent => Some(Chunk::Shutdown {
                    cum_tsn: self.tsns.cum,
                }),
                State::ShutdownAckSent => Some(Chunk::ShutdownAck),
                _ => None,
            };
            match c {
                Some(c) => {
                    self.send_ctrl(p, c);
                    self.t2 = Some(now + self.paths[p].rto);
                }
                None => self.t2 = None,
            }
        }
        if self.sack_timer.is_some_and(|t| t <= now) {
            self.sack_timer = None;
            if self.sack_pending {
                self.sack_now = true;
            }
        }
        for i in 0..self.paths.len() {
            if self.state == State::Closed {
                return;
            }
            if self.paths[i].t3.is_some_and(|t| t <= now) {
                self.on_t3(i);
            }
            if self.paths[i].hb_at.is_some_and(|t| t <= now) {
                self.on_heartbeat_timer(now, i);
            }
        }
        self.update_peer_rwnd();
    }

    fn poll_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    /// One user message of up to `len` bytes: what fits in the send buffer is
    /// accepted as one message (the rest, written again later, becomes the
    /// next message).
    fn write(&mut self, now: Nanos, len: u64) -> u64 {
        self.last_now = now;
        if self.close_requested || self.finished {
            return 0;
        }
        let n = len.min(self.send_space());
        if n < len {
            self.writable_blocked = true;
        }
        if n == 0 {
            return 0;
        }
        self.mark_input();
        self.queue_message(n);
        n
    }

    fn send_space(&self) -> u64 {
        self.cfg.send_buffer.saturating_sub(self.sbuf_used)
    }

    /// A message larger than the whole send buffer is refused at the send
    /// call, never queued: Linux `sctp_sendmsg_parse` (net/sctp/socket.c,
    /// `sctp_sendmsg` before 4.17) returns `-EMSGSIZE` when
    /// `msg_len > sk->sk_sndbuf` ("API 7.1.7, the sndbuf size per
    /// association bounds the maximum size of data that can be sent in a
    /// single send call"). A message up to that size waits for room
    /// (`sctp_wait_for_sndbuf`) and is queued whole. The model's buffer
    /// counts payload bytes only, so its bound is `send_buffer` itself
    /// (docs/models.md).
    fn max_message(&self) -> Option<u64> {
        Some(self.cfg.send_buffer)
    }

    fn close(&mut self, now: Nanos) {
        self.last_now = now;
        self.close_requested = true;
        if self.state == State::Established {
            self.state = State::ShutdownPending;
            self.check_shutdown_progress();
        }
    }

    fn paths(&self) -> Vec<PathReport> {
        self.paths
            .iter()
            .map(|p| PathReport {
                local: p.local,
                remote: p.remote,
                counters: p.counters.clone(),
            })
            .collect()
    }

    fn ofo_stats(&self) -> Option<OfoStats> {
        // Only a receiver that got data has something to report.
        if self.ooo_delays.is_empty() {
            return None;
        }
        Some(OfoStats {
            delays: self.ooo_delays.clone(),
            hol_time: self.hol_time,
        })
    }

    fn path_states(&self) -> Vec<PathState> {
        self.paths
            .iter()
            .map(|p| PathState {
                local: p.local,
                remote: p.remote,
                cwnd_bytes: p.cwnd,
                ssthresh_bytes: p.ssthresh,
                srtt: p.srtt.unwrap_or(0),
                inflight_bytes: p.flight,
            })
            .collect()
    }
}

impl SctpAssociation {
    pub(super) fn cookie_echoed(&self) -> u64 {
        self.echo_cookie
    }
}
