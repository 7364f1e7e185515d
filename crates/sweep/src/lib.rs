//! mptlab-sweep: run every (point, run) of a [`Sweep`], persist each
//! finished run at once, resume, and merge the sweep's tables.
//!
//! The simulator is passed in as a function (`mptlab_sim::run_once` in the
//! CLI and the Python module), so this crate is tested with fakes and does
//! not depend on the engine.
//!
//! Seeds: run r of every point uses `run_seed(point's scenario.seed, r)`;
//! unless a sweep varies `scenario.seed` itself, the points share seeds run
//! by run (common random numbers), so comparisons between points are paired.

mod merge;
pub mod store;

pub use merge::{merge_sweep, summary};
pub use store::{Store, StoreError};

use mptlab_results::{write_tables, RunOutput, WriteOptions};
use mptlab_scenario::{Scenario, Sweep};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// One simulation run (`mptlab_sim::run_once`).
pub type RunFn<'a> = &'a (dyn Fn(&Scenario, u32) -> Result<RunOutput, String> + Sync);

/// How an execution ended, when not with every run done.
#[derive(Debug)]
pub enum ExecError {
    /// A run failed or panicked; runs finished before stay persisted.
    Run(String),
    /// Persisting failed.
    Store(String),
    /// `stop_after` runs were done (test hook for interruptions).
    Stopped(usize),
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecError::Run(m) | ExecError::Store(m) => f.write_str(m),
            ExecError::Stopped(k) => write!(f, "stopped after {k} run(s) as asked; run the same command again to resume"),
        }
    }
}

/// Run the pending (point, run) pairs of `store` on `jobs` threads, saving
/// each as it finishes. `tick` is called after each save (progress bars).
/// With `stop_after = Some(k)` at most k runs are started (tests use it to
/// interrupt a sweep deterministically).
pub fn execute(
    sweep: &Sweep,
    store: &Store,
    jobs: usize,
    f: RunFn,
    stop_after: Option<usize>,
    tick: &(dyn Fn() + Sync),
) -> Result<usize, ExecError> {
    let pending = store.pending();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_err: Mutex<Option<(usize, ExecError)>> = Mutex::new(None);
    let limit = stop_after.unwrap_or(usize::MAX).min(pending.len());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, limit.max(1)) {
            scope.spawn(|| loop {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= limit {
                    return;
                }
                let (p, r) = pending[i];
                let point = &sweep.points[p];
                let s = &point.scenario;
                let res = catch_unwind(AssertUnwindSafe(|| f(s, r)))
                    .unwrap_or_else(|e| {
                        let m = e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned());
                        Err(format!("simulation panicked: {}", m.unwrap_or_else(|| "unknown panic".into())))
                    })
                    .and_then(|o| if o.run == r { Ok(o) } else { Err(format!("simulation returned run {} instead of {r}", o.run)) })
                    .map_err(|e| ExecError::Run(format!("point `{}` run {r} (seed {}): {e}", point.label, s.run_seed(r))))
                    .and_then(|o| store.save(p, &o).map_err(|e| ExecError::Store(e.to_string())));
                match res {
                    Ok(()) => tick(),
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        let mut fe = first_err.lock().unwrap();
                        // report the earliest failing pair, whatever the thread timing
                        if fe.as_ref().is_none_or(|(j, _)| i < *j) {
                            *fe = Some((i, e));
                        }
                        return;
                    }
                }
            });
        }
    });
    if let Some((_, e)) = first_err.into_inner().unwrap() {
        return Err(e);
    }
    if limit < pending.len() {
        return Err(ExecError::Stopped(limit));
    }
    Ok(limit)
}

/// Meta fields of the sweep's `summary.json`.
pub fn meta(sweep: &Sweep, version: &str) -> serde_json::Map<String, serde_json::Value> {
    let s0 = &sweep.points[0].scenario;
    let mut m = serde_json::Map::new();
    m.insert("scenario".into(), s0.meta.name.clone().into());
    m.insert("scenario_file".into(), sweep.origin.clone().into());
    m.insert("mptlab_version".into(), version.into());
    m.insert("base_seed".into(), s0.meta.seed.into());
    m
}

/// Read every run back from the store, merge, and write the sweep's tables
/// and `summary.json` into the store's directory (atomically, like `mptlab
/// run`). Everything merged comes from disk, so a resumed sweep writes the
/// same bytes as an uninterrupted one.
pub fn finish(sweep: &Sweep, store: &Store, opts: &WriteOptions) -> Result<Vec<PathBuf>, String> {
    let mut per_point = Vec::with_capacity(sweep.points.len());
    for p in 0..sweep.points.len() {
        per_point.push(store.load_point(p, sweep.runs).map_err(|e| e.to_string())?);
    }
    let tables = merge_sweep(sweep, &per_point).map_err(|e| format!("cannot merge runs: {e}"))?;
    let doc = summary(sweep, &per_point, &opts.meta);
    write_tables(&store.dir, &tables, &doc, opts).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
