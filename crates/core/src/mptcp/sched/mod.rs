//! MPTCP packet schedulers as decision functions.
//!
//! The connection offers one segment at a time (the head of its reinjection
//! queue, else the next new segment) together with a snapshot of its subflows
//! and of connection-level state; the scheduler answers with a `SchedOutcome`:
//! send it on one subflow, on several (redundant), wait, or nothing usable,
//! plus optional extra actions of the Linux default scheduler's receive-buffer
//! optimisation (opportunistic retransmission of the head-of-line segment and
//! penalisation of the slow subflow holding it). The connection performs all
//! I/O and counts `bytes_reinjected` / `penalizations`.
//!
//! Subflow ids are stable small integers (< 64) so a segment can carry the set
//! of subflows it was already sent on as a bit mask (Linux `path_mask`).

pub mod blest;
pub mod ecf;
pub mod minrtt;
pub mod redundant;
pub mod roundrobin;
pub mod upstream;

use crate::time::Nanos;

/// Snapshot of one subflow for the scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubflowView {
    /// Stable id, < 64 (bit `1 << id` in `Segment::sent_on`).
    pub id: usize,
    /// Fully established and allowed to carry data (`mptcp_sk_can_send` and not
    /// `pre_established`).
    pub established: bool,
    /// Marked potentially failed after an RTO (Linux `tp->pf`).
    pub potentially_failed: bool,
    /// In RTO recovery (Linux CA state Loss) and barred from new data until
    /// it ends (`mptcp_is_temp_unavailable`): always with SACK; without SACK
    /// only while SND.UNA < high_seq (see `PathSender::loss_blocks_new_data`).
    pub in_loss: bool,
    /// CA state Open (not in recovery/loss/CWR); only such a subflow is
    /// penalised (`mptcp_rcv_buf_optimization`).
    pub ca_open: bool,
    /// Backup priority (MP_PRIO / MP_JOIN backup bit, either direction).
    pub backup: bool,
    pub cwnd_pkts: u32,
    /// `u32::MAX` while infinite (initial slow start).
    pub ssthresh_pkts: u32,
    pub inflight_pkts: u32,
    /// Smoothed RTT and RTT variation (RFC 6298 SRTT / RTTVAR); srtt 0 = none yet.
    pub srtt: Nanos,
    pub rttvar: Nanos,
    pub mss: u32,
    /// Pacing rate of the subflow in bit/s (upstream scheduler).
    pub pacing_rate_bps: u64,
    /// Bytes handed to the subflow but not yet sent (`write_seq - snd_nxt`).
    pub queued_bytes: u64,
    /// Bytes handed to the subflow and not yet acked, queued ones included
    /// (`write_seq - snd_una`; Linux `sk_wmem_queued` approximately).
    pub unacked_bytes: u64,
    /// Last time data was sent on this subflow.
    pub last_used: Nanos,
    /// Linux `sk_wmem_queued` in skb truesize units (upstream scheduler with
    /// per-subflow send buffers, `super::sndbuf`); 0 when `sndbuf` is 0.
    pub wmem_queued: u64,
    /// Linux `sk_sndbuf` of the subflow; 0 = not modelled (the subflow takes
    /// one segment at a time, within its congestion window).
    pub sndbuf: u64,
}

impl SubflowView {
    /// `mptcp_is_def_unavailable`: not established or potentially failed.
    pub fn def_unavailable(&self) -> bool {
        !self.established || self.potentially_failed
    }

    /// `mptcp_is_temp_unavailable` (without the zero-window test, which
    /// `mptcp_next_segment` does not use): in RTO recovery, no free cwnd slot,
    /// or the subflow's own send queue already fills the free part of cwnd.
    pub fn temp_unavailable(&self) -> bool {
        temp_unavailable(
            self.in_loss,
            self.inflight_pkts,
            self.cwnd_pkts,
            self.mss,
            self.queued_bytes,
        )
    }

    /// `mptcp_is_available`.
    pub fn available(&self) -> bool {
        !self.def_unavailable() && !self.temp_unavailable()
    }

    fn bit(&self) -> u64 {
        1u64 << self.id
    }
}

/// `mptcp_is_temp_unavailable` on the raw fields (`SubflowView::temp_unavailable`;
/// the connection also calls it on its subflows directly, before building
/// views, to learn whether any subflow is available at all).
#[inline]
pub fn temp_unavailable(in_loss: bool, inflight: u32, cwnd: u32, mss: u32, queued: u64) -> bool {
    if in_loss || inflight >= cwnd {
        return true;
    }
    let space = (cwnd - inflight) as u64 * mss as u64;
    queued > space
}

/// The segment offered for scheduling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Payload bytes.
    pub len: u32,
    /// Comes from the reinjection queue (RTO on a subflow, MPTCP-level TLP).
    pub reinjection: bool,
    /// Subflows it was already sent on (bit `1 << id`).
    pub sent_on: u64,
    /// The segment reaches into a send-queue fragment (upstream Linux's
    /// `mptcp_data_frag`, a page fragment of application data) other than
    /// the one holding the byte before it: upstream's push loop tests the
    /// burst and the subflow's memory only between fragments
    /// (`upstream::Upstream`). True where there are no fragments (every
    /// segment is tested) and for reinjections.
    pub frag_boundary: bool,
}

impl Segment {
    pub fn was_sent_on(&self, id: usize) -> bool {
        self.sent_on & (1u64 << id) != 0
    }
}

/// The oldest unacknowledged connection-level segment, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadOfLine {
    pub len: u32,
    /// Subflows it was sent on.
    pub sent_on: u64,
}

/// Connection-level state the schedulers need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnView {
    /// Bytes written by the application and not yet handed to any subflow
    /// (the connection send queue).
    pub send_queue_bytes: u64,
    /// The peer's connection-level receive window (Linux `meta_tp->snd_wnd`).
    pub snd_wnd: u64,
    /// The offered segment fits in the peer's receive window
    /// (`tcp_snd_wnd_test` on the meta socket); false = receive-window limited.
    pub fits_rwnd: bool,
    /// The window left beyond the data already handed to subflows, Linux
    /// `mptcp_wnd_end(msk) - msk->snd_nxt` (0 when none): what bounds the
    /// upstream scheduler's send burst.
    pub wnd_left: u64,
    /// The application is blocked on a full send buffer
    /// (`!sk_stream_memory_free(meta_sk)`).
    pub send_buf_full: bool,
    /// Oldest unacked segment, if it was sent (`tcp_write_queue_head` when it
    /// is not the send head).
    pub head: Option<HeadOfLine>,
}

/// Where to send the offered segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send it on this subflow.
    Send(usize),
    /// Send a copy on each of these subflows (redundant scheduler).
    SendMany(Vec<usize>),
    /// Usable subflows exist, but none now: no cwnd space, or the scheduler
    /// prefers to wait for a faster subflow (BLEST, ECF). Retry on the next
    /// ACK or timer.
    Wait,
    /// No subflow is usable at all (none established, all potentially failed).
    NoneAvailable,
}

/// Halve the window of a slow subflow (Linux penalisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Penalize {
    pub subflow: usize,
    pub new_cwnd: u32,
    pub new_ssthresh: u32,
}

/// Full answer of a scheduler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedOutcome {
    pub decision: Decision,
    /// Retransmit the head-of-line segment (`ConnView::head`) on this subflow
    /// (opportunistic retransmission; count it in `bytes_reinjected`). When
    /// set, it replaces sending the offered segment (`decision` is `Wait`
    /// for the offered segment).
    pub retransmit_head_on: Option<usize>,
    /// Penalise these subflows (count `penalizations` on each).
    pub penalize: Vec<Penalize>,
}

impl SchedOutcome {
    pub fn just(decision: Decision) -> Self {
        SchedOutcome {
            decision,
            retransmit_head_on: None,
            penalize: Vec::new(),
        }
    }
}

/// A scheduler for one connection.
pub trait Scheduler {
    /// Name as used in scenario files.
    fn name(&self) -> &'static str;

    /// Decide for the offered segment.
    fn schedule(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome;

    /// Sends copies of segments already sent (the redundant scheduler): the
    /// connection then asks `copy_candidate` before offering new data, also
    /// when nothing new is queued. Asked once, when the connection is built.
    fn sends_copies(&self) -> bool {
        false
    }

    /// With `sends_copies`: the unacked segment to offer again now, from
    /// `unacked` (oldest first: DSN, length, subflows it was sent on). The
    /// connection offers it like a reinjection (`Segment::sent_on` set) but
    /// neither counts it in `bytes_reinjected` nor takes it off the
    /// reinjection queue.
    fn copy_candidate(
        &mut self,
        _subflows: &[SubflowView],
        _unacked: &mut dyn Iterator<Item = (u64, u32, u64)>,
    ) -> Option<(u64, u32)> {
        None
    }

    /// With no available subflow (`SubflowView::available` false for all),
    /// `schedule` and `on_send_blocked` return `Wait` or `NoneAvailable`,
    /// penalise nothing and change no state of the scheduler: the
    /// connection then stops its scheduling loop without building the
    /// views (which costs more than the decision). Asked once, when the
    /// connection is built; false unless a scheduler states it.
    fn idle_without_available(&self) -> bool {
        false
    }

    /// A decision `Send(p)` for a segment sent nowhere yet (not a
    /// reinjection, `Segment::sent_on` 0) that fits the peer's receive
    /// window (`ConnView::fits_rwnd`) changes no state of the scheduler,
    /// and, when the views differ only in subflow `p`'s (the send moved its
    /// packets in flight and bytes unacknowledged) and `p` is still
    /// available, the next such decision is `Send(p)` again, whatever the
    /// segment's length, the connection's view and a `new_push` between
    /// the two. The connection then
    /// keeps sending on `p` without asking (`MptcpConnection::schedule_loop`;
    /// builds with invariants ask and compare). Asked once, when the
    /// connection is built; false unless a scheduler states it.
    fn repeats_fresh_pick(&self) -> bool {
        false
    }

    /// For a segment sent nowhere yet (not a reinjection, `Segment::sent_on`
    /// 0) that fits the peer's receive window (`ConnView::fits_rwnd`),
    /// `schedule` returns `Send` to `fresh_pick`'s subflow, or, with none,
    /// `Wait` / `NoneAvailable` (which end the connection's loop alike),
    /// neither retransmits nor penalises, and changes no state of the
    /// scheduler, whatever `now`, the segment's length and the rest of the
    /// connection's view. The connection then takes `fresh_pick`'s answer
    /// from the views without building the connection's view and the
    /// offer or making the call (`MptcpConnection::schedule_loop`; builds
    /// with invariants ask and compare). Asked once, when the connection
    /// is built; false unless a scheduler states it.
    fn picks_fresh_by_views(&self) -> bool {
        false
    }

    /// Builds with invariants: the scheduler's whole state as text (its
    /// `Debug` form: minRTT's penalisation clock, and any field a later
    /// change adds), or none where a scheduler does not give it. The
    /// decisions the connection takes without asking
    /// (`repeats_fresh_pick`, `picks_fresh_by_views`) skip the call, so
    /// they are the scheduler's only if the call would also leave its state
    /// as it was: the connection's checks ask for each such decision and
    /// compare this before and after the call as well as the answer
    /// (`MptcpConnection::ask_for_skipped`). A scheduler that states either
    /// shortcut must give it; none unless a scheduler gives it.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn checked_state(&self) -> Option<String> {
        None
    }

    /// A new push begins (upstream `__mptcp_push_pending` after an
    /// application write, `super::super::push`): the next decision is a
    /// fresh pick. Nothing for schedulers without a send burst.
    fn new_push(&mut self) {}

    /// The segment just decided on carries `sent` bytes instead of the
    /// `offered` ones: the connection cut the offer at a page fragment's
    /// start (`MptcpConnection::schedule_loop`) and, the pick being another
    /// subflow than the fragment before's, hands it a whole segment after
    /// all. Schedulers that count the bytes of a send burst
    /// (`msk->snd_burst`, decremented by what `mptcp_sendmsg_frag` pushed)
    /// count `sent`. Nothing for the others.
    fn resize_last(&mut self, _offered: u32, _sent: u32) {}

    /// Nothing new to send and the application blocked on a full send buffer
    /// (`__mptcp_next_segment` without a send head): the default scheduler's
    /// family may retransmit the head-of-line segment on a faster subflow.
    fn on_send_blocked(
        &mut self,
        _now: Nanos,
        _subflows: &[SubflowView],
        _conn: &ConnView,
    ) -> SchedOutcome {
        SchedOutcome::just(Decision::Wait)
    }
}

crate::named_enum! {
    /// MPTCP packet schedulers (`transport.mptcp.scheduler`): one line each,
    /// with the name, the description `mptlab list` prints and the factory.
    pub enum SchedulerKind {
        /// A fresh scheduler with its module's default parameters.
        fn build() -> Box<dyn Scheduler>;
        Minrtt = "minrtt": "lowest RTT first among subflows with cwnd space, with opportunistic retransmission and penalisation (Linux v0.9x default)" => Box::new(minrtt::MinRtt::default()),
        Default = "default": "alias of minrtt" => SchedulerKind::Minrtt.build(),
        RoundRobin = "roundrobin": "round robin over subflows with cwnd space" => Box::new(roundrobin::RoundRobin::default()),
        Redundant = "redundant": "send every segment on all subflows" => Box::new(redundant::Redundant),
        Blest = "blest": "BLEST: blocking estimation, waits for the fast subflow when sending on the slow one would block it" => Box::new(blest::Blest::default()),
        Ecf = "ecf": "ECF: earliest completion first, waits for the fast subflow when it completes sooner" => Box::new(ecf::Ecf::default()),
        Upstream = "upstream": "upstream Linux (net/mptcp) scheduler: lowest linger time by pacing rate, backup only when needed" => Box::new(upstream::Upstream::default()),
    }
}

impl SchedulerKind {
    /// The scheduler an alias stands for (`default` is `minrtt`, as Linux
    /// v0.9x's scheduler named "default" is the minimum-RTT one).
    pub fn canonical(self) -> SchedulerKind {
        match self {
            SchedulerKind::Default => SchedulerKind::Minrtt,
            k => k,
        }
    }
}

/// MPTCP-level tail loss probe (seed 001, Paper II): when the probe timeout
/// fires on subflow `on`, the connection sends the usual TLP probe there and
/// also offers the probe segment to the scheduler as a reinjection that
/// subflow `on` already carries; the subflow returned here (never `on`) gets
/// the extra copy, whose bytes the connection counts in `bytes_probe_extra`.
/// `None`: no alternate subflow can take it now (the probe stays single-path).
pub fn tlp_alternate(
    sched: &mut dyn Scheduler,
    now: Nanos,
    subflows: &[SubflowView],
    conn: &ConnView,
    probe: &Segment,
    on: usize,
) -> Option<usize> {
    let others: Vec<SubflowView> = subflows.iter().filter(|s| s.id != on).copied().collect();
    if others.is_empty() {
        return None;
    }
    let seg = Segment {
        len: probe.len,
        reinjection: true,
        sent_on: probe.sent_on | (1u64 << on),
        frag_boundary: true,
    };
    match sched.schedule(now, &others, conn, &seg).decision {
        Decision::Send(id) => Some(id),
        Decision::SendMany(ids) => ids.first().copied(),
        Decision::Wait | Decision::NoneAvailable => None,
    }
}

/// "Nothing now": `Wait` if some subflow is usable later, else `NoneAvailable`.
pub fn nothing_now(subflows: &[SubflowView]) -> Decision {
    if subflows.iter().any(|s| !s.def_unavailable()) {
        Decision::Wait
    } else {
        Decision::NoneAvailable
    }
}

/// One pass of `get_subflow_from_selectors`: among subflows with the wanted
/// backup flag, the lowest-srtt available one, preferring subflows the
/// segment was not sent on yet. Returns (index, force) where force means
/// "an unused subflow was found" (or, with no result, "an unused one exists
/// but is temporarily unavailable").
#[inline]
fn select(subflows: &[SubflowView], sent_on: u64, backup: bool) -> (Option<usize>, bool) {
    let mut best: Option<usize> = None;
    let mut min_srtt = Nanos::MAX;
    let (mut found_unused, mut found_unused_una) = (false, false);
    for (i, s) in subflows.iter().enumerate() {
        if s.backup != backup {
            continue;
        }
        let unused = sent_on & s.bit() == 0;
        if !unused && found_unused {
            continue;
        }
        if s.def_unavailable() {
            continue;
        }
        if s.temp_unavailable() {
            found_unused_una |= unused;
            continue;
        }
        if unused && !found_unused {
            // First unused subflow: forget any used one picked so far.
            found_unused = true;
            min_srtt = Nanos::MAX;
            best = None;
        }
        if s.srtt < min_srtt {
            min_srtt = s.srtt;
            best = Some(i);
        }
    }
    let force = if best.is_some() {
        found_unused
    } else {
        found_unused_una
    };
    (best, force)
}

/// Linux v0.9x `get_available_subflow` (mptcp_sched.c): lowest srtt among
/// available regular subflows, preferring ones the segment was not sent on;
/// backup subflows only when no regular one qualifies; if the segment was
/// already sent on every candidate, retry once as if it had been sent nowhere
/// (Linux clears `path_mask`; we leave the caller's mask alone). Returns an
/// index into `subflows`. Data-FIN pinning is not modelled.
#[inline]
pub fn get_available_subflow(subflows: &[SubflowView], seg: Option<&Segment>) -> Option<usize> {
    if subflows.len() == 1 {
        return subflows[0].available().then_some(0);
    }
    let sent_on = seg.map_or(0, |s| s.sent_on);
    if sent_on == 0 {
        return available_fresh(subflows);
    }
    available_two_pass(subflows, seg, sent_on)
}

/// The general case of `get_available_subflow`: `select` on regular, then
/// backup subflows, a second time as if sent nowhere.
fn available_two_pass(
    subflows: &[SubflowView],
    seg: Option<&Segment>,
    mut sent_on: u64,
) -> Option<usize> {
    for _pass in 0..2 {
        let (sk, force) = select(subflows, sent_on, false);
        if force {
            return sk;
        }
        let (sk, force) = select(subflows, sent_on, true);
        if force || seg.is_none() || sent_on == 0 {
            return sk;
        }
        sent_on = 0;
    }
    None
}

/// The subflow (its `id`) `get_available_subflow` picks for a segment sent
/// nowhere yet, or none: what a scheduler that states
/// `Scheduler::picks_fresh_by_views` sends such a segment to when it fits
/// the peer's receive window (minRTT: `get_available_subflow`, then
/// `RbufOpt::outcome`'s send).
#[inline]
pub fn fresh_pick(subflows: &[SubflowView]) -> Option<usize> {
    get_available_subflow(subflows, None).map(|i| subflows[i].id)
}

/// `get_available_subflow` for a segment sent nowhere yet (new data, or no
/// segment), in one pass: every subflow is then "unused", so the regular
/// pass of `select` returns the lowest-srtt available regular subflow (the
/// first of equals), or, with none, forces None when a regular subflow is
/// only temporarily unavailable; otherwise the backup pass's answer is
/// returned as it is (`seg.is_none() || sent_on == 0`).
#[inline]
fn available_fresh(subflows: &[SubflowView]) -> Option<usize> {
    let (mut best, mut best_srtt) = (None, Nanos::MAX);
    let (mut backup, mut backup_srtt) = (None, Nanos::MAX);
    let mut regular_temp = false;
    for (i, s) in subflows.iter().enumerate() {
        if s.def_unavailable() {
            continue;
        }
        if s.temp_unavailable() {
            regular_temp |= !s.backup;
            continue;
        }
        if s.backup {
            if s.srtt < backup_srtt {
                (backup, backup_srtt) = (Some(i), s.srtt);
            }
        } else if s.srtt < best_srtt {
            (best, best_srtt) = (Some(i), s.srtt);
        }
    }
    if best.is_some() {
        best
    } else if regular_temp {
        None
    } else {
        backup
    }
}

/// The v0.9x receive-buffer optimisation ("retransmission and
/// penalisation") with its per-fast-subflow clock (`last_rbuf_opti`), and the
/// step every lowest-RTT-family scheduler (minrtt, BLEST, ECF) ends with once
/// it has picked a subflow: send there, or, when the segment does not fit the
/// peer's receive window, retransmit the head of line and penalise.
#[derive(Clone, Debug, Default)]
pub struct RbufOpt {
    last_penal: std::collections::BTreeMap<usize, Nanos>,
}

impl RbufOpt {
    /// Run the optimisation for fast subflow index `fast` (see `rcv_buf_opt`).
    pub fn run(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        fast: usize,
        penal: bool,
        all: bool,
    ) -> SchedOutcome {
        let id = subflows[fast].id;
        let mut last = self.last_penal.get(&id).copied();
        let out = rcv_buf_opt(now, subflows, conn, fast, penal, &mut last, all);
        if let Some(t) = last {
            self.last_penal.insert(id, t);
        }
        out
    }

    /// The outcome for `seg` once the scheduler picked subflow index `pick`.
    pub fn outcome(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
        pick: Option<usize>,
        all: bool,
    ) -> SchedOutcome {
        let Some(i) = pick else {
            return SchedOutcome::just(nothing_now(subflows));
        };
        if !seg.reinjection && !conn.fits_rwnd {
            return self.run(now, subflows, conn, i, true, all);
        }
        SchedOutcome::just(Decision::Send(subflows[i].id))
    }

    /// The outcome when the connection could not send (send window full).
    pub fn blocked(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        pick: Option<usize>,
        all: bool,
    ) -> SchedOutcome {
        match pick {
            Some(i) => self.run(now, subflows, conn, i, false, all),
            None => SchedOutcome::just(nothing_now(subflows)),
        }
    }
}

/// Linux `mptcp_rcv_buf_optimization(sk, penal)` for the chosen subflow
/// `fast` (an index): decides whether to retransmit the head-of-line segment
/// on it and which slower subflows holding that segment to penalise.
/// `last_penal` is the time of the last penalisation decided by `fast`
/// (per-subflow `last_rbuf_opti`); it is updated here. `all` penalises every
/// slower holder (BLEST's copy) instead of the first holder only.
pub(crate) fn rcv_buf_opt(
    now: Nanos,
    subflows: &[SubflowView],
    conn: &ConnView,
    fast: usize,
    penal: bool,
    last_penal: &mut Option<Nanos>,
    all: bool,
) -> SchedOutcome {
    let mut out = SchedOutcome::just(Decision::Wait);
    if subflows.len() == 1 {
        return out;
    }
    let Some(head) = conn.head else { return out };
    let tp = &subflows[fast];
    let holds = |s: &SubflowView| head.sent_on & s.bit() != 0;
    // Penalise only when receive-window limited (penal) or the application
    // is send-buffer limited, and at most once per srtt of the fast subflow.
    let may_penalize = (penal || conn.send_buf_full)
        && last_penal.is_none_or(|t| now.saturating_sub(t) >= tp.srtt);
    if may_penalize {
        for (i, it) in subflows.iter().enumerate() {
            if i == fast || !holds(it) {
                continue;
            }
            if tp.srtt < it.srtt && it.ca_open {
                let new_cwnd = (it.cwnd_pkts >> 1).max(1);
                // In slow start the ssthresh is kept.
                let new_ssthresh = if it.cwnd_pkts >= it.ssthresh_pkts {
                    (it.ssthresh_pkts >> 1).max(2)
                } else {
                    it.ssthresh_pkts
                };
                out.penalize.push(Penalize {
                    subflow: it.id,
                    new_cwnd,
                    new_ssthresh,
                });
                *last_penal = Some(now);
            }
            if !all {
                break;
            }
        }
    }
    // Retransmit the head on `fast` if it is not there yet and some holder is
    // tiny (cwnd <= 4) or more than 4x slower.
    if !holds(tp) {
        let mut do_retrans = false;
        for (i, it) in subflows.iter().enumerate() {
            if i == fast || !holds(it) {
                continue;
            }
            if it.cwnd_pkts <= 4 {
                do_retrans = true;
                break;
            }
            if 4 * tp.srtt >= it.srtt {
                do_retrans = false;
                break;
            }
            do_retrans = true;
        }
        if do_retrans && tp.available() {
            out.retransmit_head_on = Some(tp.id);
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;
    use crate::time::MS;

    /// An established, idle, regular subflow.
    pub fn sv(id: usize, srtt_ms: u64) -> SubflowView {
        SubflowView {
            id,
            established: true,
            ca_open: true,
            cwnd_pkts: 10,
            ssthresh_pkts: u32::MAX,
            srtt: srtt_ms * MS,
            rttvar: srtt_ms * MS / 4,
            mss: 1000,
            pacing_rate_bps: 10_000_000,
            ..Default::default()
        }
    }

    pub fn conn() -> ConnView {
        ConnView {
            send_queue_bytes: 10_000,
            snd_wnd: 1 << 20,
            fits_rwnd: true,
            wnd_left: 1 << 20,
            ..Default::default()
        }
    }

    pub fn seg() -> Segment {
        Segment {
            len: 1000,
            reinjection: false,
            sent_on: 0,
            frag_boundary: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    /// The one-pass form for segments sent nowhere gives what the two
    /// `select` passes give, over every combination of state, backup flag
    /// and srtt order of three subflows (ties included).
    #[test]
    fn fresh_pick_equals_the_two_pass_pick() {
        // per subflow: 0 available, 1 cwnd full, 2 in loss, 3 not
        // established, 4 potentially failed; backup or not; srtt 10/20/10 ms
        let mut checked = 0;
        let mut picked = 0;
        for code in 0..(10u32 * 10 * 10) {
            for srtts in [[10, 20, 10], [30, 20, 10], [20, 10, 30]] {
                let mut v: Vec<SubflowView> = (0..3).map(|i| sv(i, srtts[i])).collect();
                let mut c = code;
                for s in v.iter_mut() {
                    let k = c % 10;
                    c /= 10;
                    s.backup = k >= 5;
                    match k % 5 {
                        1 => s.inflight_pkts = s.cwnd_pkts,
                        2 => s.in_loss = true,
                        3 => s.established = false,
                        4 => s.potentially_failed = true,
                        _ => {}
                    }
                }
                let two = available_two_pass(&v, None, 0);
                assert_eq!(available_fresh(&v), two, "{v:?}");
                let seg = Segment::default();
                assert_eq!(available_two_pass(&v, Some(&seg), 0), two);
                checked += 1;
                picked += two.is_some() as u32;
            }
        }
        assert_eq!(checked, 3000);
        // both outcomes occur
        assert!(picked > 0 && picked < checked);
    }

    #[test]
    fn every_registered_name_builds_the_scheduler_of_that_name() {
        for k in SchedulerKind::ALL {
            assert_eq!(SchedulerKind::from_name(k.name()), Some(*k));
            assert_eq!(k.build().name(), k.canonical().name());
        }
        assert_eq!(SchedulerKind::Default.build().name(), "minrtt");
        assert!(SchedulerKind::from_name("fastest").is_none());
        // Only the redundant scheduler sends copies.
        for k in SchedulerKind::ALL {
            assert_eq!(k.build().sends_copies(), *k == SchedulerKind::Redundant);
        }
    }

    #[test]
    fn tlp_probe_goes_to_an_alternate_subflow() {
        let subs = [sv(0, 10), sv(1, 50), sv(2, 30)];
        let probe = Segment {
            len: 1000,
            reinjection: false,
            sent_on: 0b001,
            frag_boundary: true,
        };
        for k in SchedulerKind::ALL {
            let (name, mut s) = (k.name(), k.build());
            let alt = tlp_alternate(s.as_mut(), 0, &subs, &conn(), &probe, 0);
            assert!(matches!(alt, Some(1) | Some(2)), "{name}: {alt:?}");
        }
        // minRTT takes the faster of the other two.
        let mut m = SchedulerKind::Minrtt.build();
        assert_eq!(
            tlp_alternate(m.as_mut(), 0, &subs, &conn(), &probe, 0),
            Some(2)
        );
        // Single subflow: no alternate.
        assert_eq!(
            tlp_alternate(m.as_mut(), 0, &subs[..1], &conn(), &probe, 0),
            None
        );
    }

    /// Same inputs, same outputs: no hidden nondeterminism in any scheduler.
    #[test]
    fn schedulers_are_deterministic() {
        let mut subs = [sv(0, 10), sv(1, 50), sv(2, 30)];
        subs[0].inflight_pkts = 10;
        subs[2].backup = true;
        let run = |k: SchedulerKind| {
            let mut s = k.build();
            (0..20u64)
                .map(|t| s.schedule(t * 1_000_000, &subs, &conn(), &seg()))
                .collect::<Vec<_>>()
        };
        for &k in SchedulerKind::ALL {
            assert_eq!(run(k), run(k), "{k}");
        }
    }

    #[test]
    fn availability_rules() {
        let mut s = sv(0, 10);
        assert!(s.available());
        s.inflight_pkts = 10; // no cwnd slot
        assert!(s.temp_unavailable());
        s.inflight_pkts = 8; // 2 slots = 2000 B; 2500 B queued already fill them
        s.queued_bytes = 2500;
        assert!(s.temp_unavailable());
        s.queued_bytes = 2000;
        assert!(s.available());
        s.in_loss = true;
        assert!(!s.available());
        let mut p = sv(1, 10);
        p.potentially_failed = true;
        assert!(p.def_unavailable());
    }

    #[test]
    fn selector_prefers_unused_then_backup_then_retries() {
        let subs = [sv(0, 10), sv(1, 50)];
        // Lowest RTT wins.
        assert_eq!(get_available_subflow(&subs, Some(&seg())), Some(0));
        // A reinjection already sent on 0 goes to the unused, slower 1.
        let re = Segment {
            sent_on: 1,
            reinjection: true,
            ..seg()
        };
        assert_eq!(get_available_subflow(&subs, Some(&re)), Some(1));
        // Sent on both: retry as unused -> fastest again.
        let both = Segment { sent_on: 3, ..re };
        assert_eq!(get_available_subflow(&subs, Some(&both)), Some(0));
        // Unused subflow 1 temporarily full: the used subflow 0 is taken
        // after the retry with a cleared mask.
        let mut subs2 = subs;
        subs2[1].inflight_pkts = 10;
        assert_eq!(get_available_subflow(&subs2, Some(&re)), Some(0));
        // Backup only when no regular subflow is available.
        let mut subs3 = [sv(0, 10), sv(1, 5)];
        subs3[1].backup = true;
        assert_eq!(get_available_subflow(&subs3, Some(&seg())), Some(0));
        // A regular subflow that is only cwnd-limited makes a new segment wait
        // for it (an unused, temporarily unavailable regular subflow forces
        // the result) ...
        subs3[0].inflight_pkts = 10;
        assert_eq!(get_available_subflow(&subs3, Some(&seg())), None);
        // ... the backup is used when no regular subflow can send at all.
        subs3[0].potentially_failed = true;
        assert_eq!(get_available_subflow(&subs3, Some(&seg())), Some(1));
        subs3[1].inflight_pkts = 10;
        assert_eq!(get_available_subflow(&subs3, Some(&seg())), None);
    }
}
