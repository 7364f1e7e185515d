//! The congestion control a sender calls: Linux CUBIC (the default, and the
//! background traffic's) as its own type, every other algorithm through the
//! trait object.
//!
//! Linux calls a socket's `tcp_congestion_ops` through function pointers
//! (`icsk->icsk_ca_ops->cong_avoid` from `tcp_cong_avoid`, `->pkts_acked`
//! from `tcp_clean_rtx_queue`), as the sender called its
//! `Box<dyn CongestionControl>`: a call through the vtable on every ACK for
//! each of the two, with the argument set-up and, for `cong_avoid`, a path
//! view CUBIC does not read. `SenderCc::Cubic` calls the bodies of
//! `CubicLinux`'s own `cong_avoid` and `pkts_acked` directly, so the
//! compiler inlines them into the ACK path: the same code and arithmetic
//! (tcp_cubic.c `cubictcp_cong_avoid` / `cubictcp_acked`), without the
//! vtable (docs/performance.md, "Session 32 pass").

use super::cubic_linux::CubicLinux;
use super::{CaState, CcState, CongestionControl, CwndEvent, Hooks, PathView};
use crate::time::Nanos;

/// A sender's congestion control (`PathSender::cc`).
#[derive(Debug)]
pub enum SenderCc {
    /// Linux CUBIC (`CcKind::Cubic` with `CubicVariant::Linux`), called
    /// without the vtable. Boxed: the sender keeps its size.
    Cubic(Box<CubicLinux>),
    /// Any other algorithm (NewReno, RFC 9438 CUBIC, the coupled ones
    /// through `SharedCc`).
    Other(Box<dyn CongestionControl>),
}

impl SenderCc {
    /// `cc`, taken as `Cubic` when it is Linux CUBIC
    /// (`CongestionControl::as_linux_cubic`: a copy of its state, which is
    /// what it was built with).
    pub fn new(cc: Box<dyn CongestionControl>) -> Self {
        match cc.as_linux_cubic() {
            Some(c) => SenderCc::Cubic(Box::new(c.clone())),
            None => SenderCc::Other(cc),
        }
    }

    /// The algorithm as a trait object (the hooks that are not on the
    /// per-ACK path, and tests).
    pub fn as_dyn(&mut self) -> &mut dyn CongestionControl {
        match self {
            SenderCc::Cubic(c) => &mut **c,
            SenderCc::Other(c) => &mut **c,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            SenderCc::Cubic(c) => c.name(),
            SenderCc::Other(c) => c.name(),
        }
    }

    pub fn hooks(&self) -> Hooks {
        match self {
            SenderCc::Cubic(c) => c.hooks(),
            SenderCc::Other(c) => c.hooks(),
        }
    }

    /// `CongestionControl::cong_avoid` with `paths`, or this path's own
    /// view when None (`s` synced: its `in_flight` is current). CUBIC
    /// (`cubictcp_cong_avoid`) reads its own state alone, so no view is
    /// built for it.
    #[inline(always)]
    pub fn cong_avoid(
        &mut self,
        s: &mut CcState,
        paths: Option<&[PathView]>,
        acked: u32,
        now: Nanos,
    ) {
        match self {
            SenderCc::Cubic(c) => c.cong_avoid_own(s, acked, now),
            SenderCc::Other(c) => {
                let own;
                let ps = match paths {
                    Some(p) => p,
                    None => {
                        own = [PathView::of(s)];
                        &own[..]
                    }
                };
                c.cong_avoid(s, ps, acked, now)
            }
        }
    }

    /// `CongestionControl::pkts_acked`.
    #[inline(always)]
    pub fn pkts_acked(&mut self, s: &mut CcState, acked: u32, rtt: Option<Nanos>, now: Nanos) {
        match self {
            SenderCc::Cubic(c) => c.pkts_acked_inline(s, acked, rtt, now),
            SenderCc::Other(c) => c.pkts_acked(s, acked, rtt, now),
        }
    }

    pub fn ssthresh(&mut self, s: &CcState, paths: &[PathView], now: Nanos) -> u32 {
        self.as_dyn().ssthresh(s, paths, now)
    }

    pub fn undo_cwnd(&mut self, s: &CcState, prior_cwnd: u32) -> u32 {
        self.as_dyn().undo_cwnd(s, prior_cwnd)
    }

    pub fn init(&mut self, s: &mut CcState, now: Nanos) {
        self.as_dyn().init(s, now)
    }

    pub fn set_state(&mut self, s: &mut CcState, new: CaState, now: Nanos) {
        self.as_dyn().set_state(s, new, now)
    }

    pub fn cwnd_event(&mut self, s: &mut CcState, ev: CwndEvent, now: Nanos) {
        self.as_dyn().cwnd_event(s, ev, now)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{test_state, CcKind, CubicVariant, HyStartMode};
    use super::*;
    use crate::tcp::timer_wheel::JiffyClock;
    use crate::time::{MS, SEC};

    fn build(k: CcKind, v: CubicVariant, h: HyStartMode) -> Box<dyn CongestionControl> {
        k.build_with(v, h, JiffyClock::with_phase(250, 1_320_000))
    }

    /// Linux CUBIC, whatever its HyStart, is called directly; every other
    /// algorithm through the trait object.
    #[test]
    fn only_linux_cubic_is_called_directly() {
        for k in CcKind::ALL {
            for v in CubicVariant::ALL {
                for h in HyStartMode::ALL {
                    let cc = SenderCc::new(build(*k, *v, *h));
                    let direct = *k == CcKind::Cubic && *v == CubicVariant::Linux;
                    assert_eq!(
                        matches!(cc, SenderCc::Cubic(_)),
                        direct,
                        "{} {v:?} {h:?}",
                        k.name()
                    );
                    assert_eq!(cc.name(), k.name());
                }
            }
        }
    }

    /// The direct calls act as the trait object's: the same algorithm
    /// driven through both on one script (slow start, HyStart samples, a
    /// loss, congestion avoidance, an idle restart, an RTO) leaves the same
    /// state, the algorithm's and the path's, after every step.
    #[test]
    fn direct_calls_equal_the_trait_objects() {
        for h in HyStartMode::ALL {
            let mut direct = SenderCc::new(build(CcKind::Cubic, CubicVariant::Linux, *h));
            let mut boxed = build(CcKind::Cubic, CubicVariant::Linux, *h);
            assert!(matches!(direct, SenderCc::Cubic(_)));
            let (mut s1, mut s2) = (
                test_state(10, super::super::INFINITE_SSTHRESH),
                test_state(10, super::super::INFINITE_SSTHRESH),
            );
            let same = |d: &mut SenderCc,
                        b: &dyn CongestionControl,
                        s1: &CcState,
                        s2: &CcState,
                        at: &str| {
                assert_eq!(format!("{:?}", d.as_dyn()), format!("{b:?}"), "{h:?} {at}");
                assert_eq!(s1, s2, "{h:?} {at}");
            };
            direct.init(&mut s1, SEC);
            boxed.init(&mut s2, SEC);
            same(&mut direct, boxed.as_ref(), &s1, &s2, "init");
            let mut now = SEC;
            for i in 0..400u64 {
                now += 3 * MS;
                // RTT rising after 100 ACKs (HyStart's delay exit), a loss
                // at 200, an idle gap at 300
                let rtt = if i < 100 {
                    40 * MS
                } else {
                    40 * MS + (i - 100) * 100_000
                };
                let rtt = (i % 7 != 0).then_some(rtt);
                s1.snd_una += 2_896;
                s2.snd_una += 2_896;
                s1.snd_nxt = s1.snd_una + 20 * 1448;
                s2.snd_nxt = s2.snd_una + 20 * 1448;
                direct.pkts_acked(&mut s1, 2, rtt, now);
                boxed.pkts_acked(&mut s2, 2, rtt, now);
                same(&mut direct, boxed.as_ref(), &s1, &s2, "pkts_acked");
                let p = [PathView::of(&s2)];
                direct.cong_avoid(&mut s1, None, 2, now);
                boxed.cong_avoid(&mut s2, &p, 2, now);
                same(&mut direct, boxed.as_ref(), &s1, &s2, "cong_avoid");
                if i == 200 {
                    let ss1 = direct.ssthresh(&s1, &[PathView::of(&s1)], now);
                    let ss2 = boxed.ssthresh(&s2, &p, now);
                    assert_eq!(ss1, ss2);
                    s1.ssthresh = ss1;
                    s2.ssthresh = ss2;
                    s1.cwnd = ss1;
                    s2.cwnd = ss2;
                }
                if i == 300 {
                    now += 2 * SEC;
                    let ev = CwndEvent::TxStart { idle: 2 * SEC };
                    direct.cwnd_event(&mut s1, ev, now);
                    boxed.cwnd_event(&mut s2, ev, now);
                }
                if i == 350 {
                    direct.set_state(&mut s1, CaState::Loss, now);
                    boxed.set_state(&mut s2, CaState::Loss, now);
                }
                same(&mut direct, boxed.as_ref(), &s1, &s2, "step");
            }
            assert_eq!(direct.undo_cwnd(&s1, 50), boxed.undo_cwnd(&s2, 50));
        }
    }
}
