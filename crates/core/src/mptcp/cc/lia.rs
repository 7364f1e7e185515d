//! LIA, the Linked Increases Algorithm (RFC 6356; Linux `mptcp_coupled.c`).
//!
//! Only congestion avoidance is coupled; slow start, fast retransmit and the
//! halving on loss are those of Reno (RFC 6356 section 3, last paragraphs).
//!
//! Choice of units: the RFC is written in bytes so that subflows with
//! different MSS are handled; Linux (`mptcp_fc_cong_avoid`,
//! `mptcp_recalc_alpha`) works in packets with fixed-point scaling
//! (`alpha_scale_num = 32`, `alpha_scale_den = 10`) and ignores per-subflow MSS.
//! We compute the RFC byte formula in `f64` (no scaling needed) and convert the
//! result to packets of subflow `me`; with equal MSS both give the same
//! increase: Linux's "one packet per max(cwnd_total/alpha, cwnd_i) ACKs" is
//! the RFC's min(alpha/cwnd_total, 1/cwnd_i) per ACK. Linux recomputes alpha
//! only on loss, on cwnd changes and in slow start; we recompute it from the
//! snapshot on every ACK (the RFC's definition, no staleness). Each
//! subflow's terms of the sums are remembered with the inputs they came
//! from (`Terms`), so an ACK recomputes only the terms whose cwnd, MSS or
//! srtt changed: the same numbers, fewer `f64` divisions.

use super::{
    ensure, linked_increase, own_cc, path_cc, reno_ssthresh, rtt_s, slow_start, snapshot,
    snapshot_shape, ss_out, Coupled, CwndAcc, CwndUpdate, SubflowCc,
};
use crate::tcp::cc::{CcState, CongestionControl, PathView};
use crate::time::Nanos;

/// RFC 6356 section 3, the equation for alpha:
///
/// ```text
///                       max_i (cwnd_i / rtt_i^2)
///   alpha = cwnd_total * ------------------------
///                       (sum_i cwnd_i / rtt_i)^2
/// ```
///
/// with windows in bytes, over the subflows that can send and have an RTT
/// estimate (`mptcp_ccc_sk_can_send`). Returns 1 when no subflow qualifies.
pub fn alpha(subflows: &[SubflowCc]) -> f64 {
    alpha_and_total(subflows).0
}

/// `alpha` and cwnd_total (bytes, over the same subflows), in one pass.
fn alpha_and_total(subflows: &[SubflowCc]) -> (f64, f64) {
    let mut a = AlphaSums::default();
    for s in subflows.iter().filter(|s| s.coupled()) {
        a.add(s.cwnd, s.mss, s.srtt);
    }
    a.finish()
}

/// The sums of `alpha_and_total`, one coupled subflow at a time (shared by
/// the snapshot form above and `Lia::on_ack_paths`, which reads the paths
/// in place: the same operations in the same order).
#[derive(Default)]
struct AlphaSums {
    total: f64,
    best: f64,
    sum: f64,
}

impl AlphaSums {
    #[inline]
    fn add(&mut self, cwnd: u32, mss: u32, srtt: Nanos) {
        let w = cwnd as f64 * mss as f64;
        let r = rtt_s(srtt);
        self.total += w;
        self.best = larger(self.best, w / (r * r));
        self.sum += w / r;
    }

    /// `add` with the subflow's terms already computed (`Terms::of`): the
    /// same values, summed in the same order.
    #[inline]
    fn add_terms(&mut self, t: &Terms) {
        self.total += t.w;
        self.best = larger(self.best, t.per_rtt2);
        self.sum += t.per_rtt;
    }

    /// (alpha, cwnd_total); alpha 1 when no subflow qualifies.
    #[inline]
    fn finish(&self) -> (f64, f64) {
        if self.sum == 0.0 {
            return (1.0, self.total);
        }
        (self.total * self.best / (self.sum * self.sum), self.total)
    }
}

/// `a.max(b)` for `AlphaSums::best`: `b` when it is the larger, else `a`.
/// The same value as `f64::max` whenever `a` is not NaN (`best` starts at
/// +0 and takes only values this returns; a NaN `b` leaves `a`, as
/// `f64::max` does) and the two are not zeros of opposite sign (the terms
/// are quotients of a window in bytes, at least +0, by a positive RTT
/// power). A comparison and a select: `f64::max`'s NaN handling cost five
/// more instructions per term on every ACK (docs/performance.md "Session
/// 22 pass").
#[inline(always)]
fn larger(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `linked.min(reno)` for the increase per ACK: `linked` when it is the
/// smaller, else `reno`. The same value as `f64::min` whenever `reno` is
/// not NaN (it is 1 / cwnd, cwnd at least 1): a NaN `linked` (no window in
/// bytes at all, 0 / 0) gives `reno` in both, and neither is a negative
/// zero.
#[inline(always)]
fn smaller(linked: f64, reno: f64) -> f64 {
    if linked < reno {
        linked
    } else {
        reno
    }
}

/// One subflow's terms of alpha (`AlphaSums::add`: cwnd_i in bytes,
/// cwnd_i / rtt_i^2 and cwnd_i / rtt_i), kept with the inputs they were
/// computed from. `on_ack_paths` runs on every cwnd-limited ACK of any
/// subflow, but an ACK changes only its own subflow's window and RTT: the
/// other subflows' terms (three `f64` divisions each) are remembered here
/// and recomputed only when their cwnd, MSS or srtt changed, so the sums
/// are bit for bit those of `add`. The default (srtt 0) never
/// matches a coupled subflow, which has an RTT.
#[derive(Clone, Copy, Debug, Default)]
struct Terms {
    cwnd: u32,
    mss: u32,
    srtt: Nanos,
    w: f64,
    per_rtt2: f64,
    per_rtt: f64,
}

impl Terms {
    /// The terms for (cwnd, mss, srtt), from memory when they are unchanged.
    #[inline]
    fn of(&mut self, cwnd: u32, mss: u32, srtt: Nanos) -> &Terms {
        if self.srtt != srtt || self.cwnd != cwnd || self.mss != mss {
            // exactly `AlphaSums::add`'s expressions
            let w = cwnd as f64 * mss as f64;
            let r = rtt_s(srtt);
            *self = Terms {
                cwnd,
                mss,
                srtt,
                w,
                per_rtt2: w / (r * r),
                per_rtt: w / r,
            };
        }
        self
    }
}

/// Congestion-avoidance increase of subflow `me`, in packets, per acked packet
/// (RFC 6356 section 3): for bytes_acked = mss_i,
///
/// ```text
///   increase_bytes = min(alpha * bytes_acked * mss_i / cwnd_total,
///                        bytes_acked * mss_i / cwnd_i)
/// ```
///
/// and increase_pkts = increase_bytes / mss_i. A subflow outside the coupling
/// (no RTT yet) increases like Reno, 1/cwnd_i.
pub fn increase_per_ack(me: usize, subflows: &[SubflowCc]) -> f64 {
    let s = &subflows[me];
    let reno = 1.0 / s.cwnd.max(1) as f64;
    if !s.coupled() {
        return reno;
    }
    // cwnd_total from alpha's own pass: the same additions in the same
    // order (`me` is coupled, so the sum is positive and its start, 0.0
    // here or -0.0 in `Iterator::sum`, does not show)
    let (alpha, total) = alpha_and_total(subflows);
    let linked = alpha * s.mss as f64 / total;
    smaller(linked, reno)
}

/// LIA's state of one subflow, by position: its fractional window counter
/// and what `on_ack_paths` remembers of it.
#[derive(Clone, Copy, Debug, Default)]
struct LiaPath {
    acc: CwndAcc,
    /// The subflow's alpha terms of the last ACK (`Terms`).
    terms: Terms,
    /// The subflow's Reno increase 1 / cwnd with the cwnd it is for (the
    /// window moves by whole packets, so most ACKs find it unchanged).
    reno: (u32, f64),
}

/// LIA state: only the fractional window counters, and the terms kept
/// beside them. One vector of per-subflow records rather than one vector
/// per field: an ACK grows and indexes one vector, not three
/// (docs/performance.md "Session 22 pass").
#[derive(Clone, Debug, Default)]
pub struct Lia {
    paths: Vec<LiaPath>,
}

impl Lia {
    /// ACK of `acked_pkts` new packets on subflow `me` (cwnd-limited).
    pub fn on_ack(&mut self, me: usize, subflows: &[SubflowCc], acked_pkts: u32) -> CwndUpdate {
        ensure(&mut self.paths, subflows.len());
        let acc = &mut self.paths[me].acc;
        linked_increase(acc, me, subflows, acked_pkts, increase_per_ack)
    }

    /// The fractional window counters, by position (for tests).
    #[cfg(test)]
    fn accs(&self) -> Vec<CwndAcc> {
        self.paths.iter().map(|p| p.acc).collect()
    }

    /// `on_ack` for the calling path `mine` at position `me` of `paths`
    /// (`snapshot_shape`), without building the snapshot: the steps of
    /// `linked_increase` and `increase_per_ack` on the entries `snapshot`
    /// would hold (`path_cc`, `own_cc`), the same arithmetic in the same
    /// order. This runs on every cwnd-limited ACK, and copying the snapshot
    /// cost more than the formula.
    #[inline]
    fn on_ack_paths(
        &mut self,
        me: usize,
        n: usize,
        mine: SubflowCc,
        paths: &[PathView],
        acked_pkts: u32,
    ) -> CwndUpdate {
        // (grown for every call, as before the records were one vector:
        // `ssthresh_on_loss` and the snapshot form see the same length)
        ensure(&mut self.paths, n);
        let st = &mut self.paths[..n];
        let s = mine;
        let (mut cwnd, mut left) = (s.cwnd, acked_pkts);
        if s.in_slow_start() {
            (cwnd, left) = slow_start(cwnd, s.ssthresh, acked_pkts);
        }
        if left > 0 {
            // `increase_per_ack` with `me`'s window after slow start
            let r = &mut st[me].reno;
            if r.0 != cwnd || r.1 == 0.0 {
                *r = (cwnd, 1.0 / cwnd.max(1) as f64);
            }
            let reno = r.1;
            let inc_pkts = if !s.coupled() {
                reno
            } else {
                let mut a = AlphaSums::default();
                // by position, not over `paths`: with no paths the
                // snapshot is `mine` alone (n = 1)
                for (j, t) in st.iter_mut().enumerate() {
                    if j == me {
                        // (an ACK moves its own subflow's srtt almost
                        // always: computed afresh, not remembered)
                        a.add(cwnd, s.mss, s.srtt);
                    } else {
                        let p = path_cc(&paths[j]);
                        if p.coupled() {
                            a.add_terms(t.terms.of(p.cwnd, p.mss, p.srtt));
                        }
                    }
                }
                let (alpha, total) = a.finish();
                let linked = alpha * s.mss as f64 / total;
                smaller(linked, reno)
            };
            cwnd = st[me].acc.apply(cwnd, inc_pkts * left as f64);
        }
        CwndUpdate {
            cwnd,
            ssthresh: s.ssthresh,
        }
    }

    /// RFC 6356 section 3: "the decrease is unchanged", Reno halving.
    pub fn ssthresh_on_loss(&mut self, me: usize, subflows: &[SubflowCc]) -> u32 {
        ensure(&mut self.paths, subflows.len());
        self.paths[me].acc = CwndAcc::default();
        reno_ssthresh(subflows[me].cwnd)
    }
}

/// `coupled_cc!` by hand: `cong_avoid` reads the paths in place
/// (`Lia::on_ack_paths`) instead of copying them into the snapshot first.
impl CongestionControl for Coupled<Lia> {
    fn name(&self) -> &'static str {
        "lia"
    }

    fn is_coupled(&self) -> bool {
        true
    }

    fn ssthresh(&mut self, s: &CcState, paths: &[PathView], _now: Nanos) -> u32 {
        let me = snapshot(s, paths, &mut self.snap);
        ss_out(self.alg.ssthresh_on_loss(me, &self.snap))
    }

    fn cong_avoid(&mut self, s: &mut CcState, paths: &[PathView], acked: u32, _now: Nanos) {
        let (me, n) = snapshot_shape(s, paths);
        let u = self.alg.on_ack_paths(me, n, own_cc(s), paths, acked);
        s.cwnd = u.cwnd.max(1);
        s.ssthresh = ss_out(u.ssthresh);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn alpha_hand_computed() {
        // w = 10 pkts @ 10 ms and 20 pkts @ 40 ms, MSS 1000 B:
        // cwnd bytes 10000, 20000, total 30000
        // cwnd/rtt^2: 10000/0.0001 = 1e8, 20000/0.0016 = 1.25e7 -> max 1e8
        // sum cwnd/rtt: 1e6 + 5e5 = 1.5e6, squared 2.25e12
        // alpha = 30000 * 1e8 / 2.25e12 = 4/3
        let s = [sf(10, 10), sf(20, 40)];
        assert!(close(alpha(&s), 4.0 / 3.0));
        // increase per ACK: min(4/3 * 1000 / 30000, 1/w) = min(2/45, 1/10 | 1/20)
        assert!(close(increase_per_ack(0, &s), 2.0 / 45.0));
        assert!(close(increase_per_ack(1, &s), 2.0 / 45.0));
    }

    #[test]
    fn reno_cap_binds_on_the_large_window() {
        // w = 2 @ 10 ms, 100 @ 100 ms; bytes 2000, 100000, total 102000
        // cwnd/rtt^2: 2e7, 1e7 -> 2e7; sum cwnd/rtt: 2e5 + 1e6 = 1.2e6
        // alpha = 102000 * 2e7 / 1.44e12 = 17/12
        // linked term: 17/12 * 1000 / 102000 = 1/72
        let s = [sf(2, 10), sf(100, 100)];
        assert!(close(alpha(&s), 17.0 / 12.0));
        assert!(close(increase_per_ack(0, &s), 1.0 / 72.0)); // < 1/2
        assert!(close(increase_per_ack(1, &s), 1.0 / 100.0)); // 1/100 < 1/72
    }

    #[test]
    fn two_equal_subflows_give_a_quarter_per_subflow_rtt() {
        // alpha = 2w * (w/r^2) / (2w/r)^2 = 1/2; per ACK (1/2)/(2w) = 1/(4w);
        // w ACKs per RTT on each subflow -> +1/4 each, alpha = 1/2 in total.
        let s = [sf(10, 50), sf(10, 50)];
        assert!(close(alpha(&s), 0.5));
        assert!(close(increase_per_ack(0, &s), 1.0 / 40.0));
        let mut cc = Lia::default();
        let mut cw = 10;
        for _ in 0..40 {
            let mut snap = s;
            snap[0].cwnd = cw;
            cw = cc.on_ack(0, &snap, 1).cwnd;
        }
        // 40 ACKs * 1/40 = +1 packet (cwnd stays 10 during the accumulation)
        assert_eq!(cw, 11);
    }

    #[test]
    fn unequal_mss_uses_bytes() {
        // s0: 10 pkts of 1000 B, s1: 20 pkts of 500 B, both 10 ms -> 10000 B each.
        // cwnd/rtt^2 = 1e8 both; sum cwnd/rtt = 2e6, squared 4e12;
        // alpha = 20000 * 1e8 / 4e12 = 0.5.
        // s0: min(0.5 * 1000 / 20000, 1/10) = 0.025 pkt of 1000 B
        // s1: min(0.5 * 500 / 20000, 1/20) = 0.0125 pkt of 500 B
        let mut s = [sf(10, 10), sf(20, 10)];
        s[1].mss = 500;
        assert!(close(alpha(&s), 0.5));
        assert!(close(increase_per_ack(0, &s), 0.025));
        assert!(close(increase_per_ack(1, &s), 0.0125));
    }

    #[test]
    fn subflow_without_rtt_is_reno_and_not_coupled() {
        let mut s = [sf(10, 10), sf(20, 40)];
        s[1].srtt = 0;
        // only subflow 0 is coupled: alpha = 1, increase 1/10
        assert!(close(alpha(&s), 1.0));
        assert!(close(increase_per_ack(0, &s), 0.1));
        assert!(close(increase_per_ack(1, &s), 1.0 / 20.0));
    }

    /// The remembered terms (`Terms`) change nothing: `cong_avoid` (paths
    /// read in place, terms from memory) and the snapshot form `Lia::on_ack`
    /// (every term computed afresh) give the same windows and the same
    /// fractional counters, bit for bit, over random ACK sequences where
    /// windows, RTTs, MSS and the set of coupled paths change.
    #[test]
    fn remembered_terms_equal_the_snapshot_form() {
        use crate::tcp::cc::CaState;
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(16);
        for _case in 0..200 {
            let n = rng.random_range(1..=4usize);
            let mut st: Vec<CcState> = (0..n)
                .map(|i| CcState {
                    cwnd: rng.random_range(1..60),
                    cwnd_cnt: 0,
                    ssthresh: if rng.random_bool(0.3) {
                        u32::MAX
                    } else {
                        rng.random_range(2..40)
                    },
                    mss: 1448,
                    srtt: rng.random_range(0..3) * rng.random_range(1..200_000_000u64),
                    min_rtt: u64::MAX,
                    in_flight: 0,
                    ca_state: CaState::Open,
                    path_index: i,
                    snd_una: 0,
                    snd_nxt: 0,
                })
                .collect();
            let mut cached = Coupled::<Lia>::default();
            let mut fresh = Lia::default();
            for _ack in 0..300 {
                let me = rng.random_range(0..n);
                // the ACKed path's RTT moves often, another's now and then
                if rng.random_bool(0.7) {
                    st[me].srtt = rng.random_range(1..200_000_000u64);
                }
                if rng.random_bool(0.05) {
                    let j = rng.random_range(0..n);
                    st[j].srtt = rng.random_range(0..2) * rng.random_range(1..200_000_000u64);
                }
                if rng.random_bool(0.02) {
                    let j = rng.random_range(0..n);
                    st[j].mss = rng.random_range(500..1461);
                }
                let paths: Vec<PathView> = st.iter().map(PathView::of).collect();
                let acked = rng.random_range(1..4);
                let mut snap = Vec::new();
                let at = snapshot(&st[me], &paths, &mut snap);
                let want = fresh.on_ack(at, &snap, acked);
                cached.cong_avoid(&mut st[me], &paths, acked, 0);
                assert_eq!(st[me].cwnd, want.cwnd.max(1));
                assert_eq!(st[me].ssthresh, ss_out(want.ssthresh));
                let (a, b) = (&cached.alg.accs(), &fresh.accs());
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(b) {
                    assert_eq!(x.frac.to_bits(), y.frac.to_bits());
                }
            }
        }
    }

    /// `larger` and `smaller` give what `f64::max` and `f64::min` give, bit
    /// for bit, on the values they are used on: `best` (+0 or a term
    /// taken) against a term, finite, infinite or NaN; `linked`, NaN
    /// included, against a Reno increase 1 / cwnd.
    #[test]
    fn the_comparisons_are_max_and_min_on_their_domain() {
        let terms = [
            0.0,
            f64::MIN_POSITIVE,
            1e-300,
            0.5,
            1.0,
            4.0 / 3.0,
            1e37,
            f64::INFINITY,
            f64::NAN,
        ];
        for &a in terms.iter().filter(|a| !a.is_nan()) {
            for &b in &terms {
                assert_eq!(larger(a, b).to_bits(), a.max(b).to_bits(), "{a} {b}");
            }
        }
        for cwnd in [1u32, 2, 3, 10, 57, 400, u32::MAX] {
            let reno = 1.0 / cwnd as f64;
            for &l in &terms {
                assert_eq!(
                    smaller(l, reno).to_bits(),
                    l.min(reno).to_bits(),
                    "{l} {reno}"
                );
            }
        }
    }

    #[test]
    fn slow_start_then_linked_increase() {
        let mut s = [sf(10, 10), sf(20, 40)];
        s[0].ssthresh = 11;
        let mut cc = Lia::default();
        // 3 acked: +1 in slow start to 11, 2 left for CA at 2/45-ish each
        let u = cc.on_ack(0, &s, 3);
        assert_eq!(u.cwnd, 11);
        assert_eq!(cc.ssthresh_on_loss(0, &s), 5);
    }
}
