//! `mptlab emulate` of the seeds' background traffic and application
//! failover on the real kernel (crates/emu/src/background.rs, failover.rs).
//! Needs root, /dev/net/tun and MPTCP; skips with the reason otherwise.
//! Every test checks that its run left no namespace behind.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use mptlab_emu::netns;

/// Real-time runs: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn skip_reason() -> Option<&'static str> {
    if !netns::is_root() {
        Some("needs root (namespaces, TUN devices)")
    } else if !Path::new("/dev/net/tun").exists() {
        Some("needs /dev/net/tun")
    } else if std::fs::read_to_string("/proc/sys/net/mptcp/enabled").is_err() {
        Some("needs a kernel with MPTCP")
    } else {
        None
    }
}

fn tmp(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("emu-seeds-{name}"))
}

/// Run `mptlab <cmd> <scenario> --out <out> -q <extra>`; assert success and
/// that none of the child's namespaces is left.
fn mptlab(cmd: &str, scen: &Path, out: &Path, extra: &[&str]) {
    let child = Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .arg(cmd)
        .arg(scen)
        .arg("--out")
        .arg(out)
        .arg("-q")
        .args(extra)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "mptlab {cmd}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let left: Vec<String> = netns::list()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with(&format!("mptl-{pid}-")))
        .collect();
    assert!(left.is_empty(), "namespaces left behind: {left:?}");
}

/// The rows of a CSV table as maps column -> cell.
fn csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

fn num(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?}", row[col]))
}

/// A metric of run 0 from summary.json.
fn metric(out: &Path, key: &str) -> f64 {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    v["per_run"][0]["metrics"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("no metric {key} in {}", out.display()))
}

const BOTTLENECK: &str = r#"
[scenario]
name = "emu-bg"
duration_s = 4.0
runs = 1
seed = 3

[profile.b8]
rate_mbit = 8
delay_ms = 10
queue_packets = 60

[topology]
preset = "single-path"
paths = ["b8"]

[transport]
protocol = "tcp"
cc = "cubic"

[traffic]
model = "bulk"
direction = "down"

[output]
timeseries_interval_ms = 0

[background]
tcp_flows = 1
udp_share_percent = 10
tcp_cc = "newreno"
"#;

/// Background hosts share the emulated bottleneck: their TCP and UDP flows
/// carry bytes over path 1, the foreground's throughput falls against the
/// same run without them, and the UDP flows send exactly the simulator's
/// frames (same on/off schedule) up to the end of the run.
#[test]
fn background_flows_share_the_emulated_bottleneck() {
    if let Some(r) = skip_reason() {
        eprintln!("skipping background_flows_share_the_emulated_bottleneck: {r}");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("bg");
    let s = d.join("bg.toml");
    std::fs::write(&s, BOTTLENECK).unwrap();
    let (alone, with, sim) = (d.join("alone"), d.join("with"), d.join("sim"));
    mptlab(
        "emulate",
        &s,
        &alone,
        &["--set", "background.enabled=false"],
    );
    mptlab("emulate", &s, &with, &["--set", "background.enabled=true"]);
    mptlab(
        "run",
        &s,
        &sim,
        &["--set", "background.enabled=true", "--no-parquet"],
    );
    let fg_alone = metric(&alone, "fg_throughput_mbit");
    let fg_with = metric(&with, "fg_throughput_mbit");
    eprintln!("foreground alone {fg_alone:.3} Mbit/s, with background {fg_with:.3} Mbit/s");
    assert!(fg_alone > 6.0, "alone: {fg_alone} Mbit/s of 8");
    assert!(
        fg_with < 0.75 * fg_alone,
        "with background {fg_with} Mbit/s, alone {fg_alone}"
    );
    let flows = csv(&with.join("flows.csv"));
    let sim_flows = csv(&sim.join("flows.csv"));
    let labels =
        |f: &[std::collections::HashMap<String, String>]| -> Vec<(String, String, String)> {
            f.iter()
                .map(|r| (r["flow"].clone(), r["label"].clone(), r["role"].clone()))
                .collect()
        };
    // the simulator's flows, ids and roles
    assert_eq!(labels(&flows), labels(&sim_flows));
    let bg: Vec<_> = flows.iter().filter(|r| r["role"] == "background").collect();
    assert!(bg.len() >= 2, "{flows:?}");
    let tcp = bg.iter().find(|r| r["label"] == "bg-tcp-p1-0").unwrap();
    // a saturated newreno flow from 0 s gets a real share of 8 Mbit/s
    assert!(num(tcp, "throughput_mbit") > 1.0, "{tcp:?}");
    let paths = csv(&with.join("paths.csv"));
    let sim_paths = csv(&sim.join("paths.csv"));
    for r in bg.iter().filter(|r| r["protocol"] == "udp") {
        let sent = |p: &[std::collections::HashMap<String, String>]| {
            p.iter()
                .find(|x| x["label"] == r["label"] && x["side"] == "server")
                .map(|x| num(x, "bytes_sent"))
                .unwrap()
        };
        let (e, s) = (sent(&paths), sent(&sim_paths));
        // the same frames; the emulated run may stop before the last one
        assert!(
            e <= s && e >= s - 5000.0,
            "{}: emulated {e} bytes sent, simulated {s}",
            r["label"]
        );
        assert!(num(r, "bytes_delivered") > 0.0, "{r:?}");
    }
    // background packets crossed the emulated path (one queue with the foreground's)
    let links = csv(&with.join("links.csv"));
    let down = links
        .iter()
        .find(|l| l["link"] == "path1" && l["direction"] == "down")
        .unwrap();
    let delivered: f64 = flows.iter().map(|r| num(r, "bytes_delivered")).sum();
    assert!(num(down, "bytes_delivered") > delivered, "{down:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

const FAILOVER: &str = r#"
[scenario]
name = "emu-failover"
duration_s = 7.0
runs = 1
seed = 1

[profile.wifi]
rate_mbit = 4
delay_ms = 15
queue_packets = 100
outages = [{ at_s = 2.0, duration_s = 3.0 }]

[profile.g3]
rate_mbit = 4
delay_ms = 60
queue_packets = 100

[topology]
preset = "two-path"
paths = ["wifi", "g3"]

[transport]
protocol = "tcp"
path = 1

[traffic]
model = "bulk"
direction = "down"
failover_path = 2
failover_after_s = 1.0

[output]
timeseries_interval_ms = 0
"#;

/// Seed 004's application failover: the first connection stalls in the
/// outage at 2 s, the application reconnects over path 2 one detection time
/// after its last read, and the new connection carries the transfer.
#[test]
fn failover_reconnects_over_the_second_path() {
    if let Some(r) = skip_reason() {
        eprintln!("skipping failover_reconnects_over_the_second_path: {r}");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("fo");
    let s = d.join("fo.toml");
    std::fs::write(&s, FAILOVER).unwrap();
    let out = d.join("out");
    mptlab("emulate", &s, &out, &[]);
    let last = metric(&out, "emu.failover_last_progress_s");
    let switch = metric(&out, "emu.failover_switch_s");
    let first = metric(&out, "emu.failover_first_byte_s");
    eprintln!("last read {last:.3} s, switch {switch:.3} s, first byte {first:.3} s");
    // the last read comes from packets in flight when the outage began
    assert!((1.9..2.3).contains(&last), "last progress at {last} s");
    // detection: 1 s without a read (timer wake-up on a loaded host)
    assert!(
        (1.0..1.3).contains(&(switch - last)),
        "switched at {switch} s, last progress {last} s"
    );
    // SYN, SYN-ACK, hello, first data over a 120 ms RTT path
    assert!(
        first > switch + 0.12 && first < switch + 1.0,
        "first byte at {first} s, switched at {switch} s"
    );
    let flows = csv(&out.join("flows.csv"));
    let names: Vec<&str> = flows.iter().map(|r| r["label"].as_str()).collect();
    assert_eq!(names, ["bulk", "bulk-failover"]);
    // about 1.3-2 s of a 4 Mbit/s path after the switch
    assert!(num(&flows[1], "bytes_delivered") > 300_000.0, "{flows:?}");
    assert!(num(&flows[0], "bytes_delivered") > 300_000.0, "{flows:?}");
    let paths = csv(&out.join("paths.csv"));
    let fo = paths
        .iter()
        .find(|p| p["label"] == "bulk-failover" && p["side"] == "server")
        .unwrap();
    assert_eq!(
        (fo["path"].as_str(), fo["remote_addr"].as_str()),
        ("2", "10.2.0.2")
    );
    std::fs::remove_dir_all(&d).unwrap();
}
