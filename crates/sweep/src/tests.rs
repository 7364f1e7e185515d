use super::*;
use mptlab_results::{Table, Value};
use serde_json::Value as Json;
use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicUsize;
use store::MANIFEST;

const TEXT: &str = "[scenario]\nname = \"t\"\nduration_s = 5\nruns = 2\nseed = 9\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n[sweep]\n\"transport.path\" = [1, 2]\n\"transport.cc\" = [\"newreno\", \"cubic\"]\nruns = 5\n";

/// A stand-in simulator: rows depend on the scenario and the seed only.
fn fake(s: &Scenario, r: u32) -> Result<RunOutput, String> {
    let mut o = RunOutput::new(r, s.run_seed(r));
    let x = (s.run_seed(r) % 1000) as f64 / 7.0 + s.transport.path as f64;
    o.set_metric("x", x);
    let t = o.table_mut("messages");
    for i in 0..3u64 {
        t.push_named(&[
            ("flow", Value::U64(i)),
            ("delay_ms", Value::F64(x * i as f64)),
        ])
        .unwrap();
    }
    Ok(o)
}

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

fn tmp(name: &str) -> scratch::Scratch {
    scratch::Scratch::unmade(&format!("sweep-{name}"))
}

fn sweep(text: &str) -> Sweep {
    Sweep::from_str(text, "s.toml", &[], None).unwrap()
}

fn full(dir: &Path, jobs: usize, stop: Option<usize>) -> Result<usize, ExecError> {
    let s = sweep(TEXT);
    let st = Store::open(dir, &s, false).map_err(|e| ExecError::Store(e.to_string()))?;
    let n = execute(&s, &st, jobs, &fake, stop, &|| {})?;
    finish(
        &s,
        &st,
        &WriteOptions {
            meta: meta(&s, "test"),
            ..Default::default()
        },
    )
    .map_err(ExecError::Store)?;
    Ok(n)
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn resume_after_interruption_is_byte_identical() {
    let (a, b) = (tmp("whole"), tmp("resumed"));
    assert_eq!(full(&a, 1, None).unwrap(), 20);
    // interrupted twice, a leftover temp file from a "kill -9" in between
    assert!(matches!(full(&b, 3, Some(7)), Err(ExecError::Stopped(7))));
    let s = sweep(TEXT);
    let st = Store::open(&b, &s, false).unwrap();
    assert_eq!(st.pending().len(), 13);
    let junk = b
        .join("runs")
        .join(&s.points[0].id)
        .join("run-4.json.tmp-1-1");
    fs::write(&junk, b"{half a ru").unwrap();
    assert!(matches!(full(&b, 2, Some(5)), Err(ExecError::Stopped(5))));
    assert!(!junk.exists(), "temp files are cleaned up");
    assert_eq!(
        full(&b, 4, None).unwrap(),
        8,
        "only the missing runs are redone"
    );
    assert_eq!(files(&a), files(&b));
    // finishing again (nothing pending) rewrites the same bytes
    assert_eq!(full(&b, 4, None).unwrap(), 0);
    assert_eq!(files(&a), files(&b));
    for d in [a, b] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn results_do_not_depend_on_jobs() {
    let (a, b) = (tmp("j1"), tmp("j4"));
    full(&a, 1, None).unwrap();
    full(&b, 4, None).unwrap();
    assert_eq!(files(&a), files(&b));
    let m = fs::read_to_string(a.join("messages.csv")).unwrap();
    let head = m.lines().next().unwrap();
    assert!(
        head.starts_with("point,point_label,transport.path,transport.cc,run,seed,flow,"),
        "{head}"
    );
    assert_eq!(m.lines().count(), 1 + 4 * 5 * 3);
    // common random numbers: the same seeds, run by run, in every point
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(a.join("summary.json")).unwrap()).unwrap();
    let seeds = |p: usize| -> Vec<u64> {
        doc["points"][p]["per_run"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["seed"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(seeds(0), seeds(3));
    assert_eq!(seeds(0)[1], mptlab_scenario::run_seed(9, 1));
    let agg = &doc["points"][1]["aggregate"]["x"];
    assert_eq!(agg["n"], 5);
    assert!(agg["ci95_low"].as_f64().unwrap() < agg["mean"].as_f64().unwrap());
    assert_eq!(doc["points"][1]["label"], "path=1,cc=cubic");
    for d in [a, b] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn changed_scenario_is_refused_unless_forced() {
    let d = tmp("changed");
    full(&d, 2, Some(3)).unwrap_err();
    let changed = sweep(&TEXT.replace("duration_s = 5", "duration_s = 6"));
    let e = Store::open(&d, &changed, false).err().unwrap();
    assert!(matches!(e, StoreError::Refused(_)));
    assert!(
        e.to_string()
            .contains("scenario of point `path=1,cc=newreno` changed"),
        "{e}"
    );
    let fewer = sweep(&TEXT.replace("[1, 2]", "[1]"));
    assert!(Store::open(&d, &fewer, false).is_err());
    // more runs are not a change: the runs done are kept
    let more = sweep(&TEXT.replace("runs = 5", "runs = 6"));
    assert_eq!(
        Store::open(&d, &more, false).unwrap().pending().len(),
        4 * 6 - 3
    );
    let st = Store::open(&d, &changed, true).unwrap();
    assert_eq!(st.pending().len(), 20, "--force discards the old runs");
    fs::remove_dir_all(&d).unwrap();
    // a directory with plain `mptlab run` results is not a sweep
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join("summary.json"), b"{}").unwrap();
    assert!(matches!(
        Store::open(&d, &changed, false),
        Err(StoreError::Refused(_))
    ));
    fs::remove_dir_all(&d).unwrap();
}

/// Session 26: `--force` (or more runs) left the old merge's summary.json
/// beside the new runs, so an interrupted redo looked complete and the
/// report read the old numbers with the new run files.
#[test]
fn a_sweep_with_runs_to_do_has_no_summary() {
    let d = tmp("stale-summary");
    full(&d, 2, None).unwrap();
    assert!(d.join("summary.json").exists());
    // every run done: reopening keeps the merge
    let st = Store::open(&d, &sweep(TEXT), false).unwrap();
    assert!(st.pending().is_empty());
    assert!(d.join("summary.json").exists());
    // more runs asked for: the merge of fewer goes
    let more = sweep(&TEXT.replace("runs = 5", "runs = 6"));
    assert_eq!(Store::open(&d, &more, false).unwrap().pending().len(), 4);
    assert!(!d.join("summary.json").exists());
    full(&d, 2, None).unwrap();
    // --force discards the runs: the merge of them goes too
    let changed = sweep(&TEXT.replace("duration_s = 5", "duration_s = 6"));
    assert_eq!(Store::open(&d, &changed, true).unwrap().pending().len(), 20);
    assert!(!d.join("summary.json").exists());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn failures_keep_finished_runs_and_name_the_point() {
    let d = tmp("fail");
    let s = sweep(TEXT);
    let st = Store::open(&d, &s, false).unwrap();
    let calls = AtomicUsize::new(0);
    let bad = |sc: &Scenario, r: u32| {
        calls.fetch_add(1, Ordering::Relaxed);
        if sc.transport.path == 2 && r == 1 {
            panic!("boom")
        }
        fake(sc, r)
    };
    let e = execute(&s, &st, 1, &bad, None, &|| {}).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("point `path=2,cc=newreno` run 1 (seed "),
        "{e}"
    );
    assert!(e.to_string().ends_with("simulation panicked: boom"), "{e}");
    let st = Store::open(&d, &s, false).unwrap();
    assert_eq!(
        st.pending().len(),
        20 - 11,
        "the 11 runs before the failure are kept"
    );
    fs::remove_dir_all(&d).unwrap();
}

/// A run as mptlab wrote it before it counted unfinished work: messages and
/// transfers without `completed`, no counts in the summary.
fn legacy(s: &Scenario, r: u32) -> Result<RunOutput, String> {
    let strip = |t: &Table| {
        let cols: Vec<_> = t
            .columns()
            .iter()
            .filter(|c| c.name != "completed")
            .cloned()
            .collect();
        Table::from_columns(t.name.clone(), cols).unwrap()
    };
    let mut o = RunOutput::new(r, s.run_seed(r));
    let mut m = mptlab_results::schema::messages();
    for i in 0..4u64 {
        // message 3 of every run was never delivered
        let d = if i == 3 {
            Value::Null
        } else {
            Value::F64(10.0)
        };
        m.push_named(&[("msg_id", Value::U64(i)), ("delivery_time_ms", d)])
            .unwrap();
    }
    let mut t = mptlab_results::schema::transfers();
    // run 1's transfer did not finish
    let end = if r == 1 { Value::Null } else { Value::F64(5.0) };
    t.push_named(&[("flow", Value::U64(0)), ("end_ms", end)])
        .unwrap();
    o.tables = vec![strip(&m), strip(&t)];
    o.set_metric("messages", 4.0);
    o.set_metric("messages_delivered", 3.0);
    Ok(o)
}

#[test]
fn old_run_files_get_completed_and_counts_on_resume() {
    let s = sweep(TEXT);
    for tables in [true, false] {
        let dir = tmp(&format!("legacy-{tables}"));
        let st = Store::open(&dir, &s, false).unwrap();
        execute(&s, &st, 2, &legacy, None, &|| {}).unwrap();
        let opts = WriteOptions {
            csv: tables,
            parquet: false,
            meta: meta(&s, "test"),
            ..Default::default()
        };
        let done = finish(&s, &st, &opts).unwrap();
        // 4 points x 5 runs: 20 of 80 messages, 4 transfers (run 1 of each point)
        assert_eq!(done.unfinished.len(), 4);
        let u = &done.unfinished[0].1;
        assert_eq!((u.transfers, u.transfers_unfinished), (5, 1));
        assert_eq!((u.messages, u.messages_undelivered), (20, 5));
        let doc: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(doc["unfinished"]["messages_undelivered"], 20);
        assert_eq!(doc["unfinished"]["transfers_unfinished"], 4);
        if tables {
            let csv = fs::read_to_string(dir.join("transfers.csv")).unwrap();
            assert!(csv.lines().next().unwrap().ends_with(",completed"), "{csv}");
            assert_eq!(csv.lines().filter(|l| l.ends_with(",false")).count(), 4);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
/// A sweep whose point `path=1` reads a link trace and a D-ITG gaming trace
/// pair (absolute paths in `dir`); point `path=2` reads the same files.
fn traced(dir: &Path) -> Sweep {
    for (f, text) in [
        ("link.trace", "1\n2\n"),
        ("g.idt", "10\n"),
        ("g.ps", "100\n"),
    ] {
        if !dir.join(f).exists() {
            fs::write(dir.join(f), text).unwrap();
        }
    }
    let text = format!(
        "[scenario]\nname = \"t\"\nduration_s = 5\nruns = 2\nseed = 9\n\
         [profile.tr]\ntrace = \"{}\"\n\
         [topology]\npreset = \"two-path\"\npaths = [\"tr\", \"3g\"]\n\
         [transport]\nprotocol = \"udp\"\n[traffic]\nmodel = \"gaming\"\ntrace = \"{}\"\n\
         [sweep]\n\"transport.path\" = [1, 2]\n",
        dir.join("link.trace").display(),
        dir.join("g.idt").display()
    );
    sweep(&text)
}

#[test]
fn changed_input_file_is_refused_unless_forced() {
    let d = tmp("inputs");
    let inp = tmp("inputs-files");
    fs::create_dir_all(&inp).unwrap();
    let s = traced(&inp);
    let st = Store::open(&d, &s, false).unwrap();
    execute(&s, &st, 1, &fake, Some(3), &|| {}).unwrap_err();
    let m: Json = serde_json::from_slice(&fs::read(d.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(m["points"][0]["inputs"].as_array().unwrap().len(), 3);
    assert_eq!(
        m["points"][0]["inputs"][0]["sha256"],
        // sha256("1\n2\n")
        "a6e2b7a040683432de03a18fd8a1939a2fdf82585b364bfc874bdd4095c4cae1"
    );
    // unchanged inputs: resumed
    assert_eq!(Store::open(&d, &s, false).unwrap().pending().len(), 1);
    // each of the three files, changed, is named and refuses the resume
    // (changed contents stay valid: validation reads every file)
    for (f, changed) in [
        ("link.trace", "3\n4\n"),
        ("g.idt", "20\n"),
        ("g.ps", "200\n"),
    ] {
        let before = fs::read(inp.join(f)).unwrap();
        fs::write(inp.join(f), changed).unwrap();
        let e = Store::open(&d, &traced(&inp), false).err().unwrap();
        assert!(matches!(e, StoreError::Refused(_)), "{e}");
        let want = format!(
            "holds runs computed from other inputs: {} changed since they were made (point `path=1` and 1 more); use --force",
            inp.join(f).display()
        );
        assert!(e.to_string().contains(&want), "{e}");
        fs::write(inp.join(f), before).unwrap();
    }
    assert_eq!(Store::open(&d, &s, false).unwrap().pending().len(), 1);
    // --force discards the old runs
    fs::write(inp.join("link.trace"), b"5\n").unwrap();
    let s = traced(&inp);
    let st = Store::open(&d, &s, true).unwrap();
    assert_eq!(st.pending().len(), 4);
    // a file changed while the sweep runs: nothing is merged
    execute(&s, &st, 1, &fake, None, &|| {}).unwrap();
    fs::write(inp.join("link.trace"), b"6\n").unwrap();
    let e = finish(&s, &st, &WriteOptions::default()).unwrap_err();
    assert!(e.contains("changed while the sweep ran"), "{e}");
    assert!(!d.join("summary.json").exists());
    for x in [d, inp] {
        fs::remove_dir_all(x).unwrap();
    }
}

/// Kernel runs are keyed by the kernel they ran on, not the simulator's
/// sources: a pass resumes after the simulator changed, not on another
/// kernel.
#[test]
fn kernel_runs_are_keyed_by_the_kernel_not_the_model() {
    let d = tmp("kernel-maker");
    let s = sweep(TEXT);
    let on = |release: &str| format!("{}{release}", store::KERNEL_PREFIX);
    Store::open_made_by(&d, &s, false, &on("6.18.44")).unwrap();
    let m: Json = serde_json::from_slice(&fs::read(d.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(m["model"], "kernel 6.18.44");
    // the same kernel resumes, whatever this build's MODEL_ID
    Store::open_made_by(&d, &s, false, &on("6.18.44")).unwrap();
    let e = Store::open_made_by(&d, &s, false, &on("6.1.0"))
        .err()
        .unwrap();
    let v = env!("CARGO_PKG_VERSION");
    let want = format!(
        "holds kernel runs made by mptlab {v} on kernel 6.18.44; this is mptlab {v} on kernel 6.1.0"
    );
    assert!(e.to_string().contains(&want), "{e}");
    // nor do simulated runs pass for kernel runs
    assert!(Store::open(&d, &s, false).is_err());
    fs::remove_dir_all(&d).unwrap();
}

/// The model identity's computation (`build/model_id.rs`, which `build.rs`
/// runs), tested on a small workspace of its own.
mod model_id {
    #![allow(dead_code)]
    include!("../build/model_id.rs");

    pub fn id(ws: &Path) -> String {
        digest(&model_files(ws, &closure(ws, &ROOTS)))
    }
}

/// A workspace with the shape of this one: `sim` needs `core` (and `emu`
/// only for its tests), `sweep` needs `results`; `cli` and `emu` are not
/// on a run's path.
fn toy_workspace(root: &Path) {
    let w = |rel: &str, text: &str| {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    w("Cargo.toml", "[workspace]\n");
    w("Cargo.lock", "# lock\n");
    w("docs/model.md", "prose\n");
    w(
        "crates/sim/Cargo.toml",
        "[package]\nname = \"mptlab-sim\"\n[dependencies]\nmptlab-core.workspace = true\n[dev-dependencies]\nmptlab-emu = { path = \"../emu\" }\n",
    );
    w("crates/sim/src/lib.rs", "pub fn run() {}\n");
    w("crates/sim/tests/end_to_end.rs", "#[test] fn t() {}\n");
    w(
        "crates/core/Cargo.toml",
        "[package]\nname = \"mptlab-core\"\n",
    );
    w("crates/core/src/lib.rs", "pub fn cwnd() -> u32 { 10 }\n");
    w(
        "crates/core/src/tcp/mod.rs",
        "pub fn rto() -> u32 { 200 }\n",
    );
    w("crates/core/src/tcp/tests.rs", "fn t() {}\n");
    w("crates/core/src/sctp/tests/paths.rs", "fn t() {}\n");
    w("crates/sweep/Cargo.toml", "[package]\nname = \"mptlab-sweep\"\n[dependencies]\nmptlab-results = { path = \"../results\" }\n");
    w("crates/sweep/src/lib.rs", "pub fn store() {}\n");
    w(
        "crates/results/Cargo.toml",
        "[package]\nname = \"mptlab-results\"\n",
    );
    w("crates/results/src/lib.rs", "pub fn encode() {}\n");
    w(
        "crates/emu/Cargo.toml",
        "[package]\nname = \"mptlab-emu\"\n",
    );
    w("crates/emu/src/lib.rs", "pub fn emulate() {}\n");
    w(
        "crates/cli/Cargo.toml",
        "[package]\nname = \"mptlab-cli\"\n[dependencies]\nmptlab-sim.workspace = true\n",
    );
    w("crates/cli/src/main.rs", "fn main() {}\n");
}

/// What the identity covers: a run's crates (found through [dependencies],
/// not dev-dependencies), their sources and manifests, `Cargo.lock`; not the
/// CLI, the emulator, unit-test files, docs; not where the checkout is.
#[test]
fn the_model_identity_covers_the_sources_a_run_goes_through() {
    let a = tmp("model-id-a");
    toy_workspace(&a);
    assert_eq!(
        model_id::closure(&a, &model_id::ROOTS),
        ["core", "results", "sim", "sweep"]
    );
    let base = model_id::id(&a);
    assert_eq!(base.len(), 32, "{base}");
    // the same sources elsewhere: the same identity
    let b_root = tmp("model-id-b");
    let b = b_root.join("deeper/checkout");
    toy_workspace(&b);
    assert_eq!(model_id::id(&b), base);
    let edit = |rel: &str, text: &str| fs::write(a.join(rel), text).unwrap();
    // edits that cannot change a run leave it alone
    for (rel, text) in [
        ("docs/model.md", "other prose\n"),
        ("crates/cli/src/main.rs", "fn main() { println!(); }\n"),
        ("crates/emu/src/lib.rs", "pub fn emulate() { }\n"),
        ("crates/sim/tests/end_to_end.rs", "#[test] fn u() {}\n"),
        ("crates/core/src/tcp/tests.rs", "fn u() {}\n"),
        ("crates/core/src/sctp/tests/paths.rs", "fn u() {}\n"),
    ] {
        edit(rel, text);
        assert_eq!(model_id::id(&a), base, "{rel}");
    }
    // edits on a run's path change it, and undoing them restores it
    for (rel, text) in [
        // the same length: the bytes count, not only the sizes
        ("crates/core/src/tcp/mod.rs", "pub fn rto() -> u32 { 300 }\n"),
        ("crates/results/src/lib.rs", "pub fn encode() { }\n"),
        ("crates/sweep/Cargo.toml", "[package]\nname = \"mptlab-sweep\"\nversion = \"2\"\n[dependencies]\nmptlab-results = { path = \"../results\" }\n"),
        ("Cargo.lock", "# lock, rand 0.9\n"),
    ] {
        let old = fs::read_to_string(a.join(rel)).unwrap();
        edit(rel, text);
        assert_ne!(model_id::id(&a), base, "{rel}");
        edit(rel, &old);
        assert_eq!(model_id::id(&a), base, "{rel} restored");
    }
    // an added source file counts, and removing it again restores
    edit("crates/core/src/extra.rs", "// not yet used\n");
    assert_ne!(model_id::id(&a), base);
    fs::remove_file(a.join("crates/core/src/extra.rs")).unwrap();
    assert_eq!(model_id::id(&a), base);
    fs::remove_dir_all(&a).unwrap();
    fs::remove_dir_all(b.parent().unwrap().parent().unwrap()).unwrap();
}

/// This build's identity came from the workspace's sources (32 hex
/// digits), not the fallback for a packaged crate, which never matches.
#[test]
fn this_build_has_a_model_identity_from_its_sources() {
    let id = store::MODEL_ID;
    assert_eq!(id.len(), 32, "{id}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
}

#[test]
fn an_older_manifest_format_version_or_model_is_refused() {
    let d = tmp("format");
    let s = sweep(TEXT);
    Store::open(&d, &s, false).unwrap();
    let mpath = d.join(MANIFEST);
    let m: Json = serde_json::from_slice(&fs::read(&mpath).unwrap()).unwrap();
    for (key, val, msg) in [
        (
            "format",
            "mptlab-sweep/1",
            "(sweep.json format mptlab-sweep/1, this one writes mptlab-sweep/3; format mptlab-sweep/1 did not record",
        ),
        (
            "format",
            "mptlab-sweep/2",
            "format mptlab-sweep/2 did not record which build of the model made its runs",
        ),
        (
            "mptlab_version",
            "0.0.1",
            "holds runs made by another build of the model (mptlab 0.0.1 with model sources",
        ),
        // the same package version, another model: refused (format 2 took
        // these runs as valid, and a resumed sweep mixed two models)
        (
            "model",
            "0123456789abcdef0123456789abcdef",
            "with model sources 0123456789ab; this is mptlab",
        ),
    ] {
        let mut old = m.clone();
        old[key] = val.into();
        fs::write(&mpath, serde_json::to_vec(&old).unwrap()).unwrap();
        let e = Store::open(&d, &s, false).err().unwrap();
        assert!(e.to_string().contains(msg), "{e}");
    }
    fs::remove_dir_all(&d).unwrap();
}

/// `execute_many`: `jobs` simulation threads in total over all the sweeps
/// (never more, and all of them busy while there is work), the costliest
/// runs first, and the same stores as sweeps run one by one.
#[test]
fn one_queue_over_sweeps_uses_jobs_threads_in_total() {
    use std::sync::atomic::Ordering::SeqCst;
    let texts = [
        TEXT.to_string(),
        TEXT.replace("duration_s = 5", "duration_s = 50"),
        TEXT.replace("duration_s = 5", "duration_s = 20")
            .replace("runs = 5", "runs = 3"),
    ];
    let sweeps: Vec<Sweep> = texts.iter().map(|t| sweep(t)).collect();
    let (batch, alone) = (tmp("many"), tmp("many-alone"));
    let stores: Vec<Store> = (0..3)
        .map(|k| Store::open(&batch.join(k.to_string()), &sweeps[k], false).unwrap())
        .collect();
    let (running, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let started: Mutex<Vec<f64>> = Mutex::new(Vec::new());
    let counting = |s: &Scenario, r: u32| {
        let now = running.fetch_add(1, SeqCst) + 1;
        peak.fetch_max(now, SeqCst);
        started.lock().unwrap().push(s.meta.duration_s);
        // long enough for every worker to be inside a run at once
        std::thread::sleep(std::time::Duration::from_millis(5));
        running.fetch_sub(1, SeqCst);
        fake(s, r)
    };
    let ticks = AtomicUsize::new(0);
    let pairs: Vec<(&Sweep, &Store)> = sweeps.iter().zip(&stores).collect();
    let n = execute_many(
        &pairs,
        3,
        &counting,
        &|s: &Scenario| s.meta.duration_s,
        Order::PointByPoint,
        None,
        &|_| {
            ticks.fetch_add(1, SeqCst);
        },
    )
    .unwrap();
    assert_eq!(n, 20 + 20 + 12);
    assert_eq!(ticks.load(SeqCst), n);
    assert_eq!(peak.load(SeqCst), 3, "--jobs 3 means 3 runs at a time");
    // started costliest first: 50 s runs, then 20 s, then 5 s (a worker may
    // overtake another by one item at a boundary, never by a whole class)
    let started = started.into_inner().unwrap();
    let first_5 = started.iter().position(|d| *d == 5.0).unwrap();
    assert!(first_5 >= 20 + 12 - 2, "{started:?}");
    assert!(started[..20].iter().all(|d| *d >= 20.0), "{started:?}");
    // the stores are those of the sweeps run one by one on one thread
    let opts = |s: &Sweep| WriteOptions {
        meta: meta(s, "test"),
        ..Default::default()
    };
    for k in 0..3 {
        finish(&sweeps[k], &stores[k], &opts(&sweeps[k])).unwrap();
        let d = alone.join(k.to_string());
        let st = Store::open(&d, &sweeps[k], false).unwrap();
        execute(&sweeps[k], &st, 1, &fake, None, &|| {}).unwrap();
        finish(&sweeps[k], &st, &opts(&sweeps[k])).unwrap();
        assert_eq!(files(&d), files(&batch.join(k.to_string())));
        for p in &sweeps[k].points {
            let runs = |dir: &Path| files(&dir.join(k.to_string()).join("runs").join(&p.id));
            assert_eq!(runs(&alone), runs(&batch));
        }
    }
    for d in [batch, alone] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// `Order::PilotsFirst`: one run of every point of every sweep before any
/// point's second run (costliest points first in both phases); the
/// measured seconds reach `tick`; the stores are the same as in the
/// point-by-point order.
#[test]
fn pilots_first_runs_every_point_once_before_the_rest() {
    use std::sync::atomic::Ordering::SeqCst;
    let texts = [
        TEXT.to_string(),
        TEXT.replace("duration_s = 5", "duration_s = 50"),
    ];
    let sweeps: Vec<Sweep> = texts.iter().map(|t| sweep(t)).collect();
    let (pilot, plain) = (tmp("pilot"), tmp("pilot-plain"));
    let open = |d: &Path| -> Vec<Store> {
        (0..2)
            .map(|k| Store::open(&d.join(k.to_string()), &sweeps[k], false).unwrap())
            .collect()
    };
    let (a, b) = (open(&pilot), open(&plain));
    let order: Mutex<Vec<(f64, String, u32)>> = Mutex::new(Vec::new());
    let logging = |s: &Scenario, r: u32| {
        order
            .lock()
            .unwrap()
            .push((s.meta.duration_s, s.meta.name.clone(), r));
        fake(s, r)
    };
    let measured = AtomicUsize::new(0);
    let pairs: Vec<(&Sweep, &Store)> = sweeps.iter().zip(&a).collect();
    let n = execute_many(
        &pairs,
        1,
        &logging,
        &|s: &Scenario| s.meta.duration_s,
        Order::PilotsFirst,
        None,
        &|d| {
            assert!(d.seconds >= 0.0 && d.point < sweeps[d.sweep].points.len());
            measured.fetch_add(1, SeqCst);
        },
    )
    .unwrap();
    let points: usize = sweeps.iter().map(|s| s.points.len()).sum();
    assert!(points >= 2 && n > points, "{points} points, {n} runs");
    assert_eq!(measured.load(SeqCst), n);
    let order = order.into_inner().unwrap();
    // one thread: the first `points` runs are run 0 of each point, 50 s first
    assert!(order[..points].iter().all(|(_, _, r)| *r == 0), "{order:?}");
    assert!(order[points..].iter().all(|(_, _, r)| *r > 0), "{order:?}");
    let half = sweeps[1].points.len();
    assert!(
        order[..half].iter().all(|(d, _, _)| *d == 50.0),
        "{order:?}"
    );
    assert!(
        order[half..points].iter().all(|(d, _, _)| *d == 5.0),
        "{order:?}"
    );
    assert_eq!(
        order[points].0, 50.0,
        "then costliest first again: {order:?}"
    );
    let pairs: Vec<(&Sweep, &Store)> = sweeps.iter().zip(&b).collect();
    execute_many(
        &pairs,
        2,
        &fake,
        &|s: &Scenario| s.meta.duration_s,
        Order::PointByPoint,
        None,
        &|_| {},
    )
    .unwrap();
    for (k, sw) in sweeps.iter().enumerate() {
        for p in &sw.points {
            let runs = |dir: &Path| files(&dir.join(k.to_string()).join("runs").join(&p.id));
            assert_eq!(runs(&pilot), runs(&plain));
        }
    }
    for d in [pilot, plain] {
        fs::remove_dir_all(d).unwrap();
    }
}
