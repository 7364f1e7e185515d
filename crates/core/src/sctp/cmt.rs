//! CMT rules of Iyengar, Amer, Stewart, "Concurrent Multipath Transfer
//! Using SCTP Multihoming Over Independent End-to-End Paths", IEEE/ACM ToN
//! 14(5), 2006: Split Fast Retransmit (section 4.1), Cwnd Update for CMT
//! (section 4.2), Delayed Ack for CMT (section 4.3), retransmission
//! destination policies (section 5); and buffer splitting (Dreibholz et al.
//! 2010) limits.

use super::config::RtxPolicy;
use super::path::Path;

/// Choose the destination for a retransmission of a chunk last sent to
/// `orig` (section 5 of Iyengar et al.). Only active paths qualify; ties keep
/// `orig`, then the lowest index.
pub fn rtx_destination(paths: &[Path], orig: usize, policy: RtxPolicy) -> usize {
    let active: Vec<usize> = (0..paths.len()).filter(|&i| paths[i].active).collect();
    if active.is_empty() {
        return orig;
    }
    let pick = |key: &dyn Fn(&Path) -> i128| -> usize {
        let mut best = if paths[orig].active { orig } else { active[0] };
        for &i in &active {
            if key(&paths[i]) > key(&paths[best]) {
                best = i;
            }
        }
        best
    };
    match policy {
        RtxPolicy::Same => {
            if paths[orig].active {
                orig
            } else {
                active[0]
            }
        }
        RtxPolicy::LowestRtt => pick(&|p| -(p.srtt_or_rto() as i128)),
        RtxPolicy::LargestCwnd => pick(&|p| p.cwnd as i128),
        RtxPolicy::LargestSsthresh => pick(&|p| p.ssthresh.min(i64::MAX as u64) as i128),
    }
}

/// RFC 9260 section 6.4.1 for plain SCTP: a T3 retransmission goes to an
/// active destination other than the one that timed out, if there is one.
pub fn alternate_destination(paths: &[Path], orig: usize, primary: usize) -> usize {
    if primary != orig && paths[primary].active {
        return primary;
    }
    (0..paths.len())
        .find(|&i| i != orig && paths[i].active)
        .unwrap_or(orig)
}

/// Per-destination facts about one SACK, gathered before miss indications
/// are counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct SackFacts {
    /// SFR: some TSN sent to this destination was newly acked.
    pub saw_newack: bool,
    /// SFR: highest newly acked TSN sent to this destination.
    pub highest_newly_acked: Option<u64>,
    /// DAC: lowest newly acked TSN sent to this destination.
    pub lowest_newly_acked: Option<u64>,
}

/// Miss indications a missing `tsn` (last sent to the destination described
/// by `f`) gets from one SACK under SFR, or 0 (section 4.1: only TSNs sent
/// to a destination for which a later TSN was newly acked count as missing).
/// With DAC (section 4.3) the increment is the number of data packets the
/// SACK acknowledges when every newly acked TSN on that destination is above
/// the missing one.
pub fn sfr_miss_increment(f: &SackFacts, tsn: u64, dac: bool, dac_packets: u8) -> u32 {
    if !f.saw_newack || f.highest_newly_acked.is_none_or(|h| tsn >= h) {
        return 0;
    }
    if dac && dac_packets >= 2 && f.lowest_newly_acked.is_some_and(|l| l > tsn) {
        dac_packets as u32
    } else {
        1
    }
}

/// Buffer splitting: may destination `i` take `len` more bytes, given the
/// bytes it already holds in the send buffer (`sbuf_booked`) / peer receive
/// buffer (`rbuf_booked`) and the number of active paths?
pub fn split_allows(booked: u64, len: u64, total: u64, active_paths: usize) -> bool {
    let share = total / active_paths.max(1) as u64;
    booked == 0 || booked + len <= share
}
