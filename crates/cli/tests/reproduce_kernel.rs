//! `mptlab reproduce SEED --kernel`: the cell split (no root needed) and one
//! real cell on the kernel (root, TUN and MPTCP; skipped with the reason
//! otherwise).

mod common;

use mptlab_scenario::Sweep;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mptlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

/// `--kernel-plan` lists every sweep point of every experiment once, as
/// `run` or `refused: <reason>`, and the reason is the emulator's own
/// `supported()` for that point: coupled congestion controls and SCTP are
/// refused naming themselves. Which other cells are refused is not fixed
/// here (the emulator learns more), only that the CLI asks it.
#[test]
fn kernel_plan_lists_every_cell_with_what_the_kernel_supports() {
    let o = mptlab(&["reproduce", "all", "--quick", "--kernel-plan"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lib = repo().join("scenarios");
    let reg = std::fs::read_to_string(lib.join("registry/experiments.toml")).unwrap();
    let reg: toml::Value = toml::from_str(&reg).unwrap();
    let (mut cells, mut refused, mut coupled, mut sctp) = (0, 0, 0, 0);
    for x in reg["experiment"].as_array().unwrap() {
        let (seed, id) = (x["seed"].as_str().unwrap(), x["id"].as_str().unwrap());
        let f = lib.join(format!("seed{seed}/{id}.toml"));
        let sw = Sweep::from_file(&f, &[], None).unwrap();
        for p in &sw.points {
            cells += 1;
            let line = format!("  seed{seed}/{id}:{} (", p.label);
            let found: Vec<&str> = out.lines().filter(|l| l.starts_with(&line)).collect();
            assert_eq!(found.len(), 1, "{line}: listed {} times", found.len());
            let s = &p.scenario;
            match mptlab_emu::run::supported(s) {
                Ok(()) => assert!(found[0].contains(" (run, "), "{}", found[0]),
                Err(r) => {
                    refused += 1;
                    assert!(
                        found[0].ends_with(&format!("(refused: {r})")),
                        "{}",
                        found[0]
                    );
                }
            }
            // refused, and named as the reason where nothing else the
            // emulator checks first (background traffic) refuses the cell
            let cc = s.transport.cc.to_string();
            if ["lia", "olia", "balia", "wvegas"].contains(&cc.as_str()) {
                assert!(found[0].contains("(refused: "), "{}", found[0]);
                coupled += found[0].contains("coupled congestion") as usize;
            }
            if s.transport.protocol.to_string().contains("sctp") {
                assert!(found[0].contains("(refused: "), "{}", found[0]);
                sctp += found[0].contains("no SCTP") as usize;
            }
        }
    }
    // the seeds have coupled-cc and SCTP cells, and cells the kernel runs
    assert!(
        coupled > 0 && sctp > 0 && refused < cells,
        "{coupled} {sctp} {refused} {cells}"
    );
    let total: usize = out
        .lines()
        .filter_map(|l| l.strip_prefix("kernel: seed "))
        .map(|l| {
            let n: usize = l[5..].split(' ').next().unwrap().parse().unwrap();
            n
        })
        .sum();
    assert_eq!(total, cells, "{out}");
    assert!(out.contains("one after another: about "), "{out}");
}

#[test]
fn kernel_only_selects_cells_and_a_filter_matching_none_is_an_error() {
    let o = mptlab(&[
        "reproduce",
        "004",
        "--quick",
        "--kernel-plan",
        "--kernel-only",
        "seed004/normal:protocol=tcp",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(", 2 selected by --kernel-only;"), "{out}");
    assert!(
        out.contains("  seed004/normal:protocol=tcp,cc=cubic,path=2 (run, "),
        "{out}"
    );
    assert!(out.contains("kernel: 2 cell(s) x 3 run(s)"), "{out}");
    let o = mptlab(&[
        "reproduce",
        "004",
        "--quick",
        "--kernel-plan",
        "--kernel-only",
        "no-such-cell",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("selects no cell the kernel can run"));
}

/// `--until-decided MAX` refuses the combinations that cannot work, each
/// with one message and exit 2, before anything is simulated (no root
/// needed: the checks come first); with `--kernel-plan` it adds the most
/// real time the loop can take.
#[test]
fn until_decided_refuses_bad_combinations_before_simulating() {
    let tmp = common::Scratch::unmade("until");
    let out = tmp.to_str().unwrap();
    let refused = |args: &[&str], want: &str| {
        let mut a = vec![
            "reproduce",
            "004",
            "--quick",
            "--only",
            "normal",
            "--out",
            out,
        ];
        a.extend_from_slice(args);
        let o = mptlab(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one message: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            !tmp.join("runs").exists(),
            "{args:?}: simulated before refusing"
        );
    };
    refused(
        &["--until-decided", "5"],
        "error: --until-decided 5 adds kernel runs to a kernel pass: pass --kernel (live) or --kernel-from FILE",
    );
    refused(
        &["--kernel", "--kernel-runs", "3", "--until-decided", "2"],
        "error: --until-decided 2 is below --kernel-runs 3",
    );
    refused(
        &["--kernel", "--until-decided", "10"],
        "has 3 simulated run(s) per point: pass --runs 10 or more",
    );
    // continuing a saved pass: the same check (seed 002's committed file)
    let o = mptlab(&[
        "reproduce",
        "002",
        "--quick",
        "--only",
        "sprint",
        "--out",
        out,
        "--kernel-from",
        "docs/data/seed002-kernel-2026-11-26",
        "--until-decided",
        "10",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("pass --runs 10 or more"), "{err}");
    assert!(!tmp.join("runs").exists(), "simulated before refusing");
    // MAX 0 is not a count of runs (clap's own message)
    let o = mptlab(&[
        "reproduce",
        "004",
        "--out",
        out,
        "--kernel",
        "--until-decided",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--until-decided <MAX>"));
    // the plan says what the loop can add
    let o = mptlab(&[
        "reproduce",
        "004",
        "--quick",
        "--runs",
        "10",
        "--only",
        "normal",
        "--kernel-plan",
        "--kernel-runs",
        "2",
        "--until-decided",
        "10",
    ]);
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        plan.contains(
            "until-decided: then every undecided or not checkable cell gets more kernel runs"
        ) && plan.contains("from 2 to 10 runs"),
        "{plan}"
    );
}

/// Whether `python` can write the report from this checkout's python/.
fn report_python() -> Option<String> {
    let py = std::env::var("MPTLAB_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py)
        .args(["-c", "import mptlab.report, matplotlib"])
        .env("PYTHONPATH", repo().join("python"))
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

/// One TCP cell of seed 004 (20 s bulk, one run) on the kernel: its rows
/// are written beside the simulator's, kernel.json compares them, and the
/// report has the seed's kernel part.
#[test]
fn reproduce_kernel_runs_one_cell_beside_the_simulator() {
    if let Err(e) = mptlab_emu::netns::preflight() {
        eprintln!("skipping reproduce_kernel_runs_one_cell_beside_the_simulator: {e}");
        return;
    }
    let out = common::Scratch::unmade("reproduce-kernel");
    let py = report_python();
    let mut c = Command::new(env!("CARGO_BIN_EXE_mptlab"));
    c.current_dir(repo())
        .args([
            "reproduce",
            "004",
            "--quick",
            "--runs",
            "2",
            "--only",
            "normal",
            "--kernel",
        ])
        .args([
            "--kernel-runs",
            "1",
            "--kernel-only",
            "normal:protocol=tcp,cc=cubic,path=1",
        ])
        .arg("--out")
        .arg(&out);
    match &py {
        Some(py) => {
            c.env("MPTLAB_PYTHON", py)
                .env("PYTHONPATH", repo().join("python"));
        }
        None => {
            eprintln!("reproduce_kernel: no Python with mptlab.report and matplotlib: the report is not checked");
            c.arg("--no-report");
        }
    }
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("kernel: 1 cell(s) x 1 run(s) one after another: about "),
        "{err}"
    );
    assert!(
        err.contains("reproduce --kernel: 1 cell(s) ran, 0 failed"),
        "{err}"
    );
    let k: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("kernel.json")).unwrap()).unwrap();
    let cells = k["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "every point of the file is listed");
    let ran: Vec<&serde_json::Value> = cells.iter().filter(|c| c["status"] == "ran").collect();
    assert_eq!(ran.len(), 1);
    let dir = out.join(ran[0]["dir"].as_str().unwrap());
    // kernel rows: the run's tables and its summary, one run
    for f in ["summary.json", "flows.csv", "paths.csv", "transfers.csv"] {
        assert!(dir.join(f).is_file(), "{}", dir.join(f).display());
    }
    let m = &ran[0]["metrics"][0];
    assert_eq!(m["metric"], "fg_throughput_mbit");
    assert_eq!(m["kernel"]["n"], 1);
    // paired: the judged simulator median is over run 0, the kernel's run;
    // the median of both simulated runs is shown beside it
    assert_eq!(m["sim"]["n"], 1);
    assert_eq!(m["sim_all"]["n"], 2);
    assert_eq!(m["runs"].as_array().unwrap().len(), 1);
    assert_eq!(m["runs"][0]["run"], 0);
    assert!(m["kernel"]["median"].as_f64().unwrap() > 0.0);
    assert!(["PASS", "FAIL"].contains(&m["verdict"].as_str().unwrap()));
    // one kernel run: the metric's point verdict is kept, the cell is not
    // checkable (session 28; it was agree or disagree)
    assert_eq!(ran[0]["verdict"], "not checkable");
    assert!(cells.iter().any(|c| c["status"] == "refused"
        && c["reason"].as_str().unwrap().contains("coupled congestion")));
    // no namespace of this run left behind (named mptl-<pid>-...; other
    // emulations may run beside it)
    let ns = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let ns = String::from_utf8_lossy(&ns.stdout);
    assert!(!ns.contains(&format!("mptl-{pid}-")), "{ns}");
    if py.is_some() {
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert!(html.contains("id='seed004-kernel'"), "no kernel section");
        assert!(html.contains("id='seed004-kernel-table'"));
        assert!(html.contains("Cells the kernel cannot run (4)"));
    }
    std::fs::remove_dir_all(&out).unwrap();
}

/// `--kernel-from`: a saved kernel.json of another seed is refused before
/// anything is simulated, naming the file and the key; the committed seed
/// 002 file is re-judged against seed 002's `sprint` experiment (no root,
/// no real time) with its kernel values unchanged.
#[test]
fn kernel_from_rejudges_a_saved_file_and_refuses_another_sweeps() {
    let saved = "docs/data/seed002-kernel-2026-11-26";
    let tmp = common::Scratch::unmade("kernel-from");
    let (bad, good) = (tmp.join("bad"), tmp.join("good"));
    let o = mptlab(&[
        "reproduce",
        "004",
        "--quick",
        "--only",
        "normal",
        "--no-report",
        "-q",
        "--out",
        bad.to_str().unwrap(),
        "--kernel-from",
        saved,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{saved}/kernel.json: key `cells[0].seed`: seed \"002\", but this sweep is seed 004"
        )),
        "{err}"
    );
    assert!(!bad.join("runs").exists(), "simulated before refusing");
    let o = mptlab(&[
        "reproduce",
        "002",
        "--quick",
        "--only",
        "sprint",
        "--no-report",
        "-q",
        "--out",
        good.to_str().unwrap(),
        "--kernel-from",
        &format!("{saved}/kernel.json"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        // the saved pass ran one kernel run per cell: not checkable
        // (session 28; it counted them agree or disagree)
        err.contains("reproduce --kernel-from: 39 cell(s), 13 without a kernel result (refused, skipped or failed in the saved pass); 26 re-judged: 0 agree, 0 disagree, 0 undecided, 26 not checkable"),
        "{err}"
    );
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let new = read(&good.join("kernel.json"));
    let old = read(&repo().join(saved).join("kernel.json"));
    assert_eq!(new["kernel_runs"], old["kernel_runs"]);
    let cells = new["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 39);
    for c in cells {
        assert_eq!(c["experiment"], "seed002/sprint");
        let o = old["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["point_id"] == c["point_id"] && o["experiment"] == c["experiment"])
            .unwrap();
        assert_eq!(c["status"], o["status"]);
        if c["status"] != "ran" {
            continue;
        }
        assert_eq!(c["verdict"], "not checkable");
        assert!(
            c["reason"]
                .as_str()
                .unwrap()
                .contains("1 paired run: a median of one run has no spread"),
            "{c}"
        );
        // the kernel's side is the saved one; the simulator's is this run's
        let (m, om) = (&c["metrics"][0], &o["metrics"][0]);
        assert_eq!(m["kernel"], om["kernel"]);
        assert_eq!(m["runs"][0]["kernel"], om["runs"][0]["kernel"]);
        assert_eq!(m["runs"][0]["run"], 0);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
