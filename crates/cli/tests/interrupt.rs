//! Session 27: SIGINT and SIGTERM in the middle of `sweep` and `reproduce`
//! (module `interrupt`). The binary is spawned, signalled once work is
//! under way, and judged by its one line on stderr, its exit status (128 +
//! the signal) and the files it leaves: runs kept, nothing that marks a
//! finished result, and the same command resuming.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::seed002_library as library;

/// Run files (`run-<k>...`) below `dir`.
fn run_files(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                run_files(&p)
            } else {
                usize::from(e.file_name().to_string_lossy().starts_with("run-"))
            }
        })
        .sum()
}

/// Wait (up to a minute) until `ready` holds, while `child` runs.
fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !ready() {
        if let Some(s) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("ended ({s}) before {what}: {err}");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn spawn(args: &[&str], envs: &[(&str, &str)]) -> Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mptlab"));
    c.args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .stdin(Stdio::null());
    for (k, v) in envs {
        c.env(k, v);
    }
    c.spawn().expect("runs")
}

/// The one line the binary prints when `sig` (its name) interrupted it.
fn interruption_line<'a>(err: &'a str, sig: &str) -> &'a str {
    err.lines()
        .find(|l| l.starts_with(&format!("interrupted by {sig}")))
        .unwrap_or_else(|| panic!("no interruption line in: {err}"))
}

/// Send `sig`; the exit code and stderr.
fn signal(child: Child, sig: i32) -> (Option<i32>, String) {
    // SAFETY: kill(2) on our own child, not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Many short runs: the signal lands while runs are under way.
const SWEEP: &str = "[scenario]\nname = \"int\"\nduration_s = 120\nruns = 400\n\
    [topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n\
    [traffic]\nmodel = \"bulk\"\n[transport]\nprotocol = \"mptcp\"\n\
    [sweep]\n\"transport.cc\" = [\"lia\", \"olia\"]\n";

/// A sweep stopped by SIGINT says so with the runs done out of the total,
/// writes no summary.json and exits 130; the same command resumes, and
/// SIGTERM then stops it with exit 143.
#[test]
fn an_interrupted_sweep_says_what_finished_and_resumes() {
    let d = common::fresh_dir("interrupt", "sweep");
    let scen = d.join("s.toml");
    std::fs::write(&scen, SWEEP).unwrap();
    let out = d.join("out");
    let args = [
        "sweep",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-j",
        "2",
    ];
    let mut child = spawn(&args, &[]);
    wait_for(&mut child, "a saved run", || run_files(&out) >= 3);
    let (code, err) = signal(child, libc::SIGINT);
    assert_eq!(code, Some(130), "{err}");
    let line = interruption_line(&err, "SIGINT");
    assert!(line.contains("sweep "), "{line}");
    assert!(
        line.contains("at least ") && line.contains(" of 800 run(s) finished and are saved under"),
        "{line}"
    );
    assert!(line.contains("summary.json were not written"), "{line}");
    assert!(line.contains("run the same command to resume"), "{line}");
    assert!(!out.join("summary.json").exists());
    let kept = run_files(&out);
    assert!(kept >= 3, "{kept} run file(s) kept");
    // the same command resumes from the kept runs
    let mut child = spawn(&args, &[]);
    wait_for(&mut child, "more saved runs", || {
        run_files(&out) >= kept + 3
    });
    let (code, err) = signal(child, libc::SIGTERM);
    assert_eq!(code, Some(143), "{err}");
    assert!(err.contains("resuming:"), "{err}");
    let line = interruption_line(&err, "SIGTERM");
    assert!(line.contains("of them by an earlier invocation"), "{line}");
    assert!(!out.join("summary.json").exists());
}

/// A `reproduce` stopped while the report is written: the report's process
/// is stopped (not left running), its half-written report.html and
/// verdicts.json are removed, reproduce.json (the runs are complete) stays,
/// the line says how to write the report, exit 130. Before, Ctrl-C killed
/// mptlab silently and the report's process wrote on.
#[test]
fn an_interrupted_report_leaves_no_half_written_report() {
    let d = common::fresh_dir("interrupt", "report");
    let lib = library(&d);
    let out = d.join("out");
    // a stand-in for python: writes half a report, then waits
    let py = d.join("python");
    let pid_file = d.join("report.pid");
    std::fs::write(
        &py,
        format!(
            "#!/bin/sh\n# -c CODE OUT --jobs N\necho '<html>half' > \"$3/report.html\"\necho '{{' > \"$3/verdicts.json\"\n\
             echo $$ > {}\nexec sleep 60\n",
            pid_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&py, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut child = spawn(
        &[
            "reproduce",
            "002",
            "--quick",
            "--runs",
            "1",
            "-q",
            "--library",
            lib.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[("MPTLAB_PYTHON", py.to_str().unwrap())],
    );
    wait_for(&mut child, "the report's process", || {
        std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n'))
    });
    let report_pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let (code, err) = signal(child, libc::SIGINT);
    assert_eq!(code, Some(130), "{err}");
    let line = interruption_line(&err, "SIGINT");
    assert!(line.contains("reproduce.json are complete"), "{line}");
    assert!(line.contains("-m mptlab.report"), "{line}");
    assert!(out.join("reproduce.json").exists());
    for f in ["report.html", "verdicts.json"] {
        assert!(!out.join(f).exists(), "half-written {f} left");
    }
    // SAFETY: signal 0 only checks whether the pid exists.
    let alive = unsafe { libc::kill(report_pid, 0) } == 0;
    if alive {
        // SAFETY: the stand-in's own sleep, started by this test.
        unsafe { libc::kill(report_pid, libc::SIGKILL) };
    }
    assert!(!alive, "the report's process is still running");
}
