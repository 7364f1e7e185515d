//! Per-destination congestion control of RFC 9260 section 7.2 (slow start,
//! congestion avoidance with partial_bytes_acked, fast retransmit halving,
//! T3 collapse), burst mitigation ("use it or lose it", section 6.1 and
//! FreeBSD/INET's Max.Burst handling) and the CMT/RPv2 coupling
//! (Dreibholz, Becke, Adhari, Rathgeb 2012).

use super::config::CcVariant;
use super::path::Path;

/// Initial cwnd, section 7.2.1: min(4*MTU, max(2*MTU, 4380)).
pub fn initial_cwnd(mtu: u32) -> u64 {
    let mtu = mtu as u64;
    (4 * mtu).min((2 * mtu).max(4380))
}

/// Each path's share of the aggregate "bandwidth" cwnd/srtt (CMT/RPv2).
fn rp_share(paths: &[Path], i: usize) -> f64 {
    let bw = |p: &Path| p.cwnd as f64 / p.srtt_or_rto().max(1) as f64;
    let total: f64 = paths.iter().filter(|p| p.active).map(bw).sum();
    if total <= 0.0 {
        1.0
    } else {
        (bw(&paths[i]) / total).min(1.0)
    }
}

/// Increase after a SACK that acknowledged `acked` bytes sent to path `i`
/// (section 7.2.1 slow start and 7.2.2 congestion avoidance). `progress` is
/// whether the cumulative ack (or, with CUC, the pseudo-cumulative ack of this
/// path) advanced.
pub fn on_ack(paths: &mut [Path], i: usize, acked: u64, progress: bool, mtu: u32, cc: CcVariant) {
    let mtu = mtu as u64;
    let share = if cc == CcVariant::CmtRpv2 {
        rp_share(paths, i)
    } else {
        1.0
    };
    let p = &mut paths[i];
    if acked == 0 || p.fast_recovery_exit.is_some() {
        return;
    }
    let fully_used = p.flight_before_sack >= p.cwnd;
    if p.cwnd <= p.ssthresh {
        // Slow start: only when the window was fully used and the (pseudo)
        // cumulative ack advanced.
        if progress && fully_used {
            let inc = acked.min(mtu);
            let inc = if cc == CcVariant::CmtRpv2 {
                ((inc as f64 * share).ceil() as u64).max(1)
            } else {
                inc
            };
            p.cwnd += inc;
        }
    } else {
        p.pba += acked;
        if p.pba >= p.cwnd && fully_used {
            p.pba -= p.cwnd;
            let inc = if cc == CcVariant::CmtRpv2 {
                ((mtu as f64 * share).ceil() as u64).max(1)
            } else {
                mtu
            };
            p.cwnd += inc;
        }
    }
}

/// Fast retransmit reduction (section 7.2.3). With CMT/RPv2 the path gives
/// back max(cwnd_i/2, half the aggregate bandwidth times its srtt), floor 1 MTU.
pub fn on_fast_retransmit(paths: &mut [Path], i: usize, mtu: u32, cc: CcVariant) {
    let mtu = mtu as u64;
    match cc {
        CcVariant::Uncoupled => {
            let p = &mut paths[i];
            p.ssthresh = (p.cwnd / 2).max(4 * mtu);
            p.cwnd = p.ssthresh;
        }
        CcVariant::CmtRpv2 => {
            let total_bw: f64 = paths
                .iter()
                .filter(|p| p.active)
                .map(|p| p.cwnd as f64 / p.srtt_or_rto().max(1) as f64)
                .sum();
            let p = &mut paths[i];
            let give = (total_bw / 2.0 * p.srtt_or_rto() as f64).max(p.cwnd as f64 / 2.0);
            let reduced = (p.cwnd as f64 - give).ceil().max(0.0) as u64;
            p.ssthresh = reduced.max(mtu);
            p.cwnd = p.ssthresh;
        }
    }
    paths[i].pba = 0;
}

/// T3-rtx expiry (section 7.2.3): ssthresh = max(cwnd/2, 4*MTU), cwnd = 1 MTU.
pub fn on_timeout(p: &mut Path, mtu: u32) {
    let mtu = mtu as u64;
    p.ssthresh = (p.cwnd / 2).max(4 * mtu);
    p.cwnd = mtu;
    p.pba = 0;
}

/// Burst mitigation, "use it or lose it" (RFC 9260 section 6.1 D / Allman's
/// rule as in FreeBSD and INET): before a send opportunity, a sender that is
/// not using its window may only keep flight + Max.Burst * MTU of it.
pub fn apply_max_burst(p: &mut Path, max_burst: u32, mtu: u32) {
    if max_burst == 0 {
        return;
    }
    let limit = p.flight + max_burst as u64 * mtu as u64;
    if p.cwnd > limit {
        p.cwnd = limit;
    }
}
