//! TCP configuration with Linux defaults.

use crate::packet::{IpVersion, TCP_HEADER};
use crate::time::{Nanos, MS, SEC};

use super::cc::{CcKind, CubicVariant, HyStartMode};

/// How the retransmission timeout is derived from the RTT estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoFormula {
    /// Linux `tcp_set_rto`: RTO = SRTT + max(4*RTTVAR, rto_min)
    /// (Linux keeps `rttvar_us = max(mdev_max_us, rto_min)`).
    Linux,
    /// RFC 6298 (2.3)/(2.4): RTO = max(SRTT + max(G, 4*RTTVAR), rto_min).
    Rfc6298,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// IP MTU in bytes; the MSS option is MTU - 40 over IPv4, MTU - 60 over
    /// IPv6 (RFC 9293 3.7.1, RFC 8200 section 5).
    pub mtu: u32,
    /// IP version: the IP header every segment carries (20 or 40 bytes).
    pub ip: IpVersion,
    /// Congestion control algorithm.
    pub cc: CcKind,
    /// Initial congestion window in packets (RFC 6928, Linux TCP_INIT_CWND = 10).
    pub initial_cwnd: u32,
    /// SACK (RFC 2018), Linux net.ipv4.tcp_sack = 1.
    pub sack: bool,
    /// Timestamps (RFC 7323), Linux net.ipv4.tcp_timestamps = 1.
    pub timestamps: bool,
    /// Window scaling (RFC 7323 2), Linux net.ipv4.tcp_window_scaling = 1.
    pub window_scaling: bool,
    /// Delayed ACKs (RFC 1122 4.2.3.2 / RFC 5681 4.2); off = ACK every segment.
    pub delayed_ack: bool,
    /// Nagle (RFC 896, RFC 1122 4.2.3.4); Linux default on (TCP_NODELAY unset).
    pub nagle: bool,
    /// Tail loss probe (RFC 8985 7), Linux net.ipv4.tcp_early_retrans = 3.
    pub tlp: bool,
    /// RACK loss detection (RFC 8985 6), Linux net.ipv4.tcp_recovery = 1
    /// (RACK_LOSS_DETECTION, default since 4.18). Needs SACK; when on, it
    /// replaces RFC 6675's DupThresh marking (Linux keeps tcp_mark_head_lost
    /// only for !tcp_is_rack), except that RACK's reordering window is zero
    /// once DupThresh segments are SACKed and no reordering was seen.
    pub rack: bool,
    /// Reset cwnd after an idle period longer than the RTO (RFC 5681 4.1,
    /// Linux net.ipv4.tcp_slow_start_after_idle = 1, tcp_cwnd_restart).
    pub slow_start_after_idle: bool,
    /// Which CUBIC: Linux tcp_cubic.c (default) or RFC 9438 in floating point.
    pub cubic: CubicVariant,
    /// CUBIC's slow-start exit: Linux HyStart (default, as Linux's
    /// tcp_cubic hystart=1), RFC 9406 HyStart++, or off.
    pub hystart: HyStartMode,
    /// Send buffer: the `SO_SNDBUF` value in bytes, which Linux doubles into
    /// `sk_sndbuf` and charges with skb truesize (`super::sndbuf`); 0 =
    /// unset, autotuned from `tcp_wmem` (`tcp_sndbuf_expand`).
    pub sndbuf: u64,
    /// Receive buffer in bytes (Linux tcp_rmem max 6 MiB).
    pub rcvbuf: u64,
    /// Linux TCP_RTO_MIN = 200 ms.
    pub rto_min: Nanos,
    /// RFC 6298 (2.1): initial RTO of 1 s (Linux TCP_TIMEOUT_INIT).
    pub rto_initial: Nanos,
    /// RFC 6298 (2.5) upper bound; Linux TCP_RTO_MAX = 120 s.
    pub rto_max: Nanos,
    pub rto_formula: RtoFormula,
    /// Linux CONFIG_HZ (scenario key `transport.hz`, default 1000): the
    /// jiffy the RTO is rounded up to (`__tcp_set_rto`), the clock of the
    /// retransmission timer's wheel (`tcp::timer_wheel`: RTO, PTO, RACK
    /// reordering, zero-window probe) and of Linux CUBIC (`tcp_jiffies32` in
    /// `bictcp_update`, cubic_linux.rs). The validation machine's 6.18
    /// kernel is built with 250.
    pub hz: u32,
    /// Where simulated time 0 falls in the kernel's jiffy (scenario key
    /// `transport.hz_phase_us`, default 0): CLOCK_MONOTONIC at time 0
    /// modulo one jiffy, since Linux aligns its tick to multiples of
    /// TICK_NSEC (`tick_init_jiffy_update`; `timer_wheel::JiffyClock`).
    pub hz_phase: Nanos,
    /// Linux TCP_ATO_MIN = 40 ms: delayed-ACK timeout.
    pub delack_min: Nanos,
    /// Linux TCP_DELACK_MAX = 200 ms (RFC 1122 4.2.3.2: < 500 ms); also RFC 8985's WCDelAckT.
    pub delack_max: Nanos,
    /// Linux TCP_MAX_QUICKACKS = 16: quick ACKs at connection start (tcp_incr_quickack).
    pub max_quickacks: u32,
    /// RFC 6675 / RFC 5681 DupThresh = 3 (Linux net.ipv4.tcp_reordering = 3).
    pub dupthresh: u32,
    /// SYN retransmissions before giving up (Linux net.ipv4.tcp_syn_retries = 6).
    pub syn_retries: u32,
    /// Linux net.ipv4.tcp_syn_linear_timeouts = 4 (since 6.5; the
    /// validation host's 6.18 reads 4): an active opener's SYN timer is not
    /// backed off while `total_rto <= 4`, so the first five SYN
    /// retransmissions leave 1 s apart, and it gives up after
    /// `tcp_syn_retries + tcp_syn_linear_timeouts` of them
    /// (net/ipv4/tcp_timer.c `tcp_retransmit_timer`, `tcp_write_timeout`).
    /// The passive side's SYN-ACK timer (`reqsk_timer_handler`) keeps the
    /// exponential backoff. 0 = RFC 6298 (5.5) backoff from the first.
    pub syn_linear_timeouts: u32,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mtu: 1500,
            ip: IpVersion::V4,
            cc: CcKind::Cubic,
            initial_cwnd: 10,
            sack: true,
            timestamps: true,
            window_scaling: true,
            delayed_ack: true,
            nagle: true,
            tlp: true,
            rack: true,
            cubic: CubicVariant::Linux,
            hystart: HyStartMode::Linux,
            slow_start_after_idle: true,
            sndbuf: 4 * 1024 * 1024,
            rcvbuf: 6 * 1024 * 1024,
            rto_min: 200 * MS,
            rto_initial: SEC,
            rto_max: 120 * SEC,
            rto_formula: RtoFormula::Linux,
            hz: 1000,
            hz_phase: 0,
            delack_min: 40 * MS,
            delack_max: 200 * MS,
            max_quickacks: 16,
            dupthresh: 3,
            syn_retries: 6,
            syn_linear_timeouts: 4,
        }
    }
}

impl TcpConfig {
    /// A SYN timeout, the `n`-th of the handshake (1-based, `total_rto`
    /// after `tcp_update_rto_stats`), has fired: the next SYN timer, as
    /// `tcp_retransmit_timer`'s `out_reset_timer` sets it. An active opener
    /// (`TCP_SYN_SENT`) keeps `icsk_rto` while `total_rto <=
    /// tcp_syn_linear_timeouts`; otherwise RFC 6298 (5.5): double it, up to
    /// `TCP_RTO_MAX`.
    pub fn next_syn_rto(&self, rto: Nanos, n: u32, active: bool) -> Nanos {
        if active && n <= self.syn_linear_timeouts {
            rto
        } else {
            (rto * 2).min(self.rto_max)
        }
    }

    /// SYN retransmissions before giving up (`tcp_write_timeout`:
    /// `max_retransmits = tcp_syn_retries`, plus `tcp_syn_linear_timeouts`
    /// in `TCP_SYN_SENT`).
    pub fn max_syn_retx(&self, active: bool) -> u32 {
        self.syn_retries + if active { self.syn_linear_timeouts } else { 0 }
    }

    /// The jiffy clock of the retransmission timer's wheel and of Linux
    /// CUBIC: `hz` at `hz_phase`.
    pub fn jiffy_clock(&self) -> crate::tcp::timer_wheel::JiffyClock {
        crate::tcp::timer_wheel::JiffyClock::with_phase(self.hz, self.hz_phase)
    }

    /// Value of our MSS option: MTU - IP - TCP headers (1460 for 1500 over
    /// IPv4, 1440 over IPv6): Linux `tcp_mtu_to_mss` subtracts the family's
    /// `net_header_len` and `sizeof(struct tcphdr)`.
    pub fn mss_option(&self) -> u32 {
        self.mtu - self.ip.header_len() - TCP_HEADER
    }
}
