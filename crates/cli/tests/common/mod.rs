//! Helpers shared by the CLI's integration tests. Each file in tests/ is a
//! crate of its own that includes this module (`mod common;`) and uses part
//! of it, hence the `dead_code` allowance.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the `mptlab` binary; `stop_after` sets `MPTLAB_SWEEP_STOP_AFTER`
/// (a sweep or reproduce that stops after that many runs, as if killed).
pub fn mptlab(args: &[&str], stop_after: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mptlab"));
    c.args(args);
    if let Some(k) = stop_after {
        c.env("MPTLAB_SWEEP_STOP_AFTER", k.to_string());
    }
    c.output().expect("runs")
}

#[path = "../../src/scratch.rs"]
mod scratch;
pub use scratch::Scratch;

/// An empty directory of its own for one test (`mptlab-<suite>-<tag>-<pid>`),
/// removed when the test ends.
pub fn fresh_dir(suite: &str, tag: &str) -> Scratch {
    Scratch::new(&format!("{suite}-{tag}"))
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `root/scenarios/`: seed 002's three files and a registry of them.
pub fn seed002_library(root: &Path) -> PathBuf {
    let lib = root.join("scenarios");
    std::fs::create_dir_all(lib.join("seed002")).unwrap();
    std::fs::create_dir_all(lib.join("registry")).unwrap();
    let mut reg = String::new();
    for c in ["att", "sprint", "verizon"] {
        let f = format!("seed002/{c}.toml");
        std::fs::copy(repo().join("scenarios").join(&f), lib.join(&f)).unwrap();
        reg.push_str(&format!(
            "[[experiment]]\nseed = \"002\"\nid = \"{c}\"\naxes = [\"transport.protocol\", \"transport.path\", \
             \"traffic.size_bytes\", \"transport.cc\", \"output.timeseries_interval_ms\", \"output.cwnd_series\"]\n\
             figures = []\n\n"
        ));
    }
    std::fs::write(lib.join("registry/experiments.toml"), reg).unwrap();
    lib
}
