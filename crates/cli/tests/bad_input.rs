//! Session 26, bad input and interrupted work: an `--out` holding files of
//! the user's own is refused, not overwritten; a `reproduce` that redoes
//! runs and is interrupted leaves nothing that passes for a finished pass;
//! `bench` arguments that mean nothing are refused up front.

use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{mptlab, seed002_library as library};

fn tmp(tag: &str) -> common::Scratch {
    common::fresh_dir("s26", tag)
}

/// A fresh directory for one test and `SCEN` written in it as `s.toml`.
fn with_scenario(tag: &str) -> (common::Scratch, PathBuf) {
    let d = tmp(tag);
    let scen = d.join("s.toml");
    std::fs::write(&scen, SCEN).unwrap();
    (d, scen)
}

const SCEN: &str = "[scenario]\nname = \"s26\"\nduration_s = 1\nruns = 1\n[topology]\npreset = \"single-path\"\npaths = [\"lte\"]\n[traffic]\nmodel = \"file\"\nsize_bytes = 10000\n";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with `needle` in the one message.
fn refused(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(stderr(o).contains(needle), "{}", stderr(o));
}

/// `run`/`sweep`/`analyze` checked for summary.json only: a `flows.csv`
/// of the user's own was overwritten, and `--no-csv` deleted it.
#[test]
fn files_of_the_users_own_in_out_are_refused_not_overwritten() {
    let (d, scen) = with_scenario("theirs");
    let sweep = d.join("sw.toml");
    std::fs::write(
        &sweep,
        format!("{SCEN}[sweep]\n\"traffic.size_bytes\" = [10000, 20000]\n"),
    )
    .unwrap();
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("flows.csv"), "my own table\n").unwrap();
    std::fs::write(out.join("notes.txt"), "kept\n").unwrap();
    let o_s = out.to_str().unwrap();
    for args in [
        vec![
            "run",
            scen.to_str().unwrap(),
            "--out",
            o_s,
            "-q",
            "--no-csv",
        ],
        vec!["run", scen.to_str().unwrap(), "--out", o_s, "-q"],
        vec![
            "sweep",
            sweep.to_str().unwrap(),
            "--out",
            o_s,
            "-q",
            "--no-csv",
        ],
    ] {
        let o = mptlab(&args, None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("error: {o_s} already holds results"))
                && err.contains("flows.csv")
                && err.contains("--force"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("flows.csv")).unwrap(),
            "my own table\n",
            "{args:?}"
        );
        assert!(!out.join("summary.json").exists() && !out.join("runs").exists());
    }
    // `mptlab run s.toml --out .`: the scenario file itself would be
    // replaced by the effective scenario.toml
    let here = d.join("here");
    std::fs::create_dir_all(&here).unwrap();
    std::fs::write(here.join("scenario.toml"), SCEN).unwrap();
    let o = mptlab(
        &[
            "run",
            here.join("scenario.toml").to_str().unwrap(),
            "--out",
            here.to_str().unwrap(),
            "-q",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("(scenario.toml)"), "{}", stderr(&o));
    // --force: the user said so
    let o = mptlab(
        &["run", scen.to_str().unwrap(), "--out", o_s, "-q", "--force"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("summary.json").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "kept\n"
    );
    // an empty or unrelated directory is still fine
    let o = mptlab(
        &[
            "sweep",
            sweep.to_str().unwrap(),
            "--out",
            here.join("sub").to_str().unwrap(),
            "-q",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A finished `reproduce`, then the same with more runs, interrupted: the
/// old reproduce.json (the report's sign that the sweeps ended), report and
/// verdicts, and the sweeps' old summary.json files used to stay beside the
/// half-redone runs, and the report read them as a finished pass.
#[test]
fn an_interrupted_reproduce_leaves_no_finished_looking_pass() {
    let d = tmp("reproduce");
    let lib = library(&d);
    let out = d.join("out");
    let base = [
        "reproduce",
        "002",
        "--quick",
        "--no-report",
        "-q",
        "--library",
        lib.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let o = mptlab(&[&base[..], &["--runs", "1"]].concat(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("reproduce.json").exists());
    // what the report of that pass wrote
    std::fs::write(out.join("report.html"), "<html>old pass</html>").unwrap();
    std::fs::write(out.join("verdicts.json"), "{}").unwrap();
    let sweeps: Vec<PathBuf> = ["att", "sprint", "verizon"]
        .iter()
        .map(|c| out.join("runs/seed002").join(c))
        .collect();
    for s in &sweeps {
        assert!(s.join("summary.json").exists(), "{}", s.display());
    }
    // refused (a scenario changed, no --force): the old pass stays whole
    let att = lib.join("seed002/att.toml");
    let text = std::fs::read_to_string(&att).unwrap();
    std::fs::write(&att, text.replacen("seed = 1", "seed = 2", 1)).unwrap();
    let o = mptlab(&[&base[..], &["--runs", "1"]].concat(), None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    for f in ["reproduce.json", "report.html", "verdicts.json"] {
        assert!(out.join(f).exists(), "{f} removed by a refused reproduce");
    }
    std::fs::write(&att, text).unwrap();
    // more runs, stopped after 2 of them (as an interruption would)
    let o = mptlab(&[&base[..], &["--runs", "3"]].concat(), Some(2));
    assert!(!o.status.success(), "{}", stderr(&o));
    for f in ["reproduce.json", "report.html", "verdicts.json"] {
        assert!(!out.join(f).exists(), "{f} of the old pass is still there");
    }
    for s in &sweeps {
        assert!(
            !s.join("summary.json").exists(),
            "{}: the merge of 1 run per point is still there",
            s.display()
        );
    }
    // the same command resumes and finishes
    let o = mptlab(&[&base[..], &["--runs", "3"]].concat(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("reproduce.json").exists());
    for s in &sweeps {
        assert!(s.join("summary.json").exists(), "{}", s.display());
    }
    // nothing left to do: a report of these runs is kept
    std::fs::write(out.join("report.html"), "<html>this pass</html>").unwrap();
    let o = mptlab(&[&base[..], &["--runs", "3"]].concat(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("report.html").exists() && out.join("reproduce.json").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

/// `bench --duration 0` named a key of an internal scenario (exit 1),
/// `--repeat 0` and `--scale F --runs 0` timed a run anyway, and an
/// `--only` matching nothing printed an empty table with exit 0.
#[test]
fn bench_arguments_that_mean_nothing_are_refused() {
    let (d, scen) = with_scenario("bench");
    for (args, want) in [
        (
            vec!["bench", "--duration", "0"],
            "error: --duration 0: expected simulated seconds > 0",
        ),
        (
            vec!["bench", "--duration", "NaN"],
            "error: --duration NaN: expected simulated seconds > 0",
        ),
        (
            vec!["bench", "--repeat", "0", "--duration", "1"],
            "error: --repeat 0: expected at least 1",
        ),
        (
            vec!["bench", "--only", "nosuch", "--duration", "1"],
            "error: --only \"nosuch\" matches no benchmark (have: single-flow-20mbit-40ms",
        ),
        (
            vec!["bench", "--scale", scen.to_str().unwrap(), "--runs", "0"],
            "error: --runs 0: expected at least 1 run",
        ),
    ] {
        let o = mptlab(&args, None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(want), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: no table");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A damaged run file in a sweep's store was named ("not a run file:
/// malformed JSON at byte 100") without saying what to do.
#[test]
fn a_damaged_run_file_says_how_to_redo_it() {
    let d = tmp("damaged-run");
    let sweep = d.join("sw.toml");
    std::fs::write(
        &sweep,
        format!("{SCEN}[sweep]\n\"traffic.size_bytes\" = [10000, 20000]\n"),
    )
    .unwrap();
    let out = d.join("out");
    let args = [
        "sweep",
        sweep.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    let o = mptlab(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = std::fs::read(out.join("summary.json")).unwrap();
    let run = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path().join("run-0.json"))
        .find(|p| p.exists())
        .unwrap();
    let bytes = std::fs::read(&run).unwrap();
    std::fs::write(&run, &bytes[..100]).unwrap();
    std::fs::remove_file(out.join("summary.json")).unwrap();
    let o = mptlab(&args, None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("error: {}: not a run file", run.display()))
            && err.contains("delete it and run the same command again"),
        "{err}"
    );
    // as it says: the run is redone, and the merge is the same bytes
    std::fs::remove_file(&run).unwrap();
    let o = mptlab(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), summary);
    std::fs::remove_dir_all(&d).unwrap();
}

/// `run --capture FILE` (a file where a directory is expected) failed only
/// after run 0 had simulated (exit 1); refused up front now, like `--out`.
#[test]
fn a_capture_directory_that_is_a_file_is_refused_up_front() {
    let (d, scen) = with_scenario("capture");
    let file = d.join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let out = d.join("out");
    let o = mptlab(
        &[
            "run",
            scen.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--capture",
            file.to_str().unwrap(),
        ],
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: --capture {} (output.capture_dir): exists and is not a directory",
            file.display()
        )
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--seed` took any u64, and a seed above 2^63-1 (what `scenario.seed`, a
/// TOML integer, can hold) failed later as "invalid type: string ...,
/// expected u64" of the scenario key; the flag now names its range. The
/// largest seed that fits still runs.
#[test]
fn a_seed_beyond_what_a_scenario_holds_is_refused_by_the_flag() {
    let (d, scen) = with_scenario("seed");
    let s = scen.to_str().unwrap();
    let out = d.join("out");
    let o = out.to_str().unwrap();
    for cmd in ["run", "sweep"] {
        let r = mptlab(
            &[cmd, s, "--seed", "18446744073709551615", "-q", "--out", o],
            None,
        );
        assert_eq!(r.status.code(), Some(2), "{cmd}: {}", stderr(&r));
        let e = stderr(&r);
        assert!(
            e.contains("--seed") && e.contains("0..=9223372036854775807"),
            "{cmd}: {e}"
        );
        assert!(!out.exists(), "{cmd}: nothing is written");
    }
    let r = mptlab(
        &["run", s, "--seed", "9223372036854775807", "-q", "--out", o],
        None,
    );
    assert!(r.status.success(), "{}", stderr(&r));
    let _ = std::fs::remove_dir_all(&d);
}

/// Session 27: `validate --kernel-from DIR` with no such DIR printed a
/// CONFIG_HZ note and then a per-scenario "no saved kernel results" error;
/// `--runs 0` was blamed on the file's `runs = 3` line. One message each,
/// naming the option, exit 2.
#[test]
fn validate_options_that_mean_nothing_are_refused_by_name() {
    let d = tmp("validate");
    let dir = common::repo().join("scenarios/validate");
    let missing = d.join("nosuch");
    let o = mptlab(
        &[
            "validate",
            "--dir",
            dir.to_str().unwrap(),
            "--only",
            "file-256k-tcp",
            "--kernel-from",
            missing.to_str().unwrap(),
        ],
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "error: --kernel-from {}: no such directory",
            missing.display()
        )),
        "{err}"
    );
    let o = mptlab(
        &[
            "validate",
            "--dir",
            dir.to_str().unwrap(),
            "--only",
            "file-256k-tcp",
            "--kernel-from",
            d.to_str().unwrap(),
            "--runs",
            "0",
        ],
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        "error: --runs 0: expected a number of runs >= 1"
    );
}

/// Session 28: `agent client --run 5` on a scenario of 1 run was accepted
/// (a seed no `run` or `emulate` of the file draws); `agent server --out`
/// overwrote results already there when it stopped; port 0 was taken as
/// "any port". Each is one message naming the option, exit 2, before the
/// agent touches the network.
#[test]
fn agent_options_out_of_range_are_refused_by_name() {
    let (d, scen) = with_scenario("agent");
    let sc = scen.to_str().unwrap();
    let to = |connect: &str, extra: &[&str]| {
        let mut a = vec!["agent", "client", sc, "--connect", connect, "--out"];
        a.push(d.to_str().unwrap());
        a.extend_from_slice(extra);
        mptlab(&a, None)
    };
    let client = |extra: &[&str]| to("127.0.0.1:1", extra);
    let server = |listen: &str, extra: &[&str]| {
        let mut a = vec!["agent", "server", sc, "--listen", listen];
        a.extend_from_slice(extra);
        mptlab(&a, None)
    };
    let o = client(&["--run", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("--run 5: the scenario has 1 run(s) (scenario.runs = 1), so --run must be 0")
            && e.contains(sc)
            && e.lines().count() == 1,
        "{e}"
    );
    // the server the same
    let o = server("127.0.0.1:1", &["--run", "1"]);
    refused(&o, "--run 1: the scenario has 1 run(s)");
    // with more runs set, the range says so
    let o = client(&["--run", "3", "--set", "scenario.runs=3"]);
    assert!(
        stderr(&o).contains("so --run must be 0 to 2"),
        "{}",
        stderr(&o)
    );
    // port 0
    let o = to("127.0.0.1:0", &[]);
    refused(&o, "--connect 127.0.0.1:0: port 0");
    let o = server("127.0.0.1:0", &[]);
    refused(&o, "--listen 127.0.0.1:0: port 0");
    // the server's --out holding results: refused up front, kept
    let out = d.join("srv");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("summary.json"), "{\"mine\": 1}").unwrap();
    let o = server("127.0.0.1:1", &["--out", out.to_str().unwrap()]);
    refused(&o, "already holds results (summary.json); use --force");
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        "{\"mine\": 1}"
    );
}
