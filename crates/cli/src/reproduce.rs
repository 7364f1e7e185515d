//! `mptlab reproduce [SEED|all] --out DIR [--quick]`: run a seed paper's
//! scenario library (the experiments of `scenarios/registry/experiments.toml`,
//! each a file `scenarios/seed<SEED>/<id>.toml` swept once) with the sweep
//! engine, each sweep persisted and resumable under `DIR/runs/seed<SEED>/<id>/`,
//! then write the HTML report with the Python package
//! (`python3 -m mptlab.report DIR`). The registry is checked first (files,
//! sweep axes, the claims' `experiments`; [`crate::experiments`]), so a
//! renamed or missing scenario stops the run with one message. See
//! docs/report.md.

mod kernel;
mod kernel_from;
mod like;
mod pace;
pub(crate) mod progress;
mod until;

/// `--kernel-runs` default.
pub const KERNEL_RUNS: u32 = kernel::DEFAULT_RUNS;
/// Paired runs a judged median needs (kernel cells and `validate`'s cells).
pub const MIN_RUNS: u64 = kernel::MIN_RUNS;
/// What a cell or row is instead of agree / disagree on no data
/// (`validate` says it too).
pub const NOT_CHECKABLE: &str = kernel::NOT_CHECKABLE;

use crate::driver::{Driver, Emulate, Simulate};
use crate::experiments::{Registry, REGISTRY};
use crate::sweep::{self, SweepOptions};
use mptlab_scenario::{Link, Override, Scenario, Topology, TrafficModel};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The seed papers (`../shared/seeds/`); a seed is reproducible once its
/// library `scenarios/seed<SEED>/` exists.
pub const SEEDS: &[&str] = &["000", "001", "002", "003", "004"];
/// `--quick`: runs per point and run duration (s; video, gaming, bulk and
/// the other open-ended traffic; web, file and bursts runs keep their cut;
/// runs with scheduled events last this long after the last one, see
/// [`last_event_s`]).
pub const QUICK_RUNS: u32 = 3;
pub const QUICK_DURATION_S: f64 = 20.0;
/// `--quick`: bursts per run of the `bursts` model (a run ends when its last
/// burst is delivered, so fewer bursts rather than a cut keep every burst whole).
pub const QUICK_BURSTS: u32 = 20;

/// The latest scheduled event of a scenario (s): the end of a link outage or
/// the start of delayed background traffic; 0 without any. `--quick` keeps
/// `QUICK_DURATION_S` after it, so a handover at 100 s (seed 004 sec. 4.4) or
/// cross traffic from 300 s (sec. 4.2) still happens in a quick run.
pub fn last_event_s(s: &Scenario) -> f64 {
    let mut links: Vec<&Link> = Vec::new();
    match &s.topology {
        Topology::Preset {
            paths, server_link, ..
        } => {
            links.extend(paths.iter().map(|p| &p.link));
            links.push(server_link);
        }
        Topology::Explicit { links: l, .. } => links.extend(l.iter().map(|l| &l.link)),
    }
    let mut last: f64 = 0.0;
    for l in links {
        for o in l.up.outages.iter().chain(&l.down.outages) {
            last = last.max(o.at_s + o.duration_s);
        }
    }
    if s.background.enabled {
        last = last.max(s.background.start_s);
    }
    last
}

pub struct Options {
    pub seed: String,
    pub out: PathBuf,
    pub quick: bool,
    pub jobs: usize,
    pub runs: Option<u32>,
    pub only: Vec<String>,
    pub library: Option<PathBuf>,
    pub no_report: bool,
    pub tables: bool,
    pub quiet: bool,
    /// Passed to every sweep: one whose runs were made from another
    /// scenario, other input files or another mptlab is redone, not refused.
    pub force: bool,
    /// Check the registry, the library files, their sweeps and the claims'
    /// references, then stop (nothing is run or written).
    pub check: bool,
    /// `--kernel`: after the simulation, the cells the kernel can run, over
    /// the real kernel ([`kernel`]).
    pub kernel: Option<KernelOptions>,
    /// `--kernel-from FILE`: judge the kernel runs saved in an earlier
    /// pass's kernel.json against this simulation ([`kernel_from`]).
    /// Several files: the later ones' cells replace the earlier ones'
    /// (`kernel_from::Saved::overlay`).
    pub kernel_from: Vec<PathBuf>,
    /// `--hz N`: the simulation's `transport.hz` instead of the kernel's
    /// CONFIG_HZ ([`sim_hz`]).
    pub hz: Option<u32>,
    /// `--until-decided MAX`: after the kernel pass (`--kernel`) or on the
    /// saved runs (`--kernel-from`), give every undecided cell more kernel
    /// runs, up to MAX in all ([`until`]).
    pub until_decided: Option<u32>,
}

/// `--until-decided MAX` against the other options and the planned cells,
/// before anything is simulated: it needs a kernel pass to add to, MAX at
/// least the planned kernel runs, and a simulated run for every kernel run
/// index up to MAX (kernel run `r` is judged with simulated run `r`).
fn check_until(o: &Options, cells: &[kernel::Cell]) -> Result<(), String> {
    let Some(max) = o.until_decided else {
        return Ok(());
    };
    let planned = match (&o.kernel, o.kernel_from.is_empty()) {
        (Some(k), _) => k.runs,
        (None, false) => 1,
        (None, true) => {
            return Err(format!(
                "--until-decided {max} adds kernel runs to a kernel pass: pass --kernel (live) or \
                 --kernel-from FILE (continue a saved pass)"
            ))
        }
    };
    if max < planned {
        return Err(format!(
            "--until-decided {max} is below --kernel-runs {planned}: MAX is the most kernel runs a \
             cell gets in all"
        ));
    }
    if let Some(c) = cells
        .iter()
        .find(|c| c.runnable.is_ok() && c.sim_runs < max)
    {
        return Err(format!(
            "--until-decided {max}: kernel run r is judged with simulated run r, and {} has {} \
             simulated run(s) per point: pass --runs {max} or more",
            c.key, c.sim_runs
        ));
    }
    Ok(())
}

/// The `transport.hz` every sweep is simulated with when the kernel is
/// compared, said on stderr: `--hz`; the host's CONFIG_HZ with `--kernel`
/// (`crate::kernel_hz::host`, recorded in kernel.json as `kernel_hz`); the
/// `kernel_hz` the first `--kernel-from` file records. Unknown: 1000 (the
/// model's default), said. `None` without a kernel comparison and `--hz`:
/// the scenarios' own values.
fn sim_hz(o: &Options, saved: Option<&kernel_from::Saved>) -> Option<u32> {
    if let Some(hz) = o.hz {
        eprintln!("reproduce: simulating at transport.hz = {hz} (--hz)");
        return Some(hz);
    }
    if let Some(s) = saved {
        return Some(match s.json["kernel_hz"].as_u64() {
            Some(hz) => {
                eprintln!(
                    "reproduce: {} records the kernel's CONFIG_HZ = {hz}; simulating at transport.hz = {hz}",
                    s.sources().join(" + ")
                );
                hz as u32
            }
            None => {
                eprintln!(
                    "reproduce: {} do(es) not record the kernel's CONFIG_HZ; simulating at \
                     transport.hz = 1000 (assumed; --hz N to set it)",
                    s.sources().join(" + ")
                );
                1000
            }
        });
    }
    o.kernel.as_ref()?;
    Some(match crate::kernel_hz::host() {
        Ok((hz, from)) => {
            eprintln!(
                "reproduce: kernel CONFIG_HZ = {hz} ({from}); simulating at transport.hz = {hz}"
            );
            hz
        }
        Err(e) => {
            eprintln!("reproduce: {e}; simulating at transport.hz = 1000 (assumed)");
            1000
        }
    })
}

/// `--kernel`, `--kernel-runs`, `--kernel-only`, `--kernel-plan`.
pub struct KernelOptions {
    /// Runs per cell on the kernel.
    pub runs: u32,
    /// Substrings of `seed<SEED>/<id>:<point label>`; empty: every cell.
    pub only: Vec<String>,
    /// Print the cells (run, refused and why) and the real time, run nothing.
    pub plan: bool,
}

/// `scenarios/` next to the working directory, else relative to the
/// executable (target/release/mptlab -> ../../scenarios).
fn library_root(explicit: &Option<PathBuf>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.clone());
    }
    let cwd = PathBuf::from("scenarios");
    if cwd.is_dir() {
        return Some(cwd);
    }
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.parent()?.join("scenarios");
    p.is_dir().then_some(p)
}

/// The registry of the library at `root`, checked against the files on disk
/// and against the claims catalogue (`docs/claims/claims.toml` beside the
/// library, when there is one: a `--library` elsewhere has no claims).
fn registry(root: &Path) -> Result<Registry, String> {
    let reg = Registry::load(&root.join(REGISTRY))?;
    reg.check_files(root)?;
    let claims = match root.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join("docs/claims/claims.toml"),
        Some(_) => PathBuf::from("docs/claims/claims.toml"),
        None => root.join("../docs/claims/claims.toml"),
    };
    if claims.is_file() {
        reg.check_claims(&claims)?;
    }
    Ok(reg)
}

/// A seed's library files, from the registry, in file-name order (the order
/// of the sweeps and of reproduce.json).
fn library(root: &Path, reg: &Registry, seed: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let mut files: Vec<(String, PathBuf)> = reg
        .of_seed(seed)
        .into_iter()
        .map(|x| (x.key(), x.file(root)))
        .collect();
    files.sort_by(|a, b| a.1.cmp(&b.1));
    if files.is_empty() {
        return Err(format!(
            "{}: no experiments of seed {seed}",
            reg.path.display()
        ));
    }
    Ok(files)
}

pub fn run(o: &Options) -> ExitCode {
    let Some(root) = library_root(&o.library) else {
        eprintln!("error: cannot find the scenario library (scenarios/seed<SEED>/); run from the repository or pass --library DIR");
        return ExitCode::from(2);
    };
    let reg = match registry(&root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let have: Vec<&str> = SEEDS
        .iter()
        .copied()
        .filter(|s| reg.experiments.iter().any(|x| x.seed == *s))
        .collect();
    let seeds: Vec<&str> = if o.seed == "all" {
        have.clone()
    } else if let Some(s) = have.iter().find(|s| **s == o.seed) {
        vec![*s]
    } else {
        eprintln!(
            "error: seed `{}`: no scenario library (have: {}, or `all`)",
            o.seed,
            have.join(", ")
        );
        return ExitCode::from(2);
    };
    // plan everything first: a bad file runs nothing
    let mut jobs: Vec<(String, PathBuf)> = Vec::new();
    for seed in &seeds {
        match library(&root, &reg, seed) {
            Ok(files) => {
                for (key, f) in files {
                    let stem = f.file_stem().unwrap().to_string_lossy().to_string();
                    if o.only.is_empty() || o.only.iter().any(|s| stem.contains(s.as_str())) {
                        jobs.push((key, f));
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if jobs.is_empty() {
        eprintln!("error: --only {:?} matches no scenario file", o.only);
        return ExitCode::from(2);
    }
    let runs = if o.quick {
        o.runs.or(Some(QUICK_RUNS))
    } else {
        o.runs
    };
    // per file: the overrides (--quick shortens video and gaming runs; a web
    // run is one page load, cut at the file's duration, which stays)
    let mut sets: Vec<Vec<Override>> = Vec::new();
    // the planned sweeps, for the kernel's cells (the same points and overrides)
    let mut planned: Vec<(String, String, mptlab_scenario::Sweep)> = Vec::new();
    for (key, f) in &jobs {
        let sw = match sweep::plan(f, &[], runs) {
            Ok(sw) => sw,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        // the report reads the points' values by these keys
        let x = reg.experiments.iter().find(|x| x.key() == *key);
        if let Some(Err(e)) = x.map(|x| reg.check_axes(x, &sw.keys)) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        let s0 = &sw.points[0].scenario;
        let mut set = Vec::new();
        // a web or file run ends with its page or file; cutting it shorter
        // would turn slow transfers into unfinished ones
        let open_ended = !matches!(
            s0.traffic.model,
            TrafficModel::Web { .. } | TrafficModel::File { .. } | TrafficModel::Bursts { .. }
        );
        // the cut of a file is the same for all its points: the latest event
        // over the points, plus QUICK_DURATION_S
        let cut = sw
            .points
            .iter()
            .map(|p| last_event_s(&p.scenario))
            .fold(0.0, f64::max)
            + QUICK_DURATION_S;
        if o.quick && open_ended && s0.meta.duration_s > cut {
            set.push(Override {
                key: "scenario.duration_s".into(),
                value: format!("{cut:?}"),
            });
        }
        if let TrafficModel::Bursts { count, .. } = s0.traffic.model {
            if o.quick && count > QUICK_BURSTS {
                set.push(Override {
                    key: "traffic.count".into(),
                    value: QUICK_BURSTS.to_string(),
                });
            }
        }
        if o.kernel.is_some() || !o.kernel_from.is_empty() {
            let seed = x.map(|x| x.seed.clone()).unwrap_or_default();
            match sweep::plan(f, &set, runs) {
                Ok(sw) => planned.push((key.clone(), seed, sw)),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        sets.push(set);
    }
    let mut cells = o
        .kernel
        .as_ref()
        .map(|k| kernel::cells(&planned, &k.only))
        .unwrap_or_default();
    // --kernel-from: the saved file must match this sweep, checked before
    // the simulation runs
    let saved = if o.kernel_from.is_empty() {
        None
    } else {
        cells = kernel::cells(&planned, &[]);
        let out_file = std::fs::canonicalize(o.out.join("kernel.json")).ok();
        let mut merged: Option<kernel_from::Saved> = None;
        for p in &o.kernel_from {
            let s = match kernel_from::Saved::load(p) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: reproduce --kernel-from: {e}");
                    return ExitCode::from(2);
                }
            };
            if out_file.is_some() && std::fs::canonicalize(&s.path).ok() == out_file {
                eprintln!(
                    "error: reproduce --kernel-from {}: --out {} would overwrite the file it reads; pass another --out DIR",
                    s.path.display(),
                    o.out.display()
                );
                return ExitCode::from(2);
            }
            merged = Some(match merged {
                None => s,
                Some(m) => m.overlay(s),
            });
        }
        let s = merged.expect("at least one --kernel-from");
        if let Err(e) = s.check(&cells) {
            eprintln!("error: reproduce --kernel-from: {e}");
            return ExitCode::from(2);
        }
        Some(s)
    };
    if let Err(e) = check_until(o, &cells) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    // continuing a saved pass runs the kernel: root, TUN and MPTCP first
    if o.until_decided.is_some() && saved.is_some() && !o.check {
        if let Err(e) = mptlab_emu::netns::preflight() {
            eprintln!("error: reproduce --kernel-from --until-decided: {e}");
            return ExitCode::from(2);
        }
    }
    // the simulation only: the kernel cells keep `planned` (the emulator
    // ignores transport.hz; the kernel has its own)
    if !o.check && !o.kernel.as_ref().is_some_and(|k| k.plan) {
        if let Some(hz) = sim_hz(o, saved.as_ref()) {
            for set in &mut sets {
                set.push(Override {
                    key: "transport.hz".into(),
                    value: hz.to_string(),
                });
            }
        }
    }
    if let Some(k) = &o.kernel {
        if !k.only.is_empty() && kernel::to_run(&cells).is_empty() {
            eprintln!(
                "error: --kernel-only {:?} selects no cell the kernel can run (see --kernel-plan)",
                k.only
            );
            return ExitCode::from(2);
        }
        if k.plan {
            if !o.out.as_os_str().is_empty() {
                kernel::refine(&mut cells, &o.out);
            }
            // the runs an earlier pass into --out saved are read back, not run
            let saved = kernel::saved_counts(&cells, &o.out, k.runs);
            println!("{}", kernel::plan_text(&cells, k.runs, &saved, true));
            if let Some(max) = o.until_decided {
                let beyond = |c: &kernel::Cell| top_ups_saved(o, c, k.runs, max);
                println!(
                    "{}",
                    until::plan_line(&kernel::to_run(&cells), k.runs, max, &beyond)
                );
            }
            return ExitCode::SUCCESS;
        }
        // root, TUN, MPTCP before the simulation, not after it
        if !o.check && !kernel::to_run(&cells).is_empty() {
            if let Err(e) = mptlab_emu::netns::preflight() {
                eprintln!("error: reproduce --kernel: {e} (--kernel-plan lists the cells without running them)");
                return ExitCode::from(2);
            }
        }
    }
    if o.check {
        if !o.quiet {
            eprintln!(
                "reproduce --check: {} experiment(s) of seed(s) {} match {} and their files",
                jobs.len(),
                seeds.join(", "),
                reg.path.display()
            );
        }
        return ExitCode::SUCCESS;
    }
    // an interruption is reported (module interrupt); with the kernel,
    // the emulator catches the signals to tear its namespaces down
    if o.kernel.is_none() && o.until_decided.is_none() {
        crate::interrupt::install(crate::interrupt::Cmd::Reproduce, &o.out);
    }
    if let Err(e) = std::fs::create_dir_all(o.out.join("runs")) {
        eprintln!("error: {}: {e}", o.out.display());
        return ExitCode::from(1);
    }
    // the report checks the runs against the same registry (its path, so an
    // installed package outside the repository finds it)
    let registry = std::fs::canonicalize(&reg.path).unwrap_or_else(|_| reg.path.clone());
    let manifest = serde_json::json!({
        "seeds": seeds,
        "registry": registry.display().to_string(),
        "quick": o.quick,
        "tables": o.tables,
        "runs_override": runs,
        "duration_override_s": if o.quick { Some(QUICK_DURATION_S) } else { None },
        "duration_override_applies_to": "video, gaming and bulk (web, file and bursts runs keep their cut; bursts runs get bursts_override bursts); files with a link outage or delayed background traffic are cut that long after their last such event",
        "bursts_override": if o.quick { Some(QUICK_BURSTS) } else { None },
        "sweeps": jobs.iter().map(|(name, f)| serde_json::json!({
            "name": name,
            "file": f.display().to_string(),
            "dir": format!("runs/{}", name),
        })).collect::<Vec<_>>(),
    });
    let t0 = std::time::Instant::now();
    let unfinished = match run_sweeps(o, &jobs, &sets, runs) {
        Ok(u) => u,
        Err(code) => return code,
    };
    let wall = t0.elapsed().as_secs_f64();
    let mut manifest = manifest;
    manifest["sweep_wall_s"] = serde_json::json!(wall);
    manifest["jobs"] = serde_json::json!(o.jobs);
    // which build made the runs: the report prints it, so a result can be
    // traced to its model (docs/sweeps.md, "Persistence and resume")
    manifest["mptlab_version"] = serde_json::json!(env!("CARGO_PKG_VERSION"));
    manifest["model"] = serde_json::json!(mptlab_sweep::store::MODEL_ID);
    // atomically (temporary file, fsync, rename): the report reads it as
    // the sign that the sweeps ended, so it is whole or absent
    if let Err(e) = write_manifest(&o.out.join("reproduce.json"), &manifest) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    if !o.quiet {
        eprintln!("reproduce: {} sweep(s) done in {wall:.1} s", jobs.len());
    }
    // recap of the per-sweep warnings, printed even with --quiet
    if let Some(w) = unfinished_recap(&unfinished, jobs.len(), &o.out) {
        eprintln!("{w}");
    }
    let mut failed = 0;
    // the like-for-like simulations: each file with the simulation's overrides
    let inputs = like::Inputs {
        files: jobs
            .iter()
            .zip(&sets)
            .map(|((k, f), set)| (k.clone(), f.clone(), set.clone()))
            .collect(),
        jobs: o.jobs,
    };
    if let Some(saved) = saved {
        crate::interrupt::stage(crate::interrupt::Stage::Comparing);
        if let Err(code) = rejudge(o, saved, &cells, &inputs) {
            return code;
        }
    }
    if let Some(k) = &o.kernel {
        match kernel_pass(o, k, &mut cells, &inputs) {
            Ok(f) => failed = f,
            Err(code) => return code,
        }
    }
    if o.no_report {
        return kernel_exit(failed);
    }
    match report(&o.out, o.jobs) {
        c if c == ExitCode::SUCCESS => kernel_exit(failed),
        c => c,
    }
}

/// Exit 1 when kernel cells failed (after the report, which shows them).
fn kernel_exit(failed: usize) -> ExitCode {
    if failed > 0 {
        eprintln!("error: reproduce --kernel: {failed} cell(s) failed on the kernel (kernel.json and the report say why)");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The kernel pass after the simulation: the plan and its real time, the
/// cells one after another, then `DIR/kernel.json`. Returns the number of
/// failed cells; a stop (Ctrl-C) writes kernel.json and exits 1.
fn kernel_pass(
    o: &Options,
    k: &KernelOptions,
    cells: &mut [kernel::Cell],
    inputs: &like::Inputs,
) -> Result<usize, ExitCode> {
    kernel::refine(cells, &o.out);
    let cells = &*cells;
    let todo = kernel::to_run(cells);
    // the runs an earlier pass into this DIR saved are read back, not run:
    // the plan counts them apart (kernel::run_cells does the same count)
    let saved = kernel::saved_counts(cells, &o.out, k.runs);
    eprintln!("{}", kernel::plan_text(cells, k.runs, &saved, false));
    if let Some(max) = o.until_decided {
        let beyond = |c: &kernel::Cell| top_ups_saved(o, c, k.runs, max);
        eprintln!("{}", until::plan_line(&todo, k.runs, max, &beyond));
    }
    let t0 = std::time::Instant::now();
    let emu = match todo.first() {
        None => None,
        Some(first) => match mptlab_emu::run::prepare(&first.point.scenario, None) {
            Ok(e) => Some(Emulate(e)),
            Err(e) => {
                eprintln!("error: reproduce --kernel: {e}");
                return Err(ExitCode::from(2));
            }
        },
    };
    let outcomes = match &emu {
        None => Vec::new(),
        Some(emu) => kernel::run_cells(cells, &o.out, k.runs, o.force, emu, o.quiet),
    };
    let t_like = std::time::Instant::now();
    simulate_like(o, inputs, &kernel::like_todo(cells, &outcomes, &o.out));
    // kernel_wall_s: the kernel's real time, not the like-for-like simulation's
    let like_s = t_like.elapsed().as_secs_f64();
    let kernel_s = || t0.elapsed().as_secs_f64() - like_s;
    let judge = |wall: f64| kernel::manifest(cells, &outcomes, &o.out, k.runs, wall);
    let mut m = judge(kernel_s());
    let count = |x: &kernel::Outcome| outcomes.iter().filter(|(_, o)| o == x).count();
    let mut stopped = count(&kernel::Outcome::Stopped) > 0;
    if let (Some(max), Some(emu), false) = (o.until_decided, &emu, stopped) {
        // this pass's cells only (not an earlier pass's in the same DIR)
        let eligible = |i: usize| cells[i].selected && cells[i].runnable.is_ok();
        let mut top_up = |i: usize, from: u32, to: u32, round: until::Round<'_>| {
            let c = &cells[i];
            let (done, err) = top_up_runs(o, c, (from, to), emu, t0, round);
            // the store holds runs 0..from too: merge what it has
            let kept = from + done.len() as u32;
            if kept > from {
                kernel::finish_runs(c, &o.out, kept).map_err(until::Stop::Failed)?;
            }
            top_up_result(err, emu)
        };
        m = until::run(
            max,
            m,
            &|i| cells[i].name(),
            &eligible,
            &|i, n| cells[i].estimate_s(n),
            &|i, from, to| kernel::saved_between(&cells[i], &o.out, (from, to)),
            &mut top_up,
            &mut || judge(kernel_s()),
        );
        stopped = until::stopped(&m);
    }
    let wall = kernel_s();
    if let Err(e) = write_manifest(&o.out.join("kernel.json"), &m) {
        eprintln!("error: {e}");
        return Err(ExitCode::from(1));
    }
    let failed = outcomes
        .iter()
        .filter(|(_, o)| matches!(o, kernel::Outcome::Failed(_)))
        .count();
    eprintln!(
        "reproduce --kernel: {} cell(s) ran, {failed} failed, {} refused, in {} real time; wrote {}",
        count(&kernel::Outcome::Ran),
        cells.iter().filter(|c| c.runnable.is_err()).count(),
        kernel::hms(wall),
        o.out.join("kernel.json").display()
    );
    if o.until_decided.is_some() && !m["until_decided"].is_null() {
        eprint!("{}", until::summary(&m));
    }
    eprintln!("reproduce --kernel: {}", like::summary(&m));
    eprint!("{}", unfinished_recap_kernel(&m));
    if stopped {
        eprintln!(
            "stopped: the kernel pass was interrupted; finished runs are kept in {}/kernel (the same command resumes)",
            o.out.display()
        );
        return Err(ExitCode::from(1));
    }
    Ok(failed)
}

/// A cell's kernel runs `planned..max` on disk before the pass (an earlier
/// pass with more `--kernel-runs`, or an interrupted `--until-decided`
/// top-up, saved them), which a top-up reads back: none without `--out`,
/// or in a store `--force` discards (`kernel::saved_between`).
fn top_ups_saved(o: &Options, c: &kernel::Cell, planned: u32, max: u32) -> u32 {
    if o.out.as_os_str().is_empty() {
        return 0;
    }
    kernel::saved_between(c, &o.out, (planned, max))
}

/// One `--until-decided` batch of a cell on the kernel: runs `from..to`
/// into its store with a progress line per run. Returns the finished runs'
/// `per_run` entries and the error that ended it early. The line's time
/// left is the round's (this batch and the later ones), at the pace of the
/// runs the round ran so far, as the planned pass's line is (module
/// `pace`: a run read back from the store leaves the estimate and does not
/// set the pace).
fn top_up_runs(
    o: &Options,
    c: &kernel::Cell,
    (from, to): (u32, u32),
    emu: &Emulate,
    t0: std::time::Instant,
    round: until::Round<'_>,
) -> (Vec<serde_json::Value>, Option<String>) {
    let (done, err) = kernel::run_more(c, &o.out, (from, to), emu, &|ev| {
        let now = round.started.elapsed().as_secs_f64();
        let started = round.pace.borrow_mut().on(ev, c.estimate_s(1), now);
        if let (Some((r, left)), false) = (started, o.quiet) {
            eprintln!(
                "kernel until-decided: {} run {}/{to} ({} elapsed, about {} left in this round)",
                c.name(),
                r + 1,
                kernel::hms(t0.elapsed().as_secs_f64()),
                kernel::hms(left)
            );
        }
    });
    (done, err)
}

/// A batch's end as the loop sees it: a stop (Ctrl-C) ends the loop, any
/// other error ends the cell's top-ups.
fn top_up_result(err: Option<String>, emu: &Emulate) -> until::Batch {
    let stopped = emu
        .0
        .stop
        .as_ref()
        .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
    match err {
        None => Ok(()),
        Some(_) if stopped => Err(until::Stop::Stopped),
        Some(e) => Err(until::Stop::Failed(e)),
    }
}

/// `--kernel-from`: DIR/kernel.json from the saved kernel runs judged
/// against this directory's simulated runs; the counts on stderr. With
/// `--until-decided`, the undecided cells' runs are continued on the
/// kernel first and appended to the saved ones ([`until`]).
fn rejudge(
    o: &Options,
    saved: kernel_from::Saved,
    cells: &[kernel::Cell],
    inputs: &like::Inputs,
) -> Result<(), ExitCode> {
    simulate_like(o, inputs, &kernel_from::like_todo(&saved, cells));
    if !saved.has_seeds() && !o.quiet {
        eprintln!(
            "note: {} records no per-run seeds (written before they were saved): its kernel runs are \
             taken to have the seeds of the simulated runs with the same index",
            saved.path.display()
        );
    }
    let saved = std::cell::RefCell::new(saved);
    let judge = || kernel_from::manifest(&saved.borrow(), cells, &o.out);
    let mut m = judge();
    let mut stopped = false;
    if let Some(max) = o.until_decided {
        let ran = |i: usize| m["cells"][i]["status"] == "ran";
        let first = (0..cells.len()).find(|&i| ran(i));
        let emu = match first.map(|i| mptlab_emu::run::prepare(&cells[i].point.scenario, None)) {
            None => None,
            Some(Ok(e)) => Some(Emulate(e)),
            Some(Err(e)) => {
                eprintln!("error: reproduce --kernel-from --until-decided: {e}");
                return Err(ExitCode::from(2));
            }
        };
        if let Some(emu) = &emu {
            let t0 = std::time::Instant::now();
            let mut top_up = |i: usize, from: u32, to: u32, round: until::Round<'_>| {
                let t = std::time::Instant::now();
                let (done, err) = top_up_runs(o, &cells[i], (from, to), emu, t0, round);
                saved
                    .borrow_mut()
                    .append(&cells[i], &done, t.elapsed().as_secs_f64());
                top_up_result(err, emu)
            };
            m = until::run(
                max,
                m,
                &|i| cells[i].name(),
                &|i| cells[i].runnable.is_ok(),
                &|i, n| cells[i].estimate_s(n),
                &|i, from, to| kernel::saved_between(&cells[i], &o.out, (from, to)),
                &mut top_up,
                &mut || judge(),
            );
            stopped = until::stopped(&m);
        }
    }
    let path = o.out.join("kernel.json");
    if let Err(e) = write_manifest(&path, &m) {
        eprintln!("error: {e}");
        return Err(ExitCode::from(1));
    }
    let [agree, disagree, undecided, not_checkable] = rejudged_counts(&m);
    let judged = agree + disagree + undecided + not_checkable;
    eprintln!(
        "reproduce --kernel-from: {} cell(s), {} without a kernel result (refused, skipped or failed \
         in the saved pass); {judged} re-judged: {agree} agree, {disagree} disagree, {undecided} \
         undecided, {not_checkable} {} (fewer than {} paired runs or a side without values: the \
         reason in each cell's `reason`); wrote {}",
        cells.len(),
        cells.len() - judged,
        kernel::NOT_CHECKABLE,
        kernel::MIN_RUNS,
        path.display()
    );
    if !m["until_decided"].is_null() {
        eprint!("{}", until::summary(&m));
    }
    eprintln!("reproduce --kernel-from: {}", like::summary(&m));
    eprint!("{}", unfinished_recap_kernel(&m));
    if stopped {
        eprintln!(
            "stopped: the continued kernel runs were interrupted; {} holds the runs finished so far \
             (pass it to --kernel-from to continue)",
            path.display()
        );
        return Err(ExitCode::from(1));
    }
    Ok(())
}

/// A re-judged kernel.json's cells by their decision: agree, disagree,
/// undecided, not checkable. The decision, not the point `verdict`: a
/// cell whose point is outside the band but whose 95 % interval reaches it
/// has verdict `disagree` and decision `undecided`, and the count line
/// said "disagree" for it above the summary line's "0 disagree beyond their
/// 95 % interval; 1 undecided" (session 29). A ran cell judged on no data
/// (fewer than 2 paired runs, a side without values) is not checkable,
/// never agree / disagree.
fn rejudged_counts(m: &serde_json::Value) -> [usize; 4] {
    let mut n = [0; 4];
    for c in m["cells"].as_array().into_iter().flatten() {
        // a cell the rule leaves not checkable may still carry the noise
        // judge's `undecided` decision: not checkable wins, as in the
        // summary line's count
        let v = c["verdict"].as_str();
        let d = if v == Some(kernel::NOT_CHECKABLE) {
            v
        } else {
            c["decision"].as_str().or(v)
        };
        let i = match d {
            Some("agree") => 0,
            Some("disagree") => 1,
            Some("undecided") => 2,
            Some(x) if x == kernel::NOT_CHECKABLE => 3,
            _ => continue,
        };
        n[i] += 1;
    }
    n
}

/// The like-for-like runs of the cells the kernel ran with a substitution
/// ([`like`]), before kernel.json is written; a cell whose runs fail is
/// named on stderr (its entry says "not checkable").
fn simulate_like(o: &Options, inputs: &like::Inputs, todo: &[like::Todo]) {
    if todo.is_empty() {
        return;
    }
    let t0 = std::time::Instant::now();
    let runs: u32 = todo.iter().map(|t| t.runs).sum();
    let errors = like::simulate(inputs, todo, &o.out);
    for (cell, e) in &errors {
        eprintln!("error: like for like: {cell}: {e}");
    }
    if !o.quiet {
        eprintln!(
            "reproduce: {} cell(s) ran on the kernel with a substitution: {runs} like-for-like run(s) \
             simulated with the kernel's settings in {:.1} s ({}/like)",
            todo.len(),
            t0.elapsed().as_secs_f64(),
            o.out.display()
        );
    }
}

/// The cells of a kernel.json judged on fewer runs than the kernel ran
/// (a simulated or kernel run did not finish), one line each under a
/// header; empty when there is none.
fn unfinished_recap_kernel(m: &serde_json::Value) -> String {
    let lines = kernel::unfinished_lines(m);
    if lines.is_empty() {
        return lines;
    }
    format!(
        "kernel: {} cell(s) with runs that did not finish, judged on the runs both sides finished \
         (`unfinished` in kernel.json):\n{lines}",
        lines.lines().count()
    )
}

/// A run's estimated cost for the order of the work queue: its simulated
/// seconds (a heuristic: a 605 s gaming run costs more than a 65 s video
/// run; web and file runs usually end before their cut). The progress bar
/// uses measured times instead (module `progress`).
pub fn run_cost(s: &Scenario) -> f64 {
    s.meta.duration_s
}

/// The sweeps' options: results under `DIR/runs/<name>`, merged tables only
/// with `--tables`.
fn sweep_options(o: &Options, name: &str, set: &[Override], runs: Option<u32>) -> SweepOptions {
    SweepOptions {
        out: o.out.join("runs").join(name),
        jobs: o.jobs,
        runs,
        set: set.to_vec(),
        // one progress bar and one line for all the sweeps
        quiet: true,
        force: o.force,
        csv: false,
        // merged tables are large (one gaming file: ~850 MB of messages);
        // the report needs summary.json only, the run files stay
        parquet: o.tables,
    }
}

/// Threads opening the sweeps' stores. Opening one writes its record and
/// every point's `scenario.toml` atomically, two fsyncs each (5-15 ms
/// here): one after another that was 3 s of a single waiting thread before
/// the first run of `reproduce 000 --quick` (65 sweeps, 319 points), while
/// concurrent fsyncs share journal commits (as the sweep's savers do).
const OPENERS: usize = 8;

/// [`Store::open`] of every planned sweep, on [`OPENERS`] threads; the
/// results in `planned`'s order. Each sweep has its own directory.
fn open_stores(
    planned: &[(SweepOptions, mptlab_scenario::Sweep)],
) -> Vec<Result<mptlab_sweep::Store, mptlab_sweep::StoreError>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<_>>> = planned
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..OPENERS.min(planned.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((so, sw)) = planned.get(i) else {
                    return;
                };
                let r = mptlab_sweep::Store::open(&so.out, sw, so.force);
                *slots[i].lock().unwrap() = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().unwrap().expect("every sweep opened"))
        .collect()
}

/// Before runs are (re)done: remove `reproduce.json` (the report's sign
/// that the sweeps ended) and the `report.html` / `verdicts.json` made from
/// the runs it lists. Interrupted, an older set would pass the half-redone
/// runs (after `--force`, or more `--runs`) off as the finished pass it
/// describes (session 26); all three are written anew at the end. Called
/// once every store has opened, so a refused sweep (another build's runs,
/// no `--force`) leaves the old pass whole.
fn drop_finished_pass(out: &Path) -> Result<(), ExitCode> {
    for name in ["reproduce.json", "report.html", "verdicts.json"] {
        let p = out.join(name);
        if p.is_file() {
            if let Err(e) = std::fs::remove_file(&p) {
                eprintln!("error: {}: {e}", p.display());
                return Err(ExitCode::from(1));
            }
        }
    }
    Ok(())
}

/// Write `reproduce.json` or `kernel.json` whole or not at all: a plain
/// write that a full disk or a kill cuts short leaves a manifest that
/// neither the report nor `--kernel-from` can parse.
fn write_manifest(path: &Path, m: &serde_json::Value) -> Result<(), String> {
    mptlab_sweep::store::write_atomic(path, serde_json::to_string_pretty(m).unwrap().as_bytes())
        .map_err(|e| e.to_string())
}

/// Run every sweep's pending runs from one work queue on `--jobs` threads
/// in total, costliest first ([`mptlab_sweep::execute_many`]; one sweep
/// after another left a core idle at the end of each), then merge the
/// sweeps on the same number of threads. Returns the sweeps with
/// unfinished work, in file order.
fn run_sweeps(
    o: &Options,
    jobs: &[(String, PathBuf)],
    sets: &[Vec<Override>],
    runs: Option<u32>,
) -> Result<Vec<(String, sweep::PointsUnfinished)>, ExitCode> {
    let stop_after = sweep::stop_after()?;
    let fail = |name: &str, out: &Path| {
        eprintln!(
            "error: reproduce: sweep {name} failed; finished runs are kept in {} (same command resumes; \
             quick and full runs cannot share an output directory)",
            out.display()
        );
    };
    let mut planned = Vec::with_capacity(jobs.len());
    for ((name, f), set) in jobs.iter().zip(sets) {
        let so = sweep_options(o, name, set, runs);
        match sweep::plan_checked(f, &so) {
            Ok(s) => planned.push((so, s)),
            Err(code) => {
                fail(name, &so.out);
                return Err(code);
            }
        }
    }
    let stores = open_stores(&planned);
    let mut opened = Vec::with_capacity(jobs.len());
    let (mut total, mut done) = (0u64, 0u64);
    // per sweep, per point: (simulated seconds of a run, runs to do)
    let mut priors: Vec<Vec<(f64, u64)>> = Vec::with_capacity(jobs.len());
    for (i, (((name, _), (so, sweep)), store)) in jobs.iter().zip(planned).zip(stores).enumerate() {
        // the first failure in file order is reported, as when the stores
        // were opened one by one
        let op = match store {
            Ok(store) => sweep::Opened { sweep, store },
            Err(e) => {
                // a refusal already says what to do (`--force` or another
                // `--out`); "the same command resumes" would contradict it
                let refused = matches!(e, mptlab_sweep::StoreError::Refused(_));
                let code = sweep::store_error(e);
                if !refused {
                    fail(name, &so.out);
                }
                return Err(code);
            }
        };
        let n = op.store.total() as u64;
        let left = op.store.pending();
        let mut todo: Vec<(f64, u64)> = op
            .sweep
            .points
            .iter()
            .map(|p| (run_cost(&p.scenario), 0))
            .collect();
        for (p, _) in &left {
            todo[*p].1 += 1;
        }
        priors.push(todo);
        if !o.quiet {
            eprintln!(
                "reproduce [{}/{}] {name}: {} point(s) x {} run(s){}",
                i + 1,
                jobs.len(),
                op.sweep.points.len(),
                op.sweep.runs,
                if left.len() as u64 != n {
                    format!(", resuming: {} run(s) already done", n - left.len() as u64)
                } else {
                    String::new()
                }
            );
        }
        total += n;
        done += n - left.len() as u64;
        opened.push((so, op));
    }
    if done < total {
        drop_finished_pass(&o.out)?;
    }
    // the bar advances by each run's measured time over the estimate of the
    // whole, never back (module `progress`); the counts are in the message
    let progress = progress::Progress::new(&priors, done, total);
    let bar = sweep::progress_bar(o.quiet, progress::BAR_LEN, 0, progress::TEMPLATE);
    crate::interrupt::runs_planned(total, done);
    bar.set_message(progress.message(done));
    let pairs: Vec<(&mptlab_scenario::Sweep, &mptlab_sweep::Store)> = opened
        .iter()
        .map(|(_, op)| (&op.sweep, &op.store))
        .collect();
    let r = mptlab_sweep::execute_many(
        &pairs,
        o.jobs,
        &|s: &Scenario, r: u32| Simulate.run_once(s, r),
        &run_cost,
        mptlab_sweep::Order::PilotsFirst,
        stop_after,
        &|d: &mptlab_sweep::Done| {
            crate::interrupt::run_done();
            progress.show(&bar, d);
        },
    );
    bar.finish_and_clear();
    sweep::exec_result(r, "reproduce", &o.out)?;
    crate::interrupt::stage(crate::interrupt::Stage::Merging);
    // merging reads every run file back: spread the sweeps over the threads
    let next = std::sync::atomic::AtomicUsize::new(0);
    let closed: Vec<std::sync::Mutex<Option<Result<sweep::PointsUnfinished, ExitCode>>>> =
        opened.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..o.jobs.clamp(1, opened.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((so, op)) = opened.get(i) else {
                    return;
                };
                *closed[i].lock().unwrap() = Some(sweep::close(op, so));
            });
        }
    });
    let mut unfinished = Vec::new();
    for ((name, _), ((so, _), c)) in jobs.iter().zip(opened.iter().zip(closed)) {
        match c.into_inner().unwrap().expect("every sweep merged") {
            Ok(points) if points.is_empty() => {}
            Ok(points) => unfinished.push((name.clone(), points)),
            Err(code) => {
                fail(name, &so.out);
                return Err(code);
            }
        }
    }
    Ok(unfinished)
}

/// One line per sweep with unfinished work (transfers that did not finish,
/// messages not delivered by the end of their run), or None.
fn unfinished_recap(
    sweeps: &[(String, sweep::PointsUnfinished)],
    total: usize,
    out: &Path,
) -> Option<String> {
    if sweeps.is_empty() {
        return None;
    }
    let mut s = format!(
        "warning: reproduce: unfinished work in {} of {total} sweep(s); their completion times and message \
         delays cover completed items only (the report marks them; per point: the report's Unfinished work \
         section and `unfinished` in {}/runs/<sweep>/summary.json):",
        sweeps.len(),
        out.display()
    );
    for (name, points) in sweeps {
        let (t, m) = points.iter().fold((0, 0), |(t, m), (_, u)| {
            (t + u.transfers_unfinished, m + u.messages_undelivered)
        });
        let labels: Vec<&str> = points.iter().take(3).map(|(l, _)| l.as_str()).collect();
        s.push_str(&format!(
            "\n  {name}: {} in {} point(s) (`{}`{})",
            sweep::phrase(t, m),
            points.len(),
            labels.join("`, `"),
            if points.len() > 3 { ", ..." } else { "" }
        ));
    }
    Some(s)
}

/// Exit status of [`REPORT_PY`] when the report package cannot be imported.
const NO_PACKAGE: i32 = 97;

/// The report in one interpreter: importing `mptlab.report` (numpy,
/// matplotlib, polars: about 0.3 s of CPU) used to be done twice, once to
/// check that the package is there and once to run it. An import failure
/// exits with [`NO_PACKAGE`] after printing its reason.
const REPORT_PY: &str = "import sys
try:
    import mptlab.report as r
except Exception as e:
    print(f'mptlab.report: {type(e).__name__}: {e}', file=sys.stderr)
    sys.exit(97)
sys.exit(r.main(sys.argv[1:]))
";

/// The HTML report, its sections written by `jobs` processes
/// (`python -m mptlab.report DIR --jobs N`).
fn report(out: &Path, jobs: usize) -> ExitCode {
    let py = std::env::var("MPTLAB_PYTHON").unwrap_or_else(|_| "python3".into());
    let kept = format!("the sweep results are kept in {}/runs", out.display());
    let again = format!("`{py} -m mptlab.report {}`", out.display());
    let hint = format!(
        "{kept}; install the Python package (bash scripts/setup.sh && pip install ., docs/python.md) and run {again}"
    );
    use std::os::unix::process::CommandExt;
    // in a process group of its own: Ctrl-C at the terminal reaches only
    // mptlab, which stops the report itself (module interrupt; Python's
    // KeyboardInterrupt printed a traceback)
    let status = std::process::Command::new(&py)
        .args(["-c", REPORT_PY])
        .arg(out)
        .args(["--jobs", &jobs.max(1).to_string()])
        .process_group(0)
        .spawn()
        .and_then(|mut child| {
            crate::interrupt::stage(crate::interrupt::Stage::Report(Some(child.id())));
            child.wait()
        });
    if let Some(sig) = crate::interrupt::report_ended() {
        // stopped half-way: neither file passes for a finished report
        for name in ["report.html", "verdicts.json"] {
            let _ = std::fs::remove_file(out.join(name));
        }
        crate::interrupt::exit_after_report(sig);
    }
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) if s.code() == Some(NO_PACKAGE) => {
            eprintln!("error: reproduce: the report needs the mptlab Python package with matplotlib and polars ({py}: the import failed as printed above); {hint}");
            ExitCode::from(1)
        }
        Ok(s) => {
            // the package is there and said what is wrong (above); telling
            // the user to install it misled (session 26)
            eprintln!("error: reproduce: the report generator failed ({s}; its message is above); {kept}; once that is fixed, run {again}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: reproduce: cannot start {py} for the report ({e}); {hint}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The --kernel-from count line counts decisions: a cell whose point is
    /// outside the band with its interval reaching it (verdict `disagree`,
    /// decision `undecided`) is undecided, as in the summary line below it.
    #[test]
    fn rejudged_cells_are_counted_by_decision() {
        let m = serde_json::json!({"cells": [
            {"status": "ran", "decision": "agree", "verdict": "agree"},
            {"status": "ran", "decision": "undecided", "verdict": "disagree"},
            {"status": "ran", "decision": "disagree", "verdict": "disagree"},
            {"status": "ran", "decision": "not checkable", "verdict": "not checkable"},
            {"status": "ran", "decision": "undecided", "verdict": "not checkable"},
            {"status": "ran", "verdict": "agree"},
            {"status": "refused"},
        ]});
        assert_eq!(rejudged_counts(&m), [2, 1, 1, 2]);
    }

    const BASE: &str = r#"
[scenario]
name = "q"
duration_s = 600
[profile.w]
rate_mbit = 4
[topology]
preset = "two-path"
paths = ["w", "w"]
[traffic]
model = "bulk"
"#;

    fn scen(extra: &str) -> Scenario {
        Scenario::from_str(&format!("{BASE}{extra}"), "q.toml").unwrap()
    }

    #[test]
    fn quick_cut_keeps_outages_and_delayed_background() {
        assert_eq!(last_event_s(&scen("")), 0.0);
        let s = scen("[background]\nenabled = true\nstart_s = 300\npaths = [1]\n");
        assert_eq!(last_event_s(&s), 300.0);
        // a start time of a disabled background is no event
        assert_eq!(last_event_s(&scen("[background]\nstart_s = 300\n")), 0.0);
        let text = BASE.replace(
            "rate_mbit = 4",
            "rate_mbit = 4\noutages = [{ at_s = 100, duration_s = 30 }]",
        );
        let s = Scenario::from_str(&text, "q.toml").unwrap();
        assert_eq!(last_event_s(&s), 130.0);
    }
}
