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
use crate::packet::{Addr, FlowId, Packet, Payload};
use crate::rng::SimRng;
use crate::time::Nanos;

// One concern per file; each adds an `impl SctpAssociation` block.
/// Control chunks: handshake, heartbeat acks, shutdown; delivery events.
mod control;
/// The `Endpoint` implementation: packets in and out, timers, the socket API.
mod endpoint;
/// Miss indications and fast retransmit (RFC 9260 7.2.4, CMT SFR/DAC).
mod fast_rtx;
/// Receive side: DATA, reassembly, reordering statistics, SACK generation.
mod receive;
/// SACK processing (RFC 9260 6.2.1): cumulative and gap acks, RTT, freeing.
mod sack;
/// Per-destination congestion-window update on a SACK (RFC 9260 7.2, CMT CUC).
mod sack_cwnd;
#[cfg(test)]
mod tests;
/// T3-rtx, path errors, heartbeats.
mod timers;
/// Choosing destinations and building DATA packets.
mod transmit;

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
    ooo_delays: crate::delay_stats::DelayStats,
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

/// IP and SCTP common header bytes of every packet: Linux
/// `sctp_mtu_payload` subtracts the family's `net_header_len` (20 IPv4, 40
/// IPv6) and `sizeof(struct sctphdr)` from the path MTU (RFC 9260 section
/// 8.4 / 6.9: DATA chunks fit the PMTU less these headers).
fn sctp_overhead(cfg: &SctpConfig) -> u32 {
    cfg.ip.header_len() + COMMON_HEADER
}

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
            .clamp(1, cfg.mtu - sctp_overhead(&cfg) - DATA_HEADER);
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
            ooo_delays: Default::default(),
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
            size: self.cfg.ip.header_len() + sp.wire_len(),
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
            ip: self.cfg.ip,
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
}
