//! The malformed-scenario corpus (`tests/malformed/NN-name.toml`, one per
//! mistake a user makes, the mistake in its first line): `mptlab check`,
//! `mptlab run` and `mptlab emulate` must refuse each file with exit 2 (never a panic's 101),
//! one message naming the file, the key and what was expected, and `run`
//! must leave no output directory behind (above all none that looks
//! complete). The table below holds each file's key and message fragments.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// (file stem, key named in the message (None: a syntax error, located by
/// line instead), fragments the message must contain).
const CASES: &[(&str, Option<&str>, &[&str])] = &[
    ("01-syntax-unclosed-string", None, &[":3:", "expected `\"`"]),
    (
        "02-wrong-type-duration",
        Some("scenario.duration_s"),
        &["invalid type: string \"two\""],
    ),
    (
        "03-unknown-table",
        Some("scenaro"),
        &["unknown key", "did you mean `scenario`?"],
    ),
    (
        "04-unknown-key",
        Some("transport.congestion"),
        &["unknown key `congestion`", "expected one of"],
    ),
    (
        "05-unknown-protocol",
        Some("transport.protocol"),
        &["unknown variant `mtcp`", "did you mean `mptcp`?"],
    ),
    (
        "06-unknown-cc",
        Some("transport.cc"),
        &["unknown variant `lai`", "did you mean `lia`?"],
    ),
    (
        "07-unknown-profile",
        Some("topology.paths[0]"),
        &["expected a link profile name", "did you mean `wlan`?"],
    ),
    (
        "08-unknown-model",
        Some("traffic.model"),
        &["did you mean `video`?"],
    ),
    (
        "09-unknown-site",
        Some("traffic.site"),
        &["expected a web site name", "did you mean `amazon`?"],
    ),
    (
        "10-negative-rate",
        Some("profile.wlan.rate_mbit"),
        &["expected a rate in Mbit/s >= 0.001", "found -5"],
    ),
    (
        "11-tiny-rate",
        Some("profile.wlan.rate_mbit"),
        &[">= 0.001", "found 1e-300"],
    ),
    (
        "12-negative-delay",
        Some("profile.3g.delay_ms"),
        &["expected a delay in ms >= 0", "found -4"],
    ),
    (
        "13-loss-over-100",
        Some("profile.wlan.loss.percent"),
        &["<= 100", "found 150"],
    ),
    (
        "14-zero-duration",
        Some("scenario.duration_s"),
        &["> 0", "found 0"],
    ),
    (
        "15-huge-duration",
        Some("scenario.duration_s"),
        &["<= 10000000", "found 1e300"],
    ),
    (
        "16-zero-runs",
        Some("scenario.runs"),
        &["from 1 to 100000", "found 0"],
    ),
    (
        "17-too-many-runs",
        Some("scenario.runs"),
        &["from 1 to 100000", "found 4000000000"],
    ),
    (
        "18-mtu-too-small",
        Some("transport.mtu_bytes"),
        &[">= 576", "found 100"],
    ),
    (
        "19-video-bitrate-tiny",
        Some("traffic.bitrate_kbit"),
        &["at least one byte per frame", "found 0.001"],
    ),
    (
        "20-video-fps-zero",
        Some("traffic.fps"),
        &["expected a frame rate >= 1", "found 0"],
    ),
    (
        "21-web-object-4gib",
        Some("traffic.objects_bytes[1]"),
        &["from 1 to 4294967295 bytes", "found 5000000000"],
    ),
    (
        "22-file-size-zero",
        Some("traffic.size_bytes"),
        &["expected a file size from 1", "found 0"],
    ),
    (
        "23-file-size-huge",
        Some("traffic.size_bytes"),
        &["2^53", "found 9000000000000000000"],
    ),
    (
        "24-tcp-path-out-of-range",
        Some("transport.path"),
        &["from 1 to 2, found 3"],
    ),
    (
        "25-mptcp-path-out-of-range",
        Some("transport.path"),
        &["from 1 to 2, found 3"],
    ),
    (
        "26-mptcp-backup-path",
        Some("transport.mptcp.backup_paths[0]"),
        &["from 1 to 2, found 5"],
    ),
    (
        "27-cmt-sctp-lia",
        Some("transport.cc"),
        &["\"lia\"", "transport.sctp.cc"],
    ),
    (
        "28-sctp-bad-scheduler",
        Some("transport.sctp.scheduler"),
        &[
            "unknown variant `roundrobbin`",
            "did you mean `roundrobin`?",
        ],
    ),
    (
        "29-sctp-unordered",
        Some("transport.sctp.unordered"),
        &["not measured yet"],
    ),
    (
        "30-trace-missing",
        Some("profile.wlan.trace"),
        &["traces/missing.trace", "file not found"],
    ),
    (
        "31-trace-empty",
        Some("profile.wlan.trace"),
        &["traces/empty.trace", "no delivery opportunities"],
    ),
    (
        "32-trace-garbage",
        Some("profile.wlan.trace"),
        &["traces/garbage.trace:2", "\"thirteen\""],
    ),
    (
        "33-trace-binary",
        Some("profile.wlan.trace"),
        &["traces/binary.trace", "binary content"],
    ),
    (
        "34-trace-decreasing",
        Some("profile.wlan.trace"),
        &["traces/decreasing.trace:3", "must not decrease"],
    ),
    (
        "35-trace-huge-timestamp",
        Some("profile.wlan.trace"),
        &["traces/huge.trace:2", "beyond the largest accepted"],
    ),
    (
        "36-gaming-trace-missing",
        Some("traffic.trace"),
        &["t1, t2, t3", "traces/nothere.csv"],
    ),
    (
        "37-gaming-trace-backwards",
        Some("traffic.trace"),
        &["traces/backwards.csv:4", "time goes backwards"],
    ),
    (
        "38-sweep-axis-not-list",
        Some("sweep.transport.cc"),
        &["expected a list of values"],
    ),
    (
        "39-sweep-axis-unknown-key",
        Some("transport.foo"),
        &["unknown key `foo`"],
    ),
    (
        "40-sweep-bad-value",
        Some("transport.cc"),
        &["did you mean `newreno`?", "point `cc=newrenoo`"],
    ),
    (
        "41-sweep-too-many-points",
        Some("sweep"),
        &["at most 100000 sweep points", "found 3375000000"],
    ),
    (
        "42-sweep-invalid-base",
        Some("transport.path"),
        &["found 3", "base scenario"],
    ),
    (
        "43-timeseries-too-fine",
        Some("output.timeseries_interval_ms"),
        &["at most 100000 samples", "found 0.01"],
    ),
    (
        "44-background-too-many-flows",
        Some("background.tcp_flows"),
        &["at most 1000", "found 100000"],
    ),
    (
        "45-background-path",
        Some("background.paths"),
        &["from 1 to 2, found 3"],
    ),
    (
        "46-outage-overlap",
        Some("profile.wlan.outages[1].at_s"),
        &["not overlapping"],
    ),
    (
        "47-start-after-end",
        Some("traffic.start_s"),
        &["before the end of the run", "found 10"],
    ),
    (
        "48-bursts-missing-count",
        Some("traffic"),
        &["missing key `count`"],
    ),
    (
        "49-explicit-unknown-node",
        Some("topology.link[0].b"),
        &["expected a node name", "\"sever\""],
    ),
    (
        "50-explicit-bad-address",
        Some("topology.node[0].addresses[0]"),
        &["IPv4 address", "10.0.0.300"],
    ),
    ("51-deeply-nested-array", None, &[":11:", "recursion"]),
    ("52-nul-byte-in-name", None, &[":3:", "mal\\0formed"]),
    (
        "53-failover-not-tcp",
        Some("traffic.failover_path"),
        &["single-path TCP", "\"mptcp\""],
    ),
    (
        "54-queue-both",
        Some("profile.wlan.queue_bytes"),
        &["either queue_packets or queue_bytes"],
    ),
    (
        "55-hystart-bool",
        Some("transport.hystart"),
        &["no longer a boolean"],
    ),
    (
        "56-udp-file",
        Some("transport.protocol"),
        &["needs a reliable protocol"],
    ),
    (
        "57-train-gap-rounds-to-zero",
        Some("profile.wlan.loss.gap_ms"),
        &[">= 1e-6", "found 1e-9"],
    ),
    (
        "58-mptcp-endpoints-not-upstream",
        Some("transport.mptcp.endpoints"),
        &["path_manager = \"upstream\""],
    ),
    (
        "59-mptcp-endpoint-flag",
        Some("transport.mptcp.endpoints[1]"),
        &["\"subflw\""],
    ),
    (
        "60-background-udp-flows",
        Some("background.udp_share_percent"),
        &["at most 15000 background flows", "found 400002"],
    ),
    (
        "61-explicit-link-without-address",
        Some("topology.link[1].a"),
        &[
            "address of host \"phone\" for each of its links",
            "found 1 address(es)",
            "its link 2",
        ],
    ),
    (
        "62-explicit-address-without-link",
        Some("topology.node[0].addresses[1]"),
        &[
            "a link for each address",
            "found 2 address(es) and 1 link(s)",
        ],
    ),
    (
        "63-profile-no-path-uses",
        Some("profile.wlann"),
        &[
            ":10:",
            "profile `wlann` is defined but no link uses it",
            "did you mean `wlan`?",
        ],
    ),
];

/// Messages that would mislead (item 4: cmt-sctp with lia talked of single-path TCP).
const NEVER: &[(&str, &str)] = &[("27-cmt-sctp-lia", "single-path")];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")
}

fn mptlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args(args)
        .current_dir(corpus())
        .output()
        .expect("runs")
}

fn tmp(tag: &str) -> common::Scratch {
    common::Scratch::unmade(&format!("malformed-{tag}"))
}

/// Every problem with one command's answer on one file.
fn judge(cmd: &str, file: &str, key: Option<&str>, frags: &[&str], o: &Output) -> Vec<String> {
    let err = String::from_utf8_lossy(&o.stderr);
    let mut bad = Vec::new();
    let mut want = |ok: bool, what: String| {
        if !ok {
            bad.push(format!("{cmd} {file}: {what}\n--- stderr:\n{err}"));
        }
    };
    want(
        o.status.code() == Some(2),
        format!("exit {:?}, expected 2 (101 is a panic)", o.status.code()),
    );
    want(!err.contains("panicked"), "a panic".into());
    want(
        err.starts_with(&format!("error: {file}:")),
        "the message does not start with the file name".into(),
    );
    want(
        err.lines().filter(|l| l.starts_with("error:")).count() == 1,
        "not exactly one error".into(),
    );
    if let Some(k) = key {
        want(
            err.contains(&format!("key `{k}`")),
            format!("key `{k}` not named"),
        );
    }
    for f in frags {
        want(err.contains(f), format!("`{f}` not in the message"));
    }
    // the echoed source line is bounded and has no raw control characters
    want(err.len() < 2000, format!("{} bytes of message", err.len()));
    want(
        !err.chars().any(|c| c.is_control() && c != '\n'),
        "raw control characters in the message".into(),
    );
    for (f, never) in NEVER {
        want(
            !(file.starts_with(f) && err.contains(never)),
            format!("message mentions `{never}`"),
        );
    }
    bad
}

#[test]
fn every_malformed_scenario_is_refused_by_check_and_run_with_file_and_key() {
    let mut files: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    let listed: Vec<String> = CASES.iter().map(|c| format!("{}.toml", c.0)).collect();
    assert_eq!(
        files, listed,
        "every corpus file has exactly one row in CASES"
    );
    assert!(files.len() >= 40, "the corpus keeps at least 40 mistakes");
    let out = tmp("run");
    std::fs::create_dir_all(&out).unwrap();
    let mut bad = Vec::new();
    for (stem, key, frags) in CASES {
        let file = format!("{stem}.toml");
        let first = std::fs::read_to_string(corpus().join(&file)).unwrap_or_default();
        assert!(
            first.starts_with("# mistake: "),
            "{file}: first line names the mistake"
        );
        bad.extend(judge(
            "check",
            &file,
            *key,
            frags,
            &mptlab(&["check", &file]),
        ));
        let dir = out.join(stem);
        let o = mptlab(&["run", &file, "--out", dir.to_str().unwrap(), "-q"]);
        bad.extend(judge("run", &file, *key, frags, &o));
        if dir.exists() {
            bad.push(format!("run {file}: left {} behind", dir.display()));
        }
        // emulation validates the same way, before it looks for root
        let o = mptlab(&["emulate", &file, "--out", dir.to_str().unwrap(), "-q"]);
        bad.extend(judge("emulate", &file, *key, frags, &o));
        if dir.exists() {
            bad.push(format!("emulate {file}: left {} behind", dir.display()));
        }
    }
    std::fs::remove_dir_all(&out).unwrap();
    assert!(
        bad.is_empty(),
        "{} problem(s):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn validate_refuses_a_malformed_scenario_before_emulating() {
    let o = mptlab(&["validate", "--dir", ".", "--only", "11-tiny-rate"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("11-tiny-rate.toml:") && err.contains("key `profile.wlan.rate_mbit`"),
        "{err}"
    );
}

#[test]
fn unwritable_output_directory_is_refused_before_running() {
    let dir = tmp("unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let scen = dir.join("ok.toml");
    std::fs::write(
        &scen,
        "[scenario]\nname = \"ok\"\nduration_s = 600\nruns = 50\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n[traffic]\nmodel = \"bulk\"\n",
    )
    .unwrap();
    let out = blocker.join("results");
    let t = std::time::Instant::now();
    let o = mptlab(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("--out {}", out.display())) && err.contains("Not a directory"),
        "{err}"
    );
    // refused up front: 50 runs of 600 s would take far longer
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    let o = mptlab(&[
        "sweep",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("--out {}", out.display())), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn closed_or_full_stdout_is_not_a_panic() {
    // `mptlab list | head -1`: the reader closes the pipe early
    let mut child = Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // closed before anything is read
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // `mptlab list > /dev/full`: a write error is one message and exit 1
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let o = Command::new(env!("CARGO_BIN_EXE_mptlab"))
            .arg("list")
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with("error: cannot write to standard output"),
            "{err}"
        );
    }
}

#[test]
fn stale_partial_directories_of_dead_writers_are_removed() {
    let dir = tmp("partial");
    // a pid that cannot be running: above the kernel's pid_max (4194304)
    let stale = dir.join(".partial-4194305-0");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("flows.csv"), "half a table").unwrap();
    let scen = dir.join("ok.toml");
    std::fs::write(
        &scen,
        "[scenario]\nname = \"ok\"\nduration_s = 1\n[topology]\npreset = \"single-path\"\npaths = [\"lte\"]\n[traffic]\nmodel = \"file\"\nsize_bytes = 10000\n",
    )
    .unwrap();
    let o = mptlab(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(dir.join("summary.json").exists());
    assert!(
        !stale.exists(),
        "the dead writer's partial directory is gone"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
