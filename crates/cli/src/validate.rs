//! `mptlab validate`: run a set of scenarios in the simulator and over the
//! real kernel (emulation) and report how far the two are apart, per metric.
//!
//! The scenarios live in `scenarios/validate/` (file downloads of three sizes
//! over two asymmetric paths, CBR video over WLAN + 3G, each with TCP and
//! MPTCP; MPTCP uses the upstream scheduler, the one the kernel has). Both
//! sides use the same seeds, so they draw the same link parameters.
//!
//! Per cell (scenario x metric) it reports both medians with order-statistic
//! confidence intervals and a PASS/FAIL against the criteria in
//! [`criteria`]. A FAIL is a finding, not an error: the exit code is 0
//! whenever the comparisons ran.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mptlab_results::{RunOutput, Unfinished};
use mptlab_scenario::{Override, Scenario};

use crate::driver::{Driver, Emulate, Simulate};

pub(crate) mod criteria;
mod decisions;
mod phase;
mod ratio_ci;
pub(crate) mod saved;
pub(crate) mod shift;
use criteria::{compare, criterion, median_ci, Criterion, MedianCi, Verdict};

/// Metrics compared, when a scenario reports them.
const METRICS: &[&str] = &[
    "completion_time_ms",
    "delay_ms_median",
    "delay_ms_p95",
    "fg_throughput_mbit",
    "fg_share_path1",
    "fg_share_path2",
];

pub struct Options {
    pub dir: PathBuf,
    pub out: Option<PathBuf>,
    pub runs: Option<u32>,
    pub only: Option<String>,
    /// Decision-level comparison instead of medians (`--decisions`).
    pub decisions: bool,
    /// Reuse the kernel runs saved by earlier `-o DIR` passes (`--kernel-from
    /// DIR`, repeatable: [`kernel_dir`]): only the simulator side runs. With
    /// `--decisions`, one directory.
    pub kernel_from: Vec<PathBuf>,
    /// `--hz N`: the simulator side's `transport.hz`, instead of the
    /// kernel's CONFIG_HZ ([`sim_hz`]).
    pub hz: Option<u32>,
    /// `--hz-phase-us N` (with `--decisions`): the simulator side's
    /// `transport.hz_phase_us` for every run, instead of the phase each
    /// kernel run recorded (`phase`).
    pub hz_phase_us: Option<u32>,
    /// `--compact-kernel DIR` (with `--decisions --kernel-from PREV`): write
    /// PREV's kernel runs of the set to DIR in the compressed form kept in
    /// the repository, and stop ([`decisions::keep_compressed`]).
    pub compact_kernel: Option<PathBuf>,
    /// `--kernel-vs B` (with `--decisions --kernel-from A`): compare the
    /// saved kernel pass A with pass B run by run, nothing simulated
    /// ([`decisions::kernel_vs_kernel`]).
    pub kernel_vs: Option<PathBuf>,
}

/// The `transport.hz` the simulator side runs with, said on stderr: `--hz`;
/// else the kernel's CONFIG_HZ: the host's on a live pass
/// (`crate::kernel_hz::host`), the one the saved files record with
/// `--kernel-from`. Unknown (a host without its config, files written before
/// it was recorded): 1000, the model's default, and the output says so.
fn sim_hz(o: &Options, loaded: &[Scenario]) -> u32 {
    if let Some(hz) = o.hz {
        eprintln!("validate: simulator side at transport.hz = {hz} (--hz)");
        return hz;
    }
    if o.kernel_from.is_empty() {
        return match crate::kernel_hz::host() {
            Ok((hz, from)) => {
                eprintln!(
                    "validate: kernel CONFIG_HZ = {hz} ({from}); simulator side at transport.hz = {hz}"
                );
                hz
            }
            Err(e) => {
                eprintln!("validate: {e}; simulator side at transport.hz = 1000 (assumed)");
                1000
            }
        };
    }
    let prev = dirs_display(&o.kernel_from);
    let mut found = std::collections::BTreeSet::new();
    let mut missing = 0;
    for s in loaded {
        let name = short_name(s);
        let p = if o.decisions {
            o.kernel_from[0]
                .join("captures")
                .join(&name)
                .join("kernel")
                .join(decisions::KERNEL_RUNS)
        } else {
            saved::path(kernel_dir(&o.kernel_from, &name), &name)
        };
        match saved::recorded_hz(&p) {
            Some(hz) => {
                found.insert(hz);
            }
            None => missing += 1,
        }
    }
    match (found.len(), missing) {
        (1, 0) => {
            let hz = *found.first().expect("one");
            eprintln!(
                "validate: the saved kernel runs record CONFIG_HZ = {hz}; simulator side at transport.hz = {hz}"
            );
            hz
        }
        (0, _) => {
            eprintln!(
                "validate: the saved kernel runs in {prev} do not record the kernel's CONFIG_HZ; \
                 simulator side at transport.hz = 1000 (assumed; --hz N to set it)",
            );
            1000
        }
        _ => {
            eprintln!(
                "validate: the saved kernel runs in {prev} record CONFIG_HZ {found:?} ({missing} \
                 file(s) none); simulator side at transport.hz = 1000 (assumed; --hz N to set it)",
            );
            1000
        }
    }
}

/// The saved pass whose `kernel/<name>.json` a scenario's kernel runs are
/// read from, of the `--kernel-from` directories: the last one that holds
/// the scenario, so a later pass over some cells (new cells, more runs)
/// adds to or replaces an earlier one cell by cell, as `reproduce
/// --kernel-from` does with several files. None holds it: the last one,
/// whose load error then names the missing file.
fn kernel_dir<'a>(dirs: &'a [PathBuf], name: &str) -> &'a Path {
    dirs.iter()
        .rev()
        .find(|d| saved::path(d, name).is_file())
        .or(dirs.last())
        .expect("called with at least one --kernel-from directory")
}

/// The `--kernel-from` directories for a message: "A" or "A, B".
fn dirs_display(dirs: &[PathBuf]) -> String {
    let v: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    v.join(", ")
}

/// Values of each metric over the runs (runs that did not report a metric
/// are absent from its list).
fn values(runs: &[RunOutput]) -> BTreeMap<&'static str, Vec<f64>> {
    let mut m = BTreeMap::new();
    for k in METRICS {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.summary.get(*k).and_then(|x| x.as_f64()))
            .filter(|x| x.is_finite())
            .collect();
        if !v.is_empty() {
            m.insert(*k, v);
        }
    }
    m
}

/// Unfinished items of one side for a metric: (unfinished, total). Completion
/// times count transfers, delays count messages, the other metrics both.
fn unfinished_for(u: &Unfinished, metric: &str) -> (u64, u64) {
    let t = (u.transfers_unfinished, u.transfers);
    let m = (u.messages_undelivered, u.messages);
    if metric == "completion_time_ms" {
        t
    } else if metric.starts_with("delay_ms") {
        m
    } else {
        (t.0 + m.0, t.1 + m.1)
    }
}

/// One compared cell (scenario x metric).
struct Cell {
    scenario: String,
    metric: &'static str,
    sim: MedianCi,
    kernel: MedianCi,
    ratio: Option<f64>,
    diff: Option<f64>,
    verdict: Verdict,
    sim_unfinished: (u64, u64),
    kernel_unfinished: (u64, u64),
    /// The simulator's median over the kernel's runs only (same seeds, so
    /// the same link draws and loss streams), when the simulator ran more:
    /// tells sampling apart from model differences when a cell fails.
    sim_paired: Option<f64>,
    /// The kernel-vs-simulator shift over all runs of both sides with its
    /// 95 % interval, and what it decides ([`shift`]); `None` for a metric
    /// shown only.
    shift: Option<shift::Shift>,
    decision: Option<shift::Decision>,
}

/// The compared cells of one scenario: every metric both sides report.
/// With a single-path protocol (`multipath` false) the byte shares are 1 or
/// 0 on both sides by construction, so they are shown, not counted.
fn cells_of(name: &str, multipath: bool, sim: &[RunOutput], emu: &[RunOutput]) -> Vec<Cell> {
    let (us, ue) = (Unfinished::of(sim), Unfinished::of(emu));
    let (vs, ve) = (values(sim), values(emu));
    let kernel_runs: std::collections::BTreeSet<u32> = emu.iter().map(|r| r.run).collect();
    let paired: Vec<RunOutput> = sim
        .iter()
        .filter(|r| kernel_runs.contains(&r.run))
        .cloned()
        .collect();
    let vp = values(&paired);
    let mut cells = Vec::new();
    for k in METRICS {
        let (Some(a), Some(b)) = (vs.get(k), ve.get(k)) else {
            continue;
        };
        let (Some(a), Some(b)) = (median_ci(a), median_ci(b)) else {
            continue;
        };
        let (ratio, diff, mut verdict) = compare(k, a.median, b.median);
        if !multipath && k.starts_with("fg_share_path") {
            verdict = Verdict::Info;
        }
        let sh = match verdict {
            Verdict::Info => None,
            _ => shift::shift_of(criterion(k), &vs[k], &ve[k]),
        };
        let decision = shift::decide(criterion(k), verdict, sh.as_ref());
        cells.push(Cell {
            scenario: name.to_string(),
            metric: k,
            sim: a,
            kernel: b,
            ratio,
            diff,
            verdict,
            sim_unfinished: unfinished_for(&us, k),
            kernel_unfinished: unfinished_for(&ue, k),
            sim_paired: vp.get(k).and_then(|v| criteria::median(v)),
            shift: sh,
            decision,
        });
    }
    cells
}

fn fmt_ci(c: &MedianCi) -> String {
    format!("{:.3} [{:.3}, {:.3}] n={}", c.median, c.lo, c.hi, c.n)
}

fn fmt_unf((u, of): (u64, u64)) -> String {
    if u == 0 {
        "-".into()
    } else {
        format!("{u}/{of}")
    }
}

fn table(cells: &[Cell]) -> String {
    let mut t = format!(
        "{:<20} {:<18} {:>34} {:>34} {:>11} {:>7} {:>15}  {}\n",
        "scenario",
        "metric (median)",
        "simulated [95% CI] runs",
        "kernel [95% CI] runs",
        "ratio/diff",
        "verdict",
        "unfin sim; krn",
        "shift [95% interval], decision"
    );
    for c in cells {
        let cmp = match (c.ratio, c.diff) {
            (_, Some(d)) => format!("{d:+.3}"),
            (Some(r), None) => format!("x{r:.3}"),
            _ => "-".into(),
        };
        let unf = if c.sim_unfinished.0 == 0 && c.kernel_unfinished.0 == 0 {
            String::new()
        } else {
            format!(
                "{}; {}",
                fmt_unf(c.sim_unfinished),
                fmt_unf(c.kernel_unfinished)
            )
        };
        t.push_str(&format!(
            "{:<20} {:<18} {:>34} {:>34} {:>11} {:>7} {:>15}  {}\n",
            c.scenario,
            c.metric,
            fmt_ci(&c.sim),
            fmt_ci(&c.kernel),
            cmp,
            c.verdict.as_str(),
            unf,
            fmt_decision(c)
        ));
    }
    t
}

/// `x1.402 [0.950, 2.101] undecided (about 12 more kernel runs)`: the
/// shift on the reported scale, its interval and the decision.
fn fmt_decision(c: &Cell) -> String {
    let crit = criterion(c.metric);
    let Some(d) = &c.decision else {
        return String::new();
    };
    let sh = c.shift.as_ref().map_or(String::new(), |s| {
        let f = |x: f64| shift::reported(crit, x);
        match crit {
            Criterion::Relative(_) => {
                format!("x{:.3} [{:.3}, {:.3}] ", f(s.estimate), f(s.lo), f(s.hi))
            }
            _ => format!("{:+.3} [{:+.3}, {:+.3}] ", s.estimate, s.lo, s.hi),
        }
    });
    let more = match (d, more_runs(c)) {
        // not checkable on one run: no decision to add runs to
        _ if few_runs(c) => String::new(),
        (shift::Decision::Undecided { .. }, Some(Some(r))) => {
            format!(" (about {r} more kernel runs)")
        }
        (shift::Decision::Undecided { many_sim, .. }, _) => match many_sim {
            Some(r) => format!(" (not by kernel runs alone; {r} with far more simulated runs)"),
            None => " (not by kernel runs alone)".into(),
        },
        _ => String::new(),
    };
    format!("{sh}{}{more}", decision_text(c))
}

/// The cell's decision as the table and `validation.csv` give it: any
/// decision on fewer than [`reproduce_min_runs`] runs on a side is `not
/// checkable`, as [`summary`] counts it: the point verdict's `agree` had no
/// spread to rest on (session 29), and an `undecided` or `disagree` beside
/// "not checkable" in the summary said what the median of one run cannot
/// (session 30, as reproduce/kernel.rs `mark_unjudged` for kernel.json's
/// rows). Other `undecided` and `disagree` cells rest on the shift over
/// all runs and stand. Empty for a metric shown only.
fn decision_text(c: &Cell) -> &'static str {
    match &c.decision {
        None => "",
        Some(_) if few_runs(c) => crate::reproduce::NOT_CHECKABLE,
        Some(d) => d.as_str(),
    }
}

/// Fewer than [`reproduce_min_runs`] runs on a side: a median of one run
/// has no spread, so the cell is counted, not judged.
fn few_runs(c: &Cell) -> bool {
    c.sim.n.min(c.kernel.n) < reproduce_min_runs()
}

/// An undecided cell's estimate of the kernel runs to add
/// ([`shift::runs_to_decide`]): `Some(None)` when kernel runs alone would
/// not decide it; `None` unless undecided, and for a cell on fewer than
/// [`reproduce_min_runs`] runs on a side, whose `undecided` the table, the
/// CSV's `decision` and the summary give as `not checkable` (before, the
/// CSV still filled `more_kernel_runs` from it, session 30).
fn more_runs(c: &Cell) -> Option<Option<u64>> {
    match &c.decision {
        _ if few_runs(c) => None,
        Some(shift::Decision::Undecided { kernel_runs, .. }) => {
            Some(kernel_runs.map(|r| r.saturating_sub(c.kernel.n as u64)))
        }
        _ => None,
    }
}

/// An undecided cell's kernel runs to decide it with far more simulated
/// runs (the CSV's `kernel_runs_many_sim`); `None` as for [`more_runs`].
fn many_sim_runs(c: &Cell) -> Option<u64> {
    match &c.decision {
        _ if few_runs(c) => None,
        Some(shift::Decision::Undecided { many_sim, .. }) => *many_sim,
        _ => None,
    }
}

fn csv(cells: &[Cell]) -> String {
    let opt = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
    let mut s = String::from(
        "scenario,metric,sim_median,sim_ci_lo,sim_ci_hi,sim_ci_coverage,sim_runs,\
kernel_median,kernel_ci_lo,kernel_ci_hi,kernel_ci_coverage,kernel_runs,\
ratio,diff,criterion,verdict,sim_unfinished,sim_items,kernel_unfinished,kernel_items,\
sim_median_kernel_runs,shift_estimate,shift_lo,shift_hi,shift_coverage,decision,\
more_kernel_runs,kernel_runs_many_sim\n",
    );
    for c in cells {
        let crit = match criterion(c.metric) {
            Criterion::Relative(t) => format!("ratio within {:.0}%", t * 100.0),
            Criterion::Absolute(t) => format!("diff within {t}"),
            Criterion::Info => "not counted".into(),
        };
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            c.scenario,
            c.metric,
            c.sim.median,
            c.sim.lo,
            c.sim.hi,
            c.sim.coverage,
            c.sim.n,
            c.kernel.median,
            c.kernel.lo,
            c.kernel.hi,
            c.kernel.coverage,
            c.kernel.n,
            opt(c.ratio),
            opt(c.diff),
            crit,
            c.verdict.as_str(),
            c.sim_unfinished.0,
            c.sim_unfinished.1,
            c.kernel_unfinished.0,
            c.kernel_unfinished.1,
            opt(c.sim_paired),
            opt(c
                .shift
                .as_ref()
                .map(|s| shift::reported(criterion(c.metric), s.estimate))),
            opt(c
                .shift
                .as_ref()
                .map(|s| shift::reported(criterion(c.metric), s.lo))),
            opt(c
                .shift
                .as_ref()
                .map(|s| shift::reported(criterion(c.metric), s.hi))),
            opt(c.shift.as_ref().map(|s| s.coverage)),
            decision_text(c),
            more_runs(c)
                .flatten()
                .map(|r| r.to_string())
                .unwrap_or_default(),
            many_sim_runs(c).map(|r| r.to_string()).unwrap_or_default(),
        ));
    }
    s
}

/// Runs a side needs for its median to be judged ([`crate::reproduce`]'s
/// kernel cells use the same).
fn reproduce_min_runs() -> usize {
    crate::reproduce::MIN_RUNS as usize
}

/// The summary line: "N of M cells pass" over the counted cells.
fn summary(cells: &[Cell]) -> String {
    let counted: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.verdict != Verdict::Info)
        .collect();
    if counted.is_empty() {
        // "0 of 0 cells pass" was a count over nothing (session 29)
        return format!(
            "no verdict: no counted cell (no counted metric has values on both sides; {} shown only)",
            cells.len()
        );
    }
    // a median of one run has no spread: such a cell is counted, not
    // passed (`--runs 1`; reproduce/kernel.rs `metric_gap`, the same rule)
    let few = |c: &&Cell| few_runs(c);
    let pass = counted
        .iter()
        .filter(|c| c.verdict == Verdict::Pass && !few(c))
        .count();
    let unf = counted
        .iter()
        .filter(|c| c.sim_unfinished.0 > 0 || c.kernel_unfinished.0 > 0)
        .count();
    let mut s = format!("{pass} of {} cells pass", counted.len());
    let n_few = counted.iter().filter(|c| few(c)).count();
    if n_few > 0 {
        s.push_str(&format!(
            ", {n_few} not checkable (fewer than {} runs on a side: a median of one run has no spread)",
            reproduce_min_runs()
        ));
    }
    // a cell not checkable on one run is counted there only, not again by
    // its noise decision (session 30; reproduce/like.rs `decisions` alike)
    let judged: Vec<&&Cell> = counted.iter().filter(|c| !few(c)).collect();
    let disagree = judged
        .iter()
        .filter(|c| c.decision == Some(shift::Decision::Disagree))
        .count();
    let more: Vec<Option<u64>> = judged.iter().filter_map(|c| more_runs(c)).collect();
    if unf > 0 {
        s.push_str(&format!(
            " ({unf} of them with unfinished items on at least one side; their medians cover completed items only)"
        ));
    }
    s.push_str(&shift::clause(disagree, &more));
    s
}

/// The `*.toml` files in `dir` and in its immediate subdirectories (the
/// generated grid lives in `grid/`), with `only` matched against the path
/// relative to `dir` (so `--only grid/` selects the grid, `--only file-8m`
/// one size).
fn scenarios(dir: &Path, only: Option<&str>) -> Result<Vec<PathBuf>, String> {
    let list = |d: &Path| -> Result<Vec<PathBuf>, String> {
        Ok(std::fs::read_dir(d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect())
    };
    let mut all = Vec::new();
    for p in list(dir)? {
        if p.is_dir() {
            all.extend(list(&p)?);
        } else {
            all.push(p);
        }
    }
    let mut v: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            only.is_none_or(|o| {
                p.strip_prefix(dir)
                    .is_ok_and(|r| r.to_string_lossy().contains(o))
            })
        })
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(format!(
            "{}: no validation scenarios (*.toml){}",
            dir.display(),
            only.map(|o| format!(" matching \"{o}\""))
                .unwrap_or_default()
        ));
    }
    Ok(v)
}

pub fn run(o: Options) -> ExitCode {
    // a --kernel-from that is no directory: one message, before the
    // CONFIG_HZ note and per-scenario errors it led to (session 27)
    if let Some(d) = o.kernel_from.iter().find(|d| !d.is_dir()) {
        eprintln!(
            "error: --kernel-from {}: {}; expected the directory of an earlier `mptlab validate -o DIR`",
            d.display(),
            if d.exists() { "not a directory" } else { "no such directory" }
        );
        return ExitCode::from(2);
    }
    if o.runs == Some(0) {
        eprintln!("error: --runs 0: expected a number of runs >= 1");
        return ExitCode::from(2);
    }
    if o.decisions && o.kernel_from.len() > 1 {
        eprintln!(
            "error: --kernel-from: --decisions re-judges one saved pass; got {} directories ({})",
            o.kernel_from.len(),
            dirs_display(&o.kernel_from)
        );
        return ExitCode::from(2);
    }
    let files = match scenarios(&o.dir, o.only.as_deref()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let set: Vec<Override> = o
        .runs
        .map(|r| Override {
            key: "scenario.runs".into(),
            value: r.to_string(),
        })
        .into_iter()
        .collect();
    let mut loaded = Vec::new();
    for f in &files {
        match Scenario::load(f, &set) {
            Ok(s) => {
                if let Err(e) = Simulate
                    .supported(&s)
                    .and_then(|_| mptlab_emu::run::supported(&s))
                {
                    eprintln!("error: {}: {e}", f.display());
                    return ExitCode::from(2);
                }
                loaded.push(s);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // the emulator ignores transport.hz (the kernel has its own) and the
    // saved files' kernel hash leaves it out, so both sides get it
    let hz = sim_hz(&o, &loaded);
    for s in &mut loaded {
        s.transport.hz = hz;
    }
    // the jiffy's phase: per run, from the kernel run (decisions only)
    let phase_from = match o.hz_phase_us {
        Some(p) if p >= 1_000_000 / hz => {
            eprintln!(
                "error: --hz-phase-us {p}: expected a phase within one jiffy, 0 to {} us at \
                 transport.hz = {hz}",
                1_000_000 / hz - 1
            );
            return ExitCode::from(2);
        }
        Some(p) => {
            eprintln!("validate: simulator side at transport.hz_phase_us = {p} (--hz-phase-us)");
            phase::PhaseFrom::Fixed(p)
        }
        None => phase::PhaseFrom::Kernel,
    };
    if o.decisions {
        if let (Some(a), Some(b)) = (o.kernel_from.first(), &o.kernel_vs) {
            return run_kernel_vs(&loaded, a, b, o.out.as_deref());
        }
        if let Some(prev) = o.kernel_from.first() {
            return run_decisions_from(
                &loaded,
                prev,
                o.out.as_deref(),
                phase_from,
                o.compact_kernel.as_deref(),
            );
        }
    }
    // Saved kernel runs: all checked before anything runs, so a mismatch is
    // refused at once.
    let mut reused: Vec<Option<Vec<RunOutput>>> = vec![None; loaded.len()];
    if !o.kernel_from.is_empty() {
        for (i, s) in loaded.iter().enumerate() {
            let name = short_name(s);
            match saved::load(kernel_dir(&o.kernel_from, &name), &name, s) {
                Ok(r) => reused[i] = Some(r),
                Err(e) => {
                    eprintln!("error: --kernel-from: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    // Root, TUN, MPTCP, signal handling; refuses clearly otherwise. Not
    // needed when every kernel side is reused.
    let emulate = if !o.kernel_from.is_empty() {
        None
    } else {
        match mptlab_emu::run::prepare(&loaded[0], None) {
            Ok(o) => Some(Emulate(o)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    };
    if o.decisions {
        let e = emulate.as_ref().expect("prepared without --kernel-from");
        return run_decisions(&loaded, &e.0, o.out.as_deref(), phase_from);
    }
    let mut cells: Vec<Cell> = Vec::new();
    for (s, reused) in loaded.iter().zip(reused) {
        let name = short_name(s);
        // the simulator's runs first (seconds), then the kernel's (real time)
        let mut sim = Vec::new();
        for r in 0..s.meta.runs {
            match Simulate.run_once(s, r) {
                Ok(x) => sim.push(x),
                Err(e) => {
                    eprintln!("error: {name}: simulation run {r}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        let emu = if let Some(emu) = reused {
            eprintln!(
                "validate: {name}: {} run(s) simulated; {} kernel run(s) reused from --kernel-from",
                s.meta.runs,
                emu.len()
            );
            emu
        } else {
            let emulate = emulate.as_ref().expect("prepared without --kernel-from");
            eprintln!(
                "validate: {name}: {} run(s) simulated, then emulated in real time ({} s each)",
                s.meta.runs, s.meta.duration_s
            );
            let mut emu = Vec::new();
            for r in 0..s.meta.runs {
                match emulate.run_once(s, r) {
                    Ok(x) => emu.push(x),
                    Err(e) => {
                        eprintln!("error: {name}: emulation run {r}: {e}");
                        return ExitCode::from(1);
                    }
                }
            }
            // saved as soon as the scenario's kernel runs are done, so an
            // interrupted pass keeps what it measured
            if let Some(dir) = &o.out {
                if let Err(e) = saved::save(dir, &name, s, &emu) {
                    eprintln!("error: {e}");
                    return ExitCode::from(1);
                }
            }
            emu
        };
        // medians of completion times / delays cover completed items only
        for (what, runs) in [("simulated", &sim), ("emulated", &emu)] {
            let place = format!("{name} ({what})");
            if let Some(w) = crate::runner::unfinished_warning(&Unfinished::of(runs), &place) {
                eprintln!("{w}");
            }
        }
        let multipath = s.transport.protocol == mptlab_scenario::Protocol::Mptcp;
        cells.extend(cells_of(&name, multipath, &sim, &emu));
    }
    let mut text = table(&cells);
    text.push_str(&format!(
        "\nCI: distribution-free order-statistic interval of the median over runs; with fewer \
than 6 runs it is [min, max] and covers less than 95 % (3 runs: 75 %; see the CSV's \
*_ci_coverage).\nCriteria: completion_time_ms and delay_ms_median ratio kernel/sim within \
10 %; fg_share_path2 within 0.05 (MPTCP only: a single-path protocol's shares are 0 or 1 by \
construction); delay_ms_p95, fg_throughput_mbit and fg_share_path1 \
(the complement of path 2's) are shown, not counted.\n\
unfin sim; krn: unfinished transfers (completion time), undelivered messages (delays) or both \
(other metrics), of all, over all runs.\n{}\n",
        summary(&cells)
    ));
    let csv = csv(&cells);
    out!("{text}");
    if let Some(dir) = o.out {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&dir)?;
            let tmp = dir.join(".validation.csv.partial");
            std::fs::write(&tmp, &csv)?;
            std::fs::rename(&tmp, dir.join("validation.csv"))?;
            let tmp = dir.join(".validation.txt.partial");
            std::fs::write(&tmp, &text)?;
            std::fs::rename(&tmp, dir.join("validation.txt"))
        };
        if let Err(e) = write() {
            eprintln!("error: {}: {e}", dir.display());
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

/// The scenario's name without the `validate-` prefix (table rows, saved
/// kernel file names).
fn short_name(s: &Scenario) -> String {
    s.meta.name.trim_start_matches("validate-").to_string()
}

/// `--decisions`: every MPTCP scenario, simulated and emulated with captures
/// (under `out`, else a temporary directory), placements compared.
fn run_decisions(
    loaded: &[Scenario],
    emulate: &mptlab_emu::run::EmulateOptions,
    out: Option<&Path>,
    phase: phase::PhaseFrom,
) -> ExitCode {
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mptlab-decisions-{}", std::process::id()))
    });
    let mut rows = Vec::new();
    for s in loaded {
        if !decisions::applies(s) {
            eprintln!("decisions: {}: not MPTCP, skipped", s.meta.name);
            continue;
        }
        match decisions::run_scenario(s, emulate, &dir.join("captures"), phase) {
            Ok(v) => rows.extend(v),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    write_decisions(&rows, &dir)
}

/// Print decisions.txt and write it and decisions.csv to `dir`.
fn write_decisions(rows: &[decisions::RunCmp], dir: &Path) -> ExitCode {
    write_decisions_of(rows, dir, decisions::SIM_KERNEL, "")
}

/// [`write_decisions`] with the sides named, and a first line `head`.
fn write_decisions_of(
    rows: &[decisions::RunCmp],
    dir: &Path,
    sides: decisions::Sides,
    head: &str,
) -> ExitCode {
    let text = format!("{head}{}", decisions::table_of(rows, sides));
    out!("{text}");
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(".decisions.csv.partial");
        std::fs::write(&tmp, decisions::csv_of(rows, sides))?;
        std::fs::rename(&tmp, dir.join("decisions.csv"))?;
        std::fs::write(dir.join("decisions.txt"), &text)
    };
    if let Err(e) = write() {
        eprintln!("error: {}: {e}", dir.display());
        return ExitCode::from(1);
    }
    eprintln!("decisions: wrote {}", dir.join("decisions.csv").display());
    ExitCode::SUCCESS
}

/// Whether `dir` is `prev` or below it, after resolving links and `..` (an
/// `dir` not made yet resolves through its parent).
fn inside(dir: &Path, prev: &Path) -> bool {
    let real = |a: &Path| {
        a.canonicalize().ok().or_else(|| {
            let parent = a.parent().filter(|p| !p.as_os_str().is_empty());
            let parent = parent.unwrap_or(Path::new("."));
            Some(parent.canonicalize().ok()?.join(a.file_name()?))
        })
    };
    real(dir)
        .zip(real(prev))
        .is_some_and(|(a, b)| a == b || a.starts_with(&b))
}

/// `--decisions --kernel-from PREV`: the kernel captures an earlier
/// `--decisions -o PREV` saved, re-judged against this simulator (no root,
/// no emulation). Every scenario is checked before anything runs. With
/// `keep` (`--compact-kernel DIR`) the checked kernel runs are written to
/// DIR in compressed form instead, with PREV's decisions.csv/.txt.
fn run_decisions_from(
    loaded: &[Scenario],
    prev: &Path,
    out: Option<&Path>,
    phase: phase::PhaseFrom,
    keep: Option<&Path>,
) -> ExitCode {
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mptlab-decisions-{}", std::process::id()))
    });
    // never write into the directory the kernel captures are read from
    if inside(&dir, prev) {
        eprintln!(
            "error: --decisions --kernel-from {}: -o {} would overwrite the captures it reads; \
             pass another -o DIR",
            prev.display(),
            dir.display()
        );
        return ExitCode::from(2);
    }
    let mut legacy = None;
    let mut saved = Vec::new();
    for s in loaded {
        if !decisions::applies(s) {
            eprintln!("decisions: {}: not MPTCP, skipped", s.meta.name);
            continue;
        }
        match decisions::check_saved(s, prev, &mut legacy) {
            Ok(k) => saved.push((s, k)),
            Err(e) => {
                eprintln!("error: --kernel-from: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(to) = keep {
        return keep_compressed(&saved, prev, to);
    }
    let mut rows = Vec::new();
    for (s, k) in &saved {
        match decisions::rejudge_scenario(s, k, &dir.join("captures"), phase) {
            Ok(v) => rows.extend(v),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    write_decisions(&rows, &dir)
}

/// `--decisions --kernel-from A --kernel-vs B`: two saved kernel passes of
/// the same scenarios and run seeds compared run by run, as the simulator is
/// compared with one of them (no root, nothing simulated). Every scenario
/// of both passes is checked before anything is compared.
fn run_kernel_vs(loaded: &[Scenario], a: &Path, b: &Path, out: Option<&Path>) -> ExitCode {
    let same = |x: &Path, y: &Path| inside(x, y) && inside(y, x);
    if same(a, b) {
        eprintln!(
            "error: --kernel-vs {}: the same pass as --kernel-from; name another saved pass",
            b.display()
        );
        return ExitCode::from(2);
    }
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mptlab-decisions-{}", std::process::id()))
    });
    if let Some(p) = [a, b].into_iter().find(|p| inside(&dir, p)) {
        eprintln!(
            "error: --decisions --kernel-vs: -o {} would write into the saved pass {}; pass \
             another -o DIR",
            dir.display(),
            p.display()
        );
        return ExitCode::from(2);
    }
    let (mut legacy_a, mut legacy_b) = (None, None);
    let mut pairs = Vec::new();
    for s in loaded {
        if !decisions::applies(s) {
            eprintln!("decisions: {}: not MPTCP, skipped", s.meta.name);
            continue;
        }
        let checked = decisions::check_saved(s, a, &mut legacy_a)
            .map_err(|e| format!("--kernel-from: {e}"))
            .and_then(|ka| {
                decisions::check_saved(s, b, &mut legacy_b)
                    .map(|kb| (ka, kb))
                    .map_err(|e| format!("--kernel-vs: {e}"))
            });
        match checked {
            Ok((ka, kb)) => pairs.push((s, ka, kb)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut rows = Vec::new();
    for (s, ka, kb) in &pairs {
        match decisions::kernel_vs_kernel(s, ka, kb) {
            Ok(v) => rows.extend(v),
            Err(e) => {
                eprintln!("error: --kernel-vs: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let head = format!(
        "kernel against kernel: A = {}, B = {} (the same runs and seeds; nothing simulated)\n",
        a.display(),
        b.display()
    );
    write_decisions_of(&rows, &dir, decisions::KERNEL_PAIR, &head)
}

/// `--compact-kernel TO`: the checked kernel runs of every scenario, and
/// PREV's verdicts (decisions.csv/.txt, when there), written to `to`.
fn keep_compressed(saved: &[(&Scenario, decisions::Saved)], prev: &Path, to: &Path) -> ExitCode {
    if inside(to, prev) || inside(prev, to) {
        eprintln!(
            "error: --compact-kernel {}: overlaps --kernel-from {}; pass a directory of its own",
            to.display(),
            prev.display()
        );
        return ExitCode::from(2);
    }
    let mut bytes = 0;
    for (s, k) in saved {
        match decisions::keep_compressed(s, k, to) {
            Ok(b) => bytes += b,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    for f in ["decisions.csv", "decisions.txt"] {
        let src = prev.join(f);
        if src.is_file() {
            match std::fs::copy(&src, to.join(f)) {
                Ok(b) => bytes += b,
                Err(e) => {
                    eprintln!("error: {} -> {}: {e}", src.display(), to.display());
                    return ExitCode::from(1);
                }
            }
        }
    }
    eprintln!(
        "decisions: kept the kernel runs of {} scenario(s) in {} ({bytes} bytes); re-judge with \
         --kernel-from {}",
        saved.len(),
        to.display(),
        to.display()
    );
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::{cells_of, csv, inside, saved, scenarios, summary, table};
    use mptlab_results::RunOutput;
    use mptlab_scenario::{Override, Scenario};

    const GRID_CELL: &str =
        include_str!("../../../scenarios/validate/grid/file-1m-wifi-3g-loss1-mptcp.toml");

    fn scenario(set: &[(&str, &str)]) -> Scenario {
        let set: Vec<Override> = set
            .iter()
            .map(|(k, v)| Override {
                key: k.to_string(),
                value: v.to_string(),
            })
            .collect();
        Scenario::from_str_with_overrides(GRID_CELL, "grid-cell.toml", &set).unwrap()
    }

    /// Runs with made-up metrics (a completion time and path 2's share per
    /// run), the seeds the scenario gives its runs.
    fn runs(s: &Scenario, n: u32, ct: f64, share: f64) -> Vec<RunOutput> {
        (0..n)
            .map(|r| {
                let mut o = RunOutput::new(r, s.run_seed(r));
                o.summary.insert(
                    "completion_time_ms".into(),
                    serde_json::json!(ct + 7.0 * f64::from(r)),
                );
                o.summary.insert(
                    "fg_share_path2".into(),
                    serde_json::json!(share + 0.01 * f64::from(r % 3)),
                );
                o.summary.insert("transfers".into(), serde_json::json!(1));
                o
            })
            .collect()
    }

    fn tmp(name: &str) -> crate::scratch::Scratch {
        crate::scratch::Scratch::unmade(name)
    }

    /// Kernel runs saved and loaded back give the same cells, CSV and
    /// summary line as the runs themselves, also when the simulator side
    /// runs more often than the kernel did (`scenario.runs` is not a
    /// kernel-relevant setting).
    #[test]
    fn saved_kernel_runs_give_the_same_verdicts() {
        let d = tmp("kernel-reuse");
        let s = scenario(&[("scenario.runs", "10")]);
        let kernel = runs(&s, 10, 700.0, 0.02);
        saved::save(&d, "cell", &s, &kernel).unwrap();
        let sim = runs(&s, 30, 760.0, 0.09);
        let original = cells_of("cell", true, &sim, &kernel);
        let s30 = scenario(&[("scenario.runs", "30")]);
        let reused = saved::load(&d, "cell", &s30).unwrap();
        assert_eq!(reused.len(), 10);
        let again = cells_of("cell", true, &sim, &reused);
        assert_eq!(csv(&original), csv(&again));
        assert_eq!(summary(&original), summary(&again));
        // a fail and a pass survive the round trip: share 0.02+ vs 0.09+
        // is 7 points apart, completion time 731.5 vs 861.5 ms is -15 %
        assert_eq!(
            summary(&again),
            "0 of 2 cells pass; 2 disagree beyond their 95 % interval; 0 undecided"
        );
        // the simulator's median over the kernel's ten runs (760 + 7 r, r < 10)
        // beside the one over its thirty (760 + 7 r, r < 30)
        let ct = &again[0];
        assert_eq!(ct.metric, "completion_time_ms");
        assert_eq!((ct.sim.median, ct.sim_paired), (861.5, Some(791.5)));
        // the same runs as single-path TCP: the share is shown, not counted
        assert_eq!(
            summary(&cells_of("cell", false, &sim, &kernel)),
            "0 of 1 cells pass; 1 disagree beyond their 95 % interval; 0 undecided"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Session 29: no counted cell (none with values on both sides, or
    /// only shares of a single-path protocol) read "0 of 0 cells pass".
    #[test]
    fn no_counted_cell_is_no_verdict_not_0_of_0() {
        assert_eq!(
            summary(&[]),
            "no verdict: no counted cell (no counted metric has values on both sides; 0 shown only)"
        );
    }

    /// Session 28: `validate --runs 1` passed a cell on one kernel run
    /// against one simulated run ("1 of 1 cells pass"); it is counted, not
    /// passed, with the reason.
    #[test]
    fn one_run_cells_are_not_checkable() {
        let s = scenario(&[]);
        let one = runs(&s, 1, 700.0, 0.1);
        let cells = cells_of("cell", false, &one, &one);
        assert_eq!(cells[0].verdict, super::Verdict::Pass);
        assert!(
            summary(&cells).starts_with(
                "0 of 1 cells pass, 1 not checkable (fewer than 2 runs on a side: a median of one run \
                 has no spread)"
            ),
            "{}",
            summary(&cells)
        );
        // session 29: the table's and the CSV's decision say so too (they said agree)
        let csv = csv(&cells);
        let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = head.iter().position(|h| *h == "decision").unwrap();
        for line in csv.lines().skip(1) {
            let d = line.split(',').nth(col).unwrap();
            assert!(d.is_empty() || d == "not checkable", "{line}");
        }
        assert!(csv
            .lines()
            .skip(1)
            .any(|l| l.split(',').nth(col) == Some("not checkable")));
        assert!(table(&cells).contains("not checkable"), "{}", table(&cells));
        assert!(!table(&cells).contains(" agree"), "{}", table(&cells));
        // session 30: one kernel run far outside the criterion: the shift
        // says `undecided` ("one kernel run: its spread is unknown"); the
        // table, the CSV and the summary say not checkable, once
        let far = runs(&s, 1, 2100.0, 0.1);
        let cells = cells_of("cell", false, &one, &far);
        assert_eq!(cells[0].verdict, super::Verdict::Fail);
        assert!(
            matches!(
                cells[0].decision,
                Some(super::shift::Decision::Undecided { .. })
            ),
            "{:?}",
            cells[0].decision
        );
        assert_eq!(super::decision_text(&cells[0]), "not checkable");
        let line = summary(&cells);
        assert!(
            line.starts_with("0 of 1 cells pass, 1 not checkable"),
            "{line}"
        );
        assert!(
            line.ends_with("; 0 disagree beyond their 95 % interval; 0 undecided"),
            "{line}"
        );
        assert!(!table(&cells).contains("undecided"), "{}", table(&cells));
        // nor does the CSV fill the runs to add from that `undecided`, as
        // the table shows none (it filled them, session 30's review)
        let text = super::csv(&cells);
        let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
        let line: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
        for k in ["decision", "more_kernel_runs", "kernel_runs_many_sim"] {
            let col = head.iter().position(|h| *h == k).unwrap();
            let want = if k == "decision" { "not checkable" } else { "" };
            assert_eq!(line[col], want, "{k}: {text}");
        }
    }

    /// The kernel's CONFIG_HZ is recorded beside its runs (when the host's
    /// config says it) and read back; `transport.hz` is the simulator's, so
    /// a scenario with another value still matches the saved kernel runs,
    /// and a file without the record (older passes) reads as unknown.
    #[test]
    fn saved_kernel_runs_record_config_hz_and_match_any_transport_hz() {
        let d = tmp("kernel-hz");
        let s = scenario(&[]);
        saved::save(&d, "cell", &s, &runs(&s, 3, 700.0, 0.1)).unwrap();
        let p = saved::path(&d, "cell");
        let host = crate::kernel_hz::host().ok().map(|(hz, _)| hz);
        assert_eq!(saved::recorded_hz(&p), host);
        let s250 = scenario(&[("transport.hz", "250")]);
        assert_eq!(s250.transport.hz, 250);
        assert_eq!(saved::load(&d, "cell", &s250).unwrap().len(), 3);
        let mut j: saved::SavedScenario =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        j.kernel_hz = None;
        let text = serde_json::to_string(&j).unwrap();
        assert!(!text.contains("kernel_hz"), "{text}");
        std::fs::write(&p, text).unwrap();
        assert_eq!(saved::recorded_hz(&p), None);
        assert!(saved::load(&d, "cell", &s).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Saved kernel runs are refused, with the file and the reason, when the
    /// scenario's links, transport or traffic, its seed, or a run's seed no
    /// longer match; a different description or output is accepted.
    #[test]
    fn saved_kernel_runs_of_other_settings_are_refused() {
        let d = tmp("kernel-refuse");
        let s = scenario(&[]);
        saved::save(&d, "cell", &s, &runs(&s, 3, 700.0, 0.1)).unwrap();
        let ok = scenario(&[
            ("scenario.description", "\"other words\""),
            ("output.timeseries_interval_ms", "100"),
        ]);
        assert!(saved::load(&d, "cell", &ok).is_ok());
        let err = |set: &[(&str, &str)]| saved::load(&d, "cell", &scenario(set)).unwrap_err();
        let e = err(&[("profile.3g-loss.rate_mbit", "[1.0, 1.5]")]);
        assert!(
            e.contains("other settings") && e.contains("cell.json"),
            "{e}"
        );
        let e = err(&[("transport.sndbuf_kib", "512")]);
        assert!(e.contains("other settings"), "{e}");
        let e = err(&[("scenario.seed", "2")]);
        assert!(e.contains("scenario.seed = 1"), "{e}");
        let e = saved::load(&d, "other", &s).unwrap_err();
        assert!(e.contains("no saved kernel results"), "{e}");
        // a run stored under another seed
        let p = saved::path(&d, "cell");
        let mut j: saved::SavedScenario =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        j.runs[1].seed ^= 1;
        std::fs::write(&p, serde_json::to_string(&j).unwrap()).unwrap();
        let e = saved::load(&d, "cell", &s).unwrap_err();
        assert!(e.contains("run 1 has seed"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// `--decisions --kernel-from PREV -o OUT` refuses an OUT that is PREV
    /// or lies inside it, however spelled.
    #[test]
    fn output_inside_the_saved_pass_is_detected() {
        let prev = tmp("dec-inside");
        std::fs::create_dir_all(prev.join("captures")).unwrap();
        assert!(inside(&prev, &prev));
        assert!(inside(&prev.join("captures/../"), &prev));
        assert!(inside(&prev.join("not-yet"), &prev));
        assert!(!inside(&prev.with_extension("other"), &prev));
        std::fs::remove_dir_all(&prev).unwrap();
    }

    /// The generated grid in a subdirectory is picked up, and `--only`
    /// matches the path below the directory.
    /// scenarios/decisions/ is the 9-cell decision set: byte-for-byte
    /// copies of its sources (scripts/gen-decisions.py), outside
    /// scenarios/validate/ so that a plain `validate` does not run them twice.
    #[test]
    fn decision_set_is_a_copy_of_its_sources() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let set = scenarios(&repo.join("scenarios/decisions"), None).unwrap();
        let names: Vec<String> = set
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 9, "{names:?}");
        for (p, n) in set.iter().zip(&names) {
            let src = match n.strip_prefix("grid-") {
                Some(g) => repo.join("scenarios/validate/grid").join(g),
                None => repo.join("scenarios/validate").join(n),
            };
            assert_eq!(
                std::fs::read(p).unwrap(),
                std::fs::read(&src).unwrap(),
                "{} differs from {}: run scripts/gen-decisions.py",
                p.display(),
                src.display()
            );
        }
        let validate = scenarios(&repo.join("scenarios/validate"), None).unwrap();
        assert!(validate
            .iter()
            .all(|p| !p.to_string_lossy().contains("decisions")));
    }

    #[test]
    fn scenarios_include_one_subdirectory_level() {
        let dir = crate::scratch::Scratch::unmade("validate-list");
        std::fs::create_dir_all(dir.join("grid/deeper")).unwrap();
        for f in ["a.toml", "notes.md", "grid/b.toml", "grid/deeper/c.toml"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let names = |only: Option<&str>| -> Vec<String> {
            scenarios(&dir, only)
                .unwrap()
                .iter()
                .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(names(None), ["a.toml", "grid/b.toml"]);
        assert_eq!(names(Some("grid/")), ["grid/b.toml"]);
        assert!(scenarios(&dir, Some("nothing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
