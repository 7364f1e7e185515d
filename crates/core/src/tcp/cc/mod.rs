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

use crate::time::Nanos;

mod cubic;
mod cubic_linux;
mod hystart;
mod hystart_linux;
mod newreno;

pub use cubic::Cubic;
pub use cubic_linux::CubicLinux;
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

/// Linux `struct tcp_congestion_ops`.
pub trait CongestionControl: std::fmt::Debug {
    fn name(&self) -> &'static str;
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
}

/// Built-in algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    NewReno,
    Cubic,
}

/// Which CUBIC (`transport.cubic`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CubicVariant {
    /// Linux tcp_cubic.c in fixed point (cubic_linux.rs).
    #[default]
    Linux,
    /// RFC 9438 in floating point (cubic.rs).
    Rfc9438,
}

/// CUBIC's slow-start exit (`transport.hystart`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HyStartMode {
    /// Linux HyStart (tcp_cubic.c hystart_update; hystart=1, hystart_detect=3).
    #[default]
    Linux,
    /// RFC 9406 HyStart++.
    HyStartPP,
    /// Plain slow start until the first loss.
    Off,
}

/// Error for an unknown algorithm name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCc(pub String);

impl std::fmt::Display for UnknownCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown congestion control '{}' (known: {})",
            self.0,
            names().join(", ")
        )
    }
}

impl std::error::Error for UnknownCc {}

/// Names accepted by `CcKind::from_name` / `by_name`.
pub fn names() -> &'static [&'static str] {
    &["newreno", "reno", "cubic"]
}

impl CcKind {
    pub fn from_name(name: &str) -> Result<CcKind, UnknownCc> {
        match name.to_ascii_lowercase().as_str() {
            "newreno" | "reno" => Ok(CcKind::NewReno),
            "cubic" => Ok(CcKind::Cubic),
            _ => Err(UnknownCc(name.to_string())),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CcKind::NewReno => "newreno",
            CcKind::Cubic => "cubic",
        }
    }

    /// Build with the defaults (Linux CUBIC with Linux HyStart).
    pub fn build(self) -> Box<dyn CongestionControl> {
        self.build_with(CubicVariant::default(), HyStartMode::default())
    }

    /// Build; `cubic` and `hystart` only matter for CUBIC (NewReno has no
    /// HyStart in Linux either).
    pub fn build_with(
        self,
        cubic: CubicVariant,
        hystart: HyStartMode,
    ) -> Box<dyn CongestionControl> {
        match (self, cubic) {
            (CcKind::NewReno, _) => Box::new(NewReno),
            (CcKind::Cubic, CubicVariant::Linux) => Box::new(CubicLinux::new(hystart)),
            (CcKind::Cubic, CubicVariant::Rfc9438) => Box::new(Cubic::with_hystart(hystart)),
        }
    }
}

impl std::str::FromStr for CcKind {
    type Err = UnknownCc;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CcKind::from_name(s)
    }
}

/// Factory by name (fallible: reject unknown names before a run).
pub fn by_name(name: &str) -> Result<Box<dyn CongestionControl>, UnknownCc> {
    CcKind::from_name(name).map(CcKind::build)
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

    #[test]
    fn names_resolve_and_unknown_is_rejected() {
        for n in names() {
            assert!(by_name(n).is_ok());
        }
        assert_eq!(CcKind::from_name("CUBIC"), Ok(CcKind::Cubic));
        assert!(by_name("vegas").is_err());
        assert!("bbr".parse::<CcKind>().is_err());
    }

    #[test]
    fn slow_start_leftover() {
        let mut s = test_state(10, 12);
        // 10 + 5 capped at 12: 3 left for CA
        assert_eq!(slow_start(&mut s, 5), 3);
        assert_eq!(s.cwnd, 12);
    }
}
