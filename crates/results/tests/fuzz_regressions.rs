//! Inputs the `run_file` fuzz target once crashed on (fuzz/regressions/run_file/,
//! docs/fuzzing.md): each must decode to a value or a clean error, never panic.
use mptlab_results::{decode_run, decode_run_tables};
use std::path::PathBuf;

#[test]
fn run_file_findings_decode_or_are_refused_cleanly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/run_file");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("regressions directory") {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        // a truncated file ends right after `"tables":` and whitespace: the
        // one-pass reader looked at the byte there before checking the length
        let _ = decode_run_tables(&bytes, &|n| n == "paths");
        let _ = decode_run(&bytes);
        n += 1;
    }
    assert!(n >= 1, "no regression inputs in {}", dir.display());
}

#[test]
fn a_file_cut_after_the_tables_key_is_an_error() {
    let cut = br#"{"format":"mptlab-run/1","run":3,"seed":1,"summary":{},"tables":	"#;
    let err = decode_run_tables(cut, &|n| n == "paths").unwrap_err();
    assert!(err.contains("malformed JSON"), "{err}");
}
