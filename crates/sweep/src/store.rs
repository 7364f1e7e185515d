//! The on-disk state of a sweep: `DIR/sweep.json` (what is being swept) and
//! `DIR/runs/<point-id>/run-<r>.json` (one finished run each).
//!
//! Every file is written to a temporary name in its final directory, synced,
//! then renamed, and the directory synced: after a crash (Ctrl-C, kill -9,
//! power loss) a run file is either complete or absent. Leftover temporary
//! files are removed when the store is opened again.

use mptlab_results::{
    decode_run, decode_run_tables, encode_run, result_files_in, schema, unfinished, RunOutput,
    SUMMARY_FILE,
};
use mptlab_scenario::Sweep;
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub const MANIFEST: &str = "sweep.json";
/// 2: per point the SHA-256 of every file it reads, and the mptlab version
/// (format 1 had neither, so a changed trace was not noticed).
/// 3: the identity of the model that made the runs (`MODEL_ID`; format 2
/// recorded only the package version, which did not change with the model).
pub const MANIFEST_FORMAT: &str = "mptlab-sweep/3";
/// The version recorded with the runs, for people reading `sweep.json`.
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The model's identity: a digest of the workspace's Rust sources, manifests
/// and `Cargo.lock`, computed when this crate is built (`build.rs`). A run
/// made by a build with another identity may differ (the model changed), so
/// its runs are not reused.
pub const MODEL_ID: &str = env!("MPTLAB_MODEL_ID");
const TMP_MARK: &str = ".tmp-";

/// Why a store cannot be opened. `Refused` is the user's to fix (exit 2).
#[derive(Debug)]
pub enum StoreError {
    Refused(String),
    Io(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Refused(m) | StoreError::Io(m) => f.write_str(m),
        }
    }
}

fn io(p: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io(format!("{}: {e}", p.display()))
}

/// SHA-256 of `bytes`, as 64 hex digits.
fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a file's contents, read in blocks (link traces can be large).
fn file_sha256(path: &Path) -> Result<String, StoreError> {
    let mut f = fs::File::open(path).map_err(|e| input_io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(input_io(path, e)),
        }
    }
    Ok(hex(&h.finalize()))
}

fn input_io(p: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io(format!("{}: cannot read input file: {e}", p.display()))
}

/// Hash of one point's effective scenario without `scenario.runs` (more or
/// fewer runs reuse the runs already done: a run's result depends only on
/// the scenario, the files it reads and its index).
pub fn point_fingerprint(effective_toml: &str) -> String {
    let mut doc: toml::Table = toml::from_str(effective_toml).expect("effective TOML parses");
    if let Some(toml::Value::Table(m)) = doc.get_mut("scenario") {
        m.remove("runs");
    }
    sha256_hex(toml::to_string(&doc).expect("serialises").as_bytes())
}

/// Contents of every file the sweep's points read, hashed once each.
#[derive(Clone, Debug, Default)]
pub struct InputHashes(Vec<(PathBuf, String)>);

impl InputHashes {
    /// Hash every file of every point (`Scenario::input_files`).
    pub fn of(sweep: &Sweep) -> Result<InputHashes, StoreError> {
        let mut v: Vec<(PathBuf, String)> = Vec::new();
        for p in &sweep.points {
            for f in p.scenario.input_files() {
                if !v.iter().any(|(g, _)| *g == f) {
                    let h = file_sha256(&f)?;
                    v.push((f, h));
                }
            }
        }
        Ok(InputHashes(v))
    }

    fn get(&self, f: &Path) -> &str {
        self.0
            .iter()
            .find(|(g, _)| g == f)
            .map_or("", |(_, h)| h.as_str())
    }

    /// The first file whose contents differ from `earlier`'s record.
    pub fn changed_since(&self, earlier: &InputHashes) -> Option<&Path> {
        self.0
            .iter()
            .find(|(f, h)| earlier.get(f) != h)
            .map(|(f, _)| f.as_path())
    }
}

/// What `sweep.json` records: per point, everything its runs are computed
/// from (the key they are stored under): the effective scenario's hash and
/// the SHA-256 of every file it reads; and the model (`MODEL_ID`) that ran
/// them.
/// Two sweeps are the same when these match (the file names are recorded
/// for messages only: a relative trace path reads differently from another
/// working directory).
pub fn manifest(sweep: &Sweep, inputs: &InputHashes) -> Json {
    manifest_made_by(sweep, inputs, MODEL_ID)
}

/// Runs made by something other than the simulator record what made them
/// here instead of [`MODEL_ID`]: kernel runs are `KERNEL_PREFIX` and the
/// kernel's release (`reproduce --kernel`), since the simulator's sources do
/// not decide what the kernel does, and a kernel pass of hours should not be
/// discarded because the simulator was edited.
pub const KERNEL_PREFIX: &str = "kernel ";

/// [`manifest`] with `made_by` recorded as the runs' maker.
pub fn manifest_made_by(sweep: &Sweep, inputs: &InputHashes, made_by: &str) -> Json {
    json!({
        "format": MANIFEST_FORMAT,
        "mptlab_version": VERSION,
        "model": made_by,
        "scenario_file": sweep.origin,
        "keys": sweep.keys,
        "points": sweep.points.iter().map(|p| json!({
            "point": p.id,
            "label": p.label,
            "fingerprint": point_fingerprint(&p.scenario.effective_toml),
            "inputs": p.scenario.input_files().iter().map(|f| json!({
                "file": f.display().to_string(),
                "sha256": inputs.get(f),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// Write `bytes` to `path` atomically (temp file in the same directory,
/// fsync, rename, fsync the directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().expect("a file in a directory");
    let name = path.file_name().expect("a file name").to_string_lossy();
    let tmp = dir.join(format!(
        "{name}{TMP_MARK}{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let res = (|| {
        let mut f = fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
        f.write_all(bytes).map_err(|e| io(&tmp, e))?;
        f.sync_all().map_err(|e| io(&tmp, e))?;
        fs::rename(&tmp, path).map_err(|e| io(path, e))?;
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res
}

/// An opened sweep directory.
pub struct Store {
    pub dir: PathBuf,
    /// `done[p][r]`: run r of point p is on disk.
    done: Vec<Vec<bool>>,
    ids: Vec<String>,
    /// The input files' contents when the store was opened.
    inputs: InputHashes,
}

impl Store {
    /// Open (or start) the sweep in `dir`. Refuses when `dir` holds a sweep
    /// of different points or other results, unless `force` (which discards
    /// the old runs). Nothing is created when it refuses.
    pub fn open(dir: &Path, sweep: &Sweep, force: bool) -> Result<Store, StoreError> {
        Store::open_made_by(dir, sweep, force, MODEL_ID)
    }

    /// [`Store::open`] for runs made by `made_by` ([`manifest_made_by`]):
    /// a store whose runs another maker made is refused, or discarded with
    /// `force`.
    pub fn open_made_by(
        dir: &Path,
        sweep: &Sweep,
        force: bool,
        made_by: &str,
    ) -> Result<Store, StoreError> {
        if dir.exists() && !dir.is_dir() {
            return Err(StoreError::Refused(format!(
                "--out {} exists and is not a directory",
                dir.display()
            )));
        }
        let inputs = InputHashes::of(sweep)?;
        let want = manifest_made_by(sweep, &inputs, made_by);
        let mpath = dir.join(MANIFEST);
        let runs_dir = dir.join("runs");
        if mpath.exists() {
            let why = match fs::read(&mpath) {
                Ok(b) => manifest_difference(&b, &want),
                Err(_) => difference(None, &want),
            };
            if let Some(why) = why {
                if !force {
                    return Err(StoreError::Refused(format!(
                        "{} {why}; use --force to discard its runs and redo them, or choose another --out",
                        dir.display(),
                    )));
                }
                // before the new manifest is written: a crash in between
                // leaves the old one, which still refuses
                if runs_dir.exists() {
                    fs::remove_dir_all(&runs_dir).map_err(|e| io(&runs_dir, e))?;
                }
            }
        } else if !force {
            // no sweep here: the merged tables would replace (or, not
            // written with --no-csv / --no-parquet, delete) files of these
            // names; the top-level scenario.toml is not the sweep's
            let mut theirs = result_files_in(dir);
            theirs.retain(|n| n != "scenario.toml");
            if !theirs.is_empty() {
                return Err(StoreError::Refused(format!(
                    "{} already holds results that are not a sweep ({}); use --force to overwrite, or choose another --out",
                    dir.display(),
                    theirs.join(", ")
                )));
            }
        }
        fs::create_dir_all(&runs_dir).map_err(|e| io(&runs_dir, e))?;
        // merged tables are staged in `.partial-*` (see write_results); an
        // interrupted final write leaves one behind
        for e in fs::read_dir(dir).map_err(|e| io(dir, e))?.flatten() {
            if e.file_name().to_string_lossy().starts_with(".partial-") && e.path().is_dir() {
                let _ = fs::remove_dir_all(e.path());
            }
        }
        write_atomic(
            &mpath,
            &serde_json::to_vec_pretty(&want).expect("serialises"),
        )?;
        let mut done = Vec::new();
        for p in &sweep.points {
            let pd = runs_dir.join(&p.id);
            fs::create_dir_all(&pd).map_err(|e| io(&pd, e))?;
            // the point's effective scenario, for reproducibility
            write_atomic(
                &pd.join("scenario.toml"),
                p.scenario.effective_toml.as_bytes(),
            )?;
            let mut d = vec![false; sweep.runs as usize];
            for e in fs::read_dir(&pd).map_err(|e| io(&pd, e))? {
                let e = e.map_err(|e| io(&pd, e))?;
                let name = e.file_name().to_string_lossy().to_string();
                if name.contains(TMP_MARK) {
                    // an interrupted write: never renamed, so never counted
                    let _ = fs::remove_file(e.path());
                } else if let Some(r) = name
                    .strip_prefix("run-")
                    .and_then(|s| s.strip_suffix(".json"))
                    .and_then(|s| s.parse::<usize>().ok())
                {
                    if r < d.len() {
                        d[r] = true;
                    }
                }
            }
            done.push(d);
        }
        // summary.json marks a complete merged set (docs/results.md,
        // "Atomicity"). With runs still to do, an older one describes runs
        // that --force just discarded, or fewer runs than asked for: it goes
        // now, so a sweep interrupted from here on has no summary.json to
        // pass off as its result (`finish` writes the new one).
        let summary = dir.join(SUMMARY_FILE);
        if done.iter().flatten().any(|d| !d) && summary.exists() {
            fs::remove_file(&summary).map_err(|e| io(&summary, e))?;
        }
        Ok(Store {
            dir: dir.to_path_buf(),
            done,
            ids: sweep.points.iter().map(|p| p.id.clone()).collect(),
            inputs,
        })
    }

    /// Fails when a file the points read changed since the store was
    /// opened: the simulator reads them run by run, so runs made before and
    /// after the change would be merged. The next open refuses the sweep
    /// (its record holds the old contents) until `--force`.
    pub fn check_inputs(&self) -> Result<(), StoreError> {
        let mut now = Vec::with_capacity(self.inputs.0.len());
        for (f, _) in &self.inputs.0 {
            now.push((f.clone(), file_sha256(f)?));
        }
        match InputHashes(now).changed_since(&self.inputs) {
            None => Ok(()),
            Some(f) => Err(StoreError::Refused(format!(
                "{} changed while the sweep ran: runs made before and after the change would be mixed, \
                 so the merged tables are not written; run the same command with --force to redo every run",
                f.display()
            ))),
        }
    }

    fn run_path(&self, point: usize, run: u32) -> PathBuf {
        self.dir
            .join("runs")
            .join(&self.ids[point])
            .join(format!("run-{run}.json"))
    }

    /// (point, run) pairs still to do, point by point.
    pub fn pending(&self) -> Vec<(usize, u32)> {
        let mut v = Vec::new();
        for (p, d) in self.done.iter().enumerate() {
            for (r, ok) in d.iter().enumerate() {
                if !ok {
                    v.push((p, r as u32));
                }
            }
        }
        v
    }

    pub fn total(&self) -> usize {
        self.done.iter().map(Vec::len).sum()
    }

    /// Persist one finished run (safe to call from many threads).
    pub fn save(&self, point: usize, o: &RunOutput) -> Result<(), StoreError> {
        self.save_local(point, o.run, &encode_run(o))
    }

    /// Persist a run this process encoded itself with `encode_run`: no
    /// decode check (that is for bytes from elsewhere, `save_encoded`;
    /// `encode_run` round-trips exactly, tested in mptlab-results).
    pub fn save_local(&self, point: usize, run: u32, bytes: &[u8]) -> Result<(), StoreError> {
        write_atomic(&self.run_path(point, run), bytes)
    }

    /// Persist a run already encoded with `encode_run` (from a Dask worker);
    /// checked to decode first.
    pub fn save_encoded(&self, point: usize, run: u32, bytes: &[u8]) -> Result<(), StoreError> {
        let o = decode_run(bytes).map_err(StoreError::Io)?;
        if o.run != run {
            return Err(StoreError::Io(format!(
                "output is for run {}, expected run {run}",
                o.run
            )));
        }
        write_atomic(&self.run_path(point, run), bytes)
    }

    /// Every run of `point`, read back from disk (0..runs).
    pub fn load_point(&self, point: usize, runs: u32) -> Result<Vec<RunOutput>, StoreError> {
        self.load_point_tables(point, runs, &|_| true)
    }

    /// Every run of `point` with only the tables `keep` accepts (see
    /// `decode_run_tables`).
    pub fn load_point_tables(
        &self,
        point: usize,
        runs: u32,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<RunOutput>, StoreError> {
        (0..runs)
            .map(|r| self.load_run_tables(point, r, keep))
            .collect()
    }

    /// Run `run` of `point` with only the tables `keep` accepts (a run
    /// saved by an older mptlab upgraded as in [`Store::load_point_tables`]).
    pub fn load_run_tables(
        &self,
        point: usize,
        r: u32,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<RunOutput, StoreError> {
        let p = self.run_path(point, r);
        let b = fs::read(&p).map_err(|e| io(&p, e))?;
        // damaged (a copy cut short, a full disk when it was copied): what
        // to do, not only what is wrong (session 26)
        let redo =
            "the file is damaged: delete it and run the same command again: it redoes that run";
        let bad = |e: String| StoreError::Io(format!("{}: {e}; {redo}", p.display()));
        // A run saved before mptlab counted unfinished work (issue
        // 12) gets its `completed` columns and counts derived from
        // its tables, so a resumed sweep neither mixes table schemas
        // nor reports old runs as complete: `transfers` (one row per
        // transfer) is always read for that, `messages` only when an
        // old run has some.
        let with =
            |extra: &'static str| move |n: &str| keep(n) || n == schema::TRANSFERS || n == extra;
        let mut o = decode_run_tables(&b, &with(schema::TRANSFERS)).map_err(bad)?;
        if unfinished::maybe_legacy_messages(&o) && !keep(schema::MESSAGES) {
            o = decode_run_tables(&b, &with(schema::MESSAGES)).map_err(bad)?;
        }
        unfinished::upgrade_legacy(&mut o);
        o.tables.retain(|t| keep(&t.name));
        if o.run != r {
            return Err(StoreError::Io(format!(
                "{}: holds run {}; {redo}",
                p.display(),
                o.run
            )));
        }
        Ok(o)
    }

    /// Whether run `run` of `point` is on disk.
    pub fn has_run(&self, point: usize, run: u32) -> bool {
        self.done
            .get(point)
            .and_then(|d| d.get(run as usize))
            .copied()
            .unwrap_or(false)
    }
}

/// Why the `sweep.json` found on disk (`old`, any bytes) differs from
/// `want` (None: the same, its runs are valid for this sweep). Completes
/// "DIR ...".
pub fn manifest_difference(old: &[u8], want: &Json) -> Option<String> {
    let old: Option<Json> = serde_json::from_slice(old).ok();
    difference(old.as_ref(), want)
}

/// The first 12 digits of a model identity, as messages print it.
pub fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// Why the sweep recorded in `old` differs from `want` (None: the same, its
/// runs are valid for this sweep). Completes "DIR ...".
fn difference(old: Option<&Json>, want: &Json) -> Option<String> {
    let Some(old) = old else {
        return Some(format!(
            "holds a sweep of a different scenario ({MANIFEST}: unreadable)"
        ));
    };
    if old["format"] != want["format"] {
        let format = old["format"].as_str().unwrap_or("unknown");
        let lacked = match format {
            "mptlab-sweep/1" => "; format mptlab-sweep/1 did not record the contents of the trace files its runs read",
            "mptlab-sweep/2" => "; format mptlab-sweep/2 did not record which build of the model made its runs",
            _ => "",
        };
        return Some(format!(
            "holds a sweep made by another mptlab ({MANIFEST} format {format}, this one writes {MANIFEST_FORMAT}{lacked})"
        ));
    }
    if old["mptlab_version"] != want["mptlab_version"] || old["model"] != want["model"] {
        let version = old["mptlab_version"].as_str().unwrap_or("unknown");
        let (was, is) = (
            old["model"].as_str().unwrap_or("unknown"),
            want["model"].as_str().unwrap_or("unknown"),
        );
        if is.starts_with(KERNEL_PREFIX) {
            return Some(format!(
                "holds kernel runs made by mptlab {version} on {was}; this is mptlab {VERSION} on {is}"
            ));
        }
        return Some(format!(
            "holds runs made by another build of the model (mptlab {version} with model sources {}; \
             this is mptlab {VERSION} with model sources {}), so they may differ",
            short(was),
            short(is),
        ));
    }
    let (o, w) = (Recorded::all(old), Recorded::all(want));
    let scenario = |why: String| {
        Some(format!(
            "holds a sweep of a different scenario ({MANIFEST}: {why})"
        ))
    };
    if let Some(p) = w.iter().find(|p| {
        o.iter()
            .any(|q| q.id == p.id && q.fingerprint != p.fingerprint)
    }) {
        return scenario(format!("the scenario of point `{}` changed", p.label));
    }
    if o.iter().map(|p| &p.id).ne(w.iter().map(|p| &p.id)) {
        return scenario(format!(
            "it has {} point(s), this sweep has {}",
            o.len(),
            w.len()
        ));
    }
    if old["keys"] != want["keys"] || o.iter().zip(&w).any(|(q, p)| q.label != p.label) {
        return scenario("its axes differ".into());
    }
    // same points, same scenarios: the files they read
    let stale: Vec<(&String, String)> = o
        .iter()
        .zip(&w)
        .filter(|(q, p)| q.hashes != p.hashes)
        .map(|(q, p)| {
            let file = (0..p.hashes.len())
                .find(|&i| q.hashes.get(i) != Some(&p.hashes[i]))
                .map_or_else(|| "a file it reads".to_string(), |i| p.files[i].clone());
            (&p.label, file)
        })
        .collect();
    let (label, file) = stale.first()?;
    let more = match stale.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!(
        "holds runs computed from other inputs: {file} changed since they were made (point `{label}`{more})"
    ))
}

/// One point as `sweep.json` records it.
struct Recorded {
    id: String,
    label: String,
    fingerprint: String,
    files: Vec<String>,
    hashes: Vec<String>,
}

impl Recorded {
    fn all(manifest: &Json) -> Vec<Recorded> {
        let s = |v: &Json| v.as_str().unwrap_or("").to_string();
        manifest["points"].as_array().map_or(Vec::new(), |a| {
            a.iter()
                .map(|p| {
                    let ins = p["inputs"].as_array().cloned().unwrap_or_default();
                    Recorded {
                        id: s(&p["point"]),
                        label: s(&p["label"]),
                        fingerprint: s(&p["fingerprint"]),
                        files: ins.iter().map(|i| s(&i["file"])).collect(),
                        hashes: ins.iter().map(|i| s(&i["sha256"])).collect(),
                    }
                })
                .collect()
        })
    }
}
