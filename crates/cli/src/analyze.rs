//! `mptlab analyze CAPTURE... [--out DIR]`: the result tables of `run` from
//! packet captures (crate mptlab-analyze, docs/analyze.md).
//!
//! Exit codes: 0 when every capture was read; 1 when a capture could not be
//! read at all (its name and why on stderr; nothing is written: tables of
//! the others would pass for the analysis of all) or writing failed; 2 when
//! nothing could be analysed (no capture read, or no frame decoded), or for
//! bad arguments (an interval that is not a positive number of ms, a
//! capture named twice).

use std::path::PathBuf;
use std::process::ExitCode;

use mptlab_analyze::{analyze_files, svg, to_run_output, ClockMap, Options};
use mptlab_results::{write_results, WriteOptions};

#[derive(clap::Args)]
pub struct Args {
    /// Capture files (pcap or pcapng); each is one vantage point and one run.
    #[arg(required = true)]
    captures: Vec<PathBuf>,
    /// Write the tables (and fig-run*-flow*-{seq,tput}.svg) here, as `run --out` does.
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Overwrite results already in DIR.
    #[arg(long)]
    force: bool,
    /// Interval of the throughput time series and figure, ms.
    #[arg(long, default_value_t = 100.0, allow_hyphen_values = true)]
    interval_ms: f64,
    /// Capture clock minus the agent's clock, ns (message delays of wall-clock
    /// captures); estimated from the messages when not given.
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    clock_offset_ns: Option<i128>,
    /// Analyse all captures as one vantage point (one run), their packets
    /// merged in time order: the interfaces of one host (a multihomed
    /// client's receive side, for the out-of-order delay). Never merge
    /// captures of one packet at several points (counted twice).
    #[arg(long)]
    merge: bool,
    /// No figures.
    #[arg(long)]
    no_figures: bool,
}

/// Arguments that mean nothing, refused before any capture is read
/// (session 27): an interval of 0, below 1 ns, negative or NaN gave an
/// empty `timeseries` without a word; a capture named twice was analysed
/// as two runs (twice its packets with `--merge`).
fn check_args(a: &Args) -> Result<(), String> {
    if !(a.interval_ms.is_finite() && a.interval_ms * 1e6 >= 1.0) {
        return Err(format!(
            "--interval-ms {}: expected an interval in ms >= 0.000001 (1 ns), as a finite number",
            a.interval_ms
        ));
    }
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
    for p in &a.captures {
        // the same file under two spellings is the same capture
        let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        if let Some((_, first)) = seen.iter().find(|(r, _)| *r == real) {
            return Err(format!(
                "capture {} is named twice ({} and {}): it would be analysed as two runs{}",
                real.display(),
                first.display(),
                p.display(),
                if a.merge {
                    " (with --merge, its packets twice)"
                } else {
                    ""
                }
            ));
        }
        seen.push((real, p));
    }
    Ok(())
}

pub fn run(a: Args) -> ExitCode {
    if let Err(e) = check_args(&a) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let opts = Options {
        interval_ms: a.interval_ms,
        clock: a.clock_offset_ns.map_or(ClockMap::Auto, ClockMap::Given),
    };
    let mut runs = Vec::new();
    let mut figures: Vec<(String, Vec<u8>)> = Vec::new();
    let mut failed = 0;
    let mut decoded = 0;
    let groups: Vec<Vec<&std::path::Path>> = if a.merge {
        vec![a.captures.iter().map(PathBuf::as_path).collect()]
    } else {
        a.captures.iter().map(|p| vec![p.as_path()]).collect()
    };
    for (i, group) in groups.iter().enumerate() {
        let fa = match analyze_files(group, &opts) {
            Ok(fa) => fa,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        decoded += fa.analysed;
        let skipped: u64 = fa.skipped.values().sum();
        outln!(
            "{}: {}{}, {} frames, {} analysed, {} skipped{}; {} flows; time: {}",
            fa.file,
            fa.format,
            if fa.damaged.is_some() {
                " (damaged)"
            } else {
                ""
            },
            fa.frames,
            fa.analysed,
            skipped,
            if fa.skipped.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    fa.skipped
                        .iter()
                        .map(|(k, v)| format!("{v} {k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            fa.flows.len(),
            fa.time_base
        );
        if let Some(d) = &fa.damaged {
            eprintln!(
                "warning: {}: read stopped early: {d}; the frames before it are analysed",
                fa.file
            );
        }
        if fa.unmatched_joins > 0 {
            eprintln!(
                "warning: {}: {} MP_JOIN subflow(s) whose token matched no MP_CAPABLE connection in the capture (analysed as separate connections)",
                fa.file, fa.unmatched_joins
            );
        }
        for (fi, f) in fa.flows.iter().enumerate() {
            let bytes: Vec<String> = f
                .paths
                .iter()
                .map(|p| format!("{}/{}", p.dir[0].bytes, p.dir[1].bytes))
                .collect();
            outln!(
                "  flow {fi} {} {} paths, bytes sent client/server per path: {}; {} messages",
                mptlab_analyze::tables::label(fi, f),
                f.paths.len(),
                bytes.join(" "),
                f.msgs.len()
            );
            if !a.no_figures && f.paths.iter().any(|p| p.dir[0].bytes + p.dir[1].bytes > 0) {
                let (s, t) = svg::flow_figures(&fa, fi, f, a.interval_ms);
                figures.push((format!("fig-run{i}-flow{fi}-seq.svg"), s.into_bytes()));
                figures.push((format!("fig-run{i}-flow{fi}-tput.svg"), t.into_bytes()));
            }
        }
        runs.push(to_run_output(i as u32, &fa, &opts));
    }
    if runs.is_empty() || decoded == 0 {
        eprintln!("error: nothing could be analysed: no capture was read or no frame was decoded");
        return ExitCode::from(2);
    }
    if failed > 0 {
        if let Some(dir) = &a.out {
            // the tables of the others, with summary.json naming every
            // capture, would pass for the analysis of all (session 27)
            eprintln!(
                "error: {failed} of {} capture(s) could not be read (named above); nothing written \
                 to {}: leave them out, or fix them, and run again",
                groups.len(),
                dir.display()
            );
        }
        return ExitCode::FAILURE;
    }
    if let Some(dir) = &a.out {
        // the tables would replace files of these names (runner::run)
        let mut theirs = mptlab_results::result_files_in(dir);
        theirs.retain(|n| n != "scenario.toml");
        if !theirs.is_empty() && !a.force {
            eprintln!(
                "error: {} already holds results ({}); use --force to overwrite",
                dir.display(),
                theirs.join(", ")
            );
            return ExitCode::from(2);
        }
        let mut meta = serde_json::Map::new();
        meta.insert(
            "analyze_captures".into(),
            a.captures.iter().map(|p| p.display().to_string()).collect(),
        );
        meta.insert("mptlab_version".into(), env!("CARGO_PKG_VERSION").into());
        let wo = WriteOptions {
            meta,
            extra_files: figures,
            ..WriteOptions::default()
        };
        match write_results(dir, &runs, &wo) {
            Ok(files) => outln!("wrote {} files to {}", files.len(), dir.display()),
            Err(e) => {
                eprintln!("error: {}: {e}", dir.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
