//! `mptlab reproduce` and the experiment registry
//! (`<library>/registry/experiments.toml`, docs/report.md "The experiment
//! registry"): the repository's library passes `--check`; a renamed scenario,
//! a stray file, a changed sweep or a claim naming an unknown experiment
//! stops it with exit 2 and one message naming the file and key.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mptlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args(args)
        .output()
        .expect("runs")
}

mod common;
use common::repo;

fn tmp(tag: &str) -> common::Scratch {
    common::Scratch::unmade(&format!("registry-test-{tag}"))
}

/// `root/scenarios/`: seed 002's three files and a registry of them;
/// `root/docs/claims/claims.toml`: one claim reading `seed002/att`.
fn library(root: &Path) -> PathBuf {
    let lib = common::seed002_library(root);
    std::fs::create_dir_all(root.join("docs/claims")).unwrap();
    std::fs::write(
        root.join("docs/claims/claims.toml"),
        "[[claim]]\nid = \"s002-x\"\nseed = \"002\"\nexperiments = [\"seed002/att\"]\n",
    )
    .unwrap();
    lib
}

fn check(lib: &Path) -> (Option<i32>, String) {
    let o = mptlab(&[
        "reproduce",
        "002",
        "--check",
        "--library",
        lib.to_str().unwrap(),
    ]);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn repository_library_matches_its_registry() {
    let lib = repo().join("scenarios");
    let o = mptlab(&[
        "reproduce",
        "all",
        "--check",
        "--library",
        lib.to_str().unwrap(),
    ]);
    let se = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{se}");
    assert!(
        se.contains("94 experiment(s) of seed(s) 000, 001, 002, 003, 004"),
        "{se}"
    );
}

#[test]
fn renamed_scenario_stray_file_and_changed_axes_exit_2_with_one_message() {
    let root = tmp("renamed");
    let lib = library(&root);
    let reg = lib.join("registry/experiments.toml");
    let (code, se) = check(&lib);
    assert_eq!(code, Some(0), "{se}");

    // renamed file: the entry names the missing file
    std::fs::rename(
        lib.join("seed002/att.toml"),
        lib.join("seed002/att-lte.toml"),
    )
    .unwrap();
    let (code, se) = check(&lib);
    assert_eq!(code, Some(2), "{se}");
    assert_eq!(
        se.trim_end(),
        format!(
            "error: {}: experiment seed002/att: file {} does not exist (a renamed scenario is renamed here, \
             in its generator and in the claims' `experiments` together)",
            reg.display(),
            lib.join("seed002/att.toml").display()
        )
    );
    // renamed in the registry too (claims not updated): the claim is named
    let text = std::fs::read_to_string(&reg).unwrap();
    std::fs::write(&reg, text.replace("id = \"att\"", "id = \"att-lte\"")).unwrap();
    let (code, se) = check(&lib);
    assert_eq!(code, Some(2), "{se}");
    assert_eq!(
        se.trim_end(),
        format!(
            "error: {}: claim s002-x: key `experiments`: `seed002/att` is not in the experiment registry {}",
            root.join("docs/claims/claims.toml").display(),
            reg.display()
        )
    );
    // a file left over that the registry does not list
    std::fs::write(&reg, &text).unwrap();
    std::fs::copy(
        lib.join("seed002/att-lte.toml"),
        lib.join("seed002/att.toml"),
    )
    .unwrap();
    let (code, se) = check(&lib);
    assert_eq!(code, Some(2), "{se}");
    assert!(
        se.contains("att-lte.toml: scenario file not in the experiment registry"),
        "{se}"
    );
    // a sweep axis the registry does not list
    std::fs::remove_file(lib.join("seed002/att-lte.toml")).unwrap();
    std::fs::write(&reg, text.replacen(", \"transport.cc\"", "", 1)).unwrap();
    let (code, se) = check(&lib);
    assert_eq!(code, Some(2), "{se}");
    assert!(
        se.contains("experiment seed002/att: key `axes` is [")
            && se.contains("but the file's sweep has"),
        "{se}"
    );
    assert!(!se.contains("panicked"), "{se}");
    std::fs::remove_dir_all(&root).unwrap();
}
