//! Coupled congestion control for MPTCP subflows (LIA, OLIA, BALIA, wVegas).
//!
//! Each algorithm is a `tcp::cc::CongestionControl` (the one trait for all
//! congestion controls, shaped like Linux `tcp_congestion_ops`), built by
//! `tcp::cc::CcKind` once per connection and shared by the senders of all
//! subflows through `tcp::cc::SharedCc` (Linux v0.9x: `mptcp_ccc` and
//! `mptcp_olia` are `tcp_congestion_ops` walking the meta socket's subflow
//! list). The connection-wide state a coupled algorithm sees is the `paths`
//! slice each hook receives: every subflow in subflow-index order, the
//! calling one at `CcState::path_index`. `coupled_cc!` turns the hooks into
//! the algorithms' own form, a snapshot `&[SubflowCc]` plus the index `me`:
//! - `on_ack(me, subflows, acked_pkts)` is called for every ACK that advances
//!   `snd_una` of subflow `me` while the subflow is cwnd-limited (the caller
//!   checks `tcp_is_cwnd_limited`, as Linux does before `cong_avoid`). It returns
//!   the new cwnd (and ssthresh, which only wVegas changes here).
//! - `ssthresh_on_loss(me, subflows)` is called once per congestion event
//!   (entering fast recovery, or the first RTO of a loss episode) and returns
//!   the new ssthresh; the caller sets cwnd as its loss recovery prescribes.
//! - `on_rtt_sample(me, rtt)` gets every RTT sample (wVegas needs them).
//!
//! Windows are integer packets as in Linux (`snd_cwnd`); fractional increases
//! accumulate in a per-subflow `f64` counter (the role of `snd_cwnd_cnt`) and the
//! window moves by whole packets. The increase itself is computed in `f64`
//! exactly from the published formula, so no `alpha_scale` fixed point is needed.
//!
//! Subflow indices (`me`, positions in `subflows`) must be stable for the life
//! of the connection: a closed subflow stays in the slice with `can_send = false`.

pub mod balia;
pub mod lia;
pub mod olia;
pub mod wvegas;

use crate::tcp::cc::{CaState, CcState, PathView, INFINITE_SSTHRESH};
use crate::time::Nanos;

/// Snapshot of one subflow, as the coupled algorithms see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubflowCc {
    /// Congestion window in packets (Linux `snd_cwnd`).
    pub cwnd: u32,
    /// Slow-start threshold in packets; `u32::MAX` while "infinite".
    pub ssthresh: u32,
    /// Smoothed RTT; 0 = no sample yet (such a subflow is left out of the
    /// coupling, like `mptcp_ccc_sk_can_send` which requires `srtt != 0`).
    pub srtt: Nanos,
    /// Sender MSS in bytes.
    pub mss: u32,
    /// Subflow established and allowed to send data (`mptcp_sk_can_send`).
    pub can_send: bool,
    /// In fast recovery or RTO recovery (Linux CA state Recovery/Loss). OLIA
    /// then counts the subflow with `ssthresh` instead of the inflated cwnd
    /// (`mptcp_get_crt_cwnd`); wVegas falls back to Reno.
    pub in_recovery: bool,
    /// Subflow-level `snd_una` and `snd_nxt` (byte sequence numbers, unwrapped).
    /// OLIA measures inter-loss distances and wVegas its rounds with them.
    pub snd_una: u64,
    pub snd_nxt: u64,
}

impl SubflowCc {
    /// A subflow that takes part in the coupling (can send, has an RTT).
    pub fn coupled(&self) -> bool {
        self.can_send && self.srtt > 0
    }

    /// RFC 5681 section 3.1 / Linux >= 4.x `tcp_in_slow_start`: cwnd < ssthresh.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What `on_ack` returns: the subflow's new window and threshold (packets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwndUpdate {
    pub cwnd: u32,
    pub ssthresh: u32,
}

/// `INFINITE_SSTHRESH` of the TCP machinery is `u32::MAX` here.
fn ss_in(x: u32) -> u32 {
    if x >= INFINITE_SSTHRESH {
        u32::MAX
    } else {
        x
    }
}

/// `u32::MAX` (infinite) back to the TCP machinery's `INFINITE_SSTHRESH`.
pub(crate) fn ss_out(x: u32) -> u32 {
    if x == u32::MAX {
        INFINITE_SSTHRESH
    } else {
        x
    }
}

/// The snapshot entry of another path (`snapshot`).
#[inline]
pub(crate) fn path_cc(p: &PathView) -> SubflowCc {
    SubflowCc {
        cwnd: p.cwnd,
        ssthresh: ss_in(p.ssthresh),
        srtt: p.srtt,
        mss: p.mss,
        can_send: p.srtt > 0,
        in_recovery: false,
        snd_una: 0,
        snd_nxt: 0,
    }
}

/// The snapshot entry of the calling path, from its live state (`snapshot`).
#[inline]
pub(crate) fn own_cc(s: &CcState) -> SubflowCc {
    SubflowCc {
        cwnd: s.cwnd,
        ssthresh: ss_in(s.ssthresh),
        srtt: s.srtt,
        mss: s.mss,
        can_send: true,
        in_recovery: matches!(s.ca_state, CaState::Recovery | CaState::Loss),
        snd_una: s.snd_una,
        snd_nxt: s.snd_nxt,
    }
}

/// The calling path's position in the snapshot and the snapshot's length
/// (`snapshot`: at least one entry, the caller's).
#[inline]
pub(crate) fn snapshot_shape(s: &CcState, paths: &[PathView]) -> (usize, usize) {
    (
        s.path_index.min(paths.len().saturating_sub(1)),
        paths.len().max(1),
    )
}

/// The coupled algorithms' snapshot, into `v`: every path from `paths`, the
/// calling one from its live state `s` (the slice may be a little older than
/// `s`). Returns the calling path's position `me`.
pub(crate) fn snapshot(s: &CcState, paths: &[PathView], v: &mut Vec<SubflowCc>) -> usize {
    v.clear();
    v.extend(paths.iter().map(path_cc));
    let (me, _) = snapshot_shape(s, paths);
    let mine = own_cc(s);
    if v.is_empty() {
        v.push(mine);
    } else {
        v[me] = mine;
    }
    me
}

/// A coupled algorithm `A` (LIA, OLIA, BALIA, wVegas) as a congestion
/// control: `coupled_cc!` implements `CongestionControl` for it, turning each
/// hook's `(CcState, paths)` into the algorithm's snapshot `&[SubflowCc]`
/// (kept here, reused across calls) and the caller's index `me`.
#[derive(Clone, Debug, Default)]
pub struct Coupled<A> {
    snap: Vec<SubflowCc>,
    pub alg: A,
}

/// `impl CongestionControl for Coupled<$t>`, for a coupled algorithm `$t`
/// with the inherent methods `on_ack(me, subflows, acked)` (Linux
/// `cong_avoid`) and `ssthresh_on_loss(me, subflows)` (Linux `ssthresh`);
/// with `rtt`, also `on_rtt_sample(me, rtt)` (Linux `pkts_acked`, wVegas).
/// The other hooks keep the trait's Reno defaults (`undo_cwnd` =
/// tcp_reno_undo_cwnd), as the Linux coupled modules do.
macro_rules! coupled_cc {
    ($t:ident, $name:literal $(, $rtt:ident)?) => {
        impl $crate::tcp::cc::CongestionControl for $crate::mptcp::cc::Coupled<$t> {
            fn name(&self) -> &'static str {
                $name
            }

            fn is_coupled(&self) -> bool {
                true
            }

            fn hooks(&self) -> $crate::tcp::cc::Hooks {
                $crate::mptcp::cc::coupled_cc!(@hooks $($rtt)?)
            }

            fn ssthresh(
                &mut self,
                s: &$crate::tcp::cc::CcState,
                paths: &[$crate::tcp::cc::PathView],
                _now: $crate::time::Nanos,
            ) -> u32 {
                let me = $crate::mptcp::cc::snapshot(s, paths, &mut self.snap);
                $crate::mptcp::cc::ss_out(self.alg.ssthresh_on_loss(me, &self.snap))
            }

            fn cong_avoid(
                &mut self,
                s: &mut $crate::tcp::cc::CcState,
                paths: &[$crate::tcp::cc::PathView],
                acked: u32,
                _now: $crate::time::Nanos,
            ) {
                let me = $crate::mptcp::cc::snapshot(s, paths, &mut self.snap);
                let u = self.alg.on_ack(me, &self.snap, acked);
                s.cwnd = u.cwnd.max(1);
                s.ssthresh = $crate::mptcp::cc::ss_out(u.ssthresh);
            }

            $($crate::mptcp::cc::coupled_cc!(@$rtt);)?
        }
    };
    // wVegas takes its RTT samples in `pkts_acked`; the others keep the
    // trait's empty defaults for every optional hook.
    (@hooks) => {
        $crate::tcp::cc::Hooks::NONE
    };
    (@hooks rtt) => {
        $crate::tcp::cc::Hooks::PKTS_ACKED
    };
    (@rtt) => {
        fn pkts_acked(
            &mut self,
            s: &mut $crate::tcp::cc::CcState,
            _acked: u32,
            rtt: Option<$crate::time::Nanos>,
            _now: $crate::time::Nanos,
        ) {
            if let Some(r) = rtt {
                self.alg.on_rtt_sample(s.path_index, r);
            }
        }
    };
}
pub(crate) use coupled_cc;

/// RTT in seconds, the unit the formulas are written in (any unit works as
/// long as it is the same everywhere; seconds keep the numbers readable).
pub(crate) fn rtt_s(srtt: Nanos) -> f64 {
    srtt as f64 / 1e9
}

/// Reno slow start (RFC 5681 section 3.1, Linux `tcp_slow_start`): cwnd grows by
/// one packet per acked packet up to ssthresh. Returns the new cwnd and the
/// acked packets left over for congestion avoidance.
pub fn slow_start(cwnd: u32, ssthresh: u32, acked: u32) -> (u32, u32) {
    let new = cwnd.saturating_add(acked).min(ssthresh.max(cwnd));
    (new, acked - (new - cwnd))
}

/// Reno multiplicative decrease (RFC 5681 eq. (4), Linux `tcp_reno_ssthresh`):
/// max(cwnd / 2, 2).
pub fn reno_ssthresh(cwnd: u32) -> u32 {
    (cwnd / 2).max(2)
}

/// Per-subflow fractional-window accumulator (the role of Linux
/// `snd_cwnd_cnt`): adds a (possibly negative) increase in packets and moves
/// the window by whole packets, never below 1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CwndAcc {
    pub frac: f64,
}

impl CwndAcc {
    pub fn apply(&mut self, cwnd: u32, inc_pkts: f64) -> u32 {
        // Summing w increments of 1/w in f64 may land a few ulps below 1.0;
        // the tolerance keeps "w ACKs -> +1 packet" exact (Linux OLIA has the
        // same kind of slack: `cnt >= (1 << scale) - 1`).
        const EPS: f64 = 1e-9;
        let mut cwnd = cwnd;
        self.frac += inc_pkts;
        while self.frac >= 1.0 - EPS {
            cwnd = cwnd.saturating_add(1);
            self.frac -= 1.0;
        }
        while self.frac <= -1.0 + EPS {
            cwnd = cwnd.saturating_sub(1).max(1);
            self.frac += 1.0;
        }
        cwnd
    }
}

/// One ACK for subflow `me` under a linked-increase algorithm (LIA, BALIA):
/// slow start as in TCP for the packets below ssthresh, then the
/// algorithm's per-packet congestion-avoidance increase `inc(me, snapshot)`
/// for the rest, evaluated with `me`'s window after slow start. `acc` is
/// `me`'s fractional window counter.
pub(crate) fn linked_increase(
    acc: &mut CwndAcc,
    me: usize,
    subflows: &[SubflowCc],
    acked_pkts: u32,
    inc: impl Fn(usize, &[SubflowCc]) -> f64,
) -> CwndUpdate {
    let s = subflows[me];
    let (mut cwnd, mut left) = (s.cwnd, acked_pkts);
    if s.in_slow_start() {
        (cwnd, left) = slow_start(cwnd, s.ssthresh, acked_pkts);
    }
    if left > 0 {
        let inc_pkts = if cwnd == s.cwnd {
            // Congestion avoidance only: the snapshot is already right.
            inc(me, subflows)
        } else {
            let mut snap = subflows.to_vec();
            snap[me].cwnd = cwnd;
            inc(me, &snap)
        };
        cwnd = acc.apply(cwnd, inc_pkts * left as f64);
    }
    CwndUpdate {
        cwnd,
        ssthresh: s.ssthresh,
    }
}

/// Grow a per-subflow state vector to at least `len` entries.
pub(crate) fn ensure<T: Default>(v: &mut Vec<T>, len: usize) {
    while v.len() < len {
        v.push(T::default());
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;
    use crate::time::MS;

    /// A coupled subflow in congestion avoidance.
    pub fn sf(cwnd: u32, srtt_ms: u64) -> SubflowCc {
        SubflowCc {
            cwnd,
            ssthresh: 1,
            srtt: srtt_ms * MS,
            mss: 1000,
            can_send: true,
            in_recovery: false,
            snd_una: 0,
            snd_nxt: 0,
        }
    }

    pub fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::time::MS;

    /// The loss-based coupled algorithms by name, in their own form.
    enum Coupled {
        Lia(lia::Lia),
        Olia(olia::Olia),
        Balia(balia::Balia),
    }

    impl Coupled {
        fn new(name: &str) -> Coupled {
            match name {
                "lia" => Coupled::Lia(Default::default()),
                "olia" => Coupled::Olia(Default::default()),
                _ => Coupled::Balia(Default::default()),
            }
        }
        fn on_ack(&mut self, me: usize, s: &[SubflowCc], acked: u32) -> CwndUpdate {
            match self {
                Coupled::Lia(c) => c.on_ack(me, s, acked),
                Coupled::Olia(c) => c.on_ack(me, s, acked),
                Coupled::Balia(c) => c.on_ack(me, s, acked),
            }
        }
        fn ssthresh_on_loss(&mut self, me: usize, s: &[SubflowCc]) -> u32 {
            match self {
                Coupled::Lia(c) => c.ssthresh_on_loss(me, s),
                Coupled::Olia(c) => c.ssthresh_on_loss(me, s),
                Coupled::Balia(c) => c.ssthresh_on_loss(me, s),
            }
        }
    }

    fn st(cwnd: u32, idx: usize) -> CcState {
        CcState {
            cwnd,
            cwnd_cnt: 0,
            ssthresh: 5,
            mss: 1000,
            srtt: 50 * MS,
            min_rtt: 50 * MS,
            in_flight: cwnd,
            ca_state: CaState::Open,
            path_index: idx,
            snd_una: 1,
            snd_nxt: 1,
        }
    }

    /// Two equal subflows under LIA, driven through the one congestion
    /// control trait with the `paths` slice, grow by 1/(4w)-ish per ACK, i.e.
    /// much slower than one Reno flow (1/w per ACK); alone, LIA is Reno.
    #[test]
    fn coupled_through_the_paths_slice_of_the_one_trait() {
        use crate::tcp::cc::{CcKind, CongestionControl, SharedCc};
        let mut a = SharedCc::new(CcKind::Lia.build());
        let s0 = st(10, 0);
        let paths = [PathView::of(&s0), PathView::of(&st(10, 1))];
        let mut s = s0.clone();
        for _ in 0..10 {
            a.cong_avoid(&mut s, &paths, 1, 0);
        }
        // Reno would reach 11 after 10 ACKs; LIA with two equal paths needs ~40.
        assert_eq!(s.cwnd, 10);
        let mut alone = st(10, 0);
        let mut b = CcKind::Lia.build();
        for _ in 0..10 {
            b.cong_avoid(&mut alone, &[PathView::of(&st(10, 0))], 1, 0);
        }
        assert_eq!(alone.cwnd, 11);
        assert_eq!(a.ssthresh(&s, &paths, 0), 5);
        assert_eq!(a.name(), "lia");
    }

    /// Infinite ssthresh crosses the trait as `INFINITE_SSTHRESH` both ways.
    #[test]
    fn infinite_ssthresh_round_trips() {
        use crate::tcp::cc::CcKind;
        let mut s = st(10, 0);
        s.ssthresh = INFINITE_SSTHRESH;
        let mut c = CcKind::Olia.build();
        let paths = [PathView::of(&s)];
        c.cong_avoid(&mut s, &paths, 2, 0);
        assert_eq!((s.cwnd, s.ssthresh), (12, INFINITE_SSTHRESH));
    }

    #[test]
    fn slow_start_caps_at_ssthresh_and_returns_leftover() {
        assert_eq!(slow_start(10, u32::MAX, 2), (12, 0));
        assert_eq!(slow_start(10, 11, 3), (11, 2));
    }

    #[test]
    fn accumulator_moves_whole_packets() {
        let mut a = CwndAcc::default();
        let mut w = 10;
        for _ in 0..10 {
            w = a.apply(w, 0.1);
        }
        assert_eq!(w, 11);
        w = a.apply(w, -1.0);
        assert_eq!(w, 10);
        assert_eq!(CwndAcc::default().apply(1, -5.0), 1);
    }

    /// With one subflow LIA, OLIA and BALIA are Reno: +1 packet after cwnd
    /// ACKs (1/w per ACK) and ssthresh = cwnd/2 on loss.
    #[test]
    fn one_subflow_is_reno_for_loss_based_algorithms() {
        for name in ["lia", "olia", "balia"] {
            for w in [2u32, 3, 10, 57, 400] {
                let mut cc = Coupled::new(name);
                let mut s = [sf(w, 30)];
                for _ in 0..w - 1 {
                    let u = cc.on_ack(0, &s, 1);
                    assert_eq!(u.cwnd, w, "{name} w={w}");
                    s[0].cwnd = u.cwnd;
                }
                assert_eq!(cc.on_ack(0, &s, 1).cwnd, w + 1, "{name} w={w}");
                assert_eq!(cc.ssthresh_on_loss(0, &s), reno_ssthresh(w), "{name}");
            }
        }
    }

    /// RFC 6356 goal 2 ("do no harm"): two subflows sharing a bottleneck with
    /// equal RTT and loss probability p take, in equilibrium, what one TCP flow
    /// takes there. One TCP flow: per ACK +1/W, per loss -W/2; balance
    /// (1-p)/W = p W/2 gives W = sqrt(2/p) (approx. for small p, here exact
    /// with the (1-p) factor dropped on both sides). With p = 1/200, W = 20.
    /// Split 10 + 10 across the two subflows, each subflow must then be in
    /// balance too: increase per ACK == p * (decrease per loss) = 10/2/200.
    #[test]
    fn two_equal_subflows_equilibrium_is_one_tcp() {
        let p = 1.0 / 200.0;
        let s = [sf(10, 50), sf(10, 50)];
        let decrease = 10.0 / 2.0;
        for name in ["lia", "olia", "balia"] {
            let inc = match name {
                "lia" => lia::increase_per_ack(0, &s),
                "olia" => olia::Olia::default().increase_per_ack(0, &s),
                _ => balia::increase_per_ack(0, &s),
            };
            // 1/(4w) = 1/40 per ACK for all three (see each module's tests).
            assert!(close(inc, p * decrease), "{name}: {inc}");
        }
        // The single TCP at W = 20 is in balance too: 1/20 == p * 20/2.
        assert!(close(1.0 / 20.0, p * 20.0 / 2.0));
    }
}
