//! End-to-end tests of `mptlab sweep`: interruption and resume, errors, --jobs.

use std::path::Path;
use std::process::Command;

mod common;
use common::mptlab;

fn tmp(tag: &str) -> common::Scratch {
    common::fresh_dir("sweep-test", tag)
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

/// A bulk TCP transfer over path 1, a Mahimahi trace link (`link.trace`
/// beside the scenario), swept over two congestion controls.
const TRACED: &str = "[scenario]\nname = \"tr\"\nduration_s = 2\nruns = 2\nseed = 3\n\n[profile.tr]\ntrace = \"link.trace\"\ndelay_ms = 10\n\n[topology]\npreset = \"two-path\"\npaths = [\"tr\", \"3g\"]\n\n[transport]\nprotocol = \"tcp\"\n\n[traffic]\nmodel = \"bulk\"\n\n[sweep]\n\"transport.cc\" = [\"newreno\", \"cubic\"]\n";

/// Mahimahi trace: one 1500-byte delivery opportunity every `every_ms` ms
/// over a 100 ms period (12 Mbit/s at 1).
fn trace(every_ms: usize) -> String {
    (every_ms..=100)
        .step_by(every_ms)
        .map(|t| format!("{t}\n"))
        .collect()
}

/// Issue 12 item 5: a sweep interrupted, its trace file changed, then
/// resumed, must not merge runs made from the old trace with runs made from
/// the new one. The resume is refused naming the file; --force redoes every
/// run, and the merged results are those of a fresh sweep on the new trace.
#[test]
fn resume_after_a_trace_changed_is_refused_and_force_redoes_the_runs() {
    let d = tmp("trace");
    let scen = d.join("s.toml");
    std::fs::write(&scen, TRACED).unwrap();
    std::fs::write(d.join("link.trace"), trace(1)).unwrap();
    let s = scen.to_str().unwrap();
    let (a, fresh) = (d.join("a"), d.join("fresh"));
    let sweep = |out: &Path, extra: &[&str], stop: Option<usize>| {
        let mut args = vec!["sweep", s, "--out", out.to_str().unwrap(), "--jobs", "1"];
        args.extend_from_slice(extra);
        mptlab(&args, stop)
    };
    let o = sweep(&a, &[], Some(2));
    assert_eq!(o.status.code(), Some(1), "interrupted after 2 of 4 runs");
    // the old trace's runs on disk
    let old_runs = std::fs::read_dir(a.join("runs"))
        .unwrap()
        .flat_map(|p| std::fs::read_dir(p.unwrap().path()).unwrap())
        .filter(|e| e.as_ref().unwrap().file_name() != "scenario.toml")
        .count();
    assert_eq!(old_runs, 2);

    std::fs::write(d.join("link.trace"), trace(4)).unwrap();
    let o = sweep(&a, &[], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let named = format!(
        "holds runs computed from other inputs: {} changed since they were made",
        d.join("link.trace").display()
    );
    assert!(err.contains(&named) && err.contains("--force"), "{err}");
    assert!(!a.join("summary.json").exists(), "nothing merged");

    let o = sweep(&a, &["--force", "--quiet"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = sweep(&fresh, &["--quiet"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        files(&a),
        files(&fresh),
        "after --force: the results of a fresh sweep on the new trace"
    );
    // and they do reflect the trace: a quarter of the capacity
    let one = d.join("one.trace");
    std::fs::write(&one, trace(1)).unwrap();
    let full = d.join("full");
    let o = mptlab(
        &[
            "sweep",
            s,
            "--out",
            full.to_str().unwrap(),
            "--quiet",
            "--set",
            &format!("profile.tr.trace={:?}", one.to_str().unwrap()),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let throughput = |dir: &Path| -> f64 {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
        doc["points"][0]["aggregate"]["fg_throughput_mbit"]["mean"]
            .as_f64()
            .unwrap_or_else(|| panic!("no fg_throughput_mbit in {doc}"))
    };
    let (slow, fast) = (throughput(&a), throughput(&full));
    assert!(slow < 0.4 * fast, "{slow} vs {fast} Mbit/s");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `mptlab reproduce` runs its library's files as sweeps: the same holds.
#[test]
fn reproduce_refuses_a_changed_trace_and_force_redoes_that_sweep() {
    let d = tmp("repro-trace");
    let lib = d.join("lib");
    std::fs::create_dir_all(lib.join("seed000")).unwrap();
    std::fs::write(lib.join("seed000/tr.toml"), TRACED).unwrap();
    std::fs::write(lib.join("seed000/link.trace"), trace(1)).unwrap();
    std::fs::create_dir_all(lib.join("registry")).unwrap();
    std::fs::write(
        lib.join("registry/experiments.toml"),
        "[[experiment]]\nseed = \"000\"\nid = \"tr\"\naxes = [\"transport.cc\"]\nfigures = []\n",
    )
    .unwrap();
    let repro = |out: &Path, force: bool| {
        let mut args = vec![
            "reproduce",
            "000",
            "--library",
            lib.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-report",
            "--quiet",
            "--jobs",
            "1",
        ];
        if force {
            args.push("--force");
        }
        mptlab(&args, None)
    };
    let (a, fresh) = (d.join("a"), d.join("fresh"));
    assert!(repro(&a, false).status.success());
    std::fs::write(lib.join("seed000/link.trace"), trace(4)).unwrap();
    let o = repro(&a, false);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("link.trace changed since") && err.contains("--force"),
        "{err}"
    );
    assert!(repro(&a, true).status.success());
    assert!(repro(&fresh, false).status.success());
    let sweep_dir = |o: &Path| o.join("runs/seed000/tr");
    assert_eq!(files(&sweep_dir(&a)), files(&sweep_dir(&fresh)));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `reproduce` opens its sweeps' stores on several threads: when several
/// refuse, the first in file order is the one reported (once), as when
/// they were opened one by one, and the runs already there are kept.
#[test]
fn reproduce_reports_the_first_refusing_sweep_in_file_order() {
    let d = tmp("repro-open");
    let lib = d.join("lib");
    std::fs::create_dir_all(lib.join("seed000")).unwrap();
    std::fs::create_dir_all(lib.join("registry")).unwrap();
    let mut reg = String::new();
    for k in 0..10 {
        std::fs::write(lib.join(format!("seed000/s{k}.toml")), SCEN).unwrap();
        reg.push_str(&format!(
            "[[experiment]]\nseed = \"000\"\nid = \"s{k}\"\naxes = [\"transport.path\", \"transport.cc\"]\nfigures = []\n"
        ));
    }
    std::fs::write(lib.join("registry/experiments.toml"), reg).unwrap();
    let out = d.join("out");
    let repro = || {
        mptlab(
            &[
                "reproduce",
                "000",
                "--library",
                lib.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--runs",
                "1",
                "--no-report",
                "--quiet",
                "--jobs",
                "2",
            ],
            None,
        )
    };
    let o = repro();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before: Vec<_> = (0..10)
        .map(|k| files(&out.join(format!("runs/seed000/s{k}"))))
        .collect();
    // another bit rate in every file: every store refuses its changed points
    for k in 0..10 {
        std::fs::write(
            lib.join(format!("seed000/s{k}.toml")),
            SCEN.replace("bitrate_kbit = 500", "bitrate_kbit = 400"),
        )
        .unwrap();
    }
    let o = repro();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("--force").count(), 1, "{err}");
    assert!(err.contains("runs/seed000/s0 "), "{err}");
    // one message: the refusal says to use --force or another --out; a
    // second line saying "the same command resumes" contradicted it
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(!err.contains("same command resumes"), "{err}");
    for (k, b) in before.iter().enumerate() {
        assert_eq!(&files(&out.join(format!("runs/seed000/s{k}"))), b, "s{k}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// `mptlab --version` names the model's sources (the digest that keys a
/// sweep's runs), so a result can be traced to the build that made it.
#[test]
fn version_names_the_model_sources() {
    let o = mptlab(&["--version"], None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let id = out
        .trim()
        .strip_suffix(')')
        .and_then(|s| s.split("(model sources ").nth(1))
        .unwrap_or_else(|| panic!("no model sources in {out:?}"));
    assert_eq!(id, mptlab_sweep::store::MODEL_ID, "{out}");
}

/// `--scheduler` hands the sweep to the Python package, which simulates
/// with its own build: another build of the model is refused before
/// anything runs (its runs would be stored as this model's).
#[test]
fn scheduler_refuses_a_python_package_of_another_model() {
    use std::os::unix::fs::PermissionsExt;
    let d = tmp("other-python");
    std::fs::create_dir_all(&d).unwrap();
    let scen = d.join("s.toml");
    std::fs::write(&scen, SCEN).unwrap();
    // a "python" whose package reports another model; run as the package
    // it would fail loudly (exit 99), so reaching it shows in the test
    let py = d.join("python");
    std::fs::write(
        &py,
        "#!/bin/sh\nif [ \"$1\" = -c ]; then echo 0123456789abcdef0123456789abcdef; exit 0; fi\nexit 99\n",
    )
    .unwrap();
    std::fs::set_permissions(&py, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = d.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args([
            "sweep",
            scen.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--scheduler", "tcp://127.0.0.1:1"])
        .env("MPTLAB_PYTHON", &py)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is another build of the model (model sources 0123456789ab;"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).unwrap();
}
