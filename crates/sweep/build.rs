//! Computes `MPTLAB_MODEL_ID`, the identity of the model this build
//! simulates (what it covers and why: `build/model_id.rs`).
//!
//! A sweep's runs are reused only by a build with the same identity
//! (`store::MODEL_ID` in `sweep.json`). The package version alone did not
//! tell two builds apart: it stayed 0.1.0 while the model changed, so a
//! resumed `reproduce` kept runs of an older model beside new ones and said
//! nothing (docs/sweeps.md, "Runs are keyed by everything they are computed
//! from").

include!("build/model_id.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let workspace = manifest.join("../..");
    let crates = closure(&workspace, &ROOTS);
    let files = model_files(&workspace, &crates);
    println!("cargo:rerun-if-changed=build/model_id.rs");
    for c in &crates {
        // a folder: cargo rescans it, so an added or removed file counts
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join("crates").join(c).join("src").display()
        );
    }
    for (_, p) in &files {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    // Outside a workspace checkout (a packaged crate, an sdist) the sources
    // of the other crates are not there: every such build then counts as a
    // different model, never as a match.
    let complete = crates.len() > ROOTS.len() && files.len() > 2 + crates.len();
    let id = if complete {
        digest(&files)
    } else {
        println!("cargo:warning=mptlab-sweep: the workspace's sources were not found; sweeps will not reuse runs across builds");
        format!("unknown-{}", std::process::id())
    };
    println!("cargo:rustc-env=MPTLAB_MODEL_ID={id}");
}
