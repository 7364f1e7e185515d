//! `mptlab`: run multipath transport experiments described in TOML scenarios.
//!
//! Exit codes: 0 success; 2 invalid scenario or command line (nothing
//! written); 1 simulation or output error (nothing written).

// first: its macros serve the modules below
#[macro_use]
mod stdout;
mod analyze;
mod driver;
mod experiments;
mod interrupt;
mod kernel_hz;
mod reproduce;
mod runner;
mod scale_bench;
#[cfg(test)]
mod scratch;
mod sweep;
mod validate;

use clap::{Parser, Subcommand};
use driver::Driver;
use mptlab_scenario::{registry, Override, Scenario, Topology, TrafficModel};
use std::path::PathBuf;
use std::process::ExitCode;

/// `mptlab --version`: the package version and the identity of the model
/// this build simulates (the digest that keys a sweep's runs,
/// docs/sweeps.md "Persistence and resume").
fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| {
        format!(
            "{} (model sources {})",
            env!("CARGO_PKG_VERSION"),
            mptlab_sweep::store::MODEL_ID
        )
    })
}

#[derive(Parser)]
#[command(
    name = "mptlab",
    version = version_line(),
    about = "Multipath transport lab: simulate MPTCP, CMT-SCTP and TCP experiments described in TOML scenario files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List everything a scenario can choose: protocols, congestion controls,
    /// traffic models, loss models, link profiles, topology presets.
    List,
    /// Validate a scenario file without running it (with a [sweep]: every point).
    Check {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Override a key before validation, e.g. --set transport.cc=newreno (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<Override>,
    },
    /// Run all repetitions of a scenario and write the result tables.
    Run {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output directory (created; written atomically when all runs succeed).
        #[arg(long, short, value_name = "DIR")]
        out: PathBuf,
        /// Number of runs (overrides scenario.runs).
        #[arg(long)]
        runs: Option<u32>,
        /// Base seed, 0 to 2^63-1 (a TOML integer; overrides scenario.seed).
        #[arg(long, value_parser = seed_arg())]
        seed: Option<u64>,
        /// Parallel jobs (default, or 0: all cores). Results do not depend on it.
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Override a key, e.g. --set transport.cc=newreno --set profile.wlan.delay_ms=[10,20] (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<Override>,
        /// No progress bar and no summary table.
        #[arg(long, short)]
        quiet: bool,
        /// Overwrite results already in DIR.
        #[arg(long)]
        force: bool,
        /// Skip CSV output.
        #[arg(long)]
        no_csv: bool,
        /// Skip Parquet output.
        #[arg(long)]
        no_parquet: bool,
        /// Write pcapng captures of every host's packets to DIR/run-<k>/<host>.pcapng
        /// (sets output.capture; docs/captures.md).
        #[arg(long, value_name = "DIR")]
        capture: Option<PathBuf>,
    },
    /// Run every point of the scenario's [sweep] x runs; each finished run is
    /// saved at once, so the same command resumes an interrupted sweep.
    Sweep {
        /// Scenario file (TOML) with a [sweep] table.
        scenario: PathBuf,
        /// Output directory: runs/ (one file per finished run), then the merged tables.
        #[arg(long, short, value_name = "DIR")]
        out: PathBuf,
        /// Runs per point (overrides sweep.runs and scenario.runs).
        #[arg(long)]
        runs: Option<u32>,
        /// Base seed, 0 to 2^63-1 (a TOML integer; overrides scenario.seed).
        #[arg(long, value_parser = seed_arg())]
        seed: Option<u64>,
        /// Parallel jobs (default, or 0: all cores). Results do not depend on it.
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Override a key of the base scenario (repeatable); sweep values win.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<Override>,
        /// No progress bar or messages.
        #[arg(long, short)]
        quiet: bool,
        /// Discard runs of a different sweep or of another build of the model
        /// (`mptlab --version`), or other results, in DIR.
        #[arg(long)]
        force: bool,
        /// Skip CSV output.
        #[arg(long)]
        no_csv: bool,
        /// Skip Parquet output.
        #[arg(long)]
        no_parquet: bool,
        /// Run on a Dask cluster (e.g. tcp://host:8786) through the Python package.
        #[arg(long, value_name = "ADDRESS")]
        scheduler: Option<String>,
    },
    /// Reproduce a seed paper: run its scenario library (scenarios/seed<SEED>/,
    /// one resumable sweep per file under DIR/runs/), then write the HTML
    /// report DIR/report.html with the Python package (docs/report.md).
    Reproduce {
        /// Seed paper (`000`, `001`, `002`, ...) or `all`.
        #[arg(default_value = "all")]
        seed: String,
        /// Output directory: runs/<seed>/<file>/ (sweeps), report.html, figures.
        #[arg(long, short, value_name = "DIR", required_unless_present_any = ["check", "kernel_plan"])]
        out: Option<PathBuf>,
        /// Quick pass: 3 runs per point, video, gaming and bulk runs cut to 20 s (or 20 s after the last link outage ends or delayed background traffic starts), at most 20 bursts; web and file runs stay whole (not the paper's counts).
        #[arg(long)]
        quick: bool,
        /// Runs per point (overrides the library's and --quick's).
        #[arg(long)]
        runs: Option<u32>,
        /// Parallel jobs (default, or 0: all cores). Results do not depend on it.
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Only the library files whose name contains this (repeatable), e.g. --only video-wlan3g.
        #[arg(long, value_name = "SUBSTRING")]
        only: Vec<String>,
        /// Scenario library root (default: ./scenarios, else next to the executable).
        #[arg(long, value_name = "DIR")]
        library: Option<PathBuf>,
        /// Run the sweeps only; no report.
        #[arg(long)]
        no_report: bool,
        /// Also write each sweep's merged Parquet tables (large: about 1 GB per gaming file at full run counts).
        #[arg(long)]
        tables: bool,
        /// No progress bars or messages.
        #[arg(long, short)]
        quiet: bool,
        /// Redo the sweeps whose scenario, input files (traces) or model
        /// (this build's sources, `mptlab --version`) changed since their
        /// runs were made (default: refused).
        #[arg(long)]
        force: bool,
        /// Only check the experiment registry (scenarios/registry/experiments.toml)
        /// against the library files, their sweeps and the claims; run nothing.
        #[arg(long)]
        check: bool,
        /// After the simulation, run every cell (sweep point) the kernel can
        /// run over the real Linux kernel, one run after another in real time
        /// (needs root, TUN, MPTCP); the report shows the kernel beside the
        /// simulator (docs/report.md).
        #[arg(long)]
        kernel: bool,
        /// Runs per cell on the kernel.
        #[arg(long, value_name = "N", default_value_t = reproduce::KERNEL_RUNS, value_parser = clap::value_parser!(u32).range(1..))]
        kernel_runs: u32,
        /// Only the kernel cells whose `seed<SEED>/<file>:<point>` contains this (repeatable).
        #[arg(long, value_name = "SUBSTRING")]
        kernel_only: Vec<String>,
        /// List every cell (run on the kernel, or refused and why) and the
        /// estimated real time; run nothing.
        #[arg(long)]
        kernel_plan: bool,
        /// Instead of running the kernel, judge the kernel runs saved in an
        /// earlier `--kernel` pass's kernel.json (FILE, or a DIR holding
        /// it) against this simulation: no root, no real time. Repeatable:
        /// the cells a later file's pass ran replace the earlier files'
        /// entries. Refused when the file does not match the sweep
        /// (docs/report.md).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["kernel", "kernel_plan", "kernel_only", "kernel_runs"])]
        kernel_from: Vec<PathBuf>,
        /// Simulate at this transport.hz (100, 250, 300, 1000). Default with
        /// --kernel / --kernel-from: the kernel's CONFIG_HZ (the host's, or
        /// what the first kernel.json records; 1000 when unknown, said on
        /// stderr); without them, the scenarios' own.
        #[arg(long, value_name = "N", value_parser = kernel_hz::parse)]
        hz: Option<u32>,
        /// With --kernel (live) or --kernel-from (continue a saved pass): after
        /// the planned kernel runs, re-judge, and give every cell the judge
        /// leaves undecided more kernel runs (in batches of its estimate, up
        /// to MAX in all), until each is decided or has MAX runs. Needs
        /// --runs MAX or more (docs/report.md).
        #[arg(long, value_name = "MAX", value_parser = clap::value_parser!(u32).range(1..))]
        until_decided: Option<u32>,
    },
    /// Run all repetitions of a scenario over the real Linux kernel (TCP,
    /// MPTCP, UDP) between network namespaces, links shaped by mptlab's
    /// userspace link emulator; real time, one run after another. Needs
    /// root, TUN and MPTCP. Same tables as `run` (docs/emulation.md).
    Emulate {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output directory (created; written atomically when all runs succeed).
        #[arg(long, short, value_name = "DIR")]
        out: PathBuf,
        /// Number of runs (overrides scenario.runs).
        #[arg(long)]
        runs: Option<u32>,
        /// Base seed, 0 to 2^63-1 (a TOML integer; overrides scenario.seed).
        #[arg(long, value_parser = seed_arg())]
        seed: Option<u64>,
        /// Override a key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<Override>,
        /// No summary table.
        #[arg(long, short)]
        quiet: bool,
        /// Overwrite results already in DIR.
        #[arg(long)]
        force: bool,
        /// Also write a pcap per namespace interface into CAPDIR (needs
        /// dumpcap or tshark; skipped with a note otherwise).
        #[arg(long, value_name = "CAPDIR")]
        capture: Option<PathBuf>,
    },
    /// Read packet captures (pcap, pcapng: simulated, emulated or real) and
    /// write the tables of `run` where the packets hold the information,
    /// plus per-subflow sequence and throughput figures (docs/analyze.md).
    Analyze(analyze::Args),
    /// Traffic agent on real hosts (live mode): `agent server` on one host,
    /// `agent client` on the other, same scenario file (docs/emulation.md).
    Agent {
        #[command(subcommand)]
        role: mptlab_emu::live::AgentCommand,
    },
    /// Run the validation scenarios (scenarios/validate) in the simulator and
    /// over the real kernel, and print the medians side by side. Needs root.
    Validate {
        /// Directory of validation scenarios.
        #[arg(long, default_value = "scenarios/validate")]
        dir: PathBuf,
        /// Also write validation.csv / validation.txt here.
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Runs per scenario (overrides scenario.runs).
        #[arg(long)]
        runs: Option<u32>,
        /// Only scenarios whose path below --dir contains this text (the
        /// generated grid is in grid/: `--only grid/`, `--only file-8m`).
        #[arg(long)]
        only: Option<String>,
        /// Decision-level comparison: per MPTCP scenario and run, the fraction
        /// of bytes the simulator and the kernel place on the same subflow
        /// on the same link realization (writes decisions.csv; docs/validation.md).
        #[arg(long)]
        decisions: bool,
        /// Reuse the kernel runs saved under DIR/kernel/ by an earlier
        /// `validate -o DIR` and run only the simulator side (refused when a
        /// scenario's kernel-relevant settings or seeds changed since).
        /// Repeatable: each scenario's runs come from the last DIR that has
        /// them. With --decisions (one DIR): re-judge the kernel captures an
        /// earlier `validate --decisions -o DIR` saved under DIR/captures/.
        #[arg(long, value_name = "DIR")]
        kernel_from: Vec<PathBuf>,
        /// The simulator side's transport.hz (100, 250, 300, 1000). Default:
        /// the kernel's CONFIG_HZ (the host's, or what --kernel-from's files
        /// record; 1000 when unknown, said on stderr).
        #[arg(long, value_name = "N", value_parser = kernel_hz::parse)]
        hz: Option<u32>,
        /// With --decisions: the simulator side's transport.hz_phase_us for
        /// every run. Default: each kernel run's own (its time 0 on
        /// CLOCK_MONOTONIC modulo one jiffy, which the emulator records; 0
        /// for runs saved before it did, said on stderr).
        #[arg(long, value_name = "US", requires = "decisions")]
        hz_phase_us: Option<u32>,
        /// With --decisions --kernel-from PREV: write PREV's kernel runs of the
        /// set to DIR in the form kept in the repository (the server captures
        /// gzip-compressed, kernel-runs.json, PREV's decisions.csv) and stop;
        /// --kernel-from DIR re-judges them.
        #[arg(long, value_name = "DIR", requires_all = ["decisions", "kernel_from"])]
        compact_kernel: Option<PathBuf>,
        /// With --decisions --kernel-from A: compare A's kernel runs with
        /// those of a second saved pass DIR of the same scenarios and seeds,
        /// run by run, nothing simulated: how reproducible the kernel's own
        /// placement is on one link realization (docs/validation.md).
        #[arg(
            long,
            value_name = "DIR",
            requires_all = ["decisions", "kernel_from"],
            conflicts_with = "compact_kernel"
        )]
        kernel_vs: Option<PathBuf>,
    },
    /// Measure simulator speed: simulated data packets per wall-clock second on
    /// one core, for the benchmark scenarios (a saturated flow at 20 Mbit/s and
    /// 40 ms RTT; the seed 000 topology with background traffic; htsim's MPTCP
    /// LIA connection over 3G (166 pkt/s, 150 ms) and Wi-Fi (8000 pkt/s, 10 ms)).
    Bench {
        /// Simulated seconds per benchmark run.
        #[arg(long, default_value_t = 300.0)]
        duration: f64,
        /// Timed repetitions per benchmark; the best is reported.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Only benchmarks whose name contains this text (e.g. `mptcp`), so a
        /// profiler sees one scenario.
        #[arg(long)]
        only: Option<String>,
        /// Instead: time run 0 of this scenario file (the scale table of
        /// docs/performance.md: `--scale scenarios/scale/mptcp.toml --set
        /// population.clients=N`): build and run time, data packets,
        /// events, ns per data packet, resident memory built and peak.
        #[arg(long, value_name = "FILE")]
        scale: Option<PathBuf>,
        /// With --scale: override a key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", requires = "scale")]
        set: Vec<Override>,
        /// With --scale: time runs 0..RUNS one after another (each built,
        /// run and dropped) and report their sums, so that a point with few
        /// connections times enough packets at a short duration.
        #[arg(long, default_value_t = 1, requires = "scale")]
        runs: u32,
    },
}

/// How this binary was built, so that a benchmark figure names its build:
/// `scripts/build-pgo.sh` sets MPTLAB_BUILD_FLAVOR=pgo for its final build
/// (profile-guided; the same code, and byte-identical results).
fn build_flavor() -> &'static str {
    match option_env!("MPTLAB_BUILD_FLAVOR") {
        Some(f) => f,
        None if cfg!(debug_assertions) => "debug",
        None => "release",
    }
}

fn bench(duration: f64, repeat: u32, only: Option<&str>) -> ExitCode {
    // the arguments, before the header: `--duration 0` was reported as a key
    // of an internal scenario (exit 1), `--repeat 0` timed one run anyway
    // and an `--only` matching nothing printed an empty table with exit 0
    // (session 26)
    let max = mptlab_scenario::limits::MAX_DURATION_S;
    if !(duration > 0.0 && duration <= max) {
        eprintln!("error: --duration {duration}: expected simulated seconds > 0 and <= {max}");
        return ExitCode::from(2);
    }
    if repeat == 0 {
        eprintln!("error: --repeat 0: expected at least 1 timed repetition");
        return ExitCode::from(2);
    }
    let names: Vec<&str> = mptlab_sim::bench::scenarios(duration)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    if let Some(o) = only.filter(|o| !names.iter().any(|n| n.contains(o))) {
        eprintln!(
            "error: --only {o:?} matches no benchmark (have: {})",
            names.join(", ")
        );
        return ExitCode::from(2);
    }
    eprintln!("# build: {}", build_flavor());
    outln!(
        "{:<34} {:>9} {:>10} {:>12} {:>14} {:>12}",
        "benchmark",
        "sim_s",
        "wall_s",
        "data_pkts",
        "data_pkts/s",
        "events/s"
    );
    for (name, text) in mptlab_sim::bench::scenarios(duration) {
        if only.is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let s = match Scenario::from_str(&text, name) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        let mut best: Option<mptlab_sim::bench::BenchResult> = None;
        for _ in 0..repeat.max(1) {
            match mptlab_sim::bench::time_run(name, &s) {
                Ok(r) => {
                    if best.as_ref().is_none_or(|b| r.wall_s < b.wall_s) {
                        best = Some(r);
                    }
                }
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        let r = best.expect("at least one repetition");
        outln!(
            "{:<34} {:>9.1} {:>10.3} {:>12} {:>14.0} {:>12.0}",
            r.name,
            r.sim_s,
            r.wall_s,
            r.data_packets,
            r.packets_per_s(),
            r.events_per_s()
        );
    }
    ExitCode::SUCCESS
}

/// Everything `mptlab list` prints: the scenario crate's registry, which
/// holds the scenario format's own names and mptlab-core's mechanism enums
/// (`mptlab_core::registry`), the one source of the names the parser accepts.
fn catalog() -> Vec<registry::Category> {
    let mut cats = registry::categories();
    for c in &mut cats {
        for (name, desc) in &mut c.entries {
            if mptlab_sim::NOT_SIMULATED
                .iter()
                .any(|(k, n)| *k == c.key && n == name)
            {
                desc.push_str(" [not simulated yet]");
            }
        }
    }
    cats
}

fn list() {
    for c in catalog() {
        outln!("{} ({}):", c.title, c.key);
        let w = c.entries.iter().map(|e| e.0.len()).max().unwrap_or(0);
        for (name, desc) in &c.entries {
            outln!("  {name:w$}  {desc}");
        }
        outln!();
    }
}

fn describe(s: &Scenario) -> String {
    let topo = match &s.topology {
        Topology::Preset { preset, paths, .. } => {
            format!(
                "{preset} ({})",
                paths
                    .iter()
                    .map(|p| p.profile.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        Topology::Explicit { nodes, links, .. } => {
            format!("explicit ({} nodes, {} links)", nodes.len(), links.len())
        }
    };
    let t = &s.transport;
    let proto = if t.protocol.is_multipath() {
        format!("{}/{} on all paths", t.protocol, t.cc)
    } else {
        format!("{}/{} on path {}", t.protocol, t.cc, t.path)
    };
    let model = match &s.traffic.model {
        TrafficModel::Video { bitrate_kbit, fps } => {
            format!("video {bitrate_kbit} kbit/s {fps} fps")
        }
        TrafficModel::Gaming { .. } => "gaming".into(),
        TrafficModel::Web { .. } => "web".into(),
        TrafficModel::File { size_bytes } => format!("file {size_bytes} bytes"),
        TrafficModel::Bursts {
            count,
            size_bytes,
            interval_s,
        } => format!("{count} bursts of {size_bytes} bytes every {interval_s} s"),
        TrafficModel::Bulk => "bulk".into(),
    };
    format!(
        "{}: {} run(s) x {} s, {topo}, {proto}, {model} {}",
        s.meta.name, s.meta.runs, s.meta.duration_s, s.traffic.direction
    )
}

fn load(path: &PathBuf, set: &[Override]) -> Result<Scenario, ExitCode> {
    // the file as a whole: a [sweep] table must be valid too (as `check` says)
    let s = Scenario::load(path, set).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    // Valid but not (yet) simulated: refuse before anything runs or is written.
    driver::Simulate.supported(&s).map_err(|e| {
        eprintln!("error: {}: {e}", path.display());
        ExitCode::from(2)
    })?;
    Ok(s)
}

fn main() -> ExitCode {
    let code = command(Cli::parse());
    stdout::flush();
    code
}

fn command(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Bench {
            scale: Some(file),
            set,
            runs,
            ..
        } => {
            if runs == 0 {
                eprintln!("error: --runs 0: expected at least 1 run to time");
                return ExitCode::from(2);
            }
            scale_bench::run(&file, &set, runs)
        }
        Command::Bench {
            duration,
            repeat,
            only,
            ..
        } => bench(duration, repeat, only.as_deref()),
        Command::Validate {
            dir,
            out,
            runs,
            only,
            decisions,
            kernel_from,
            hz,
            hz_phase_us,
            compact_kernel,
            kernel_vs,
        } => validate::run(validate::Options {
            dir,
            out,
            runs,
            only,
            decisions,
            kernel_from,
            hz,
            hz_phase_us,
            compact_kernel,
            kernel_vs,
        }),
        Command::List => {
            list();
            ExitCode::SUCCESS
        }
        // a [sweep]: the base document (what `run` runs) and every point are checked
        Command::Check { scenario, set } if mptlab_scenario::sweep::file_has_sweep(&scenario) => {
            match sweep::plan(&scenario, &set, None) {
                Ok(sw) => {
                    outln!(
                        "ok: {}: sweep of {} point(s) x {} run(s); first point {}: {}",
                        scenario.display(),
                        sw.points.len(),
                        sw.runs,
                        sw.points[0].label,
                        describe(&sw.points[0].scenario)
                    );
                    // messages SCTP will refuse (larger than the send buffer):
                    // the first such point, and how many there are
                    let refusing: Vec<_> = sw
                        .points
                        .iter()
                        .filter_map(|p| {
                            mptlab_scenario::msgsize::sctp_send_buffer_warning(&p.scenario)
                                .map(|w| (&p.label, w))
                        })
                        .collect();
                    if let Some((label, w)) = refusing.first() {
                        eprintln!(
                            "warning: {} of {} sweep point(s) send messages larger than the SCTP send buffer; first, point `{label}`: {w}",
                            refusing.len(),
                            sw.points.len()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Check { scenario, set } => match load(&scenario, &set) {
            Ok(s) => {
                outln!("ok: {}: {}", scenario.display(), describe(&s));
                // valid, but SCTP will refuse every (or some) message
                if let Some(w) = mptlab_scenario::msgsize::sctp_send_buffer_warning(&s) {
                    eprintln!("warning: {w}");
                }
                ExitCode::SUCCESS
            }
            Err(c) => c,
        },
        Command::Sweep {
            scenario,
            out,
            runs,
            seed,
            jobs,
            mut set,
            quiet,
            force,
            no_csv,
            no_parquet,
            scheduler,
        } => {
            if scheduler.is_some() {
                let args: Vec<String> = std::env::args().skip(1).collect();
                return sweep::via_python(&args);
            }
            if let Some(s) = seed {
                set.push(Override {
                    key: "scenario.seed".into(),
                    value: s.to_string(),
                });
            }
            let o = sweep::SweepOptions {
                out,
                jobs: jobs_or_all_cores(jobs),
                runs,
                set,
                quiet,
                force,
                csv: !no_csv,
                parquet: !no_parquet,
            };
            sweep::run(&scenario, &o)
        }
        Command::Emulate {
            scenario,
            out,
            runs,
            seed,
            mut set,
            quiet,
            force,
            capture,
        } => {
            if let Some(r) = runs {
                set.push(Override {
                    key: "scenario.runs".into(),
                    value: r.to_string(),
                });
            }
            if let Some(s) = seed {
                set.push(Override {
                    key: "scenario.seed".into(),
                    value: s.to_string(),
                });
            }
            // validation first, then what emulation supports, then root
            let s = match Scenario::load(&scenario, &set) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let emulate = match mptlab_emu::run::prepare(&s, capture) {
                Ok(o) => driver::Emulate(o),
                Err(e) => {
                    eprintln!("error: {}: {e}", scenario.display());
                    return ExitCode::from(2);
                }
            };
            let opts = runner::RunOptions {
                out,
                jobs: 1,
                quiet,
                force,
                csv: true,
                parquet: true,
            };
            if !quiet {
                eprintln!(
                    "emulating {} ({} x {} s, real time)",
                    describe(&s),
                    s.meta.runs,
                    s.meta.duration_s
                );
            }
            runner::run(&s, &opts, &emulate)
        }
        Command::Reproduce {
            seed,
            out,
            quick,
            runs,
            jobs,
            only,
            library,
            no_report,
            tables,
            quiet,
            force,
            check,
            kernel,
            kernel_runs,
            kernel_only,
            kernel_plan,
            kernel_from,
            hz,
            until_decided,
        } => reproduce::run(&reproduce::Options {
            seed,
            out: out.unwrap_or_default(),
            quick,
            jobs: jobs_or_all_cores(jobs),
            runs,
            only,
            library,
            no_report,
            tables,
            quiet,
            force,
            check,
            kernel: (kernel || kernel_plan || !kernel_only.is_empty()).then_some(
                reproduce::KernelOptions {
                    runs: kernel_runs,
                    only: kernel_only,
                    plan: kernel_plan,
                },
            ),
            kernel_from,
            hz,
            until_decided,
        }),
        Command::Agent { role } => mptlab_emu::live::main(role),
        Command::Analyze(a) => analyze::run(a),
        Command::Run {
            scenario,
            out,
            runs,
            seed,
            jobs,
            mut set,
            quiet,
            force,
            no_csv,
            no_parquet,
            capture,
        } => {
            if let Some(r) = runs {
                set.push(Override {
                    key: "scenario.runs".into(),
                    value: r.to_string(),
                });
            }
            if let Some(s) = seed {
                set.push(Override {
                    key: "scenario.seed".into(),
                    value: s.to_string(),
                });
            }
            let mut s = match load(&scenario, &set) {
                Ok(s) => s,
                Err(c) => return c,
            };
            if let Some(d) = capture {
                s.output.capture = true;
                s.output.capture_dir = d.display().to_string();
            } else if s.output.capture && s.output.capture_dir.is_empty() {
                s.output.capture_dir = out.join("capture").display().to_string();
            }
            let opts = runner::RunOptions {
                out,
                jobs: jobs_or_all_cores(jobs),
                quiet,
                force,
                csv: !no_csv,
                parquet: !no_parquet,
            };
            if !quiet {
                eprintln!("{}", describe(&s));
            }
            // not for `emulate` (its runs handle these signals themselves)
            let capture = s.output.capture.then(|| s.output.capture_dir.clone());
            interrupt::install(interrupt::Cmd::Run(s.origin.clone(), capture), &opts.out);
            runner::run(&s, &opts, &driver::Simulate)
        }
    }
}

/// `--jobs`: the number given, or every core the process may use when it is
/// absent or 0 (so `-j 0` in a script means "all", as the help says).
fn jobs_or_all_cores(jobs: Option<usize>) -> usize {
    jobs.filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `--seed`'s parser: the range a scenario file can hold (`scenario.seed` is
/// a TOML integer, i64), so a larger seed is refused here, by the flag's name,
/// rather than later as a type error of the scenario key.
fn seed_arg() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(0..=i64::MAX as u64)
}
