//! An SCTP association endpoint (RFC 9260) with optional CMT (Iyengar et al.
//! 2006), sans-IO: the driver feeds packets and timeouts and polls packets,
//! timeouts and application events.
//!
//! Paths: SCTP's paths are the peer's addresses (destinations), each used
//! with one source address. With L local and P peer addresses there are
//! max(L, P) paths; path k goes from local address k mod L to peer address
//! k mod P. For two multihomed hosts on two subnets (INET's setup in seed
//! 000: interface i of each host on subnet i) this pairs address i with
//! address i, the source address routing picks for that destination. For
//! mptlab's Fig. 5 topology, where the server has one address and the
//! client one per access network, the client gets one path per source
//! address (routed over access network i) and the server one path per
//! client address: the same per-path state either way. Path 0 is primary.
//!
//! Messages: every `write` is one user message on stream 0 (fragmented into
//! DATA chunks of at most `max_payload` bytes). A write larger than the free
//! send buffer is cut: the accepted part is one message, the rest (written
//! again after `AppEvent::Writable`) the next. TSNs are assigned when a
//! message is queued (equivalent to assigning them when first bundled, since
//! chunks leave in TSN order except under DAPS, which needs them in advance).
//!
//! Delivery events (receiver side): `AppEvent::Delivered { total }` after
//! every complete message handed to the application and after every piece
//! of a message handed over by partial delivery (RFC 9260 section 6.9, see
//! `recv`), `total` = bytes handed to the application so far. For ordered
//! delivery (default) this equals the sender's stream offset of the last
//! byte delivered, so the simulator's byte-offset message accounting works
//! as for TCP: a message counts as delivered only once `total` passes its
//! end, i.e. with its last fragment. For unordered delivery messages
//! complete out of stream order; each one is then also reported as
//! `AppEvent::Message { offset, len }` (offset in the sender's written byte
//! stream) when its last piece is delivered, which is what message-delay
//! accounting must use (`set_message_events` turns these on for ordered
//! delivery too).
//!
//! Out-of-order delay (seed 002 style): `reorder_stats()` accumulates, per
//! delivered byte, the time between the arrival of its chunk and the delivery
//! of its message (reassembly plus reordering wait), with count, sum, max.
//!
//! Counters per destination (`paths()`): packets/bytes sent to and received
//! from each peer address; `retrans_fast` / `retrans_rto` count retransmitted
//! chunks by cause, `bytes_retransmitted` their bytes (and rescheduled ones);
//! `bytes_reinjected` chunk-rescheduling bytes; `rto_events` T3 expiries;
//! `recoveries` fast-recovery entries; `retrans_spurious` retransmitted
//! chunks the peer reported as duplicate TSNs (the original had arrived);
//! `penalizations` cwnd reductions of a path whose chunk was rescheduled;
//! `dup_acks` SACKs reporting gaps
//! without advancing the cumulative ack; `ooo_segments` DATA chunks that
//! arrived above the next expected TSN.
//!
//! Simplifications: no verification-tag or checksum checks, the cookie is a
//! random number (no HMAC, no lifetime), no stream reset / PR-SCTP / ASCONF,
//! one outbound stream, no reneging (so gap-acked data is never taken back),
//! no DATA dropped for lack of receive buffer (the sender keeps to a_rwnd; the
//! one chunk section 6.1 A lets it send into a closed window is accepted;
//! Linux's `sctp_eat_data` accepts up to one PMTU over a window not yet 0
//! and drops it at 0 unless it can renege), window-update SACKs only
//! after partial delivery (`window_update_due`; otherwise the application
//! reads at once and the SACK the data triggers advertises the freed space),
//! no cwnd decay on idle paths (section 7.2.1's RTO-idle rule is replaced by
//! use-it-or-lose-it), no PMTU discovery, and data may go to a destination
//! before its path-confirmation heartbeat is answered (as INET does).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::chunk::{pad4, Chunk, DataChunk, SackChunk, SctpPacket, COMMON_HEADER, DATA_HEADER};
use super::cmt::{
    alternate_destination, rtx_destination, sfr_miss_increment, split_allows, SackFacts,
};
use super::config::{BufferSplit, Scheduler, SctpConfig};
use super::congestion::{apply_max_burst, initial_cwnd, on_ack, on_fast_retransmit, on_timeout};
use super::path::Path;
use super::recv::{DeliveredMsg, Reassembly, ReorderStats};
use super::sack::TsnTracker;
use super::sched::{daps_plan, round_robin_order};
use crate::endpoint::{AppEvent, Endpoint, OfoStats, PathReport, PathState};
use crate::packet::{Addr, FlowId, Packet, Payload, IPV4_HEADER};
use crate::rng::SimRng;
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    CookieWait,
    CookieEchoed,
    Established,
    ShutdownPending,
    ShutdownSent,
    ShutdownReceived,
    ShutdownAckSent,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RtxCause {
    Fast,
    Timeout,
}

/// A DATA chunk sent and not yet cumulatively acknowledged.
#[derive(Clone, Debug)]
struct Outstanding {
    chunk: DataChunk,
    /// Destination of the latest transmission.
    path: usize,
    tx_count: u32,
    /// Acknowledged in a gap block.
    acked: bool,
    /// Freed from the send buffer (cum-acked or NR-acked).
    freed: bool,
    /// Counted in its path's flight size.
    in_flight: bool,
    miss: u32,
    /// Marked for retransmission, with cause and chosen destination.
    rtx: Option<(RtxCause, usize)>,
    fast_retransmitted: bool,
    rescheduled: bool,
    /// Time of the latest transmission.
    sent_at: Nanos,
}

#[derive(Debug)]
pub struct SctpAssociation {
    cfg: SctpConfig,
    flow: FlowId,
    local_port: u16,
    remote_port: u16,
    state: State,
    my_vtag: u32,
    peer_vtag: u32,
    paths: Vec<Path>,
    primary: usize,
    peer_nr_sack: bool,
    // ---- send side ----
    next_tsn: u64,
    next_ssn: u64,
    write_offset: u64,
    unsent: BTreeMap<u64, DataChunk>,
    sent: BTreeMap<u64, Outstanding>,
    rtx_queue: BTreeSet<u64>,
    /// Highest TSN the peer acknowledged cumulatively.
    peer_cum: Option<u64>,
    peer_a_rwnd: u64,
    peer_rwnd: u64,
    peer_buffer: u64,
    sbuf_used: u64,
    sbuf_booked: Vec<u64>,
    rbuf_booked: Vec<u64>,
    assoc_errors: u32,
    writable_blocked: bool,
    close_requested: bool,
    send_seq: u64,
    rr_current: Option<usize>,
    // ---- receive side ----
    tsns: TsnTracker,
    /// Out-of-order TSNs waiting for the cumulative TSN to reach them, with
    /// their arrival times (seed 002's out-of-order delay at the TSN level).
    ooo_waiting: std::collections::VecDeque<(u64, Nanos)>,
    /// Per received DATA chunk: time from arrival until every lower TSN had
    /// arrived (0 for a chunk that arrived in order).
    ooo_delays: Vec<Nanos>,
    /// Since when the receiver holds data behind a missing TSN, and the total.
    gap_since: Option<Nanos>,
    hol_time: Nanos,
    reasm: Reassembly,
    /// a_rwnd carried by the last SACK sent (Linux `asoc->a_rwnd`).
    adv_rwnd: u64,
    delivered_total: u64,
    sack_pending: bool,
    sack_now: bool,
    sack_path: usize,
    data_pkts_unacked: u32,
    sack_timer: Option<Nanos>,
    // ---- control timers ----
    t1: Option<Nanos>,
    t1_count: u32,
    t1_sent_at: Nanos,
    t2: Option<Nanos>,
    t2_count: u32,
    cookie: u64,
    ctrl_out: VecDeque<(usize, Chunk)>,
    out: VecDeque<Packet>,
    events: VecDeque<AppEvent>,
    rng: SimRng,
    emit_messages: bool,
    /// Time of the latest input (packet, timeout, write, close).
    last_now: Nanos,
    /// The peer's state cookie, echoed (and re-sent on T1-init expiry).
    echo_cookie: u64,
    /// DAPS: lowest TSN not yet planned on any destination.
    daps_next: u64,
    /// Why the association was given up, if it was (`Endpoint::gave_up`).
    gave_up: Option<&'static str>,
    /// The association ended (shutdown, abort or give-up); it stays closed.
    finished: bool,
    /// Recently cum-acked chunks that had been retransmitted (TSN -> last
    /// path), to recognise duplicate reports of them as spurious.
    acked_rtx: BTreeMap<u64, usize>,
}

const SCTP_OVERHEAD: u32 = IPV4_HEADER + COMMON_HEADER;

impl SctpAssociation {
    /// A new association endpoint. `local` and `peer` list the addresses of
    /// both ends; the first pair is the primary path. The active side calls
    /// `connect`; the passive side answers the INIT.
    pub fn new(
        flow: FlowId,
        local: &[Addr],
        local_port: u16,
        peer: &[Addr],
        remote_port: u16,
        cfg: SctpConfig,
    ) -> SctpAssociation {
        assert!(!local.is_empty() && !peer.is_empty());
        let mut cfg = cfg;
        // a DATA chunk must fit in one packet with IP and common header
        cfg.max_payload = cfg
            .max_payload
            .clamp(1, cfg.mtu - SCTP_OVERHEAD - DATA_HEADER);
        let mut rng = SimRng::stream(cfg.seed, &format!("sctp.{flow}.{}", local[0]));
        let iw = initial_cwnd(cfg.mtu);
        let n = local.len().max(peer.len());
        let paths: Vec<Path> = (0..n)
            .map(|k| {
                Path::new(
                    local[k % local.len()],
                    peer[k % peer.len()],
                    iw,
                    cfg.recv_buffer,
                    cfg.rto_initial,
                )
            })
            .collect();
        let n = paths.len();
        let my_vtag = (rng.below(u32::MAX as u64 - 1) + 1) as u32;
        SctpAssociation {
            flow,
            local_port,
            remote_port,
            state: State::Closed,
            my_vtag,
            peer_vtag: 0,
            paths,
            primary: 0,
            peer_nr_sack: false,
            next_tsn: 0,
            next_ssn: 0,
            write_offset: 0,
            unsent: BTreeMap::new(),
            sent: BTreeMap::new(),
            rtx_queue: BTreeSet::new(),
            peer_cum: None,
            peer_a_rwnd: cfg.recv_buffer,
            peer_rwnd: cfg.recv_buffer,
            peer_buffer: cfg.recv_buffer,
            sbuf_used: 0,
            sbuf_booked: vec![0; n],
            rbuf_booked: vec![0; n],
            assoc_errors: 0,
            writable_blocked: false,
            close_requested: false,
            send_seq: 0,
            rr_current: None,
            tsns: TsnTracker::default(),
            ooo_waiting: std::collections::VecDeque::new(),
            ooo_delays: Vec::new(),
            gap_since: None,
            hol_time: 0,
            reasm: Reassembly::default(),
            adv_rwnd: cfg.recv_buffer,
            delivered_total: 0,
            sack_pending: false,
            sack_now: false,
            sack_path: 0,
            data_pkts_unacked: 0,
            sack_timer: None,
            t1: None,
            t1_count: 0,
            t1_sent_at: 0,
            t2: None,
            t2_count: 0,
            cookie: rng.below(u64::MAX),
            ctrl_out: VecDeque::new(),
            out: VecDeque::new(),
            events: VecDeque::new(),
            emit_messages: cfg.unordered,
            last_now: 0,
            echo_cookie: 0,
            daps_next: 0,
            gave_up: None,
            finished: false,
            acked_rtx: BTreeMap::new(),
            rng,
            cfg,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    #[cfg(test)]
    pub(crate) fn debug_dump(&self) -> String {
        format!(
            "state {:?} unsent {} sent {} rtx {:?} peer_rwnd {} peer_a_rwnd {} sbuf_used {} sbuf_booked {:?} rbuf_booked {:?} first {:?} paths {:?}",
            self.state,
            self.unsent.len(),
            self.sent.len(),
            self.rtx_queue.iter().take(5).collect::<Vec<_>>(),
            self.peer_rwnd,
            self.peer_a_rwnd,
            self.sbuf_used,
            self.sbuf_booked,
            self.rbuf_booked,
            self.sent.iter().next().map(|(t, o)| (*t, o.path, o.acked, o.in_flight, o.rtx, o.tx_count)),
            self.paths.iter().map(|p| (p.active, p.cwnd, p.flight, p.t3, p.error_count)).collect::<Vec<_>>()
        )
    }

    /// Bookkeeping invariants (tests): flight sizes, send-buffer use and
    /// buffer-splitting bookings agree with the chunk records.
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        let n = self.paths.len();
        let mut flight = vec![0u64; n];
        let mut sb = vec![0u64; n];
        let mut rb = vec![0u64; n];
        let mut used: u64 = self.unsent.values().map(|d| d.len as u64).sum();
        for (t, o) in &self.sent {
            let len = o.chunk.len as u64;
            if o.in_flight {
                assert!(!o.acked && o.rtx.is_none(), "TSN {t}");
                flight[o.path] += len;
            }
            assert_eq!(o.rtx.is_some(), self.rtx_queue.contains(t));
            if !o.freed {
                sb[o.path] += len;
                used += len;
            }
            rb[o.path] += len;
        }
        let pf: Vec<u64> = self.paths.iter().map(|p| p.flight).collect();
        assert_eq!(flight, pf, "flight");
        assert_eq!(sb, self.sbuf_booked, "send-buffer bookings");
        assert_eq!(rb, self.rbuf_booked, "receive-buffer bookings");
        assert_eq!(used, self.sbuf_used, "send buffer");
    }

    /// The association has ended (shutdown complete, abort, or gave up).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    pub fn config(&self) -> &SctpConfig {
        &self.cfg
    }

    /// Index of the current primary path (changes on failover).
    pub fn primary(&self) -> usize {
        self.current_primary()
    }

    /// Whether destination `i` is active (not failed).
    pub fn path_active(&self, i: usize) -> bool {
        self.paths[i].active
    }

    /// Error counter of destination `i`.
    pub fn path_errors(&self, i: usize) -> u32 {
        self.paths[i].error_count
    }

    /// RTO of destination `i`.
    pub fn path_rto(&self, i: usize) -> Nanos {
        self.paths[i].rto
    }

    /// Reordering / reassembly waiting time of delivered data (receiver side).
    pub fn reorder_stats(&self) -> ReorderStats {
        self.reasm.stats
    }

    /// Emit `AppEvent::Message` for every delivered message (on by default
    /// for unordered delivery).
    pub fn set_message_events(&mut self, on: bool) {
        self.emit_messages = on;
    }

    /// Bytes queued or outstanding in the send buffer.
    pub fn send_buffer_used(&self) -> u64 {
        self.sbuf_used
    }

    /// Bytes held in the receive buffer (undelivered).
    pub fn recv_buffer_held(&self) -> u64 {
        self.reasm.held
    }

    /// Messages the receiver handed over by partial delivery (RFC 9260
    /// section 6.9) because they did not fit in its receive buffer.
    pub fn partial_deliveries(&self) -> u64 {
        self.reasm.pd_started
    }

    fn current_primary(&self) -> usize {
        if self.paths[self.primary].active {
            return self.primary;
        }
        (0..self.paths.len())
            .find(|&i| self.paths[i].active)
            .unwrap_or(self.primary)
    }

    fn active_paths(&self) -> usize {
        self.paths.iter().filter(|p| p.active).count().max(1)
    }

    fn is_open(&self) -> bool {
        matches!(
            self.state,
            State::Established | State::ShutdownPending | State::ShutdownReceived
        )
    }

    /// The path a packet from `src` to `dst` arrived on: the (remote, local)
    /// pair, else the first path to that remote address.
    fn path_of(&self, src: Addr, dst: Addr) -> usize {
        self.paths
            .iter()
            .position(|p| p.remote == src && p.local == dst)
            .or_else(|| self.paths.iter().position(|p| p.remote == src))
            .unwrap_or(self.primary)
    }

    fn a_rwnd(&self) -> u64 {
        self.cfg.recv_buffer.saturating_sub(self.reasm.held)
    }

    fn outstanding_bytes(&self) -> u64 {
        self.paths.iter().map(|p| p.flight).sum::<u64>()
            + self
                .rtx_queue
                .iter()
                .map(|t| self.sent[t].chunk.len as u64)
                .sum::<u64>()
    }

    fn update_peer_rwnd(&mut self) {
        self.peer_rwnd = self.peer_a_rwnd.saturating_sub(self.outstanding_bytes());
    }

    fn mark_input(&mut self) {
        for p in &mut self.paths {
            p.burst_check = true;
            p.burst_sent = 0;
        }
        self.rr_current = None;
    }

    fn hb_delay(&mut self, i: usize) -> Nanos {
        // RFC 9260 section 8.3: RTO + HB.interval, with the RTO jittered by +/- 50 %.
        let rto = self.paths[i].rto;
        let jitter = self.rng.uniform_range(0.5, 1.5);
        (rto as f64 * jitter) as Nanos + self.cfg.hb_interval
    }

    fn packet(&self, path: usize, chunks: Vec<Chunk>) -> Packet {
        let vtag = if matches!(chunks.first(), Some(Chunk::Init { .. })) {
            0
        } else {
            self.peer_vtag
        };
        let sp = SctpPacket {
            src_port: self.local_port,
            dst_port: self.remote_port,
            vtag,
            chunks,
        };
        let p = &self.paths[path];
        Packet {
            src: p.local,
            dst: p.remote,
            flow: self.flow,
            size: IPV4_HEADER + sp.wire_len(),
            payload: Payload::Sctp(Box::new(sp)),
        }
    }

    fn send_ctrl(&mut self, path: usize, chunk: Chunk) {
        self.ctrl_out.push_back((path, chunk));
    }

    /// Initial ssthresh = the peer's advertised receive window (section 7.2.1).
    fn init_ssthresh(&mut self, a_rwnd: u64) {
        for p in &mut self.paths {
            p.ssthresh = a_rwnd;
        }
    }

    fn init_chunk(&self) -> Chunk {
        Chunk::Init {
            init_tag: self.my_vtag,
            a_rwnd: self.cfg.recv_buffer,
            addrs: self
                .paths
                .iter()
                .map(|p| p.local)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
            nr_sack: self.cfg.nr_sack,
        }
    }

    fn establish(&mut self, now: Nanos) {
        self.state = State::Established;
        self.t1 = None;
        self.events.push_back(AppEvent::Connected);
        let n = self.paths.len();
        for i in 0..n {
            // Path confirmation of the other destinations (section 5.4): a
            // heartbeat right away, which also gives them an RTT estimate.
            self.paths[i].hb_at = Some(if i == self.primary || !self.cfg.heartbeats {
                now + self.hb_delay(i)
            } else {
                now
            });
        }
        if !self.cfg.heartbeats {
            for p in &mut self.paths {
                p.hb_at = None;
            }
        }
        if self.close_requested {
            self.state = State::ShutdownPending;
            self.check_shutdown_progress();
        }
    }

    fn closed(&mut self) {
        if !self.finished {
            self.finished = true;
            self.events.push_back(AppEvent::Closed);
        }
        self.state = State::Closed;
        self.t1 = None;
        self.t2 = None;
        self.sack_timer = None;
        for p in &mut self.paths {
            p.t3 = None;
            p.hb_at = None;
        }
    }

    // ------------------------------------------------------------------
    // Receive side
    // ------------------------------------------------------------------

    /// Out-of-order delay and head-of-line time at the TSN level, measured
    /// like MPTCP's connection-level out-of-order queue (`ofo_stats`).
    fn track_reordering(&mut self, now: Nanos, tsn: u64, expected: u64) {
        if tsn == expected {
            self.ooo_delays.push(0);
        } else {
            // keep the queue sorted by TSN (arrivals are mostly increasing)
            let pos = self.ooo_waiting.partition_point(|&(t, _)| t < tsn);
            self.ooo_waiting.insert(pos, (tsn, now));
        }
        let cum = self.tsns.cum;
        while let Some(&(t, at)) = self.ooo_waiting.front() {
            if cum.is_none_or(|c| t > c) {
                break;
            }
            self.ooo_waiting.pop_front();
            self.ooo_delays.push(now - at);
        }
        match (self.tsns.has_gaps(), self.gap_since) {
            (true, None) => self.gap_since = Some(now),
            (false, Some(since)) => {
                self.hol_time += now - since;
                self.gap_since = None;
            }
            _ => {}
        }
    }

    fn on_data(
        &mut self,
        now: Nanos,
        path: usize,
        d: &DataChunk,
        delivered: &mut Vec<DeliveredMsg>,
    ) -> bool {
        let was_gap = self.tsns.has_gaps();
        let cum_before = self.tsns.cum;
        let expected = cum_before.map_or(0, |c| c + 1);
        if !self.tsns.on_tsn(d.tsn) {
            self.sack_now = true; // duplicates are reported at once (section 6.2)
            return false;
        }
        if d.tsn != expected {
            self.paths[path].counters.ooo_segments += 1;
        }
        self.track_reordering(now, d.tsn, expected);
        if was_gap || self.tsns.has_gaps() {
            // out of order or filling a gap: SACK at once (section 6.7),
            // unless DAC keeps delaying (Iyengar et al. section 4.3).
            if !(self.cfg.cmt && self.cfg.dac) {
                self.sack_now = true;
            }
        }
        // "Think about partial delivery" (Linux sctp_eat_data): a new chunk
        // at least as long as the receive window asks for PD before it is
        // queued (SCTP_CMD_PART_DELIVER runs before SCTP_CMD_CHUNK_ULP), so a
        // message larger than the buffer still completes (RFC 9260 6.9).
        // The application reads at once, so what PD hands over leaves the
        // buffer now and the next SACK advertises the reopened a_rwnd.
        if d.len as u64 >= self.a_rwnd() && !self.reasm.in_partial_delivery() {
            self.reasm.partial_delivery(now, cum_before, delivered);
        }
        self.reasm.add(now, d, delivered);
        true
    }

    fn after_data_packet(&mut self, now: Nanos, path: usize) {
        self.sack_pending = true;
        self.sack_path = path;
        self.data_pkts_unacked += 1;
        if self.data_pkts_unacked >= self.cfg.sack_freq || self.state != State::Established {
            self.sack_now = true;
        }
        if !self.sack_now && self.sack_timer.is_none() {
            self.sack_timer = Some(now + self.cfg.sack_delay);
        }
    }

    /// Window update (Linux `sctp_assoc_rwnd_increase` /
    /// `sctp_peer_needs_update`; RFC 9260 section 6.2 allows a SACK "to
    /// update the offered window as the receiving application consumes new
    /// data"): the window grew by at least max(rcvbuf >> rwnd_update_shift
    /// (4), PMTU) since the last SACK, so one goes now instead of waiting
    /// for the delayed-SACK timer. Modelled only after a packet whose data
    /// was handed over by partial delivery: when PD starts, Linux's
    /// application reads up to a buffer's worth at once and this rule sends
    /// the SACK that reopens the sender's window. Other deliveries keep the
    /// model's SACK rules, which its calibrated results rest on (the rule
    /// applied to them too would add SACKs under CMT reordering).
    fn window_update_due(&self) -> bool {
        let grown = self.a_rwnd().saturating_sub(self.adv_rwnd);
        grown > 0 && grown >= (self.cfg.recv_buffer >> 4).max(self.cfg.mtu as u64)
    }

    fn make_sack(&mut self) -> SackChunk {
        let dac = self.data_pkts_unacked.clamp(1, 2) as u8;
        let nr = self.cfg.nr_sack && self.peer_nr_sack;
        self.adv_rwnd = self.a_rwnd();
        let s = self.tsns.make_sack(
            self.adv_rwnd,
            nr,
            if self.cfg.cmt && self.cfg.dac { dac } else { 0 },
        );
        self.sack_pending = false;
        self.sack_now = false;
        self.sack_timer = None;
        self.data_pkts_unacked = 0;
        s
    }

    // ------------------------------------------------------------------
    // SACK processing (sections 6.2.1, 7.2, and CMT section 4)
    // ------------------------------------------------------------------

    /// Move chunk `t` to destination `i`, with its buffer-splitting bookings
    /// (send buffer while not freed, peer receive buffer until cum-acked).
    fn rebook(&mut self, t: u64, i: usize) {
        let o = self.sent.get_mut(&t).unwrap();
        let (q, len) = (o.path, o.chunk.len as u64);
        o.path = i;
        if q == i {
            return;
        }
        if !o.freed {
            self.sbuf_booked[q] -= len;
            self.sbuf_booked[i] += len;
        }
        self.rbuf_booked[q] -= len;
        self.rbuf_booked[i] += len;
    }

    fn free_chunk(&mut self, len: u64, path: usize) {
        self.sbuf_used -= len;
        self.sbuf_booked[path] -= len;
    }

    fn on_sack(&mut self, now: Nanos, s: &SackChunk) {
        if let (Some(old), new) = (self.peer_cum, s.cum_tsn) {
            if new.is_none_or(|n| n < old) {
                return; // older SACK (section 6.2.1 D i)
            }
        }
        let cum_advanced = s.cum_tsn.is_some() && s.cum_tsn != self.peer_cum;
        let n = self.paths.len();
        let mut facts = vec![SackFacts::default(); n];
        let mut acked_bytes = vec![0u64; n];
        // lowest outstanding (not acked) TSN per destination before the SACK,
        // for CUC's pseudo-cumulative ack and T3 rule R3.
        let low_before = self.lowest_outstanding_per_path();
        for p in &mut self.paths {
            p.flight_before_sack = p.flight;
        }
        let mut htna: Option<u64> = None;
        let mut sack_highest: Option<u64> = s.cum_tsn;
        // A duplicate report of a chunk we sent more than once: the
        // retransmission was unnecessary (RFC 3708 style detection).
        for d in &s.dups {
            let path = match self.sent.get(d) {
                Some(o) if o.tx_count > 1 => Some(o.path),
                Some(_) => None,
                None => self.acked_rtx.remove(d),
            };
            if let Some(p) = path {
                self.paths[p].counters.retrans_spurious += 1;
            }
        }

        // Newly acknowledged TSNs: cumulative first, then gap blocks.
        let cum_list: Vec<u64> = match s.cum_tsn {
            Some(c) => self.sent.range(..=c).map(|(&t, _)| t).collect(),
            None => Vec::new(),
        };
        let mut gap_list: Vec<u64> = Vec::new();
        for &(a, b) in s.gaps.iter().chain(s.nr_gaps.iter()) {
            sack_highest = sack_highest.max(Some(b));
            gap_list.extend(self.sent.range(a..=b).map(|(&t, _)| t));
        }
        let nr = s.nr;
        let nr_set: Vec<(u64, u64)> = s.nr_gaps.clone();
        for t in cum_list.iter().copied().chain(gap_list.iter().copied()) {
            let o = self.sent.get_mut(&t).unwrap();
            if o.acked {
                continue;
            }
            o.acked = true;
            let q = o.path;
            let len = o.chunk.len as u64;
            let first_tx = o.tx_count == 1;
            if o.in_flight {
                o.in_flight = false;
                self.paths[q].flight -= len;
            }
            if o.rtx.take().is_some() {
                self.rtx_queue.remove(&t);
            }
            acked_bytes[q] += len;
            let f = &mut facts[q];
            f.saw_newack = true;
            f.highest_newly_acked = f.highest_newly_acked.max(Some(t));
            f.lowest_newly_acked = Some(f.lowest_newly_acked.map_or(t, |l| l.min(t)));
            htna = htna.max(Some(t));
            // RTT measurement (section 6.3.1 C5, Karn's rule)
            if let Some((pt, sent_at)) = self.paths[q].rtt_probe {
                if pt == t {
                    if first_tx {
                        let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
                        self.paths[q].rtt_sample(now - sent_at, mn, mx);
                    }
                    self.paths[q].rtt_probe = None;
                }
            }
            // an ack for data sent to a destination clears its error counter
            // (8.3). An inactive destination comes back only through a
            // HEARTBEAT-ACK: the ack of a chunk sent before it failed says
            // nothing about the path now.
            if self.paths[q].active {
                self.paths[q].error_count = 0;
            }
        }
        if htna.is_some() {
            self.assoc_errors = 0;
        }
        // Remove cumulatively acked chunks; free NR-acked ones.
        let mut freed_any = false;
        for t in cum_list {
            let o = self.sent.remove(&t).unwrap();
            if o.tx_count > 1 {
                self.acked_rtx.insert(t, o.path);
                if self.acked_rtx.len() > 1024 {
                    self.acked_rtx.pop_first();
                }
            }
            self.rbuf_booked[o.path] -= o.chunk.len as u64;
            if !o.freed {
                self.free_chunk(o.chunk.len as u64, o.path);
            }
            freed_any = true;
        }
        if nr {
            for &(a, b) in &nr_set {
                let ts: Vec<u64> = self
                    .sent
                    .range(a..=b)
                    .filter(|(_, o)| !o.freed)
                    .map(|(&t, _)| t)
                    .collect();
                for t in ts {
                    let o = self.sent.get_mut(&t).unwrap();
                    o.freed = true;
                    let (len, p) = (o.chunk.len as u64, o.path);
                    self.free_chunk(len, p);
                    freed_any = true;
                }
            }
        }
        if s.cum_tsn.is_some() {
            self.peer_cum = s.cum_tsn;
        }
        self.peer_a_rwnd = s.a_rwnd;

        // Progress per destination: cumulative ack (RFC) or pseudo-cumulative (CUC).
        let low_after = self.lowest_outstanding_per_path();
        let progress: Vec<bool> = (0..n)
            .map(|i| {
                let pseudo = low_before[i].is_some() && low_before[i] != low_after[i];
                if self.cfg.cmt && self.cfg.cuc {
                    pseudo
                } else {
                    cum_advanced
                }
            })
            .collect();

        // Fast recovery exit (section 7.2.4: when the cum ack reaches the exit point).
        for p in &mut self.paths {
            if let Some(x) = p.fast_recovery_exit {
                if self.peer_cum.is_some_and(|c| c >= x) {
                    p.fast_recovery_exit = None;
                }
            }
        }
        // Congestion window updates.
        for i in 0..n {
            if acked_bytes[i] > 0 {
                on_ack(
                    &mut self.paths,
                    i,
                    acked_bytes[i],
                    progress[i],
                    self.cfg.mtu,
                    self.cfg.cc,
                );
            }
            if self.paths[i].flight == 0 && !self.rtx_queue.iter().any(|t| self.sent[t].path == i) {
                self.paths[i].pba = 0;
            }
        }

        // Miss indications and fast retransmit (section 7.2.4, SFR, DAC, HTNA).
        let any_fr = self.paths.iter().any(|p| p.fast_recovery_exit.is_some());
        let mut misses: Vec<(u64, u32)> = Vec::new();
        if let Some(highest) = sack_highest {
            for (&t, o) in self.sent.range(..highest) {
                if o.acked || o.rtx.is_some() {
                    continue;
                }
                let inc = if self.cfg.cmt && self.cfg.sfr {
                    sfr_miss_increment(&facts[o.path], t, self.cfg.dac, s.dac_packets)
                } else {
                    // HTNA: only below the highest newly acked TSN, except in
                    // fast recovery when the cum ack advanced (section 7.2.4)
                    ((any_fr && cum_advanced) || htna.is_some_and(|h| t < h)) as u32
                };
                if inc > 0 {
                    misses.push((t, inc));
                }
            }
        }
        for (t, inc) in misses {
            let o = self.sent.get_mut(&t).unwrap();
            o.miss += inc;
            if o.miss >= 3 && !o.fast_retransmitted {
                self.mark_fast_rtx(t);
            }
        }

        // T3-rtx timers (section 6.3.2 R2, R3).
        for i in 0..n {
            if self.paths[i].flight == 0 {
                self.paths[i].t3 = None;
            } else if low_before[i] != low_after[i] || self.paths[i].t3.is_none() {
                self.paths[i].t3 = Some(now + self.paths[i].rto);
            }
        }
        self.update_peer_rwnd();
        if freed_any {
            self.maybe_writable();
        }
        self.check_shutdown_progress();
    }

    fn lowest_outstanding_per_path(&self) -> Vec<Option<u64>> {
        let mut v = vec![None; self.paths.len()];
        let mut left = self.paths.len();
        for (&t, o) in &self.sent {
            if !o.acked && v[o.path].is_none() {
                v[o.path] = Some(t);
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        v
    }

    fn mark_fast_rtx(&mut self, t: u64) {
        let (q, len) = {
            let o = &self.sent[&t];
            (o.path, o.chunk.len as u64)
        };
        let dest = if self.cfg.cmt {
            rtx_destination(&self.paths, q, self.cfg.rtx_policy)
        } else {
            q
        };
        {
            let o = self.sent.get_mut(&t).unwrap();
            o.fast_retransmitted = true;
            o.rtx = Some((RtxCause::Fast, dest));
            if o.in_flight {
                o.in_flight = false;
                self.paths[q].flight -= len;
            }
        }
        self.rtx_queue.insert(t);
        self.paths[dest].fast_rtx_burst = true;
        // Enter fast recovery on the destination the loss happened on, once
        // per window (section 7.2.4: not again until the exit point).
        if self.paths[q].fast_recovery_exit.is_none() {
            on_fast_retransmit(&mut self.paths, q, self.cfg.mtu, self.cfg.cc);
            let highest = self.next_tsn.saturating_sub(1);
            let highest_sent = self.sent.keys().next_back().copied().unwrap_or(highest);
            self.paths[q].fast_recovery_exit = Some(highest_sent);
            self.paths[q].counters.recoveries += 1;
        }
        if self.paths[q].rtt_probe.is_some_and(|(pt, _)| pt == t) {
            self.paths[q].rtt_probe = None;
        }
    }

    fn maybe_writable(&mut self) {
        if self.writable_blocked && self.send_space() > 0 {
            self.writable_blocked = false;
            self.events.push_back(AppEvent::Writable);
        }
    }

    fn check_shutdown_progress(&mut self) {
        let drained = self.unsent.is_empty() && self.sent.is_empty();
        match self.state {
            State::ShutdownPending if drained => {
                let p = self.current_primary();
                self.send_ctrl(
                    p,
                    Chunk::Shutdown {
                        cum_tsn: self.tsns.cum,
                    },
                );
                self.state = State::ShutdownSent;
                self.t2 = Some(self.t2_base() + self.paths[p].rto);
            }
            State::ShutdownReceived if drained => {
                let p = self.current_primary();
                self.send_ctrl(p, Chunk::ShutdownAck);
                self.state = State::ShutdownAckSent;
                self.t2 = Some(self.t2_base() + self.paths[p].rto);
            }
            _ => {}
        }
    }

    fn t2_base(&self) -> Nanos {
        // the time of the last input; timers are relative to it
        self.last_now
    }

    // ------------------------------------------------------------------
    // Timers
    // ------------------------------------------------------------------

    fn on_t3(&mut self, i: usize) {
        self.paths[i].t3 = None;
        self.paths[i].counters.rto_events += 1;
        on_timeout(&mut self.paths[i], self.cfg.mtu);
        self.paths[i].fast_recovery_exit = None;
        self.paths[i].rtt_probe = None;
        self.paths[i].rto = (self.paths[i].rto * 2).min(self.cfg.rto_max);
        self.path_error(i);
        // Mark everything outstanding on this destination for retransmission
        // (section 6.3.3 E3) and pick the destination (section 6.4.1 / CMT policy).
        let ts: Vec<u64> = self
            .sent
            .iter()
            .filter(|(_, o)| o.path == i && !o.acked && o.in_flight)
            .map(|(&t, _)| t)
            .collect();
        for t in ts {
            let dest = if self.cfg.cmt {
                rtx_destination(&self.paths, i, self.cfg.rtx_policy)
            } else {
                alternate_destination(&self.paths, i, self.primary)
            };
            let o = self.sent.get_mut(&t).unwrap();
            o.in_flight = false;
            o.rtx = Some((RtxCause::Timeout, dest));
            o.miss = 0;
            self.paths[i].flight -= o.chunk.len as u64;
            self.rtx_queue.insert(t);
        }
    }

    fn path_error(&mut self, i: usize) {
        self.paths[i].error_count += 1;
        self.assoc_errors += 1;
        if self.paths[i].error_count > self.cfg.path_max_retrans && self.paths[i].active {
            // Destination unreachable (section 8.2); data fails over to an
            // active alternate (current_primary) and retransmissions are re-targeted.
            self.paths[i].active = false;
            let alt = alternate_destination(&self.paths, i, self.primary);
            let ts: Vec<u64> = self.rtx_queue.iter().copied().collect();
            for t in ts {
                if let Some(r) = self.sent.get_mut(&t).unwrap().rtx.as_mut() {
                    if r.1 == i {
                        r.1 = alt;
                    }
                }
            }
            // DAPS: hand this destination's planned chunks to an active one
            let orphans = std::mem::take(&mut self.paths[i].daps_plan);
            if alt != i {
                let mut v: Vec<u64> = self.paths[alt].daps_plan.drain(..).chain(orphans).collect();
                v.sort_unstable();
                self.paths[alt].daps_plan = v.into();
            }
        }
        if self.assoc_errors > self.cfg.assoc_max_retrans {
            // Association.Max.Retrans exceeded (section 8.1)
            self.gave_up = Some("sctp_association_max_retrans");
            self.closed();
        }
    }

    fn on_heartbeat_timer(&mut self, now: Nanos, i: usize) {
        let idle = self.paths[i].flight == 0
            && (self.paths[i].last_data_sent == 0
                || now >= self.paths[i].last_data_sent + self.cfg.hb_interval)
            || !self.paths[i].active;
        if self.paths[i].hb_outstanding.take().is_some() {
            // the previous heartbeat was not answered (section 8.3)
            self.paths[i].rto = (self.paths[i].rto * 2).min(self.cfg.rto_max);
            self.path_error(i);
            if self.state == State::Closed {
                return;
            }
        }
        if idle || self.paths[i].srtt.is_none() {
            self.paths[i].hb_outstanding = Some(now);
            let (src, dest) = (self.paths[i].local, self.paths[i].remote);
            self.send_ctrl(
                i,
                Chunk::Heartbeat {
                    src,
                    dest,
                    sent_at: now,
                },
            );
        }
        let d = self.hb_delay(i);
        // an unconfirmed/unanswered destination is probed again after one RTO
        let d = if self.paths[i].srtt.is_none() {
            self.paths[i].rto
        } else {
            d
        };
        self.paths[i].hb_at = Some(now + d);
    }

    // ------------------------------------------------------------------
    // Transmission
    // ------------------------------------------------------------------

    fn new_data_allowed(&self, i: usize, t: u64, len: u64) -> bool {
        let p = &self.paths[i];
        if !p.active || !p.cwnd_open() || self.burst_used(i) {
            return false;
        }
        if !self.cfg.cmt && i != self.current_primary() {
            return false;
        }
        !self.buffer_blocked(i, t, len)
    }

    /// TSN `t` (unsent) is the next one the peer's cumulative ack waits for:
    /// every lower TSN is acked and every TSN sent so far is above it. That
    /// happens only when DAPS has planned TSNs out of order and the
    /// destination of `t` has not sent it yet.
    fn at_cum_ack_point(&self, t: u64) -> bool {
        self.unsent.keys().next() == Some(&t) && self.sent.keys().next().is_none_or(|&s| t < s)
    }

    /// Max.Burst packets already sent to `i` in this send opportunity
    /// (RFC 4960 section 6.1 D: at most Max.Burst packets of new data after
    /// a SACK or other event; with "use it or lose it" cwnd is also clipped).
    fn burst_used(&self, i: usize) -> bool {
        self.cfg.max_burst > 0 && self.paths[i].burst_sent >= self.cfg.max_burst
    }

    /// New data (TSN `t`, `len` bytes) for `i` is held back by a buffer: the
    /// peer's receive window (section 6.1 A; one chunk may go when nothing is
    /// outstanding) or, for CMT, this destination's buffer-splitting share.
    ///
    /// The chunk the cumulative ack waits for is exempt from the splitting
    /// shares. Buffer splitting (Dreibholz, Becke, Rathgeb, Tüxen, GLOBECOM
    /// 2010) bounds what one destination holds in the send / peer receive
    /// buffer, counting chunks acked in gap blocks until the cumulative ack
    /// frees them. With TSNs assigned at transmission (RFC 9260, INET's
    /// `dequeueOutboundDataMsg`) the chunk at the cumulative ack point is
    /// always already sent, and its retransmission is not subject to the
    /// shares; with DAPS's pre-planned TSNs it can still be unsent while the
    /// destination planned for it holds gap-acked chunks above it. Then
    /// that destination's share can only be freed by sending this very
    /// chunk, and holding it back would deadlock the association (found by
    /// the property test: `cmt_sctp_sender_split_daps_survives_an_outage`).
    /// Sending it never grows what is held behind the cumulative ack.
    fn buffer_blocked(&self, i: usize, t: u64, len: u64) -> bool {
        if self.peer_rwnd < len && self.outstanding_bytes() > 0 {
            return true;
        }
        if self.cfg.cmt && !self.at_cum_ack_point(t) {
            let n = self.active_paths();
            if self.cfg.buffer_split.sender()
                && !split_allows(self.sbuf_booked[i], len, self.cfg.send_buffer, n)
            {
                return true;
            }
            if self.cfg.buffer_split.receiver()
                && !split_allows(self.rbuf_booked[i], len, self.peer_buffer, n)
            {
                return true;
            }
        }
        false
    }

    /// The next unsent TSN destination `i` would send.
    fn next_unsent_for(&mut self, i: usize) -> Option<u64> {
        if self.cfg.cmt && self.cfg.scheduler == Scheduler::Daps {
            loop {
                match self.paths[i].daps_plan.front().copied() {
                    Some(t) if self.unsent.contains_key(&t) => return Some(t),
                    Some(_) => {
                        self.paths[i].daps_plan.pop_front();
                    }
                    None => {
                        if !self.daps_replan(i) {
                            return None;
                        }
                    }
                }
            }
        }
        self.unsent.keys().next().copied()
    }

    /// DAPS: destination `i` ran out of planned chunks; plan the next cycle
    /// (Kuhn et al. 2014) over the unplanned chunks, for `i` and every other
    /// destination that has also used up its plan (a path still working on
    /// its previous plan gets no new slots, so a path slower than estimated
    /// does not pile up chunks). Returns false if nothing was planned for `i`.
    fn daps_replan(&mut self, i: usize) -> bool {
        let start = self
            .daps_next
            .max(self.unsent.keys().next().copied().unwrap_or(self.next_tsn));
        if start >= self.next_tsn || !self.paths[i].active {
            return false;
        }
        let idle: Vec<bool> = (0..self.paths.len())
            .map(|j| {
                j == i
                    || (self.paths[j].active
                        && !self.paths[j]
                            .daps_plan
                            .iter()
                            .any(|t| self.unsent.contains_key(t)))
            })
            .collect();
        let plan = daps_plan(&self.paths, self.cfg.mtu as u64, usize::MAX);
        let mut t = start;
        for j in plan {
            if t >= self.next_tsn {
                break;
            }
            if idle[j] {
                self.paths[j].daps_plan.push_back(t);
                t += 1;
            }
        }
        self.daps_next = t;
        !self.paths[i].daps_plan.is_empty()
    }

    fn has_rtx_for(&self, i: usize) -> bool {
        self.rtx_queue
            .iter()
            .any(|t| self.sent[t].rtx.is_some_and(|r| r.1 == i))
    }

    /// Chunk rescheduling (Dreibholz, Becke, Rathgeb, Tüxen, "On the Use of
    /// Concurrent Multipath Transfer over Asymmetric Paths", GLOBECOM 2010):
    /// destination `i` is blocked when the bytes it sent that are acked in
    /// gap blocks but held behind the cumulative ack (queued minus
    /// outstanding) fill at least half of its share of the send buffer or of
    /// the peer's receive buffer (its buffer-splitting share, or the whole
    /// buffer without splitting). Then the chunk at the head (lowest TSN),
    /// if still in the network and never moved, is moved to `i` and sent
    /// again there, when it was last sent elsewhere or more than 2 SRTT ago.
    fn reschedule_candidate(&self, i: usize) -> Option<u64> {
        const THRESHOLD: f64 = 0.5;
        let p = &self.paths[i];
        if !self.cfg.cmt
            || !self.cfg.chunk_rescheduling
            || !p.active
            || !p.cwnd_open()
            || self.burst_used(i)
            || p.fast_recovery_exit.is_some()
        {
            return None;
        }
        let (&t, o) = self.sent.iter().next()?;
        if o.acked || o.rtx.is_some() || o.rescheduled || !o.in_flight {
            return None;
        }
        if o.path == i && o.sent_at + 2 * p.srtt_or_rto() >= self.last_now {
            return None;
        }
        let split = if self.cfg.buffer_split == BufferSplit::None {
            1
        } else {
            self.active_paths() as u64
        };
        let waiting = self.rbuf_booked[i].saturating_sub(p.flight) as f64;
        let send_limit = (self.cfg.send_buffer / split).max(1) as f64;
        let total_queued: u64 = self.rbuf_booked.iter().sum();
        let recv_limit = ((self.peer_rwnd + total_queued) / split).max(1) as f64;
        if waiting / send_limit >= THRESHOLD || waiting / recv_limit >= THRESHOLD {
            Some(t)
        } else {
            None
        }
    }

    fn can_send(&mut self, i: usize) -> bool {
        if !self.is_open() && self.state != State::ShutdownSent {
            return false;
        }
        if self.has_rtx_for(i) {
            // fast retransmissions go regardless of cwnd (section 7.2.4 step 3)
            return self.paths[i].cwnd_open()
                || (self.paths[i].fast_rtx_burst
                    && self
                        .rtx_queue
                        .iter()
                        .any(|t| self.sent[t].rtx == Some((RtxCause::Fast, i))));
        }
        if matches!(self.state, State::ShutdownSent | State::ShutdownAckSent) {
            return false;
        }
        if let Some(t) = self.next_unsent_for(i) {
            let len = self.unsent[&t].len as u64;
            if self.new_data_allowed(i, t, len) {
                return true;
            }
        }
        self.reschedule_candidate(i).is_some()
    }

    fn pick_path(&mut self) -> Option<usize> {
        if !self.cfg.cmt {
            let p = self.current_primary();
            if self.can_send(p) {
                return Some(p);
            }
            // retransmissions re-targeted to an alternate (T3, section 6.4.1)
            return (0..self.paths.len())
                .find(|&i| i != p && self.has_rtx_for(i) && self.can_send(i));
        }
        if let Some(c) = self.rr_current {
            if self.can_send(c) {
                return Some(c);
            }
        }
        for i in round_robin_order(&self.paths) {
            if self.can_send(i) {
                self.rr_current = Some(i);
                return Some(i);
            }
        }
        None
    }

    fn build_data_packet(&mut self, now: Nanos, i: usize) -> Option<Packet> {
        let mut chunks: Vec<Chunk> = Vec::new();
        let mut room = self.cfg.mtu - SCTP_OVERHEAD;
        if self.sack_pending && (self.sack_now || self.sack_path == i) {
            let s = self.make_sack();
            room -= pad4(s.wire_len());
            chunks.push(Chunk::Sack(s));
        }
        let mut data_bytes = 0u64;
        let fast_budget = self.paths[i].fast_rtx_burst;
        let mut sent_fast = false;
        // 1. retransmissions for this destination, lowest TSN first
        let rtx: Vec<u64> = self
            .rtx_queue
            .iter()
            .copied()
            .filter(|t| self.sent[t].rtx.is_some_and(|r| r.1 == i))
            .collect();
        for t in rtx {
            let o = &self.sent[&t];
            let len = o.chunk.len;
            let (cause, _) = o.rtx.unwrap();
            let need = DATA_HEADER + pad4(len);
            if need > room {
                break;
            }
            let allowed = self.paths[i].cwnd_open() || (cause == RtxCause::Fast && fast_budget);
            if !allowed {
                break;
            }
            room -= need;
            self.rebook(t, i);
            let o = self.sent.get_mut(&t).unwrap();
            o.rtx = None;
            o.sent_at = now;
            o.tx_count += 1;
            o.in_flight = true;
            o.miss = 0;
            // Invariant `retransmission-attributed` (crate::invariants): only
            // chunks still unacknowledged are resent; the cause is counted below.
            crate::invariant!(
                !o.acked && !o.freed,
                "retransmission-attributed",
                "sctp: TSN {t} retransmitted ({cause:?}) though acknowledged"
            );
            let c = &mut self.paths[i].counters;
            c.bytes_retransmitted += len as u64;
            match cause {
                RtxCause::Fast => c.retrans_fast += 1,
                RtxCause::Timeout => c.retrans_rto += 1,
            }
            self.paths[i].flight += len as u64;
            self.rtx_queue.remove(&t);
            chunks.push(Chunk::Data(o.chunk));
            data_bytes += len as u64;
            sent_fast |= cause == RtxCause::Fast;
        }
        if sent_fast {
            self.paths[i].fast_rtx_burst = false;
        }
        // 2. chunk rescheduling: the chunk blocking the buffers goes first
        if let Some(t) = self.reschedule_candidate(i) {
            let need = DATA_HEADER + pad4(self.sent[&t].chunk.len);
            if need <= room {
                room -= need;
                let q = self.sent[&t].path;
                self.rebook(t, i);
                let o = self.sent.get_mut(&t).unwrap();
                let len = o.chunk.len as u64;
                crate::invariant!(
                    !o.acked && !o.freed,
                    "retransmission-attributed",
                    "sctp: TSN {t} rescheduled though acknowledged"
                );
                o.rescheduled = true;
                o.tx_count += 1;
                o.sent_at = now;
                chunks.push(Chunk::Data(o.chunk));
                self.paths[q].flight -= len;
                self.paths[i].flight += len;
                if self.paths[q].rtt_probe.is_some_and(|(pt, _)| pt == t) {
                    self.paths[q].rtt_probe = None;
                }
                let c = &mut self.paths[i].counters;
                c.bytes_reinjected += len;
                c.bytes_retransmitted += len;
                data_bytes += len;
                // the path that held the chunk back is treated as congested,
                // once per window (INET's "moved chunks reduce cwnd")
                if q != i && self.paths[q].fast_recovery_exit.is_none() {
                    on_fast_retransmit(&mut self.paths, q, self.cfg.mtu, self.cfg.cc);
                    let highest = self.sent.keys().next_back().copied().unwrap_or(t);
                    self.paths[q].fast_recovery_exit = Some(highest);
                    self.paths[q].counters.penalizations += 1;
                }
            }
        }
        let only_rtx = data_bytes > 0;
        // 3. new data (not bundled after retransmissions that used up the window)
        if !only_rtx || self.paths[i].cwnd_open() {
            while let Some(t) = self.next_unsent_for(i) {
                let len = self.unsent[&t].len;
                let need = DATA_HEADER + pad4(len);
                if need > room || !self.new_data_allowed(i, t, len as u64) {
                    break;
                }
                room -= need;
                let d = self.unsent.remove(&t).unwrap();
                if self.cfg.scheduler == Scheduler::Daps {
                    self.paths[i].daps_plan.pop_front();
                }
                self.sent.insert(
                    t,
                    Outstanding {
                        chunk: d,
                        path: i,
                        tx_count: 1,
                        acked: false,
                        freed: false,
                        in_flight: true,
                        miss: 0,
                        rtx: None,
                        fast_retransmitted: false,
                        rescheduled: false,
                        sent_at: now,
                    },
                );
                self.paths[i].flight += len as u64;
                self.sbuf_booked[i] += len as u64;
                self.rbuf_booked[i] += len as u64;
                if self.paths[i].rtt_probe.is_none() {
                    self.paths[i].rtt_probe = Some((t, now));
                }
                chunks.push(Chunk::Data(d));
                data_bytes += len as u64;
            }
        }
        if data_bytes == 0 {
            // nothing fitted; give a pending SACK back its own packet
            if chunks.is_empty() {
                return None;
            }
        }
        let pkt = self.packet(i, chunks);
        let p = &mut self.paths[i];
        p.counters.packets_sent += 1;
        if data_bytes > 0 {
            p.burst_sent += 1;
            p.counters.data_packets_sent += 1;
            p.counters.bytes_sent += data_bytes;
            self.send_seq += 1;
            p.last_sent_seq = self.send_seq;
            p.last_data_sent = now;
            if p.t3.is_none() {
                p.t3 = Some(now + p.rto);
            }
        }
        self.update_peer_rwnd();
        Some(pkt)
    }

    fn apply_burst_checks(&mut self) {
        for i in 0..self.paths.len() {
            if self.paths[i].burst_check {
                self.paths[i].burst_check = false;
                apply_max_burst(&mut self.paths[i], self.cfg.max_burst, self.cfg.mtu);
            }
        }
    }

    fn queue_message(&mut self, len: u64) {
        let offset = self.write_offset;
        self.write_offset += len;
        let unordered = self.cfg.unordered;
        let ssn = self.next_ssn;
        if !unordered {
            self.next_ssn += 1;
        }
        let max = self.cfg.max_payload as u64;
        let mut left = len;
        let mut first = true;
        while left > 0 {
            let l = left.min(max);
            left -= l;
            let d = DataChunk {
                tsn: self.next_tsn,
                stream: 0,
                ssn,
                unordered,
                begin: first,
                end: left == 0,
                len: l as u32,
                msg_offset: offset,
            };
            first = false;
            self.unsent.insert(self.next_tsn, d);
            self.next_tsn += 1;
        }
        self.sbuf_used += len;
    }
}

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
                } => {
                    // Answer with an INIT-ACK carrying a cookie; no state is kept
                    // (section 5.1). The peer's addresses come from the constructor.
                    self.peer_vtag = *init_tag;
                    self.peer_a_rwnd = *a_rwnd;
                    self.peer_buffer = *a_rwnd;
                    self.init_ssthresh(*a_rwnd);
                    self.peer_nr_sack = *nr_sack;
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
                    };
                    self.send_ctrl(path, ack);
                    self.t1_sent_at = now;
                }
                Chunk::InitAck {
                    init_tag,
                    a_rwnd,
                    cookie,
                    nr_sack,
                    ..
                } => {
                    if self.state != State::CookieWait {
                        continue;
                    }
                    self.peer_vtag = *init_tag;
                    self.peer_a_rwnd = *a_rwnd;
                    self.peer_rwnd = *a_rwnd;
                    self.peer_buffer = *a_rwnd;
                    self.init_ssthresh(*a_rwnd);
                    self.peer_nr_sack = *nr_sack;
                    if self.t1_count == 0 {
                        let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
                        self.paths[path].rtt_sample(now - self.t1_sent_at, mn, mx);
                    }
                    self.state = State::CookieEchoed;
                    self.echo_cookie = *cookie;
                    self.send_ctrl(path, Chunk::CookieEcho { cookie: *cookie });
                    self.t1 = Some(now + self.paths[path].rto);
                    self.t1_count = 0;
                    self.t1_sent_at = now;
                }
                Chunk::CookieEcho { cookie } => {
                    if *cookie != self.cookie {
                        continue;
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
                    if let Some(i) = self
                        .paths
                        .iter()
                        .position(|p| p.remote == *dest && p.local == *src)
                    {
                        let (mn, mx) = (self.cfg.rto_min, self.cfg.rto_max);
                        let p = &mut self.paths[i];
                        if p.hb_outstanding == Some(*sent_at) {
                            p.hb_outstanding = None;
                        }
                        p.rtt_sample(now - sent_at, mn, mx);
                        p.error_count = 0;
                        p.active = true;
                        self.assoc_errors = 0;
                    }
                }
                Chunk::Shutdown { cum_tsn } => {
                    let s = SackChunk {
                        cum_tsn: *cum_tsn,
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
    fn cookie_echoed(&self) -> u64 {
        self.echo_cookie
    }
}
