//! SIGINT (Ctrl-C), SIGTERM and SIGHUP during `mptlab run` (session 29),
//! `mptlab sweep` and `mptlab reproduce`: one line on stderr saying that the command was
//! interrupted, how many runs finished (each is saved as it finishes, so
//! they are kept), what was not written, and how to resume; then exit
//! 128 + the signal's number (130, 143, 129), as a shell reports a process
//! the signal killed. Before session 27 the default action killed the
//! process without a word.
//!
//! Nothing partial can pass for complete at any moment, which is why the
//! process may simply exit from the handler thread: a run file, a sweep's
//! merged tables (`summary.json` renamed last), `reproduce.json` and
//! `kernel.json` are written to a temporary name and renamed (module
//! `mptlab_sweep::store`, `mptlab_results::write_tables`); runs under way
//! are dropped and redone by the same command. The one writer that is not
//! atomic is the report's Python process: it runs in a process group of
//! its own (so Ctrl-C at the terminal reaches only `mptlab`), the handler
//! stops it with SIGTERM, and the main thread removes what it may have
//! left half-written (`report.html`, `verdicts.json`) before exiting.
//!
//! `run`'s write commits under the handler's lock ([`holding`]): the line
//! reads the output directory, which may not change before the exit.
//!
//! Not installed for `reproduce --kernel` or `--until-decided`: the kernel
//! emulator blocks these signals and waits for them itself
//! (`mptlab_emu::signals`) to tear its namespaces down; a handler here
//! would take the signal from it.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The interrupted command.
#[derive(Clone, Debug)]
pub enum Cmd {
    /// `run FILE` (session 29: it was killed without a word). Its runs
    /// are kept in memory and written together at the end, so an
    /// interrupted run writes no table: but its packet captures (the
    /// directory, when `output.capture` is on) are written while the runs
    /// go, so those of an interrupted run are partial.
    Run(String, Option<String>),
    /// `sweep FILE`.
    Sweep(String),
    Reproduce,
}

/// Where the command is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stage {
    /// Planning and opening the stores: no run started yet.
    Starting,
    /// Running ([`runs_planned`], [`run_done`] count them).
    Runs,
    /// All runs done; merging each sweep's runs into its tables.
    Merging,
    /// `run`: all runs done; their tables and `summary.json` being written
    /// to the output directory, whose `summary.json` was this file (or
    /// absent) before (session 30: the line reads the directory to say
    /// whether the write had finished, was cut short before anything there
    /// changed, or after; a stage set after the write would leave a window
    /// in which the line said "cut short" of a complete result). The
    /// write's commit runs under the handler's lock ([`holding`], session
    /// 31), so the directory does not change between that read and the exit.
    Writing(Option<FileId>),
    /// `run`: a run failed; nothing is written and the command is ending
    /// (session 30: the line said "all runs finished; writing was cut
    /// short").
    Failed,
    /// `reproduce --kernel-from`: the saved kernel runs judged against
    /// this simulation (`kernel.json`).
    Comparing,
    /// `reproduce`: the report's Python process, its pid.
    Report(Option<u32>),
    /// Everything written.
    Done,
}

/// A file's identity (device and inode): a result written anew is renamed
/// into place, so its `summary.json` is another inode than the one before.
pub type FileId = (u64, u64);

/// The identity of the file at `p`, `None` when there is none.
pub fn file_id(p: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

struct State {
    cmd: Cmd,
    out: PathBuf,
    stage: Stage,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);
/// Runs of this command: in all, done before it started (resumed), done.
static TOTAL: AtomicU64 = AtomicU64::new(0);
static BEFORE: AtomicU64 = AtomicU64::new(0);
static DONE: AtomicU64 = AtomicU64::new(0);
/// The signal that stopped the report's process (0: none).
static CAUGHT: AtomicI32 = AtomicI32::new(0);

fn state() -> MutexGuard<'static, Option<State>> {
    // a worker that panicked holding the lock leaves usable data
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Catch SIGINT, SIGTERM and SIGHUP for `cmd` writing to `out`; a
/// failure to do so is a warning (the signals then kill as before).
pub fn install(cmd: Cmd, out: &Path) {
    let mut signals = match Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "warning: cannot catch SIGINT/SIGTERM ({e}): an interruption will not be reported"
            );
            return;
        }
    };
    *state() = Some(State {
        cmd,
        out: out.to_path_buf(),
        stage: Stage::Starting,
    });
    let spawned = std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            for sig in signals.forever() {
                on_signal(sig);
            }
        });
    if let Err(e) = spawned {
        eprintln!(
            "warning: cannot watch for SIGINT/SIGTERM ({e}): an interruption will not be reported"
        );
    }
}

/// Run `commit`, the steps of `run`'s write that change which result its
/// directory holds (`mptlab_results::write_results_with`), under the lock
/// the handler takes before it reads that directory and holds until the
/// process exits ([`on_signal`]). Before session 31 the handler read
/// `summary.json`'s identity, and the main thread could remove or rename it
/// in the millisecond before the exit, so the line ("cut short before
/// anything there changed") could be out of date by then. Now either the
/// commit ran before the handler's read (the line sees its result), or it
/// waits for the lock, which the exit never releases (the directory stays
/// as the line says). The files are written to the partial directory
/// before, outside the lock: an interrupt there does not wait for them.
pub fn holding(commit: &mut dyn FnMut()) {
    #[cfg(test)]
    BEFORE_HOLDING.with(|h| {
        if let Some(f) = h.borrow_mut().as_mut() {
            f()
        }
    });
    let _handler_out = state();
    commit();
}

#[cfg(test)]
thread_local! {
    /// A test's hook, run by [`holding`] on this thread before it takes the
    /// lock: the test lets the commit go on only once it holds the lock
    /// itself, so the order does not depend on the threads' timing.
    static BEFORE_HOLDING: std::cell::RefCell<Option<Box<dyn FnMut()>>> =
        const { std::cell::RefCell::new(None) };
}

/// The command is now at `stage`.
pub fn stage(stage: Stage) {
    if let Some(s) = state().as_mut() {
        s.stage = stage;
    }
}

/// `total` runs in all, `before` of them done by an earlier invocation.
pub fn runs_planned(total: u64, before: u64) {
    TOTAL.store(total, Ordering::SeqCst);
    BEFORE.store(before, Ordering::SeqCst);
    DONE.store(0, Ordering::SeqCst);
    stage(Stage::Runs);
}

/// One more run finished and saved.
pub fn run_done() {
    DONE.fetch_add(1, Ordering::SeqCst);
}

/// The report's process ended: the signal that stopped it, if one did.
/// Its pid is forgotten first, so a late signal does not reach a reused pid.
pub fn report_ended() -> Option<i32> {
    stage(Stage::Done);
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Exit as [`on_signal`] does once the report's process is gone (its
/// half-written files removed by the caller).
pub fn exit_after_report(sig: i32) -> ! {
    let line = state()
        .as_ref()
        .map(|s| message(s, Stage::Report(None), sig))
        .unwrap_or_default();
    say_and_exit(&line, sig)
}

fn on_signal(sig: i32) {
    let guard = state();
    let Some(s) = guard.as_ref() else {
        return;
    };
    // the first signal during the report stops the report's process; the
    // main thread then cleans up and exits (a second one exits at once)
    if let Stage::Report(Some(pid)) = s.stage {
        if CAUGHT.swap(sig, Ordering::SeqCst) == 0 {
            // SAFETY: kill(2) on our own child's pid, which is not reaped
            // while it is recorded (report_ended clears it first).
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
            return;
        }
    }
    // the lock is held through the exit: `run`'s write commits under it
    // ([`holding`]), so what `message` reads of the output directory is
    // what it holds when the process ends
    let line = message(s, s.stage, sig);
    say_and_exit(&line, sig)
}

fn say_and_exit(line: &str, sig: i32) -> ! {
    // start below a progress bar
    let nl = if std::io::stderr().is_terminal() {
        "\n"
    } else {
        ""
    };
    eprintln!("{nl}{line}");
    std::process::exit(128 + sig)
}

fn name(sig: i32) -> String {
    match sig {
        SIGINT => "SIGINT (Ctrl-C)".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        s => format!("signal {s}"),
    }
}

/// The one line said when `sig` stops the command at `stage`.
fn message(s: &State, stage: Stage, sig: i32) -> String {
    let counts = (
        TOTAL.load(Ordering::SeqCst),
        BEFORE.load(Ordering::SeqCst),
        DONE.load(Ordering::SeqCst),
    );
    message_with(s, stage, sig, counts)
}

/// [`message`] with the run counts (in all, done before, done here) given.
fn message_with(
    s: &State,
    stage: Stage,
    sig: i32,
    (total, before, here): (u64, u64, u64),
) -> String {
    let out = s.out.display();
    let done = before + here;
    // "at least": a run is counted just after it is saved, so one saved
    // as the signal came may be missing from the count
    let runs = || {
        format!(
            "at least {done} of {total} run(s) finished and are saved under {out}/runs ({}runs under way are dropped)",
            if before > 0 { format!("{before} of them by an earlier invocation; ") } else { String::new() },
        )
    };
    let what = match &s.cmd {
        Cmd::Run(f, _) => format!("run {f}"),
        Cmd::Sweep(f) => format!("sweep {f}"),
        Cmd::Reproduce => "reproduce".into(),
    };
    let body = match (&s.cmd, stage) {
        (Cmd::Run(..), Stage::Starting) => {
            "before any run started; nothing was written; run the same command to start".to_string()
        }
        (Cmd::Run(_, capture), Stage::Runs) => format!(
            "at least {done} of {total} run(s) had finished; `run` writes its runs together when \
             all have finished, so no table and no summary.json were written to {out} (what it \
             held before is unchanged){}; run the same command to start again (`mptlab sweep` \
             keeps each run as it finishes)",
            match capture {
                Some(d) => format!(
                    "; the packet captures under {d} are written as the runs go: those of the \
                     runs under way are cut short and any from an earlier run of the same \
                     numbers were overwritten"
                ),
                None => String::new(),
            }
        ),
        (Cmd::Run(..), Stage::Done) => format!("after its results in {out} were written"),
        (Cmd::Run(_, capture), Stage::Failed) => format!(
            "a run had failed (its error is printed); `run` writes nothing when a run fails, so no \
             table and no summary.json were written to {out} (what it held before is unchanged){}; \
             run the same command once the cause is fixed",
            match capture {
                Some(d) => format!(
                    "; the packet captures under {d} are written as the runs go: those of the \
                     runs under way are cut short"
                ),
                None => String::new(),
            }
        ),
        (Cmd::Run(..), Stage::Writing(before)) => {
            written_line(total, &s.out, before, file_id(&s.out.join(SUMMARY)))
        }
        (Cmd::Run(..), _) => format!(
            "all {total} run(s) finished; writing them to {out} was cut short (summary.json, \
             written last, marks a complete set; without it the tables there are not a whole \
             result); run the same command to write them again"
        ),
        (Cmd::Sweep(_), Stage::Starting) => {
            "before any run started; run the same command to start".to_string()
        }
        (Cmd::Sweep(_) | Cmd::Reproduce, Stage::Failed) => format!(
            "after a failure (its error is printed); the runs that finished are saved under \
             {out}/runs; run the same command to resume"
        ),
        (Cmd::Sweep(_), Stage::Runs) => format!(
            "{}; the merged tables and summary.json were not written; run the same command to resume",
            runs()
        ),
        (Cmd::Sweep(_), _) => format!(
            "all {total} run(s) finished and are saved under {out}/runs; merging them into the \
             tables was cut short (summary.json, written last, marks a complete merge); run the \
             same command to merge them"
        ),
        (Cmd::Reproduce, Stage::Starting) => {
            "before any run started; run the same command to start".to_string()
        }
        (Cmd::Reproduce, Stage::Runs) => format!(
            "{}; reproduce.json, report.html and verdicts.json (the marks of a finished pass) were \
             not written; run the same command to resume",
            runs()
        ),
        (Cmd::Reproduce, Stage::Merging | Stage::Writing(_)) => format!(
            "all {total} run(s) finished and are saved under {out}/runs; merging them was cut \
             short and reproduce.json, report.html and verdicts.json were not written; run the \
             same command to finish (it redoes no run)"
        ),
        (Cmd::Reproduce, Stage::Comparing) => format!(
            "the simulation's runs and {out}/reproduce.json are complete; the comparison with the \
             saved kernel runs (kernel.json) and the report were not written; run the same \
             command to finish (it redoes no run)"
        ),
        (Cmd::Reproduce, Stage::Report(_)) => format!(
            "the runs and {out}/reproduce.json are complete; the report was stopped and what it \
             had written of report.html and verdicts.json removed; run `python3 -m mptlab.report \
             {out}` (or the same command) to write it"
        ),
        (Cmd::Reproduce, Stage::Done) => format!("after its results in {out} were written"),
    };
    format!("interrupted by {}: {what}: {body}", name(sig))
}

/// `summary.json`, written last: a complete set of tables beside it.
const SUMMARY: &str = mptlab_results::SUMMARY_FILE;

/// `run`'s line when the signal came while its `total` runs were written
/// to `out`, from `out/summary.json`'s identity before the write and now:
/// a new one is this run's complete result (the write had finished); the
/// same one is the earlier result, untouched (the new tables were still in
/// a `.partial-*` directory, which the next write removes); none is a cut
/// write (the earlier result's summary.json is removed before the new
/// files are moved in: `mptlab_results::write_tables`). Since session 31
/// the commit runs under the handler's lock ([`holding`]), so an interrupt
/// sees none only where there was none before, or after a commit that
/// failed (its error printed).
fn written_line(total: u64, out: &Path, before: Option<FileId>, now: Option<FileId>) -> String {
    let out = out.display();
    match now {
        Some(id) if Some(id) != before => format!(
            "all {total} run(s) finished and writing them had finished: {out}/summary.json and \
             the tables beside it are this run's complete result; nothing is left to redo (only \
             the summary table on stdout and the file count were not printed)"
        ),
        Some(_) => format!(
            "all {total} run(s) finished; writing them to {out} was cut short before anything \
             there changed: what it held before, summary.json and its tables, is unchanged (the \
             new tables were in a .partial-* directory there, which the next write removes); run \
             the same command to write them"
        ),
        None => format!(
            "all {total} run(s) finished; writing them to {out} was cut short: there is no \
             summary.json there (written last, it marks a complete set), so the tables there \
             are not a whole result{}; run the same command to write them again",
            if before.is_some() {
                " (the earlier result's summary.json had been removed first)"
            } else {
                ""
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(cmd: Cmd, stage: Stage) -> State {
        State {
            cmd,
            out: PathBuf::from("o"),
            stage,
        }
    }

    /// Every stage's line names the signal, the command and how to go on.
    #[test]
    fn every_stage_says_what_to_do() {
        for cmd in [
            Cmd::Run("s.toml".into(), None),
            Cmd::Run("s.toml".into(), Some("o/capture".into())),
            Cmd::Sweep("s.toml".into()),
            Cmd::Reproduce,
        ] {
            for stage in [
                Stage::Starting,
                Stage::Runs,
                Stage::Merging,
                Stage::Writing(None),
                Stage::Failed,
                Stage::Comparing,
                Stage::Report(None),
            ] {
                let m = message(&st(cmd.clone(), stage), stage, SIGTERM);
                assert!(m.starts_with("interrupted by SIGTERM: "), "{m}");
                assert!(m.contains("the same command"), "{m}");
                assert!(!m.contains('\n'), "{m}");
            }
        }
    }

    /// Session 30: `run`'s line after its runs said "writing them was
    /// cut short" from the moment the runs ended, also when a run had
    /// failed (nothing is written) or the write had just finished
    /// (summary.json complete). It now says which: a failed run, and in
    /// the write what `summary.json` on disk shows.
    #[test]
    fn an_interrupted_run_s_write_says_what_is_on_disk() {
        let d = crate::scratch::Scratch::new("interrupt-write");
        let mut run = st(Cmd::Run("c.toml".into(), None), Stage::Failed);
        run.out = d.to_path_buf();
        let at = |run: &State| message_with(run, run.stage, SIGINT, (30, 0, 30));
        let m = at(&run);
        assert!(m.contains("a run had failed"), "{m}");
        assert!(
            m.contains("no table and no summary.json were written"),
            "{m}"
        );
        assert!(!m.contains("cut short"), "{m}");
        // no earlier result, the write under way: no summary.json yet
        let summary = d.join(SUMMARY);
        run.stage = Stage::Writing(file_id(&summary));
        let m = at(&run);
        assert!(
            m.contains("was cut short: there is no summary.json there"),
            "{m}"
        );
        assert!(!m.contains("removed first"), "{m}");
        // ... then renamed into place: the write had finished
        std::fs::write(&summary, "{}").unwrap();
        let m = at(&run);
        assert!(m.contains("writing them had finished"), "{m}");
        assert!(m.contains("this run's complete result"), "{m}");
        assert!(!m.contains("cut short"), "{m}");
        // an earlier result: the new summary.json is made in a partial
        // directory while the earlier one is still in place (unchanged),
        // which is removed (cut short), then the new one renamed into
        // place (finished), as mptlab_results::write_tables does
        run.stage = Stage::Writing(file_id(&summary));
        let partial = d.join(".partial-1-0");
        std::fs::create_dir(&partial).unwrap();
        std::fs::write(partial.join(SUMMARY), "{}").unwrap();
        let m = at(&run);
        assert!(m.contains("cut short before anything there changed"), "{m}");
        assert!(m.contains("is unchanged"), "{m}");
        std::fs::remove_file(&summary).unwrap();
        let m = at(&run);
        assert!(
            m.contains("was cut short: there is no summary.json there"),
            "{m}"
        );
        assert!(
            m.contains("the earlier result's summary.json had been removed first"),
            "{m}"
        );
        std::fs::rename(partial.join(SUMMARY), &summary).unwrap();
        let m = at(&run);
        assert!(m.contains("writing them had finished"), "{m}");
    }

    /// Session 31: the handler holds the lock from reading `summary.json`'s
    /// identity until the process exits; `run`'s write
    /// (`runner::write_run`) may not change the directory meanwhile. Before,
    /// the write went on beside the handler, so the line could be out of
    /// date by the exit: here the handler's stand-in holds the lock while
    /// the write of a new result runs, and `summary.json` must not change
    /// until it lets go (fails with the write's commit outside the lock:
    /// the write finishes and renames its summary.json in under the line).
    #[test]
    fn the_write_does_not_change_the_directory_under_the_line() {
        use std::sync::mpsc;
        use std::time::Duration;
        let d = crate::scratch::Scratch::new("interrupt-window");
        let out = d.to_path_buf();
        let runs: Vec<mptlab_results::RunOutput> = (0..2)
            .map(|r| {
                let mut o = mptlab_results::RunOutput::new(r, 7 + r as u64);
                o.set_metric("x", r as f64);
                o
            })
            .collect();
        let opts = mptlab_results::WriteOptions {
            parquet: false,
            ..Default::default()
        };
        // an earlier result in the directory
        crate::runner::write_run(&out, &runs, &opts).unwrap();
        let summary = out.join(SUMMARY);
        let earlier = file_id(&summary);
        assert!(earlier.is_some());
        // `run` writes its new result; once its files are being made in
        // the partial directory (the stage is set, the commit still to
        // come), the signal comes: the handler takes the lock (on_signal),
        // reads the directory and prints
        // (the writer stops at `holding`, its files complete in the partial
        // directory, until the handler's stand-in holds the lock: polling
        // for the partial directory instead raced with the write, the
        // session-31 review)
        let (done, finished) = mpsc::channel();
        let (at_commit, reached) = mpsc::channel();
        let (go, wait_go) = mpsc::channel::<()>();
        let writer = std::thread::spawn({
            let out = out.clone();
            let runs = runs.clone();
            let opts = opts.clone();
            move || {
                let mut wait_go = Some(wait_go);
                BEFORE_HOLDING.with(|h| {
                    *h.borrow_mut() = Some(Box::new(move || {
                        let _ = at_commit.send(());
                        if let Some(w) = wait_go.take() {
                            let _ = w.recv();
                        }
                    }))
                });
                let r = crate::runner::write_run(&out, &runs, &opts);
                let _ = done.send(());
                r
            }
        });
        reached
            .recv_timeout(Duration::from_secs(20))
            .expect("the write's commit did not go through interrupt::holding");
        let partial = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".partial-"));
        assert!(
            partial,
            "the new files are made in a partial directory first"
        );
        let handler = state();
        go.send(()).unwrap();
        let read = file_id(&summary);
        let ended = finished.recv_timeout(Duration::from_secs(2)).is_ok();
        assert_eq!(
            file_id(&summary),
            read,
            "summary.json changed between the handler's read and its exit"
        );
        assert!(!ended, "the write's commit ran under the handler's line");
        // (a real handler exits here; this one lets the write go on)
        drop(handler);
        writer.join().unwrap().unwrap();
        assert_ne!(file_id(&summary), earlier, "the new result is in place");
    }

    /// Session 29: `mptlab run` interrupted said nothing (killed by the
    /// signal's default action); its line says how many runs had finished
    /// and that nothing of them was written.
    #[test]
    fn an_interrupted_run_says_nothing_was_written() {
        let run = st(Cmd::Run("c.toml".into(), None), Stage::Runs);
        let m = message_with(&run, Stage::Runs, SIGINT, (30, 0, 12));
        assert!(
            m.starts_with(
                "interrupted by SIGINT (Ctrl-C): run c.toml: at least 12 of 30 run(s) had \
                 finished; `run` writes its runs together when all have finished, so no table and \
                 no summary.json were written to o"
            ),
            "{m}"
        );
        assert!(!m.contains("capture"), "{m}");
        // with captures on, the line does not say nothing was written:
        // the pcaps are written as the runs go (session 29 review)
        let run = st(
            Cmd::Run("c.toml".into(), Some("o/capture".into())),
            Stage::Runs,
        );
        let m = message_with(&run, Stage::Runs, SIGINT, (30, 0, 12));
        assert!(
            m.contains(
                "the packet captures under o/capture are written as the runs go: those of the \
                 runs under way are cut short"
            ),
            "{m}"
        );
    }
}
