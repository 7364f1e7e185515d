//! `mptlab sweep`: every point x run of a `[sweep]`, each run persisted as it
//! finishes (so an interrupted sweep resumes), then the merged tables.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mptlab_results::{Unfinished, WriteOptions};
use mptlab_scenario::{Override, Scenario, Sweep};
use mptlab_sweep::{finish, meta, Done, ExecError, Order, Store, StoreError};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::driver::{Driver, Simulate};
use crate::reproduce::progress::{Progress, BAR_LEN, TEMPLATE};

/// Test hook: stop after this many runs, as an interruption would.
pub const STOP_ENV: &str = "MPTLAB_SWEEP_STOP_AFTER";

pub struct SweepOptions {
    pub out: PathBuf,
    pub jobs: usize,
    pub runs: Option<u32>,
    pub set: Vec<Override>,
    pub quiet: bool,
    pub force: bool,
    pub csv: bool,
    pub parquet: bool,
}

/// Plan and check every point; errors are the user's (exit 2).
pub fn plan(path: &Path, set: &[Override], runs: Option<u32>) -> Result<Sweep, String> {
    let sweep = Sweep::from_file(path, set, runs).map_err(|e| e.to_string())?;
    for p in &sweep.points {
        Simulate
            .supported(&p.scenario)
            .map_err(|e| format!("{}: sweep point `{}`: {e}", path.display(), p.label))?;
        if p.scenario.output.capture {
            // every point has runs 0..n: their run-<k> files would collide
            return Err(format!(
                "{}: sweep point `{}`: key `output.capture`: captures are written by `mptlab run` only (a sweep's points would overwrite each other's files); capture one point with `mptlab run --set KEY=VALUE --capture DIR`",
                path.display(),
                p.label
            ));
        }
    }
    Ok(sweep)
}

pub fn run(path: &Path, o: &SweepOptions) -> ExitCode {
    crate::interrupt::install(
        crate::interrupt::Cmd::Sweep(path.display().to_string()),
        &o.out,
    );
    run_counted(path, o, true).0
}

/// Points with unfinished work: (point label, counts).
pub type PointsUnfinished = Vec<(String, Unfinished)>;

/// At most this many points are named in a warning.
const SHOW_POINTS: usize = 10;

/// The warning about unfinished work of a sweep (`origin`), one line per
/// point that has some, or None when everything completed.
pub fn unfinished_warning(origin: &str, points: &[(String, Unfinished)]) -> Option<String> {
    if points.is_empty() {
        return None;
    }
    let (t, m): (u64, u64) = points.iter().fold((0, 0), |(t, m), (_, u)| {
        (t + u.transfers_unfinished, m + u.messages_undelivered)
    });
    let mut s = format!(
        "warning: unfinished work in {origin}: {} by the end of their run, in {} point(s); \
         completion_time_ms and delay_ms_* of these points cover completed items only:",
        phrase(t, m),
        points.len()
    );
    for (label, u) in points.iter().take(SHOW_POINTS) {
        for line in u.describe() {
            s.push_str(&format!("\n  point `{label}`: {line}"));
        }
    }
    if points.len() > SHOW_POINTS {
        s.push_str(&format!(
            "\n  ... and {} more point(s)",
            points.len() - SHOW_POINTS
        ));
    }
    s.push_str("\n  (rows with completed = false in transfers/messages; counts per point in summary.json `unfinished`)");
    Some(s)
}

/// `3 transfer(s) did not finish and 311 message(s) were not delivered`,
/// naming only what is not zero.
pub fn phrase(transfers: u64, messages: u64) -> String {
    let mut parts = Vec::new();
    if transfers > 0 {
        parts.push(format!("{transfers} transfer(s) did not finish"));
    }
    if messages > 0 {
        parts.push(format!("{messages} message(s) were not delivered"));
    }
    parts.join(" and ")
}

/// `run`, also returning the points with unfinished work (for `reproduce`,
/// which prints one recap for all its sweeps instead: `warn` false).
pub fn run_counted(path: &Path, o: &SweepOptions, warn: bool) -> (ExitCode, PointsUnfinished) {
    match run_inner(path, o) {
        Ok(points) => {
            // printed even with --quiet (see runner::run)
            if let Some(w) =
                unfinished_warning(&path.display().to_string(), &points).filter(|_| warn)
            {
                eprintln!("{w}");
            }
            (ExitCode::SUCCESS, points)
        }
        Err(code) => (code, Vec::new()),
    }
}

/// A planned sweep with its store open, its runs not yet done.
pub struct Opened {
    pub sweep: Sweep,
    pub store: Store,
}

/// Plan the sweep and open its store (errors printed; exit 2 for the
/// user's, 1 for the disk's).
pub fn open(path: &Path, o: &SweepOptions) -> Result<Opened, ExitCode> {
    let sweep = plan_checked(path, o)?;
    let store = Store::open(&o.out, &sweep, o.force).map_err(store_error)?;
    Ok(Opened { sweep, store })
}

/// The first half of [`open`]: plan the sweep and check that `--out` is
/// writable (errors printed, exit 2). `reproduce` plans its sweeps one by
/// one and then opens their stores on several threads.
pub fn plan_checked(path: &Path, o: &SweepOptions) -> Result<Sweep, ExitCode> {
    let sweep = match plan(path, &o.set, o.runs) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    };
    // refuse an unwritable --out as bad input, before anything runs
    if let Err(e) = mptlab_results::probe_writable(&o.out) {
        eprintln!(
            "error: --out {}: cannot write results there: {e}",
            o.out.display()
        );
        return Err(ExitCode::from(2));
    }
    Ok(sweep)
}

/// Print why a store could not be opened; exit 2 when it refused (the
/// user's choice of `--out`), 1 for the disk.
pub fn store_error(e: StoreError) -> ExitCode {
    match e {
        StoreError::Refused(m) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        e => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The test hook [`STOP_ENV`], if set.
pub fn stop_after() -> Result<Option<usize>, ExitCode> {
    match std::env::var(STOP_ENV) {
        Ok(v) => match v.parse::<usize>() {
            Ok(k) => Ok(Some(k)),
            Err(_) => {
                eprintln!("error: {STOP_ENV}={v}: expected a number of runs");
                Err(ExitCode::from(2))
            }
        },
        Err(_) => Ok(None),
    }
}

/// A progress bar on stderr when it is a terminal (hidden with `quiet`),
/// `len` long, `done` of it already done (resumed work; the ETA counts this
/// session's pace only).
pub fn progress_bar(quiet: bool, len: u64, done: u64, template: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    b.set_style(ProgressStyle::with_template(template).expect("valid template"));
    b.set_position(done);
    b.reset_eta();
    b
}

/// How an execution ended, as the CLI reports it.
pub fn exec_result(r: Result<usize, ExecError>, origin: &str, out: &Path) -> Result<(), ExitCode> {
    match r {
        Ok(_) => Ok(()),
        Err(e @ ExecError::Stopped(_)) => {
            eprintln!("stopped: {e}");
            Err(ExitCode::from(1))
        }
        Err(e) => {
            eprintln!("error: {origin}: {e}; finished runs are kept in {}/runs, the merged tables are not written", out.display());
            Err(ExitCode::from(1))
        }
    }
}

/// Merge a sweep whose runs are all done and write its tables.
pub fn close(opened: &Opened, o: &SweepOptions) -> Result<PointsUnfinished, ExitCode> {
    let (sweep, store) = (&opened.sweep, &opened.store);
    let opts = WriteOptions {
        csv: o.csv,
        parquet: o.parquet,
        meta: meta(sweep, env!("CARGO_PKG_VERSION")),
        extra_files: Vec::new(),
    };
    match finish(sweep, store, &opts) {
        Ok(done) => {
            if !o.quiet {
                eprintln!("wrote {} files to {}", done.files.len(), o.out.display());
            }
            Ok(done.unfinished)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(1))
        }
    }
}

fn run_inner(path: &Path, o: &SweepOptions) -> Result<PointsUnfinished, ExitCode> {
    let stop_after = stop_after()?;
    let opened = open(path, o)?;
    let (sweep, store) = (&opened.sweep, &opened.store);
    let total = store.total() as u64;
    let done = total - store.pending().len() as u64;
    if !o.quiet {
        eprintln!(
            "{}: {} point(s) x {} run(s){}",
            sweep.origin,
            sweep.points.len(),
            sweep.runs,
            if done > 0 {
                format!(", resuming: {done} run(s) already done")
            } else {
                String::new()
            }
        );
    }
    // the bar in measured time, as reproduce's: a sweep's points differ in
    // cost (background on or off: 5 ms or 125 ms a run), so a count of
    // runs showed 57 % and "eta 0s" with 80 % of the time left (session 29)
    let progress = progress_of(sweep, store, done, total);
    let bar = progress_bar(o.quiet, BAR_LEN, 0, TEMPLATE);
    bar.set_message(progress.message(done));
    crate::interrupt::runs_planned(total, done);
    let r = mptlab_sweep::execute_many(
        &[(sweep, store)],
        o.jobs,
        &|s: &Scenario, r: u32| Simulate.run_once(s, r),
        &crate::reproduce::run_cost,
        // one run of every point first: each point's time per run is then
        // measured early, and the estimate of the rest rests on it
        Order::PilotsFirst,
        stop_after,
        &|d: &Done| {
            crate::interrupt::run_done();
            progress.show(&bar, d);
        },
    );
    bar.finish_and_clear();
    exec_result(r, &sweep.origin, &o.out)?;
    crate::interrupt::stage(crate::interrupt::Stage::Merging);
    let closed = close(&opened, o);
    crate::interrupt::stage(crate::interrupt::Stage::Done);
    closed
}

/// The progress of a sweep's pending runs (`done` of `total` already
/// done): per point its simulated seconds and runs still to do, as
/// `reproduce` plans its sweeps ([`Progress::new`]).
fn progress_of(sweep: &Sweep, store: &Store, done: u64, total: u64) -> Progress {
    let mut todo: Vec<(f64, u64)> = sweep
        .points
        .iter()
        .map(|p| (crate::reproduce::run_cost(&p.scenario), 0))
        .collect();
    for (p, _) in store.pending() {
        todo[p].1 += 1;
    }
    Progress::new(&[todo], done, total)
}

/// `--scheduler ADDRESS`: the Dask path lives in the Python package; hand
/// the whole command to it.
pub fn via_python(args: &[String]) -> ExitCode {
    let py = std::env::var("MPTLAB_PYTHON").unwrap_or_else(|_| "python3".into());
    // the package simulates with its own build: refuse another model's
    // (its runs would be stored and later resumed as if they were this one's)
    let theirs = std::process::Command::new(&py)
        .args([
            "-c",
            "from mptlab import _core; print(getattr(_core, 'MODEL_ID', 'not recorded'))",
        ])
        .output();
    if let Ok(o) = &theirs {
        let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if o.status.success() && id != mptlab_sweep::store::MODEL_ID {
            eprintln!(
                "error: --scheduler: the mptlab Python package of {py} is another build of the model \
                 (model sources {}; this mptlab: {}); rebuild it from this checkout (make python)",
                mptlab_sweep::store::short(&id),
                mptlab_sweep::store::short(mptlab_sweep::store::MODEL_ID)
            );
            return ExitCode::from(2);
        }
    }
    match std::process::Command::new(&py)
        .args(["-m", "mptlab"])
        .args(args)
        .status()
    {
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("error: --scheduler needs the mptlab Python package (pip install ., see docs/python.md): cannot start {py}: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Session 29: `mptlab sweep`'s bar counted runs (`bar.inc(1)`), so a
    /// sweep whose points differ in cost read half done, eta 0 s, when its
    /// cheap half was done and nearly all its time was left. It now
    /// advances by measured time, as `reproduce`'s: here the cheap point's
    /// 4 runs (1 ms each) and the costly point's pilot (100 ms) leave the
    /// bar near a quarter of the way, its count in the message.
    #[test]
    fn the_bar_advances_by_measured_time_not_by_runs() {
        let d = crate::scratch::Scratch::new("sweep-bar");
        let toml = d.path().join("s.toml");
        std::fs::write(
            &toml,
            "[scenario]\nname = \"s\"\nduration_s = 5\nruns = 4\n[topology]\npreset = \"single-path\"\n\
             paths = [\"lte\"]\n[traffic]\nmodel = \"bulk\"\n[sweep]\n\"background.enabled\" = [false, true]\n",
        )
        .unwrap();
        let sweep = plan(&toml, &[], None).unwrap();
        let store = Store::open(&d.path().join("out"), &sweep, false).unwrap();
        let progress = progress_of(&sweep, &store, 0, 8);
        let bar = ProgressBar::with_draw_target(Some(BAR_LEN), ProgressDrawTarget::hidden());
        let done = |point, seconds| Done {
            sweep: 0,
            point,
            cost: 5.0,
            seconds,
        };
        // pilots first (Order::PilotsFirst): the costly point's first run
        // and then the cheap point's four
        progress.show(&bar, &done(1, 0.100));
        for _ in 0..4 {
            progress.show(&bar, &done(0, 0.001));
        }
        // 104 ms done of 104 + 3 x 100 ms: 26 % (in millionths of the
        // bar, progress::BAR_LEN); counting runs said 5/8
        assert_eq!(bar.position(), 104_000 * BAR_LEN / 404_000);
        assert_eq!(bar.message(), "5/8 runs");
        for _ in 0..3 {
            progress.show(&bar, &done(1, 0.100));
        }
        assert_eq!(bar.position(), bar.length().unwrap());
        assert_eq!(bar.message(), "8/8 runs");
    }
}
