//! The identity of the model this build simulates: `MPTLAB_MODEL_ID`, a
//! digest of every Rust source file of the workspace's crates, their
//! manifests and `Cargo.lock` (dependency versions, the random number
//! generator's among them, decide results too).
//!
//! A sweep's runs are reused only by a build with the same identity
//! (`store::MODEL_ID` in `sweep.json`). The package version alone did not
//! tell two builds apart: it stayed 0.1.0 while the model changed, so a
//! resumed `reproduce` kept runs of an older model beside new ones and said
//! nothing (docs/sweeps.md, "Runs are keyed by everything they are computed
//! from").
//!
//! The digest is a change detector, not a security hash: two 64-bit FNV-1a
//! lanes over each file's path relative to the workspace, its length and
//! its bytes, files in path order. It depends on contents only, so the same
//! checkout gives the same identity on any machine and in any directory.
//! Tests under `crates/*/tests/` are left out (they cannot change a run);
//! unit tests inside `src/` are in, which only ever costs a needless redo.

use std::fs;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits (the offset basis and prime of the published algorithm).
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The second lane starts elsewhere, so the identity has 128 bits.
const SECOND_OFFSET: u64 = FNV_OFFSET ^ 0x9e37_79b9_7f4a_7c15;

struct Digest([u64; 2]);

impl Digest {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            for lane in &mut self.0 {
                *lane = (*lane ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0[0], self.0[1])
    }
}

/// Every `*.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest.join("../..");
    let mut files = vec![root.join("Cargo.toml"), root.join("Cargo.lock")];
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    crates.sort();
    for c in &crates {
        files.push(c.join("Cargo.toml"));
        files.push(c.join("build.rs"));
        let src = c.join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        rust_files(&src, &mut files);
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap_or(&p).to_string_lossy();
            (rel.replace('\\', "/"), p)
        })
        .collect();
    named.sort();
    let mut d = Digest([FNV_OFFSET, SECOND_OFFSET]);
    for (rel, p) in &named {
        println!("cargo:rerun-if-changed={}", p.display());
        let bytes = fs::read(p).unwrap_or_default();
        d.feed(rel.as_bytes());
        d.feed(&(bytes.len() as u64).to_le_bytes());
        d.feed(&bytes);
    }
    // Outside a workspace checkout (a packaged crate) there are no sources
    // to digest: every such build then counts as a different model.
    let id = if named.len() > 2 {
        d.hex()
    } else {
        println!("cargo:warning=mptlab-sweep: workspace sources not found; sweeps will not reuse runs across builds");
        format!("unknown-{}", std::process::id())
    };
    println!("cargo:rustc-env=MPTLAB_MODEL_ID={id}");
}
