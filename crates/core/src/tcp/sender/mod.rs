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

use super::cc::{
    CaState, CcState, CongestionControl, CwndEvent, Hooks, PathView, SenderCc, INFINITE_SSTHRESH,
};
use super::config::TcpConfig;
use super::rtt::RttEstimator;

// One concern per file; each adds an `impl PathSender` block.
/// ACK processing: `on_ack`, the steps it runs in order.
mod ack;
/// Congestion-control update on an ACK, cwnd validation and restart.
mod cwnd;
/// RACK loss detection (RFC 8985 6, Linux tcp_recovery.c).
mod rack;
/// Fast recovery state machine, PRR, undo.
mod recovery;
/// RTT sampling from an ACK (RFC 6298, RFC 7323).
mod rtt_sample;
/// Scoreboard: cumulative ACK, SACK, D-SACK, emulated SACKs, loss marks.
mod scoreboard;
#[cfg(test)]
mod tests;
/// RTO, TLP and persist timers.
mod timers;
/// Tail Loss Probe (RFC 8985 7).
mod tlp;
/// Choosing and accounting for transmissions.
mod transmit;
#[cfg(test)]
mod tso_tests;
/// RACK's time-ordered list of segments in flight.
mod tsorted;

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

/// `first_sackt` / `last_sackt` of one ACK: (sequence, send time) of the
/// lowest and the highest newly SACKed never-retransmitted segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SackTimes {
    first: (u64, Nanos),
    last: (u64, Nanos),
}

/// One transmitted, not yet cumulatively acknowledged segment.
#[derive(Clone, Copy, Debug)]
struct Seg {
    start: u64,
    len: u32,
    fin: bool,
    flags: u8,
    /// Serial of the last (re)transmission (`PathSender::tx_serial`,
    /// wrapping): which of two transmissions at the same instant came
    /// later (`TxOrder`). Fits in the padding after `flags`.
    tx: u16,
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
    /// RACK's order of transmission (RACK_sent_after): time, then
    /// transmission serial.
    #[inline]
    fn ts_key(&self) -> TxOrder {
        TxOrder {
            at: self.sent,
            tx: self.tx,
        }
    }
}

/// When a segment was (re)transmitted, in the order RACK compares
/// transmissions (Linux `tcp_rack_sent_after`): by time, and at one
/// instant by which transmission came later.
///
/// Linux breaks a tie of `tcp_skb_timestamp_us` by sequence, which is the
/// order of transmission within one sending pass (`tcp_write_xmit`,
/// `tcp_xmit_retransmit_queue` send in sequence order, all stamped with
/// the pass's `tcp_clock_cache`). Two passes in different contexts (an
/// application's `sendmsg`, the retransmission timer's softirq, an ACK's
/// softirq) each refresh the clock (`tcp_mstamp_refresh`) and run one
/// after the other on the socket lock, so their stamps differ by the
/// time in between: the later pass is later even when it sends lower
/// sequence numbers. The simulator runs events of one instant one after
/// the other at the same nanosecond, so the sequence tie-break would
/// date a retransmission sent after new data as sent before it; the
/// transmission serial keeps the order in which they were sent, which
/// is also sequence order inside one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxOrder {
    at: Nanos,
    /// Wrapping serial: compared only between transmissions of one
    /// instant, which are far fewer than 2^15 apart.
    tx: u16,
}

impl Ord for TxOrder {
    #[inline]
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.at
            .cmp(&o.at)
            .then_with(|| (self.tx.wrapping_sub(o.tx) as i16).cmp(&0))
    }
}

impl PartialOrd for TxOrder {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rack {
    /// RACK.xmit_ts / RACK.end_seq: transmission (time, and the serial
    /// that orders ties, `TxOrder`) and end of the most recently sent
    /// segment delivered so far (Linux rack.mstamp / end_seq).
    xmit: TxOrder,
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
// `recent_retx_i` is a u8.
const _: () = assert!(RECENT_RETX <= u8::MAX as usize);

/// Laid out by hand (`repr(C)`, docs/performance.md "Session 18"): the
/// fields `ack_is_idle` reads on every data segment a receiving end gets
/// (sequence numbers, edges, hints, timer, RACK and CC state) first, then
/// every field smaller than 8 bytes (the counts and flags most steps read),
/// then the rest of what an ACK or a send reads, the rarely read arrays
/// last. The compiler's order had spread the idle check's fields over more
/// cache lines, each a miss per packet at 10,000 connections. The small
/// fields grouped in one block pad as they did at the end: same size.
#[derive(Debug)]
#[repr(C)]
pub struct PathSender {
    /// Oldest unacknowledged sequence offset (SND.UNA).
    pub snd_una: u64,
    /// Next new sequence offset to send (SND.NXT).
    pub snd_nxt: u64,
    /// End of the data handed to the sender.
    pub write_seq: u64,
    /// Peer window and its right edge (SND.UNA + SND.WND).
    pub snd_wnd: u64,
    wnd_end: u64,
    /// Loss-marking scan position (Linux lost_skb_hint) and SACKed packets below it.
    lost_scan_seq: u64,
    /// Retransmission hint (Linux retransmit_skb_hint).
    retx_hint: u64,
    /// Undo state (Linux undo_marker / undo_retrans / retrans_stamp /
    /// prior_ssthresh): lets a spurious reduction be reverted.
    undo_marker: Option<u64>,
    tlp_high_seq: Option<u64>,
    timer: Option<(Nanos, Timer)>,
    rack: Rack,
    pub cc_state: CcState,
    pub packets_out: u32,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// `in_flight()` (Linux `tcp_packets_in_flight`: packets_out -
    /// (sacked_out + lost_out) + retrans_out), kept with the four counts:
    /// every change of one moves it by as much (wrapping: a segment's
    /// counts change one after the other), an assignment resyncs it
    /// (`resync_in_flight`). Read two to four times per segment sent and
    /// three per ACK; checked builds compare it with the sum on every
    /// read.
    in_flight_n: u32,
    dupthresh: u32,
    pub mss: u32,
    /// Option bytes the owner will add to the next segment beyond the
    /// standard ones (SACK blocks on a data segment): new segments shrink by
    /// this much (Linux tcp_current_mss).
    pub opt_overhead: u32,
    pub backoff: u32,
    /// Id of `sb[0]`: a segment's id is `sb_base + index` (wrapping), fixed
    /// for its life in the scoreboard, so the list below can link segments
    /// while the front is acknowledged away.
    sb_base: u32,
    /// RACK's time-ordered list (Linux tp->tsorted_sent_queue): the
    /// segments `rack_detect_loss` walks, doubly linked through
    /// `Seg::ts_prev/ts_next`, ordered by transmission (`TxOrder`: time, then serial).
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
    lost_scan_sacked: u32,
    prr_delivered: u32,
    prr_out: u32,
    prior_cwnd: u32,
    undo_retrans: i32,
    prior_ssthresh: u32,
    initial_cwnd: u32,
    max_packets_out: u32,
    /// Linux `tcp_tso_segs` of the current `tcp_write_xmit` round (the
    /// `max_segs` of `tcp_tso_should_defer`), set by an owner whose write
    /// queue holds multi-segment skbs (an MPTCP subflow of the upstream
    /// scheduler, plain TCP with its send buffer); 0 turns TSO deferral off.
    pub tso_max_segs: u32,
    /// Segments still to send of the skb whose transmission was last
    /// decided (`tcp_mss_split_point`'s cut); 0: the next one is decided.
    pub tso_burst_left: u32,
    /// Serial of the next (re)transmission (`Seg::tx`, wrapping).
    tx_serial: u16,
    sack_ok: bool,
    ts_ok: bool,
    tlp_enabled: bool,
    /// RACK configured (used only when SACK is negotiated, `rack_on`).
    rack_enabled: bool,
    nagle: bool,
    slow_start_after_idle: bool,
    fin_queued: bool,
    fin_sent: bool,
    tlp_fire: bool,
    probe0_fire: bool,
    tlp_retrans: bool,
    is_cwnd_limited: bool,
    /// New data went out since the last sending pass ended (Linux
    /// `tcp_write_xmit`'s `sent_pkts`; `end_pass`).
    sent_in_pass: bool,
    /// A `tcp_push_one` is deciding (net/ipv4/tcp.c, `tcp_sendmsg_locked`
    /// -> `tcp_write_xmit` with `push_one`): new data of the send head
    /// only, without `tcp_tso_should_defer` (plain TCP, set by the owner).
    pub push_one: bool,
    /// The new segment just decided ends a multi-segment transmission
    /// (`tso_burst_left` ran down to 0): Linux `__tcp_transmit_skb` forces
    /// PSH on every skb with `tcp_skb_pcount(skb) > 1` ("to expedite GRO
    /// flush at receiver"), and GSO keeps it on that skb's last segment
    /// only (`tcp_gso_segment`). Read by the owner for `TxKind::New` only.
    pub tso_psh: bool,
    /// Hook for a multipath owner: it holds data not yet handed to this
    /// path, so a full window counts as cwnd-limited (Linux MPTCP passes the
    /// meta socket's state to tcp_cwnd_validate). Always false for TCP.
    pub owner_has_data: bool,
    /// The optional hooks `cc` implements (`CongestionControl::hooks`, read
    /// once): the others are not called, as Linux tests a hook's pointer.
    cc_hooks: Hooks,
    /// `retrans_stamp` holds a time (Linux `tp->retrans_stamp` nonzero).
    /// The presence flags of `retrans_stamp` and `sackt` and the two
    /// indexes below sit in this block's padding (its 5 bytes after
    /// `in_flight_n`), where the `Option` discriminants and the `usize`
    /// fields took 8 bytes each: the counters start at byte 640 again
    /// (`retrans_stamp` is before them), and the sender is 1,424 bytes, so
    /// its last cache line leaves an MPTCP subflow's window and `tx_maps`
    /// header their 48 bytes (docs/performance.md "Session 32", branch
    /// layout32).
    retrans_stamped: bool,
    /// `sackt` holds this ACK's times (`SackTimes`).
    sackt_set: bool,
    /// Blocks in `sack_cache` (at most 4).
    sack_cache_n: u8,
    /// Next slot of the `recent_retx` ring (below `RECENT_RETX`).
    recent_retx_i: u8,
    /// Checked builds: the owner left `tso_skb` from an earlier pass
    /// because the window was full (`window_full`); `tso_defers` asserts
    /// it never reads such a value. (In this block's last byte of padding,
    /// so checked builds keep the layout: the layout tests hold in both.)
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub tso_skb_stale: bool,
    pub rtt: RttEstimator,
    /// Linux CUBIC called directly, any other algorithm through the
    /// trait object (`SenderCc`).
    cc: SenderCc,
    sb: VecDeque<Seg>,
    /// Retransmissions RACK found lost again (Linux LINUX_MIB_TCPLOSTRETRANSMIT).
    pub lost_retrans: u64,
    /// RecoveryPoint (RFC 6675) / Linux high_seq.
    high_seq: u64,
    /// Time of the episode's first retransmission, when `retrans_stamped`
    /// (read through `retrans_stamp()`).
    retrans_stamp_at: Nanos,
    cwnd_usage_seq: u64,
    last_send: Nanos,
    /// (cwnd, ssthresh, packets_out, SRTT) as Linux `tcp_update_pacing_rate`
    /// last read them: the kernel recomputes `sk_pacing_rate` at the end of
    /// an ACK's processing (`tcp_cong_control`, before the ACK's new data
    /// goes out), not when a timer cuts cwnd or a send raises packets_out.
    /// None before the first ACK (the rate is then computed from the
    /// current values).
    pub pacing_seen: Option<(u32, u32, u32, Nanos)>,
    /// The send head skb as the owner's send buffer lays it out (its bytes
    /// from `snd_nxt` on, and whether it is the write queue's tail), set
    /// before a transmission is decided (plain TCP, `super::super::sndbuf`);
    /// None: the current owner chunk is the skb (`unsent_in_chunk`).
    pub tso_skb: Option<(u64, bool)>,
    /// Ends (sequence offsets) of owner chunks a new segment must not cross,
    /// ascending; empty for plain TCP. An MPTCP subflow that queues several
    /// mappings records each non-contiguous one's end here, as the kernel
    /// starts a new skb where the mapping changes (`mptcp_sendmsg_frag`,
    /// net/mptcp/protocol.c: `mptcp_skb_can_collapse_to` fails, `eor` set).
    pub chunk_ends: std::collections::VecDeque<u64>,
    /// This path's counters (send and receive side, the owner adds the latter).
    /// At byte 640: their first 64 bytes, the eight every packet moves, fill one cache line
    /// of an MPTCP subflow, which starts one and places the sender at its
    /// byte 64 (docs/performance.md "Session 32"; `undo_until`, read only
    /// in an undo window, moved behind them for this).
    pub counters: Counters,
    undo_until: u64,
    wcdelack: Nanos,
    /// Linux CONFIG_HZ (`TcpConfig::hz`): the retransmission timer's wheel
    /// clock, with its divisions remembered (`timer_wheel::Wheel`).
    wheel: crate::tcp::timer_wheel::Wheel,
    /// Scratch for `rack_detect_loss`.
    zombie_buf: Vec<u32>,
    sack_cache: [SackBlock; 4],
    /// Send times of the lowest and the highest never-retransmitted
    /// segment newly SACKed by the ACK being processed, with their
    /// sequence numbers (Linux `tcp_sacktag_state` `first_sackt` /
    /// `last_sackt`: `tcp_sacktag_one` walks the blocks sorted by start).
    /// Valid when `sackt_set` (read through `sackt()`).
    sackt_times: SackTimes,
    recent_retx: [(u64, u64, bool); RECENT_RETX],
}

impl PathSender {
    /// This socket's `icsk_rto` (with its backoff) and SRTT, which its
    /// receive side's delayed-ACK engine reads (`tcp::delack`).
    pub fn own_rtt(&self) -> crate::tcp::delack::OwnRtt {
        crate::tcp::delack::OwnRtt {
            rto: self.rtt.rto_backoff(self.backoff),
            srtt: self.rtt.srtt,
        }
    }

    pub fn new(cfg: &TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let mss = cfg.mss_option() - if cfg.timestamps { 12 } else { 0 };
        // RFC 6675 DupThresh counts duplicate ACKs (SACKed segments) before
        // a loss is declared: at least one (`ack_is_idle` relies on it).
        assert!(cfg.dupthresh >= 1, "tcp: dupthresh must be at least 1");
        PathSender {
            mss,
            opt_overhead: 0,
            chunk_ends: std::collections::VecDeque::new(),
            sack_ok: false,
            ts_ok: false,
            tlp_enabled: cfg.tlp,
            rack_enabled: cfg.rack,
            rack: Rack {
                xmit: TxOrder { at: 0, tx: 0 },
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
            pacing_seen: None,
            nagle: cfg.nagle,
            dupthresh: cfg.dupthresh,
            initial_cwnd: cfg.initial_cwnd,
            slow_start_after_idle: cfg.slow_start_after_idle,
            wcdelack: cfg.delack_max,
            wheel: crate::tcp::timer_wheel::Wheel::on(cfg.jiffy_clock()),
            snd_una: 1,
            snd_nxt: 1,
            write_seq: 1,
            fin_queued: false,
            fin_sent: false,
            snd_wnd: 65535,
            wnd_end: 1 + 65535,
            // grown on demand (a 1,024-entry scoreboard up front cost 32 KiB per
            // idle sender); the capacity never changes which segment is where
            sb: VecDeque::new(),
            packets_out: 0,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            in_flight_n: 0,
            lost_scan_seq: 1,
            lost_scan_sacked: 0,
            retx_hint: 1,
            sb_base: 0,
            tx_serial: 0,
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
            retrans_stamped: false,
            retrans_stamp_at: 0,
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
            cc_hooks: cc.hooks(),
            cc: SenderCc::new(cc),
            rtt: RttEstimator::new(cfg),
            timer: None,
            backoff: 0,
            tlp_fire: false,
            probe0_fire: false,
            tlp_high_seq: None,
            tlp_retrans: false,
            sack_cache: [SackBlock::default(); 4],
            sack_cache_n: 0,
            sackt_set: false,
            sackt_times: SackTimes {
                first: (0, 0),
                last: (0, 0),
            },
            recent_retx: [(0, 0, false); RECENT_RETX],
            recent_retx_i: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 1,
            sent_in_pass: false,
            last_send: 0,
            tso_max_segs: 0,
            tso_skb: None,
            #[cfg(any(debug_assertions, feature = "invariants"))]
            tso_skb_stale: false,
            tso_burst_left: 0,
            push_one: false,
            tso_psh: false,
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
        if self.cc_hooks.has(Hooks::INIT) {
            self.cc.init(&mut self.cc_state, now);
        }
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
    #[inline(always)]
    pub(super) fn unsent_in_chunk(&self) -> u64 {
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

    /// Linux `tp->retrans_stamp`: when the episode's first retransmission
    /// went out, None when no retransmission is to be undone.
    #[inline]
    fn retrans_stamp(&self) -> Option<Nanos> {
        self.retrans_stamped.then_some(self.retrans_stamp_at)
    }

    /// Linux `tcp_sacktag_state` `first_sackt` / `last_sackt` of the ACK
    /// being processed, None when it newly SACKed no never-retransmitted
    /// segment.
    #[inline]
    fn sackt(&self) -> Option<SackTimes> {
        self.sackt_set.then_some(self.sackt_times)
    }

    /// Linux tcp_packets_in_flight(): packets_out - left_out + retrans_out
    /// (`in_flight_n`, kept with the counts).
    #[inline]
    pub fn in_flight(&self) -> u32 {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        assert_eq!(
            self.in_flight_n,
            self.in_flight_of_counts(),
            "in_flight_n out of step with packets_out {} sacked_out {} lost_out {} retrans_out {}",
            self.packets_out,
            self.sacked_out,
            self.lost_out,
            self.retrans_out
        );
        self.in_flight_n
    }

    /// `tcp_packets_in_flight` from the four counts.
    #[inline]
    pub(super) fn in_flight_of_counts(&self) -> u32 {
        self.packets_out - (self.sacked_out + self.lost_out) + self.retrans_out
    }

    /// `in_flight_n` after an assignment to one of the counts. Checked
    /// builds verify the counts first, as Linux `tcp_verify_left_out`
    /// warns when `sacked_out + lost_out` exceeds `packets_out`: the sum
    /// below would pass below zero (a release build wraps, a build with
    /// overflow checks panics).
    #[inline]
    pub(super) fn resync_in_flight(&mut self) {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        assert!(
            self.sacked_out + self.lost_out <= self.packets_out,
            "left_out above packets_out: sacked_out {} lost_out {} packets_out {}",
            self.sacked_out,
            self.lost_out,
            self.packets_out
        );
        self.in_flight_n = self.in_flight_of_counts();
    }

    /// `next_tx` would stop at its congestion-window test before any new
    /// segment (Linux `tcp_cwnd_test` returning 0 in `tcp_write_xmit`):
    /// nothing before that test changes the packets in flight or cwnd (a
    /// due window probe returns before it, a due TLP either sends or
    /// changes nothing: `tlp_probe` is pure).
    #[inline(always)]
    pub fn window_full(&self) -> bool {
        self.in_flight() >= self.cc_state.cwnd
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
            if self.cc_hooks.has(Hooks::SET_STATE) {
                self.cc.set_state(&mut self.cc_state, st, now);
            }
            self.cc_state.ca_state = st;
        }
    }

    /// Linux `tcp_ca_event`: `cwnd_event` if the algorithm has one.
    #[inline(always)]
    fn cc_event(&mut self, ev: CwndEvent, now: Nanos) {
        if self.cc_hooks.has(Hooks::CWND_EVENT) {
            self.cc.cwnd_event(&mut self.cc_state, ev, now);
        }
    }

    fn idx_of(&self, seq: u64) -> usize {
        self.sb.partition_point(|s| s.start < seq)
    }
}
