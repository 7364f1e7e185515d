//! Upstream Linux MPTCP's connection-level retransmission timer and stale
//! subflow detection (net/mptcp/protocol.c, pm.c, pm_kernel.c), used with
//! the `upstream` scheduler in place of the v0.9x per-subflow RTO path
//! (potentially failed subflow + reinjection of its data).
//!
//! * The timer (`mptcp_reset_rtx_timer`) runs while data is unacknowledged
//!   at the connection level: armed after a push when not pending
//!   (`__mptcp_push_pending`), re-armed on every DATA_ACK that advances
//!   while data remains and stopped when all is acked (`__mptcp_clean_una`),
//!   and re-armed when it fires (`__mptcp_retrans` -> `mptcp_clean_una_wakeup`).
//!   Every (re-)arm uses the stored interval `msk->timer_ival`, which only
//!   the scheduler writes: `mptcp_subflow_get_send` (`__mptcp_set_timeout`)
//!   and `__subflow_push_pending` (`mptcp_set_timeout`) set it to the
//!   longest time until a non-stale subflow's pending TCP timer expires,
//!   else `TCP_RTO_MIN`. So a DATA_ACK re-arms the timer with what the
//!   subflows' timers had left at the last push, not with what they have
//!   left now: while the send queue is empty (a writer blocked on a full
//!   buffer) no push runs and the interval stays as it was
//!   (`MskRtx::set_timeout`, `MskRtx::update`).
//! * When it fires (`__mptcp_retrans`), `mptcp_subflow_get_retrans` looks
//!   for an idle active subflow (nothing unacked or unsent at TCP level),
//!   regular before backup, and checks every busy one for staleness
//!   (`mptcp_pm_subflow_chk_stale`): a busy subflow that received nothing
//!   (its `rcv_tstamp` unchanged) since the previous check counts one more
//!   round; after more than `stale_loss_cnt` (4) rounds, while another
//!   active subflow has fewer than `stale_loss_cnt - 1`, it is marked stale
//!   (`mptcp_pm_nl_subflow_chk_stale`) and the connection re-sends all its
//!   unacknowledged data (`__mptcp_retransmit_pending_data`). A stale
//!   subflow is skipped by the scheduler until it receives something again
//!   (`mptcp_subflow_active` -> `mptcp_subflow_set_active`).
//!   The picked idle subflow gets the oldest unacknowledged data fragment
//!   again (`mptcp_rtx_head`).
//!
//! The re-sent data of a stale subflow is pushed like unsent data
//! (`MetaSend::resend`), through the scheduler's `get_send` as
//! `__mptcp_push_pending` does, not through `get_retrans` (which takes only
//! idle subflows and so would send one segment per round trip).
//!
//! What an expiry re-sends is the head of the retransmission queue
//! (`mptcp_rtx_head`), the data fragment holding the DATA_ACK, from the
//! DATA_ACK (`__mptcp_clean_una` trims it) up to what of it was already
//! handed to a subflow (`info.limit = dfrag->already_sent`), once, on one
//! idle subflow (`MetaSend::rtx_head`), cut exactly there: the segments
//! that first carried those bytes were cut by the MSS, not by fragment
//! ends, so the one holding the fragment's end (or the DATA_ACK) is split
//! (`MetaSend::rtx_pieces`). Re-sending it whole took up to one MSS past
//! the fragment, which then no longer waited for its first carrier: the
//! DATA_ACK jumped over it, and the timer fired again where the kernel's
//! was re-armed by that carrier's DATA_ACK (issue 15, lossy 8 MB Wi-Fi +
//! 3G, run 0, docs/validation.md).
//! Simplification: the interval is taken once per scheduling pass, before
//! its data is handed out (the kernel's `tcp_push` arms a subflow's timers
//! only when the pass releases it), not at each `mptcp_subflow_get_send`
//! of the pass.

use crate::time::{Nanos, MS};

/// Linux `TCP_RTO_MIN`.
pub const TCP_RTO_MIN: Nanos = 200 * MS;
/// `net.mptcp.stale_loss_cnt` default.
pub const STALE_LOSS_CNT: u32 = 4;
/// Bytes re-sent per timer expiry without page fragments (a 32 KB page
/// frag); with them the head fragment's own extent (`MetaSend::rtx_head`).
pub const DFRAG_BYTES: u64 = 32 * 1024;

#[derive(Clone, Copy, Debug, Default)]
struct Stale {
    /// Last time the subflow received a segment (`tp->rcv_tstamp`).
    rcv_tstamp: Nanos,
    /// `subflow->stale_count` and the `rcv_tstamp` it was counted against.
    count: u32,
    counted_at: Nanos,
    /// `subflow->stale` and `stale_rcv_tstamp`.
    stale: bool,
    stale_at: Nanos,
}

/// Per-connection state.
#[derive(Clone, Debug)]
pub struct MskRtx {
    pub deadline: Option<Nanos>,
    /// `msk->timer_ival`: the interval every (re-)arm uses, written only
    /// by `set_timeout` (`TCP_RTO_MIN` from `__mptcp_init_sock`).
    pub timer_ival: Nanos,
    una_seen: u64,
    subflows: Vec<Stale>,
}

impl Default for MskRtx {
    fn default() -> Self {
        MskRtx {
            deadline: None,
            timer_ival: TCP_RTO_MIN,
            una_seen: 0,
            subflows: Vec::new(),
        }
    }
}

/// What the retransmission pass reads of one subflow.
#[derive(Clone, Copy, Debug)]
pub struct SfState {
    /// `__mptcp_subflow_active`: established (stale is checked here).
    pub active: bool,
    pub backup: bool,
    /// Unacked or unsent bytes at TCP level.
    pub busy: bool,
    /// Expiry of its pending TCP timer.
    pub timer: Option<Nanos>,
}

/// Outcome of a timer expiry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Retrans {
    /// Re-send the head fragment on this subflow index.
    pub on: Option<usize>,
    /// Subflows newly marked stale: re-send all unacked data.
    pub newly_stale: Vec<usize>,
}

impl MskRtx {
    fn sf(&mut self, i: usize) -> &mut Stale {
        if self.subflows.len() <= i {
            self.subflows.resize(i + 1, Stale::default());
        }
        &mut self.subflows[i]
    }

    /// Subflow `i` received a segment (`tcp_ack` sets `rcv_tstamp`).
    pub fn on_receive(&mut self, i: usize, now: Nanos) {
        self.sf(i).rcv_tstamp = now;
    }

    /// `mptcp_subflow_active`'s stale test: stale and nothing received since.
    pub fn is_stale(&self, i: usize) -> bool {
        self.subflows
            .get(i)
            .is_some_and(|s| s.stale && s.rcv_tstamp == s.stale_at)
    }

    /// `mptcp_set_timeout`: the longest wait for a non-stale subflow's
    /// pending timer, else `TCP_RTO_MIN`.
    pub fn interval(&self, now: Nanos, sfs: &[SfState]) -> Nanos {
        let tout = sfs
            .iter()
            .enumerate()
            .filter(|(i, s)| s.active && !self.is_stale(*i) && self.count(*i) == 0)
            .filter_map(|(_, s)| s.timer.map(|t| t.saturating_sub(now)))
            .max()
            .unwrap_or(0);
        if tout > 0 {
            tout
        } else {
            TCP_RTO_MIN
        }
    }

    fn count(&self, i: usize) -> u32 {
        self.subflows.get(i).map_or(0, |s| s.count)
    }

    /// A push found data to send: `mptcp_subflow_get_send` ->
    /// `__mptcp_set_timeout(sk, tout)` (and `mptcp_set_timeout` after each
    /// data fragment in `__subflow_push_pending`) store the interval the
    /// next (re-)arm will use; the running timer is not touched.
    pub fn set_timeout(&mut self, now: Nanos, sfs: &[SfState]) {
        self.timer_ival = self.interval(now, sfs);
    }

    /// After every pass of the connection: arm the timer when data is
    /// outstanding and it is not pending (`__mptcp_push_pending`), re-arm it
    /// when the DATA_ACK advanced (`__mptcp_clean_una` ->
    /// `mptcp_reset_rtx_timer`), stop it when everything is acked; always
    /// with the stored `timer_ival`, not an interval computed now.
    pub fn update(&mut self, now: Nanos, una: u64, outstanding: bool) {
        let progress = una > self.una_seen;
        self.una_seen = una;
        if !outstanding {
            self.deadline = None;
        } else if progress || self.deadline.is_none() {
            self.deadline = Some(now + self.timer_ival);
        }
    }

    /// The timer fired: `__mptcp_retrans` -> `mptcp_subflow_get_retrans`.
    pub fn on_expiry(&mut self, now: Nanos, sfs: &[SfState]) -> Retrans {
        let mut out = Retrans::default();
        let (mut pick, mut backup) = (None, None);
        let mut min_stale = u32::MAX;
        for (i, s) in sfs.iter().enumerate() {
            if !s.active || self.is_stale(i) {
                continue;
            }
            if s.busy {
                if self.chk_stale(i, sfs) {
                    out.newly_stale.push(i);
                }
                min_stale = min_stale.min(self.count(i));
                continue;
            }
            if s.backup {
                backup = backup.or(Some(i));
            } else {
                pick = pick.or(Some(i));
            }
        }
        // "use backup only if there are no progresses anywhere"
        out.on = pick.or(if min_stale > 1 { backup } else { None });
        // `__mptcp_retrans` -> `mptcp_clean_una_wakeup` -> `__mptcp_clean_una`
        // re-arms with the stored `timer_ival` (data is outstanding), so the
        // `!mptcp_rtx_timer_pending` re-arm after the re-send finds it pending.
        self.deadline = Some(now + self.timer_ival);
        out
    }

    /// `mptcp_pm_subflow_chk_stale` + `mptcp_pm_nl_subflow_chk_stale`;
    /// true when subflow `i` becomes stale now.
    fn chk_stale(&mut self, i: usize, sfs: &[SfState]) -> bool {
        let s = self.sf(i);
        if s.count == 0 {
            s.counted_at = s.rcv_tstamp;
            s.count = 1;
            return false;
        }
        if s.counted_at != s.rcv_tstamp {
            s.count = 0;
            s.stale = false;
            return false;
        }
        s.count = s.count.saturating_add(1);
        if s.stale || s.count <= STALE_LOSS_CNT {
            return false;
        }
        let active_max = STALE_LOSS_CNT.saturating_sub(1).max(1);
        let alternative = sfs
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.active && !self.is_stale(j) && self.count(j) < active_max);
        if !alternative || !sfs[i].busy {
            return false;
        }
        let s = self.sf(i);
        s.stale = true;
        s.stale_at = s.rcv_tstamp;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sf(active: bool, busy: bool, backup: bool) -> SfState {
        SfState {
            active,
            backup,
            busy,
            timer: None,
        }
    }

    #[test]
    fn timer_follows_data_acks() {
        let mut r = MskRtx::default();
        let sfs = [SfState {
            timer: Some(1_000 * MS),
            ..sf(true, true, false)
        }];
        r.set_timeout(100 * MS, &sfs);
        r.update(100 * MS, 0, true);
        assert_eq!(r.deadline, Some(1_000 * MS));
        // No progress: unchanged.
        r.update(300 * MS, 0, true);
        assert_eq!(r.deadline, Some(1_000 * MS));
        // Progress: re-armed; no subflow timer -> TCP_RTO_MIN.
        r.set_timeout(400 * MS, &[sf(true, true, false)]);
        r.update(400 * MS, 10, true);
        assert_eq!(r.deadline, Some(600 * MS));
        r.update(500 * MS, 20, false);
        assert_eq!(r.deadline, None);
    }

    /// `__mptcp_clean_una` re-arms with `msk->timer_ival` as the last push
    /// left it, however the subflows' timers moved since: a DATA_ACK 200 ms
    /// after a push that saw a subflow timer 100 ms away re-arms for 100 ms
    /// (the kernel's connection-level re-send 100.7 ms after a DATA_ACK,
    /// docs/validation.md), not for what that timer has left now.
    #[test]
    fn data_ack_rearms_with_the_interval_of_the_last_push() {
        let mut r = MskRtx::default();
        let at_push = [SfState {
            timer: Some(600 * MS),
            ..sf(true, true, false)
        }];
        r.set_timeout(500 * MS, &at_push);
        assert_eq!(r.timer_ival, 100 * MS);
        r.update(500 * MS, 1, true);
        assert_eq!(r.deadline, Some(600 * MS));
        // The subflow's timer was re-armed far out; no push since.
        r.update(700 * MS, 2, true);
        assert_eq!(r.deadline, Some(800 * MS));
        // Expiry re-arms with the same stored interval.
        let now_sfs = [SfState {
            timer: Some(2_000 * MS),
            ..sf(true, true, false)
        }];
        r.on_expiry(800 * MS, &now_sfs);
        assert_eq!(r.deadline, Some(900 * MS));
    }

    #[test]
    fn expiry_resends_on_an_idle_subflow_and_marks_a_silent_one_stale() {
        let mut r = MskRtx::default();
        let sfs = [sf(true, true, false), sf(true, false, false)];
        r.on_receive(0, 5);
        // Rounds 1..4 count; the 5th (count 5 > stale_loss_cnt) marks it stale.
        for round in 1..=4 {
            let out = r.on_expiry(round * 1000, &sfs);
            assert_eq!(out.on, Some(1));
            assert!(out.newly_stale.is_empty(), "round {round}");
        }
        let out = r.on_expiry(5000, &sfs);
        assert_eq!(out.newly_stale, vec![0]);
        assert!(r.is_stale(0));
        // Receiving anything makes it active again.
        r.on_receive(0, 7000);
        assert!(!r.is_stale(0));
    }

    #[test]
    fn no_stale_without_an_alternative_and_backup_only_without_progress() {
        let mut r = MskRtx::default();
        let sfs = [sf(true, true, false), sf(false, false, false)];
        for round in 1..=8 {
            assert!(r.on_expiry(round, &sfs).newly_stale.is_empty());
        }
        // Idle backup, busy regular that made progress last round: no pick.
        let mut r = MskRtx::default();
        let sfs = [sf(true, true, false), sf(true, false, true)];
        assert_eq!(r.on_expiry(1, &sfs).on, None);
        // Second silent round: stale_count 2 > 1 -> the backup.
        assert_eq!(r.on_expiry(2, &sfs).on, Some(1));
    }
}
