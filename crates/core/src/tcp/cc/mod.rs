//! Congestion control, shaped like Linux's `struct tcp_congestion_ops`.
//!
//! Every hook receives the subflow's own state (`CcState`, mutable where the
//! algorithm may change cwnd) and a read-only slice `paths` describing *all*
//! paths of the connection (`paths[s.path_index]` is this one). Plain TCP
//! passes a one-element slice; an MPTCP connection passes its subflows, so
//! coupled algorithms (LIA RFC 6356, OLIA, BALIA, wVegas) can be implemented
//! on this trait without touching the TCP machinery.
//!
//! cwnd and ssthresh count packets (Linux snd_cwnd / snd_ssthresh).

use crate::mptcp::cc as coupled;
use crate::time::Nanos;

mod cubic;
mod cubic_linux;
mod dispatch;
mod hystart;
mod hystart_linux;
mod newreno;

pub use cubic::Cubic;
pub use cubic_linux::CubicLinux;
pub use dispatch::SenderCc;
pub use hystart::HyStartPP;
pub use hystart_linux::LinuxHyStart;
pub use newreno::NewReno;

/// "Infinite" ssthresh (Linux TCP_INFINITE_SSTHRESH).
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Linux `enum tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// Linux `enum tcp_ca_event` (subset used here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// Transmission with nothing in flight (Linux CA_EVENT_TX_START);
    /// `idle` is the time since the previous data transmission.
    TxStart { idle: Nanos },
    /// cwnd reduction finished (recovery or CWR ended).
    CompleteCwr,
    /// Retransmission timeout (Linux CA_EVENT_LOSS).
    Loss,
}

/// The subflow's own congestion state, owned by the sender.
#[derive(Clone, Debug, PartialEq)]
pub struct CcState {
    /// Congestion window in packets (Linux snd_cwnd).
    pub cwnd: u32,
    /// Linear-increase counter (Linux snd_cwnd_cnt).
    pub cwnd_cnt: u32,
    /// Slow-start threshold in packets.
    pub ssthresh: u32,
    /// Sender MSS in bytes.
    pub mss: u32,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Nanos,
    /// Minimum RTT seen (Nanos::MAX before the first sample).
    pub min_rtt: Nanos,
    /// Packets in flight (Linux tcp_packets_in_flight).
    pub in_flight: u32,
    pub ca_state: CaState,
    /// Index of this path in the `paths` slice handed to every hook.
    pub path_index: usize,
    /// SND.UNA and SND.NXT (sequence offsets), for round tracking (HyStart++).
    pub snd_una: u64,
    pub snd_nxt: u64,
}

impl CcState {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What a coupled algorithm sees of every path of the connection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathView {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt: Nanos,
    pub min_rtt: Nanos,
    pub mss: u32,
    pub in_flight: u32,
    pub in_slow_start: bool,
}

impl PathView {
    pub fn of(s: &CcState) -> PathView {
        PathView {
            cwnd: s.cwnd,
            ssthresh: s.ssthresh,
            srtt: s.srtt,
            min_rtt: s.min_rtt,
            mss: s.mss,
            in_flight: s.in_flight,
            in_slow_start: s.in_slow_start(),
        }
    }
}

/// The optional hooks a congestion control implements (`init`,
/// `pkts_acked`, `set_state`, `cwnd_event`): the function pointers Linux
/// leaves NULL in a `struct tcp_congestion_ops` that has no such hook, and
/// tests before each call (net/ipv4/tcp_input.c: `tcp_clean_rtx_queue`
/// calls `ca_ops->pkts_acked` only if set; net/ipv4/tcp_cong.c:
/// `tcp_set_ca_state` likewise `set_state`, `tcp_init_congestion_control`
/// `init`; include/net/tcp.h: `tcp_ca_event` `cwnd_event`). A sender reads
/// the set once (`CongestionControl::hooks`) and skips a hook the algorithm
/// leaves empty, so an ACK under LIA, which has no `pkts_acked`, never
/// reaches the connection's shared controller for it. `undo_cwnd`,
/// `ssthresh` and `cong_avoid` are always called (the first has Reno's body
/// as its default, the others are mandatory, as in Linux).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hooks(u8);

impl Hooks {
    pub const NONE: Hooks = Hooks(0);
    pub const INIT: Hooks = Hooks(1);
    pub const PKTS_ACKED: Hooks = Hooks(2);
    pub const SET_STATE: Hooks = Hooks(4);
    pub const CWND_EVENT: Hooks = Hooks(8);
    /// Every optional hook.
    pub const ALL: Hooks = Hooks(15);

    /// Both sets.
    pub const fn and(self, o: Hooks) -> Hooks {
        Hooks(self.0 | o.0)
    }

    /// Every hook of `h` is in this set.
    #[inline]
    pub const fn has(self, h: Hooks) -> bool {
        self.0 & h.0 == h.0
    }
}

/// Linux `struct tcp_congestion_ops`.
pub trait CongestionControl: std::fmt::Debug {
    fn name(&self) -> &'static str;
    /// Couples the windows of several paths, so MPTCP runs one instance per
    /// connection shared by its subflows (`SharedCc`) and single-path
    /// protocols refuse it. The algorithm says so itself: single-path ones
    /// keep this default, `coupled_cc!` (mptcp/cc) answers true.
    fn is_coupled(&self) -> bool {
        false
    }
    /// The optional hooks this algorithm implements (`Hooks`): a hook left
    /// out here is not called, so it must keep the trait's empty default.
    /// Test `each_algorithms_hooks_are_the_ones_it_implements`.
    fn hooks(&self) -> Hooks {
        Hooks::NONE
    }
    /// Connection (subflow) start (Linux `init`).
    fn init(&mut self, _s: &mut CcState, _now: Nanos) {}
    /// New slow-start threshold after a loss (Linux `ssthresh`); the caller
    /// stores it. Called on entering recovery, on RTO and on TLP-detected loss.
    fn ssthresh(&mut self, s: &CcState, paths: &[PathView], now: Nanos) -> u32;
    /// cwnd growth on an ACK that delivered `acked` packets (Linux `cong_avoid`);
    /// only called outside cwnd reduction and when cwnd limited.
    fn cong_avoid(&mut self, s: &mut CcState, paths: &[PathView], acked: u32, now: Nanos);
    /// Packets acknowledged, with an RTT sample if one was taken (Linux `pkts_acked`).
    /// May set ssthresh (Linux HyStart does, from cubictcp_acked).
    fn pkts_acked(&mut self, _s: &mut CcState, _acked: u32, _rtt: Option<Nanos>, _now: Nanos) {}
    /// Congestion-avoidance state change (Linux `set_state`).
    fn set_state(&mut self, _s: &mut CcState, _new: CaState, _now: Nanos) {}
    /// Linux `cwnd_event`.
    fn cwnd_event(&mut self, _s: &mut CcState, _ev: CwndEvent, _now: Nanos) {}
    /// cwnd to restore after a spurious reduction (Linux `undo_cwnd`;
    /// `prior_cwnd` is cwnd before the reduction). Default: tcp_reno_undo_cwnd.
    fn undo_cwnd(&mut self, s: &CcState, prior_cwnd: u32) -> u32 {
        s.cwnd.max(prior_cwnd)
    }
    /// This algorithm is Linux CUBIC (`CubicLinux`): a sender calls it
    /// without the vtable (`SenderCc`). Only `CubicLinux` answers Some.
    fn as_linux_cubic(&self) -> Option<&CubicLinux> {
        None
    }
}

crate::named_enum! {
    /// Congestion control algorithm (`transport.cc`): one line each, with
    /// the name, the description `mptlab list` prints and the factory. One
    /// trait for all of them: the single-path ones get one instance per path;
    /// the coupled ones (`CongestionControl::is_coupled`) one instance per MPTCP connection,
    /// shared by its subflows (`SharedCc`), which sees every subflow through
    /// the `paths` slice of each hook.
    pub enum CcKind {
        /// Build; `cubic` and `hystart` only matter for CUBIC (NewReno has no
        /// HyStart in Linux either, nor have the coupled algorithms). A
        /// coupled algorithm built here is one connection's controller: share
        /// it between the subflows with `SharedCc`. `clock` is the jiffy
        /// clock (CONFIG_HZ and phase) of Linux CUBIC's `tcp_jiffies32`
        /// (`TcpConfig::jiffy_clock`).
        fn build_with(cubic: CubicVariant, hystart: HyStartMode, clock: crate::tcp::timer_wheel::JiffyClock) -> Box<dyn CongestionControl>;
        NewReno = "newreno": "NewReno (RFC 6582); uncoupled per subflow for multipath" => Box::new(NewReno),
        Cubic = "cubic": "CUBIC (Linux tcp_cubic.c or RFC 9438, see transport.cubic); uncoupled per subflow for multipath" => match cubic {
            CubicVariant::Linux => Box::new(CubicLinux::with_clock(hystart, clock)),
            CubicVariant::Rfc9438 => Box::new(Cubic::with_hystart(hystart)),
        },
        Lia = "lia": "Linked Increases (RFC 6356), coupled, multipath only" => Box::new(coupled::Coupled::<coupled::lia::Lia>::default()),
        Olia = "olia": "Opportunistic LIA, coupled, multipath only" => Box::new(coupled::Coupled::<coupled::olia::Olia>::default()),
        Balia = "balia": "Balanced LIA, coupled, multipath only" => Box::new(coupled::Coupled::<coupled::balia::Balia>::default()),
        Wvegas = "wvegas": "Weighted Vegas, delay-based coupled, multipath only" => Box::new(coupled::Coupled::<coupled::wvegas::WVegas>::default()),
    }
}

crate::named_enum! {
    /// Which CUBIC (`transport.cubic`), for single-path TCP, uncoupled MPTCP
    /// subflows and background TCP.
    #[derive(Default)]
    pub enum CubicVariant {
        /// Linux tcp_cubic.c in fixed point (cubic_linux.rs).
        #[default]
        Linux = "linux": "Linux tcp_cubic.c (6.17): fixed point, cubic_root approximation, target at t + delay_min, Reno estimate at 0.53/RTT (default)",
        /// RFC 9438 in floating point (cubic.rs).
        Rfc9438 = "rfc9438": "RFC 9438 in floating point: target at t + SRTT, W_est with alpha switching to 1",
    }
}

crate::named_enum! {
    /// CUBIC's slow-start exit (`transport.hystart`).
    #[derive(Default)]
    pub enum HyStartMode {
        /// Linux HyStart (tcp_cubic.c hystart_update; hystart=1, hystart_detect=3).
        #[default]
        Linux = "linux": "Linux HyStart: ACK-train and delay-increase detection (tcp_cubic.c hystart=1, hystart_detect=3; default)",
        /// RFC 9406 HyStart++.
        HyStartPP = "hystart++": "RFC 9406 HyStart++ (Conservative Slow Start)",
        /// Plain slow start until the first loss.
        Off = "off": "no slow-start exit before the first loss",
    }
}

impl CcKind {
    /// Couples the windows of several paths (needs a multipath protocol):
    /// what the algorithm its registry line builds says
    /// (`CongestionControl::is_coupled`), so a new algorithm is one file
    /// plus its line here.
    pub fn is_coupled(self) -> bool {
        self.build().is_coupled()
    }

    /// Build with the defaults (Linux CUBIC with Linux HyStart).
    pub fn build(self) -> Box<dyn CongestionControl> {
        self.build_with(
            CubicVariant::default(),
            HyStartMode::default(),
            crate::tcp::timer_wheel::JiffyClock::new(cubic_linux::HZ),
        )
    }
}

/// One connection's congestion controller shared by the senders of all its
/// subflows (a coupled algorithm): every hook is forwarded to the one
/// instance, with the calling subflow's own state and the `paths` slice of
/// all subflows. Linux v0.9x does the same: `mptcp_ccc`/`mptcp_olia` are
/// `tcp_congestion_ops` that walk the meta socket's subflow list.
#[derive(Clone)]
pub struct SharedCc(pub std::rc::Rc<std::cell::RefCell<Box<dyn CongestionControl>>>);

impl SharedCc {
    pub fn new(cc: Box<dyn CongestionControl>) -> Self {
        SharedCc(std::rc::Rc::new(std::cell::RefCell::new(cc)))
    }
}

impl std::fmt::Debug for SharedCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedCc({})", self.0.borrow().name())
    }
}

impl CongestionControl for SharedCc {
    fn name(&self) -> &'static str {
        self.0.borrow().name()
    }
    fn is_coupled(&self) -> bool {
        self.0.borrow().is_coupled()
    }
    fn hooks(&self) -> Hooks {
        self.0.borrow().hooks()
    }
    fn init(&mut self, s: &mut CcState, now: Nanos) {
        self.0.borrow_mut().init(s, now)
    }
    fn ssthresh(&mut self, s: &CcState, paths: &[PathView], now: Nanos) -> u32 {
        self.0.borrow_mut().ssthresh(s, paths, now)
    }
    fn cong_avoid(&mut self, s: &mut CcState, paths: &[PathView], acked: u32, now: Nanos) {
        self.0.borrow_mut().cong_avoid(s, paths, acked, now)
    }
    fn pkts_acked(&mut self, s: &mut CcState, acked: u32, rtt: Option<Nanos>, now: Nanos) {
        self.0.borrow_mut().pkts_acked(s, acked, rtt, now)
    }
    fn set_state(&mut self, s: &mut CcState, new: CaState, now: Nanos) {
        self.0.borrow_mut().set_state(s, new, now)
    }
    fn cwnd_event(&mut self, s: &mut CcState, ev: CwndEvent, now: Nanos) {
        self.0.borrow_mut().cwnd_event(s, ev, now)
    }
    fn undo_cwnd(&mut self, s: &CcState, prior_cwnd: u32) -> u32 {
        self.0.borrow_mut().undo_cwnd(s, prior_cwnd)
    }
}

/// Linux tcp_slow_start(): cwnd += acked up to ssthresh; returns the acked
/// packets left over for congestion avoidance (RFC 5681 3.1, eq. (2) with
/// Appropriate Byte Counting in packets, RFC 3465).
pub fn slow_start(s: &mut CcState, acked: u32) -> u32 {
    let cwnd = (s.cwnd + acked).min(s.ssthresh);
    let left = acked - (cwnd - s.cwnd).min(acked);
    s.cwnd = cwnd;
    left
}

/// Linux tcp_cong_avoid_ai(): +1 packet per `w` packets acked.
pub fn cong_avoid_ai(s: &mut CcState, w: u32, acked: u32) {
    let w = w.max(1);
    if s.cwnd_cnt >= w {
        s.cwnd_cnt = 0;
        s.cwnd += 1;
    }
    s.cwnd_cnt += acked;
    if s.cwnd_cnt >= w {
        let delta = s.cwnd_cnt / w;
        s.cwnd_cnt -= delta * w;
        s.cwnd += delta;
    }
}

#[cfg(test)]
pub(crate) fn test_state(cwnd: u32, ssthresh: u32) -> CcState {
    CcState {
        cwnd,
        cwnd_cnt: 0,
        ssthresh,
        mss: 1448,
        srtt: 40 * crate::time::MS,
        min_rtt: 40 * crate::time::MS,
        in_flight: cwnd,
        ca_state: CaState::Open,
        path_index: 0,
        snd_una: 1,
        snd_nxt: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs every optional hook of `cc` on a script that gives each of them
    /// something to act on (a first RTT sample, a CUBIC epoch to shift or
    /// reset, a HyStart round to start) and returns the hooks that changed
    /// the algorithm's state (its `Debug` form) or the subflow's `CcState`.
    fn hooks_that_act(cc: &mut dyn CongestionControl) -> Hooks {
        use crate::time::{MS, SEC};
        let mut s = test_state(10, 5);
        s.snd_una = 1_000;
        s.snd_nxt = 15_480;
        let mut acted = Hooks::NONE;
        let mut probe =
            |cc: &mut dyn CongestionControl,
             s: &mut CcState,
             h: Hooks,
             call: &dyn Fn(&mut dyn CongestionControl, &mut CcState)| {
                let before = (format!("{cc:?}"), s.clone());
                call(cc, s);
                if (format!("{cc:?}"), s.clone()) != before {
                    acted = acted.and(h);
                }
            };
        probe(cc, &mut s, Hooks::INIT, &|c, s| c.init(s, 5 * SEC));
        probe(cc, &mut s, Hooks::PKTS_ACKED, &|c, s| {
            c.pkts_acked(s, 1, Some(40 * MS), 6 * SEC)
        });
        for i in 0..20 {
            let paths = [PathView::of(&s)];
            cc.cong_avoid(&mut s, &paths, 1, 6 * SEC + i * 40 * MS);
        }
        probe(cc, &mut s, Hooks::CWND_EVENT, &|c, s| {
            c.cwnd_event(s, CwndEvent::TxStart { idle: SEC }, 10 * SEC)
        });
        probe(cc, &mut s, Hooks::PKTS_ACKED, &|c, s| {
            c.pkts_acked(s, 2, Some(45 * MS), 12 * SEC)
        });
        for ev in [CwndEvent::CompleteCwr, CwndEvent::Loss] {
            probe(cc, &mut s, Hooks::CWND_EVENT, &|c, s| {
                c.cwnd_event(s, ev, 13 * SEC)
            });
        }
        for st in [CaState::Recovery, CaState::Open, CaState::Loss] {
            probe(cc, &mut s, Hooks::SET_STATE, &|c, s| {
                c.set_state(s, st, 14 * SEC)
            });
        }
        acted
    }

    /// Each algorithm's `hooks` names exactly the optional hooks it
    /// implements: a hook left out must do nothing (the sender skips it, so
    /// leaving out one that acts would change results), and one named must
    /// act on the script of `hooks_that_act` in some variant (naming one
    /// that does nothing only costs the call). One set per algorithm,
    /// whatever the CUBIC variant or HyStart mode, and the shared handle of
    /// a coupled one answers its controller's.
    #[test]
    fn each_algorithms_hooks_are_the_ones_it_implements() {
        for k in CcKind::ALL {
            let mut declared = None;
            let mut acted = Hooks::NONE;
            for v in CubicVariant::ALL {
                for h in HyStartMode::ALL {
                    let clock = crate::tcp::timer_wheel::JiffyClock::new(250);
                    let mut cc = k.build_with(*v, *h, clock);
                    let d = cc.hooks();
                    assert_eq!(*declared.get_or_insert(d), d, "{}", k.name());
                    let a = hooks_that_act(cc.as_mut());
                    assert!(d.has(a), "{} {v:?} {h:?}: {a:?} act, {d:?} named", k.name());
                    acted = acted.and(a);
                    if k.is_coupled() {
                        assert_eq!(SharedCc::new(k.build()).hooks(), d);
                    }
                }
            }
            assert_eq!(Some(acted), declared, "{}", k.name());
        }
        assert!(Hooks::ALL.has(Hooks::PKTS_ACKED.and(Hooks::INIT)));
        assert!(!Hooks::CWND_EVENT.has(Hooks::SET_STATE));
    }

    #[test]
    fn every_registered_name_builds_the_algorithm_of_that_name() {
        for k in CcKind::ALL {
            assert_eq!(CcKind::from_name(k.name()), Some(*k));
            assert_eq!(k.build().name(), k.name());
        }
        assert_eq!("cubic".parse::<CcKind>(), Ok(CcKind::Cubic));
        assert!("bbr".parse::<CcKind>().is_err());
        assert!(CcKind::from_name("vegas").is_none());
        assert!(CcKind::Lia.is_coupled() && !CcKind::Cubic.is_coupled());
        // each algorithm says whether it is coupled: the four of mptcp/cc are
        let coupled: Vec<_> = CcKind::ALL.iter().filter(|k| k.is_coupled()).collect();
        assert_eq!(
            coupled,
            [&CcKind::Lia, &CcKind::Olia, &CcKind::Balia, &CcKind::Wvegas]
        );
        // whatever the CUBIC variant
        for v in CubicVariant::ALL {
            assert!(!CcKind::Cubic
                .build_with(
                    *v,
                    HyStartMode::Off,
                    crate::tcp::timer_wheel::JiffyClock::new(1000)
                )
                .is_coupled());
        }
    }

    #[test]
    fn slow_start_leftover() {
        let mut s = test_state(10, 12);
        // 10 + 5 capped at 12: 3 left for CA
        assert_eq!(slow_start(&mut s, 5), 3);
        assert_eq!(s.cwnd, 12);
    }
}
