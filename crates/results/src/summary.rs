//! The per-run summary metrics both drivers (simulator, `emulate`) report:
//! their names, defined once, and the computations they share. Metrics of
//! one driver only (`events`, `ofo_*`, `emu.*`) stay with that driver; the
//! unfinished-work counts are in [`crate::unfinished`].

use crate::stats::median_p95_mean;
use std::collections::BTreeMap;

/// Messages delivered whole (of `messages`, [`crate::unfinished::MESSAGES`]).
pub const MESSAGES_DELIVERED: &str = "messages_delivered";
/// One-way application delay of the delivered messages, ms: median, 95th
/// percentile (nearest rank) and mean.
pub const DELAY_MS_MEDIAN: &str = "delay_ms_median";
pub const DELAY_MS_P95: &str = "delay_ms_p95";
pub const DELAY_MS_MEAN: &str = "delay_ms_mean";
/// Completion time of the run's (last) finished transfer, ms.
pub const COMPLETION_TIME_MS: &str = "completion_time_ms";
/// Goodput of the foreground flows, Mbit/s.
pub const FG_THROUGHPUT_MBIT: &str = "fg_throughput_mbit";

/// `fg_share_path<p>`: the foreground flows' share of payload bytes sent on
/// client access path `p` (1-based).
pub fn fg_share_path(p: usize) -> String {
    format!("fg_share_path{p}")
}

/// `drawn.<key>`: a value drawn for the run (link rates, delays, initial path).
pub fn drawn(key: &str) -> String {
    format!("drawn.{key}")
}

/// Bytes over `secs` seconds in Mbit/s (flows' `throughput_mbit`, [`FG_THROUGHPUT_MBIT`]).
pub fn mbit_per_s(bytes: u64, secs: f64) -> f64 {
    bytes as f64 * 8.0 / secs / 1e6
}

/// The message metrics of a run with `messages` messages of which those in
/// `delays_ms` were delivered (sorted in place): `messages`,
/// [`MESSAGES_DELIVERED`], and the delay statistics when any was delivered.
pub fn message_metrics(messages: usize, delays_ms: &mut [f64]) -> Vec<(String, f64)> {
    let mut out = vec![
        (crate::unfinished::MESSAGES.to_string(), messages as f64),
        (MESSAGES_DELIVERED.to_string(), delays_ms.len() as f64),
    ];
    if !delays_ms.is_empty() {
        let (median, p95, mean) = median_p95_mean(delays_ms);
        out.push((DELAY_MS_MEDIAN.to_string(), median));
        out.push((DELAY_MS_P95.to_string(), p95));
        out.push((DELAY_MS_MEAN.to_string(), mean));
    }
    out
}

/// [`fg_share_path`] for every path of `bytes_by_path` (foreground payload
/// bytes sent per client access path), when any byte was sent.
pub fn fg_shares(bytes_by_path: &BTreeMap<usize, u64>) -> Vec<(String, f64)> {
    let total: u64 = bytes_by_path.values().sum();
    if total == 0 {
        return Vec::new();
    }
    bytes_by_path
        .iter()
        .map(|(p, b)| (fg_share_path(*p), *b as f64 / total as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_metrics_without_deliveries_have_no_delays() {
        let m = message_metrics(3, &mut []);
        assert_eq!(
            m,
            vec![("messages".into(), 3.0), ("messages_delivered".into(), 0.0)]
        );
        let mut d = vec![30.0, 10.0, 20.0];
        let m: BTreeMap<String, f64> = message_metrics(4, &mut d).into_iter().collect();
        assert_eq!(m[DELAY_MS_MEDIAN], 20.0);
        assert_eq!(m[DELAY_MS_P95], 30.0);
        assert_eq!(m[DELAY_MS_MEAN], 20.0);
        assert_eq!(m["messages"], 4.0);
    }

    #[test]
    fn shares_cover_every_path_and_sum_to_one() {
        let by: BTreeMap<usize, u64> = [(1, 300), (2, 100), (3, 0)].into();
        let s = fg_shares(&by);
        assert_eq!(
            s,
            vec![
                ("fg_share_path1".into(), 0.75),
                ("fg_share_path2".into(), 0.25),
                ("fg_share_path3".into(), 0.0)
            ]
        );
        assert!(fg_shares(&[(1, 0)].into()).is_empty());
    }
}
