//! Scenario keys added for seeds 003 and 004: `transport.server_path` (the
//! server address of single-path TCP and of the initial MPTCP subflow, seed
//! 003's "TCP on each source/destination pair" and "every initial path"), and
//! `background.paths` / `background.start_s` (seed 004 sec. 4.2: cross
//! traffic on the WiFi path only, from mid-run). Deterministic runs; the
//! assertions are on simulated quantities.

mod common;
use common::{cell_f64 as f, cell_str as s, metric_of as metric, scenario, table};
use mptlab_results::RunOutput;

/// Run 0 of the scenario.
fn run(text: &str, sets: &[&str]) -> RunOutput {
    let s = scenario(text, sets).unwrap();
    mptlab_sim::supported(&s).unwrap();
    mptlab_sim::run_once(&s, 0).unwrap()
}

/// Client (2 ISPs, 20 Mbit/s each) -> server (2 ISPs: 2 and 6 Mbit/s access
/// links): each source/destination pair is limited by the server ISP.
const SITES: &str = r#"
[scenario]
name = "sites"
duration_s = 20
[topology]
client = "c"
server = "s"
[[topology.node]]
name = "c"
kind = "host"
addresses = ["10.1.0.2", "10.2.0.2"]
[[topology.node]]
name = "s"
kind = "host"
addresses = ["10.101.0.2", "10.102.0.2"]
[[topology.node]]
name = "cA"
kind = "router"
[[topology.node]]
name = "cB"
kind = "router"
[[topology.node]]
name = "inet"
kind = "router"
[[topology.node]]
name = "sA"
kind = "router"
[[topology.node]]
name = "sB"
kind = "router"
[[topology.link]]
a = "c"
b = "cA"
rate_mbit = 20
delay_ms = 5
[[topology.link]]
a = "c"
b = "cB"
rate_mbit = 20
delay_ms = 5
[[topology.link]]
a = "sA"
b = "s"
rate_mbit = 2
delay_ms = 5
[[topology.link]]
a = "sB"
b = "s"
rate_mbit = 6
delay_ms = 5
[[topology.link]]
a = "cA"
b = "inet"
rate_mbit = 1000
delay_ms = 5
[[topology.link]]
a = "cB"
b = "inet"
rate_mbit = 1000
delay_ms = 5
[[topology.link]]
a = "inet"
b = "sA"
rate_mbit = 1000
delay_ms = 10
[[topology.link]]
a = "inet"
b = "sB"
rate_mbit = 1000
delay_ms = 10
[transport]
protocol = "tcp"
[traffic]
model = "bulk"
direction = "up"
[output]
timeseries_interval_ms = 0
"#;

#[test]
fn server_path_picks_the_destination_address_of_tcp() {
    for (path, sp, lo, hi) in [
        (1, 1, 1.5, 2.0),
        (2, 1, 1.5, 2.0),
        (1, 2, 5.0, 6.0),
        (2, 2, 5.0, 6.0),
    ] {
        let r = run(
            SITES,
            &[
                &format!("transport.path={path}"),
                &format!("transport.server_path={sp}"),
            ],
        );
        let t = metric(&r, "fg_throughput_mbit");
        assert!(
            t > lo && t <= hi,
            "client path {path} -> server address {sp}: {t} Mbit/s, expected {lo}..{hi}"
        );
        let paths = table(&r, "paths");
        let client_row = (0..paths.num_rows())
            .find(|&i| s(paths.get(i, "side")) == "client")
            .unwrap();
        assert_eq!(
            s(paths.get(client_row, "local_addr")),
            format!("10.{path}.0.2")
        );
        assert_eq!(
            s(paths.get(client_row, "remote_addr")),
            format!("10.10{sp}.0.2")
        );
    }
}

#[test]
fn server_path_picks_the_initial_mptcp_subflow() {
    let mp = ["transport.protocol=mptcp", "transport.cc=olia"];
    // default path manager: one subflow, on the chosen address pair only
    for (sp, lo, hi) in [(1, 1.5, 2.0), (2, 5.0, 6.0)] {
        let mut set = mp.to_vec();
        let sps = format!("transport.server_path={sp}");
        set.extend(["transport.mptcp.path_manager=default", sps.as_str()]);
        let t = metric(&run(SITES, &set), "fg_throughput_mbit");
        assert!(t > lo && t <= hi, "default pm, server address {sp}: {t}");
    }
    // fullmesh: all four pairs whatever the initial server address, so
    // both server links are used
    for sp in [1, 2] {
        let mut set = mp.to_vec();
        let sps = format!("transport.server_path={sp}");
        set.push(sps.as_str());
        let r = run(SITES, &set);
        let t = metric(&r, "fg_throughput_mbit");
        assert!(
            t > 6.0,
            "fullmesh from server address {sp} aggregates both server links: {t}"
        );
        let paths = table(&r, "paths");
        let remotes: std::collections::BTreeSet<String> = (0..paths.num_rows())
            .filter(|&i| s(paths.get(i, "side")) == "client")
            .map(|i| s(paths.get(i, "remote_addr")))
            .collect();
        assert_eq!(
            remotes.len(),
            2,
            "subflows to both server addresses: {remotes:?}"
        );
    }
}

#[test]
fn server_path_is_validated() {
    let e = scenario(SITES, &["transport.server_path=3"]).unwrap_err();
    assert!(
        e.contains("transport.server_path") && e.contains("from 1 to 2"),
        "{e}"
    );
    let e = scenario(SITES, &["transport.server_path=0"]).unwrap_err();
    assert!(e.contains("transport.server_path"), "{e}");
    let e = scenario(TWO_PATH, &["transport.server_path=2"]).unwrap_err();
    assert!(
        e.contains("transport.server_path") && e.contains("from 1 to 1"),
        "{e}"
    );
}

/// Two 4 Mbit/s paths (seed 004's WiFi + 3G, idealised).
const TWO_PATH: &str = r#"
[scenario]
name = "two"
duration_s = 40
[profile.a]
rate_mbit = 4
delay_ms = 10
[profile.b]
rate_mbit = 4
delay_ms = 40
[topology]
preset = "two-path"
paths = ["a", "b"]
[transport]
protocol = "tcp"
path = 1
[traffic]
model = "bulk"
[background]
enabled = true
tcp_flows = 2
udp_share_percent = 0
[output]
timeseries_interval_ms = 1000
"#;

/// Per background flow label: (first sample time in ms with data sent, payload bytes delivered).
fn bg_flows(r: &RunOutput) -> Vec<(String, f64, f64)> {
    let flows = table(r, "flows");
    let ts = table(r, "timeseries");
    let mut out = Vec::new();
    for i in 0..flows.num_rows() {
        if s(flows.get(i, "role")) != "background" {
            continue;
        }
        let label = s(flows.get(i, "label"));
        let first = (0..ts.num_rows())
            .filter(|&k| {
                s(ts.get(k, "label")) == label
                    && s(ts.get(k, "metric")) == "send_mbit"
                    && f(ts.get(k, "value")) > 0.0
            })
            .map(|k| f(ts.get(k, "t_ms")))
            .fold(f64::INFINITY, f64::min);
        out.push((label, first, f(flows.get(i, "bytes_delivered"))));
    }
    out
}

#[test]
fn background_on_chosen_paths_only() {
    let all = bg_flows(&run(TWO_PATH, &[]));
    assert_eq!(
        all.iter()
            .filter(|(l, ..)| l.starts_with("bg-tcp-p2"))
            .count(),
        2,
        "{all:?}"
    );
    let r = run(TWO_PATH, &["background.paths=[1]"]);
    let one = bg_flows(&r);
    assert_eq!(one.len(), 2, "two TCP flows, path 1 only: {one:?}");
    assert!(
        one.iter().all(|(l, ..)| l.starts_with("bg-tcp-p1-")),
        "{one:?}"
    );
    // TCP on path 2 then has its path to itself
    let t2 = metric(
        &run(TWO_PATH, &["background.paths=[1]", "transport.path=2"]),
        "fg_throughput_mbit",
    );
    assert!(t2 > 3.5, "path 2 carries no background: {t2}");
}

#[test]
fn background_starts_at_start_s() {
    let r = run(TWO_PATH, &["background.paths=[1]", "background.start_s=20"]);
    for (label, first, bytes) in bg_flows(&r) {
        assert!(
            first > 20_000.0 && first <= 22_000.0,
            "{label} starts sending at 20 s, first data in the sample at {first} ms"
        );
        assert!(bytes > 0.0, "{label} delivers data after 20 s");
    }
    // the foreground on path 1 has the path alone for the first 20 s
    let ts = table(&r, "timeseries");
    let fg_early: Vec<f64> = (0..ts.num_rows())
        .filter(|&k| {
            s(ts.get(k, "label")) == "bulk"
                && s(ts.get(k, "side")) == "server"
                && f(ts.get(k, "t_ms")) > 5_000.0
                && f(ts.get(k, "t_ms")) <= 20_000.0
        })
        .map(|k| f(ts.get(k, "value")))
        .collect();
    let mean_early = fg_early.iter().sum::<f64>() / fg_early.len() as f64;
    let fg_late: Vec<f64> = (0..ts.num_rows())
        .filter(|&k| {
            s(ts.get(k, "label")) == "bulk"
                && s(ts.get(k, "side")) == "server"
                && f(ts.get(k, "t_ms")) > 25_000.0
        })
        .map(|k| f(ts.get(k, "value")))
        .collect();
    let mean_late = fg_late.iter().sum::<f64>() / fg_late.len() as f64;
    assert!(
        mean_early > 3.5,
        "alone on the 4 Mbit/s path before 20 s: {mean_early}"
    );
    // how fast two late CUBIC flows win a share from an established one
    // through a full drop-tail queue depends on loss recovery details; the
    // key's effect is that the foreground loses a clear part of the path
    assert!(
        mean_late < 0.85 * mean_early,
        "shares the path with 2 flows after 20 s: {mean_late} vs {mean_early}"
    );
}

#[test]
fn background_keys_are_validated() {
    let e = scenario(TWO_PATH, &["background.paths=[3]"]).unwrap_err();
    assert!(
        e.contains("background.paths") && e.contains("from 1 to 2"),
        "{e}"
    );
    let e = scenario(TWO_PATH, &["background.paths=[1, 1]"]).unwrap_err();
    assert!(e.contains("background.paths") && e.contains("twice"), "{e}");
    let e = scenario(TWO_PATH, &["background.start_s=50"]).unwrap_err();
    assert!(e.contains("background.start_s"), "{e}");
    let e = scenario(TWO_PATH, &["background.start_s=-1"]).unwrap_err();
    assert!(e.contains("background.start_s"), "{e}");
}

/// Seed 004 sec. 4.4: path 1 fails at 10 s for 20 s; the application
/// reconnects over path 2 after a 1 s stall.
const HANDOVER: &str = r#"
[scenario]
name = "handover"
duration_s = 40
[profile.a]
rate_mbit = 4
delay_ms = 10
outages = [{ at_s = 10, duration_s = 20 }]
[profile.b]
rate_mbit = 4
delay_ms = 40
[topology]
preset = "two-path"
paths = ["a", "b"]
[transport]
protocol = "tcp"
path = 1
[traffic]
model = "bulk"
failover_path = 2
failover_after_s = 1
[output]
timeseries_interval_ms = 1000
"#;

fn first_send(r: &RunOutput, label: &str) -> f64 {
    let ts = table(r, "timeseries");
    (0..ts.num_rows())
        .filter(|&k| {
            s(ts.get(k, "label")) == label
                && s(ts.get(k, "side")) == "server"
                && f(ts.get(k, "value")) > 0.0
        })
        .map(|k| f(ts.get(k, "t_ms")))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn failover_reconnects_over_the_other_path_after_a_stall() {
    let r = run(HANDOVER, &[]);
    let t = first_send(&r, "bulk-failover");
    // stall from ~10 s (the last delivery), + 1 s, + one 3G handshake (80 ms RTT)
    assert!(
        t > 11_000.0 && t <= 12_000.0,
        "the backup connection sends first in the sample ending {t} ms"
    );
    let flows = table(&r, "flows");
    let row = (0..flows.num_rows())
        .find(|&i| s(flows.get(i, "label")) == "bulk-failover")
        .unwrap();
    let mbit = f(flows.get(row, "bytes_delivered")) * 8.0 / 29.0 / 1e6;
    assert!(
        mbit > 3.0,
        "the backup connection carries the transfer from ~11 s: {mbit} Mbit/s"
    );
    let paths = table(&r, "paths");
    let prow = (0..paths.num_rows())
        .find(|&i| {
            s(paths.get(i, "label")) == "bulk-failover" && s(paths.get(i, "side")) == "client"
        })
        .unwrap();
    assert_eq!(f(paths.get(prow, "path")), 2.0);
    // without failover the transfer stalls for the outage and then some (RTO backoff)
    let plain = run(
        &HANDOVER.replace("failover_path = 2\nfailover_after_s = 1\n", ""),
        &[],
    );
    assert!(metric(&plain, "fg_throughput_mbit") < metric(&r, "fg_throughput_mbit") - 1.0);
}

/// (data packets, payload bytes) the client sent on connection `label`.
fn client_sent(r: &RunOutput, label: &str) -> (f64, f64) {
    let paths = table(r, "paths");
    let row = (0..paths.num_rows())
        .find(|&i| s(paths.get(i, "label")) == label && s(paths.get(i, "side")) == "client")
        .unwrap();
    (
        f(paths.get(row, "data_packets_sent")),
        f(paths.get(row, "bytes_sent")),
    )
}

/// Issue 15, live17: the emulator's agent writes its 16-byte hello on both
/// connections of a failover transfer (crates/emu/src/failover.rs
/// `client_conn`) and its server sends once it has read it; so does the
/// simulated application with `traffic.client_hello_bytes`.
#[test]
fn a_failover_download_writes_the_hello_on_both_connections() {
    let r = run(HANDOVER, &["traffic.client_hello_bytes=16"]);
    assert_eq!(client_sent(&r, "bulk"), (1.0, 16.0));
    assert_eq!(client_sent(&r, "bulk-failover"), (1.0, 16.0));
    let plain = run(HANDOVER, &[]);
    assert_eq!(client_sent(&plain, "bulk-failover"), (0.0, 0.0));
    // the failover itself is unchanged: the same stall, one more half
    // round trip on 3G (the hello) before the server's first byte
    let t = first_send(&r, "bulk-failover");
    assert!(
        t > 11_000.0 && t <= 12_000.0,
        "first send in the sample ending {t} ms"
    );
    let (a, b) = (
        metric(&r, "fg_throughput_mbit"),
        metric(&plain, "fg_throughput_mbit"),
    );
    assert!((a - b).abs() < 0.05 * b, "{a} vs {b} Mbit/s");
}

#[test]
fn failover_keys_are_validated() {
    let e = scenario(HANDOVER, &["transport.protocol=mptcp", "transport.cc=lia"]).unwrap_err();
    assert!(
        e.contains("traffic.failover_path") && e.contains("single-path TCP"),
        "{e}"
    );
    let e = scenario(HANDOVER, &["traffic.failover_path=1"]).unwrap_err();
    assert!(
        e.contains("traffic.failover_path") && e.contains("differ"),
        "{e}"
    );
    let e = scenario(HANDOVER, &["traffic.failover_path=3"]).unwrap_err();
    assert!(e.contains("from 1 to 2"), "{e}");
    let e = scenario(HANDOVER, &["traffic.failover_after_s=0"]).unwrap_err();
    assert!(e.contains("traffic.failover_after_s"), "{e}");
    let e = scenario(&HANDOVER.replace("failover_path = 2\n", ""), &[]).unwrap_err();
    assert!(
        e.contains("traffic.failover_after_s") && e.contains("failover_path"),
        "{e}"
    );
    let e = scenario(
        &HANDOVER.replace("model = \"bulk\"", "model = \"video\""),
        &[],
    )
    .unwrap_err();
    assert!(
        e.contains("traffic.failover_path") && e.contains("does not apply"),
        "{e}"
    );
}
