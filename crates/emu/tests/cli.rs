//! The mptlab-linkemu binary: clean teardown on SIGINT and at the end of
//! --duration, and removal of a SIGKILLed run's leftovers by `cleanup`.
//! Needs root; skips otherwise.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use mptlab_emu::{cleanup, netns};

const BIN: &str = env!("CARGO_BIN_EXE_mptlab-linkemu");

/// One run at a time: every start removes dead runs' namespaces, which would
/// race with the SIGKILL test looking at its leftovers.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn need_root(test: &str) -> bool {
    if netns::is_root() {
        return true;
    }
    eprintln!("skipping {test}: needs root (network namespaces and TUN devices)");
    false
}

/// Kills and reaps the child if a test fails while it runs (its SIGTERM
/// handler then removes the namespaces).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        }
        let _ = self.0.wait();
    }
}

/// Start `run` and wait for the line naming the namespaces; returns the run prefix.
fn start(args: &[&str]) -> (Running, String) {
    let mut child = Running(
        Command::new(BIN)
            .arg("run")
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "mptlab-linkemu exited before printing its namespaces"
        );
        if let Some(rest) = line.strip_prefix("namespaces: client ") {
            let client = rest.split_whitespace().next().unwrap();
            let prefix = client.strip_suffix('c').unwrap().to_string();
            // Keep draining stdout so the child never blocks on a full pipe.
            std::thread::spawn(move || for _ in out.lines() {});
            return (child, prefix);
        }
    }
}

#[test]
fn sigint_stops_cleans_up_and_writes_stats() {
    if !need_root("sigint_stops_cleans_up_and_writes_stats") {
        return;
    }
    let _g = serial();
    let scratch = scratch::Scratch::new("linkemu-stats");
    let stats = scratch.join("stats.json");
    let (mut child, prefix) = start(&["--stats", stats.to_str().unwrap()]);
    assert_eq!(cleanup::namespaces_with_prefix(&prefix).unwrap().len(), 3);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.0.id() as i32, libc::SIGINT) };
    let status = child.0.wait().unwrap();
    assert!(status.success(), "exit status {status}");
    assert!(cleanup::namespaces_with_prefix(&prefix).unwrap().is_empty());
    let json = std::fs::read_to_string(&stats).unwrap();
    let _ = std::fs::remove_file(&stats);
    for d in ["path1.up", "path1.down", "path2.up", "path2.down"] {
        assert!(json.contains(&format!("\"direction\": \"{d}\"")), "{json}");
    }
}

#[test]
fn duration_ends_the_run() {
    if !need_root("duration_ends_the_run") {
        return;
    }
    let _g = serial();
    let out = Command::new(BIN)
        .args([
            "run",
            "--direct",
            "--duration",
            "0.3",
            "--path",
            "rate=5mbit,delay=1ms",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let client = text
        .lines()
        .find_map(|l| l.strip_prefix("namespaces: client "))
        .unwrap();
    let prefix = client
        .split_whitespace()
        .next()
        .unwrap()
        .strip_suffix('c')
        .unwrap();
    assert!(cleanup::namespaces_with_prefix(prefix).unwrap().is_empty());
    assert!(text.contains("\"direction\": \"path1.up\""));
}

#[test]
fn sigkilled_run_is_cleaned_by_cleanup() {
    if !need_root("sigkilled_run_is_cleaned_by_cleanup") {
        return;
    }
    let _g = serial();
    let (mut child, prefix) = start(&["--direct"]);
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    assert_eq!(
        cleanup::namespaces_with_prefix(&prefix).unwrap().len(),
        2,
        "SIGKILL leaves the namespaces"
    );
    let out = Command::new(BIN).arg("cleanup").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(cleanup::namespaces_with_prefix(&prefix).unwrap().is_empty());
}

#[test]
fn bad_arguments_are_refused() {
    let out = Command::new(BIN)
        .args(["run", "--path", "rate=fast"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad rate"));
}
