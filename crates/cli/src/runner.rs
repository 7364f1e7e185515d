//! `mptlab run`: all repetitions in parallel, results in run order.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mptlab_results::unfinished::{completed_only, Items, COMPLETED_ONLY};
use mptlab_results::{aggregate, write_results_with, RunOutput, Unfinished, WriteOptions};
use mptlab_scenario::Scenario;

use crate::driver::Driver;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

pub struct RunOptions {
    pub out: PathBuf,
    pub jobs: usize,
    pub quiet: bool,
    pub force: bool,
    pub csv: bool,
    pub parquet: bool,
}

/// Run every repetition of `s` on `jobs` threads. The outputs are ordered by
/// run index, so nothing depends on scheduling. On the first failure the
/// remaining runs are skipped and the error is returned.
pub fn run_all(
    s: &Scenario,
    jobs: usize,
    bar: &ProgressBar,
    f: &dyn Driver,
) -> Result<Vec<RunOutput>, String> {
    let n = s.meta.runs;
    let next = AtomicU32::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<RunOutput, String>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, n.max(1) as usize) {
            scope.spawn(|| loop {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return;
                }
                let r = catch_unwind(AssertUnwindSafe(|| f.run_once(s, i))).unwrap_or_else(|p| {
                    let msg = p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned());
                    Err(format!(
                        "simulation panicked: {}",
                        msg.unwrap_or_else(|| "unknown panic".into())
                    ))
                });
                let r = r.and_then(|o| {
                    if o.run != i {
                        Err(format!(
                            "simulation returned output for run {} instead of run {i}",
                            o.run
                        ))
                    } else {
                        Ok(o)
                    }
                });
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                results.lock().unwrap()[i as usize] = Some(r);
                crate::interrupt::run_done();
                bar.inc(1);
            });
        }
    });
    let mut out = Vec::with_capacity(n as usize);
    for (i, r) in results.into_inner().unwrap().into_iter().enumerate() {
        match r {
            Some(Ok(o)) => out.push(o),
            Some(Err(e)) => return Err(format!("run {i} (seed {}): {e}", s.run_seed(i as u32))),
            None => {} // skipped after another run failed; that error comes first or later
        }
    }
    if out.len() != n as usize {
        return Err("runs were skipped after a failure".into());
    }
    Ok(out)
}

fn fmt_num(v: f64) -> String {
    if v == 0.0 || (v.abs() >= 0.01 && v.abs() < 1e6) {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:.3e}")
    }
}

/// The summary table: per-metric statistics over runs.
pub fn summary_table(runs: &[RunOutput]) -> String {
    let agg = aggregate(runs);
    if agg.is_empty() {
        return format!(
            "{} run(s) done; the simulation reported no summary metrics\n",
            runs.len()
        );
    }
    let unf = Unfinished::of(runs);
    let head = ["metric", "n", "mean", "median", "min", "max", "stddev"];
    let mut rows: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    // completed-only metrics over items some of which did not complete get
    // a `*` and a note below the table: never an average over the finished
    // ones without saying how many did not finish
    let partial = |k: &str| {
        completed_only(k).filter(|&kind| {
            let (done, of) = unf.items(kind);
            done < of
        })
    };
    let mut notes = Vec::new();
    for (kind, what) in [
        (Items::Transfers, "transfers finished"),
        (Items::Messages, "messages delivered"),
    ] {
        let (done, of) = unf.items(kind);
        if done == of {
            continue;
        }
        let metrics: Vec<&str> = COMPLETED_ONLY
            .iter()
            .filter(|(_, i)| *i == kind)
            .map(|(m, _)| *m)
            .collect();
        let (have, missing): (Vec<&str>, Vec<&str>) =
            metrics.iter().partition(|m| agg.contains_key(**m));
        if !have.is_empty() {
            notes.push(format!(
                "* {}: over completed items only: {done} of {of} {what}",
                have.join(", ")
            ));
        }
        if !missing.is_empty() {
            notes.push(format!(
                "  {}: no value: {done} of {of} {what}",
                missing.join(", ")
            ));
        }
    }
    for (k, s) in &agg {
        let name = if partial(k).is_some() {
            format!("{k} *")
        } else {
            k.clone()
        };
        rows.push(vec![
            name,
            s.n.to_string(),
            fmt_num(s.mean),
            fmt_num(s.median),
            fmt_num(s.min),
            fmt_num(s.max),
            fmt_num(s.stddev),
        ]);
    }
    let w: Vec<usize> = (0..head.len())
        .map(|c| rows.iter().map(|r| r[c].len()).max().unwrap())
        .collect();
    let mut out = String::new();
    for r in rows {
        for (c, cell) in r.iter().enumerate() {
            if c == 0 {
                out.push_str(&format!("{cell:<w$}", w = w[c]));
            } else {
                out.push_str(&format!("  {cell:>w$}", w = w[c]));
            }
        }
        out.push('\n');
    }
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// The warning about unfinished work printed (on stderr) at the end of a
/// command, or None when every transfer and message completed. `place`
/// names where the runs are (`the scenario`, a sweep point).
pub fn unfinished_warning(unf: &Unfinished, place: &str) -> Option<String> {
    if !unf.any() {
        return None;
    }
    let mut s = format!("warning: unfinished work in {place}:");
    for line in unf.describe() {
        s.push_str("\n  ");
        s.push_str(&line);
    }
    s.push_str("\n  (the rows have completed = false in transfers/messages; counts in summary.json `unfinished`)");
    Some(s)
}

pub fn run(s: &Scenario, o: &RunOptions, f: &dyn Driver) -> ExitCode {
    // not only summary.json: a `flows.csv` or `scenario.toml` of the user's
    // own would be overwritten (or, with --no-csv, deleted) by the write
    let theirs = mptlab_results::result_files_in(&o.out);
    if !theirs.is_empty() && !o.force {
        eprintln!(
            "error: {} already holds results ({}); use --force to overwrite, or choose another --out",
            o.out.display(),
            theirs.join(", ")
        );
        return ExitCode::from(2);
    }
    if o.out.exists() && !o.out.is_dir() {
        eprintln!(
            "error: --out {} exists and is not a directory",
            o.out.display()
        );
        return ExitCode::from(2);
    }
    // refuse an unwritable --out before simulating, not after
    if let Err(e) = mptlab_results::probe_writable(&o.out) {
        eprintln!(
            "error: --out {}: cannot write results there: {e}",
            o.out.display()
        );
        return ExitCode::from(2);
    }
    // and the capture directory (`--capture DIR`, output.capture_dir): a
    // file there failed only after run 0 had simulated (session 26)
    if s.output.capture {
        let dir = std::path::PathBuf::from(match s.output.capture_dir.as_str() {
            "" => "capture",
            d => d,
        });
        let bad = if dir.exists() && !dir.is_dir() {
            Some("exists and is not a directory".to_string())
        } else {
            mptlab_results::probe_writable(&dir)
                .err()
                .map(|e| format!("cannot write captures there: {e}"))
        };
        if let Some(why) = bad {
            eprintln!(
                "error: --capture {} (output.capture_dir): {why}",
                dir.display()
            );
            return ExitCode::from(2);
        }
    }
    let n = s.meta.runs as u64;
    let bar = if o.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs (eta {eta})",
            )
            .expect("valid template"),
        );
        b
    };
    crate::interrupt::runs_planned(n, 0);
    let runs = run_all(s, o.jobs, &bar, f);
    bar.finish_and_clear();
    let runs = match runs {
        Ok(r) => r,
        Err(e) => {
            // an interrupt from here on says a run failed, not that the
            // write was cut short (session 30)
            crate::interrupt::stage(crate::interrupt::Stage::Failed);
            eprintln!("error: {}: {e}; nothing written", s.origin);
            return ExitCode::from(1);
        }
    };
    let mut opts = WriteOptions {
        csv: o.csv,
        parquet: o.parquet,
        ..Default::default()
    };
    opts.meta
        .insert("scenario".into(), s.meta.name.clone().into());
    opts.meta
        .insert("scenario_file".into(), s.origin.clone().into());
    opts.meta
        .insert("mptlab_version".into(), env!("CARGO_PKG_VERSION").into());
    opts.meta.insert("base_seed".into(), s.meta.seed.into());
    opts.extra_files.push((
        "scenario.toml".into(),
        s.effective_toml.clone().into_bytes(),
    ));
    match write_run(&o.out, &runs, &opts) {
        Ok(files) => {
            crate::interrupt::stage(crate::interrupt::Stage::Done);
            if !o.quiet {
                out!("{}", summary_table(&runs));
                eprintln!("wrote {} files to {}", files.len(), o.out.display());
            }
            // printed even with --quiet: a result that silently leaves out
            // what did not finish is a wrong answer (issue 12)
            if let Some(w) = unfinished_warning(&Unfinished::of(&runs), &s.origin) {
                eprintln!("{w}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// `run`'s write of its runs into `out`: whole or not at all
/// ([`write_results_with`]). An interrupt during it reads `summary.json`
/// to say whether it had finished, against its identity before it
/// (`Stage::Writing`); the write's commit, the steps that change which
/// result `out` holds, runs under the lock the interrupt handler holds
/// from that read until the process exits ([`crate::interrupt::holding`]),
/// so the line cannot go out of date before the exit (session 31).
pub(crate) fn write_run(
    out: &std::path::Path,
    runs: &[RunOutput],
    opts: &WriteOptions,
) -> Result<Vec<PathBuf>, mptlab_results::WriteError> {
    let summary = out.join(mptlab_results::SUMMARY_FILE);
    crate::interrupt::stage(crate::interrupt::Stage::Writing(crate::interrupt::file_id(
        &summary,
    )));
    write_results_with(out, runs, opts, &crate::interrupt::holding)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[scenario]\nname = \"t\"\nduration_s = 5\nruns = 7\n[topology]\npreset = \"single-path\"\npaths = [\"lte\"]\n[traffic]\nmodel = \"bulk\"\n";

    fn fake(s: &Scenario, i: u32) -> Result<RunOutput, String> {
        let mut o = RunOutput::new(i, s.run_seed(i));
        o.set_metric("x", i as f64);
        Ok(o)
    }

    fn failing(s: &Scenario, i: u32) -> Result<RunOutput, String> {
        if i == 3 {
            Err("engine exploded".into())
        } else {
            fake(s, i)
        }
    }

    fn panicking(s: &Scenario, i: u32) -> Result<RunOutput, String> {
        if i == 2 {
            panic!("boom")
        }
        fake(s, i)
    }

    #[test]
    fn results_do_not_depend_on_jobs() {
        let s = Scenario::from_str(TEXT, "t.toml").unwrap();
        let one = run_all(&s, 1, &ProgressBar::hidden(), &fake).unwrap();
        let four = run_all(&s, 4, &ProgressBar::hidden(), &fake).unwrap();
        assert_eq!(one, four);
        assert_eq!(
            one.iter().map(|r| r.run).collect::<Vec<_>>(),
            (0..7).collect::<Vec<_>>()
        );
        let table = summary_table(&one);
        let line: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(line, ["x", "7", "3", "3", "0", "6", "2.16"], "{table}");
    }

    #[test]
    fn failure_writes_nothing() {
        let s = Scenario::from_str(TEXT, "t.toml").unwrap();
        let dir = crate::scratch::Scratch::unmade("cli-fail");
        let o = RunOptions {
            out: dir.to_path_buf(),
            jobs: 3,
            quiet: true,
            force: false,
            csv: true,
            parquet: true,
        };
        assert_eq!(run(&s, &o, &failing), ExitCode::from(1));
        assert!(!dir.exists());
        assert_eq!(run(&s, &o, &panicking), ExitCode::from(1));
        assert!(!dir.exists());
        let e = run_all(&s, 2, &ProgressBar::hidden(), &failing).unwrap_err();
        assert!(
            e.starts_with("run 3 (seed ") && e.ends_with("engine exploded"),
            "{e}"
        );
        assert_eq!(run(&s, &o, &fake), ExitCode::SUCCESS);
        assert!(dir.join("summary.json").exists());
        assert_eq!(
            run(&s, &o, &fake),
            ExitCode::from(2),
            "refuses to overwrite without --force"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
