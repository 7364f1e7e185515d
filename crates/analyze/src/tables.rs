//! The analysis of one capture as one run of mptlab's tidy tables
//! (docs/results.md), same column names where the meaning is the same;
//! what the packets cannot tell stays null (docs/analyze.md).

use mptlab_core::traffic::metrics::Jitter;
use mptlab_results::{schema, ColumnType, RunOutput, Table, Value};

use crate::track::{DirStats, FlowRec};
use crate::{FileAnalysis, Options};

pub const RTT: &str = "rtt";

const SIDES: [&str; 2] = ["client", "server"];

/// Median, 95th percentile (index round(p (n-1)) of the sorted values) and
/// mean, as the simulator's summary computes them (sim `output.rs`
/// `median_p95_mean`), so the numbers compare.
pub fn median_p95_mean(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| v[((p * (v.len() - 1) as f64).round()) as usize];
    (q(0.5), q(0.95), v.iter().sum::<f64>() / v.len() as f64)
}

fn rtt_table() -> Table {
    use ColumnType::*;
    Table::with_schema(
        RTT,
        &[
            ("t_ms", F64),
            ("flow", U64),
            ("label", Str),
            ("side", Str),
            ("path", U64),
            ("rtt_ms", F64),
            ("method", Str),
        ],
    )
}

/// Flow label: the agent's connection kind when its hello is present.
pub fn label(i: usize, f: &FlowRec) -> String {
    match f.hello.map(|h| h.0) {
        Some(1) => "fg".into(),
        Some(2) => "file".into(),
        Some(3) => "bulk".into(),
        _ => format!("{}{i}", f.protocol),
    }
}

fn counters(sent: &DirStats, recv: &DirStats) -> Vec<(&'static str, Value)> {
    vec![
        ("packets_sent", sent.packets.into()),
        ("data_packets_sent", sent.data_packets.into()),
        ("bytes_sent", sent.bytes.into()),
        ("bytes_retransmitted", sent.bytes_retransmitted.into()),
        ("packets_received", recv.packets.into()),
        ("data_packets_received", recv.data_packets.into()),
        ("bytes_received", recv.bytes.into()),
        ("ooo_segments", sent.ooo_segments.into()),
        ("bytes_reinjected", sent.bytes_reinjected.into()),
    ]
}

fn sum(a: &mut DirStats, b: &DirStats) {
    a.packets += b.packets;
    a.data_packets += b.data_packets;
    a.bytes += b.bytes;
    a.bytes_retransmitted += b.bytes_retransmitted;
    a.bytes_reinjected += b.bytes_reinjected;
    a.ooo_segments += b.ooo_segments;
}

/// The run output of one capture (`run` = its position, seed 0).
pub fn to_run_output(run: u32, fa: &FileAnalysis, opts: &Options) -> RunOutput {
    let mut out = RunOutput::new(run, 0);
    for name in schema::STANDARD {
        out.table_mut(name);
    }
    let ms = |t: i128| (t - fa.t0_ns) as f64 / 1e6;
    let dur_s = (fa.duration_ns as f64 / 1e9).max(1e-9);
    let mut rtt = rtt_table();
    let mut ofo = mptlab_core::delay_stats::DelayStats::new();
    let mut hol = 0u64;
    let mut any_mp = false;
    let mut delays: Vec<f64> = Vec::new();
    let (mut n_msgs, mut path_bytes) = (0u64, std::collections::BTreeMap::<usize, u64>::new());
    let (mut total_retx, mut total_reinj, mut total_sent) = (0u64, 0u64, 0u64);
    for (fi, f) in fa.flows.iter().enumerate() {
        let lab = label(fi, f);
        let base = |t: &mut Vec<(&'static str, Value)>| {
            t.push(("flow", (fi as u64).into()));
            t.push(("label", lab.clone().into()));
        };
        // flows: both endpoints summed over paths
        let mut tot = [DirStats::default(), DirStats::default()];
        for p in &f.paths {
            sum(&mut tot[0], &p.dir[0]);
            sum(&mut tot[1], &p.dir[1]);
        }
        let mut all = DirStats::default();
        sum(&mut all, &tot[0]);
        sum(&mut all, &tot[1]);
        let mut row: Vec<(&str, Value)> = Vec::new();
        base(&mut row);
        row.push(("protocol", f.protocol.into()));
        row.push(("bytes_delivered", f.bytes_delivered.into()));
        row.push((
            "throughput_mbit",
            (f.bytes_delivered as f64 * 8.0 / dur_s / 1e6).into(),
        ));
        row.extend(counters(&all, &all));
        out.table_mut(schema::FLOWS)
            .push_named(&row)
            .expect("flows schema");
        total_retx += all.bytes_retransmitted;
        total_reinj += all.bytes_reinjected;
        total_sent += all.bytes;
        // paths: per side and path
        for (side, side_name) in SIDES.iter().enumerate() {
            let side_bytes: u64 = f.paths.iter().map(|p| p.dir[side].bytes).sum();
            let side_pk: u64 = f.paths.iter().map(|p| p.dir[side].data_packets).sum();
            for (pi, p) in f.paths.iter().enumerate() {
                let (s, r) = (&p.dir[side], &p.dir[1 - side]);
                let (local, remote) = if side == 0 {
                    (p.client_addr, p.server_addr)
                } else {
                    (p.server_addr, p.client_addr)
                };
                let mut row: Vec<(&str, Value)> = Vec::new();
                base(&mut row);
                row.push(("side", (*side_name).into()));
                row.push(("path", (pi as u64 + 1).into()));
                row.push(("local_addr", local.to_string().into()));
                row.push(("remote_addr", remote.to_string().into()));
                if side_bytes > 0 {
                    row.push(("share_bytes", (s.bytes as f64 / side_bytes as f64).into()));
                }
                if side_pk > 0 {
                    row.push((
                        "share_packets",
                        (s.data_packets as f64 / side_pk as f64).into(),
                    ));
                }
                let mut c = counters(s, r);
                // ooo_segments is a receiver counter: segments this side received out of order
                c.retain(|(k, _)| *k != "ooo_segments");
                c.push(("ooo_segments", s.ooo_segments.into()));
                row.extend(c);
                out.table_mut(schema::PATHS)
                    .push_named(&row)
                    .expect("paths schema");
                *path_bytes.entry(pi + 1).or_default() += s.bytes;
                for &(t, d, method) in &s.rtt {
                    rtt.push_named(&[
                        ("t_ms", ms(t).into()),
                        ("flow", (fi as u64).into()),
                        ("label", lab.clone().into()),
                        ("side", (*side_name).into()),
                        ("path", (pi as u64 + 1).into()),
                        ("rtt_ms", (d as f64 / 1e6).into()),
                        ("method", method.into()),
                    ])
                    .expect("rtt schema");
                }
                // throughput over time (the `run` metric send_mbit)
                let iv = (opts.interval_ms * 1e6) as i128;
                if iv > 0 && !s.sends.is_empty() {
                    let mut bins = std::collections::BTreeMap::<i128, u64>::new();
                    for &(t, b) in &s.sends {
                        *bins.entry((t - fa.t0_ns).div_euclid(iv)).or_default() += b;
                    }
                    for (k, b) in bins {
                        out.table_mut(schema::TIMESERIES)
                            .push_named(&[
                                ("t_ms", (((k + 1) * iv) as f64 / 1e6).into()),
                                ("flow", (fi as u64).into()),
                                ("label", lab.clone().into()),
                                ("side", (*side_name).into()),
                                ("path", (pi as u64 + 1).into()),
                                ("metric", "send_mbit".into()),
                                ("value", (b as f64 * 8.0 / (iv as f64 / 1e9) / 1e6).into()),
                            ])
                            .expect("timeseries schema");
                    }
                }
            }
        }
        // messages, in delivery order; jitter RFC 3550 6.4.1 (mptlab-core)
        let mut jit = Jitter::default();
        let origin = f.hello.map_or(0, |h| h.2 as i128);
        for m in &f.msgs {
            let send_ns = m.gen_ns as i128 - origin;
            let recv_ns = m.delivered - fa.offset_ns - origin;
            jit.update(send_ns.max(0) as u64, recv_ns.max(0) as u64);
            let delay = (recv_ns - send_ns) as f64 / 1e6;
            delays.push(delay);
            n_msgs += 1;
            out.table_mut(schema::MESSAGES)
                .push_named(&[
                    ("flow", (fi as u64).into()),
                    ("flow_label", lab.clone().into()),
                    ("msg_id", m.id.into()),
                    ("bytes", (m.len as u64).into()),
                    ("send_time_ms", (send_ns as f64 / 1e6).into()),
                    ("delivery_time_ms", (recv_ns as f64 / 1e6).into()),
                    ("delay_ms", delay.into()),
                    ("jitter_ms", (jit.ns() / 1e6).into()),
                    ("completed", true.into()),
                ])
                .expect("messages schema");
        }
        if f.protocol == "mptcp" || (f.protocol == "sctp" && !f.ofo_delays.is_empty()) {
            // as run: MPTCP's connection-level and SCTP's TSN-level
            // out-of-order queues (a receiver that got data)
            any_mp = true;
            ofo.merge(&f.ofo_delays);
            hol += f.hol_ns;
        }
    }
    out.tables.push(rtt);
    // summary, as `run` names them (docs/results.md)
    if n_msgs > 0 {
        out.set_metric("messages", n_msgs as f64);
        out.set_metric("messages_delivered", n_msgs as f64);
        let (med, p95, mean) = median_p95_mean(&mut delays);
        out.set_metric("delay_ms_median", med);
        out.set_metric("delay_ms_p95", p95);
        out.set_metric("delay_ms_mean", mean);
    }
    if any_mp {
        // as the simulator reports them (crates/core/src/delay_stats.rs)
        if let Some(s) = ofo.summary() {
            out.set_metric("ofo_fraction", s.fraction_positive);
            out.set_metric("ofo_fraction_over_150ms", s.fraction_over_bound);
            out.set_metric("ofo_delay_ms_mean", s.mean_ms);
            out.set_metric("ofo_delay_ms_p95", s.p95_ms);
        }
        out.set_metric("hol_blocking_ms", hol as f64 / 1e6);
    }
    let all: u64 = path_bytes.values().sum();
    if all > 0 {
        for (p, b) in &path_bytes {
            out.set_metric(format!("share_path{p}"), *b as f64 / all as f64);
        }
    }
    out.set_metric("bytes_sent", total_sent as f64);
    out.set_metric("bytes_retransmitted", total_retx as f64);
    out.set_metric("bytes_reinjected", total_reinj as f64);
    out.set_metric("analyze.frames", fa.frames as f64);
    out.set_metric("analyze.frames_analysed", fa.analysed as f64);
    out.set_metric("analyze.frames_skipped", (fa.frames - fa.analysed) as f64);
    out.set_metric("analyze.flows", fa.flows.len() as f64);
    out.set_metric("analyze.timestamp_resolution_ns", fa.resolution_ns);
    out.summary
        .insert("analyze.file".into(), fa.file.clone().into());
    out.summary
        .insert("analyze.time_base".into(), fa.time_base.clone().into());
    out.summary.insert(
        "analyze.skipped".into(),
        serde_json::to_value(&fa.skipped).unwrap_or_default(),
    );
    if let Some(d) = &fa.damaged {
        out.summary
            .insert("analyze.damaged".into(), d.clone().into());
    }
    out
}
