//! `mptlab reproduce SEED --kernel-from FILE`: judge the kernel runs saved in
//! an earlier `reproduce --kernel` pass's `kernel.json` against the
//! simulator as it is now, without root and without real time (as
//! `mptlab validate --kernel-from DIR` does for the grid). The simulation
//! runs (or resumes) as usual; then, instead of running cells on the
//! kernel, each cell's saved kernel values are paired with the simulated
//! runs of the same index and seed and judged by the same function as the
//! live pass ([`super::kernel::compare_cell`]), so a re-judged file and a
//! live pass over the same data give the same verdicts
//! (`rejudged_file_gives_the_live_verdicts`).
//!
//! What is re-used from the file: per cell its status (and reason), and
//! for the cells that ran, each judged metric's per-run kernel values
//! (`cells[i].metrics[j].runs[k].kernel` with `.run`, and `.seed` where the
//! file records it) and the kernel's median over all its runs
//! (`kernel_all`, shown, not judged). The file must match the sweep: the
//! same seed, every cell of the sweep present (by experiment and point id),
//! no unknown point of a planned experiment, the same headline and judged
//! metrics, every kernel run index below the simulated run count, per-run
//! seeds (where recorded) equal to the simulated run's, and as many paired
//! runs per metric as the file's `kernel_all.n` (runs the live pass could
//! not pair are not saved per run, so they could not be re-judged). Anything
//! else is refused with one message naming the file and the key.
//!
//! Files written before the per-run seed was saved (2026-11-26) hold no
//! seeds: their kernel runs are taken to have the seeds of the simulated
//! runs with the same index, as the live pass checked when it paired them
//! (a note says so).

use super::kernel::{
    ci_json, compare_cell, header, metrics_of, per_run as per_run_values, point_of, Cell,
    SummaryCache,
};
use crate::validate::criteria::median_ci;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A saved `kernel.json` and where it came from.
pub struct Saved {
    pub path: PathBuf,
    pub json: Value,
}

impl Saved {
    /// `PATH` is the file, or a directory holding `kernel.json`.
    pub fn load(path: &Path) -> Result<Saved, String> {
        let path = if path.is_dir() {
            path.join("kernel.json")
        } else {
            path.to_path_buf()
        };
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not a kernel.json: {e}", path.display()))?;
        if !json["cells"].is_array() {
            return Err(format!(
                "{}: key `cells`: missing or not a list (not a kernel.json of `reproduce --kernel`)",
                path.display()
            ));
        }
        Ok(Saved { path, json })
    }

    fn cells(&self) -> &[Value] {
        self.json["cells"].as_array().map_or(&[], |v| v.as_slice())
    }

    /// `--kernel-from A --kernel-from B`: the cells B's pass ran replace
    /// A's entries for the same cell (experiment and point id), e.g. a pass
    /// that re-ran some of A's cells with more runs (`--kernel-only`,
    /// `--kernel-runs`); every other entry stays A's, and B's entries for
    /// cells A has none of (A's pass was `--only` other experiments) are
    /// added whatever their status, so two passes over different
    /// experiments of a seed cover its refused cells too. `kernel_runs` becomes
    /// the larger of the two passes' (each cell keeps its own run count in
    /// its metrics), `kernel_wall_s` their sum; `rejudged_from` will name
    /// both files. The merged file is checked against the sweep as one.
    pub fn overlay(mut self, later: Saved) -> Saved {
        let mut cells: Vec<Value> = self.cells().to_vec();
        for e in later.cells() {
            let ran = e["status"].as_str() == Some("ran");
            let same =
                |b: &Value| b["experiment"] == e["experiment"] && b["point_id"] == e["point_id"];
            match cells.iter_mut().find(|b| same(b)) {
                Some(b) if ran => *b = e.clone(),
                // a later pass that did not run the cell leaves the earlier entry
                Some(_) => {}
                None => cells.push(e.clone()),
            }
        }
        let num = |s: &Saved, k: &str| s.json[k].as_f64().unwrap_or(0.0);
        let runs = num(&self, "kernel_runs").max(num(&later, "kernel_runs")) as u64;
        let wall = num(&self, "kernel_wall_s") + num(&later, "kernel_wall_s");
        let mut from = self.sources();
        from.push(later.path.display().to_string());
        self.json["cells"] = cells.into();
        self.json["kernel_runs"] = runs.into();
        self.json["kernel_wall_s"] = wall.into();
        self.json["merged_from"] = from.into();
        // one CONFIG_HZ for the merged file only when both passes record the
        // same (reproduce::sim_hz says when it is unknown)
        if self.json["kernel_hz"] != later.json["kernel_hz"] {
            if let Some(m) = self.json.as_object_mut() {
                m.remove("kernel_hz");
            }
        }
        Saved {
            path: later.path,
            json: self.json,
        }
    }

    /// `--kernel-from FILE --until-decided MAX` ([`super::until`]): kernel
    /// runs the file does not hold (`per_run` entries as `summary.json`
    /// writes them) appended to every judged metric's `runs` of the cell,
    /// whose `kernel_all` is recomputed over all its runs (a file written
    /// before every kernel run was saved keeps counting the runs it lacks).
    /// The result re-judges like a file whose pass ran them all.
    pub fn append(&mut self, c: &Cell, per_run: &[Value], wall_s: f64) {
        let Some((i, _)) = self.entry(c) else {
            return;
        };
        let point = json!({ "per_run": per_run });
        let new_max = per_run.iter().filter_map(|r| r["run"].as_u64()).max();
        for row in self.json["cells"][i]["metrics"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            let missing = not_saved(row);
            let metric = row["metric"].as_str().unwrap_or("").to_string();
            if !row["runs"].is_array() {
                row["runs"] = json!([]);
            }
            let runs = row["runs"].as_array_mut().expect("an array");
            for k in per_run_values(&point, &metric) {
                runs.push(json!({"run": k.run, "seed": k.seed, "kernel": k.value}));
            }
            let values: Vec<f64> = runs.iter().filter_map(|r| r["kernel"].as_f64()).collect();
            let mut all = ci_json(&median_ci(&values));
            if missing > 0 {
                all["n"] = (values.len() as u64 + missing).into();
            }
            row["kernel_all"] = all;
        }
        let runs = self.json["kernel_runs"].as_u64().unwrap_or(0);
        if let Some(r) = new_max {
            self.json["kernel_runs"] = runs.max(r + 1).into();
        }
        let wall = self.json["kernel_wall_s"].as_f64().unwrap_or(0.0);
        self.json["kernel_wall_s"] = (wall + wall_s).into();
    }

    /// The files this one was read from (several after `overlay`).
    pub fn sources(&self) -> Vec<String> {
        match self.json["merged_from"].as_array() {
            Some(a) => a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            None => vec![self.path.display().to_string()],
        }
    }

    fn err(&self, key: &str, what: String) -> String {
        format!(
            "{}: key `{key}`: {what}; it does not match this sweep (re-judge with the same seed, \
             --quick/--runs and library as the kernel pass that wrote it)",
            self.sources().join(" + ")
        )
    }

    /// Whether the file records per-run seeds (files from 2026-11-27 on).
    pub fn has_seeds(&self) -> bool {
        self.cells().iter().any(|c| {
            c["metrics"].as_array().is_some_and(|m| {
                m.iter().any(|m| {
                    m["runs"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|r| r.get("seed").is_some()))
                })
            })
        })
    }

    /// The saved entry of a cell, by experiment and point id, with its index.
    fn entry(&self, c: &Cell) -> Option<(usize, &Value)> {
        self.cells().iter().enumerate().find(|(_, e)| {
            e["experiment"].as_str() == Some(c.key.as_str())
                && e["point_id"].as_str() == Some(c.point.id.as_str())
        })
    }

    /// Refuse a file that does not match `cells` (the planned sweep's
    /// points); checked before the simulation runs.
    pub fn check(&self, cells: &[Cell]) -> Result<(), String> {
        let seeds: Vec<&str> = {
            let mut s: Vec<&str> = cells.iter().map(|c| c.seed.as_str()).collect();
            s.dedup();
            s
        };
        for (i, e) in self.cells().iter().enumerate() {
            let seed = e["seed"].as_str().unwrap_or("");
            if !seeds.contains(&seed) {
                return Err(self.err(
                    &format!("cells[{i}].seed"),
                    format!("seed {seed:?}, but this sweep is seed {}", seeds.join(", ")),
                ));
            }
            // a point of a planned experiment the sweep does not have
            let exp = e["experiment"].as_str().unwrap_or("");
            if cells.iter().any(|c| c.key == exp)
                && !cells
                    .iter()
                    .any(|c| c.key == exp && Some(c.point.id.as_str()) == e["point_id"].as_str())
            {
                return Err(self.err(
                    &format!("cells[{i}].point_id"),
                    format!(
                        "{exp}:{} (point {}) is not a point of this sweep",
                        e["point"].as_str().unwrap_or("?"),
                        e["point_id"]
                    ),
                ));
            }
        }
        for c in cells {
            let Some((i, e)) = self.entry(c) else {
                return Err(self.err(
                    "cells",
                    format!("no entry for cell {} (point {})", c.name(), c.point.id),
                ));
            };
            if e["status"].as_str() != Some("ran") {
                continue;
            }
            let head = super::kernel::headline(&c.point.scenario);
            if e["headline"].as_str() != Some(head) {
                return Err(self.err(
                    &format!("cells[{i}].headline"),
                    format!(
                        "{} for {}, this sweep judges it by {head}",
                        e["headline"],
                        c.name()
                    ),
                ));
            }
            for m in metrics_of(&c.point.scenario) {
                let Some((j, row)) = metric_row(e, m) else {
                    return Err(self.err(
                        &format!("cells[{i}].metrics"),
                        format!("no {m} for {} (this sweep judges it)", c.name()),
                    ));
                };
                let key = format!("cells[{i}].metrics[{j}]");
                let runs = row["runs"].as_array().ok_or_else(|| {
                    self.err(&format!("{key}.runs"), "missing or not a list".into())
                })?;
                // every kernel run is saved (files from 2026-11-27 on keep the
                // unpaired ones, with `sim_unfinished`); an older file holds the
                // paired ones only: fewer finite values than kernel_all.n, the
                // rest reported as not saved ([`not_saved`]), never refused
                let n_all = row["kernel_all"]["n"].as_u64().unwrap_or(0) as usize;
                let finite = runs.iter().filter(|r| r["kernel"].is_number()).count();
                if finite > n_all {
                    return Err(self.err(
                        &format!("{key}.runs"),
                        format!(
                            "{finite} kernel value(s) of {m} for {}, but the kernel's median is over \
                             {n_all} (kernel_all.n)",
                            c.name()
                        ),
                    ));
                }
                for (k, r) in runs.iter().enumerate() {
                    let rkey = format!("{key}.runs[{k}]");
                    let Some(run) = r["run"].as_u64() else {
                        return Err(self.err(&rkey, "no `run` index".into()));
                    };
                    // null: the kernel run did not finish (no value)
                    let v = match &r["kernel"] {
                        Value::Null => None,
                        x => match x.as_f64() {
                            Some(v) => Some(v),
                            None => {
                                return Err(self.err(
                                    &format!("{rkey}.kernel"),
                                    "neither a number nor null".into(),
                                ))
                            }
                        },
                    };
                    // a kernel run beyond the simulated runs (`--kernel-runs`
                    // above `--runs`) is unpaired, as the live pass judged it
                    // (`kernel::compare_cell`): accepted when its saved seed is
                    // this sweep's seed for that run index, which the check
                    // below makes; without a seed it cannot be matched
                    if run >= c.sim_runs as u64 && r["seed"].as_u64().is_none() {
                        return Err(self.err(
                            &format!("{rkey}.run"),
                            format!(
                                "kernel run {run} of {}, but this sweep simulates {} run(s) per point \
                                 (pass --runs {} or more)",
                                c.name(),
                                c.sim_runs,
                                run + 1
                            ),
                        ));
                    }
                    if v.is_some_and(|v| !v.is_finite()) {
                        return Err(self.err(&format!("{rkey}.kernel"), "not a number".into()));
                    }
                    if let Some(s) = r["seed"].as_u64() {
                        let want = c.point.scenario.run_seed(run as u32);
                        if s != want {
                            return Err(self.err(
                                &format!("{rkey}.seed"),
                                format!(
                                    "kernel run {run} of {} had seed {s}, this sweep's run {run} has seed {want}",
                                    c.name()
                                ),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The saved row of metric `m` of a cell entry, with its index.
fn metric_row<'a>(e: &'a Value, m: &str) -> Option<(usize, &'a Value)> {
    e["metrics"]
        .as_array()?
        .iter()
        .enumerate()
        .find(|(_, r)| r["metric"].as_str() == Some(m))
}

/// Kernel runs of a saved metric row that the file does not hold per run:
/// `kernel_all.n` minus its saved kernel values. Files written before
/// 2026-11-27 (this change) saved the paired runs only, so a kernel run
/// whose simulated run did not finish is missing from `runs`; newer files
/// hold every kernel run (0 here).
fn not_saved(row: &Value) -> u64 {
    let n_all = row["kernel_all"]["n"].as_u64().unwrap_or(0);
    let saved = row["runs"]
        .as_array()
        .map_or(0, |a| a.iter().filter(|r| r["kernel"].is_number()).count()) as u64;
    n_all.saturating_sub(saved)
}

/// The kernel's side of a cell as a `summary.json` point, rebuilt from the
/// saved per-run values of its judged metrics: one `per_run` entry per run
/// index, with the saved seed where there is one.
pub fn kernel_point(e: &Value, metrics: &[&str]) -> Value {
    let mut runs: Vec<(u64, Option<u64>, serde_json::Map<String, Value>)> = Vec::new();
    for m in metrics {
        let Some((_, row)) = metric_row(e, m) else {
            continue;
        };
        for r in row["runs"].as_array().into_iter().flatten() {
            // a kernel run without a value (it did not finish) keeps its
            // entry, without the metric, so it is counted as unfinished
            let Some(run) = r["run"].as_u64() else {
                continue;
            };
            let v = r["kernel"].as_f64();
            let i = match runs.iter().position(|x| x.0 == run) {
                Some(i) => i,
                None => {
                    runs.push((run, None, serde_json::Map::new()));
                    runs.len() - 1
                }
            };
            if let Some(s) = r["seed"].as_u64() {
                runs[i].1 = Some(s);
            }
            if let Some(v) = v {
                runs[i].2.insert((*m).to_string(), json!(v));
            }
        }
    }
    runs.sort_by_key(|x| x.0);
    json!({"per_run": runs.into_iter().map(|(run, seed, m)| {
        let mut e = json!({"run": run, "metrics": m});
        if let Some(s) = seed {
            e["seed"] = json!(s);
        }
        e
    }).collect::<Vec<_>>()})
}

/// One re-judged cell entry: the cell's current identity, the saved status,
/// and for a cell that ran the comparison with the simulated point `sim`
/// and, when the kernel ran it with a substitution ([`substituted`]), with
/// the like-for-like point `like` ([`super::like::judge_cell`]).
pub fn rejudge_cell(c: &Cell, e: &Value, sim: Option<&Value>, like: Option<&Value>) -> Value {
    let mut out = super::kernel::cell_entry(c);
    let status = e["status"].as_str().unwrap_or("not run");
    out["status"] = status.into();
    for k in ["reason", "differs", "dir"] {
        if let Some(v) = e.get(k) {
            out[k] = v.clone();
        }
    }
    if status != "ran" {
        return out;
    }
    let subs = substituted(c, e);
    if subs.as_array().is_some_and(|a| !a.is_empty()) {
        out["substituted"] = subs;
    }
    let metrics = metrics_of(&c.point.scenario);
    let Some(sim) = sim else {
        out["verdict"] = super::kernel::NOT_CHECKABLE.into();
        out["reason"] = "summary.json of the simulated runs missing".into();
        return out;
    };
    let rows_of = |side: &Value| -> Vec<Value> {
        // metric by metric: a file written before every kernel run was
        // saved lacks a run in one metric's list that another metric
        // lists (its simulated run finished there), and the lacking run
        // is not saved, not a kernel run that did not finish
        let mut rows: Vec<Value> = metrics
            .iter()
            .flat_map(|m| compare_cell(&[m], side, &kernel_point(e, &[m])).0)
            .collect();
        // the kernel's median over all its runs, as the live pass saw them
        for r in rows.iter_mut() {
            if let Some((_, saved)) = metric_row(e, r["metric"].as_str().unwrap_or("")) {
                r["kernel_all"] = saved["kernel_all"].clone();
                let n = not_saved(saved);
                if n > 0 {
                    let runs = r["runs"].as_array().map_or(0, |a| a.len());
                    if r["unfinished"].is_null() {
                        r["unfinished"] = json!({"kernel_runs": runs, "sim": [], "kernel": []});
                    }
                    r["unfinished"]["not_saved"] = n.into();
                }
            }
        }
        rows
    };
    let like = out.get("substituted").map(|_| {
        like.cloned()
            .ok_or_else(|| "its summary.json is missing".to_string())
    });
    super::like::judge_cell(&mut out, sim, like, &rows_of);
    out
}

/// What the kernel ran in place of the cell's settings: the saved entry's
/// `substituted` (files from 2026-11-27's like-for-like change on), else
/// the emulator's substitutions for the cell today (older files: the
/// emulator has always run minrtt/default with the kernel's scheduler).
pub fn substituted(c: &Cell, e: &Value) -> Value {
    match e.get("substituted") {
        Some(v) => v.clone(),
        None => super::like::to_json(&c.subs),
    }
}

/// The cells of `saved` that ran with a substitution, each with its
/// substitutions and the runs its like-for-like simulation needs.
pub fn like_todo<'a>(saved: &Saved, cells: &'a [Cell]) -> Vec<super::like::Todo<'a>> {
    cells
        .iter()
        .filter_map(|c| {
            let (_, e) = saved.entry(c)?;
            if e["status"].as_str() != Some("ran") {
                return None;
            }
            let subs = substituted(c, e);
            if subs.as_array().is_none_or(|a| a.is_empty()) {
                return None;
            }
            let runs = super::like::runs_of(&kernel_point(e, &metrics_of(&c.point.scenario)));
            // every simulated run of the sweep, not only the kernel's run
            // indices: the decision compares distributions (validate::shift)
            (runs > 0).then_some(super::like::Todo {
                cell: c,
                subs,
                runs: runs.max(c.sim_runs),
            })
        })
        .collect()
}

/// The re-judged `kernel.json`: every cell of the sweep judged against the
/// simulated runs under `DIR/runs`, the saved file's run count and wall
/// time kept, and where it came from (`rejudged_from`).
pub fn manifest(saved: &Saved, cells: &[Cell], out: &Path) -> Value {
    let mut summaries = SummaryCache::default();
    let mut v = Vec::new();
    for c in cells {
        let sim = summaries
            .get(out, &c.key)
            .and_then(|s| point_of(s, &c.point.id));
        let e = saved
            .entry(c)
            .map(|(_, e)| e.clone())
            .unwrap_or(Value::Null);
        let like = super::like::point(out, c);
        v.push(rejudge_cell(c, &e, sim.as_ref(), like.as_ref()));
    }
    let runs = saved.json["kernel_runs"].as_u64().unwrap_or(0) as u32;
    let wall = saved.json["kernel_wall_s"].as_f64().unwrap_or(0.0);
    let mut m = header(runs, wall);
    m["rejudged_from"] = saved.sources().join(" + ").into();
    m["rejudged"] = "the kernel values of rejudged_from judged against this directory's simulated \
                     runs (reproduce --kernel-from); kernel_runs and kernel_wall_s are that pass's"
        .into();
    if !saved.has_seeds() {
        m["rejudged_seeds"] = "the saved file records no per-run seeds: its kernel runs are taken \
                               to have the seeds of the simulated runs with the same index"
            .into();
    }
    m["cells"] = v.into();
    m
}

#[cfg(test)]
mod tests {
    use super::super::kernel::{self, Outcome};
    use super::super::like;
    use super::*;

    const KEYS: [&str; 2] = ["seed004/normal", "seed004/subflows"];

    /// seed 004's `normal` (TCP on each path; MPTCP with coupled congestion
    /// controls, refused) and `subflows` (MPTCP cubic, judged by goodput and
    /// share) experiments as the reproduce pass plans them, 3 simulated runs
    /// per point.
    fn cells() -> Vec<Cell> {
        let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let sweeps: Vec<(String, String, mptlab_scenario::Sweep)> = KEYS
            .iter()
            .map(|k| {
                let f = lib.join(format!("{k}.toml"));
                let sw = mptlab_scenario::Sweep::from_file(&f, &[], Some(3)).unwrap();
                (k.to_string(), "004".to_string(), sw)
            })
            .collect();
        kernel::cells(&sweeps, &[])
    }

    /// The simulated runs of both experiments under `out`, and the same
    /// values as the like-for-like runs of the cells the kernel runs with a
    /// substitution (so their verdicts are those against `sim`).
    fn write_sim(out: &Path, sim: &Value) {
        write_sim_like(out, sim, sim);
    }

    /// The simulated runs with the seed's settings (`sim`) and with the
    /// kernel's (`like`, for the cells with a substitution).
    fn write_sim_like(out: &Path, sim: &Value, like: &Value) {
        for k in KEYS {
            write(&out.join("runs").join(k).join("summary.json"), sim);
        }
        for c in cells().iter().filter(|c| !c.subs.is_empty()) {
            write(&like::dir(out, c).join("summary.json"), like);
        }
    }

    /// The first cell the kernel ran that is judged by two metrics.
    fn mptcp(cells: &[Cell]) -> usize {
        cells
            .iter()
            .position(|c| c.runnable.is_ok() && kernel::metrics_of(&c.point.scenario).len() == 2)
            .unwrap()
    }

    fn tmp(name: &str) -> crate::scratch::Scratch {
        crate::scratch::Scratch::new(&format!("kfrom-{name}"))
    }

    /// A `summary.json` of every cell's point with `runs` runs: goodput
    /// `base + point index + run / 10`, share of path 2 `share + run / 100`,
    /// the point's own run seeds.
    fn summary(cells: &[Cell], runs: u32, base: f64, share: f64) -> Value {
        json!({"points": cells.iter().enumerate().map(|(i, c)| json!({
            "point": c.point.id,
            "per_run": (0..runs).map(|r| json!({
                "run": r,
                "seed": c.point.scenario.run_seed(r),
                "metrics": {
                    "fg_throughput_mbit": base + i as f64 + r as f64 / 10.0,
                    "fg_share_path2": share + r as f64 / 100.0,
                },
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>()})
    }

    fn write(p: &Path, v: &Value) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_vec(v).unwrap()).unwrap();
    }

    /// A live pass's DIR: the simulated runs and, per cell, the kernel's
    /// store summary (2 kernel runs); returns its kernel.json.
    fn live(out: &Path, cells: &[Cell], sim: &Value, ker: &Value) -> Value {
        live_like(out, cells, sim, sim, ker)
    }

    /// [`live`] with other like-for-like runs than `sim`.
    fn live_like(out: &Path, cells: &[Cell], sim: &Value, like: &Value, ker: &Value) -> Value {
        write_sim_like(out, sim, like);
        for c in cells {
            let d = out.join("kernel").join(&c.key).join(&c.point.id);
            write(&d.join("summary.json"), ker);
        }
        let outcomes: Vec<(String, Outcome)> = cells
            .iter()
            .filter(|c| c.runnable.is_ok())
            .map(|c| (c.name(), Outcome::Ran))
            .collect();
        kernel::manifest(cells, &outcomes, out, 2, 12.5)
    }

    /// A second `--kernel-only` pass into the same DIR: the cells it left
    /// out but an earlier pass ran are judged from their stored kernel runs
    /// (status `ran`, the same entry as when selected), not marked skipped;
    /// a left-out cell with no stored runs is skipped.
    #[test]
    fn a_cell_left_out_by_kernel_only_keeps_an_earlier_pass_s_runs() {
        let cells = cells();
        let ker = summary(&cells, 2, 10.5, 0.40);
        let out = tmp("passes");
        let all = live(&out, &cells, &summary(&cells, 3, 10.0, 0.41), &ker);
        // the second pass selects only the first runnable cell
        let first = cells.iter().position(|c| c.runnable.is_ok()).unwrap();
        let mut second: Vec<Cell> = cells.clone();
        for (i, c) in second.iter_mut().enumerate() {
            c.selected = i == first;
        }
        let outcomes = vec![(second[first].name(), Outcome::Ran)];
        let m = kernel::manifest(&second, &outcomes, &out, 2, 12.5);
        assert_eq!(m["cells"], all["cells"]);
        // without the earlier pass's store, a left-out cell is skipped
        let other = cells
            .iter()
            .rposition(|c| c.runnable.is_ok())
            .filter(|&i| i != first)
            .unwrap();
        std::fs::remove_dir_all(
            out.join("kernel")
                .join(&cells[other].key)
                .join(&cells[other].point.id),
        )
        .unwrap();
        let m = kernel::manifest(&second, &outcomes, &out, 2, 12.5);
        assert_eq!(m["cells"][other]["status"], "skipped");
        assert_eq!(m["cells"][first]["status"], "ran");
    }

    /// `--until-decided`'s batches into a cell's store: runs `from..to`
    /// are made by the driver (here the simulator standing in for the
    /// kernel), a run already on disk (an interrupted batch) is read back,
    /// not made again, and `finish_runs` merges them all into the store's
    /// summary, which a live pass's kernel.json judges.
    #[test]
    fn batches_add_runs_to_a_cell_s_store_and_resume() {
        use crate::driver::Simulate;
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        let cells = cells();
        let c = cells.iter().find(|c| c.runnable.is_ok()).unwrap();
        let out = tmp("batches");
        let made = AtomicU32::new(0);
        let sim = |s: &mptlab_scenario::Scenario, r: u32| {
            made.fetch_add(1, Relaxed);
            crate::driver::Driver::run_once(&Simulate, s, r)
        };
        let (a, err) = kernel::run_more(c, &out, (0, 2), &sim, &|_| {});
        assert_eq!((a.len(), err), (2, None));
        let (b, err) = kernel::run_more(c, &out, (2, 4), &sim, &|_| {});
        assert_eq!((b.len(), err), (2, None));
        assert_eq!(made.load(Relaxed), 4);
        // again from 2 (a resumed batch): runs 2 and 3 read back, 4 made
        let (again, err) = kernel::run_more(c, &out, (2, 5), &sim, &|_| {});
        assert_eq!((again.len(), err), (3, None));
        assert_eq!(made.load(Relaxed), 5);
        assert_eq!(again[..2], b[..], "read back as made");
        kernel::finish_runs(c, &out, 5).unwrap();
        let s: Value = serde_json::from_slice(
            &std::fs::read(
                out.join("kernel")
                    .join(&c.key)
                    .join(&c.point.id)
                    .join("summary.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let p = kernel::point_of(&s, &c.point.id).unwrap();
        let runs: Vec<u64> = p["per_run"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["run"].as_u64().unwrap())
            .collect();
        assert_eq!(runs, vec![0, 1, 2, 3, 4]);
        assert_eq!(p["per_run"][4]["metrics"], again[2]["metrics"]);
    }

    /// `--kernel-from F --until-decided`: a 2-run pass with the third
    /// kernel run appended re-judges exactly as a live pass that ran all
    /// three; `kernel_runs` and the wall time follow.
    #[test]
    fn appended_runs_rejudge_as_a_pass_that_ran_them_all() {
        let cells = cells();
        let sim = summary(&cells, 3, 10.0, 0.41);
        let three = live(&tmp("app3"), &cells, &sim, &summary(&cells, 3, 10.5, 0.40));
        let out = tmp("app2");
        let two = live(&out, &cells, &sim, &summary(&cells, 2, 10.5, 0.40));
        assert_ne!(two["cells"], three["cells"]);
        write(&out.join("kernel.json"), &two);
        let mut saved = Saved::load(&out).unwrap();
        let ker3 = summary(&cells, 3, 10.5, 0.40);
        for c in cells.iter().filter(|c| c.runnable.is_ok()) {
            let p = kernel::point_of(&ker3, &c.point.id).unwrap();
            saved.append(c, &p["per_run"].as_array().unwrap()[2..], 1.5);
        }
        saved.check(&cells).unwrap();
        let m = manifest(&saved, &cells, &out);
        assert_eq!(m["cells"], three["cells"]);
        assert_eq!(m["kernel_runs"], 3);
        assert_eq!(m["kernel_wall_s"], 12.5 + 4.0 * 1.5);
    }

    #[test]
    fn rejudged_file_gives_the_live_verdicts() {
        let cells = cells();
        // 2 + 2 cells the kernel runs, 4 it refuses (carried over as such)
        assert_eq!(cells.iter().filter(|c| c.runnable.is_ok()).count(), 4);
        assert!(cells.iter().any(|c| c.runnable.is_err()));
        mptcp(&cells);
        let ker = summary(&cells, 2, 10.5, 0.40);
        // the kernel's values, judged live against a simulator 10.0 + i
        let out = tmp("live");
        let before = live(&out, &cells, &summary(&cells, 3, 10.0, 0.41), &ker);
        // ... and against a changed simulator (goodput 25 % higher, shares 10
        // points lower): the live pass over the same kernel data
        let out2 = tmp("live2");
        let changed = summary(&cells, 3, 13.0, 0.31);
        let after = live(&out2, &cells, &changed, &ker);
        assert_ne!(before["cells"], after["cells"]);
        // re-judging the first pass's file against the changed simulator
        let f = out.join("kernel.json");
        write(&f, &before);
        let saved = Saved::load(&out).unwrap();
        assert!(saved.has_seeds());
        saved.check(&cells).unwrap();
        let dir = tmp("rejudge");
        write_sim(&dir, &changed);
        let m = manifest(&saved, &cells, &dir);
        // every cell entry the same as the live pass's, verdicts included
        assert_eq!(m["cells"], after["cells"]);
        let verdicts: Vec<&str> = m["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["verdict"].as_str())
            .collect();
        assert_eq!(verdicts.len(), 4);
        assert!(verdicts.contains(&"disagree"), "{verdicts:?}");
        assert_eq!(m["kernel_runs"], 2);
        assert_eq!(m["kernel_wall_s"], 12.5);
        assert_eq!(m["rejudged_from"], f.display().to_string());
        // against the unchanged simulator it gives the first verdicts back
        let dir0 = tmp("rejudge0");
        write_sim(&dir0, &summary(&cells, 3, 10.0, 0.41));
        assert_eq!(manifest(&saved, &cells, &dir0)["cells"], before["cells"]);
        // a file without per-run seeds (written before they were saved)
        // pairs by index and gives the same verdicts
        let mut old = before.clone();
        for c in old["cells"].as_array_mut().unwrap() {
            for m in c["metrics"].as_array_mut().into_iter().flatten() {
                for r in m["runs"].as_array_mut().unwrap() {
                    r.as_object_mut().unwrap().remove("seed");
                }
            }
        }
        let old = Saved {
            path: f.clone(),
            json: old,
        };
        assert!(!old.has_seeds());
        old.check(&cells).unwrap();
        let mo = manifest(&old, &cells, &dir);
        for (a, b) in mo["cells"]
            .as_array()
            .unwrap()
            .iter()
            .zip(after["cells"].as_array().unwrap())
        {
            assert_eq!(a["verdict"], b["verdict"]);
            for (x, y) in a["metrics"]
                .as_array()
                .into_iter()
                .flatten()
                .zip(b["metrics"].as_array().into_iter().flatten())
            {
                assert_eq!(
                    (&x["sim"], &x["kernel"], &x["verdict"]),
                    (&y["sim"], &y["kernel"], &y["verdict"])
                );
            }
        }
        for d in [out, out2, dir, dir0] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    #[test]
    fn a_file_that_does_not_match_the_sweep_is_refused() {
        let cells = cells();
        let out = tmp("refuse");
        let good = live(
            &out,
            &cells,
            &summary(&cells, 3, 10.0, 0.4),
            &summary(&cells, 2, 10.0, 0.4),
        );
        let f = out.join("kernel.json");
        let refused = |edit: &dyn Fn(&mut Value), key: &str| {
            let mut j = good.clone();
            edit(&mut j);
            let e = Saved {
                path: f.clone(),
                json: j,
            }
            .check(&cells)
            .unwrap_err();
            assert!(
                e.starts_with(&format!("{}: key `{key}`", f.display())),
                "{e}"
            );
        };
        Saved {
            path: f.clone(),
            json: good.clone(),
        }
        .check(&cells)
        .unwrap();
        // a missing cell
        refused(
            &|j| {
                j["cells"].as_array_mut().unwrap().remove(1);
            },
            "cells",
        );
        // another seed's file
        refused(&|j| j["cells"][0]["seed"] = "002".into(), "cells[0].seed");
        // a point this sweep does not have
        refused(
            &|j| j["cells"][2]["point_id"] = "0123456789ab".into(),
            "cells[2].point_id",
        );
        // a run seed that is not this sweep's run seed
        refused(
            &|j| j["cells"][0]["metrics"][0]["runs"][1]["seed"] = 7.into(),
            "cells[0].metrics[0].runs[1].seed",
        );
        // a kernel run index beyond the simulated runs (3 per point) with
        // another run's seed
        refused(
            &|j| j["cells"][0]["metrics"][0]["runs"][1]["run"] = 3.into(),
            "cells[0].metrics[0].runs[1].seed",
        );
        // ... and without a seed to match it by
        refused(
            &|j| {
                let r = &mut j["cells"][0]["metrics"][0]["runs"][1];
                r["run"] = 3.into();
                r.as_object_mut().unwrap().remove("seed");
            },
            "cells[0].metrics[0].runs[1].run",
        );
        // more saved kernel values than the kernel's median is over
        refused(
            &|j| {
                let runs = j["cells"][0]["metrics"][0]["runs"].as_array_mut().unwrap();
                let r = runs[0].clone();
                runs.push(r);
            },
            "cells[0].metrics[0].runs",
        );
        // a kernel value that is neither a number nor null
        refused(
            &|j| j["cells"][0]["metrics"][0]["runs"][0]["kernel"] = "fast".into(),
            "cells[0].metrics[0].runs[0].kernel",
        );
        // a judged metric missing (the MPTCP cell's share)
        let mp = mptcp(&cells);
        refused(
            &|j| {
                j["cells"][mp]["metrics"].as_array_mut().unwrap().pop();
            },
            &format!("cells[{mp}].metrics"),
        );
        // not a kernel.json at all
        write(&out.join("x.json"), &json!({"points": []}));
        let e = Saved::load(&out.join("x.json")).err().unwrap();
        assert!(e.contains("x.json: key `cells`"), "{e}");
        let _ = std::fs::remove_dir_all(out);
    }

    /// A live pass with more kernel runs than simulated ones (`--kernel-runs
    /// 4 --runs 3`) judges the paired runs and names the kernel's run 3 as
    /// unpaired; `--kernel-from` of its own kernel.json with the same
    /// `--runs` re-judges it the same way. (It refused the file, naming run
    /// 3's index, until session 23.)
    #[test]
    fn more_kernel_runs_than_simulated_ones_rejudge_as_the_live_pass() {
        let cells = cells();
        let sim = summary(&cells, 3, 10.0, 0.41);
        let out = tmp("more-kernel");
        let live_m = live(&out, &cells, &sim, &summary(&cells, 4, 10.5, 0.40));
        let i = mptcp(&cells);
        let row = &live_m["cells"][i]["metrics"][0];
        assert_eq!(row["runs"].as_array().unwrap().len(), 4);
        assert_eq!(row["runs"][3]["sim"], Value::Null);
        assert_eq!(
            (row["sim"]["n"].as_u64(), row["kernel_all"]["n"].as_u64()),
            (Some(3), Some(4))
        );
        let f = out.join("kernel.json");
        write(&f, &live_m);
        let saved = Saved::load(&f).unwrap();
        saved.check(&cells).unwrap();
        let dir = tmp("more-kernel-judge");
        write_sim(&dir, &sim);
        let m = manifest(&saved, &cells, &dir);
        assert_eq!(m["cells"], live_m["cells"]);
        let _ = std::fs::remove_dir_all(out);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Issue 15 (seed 000's huffpost WLAN-3G path 2 cell): a simulated run
    /// that did not finish leaves its kernel run unpaired. The live pass
    /// saves that kernel run too, `--kernel-from` accepts the file, and the
    /// cell says how many runs of each side did not finish, judged on the
    /// runs both finished; a later simulator that finishes the run pairs it.
    #[test]
    fn a_file_with_an_unpaired_kernel_run_is_accepted_and_says_so() {
        let cells = cells();
        let i = mptcp(&cells);
        // simulated run 1 of cell i did not finish (no goodput); the
        // kernel's run 1 did
        let mut sim = summary(&cells, 3, 10.0, 0.41);
        sim["points"][i]["per_run"][1]["metrics"]
            .as_object_mut()
            .unwrap()
            .remove("fg_throughput_mbit");
        let out = tmp("unpaired");
        let live_m = live(&out, &cells, &sim, &summary(&cells, 2, 10.5, 0.40));
        let c = &live_m["cells"][i];
        let row = &c["metrics"][0];
        assert_eq!(row["metric"], "fg_throughput_mbit");
        // both kernel runs saved per run, run 1 with the marker
        assert_eq!(row["runs"].as_array().unwrap().len(), 2);
        assert_eq!(row["runs"][1]["sim"], Value::Null);
        assert_eq!(row["runs"][1]["sim_unfinished"], true);
        assert_eq!(row["runs"][1]["kernel"], 10.5 + i as f64 + 0.1);
        assert_eq!(
            (row["sim"]["n"].as_u64(), row["kernel_all"]["n"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(c["unfinished"]["sim"], json!([1]));
        let note = c["unfinished"]["note"].as_str().unwrap();
        assert!(
            note.starts_with(
                "1 of 2 simulated run(s) did not finish (run 1), 0 of 2 kernel run(s)"
            ),
            "{note}"
        );
        // the other cells finished every run: no `unfinished`
        assert!(live_m["cells"][mptcp_other(&cells, i)]
            .get("unfinished")
            .is_none());
        // accepted (today's code refused it: 1 paired run, kernel_all.n 2)
        let f = out.join("kernel.json");
        write(&f, &live_m);
        let saved = Saved::load(&f).unwrap();
        saved.check(&cells).unwrap();
        let dir = tmp("unpaired-judge");
        write_sim(&dir, &sim);
        let m = manifest(&saved, &cells, &dir);
        assert_eq!(m["cells"], live_m["cells"]);
        assert!(
            kernel::unfinished_lines(&m).contains("1 of 2 simulated run(s) did not finish (run 1)")
        );
        // a simulator whose run 1 finishes pairs the saved kernel run 1
        let dir2 = tmp("unpaired-judge2");
        write_sim(&dir2, &summary(&cells, 3, 10.0, 0.41));
        let m2 = manifest(&saved, &cells, &dir2);
        assert_eq!(m2["cells"][i]["metrics"][0]["sim"]["n"], 2);
        assert!(m2["cells"][i].get("unfinished").is_none());
        // an old file (paired runs only, before every kernel run was saved)
        // still reads: the kernel run it lacks is reported, not refused
        let mut old = live_m.clone();
        for c in old["cells"].as_array_mut().unwrap() {
            for m in c["metrics"].as_array_mut().into_iter().flatten() {
                let runs = m["runs"].as_array_mut().unwrap();
                runs.retain(|r| r.get("sim_unfinished").is_none());
                for r in runs.iter_mut() {
                    r.as_object_mut().unwrap().remove("seed");
                }
            }
            c.as_object_mut().unwrap().remove("unfinished");
        }
        let old = Saved {
            path: f.clone(),
            json: old,
        };
        old.check(&cells).unwrap();
        let mo = manifest(&old, &cells, &dir);
        let co = &mo["cells"][i];
        assert_eq!(co["verdict"], c["verdict"]);
        assert_eq!(co["metrics"][0]["sim"], row["sim"]);
        assert_eq!(co["unfinished"]["not_saved"], 1);
        let note = co["unfinished"]["note"].as_str().unwrap();
        assert!(
            note.starts_with("1 of 2 simulated run(s) did not finish, 0 of 2 kernel run(s)"),
            "{note}"
        );
        // a kernel run that did not finish is saved with a null value
        let mut ker = summary(&cells, 2, 10.5, 0.40);
        ker["points"][i]["per_run"][0]["metrics"]
            .as_object_mut()
            .unwrap()
            .remove("fg_throughput_mbit");
        let out3 = tmp("unpaired-kernel");
        let k3 = live(&out3, &cells, &summary(&cells, 3, 10.0, 0.41), &ker);
        let r0 = &k3["cells"][i]["metrics"][0]["runs"][0];
        assert_eq!(
            (&r0["kernel"], &r0["kernel_unfinished"]),
            (&Value::Null, &json!(true))
        );
        assert_eq!(k3["cells"][i]["unfinished"]["kernel"], json!([0]));
        let s3 = Saved {
            path: f.clone(),
            json: k3.clone(),
        };
        s3.check(&cells).unwrap();
        let dir3 = tmp("unpaired-kernel-judge");
        write_sim(&dir3, &summary(&cells, 3, 10.0, 0.41));
        assert_eq!(manifest(&s3, &cells, &dir3)["cells"], k3["cells"]);
        for d in [out, dir, dir2, out3, dir3] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// Issue 15 (like13): a cell the kernel ran with a substitution (seed
    /// 004's `subflows` cells: minrtt, run with the kernel's scheduler) is
    /// judged against the like-for-like runs, the seed's settings beside it
    /// with their ratio; a cell without one (TCP) is judged exactly as
    /// before; a re-judged file gives the live entries, and an old file
    /// without `substituted` the same verdicts.
    #[test]
    fn a_substituted_cell_is_judged_like_for_like_and_one_without_as_before() {
        let cells = cells();
        let sub = mptcp(&cells);
        assert_eq!(
            like::text(&like::to_json(&cells[sub].subs)),
            "transport.mptcp.scheduler = minrtt -> upstream"
        );
        let tcp = cells
            .iter()
            .position(|c| c.runnable.is_ok() && c.subs.is_empty())
            .unwrap();
        // kernel 10.5 + i; seed's settings 13.0 + i (x0.81 off); kernel's 10.0 + i
        let ker = summary(&cells, 2, 10.5, 0.40);
        let (seed, like_sim) = (
            summary(&cells, 3, 13.0, 0.41),
            summary(&cells, 3, 10.0, 0.41),
        );
        let out = tmp("like-live");
        let m = live_like(&out, &cells, &seed, &like_sim, &ker);
        let c = &m["cells"][sub];
        assert_eq!(c["substituted"][0]["kernel"], "upstream");
        assert_eq!(c["verdict"], "agree");
        let i = sub as f64;
        let row = &c["metrics"][0];
        assert_eq!(row["metric"], "fg_throughput_mbit");
        // judged: the like-for-like median of runs 0-1 (10.05 + i)
        assert!((row["sim"]["median"].as_f64().unwrap() - (10.05 + i)).abs() < 1e-9);
        let mech = &c["seed_mechanism"];
        assert_eq!(mech["verdict"], "disagree");
        let mr = &mech["metrics"][0];
        assert!((mr["sim"]["median"].as_f64().unwrap() - (13.05 + i)).abs() < 1e-9);
        assert!(
            (mr["ratio"].as_f64().unwrap() - (13.05 + i) / (10.05 + i)).abs() < 1e-9,
            "{mr}"
        );
        assert_eq!(mr["kernel_verdict"], "FAIL");
        // the cell without a substitution: as before like for like, against
        // the seed's settings (13.0 + i: disagree), no `seed_mechanism`
        let (before, _) = kernel::compare_cell(
            &kernel::metrics_of(&cells[tcp].point.scenario),
            &super::super::kernel::point_of(&seed, &cells[tcp].point.id).unwrap(),
            &super::super::kernel::point_of(&ker, &cells[tcp].point.id).unwrap(),
        );
        let t = &m["cells"][tcp];
        assert_eq!(t["metrics"], Value::from(before));
        assert_eq!(t["verdict"], "disagree");
        assert!(t.get("seed_mechanism").is_none() && t.get("substituted").is_none());
        // re-judged from the file: the live entries
        write(&out.join("kernel.json"), &m);
        let saved = Saved::load(&out).unwrap();
        saved.check(&cells).unwrap();
        let todo = like_todo(&saved, &cells);
        // like-for-like runs: every simulated run of the sweep (the
        // decision compares distributions), at least the kernel's two
        assert!(todo
            .iter()
            .all(|t| !t.cell.subs.is_empty() && t.runs == t.cell.sim_runs.max(2)));
        assert_eq!(
            todo.len(),
            cells
                .iter()
                .filter(|c| c.runnable.is_ok() && !c.subs.is_empty())
                .count()
        );
        let dir = tmp("like-rejudge");
        write_sim_like(&dir, &seed, &like_sim);
        assert_eq!(manifest(&saved, &cells, &dir)["cells"], m["cells"]);
        // an old file without `substituted`: the emulator's substitutions
        let mut old = m.clone();
        for c in old["cells"].as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("substituted");
        }
        let old = Saved {
            path: out.join("kernel.json"),
            json: old,
        };
        assert_eq!(manifest(&old, &cells, &dir)["cells"], m["cells"]);
        // the like-for-like runs missing: not checkable, said
        let bare = tmp("like-missing");
        write(&bare.join("runs").join(KEYS[1]).join("summary.json"), &seed);
        write(&bare.join("runs").join(KEYS[0]).join("summary.json"), &seed);
        let mm = manifest(&saved, &cells, &bare);
        assert_eq!(mm["cells"][sub]["verdict"], "not checkable");
        assert!(mm["cells"][sub]["reason"]
            .as_str()
            .unwrap()
            .starts_with("no like-for-like simulated runs"));
        assert_eq!(mm["cells"][tcp], m["cells"][tcp]);
        // the verdict line says what was compared
        let line = like::summary(&m);
        assert!(
            line.contains(
                "cells ran with a substitution: transport.mptcp.scheduler = minrtt -> upstream"
            ),
            "{line}"
        );
        for d in [out, dir, bare] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// Another cell the kernel ran than `i`.
    fn mptcp_other(cells: &[Cell], i: usize) -> usize {
        cells
            .iter()
            .enumerate()
            .position(|(k, c)| k != i && c.runnable.is_ok())
            .unwrap()
    }

    /// `--kernel-from A --kernel-from B`: the cell B's pass ran (the others
    /// skipped there) is judged on B's kernel runs, every other cell on A's,
    /// and the result names both files.
    #[test]
    fn a_later_pass_replaces_the_cells_it_ran() {
        let cells = cells();
        let sim = summary(&cells, 3, 10.0, 0.41);
        let da = tmp("overlay-a");
        let a = live(&da, &cells, &sim, &summary(&cells, 2, 10.5, 0.40));
        let db = tmp("overlay-b");
        let mut b = live(&db, &cells, &sim, &summary(&cells, 2, 14.0, 0.60));
        let i = mptcp(&cells);
        for (k, c) in b["cells"].as_array_mut().unwrap().iter_mut().enumerate() {
            if k != i && c["status"] == "ran" {
                c["status"] = "skipped".into();
            }
        }
        let (fa, fb) = (da.join("kernel.json"), db.join("kernel.json"));
        write(&fa, &a);
        write(&fb, &b);
        let merged = Saved::load(&fa).unwrap().overlay(Saved::load(&fb).unwrap());
        merged.check(&cells).unwrap();
        let dir = tmp("overlay-judge");
        write_sim(&dir, &sim);
        let m = manifest(&merged, &cells, &dir);
        let only_a = manifest(&Saved::load(&fa).unwrap(), &cells, &dir);
        let only_b = manifest(&Saved::load(&fb).unwrap(), &cells, &dir);
        for (k, c) in m["cells"].as_array().unwrap().iter().enumerate() {
            let want = if k == i { &only_b } else { &only_a };
            assert_eq!(c, &want["cells"][k], "cell {k}");
        }
        // B's kernel goodput (14 + i) is not A's (10.5 + i): the verdicts differ
        assert_ne!(m["cells"][i], only_a["cells"][i]);
        assert_eq!(m["cells"][i]["verdict"], "disagree");
        assert_eq!(
            m["rejudged_from"],
            format!("{} + {}", fa.display(), fb.display())
        );
        assert_eq!(m["kernel_runs"], 2);
        assert_eq!(m["kernel_wall_s"], 25.0);
        // the other order: A's entries replace B's ran cell
        let back = Saved::load(&fb).unwrap().overlay(Saved::load(&fa).unwrap());
        assert_eq!(manifest(&back, &cells, &dir)["cells"], only_a["cells"]);
        for d in [da, db, dir] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// Two passes over different experiments (`--only`): A has no entry for
    /// one experiment's cells, B has them all, refused ones included. The
    /// merged file covers the sweep; the cells come from the pass that has
    /// them, and a refused entry of B does not replace a ran one of A.
    #[test]
    fn passes_over_different_experiments_cover_the_refused_cells_too() {
        let cells = cells();
        let sim = summary(&cells, 3, 10.0, 0.41);
        let da = tmp("cover-a");
        let mut a = live(&da, &cells, &sim, &summary(&cells, 2, 10.5, 0.40));
        let db = tmp("cover-b");
        let b = live(&db, &cells, &sim, &summary(&cells, 2, 10.5, 0.40));
        // A's pass did not include the second experiment at all
        let gone = KEYS[1];
        let n = a["cells"].as_array().unwrap().len();
        a["cells"]
            .as_array_mut()
            .unwrap()
            .retain(|c| !c["experiment"].as_str().unwrap().ends_with(gone));
        let kept = a["cells"].as_array().unwrap().len();
        assert!(kept < n, "the fixture has cells of {gone}");
        let refused = b["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["experiment"].as_str().unwrap().ends_with(gone))
            .filter(|c| c["status"] != "ran")
            .count();
        assert!(refused > 0, "the fixture has refused cells of {gone}");
        let (fa, fb) = (da.join("kernel.json"), db.join("kernel.json"));
        write(&fa, &a);
        write(&fb, &b);
        assert!(Saved::load(&fa).unwrap().check(&cells).is_err());
        let merged = Saved::load(&fa).unwrap().overlay(Saved::load(&fb).unwrap());
        merged.check(&cells).unwrap();
        assert_eq!(merged.cells().len(), n);
        let dir = tmp("cover-judge");
        write_sim(&dir, &sim);
        let both = manifest(&Saved::load(&fb).unwrap(), &cells, &dir);
        let m = manifest(&merged, &cells, &dir);
        let key = |c: &Value| (c["experiment"].clone(), c["point_id"].clone());
        for c in both["cells"].as_array().unwrap() {
            let got = m["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| key(x) == key(c));
            assert_eq!(got, Some(c));
        }
        // B with one of A's ran cells marked refused leaves A's entry
        let i = (0..cells.len())
            .find(|&k| {
                a["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| key(x) == key(&b["cells"][k]) && x["status"] == "ran")
            })
            .unwrap();
        let mut b2 = b.clone();
        b2["cells"][i]["status"] = "refused".into();
        write(&fb, &b2);
        let merged = Saved::load(&fa).unwrap().overlay(Saved::load(&fb).unwrap());
        let want = &a["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| key(x) == key(&b["cells"][i]));
        let got = merged
            .cells()
            .iter()
            .find(|x| key(x) == key(&b["cells"][i]));
        assert_eq!(got, *want);
        for d in [da, db, dir] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
