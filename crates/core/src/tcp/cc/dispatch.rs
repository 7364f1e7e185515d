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
