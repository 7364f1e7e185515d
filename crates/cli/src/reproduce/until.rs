//! `--until-decided MAX` (issue 15, session 16): after the planned kernel
//! runs, re-judge; while a cell is `undecided` (its point outside the
//! criterion, its 95 % interval reaching the band: [`crate::validate::shift`])
//! and has fewer than MAX kernel runs, give it more runs, in batches of the
//! judge's own estimate (`undecided.more_kernel_runs`) capped at MAX,
//! re-judge, repeat. A cell `not checkable` (fewer than 2 paired runs, a
//! side without values) is not decided either, whatever its noise
//! `decision` says (session 31): it gets more runs the same way until it
//! is checkable or has MAX. The same loop serves a live pass (`--kernel`: the runs
//! go on in the cell's store) and a saved pass continued (`--kernel-from
//! FILE`: the runs are appended to the file's, [`super::kernel_from::Saved::append`]).
//!
//! The stopping rule ([`step`]) is a pure function of a judged cell entry
//! of kernel.json. Stopping at the first decision changes the interval's
//! coverage (a sequential look at the data): the judge's 95 % is the
//! coverage of one look, so a cell decided here is reported with the
//! number of runs and batches it took (kernel.json `until_decided`), not as
//! a fixed-size test.

use super::pace::Pace;
use serde_json::{json, Value};
use std::cell::RefCell;

/// Why a cell got no more runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// Its decision is no longer `undecided` (`agree` or `disagree`).
    Decided(String),
    /// Not checkable, and more kernel runs cannot make it checkable: no
    /// compared metric (no kernel run to add to), a compared metric of
    /// which no simulated run finished (a kernel run is judged with the
    /// simulated run of its index) or no kernel run of MIN_RUNS or more,
    /// or every compared metric on MIN_RUNS paired runs already (the gap
    /// is not the run count). The cell's reason.
    NotCheckable(String),
    /// MAX kernel runs reached, still undecided.
    Max,
    /// MAX kernel runs reached, still not checkable: the cell's reason
    /// (session 31; before, such a cell could stop "decided" on its noise
    /// decision, or stop at 2 kernel runs).
    MaxNotCheckable(String),
    /// Undecided, but the judge gives no kernel run count that would
    /// decide it with these simulated runs (more simulated runs, `--runs`,
    /// or none at all: the estimate sits on the band's edge).
    NoEstimate,
    /// A run of a batch failed: the error (the runs before it are kept).
    Failed(String),
    /// Ctrl-C during a batch (the runs finished before it are kept).
    Stopped,
}

impl Stop {
    pub fn text(&self) -> String {
        match self {
            Stop::Decided(d) => format!("decided: {d}"),
            Stop::NotCheckable(why) => format!("{}: {why}", super::kernel::NOT_CHECKABLE),
            Stop::Max => "MAX reached, still undecided".into(),
            Stop::MaxNotCheckable(why) => {
                format!("MAX reached, still {}: {why}", super::kernel::NOT_CHECKABLE)
            }
            Stop::NoEstimate => {
                "undecided, not by kernel runs alone with these simulated runs (no estimate)".into()
            }
            Stop::Failed(e) => format!("a run failed: {e}"),
            Stop::Stopped => "stopped (Ctrl-C)".into(),
        }
    }
}

/// What a judged cell needs next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Kernel runs `next..target` (run indices; the cell has `have` runs).
    More {
        have: u32,
        next: u32,
        target: u32,
    },
    Done(Stop),
}

/// The kernel runs a judged cell entry holds: how many (distinct run
/// indices over its judged metrics' `runs`) and the next run index (one
/// past the largest). A file written before every kernel run was saved
/// counts `kernel_all.n` where it is larger.
pub fn runs_of(entry: &Value) -> (u32, u32) {
    let mut idx: Vec<u64> = Vec::new();
    let mut n_all = 0;
    for m in entry["metrics"].as_array().into_iter().flatten() {
        for r in m["runs"].as_array().into_iter().flatten() {
            if let Some(i) = r["run"].as_u64() {
                if !idx.contains(&i) {
                    idx.push(i);
                }
            }
        }
        n_all = n_all.max(m["kernel_all"]["n"].as_u64().unwrap_or(0));
    }
    let next = idx.iter().max().map_or(0, |m| m + 1);
    ((idx.len() as u64).max(n_all) as u32, next.max(n_all) as u32)
}

/// The stopping rule for one judged cell entry (`None`: the cell has no
/// kernel result, status other than `ran`): a cell `not checkable` is not
/// decided ([`not_checkable_step`]); a cell that is not `undecided` is
/// decided; an undecided one with MAX runs stops; else it gets the judge's
/// estimate of the runs still needed (`undecided.more_kernel_runs`, at
/// least one), capped at MAX; without an estimate it stops.
pub fn step(entry: &Value, max: u32) -> Option<Step> {
    if entry["status"].as_str() != Some("ran") {
        return None;
    }
    let nc = super::kernel::NOT_CHECKABLE;
    let verdict = entry["verdict"].as_str().unwrap_or(nc);
    let decision = entry["decision"].as_str().unwrap_or(verdict);
    let (have, next) = runs_of(entry);
    // The cell's verdict first (session 31): a cell not checkable keeps
    // the noise judge's `decision`, drawn from its rows' shift over all
    // runs (validate/shift.rs `cell_decision`), so one paired run outside
    // the criterion whose shift said `disagree` stopped here as "decided:
    // disagree" while kernel.json and the report said not checkable.
    if [verdict, decision]
        .iter()
        .any(|d| *d == nc || *d == "no verdict")
    {
        return Some(not_checkable_step(entry, have, next, max));
    }
    if decision != "undecided" {
        return Some(Step::Done(Stop::Decided(decision.to_string())));
    }
    if have >= max {
        return Some(Step::Done(Stop::Max));
    }
    let Some(more) = entry["undecided"]["more_kernel_runs"].as_u64() else {
        return Some(Step::Done(Stop::NoEstimate));
    };
    let add = (more.max(1)).min((max - have) as u64) as u32;
    Some(Step::More {
        have,
        next,
        target: next + add,
    })
}

/// The step of a cell that is not checkable (`have` kernel runs, the next
/// index `next`): more runs until it is checkable or has MAX, never
/// "decided". Each batch is the runs it lacks for MIN_RUNS paired runs
/// (at least one; a kernel run whose simulated run did not finish pairs
/// with nothing, so it may take more than one batch), or the judge's
/// estimate when its noise decision is `undecided` and asks more, capped
/// at MAX. It stops at once only where more kernel runs cannot make it
/// checkable: no compared metric (its like-for-like runs or a
/// summary.json missing: no kernel run to add to), or a compared metric
/// no simulated run of which finished (`sim_all` without a median: kernel
/// run r is judged with simulated run r, and every simulated run up to
/// MAX exists, `reproduce.rs check_until`), a compared metric none of
/// whose MIN_RUNS or more kernel runs finished (`kernel_all` without a
/// median), or every compared metric on MIN_RUNS paired runs or more (the
/// gap is not the run count: `kernel::metric_gap`).
fn not_checkable_step(entry: &Value, have: u32, next: u32, max: u32) -> Step {
    let why = entry["reason"]
        .as_str()
        .unwrap_or("no reason recorded")
        .to_string();
    let rows: Vec<&Value> = entry["metrics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["criterion"] != "shown only")
        .collect();
    if rows.is_empty() || have == 0 {
        return Step::Done(Stop::NotCheckable(why));
    }
    // the first compared metric none of whose runs on `side` (`sim_all`,
    // `kernel_all`) finished: the side's median over all its runs missing
    let unfinished = |side: &str| {
        rows.iter()
            .find(|r| {
                r.get(side)
                    .is_some_and(|s| !s["median"].as_f64().is_some_and(f64::is_finite))
            })
            .map(|r| r["metric"].as_str().unwrap_or("?").to_string())
    };
    if let Some(metric) = unfinished("sim_all") {
        return Step::Done(Stop::NotCheckable(format!(
            "{why} (no simulated run of {metric} finished: a kernel run has nothing to pair with)"
        )));
    }
    let min = super::kernel::MIN_RUNS;
    // A compared metric none of whose MIN_RUNS or more kernel runs finished
    // (`kernel_all` without a median): the runs fail for a reason more of
    // them do not change, the kernel side of the rule above.
    if have as u64 >= min {
        if let Some(metric) = unfinished("kernel_all") {
            return Step::Done(Stop::NotCheckable(format!(
                "{why} (no kernel run of {metric} finished in {have}: more are not expected to)"
            )));
        }
    }
    let paired = rows
        .iter()
        .map(|r| super::kernel::paired_runs(r))
        .min()
        .unwrap_or(0);
    // Every compared metric on MIN_RUNS paired runs or more, and still not
    // checkable: its gap is not the run count (`kernel::metric_gap`: an
    // interval whose bounds are not numbers, a criterion that cannot compare
    // the medians), which more kernel runs do not close.
    if paired >= min {
        return Step::Done(Stop::NotCheckable(format!(
            "{why} (every compared metric has {paired} or more paired runs: more kernel runs \
             cannot make it checkable)"
        )));
    }
    if have >= max {
        return Step::Done(Stop::MaxNotCheckable(why));
    }
    let lack = min.saturating_sub(paired).max(1);
    let estimate = if entry["decision"] == "undecided" {
        entry["undecided"]["more_kernel_runs"].as_u64().unwrap_or(0)
    } else {
        0
    };
    let add = lack.max(estimate).min((max - have) as u64) as u32;
    Step::More {
        have,
        next,
        target: next + add,
    }
}

/// One cell's record of the loop, for kernel.json and the summary.
#[derive(Debug, Clone)]
pub struct Record {
    /// Index in kernel.json's `cells` (and in the pass's cells).
    pub cell: usize,
    /// Runs before the loop, and now.
    pub before: u32,
    pub runs: u32,
    pub batches: u32,
    pub stop: Option<Stop>,
    /// Runs when its last batch was asked for.
    asked_at: u32,
}

impl Record {
    pub fn to_json(&self) -> Value {
        json!({
            "runs": self.runs,
            "runs_before": self.before,
            "batches": self.batches,
            "stopped": self.stop.as_ref().map(|s| s.text()),
        })
    }
}

/// A batch's result: `Ok` when every run of it finished.
pub type Batch = Result<(), Stop>;

/// Where a batch stands in its round, for the per-run progress line: a
/// round runs many cells' batches one after another, so the time left is
/// the round's (this batch and the ones after it), not the batch's alone.
#[derive(Debug, Clone, Copy)]
pub struct Round<'a> {
    /// When the round's first batch started: the clock of `pace`.
    pub started: std::time::Instant,
    /// The round's pace, over its batches: a batch reports its runs to it
    /// (a run read back from the store, from an interrupted earlier
    /// top-up, leaves the estimate and does not count in the pace:
    /// [`super::pace`]). As the batch begins it is settled to the estimate
    /// of this batch and every batch after it in the round (`cost` summed).
    pub pace: &'a RefCell<Pace>,
}

/// One batch of a round: cell index, run indices `next..target`, and how
/// many of them its store holds already (an earlier pass with more
/// `--kernel-runs` or an interrupted top-up saved them), which the batch
/// reads back rather than runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Planned {
    pub cell: usize,
    pub next: u32,
    pub target: u32,
    pub saved: u32,
}

impl Planned {
    /// The runs the batch will run (not read back).
    pub fn to_run(self) -> u32 {
        (self.target - self.next).saturating_sub(self.saved)
    }
}

/// The header printed before round `round` of batches `todo` and the
/// round's estimated real time: the runs to run only, at `cost(cell,
/// runs)`; the runs read back are counted apart (before session 31 they
/// were in both counts at their full length, so a resumed round's header
/// overestimated).
pub fn round_plan(
    round: u32,
    todo: &[Planned],
    max: u32,
    name: &dyn Fn(usize) -> String,
    cost: &dyn Fn(usize, u32) -> f64,
) -> (String, f64) {
    let est: f64 = todo.iter().map(|p| cost(p.cell, p.to_run())).sum();
    let to_run: u32 = todo.iter().map(|p| p.to_run()).sum();
    let back: u32 = todo.iter().map(|p| p.saved).sum();
    let mut s = format!(
        "until-decided: round {round}: {} cell(s) undecided or not checkable with fewer than {max} \
         kernel runs, {to_run} more run(s){}, about {} real time:",
        todo.len(),
        if back > 0 {
            format!(" to run ({back} more read back from their stores, saved by an earlier pass or top-up)")
        } else {
            String::new()
        },
        super::kernel::hms(est)
    );
    for p in todo {
        s.push_str(&format!(
            "\n  {}: runs {}..{} ({} in all{})",
            name(p.cell),
            p.next,
            p.target - 1,
            p.target,
            if p.saved > 0 {
                format!("; {} of them read back", p.saved)
            } else {
                String::new()
            }
        ));
    }
    (s, est)
}

/// The loop: judge `m` (a kernel.json with every cell judged), give every
/// cell [`step`] asks more of its runs with `top_up(cell index, next,
/// target, where the batch stands in its round)`, re-judge with `judge`, until no cell asks; only the cells
/// `eligible` accepts get runs. `cost(cell, runs)`
/// estimates real time for the plan printed before each round, and
/// `saved(cell, next, target)` counts the runs of a batch its store holds
/// already (read back, not run: not in the estimate). Returns the
/// final kernel.json, with `until_decided` per cell that ran and at the top.
#[allow(clippy::too_many_arguments)]
pub fn run(
    max: u32,
    mut m: Value,
    name: &dyn Fn(usize) -> String,
    eligible: &dyn Fn(usize) -> bool,
    cost: &dyn Fn(usize, u32) -> f64,
    saved: &dyn Fn(usize, u32, u32) -> u32,
    top_up: &mut dyn FnMut(usize, u32, u32, Round<'_>) -> Batch,
    judge: &mut dyn FnMut() -> Value,
) -> Value {
    let cells = |m: &Value| m["cells"].as_array().cloned().unwrap_or_default();
    let mut recs: Vec<Record> = cells(&m)
        .iter()
        .enumerate()
        .filter(|(i, e)| e["status"] == "ran" && eligible(*i))
        .map(|(i, e)| {
            let (have, _) = runs_of(e);
            Record {
                cell: i,
                before: have,
                runs: have,
                batches: 0,
                stop: None,
                asked_at: have,
            }
        })
        .collect();
    let mut round = 0;
    loop {
        let now = cells(&m);
        let mut todo = Vec::new();
        for r in recs.iter_mut().filter(|r| r.stop.is_none()) {
            match step(&now[r.cell], max) {
                Some(Step::More { have, next, target }) => {
                    // a batch that added nothing would ask again forever
                    if r.batches > 0 && have <= r.asked_at {
                        r.stop = Some(Stop::Failed("the batch added no kernel run".into()));
                    } else {
                        r.asked_at = have;
                        todo.push(Planned {
                            cell: r.cell,
                            next,
                            target,
                            saved: saved(r.cell, next, target),
                        });
                    }
                }
                Some(Step::Done(s)) => {
                    r.runs = runs_of(&now[r.cell]).0;
                    r.stop = Some(s);
                }
                None => r.stop = Some(Stop::Decided("no kernel result".into())),
            }
        }
        if todo.is_empty() {
            break;
        }
        round += 1;
        let (header, est) = round_plan(round, &todo, max, name, cost);
        eprintln!("{header}");
        let mut stopped = false;
        let started = std::time::Instant::now();
        // the runs to run of this batch and the later ones
        let mut left_s = est;
        let pace = RefCell::new(Pace::new(est));
        for p in todo {
            let (i, n, t) = (p.cell, p.next, p.target);
            let r = recs
                .iter_mut()
                .find(|r| r.cell == i)
                .expect("a record per ran cell");
            r.batches += 1;
            // this batch's runs on disk are in its estimate here and leave
            // it as they are read back (`Pace::on`), as in the planned pass
            pace.borrow_mut().settle(left_s + cost(i, p.saved));
            let round = Round {
                started,
                pace: &pace,
            };
            left_s -= cost(i, p.to_run());
            match top_up(i, n, t, round) {
                Ok(()) => {}
                Err(Stop::Stopped) => {
                    r.stop = Some(Stop::Stopped);
                    stopped = true;
                    break;
                }
                Err(s) => r.stop = Some(s),
            }
        }
        m = judge();
        // the runs a stopped or failed batch kept
        let now = cells(&m);
        for r in recs.iter_mut() {
            r.runs = runs_of(&now[r.cell]).0;
        }
        if stopped {
            for r in recs.iter_mut().filter(|r| r.stop.is_none()) {
                r.stop = Some(Stop::Stopped);
            }
            break;
        }
    }
    annotate(&mut m, max, &recs);
    m
}

/// kernel.json's `until_decided` keys: per cell that ran, its record; at
/// the top, MAX and the counts by why the cells stopped.
fn annotate(m: &mut Value, max: u32, recs: &[Record]) {
    for r in recs {
        m["cells"][r.cell]["until_decided"] = r.to_json();
    }
    let added: u32 = recs.iter().map(|r| r.runs.saturating_sub(r.before)).sum();
    m["until_decided"] = json!({
        "max": max,
        "added_runs": added,
        "rule": "after the planned kernel runs, every undecided cell with fewer than max kernel runs got \
                 the judge's estimate of the runs still needed (undecided.more_kernel_runs), capped at max, \
                 and every cell not checkable (whatever its decision) the runs it lacked for 2 paired \
                 runs, or that estimate when larger, capped at max (unless no simulated run of a compared \
                 metric finished, no kernel run of one finished in 2 or more, every compared metric \
                 already had 2 paired runs or more, or it had no compared metric: then more kernel runs \
                 cannot make it checkable); each was re-judged, until no cell asked; a decision reached this way was \
                 looked at after each batch, so its 95 % is per look, not for the sequence",
    });
}

/// Whether the loop of `m` (its final kernel.json) was stopped by Ctrl-C.
pub fn stopped(m: &Value) -> bool {
    let text = Stop::Stopped.text();
    m["cells"].as_array().is_some_and(|c| {
        c.iter()
            .any(|c| c["until_decided"]["stopped"] == text.as_str())
    })
}

/// The summary on stderr: one line per cell that got runs or stopped
/// undecided, and the counts.
pub fn summary(m: &Value) -> String {
    let mut s = String::new();
    let (mut decided, mut left) = (0, 0);
    for c in m["cells"].as_array().into_iter().flatten() {
        let u = &c["until_decided"];
        if u.is_null() {
            continue;
        }
        let stopped = u["stopped"].as_str().unwrap_or("?");
        let (before, runs) = (u["runs_before"].as_u64(), u["runs"].as_u64());
        if stopped.starts_with("decided") {
            decided += 1;
        } else {
            left += 1;
        }
        if before != runs || !stopped.starts_with("decided") {
            s.push_str(&format!(
                "  {}:{}: {} -> {} kernel runs in {} batch(es); {stopped}\n",
                c["experiment"].as_str().unwrap_or("?"),
                c["point"].as_str().unwrap_or("?"),
                before.unwrap_or(0),
                runs.unwrap_or(0),
                u["batches"].as_u64().unwrap_or(0),
            ));
        }
    }
    format!(
        "until-decided (MAX {}): {} kernel run(s) added; {decided} cell(s) decided, {left} not:\n{s}",
        m["until_decided"]["max"],
        m["until_decided"]["added_runs"]
    )
}

/// The plan's line for `--until-decided`: the most real time the loop can
/// add, every cell taken from `planned` runs to MAX, less the runs of
/// `planned..MAX` its store holds already (`saved`: an earlier pass's or an
/// interrupted top-up's, read back rather than run).
pub fn plan_line(
    cells: &[&super::kernel::Cell],
    planned: u32,
    max: u32,
    saved: &dyn Fn(&super::kernel::Cell) -> u32,
) -> String {
    let add = max.saturating_sub(planned);
    let back: Vec<u32> = cells.iter().map(|c| saved(c).min(add)).collect();
    let extra: f64 = cells
        .iter()
        .zip(&back)
        .map(|(c, &b)| c.estimate_s(add - b))
        .sum();
    let back: u32 = back.iter().sum();
    format!(
        "until-decided: then every undecided or not checkable cell gets more kernel runs, in batches \
         of the judge's estimate, up to {max} in all: at most {} more real time ({} cell(s) from \
         {planned} to {max} runs{})",
        super::kernel::hms(extra),
        cells.len(),
        if back > 0 {
            format!("; {back} of those runs are in the stores already, saved by an earlier pass or top-up, and are read back")
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod tests {
    use super::super::pace::Event;
    use super::*;

    /// A judged cell entry with kernel runs `0..n` and its decision.
    /// A judged cell entry with kernel runs `0..n` and its decision, all
    /// `n` paired (a `not checkable` one is the verdict as well).
    fn cell(n: u32, decision: &str, more: Option<u64>) -> Value {
        let verdict = match decision {
            "agree" | "not checkable" => decision,
            _ => "disagree",
        };
        judged_cell(n, n, verdict, decision, more)
    }

    /// A judged cell entry with kernel runs `0..n`, `paired` of them paired
    /// with a finished simulated run (the rows' paired medians' `n`), its
    /// verdict, and its noise decision (with `more` kernel runs to decide
    /// it when `undecided`), as kernel.rs `compare_cell` and
    /// like.rs `judge_cell` write them.
    fn judged_cell(n: u32, paired: u32, verdict: &str, decision: &str, more: Option<u64>) -> Value {
        let runs: Vec<Value> = (0..n).map(|r| json!({"run": r, "kernel": 1.0})).collect();
        let ci = json!({"median": 1.0, "n": paired});
        let mut e = json!({
            "status": "ran",
            "verdict": verdict,
            "decision": decision,
            "metrics": [{"metric": "fg_throughput_mbit", "runs": runs, "kernel_all": {"median": 1.0, "n": n},
                         "sim": ci, "kernel": ci, "sim_all": {"median": 1.0, "n": 10}}],
        });
        if verdict == "not checkable" {
            e["reason"] = format!("fg_throughput_mbit: {paired} paired run(s)").into();
        }
        if decision == "undecided" {
            e["undecided"] = json!({"why": "w", "more_kernel_runs": more});
        }
        e
    }

    #[test]
    fn the_stopping_rule() {
        // decided cells get nothing more
        for d in ["agree", "disagree"] {
            assert_eq!(
                step(&cell(3, d, None), 10),
                Some(Step::Done(Stop::Decided(d.into())))
            );
        }
        // not checkable on one kernel run (it passed its point criterion:
        // `agree`, decided, before session 28): a second run, to MIN_RUNS
        assert_eq!(
            step(&cell(1, "not checkable", None), 10),
            Some(Step::More {
                have: 1,
                next: 1,
                target: 2
            })
        );
        // a cell without judged rows (its like-for-like runs missing) stops
        let mut bare = cell(1, "not checkable", None);
        bare["metrics"] = json!([]);
        assert!(matches!(
            step(&bare, 10),
            Some(Step::Done(Stop::NotCheckable(_)))
        ));
        // ... and one at MAX stops, still not checkable (not decided)
        assert_eq!(
            step(&cell(1, "not checkable", None), 1),
            Some(Step::Done(Stop::MaxNotCheckable(
                "fg_throughput_mbit: 1 paired run(s)".into()
            )))
        );
        // undecided: the judge's estimate, from the next run index
        assert_eq!(
            step(&cell(3, "undecided", Some(4)), 10),
            Some(Step::More {
                have: 3,
                next: 3,
                target: 7
            })
        );
        // capped at MAX in all
        assert_eq!(
            step(&cell(3, "undecided", Some(40)), 10),
            Some(Step::More {
                have: 3,
                next: 3,
                target: 10
            })
        );
        // an estimate of 0 more (the interval is about to clear) still adds one
        assert_eq!(
            step(&cell(3, "undecided", Some(0)), 10),
            Some(Step::More {
                have: 3,
                next: 3,
                target: 4
            })
        );
        // MAX reached, still undecided
        assert_eq!(
            step(&cell(10, "undecided", Some(2)), 10),
            Some(Step::Done(Stop::Max))
        );
        assert_eq!(
            step(&cell(12, "undecided", Some(2)), 10),
            Some(Step::Done(Stop::Max))
        );
        // no estimate: not by kernel runs alone
        assert_eq!(
            step(&cell(3, "undecided", None), 10),
            Some(Step::Done(Stop::NoEstimate))
        );
        // a cell without a kernel result is not part of the loop
        let mut e = cell(3, "undecided", Some(2));
        e["status"] = "refused".into();
        assert_eq!(step(&e, 10), None);
        // run indices with a gap: the next index is one past the largest
        let mut e = cell(2, "undecided", Some(2));
        e["metrics"][0]["runs"][1]["run"] = 5.into();
        assert_eq!(runs_of(&e), (2, 6));
        assert_eq!(
            step(&e, 10),
            Some(Step::More {
                have: 2,
                next: 6,
                target: 8
            })
        );
    }

    /// Session 31: a cell not checkable is not decided, whatever its noise
    /// `decision` (drawn from its rows' shift over all runs). Before, one
    /// paired run outside the criterion whose shift said `disagree`
    /// stopped as "decided: disagree" (kernel.json and the report said not
    /// checkable), and one not checkable on 2 kernel runs or more stopped
    /// without more runs.
    #[test]
    fn a_cell_not_checkable_is_not_decided() {
        let nc = "not checkable";
        // one kernel run, its shift `disagree`: a second run (was decided)
        assert_eq!(
            step(&judged_cell(1, 1, nc, "disagree", None), 10),
            Some(Step::More {
                have: 1,
                next: 1,
                target: 2
            })
        );
        // three kernel runs, simulated runs 1 and 2 unfinished (1 paired),
        // the shift `disagree`: one more run (was decided)
        assert_eq!(
            step(&judged_cell(3, 1, nc, "disagree", None), 10),
            Some(Step::More {
                have: 3,
                next: 3,
                target: 4
            })
        );
        // no paired run at all: the two runs it lacks (was stopped)
        assert_eq!(
            step(&judged_cell(3, 0, nc, nc, None), 10),
            Some(Step::More {
                have: 3,
                next: 3,
                target: 5
            })
        );
        // the shift `undecided` asking more: the judge's estimate, as before
        assert_eq!(
            step(&judged_cell(1, 1, nc, "undecided", Some(5)), 10),
            Some(Step::More {
                have: 1,
                next: 1,
                target: 6
            })
        );
        // ... without an estimate: the runs it lacks (was "no estimate")
        assert_eq!(
            step(&judged_cell(1, 1, nc, "undecided", None), 10),
            Some(Step::More {
                have: 1,
                next: 1,
                target: 2
            })
        );
        // capped at MAX, and at MAX it stops not checkable with its reason
        assert_eq!(
            step(&judged_cell(3, 0, nc, "disagree", None), 4),
            Some(Step::More {
                have: 3,
                next: 3,
                target: 4
            })
        );
        assert_eq!(
            step(&judged_cell(4, 1, nc, "disagree", None), 4),
            Some(Step::Done(Stop::MaxNotCheckable(
                "fg_throughput_mbit: 1 paired run(s)".into()
            )))
        );
        // on 2 paired runs or more and still not checkable (an interval
        // without numeric bounds): more runs cannot close it, so it stops
        // (it got one more run a round to MAX before the session-31 review)
        let mut no_interval = judged_cell(3, 3, nc, "disagree", None);
        no_interval["reason"] =
            "fg_throughput_mbit: no interval (its bounds are not numbers)".into();
        match step(&no_interval, 10) {
            Some(Step::Done(Stop::NotCheckable(why))) => assert!(
                why.ends_with(
                    "(every compared metric has 3 or more paired runs: more kernel runs cannot \
                     make it checkable)"
                ),
                "{why}"
            ),
            s => panic!("{s:?}"),
        }
        // no kernel run of a compared metric finished in 2 or more: it stops
        let mut failing = judged_cell(3, 0, nc, nc, None);
        failing["metrics"][0]["kernel_all"] = json!({"median": null, "n": 3});
        match step(&failing, 10) {
            Some(Step::Done(Stop::NotCheckable(why))) => assert!(
                why.ends_with(
                    "(no kernel run of fg_throughput_mbit finished in 3: more are not expected to)"
                ),
                "{why}"
            ),
            s => panic!("{s:?}"),
        }
        // ... but after one kernel run, the run it lacks
        let mut one_failed = judged_cell(1, 0, nc, nc, None);
        one_failed["metrics"][0]["kernel_all"] = json!({"median": null, "n": 1});
        assert_eq!(
            step(&one_failed, 10),
            Some(Step::More {
                have: 1,
                next: 1,
                target: 3
            })
        );
        // no simulated run of a compared metric finished: no kernel run can
        // pair, so it stops at once, not checkable
        let mut none = judged_cell(3, 0, nc, nc, None);
        none["metrics"][0]["sim_all"] = json!({"median": null, "n": 0});
        match step(&none, 10) {
            Some(Step::Done(Stop::NotCheckable(why))) => assert!(
                why.ends_with(
                    "(no simulated run of fg_throughput_mbit finished: a kernel run has nothing to \
                     pair with)"
                ),
                "{why}"
            ),
            s => panic!("{s:?}"),
        }
    }

    /// Session 31, the loop: a cell not checkable on one paired run whose
    /// shift says `disagree` gets runs until it is checkable, then stops
    /// decided on what its runs then say; one that stays not checkable
    /// gets runs to MAX and is reported as such, not decided. Before, both
    /// stopped at once as "decided: disagree".
    #[test]
    fn the_loop_gives_a_cell_not_checkable_runs_to_max() {
        use std::cell::RefCell;
        let nc = "not checkable";
        let runs = RefCell::new(vec![1u32, 3]);
        let judged = |runs: &[u32]| -> Value {
            json!({"cells": [
                // checkable from 2 kernel runs: disagree
                if runs[0] >= 2 {
                    cell(runs[0], "disagree", None)
                } else {
                    judged_cell(runs[0], 1, nc, "disagree", None)
                },
                // its kernel runs' simulated runs never finish but run 0's
                judged_cell(runs[1], 1, nc, "disagree", None),
            ]})
        };
        let asked = RefCell::new(Vec::new());
        let m0 = judged(&runs.borrow());
        let m = run(
            5,
            m0,
            &|i| format!("cell{i}"),
            &|_| true,
            &|_, n| n as f64,
            &|_, _, _| 0,
            &mut |i, from, to, _| {
                asked.borrow_mut().push((i, from, to));
                runs.borrow_mut()[i] = to;
                Ok(())
            },
            &mut || judged(&runs.borrow()),
        );
        assert_eq!(*asked.borrow(), vec![(0, 1, 2), (1, 3, 4), (1, 4, 5)]);
        let u = |i: usize| &m["cells"][i]["until_decided"];
        assert_eq!(u(0)["stopped"], "decided: disagree");
        assert_eq!(
            u(1)["stopped"],
            "MAX reached, still not checkable: fg_throughput_mbit: 1 paired run(s)"
        );
        assert_eq!(
            (u(1)["runs"].as_u64(), u(1)["batches"].as_u64()),
            (Some(5), Some(2))
        );
        let s = summary(&m);
        assert!(
            s.contains("3 kernel run(s) added; 1 cell(s) decided, 1 not"),
            "{s}"
        );
    }

    /// Session 31: a round's header and estimate count the runs it will
    /// run; those a batch reads back from its store (an earlier pass or an
    /// interrupted top-up saved them) are counted apart. Before, the header said "4
    /// more run(s), about 40 s" for a round of which 3 runs were on disk.
    #[test]
    fn a_round_s_header_counts_the_runs_to_run() {
        let todo = [
            Planned {
                cell: 0,
                next: 3,
                target: 5,
                saved: 2,
            },
            Planned {
                cell: 1,
                next: 3,
                target: 5,
                saved: 1,
            },
        ];
        let (h, est) = round_plan(2, &todo, 10, &|i| format!("cell{i}"), &|_, n| {
            10.0 * n as f64
        });
        assert_eq!(est, 10.0);
        assert_eq!(
            h,
            "until-decided: round 2: 2 cell(s) undecided or not checkable with fewer than 10 kernel \
             runs, 1 more run(s) to run (3 more read back from their stores, saved by an earlier \
             pass or top-up), about 10 s real time:\n  cell0: runs 3..4 (5 in all; 2 of them read back)\n  \
             cell1: runs 3..4 (5 in all; 1 of them read back)"
        );
        // nothing on disk: the runs and the time as before session 31
        let fresh = [Planned {
            saved: 0,
            ..todo[0]
        }];
        let (h, est) = round_plan(1, &fresh, 10, &|i| format!("cell{i}"), &|_, n| {
            10.0 * n as f64
        });
        assert_eq!(est, 20.0);
        assert!(
            h.ends_with("2 more run(s), about 20 s real time:\n  cell0: runs 3..4 (5 in all)"),
            "{h}"
        );
    }

    /// The loop on synthetic judge results: a cell decided after its first
    /// batch, one that reaches MAX still undecided, one already agreeing
    /// and one that is not eligible; every run asked for is counted.
    #[test]
    fn the_loop_tops_up_until_decided_or_max() {
        use std::cell::RefCell;
        // runs per cell, and the decision the "judge" gives at that count
        let runs = RefCell::new(vec![3u32, 3, 5, 3]);
        let judged = |runs: &[u32]| -> Value {
            let cells: Vec<Value> = runs
                .iter()
                .enumerate()
                .map(|(i, &n)| match i {
                    0 if n >= 5 => cell(n, "disagree", None),
                    0 => cell(n, "undecided", Some(2)),
                    1 => cell(n, "undecided", Some(4)),
                    2 => cell(n, "agree", None),
                    _ => cell(n, "undecided", Some(1)),
                })
                .collect();
            json!({ "cells": cells })
        };
        let asked = RefCell::new(Vec::new());
        let lefts = RefCell::new(Vec::new());
        let m0 = judged(&runs.borrow());
        let m = run(
            8,
            m0,
            &|i| format!("cell{i}"),
            &|i| i != 3,
            &|_, n| n as f64,
            &|_, _, _| 0,
            &mut |i, from, to, round: Round| {
                asked.borrow_mut().push((i, from, to));
                // nothing ran on the pace's clock: its estimate left
                lefts.borrow_mut().push(round.pace.borrow().left(0.0));
                runs.borrow_mut()[i] = to;
                Ok(())
            },
            &mut || judged(&runs.borrow()),
        );
        assert_eq!(*asked.borrow(), vec![(0, 3, 5), (1, 3, 7), (1, 7, 8)]);
        // the progress line's time left is the round's: round 1 is 2 + 4
        // runs (cost = runs here), its second batch has 4 left; round 2 is
        // the one run
        assert_eq!(*lefts.borrow(), vec![6.0, 4.0, 1.0]);
        let u = |i: usize| &m["cells"][i]["until_decided"];
        assert_eq!(u(0)["stopped"], "decided: disagree");
        assert_eq!(
            (u(0)["runs_before"].as_u64(), u(0)["runs"].as_u64()),
            (Some(3), Some(5))
        );
        assert_eq!(u(1)["stopped"], "MAX reached, still undecided");
        assert_eq!(
            (u(1)["runs"].as_u64(), u(1)["batches"].as_u64()),
            (Some(8), Some(2))
        );
        assert_eq!(u(2)["stopped"], "decided: agree");
        assert_eq!(u(2)["batches"], 0);
        assert!(u(3).is_null(), "not eligible: no record");
        assert_eq!(m["until_decided"]["added_runs"], 2 + 5);
        let s = summary(&m);
        assert!(
            s.contains("7 kernel run(s) added; 2 cell(s) decided, 1 not"),
            "{s}"
        );
        assert!(
            s.contains("3 -> 8 kernel runs in 2 batch(es); MAX reached, still undecided"),
            "{s}"
        );
    }

    /// Session 30: the round's pace is shared by its batches and settled
    /// to each batch's estimate as it begins; a batch's run read back from
    /// the store (an interrupted earlier top-up saved it) leaves the
    /// estimate and does not count as work done. Before, the next batch's
    /// line counted it as 10 s done in no time and read low.
    #[test]
    fn a_run_read_back_does_not_set_the_round_s_pace() {
        use std::cell::RefCell;
        let runs = RefCell::new(vec![3u32, 3]);
        let judged = |runs: &[u32]| {
            json!({"cells": runs.iter().enumerate().map(|(i, &n)| if n > 3 {
                cell(n, "agree", None)
            } else {
                cell(n, "undecided", Some(1 + i as u64))
            }).collect::<Vec<_>>()})
        };
        let lefts = RefCell::new(Vec::new());
        let m0 = judged(&runs.borrow());
        run(
            10,
            m0,
            &|i| format!("cell{i}"),
            &|_| true,
            &|_, n| 10.0 * n as f64,
            &|i, _, _| (i == 0) as u32,
            &mut |i, from, to, round: Round| {
                // the events as `kernel::run_more` reports them, handed to
                // the pace as `top_up_runs` hands them (`Pace::on`)
                let mut p = round.pace.borrow_mut();
                if i == 0 {
                    // cell 0's one run (10 s) was on disk already: the
                    // round's 30 s less that run are left
                    assert_eq!(p.on(Event::ReadBack, 10.0, 0.0), None);
                    assert_eq!(p.left(0.0), 20.0);
                } else {
                    // cell 1's two runs, 20 s each on a clock from the
                    // round's start: 20 s left before the first (no pace
                    // yet), 10 s at twice the estimate before the second
                    lefts.borrow_mut().push(p.on(Event::Starting(0), 10.0, 0.0));
                    p.on(Event::Ran, 10.0, 20.0);
                    lefts
                        .borrow_mut()
                        .push(p.on(Event::Starting(1), 10.0, 20.0));
                    p.on(Event::Ran, 10.0, 40.0);
                }
                runs.borrow_mut()[i] = to.max(from);
                Ok(())
            },
            &mut || judged(&runs.borrow()),
        );
        assert_eq!(*lefts.borrow(), vec![Some((0, 20.0)), Some((1, 20.0))]);
    }

    /// Ctrl-C in a batch ends the loop: the cell and every cell still
    /// asking are `stopped`, the runs the batch finished are counted.
    #[test]
    fn a_stop_ends_the_loop_and_keeps_the_runs() {
        use std::cell::RefCell;
        let runs = RefCell::new(vec![3u32, 3]);
        let judged = |runs: &[u32]| json!({"cells": runs.iter().map(|&n| cell(n, "undecided", Some(5))).collect::<Vec<_>>()});
        let m0 = judged(&runs.borrow());
        let m = run(
            10,
            m0,
            &|i| format!("cell{i}"),
            &|_| true,
            &|_, n| n as f64,
            &|_, _, _| 0,
            &mut |i, from, _, _| {
                // two runs finished, then Ctrl-C
                runs.borrow_mut()[i] = from + 2;
                Err(Stop::Stopped)
            },
            &mut || judged(&runs.borrow()),
        );
        assert!(stopped(&m));
        assert_eq!(m["cells"][0]["until_decided"]["runs"], 5);
        assert_eq!(m["cells"][1]["until_decided"]["runs"], 3, "never asked");
        assert_eq!(
            m["cells"][1]["until_decided"]["stopped"],
            "stopped (Ctrl-C)"
        );
    }

    /// A batch that adds no run (a bug, or a store that refuses) does not
    /// loop forever: the cell stops as failed.
    #[test]
    fn a_batch_that_adds_nothing_stops_the_cell() {
        let m = run(
            10,
            json!({"cells": [cell(3, "undecided", Some(2))]}),
            &|i| format!("cell{i}"),
            &|_| true,
            &|_, n| n as f64,
            &|_, _, _| 0,
            &mut |_, _, _, _| Ok(()),
            &mut || json!({"cells": [cell(3, "undecided", Some(2))]}),
        );
        assert_eq!(
            m["cells"][0]["until_decided"]["stopped"],
            "a run failed: the batch added no kernel run"
        );
    }
}
