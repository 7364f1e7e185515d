//! Inputs kept from fuzzing the scenario and sweep readers
//! (fuzz/regressions/, docs/fuzzing.md): each must give a valid scenario or
//! a clean error, never a panic or an abort.

use mptlab_scenario::{Scenario, Sweep};
use std::path::{Path, PathBuf};

fn inputs(dir: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(dir);
    let mut v: Vec<PathBuf> = match std::fs::read_dir(&d) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

fn read_both(p: &Path) {
    let Ok(text) = std::fs::read_to_string(p) else {
        return; // not UTF-8: a read error, as from a file
    };
    let name = p.display().to_string();
    if let Err(e) = Scenario::from_str(&text, &name) {
        let _ = e.to_string();
    }
    if let Err(e) = Sweep::from_str(&text, &name, &[], None) {
        let _ = e.to_string();
    }
}

/// Sweep inputs from fuzzing: a 3e9-point grid exhausted memory before
/// the bound on sweep points (docs/scenario.md, limits); it must now be
/// refused at once with the key named.
#[test]
fn sweep_file_findings_are_refused_cleanly() {
    let found = inputs("sweep_file");
    assert!(!found.is_empty());
    for p in &found {
        read_both(p);
    }
    let text = std::fs::read_to_string(&found[0]).unwrap();
    let Err(e) = Sweep::from_str(&text, "g.toml", &[], None) else {
        panic!("a 3e9-point grid was accepted");
    };
    assert!(e.to_string().contains("at most 100000 sweep points"), "{e}");
}
