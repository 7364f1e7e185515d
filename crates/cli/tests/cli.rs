//! End-to-end tests of the `mptlab` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mptlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args(args)
        .output()
        .expect("runs")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mptlab-cli-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn bad_scenario_exits_2_names_file_line_key_and_writes_nothing() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let scen = dir.join("bad.toml");
    std::fs::write(
        &scen,
        "[scenario]\nname = \"x\"\nduration_s = 10\n\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n\n[profile.wlan]\nrate_mbit = 10\ndelay_ms = -4\n\n[traffic]\nmodel = \"bulk\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = mptlab(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.toml:11:12: key `profile.wlan.delay_ms`"),
        "{err}"
    );
    assert!(err.contains("found -4"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert!(!out.exists(), "no output directory for an invalid scenario");

    // unknown key, via check
    std::fs::write(
        &scen,
        "[scenario]\nname = \"x\"\nduration_s = 10\nrunz = 3\n",
    )
    .unwrap();
    let o = mptlab(&["check", scen.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("bad.toml:4:1: key `scenario.runz`: unknown key `runz`"),
        "{err}"
    );

    // unknown --set key
    let ex = repo().join("scenarios/bulk.toml");
    let o = mptlab(&[
        "run",
        ex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "transport.foo=1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("key `transport.foo`: unknown key `foo`"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists());

    // missing file
    let o = mptlab(&["check", "/nonexistent/scenario.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr)
        .contains("/nonexistent/scenario.toml: cannot read scenario: file not found"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn list_prints_the_names() {
    let o = mptlab(&["list"]);
    assert!(o.status.success());
    let s = text(&o.stdout);
    for name in [
        "tcp",
        "mptcp",
        "cmt-sctp",
        "newreno",
        "cubic",
        "olia",
        "video",
        "gaming",
        "web",
        "file",
        "bulk",
        "bernoulli",
        "gilbert-elliott",
        "wlan",
        "3g",
        "lte",
        "ethernet",
        "two-path",
        "amazon",
        "t1",
    ] {
        assert!(
            s.lines()
                .any(|l| l.trim_start().starts_with(&format!("{name} "))),
            "{name} missing:\n{s}"
        );
    }
}

#[test]
fn check_accepts_examples() {
    for f in ["video-wlan-3g", "web-amazon", "file-1mb", "bulk"] {
        let p = repo().join(format!("scenarios/{f}.toml"));
        let o = mptlab(&["check", p.to_str().unwrap()]);
        assert!(o.status.success(), "{f}: {}", text(&o.stderr));
        assert!(text(&o.stdout).starts_with("ok: "));
    }
}

#[test]
fn run_writes_the_files() {
    let out = tmp("run");
    let ex = repo().join("scenarios/video-wlan-3g.toml");
    let o = mptlab(&[
        "run",
        ex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--runs",
        "3",
        "--jobs",
        "2",
        "--seed",
        "9",
        "--set",
        "transport.cc=newreno",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for t in [
        "messages",
        "transfers",
        "flows",
        "paths",
        "links",
        "timeseries",
    ] {
        assert!(out.join(format!("{t}.csv")).is_file(), "{t}.csv");
        assert!(out.join(format!("{t}.parquet")).is_file(), "{t}.parquet");
    }
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"runs\": 3"), "{summary}");
    let eff = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(eff.contains("newreno") && eff.contains("seed = 9"), "{eff}");
    assert!(std::fs::read_dir(&out).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with('.')));

    // existing results are not overwritten without --force
    let o = mptlab(&[
        "run",
        ex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = mptlab(&[
        "run",
        ex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--force",
    ]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty(), "--quiet prints nothing on stdout");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn version_and_help() {
    let o = mptlab(&["--version"]);
    assert!(text(&o.stdout).starts_with("mptlab "));
    for cmd in ["list", "check", "run"] {
        let o = mptlab(&[cmd, "--help"]);
        assert!(o.status.success(), "{cmd}");
    }
}

/// Same scenario and seed give byte-identical result files, whatever the
/// number of worker threads.
#[test]
fn results_are_byte_identical_across_runs_and_jobs() {
    let ex = repo().join("scenarios/web-amazon.toml");
    let mut dirs = Vec::new();
    for (tag, jobs) in [("det-a", "1"), ("det-b", "2"), ("det-c", "2")] {
        let out = tmp(tag);
        let o = mptlab(&[
            "run",
            ex.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--runs",
            "4",
            "--jobs",
            jobs,
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        dirs.push(out);
    }
    for name in [
        "messages.csv",
        "transfers.csv",
        "flows.csv",
        "paths.csv",
        "links.csv",
        "timeseries.csv",
        "transfers.parquet",
        "flows.parquet",
        "summary.json",
    ] {
        let a = std::fs::read(dirs[0].join(name)).unwrap();
        for d in &dirs[1..] {
            assert!(
                a == std::fs::read(d.join(name)).unwrap(),
                "{name} differs between {} and {}",
                dirs[0].display(),
                d.display()
            );
        }
    }
    // A different seed gives different results.
    let out = tmp("det-d");
    let o = mptlab(&[
        "run",
        ex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--runs",
        "4",
        "--seed",
        "77",
        "--quiet",
    ]);
    assert!(o.status.success());
    assert!(
        std::fs::read(dirs[0].join("transfers.csv")).unwrap()
            != std::fs::read(out.join("transfers.csv")).unwrap()
    );
    for d in dirs.iter().chain([&out]) {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// A valid scenario asking for something the simulator does not implement
/// yet is refused before anything runs: exit 2, a message, nothing written.
#[test]
fn unsimulated_protocol_is_refused_up_front() {
    let ex = repo().join("scenarios/video-wlan-3g.toml");
    let out = tmp("unsupported");
    let o = mptlab(&[
        "run",
        ex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "transport.protocol=sctp",
        "--set",
        "transport.sctp.unordered=true",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("video-wlan-3g.toml")
            && err.contains("unordered")
            && err.contains("not measured yet"),
        "{err}"
    );
    assert!(!out.exists());
}
