//! Coupled congestion control for MPTCP subflows (LIA, OLIA, BALIA, wVegas).
//!
//! Shape (modelled on Linux `tcp_congestion_ops`, so a single-path TCP
//! congestion-control trait can adopt it):
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

/// A coupled congestion controller for all subflows of one connection.
pub trait CoupledCc {
    /// Name as used in scenario files ("lia", "olia", "balia", "wvegas").
    fn name(&self) -> &'static str;

    /// ACK of `acked_pkts` new packets on subflow `me` (cwnd-limited).
    fn on_ack(&mut self, me: usize, subflows: &[SubflowCc], acked_pkts: u32) -> CwndUpdate;

    /// Congestion event on subflow `me`: the new ssthresh in packets.
    fn ssthresh_on_loss(&mut self, me: usize, subflows: &[SubflowCc]) -> u32;

    /// An RTT sample for subflow `me` (default: ignored).
    fn on_rtt_sample(&mut self, _me: usize, _rtt: Nanos) {}
}

/// Names accepted by `by_name`, in a fixed order.
pub fn names() -> &'static [&'static str] {
    &["lia", "olia", "balia", "wvegas"]
}

/// A fresh controller by scenario name.
pub fn by_name(name: &str) -> Option<Box<dyn CoupledCc>> {
    match name {
        "lia" => Some(Box::new(lia::Lia::default())),
        "olia" => Some(Box::new(olia::Olia::default())),
        "balia" => Some(Box::new(balia::Balia::default())),
        "wvegas" => Some(Box::new(wvegas::WVegas::default())),
        _ => None,
    }
}

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

/// Grow a per-subflow state vector so that index `me` exists.
/// One ACK for subflow `me` under a linked-increase algorithm (LIA, BALIA):
/// slow start as in TCP for the packets below ssthresh, then the
/// algorithm's per-packet congestion-avoidance increase `inc(me, snapshot)`
/// for the rest, evaluated with `me`'s window after slow start.
pub(crate) fn linked_increase(
    acc: &mut Vec<CwndAcc>,
    me: usize,
    subflows: &[SubflowCc],
    acked_pkts: u32,
    inc: impl Fn(usize, &[SubflowCc]) -> f64,
) -> CwndUpdate {
    ensure(acc, subflows.len());
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
        cwnd = acc[me].apply(cwnd, inc_pkts * left as f64);
    }
    CwndUpdate {
        cwnd,
        ssthresh: s.ssthresh,
    }
}

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

    #[test]
    fn registry_names_resolve() {
        for n in names() {
            assert_eq!(by_name(n).unwrap().name(), *n);
        }
        assert!(by_name("cubic").is_none());
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
                let mut cc = by_name(name).unwrap();
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
