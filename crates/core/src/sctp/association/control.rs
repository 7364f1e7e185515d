use super::*;

impl SctpAssociation {
    /// INIT (section 5.1): answer with an INIT-ACK.
    pub(super) fn on_init(
        &mut self,
        now: Nanos,
        path: usize,
        init_tag: u32,
        a_rwnd: u64,
        nr_sack: bool,
    ) {
        // Answer with an INIT-ACK carrying a cookie; no state is kept
        // (section 5.1). The peer's addresses come from the constructor.
        self.peer_vtag = init_tag;
        self.peer_a_rwnd = a_rwnd;
        self.peer_buffer = a_rwnd;
        self.init_ssthresh(a_rwnd);
        self.peer_nr_sack = nr_sack;
        let addrs = self
            .paths
            .iter()
            .map(|p| p.local)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let ack = Chunk::InitAck {
            init_tag: self.my_vtag,
            a_rwnd: self.cfg.recv_buffer,
            addrs,
            cookie: self.cookie,
            nr_sack: self.cfg.nr_sack,
            ip: self.cfg.ip,
        };
        self.send_ctrl(path, ack);
        self.t1_sent_at = now;
    }

    /// INIT-ACK (section 5.1 C): echo the cookie, take the first RTT sample.
    pub(super) fn on_init_ack(
        &mut self,
        now: Nanos,
        path: usize,
        init_tag: u32,
        a_rwnd: u64,
        cookie: u64,
        nr_sack: bool,
    ) {
        if self.state != State::CookieWait {
            return;
        }
        self.peer_vtag = init_tag;
        self.peer_a_rwnd = a_rwnd;
        self.peer_rwnd = a_rwnd;
        self.peer_buffer = a_rwnd;
        self.init_ssthresh(a_rwnd);
        self.peer_nr_sack = nr_sack;
        if self.t1_count == 0 {
            let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
            self.paths[path].rtt_sample(now - self.t1_sent_at, mn, mx);
        }
        self.state = State::CookieEchoed;
        self.echo_cookie = cookie;
        self.send_ctrl(path, Chunk::CookieEcho { cookie });
        self.t1 = Some(now + self.paths[path].rto);
        self.t1_count = 0;
        self.t1_sent_at = now;
    }

    /// COOKIE-ECHO (section 5.1 D): establish the passive side.
    pub(super) fn on_cookie_echo(&mut self, now: Nanos, path: usize, cookie: u64) {
        if cookie != self.cookie {
            return;
        }
        if self.state == State::Closed {
            let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
            if now > self.t1_sent_at {
                self.paths[path].rtt_sample(now - self.t1_sent_at, mn, mx);
            }
            self.peer_rwnd = self.peer_a_rwnd;
            self.establish(now);
        }
        self.send_ctrl(path, Chunk::CookieAck);
    }

    /// HEARTBEAT-ACK (section 8.3): an RTT sample, and the destination is
    /// active again.
    pub(super) fn on_heartbeat_ack(&mut self, now: Nanos, src: Addr, dest: Addr, sent_at: Nanos) {
        if let Some(i) = self
            .paths
            .iter()
            .position(|p| p.remote == dest && p.local == src)
        {
            let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
            let p = &mut self.paths[i];
            if p.hb_outstanding == Some(sent_at) {
                p.hb_outstanding = None;
            }
            p.rtt_sample(now - sent_at, mn, mx);
            p.error_count = 0;
            p.active = true;
            self.assoc_errors = 0;
        }
    }

    /// SHUTDOWN (section 9.2): its cumulative TSN acks like a SACK.
    pub(super) fn on_shutdown(&mut self, now: Nanos, cum_tsn: Option<u64>) {
        let s = SackChunk {
            cum_tsn,
            a_rwnd: self.peer_a_rwnd,
            ..Default::default()
        };
        if cum_tsn.is_some() {
            self.on_sack(now, &s);
        }
        if self.is_open() {
            self.state = State::ShutdownReceived;
            self.events.push_back(AppEvent::PeerClosed);
            self.check_shutdown_progress();
        }
    }

    /// Application events for the data a packet delivered.
    pub(super) fn report_delivered(&mut self, delivered: Vec<DeliveredMsg>) {
        for m in delivered {
            self.delivered_total += m.len;
            // a message counts as delivered with its last piece (MSG_EOR)
            if self.emit_messages && m.eor {
                self.events.push_back(AppEvent::Message {
                    offset: m.offset,
                    len: m.msg_len,
                });
            }
            self.events.push_back(AppEvent::Delivered {
                total: self.delivered_total,
            });
        }
    }
}
