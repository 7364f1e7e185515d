//! The scheduler of upstream Linux MPTCP (net/mptcp/protocol.c,
//! `mptcp_subflow_get_send`, Linux 6.x), plus its retransmission choice
//! (`mptcp_subflow_get_retrans`).
//!
//! New data: among active subflows, the one with the lowest linger time
//!
//! ```text
//!   linger = wmem_queued / avg_pacing_rate
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
//! Reinjections: the first active regular subflow with empty queues, else the
//! first such backup subflow (`mptcp_subflow_get_retrans`).
//!
//! Simplifications: wmem_queued is `unacked_bytes` (queued plus in-flight
//! bytes of the subflow); "memory free" is "has cwnd space for its queue"
//! (`SubflowView::temp_unavailable`), since the model has no socket buffer
//! autotuning; a potentially failed subflow counts as stale and is skipped;
//! burst = `MPTCP_SEND_BURST_SIZE` when the segment fits the receive window,
//! else 0; the per-burst stickiness of `__mptcp_push_pending` (keep the
//! subflow for up to one burst) is the caller's business.

use std::collections::BTreeMap;

use super::{nothing_now, ConnView, Decision, SchedOutcome, Scheduler, Segment, SubflowView};
use crate::time::Nanos;

/// `MPTCP_SEND_BURST_SIZE` (net/mptcp/protocol.c).
pub const SEND_BURST_SIZE: u64 = 65428;

#[derive(Clone, Debug, Default)]
pub struct Upstream {
    /// Per subflow id: average pacing rate in bit/s.
    avg_pacing: BTreeMap<usize, u64>,
}

fn active(s: &SubflowView) -> bool {
    !s.def_unavailable()
}

/// Linux `srtt_us` counts in units of 1/8 us.
const SRTT_UNIT: Nanos = 125;

/// A subflow's pacing rate in bit/s, cwnd * MSS / SRTT (Linux
/// tcp_update_pacing_rate, without its 200 % / 120 % slow-start and
/// congestion-avoidance factors). Before the first RTT sample (`srtt` 0,
/// e.g. after a retransmitted SYN or SYN/ACK, whose RTT Karn's rule
/// discards) the kernel skips the division (`if (likely(tp->srtt_us))
/// do_div(rate, tp->srtt_us)`), so the rate is as if SRTT were one unit of
/// `srtt_us` (1/8 us) - effectively unlimited, never zero. A zero here
/// would make `get_send` skip the subflow for good (`if (!pace) continue`):
/// it would never send, so never get the RTT sample that makes it nonzero.
pub fn pacing_rate_bps(cwnd: u32, mss: u32, srtt: Nanos) -> u64 {
    let per_rtt_bits = cwnd as u128 * mss as u128 * 8;
    let rate = per_rtt_bits * 1_000_000_000 / srtt.max(SRTT_UNIT) as u128;
    rate.min(u64::MAX as u128) as u64
}

/// Time to drain `bytes` at `rate_bps`.
pub fn linger_time(bytes: u64, rate_bps: u64) -> Nanos {
    (bytes as u128 * 8 * 1_000_000_000 / rate_bps as u128) as Nanos
}

impl Upstream {
    fn get_send(&mut self, subflows: &[SubflowView], conn: &ConnView) -> Decision {
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
            let linger = linger_time(s.unacked_bytes, pace);
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
        if s.temp_unavailable() {
            return Decision::Wait;
        }
        let burst = if conn.fits_rwnd { SEND_BURST_SIZE } else { 0 };
        if burst > 0 {
            let wmem = s.unacked_bytes as u128;
            let avg = self.avg_pacing[&s.id] as u128;
            let new =
                (avg * wmem + s.pacing_rate_bps as u128 * burst as u128) / (burst as u128 + wmem);
            self.avg_pacing.insert(s.id, new as u64);
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

    fn schedule(
        &mut self,
        _now: Nanos,
        subflows: &[SubflowView],
        conn: &ConnView,
        seg: &Segment,
    ) -> SchedOutcome {
        SchedOutcome::just(if seg.reinjection {
            Self::get_retrans(subflows)
        } else {
            self.get_send(subflows, conn)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::time::MS;

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
