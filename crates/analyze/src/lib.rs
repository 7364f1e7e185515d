//! `mptlab analyze`: mptlab's result tables from packet captures (pcap and
//! pcapng; simulated, emulated or real), see docs/analyze.md.
//!
//! Each capture file is one vantage point and becomes one run of the
//! result set (run = its position on the command line).

pub mod capture;
pub mod gz;
pub mod mptcp;
pub mod packet;
pub mod sctp;
pub mod sctp_rx;
pub mod stream;
pub mod svg;
pub mod tables;
#[doc(hidden)]
pub mod testutil;
pub mod track;

use std::collections::BTreeMap;
use std::path::Path;

pub use tables::to_run_output;

/// How capture timestamps map to the agent's clock (message delays).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClockMap {
    /// Capture time = agent clock + this offset (ns), given by the user.
    Given(i128),
    /// Timestamps below [`RELATIVE_LIMIT_NS`] (simulated captures) are the
    /// agent's clock; wall-clock ones are aligned by the smallest
    /// (first sighting - generation time) over the messages.
    Auto,
}

/// Capture timestamps below this (about 3 years after the epoch) are taken
/// as relative times (the simulator writes time since the run start).
pub const RELATIVE_LIMIT_NS: i128 = 100_000_000_000_000_000;

#[derive(Clone, Debug)]
pub struct Options {
    /// Interval of the throughput time series, ms.
    pub interval_ms: f64,
    pub clock: ClockMap,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            interval_ms: 100.0,
            clock: ClockMap::Auto,
        }
    }
}

/// The analysis of one capture file.
#[derive(Debug)]
pub struct FileAnalysis {
    pub file: String,
    pub format: &'static str,
    pub frames: u64,
    pub analysed: u64,
    /// Frames not analysed, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// The read stopped early (truncated or damaged file).
    pub damaged: Option<String>,
    pub resolution_ns: f64,
    pub flows: Vec<track::FlowRec>,
    /// Time 0 of the tables, capture clock ns.
    pub t0_ns: i128,
    /// Capture clock - agent clock, ns (message delays).
    pub offset_ns: i128,
    /// How t0 and the offset were found.
    pub time_base: String,
    pub duration_ns: i128,
    pub unmatched_joins: u64,
}

/// Analyse a capture held in memory; `name` names it in messages.
pub fn analyze_bytes(name: &str, buf: &[u8], opts: &Options) -> Result<FileAnalysis, String> {
    analyze_merged(&[(name, buf)], opts)
}

/// Analyse captures taken at one vantage point (e.g. the interfaces of one
/// host) as one: their frames merged in timestamp order.
pub fn analyze_merged(inputs: &[(&str, &[u8])], opts: &Options) -> Result<FileAnalysis, String> {
    let mut cap = capture::Capture::default();
    let mut damaged = Vec::new();
    let mut formats = Vec::new();
    for (name, buf) in inputs {
        let c = capture::read(buf).map_err(|e| format!("{name}: {e}"))?;
        if let Some(d) = c.damaged {
            damaged.push(format!("{name}: {d}"));
        }
        formats.push(c.format);
        cap.resolution_ns = cap.resolution_ns.max(c.resolution_ns);
        cap.frames.extend(c.frames);
    }
    // stable: frames of equal time keep their file order
    cap.frames.sort_by_key(|f| f.ts_ns);
    cap.format = if formats.iter().all(|f| *f == "pcap") {
        "pcap"
    } else {
        "pcapng"
    };
    cap.damaged = (!damaged.is_empty()).then(|| damaged.join("; "));
    let name = inputs.iter().map(|i| i.0).collect::<Vec<_>>().join("+");
    let name = name.as_str();
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    let mut tr = track::Tracker::default();
    let mut analysed = 0;
    for f in &cap.frames {
        match packet::decode(f) {
            Ok(p) => {
                analysed += 1;
                tr.packet(f.ts_ns, &p);
            }
            Err(why) => {
                let why = if why == "unsupported link type" {
                    format!("unsupported link type {}", f.linktype)
                } else {
                    why.to_string()
                };
                *skipped.entry(why).or_default() += 1;
            }
        }
    }
    let unmatched_joins = tr.unmatched_joins;
    let flows = tr.finish();
    let first = cap.frames.iter().map(|f| f.ts_ns).min().unwrap_or(0);
    let last = cap.frames.iter().map(|f| f.ts_ns).max().unwrap_or(0);
    let origin = flows.iter().find_map(|f| f.hello.map(|h| h.2 as i128));
    let relative = last < RELATIVE_LIMIT_NS;
    let (offset_ns, mut time_base) = match opts.clock {
        ClockMap::Given(o) => (o, format!("agent clock + {o} ns (given)")),
        ClockMap::Auto if relative => (
            0,
            "capture timestamps are the agent's clock (relative times)".into(),
        ),
        ClockMap::Auto => {
            let est = flows
                .iter()
                .flat_map(|f| f.msgs.iter())
                .filter_map(|m| m.first_seen.map(|s| s - m.gen_ns as i128))
                .min();
            match est {
                Some(o) => (
                    o,
                    format!("agent clock + {o} ns (estimated: earliest first sighting - generation time over the messages)"),
                ),
                None => (0, "capture clock".into()),
            }
        }
    };
    let t0_ns = match origin {
        Some(o) if relative || offset_ns != 0 || matches!(opts.clock, ClockMap::Given(_)) => {
            o + offset_ns
        }
        _ if relative => 0,
        _ => first,
    };
    if origin.is_none() || !(relative || offset_ns != 0 || matches!(opts.clock, ClockMap::Given(_)))
    {
        time_base.push_str(if relative {
            "; time 0 = capture time 0"
        } else {
            "; time 0 = first packet"
        });
    } else {
        time_base.push_str("; time 0 = the agent's run origin (hello)");
    }
    Ok(FileAnalysis {
        file: name.to_string(),
        format: cap.format,
        frames: cap.frames.len() as u64,
        analysed,
        skipped,
        damaged: cap.damaged,
        resolution_ns: cap.resolution_ns,
        flows,
        t0_ns,
        offset_ns,
        time_base,
        duration_ns: last - t0_ns.min(first),
        unmatched_joins,
    })
}

/// Analyse one capture file.
pub fn analyze_file(path: &Path, opts: &Options) -> Result<FileAnalysis, String> {
    analyze_files(&[path], opts)
}

/// Analyse capture files of one vantage point as one ([`analyze_merged`]).
pub fn analyze_files(paths: &[&Path], opts: &Options) -> Result<FileAnalysis, String> {
    let bufs = paths
        .iter()
        .map(|p| gz::read_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let inputs: Vec<(&str, &[u8])> = names
        .iter()
        .map(String::as_str)
        .zip(bufs.iter().map(Vec::as_slice))
        .collect();
    analyze_merged(&inputs, opts)
}

#[cfg(test)]
mod tests;
