//! Like for like: a kernel cell that ran with a substitution (a setting the
//! kernel cannot run as the scenario gives it, e.g. v0.9x minRTT run with
//! Linux 6.18's only scheduler: [`mptlab_emu::substitute`]) is judged
//! against the simulator run with the settings the kernel actually ran, on
//! the same run seeds; the simulator with the seed's own settings is shown
//! beside it as *the seed's mechanism*, with the ratio seed / like for like,
//! not as agreement. Two questions, kept apart: (a) does the simulator model
//! the kernel it ran against, (b) what does the seed's mechanism change.
//! A cell without a substitution is judged exactly as before.
//!
//! The like-for-like runs are simulated in the same pass, one single-point
//! store per cell under `DIR/like/<experiment>/<point-id>/` (resumable, as
//! the kernel's stores are), from the experiment's file with the
//! simulation's own overrides (`--quick`, `transport.hz`) plus the
//! substitutions, so the point, its id and its run seeds are the
//! simulated point's (`Scenario::run_seed` depends on `scenario.seed` only).
//! See docs/report.md, "like for like".

use super::kernel::{cell_judgement, cell_verdict, judge, Cell, MIN_RUNS, NOT_CHECKABLE};
use crate::driver::{Driver, Simulate};
use mptlab_emu::substitute::Substitution;
use mptlab_results::WriteOptions;
use mptlab_scenario::{Override, Sweep};
use mptlab_sweep::{finish, meta, Store};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The substitutions of a cell as kernel.json's `substituted` list.
pub fn to_json(subs: &[Substitution]) -> Value {
    subs.iter()
        .map(|s| json!({"key": s.key, "scenario": s.scenario, "kernel": s.kernel, "why": s.why}))
        .collect::<Vec<_>>()
        .into()
}

/// The `--set` overrides of a `substituted` list (key = the kernel's value).
fn overrides(subs: &Value) -> Vec<Override> {
    subs.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| {
            Some(Override {
                key: s["key"].as_str()?.to_string(),
                value: s["kernel"].as_str()?.to_string(),
            })
        })
        .collect()
}

/// `transport.mptcp.scheduler = minrtt -> upstream` for each substitution.
pub fn text(subs: &Value) -> String {
    let v: Vec<String> = subs
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            format!(
                "{} = {} -> {}",
                s["key"].as_str().unwrap_or("?"),
                s["scenario"].as_str().unwrap_or("?"),
                s["kernel"].as_str().unwrap_or("?")
            )
        })
        .collect();
    v.join(", ")
}

/// Where the cell's like-for-like runs are.
pub fn dir(out: &Path, c: &Cell) -> PathBuf {
    out.join("like").join(&c.key).join(&c.point.id)
}

/// The cell's like-for-like point (an entry of its store's `summary.json`
/// `points`), `None` before it was simulated.
pub fn point(out: &Path, c: &Cell) -> Option<Value> {
    let s = super::kernel::read_json(&dir(out, c).join("summary.json"))?;
    super::kernel::point_of(&s, &c.point.id)
}

/// The experiments' files and the overrides their simulation ran with
/// (`--quick`'s cut, `transport.hz`): per experiment key.
pub struct Inputs {
    pub files: Vec<(String, PathBuf, Vec<Override>)>,
    pub jobs: usize,
}

/// One cell to simulate like for like: its substitutions (kernel.json's
/// `substituted` list) and how many runs (runs 0..runs-1: the kernel's run
/// indices are below it).
pub struct Todo<'a> {
    pub cell: &'a Cell,
    pub subs: Value,
    pub runs: u32,
}

/// The runs a kernel point (`summary.json` point or one rebuilt from a
/// saved file) covers: its largest run index + 1.
pub fn runs_of(kernel: &Value) -> u32 {
    kernel["per_run"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["run"].as_u64())
        .max()
        .map_or(0, |r| r as u32 + 1)
}

/// The cell's point with the kernel's settings: the experiment's file
/// planned with the simulation's overrides and the substitutions, the point
/// with the cell's id; refused when the substituted point still differs
/// from what the kernel ran (a swept key overriding a substituted one).
fn substituted(inputs: &Inputs, t: &Todo) -> Result<Sweep, String> {
    let c = t.cell;
    let (_, file, set) = inputs
        .files
        .iter()
        .find(|(k, _, _)| *k == c.key)
        .ok_or_else(|| format!("{}: no scenario file planned", c.key))?;
    let mut set = set.clone();
    set.extend(overrides(&t.subs));
    let sw = crate::sweep::plan(file, &set, Some(t.runs))?;
    let mut p = sw
        .points
        .iter()
        .find(|p| p.id == c.point.id)
        .cloned()
        .ok_or_else(|| format!("{}: point {} not planned with {set:?}", c.key, c.point.id))?;
    let left = mptlab_emu::substitute::substitutions(&p.scenario);
    if !left.is_empty() {
        return Err(format!(
            "{}: the point keeps {} with the substitutions applied (a swept key?)",
            c.name(),
            left.iter().map(|s| s.text()).collect::<Vec<_>>().join(", ")
        ));
    }
    p.index = 0;
    Ok(Sweep {
        origin: sw.origin,
        keys: sw.keys,
        points: vec![p],
        runs: t.runs,
        has_sweep: true,
    })
}

/// Simulate every cell's like-for-like runs (those not on disk yet) on
/// `inputs.jobs` threads, then each store's `summary.json`. An error is the
/// cell's (its verdict says so), not the pass's: returned per cell name.
pub fn simulate(inputs: &Inputs, todo: &[Todo], out: &Path) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    let mut planned = Vec::new();
    for t in todo {
        let sweep = match substituted(inputs, t) {
            Ok(s) => s,
            Err(e) => {
                errors.push((t.cell.name(), e));
                continue;
            }
        };
        // derived runs: a store of other settings or run count is redone
        match Store::open(&dir(out, t.cell), &sweep, true) {
            Ok(store) => planned.push((t, sweep, store)),
            Err(e) => errors.push((t.cell.name(), e.to_string())),
        }
    }
    let work: Vec<(usize, u32)> = planned
        .iter()
        .enumerate()
        .flat_map(|(i, (_, _, st))| st.pending().into_iter().map(move |(_, r)| (i, r)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..inputs.jobs.clamp(1, work.len().max(1)) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(i, r)) = work.get(k) else { break };
                let (t, sweep, store) = &planned[i];
                let res = Simulate
                    .run_once(&sweep.points[0].scenario, r)
                    .and_then(|o| store.save(0, &o).map_err(|e| e.to_string()));
                if let Err(e) = res {
                    failed.lock().unwrap().push((t.cell.name(), e));
                }
            });
        }
    });
    errors.extend(failed.into_inner().unwrap());
    for (t, sweep, store) in &planned {
        if errors.iter().any(|(n, _)| *n == t.cell.name()) {
            continue;
        }
        let opts = WriteOptions {
            csv: false,
            parquet: false,
            meta: meta(sweep, env!("CARGO_PKG_VERSION")),
            extra_files: Vec::new(),
        };
        if let Err(e) = finish(sweep, store, &opts) {
            errors.push((t.cell.name(), e));
        }
    }
    errors
}

/// The judged part of a ran cell's kernel.json entry `e`: `metrics`,
/// `verdict` and `unfinished` from `rows_of(side)` (the comparison rows of
/// the kernel against a simulated point). Without substitutions (`like`
/// `None`) against the simulated point `sim`, as before like for like.
/// With them against the like-for-like point, and `seed_mechanism`: the
/// simulated point with the seed's settings beside it (its median over the
/// same runs, the ratio seed / like for like, and the kernel against it as
/// judged before, `kernel_*`), not judged as agreement. `Some(Err(why))`:
/// the like-for-like runs are missing; not checkable.
pub fn judge_cell(
    e: &mut Value,
    sim: &Value,
    like: Option<Result<Value, String>>,
    rows_of: &dyn Fn(&Value) -> Vec<Value>,
) {
    let seed_rows = rows_of(sim);
    let mut rows = match &like {
        None => seed_rows.clone(),
        Some(Ok(lp)) => rows_of(lp),
        Some(Err(_)) => Vec::new(),
    };
    // the rows' own `decision` by the cell's rule, on the rows as judged
    // (a re-judge replaces `kernel_all` after compare_cell)
    super::kernel::mark_unjudged(&mut rows);
    if like.is_some() {
        e["seed_mechanism"] = mechanism(&seed_rows, &rows);
    }
    if let Some(Err(why)) = &like {
        e["verdict"] = NOT_CHECKABLE.into();
        e["reason"] = format!("no like-for-like simulated runs: {why}").into();
        return;
    }
    if let Some(u) = super::kernel::unfinished_of(&rows) {
        e["unfinished"] = u;
    }
    let (verdict, why) = cell_judgement(&rows);
    e["verdict"] = verdict.into();
    // a re-judged entry keeps the saved cell's keys: an earlier reason
    // must not outlive the verdict it explained
    match why {
        Some(why) => e["reason"] = why.into(),
        None => {
            if let Some(o) = e.as_object_mut() {
                o.remove("reason");
            }
        }
    }
    let (decision, undecided) = crate::validate::shift::cell_decision(&rows, verdict);
    e["decision"] = decision.into();
    if !undecided.is_null() {
        e["undecided"] = undecided;
    }
    e["metrics"] = rows.into();
}

/// `seed_mechanism` of a substituted cell from the rows against the seed's
/// settings and against the kernel's (like for like).
fn mechanism(seed_rows: &[Value], like_rows: &[Value]) -> Value {
    let metrics: Vec<Value> = seed_rows
        .iter()
        .map(|s| {
            let m = s["metric"].as_str().unwrap_or("");
            let like = like_rows
                .iter()
                .find(|r| r["metric"] == s["metric"])
                .map_or(Value::Null, |r| r["sim"].clone());
            let (ratio, diff) = match (like["median"].as_f64(), s["sim"]["median"].as_f64()) {
                (Some(l), Some(x)) => {
                    let (r, d, _) = judge(m, l, x);
                    (r, d)
                }
                _ => (None, None),
            };
            json!({
                "metric": m,
                "sim": s["sim"],
                "like": like,
                "ratio": ratio,
                "diff": diff,
                "kernel_ratio": s["ratio"],
                "kernel_diff": s["diff"],
                "kernel_verdict": s["verdict"],
            })
        })
        .collect();
    json!({
        "what": "the simulator with the seed's own settings, the same runs: `ratio` (`diff` for shares) is \
                 the seed's settings over the kernel's (like for like), what the seed's mechanism changes; \
                 `kernel_*` compare the kernel with it, a different mechanism, so not agreement",
        "verdict": cell_verdict(seed_rows),
        "metrics": metrics,
    })
}

/// The verdict line of a kernel.json, saying what was compared: `N of M
/// cells agree like for like; K cells ran with a substitution: ...` with,
/// per substitution, how many of its cells agree like for like and how
/// many agreed with the seed's settings.
pub fn summary(m: &Value) -> String {
    let cells: Vec<&Value> = m["cells"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["status"] == "ran")
        .collect();
    if cells.is_empty() {
        // "0 of 0 cells agree" was a count over nothing (session 29); the
        // report's words (report/kernel.py `section`)
        return "no kernel verdict: not one cell ran on the kernel".into();
    }
    let agree = |c: &&&Value| c["verdict"] == "agree";
    let n_agree = cells.iter().filter(agree).count();
    let mut s = format!("{n_agree} of {} cells agree like for like", cells.len());
    // cells judged on no data, counted as report/kernel.py `_unjudged_clause` does
    let unjudged = cells
        .iter()
        .filter(|c| c["verdict"] == NOT_CHECKABLE || c["verdict"] == "no verdict")
        .count();
    if unjudged > 0 {
        s.push_str(&format!(
            ", {unjudged} {NOT_CHECKABLE} (fewer than {MIN_RUNS} paired runs, a side without values or no \
             compared metric: the reason beside each cell)"
        ));
    }
    let noise = decisions(&cells);
    let subst: Vec<&&Value> = cells
        .iter()
        .filter(|c| c["substituted"].as_array().is_some_and(|a| !a.is_empty()))
        .collect();
    if subst.is_empty() {
        s.push_str(" (no cell ran with a substitution)");
        s.push_str(&noise);
        return s;
    }
    s.push_str(&noise);
    // grouped by what was substituted
    let mut groups: Vec<(String, Vec<&Value>)> = Vec::new();
    for c in &subst {
        let t = text(&c["substituted"]);
        match groups.iter_mut().find(|(k, _)| *k == t) {
            Some(g) => g.1.push(c),
            None => groups.push((t, vec![c])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(t, cs)| {
            let like = cs.iter().filter(|c| c["verdict"] == "agree").count();
            // the kernel against the seed's settings: the same kernel runs,
            // so on fewer than MIN_RUNS of them not counted either
            // (report/kernel.py `_kernel_runs_ok`)
            let seed = cs
                .iter()
                .filter(|c| c["seed_mechanism"]["verdict"] == "agree" && kernel_runs_ok(c))
                .count();
            format!(
                "{t} ({} cells: {like} agree like for like; {seed} agree with the simulator at the seed's settings, \
                 the seed's mechanism, not agreement)",
                cs.len()
            )
        })
        .collect();
    s.push_str(&format!(
        "; {} cells ran with a substitution: {}; {} of {} cells without one agree",
        subst.len(),
        parts.join("; "),
        n_agree - subst.iter().filter(|c| c["verdict"] == "agree").count(),
        cells.len() - subst.len()
    ));
    s
}

/// Every compared metric of a cell entry has at least [`MIN_RUNS`] kernel
/// values (report/kernel.py `_kernel_runs_ok`).
fn kernel_runs_ok(c: &Value) -> bool {
    let ms = c["metrics"].as_array().map_or(&[][..], |a| a.as_slice());
    !ms.is_empty()
        && ms
            .iter()
            .all(|m| m["kernel"]["n"].as_u64().unwrap_or(0) >= MIN_RUNS)
}

/// The noise-aware clause of the verdict line from the cells' `decision`
/// ([`crate::validate::shift::clause`]); empty for a kernel.json written
/// before cells had one.
fn decisions(cells: &[&Value]) -> String {
    if !cells.iter().any(|c| c["decision"].is_string()) {
        return String::new();
    }
    // a cell the rule leaves not checkable is counted there only: its
    // noise decision (e.g. `undecided` on one kernel run) counted it twice,
    // "26 not checkable ...; 1 undecided" of 26 cells (session 29)
    let cells: Vec<&Value> = cells
        .iter()
        .copied()
        .filter(|c| c["verdict"] != NOT_CHECKABLE && c["verdict"] != "no verdict")
        .collect();
    let disagree = cells.iter().filter(|c| c["decision"] == "disagree").count();
    let more: Vec<Option<u64>> = cells
        .iter()
        .filter(|c| c["decision"] == "undecided")
        .map(|c| c["undecided"]["more_kernel_runs"].as_u64())
        .collect();
    crate::validate::shift::clause(disagree, &more)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_line_says_what_was_compared() {
        let sub = json!([{"key": "transport.mptcp.scheduler", "scenario": "minrtt", "kernel": "upstream"}]);
        let mech = |v: &str| json!({"verdict": v});
        let k3 = json!([{"kernel": {"n": 3}}]);
        let m = json!({"cells": [
            {"status": "ran", "verdict": "agree"},
            {"status": "ran", "verdict": "disagree"},
            {"status": "ran", "verdict": "agree", "substituted": sub, "seed_mechanism": mech("disagree")},
            {"status": "ran", "verdict": "agree", "substituted": sub, "seed_mechanism": mech("agree"), "metrics": k3},
            {"status": "ran", "verdict": "disagree", "substituted": sub, "seed_mechanism": mech("disagree")},
            // the seed's settings agreeing on one kernel run: not counted (report/kernel.py alike)
            {"status": "ran", "verdict": "not checkable", "substituted": sub, "seed_mechanism": mech("agree"),
             "metrics": [{"kernel": {"n": 1}}]},
            {"status": "refused", "reason": "olia"},
        ]});
        assert_eq!(
            summary(&m),
            "3 of 6 cells agree like for like, 1 not checkable (fewer than 2 paired runs, a side without \
             values or no compared metric: the reason beside each cell); 4 cells ran with a substitution: \
             transport.mptcp.scheduler = minrtt -> upstream (4 cells: 2 agree like for like; 1 agree \
             with the simulator at the seed's settings, the seed's mechanism, not agreement); \
             1 of 2 cells without one agree"
        );
        // with decisions: the disagreeing and the undecided cells counted
        let und = |r: u64| json!({"more_kernel_runs": r});
        let d = json!({"cells": [
            {"status": "ran", "verdict": "agree", "decision": "agree"},
            {"status": "ran", "verdict": "disagree", "decision": "disagree"},
            {"status": "ran", "verdict": "disagree", "decision": "undecided", "undecided": und(5)},
            {"status": "ran", "verdict": "disagree", "decision": "undecided", "undecided": und(9)},
        ]});
        assert_eq!(
            summary(&d),
            "1 of 4 cells agree like for like (no cell ran with a substitution); 1 disagree beyond \
             their 95 % interval; 2 undecided (about 5 more kernel runs each, 5-9)"
        );
        // a not-checkable cell with a noise decision is counted once, as
        // not checkable (report/kernel.py `noise_clause` alike)
        let once = json!({"cells": [
            {"status": "ran", "verdict": "agree", "decision": "agree"},
            {"status": "ran", "verdict": "not checkable", "decision": "undecided", "undecided": und(20)},
            {"status": "ran", "verdict": "not checkable", "decision": "disagree"},
        ]});
        assert_eq!(
            summary(&once),
            "1 of 3 cells agree like for like, 2 not checkable (fewer than 2 paired runs, a side without \
             values or no compared metric: the reason beside each cell) (no cell ran with a substitution); \
             0 disagree beyond their 95 % interval; 0 undecided"
        );
        let none = json!({"cells": [{"status": "ran", "verdict": "agree"}, {"status": "ran", "verdict": "disagree"}]});
        assert_eq!(
            summary(&none),
            "1 of 2 cells agree like for like (no cell ran with a substitution)"
        );
    }

    /// Session 29: with no cell that ran (all failed or refused) the line
    /// said "0 of 0 cells agree like for like".
    #[test]
    fn no_cell_ran_is_no_verdict_not_0_of_0() {
        let m = json!({"cells": [{"status": "failed", "reason": "x"}, {"status": "refused"}]});
        assert_eq!(
            summary(&m),
            "no kernel verdict: not one cell ran on the kernel"
        );
        assert_eq!(
            summary(&json!({"cells": []})),
            "no kernel verdict: not one cell ran on the kernel"
        );
    }

    /// The like-for-like runs of a real cell (seed 004's `subflows`, MPTCP
    /// minrtt): the point with the kernel's scheduler, the same id and run
    /// seed as the simulated point, in its own store.
    #[test]
    fn like_for_like_runs_have_the_kernels_settings_and_the_same_seeds() {
        let key = "seed004/subflows";
        let f = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/{key}.toml"));
        let set = vec![Override {
            key: "scenario.duration_s".into(),
            value: "2".into(),
        }];
        let sw = crate::sweep::plan(&f, &set, Some(2)).unwrap();
        let cells = super::super::kernel::cells(&[(key.into(), "004".into(), sw)], &[]);
        let c = cells.iter().find(|c| !c.subs.is_empty()).unwrap();
        let out = crate::scratch::Scratch::unmade("like");
        let inputs = Inputs {
            files: vec![(key.into(), f.clone(), set)],
            jobs: 2,
        };
        let todo = [Todo {
            cell: c,
            subs: to_json(&c.subs),
            runs: 2,
        }];
        assert_eq!(simulate(&inputs, &todo, &out), vec![]);
        let toml = std::fs::read_to_string(
            dir(&out, c)
                .join("runs")
                .join(&c.point.id)
                .join("scenario.toml"),
        )
        .unwrap();
        assert!(toml.contains("scheduler = \"upstream\""), "{toml}");
        let p = point(&out, c).unwrap();
        for r in 0..2 {
            assert_eq!(p["per_run"][r]["seed"], c.point.scenario.run_seed(r as u32));
        }
        assert!(
            p["per_run"][1]["metrics"]["fg_throughput_mbit"]
                .as_f64()
                .unwrap()
                > 0.0
        );
        // resumed: nothing to redo, the same summary
        assert_eq!(simulate(&inputs, &todo, &out), vec![]);
        assert_eq!(point(&out, c).unwrap(), p);
        let _ = std::fs::remove_dir_all(&out);
    }
}
