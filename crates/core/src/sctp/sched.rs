//! CMT path schedulers: round-robin (least recently used path first, INET's
//! default) and DAPS, delay-aware packet scheduling (Kuhn, Lochin, Mifdaoui,
//! Sarwar, Mehani, Boreli, "DAPS: Intelligent Delay-Aware Packet Scheduling
//! For Multipath Transport", ICC 2014).

use super::path::Path;

/// Active destinations, least recently used (for data) first.
pub fn round_robin_order(paths: &[Path]) -> Vec<usize> {
    let mut v: Vec<usize> = (0..paths.len()).filter(|&i| paths[i].active).collect();
    v.sort_by_key(|&i| (paths[i].last_sent_seq, i));
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
