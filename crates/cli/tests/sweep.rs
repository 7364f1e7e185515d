//! End-to-end tests of `mptlab sweep`: interruption and resume, errors, --jobs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mptlab(args: &[&str], stop_after: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mptlab"));
    c.args(args);
    if let Some(k) = stop_after {
        c.env("MPTLAB_SWEEP_STOP_AFTER", k.to_string());
    }
    c.output().expect("runs")
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mptlab-sweep-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const SCEN: &str = "[scenario]\nname = \"sw\"\nduration_s = 4\nruns = 3\nseed = 5\n\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n\n[transport]\nprotocol = \"tcp\"\n\n[traffic]\nmodel = \"video\"\nbitrate_kbit = 500\n\n[sweep]\n\"transport.path\" = [1, 2]\n\"transport.cc\" = [\"newreno\", \"cubic\"]\n";

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().unwrap() != "sweep.json")
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn interrupted_sweep_resumes_to_identical_results() {
    let d = tmp("resume");
    let scen = d.join("s.toml");
    std::fs::write(&scen, SCEN).unwrap();
    let (a, b) = (d.join("a"), d.join("b"));
    let s = scen.to_str().unwrap();
    let o = mptlab(
        &[
            "sweep",
            s,
            "--out",
            a.to_str().unwrap(),
            "--jobs",
            "1",
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = mptlab(
        &["sweep", s, "--out", b.to_str().unwrap(), "--jobs", "2"],
        Some(5),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("stopped after 5 run(s)"));
    assert!(
        !b.join("summary.json").exists(),
        "no merged tables before the sweep is complete"
    );
    let o = mptlab(
        &["sweep", s, "--out", b.to_str().unwrap(), "--jobs", "2"],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("resuming: 5 run(s) already done"), "{err}");
    assert_eq!(
        files(&a),
        files(&b),
        "resumed == uninterrupted, byte for byte (and --jobs 1 == 2)"
    );
    let head = String::from_utf8_lossy(&std::fs::read(a.join("messages.csv")).unwrap())
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(
        head.starts_with("point,point_label,transport.path,transport.cc,run,seed,"),
        "{head}"
    );

    // the scenario changed since: refused (exit 2) unless --force
    std::fs::write(&scen, SCEN.replace("duration_s = 4", "duration_s = 3")).unwrap();
    let o = mptlab(&["sweep", s, "--out", b.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds a sweep of a different scenario") && err.contains("--force"),
        "{err}"
    );
    let o = mptlab(
        &[
            "sweep",
            s,
            "--out",
            b.to_str().unwrap(),
            "--force",
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success());
    assert_ne!(files(&a), files(&b));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_axis_exits_2_names_file_key_value_and_writes_nothing() {
    let d = tmp("axis");
    let scen = d.join("s.toml");
    let out = d.join("out");
    for (bad, want) in [
        (
            "\"transport.path\" = [1, 3]",
            "s.toml:19:20: key `transport.path`",
        ),
        (
            "\"transport.path\" = 2",
            "expected a list of values for axis `transport.path`",
        ),
        ("\"transport.protocol\" = [\"quic\"]", "\"quic\""),
        ("\"transport.colour\" = [1]", "colour"),
    ] {
        std::fs::write(&scen, SCEN.replace("\"transport.path\" = [1, 2]", bad)).unwrap();
        let o = mptlab(
            &[
                "sweep",
                scen.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains(want), "{bad}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "nothing written for {bad}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A real `kill -9` at an arbitrary moment: whatever had finished is kept,
/// and the resumed sweep writes exactly what an uninterrupted one does.
/// (The outcome does not depend on when the kill lands, so no timing is asserted.)
#[test]
fn killed_sweep_resumes_to_identical_results() {
    let d = tmp("kill");
    let scen = d.join("s.toml");
    // about 1 s of work: a kill after 200 ms usually lands mid-sweep
    let long = SCEN
        .replace("duration_s = 4", "duration_s = 600")
        .replace("runs = 3", "runs = 4");
    std::fs::write(
        &scen,
        long.replace("model = \"video\"\nbitrate_kbit = 500", "model = \"bulk\""),
    )
    .unwrap();
    let s = scen.to_str().unwrap();
    let (a, b) = (d.join("a"), d.join("b"));
    let o = mptlab(&["sweep", s, "--out", a.to_str().unwrap(), "--quiet"], None);
    assert!(o.status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args([
            "sweep",
            s,
            "--out",
            b.to_str().unwrap(),
            "--quiet",
            "--jobs",
            "2",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    let o = mptlab(&["sweep", s, "--out", b.to_str().unwrap(), "--quiet"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(files(&a), files(&b));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn check_validates_every_point() {
    let d = tmp("check");
    let scen = d.join("s.toml");
    std::fs::write(&scen, SCEN).unwrap();
    let o = mptlab(&["check", scen.to_str().unwrap()], None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(
        out.contains("sweep of 4 point(s) x 3 run(s); first point path=1,cc=newreno"),
        "{out}"
    );
    std::fs::write(&scen, SCEN.replace("[1, 2]", "[2, 4]")).unwrap();
    let o = mptlab(&["check", scen.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("transport.path = 4"));
    std::fs::remove_dir_all(&d).unwrap();
}
