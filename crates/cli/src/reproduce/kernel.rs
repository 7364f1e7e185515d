//! `mptlab reproduce SEED --kernel`: after the simulation, run every cell
//! (sweep point of an experiment) the kernel can run over the real Linux
//! kernel, one run after another in real time, and write the kernel's
//! results beside the simulator's:
//!
//! - `DIR/kernel/seed<SEED>/<id>/<point-id>/`: one resumable store per cell
//!   (the point's runs, `summary.json`, the same tidy tables as `mptlab
//!   emulate`), made by [`mptlab_emu::run::run_once`] with the point's own
//!   scenario (the same overrides and seeds as its simulated runs);
//! - `DIR/kernel.json`: every cell of the selected experiments with its
//!   status (`ran`, `failed`, `refused` with the kernel's reason, `skipped`
//!   by `--kernel-only` (unless an earlier pass into the same DIR ran it:
//!   then `ran`, judged from those runs), `not run` after Ctrl-C) and, for
//!   the cells that
//!   ran, the comparison with the simulator: the experiment's headline
//!   metric and the per-path share, each sim and kernel median with its
//!   order-statistic interval and run count, the ratio or difference and
//!   the verdict against the criteria of `mptlab validate`
//!   ([`crate::validate::criteria`]). The comparison is *paired*: the
//!   kernel's run `r` has the seed of the simulator's run `r` (both call
//!   `Scenario::run_seed(r)` on the point's scenario: [`run_cell`] passes
//!   the store's run index to `mptlab_emu::run::run_once`, the simulator's
//!   runner passes its own), so the same link draws, page and loss stream;
//!   the verdict compares the kernel's median with the simulator's median
//!   over the same run indices, and the simulator's median over all its
//!   runs is kept beside it (`sim_all`).
//!
//! Which cells the kernel can run is asked of
//! [`mptlab_emu::run::supported`] for every point, never listed here, so a
//! refusal removed from the emulator makes its cells run. See
//! docs/report.md, "Kernel beside the simulator".

use super::pace::{Event, Pace};
use crate::driver::{Driver, Emulate};
use crate::validate::criteria::{compare, criterion, median_ci, Criterion, MedianCi, Verdict};
use crate::validate::shift;
use mptlab_results::WriteOptions;
use mptlab_scenario::{Scenario, Sweep, SweepPoint, TrafficModel};
use mptlab_sweep::{finish, meta, Store, StoreError};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// `--kernel-runs` default: few, since every run takes its full real time.
pub const DEFAULT_RUNS: u32 = 3;

/// Set-up and tear-down of one emulation run (namespaces, links, agents,
/// sysctls), added to its duration in the estimate. Measured on this
/// machine (docs/report.md gives the command); an estimate, not a bound.
pub const OVERHEAD_S: f64 = 1.0;

/// One cell: a sweep point of an experiment, and whether the kernel can
/// run it.
#[derive(Clone, Debug)]
pub struct Cell {
    /// `seed<SEED>/<id>`, as in `DIR/runs`.
    pub key: String,
    pub seed: String,
    pub point: SweepPoint,
    /// The sweep's keys (for the cell's single-point store).
    pub keys: Vec<String>,
    pub origin: String,
    /// `Err(reason)`: what [`mptlab_emu::run::supported`] refused.
    pub runnable: Result<(), String>,
    /// Deselected by `--kernel-only`.
    pub selected: bool,
    /// Expected length of one run (s): the scenario's duration, or the
    /// longest simulated run of the point when its runs exist ([`refine`]).
    pub run_s: f64,
    /// Whether `run_s` comes from the simulated runs.
    pub from_sim: bool,
    /// Simulated runs per point of its sweep (`--kernel-from` checks the
    /// saved kernel run indices against it).
    pub sim_runs: u32,
    /// What the kernel runs in place of the scenario's settings
    /// ([`mptlab_emu::substitute`]; empty when refused): the cell is judged
    /// like for like ([`super::like`]).
    pub subs: Vec<mptlab_emu::substitute::Substitution>,
}

impl Cell {
    /// `seed000/video-wlan3g-tcp:protocol=mptcp,...`: what `--kernel-only` matches.
    pub fn name(&self) -> String {
        format!("{}:{}", self.key, self.point.label)
    }

    /// Real time of its runs, estimated.
    pub fn estimate_s(&self, runs: u32) -> f64 {
        runs as f64 * (self.run_s + OVERHEAD_S)
    }

    fn dir(&self, out: &Path) -> PathBuf {
        out.join("kernel").join(&self.key).join(&self.point.id)
    }
}

/// Every point of every planned sweep, asked of the emulator's
/// `supported()` (`sweeps`: the experiment key, its seed and its sweep as
/// the simulator runs it, overrides included). `only`: substrings of
/// [`Cell::name`]; empty selects every runnable cell.
pub fn cells(sweeps: &[(String, String, Sweep)], only: &[String]) -> Vec<Cell> {
    let mut v = Vec::new();
    for (key, seed, sw) in sweeps {
        for p in &sw.points {
            let runnable = mptlab_emu::run::supported(&p.scenario);
            let subs = match runnable {
                Ok(()) => mptlab_emu::substitute::substitutions(&p.scenario),
                Err(_) => Vec::new(),
            };
            let mut c = Cell {
                key: key.clone(),
                seed: seed.clone(),
                point: p.clone(),
                keys: sw.keys.clone(),
                origin: sw.origin.clone(),
                runnable,
                subs,
                selected: true,
                run_s: p.scenario.meta.duration_s,
                from_sim: false,
                sim_runs: sw.runs,
            };
            let name = c.name();
            c.selected = only.is_empty() || only.iter().any(|s| name.contains(s.as_str()));
            v.push(c);
        }
    }
    v
}

/// Estimate each cell's run length from its simulated runs under
/// `DIR/runs` when they exist (the longest `sim_time_s` of the point): a
/// download or page load ends when it completes, long before its cut
/// (seed 002's files are cut at 900 s but take seconds).
pub fn refine(cells: &mut [Cell], out: &Path) {
    let mut cache = SummaryCache::default();
    for c in cells.iter_mut() {
        let longest = cache
            .get(out, &c.key)
            .and_then(|s| point_of(s, &c.point.id))
            .map(|p| per_run(&p, "sim_time_s"))
            .and_then(|v| v.into_iter().filter_map(|r| r.value).reduce(f64::max));
        if let Some(t) = longest {
            c.run_s = t.min(c.point.scenario.meta.duration_s);
            c.from_sim = true;
        }
    }
}

/// The cells that will run: runnable and selected.
pub fn to_run(cells: &[Cell]) -> Vec<&Cell> {
    cells
        .iter()
        .filter(|c| c.runnable.is_ok() && c.selected)
        .collect()
}

/// `1 h 02 min 05 s`.
pub fn hms(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h} h {m:02} min {s:02} s")
    } else if m > 0 {
        format!("{m} min {s:02} s")
    } else {
        format!("{s} s")
    }
}

/// The plan printed before the kernel pass (and by `--kernel-plan`): per
/// seed, cells the kernel runs, refuses and `--kernel-only` leaves out; the
/// refusals grouped by reason; the estimated real time of the runs to run.
/// `saved[i]`: how many of cell `i`'s runs its store holds from an earlier
/// pass ([`saved_counts`]; empty: none), which the pass reads back in
/// about no time: they are left out of the estimates and counted apart
/// (before session 31 the plan counted them at their full length, so a
/// resumed pass's plan overestimated).
pub fn plan_text(cells: &[Cell], runs: u32, saved: &[u32], list: bool) -> String {
    let mut s = String::new();
    let mut seeds: Vec<&str> = cells.iter().map(|c| c.seed.as_str()).collect();
    seeds.dedup();
    let saved_of = |i: usize| saved.get(i).copied().unwrap_or(0).min(runs);
    // (cell index, cell) of the cells that will run
    let run: Vec<(usize, &Cell)> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.runnable.is_ok() && c.selected)
        .collect();
    let est = |i: usize, c: &Cell| c.estimate_s(runs - saved_of(i));
    for seed in &seeds {
        let of: Vec<(usize, &Cell)> = cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.seed == *seed)
            .collect();
        let ok = of.iter().filter(|(_, c)| c.runnable.is_ok()).count();
        let sel: Vec<(usize, &Cell)> = of
            .iter()
            .copied()
            .filter(|(_, c)| c.runnable.is_ok() && c.selected)
            .collect();
        let est_seed: f64 = sel.iter().map(|&(i, c)| est(i, c)).sum();
        let back: u32 = sel.iter().map(|&(i, _)| saved_of(i)).sum();
        s.push_str(&format!(
            "kernel: seed {seed}: {} cell(s): {ok} the kernel can run, {} it cannot{}; about {} real time{}\n",
            of.len(),
            of.len() - ok,
            if sel.len() != ok {
                format!(", {} selected by --kernel-only", sel.len())
            } else {
                String::new()
            },
            hms(est_seed),
            read_back_clause(back)
        ));
        // refusals grouped by reason, with how many cells each
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for (_, c) in &of {
            if let Err(r) = &c.runnable {
                match reasons.iter_mut().find(|(x, _)| x == r) {
                    Some(e) => e.1 += 1,
                    None => reasons.push((r, 1)),
                }
            }
        }
        for (r, n) in reasons {
            s.push_str(&format!("  refused ({n} cell(s)): {r}\n"));
        }
        // cells the kernel runs with other settings, judged like for like
        let mut subs: Vec<(String, usize)> = Vec::new();
        for (_, c) in of.iter().filter(|(_, c)| !c.subs.is_empty()) {
            let t = super::like::text(&super::like::to_json(&c.subs));
            match subs.iter_mut().find(|(x, _)| *x == t) {
                Some(e) => e.1 += 1,
                None => subs.push((t, 1)),
            }
        }
        for (t, n) in subs {
            s.push_str(&format!(
                "  run with a substitution ({n} cell(s)), judged like for like: {t}\n"
            ));
        }
        if list {
            for &(i, c) in &of {
                let what = match (&c.runnable, c.selected) {
                    (Ok(()), true) => format!(
                        "run, {}{}",
                        hms(est(i, c)),
                        match saved_of(i) {
                            0 => String::new(),
                            k => format!(" ({k} of {runs} run(s) read back)"),
                        }
                    ),
                    (Ok(()), false) => "left out by --kernel-only".into(),
                    (Err(r), _) => format!("refused: {r}"),
                };
                s.push_str(&format!("  {} ({what})\n", c.name()));
            }
        }
    }
    let total: f64 = run.iter().map(|&(i, c)| est(i, c)).sum();
    let back: u32 = run.iter().map(|&(i, _)| saved_of(i)).sum();
    let length = if run.iter().all(|(_, c)| c.from_sim) {
        "simulated length"
    } else if run.iter().any(|(_, c)| c.from_sim) {
        "simulated length where simulated, else its duration (web, file and bursts runs may end earlier)"
    } else {
        "duration (web, file and bursts runs may end earlier; the estimate printed after the simulation uses its run lengths)"
    };
    if back == 0 {
        s.push_str(&format!(
            "kernel: {} cell(s) x {runs} run(s) one after another: about {} real time \
             (each run's {length} + {OVERHEAD_S} s set-up)",
            run.len(),
            hms(total),
        ));
    } else {
        s.push_str(&format!(
            "kernel: {} cell(s) x {runs} run(s): {back} read back from their stores (an earlier \
             pass's, about no time), {} to run one after another: about {} real time (each run's \
             {length} + {OVERHEAD_S} s set-up)",
            run.len(),
            run.len() as u32 * runs - back,
            hms(total),
        ));
    }
    s
}

/// `, 2 run(s) read back from an earlier pass (not in the time)`; empty for none.
fn read_back_clause(n: u32) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} run(s) read back from an earlier pass, not in the time)")
    }
}

/// How one cell's kernel runs ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every run done (`summary.json` written).
    Ran,
    /// A run failed: the error; the cell has no kernel result.
    Failed(String),
    /// Ctrl-C / SIGTERM before or during the cell.
    Stopped,
}

/// Run the selected runnable cells one after another with `emu`, each into
/// its own store under `DIR/kernel/`; progress on stderr. A failed run
/// fails its cell only (the next cell runs); a stop (Ctrl-C) ends the pass.
pub fn run_cells(
    cells: &[Cell],
    out: &Path,
    runs: u32,
    force: bool,
    emu: &Emulate,
    quiet: bool,
) -> Vec<(String, Outcome)> {
    let todo = to_run(cells);
    // the runs still to do: a resumed pass reads its saved runs back in
    // about no time, so they are not in the estimate (before session 30
    // they were, and counted as done work at the pace)
    let saved: Vec<u32> = todo.iter().map(|c| saved_runs(c, out, runs)).collect();
    let to_do: Vec<f64> = todo
        .iter()
        .zip(&saved)
        .map(|(c, &s)| c.estimate_s(runs - s))
        .collect();
    let total: f64 = to_do.iter().sum();
    let t0 = std::time::Instant::now();
    let mut left = total;
    // the time left at the pace of the runs run here (module `pace`)
    let pace = RefCell::new(Pace::new(total));
    let mut res = Vec::new();
    let stopped = || {
        emu.0
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    };
    for (i, c) in todo.iter().enumerate() {
        if stopped() {
            res.push((c.name(), Outcome::Stopped));
            continue;
        }
        // this cell's saved runs are in its estimate here and leave it as
        // they are read back, as a top-up's do (`Pace::on`)
        pace.borrow_mut().settle(left + c.estimate_s(saved[i]));
        let o = run_cell(c, out, runs, force, emu, &|ev| {
            let now = t0.elapsed().as_secs_f64();
            let started = pace.borrow_mut().on(ev, c.estimate_s(1), now);
            if let (Some((r, left)), false) = (started, quiet) {
                eprintln!(
                    "kernel [{}/{}] {} run {}/{runs} ({} elapsed, about {} left)",
                    i + 1,
                    todo.len(),
                    c.name(),
                    r + 1,
                    hms(now),
                    hms(left)
                );
            }
        });
        let o = match o {
            Err(_) if stopped() => Outcome::Stopped,
            Err(e) => {
                eprintln!(
                    "error: kernel: {}: {e} (the cell is reported as failed; the next cell runs)",
                    c.name()
                );
                Outcome::Failed(e)
            }
            Ok(()) => Outcome::Ran,
        };
        left -= to_do[i];
        res.push((c.name(), o));
    }
    res
}

/// How many of a cell's runs `0..runs` its store holds from an earlier
/// pass, which [`run_cell`] reads back rather than runs. Read from the
/// store's files (`runs/<point id>/run-<r>.json`, `mptlab_sweep::Store`):
/// an estimate for the time left only; a store that refuses them fails its
/// cell, and the next cell's estimate is settled anew.
fn saved_runs(c: &Cell, out: &Path, runs: u32) -> u32 {
    saved_between(c, out, (0, runs))
}

/// The runs `from..to` of a cell its store holds, which a pass or a
/// top-up reads back rather than runs ([`run_cell`], [`run_more`]): the
/// same files `Store::open_made_by` counts as done. None when the store's
/// `sweep.json` is another sweep's or another kernel's: `--force` discards
/// those runs and without it the store refuses its cell. (`--force` keeps
/// a store whose `sweep.json` matches: until the session-31 review the
/// plan counted none under `--force` and read high.)
pub fn saved_between(c: &Cell, out: &Path, (from, to): (u32, u32)) -> u32 {
    if !store_matches(c, out) {
        return 0;
    }
    let dir = c.dir(out).join("runs").join(&c.point.id);
    (from..to)
        .filter(|r| dir.join(format!("run-{r}.json")).is_file())
        .count() as u32
}

/// Whether the cell's store holds no `sweep.json` or this pass's: its runs
/// are then read back, with `--force` or without (`Store::open_made_by`
/// compares the manifests; the run count is not part of them).
fn store_matches(c: &Cell, out: &Path) -> bool {
    let Ok(old) = std::fs::read(c.dir(out).join(mptlab_sweep::store::MANIFEST)) else {
        return true;
    };
    let sweep = single(c, 1);
    match mptlab_sweep::store::InputHashes::of(&sweep) {
        Ok(inputs) => mptlab_sweep::store::manifest_difference(
            &old,
            &mptlab_sweep::store::manifest_made_by(&sweep, &inputs, &made_by()),
        )
        .is_none(),
        // an input that cannot be read fails the cell before any run
        Err(_) => false,
    }
}

/// [`saved_runs`] of every cell of `cells` that will run (0 for the
/// others), in their order: what [`plan_text`] leaves out of its
/// estimates. `out` empty (`--kernel-plan` without `--out`): none.
pub fn saved_counts(cells: &[Cell], out: &Path, runs: u32) -> Vec<u32> {
    cells
        .iter()
        .map(|c| {
            if out.as_os_str().is_empty() || c.runnable.is_err() || !c.selected {
                0
            } else {
                saved_runs(c, out, runs)
            }
        })
        .collect()
}

/// What kernel runs record as their maker in their store: the kernel's
/// release, not the simulator's sources (`mptlab_sweep::store::KERNEL_PREFIX`),
/// so a pass resumes after the simulator was edited but not on another
/// kernel. The emulator's own code is not part of it.
fn made_by() -> String {
    let release = crate::validate::saved::kernel_release();
    format!(
        "{}{}",
        mptlab_sweep::store::KERNEL_PREFIX,
        if release.is_empty() {
            "an unknown release"
        } else {
            &release
        }
    )
}

/// One cell: its pending runs (a resumed pass skips the saved ones, each
/// reported as [`Event::ReadBack`]; a run made reports
/// [`Event::Starting`], then [`Event::Ran`] once saved), then
/// `summary.json` and the tables.
fn run_cell(
    c: &Cell,
    out: &Path,
    runs: u32,
    force: bool,
    emu: &dyn Driver,
    progress: &dyn Fn(Event),
) -> Result<(), String> {
    let sweep = single(c, runs);
    let dir = c.dir(out);
    let store = Store::open_made_by(&dir, &sweep, force, &made_by()).map_err(|e| match e {
        StoreError::Refused(m) => format!("{m} (pass --force to redo it)"),
        e => e.to_string(),
    })?;
    let pending = store.pending();
    for _ in pending.len()..runs as usize {
        progress(Event::ReadBack);
    }
    for (_, r) in pending {
        progress(Event::Starting(r));
        let o = emu.run_once(&c.point.scenario, r)?;
        store.save(0, &o).map_err(|e| e.to_string())?;
        progress(Event::Ran);
    }
    drop(store);
    finish_runs(c, out, runs)
}

/// Kernel runs `from..to` of a cell into its store, one after another (a
/// run already on disk, from an interrupted earlier top-up, is read back,
/// not redone, and reported as [`Event::ReadBack`]), for `--until-decided`
/// ([`super::until`]). Returns the
/// runs' `per_run` entries as `summary.json` writes them (`run`, `seed`,
/// `metrics`) and the error that ended the batch early, if any (a stop:
/// Ctrl-C); the runs before it are returned and stay on disk. The store's
/// tables and `summary.json` are not rewritten here: a live pass's store
/// holds runs `0..from` too and is finished by [`finish_runs`]; a
/// continued saved pass's holds only the new runs.
pub fn run_more(
    c: &Cell,
    out: &Path,
    (from, to): (u32, u32),
    emu: &dyn Driver,
    progress: &dyn Fn(Event),
) -> (Vec<Value>, Option<String>) {
    let mut done = Vec::new();
    let store = match Store::open_made_by(&c.dir(out), &single(c, to), false, &made_by()) {
        Ok(s) => s,
        Err(e) => return (done, Some(e.to_string())),
    };
    for r in from..to {
        let o = if store.has_run(0, r) {
            progress(Event::ReadBack);
            store
                .load_run_tables(0, r, &|_| false)
                .map_err(|e| e.to_string())
        } else {
            progress(Event::Starting(r));
            emu.run_once(&c.point.scenario, r).and_then(|o| {
                store.save(0, &o).map_err(|e| e.to_string())?;
                progress(Event::Ran);
                Ok(o)
            })
        };
        match o {
            Ok(o) => done.push(json!({"run": o.run, "seed": o.seed, "metrics": o.summary})),
            Err(e) => return (done, Some(e)),
        }
    }
    (done, None)
}

/// Merge the first `runs` runs of a cell's store into its tables and
/// `summary.json` (a live pass's cell after `--until-decided` added runs).
pub fn finish_runs(c: &Cell, out: &Path, runs: u32) -> Result<(), String> {
    let sweep = single(c, runs);
    let store =
        Store::open_made_by(&c.dir(out), &sweep, false, &made_by()).map_err(|e| e.to_string())?;
    let opts = WriteOptions {
        csv: true,
        parquet: true,
        meta: meta(&sweep, env!("CARGO_PKG_VERSION")),
        extra_files: Vec::new(),
    };
    finish(&sweep, &store, &opts).map(|_| ())
}

/// The cell as a sweep of its one point, `runs` runs.
fn single(c: &Cell, runs: u32) -> Sweep {
    let mut p = c.point.clone();
    p.index = 0;
    Sweep {
        origin: c.origin.clone(),
        keys: c.keys.clone(),
        points: vec![p],
        runs,
        has_sweep: true,
    }
}

/// The metric an experiment is judged by in the paper's comparisons:
/// completion time for downloads and pages, median message delay for
/// video, gaming and bursts, goodput for bulk.
pub fn headline(s: &Scenario) -> &'static str {
    match s.traffic.model {
        TrafficModel::File { .. } | TrafficModel::Web { .. } => "completion_time_ms",
        TrafficModel::Bulk => "fg_throughput_mbit",
        _ => "delay_ms_median",
    }
}

/// The criterion of a compared metric: `mptlab validate`'s, except that a
/// bulk goodput, shown only there (it follows from the completion times it
/// judges), is the headline here and is judged like a time: within 10 %.
fn criterion_of(metric: &str) -> Criterion {
    match metric {
        "fg_throughput_mbit" => Criterion::Relative(0.10),
        m => criterion(m),
    }
}

pub(super) fn judge(metric: &str, sim: f64, kernel: f64) -> (Option<f64>, Option<f64>, Verdict) {
    if metric == "fg_throughput_mbit" {
        let ratio = (sim != 0.0).then(|| kernel / sim);
        let v = match ratio {
            Some(r) if (r - 1.0).abs() <= 0.10 + 1e-12 => Verdict::Pass,
            Some(_) => Verdict::Fail,
            None => Verdict::Info,
        };
        return (ratio, None, v);
    }
    compare(metric, sim, kernel)
}

fn criterion_text(c: Criterion) -> String {
    match c {
        Criterion::Relative(t) => format!("kernel/sim within {:.0} %", t * 100.0),
        Criterion::Absolute(t) => format!("within {:.0} points", t * 100.0),
        Criterion::Info => "shown only".into(),
    }
}

pub(super) fn ci_json(c: &Option<MedianCi>) -> Value {
    match c {
        Some(c) => {
            json!({"median": c.median, "lo": c.lo, "hi": c.hi, "coverage": c.coverage, "n": c.n})
        }
        None => Value::Null,
    }
}

/// One run's value of a metric, with the run's index and seed (from the
/// `per_run` entries of a `summary.json`), so the kernel's runs can be
/// paired with the simulator's runs of the same index. `value` is `None`
/// when the run has no finite value of the metric: its transfer did not
/// finish by the end of the run (completion time), no message was
/// delivered (delays); such a run is reported, never averaged away.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RunValue {
    pub run: u32,
    pub seed: Option<u64>,
    pub value: Option<f64>,
}

/// A metric's per-run values of one point of a `summary.json`, every run
/// (`value` `None` where it has none). A path's byte share missing from a
/// run that has another path's share is 0: the emulator reports shares for
/// the paths its subflows used (a path without a subflow, e.g. the second
/// path under `ndiffports`, has none). An entry without `run` counts by its
/// position.
pub(super) fn per_run(point: &Value, metric: &str) -> Vec<RunValue> {
    let share = metric.starts_with("fg_share_path");
    point["per_run"]
        .as_array()
        .map(|a| {
            a.iter()
                .enumerate()
                .map(|(i, r)| {
                    let m = &r["metrics"];
                    let value = m[metric]
                        .as_f64()
                        .or_else(|| {
                            let other = m
                                .as_object()
                                .is_some_and(|o| o.keys().any(|k| k.starts_with("fg_share_path")));
                            (share && other).then_some(0.0)
                        })
                        .filter(|x| x.is_finite());
                    let run = r["run"].as_u64().map_or(i as u32, |x| x as u32);
                    RunValue {
                        run,
                        seed: r["seed"].as_u64(),
                        value,
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The simulated run with the kernel run's index (and the same seed where
/// both sides record it: a differing seed would mean different link draws,
/// so such runs are not paired).
fn counterpart<'a>(sim: &'a [RunValue], k: &RunValue) -> Option<&'a RunValue> {
    sim.iter().find(|s| {
        s.run == k.run
            && match (s.seed, k.seed) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    })
}

/// The pairs (simulated, kernel) of the runs with the same index where both
/// finished (have a value).
fn pairs(sim: &[RunValue], kernel: &[RunValue]) -> Vec<(f64, f64)> {
    kernel
        .iter()
        .filter_map(|k| Some((counterpart(sim, k)?.value?, k.value?)))
        .collect()
}

/// The finite values (the runs that finished).
fn values(v: &[RunValue]) -> Vec<f64> {
    v.iter().filter_map(|r| r.value).collect()
}

/// The point `id` of a `summary.json`.
pub(super) fn point_of(summary: &Value, id: &str) -> Option<Value> {
    summary["points"]
        .as_array()?
        .iter()
        .find(|p| p["point"].as_str() == Some(id))
        .cloned()
}

/// The compared metrics of a cell: the headline and, for MPTCP, the share
/// of the second path (with two paths the first's is one minus it).
pub fn metrics_of(s: &Scenario) -> Vec<&'static str> {
    let mut m = vec![headline(s)];
    if s.transport.protocol == mptlab_scenario::Protocol::Mptcp && s.topology.num_paths() >= 2 {
        m.push("fg_share_path2");
    }
    m
}

/// The comparison rows of one cell from the simulator's and the kernel's
/// point (entries of `summary.json` `points`), and the cell's verdict:
/// `agree` when every judged metric passes, `disagree` when one fails,
/// `not checkable` when none could be judged on data ([`cell_judgement`]).
///
/// Paired by run index: `sim` and `kernel` are the medians over the runs
/// both sides have (the kernel's `--kernel-runs N` runs 0..N-1 against the
/// simulator's runs 0..N-1, with the same seeds), and the verdict judges
/// those two. With one kernel run against three simulated runs, comparing
/// the kernel's run 0 with the median of the simulated runs 0-2 judged the
/// draw of run 0 (seed 000's huffpost pages, docs/report.md), not the
/// kernel. `sim_all` / `kernel_all` are each side's median over all its
/// runs (shown, not judged).
///
/// `runs` lists every kernel run: its index and seed, the kernel's value
/// and the simulated run's of the same index, with the ratio (times,
/// goodput) or difference (shares) where both finished. A run without a
/// value on one side (a page that did not finish in the run, no message
/// delivered) is kept with `sim_unfinished` / `kernel_unfinished` and left
/// out of the medians; the row's `unfinished` lists those run indices per
/// side (and `unpaired`: kernel runs without a simulated run of the same
/// index and seed), so the verdict judges what finished with the
/// unfinished count beside it ([`unfinished_of`]).
pub fn compare_cell(metrics: &[&str], sim: &Value, kernel: &Value) -> (Vec<Value>, &'static str) {
    let mut rows = Vec::new();
    for m in metrics {
        let (sv, kv) = (per_run(sim, m), per_run(kernel, m));
        let paired = pairs(&sv, &kv);
        let ps: Vec<f64> = paired.iter().map(|(s, _)| *s).collect();
        let pk: Vec<f64> = paired.iter().map(|(_, k)| *k).collect();
        let (s, k) = (median_ci(&ps), median_ci(&pk));
        let (ratio, diff, v) = match (&s, &k) {
            (Some(s), Some(k)) => judge(m, s.median, k.median),
            _ => (None, None, Verdict::Info),
        };
        let (mut sim_unf, mut ker_unf, mut unpaired) = (Vec::new(), Vec::new(), Vec::new());
        let runs: Vec<Value> = kv
            .iter()
            .map(|k| {
                let s = counterpart(&sv, k);
                let sval = s.and_then(|s| s.value);
                let (r, d) = match (sval, k.value) {
                    (Some(a), Some(b)) => {
                        let (r, d, _) = judge(m, a, b);
                        (r, d)
                    }
                    _ => (None, None),
                };
                // the pair's seed (both sides', where both record it), so
                // `--kernel-from` can check it against a later sweep
                let seed = s.and_then(|s| s.seed).or(k.seed);
                let mut e = json!({"run": k.run, "seed": seed, "sim": sval, "kernel": k.value, "ratio": r, "diff": d});
                match s {
                    None => unpaired.push(k.run),
                    Some(_) if sval.is_none() => {
                        e["sim_unfinished"] = true.into();
                        sim_unf.push(k.run);
                    }
                    Some(_) => {}
                }
                if k.value.is_none() {
                    e["kernel_unfinished"] = true.into();
                    ker_unf.push(k.run);
                }
                e
            })
            .collect();
        // the noise-aware decision: every simulated run against every
        // kernel run (distributions, not pairs), validate::shift
        let crit = criterion_of(m);
        let shift = shift::shift_of(crit, &values(&sv), &values(&kv));
        let decision = shift::decide(crit, v, shift.as_ref());
        let mut row = json!({
            "metric": m,
            "sim": ci_json(&s),
            "kernel": ci_json(&k),
            "sim_all": ci_json(&median_ci(&values(&sv))),
            "kernel_all": ci_json(&median_ci(&values(&kv))),
            "ratio": ratio,
            "diff": diff,
            "verdict": v.as_str(),
            "criterion": criterion_text(criterion_of(m)),
            "runs": runs,
            "shift": shift::shift_json(crit, shift.as_ref()),
        });
        if let Some(d) = &decision {
            row["decision"] = d.as_str().into();
            if let shift::Decision::Undecided { .. } = d {
                row["undecided"] = shift::undecided_json(d, shift.as_ref());
            }
        }
        if !(sim_unf.is_empty() && ker_unf.is_empty() && unpaired.is_empty()) {
            let mut u = json!({"kernel_runs": kv.len(), "sim": sim_unf, "kernel": ker_unf});
            if !unpaired.is_empty() {
                u["unpaired"] = unpaired.into();
            }
            row["unfinished"] = u;
        }
        rows.push(row);
    }
    mark_unjudged(&mut rows);
    let verdict = cell_verdict(&rows);
    (rows, verdict)
}

/// A compared row's `decision` under the cell's rule ([`cell_judgement`]):
/// a row the point verdict would call `agree` (or that has no decision,
/// the criterion's `info`) on no data ([`metric_gap`]: fewer than
/// [`MIN_RUNS`] paired runs, a side without a value, null bounds) is
/// `not checkable`, with the gap's words in `reason`. [`shift::decide`]
/// gives `agree` on the point verdict alone, so one kernel run within the
/// criterion read `agree` in its row while the cell said not checkable.
/// A row on fewer than [`MIN_RUNS`] paired runs ([`paired_gap`]) is
/// `not checkable` whatever its shift decision (session 30): its
/// `undecided` or `disagree` rested on the shift over all runs, but the
/// paired medians the row and the cell are judged on are one run's draw
/// or absent, so the row said `disagree` beside a cell `not checkable`
/// when the simulated runs at the kernel's indices did not finish. The
/// shift's decision stays in `shift_decision` (and an `undecided` entry
/// with it): the cell's noise `decision` is drawn from it as before
/// ([`shift::cell_decision`]), and `--until-decided` sizes its batches by
/// it. Other `undecided` and `disagree` rows (null bounds on 2 or more
/// paired runs) rest on the shift and say what the runs cannot tell; they
/// are kept. Idempotent: a re-judge ([`super::kernel_from`]) that changes
/// `kernel_all` after [`compare_cell`] calls it again so the reason names
/// the right side.
pub fn mark_unjudged(rows: &mut [Value]) {
    for row in rows.iter_mut() {
        if row["criterion"] == "shown only" {
            continue;
        }
        let d = row["decision"].as_str();
        if matches!(d, None | Some("agree") | Some(NOT_CHECKABLE)) {
            if let Some(why) = metric_gap(row) {
                row["decision"] = NOT_CHECKABLE.into();
                row["reason"] = why.into();
            }
        } else if let Some(why) = paired_gap(row) {
            row["shift_decision"] = row["decision"].take();
            row["decision"] = NOT_CHECKABLE.into();
            row["reason"] = why.into();
        }
    }
}

/// What a cell's verdict is instead of agree / disagree when it would rest
/// on no data (python/mptlab/report/kernel.py `NOT_CHECKABLE`; the seeds'
/// claims say the same, docs/report.md "Session 26: verdicts on no data").
pub const NOT_CHECKABLE: &str = "not checkable";

/// Paired runs a judged median needs: the "median" of one kernel run is
/// that run's draw, its spread unknown ([`shift::decide`] says so too:
/// "one kernel run: its spread is unknown"). The report's rule is the same
/// (report/kernel.py `MIN_RUNS`).
pub const MIN_RUNS: u64 = 2;

/// A cell's verdict from its rows: `agree` when every compared metric
/// passes on data, `disagree` when one fails on data, else
/// [`NOT_CHECKABLE`] ([`cell_judgement`] gives the reason).
pub fn cell_verdict(rows: &[Value]) -> &'static str {
    cell_judgement(rows).0
}

/// Why a compared metric's row would be judged on no data, or `None` when
/// it would not: a side without a value (every run on it unfinished), fewer
/// than [`MIN_RUNS`] paired runs ([`paired_gap`]), an interval whose bounds
/// are not numbers (NaN is written as null), or a comparison the criterion
/// could not make (`info`, e.g. a ratio against a simulated median of 0).
/// The same rule and words as report/kernel.py `metric_gap`, which
/// re-judges saved files.
pub fn metric_gap(row: &Value) -> Option<String> {
    if let Some(why) = paired_gap(row) {
        return Some(why);
    }
    let (sim, ker) = (&row["sim"], &row["kernel"]);
    let finite = |v: &Value| v.as_f64().is_some_and(f64::is_finite);
    if ![sim, ker]
        .iter()
        .all(|x| finite(&x["lo"]) && finite(&x["hi"]))
    {
        return Some("no interval (its bounds are not numbers)".into());
    }
    let v = row["verdict"].as_str().unwrap_or("None");
    if v != Verdict::Pass.as_str() && v != Verdict::Fail.as_str() {
        return Some(format!(
            "the criterion could not compare the medians (verdict {v})"
        ));
    }
    None
}

/// Why a compared metric's row has fewer than [`MIN_RUNS`] paired runs
/// (the first gaps of [`metric_gap`]: a side without a value, or too few
/// runs both sides finished at the same indices), or `None`. No decision
/// stands on such a row: its paired medians, which the cell is judged on,
/// are one run's draw or absent. report/kernel.py `paired_gap` alike.
pub fn paired_gap(row: &Value) -> Option<String> {
    let (sim, ker) = (&row["sim"], &row["kernel"]);
    let finite = |v: &Value| v.as_f64().is_some_and(f64::is_finite);
    // the paired medians lack both sides when either does: the side to
    // name is the kernel when none of its runs finished (`kernel_all`)
    if !finite(&sim["median"]) || !finite(&ker["median"]) {
        return Some(
            if !finite(&row["kernel_all"]["median"]) && !finite(&ker["median"]) {
                "no kernel value (no kernel run finished)".into()
            } else if !finite(&sim["median"]) {
                "no simulated value (no paired simulated run finished)".into()
            } else {
                "no kernel value (no kernel run finished)".into()
            },
        );
    }
    let n = paired_runs(row);
    if n < MIN_RUNS {
        return Some(format!(
            "{n} paired run{}: a median of one run has no spread (at least {MIN_RUNS} needed)",
            if n == 1 { "" } else { "s" }
        ));
    }
    None
}

/// Runs a compared row pairs (both sides finished at the same index): the
/// fewer of its paired medians' run counts, 0 without them.
pub fn paired_runs(row: &Value) -> u64 {
    [&row["sim"], &row["kernel"]]
        .iter()
        .map(|x| {
            if x["median"].as_f64().is_some_and(f64::is_finite) {
                x["n"].as_u64().unwrap_or(0)
            } else {
                0
            }
        })
        .min()
        .unwrap_or(0)
}

/// A cell's verdict from its rows and, when it is [`NOT_CHECKABLE`], why
/// (each compared metric's [`metric_gap`], `metric: why; ...`). A metric
/// that fails on data decides `disagree` whatever the others lack; `agree`
/// needs every compared metric (criterion not "shown only") judged on data
/// and passing. The rule of report/kernel.py `judged`, so kernel.json, its
/// stderr summary and the report say the same.
pub fn cell_judgement(rows: &[Value]) -> (&'static str, Option<String>) {
    let compared: Vec<&Value> = rows
        .iter()
        .filter(|r| r["criterion"] != "shown only")
        .collect();
    if compared.is_empty() {
        return (NOT_CHECKABLE, Some("no compared metric".into()));
    }
    let gaps: Vec<(&Value, Option<String>)> =
        compared.iter().map(|r| (*r, metric_gap(r))).collect();
    let fail = Some(Verdict::Fail.as_str());
    if gaps
        .iter()
        .any(|(r, g)| g.is_none() && r["verdict"].as_str() == fail)
    {
        return ("disagree", None);
    }
    if gaps.iter().all(|(_, g)| g.is_none()) {
        return ("agree", None);
    }
    let why: Vec<String> = gaps
        .iter()
        .filter_map(|(r, g)| {
            g.as_ref()
                .map(|g| format!("{}: {g}", r["metric"].as_str().unwrap_or("?")))
        })
        .collect();
    (NOT_CHECKABLE, Some(why.join("; ")))
}

/// A cell's `unfinished` entry from its rows' (`None` when every kernel
/// run and its simulated run finished): per side the kernel run indices
/// whose run did not finish (over every judged metric), the kernel's run
/// count, and a `note` that says it plainly, e.g. "1 of 5 simulated runs
/// did not finish (run 4), 0 of 5 kernel runs; judged on the runs both
/// finished". `not_saved` (re-judged files written before every kernel run
/// was saved, [`super::kernel_from`]): kernel runs the file does not hold
/// per run, whose simulated run did not finish in the pass that wrote it.
pub fn unfinished_of(rows: &[Value]) -> Option<Value> {
    let (mut sim, mut ker, mut unp) = (Vec::<u64>::new(), Vec::<u64>::new(), Vec::<u64>::new());
    let (mut runs, mut not_saved) = (0u64, 0u64);
    let mut any = false;
    for r in rows {
        let u = &r["unfinished"];
        if u.is_null() {
            continue;
        }
        any = true;
        for (key, into) in [
            ("sim", &mut sim),
            ("kernel", &mut ker),
            ("unpaired", &mut unp),
        ] {
            for i in u[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_u64())
            {
                if !into.contains(&i) {
                    into.push(i);
                }
            }
        }
        runs = runs.max(u["kernel_runs"].as_u64().unwrap_or(0));
        not_saved = not_saved.max(u["not_saved"].as_u64().unwrap_or(0));
    }
    if !any {
        return None;
    }
    sim.sort_unstable();
    ker.sort_unstable();
    unp.sort_unstable();
    let list = |v: &[u64]| {
        if v.is_empty() {
            String::new()
        } else {
            let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!(" (run {})", s.join(", "))
        }
    };
    let of = runs + not_saved;
    let mut note = format!(
        "{} of {of} simulated run(s) did not finish{}, {} of {of} kernel run(s){}",
        sim.len() as u64 + not_saved,
        list(&sim),
        ker.len(),
        list(&ker)
    );
    if !unp.is_empty() {
        note.push_str(&format!(
            "; {} kernel run(s) without a simulated run of the same index and seed{}",
            unp.len(),
            list(&unp)
        ));
    }
    if not_saved > 0 {
        note.push_str(&format!(
            " ({not_saved} of the simulated runs did not finish in the pass that wrote the saved file, \
             which holds no per-run value of its kernel run: written before every kernel run was saved)"
        ));
    }
    note.push_str("; judged on the runs both finished");
    let mut u = json!({"kernel_runs": of, "sim": sim, "kernel": ker, "note": note});
    if !unp.is_empty() {
        u["unpaired"] = unp.into();
    }
    if not_saved > 0 {
        u["not_saved"] = not_saved.into();
    }
    Some(u)
}

/// One line per cell of a `kernel.json` whose verdict rests on fewer runs
/// than the kernel ran (a side's run did not finish), for stderr after a
/// pass or a re-judge; empty when there is none.
pub fn unfinished_lines(m: &Value) -> String {
    let mut s = String::new();
    for c in m["cells"].as_array().into_iter().flatten() {
        if let Some(note) = c["unfinished"]["note"].as_str() {
            s.push_str(&format!(
                "  {}:{}: {}; {}\n",
                c["experiment"].as_str().unwrap_or("?"),
                c["point"].as_str().unwrap_or("?"),
                c["verdict"].as_str().unwrap_or(NOT_CHECKABLE),
                note
            ));
        }
    }
    s
}

/// Each sweep's `summary.json`, read once however many of its points are
/// cells (a sweep's summary holds all its points).
#[derive(Default)]
pub(super) struct SummaryCache(Vec<(String, Option<Value>)>);

impl SummaryCache {
    /// The summary of sweep `key` under `out/runs/`, `None` when it is
    /// missing or unreadable.
    pub(super) fn get(&mut self, out: &Path, key: &str) -> Option<&Value> {
        let i = match self.0.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                let s = read_json(&out.join("runs").join(key).join("summary.json"));
                self.0.push((key.to_string(), s));
                self.0.len() - 1
            }
        };
        self.0[i].1.as_ref()
    }
}

/// Whether the cell's kernel store in `out` has a summary with the cell's
/// point, i.e. finished kernel runs from an earlier pass.
fn earlier_kernel_runs(c: &Cell, out: &Path) -> bool {
    read_json(&c.dir(out).join("summary.json"))
        .and_then(|s| point_of(&s, &c.point.id))
        .is_some()
}

pub(super) fn read_json(p: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(p).ok()?).ok()
}

/// `DIR/kernel.json`: every cell with its status and, where the kernel ran
/// it, the comparison with the simulator's runs of the same point.
pub fn manifest(
    cells: &[Cell],
    outcomes: &[(String, Outcome)],
    out: &Path,
    runs: u32,
    wall_s: f64,
) -> Value {
    let mut v = Vec::new();
    for c in cells {
        let name = c.name();
        let outcome = outcomes.iter().find(|(n, _)| *n == name).map(|(_, o)| o);
        let mut e = cell_entry(c);
        let (status, reason) = match (&c.runnable, c.selected, outcome) {
            (Err(r), _, _) => ("refused", r.clone()),
            // A cell left out of this pass whose store already holds an
            // earlier pass's kernel runs (the same DIR, another
            // `--kernel-only`) is judged from them, not marked skipped:
            // passes over parts of a seed add up in one `kernel.json`.
            (Ok(()), false, _) if earlier_kernel_runs(c, out) => ("ran", String::new()),
            (Ok(()), false, _) => ("skipped", "left out by --kernel-only".to_string()),
            (Ok(()), true, Some(Outcome::Ran)) => ("ran", String::new()),
            (Ok(()), true, Some(Outcome::Failed(m))) => ("failed", m.clone()),
            (Ok(()), true, Some(Outcome::Stopped)) | (Ok(()), true, None) => (
                "not run",
                "stopped (Ctrl-C) before this cell finished".to_string(),
            ),
        };
        e["status"] = status.into();
        if !reason.is_empty() {
            e["reason"] = reason.into();
        }
        if c.runnable.is_ok() {
            if let Some(d) = mptlab_emu::run::differs(&c.point.scenario) {
                e["differs"] = d.into();
            }
            if !c.subs.is_empty() {
                e["substituted"] = super::like::to_json(&c.subs);
            }
        }
        if status == "ran" {
            let dir = c.dir(out);
            e["dir"] = dir
                .strip_prefix(out)
                .unwrap_or(&dir)
                .display()
                .to_string()
                .into();
            let sim = read_json(&out.join("runs").join(&c.key).join("summary.json"))
                .and_then(|s| point_of(&s, &c.point.id));
            let ker = read_json(&dir.join("summary.json")).and_then(|s| point_of(&s, &c.point.id));
            match (sim, ker) {
                (Some(sim), Some(ker)) => {
                    let metrics = metrics_of(&c.point.scenario);
                    let like = (!c.subs.is_empty()).then(|| {
                        super::like::point(out, c)
                            .ok_or_else(|| "its summary.json is missing".to_string())
                    });
                    super::like::judge_cell(&mut e, &sim, like, &|side| {
                        compare_cell(&metrics, side, &ker).0
                    });
                }
                _ => {
                    e["verdict"] = NOT_CHECKABLE.into();
                    e["reason"] = "summary.json of the simulated or the kernel runs missing".into();
                }
            }
        }
        v.push(e);
    }
    let mut m = header(runs, wall_s);
    m["cells"] = v.into();
    m
}

/// The cells a live pass ran with a substitution, each with the runs its
/// like-for-like simulation needs (the kernel store's run indices).
pub fn like_todo<'a>(
    cells: &'a [Cell],
    outcomes: &[(String, Outcome)],
    out: &Path,
) -> Vec<super::like::Todo<'a>> {
    cells
        .iter()
        .filter(|c| !c.subs.is_empty())
        .filter(|c| {
            outcomes
                .iter()
                .any(|(n, o)| *n == c.name() && *o == Outcome::Ran)
        })
        .filter_map(|c| {
            let ker = read_json(&c.dir(out).join("summary.json"))
                .and_then(|s| point_of(&s, &c.point.id))?;
            let runs = super::like::runs_of(&ker);
            // every simulated run of the sweep, not only the kernel's run
            // indices: the decision compares distributions (validate::shift)
            (runs > 0).then(|| super::like::Todo {
                cell: c,
                subs: super::like::to_json(&c.subs),
                runs: runs.max(c.sim_runs),
            })
        })
        .collect()
}

/// A cell's identity in kernel.json (seed, experiment, point and its
/// values, headline metric), before its status and comparison.
pub(super) fn cell_entry(c: &Cell) -> Value {
    json!({
        "seed": c.seed,
        "experiment": c.key,
        "point": c.point.label,
        "point_id": c.point.id,
        "values": c.point.values.iter().map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null))).collect::<serde_json::Map<_, _>>(),
        "headline": headline(&c.point.scenario),
    })
}

/// kernel.json's keys besides `cells`: run count, wall time, criteria.
pub(super) fn header(runs: u32, wall_s: f64) -> Value {
    let mut h = json!({
        "kernel_runs": runs,
        "kernel_wall_s": wall_s,
        "criteria": "median completion time, median message delay and bulk goodput: kernel/sim within 10 %; \
                     share of bytes on path 2 (MPTCP): within 5 points (mptlab validate's criteria); \
                     a cell agrees when every judged metric passes",
        "pairing": "paired by run index: the simulator's median over the runs the kernel ran (the same \
                    indices, so the same seeds) against the kernel's; the simulator's median over all its \
                    runs is shown beside it (sim_all), not judged",
        "interval": "order-statistic interval of the median (95 % from 6 runs; [min, max] with its coverage below)",
        "decision": "a failing cell (its medians outside the criterion) `disagree`s only when the 95 % interval \
                     of the kernel-vs-simulator shift lies wholly outside the criterion's band, else it is \
                     `undecided`, with the kernel runs that would decide it (`undecided`); one kernel run is \
                     never `agree` or `disagree`: a metric row on fewer than 2 paired runs or with a side \
                     without values is `not checkable` whatever its shift says, and so is a row that would \
                     `agree` (or has no decision) on an interval whose bounds are not numbers, each with its \
                     `reason`, as the cell. The \
                     shift is the Hodges-Lehmann estimate over every simulated against every kernel run (times \
                     and goodput on ln values, a ratio; shares on the difference) with its Moses interval \
                     (Hollander, Wolfe & Chicken, sections 4.2-4.3); `verdict` is unchanged",
        "like_for_like": "a cell the kernel ran with a substitution (`substituted`: a setting it cannot run as \
                          the scenario gives it) is judged against the simulator with the kernel's settings, \
                          the same runs (DIR/like); the simulator with the seed's settings is `seed_mechanism`, \
                          shown beside it, not judged as agreement",
    });
    // the simulator the kernel's runs were judged against: the report warns
    // when the directory's simulated runs are another build's
    h["model"] = mptlab_sweep::store::MODEL_ID.into();
    // the kernel's CONFIG_HZ, for `--kernel-from` (reproduce::sim_hz)
    if let Ok((hz, _)) = crate::kernel_hz::host() {
        h["kernel_hz"] = hz.into();
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(vals: &[f64], shares: &[f64]) -> Value {
        json!({"point": "p", "per_run": vals.iter().zip(shares).enumerate().map(|(i, (v, s))| json!({
            "run": i, "metrics": {"delay_ms_median": v, "fg_share_path2": s}})).collect::<Vec<_>>()})
    }

    #[test]
    fn cell_verdict_needs_every_judged_metric() {
        let m = ["delay_ms_median", "fg_share_path2"];
        let (rows, v) = compare_cell(
            &m,
            &pt(&[100.0, 101.0, 99.0], &[0.4; 3]),
            &pt(&[105.0; 3], &[0.43; 3]),
        );
        assert_eq!(v, "agree");
        assert_eq!(rows[0]["verdict"], "PASS");
        assert_eq!(rows[0]["sim"]["n"], 3);
        assert!((rows[0]["ratio"].as_f64().unwrap() - 1.05).abs() < 1e-12);
        // the delays agree, the shares are 8 points apart
        let (rows, v) = compare_cell(
            &m,
            &pt(&[100.0; 3], &[0.4; 3]),
            &pt(&[100.0; 3], &[0.48; 3]),
        );
        assert_eq!(v, "disagree");
        assert_eq!(rows[1]["verdict"], "FAIL");
        assert!((rows[1]["diff"].as_f64().unwrap() - 0.08).abs() < 1e-9);
        // a share missing beside another path's share is 0 (no subflow there)
        let k = json!({"per_run": [{"run": 0, "metrics": {"delay_ms_median": 100.0, "fg_share_path1": 1.0}}]});
        let (rows, _) = compare_cell(&m, &pt(&[100.0; 3], &[0.0; 3]), &k);
        assert_eq!(rows[1]["kernel"]["median"], 0.0);
        assert_eq!(rows[1]["verdict"], "PASS");
        // no kernel value: nothing judged
        let (_, v) = compare_cell(&m, &pt(&[100.0; 3], &[0.4; 3]), &json!({"per_run": []}));
        assert_eq!(v, NOT_CHECKABLE);
        // bulk goodput is judged within 10 %
        assert_eq!(judge("fg_throughput_mbit", 10.0, 8.0).2, Verdict::Fail);
        assert_eq!(judge("fg_throughput_mbit", 10.0, 9.5).2, Verdict::Pass);
    }

    #[test]
    fn kernel_runs_are_judged_against_the_simulated_runs_with_their_indices() {
        // sim runs 0-2 at 300, 100, 100 ms; the kernel ran run 0 only, 300 ms
        let sim = json!({"per_run": [
            {"run": 0, "seed": 11, "metrics": {"completion_time_ms": 300.0}},
            {"run": 1, "seed": 12, "metrics": {"completion_time_ms": 100.0}},
            {"run": 2, "seed": 13, "metrics": {"completion_time_ms": 100.0}}]});
        let ker =
            json!({"per_run": [{"run": 0, "seed": 11, "metrics": {"completion_time_ms": 300.0}}]});
        let (rows, v) = compare_cell(&["completion_time_ms"], &sim, &ker);
        let r = &rows[0];
        // paired: kernel run 0 against simulated run 0, x1.0 (the median of
        // all three simulated runs, 100 ms, would give x3.0 and FAIL); one
        // paired run: the metric passes, the cell is not checkable
        assert_eq!(v, NOT_CHECKABLE);
        assert_eq!(r["verdict"], "PASS");
        assert_eq!(
            (r["sim"]["median"].as_f64(), r["sim"]["n"].as_u64()),
            (Some(300.0), Some(1))
        );
        assert!((r["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(
            (r["sim_all"]["median"].as_f64(), r["sim_all"]["n"].as_u64()),
            (Some(100.0), Some(3))
        );
        assert_eq!(judge("completion_time_ms", 100.0, 300.0).2, Verdict::Fail);
        assert_eq!(
            r["runs"],
            json!([{"run": 0, "seed": 11, "sim": 300.0, "kernel": 300.0, "ratio": 1.0, "diff": null}])
        );
        // kernel run 2 (not run 0) pairs with simulated run 2: x3.0, FAIL
        let ker2 =
            json!({"per_run": [{"run": 2, "seed": 13, "metrics": {"completion_time_ms": 300.0}}]});
        let (rows, v) = compare_cell(&["completion_time_ms"], &sim, &ker2);
        assert_eq!(
            (
                v,
                rows[0]["verdict"].as_str(),
                rows[0]["sim"]["median"].as_f64()
            ),
            (NOT_CHECKABLE, Some("FAIL"), Some(100.0))
        );
        // a run recorded with another seed is not paired: nothing judged
        let ker3 =
            json!({"per_run": [{"run": 0, "seed": 99, "metrics": {"completion_time_ms": 300.0}}]});
        let (rows, v) = compare_cell(&["completion_time_ms"], &sim, &ker3);
        assert_eq!((v, rows[0]["kernel"].clone()), (NOT_CHECKABLE, Value::Null));
        assert_eq!(rows[0]["kernel_all"]["n"], 1);
        // shares: per-run differences in points
        let s = pt(&[100.0; 3], &[0.40, 0.10, 0.10]);
        let k = pt(&[100.0; 2], &[0.43, 0.12]);
        let (rows, _) = compare_cell(&["fg_share_path2"], &s, &k);
        let runs = rows[0]["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        assert!((runs[0]["diff"].as_f64().unwrap() - 0.03).abs() < 1e-9);
        assert!(runs[1]["ratio"].is_null());
        assert!((rows[0]["sim"]["median"].as_f64().unwrap() - 0.25).abs() < 1e-12);
    }

    /// A noisy cell on three kernel runs is undecided, with the kernel runs
    /// that would decide it; the same point on ten clearly shifted runs
    /// disagrees. The simulator's thirty runs all count (not only the
    /// paired ones), and the point verdict is unchanged beside it.
    #[test]
    fn a_failing_cell_is_undecided_or_disagrees_by_its_interval() {
        let m = ["completion_time_ms"];
        let point = |v: &[f64]| {
            json!({"per_run": v.iter().enumerate().map(|(i, x)| json!({
                "run": i, "metrics": {"completion_time_ms": x}})).collect::<Vec<_>>()})
        };
        let sim: Vec<f64> = (0..30)
            .map(|i| 100.0 + f64::from((i * 7) % 30) * 10.0)
            .collect();
        let (rows, v) = compare_cell(&m, &point(&sim), &point(&[300.0, 380.0, 390.0]));
        assert_eq!((v, &rows[0]["verdict"]), ("disagree", &json!("FAIL")));
        assert_eq!(rows[0]["decision"], "undecided", "{}", rows[0]);
        assert_eq!(rows[0]["shift"]["sim_runs"], 30);
        let (d, u) = shift::cell_decision(&rows, v);
        assert_eq!(d, "undecided");
        assert!(u["more_kernel_runs"].as_u64().is_some_and(|r| r > 0), "{u}");
        let far: Vec<f64> = sim.iter().take(10).map(|x| x * 3.0).collect();
        let (rows, v) = compare_cell(&m, &point(&sim), &point(&far));
        assert_eq!(rows[0]["decision"], "disagree", "{}", rows[0]);
        assert_eq!(shift::cell_decision(&rows, v).0, "disagree");
        // a passing cell agrees, no undecided entry
        let (rows, v) = compare_cell(&m, &point(&sim), &point(&sim));
        assert_eq!(
            shift::cell_decision(&rows, v),
            ("agree".into(), Value::Null)
        );
    }

    /// Fails on the line before session 28, which subtracted the
    /// scenario's cut (900 s here) per run done instead of the cell's own
    /// estimate, so the time left fell by 15 minutes per 2-second run. The
    /// runs are counted at `estimate_s(1)`, the refined run time plus the
    /// overhead, at the pace so far (module `pace`).
    #[test]
    fn time_left_counts_runs_at_their_estimate_and_the_pace_so_far() {
        let text = "[scenario]\nname = \"t\"\nduration_s = 900\nruns = 3\n[topology]\n\
                    preset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n[transport]\n\
                    protocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n\
                    [sweep]\n\"transport.path\" = [1, 2]\n";
        let sw = mptlab_scenario::Sweep::from_str(text, "t.toml", &[], None).unwrap();
        let mut cs = cells(&[("seed002/x".into(), "002".into(), sw)], &[]);
        for c in &mut cs {
            c.run_s = 2.0; // refined from the simulated runs
        }
        let total: f64 = cs.iter().map(|c| c.estimate_s(3)).sum(); // 2 x 3 x (2 + 1) = 18
        assert_eq!(total, 18.0);
        let run = cs[0].estimate_s(1);
        assert_eq!(run, 3.0);
        let mut p = Pace::new(total);
        p.settle(total);
        // nothing done yet: the plain estimate
        assert_eq!(p.starting(run, 0.0), 18.0);
        p.ran();
        p.starting(run, 3.0);
        p.ran();
        // two runs done in exactly their estimate (6 s)
        assert!((p.starting(run, 6.0) - 12.0).abs() < 1e-9);
        p.ran();
        // the first cell (9 s estimated) took 18 s: what is left doubles
        p.settle(9.0);
        assert!((p.starting(run, 18.0) - 18.0).abs() < 1e-9);
        p.ran();
        p.starting(run, 24.0);
        p.ran();
        // the last run of the last cell: 3 s estimated, at the same pace 6 s
        assert!((p.starting(run, 30.0) - 3.0 * 30.0 / 15.0).abs() < 1e-9);
    }

    /// A one-path TCP bulk scenario of `duration_s` and 3 runs, for the
    /// tests of the kernel pass's stores and plans.
    fn bulk_tcp(duration_s: u32) -> String {
        format!(
            "[scenario]\nname = \"t\"\nduration_s = {duration_s}\nruns = 3\n[topology]\n\
             preset = \"single-path\"\npaths = [\"wlan\"]\n[transport]\n\
             protocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n"
        )
    }

    /// What a cell's runs report to the progress line, here with the
    /// simulator standing in for the kernel: a run made reports `Starting`
    /// then `Ran`; a resumed cell's saved runs (`run_cell`) and a top-up's
    /// runs on disk (`run_more`) report `ReadBack`; a run that fails
    /// reports no `Ran`. Through the pace as both call sites hand the
    /// events to it (`Pace::on`), settled as `run_cells` settles a cell
    /// (its saved runs in its estimate), the line before the resumed run
    /// says that run alone. Fails without a run's `ReadBack` or `Ran`
    /// (session 30: the per-run lines rest on them).
    #[test]
    fn a_cell_s_runs_report_what_became_of_each() {
        use crate::driver::Simulate;
        let text = &bulk_tcp(5);
        let sw = mptlab_scenario::Sweep::from_str(text, "t.toml", &[], None).unwrap();
        let cs = cells(&[("seed002/x".into(), "002".into(), sw)], &[]);
        let c = &cs[0];
        let d = crate::scratch::Scratch::new("kernel-run-events");
        let events = RefCell::new(Vec::new());
        let log = |ev: Event| events.borrow_mut().push(ev);
        let take = || std::mem::take(&mut *events.borrow_mut());
        use Event::{Ran, ReadBack, Starting};
        run_cell(c, &d, 2, false, &Simulate, &log).unwrap();
        assert_eq!(take(), [Starting(0), Ran, Starting(1), Ran]);
        // the same cell resumed with 3 runs: 0 and 1 are read back
        assert_eq!(saved_runs(c, &d, 3), 2);
        run_cell(c, &d, 3, false, &Simulate, &log).unwrap();
        let resumed = take();
        assert_eq!(resumed, [ReadBack, ReadBack, Starting(2), Ran]);
        let run = c.estimate_s(1);
        let mut p = Pace::new(run);
        p.settle(run + c.estimate_s(2));
        let lines: Vec<_> = resumed.iter().filter_map(|&e| p.on(e, run, 0.0)).collect();
        assert_eq!(lines, [(2, run)]);
        // a top-up from run 2 whose run 4 fails: 2 read back, 3 made, 4
        // started and failed (no `Ran`)
        let fails = |s: &mptlab_scenario::Scenario, r: u32| match r {
            4 => Err("the run failed".to_string()),
            _ => crate::driver::Driver::run_once(&Simulate, s, r),
        };
        let (done, err) = run_more(c, &d, (2, 6), &fails, &log);
        assert_eq!((done.len(), err.as_deref()), (2, Some("the run failed")));
        assert_eq!(take(), [ReadBack, Starting(3), Ran, Starting(4)]);
    }

    /// A resumed pass's saved runs are left out of the time left before
    /// the pass starts (they are read back, not run), with `--force` too
    /// while the store's `sweep.json` is this pass's; a store of another
    /// sweep or kernel has none (`--force` discards them). Before session
    /// 30 they were in the estimate, so the first lines of a resumed pass
    /// read high, and then, counted as done at the pace, low; until the
    /// session-31 review `--force` counted none in a store it keeps.
    #[test]
    fn saved_runs_are_counted_from_the_store() {
        let text = &bulk_tcp(10);
        let sw = mptlab_scenario::Sweep::from_str(text, "t.toml", &[], None).unwrap();
        let cs = cells(&[("seed002/x".into(), "002".into(), sw)], &[]);
        let d = crate::scratch::Scratch::new("kernel-saved-runs");
        let c = &cs[0];
        assert_eq!(saved_runs(c, &d, 4), 0);
        // the store as a pass leaves it (its sweep.json written), and runs
        // 0, 2 and 5 saved
        drop(Store::open_made_by(&c.dir(&d), &single(c, 4), false, &made_by()).expect("a store"));
        let runs = c.dir(&d).join("runs").join(&c.point.id);
        for r in [0, 2, 5] {
            std::fs::write(runs.join(format!("run-{r}.json")), "{}").unwrap();
        }
        // runs 0 and 2 of 0..4 (run 5 is not part of this pass)
        assert_eq!(saved_runs(c, &d, 4), 2);
        // --force keeps a store of this pass: they are read back, as
        // `Store::open_made_by` with force says
        let kept = Store::open_made_by(&c.dir(&d), &single(c, 4), true, &made_by()).unwrap();
        assert_eq!(kept.pending().len(), 2, "runs 1 and 3 to do");
        drop(kept);
        assert_eq!(saved_runs(c, &d, 4), 2);
        // another kernel's store: --force discards its runs, none counted
        let manifest = c.dir(&d).join(mptlab_sweep::store::MANIFEST);
        let other = std::fs::read_to_string(&manifest)
            .unwrap()
            .replace(&made_by(), "kernel 0.0.0-another");
        assert_ne!(other, std::fs::read_to_string(&manifest).unwrap());
        std::fs::write(&manifest, other).unwrap();
        assert_eq!(saved_runs(c, &d, 4), 0);
        let redone = Store::open_made_by(&c.dir(&d), &single(c, 4), true, &made_by()).unwrap();
        assert_eq!(redone.pending().len(), 4, "--force discarded them");
    }

    /// Session 31: the plan before a resumed pass counts the runs it will
    /// run, and says how many its stores hold (read back in about no
    /// time). Before, two cells of 3 runs at 11 s with 3 runs on disk
    /// read "2 cell(s) x 3 run(s) one after another: about 1 min 06 s",
    /// for 33 s of runs.
    #[test]
    fn the_plan_counts_only_the_runs_to_run() {
        let text = &bulk_tcp(10);
        let a = mptlab_scenario::Sweep::from_str(text, "a.toml", &[], None).unwrap();
        let b = mptlab_scenario::Sweep::from_str(text, "b.toml", &[], None).unwrap();
        let cs = cells(
            &[
                ("seed002/a".into(), "002".into(), a),
                ("seed002/b".into(), "002".into(), b),
            ],
            &[],
        );
        let d = crate::scratch::Scratch::new("kernel-plan-saved");
        let fresh = plan_text(&cs, 3, &saved_counts(&cs, &d, 3), true);
        assert!(
            fresh.ends_with("kernel: 2 cell(s) x 3 run(s) one after another: about 1 min 06 s real \
                             time (each run's duration (web, file and bursts runs may end earlier; the \
                             estimate printed after the simulation uses its run lengths) + 1 s set-up)"),
            "{fresh}"
        );
        // an earlier pass saved runs 0-2 of the first cell
        let runs = cs[0].dir(&d).join("runs").join(&cs[0].point.id);
        std::fs::create_dir_all(&runs).unwrap();
        for r in 0..3 {
            std::fs::write(runs.join(format!("run-{r}.json")), "{}").unwrap();
        }
        let saved = saved_counts(&cs, &d, 3);
        assert_eq!(saved, [3, 0]);
        let plan = plan_text(&cs, 3, &saved, true);
        assert!(
            plan.starts_with(
                "kernel: seed 002: 2 cell(s): 2 the kernel can run, 0 it cannot; about 33 s real \
                 time (3 run(s) read back from an earlier pass, not in the time)\n"
            ),
            "{plan}"
        );
        assert!(
            plan.contains("  seed002/a:base (run, 0 s (3 of 3 run(s) read back))\n"),
            "{plan}"
        );
        assert!(plan.contains("  seed002/b:base (run, 33 s)\n"), "{plan}");
        assert!(
            plan.contains(
                "kernel: 2 cell(s) x 3 run(s): 3 read back from their stores (an earlier pass's, \
                 about no time), 3 to run one after another: about 33 s real time"
            ),
            "{plan}"
        );
        // `--until-decided 5`: the runs 3..5 an interrupted top-up saved
        // are left out of the most it can add (22 s a cell), and counted
        let line =
            super::super::until::plan_line(&to_run(&cs), 3, 5, &|c| (c.key == "seed002/a") as u32);
        assert!(
            line.ends_with(
                "at most 33 s more real time (2 cell(s) from 3 to 5 runs; 1 of those runs are in \
                 the stores already, saved by an earlier pass or top-up, and are read back)"
            ),
            "{line}"
        );
        // a store whose sweep.json is not this pass's (`--force` discards
        // its runs, or it refuses its cell): in the time again
        std::fs::write(cs[0].dir(&d).join(mptlab_sweep::store::MANIFEST), "{}").unwrap();
        assert_eq!(plan_text(&cs, 3, &saved_counts(&cs, &d, 3), true), fresh);
    }

    #[test]
    fn hms_reads() {
        assert_eq!(hms(5.4), "5 s");
        assert_eq!(hms(125.0), "2 min 05 s");
        assert_eq!(hms(3725.0), "1 h 02 min 05 s");
    }
}

/// Session 28: the kernel's verdict on too little data, against the cases
/// the report's judge reads too (python/tests/data/kernel-judge-cases.json,
/// python/tests/test_kernel_judge_parity.py): both give the same verdict
/// and reason for the same cell.
#[cfg(test)]
mod judge_parity {
    use super::*;

    /// A case's compared metrics, by name.
    fn metric_names(c: &Value) -> Vec<&str> {
        c["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect()
    }

    fn cases() -> Vec<Value> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/tests/data/kernel-judge-cases.json");
        let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        v["cases"].as_array().unwrap().clone()
    }

    /// Fails before session 28: one kernel run within (outside) the
    /// criterion was `agree` (`disagree`), a share without a simulated
    /// value beside a judged delay `agree`, every kernel run unfinished
    /// `no verdict`.
    #[test]
    fn too_little_data_is_not_checkable_as_the_report_says() {
        for c in cases() {
            let name = c["name"].as_str().unwrap();
            let m = metric_names(&c);
            let (rows, v) = compare_cell(&m, &c["sim"], &c["kernel"]);
            // the rows the report's test reads are what this code writes
            assert_eq!(Value::from(rows.clone()), c["rows"], "{name}: rows");
            assert_eq!(v, c["verdict"], "{name}");
            let (v, why) = cell_judgement(&rows);
            assert_eq!(v, c["verdict"], "{name}");
            assert_eq!(
                why.map(Value::from).unwrap_or(Value::Null),
                c["reason"],
                "{name}"
            );
        }
    }

    /// The stderr verdict line counts the cells as the report's
    /// (python/tests/test_kernel_judge_parity.py, the same cells).
    #[test]
    fn the_verdict_line_counts_them_not_checkable() {
        let cells: Vec<Value> = cases()
            .iter()
            .map(|c| {
                let mut e = json!({"status": "ran", "metrics": c["rows"]});
                super::super::like::judge_cell(&mut e, &Value::Null, None, &|_| {
                    serde_json::from_value(c["rows"].clone()).unwrap()
                });
                assert_eq!(e["verdict"], c["verdict"], "{}", c["name"]);
                assert_eq!(e["reason"], c["reason"], "{}", c["name"]);
                // the noise decision the report's counts read (session 31)
                assert_eq!(e["decision"], c["decision"], "{}", c["name"]);
                e
            })
            .collect();
        let line = super::super::like::summary(&json!({ "cells": cells }));
        assert!(
            line.starts_with(
                "1 of 8 cells agree like for like, 6 not checkable (fewer than 2 paired runs, a side \
                 without values or no compared metric: the reason beside each cell) (no cell ran with \
                 a substitution)"
            ),
            "{line}"
        );
        // the two cells not checkable whose shift said `undecided` or
        // `disagree` are not counted by it: the failing cell on 3 runs alone
        // (verdicts.json counts the same, test_kernel_judge_parity.py)
        assert!(
            line.ends_with("; 0 disagree beyond their 95 % interval; 1 undecided (about 2 more kernel runs each)"),
            "{line}"
        );
    }

    /// (metric, decision, reason) of each row.
    fn decisions(rows: &[Value]) -> Value {
        rows.iter()
            .map(|r| json!([r["metric"], r["decision"], r["reason"]]))
            .collect()
    }

    /// Session 29: a row's `decision` follows the cell's rule with the
    /// same words. Fails before: a row judged on one paired run (one
    /// kernel run, or three whose simulated runs but one did not finish)
    /// said `agree` while its cell said not checkable, and a row without
    /// a value had no decision. A saved file's old rows re-judged
    /// ([`super::super::like::judge_cell`], as `--kernel-from` and a live
    /// pass do) get the same.
    #[test]
    fn a_row_s_decision_follows_the_cell_s_rule() {
        for c in cases() {
            let name = c["name"].as_str().unwrap();
            let m = metric_names(&c);
            let (rows, _) = compare_cell(&m, &c["sim"], &c["kernel"]);
            assert_eq!(decisions(&rows), c["row_decisions"], "{name}");
            for r in &rows {
                // never `agree` on no data; a reason exactly when not checkable
                if r["decision"] == "agree" {
                    assert_eq!(metric_gap(r), None, "{name}: {r}");
                }
                assert_eq!(
                    r["reason"].is_string(),
                    r["decision"] == NOT_CHECKABLE,
                    "{name}: {r}"
                );
            }
            // the rows as written before session 29 (no `reason`, and no
            // `shift_decision`, session 30's), judged again
            let old: Vec<Value> = rows
                .iter()
                .zip(c["row_decisions_before_session29"].as_array().unwrap())
                .map(|(r, b)| {
                    let mut r = r.clone();
                    let o = r.as_object_mut().unwrap();
                    o.remove("reason");
                    o.remove("decision");
                    o.remove("shift_decision");
                    if b[1].is_string() {
                        o.insert("decision".into(), b[1].clone());
                    }
                    r
                })
                .collect();
            let mut e = json!({"status": "ran"});
            super::super::like::judge_cell(&mut e, &Value::Null, None, &|_| old.clone());
            let again: Vec<Value> = serde_json::from_value(e["metrics"].clone()).unwrap();
            assert_eq!(decisions(&again), c["row_decisions"], "{name}: re-judged");
            assert_eq!(e["verdict"], c["verdict"], "{name}: re-judged");
        }
    }

    /// NaN bounds (null in JSON) and the criterion's `info` are not
    /// checkable with the report's words; no compared metric either.
    #[test]
    fn null_bounds_info_and_no_metric() {
        let ci = |lo: Value| json!({"median": 80.0, "lo": lo, "hi": 82.0, "n": 3});
        let row = |lo: Value, v: &str| {
            json!({"metric": "delay_ms_median", "sim": ci(json!(70.0)), "kernel": ci(lo),
                   "verdict": v, "criterion": "kernel/sim within 10 %"})
        };
        assert_eq!(
            cell_judgement(&[row(Value::Null, "PASS")]),
            (
                NOT_CHECKABLE,
                Some("delay_ms_median: no interval (its bounds are not numbers)".into())
            )
        );
        assert_eq!(
            cell_judgement(&[row(json!(79.0), "info")]).1.unwrap(),
            "delay_ms_median: the criterion could not compare the medians (verdict info)"
        );
        assert_eq!(cell_judgement(&[row(json!(79.0), "PASS")]), ("agree", None));
        assert_eq!(
            cell_judgement(&[]),
            (NOT_CHECKABLE, Some("no compared metric".into()))
        );
    }
}
