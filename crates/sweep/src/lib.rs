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

use mptlab_results::{encode_run, schema, write_tables, RunOutput, Unfinished, WriteOptions};
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
            ExecError::Stopped(k) => write!(
                f,
                "stopped after {k} run(s) as asked; run the same command again to resume"
            ),
        }
    }
}

/// Threads that write finished runs to disk. Each save waits for two
/// fsyncs (file, directory), 5-15 ms here; on the simulation threads that
/// left a core idle for every run (about 26,800 runs in `reproduce 000`).
/// Concurrent fsyncs share journal commits, so a few savers keep up with
/// even the shortest runs.
const SAVERS: usize = 4;

/// At most this many encoded runs wait for a saver per simulation thread
/// (bounds memory when the disk is slower than the simulations).
const SAVE_BACKLOG: usize = 4;

/// Run the pending (point, run) pairs of `store` on `jobs` threads, saving
/// each as it finishes (on separate saver threads, so the simulation threads
/// do not wait for the disk). `tick` is called after each save (progress
/// bars). With `stop_after = Some(k)` at most k runs are started (tests use
/// it to interrupt a sweep deterministically). Runs start point by point.
pub fn execute(
    sweep: &Sweep,
    store: &Store,
    jobs: usize,
    f: RunFn,
    stop_after: Option<usize>,
    tick: &(dyn Fn() + Sync),
) -> Result<usize, ExecError> {
    execute_many(
        &[(sweep, store)],
        jobs,
        f,
        &|_| 0.0,
        Order::PointByPoint,
        stop_after,
        &|_| tick(),
    )
}

/// The order of [`execute_many`]'s queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Costliest first; equal costs in sweep, point and run order.
    PointByPoint,
    /// First one pending run of every point (costliest first), then the
    /// rest (costliest first): every point's time per run is measured
    /// within the first few percent of the work, so a progress bar can
    /// estimate the rest from measured times (`mptlab reproduce`) instead
    /// of from simulated durations, which differ in cost per simulated
    /// second by 1,000x between a 900 s burst trace and a 60 s saturated
    /// multipath download.
    PilotsFirst,
}

/// A run saved by [`execute_many`], as passed to its `tick`.
#[derive(Clone, Copy, Debug)]
pub struct Done {
    /// Index of the run's sweep in the batch.
    pub sweep: usize,
    /// The run's point in its sweep.
    pub point: usize,
    /// `cost` of the point's scenario.
    pub cost: f64,
    /// Wall time the simulation took on its thread, in seconds (measured,
    /// so it depends on the machine and its load; only for progress).
    pub seconds: f64,
}

/// One pending run of a batch: (sweep index, point, run, estimated cost).
type Item = (usize, usize, u32, f64);

/// The pending runs of every sweep in one queue, costliest first (by
/// `cost` of the point's scenario); equal costs keep sweep, point and run
/// order (a stable sort), so the order is deterministic. With
/// [`Order::PilotsFirst`] each point's first pending run comes before all
/// second ones. The order never changes results (each run has its own seed
/// and file), only when each run is done.
fn queue(sweeps: &[(&Sweep, &Store)], cost: &dyn Fn(&Scenario) -> f64, order: Order) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    for (k, (sweep, store)) in sweeps.iter().enumerate() {
        let costs: Vec<f64> = sweep.points.iter().map(|p| cost(&p.scenario)).collect();
        items.extend(
            store
                .pending()
                .into_iter()
                .map(|(p, r)| (k, p, r, costs[p])),
        );
    }
    // longest-processing-time-first: the last runs to start are the short
    // ones, so no long run is left alone on one core at the end
    items.sort_by(|a, b| b.3.total_cmp(&a.3));
    if order == Order::PilotsFirst {
        let mut seen = std::collections::HashSet::new();
        // stable partition: a point's first run in cost order is its pilot
        let (pilots, rest): (Vec<Item>, Vec<Item>) = items
            .into_iter()
            .partition(|&(k, p, _, _)| seen.insert((k, p)));
        items = pilots;
        items.extend(rest);
    }
    items
}

/// Run the pending runs of several sweeps from one work queue on `jobs`
/// simulation threads in total (`mptlab reproduce`: with one sweep after
/// another, a sweep's last long runs left the other cores idle). Runs are
/// started costliest first ([`queue`], in `order`); `tick` is called after
/// each save with the run's [`Done`]. Each run is saved to its own sweep's store, so the
/// stores hold the same bytes as when the sweeps run one by one.
/// `stop_after` and errors as in [`execute`]; the earliest failing run in
/// queue order is reported.
pub fn execute_many(
    sweeps: &[(&Sweep, &Store)],
    jobs: usize,
    f: RunFn,
    cost: &dyn Fn(&Scenario) -> f64,
    order: Order,
    stop_after: Option<usize>,
    tick: &(dyn Fn(&Done) + Sync),
) -> Result<usize, ExecError> {
    let pending = queue(sweeps, cost, order);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_err: Mutex<Option<(usize, ExecError)>> = Mutex::new(None);
    let limit = stop_after.unwrap_or(usize::MAX).min(pending.len());
    let fail = |i: usize, e: ExecError| {
        failed.store(true, Ordering::Relaxed);
        let mut fe = first_err.lock().unwrap();
        // report the earliest failing pair, whatever the thread timing
        if fe.as_ref().is_none_or(|(j, _)| i < *j) {
            *fe = Some((i, e));
        }
    };
    let workers = jobs.clamp(1, limit.max(1));
    // (index in `pending`, encoded run file, seconds the run took)
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>, f64)>(workers * SAVE_BACKLOG);
    let rx = Mutex::new(rx);
    std::thread::scope(|scope| {
        for _ in 0..SAVERS {
            scope.spawn(|| loop {
                // the lock is held only while waiting for the next run
                let Ok((i, bytes, seconds)) = rx.lock().unwrap().recv() else {
                    return;
                };
                let (k, p, r, cost) = pending[i];
                let done = Done {
                    sweep: k,
                    point: p,
                    cost,
                    seconds,
                };
                // a saver must keep draining whatever happens, or a full
                // backlog would block the simulation threads for good
                let saved = catch_unwind(AssertUnwindSafe(|| {
                    sweeps[k].1.save_local(p, r, &bytes).map(|()| tick(&done))
                }));
                match saved {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => fail(i, ExecError::Store(e.to_string())),
                    Err(_) => fail(i, ExecError::Store(format!("saving run {r} panicked"))),
                }
            });
        }
        for _ in 0..workers {
            let tx = tx.clone();
            let fail = &fail;
            let (next, failed, pending) = (&next, &failed, &pending);
            scope.spawn(move || loop {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= limit {
                    return;
                }
                let (k, p, r, _) = pending[i];
                let point = &sweeps[k].0.points[p];
                let s = &point.scenario;
                let t0 = std::time::Instant::now();
                let res = catch_unwind(AssertUnwindSafe(|| f(s, r)))
                    .unwrap_or_else(|e| {
                        let m = e
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| e.downcast_ref::<String>().cloned());
                        Err(format!(
                            "simulation panicked: {}",
                            m.unwrap_or_else(|| "unknown panic".into())
                        ))
                    })
                    .and_then(|o| {
                        if o.run == r {
                            Ok(o)
                        } else {
                            Err(format!("simulation returned run {} instead of {r}", o.run))
                        }
                    })
                    .map_err(|e| {
                        // in a batch, the point's sweep is named too
                        let origin = if sweeps.len() > 1 {
                            format!("{}: ", sweeps[k].0.origin)
                        } else {
                            String::new()
                        };
                        ExecError::Run(format!(
                            "{origin}point `{}` run {r} (seed {}): {e}",
                            point.label,
                            s.run_seed(r)
                        ))
                    });
                match res {
                    // the savers outlive every sender and never stop early,
                    // so the send cannot fail
                    Ok(o) => {
                        let seconds = t0.elapsed().as_secs_f64();
                        let _ = tx.send((i, encode_run(&o), seconds));
                    }
                    Err(e) => {
                        fail(i, e);
                        return;
                    }
                }
            });
        }
        // the savers stop when the last simulation thread drops its sender
        drop(tx);
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
pub fn finish(sweep: &Sweep, store: &Store, opts: &WriteOptions) -> Result<Finished, String> {
    // Without merged tables to write (`mptlab reproduce` without --tables)
    // only summary.json is written, and it needs each run's summary metrics
    // and `paths` table. Decoding the rest of the run files (mostly the
    // `messages` table) took about 5 s and 4 GB for one gaming SCTP file at
    // the paper's run counts, on one core while the other idled.
    store.check_inputs().map_err(|e| e.to_string())?;
    let tables_wanted = opts.csv || opts.parquet;
    let keep: &dyn Fn(&str) -> bool = if tables_wanted {
        &|_| true
    } else {
        &|name| name == schema::PATHS
    };
    let mut per_point = Vec::with_capacity(sweep.points.len());
    for p in 0..sweep.points.len() {
        per_point.push(
            store
                .load_point_tables(p, sweep.runs, keep)
                .map_err(|e| e.to_string())?,
        );
    }
    let tables = if tables_wanted {
        merge_sweep(sweep, &per_point).map_err(|e| format!("cannot merge runs: {e}"))?
    } else {
        Vec::new()
    };
    let doc = summary(sweep, &per_point, &opts.meta);
    let files = write_tables(&store.dir, &tables, &doc, opts).map_err(|e| e.to_string())?;
    let unfinished = sweep
        .points
        .iter()
        .zip(&per_point)
        .map(|(p, rs)| (p.label.clone(), Unfinished::of(rs)))
        .filter(|(_, u)| u.any())
        .collect();
    Ok(Finished { files, unfinished })
}

/// What [`finish`] wrote, and the points with unfinished work.
#[derive(Debug)]
pub struct Finished {
    pub files: Vec<PathBuf>,
    /// (point label, its unfinished transfers and messages) for every point
    /// where some did not complete, in point order.
    pub unfinished: Vec<(String, Unfinished)>,
}

#[cfg(test)]
mod tests;
