//! The files a scenario names, read and parsed by the same functions the
//! simulator uses, so validation refuses exactly what a run would refuse:
//! Mahimahi link traces ([`load_link_trace`]) and gaming traces
//! ([`load_gaming_trace`]). Web sites and gaming traces `t1`-`t3` are built
//! in (registry) and need no file.

use mptlab_core::trace::Trace as LinkTrace;
use mptlab_core::traffic::gaming_trace::Trace as GamingTrace;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Read a text file, naming it and what it was meant to be in errors.
/// Binary content (not UTF-8, or with NUL bytes) is refused as such rather
/// than reported line by line.
fn read_text(p: &Path, what: &str) -> Result<String, String> {
    let bytes = std::fs::read(p).map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::NotFound {
            "file not found".to_string()
        } else {
            e.to_string()
        };
        format!("cannot read {what} {}: {why}", p.display())
    })?;
    match String::from_utf8(bytes) {
        Ok(s) if !s.contains('\0') => Ok(s),
        _ => Err(format!(
            "{}: expected a text {what}, found binary content",
            p.display()
        )),
    }
}

/// A Mahimahi link trace (one integer ms timestamp per line, non-decreasing,
/// at most `mptlab_core::trace::MAX_TIMESTAMP_MS`).
pub fn load_link_trace(p: &Path) -> Result<LinkTrace, String> {
    let text = read_text(p, "link trace")?;
    LinkTrace::parse(&text, &p.display().to_string())
}

/// A gaming trace file: `*.csv` (time_ms,size_bytes), or a D-ITG pair given
/// by its inter-departure file (`-Ft`, ms per line) whose packet-size file
/// (`-Fs`, bytes per line) sits beside it with the extension `.ps`
/// (`game.idt` + `game.ps`).
pub fn load_gaming_trace(p: &Path) -> Result<GamingTrace, String> {
    let name = p.display().to_string();
    if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
        return GamingTrace::from_csv(&name, &read_text(p, "gaming trace")?);
    }
    if p.extension().is_some_and(|e| e == "ps") {
        return Err(format!("{name}: give the D-ITG inter-departure file (-Ft), not the size file; the .ps size file is found beside it"));
    }
    let sizes = p.with_extension("ps");
    if !sizes.is_file() {
        return Err(format!("{name}: not a .csv trace, and the D-ITG size file {} (-Fs) that should go with it does not exist", sizes.display()));
    }
    GamingTrace::from_ditg(
        &name,
        &read_text(p, "gaming trace")?,
        &sizes.display().to_string(),
        &read_text(&sizes, "gaming trace size file")?,
    )
}

/// Verdicts on files already read during one validation (a sweep validates
/// every point, and the points name the same files): path -> error, if any
/// (and a link trace's mean rate).
#[derive(Debug, Default)]
pub struct Files {
    link: HashMap<PathBuf, Result<f64, String>>,
    gaming: HashMap<PathBuf, Result<(), String>>,
}

impl Files {
    /// Read and parse a link trace; its mean rate in bit/s.
    pub fn check_link_trace(&mut self, p: &Path) -> Result<f64, String> {
        self.link
            .entry(p.to_path_buf())
            .or_insert_with(|| load_link_trace(p).map(|t| t.mean_rate_bps()))
            .clone()
    }

    pub fn check_gaming_trace(&mut self, p: &Path) -> Result<(), String> {
        self.gaming
            .entry(p.to_path_buf())
            .or_insert_with(|| load_gaming_trace(p).map(|_| ()))
            .clone()
    }
}
