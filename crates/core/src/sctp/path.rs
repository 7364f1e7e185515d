//! Per-destination state (RFC 9260 sections 6.3, 7, 8.2, 8.3): congestion
//! window, ssthresh, partial_bytes_acked, flight size, RTO estimator, error
//! counter, T3-rtx and heartbeat timers, plus the per-destination CMT
//! variables of Iyengar et al. (2006) section 4.

use std::collections::VecDeque;

use crate::endpoint::Counters;
use crate::packet::Addr;
use crate::time::Nanos;

#[derive(Clone, Debug)]
pub struct Path {
    pub local: Addr,
    pub remote: Addr,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// partial_bytes_acked (section 7.2.2).
    pub pba: u64,
    /// Bytes of DATA outstanding to this destination (counted in flight).
    pub flight: u64,
    pub srtt: Option<Nanos>,
    pub rttvar: Nanos,
    pub rto: Nanos,
    /// One RTT measurement at a time per destination (section 6.3.1 C4/C5):
    /// TSN and send time of the chunk being timed.
    pub rtt_probe: Option<(u64, Nanos)>,
    /// Error counter (section 8.2) and state.
    pub error_count: u32,
    pub active: bool,
    /// T3-rtx expiry (section 6.3.2).
    pub t3: Option<Nanos>,
    /// Next heartbeat time and the send time of an unanswered heartbeat.
    pub hb_at: Option<Nanos>,
    pub hb_outstanding: Option<Nanos>,
    /// Last time a DATA packet went to this destination (round-robin order
    /// and heartbeat idleness).
    pub last_data_sent: Nanos,
    pub last_sent_seq: u64,
    /// Fast recovery per destination (section 7.2.4 and, for CMT, per
    /// destination as Iyengar et al. 2006 section 4.1): exit when the
    /// cumulative ack reaches this TSN.
    pub fast_recovery_exit: Option<u64>,
    /// One packet of fast retransmissions may go regardless of cwnd
    /// (section 7.2.4 step 3): set when chunks are newly marked for fast
    /// retransmission to this destination, cleared once that packet left.
    pub fast_rtx_burst: bool,
    /// Data packets sent to this destination since the last input event
    /// (Max.Burst packet limit).
    pub burst_sent: u32,
    /// Use-it-or-lose-it must be applied before the next send opportunity.
    pub burst_check: bool,
    /// Flight before the current SACK was applied ("fully utilised" test).
    pub flight_before_sack: u64,
    // ---- CMT per-SACK scratch (Iyengar et al. 2006, sections 4.1, 4.2) ----
    /// SFR: some TSN sent to this destination was newly acked by this SACK.
    pub saw_newack: bool,
    /// SFR: highest TSN sent to this destination newly acked by this SACK.
    pub highest_in_sack: Option<u64>,
    /// CUC: pseudo-cumulative TSN and the one for retransmissions.
    pub pseudo_cumack: Option<u64>,
    pub rtx_pseudo_cumack: Option<u64>,
    pub find_pseudo_cumack: bool,
    pub find_rtx_pseudo_cumack: bool,
    pub new_pseudo_cumack: bool,
    /// DAPS: TSNs planned for this path, in order.
    pub daps_plan: VecDeque<u64>,
    pub counters: Counters,
}

impl Path {
    pub fn new(local: Addr, remote: Addr, cwnd: u64, ssthresh: u64, rto: Nanos) -> Path {
        Path {
            local,
            remote,
            cwnd,
            ssthresh,
            pba: 0,
            flight: 0,
            srtt: None,
            rttvar: 0,
            rto,
            rtt_probe: None,
            error_count: 0,
            active: true,
            t3: None,
            hb_at: None,
            hb_outstanding: None,
            last_data_sent: 0,
            last_sent_seq: 0,
            fast_recovery_exit: None,
            fast_rtx_burst: false,
            burst_sent: 0,
            burst_check: false,
            flight_before_sack: 0,
            saw_newack: false,
            highest_in_sack: None,
            pseudo_cumack: None,
            rtx_pseudo_cumack: None,
            find_pseudo_cumack: true,
            find_rtx_pseudo_cumack: true,
            new_pseudo_cumack: false,
            daps_plan: VecDeque::new(),
            counters: Counters::default(),
        }
    }

    /// RTO computation of RFC 9260 section 6.3.1 (RTO.Alpha 1/8, RTO.Beta
    /// 1/4, clock granularity 1 ms), clamped to [rto_min, rto_max].
    pub fn rtt_sample(&mut self, r: Nanos, rto_min: Nanos, rto_max: Nanos) {
        const G: Nanos = 1_000_000;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let rto = self.srtt.unwrap() + (4 * self.rttvar).max(G);
        self.rto = rto.clamp(rto_min, rto_max);
    }

    /// Smoothed RTT, or the RTO before any measurement (for path comparisons).
    pub fn srtt_or_rto(&self) -> Nanos {
        self.srtt.unwrap_or(self.rto)
    }

    /// True while the destination may take new data under its cwnd
    /// (section 6.1 B: no new data once cwnd or more bytes are outstanding).
    pub fn cwnd_open(&self) -> bool {
        self.flight < self.cwnd
    }
}
