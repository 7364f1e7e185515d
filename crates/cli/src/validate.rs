//! `mptlab validate`: run a set of scenarios in the simulator and over the
//! real kernel (emulation) and report how far the two are apart, per metric.
//!
//! The scenarios live in `scenarios/validate/` (file downloads of three sizes
//! over two asymmetric paths, CBR video over WLAN + 3G, each with TCP and
//! MPTCP; MPTCP uses the upstream scheduler, the one the kernel has). Both
//! sides use the same seeds, so they draw the same link parameters.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mptlab_results::{RunOutput, Unfinished};
use mptlab_scenario::{Override, Scenario};

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
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn medians(runs: &[RunOutput]) -> BTreeMap<&'static str, f64> {
    let mut m = BTreeMap::new();
    for k in METRICS {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.summary.get(*k).and_then(|x| x.as_f64()))
            .collect();
        if let Some(x) = median(v) {
            m.insert(*k, x);
        }
    }
    m
}

fn scenarios(dir: &Path, only: Option<&str>) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            only.is_none_or(|o| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains(o))
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
                if let Err(e) =
                    mptlab_sim::supported(&s).and_then(|_| mptlab_emu::run::supported(&s))
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
    // Root, TUN, MPTCP, signal handling; refuses clearly otherwise.
    if let Err(e) = mptlab_emu::run::prepare(&loaded[0], None) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let mut rows: Vec<(String, &'static str, f64, f64)> = Vec::new();
    for s in &loaded {
        let name = s.meta.name.trim_start_matches("validate-").to_string();
        eprintln!(
            "validate: {name}: {} run(s) simulated, then emulated in real time ({} s each)",
            s.meta.runs, s.meta.duration_s
        );
        let mut sim = Vec::new();
        let mut emu = Vec::new();
        for r in 0..s.meta.runs {
            match mptlab_sim::run_once(s, r) {
                Ok(x) => sim.push(x),
                Err(e) => {
                    eprintln!("error: {name}: simulation run {r}: {e}");
                    return ExitCode::from(1);
                }
            }
            match mptlab_emu::run::run_once_global(s, r) {
                Ok(x) => emu.push(x),
                Err(e) => {
                    eprintln!("error: {name}: emulation run {r}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        // medians of completion times / delays cover completed items only
        for (what, runs) in [("simulated", &sim), ("emulated", &emu)] {
            let place = format!("{name} ({what})");
            if let Some(w) = crate::runner::unfinished_warning(&Unfinished::of(runs), &place) {
                eprintln!("{w}");
            }
        }
        let (ms, me) = (medians(&sim), medians(&emu));
        for k in METRICS {
            if let (Some(a), Some(b)) = (ms.get(k), me.get(k)) {
                rows.push((name.clone(), k, *a, *b));
            }
        }
    }
    let mut text = String::new();
    text.push_str(&format!(
        "{:<22} {:<20} {:>12} {:>12} {:>9}\n",
        "scenario", "metric (median)", "simulated", "emulated", "diff"
    ));
    let mut csv = String::from("scenario,metric,simulated,emulated,diff\n");
    for (n, k, a, b) in &rows {
        // Shares are compared in absolute points, everything else relatively.
        let diff = if k.starts_with("fg_share") {
            format!("{:+.3}", b - a)
        } else if *a != 0.0 {
            format!("{:+.1} %", (b - a) / a * 100.0)
        } else {
            "-".into()
        };
        text.push_str(&format!("{n:<22} {k:<20} {a:>12.3} {b:>12.3} {diff:>9}\n"));
        csv.push_str(&format!("{n},{k},{a},{b},{}\n", diff.replace(" %", "%")));
    }
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
