//! The scheduler of upstream Linux MPTCP (net/mptcp/protocol.c,
//! `mptcp_subflow_get_send`, Linux 6.x), plus its retransmission choice
//! (`mptcp_subflow_get_retrans`).
//!
//! New data: among active subflows, the one with the lowest linger time
//!
//! ```text
//!   linger = sk_wmem_queued / avg_pacing_rate
//! ```
//!
//! (`div_u64(wmem << 32, pace)` in the kernel; here in ns), tracked separately
//! for regular and backup subflows; the backup pick is used only when no
//! regular subflow is active. If the pick has no room (`sk_stream_memory_free`)
//! the scheduler waits rather than taking the second best. After a pick the
//! subflow's average pacing rate moves towards its current one, weighted by
//! the bytes queued and the burst about to be sent:
//! avg = (avg * wmem + pacing * burst) / (wmem + burst).
//!
//! With per-subflow send buffers (`SubflowView::sndbuf` > 0, set by the
//! connection for this scheduler, see `super::super::sndbuf`):
//! `sk_wmem_queued` is the subflow's bytes in truesize units, "room" is
//! `wmem_queued < sk_sndbuf` (the subflow takes data beyond its congestion
//! window, which then waits in its own write queue), and the pick keeps
//! the following segments for up to `MPTCP_SEND_BURST_SIZE` bytes while it
//! stays active and has room (`__subflow_push_pending`: `msk->snd_burst`).
//! A kernel push runs under the socket lock at one instant; here a burst
//! ends when the simulated time moves on, so every later event (an ACK,
//! an application write) starts with a fresh `mptcp_subflow_get_send`, as
//! each `__mptcp_push_pending` / `__mptcp_subflow_push_pending` call does,
//! and so does each application write of the same instant
//! (`Scheduler::new_push`, `super::super::push`).
//! Without them (`sndbuf` 0): wmem_queued is `unacked_bytes` and "room"
//! is congestion-window space for one segment.
//!
//! Reinjections: the first active regular subflow with empty queues, else the
//! first such backup subflow (`mptcp_subflow_get_retrans`).
//!
//! Stale subflows: the view's `potentially_failed` is the connection's stale
//! mark (`super::super::msk_rtx`, the kernel's `stale_loss_cnt` rounds of its
//! MPTCP retransmission timer; with the v0.9x schedulers' connection, the
//! `pf` flag set by an RTO); such a subflow is skipped.
//!
//! Room and burst are tested only between data fragments (`dfrag`, a
//! page fragment of application data, `Segment::frag_boundary`): the
//! kernel's push loop hands a whole fragment to the subflow first, so a
//! subflow can take up to one fragment beyond its `sk_sndbuf` and burst.
//!
//! A segment that straddles two fragments is offered in two pieces (the
//! connection cuts it at the second fragment's start, see
//! `MptcpConnection::schedule_loop`), so the first fragment's last bytes
//! stay with its subflow and the test falls at the fragment's start.
//!
//! The burst is the window left beyond the data handed out, at most
//! `MPTCP_SEND_BURST_SIZE` (`mptcp_wnd_end(msk) - msk->snd_nxt`), so a pick
//! made while the receive window holds the sender back moves the average
//! pacing rate only by the few segments the window opened (until session
//! 19 every pick weighed a whole burst). Simplification: a segment that
//! does not fit the window is not sent (the kernel sends what fits,
//! `mptcp_check_allowed_size`), so its pick changes nothing (burst 0).

use std::collections::BTreeMap;

use super::{nothing_now, ConnView, Decision, SchedOutcome, Scheduler, Segment, SubflowView};
use crate::time::Nanos;

/// `MPTCP_SEND_BURST_SIZE` (net/mptcp/protocol.c).
pub const SEND_BURST_SIZE: u64 = 65428;

#[derive(Clone, Debug, Default)]
pub struct Upstream {
    /// Per subflow id: average pacing rate in bit/s.
    avg_pacing: BTreeMap<usize, u64>,
    /// The current send burst (`msk->snd_burst`), with per-subflow buffers.
    burst: Option<Burst>,
}

/// A send burst on one subflow started at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Burst {
    id: usize,
    left: i64,
    at: Nanos,
}

fn active(s: &SubflowView) -> bool {
    !s.def_unavailable()
}

/// Linux `srtt_us` counts in units of 1/8 us.
const SRTT_UNIT: Nanos = 125;

/// A subflow's pacing rate in bit/s, cwnd * MSS / SRTT (Linux
/// tcp_update_pacing_rate, without its 200 % / 120 % slow-start and
/// congestion-avoidance factors; see `linux_pacing_rate_bps`). Before the
/// first RTT sample (`srtt` 0, e.g. after a retransmitted SYN or SYN/ACK,
/// whose RTT Karn's rule discards) the kernel skips the division (`if
/// (likely(tp->srtt_us)) do_div(rate, tp->srtt_us)`), so the rate is as if
/// SRTT were one unit of `srtt_us` (1/8 us) - effectively unlimited, never
/// zero. A zero here would make `get_send` skip the subflow for good (`if
/// (!pace) continue`): it would never send, so never get the RTT sample
/// that makes it nonzero.
pub fn pacing_rate_bps(cwnd: u32, mss: u32, srtt: Nanos) -> u64 {
    let srtt = srtt.max(SRTT_UNIT);
    // Every view of every scheduler decision computes this: in 64 bits when
    // the product fits (always, short of a cwnd of ~10^6 segments), which
    // gives the same quotient as the 128-bit division without its call.
    if let Some(n) = (cwnd as u64 * mss as u64).checked_mul(8 * 1_000_000_000) {
        return n / srtt;
    }
    let per_rtt_bits = cwnd as u128 * mss as u128 * 8;
    let rate = per_rtt_bits * 1_000_000_000 / srtt as u128;
    rate.min(u64::MAX as u128) as u64
}

/// `net.ipv4.tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` (percent).
const PACING_SS_RATIO: u128 = 200;
const PACING_CA_RATIO: u128 = 120;

/// Linux `tcp_update_pacing_rate` (net/ipv4/tcp_input.c) in bit/s:
/// mss * max(cwnd, packets_out) / srtt, times 200 % while cwnd is below half
/// of ssthresh (slow start far from its end), else 120 %; no SRTT yet: as
/// if it were one 1/8 us unit (see `pacing_rate_bps`). `ssthresh` is
/// `u32::MAX` while infinite.
pub fn linux_pacing_rate_bps(
    cwnd: u32,
    ssthresh: u32,
    packets_out: u32,
    mss: u32,
    srtt: Nanos,
) -> u64 {
    let ratio = if cwnd < ssthresh / 2 {
        PACING_SS_RATIO
    } else {
        PACING_CA_RATIO
    };
    let srtt = srtt.max(SRTT_UNIT);
    // in 64 bits when the products fit, as in `pacing_rate_bps` (same result)
    let bits64 = (mss as u64 * cwnd.max(packets_out) as u64)
        .checked_mul(8 * ratio as u64)
        .map(|b| b / 100);
    if let Some(n) = bits64.and_then(|b| b.checked_mul(1_000_000_000)) {
        return n / srtt;
    }
    let bits = mss as u128 * cwnd.max(packets_out) as u128 * 8 * ratio / 100;
    let rate = bits * 1_000_000_000 / srtt as u128;
    rate.min(u64::MAX as u128) as u64
}

/// Time to drain `bytes` at `rate_bps`.
pub fn linger_time(bytes: u64, rate_bps: u64) -> Nanos {
    (bytes as u128 * 8 * 1_000_000_000 / rate_bps as u128) as Nanos
}

impl Upstream {
    /// `sk_wmem_queued` as the scheduler reads it.
    fn wmem(s: &SubflowView) -> u64 {
        if s.sndbuf > 0 {
            s.wmem_queued
        } else {
            s.unacked_bytes
        }
    }

    /// `sk_stream_memory_free(ssk)`, or cwnd space without send buffers.
    fn has_room(s: &SubflowView) -> bool {
        if s.sndbuf > 0 {
            crate::mptcp::sndbuf::memory_free(s.wmem_queued, s.sndbuf)
        } else {
            !s.temp_unavailable()
        }
    }

    /// `__subflow_push_pending` keeps the burst's subflow while
    /// `msk->snd_burst > 0 && sk_stream_memory_free(ssk) &&
    /// mptcp_subflow_active(subflow)`, tested after each whole data
    /// fragment: its inner loop hands the rest of the current `dfrag` to
    /// the subflow (`mptcp_sendmsg_frag` until `len` is 0) before any test,
    /// so the subflow can go past its `sk_sndbuf` and the burst by up to
    /// one fragment. A segment that does not reach into a new fragment
    /// (`Segment::frag_boundary` false) stays with the burst's subflow.
    fn burst_continues(
        &self,
        now: Nanos,
        subflows: &[SubflowView],
        seg: &Segment,
    ) -> Option<usize> {
        let b = self.burst?;
        // a new instant: a fresh `mptcp_subflow_get_send` (a new write of
        // the same instant ends the burst through `new_push`)
        if b.at != now {
            return None;
        }
        let s = subflows.iter().find(|s| s.id == b.id)?;
        if s.sndbuf == 0 {
            return None;
        }
        if !seg.frag_boundary {
            return Some(s.id);
        }
        (b.left > 0 && active(s) && Self::has_room(s)).then_some(s.id)
    }

    fn get_send(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> Decision {
        if let Some(id) = self.burst_continues(now, subflows, seg) {
            if let Some(b) = self.burst.as_mut() {
                b.left -= seg.len as i64;
            }
            return Decision::Send(id);
        }
        self.burst = None;
        // [regular, backup]: (linger, index)
        let mut pick: [Option<(Nanos, usize)>; 2] = [None, None];
        let mut nr_active = 0;
        for (i, s) in subflows.iter().enumerate().filter(|(_, s)| active(s)) {
            nr_active += !s.backup as usize;
            let pace = *self.avg_pacing.entry(s.id).or_insert(s.pacing_rate_bps);
            let pace = if pace == 0 {
                // Re-initialise from the socket, as the kernel does.
                self.avg_pacing.insert(s.id, s.pacing_rate_bps);
                s.pacing_rate_bps
            } else {
                pace
            };
            if pace == 0 {
                continue;
            }
            let linger = linger_time(Self::wmem(s), pace);
            let slot = &mut pick[s.backup as usize];
            if slot.is_none_or(|(l, _)| linger < l) {
                *slot = Some((linger, i));
            }
        }
        if nr_active == 0 {
            pick[0] = pick[1];
        }
        let Some((_, i)) = pick[0] else {
            return nothing_now(subflows);
        };
        let s = &subflows[i];
        if !Self::has_room(s) {
            return Decision::Wait;
        }
        // `burst = min(MPTCP_SEND_BURST_SIZE, mptcp_wnd_end(msk) -
        // msk->snd_nxt)` (net/mptcp/protocol.c: mptcp_subflow_get_send):
        // the window left, not a whole burst, weighs the pick's current
        // pacing rate into its average. While the receive window holds the
        // sender back, each DATA_ACK opens a few segments, so the average
        // of a subflow picked then barely moves: a slow subflow keeps the
        // rate it was first picked at and goes on taking data (the kernel's
        // NTNU->HiN fullmesh runs, docs/validation.md "Session 19").
        let burst = if conn.fits_rwnd {
            SEND_BURST_SIZE.min(conn.wnd_left)
        } else {
            0
        };
        if burst > 0 {
            let wmem = Self::wmem(s) as u128;
            let avg = self.avg_pacing[&s.id] as u128;
            let new =
                (avg * wmem + s.pacing_rate_bps as u128 * burst as u128) / (burst as u128 + wmem);
            self.avg_pacing.insert(s.id, new as u64);
            if s.sndbuf > 0 {
                self.burst = Some(Burst {
                    id: s.id,
                    left: burst as i64 - seg.len as i64,
                    at: now,
                });
            }
        }
        Decision::Send(s.id)
    }

    fn get_retrans(subflows: &[SubflowView]) -> Decision {
        let idle = |backup: bool| {
            subflows
                .iter()
                .find(|s| active(s) && s.backup == backup && s.unacked_bytes == 0 && !s.in_loss)
                .map(|s| s.id)
        };
        match idle(false).or_else(|| idle(true)) {
            Some(id) => Decision::Send(id),
            None => nothing_now(subflows),
        }
    }

    /// Current average pacing rate of a subflow, if known.
    pub fn avg_pacing_bps(&self, id: usize) -> Option<u64> {
        self.avg_pacing.get(&id).copied()
    }
}

impl Scheduler for Upstream {
    fn name(&self) -> &'static str {
        "upstream"
    }

    /// Every `__mptcp_push_pending` round starts with
    /// `mptcp_subflow_get_send`, which sets a new `msk->snd_burst`.
    fn new_push(&mut self) {
        self.burst = None;
    }

    /// `mptcp_update_post_push` takes what was pushed off `msk->snd_burst`.
    fn resize_last(&mut self, offered: u32, sent: u32) {
        if let Some(b) = self.burst.as_mut() {
            b.left += offered as i64 - sent as i64;
        }
    }

    fn schedule(
        &mut self,
        now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        SchedOutcome::just(if seg.reinjection {
            Self::get_retrans(subflows)
        } else {
            self.get_send(now, subflows, conn, seg)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::time::MS;

    /// The 64-bit paths give the 128-bit formulas' results, up to and past
    /// the point where the products stop fitting in 64 bits.
    #[test]
    fn pacing_rates_match_the_128_bit_formulas() {
        let wide = |cwnd: u32, mss: u32, srtt: Nanos| {
            let r = cwnd as u128 * mss as u128 * 8 * 1_000_000_000 / srtt.max(SRTT_UNIT) as u128;
            r.min(u64::MAX as u128) as u64
        };
        let wide_linux = |cwnd: u32, ss: u32, out: u32, mss: u32, srtt: Nanos| {
            let ratio = if cwnd < ss / 2 { 200u128 } else { 120 };
            let bits = mss as u128 * cwnd.max(out) as u128 * 8 * ratio / 100;
            let r = bits * 1_000_000_000 / srtt.max(SRTT_UNIT) as u128;
            r.min(u64::MAX as u128) as u64
        };
        let cwnds = [0, 1, 10, 1_000, 1_537_228, 1_537_229, 1 << 24, u32::MAX];
        let msss = [0, 536, 1448, 9000, 65_535, u32::MAX];
        let srtts = [0, 1, 125, 10 * MS, 150 * MS, u64::MAX];
        for &c in &cwnds {
            for &m in &msss {
                for &r in &srtts {
                    assert_eq!(pacing_rate_bps(c, m, r), wide(c, m, r), "{c} {m} {r}");
                    for &ss in &[0, (2 * c.min(u32::MAX / 2)).saturating_add(2), u32::MAX] {
                        for &o in &[0, c / 2, c.saturating_add(7)] {
                            assert_eq!(
                                linux_pacing_rate_bps(c, ss, o, m, r),
                                wide_linux(c, ss, o, m, r),
                                "{c} {ss} {o} {m} {r}"
                            );
                        }
                    }
                }
            }
        }
    }

    fn pair() -> [SubflowView; 2] {
        // 0: 20000 B queued at 10 Mbit/s -> 16 ms; 1: 5000 B at 2 Mbit/s -> 20 ms.
        let mut subs = [sv(0, 50), sv(1, 10)];
        subs[0].unacked_bytes = 20_000;
        subs[0].pacing_rate_bps = 10_000_000;
        subs[1].unacked_bytes = 5_000;
        subs[1].pacing_rate_bps = 2_000_000;
        subs
    }

    #[test]
    fn lowest_linger_time_wins() {
        assert_eq!(linger_time(20_000, 10_000_000), 16 * MS);
        assert_eq!(linger_time(5_000, 2_000_000), 20 * MS);
        let mut subs = pair();
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(0)
        );
        // 30000 B -> 24 ms > 20 ms
        subs[0].unacked_bytes = 30_000;
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(1)
        );
    }

    #[test]
    fn backup_only_without_active_regular_and_no_second_choice() {
        let mut subs = pair();
        subs[1].backup = true;
        subs[0].unacked_bytes = 1_000_000; // 800 ms, still the regular pick
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(0)
        );
        // Regular pick full: wait, not the backup.
        subs[0].inflight_pkts = 10;
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Wait
        );
        subs[0].established = false;
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(1)
        );
    }

    #[test]
    fn pacing_rate_is_never_zero() {
        // 10 x 1000 B per 10 ms = 8 Mbit/s.
        assert_eq!(pacing_rate_bps(10, 1000, 10 * MS), 8_000_000);
        // No SRTT yet: as if SRTT were one 1/8 us unit (kernel skips do_div).
        assert_eq!(pacing_rate_bps(10, 1000, 0), 80_000 * 8_000_000);
        // Such a subflow is picked: its linger time is ~0.
        let mut subs = pair();
        subs[1].pacing_rate_bps = pacing_rate_bps(10, 1000, 0);
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(1)
        );
    }

    #[test]
    fn pacing_average_moves_towards_current_rate() {
        let mut subs = pair();
        let mut u = Upstream::default();
        u.schedule(0, &subs, &conn(), &seg());
        // Pacing rate doubles: avg = (10e6 * 20000 + 20e6 * 65428) / 85428
        subs[0].pacing_rate_bps = 20_000_000;
        u.schedule(0, &subs, &conn(), &seg());
        let expect = (10_000_000u128 * 20_000 + 20_000_000u128 * 65_428) / 85_428;
        assert_eq!(u.avg_pacing_bps(0), Some(expect as u64));
    }

    /// `burst = min(MPTCP_SEND_BURST_SIZE, mptcp_wnd_end(msk) -
    /// msk->snd_nxt)`: with 2896 bytes of window left the average takes
    /// the current rate at weight 2896, not 65428, and with none it stays.
    #[test]
    fn pacing_average_is_weighed_by_the_window_left() {
        let mut subs = pair();
        let mut u = Upstream::default();
        u.schedule(0, &subs, &conn(), &seg());
        subs[0].pacing_rate_bps = 20_000_000;
        let narrow = ConnView {
            wnd_left: 2896,
            ..conn()
        };
        u.schedule(0, &subs, &narrow, &seg());
        let expect = (10_000_000u128 * 20_000 + 20_000_000u128 * 2896) / 22_896;
        assert_eq!(u.avg_pacing_bps(0), Some(expect as u64));
        let shut = ConnView {
            wnd_left: 0,
            ..conn()
        };
        subs[0].pacing_rate_bps = 40_000_000;
        u.schedule(0, &subs, &shut, &seg());
        assert_eq!(u.avg_pacing_bps(0), Some(expect as u64));
    }

    /// Two subflows with send buffers (the connection's upstream mode).
    fn buffered_pair() -> [SubflowView; 2] {
        let mut subs = pair();
        for s in &mut subs {
            s.sndbuf = 100_000;
            s.wmem_queued = s.unacked_bytes;
        }
        subs
    }

    #[test]
    fn room_is_send_buffer_space_not_cwnd_space() {
        let mut subs = buffered_pair();
        // cwnd full, but the send buffer has room: the kernel still queues.
        subs[0].inflight_pkts = subs[0].cwnd_pkts;
        subs[0].in_loss = true;
        let mut u = Upstream::default();
        assert_eq!(
            u.schedule(0, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        // Send buffer full: wait for the pick, do not take subflow 1.
        subs[0].wmem_queued = 100_000;
        subs[0].unacked_bytes = 10_000; // linger still read from wmem: 80 ms > 20 ms
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(1)
        );
        subs[1].wmem_queued = 1_000_000;
        subs[0].wmem_queued = 99_999;
        // 0: 80 ms < 1: 4 s, and 99 999 < 100 000: room.
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Send(0)
        );
        subs[0].wmem_queued = 100_000;
        subs[1].wmem_queued = 1_000_000;
        subs[0].pacing_rate_bps = 1_000_000_000; // 0 has the lower linger but no room
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &seg())
                .decision,
            Decision::Wait
        );
    }

    #[test]
    fn burst_keeps_the_pick_for_one_instant_and_65428_bytes() {
        let mut subs = buffered_pair();
        let mut u = Upstream::default();
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        // Subflow 0 now looks worse (linger 800 ms), but the burst holds it.
        subs[0].wmem_queued = 99_000;
        for _ in 0..64 {
            assert_eq!(
                u.schedule(5, &subs, &conn(), &seg()).decision,
                Decision::Send(0)
            );
        }
        // 65 segments of 1000 B sent: 428 B of burst left, one more.
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        // Burst spent: a fresh pick.
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(1)
        );
        // A new instant starts a new pick; so does a full send buffer.
        let mut u = Upstream::default();
        subs[0].wmem_queued = 0;
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        subs[0].wmem_queued = 99_000;
        assert_eq!(
            u.schedule(6, &subs, &conn(), &seg()).decision,
            Decision::Send(1)
        );
        let mut u = Upstream::default();
        subs[0].wmem_queued = 0;
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        subs[0].wmem_queued = 100_000;
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(1)
        );
    }

    /// `__subflow_push_pending` tests room and burst only after a whole
    /// data fragment: inside one the burst's subflow takes every segment,
    /// even past its `sk_sndbuf` and the burst size.
    #[test]
    fn burst_finishes_the_data_fragment_before_testing_room_and_burst() {
        let mut subs = buffered_pair();
        let mid = Segment {
            frag_boundary: false,
            ..seg()
        };
        let mut u = Upstream::default();
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        subs[0].wmem_queued = 100_000; // full, and 80 ms against 1's 20 ms
        for _ in 0..100 {
            // 100 x 1000 B: beyond the 65428 B burst too
            assert_eq!(
                u.schedule(5, &subs, &conn(), &mid).decision,
                Decision::Send(0)
            );
        }
        // The next fragment: no room on 0, a fresh pick.
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(1)
        );
        // A new instant picks afresh, inside a fragment too; so does a
        // new push (the next write call's data).
        for (t, push, s) in [(6, false, mid), (5, true, mid)] {
            let mut u = Upstream::default();
            subs[0].wmem_queued = 0;
            u.schedule(5, &subs, &conn(), &seg());
            subs[0].wmem_queued = 100_000;
            if push {
                u.new_push();
            }
            assert_eq!(
                u.schedule(t, &subs, &conn(), &s).decision,
                Decision::Send(1)
            );
        }
    }

    /// A new push (an application write, `super::super::super::push`)
    /// ends the burst even at the same instant: the next segment gets a
    /// fresh linger-time pick.
    #[test]
    fn a_new_push_ends_the_burst() {
        let mut subs = buffered_pair();
        let mut u = Upstream::default();
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0)
        );
        subs[0].wmem_queued = 99_000;
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(0),
            "the burst holds subflow 0"
        );
        u.new_push();
        assert_eq!(
            u.schedule(5, &subs, &conn(), &seg()).decision,
            Decision::Send(1),
            "a fresh pick after the push"
        );
    }

    #[test]
    fn linux_pacing_rate_factors() {
        // 10 x 1000 B per 10 ms = 8 Mbit/s; slow start far from ssthresh: 200 %.
        assert_eq!(
            linux_pacing_rate_bps(10, u32::MAX, 0, 1000, 10 * MS),
            16_000_000
        );
        // cwnd >= ssthresh / 2: 120 %.
        assert_eq!(linux_pacing_rate_bps(10, 20, 0, 1000, 10 * MS), 9_600_000);
        // packets_out above cwnd counts.
        assert_eq!(linux_pacing_rate_bps(10, 20, 20, 1000, 10 * MS), 19_200_000);
        // No SRTT: huge, never zero.
        assert!(linux_pacing_rate_bps(10, 20, 0, 1000, 0) > 100_000_000_000);
    }

    #[test]
    fn reinjection_on_idle_subflow() {
        let mut subs = pair();
        let re = Segment {
            reinjection: true,
            ..seg()
        };
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &re)
                .decision,
            Decision::Wait
        );
        subs[1].unacked_bytes = 0;
        assert_eq!(
            Upstream::default()
                .schedule(0, &subs, &conn(), &re)
                .decision,
            Decision::Send(1)
        );
    }
}
