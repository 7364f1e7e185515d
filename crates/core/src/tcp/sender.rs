//! Per-path sender: scoreboard (RFC 6675), RACK loss detection (RFC 8985 6)
//! or RFC 6675's DupThresh rule, loss recovery with PRR (RFC 6937)
//! or NewReno partial ACKs (RFC 6582) without SACK, RTO (RFC 6298) with
//! go-back-N through the scoreboard, Tail Loss Probe (RFC 8985 7), flow
//! control with a persist timer, Nagle, and the congestion-control hooks.
//!
//! The sender does not own application bytes: the owner (a TCP socket, or
//! later an MPTCP subflow fed by a connection-level scheduler) appends data
//! with `push_data(len)` and queues a FIN with `push_fin()`; `next_tx()`
//! decides what to transmit next and returns a `Tx` that the owner turns into
//! a packet. Retransmissions keep the original segment boundaries; new
//! segments are cut at transmit time (min(MSS, unsent)).
//!
//! Like Linux, the congestion window and all scoreboard counters are in
//! packets: in_flight = packets_out - (sacked_out + lost_out) + retrans_out
//! (tcp_packets_in_flight).

use std::collections::VecDeque;

use crate::endpoint::Counters;
use crate::packet::SackBlock;
use crate::time::{Nanos, SEC};

use super::cc::{CaState, CcState, CongestionControl, CwndEvent, PathView, INFINITE_SSTHRESH};
use super::config::TcpConfig;
use super::rtt::RttEstimator;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;
const EVER_RETRANS: u8 = 8;
const SPURIOUS: u8 = 16;
/// In the time-ordered RACK list (`PathSender::ts_*`).
const TSORTED: u8 = 32;
/// Lost (by RACK) while carrying a retransmission that was not for a loss
/// (a TLP probe), so still retransmitted and walkable, but out of the list;
/// see `rack_detect_loss`.
const ZOMBIE: u8 = 64;

/// One transmitted, not yet cumulatively acknowledged segment.
#[derive(Clone, Copy, Debug)]
struct Seg {
    start: u64,
    len: u32,
    fin: bool,
    flags: u8,
    /// Neighbours in the time-ordered list (segment ids, see
    /// `PathSender::sb_base`); meaningful only while `TSORTED` is set.
    ts_prev: u32,
    ts_next: u32,
    /// Last (re)transmission time.
    sent: Nanos,
}

impl Seg {
    #[inline]
    fn end(&self) -> u64 {
        self.start + self.len as u64 + self.fin as u64
    }
    #[inline]
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// What RACK's loss detection must look at: not SACKed, and not lost
    /// and still waiting for its retransmission.
    #[inline]
    fn walkable(&self) -> bool {
        !self.has(SACKED) && self.flags & (LOST | RETRANS) != LOST
    }
    /// RACK's order of transmission: time, then sequence (RACK_sent_after).
    #[inline]
    fn ts_key(&self) -> (Nanos, u64) {
        (self.sent, self.end())
    }
}

/// Why a segment is (re)sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxKind {
    New,
    /// Retransmission in fast recovery (RFC 6675 NextSeg rule 1 / RFC 6582).
    FastRetrans,
    /// Retransmission after an RTO (Loss state).
    RtoRetrans,
    /// TLP probe with new data (RFC 8985 7.3).
    TlpNew,
    /// TLP probe retransmitting the last segment (RFC 8985 7.3).
    TlpRetrans,
    /// Zero-window probe (RFC 9293 3.8.6.1): no payload, seq = snd_una - 1.
    WindowProbe,
}

impl TxKind {
    pub fn is_retrans(self) -> bool {
        matches!(
            self,
            TxKind::FastRetrans | TxKind::RtoRetrans | TxKind::TlpRetrans
        )
    }
}

/// A transmission decided by the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tx {
    pub seq: u64,
    pub len: u32,
    pub fin: bool,
    pub kind: TxKind,
}

/// What a TLP would send (RFC 8985 7.3), decided separately from sending so
/// that a multipath connection can send the probe elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlpProbe {
    /// New, previously unsent data (`len` bytes from snd_nxt).
    NewData { len: u32 },
    /// Retransmit the highest-sequence outstanding segment.
    Retransmit { seq: u64, len: u32, fin: bool },
}

/// ACK fields the sender needs.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    pub ack: u64,
    /// Peer's receive window in bytes (already scaled).
    pub window: u64,
    pub sack: &'a [SackBlock],
    /// TSecr of the ACK, if timestamps are in use.
    pub ts_ecr: Option<Nanos>,
    /// The segment carrying the ACK also carried data or SYN/FIN (then it is
    /// not a duplicate ACK, RFC 5681 2).
    pub carries_data: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    Rto,
    Tlp,
    Persist,
    /// RACK reordering timer (RFC 8985 6.3, Linux ICSK_TIME_REO_TIMEOUT:
    /// it shares the retransmission timer slot with RTO and TLP).
    RackReo,
}

/// RFC 8985 6.2: the TCP-wide RACK state (Linux struct tcp_rack).
#[derive(Clone, Copy, Debug)]
struct Rack {
    /// RACK.xmit_ts / RACK.end_seq: transmission time and end of the most
    /// recently sent segment delivered so far (Linux rack.mstamp / end_seq).
    xmit_ts: Nanos,
    end_seq: u64,
    /// RACK.rtt: RTT of that segment's delivery (Linux rack.rtt_us).
    rtt: Nanos,
    /// RACK state advanced since the last detection (Linux rack.advanced).
    advanced: bool,
    /// RACK.fack: highest SACKed (or cumulatively ACKed) sequence.
    fack: u64,
    /// RACK.reord: reordering observed (Linux tp->reord_seen).
    reord: bool,
    /// RACK.reo_wnd_mult (Linux rack.reo_wnd_steps).
    reo_wnd_mult: u32,
    /// RACK.reo_wnd_persist: recoveries left before reo_wnd_mult resets.
    reo_wnd_persist: u32,
    /// RACK.dsack_round: SND.NXT when reo_wnd_mult last grew.
    dsack_round: Option<u64>,
}

/// RFC 8985 6.2 step 4 / Linux TCP_RACK_RECOVERY_THRESH.
const RACK_RECOVERY_THRESH: u32 = 16;

/// Ring of recently acknowledged retransmitted segments, so a late D-SACK
/// can still be matched (RFC 3708 style detection).
const RECENT_RETX: usize = 16;

#[derive(Debug)]
pub struct PathSender {
    pub mss: u32,
    /// Option bytes the owner will add to the next segment beyond the
    /// standard ones (SACK blocks on a data segment): new segments shrink by
    /// this much (Linux tcp_current_mss).
    pub opt_overhead: u32,
    /// Ends (sequence offsets) of owner chunks a new segment must not cross,
    /// ascending; empty for plain TCP. An MPTCP subflow that queues several
    /// mappings records each non-contiguous one's end here, as the kernel
    /// starts a new skb where the mapping changes (`mptcp_sendmsg_frag`,
    /// net/mptcp/protocol.c: `mptcp_skb_can_collapse_to` fails, `eor` set).
    pub chunk_ends: std::collections::VecDeque<u64>,
    sack_ok: bool,
    ts_ok: bool,
    tlp_enabled: bool,
    /// RACK configured (used only when SACK is negotiated, `rack_on`).
    rack_enabled: bool,
    rack: Rack,
    /// Retransmissions RACK found lost again (Linux LINUX_MIB_TCPLOSTRETRANSMIT).
    pub lost_retrans: u64,
    nagle: bool,
    dupthresh: u32,
    initial_cwnd: u32,
    slow_start_after_idle: bool,
    wcdelack: Nanos,
    /// Oldest unacknowledged sequence offset (SND.UNA).
    pub snd_una: u64,
    /// Next new sequence offset to send (SND.NXT).
    pub snd_nxt: u64,
    /// End of the data handed to the sender.
    pub write_seq: u64,
    fin_queued: bool,
    fin_sent: bool,
    /// Peer window and its right edge (SND.UNA + SND.WND).
    pub snd_wnd: u64,
    wnd_end: u64,
    sb: VecDeque<Seg>,
    pub packets_out: u32,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// Loss-marking scan position (Linux lost_skb_hint) and SACKed packets below it.
    lost_scan_seq: u64,
    lost_scan_sacked: u32,
    /// Retransmission hint (Linux retransmit_skb_hint).
    retx_hint: u64,
    /// Id of `sb[0]`: a segment's id is `sb_base + index` (wrapping), fixed
    /// for its life in the scoreboard, so the list below can link segments
    /// while the front is acknowledged away.
    sb_base: u32,
    /// RACK's time-ordered list (Linux tp->tsorted_sent_queue): the
    /// segments `rack_detect_loss` walks, doubly linked through
    /// `Seg::ts_prev/ts_next`, ordered by (transmission time, end sequence).
    /// It holds every walkable segment (`Seg::walkable`) except zombies
    /// (`ZOMBIE`). A segment joins on (re)transmission and leaves when it is
    /// acknowledged, SACKed or marked lost (as Linux tcp_rack_detect_loss
    /// and tcp_sacktag_one unlink it), so a walk over a recovery looks only
    /// at what is in flight, not at the whole scoreboard.
    ts_head: u32,
    ts_tail: u32,
    ts_len: u32,
    /// Segments flagged `ZOMBIE`.
    zombies: u32,
    /// Scratch for `rack_detect_loss`.
    zombie_buf: Vec<u32>,
    /// RecoveryPoint (RFC 6675) / Linux high_seq.
    high_seq: u64,
    prr_delivered: u32,
    prr_out: u32,
    prior_cwnd: u32,
    /// Undo state (Linux undo_marker / undo_retrans / retrans_stamp /
    /// prior_ssthresh): lets a spurious reduction be reverted.
    undo_marker: Option<u64>,
    undo_retrans: i32,
    undo_until: u64,
    retrans_stamp: Option<Nanos>,
    prior_ssthresh: u32,
    pub cc_state: CcState,
    cc: Box<dyn CongestionControl>,
    pub rtt: RttEstimator,
    timer: Option<(Nanos, Timer)>,
    pub backoff: u32,
    tlp_fire: bool,
    probe0_fire: bool,
    tlp_high_seq: Option<u64>,
    tlp_retrans: bool,
    sack_cache: [SackBlock; 4],
    sack_cache_n: usize,
    recent_retx: [(u64, u64, bool); RECENT_RETX],
    recent_retx_i: usize,
    is_cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: u64,
    last_send: Nanos,
    /// This path's counters (send and receive side, the owner adds the latter).
    pub counters: Counters,
    /// Hook for a multipath owner: it holds data not yet handed to this
    /// path, so a full window counts as cwnd-limited (Linux MPTCP passes the
    /// meta socket's state to tcp_cwnd_validate). Always false for TCP.
    pub owner_has_data: bool,
}

impl PathSender {
    pub fn new(cfg: &TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let mss = cfg.mss_option() - if cfg.timestamps { 12 } else { 0 };
        PathSender {
            mss,
            opt_overhead: 0,
            chunk_ends: std::collections::VecDeque::new(),
            sack_ok: false,
            ts_ok: false,
            tlp_enabled: cfg.tlp,
            rack_enabled: cfg.rack,
            rack: Rack {
                xmit_ts: 0,
                end_seq: 0,
                rtt: 0,
                advanced: false,
                fack: 1,
                reord: false,
                reo_wnd_mult: 1,
                reo_wnd_persist: 0,
                dsack_round: None,
            },
            lost_retrans: 0,
            nagle: cfg.nagle,
            dupthresh: cfg.dupthresh,
            initial_cwnd: cfg.initial_cwnd,
            slow_start_after_idle: cfg.slow_start_after_idle,
            wcdelack: cfg.delack_max,
            snd_una: 1,
            snd_nxt: 1,
            write_seq: 1,
            fin_queued: false,
            fin_sent: false,
            snd_wnd: 65535,
            wnd_end: 1 + 65535,
            sb: VecDeque::with_capacity(1024),
            packets_out: 0,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            lost_scan_seq: 1,
            lost_scan_sacked: 0,
            retx_hint: 1,
            sb_base: 0,
            ts_head: 0,
            ts_tail: 0,
            ts_len: 0,
            zombies: 0,
            zombie_buf: Vec::new(),
            high_seq: 1,
            prr_delivered: 0,
            prr_out: 0,
            prior_cwnd: 0,
            undo_marker: None,
            undo_retrans: 0,
            undo_until: 0,
            retrans_stamp: None,
            prior_ssthresh: 0,
            cc_state: CcState {
                // RFC 6928: IW = 10 packets.
                cwnd: cfg.initial_cwnd,
                cwnd_cnt: 0,
                ssthresh: INFINITE_SSTHRESH,
                mss,
                srtt: 0,
                min_rtt: Nanos::MAX,
                in_flight: 0,
                ca_state: CaState::Open,
                path_index: 0,
                snd_una: 1,
                snd_nxt: 1,
            },
            cc,
            rtt: RttEstimator::new(cfg),
            timer: None,
            backoff: 0,
            tlp_fire: false,
            probe0_fire: false,
            tlp_high_seq: None,
            tlp_retrans: false,
            sack_cache: [SackBlock::default(); 4],
            sack_cache_n: 0,
            recent_retx: [(0, 0, false); RECENT_RETX],
            recent_retx_i: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 1,
            last_send: 0,
            counters: Counters::default(),
            owner_has_data: false,
        }
    }

    /// Set the negotiated options once the handshake is done.
    pub fn established(&mut self, now: Nanos, mss: u32, sack: bool, ts: bool, window: u64) {
        self.mss = mss;
        self.cc_state.mss = mss;
        self.sack_ok = sack;
        self.ts_ok = ts;
        self.snd_wnd = window;
        self.wnd_end = self.snd_una + window;
        self.last_send = now;
        self.cc.init(&mut self.cc_state, now);
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    // ---- data from the owner -------------------------------------------

    pub fn push_data(&mut self, len: u64) {
        debug_assert!(!self.fin_queued);
        self.write_seq += len;
    }

    pub fn push_fin(&mut self) {
        self.fin_queued = true;
    }

    /// Unsent payload bytes.
    pub fn unsent(&self) -> u64 {
        self.write_seq - self.snd_nxt.min(self.write_seq)
    }

    /// Unsent bytes up to the next chunk end (`chunk_ends`), the most one
    /// new segment may carry.
    #[inline]
    fn unsent_in_chunk(&self) -> u64 {
        match self.chunk_ends.front() {
            Some(&end) if end > self.snd_nxt => end.min(self.write_seq) - self.snd_nxt,
            _ => self.unsent(),
        }
    }

    /// Payload bytes held (unacked + unsent), for the send buffer.
    pub fn buffered(&self) -> u64 {
        self.write_seq - self.snd_una.min(self.write_seq)
    }

    /// Everything including the FIN is acknowledged.
    pub fn fin_acked(&self) -> bool {
        self.fin_sent && self.snd_una == self.snd_nxt
    }

    pub fn all_acked(&self) -> bool {
        self.snd_una == self.snd_nxt && self.unsent() == 0
    }

    // ---- state queries ----------------------------------------------------

    /// Linux tcp_packets_in_flight(): packets_out - left_out + retrans_out.
    #[inline]
    pub fn in_flight(&self) -> u32 {
        self.packets_out - (self.sacked_out + self.lost_out) + self.retrans_out
    }

    /// SACK was negotiated (else NewReno with emulated SACKs).
    pub fn sack_ok(&self) -> bool {
        self.sack_ok
    }

    pub fn ca_state(&self) -> CaState {
        self.cc_state.ca_state
    }

    /// In RTO recovery in a way that bars new data from an MPTCP scheduler
    /// (out-of-tree Linux MPTCP `mptcp_is_temp_unavailable`, mptcp_sched.c):
    /// CA state Loss, except for a non-SACK (Reno) sender whose SND.UNA has
    /// reached high_seq. Such a sender holds Loss until something *above*
    /// high_seq is acknowledged (`reno_hold_at_recover`, Linux
    /// tcp_try_undo_recovery), which only new data can bring about; the
    /// kernel therefore lets it take new data ("if we have a reno subflow,
    /// we check if snd_una == high_seq. If it is, we can go ahead and send
    /// more data."). Barring it as well deadlocks the subflow: nothing is in
    /// flight, no timer runs, and the scheduler never hands it a segment.
    pub fn loss_blocks_new_data(&self) -> bool {
        self.cc_state.ca_state == CaState::Loss && !self.reno_hold_at_recover()
    }

    pub fn cwnd(&self) -> u32 {
        self.cc_state.cwnd
    }

    pub fn ssthresh(&self) -> u32 {
        self.cc_state.ssthresh
    }

    pub fn view(&self) -> PathView {
        let mut s = self.cc_state.clone();
        s.in_flight = self.in_flight();
        PathView::of(&s)
    }

    pub fn next_timeout(&self) -> Option<Nanos> {
        self.timer.map(|t| t.0)
    }

    pub fn rto_pending(&self) -> bool {
        matches!(self.timer, Some((_, Timer::Rto)))
    }

    pub fn tlp_pending(&self) -> bool {
        matches!(self.timer, Some((_, Timer::Tlp)))
    }

    pub fn persist_pending(&self) -> bool {
        matches!(self.timer, Some((_, Timer::Persist)))
    }

    /// The RACK reordering timer is armed (RFC 8985 6.3).
    pub fn rack_reo_pending(&self) -> bool {
        matches!(self.timer, Some((_, Timer::RackReo)))
    }

    /// RACK loss detection in use: configured and SACK negotiated (Linux
    /// tcp_is_rack; without SACK Linux uses tcp_newreno_mark_lost).
    #[inline]
    pub fn rack_on(&self) -> bool {
        self.rack_enabled && self.sack_ok
    }

    fn sync_cc(&mut self) {
        self.cc_state.in_flight = self.in_flight();
        self.cc_state.srtt = self.rtt.srtt;
        self.cc_state.min_rtt = self.rtt.min_rtt;
        self.cc_state.snd_una = self.snd_una;
        self.cc_state.snd_nxt = self.snd_nxt;
    }

    fn set_ca_state(&mut self, st: CaState, now: Nanos) {
        if self.cc_state.ca_state != st {
            self.cc.set_state(&mut self.cc_state, st, now);
            self.cc_state.ca_state = st;
        }
    }

    fn idx_of(&self, seq: u64) -> usize {
        self.sb.partition_point(|s| s.start < seq)
    }

    // ---- RACK's time-ordered list -------------------------------------------

    /// Id of the segment at index `i`.
    #[inline]
    fn id_at(&self, i: usize) -> u32 {
        self.sb_base.wrapping_add(i as u32)
    }

    /// Index of the segment with id `id`.
    #[inline]
    fn idx_of_id(&self, id: u32) -> usize {
        id.wrapping_sub(self.sb_base) as usize
    }

    /// Take segment `i` out of the time-ordered list, if it is in it.
    #[inline(always)]
    fn ts_unlink(&mut self, i: usize) {
        let s = self.sb[i];
        if !s.has(TSORTED) {
            return;
        }
        self.sb[i].flags &= !TSORTED;
        self.ts_len -= 1;
        if self.ts_len == 0 {
            return;
        }
        let id = self.id_at(i);
        if id == self.ts_head {
            self.ts_head = s.ts_next;
        } else if id == self.ts_tail {
            self.ts_tail = s.ts_prev;
        } else {
            let (p, n) = (self.idx_of_id(s.ts_prev), self.idx_of_id(s.ts_next));
            self.sb[p].ts_next = s.ts_next;
            self.sb[n].ts_prev = s.ts_prev;
        }
    }

    /// Put segment `i` (not in the list) into the time-ordered list at its
    /// place; a segment just (re)transmitted goes to the tail, in O(1).
    fn ts_insert(&mut self, i: usize) {
        debug_assert!(!self.sb[i].has(TSORTED));
        let id = self.id_at(i);
        let key = self.sb[i].ts_key();
        self.sb[i].flags |= TSORTED;
        if self.ts_len == 0 {
            self.ts_head = id;
            self.ts_tail = id;
            self.ts_len = 1;
            return;
        }
        self.ts_len += 1;
        // the last member sent before this one, looking back from the tail
        let mut cur = self.ts_tail;
        loop {
            let c = self.idx_of_id(cur);
            if self.sb[c].ts_key() < key {
                let next = self.sb[c].ts_next;
                self.sb[i].ts_prev = cur;
                self.sb[i].ts_next = next;
                self.sb[c].ts_next = id;
                if cur == self.ts_tail {
                    self.ts_tail = id;
                } else {
                    let n = self.idx_of_id(next);
                    self.sb[n].ts_prev = id;
                }
                return;
            }
            if cur == self.ts_head {
                self.sb[i].ts_next = cur;
                self.sb[c].ts_prev = id;
                self.ts_head = id;
                return;
            }
            cur = self.sb[c].ts_prev;
        }
    }

    /// Unit-test builds check after every ACK, timeout and transmission
    /// decision that the list holds exactly the walkable segments that are
    /// not zombies, in (time, end) order, and that the counts agree.
    #[cfg(test)]
    fn check_rack_list(&self) {
        let mut id = self.ts_head;
        let mut prev: Option<(Nanos, u64)> = None;
        for _ in 0..self.ts_len {
            let s = self.sb[self.idx_of_id(id)];
            assert!(
                s.has(TSORTED) && s.walkable() && !s.has(ZOMBIE),
                "list member {s:?}"
            );
            assert!(
                prev.is_none_or(|p| p < s.ts_key()),
                "list out of order at {s:?}"
            );
            prev = Some(s.ts_key());
            id = s.ts_next;
        }
        for s in &self.sb {
            if s.walkable() {
                assert!(s.has(TSORTED) != s.has(ZOMBIE), "walkable {s:?}");
            } else {
                assert!(!s.has(TSORTED) && !s.has(ZOMBIE), "not walkable {s:?}");
            }
        }
        assert_eq!(
            self.sb.iter().filter(|s| s.has(TSORTED)).count(),
            self.ts_len as usize
        );
        assert_eq!(
            self.sb.iter().filter(|s| s.has(ZOMBIE)).count(),
            self.zombies as usize
        );
    }

    /// Segment `i` stops being a zombie, if it was one.
    #[inline]
    fn unzombie(&mut self, i: usize) {
        if self.sb[i].has(ZOMBIE) {
            self.sb[i].flags &= !ZOMBIE;
            self.zombies -= 1;
        }
    }

    /// Segment `i` got SACKed or is about to be acknowledged: out of RACK's view.
    #[inline]
    fn ts_forget(&mut self, i: usize) {
        self.ts_unlink(i);
        self.unzombie(i);
    }

    /// Segment `i` was just marked lost outside RACK: out of the list unless
    /// still walkable (a retransmission in flight).
    #[inline]
    fn ts_after_lost_mark(&mut self, i: usize) {
        if !self.sb[i].walkable() {
            self.ts_unlink(i);
        }
    }

    /// Rebuild the list from the scoreboard: every walkable segment, no
    /// zombies (after `undo` forgot the loss marks).
    fn ts_rebuild(&mut self) {
        let mut idx: Vec<usize> = Vec::new();
        for (i, s) in self.sb.iter_mut().enumerate() {
            s.flags &= !(TSORTED | ZOMBIE);
            if s.walkable() {
                idx.push(i);
            }
        }
        self.ts_len = 0;
        self.zombies = 0;
        idx.sort_unstable_by_key(|&i| self.sb[i].ts_key());
        for i in idx {
            self.ts_insert(i);
        }
    }

    // ---- timers -------------------------------------------------------------

    fn arm_rto(&mut self, now: Nanos) {
        if self.packets_out == 0 {
            // RFC 6298 (5.2): all data acknowledged: stop the timer.
            self.timer = None;
            return;
        }
        // RFC 6298 (5.1)/(5.3): (re)start with the backed-off RTO.
        self.timer = Some((now + self.rtt.rto_backoff(self.backoff), Timer::Rto));
    }

    /// RFC 8985 7.2 conditions (and Linux tcp_schedule_loss_probe): TLP on,
    /// SACK negotiated, no SACKed data, not in recovery/loss, no probe
    /// outstanding.
    fn tlp_eligible(&self) -> bool {
        self.tlp_enabled
            && self.sack_ok
            && self.sacked_out == 0
            && matches!(self.cc_state.ca_state, CaState::Open | CaState::Cwr)
            && self.tlp_high_seq.is_none()
    }

    /// Replace a pending PTO by the RTO, counted from the head segment's
    /// transmission (Linux tcp_rearm_rto with tcp_rto_delta_us).
    fn rto_instead_of_tlp(&mut self, now: Nanos) {
        let head_sent = self.sb.front().map(|s| s.sent).unwrap_or(now);
        let at = (head_sent + self.rtt.rto_backoff(self.backoff)).max(now + 1);
        self.timer = Some((at, Timer::Rto));
    }

    /// RFC 8985 7.2: schedule a PTO (else an RTO).
    fn schedule_tlp_or_rto(&mut self, now: Nanos) {
        if self.packets_out == 0 {
            self.timer = None;
            return;
        }
        if !self.tlp_eligible() {
            self.arm_rto(now);
            return;
        }
        let mut pto = if self.rtt.has_sample() {
            // RFC 8985 7.2: PTO = 2*SRTT
            let mut p = 2 * self.rtt.srtt;
            if self.packets_out == 1 {
                // RFC 8985 7.2: FlightSize of one segment: + WCDelAckT (200 ms).
                p += self.wcdelack;
            }
            p
        } else {
            // RFC 8985 7.2: no SRTT yet: PTO = 1 s.
            SEC
        };
        // RFC 8985 7.2: never later than the RTO would fire (Linux tcp_rto_delta_us:
        // RTO counted from the head segment's transmission).
        let head_sent = self.sb.front().map(|s| s.sent).unwrap_or(now);
        let rto_at = head_sent + self.rtt.rto_backoff(self.backoff);
        pto = pto.min(rto_at.saturating_sub(now));
        self.timer = Some((now + pto, Timer::Tlp));
    }

    /// Expire due timers. Returns true if something must be transmitted.
    pub fn on_timeout(&mut self, now: Nanos, paths: Option<&[PathView]>) -> bool {
        let r = self.on_timeout_inner(now, paths);
        #[cfg(test)]
        self.check_rack_list();
        r
    }

    fn on_timeout_inner(&mut self, now: Nanos, paths: Option<&[PathView]>) -> bool {
        let Some((at, kind)) = self.timer else {
            return false;
        };
        if now < at {
            return false;
        }
        self.timer = None;
        match kind {
            Timer::Rto => {
                self.enter_loss(now, paths);
                true
            }
            Timer::Tlp => {
                if self.tlp_eligible() && self.tlp_probe().is_some() {
                    self.tlp_fire = true;
                } else {
                    self.arm_rto(now);
                }
                true
            }
            Timer::Persist => {
                self.probe0_fire = true;
                true
            }
            Timer::RackReo => self.rack_reo_timeout(now, paths),
        }
    }

    /// RTO expiry (Linux tcp_retransmit_timer -> tcp_enter_loss).
    fn enter_loss(&mut self, now: Nanos, paths: Option<&[PathView]>) {
        self.counters.rto_events += 1;
        self.sync_cc();
        // Linux tcp_enter_loss: reduce ssthresh only on the first RTO of an
        // episode (not again while already in Loss with backoff).
        if self.cc_state.ca_state != CaState::Loss || self.backoff == 0 {
            self.prior_ssthresh = self.current_ssthresh();
            self.prior_cwnd = self.cc_state.cwnd;
            self.init_undo();
            let me = [PathView::of(&self.cc_state)];
            let ps = paths.unwrap_or(&me);
            self.cc_state.ssthresh = self.cc.ssthresh(&self.cc_state, ps, now);
            self.cc.cwnd_event(&mut self.cc_state, CwndEvent::Loss, now);
        }
        self.set_ca_state(CaState::Loss, now);
        // RFC 5681 (5) / Linux: cwnd = 1 packet (LW).
        self.cc_state.cwnd = 1;
        self.cc_state.cwnd_cnt = 0;
        // Linux tcp_timeout_mark_lost: every non-SACKed segment is lost,
        // retransmissions are forgotten (go-back-N through the scoreboard).
        let mut lost = 0;
        for s in self.sb.iter_mut() {
            // nothing is walkable any more: the time-ordered list empties
            s.flags &= !(RETRANS | TSORTED | ZOMBIE);
            if !s.has(SACKED) {
                s.flags |= LOST;
                lost += 1;
            }
        }
        self.lost_out = lost;
        self.retrans_out = 0;
        self.ts_len = 0;
        self.zombies = 0;
        if !self.sack_ok {
            // non-SACK: forget the emulated SACKs (Linux tcp_reset_reno_sack)
            self.sacked_out = 0;
        }
        self.lost_scan_seq = self.snd_nxt;
        self.lost_scan_sacked = self.sacked_out;
        self.retx_hint = self.snd_una;
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.tlp_fire = false;
        // RFC 6298 (5.5)/(5.6): back off and restart.
        self.backoff += 1;
        self.arm_rto(now);
    }

    // ---- RACK (RFC 8985 6, Linux tcp_recovery.c) ----------------------------

    /// RFC 8985 6.2 step 2 (Linux tcp_rack_advance): a segment sent at
    /// `xmit` and ending at `end` was newly delivered. `retrans`: it was
    /// ever retransmitted.
    fn rack_advance(&mut self, now: Nanos, retrans: bool, end: u64, xmit: Nanos) {
        let rtt = now.saturating_sub(xmit);
        if retrans && rtt < self.rtt.min_rtt {
            // Ambiguous: the ACK may be for the original transmission (RFC
            // 8985 6.2 step 2: RTT below min_RTT after a retransmission).
            return;
        }
        // RFC 8985 6.2 step 2 walks the newly delivered segments in order of
        // transmission, so RACK.rtt ends as the RTT of the most recently sent
        // one, i.e. the smallest of this ACK (`advanced` is false at the start
        // of every ACK: rack_mark_lost clears it). Linux keeps the last one
        // in its scoreboard walk instead.
        self.rack.rtt = if self.rack.advanced {
            self.rack.rtt.min(rtt)
        } else {
            rtt
        };
        self.rack.advanced = true;
        if Self::rack_sent_after(xmit, end, self.rack.xmit_ts, self.rack.end_seq) {
            self.rack.xmit_ts = xmit;
            self.rack.end_seq = end;
        }
    }

    /// RFC 8985 6.2 RACK_sent_after (Linux tcp_rack_sent_after): (t1, seq1)
    /// was sent after (t2, seq2); equal times are ordered by sequence.
    #[inline]
    fn rack_sent_after(t1: Nanos, seq1: u64, t2: Nanos, seq2: u64) -> bool {
        t1 > t2 || (t1 == t2 && seq1 > seq2)
    }

    /// RFC 8985 6.2 step 4 (Linux tcp_rack_update_reo_wnd): grow the
    /// reordering window by one min_RTT/4 step per round trip with D-SACKs;
    /// keep it for 16 recoveries.
    fn rack_update_reo_wnd(&mut self, dsack: bool) {
        if matches!(self.rack.dsack_round, Some(r) if self.snd_una >= r) {
            self.rack.dsack_round = None;
        }
        if self.rack.dsack_round.is_none() && dsack {
            self.rack.dsack_round = Some(self.snd_nxt);
            self.rack.reo_wnd_mult = (self.rack.reo_wnd_mult + 1).min(0xFF);
            self.rack.reo_wnd_persist = RACK_RECOVERY_THRESH;
        }
    }

    /// RFC 8985 6.2 step 4: on leaving fast or RTO recovery without undo
    /// (Linux tcp_try_undo_recovery decrements reo_wnd_persist there).
    fn rack_recovery_exit(&mut self) {
        if self.rack.reo_wnd_persist > 0 {
            self.rack.reo_wnd_persist -= 1;
            if self.rack.reo_wnd_persist == 0 {
                self.rack.reo_wnd_mult = 1;
            }
        }
    }

    /// RFC 8985 6.2 step 4 RACK.reo_wnd (Linux tcp_rack_reo_wnd): zero while
    /// no reordering was seen and the sender is in recovery or DupThresh
    /// segments are SACKed (so RACK never waits longer than RFC 6675 would),
    /// else min(min_RTT/4 * reo_wnd_mult, SRTT).
    pub fn rack_reo_wnd(&self) -> Nanos {
        if !self.rack.reord {
            if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss) {
                return 0;
            }
            if self.sacked_out >= self.dupthresh {
                return 0;
            }
        }
        let min_rtt = if self.rtt.min_rtt == Nanos::MAX {
            self.rtt.srtt
        } else {
            self.rtt.min_rtt
        };
        ((min_rtt / 4) * self.rack.reo_wnd_mult as u64).min(self.rtt.srtt)
    }

    /// RFC 8985 6.2 step 5 / 6.3 RACK_detect_loss (Linux
    /// tcp_rack_detect_loss): mark lost every segment sent before RACK.xmit_ts
    /// whose delivery is overdue by RACK.rtt + RACK.reo_wnd; returns the
    /// longest remaining wait of the others (0: none). Like Linux it walks
    /// the time-ordered list (`ts_head`) from the oldest transmission and
    /// stops at the first segment not sent before RACK.xmit_ts; a segment
    /// marked lost leaves the list.
    ///
    /// The exception, kept from the sequence-ordered walk this replaces: a
    /// segment marked lost while it carries a retransmission that was not
    /// for a loss (a TLP probe) stays walkable (LOST and RETRANS). It stays
    /// in the list if some segment below it in sequence is still in the list
    /// after this walk, else it becomes a "zombie", out of the list until a
    /// retransmission at or below its sequence (`retransmit_at`) or an
    /// `undo` brings it back.
    fn rack_detect_loss(&mut self, now: Nanos) -> Nanos {
        let reo_wnd = self.rack_reo_wnd();
        let (rxts, rend, rrtt) = (self.rack.xmit_ts, self.rack.end_seq, self.rack.rtt);
        let mut timeout: Nanos = 0;
        let mut kept_walkable = std::mem::take(&mut self.zombie_buf);
        let mut left = self.ts_len;
        let mut id = self.ts_head;
        while left > 0 {
            left -= 1;
            let i = self.idx_of_id(id);
            let s = self.sb[i];
            if !Self::rack_sent_after(rxts, rend, s.sent, s.end()) {
                break; // and so was everything after it in the list
            }
            // Linux tcp_rack_skb_timeout: RACK.rtt + reo_wnd - elapsed.
            let deadline = s.sent + rrtt + reo_wnd;
            if deadline <= now {
                self.rack_mark_seg_lost(i);
                if self.sb[i].walkable() {
                    kept_walkable.push(id);
                } else {
                    self.ts_unlink(i);
                }
            } else {
                timeout = timeout.max(deadline - now);
            }
            id = s.ts_next;
        }
        if !kept_walkable.is_empty() {
            self.rack_settle_zombies(&kept_walkable);
            kept_walkable.clear();
        }
        self.zombie_buf = kept_walkable;
        timeout
    }

    /// After a walk that marked the still walkable segments `marked` (ids,
    /// all in the list): those below the lowest-sequence other segment of
    /// the list (all of them if there is none) leave it as zombies.
    #[cold]
    fn rack_settle_zombies(&mut self, marked: &[u32]) {
        let mut low: Option<u64> = None;
        let mut id = self.ts_head;
        for _ in 0..self.ts_len {
            let s = self.sb[self.idx_of_id(id)];
            if !marked.contains(&id) && low.is_none_or(|l| s.start < l) {
                low = Some(s.start);
            }
            id = s.ts_next;
        }
        for &id in marked {
            let i = self.idx_of_id(id);
            if low.is_none_or(|l| self.sb[i].start < l) {
                self.ts_unlink(i);
                self.sb[i].flags |= ZOMBIE;
                self.zombies += 1;
            }
        }
    }

    /// Linux tcp_mark_skb_lost: a lost retransmission loses its RETRANS
    /// mark (it is retransmitted again), anything else becomes LOST.
    fn rack_mark_seg_lost(&mut self, i: usize) {
        let s = &mut self.sb[i];
        if s.has(LOST) {
            if s.has(RETRANS) {
                s.flags &= !RETRANS;
                self.retrans_out -= 1;
                self.lost_retrans += 1;
            }
        } else {
            s.flags |= LOST;
            self.lost_out += 1;
        }
        let st = s.start;
        if st < self.retx_hint {
            self.retx_hint = st;
        }
    }

    /// Linux tcp_rack_mark_lost: detect losses if RACK advanced; arm the
    /// reordering timer for the ones still within the window (RFC 8985 6.3).
    /// Returns true if the timer was armed.
    fn rack_mark_lost(&mut self, now: Nanos) -> bool {
        if !self.rack.advanced {
            return false;
        }
        self.rack.advanced = false;
        let timeout = self.rack_detect_loss(now);
        if timeout > 0 {
            // Linux adds TCP_TIMEOUT_MIN (2 jiffies) for timer granularity;
            // RFC 8985 6.3 does not: the simulator's clock is exact.
            self.timer = Some((now + timeout, Timer::RackReo));
            return true;
        }
        false
    }

    /// RFC 8985 6.3 RACK_detect_loss_and_arm_timer on expiry (Linux
    /// tcp_rack_reo_timeout): mark what is now overdue; if anything was,
    /// start fast recovery unless already in it (PRR with one delivered
    /// packet, as Linux calls tcp_cwnd_reduction(sk, 1, ...)), and let the
    /// owner retransmit. The RTO is re-armed afterwards. In Loss the marks
    /// feed the RTO recovery's go-back-N (Linux would enter Recovery: not
    /// modelled).
    fn rack_reo_timeout(&mut self, now: Nanos, paths: Option<&[PathView]>) -> bool {
        let prior_in_flight = self.in_flight();
        let prior_lost = self.lost_out as u64 + self.lost_retrans;
        self.rack_detect_loss(now);
        let changed = self.in_flight() != prior_in_flight;
        if changed
            && matches!(
                self.cc_state.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            )
        {
            let newly_lost = (self.lost_out as u64 + self.lost_retrans - prior_lost) as u32;
            self.sync_cc();
            let me = [self.view()];
            let ps = paths.unwrap_or(&me);
            self.enter_recovery(now, ps);
            self.prr(1, false, newly_lost);
        }
        if self.timer.is_none() {
            self.arm_rto(now);
        }
        changed
    }

    // ---- TLP ------------------------------------------------------------------

    /// RFC 8985 7.3: what a probe would send now: new data if available and
    /// the peer window allows, else the last outstanding segment.
    pub fn tlp_probe(&self) -> Option<TlpProbe> {
        let unsent = self.unsent_in_chunk();
        if unsent > 0 {
            let len = unsent.min(self.mss as u64) as u32;
            if self.snd_nxt + len as u64 <= self.wnd_end {
                return Some(TlpProbe::NewData { len });
            }
        }
        let last = self.sb.back()?;
        if last.has(SACKED) {
            return None;
        }
        Some(TlpProbe::Retransmit {
            seq: last.start,
            len: last.len,
            fin: last.fin,
        })
    }

    /// A PTO expired and a probe is due on the next `next_tx` call.
    pub fn tlp_due(&self) -> bool {
        self.tlp_fire
    }

    /// Take over a due probe (e.g. an MPTCP connection-level TLP that sends
    /// it on another subflow): `next_tx` will not send it, the RTO is armed
    /// as after a probe, and the decision is returned.
    pub fn take_tlp(&mut self, now: Nanos) -> Option<TlpProbe> {
        if !self.tlp_fire {
            return None;
        }
        self.tlp_fire = false;
        self.arm_rto(now);
        self.tlp_probe()
    }

    /// Send the probe decided by `tlp_probe` on this path (RFC 8985 7.3).
    pub fn send_tlp(&mut self, now: Nanos) -> Option<Tx> {
        let probe = self.tlp_probe()?;
        self.counters.tlp_probes += 1;
        let tx = match probe {
            TlpProbe::NewData { len } => {
                let tx = self.send_new(now, len, TxKind::TlpNew);
                self.tlp_retrans = false;
                tx
            }
            TlpProbe::Retransmit { .. } => {
                let i = self.sb.len() - 1;
                self.tlp_retrans = true;
                self.retransmit_at(now, i, TxKind::TlpRetrans)
            }
        };
        // RFC 8985 7.3: TLPRxtOut / TLPHighRxt = SND.NXT.
        self.tlp_high_seq = Some(self.snd_nxt);
        // RFC 8985 7.3: after the probe, arm the RTO.
        self.arm_rto(now);
        Some(tx)
    }

    /// RFC 8985 7.4 (Linux tcp_process_tlp_ack): detect whether the probe
    /// repaired a loss; if so reduce cwnd once (CWR).
    fn process_tlp_ack(
        &mut self,
        now: Nanos,
        ack: u64,
        dsack: bool,
        not_dup: bool,
        paths: Option<&[PathView]>,
    ) {
        let Some(hs) = self.tlp_high_seq else { return };
        if ack < hs {
            return;
        }
        if !self.tlp_retrans || dsack {
            // new-data probe, or D-SACK: original and probe both arrived, no loss.
            self.tlp_high_seq = None;
        } else if ack > hs {
            // RFC 8985 7.4.2: the probe repaired a loss: invoke congestion control.
            self.tlp_high_seq = None;
            self.sync_cc();
            self.prior_cwnd = self.cc_state.cwnd;
            let me = [PathView::of(&self.cc_state)];
            let ps = paths.unwrap_or(&me);
            let ss = self.cc.ssthresh(&self.cc_state, ps, now);
            self.cc_state.ssthresh = ss;
            // Linux: tcp_init_cwnd_reduction + CWR + tcp_end_cwnd_reduction.
            self.cc_state.cwnd = ss;
            self.cc_state.cwnd_cnt = 0;
            self.cc
                .cwnd_event(&mut self.cc_state, CwndEvent::CompleteCwr, now);
        } else if !not_dup {
            // pure duplicate ACK for the probe: no loss
            self.tlp_high_seq = None;
        }
    }

    // ---- transmission ---------------------------------------------------------

    /// Linux tcp_cwnd_validate: track whether the window is actually used.
    #[inline]
    fn cwnd_validate(&mut self, limited: bool) {
        if self.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.is_cwnd_limited && self.packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = limited;
            self.max_packets_out = self.packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// Linux tcp_is_cwnd_limited.
    fn cwnd_limited(&self) -> bool {
        if self.cc_state.in_slow_start() {
            return self.cc_state.cwnd < 2 * self.max_packets_out;
        }
        self.is_cwnd_limited
    }

    fn send_new(&mut self, now: Nanos, len: u32, kind: TxKind) -> Tx {
        let fin = self.fin_queued && !self.fin_sent && self.snd_nxt + len as u64 == self.write_seq;
        // New data ends above everything sent and is sent last: it goes to
        // the tail of the time-ordered list without a search.
        let id = self.id_at(self.sb.len());
        let seg = Seg {
            start: self.snd_nxt,
            len,
            fin,
            flags: TSORTED,
            ts_prev: self.ts_tail,
            ts_next: 0,
            sent: now,
        };
        self.snd_nxt = seg.end();
        while self.chunk_ends.front().is_some_and(|&e| e <= self.snd_nxt) {
            self.chunk_ends.pop_front();
        }
        if fin {
            self.fin_sent = true;
        }
        if self.ts_len == 0 {
            self.ts_head = id;
        } else {
            let t = self.idx_of_id(self.ts_tail);
            self.sb[t].ts_next = id;
        }
        self.ts_tail = id;
        self.ts_len += 1;
        self.sb.push_back(seg);
        self.packets_out += 1;
        if self.packets_out == 1 && self.lost_scan_seq < seg.start {
            self.lost_scan_seq = seg.start;
        }
        self.account_send(now, len, false);
        Tx {
            seq: seg.start,
            len,
            fin,
            kind,
        }
    }

    fn retransmit_at(&mut self, now: Nanos, i: usize, kind: TxKind) -> Tx {
        // a retransmitted segment is walked by RACK again, at the list's tail
        self.ts_forget(i);
        if self.zombies > 0 {
            self.wake_zombies(i);
        }
        let s = &mut self.sb[i];
        // Invariant `retransmission-attributed` (crate::invariants): never
        // resend what the peer SACKed, and always under a counted cause.
        crate::invariant!(
            kind.is_retrans() && !s.has(SACKED),
            "retransmission-attributed",
            "tcp: segment [{}, {}) retransmitted as {kind:?} with flags {:#x} (SACKED = 1)",
            s.start,
            s.end(),
            s.flags
        );
        if !s.has(RETRANS) {
            s.flags |= RETRANS;
            self.retrans_out += 1;
        }
        s.flags |= EVER_RETRANS;
        s.flags &= !SPURIOUS;
        s.sent = now;
        let (seq, len, fin) = (s.start, s.len, s.fin);
        if s.walkable() {
            self.ts_insert(i);
        }
        self.account_send(now, len, true);
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss)
            && self.undo_marker.is_some()
        {
            // Linux tcp_retransmit_skb: count retransmissions to be undone by D-SACKs.
            self.undo_retrans = self.undo_retrans.max(0) + 1;
            if self.retrans_stamp.is_none() {
                self.retrans_stamp = Some(now);
            }
        }
        match kind {
            TxKind::FastRetrans => self.counters.retrans_fast += 1,
            TxKind::RtoRetrans => self.counters.retrans_rto += 1,
            TxKind::TlpRetrans => self.counters.retrans_tlp += 1,
            _ => {}
        }
        Tx {
            seq,
            len,
            fin,
            kind,
        }
    }

    /// A retransmission of segment `i`: zombies above it are walked by RACK
    /// again (see `rack_detect_loss`).
    #[cold]
    fn wake_zombies(&mut self, i: usize) {
        for j in i + 1..self.sb.len() {
            if self.sb[j].has(ZOMBIE) {
                self.unzombie(j);
                self.ts_insert(j);
                if self.zombies == 0 {
                    break;
                }
            }
        }
    }

    fn account_send(&mut self, now: Nanos, len: u32, retrans: bool) {
        if len > 0 {
            self.counters.data_packets_sent += 1;
            self.counters.bytes_sent += len as u64;
            if retrans {
                self.counters.bytes_retransmitted += len as u64;
            }
        }
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Cwr) {
            // RFC 6937: prr_out counts every packet sent during recovery.
            self.prr_out += 1;
        }
        self.last_send = now;
    }

    /// Decide the next transmission, or None. The owner calls this until it
    /// returns None; it also arms the RTO/TLP/persist timer.
    #[inline]
    pub fn next_tx(&mut self, now: Nanos) -> Option<Tx> {
        // Most calls find nothing to send (an MPTCP subflow gets one segment
        // at a time; a receiver sends no data): no probe due, nothing lost
        // to retransmit, nothing new. Then `next_tx_slow` would only do the
        // window-validation step of its `in_flight >= cwnd` branch (limited
        // iff the owner holds data) or of its end (not limited).
        if !self.probe0_fire
            && !self.tlp_fire
            && self.lost_out <= self.retrans_out
            && !self.has_new()
        {
            self.cwnd_validate(self.owner_has_data && self.in_flight() >= self.cc_state.cwnd);
            return None;
        }
        let tx = self.next_tx_slow(now);
        #[cfg(test)]
        self.check_rack_list();
        tx
    }

    /// Unsent data or an unsent FIN.
    #[inline]
    fn has_new(&self) -> bool {
        self.unsent() > 0 || (self.fin_queued && !self.fin_sent)
    }

    fn next_tx_slow(&mut self, now: Nanos) -> Option<Tx> {
        if self.probe0_fire {
            self.probe0_fire = false;
            self.backoff += 1;
            self.arm_persist(now);
            // Linux tcp_xmit_probe_skb: an old sequence number elicits an ACK.
            return Some(Tx {
                seq: self.snd_una - 1,
                len: 0,
                fin: false,
                kind: TxKind::WindowProbe,
            });
        }
        if self.tlp_fire {
            self.tlp_fire = false;
            if let Some(tx) = self.send_tlp(now) {
                return Some(tx);
            }
        }
        let in_flight = self.in_flight();
        let cwnd = self.cc_state.cwnd;
        let has_new = self.has_new();
        if in_flight >= cwnd {
            let limited = has_new || self.owner_has_data || self.lost_out > self.retrans_out;
            self.cwnd_validate(limited);
            return None;
        }
        // RFC 6675 NextSeg rule (1) / Linux tcp_xmit_retransmit_queue: the
        // first lost, not yet retransmitted segment.
        if self.lost_out > self.retrans_out {
            let mut i = self.idx_of(self.retx_hint);
            while i < self.sb.len() {
                let s = self.sb[i];
                // (RFC 6675 marks only below its scan point; RACK anywhere.)
                if s.start >= self.lost_scan_seq
                    && self.cc_state.ca_state != CaState::Loss
                    && !self.rack_on()
                {
                    break;
                }
                if s.has(LOST) && !s.has(RETRANS) && !s.has(SACKED) {
                    self.retx_hint = s.start;
                    let kind = if self.cc_state.ca_state == CaState::Loss {
                        TxKind::RtoRetrans
                    } else {
                        TxKind::FastRetrans
                    };
                    let tx = self.retransmit_at(now, i, kind);
                    if self.timer.is_none() {
                        self.arm_rto(now);
                    } else if self.tlp_pending() {
                        self.rto_instead_of_tlp(now);
                    }
                    return Some(tx);
                }
                i += 1;
            }
            self.retx_hint = self.sb.back().map(|s| s.end()).unwrap_or(self.snd_nxt);
        }
        // RFC 6675 NextSeg rule (2): new data, within the peer's window.
        if has_new {
            let unsent = self.unsent_in_chunk();
            let mss_now = self.mss.saturating_sub(self.opt_overhead).max(1);
            let len = unsent.min(mss_now as u64) as u32;
            let fits = self.snd_nxt + len as u64 <= self.wnd_end;
            let mut len = len;
            if !fits {
                let room = self.wnd_end.saturating_sub(self.snd_nxt);
                if room > 0 && self.packets_out == 0 {
                    // avoid a deadlock on windows below one MSS
                    len = room.min(len as u64) as u32;
                } else {
                    if self.wnd_end <= self.snd_nxt && self.packets_out == 0 && self.timer.is_none()
                    {
                        self.arm_persist(now);
                    }
                    self.cwnd_validate(false);
                    return None;
                }
            }
            // Nagle (RFC 896, RFC 1122 4.2.3.4): hold a sub-MSS segment while
            // data is unacknowledged, unless the FIN is queued (Linux pushes
            // with TCP_NAGLE_OFF on close).
            // Only the tail is held (Linux tcp_write_xmit passes
            // TCP_NAGLE_PUSH for an skb that is not the last one): a short
            // chunk before the next one goes out.
            if self.nagle
                && len < mss_now
                && len > 0
                && len as u64 == self.unsent()
                && self.packets_out > 0
                && !self.fin_queued
            {
                self.cwnd_validate(false);
                return None;
            }
            if self.packets_out == 0 {
                let idle = now.saturating_sub(self.last_send);
                if self.slow_start_after_idle && idle > self.rtt.rto() {
                    self.cwnd_restart(idle);
                }
                // Linux tcp_event_data_sent: CA_EVENT_TX_START with nothing in flight.
                self.cc
                    .cwnd_event(&mut self.cc_state, CwndEvent::TxStart { idle }, now);
            }
            let tx = self.send_new(now, len, TxKind::New);
            if self.tlp_eligible() {
                // RFC 8985 7.2: (re)schedule the PTO after sending new data
                // (Linux tcp_schedule_loss_probe at the end of tcp_write_xmit).
                self.schedule_tlp_or_rto(now);
            } else if self.timer.is_none() {
                // RFC 6298 (5.1): start the RTO if it is not running.
                self.arm_rto(now);
            }
            return Some(tx);
        }
        self.cwnd_validate(false);
        None
    }

    fn arm_persist(&mut self, now: Nanos) {
        // Linux tcp_probe_timer: the persist timer uses the backed-off RTO.
        self.timer = Some((now + self.rtt.rto_backoff(self.backoff), Timer::Persist));
    }

    // ---- ACK processing -------------------------------------------------------

    /// True if `on_ack(a)` would change nothing but the congestion-control
    /// snapshot (`sync_cc`): nothing is outstanding or queued, the ACK
    /// neither moves SND.UNA nor the window nor carries SACK blocks, and no
    /// recovery, undo, TLP, RACK or timer state is pending. This is the ACK
    /// field of every data segment arriving at a receiver that sends no
    /// data itself, so `on_ack` returns early then, and an owner may skip
    /// building the `paths` view it would not read.
    #[inline]
    pub fn ack_is_idle(&self, a: &AckInfo) -> bool {
        self.packets_out == 0
            && a.ack == self.snd_una
            && self.snd_nxt == self.snd_una
            && a.sack.is_empty()
            && a.window == self.snd_wnd
            && self.wnd_end == self.snd_una + self.snd_wnd
            && self.timer.is_none()
            && self.unsent() == 0
            && self.tlp_high_seq.is_none()
            && self.undo_marker.is_none()
            && self.cc_state.ca_state == CaState::Open
            && self.sacked_out == 0
            && self.lost_out == 0
            && self.sacked_out < self.dupthresh
            && self.lost_scan_seq >= self.snd_una
            && self.retx_hint >= self.snd_una
            && !self.rack.advanced
            && self.rack.fack >= self.snd_una
            && self.rack.dsack_round.is_none()
    }

    /// `on_ack` for an ACK that `ack_is_idle` accepted: every step of
    /// `on_ack` would leave the state as it is, except the final snapshot.
    #[inline]
    pub fn on_idle_ack(&mut self) {
        self.sync_cc();
    }

    /// Process the ACK fields of an incoming segment. `paths` is the view of
    /// all paths of the connection (None: just this one).
    pub fn on_ack(&mut self, now: Nanos, a: &AckInfo, paths: Option<&[PathView]>) {
        self.on_ack_inner(now, a, paths);
        #[cfg(test)]
        self.check_rack_list();
    }

    fn on_ack_inner(&mut self, now: Nanos, a: &AckInfo, paths: Option<&[PathView]>) {
        if self.ack_is_idle(a) {
            self.on_idle_ack();
            return;
        }
        if a.ack > self.snd_nxt {
            return; // RFC 9293 3.10.7.4: ACK of unsent data: ignore
        }
        let prior_una = self.snd_una;
        if a.ack < prior_una {
            // old ACK; may still carry a D-SACK
            if self.sack_ok && !a.sack.is_empty() && a.sack[0].end <= prior_una {
                self.dsack_seen(a.sack[0]);
            }
            return;
        }
        let prior_wnd_end = self.wnd_end;
        let prior_fack = self.rack.fack;
        let prior_relost = self.lost_retrans;
        // RFC 9293 3.10.7.4: window update (SND.WL checks simplified: ACKs
        // are processed in order in the simulator).
        self.snd_wnd = a.window;
        self.wnd_end = a.ack + a.window;
        let window_changed = self.wnd_end != prior_wnd_end;

        // RFC 5681 2: a duplicate ACK acknowledges nothing new, carries no
        // data, does not change the window, and data is outstanding.
        let is_dup =
            a.ack == prior_una && !a.carries_data && !window_changed && self.packets_out > 0;
        if is_dup {
            self.counters.dup_acks += 1;
        }

        // --- cumulative ACK ---
        let mut acked_pkts = 0u32;
        let mut first_ackt: Option<Nanos> = None;
        // Linux tcp_clean_rtx_queue: the newest never-retransmitted segment
        // this ACK covers; its RTT (ca_rtt_us) is what congestion control sees.
        let mut last_ackt: Option<Nanos> = None;
        // Linux FLAG_RETRANS_DATA_ACKED: the ACK covers a segment that was
        // ever retransmitted (TCPCB_RETRANS, SACKed or not).
        let mut retrans_acked = false;
        while let Some(s) = self.sb.front() {
            if s.end() > a.ack {
                break;
            }
            self.ts_forget(0);
            let s = self.sb.pop_front().unwrap();
            self.sb_base = self.sb_base.wrapping_add(1);
            self.packets_out -= 1;
            if !s.has(SACKED) && self.rack_on() {
                // Linux tcp_clean_rtx_queue: RACK advances on every newly
                // delivered segment, unless the TSecr proves the ACK was for
                // an earlier transmission (tcp_skb_spurious_retrans).
                let ts_says_earlier =
                    s.has(EVER_RETRANS) && matches!(a.ts_ecr, Some(e) if e > 0 && e < s.sent);
                if !ts_says_earlier {
                    self.rack_advance(now, s.has(EVER_RETRANS), s.end(), s.sent);
                }
                // RFC 8985 6.2 step 3: a never-retransmitted segment delivered
                // below RACK.fack arrived out of order.
                if !s.has(EVER_RETRANS) && s.end() <= prior_fack {
                    self.rack.reord = true;
                }
            }
            if s.has(SACKED) {
                self.sacked_out -= 1;
                if s.start < self.lost_scan_seq {
                    self.lost_scan_sacked = self.lost_scan_sacked.saturating_sub(1);
                }
            } else {
                acked_pkts += 1;
            }
            if s.has(LOST) {
                self.lost_out -= 1;
            }
            if s.has(RETRANS) {
                self.retrans_out -= 1;
            }
            if s.has(EVER_RETRANS) {
                retrans_acked = true;
                let mut spurious = s.has(SPURIOUS);
                // Eifel (RFC 3522) with timestamps: the ACK echoes a TSval older
                // than the retransmission, so the original was delivered.
                if !spurious && !s.has(SACKED) {
                    if let Some(ecr) = a.ts_ecr {
                        if ecr < s.sent {
                            spurious = true;
                            self.counters.retrans_spurious += 1;
                        }
                    }
                }
                self.recent_retx[self.recent_retx_i] = (s.start, s.end(), spurious);
                self.recent_retx_i = (self.recent_retx_i + 1) % RECENT_RETX;
            } else if !s.has(SACKED) {
                // Karn's rule (RFC 6298 3): sample only never-retransmitted segments.
                if first_ackt.is_none() {
                    first_ackt = Some(s.sent);
                }
                last_ackt = Some(s.sent);
            }
        }
        if !self.sack_ok && acked_pkts > 0 {
            // Linux tcp_remove_reno_sacks: cumulative ACK consumes emulated SACKs.
            let k = self.sacked_out.min(acked_pkts.saturating_sub(1));
            self.sacked_out -= k;
            self.limit_reno_sacked();
        }
        self.snd_una = a.ack;
        if self.lost_scan_seq < self.snd_una {
            self.lost_scan_seq = self.snd_una;
            self.lost_scan_sacked = 0;
        }
        if self.retx_hint < self.snd_una {
            self.retx_hint = self.snd_una;
        }
        let advanced = a.ack > prior_una;

        // --- SACK ---
        let mut newly_sacked = 0u32;
        let mut dsack = false;
        if self.sack_ok && !a.sack.is_empty() {
            let (n, d) = self.process_sack(now, a.sack, a.ack, prior_fack);
            newly_sacked = n;
            dsack = d;
        } else if !self.sack_ok {
            let st = self.cc_state.ca_state;
            // Linux tcp_fastretrans_alert / tcp_process_loss: in Loss dup ACKs
            // count only once new data above high_seq is out (before that
            // they answer go-back-N resends already counted as lost); in
            // Recovery or Loss held at SND.UNA == high_seq (see
            // reno_hold_at_recover) they do not count at all.
            let counts = match st {
                CaState::Loss => self.snd_nxt > self.high_seq && self.snd_una < self.high_seq,
                CaState::Recovery => self.snd_una < self.high_seq,
                _ => true,
            };
            if is_dup && counts {
                // Linux tcp_add_reno_sack: each dup ACK emulates one SACKed packet.
                self.sacked_out += 1;
                newly_sacked = 1;
                self.limit_reno_sacked();
            } else if advanced && self.cc_state.ca_state != CaState::Recovery {
                // Linux tcp_reset_reno_sack (tcp_fastretrans_alert default
                // branch, tcp_process_loss): an ACK that advances SND.UNA in
                // Open/Disorder/Loss ends the dup-ACK run, so the emulated
                // SACKs are forgotten. tcp_remove_reno_sacks above only eats
                // acked-1 of them, so a lone dup ACK followed by one-segment
                // ACKs would otherwise keep sacked_out > 0 forever, pipe would
                // undercount by it and the sender would exceed cwnd (RFC 5681
                // 3.2 / RFC 6582 count dup ACKs only until new data is ACKed).
                self.sacked_out = 0;
            }
        }

        // --- RTT sample (RFC 6298 / RFC 7323 4) ---
        let mut rtt_sample = None;
        // Linux tcp_clean_rtx_queue takes the sequence RTT sample only `if
        // (likely(first_ackt) && !(flag & FLAG_RETRANS_DATA_ACKED))`: when
        // the ACK also covers retransmitted data, the never-retransmitted
        // segments above it were typically held in the receiver's
        // out-of-order queue behind the repaired hole, and now - sent would
        // count the whole repair (Karn's rule, RFC 6298 3, applied to the
        // ACK rather than to one segment). Without SACK every NewReno
        // partial ACK is such an ACK: a bursty loss episode repaired one
        // hole per RTT inflated SRTT by an RTT per round (to 2 s on a
        // 0.12-0.36 s path) and the RTO with it. The timestamp echo, which
        // names the segment that filled the hole (RFC 7323 4.3), still
        // gives a valid sample (tcp_ack_update_rtt).
        let seq_ackt = first_ackt.filter(|_| !retrans_acked);
        if advanced {
            if let Some(t) = seq_ackt {
                rtt_sample = Some(now.saturating_sub(t));
            } else if let Some(ecr) = a.ts_ecr {
                // RFC 7323 4.1: timestamp samples are valid for retransmitted data.
                if ecr > 0 && ecr <= now {
                    rtt_sample = Some(now - ecr);
                }
            }
            if let Some(r) = rtt_sample {
                self.rtt.sample(r);
                // Linux tcp_ack_update_rtt -> icsk_backoff = 0.
                self.backoff = 0;
            }
        }
        self.sync_cc();
        let delivered = acked_pkts + newly_sacked;
        if delivered > 0 {
            // Linux (>= 4.1, tcp_clean_rtx_queue / tcp_ack_update_rtt) hands
            // congestion control ca_rtt_us, the RTT of the most recently sent
            // acked segment, not seq_rtt_us (the oldest one): with delayed or
            // stretch ACKs the oldest segment's sample includes the time the
            // receiver held the ACK back, which delay-based algorithms (Vegas,
            // wVegas) would read as queueing.
            let ca_rtt = match last_ackt {
                Some(t) if advanced && !retrans_acked => Some(now.saturating_sub(t)),
                _ => rtt_sample,
            };
            self.cc
                .pkts_acked(&mut self.cc_state, delivered, ca_rtt, now);
        }

        // --- loss marking ---
        // Packets this ACK marks lost (Linux rate_sample.losses, the
        // newly_lost of tcp_cwnd_reduction) = growth of lost_out from here
        // to the PRR step: nothing in between removes LOST marks.
        let lost_before_marking = self.lost_out;
        let mut rack_armed = false;
        if self.rack_on() {
            if self.rack.fack < self.snd_una {
                self.rack.fack = self.snd_una;
            }
            self.rack_update_reo_wnd(dsack);
            // Linux tcp_identify_packet_loss -> tcp_rack_mark_lost (RFC 8985
            // 6.2 step 5); RACK replaces the DupThresh rule (tcp_mark_head_lost
            // runs only for !tcp_is_rack).
            rack_armed = self.rack_mark_lost(now);
        } else if self.sack_ok {
            self.mark_head_lost();
        }

        // --- TLP loss detection (RFC 8985 7.4) ---
        self.process_tlp_ack(now, a.ack, dsack, !is_dup, paths);

        // --- state machine (Linux tcp_fastretrans_alert) ---
        let me;
        let ps = match paths {
            Some(p) => p,
            None => {
                me = [self.view()];
                &me[..]
            }
        };
        match self.cc_state.ca_state {
            CaState::Recovery => {
                if self.snd_una >= self.high_seq && !self.sack_ok {
                    // Linux tcp_fastretrans_alert (state exit, Recovery):
                    // tcp_reset_reno_sack. RFC 6582 3.2 (3): the full ACK
                    // ends recovery; dup ACKs counted in it are void.
                    self.sacked_out = 0;
                }
                if self.reno_hold_at_recover() {
                    // held: no exit yet (Linux tcp_try_undo_recovery)
                } else if self.snd_una >= self.high_seq {
                    self.undo_until = self.snd_nxt;
                    if self.may_undo(a.ts_ecr) {
                        // Linux tcp_try_undo_recovery: the reduction was spurious.
                        self.undo(false, now);
                    } else {
                        // RFC 6675 / Linux tcp_end_cwnd_reduction: cwnd = ssthresh on exit.
                        self.rack_recovery_exit();
                        self.cc_state.cwnd = self.cc_state.ssthresh;
                        self.cc
                            .cwnd_event(&mut self.cc_state, CwndEvent::CompleteCwr, now);
                        self.set_ca_state(CaState::Open, now);
                    }
                } else {
                    if !self.sack_ok && advanced {
                        // RFC 6582 3.2 (5): partial ACK: retransmit the first
                        // unacknowledged segment.
                        self.mark_head_lost_reno();
                    }
                    let newly_lost = self.lost_out.saturating_sub(lost_before_marking)
                        + (self.lost_retrans - prior_relost) as u32;
                    self.prr(delivered, advanced, newly_lost);
                }
            }
            CaState::Loss => {
                if advanced && self.may_undo(a.ts_ecr) {
                    // Linux tcp_try_undo_loss: spurious RTO (Eifel, RFC 3522, or
                    // all retransmissions D-SACKed): restore and stop go-back-N.
                    self.undo(true, now);
                } else if self.snd_una >= self.high_seq && !self.reno_hold_at_recover() {
                    self.undo_until = self.snd_nxt;
                    self.rack_recovery_exit();
                    self.set_ca_state(CaState::Open, now);
                }
            }
            _ => {
                let start_recovery = if self.sack_ok {
                    // RFC 6675 5: enter recovery once IsLost(HighACK+1), i.e.
                    // DupThresh SACKed segments above the hole.
                    self.lost_out > 0
                } else {
                    // RFC 6582 3.2 (1)/(2) with RFC 5681 3.2: third duplicate ACK.
                    self.sacked_out >= self.dupthresh
                };
                if start_recovery {
                    self.enter_recovery(now, ps);
                    if !self.sack_ok {
                        self.mark_head_lost_reno();
                    }
                    let newly_lost = self.lost_out.saturating_sub(lost_before_marking)
                        + (self.lost_retrans - prior_relost) as u32;
                    self.prr(delivered, advanced, newly_lost);
                } else if self.undo_marker.is_some() && self.undo_retrans == 0 && dsack {
                    // Late D-SACKs showed every retransmission of the last
                    // episode was unnecessary (Linux tcp_try_undo_dsack; Linux
                    // does this in Disorder only, we also allow Open).
                    self.undo(false, now);
                } else if self.sacked_out > 0 {
                    self.set_ca_state(CaState::Disorder, now);
                } else if self.cc_state.ca_state == CaState::Disorder {
                    self.set_ca_state(CaState::Open, now);
                }
            }
        }

        if self.undo_marker.is_some()
            && !matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Loss)
            && self.snd_una > self.undo_until
        {
            self.undo_marker = None; // too late to undo
        }

        // --- cwnd growth (Linux tcp_may_raise_cwnd / tcp_cong_avoid) ---
        if acked_pkts > 0
            && !matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Cwr)
            && self.cwnd_limited()
        {
            self.sync_cc();
            let me2;
            let ps2 = match paths {
                Some(p) => p,
                None => {
                    me2 = [self.view()];
                    &me2[..]
                }
            };
            self.cc.cong_avoid(&mut self.cc_state, ps2, delivered, now);
        }

        // --- timers ---
        // Linux tcp_rack_mark_lost: an armed reordering timer clears
        // FLAG_SET_XMIT_TIMER, so this ACK does not re-arm RTO/TLP over it.
        if !rack_armed && (advanced || self.timer.is_none() || self.tlp_pending()) {
            if self.packets_out == 0 {
                self.timer = None;
                if self.unsent() > 0 && self.wnd_end <= self.snd_nxt {
                    self.arm_persist(now);
                }
            } else if self.cc_state.ca_state == CaState::Open && advanced {
                // RFC 8985 7.2: restart the PTO on an ACK of new data.
                self.schedule_tlp_or_rto(now);
            } else if advanced || self.timer.is_none() {
                // RFC 6298 (5.3): restart the RTO when new data is acknowledged.
                self.arm_rto(now);
            } else if self.tlp_pending() {
                // SACKed data or recovery: no PTO (RFC 8985 7.2), keep the RTO.
                self.rto_instead_of_tlp(now);
            }
        }
        if self.persist_pending() && self.wnd_end > self.snd_nxt {
            // window reopened
            self.timer = None;
            self.backoff = 0;
            if self.packets_out > 0 {
                self.arm_rto(now);
            }
        }
        self.sync_cc();
    }

    fn enter_recovery(&mut self, now: Nanos, ps: &[PathView]) {
        self.counters.recoveries += 1;
        // RFC 6675 5 (2)/(4): RecoveryPoint = HighData; ssthresh from CC.
        self.high_seq = self.snd_nxt;
        self.prior_ssthresh = self.current_ssthresh();
        self.prior_cwnd = self.cc_state.cwnd;
        self.init_undo();
        self.sync_cc();
        self.cc_state.ssthresh = self.cc.ssthresh(&self.cc_state, ps, now);
        // RFC 6937 3: prr_delivered = prr_out = 0 (Linux tcp_init_cwnd_reduction).
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.cc_state.cwnd_cnt = 0;
        self.tlp_high_seq = None;
        self.set_ca_state(CaState::Recovery, now);
    }

    /// Linux tcp_cwnd_restart (RFC 5681 4.1 / RFC 2861): after an idle
    /// period, halve cwnd once per RTO elapsed, down to the initial window.
    fn cwnd_restart(&mut self, idle: Nanos) {
        let rto = self.rtt.rto().max(1);
        self.cc_state.ssthresh = self.current_ssthresh();
        let restart = self.initial_cwnd.min(self.cc_state.cwnd);
        let mut cwnd = self.cc_state.cwnd;
        let mut delta = idle as i128 - rto as i128;
        while delta > 0 && cwnd > restart {
            cwnd >>= 1;
            delta -= rto as i128;
        }
        self.cc_state.cwnd = cwnd.max(restart);
        self.cc_state.cwnd_cnt = 0;
    }

    /// Linux tcp_current_ssthresh: ssthresh to restore on undo.
    fn current_ssthresh(&self) -> u32 {
        if matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Cwr) {
            self.cc_state.ssthresh
        } else {
            let c = self.cc_state.cwnd;
            self.cc_state.ssthresh.max((c >> 1) + (c >> 2))
        }
    }

    /// Linux tcp_init_undo.
    fn init_undo(&mut self) {
        self.undo_marker = Some(self.snd_una);
        self.undo_retrans = if self.retrans_out > 0 {
            self.retrans_out as i32
        } else {
            -1
        };
        self.retrans_stamp = None;
    }

    /// Linux tcp_may_undo: no retransmission left un-D-SACKed, or the ACK
    /// echoes a timestamp older than the first retransmission (Eifel,
    /// RFC 3522; Linux tcp_packet_delayed).
    fn may_undo(&self, ts_ecr: Option<Nanos>) -> bool {
        self.undo_marker.is_some()
            && (self.undo_retrans == 0
                || (self.ts_ok
                    && matches!((self.retrans_stamp, ts_ecr), (Some(r), Some(e)) if e > 0 && e < r)))
    }

    /// Linux tcp_undo_cwnd_reduction: restore cwnd/ssthresh; optionally
    /// forget the loss marks (after a spurious RTO).
    fn undo(&mut self, unmark_loss: bool, now: Nanos) {
        if unmark_loss {
            for s in self.sb.iter_mut() {
                s.flags &= !LOST;
            }
            // unmarked segments are walked by RACK again
            self.ts_rebuild();
            self.lost_out = 0;
            self.lost_scan_seq = self.snd_una;
            self.lost_scan_sacked = 0;
        }
        self.sync_cc();
        self.cc_state.cwnd = self.cc.undo_cwnd(&self.cc_state, self.prior_cwnd);
        if self.prior_ssthresh > self.cc_state.ssthresh {
            self.cc_state.ssthresh = self.prior_ssthresh;
        }
        self.cc_state.cwnd_cnt = 0;
        self.undo_marker = None;
        self.set_ca_state(CaState::Open, now);
    }

    /// PRR (RFC 6937) as Linux tcp_cwnd_reduction implements it (since
    /// Linux 5.19, "tcp: improve PRR loss recovery", the rule of
    /// draft-ietf-tcpm-prr-rfc6937bis). `una_advanced`: the ACK moved SND.UNA
    /// (Linux FLAG_SND_UNA_ADVANCED); `newly_lost`: packets this ACK marked lost.
    fn prr(&mut self, delivered: u32, una_advanced: bool, newly_lost: u32) {
        if delivered == 0 || self.prior_cwnd == 0 {
            return;
        }
        self.prr_delivered += delivered;
        let in_flight = self.in_flight() as i64;
        let ssthresh = self.cc_state.ssthresh as i64;
        let delta = ssthresh - in_flight;
        let mut sndcnt: i64 = if delta < 0 {
            // RFC 6937 3 (pipe > ssthresh): proportional rate reduction:
            // sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out,
            // with Linux's prior_cwnd as RecoverFS.
            let dividend = ssthresh as u64 * self.prr_delivered as u64 + self.prior_cwnd as u64 - 1;
            (dividend / self.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else {
            // pipe <= ssthresh: Linux tcp_cwnd_reduction (>= 5.19) /
            // RFC 6937bis: sndcnt = MAX(prr_delivered - prr_out, DeliveredData),
            // so sending banked earlier in the episode may catch up, + 1
            // (PRR-SSRB) if the ACK advanced SND.UNA without marking new
            // losses ("SafeACK"), at most ssthresh - pipe. (Linux before 5.19
            // sent only DeliveredData here, PRR-CRB, unless SafeACK.)
            let mut s = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64);
            if una_advanced && newly_lost == 0 {
                s += 1;
            }
            delta.min(s)
        };
        // Linux: force the fast retransmit on entering recovery.
        sndcnt = sndcnt.max(if self.prr_out == 0 { 1 } else { 0 });
        self.cc_state.cwnd = (in_flight + sndcnt.max(0)) as u32;
    }

    /// Non-SACK only: SND.UNA reached high_seq (RFC 6582 "recover") but
    /// nothing above it is acknowledged yet: stay in Recovery/Loss (Linux
    /// tcp_try_undo_recovery: "Hold old state until something *above*
    /// high_seq is ACKed. For Reno it is MUST to prevent false fast
    /// retransmits"). Duplicate ACKs now are typically caused by needless
    /// go-back-N or partial-ACK resends of data the receiver already holds;
    /// counting them or entering a new fast retransmit on them is what RFC
    /// 6582 3.2 (1) and 4.1 forbid (dup ACKs that do not cover more than
    /// recover do not start fast retransmit).
    fn reno_hold_at_recover(&self) -> bool {
        !self.sack_ok && self.snd_una == self.high_seq
    }

    /// Linux tcp_limit_reno_sacked: emulated SACKs never exceed the packets
    /// that can have left the network (at least one hole stays).
    fn limit_reno_sacked(&mut self) {
        let holes = self.lost_out.max(1).min(self.packets_out);
        if self.sacked_out + holes > self.packets_out {
            self.sacked_out = self.packets_out - holes;
        }
    }

    /// Non-SACK: mark the head segment lost (fast retransmit / partial ACK).
    fn mark_head_lost_reno(&mut self) {
        if let Some(s) = self.sb.front_mut() {
            if !s.has(LOST) {
                s.flags |= LOST;
                self.lost_out += 1;
                self.ts_after_lost_mark(0);
            }
            let s = self.sb[0];
            let end = s.end();
            self.retx_hint = self.snd_una;
            self.lost_scan_seq = self.lost_scan_seq.max(end);
        }
    }

    /// RFC 6675 IsLost() applied from the head (Linux tcp_mark_head_lost):
    /// a non-SACKed segment is lost if at least DupThresh SACKed segments
    /// lie above it. Resumes from a hint, so it is amortised O(1) per segment.
    fn mark_head_lost(&mut self) {
        if self.sacked_out < self.dupthresh {
            return;
        }
        let mut i = self.idx_of(self.lost_scan_seq);
        let mut k = self.lost_scan_sacked;
        while i < self.sb.len() && self.sacked_out.saturating_sub(k) >= self.dupthresh {
            let s = &mut self.sb[i];
            if s.has(SACKED) {
                k += 1;
            } else if !s.has(LOST) {
                s.flags |= LOST;
                self.lost_out += 1;
                if s.start < self.retx_hint {
                    self.retx_hint = s.start;
                }
                self.ts_after_lost_mark(i);
            }
            i += 1;
        }
        self.lost_scan_seq = if i < self.sb.len() {
            self.sb[i].start
        } else {
            self.snd_nxt
        };
        self.lost_scan_sacked = k;
    }

    /// Process SACK blocks; returns (newly SACKed packets, D-SACK present).
    fn process_sack(
        &mut self,
        now: Nanos,
        blocks: &[SackBlock],
        ack: u64,
        prior_fack: u64,
    ) -> (u32, bool) {
        let mut first = 0;
        let mut dsack = false;
        // RFC 2883 4: the first block is a D-SACK if it lies below the
        // cumulative ACK or inside the second block.
        let b0 = blocks[0];
        if b0.end <= ack
            || (blocks.len() > 1 && b0.start >= blocks[1].start && b0.end <= blocks[1].end)
        {
            dsack = true;
            first = 1;
            self.dsack_seen(b0);
        }
        let mut newly = 0;
        let cache = self.sack_cache;
        let cache_n = self.sack_cache_n;
        let mut n = 0;
        for b in &blocks[first..] {
            let s = b.start.max(self.snd_una);
            let e = b.end.min(self.snd_nxt);
            if s >= e {
                continue;
            }
            // Skip parts already processed for the previous ACK (Linux
            // recv_sack_cache), so work is proportional to new coverage.
            let mut cur = s;
            let mut sorted = [SackBlock::default(); 4];
            sorted[..cache_n].copy_from_slice(&cache[..cache_n]);
            sorted[..cache_n].sort_unstable_by_key(|c| c.start);
            for c in &sorted[..cache_n] {
                if c.end <= cur || c.start >= e {
                    continue;
                }
                if c.start > cur {
                    newly += self.sack_range(now, cur, c.start.min(e), s, e, prior_fack);
                }
                cur = cur.max(c.end);
                if cur >= e {
                    break;
                }
            }
            if cur < e {
                newly += self.sack_range(now, cur, e, s, e, prior_fack);
            }
            if n < 4 {
                self.sack_cache[n] = SackBlock { start: s, end: e };
                n += 1;
            }
        }
        self.sack_cache_n = n;
        (newly, dsack)
    }

    /// Mark segments starting in [from, to) and lying fully inside [bs, be) as SACKed.
    fn sack_range(
        &mut self,
        now: Nanos,
        from: u64,
        to: u64,
        bs: u64,
        be: u64,
        prior_fack: u64,
    ) -> u32 {
        // start at the segment containing `from`
        let mut i = self.idx_of(from);
        if i > 0 && self.sb[i - 1].end() > from {
            i -= 1;
        }
        let mut newly = 0;
        while i < self.sb.len() {
            let s = &mut self.sb[i];
            if s.start >= to {
                break;
            }
            if s.start >= bs && s.end() <= be && !s.has(SACKED) {
                s.flags |= SACKED;
                newly += 1;
                if s.has(LOST) {
                    s.flags &= !LOST;
                    self.lost_out -= 1;
                }
                if s.has(RETRANS) {
                    s.flags &= !RETRANS;
                    self.retrans_out -= 1;
                }
                let (st, en, sent, ever) = (s.start, s.end(), s.sent, s.has(EVER_RETRANS));
                self.ts_forget(i);
                self.sacked_out += 1;
                if st < self.lost_scan_seq {
                    self.lost_scan_sacked += 1;
                }
                if self.rack_enabled {
                    // Linux tcp_sacktag_one: RACK advances on newly SACKed
                    // segments; one never retransmitted SACKed below the
                    // highest SACK so far means reordering (RFC 8985 6.2 step 3).
                    self.rack_advance(now, ever, en, sent);
                    if !ever && en <= prior_fack {
                        self.rack.reord = true;
                    }
                    if en > self.rack.fack {
                        self.rack.fack = en;
                    }
                }
            }
            i += 1;
        }
        newly
    }

    /// A D-SACK arrived (RFC 2883): if it covers a retransmitted segment,
    /// that retransmission was spurious (RFC 3708).
    fn dsack_seen(&mut self, b: SackBlock) {
        if let Some(m) = self.undo_marker {
            // Linux tcp_check_dsack / tcp_sacktag_one: a D-SACK above the undo
            // marker cancels one retransmission of the episode.
            if b.end > m && self.undo_retrans > 0 {
                self.undo_retrans -= 1;
            }
        }
        for r in self.recent_retx.iter_mut() {
            if r.0 < r.1 && r.0 < b.end && b.start < r.1 && !r.2 {
                r.2 = true;
                self.counters.retrans_spurious += 1;
                return;
            }
        }
        let i = self.idx_of(b.start);
        let i = if i > 0 && self.sb.get(i - 1).is_some_and(|s| s.end() > b.start) {
            i - 1
        } else {
            i
        };
        if let Some(s) = self.sb.get_mut(i) {
            if s.start < b.end && s.has(EVER_RETRANS) && !s.has(SPURIOUS) {
                s.flags |= SPURIOUS;
                self.counters.retrans_spurious += 1;
            }
        }
    }
}
