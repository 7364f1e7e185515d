// The model's identity (`MPTLAB_MODEL_ID`): a digest of the sources that
// decide a run's result. Included by `build.rs`, which computes it, and by
// the crate's unit tests, which check what it covers (`src/tests.rs`).
//
// Covered: the workspace's `Cargo.toml` and `Cargo.lock` (dependency
// versions, the random number generator's among them, decide results too),
// and for every crate a run goes through (the `mptlab-*` [dependencies] of
// `mptlab-sim`, which simulates, and `mptlab-sweep`, which stores and merges
// the runs, followed transitively) its `Cargo.toml` and the `*.rs` files
// under its `src/`, unit-test files left out (`tests.rs`, a `tests`
// folder). Not covered, on purpose: the CLI, the report, the emulator, docs
// and tests, which cannot change what a simulated run computes; and the
// scenario files, which the scenario's own fingerprint covers.
//
// The digest is a change detector, not a security hash: two 64-bit FNV-1a
// lanes over each file's path relative to the workspace, its length and its
// bytes, files in path order. It depends on contents only, so a checkout
// gives the same identity in any directory.

use std::fs;
use std::path::{Path, PathBuf};

/// The crates (folder names under `crates/`) that `roots` depend on through
/// `mptlab-*` entries of their `[dependencies]` tables, `roots` included,
/// sorted.
pub fn closure(workspace: &Path, roots: &[&str]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut todo: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
    while let Some(c) = todo.pop() {
        if seen.contains(&c) {
            continue;
        }
        let manifest = fs::read_to_string(workspace.join("crates").join(&c).join("Cargo.toml"))
            .unwrap_or_default();
        let mut in_deps = false;
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                in_deps = line == "[dependencies]";
            } else if in_deps {
                if let Some(rest) = line.strip_prefix("mptlab-") {
                    let name: String = rest
                        .chars()
                        .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
                        .collect();
                    todo.push(name);
                }
            }
        }
        seen.push(c);
    }
    seen.sort();
    seen
}

/// `*.rs` files under `dir`, recursively, unit-test files left out.
fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() {
            if name != "tests" {
                rust_sources(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") && name != "tests.rs" {
            out.push(p);
        }
    }
}

/// The files the identity is computed from, as (path relative to the
/// workspace with `/` separators, path), in that order.
pub fn model_files(workspace: &Path, crates: &[String]) -> Vec<(String, PathBuf)> {
    let mut files = vec![workspace.join("Cargo.toml"), workspace.join("Cargo.lock")];
    for c in crates {
        let dir = workspace.join("crates").join(c);
        files.push(dir.join("Cargo.toml"));
        rust_sources(&dir.join("src"), &mut files);
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let rel = p.strip_prefix(workspace).unwrap_or(&p).to_string_lossy();
            (rel.replace('\\', "/"), p)
        })
        .collect();
    named.sort();
    named
}

/// FNV-1a, 64 bits (the offset basis and prime of the published algorithm);
/// the second lane starts elsewhere, so the identity has 128 bits.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const SECOND_OFFSET: u64 = FNV_OFFSET ^ 0x9e37_79b9_7f4a_7c15;

/// The digest of `files` (from [`model_files`]), as 32 hex digits.
pub fn digest(files: &[(String, PathBuf)]) -> String {
    let mut lanes = [FNV_OFFSET, SECOND_OFFSET];
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            for lane in &mut lanes {
                *lane = (*lane ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        }
    };
    for (rel, p) in files {
        let bytes = fs::read(p).unwrap_or_default();
        feed(rel.as_bytes());
        feed(&(bytes.len() as u64).to_le_bytes());
        feed(&bytes);
    }
    format!("{:016x}{:016x}", lanes[0], lanes[1])
}

/// The crates a simulated run goes through.
pub const ROOTS: [&str; 2] = ["sim", "sweep"];
