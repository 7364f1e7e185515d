//! CMT path schedulers: round-robin as INET's default (primary destination
//! first, then the others in order) and DAPS, delay-aware packet scheduling
//! (Kuhn, Lochin, Mifdaoui, Sarwar, Mehani, Boreli, "DAPS: Intelligent
//! Delay-Aware Packet Scheduling For Multipath Transport", ICC 2014).

use super::path::Path;

/// Active destinations in the order INET's CMT sender visits them at each
/// send opportunity: the primary first, then the others in path order.
///
/// INET (inet-framework/inet b52bc21a34, src/inet/transportlayer/sctp/):
/// an application write (SctpAssociationEventProc.cc `process_SEND` ->
/// SctpAlg.cc `sendCommandInvoked`) and every received packet
/// (SctpAssociationRcvMessage.cc `process_RCV_Message`) call
/// `sendOnAllPaths(state->getPrimaryPath())`; SctpAssociationSendAll.cc
/// `sendOnAllPaths` runs `sendOnPath` on that path first, which sends as long
/// as the path's cwnd allows, then on the other paths in `sctpPathMap`
/// order, unsorted under the default `cmtSendAllVariant = "normal"`
/// (`cmtSendAllComparisonFunction = nullptr`, SctpAssociationBase.cc). So an
/// application-limited sender puts its data on the primary and spills to the
/// others only when the primary's window is full. mptlab's path index order
/// stands in for INET's address order of the non-primary paths.
pub fn round_robin_order(paths: &[Path], primary: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..paths.len()).filter(|&i| paths[i].active).collect();
    v.sort_by_key(|&i| (i != primary, i));
    v
}

/// DAPS planning (Kuhn et al. 2014, section III): over one cycle of the
/// largest RTT, path i can carry cwnd_i packets per RTT_i; packet k on path
/// i leaves at k * RTT_i / cwnd_i and arrives one-way delay RTT_i / 2 later.
/// Sorting those arrivals and handing out consecutive TSNs in that order
/// makes the data arrive in sequence. Returns the path of each of the next
/// `n` chunks (n <= the cycle's packets), in TSN order.
pub fn daps_plan(paths: &[Path], mtu: u64, max_chunks: usize) -> Vec<usize> {
    let active: Vec<usize> = (0..paths.len()).filter(|&i| paths[i].active).collect();
    if active.is_empty() {
        return Vec::new();
    }
    let rtt = |i: usize| paths[i].srtt_or_rto().max(1) as u128;
    let max_rtt = active.iter().map(|&i| rtt(i)).max().unwrap();
    let mut slots: Vec<(u128, usize, usize)> = Vec::new();
    for &i in &active {
        let cw = (paths[i].cwnd / mtu).max(1) as u128;
        // packets path i sends within one cycle of the largest RTT
        let n = (cw * max_rtt).div_ceil(rtt(i));
        for k in 0..n {
            let depart = k * rtt(i) / cw;
            slots.push((depart + rtt(i) / 2, i, k as usize));
        }
    }
    slots.sort();
    slots.into_iter().take(max_chunks).map(|s| s.1).collect()
}
