//! Semantic checks and profile resolution: THE validation of a scenario,
//! shared by `check`, `run`, `sweep`, `emulate`, `validate` and the Python API
//! (they all build a [`Scenario`] through it). Everything a run would refuse
//! is refused here, with the dotted key: value ranges and the bounds of
//! [`crate::limits`], cross-key rules, and the content of every file the
//! scenario names (link traces, gaming traces), parsed by the same readers
//! the simulator uses ([`crate::files`]). Errors are `(dotted key, message)`;
//! the caller locates the key in the file.
//!
//! One module per section: [`link`] (links and profiles), [`topology`],
//! [`transport`], [`traffic`]; `[scenario]`, `[background]` and `[output]`
//! are here.

mod link;
mod population;
mod topology;
mod traffic;
mod transport;

use crate::files::Files;
use crate::limits::*;
use crate::types::*;
use crate::value::Range;
use crate::*;
use link::{check_params, Resolver};
use std::path::PathBuf;

pub(crate) type VResult<T> = Result<T, (String, String)>;

fn err<T>(key: impl Into<String>, msg: impl Into<String>) -> VResult<T> {
    Err((key.into(), msg.into()))
}

/// A number as users write it: `1e-300`, not three hundred zeros.
pub(crate) fn show(v: f64) -> String {
    if v != 0.0 && v.is_finite() && (v.abs() < 1e-4 || v.abs() >= 1e15) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Check a number: finite, within [min, max] (`min_open` makes min exclusive).
fn num(key: &str, v: f64, min: f64, min_open: bool, max: f64, what: &str) -> VResult<()> {
    let bad_min = if min_open { v <= min } else { v < min };
    if !v.is_finite() || bad_min || v > max {
        let lower = if min_open {
            format!("> {}", show(min))
        } else {
            format!(">= {}", show(min))
        };
        let range = if max.is_finite() {
            format!("{lower} and <= {}", show(max))
        } else {
            lower
        };
        return err(key, format!("expected {what} {range}, found {}", show(v)));
    }
    Ok(())
}

fn range(key: &str, r: &Range, min: f64, min_open: bool, max: f64, what: &str) -> VResult<()> {
    if let Range::Uniform { lo, hi } = *r {
        num(key, lo, min, min_open, max, what)?;
        num(key, hi, min, min_open, max, what)?;
        if lo > hi {
            return err(
                key,
                format!("expected [lo, hi] with lo <= hi, found [{lo}, {hi}]"),
            );
        }
        Ok(())
    } else {
        num(key, r.lo(), min, min_open, max, what)
    }
}

const INF: f64 = f64::INFINITY;

pub(crate) fn validate(
    file: ScenarioFile,
    origin: &str,
    base_dir: PathBuf,
    effective: String,
    files: &mut Files,
) -> VResult<Scenario> {
    meta(&file.scenario)?;
    for (name, p) in &file.profile {
        check_params(&format!("profile.{name}"), p, false)?;
    }
    let mut res = Resolver {
        user: &file.profile,
        base_dir: &base_dir,
        files,
        used: std::collections::BTreeSet::new(),
    };
    // every user profile's base chain resolves, even if the profile is unused
    for name in file.profile.keys() {
        let p = LinkParams {
            profile: Some(name.clone()),
            ..Default::default()
        };
        res.flatten(&format!("profile.{name}"), &p)?;
    }
    let topology = topology::resolve(&file.topology, &mut res)?;
    let npaths = topology.num_paths();
    transport::check(&file.transport, &topology)?;
    let traffic = traffic::resolve(&file, npaths, &base_dir, res.files)?;
    let population = population::resolve(&file, &topology, &traffic, &mut res)?;
    background(&file, &topology, res.files)?;
    output(&file)?;
    let profiles_used = std::mem::take(&mut res.used);
    Ok(Scenario {
        origin: origin.to_string(),
        base_dir,
        effective_toml: effective,
        meta: file.scenario.clone(),
        topology,
        transport: file.transport.clone(),
        traffic,
        background: file.background.clone(),
        output: file.output.clone(),
        population,
        file,
        profiles_used,
    })
}

/// `[scenario]`
fn meta(m: &Meta) -> VResult<()> {
    if m.name.trim().is_empty() {
        return err("scenario.name", "expected a non-empty name");
    }
    num(
        "scenario.duration_s",
        m.duration_s,
        0.0,
        true,
        MAX_DURATION_S,
        "a duration in s",
    )?;
    if m.runs == 0 || m.runs > MAX_RUNS {
        return err(
            "scenario.runs",
            format!(
                "expected a number of runs from 1 to {MAX_RUNS} (docs/scenario.md, limits), found {}",
                m.runs
            ),
        );
    }
    Ok(())
}

/// `[background]`
fn background(file: &ScenarioFile, topology: &Topology, files: &mut Files) -> VResult<()> {
    let bg = &file.background;
    let npaths = topology.num_paths();
    num(
        "background.udp_share_percent",
        bg.udp_share_percent,
        0.0,
        false,
        100.0,
        "a share in percent",
    )?;
    for (i, &p) in bg.paths.iter().enumerate() {
        if p == 0 || p as usize > npaths {
            return err(
                "background.paths",
                format!(
                    "entry {}: expected a client path number from 1 to {npaths}, found {p}",
                    i + 1
                ),
            );
        }
        if bg.paths[..i].contains(&p) {
            return err(
                "background.paths",
                format!("entry {}: path {p} is listed twice", i + 1),
            );
        }
    }
    num(
        "background.start_s",
        bg.start_s,
        0.0,
        false,
        file.scenario.duration_s,
        "a start time in s within the run (<= scenario.duration_s)",
    )?;
    if bg.enabled && matches!(topology, Topology::Explicit { .. }) {
        return err(
            "background.enabled",
            "background traffic needs a topology preset (explicit topologies have no background hosts)",
        );
    }
    if bg.enabled && bg.tcp_cc.is_coupled() {
        return err(
            "background.tcp_cc",
            format!(
                "expected newreno or cubic (background flows are single-path TCP), found \"{}\"",
                bg.tcp_cc
            ),
        );
    }
    if bg.tcp_flows > MAX_BACKGROUND_TCP_FLOWS {
        return err(
            "background.tcp_flows",
            format!(
                "expected at most {MAX_BACKGROUND_TCP_FLOWS} TCP flows per access path (docs/scenario.md, limits), found {}",
                bg.tcp_flows
            ),
        );
    }
    if let (true, Topology::Preset { paths, .. }) = (bg.enabled, topology) {
        // the UDP flows per path follow from its rate (core background_plan,
        // as the simulator calls it); every flow needs a port of its own
        let mut flows = 0u64;
        for (i, p) in paths.iter().enumerate() {
            if !bg.paths.is_empty() && !bg.paths.contains(&(i as u32 + 1)) {
                continue;
            }
            flows += bg.tcp_flows as u64;
            if bg.udp_share_percent > 0.0 {
                let mut bps: f64 = 0.0;
                for d in [&p.link.up, &p.link.down] {
                    bps = bps.max(match (&d.rate_mbit, &d.trace) {
                        (_, Some(t)) => files.check_link_trace(t).unwrap_or(0.0),
                        (Some(r), None) => r.hi() * 1e6,
                        (None, None) => 0.0,
                    });
                }
                if let Ok(plan) =
                    mptlab_core::traffic::onoff::background_plan(bps, bg.udp_share_percent / 100.0)
                {
                    flows += plan.flows as u64;
                }
            }
        }
        if flows > MAX_BACKGROUND_FLOWS as u64 {
            return err(
                "background.udp_share_percent",
                format!(
                    "expected at most {MAX_BACKGROUND_FLOWS} background flows in a run (docs/scenario.md, limits), found {flows}: a Pareto on/off UDP flow per 500 kbit/s of udp_share_percent of each path's rate, plus tcp_flows per path; lower the share or the rates"
                ),
            );
        }
    }
    Ok(())
}

/// Snap lengths `output.capture_snaplen` accepts (pcapng, tcpdump's range).
const MIN_SNAPLEN: u32 = 120;
const MAX_SNAPLEN: u32 = 262_144;

/// `[output]`
fn output(file: &ScenarioFile) -> VResult<()> {
    let snap = file.output.capture_snaplen;
    if snap != 0 && !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&snap) {
        return err(
            "output.capture_snaplen",
            format!("expected 0 (whole frames) or {MIN_SNAPLEN} to {MAX_SNAPLEN} bytes (IPv4 and TCP headers with options need 120), found {snap}"),
        );
    }
    if !file.output.capture_dir.is_empty() && file.output.capture_dir.trim().is_empty() {
        return err(
            "output.capture_dir",
            "expected a directory path or \"\" (default), found only blanks".to_string(),
        );
    }
    let iv = file.output.timeseries_interval_ms;
    num(
        "output.timeseries_interval_ms",
        file.output.timeseries_interval_ms,
        0.0,
        false,
        INF,
        "an interval in ms (0 = off)",
    )?;
    if iv > 0.0 {
        // samples of one run: one row per path (and flow) each, all kept in
        // memory until the run ends
        let samples = file.scenario.duration_s * 1e3 / iv;
        if samples > MAX_TIMESERIES_SAMPLES as f64 {
            let least = file.scenario.duration_s * 1e3 / MAX_TIMESERIES_SAMPLES as f64;
            return err(
                "output.timeseries_interval_ms",
                format!(
                    "expected 0 (off) or an interval >= {least} ms for a {} s run (at most {MAX_TIMESERIES_SAMPLES} samples per run, docs/scenario.md, limits), found {iv}",
                    file.scenario.duration_s
                ),
            );
        }
    }
    Ok(())
}
