//! The on-disk state of a sweep: `DIR/sweep.json` (what is being swept) and
//! `DIR/runs/<point-id>/run-<r>.json` (one finished run each).
//!
//! Every file is written to a temporary name in its final directory, synced,
//! then renamed, and the directory synced: after a crash (Ctrl-C, kill -9,
//! power loss) a run file is either complete or absent. Leftover temporary
//! files are removed when the store is opened again.

use mptlab_results::{
    decode_run, decode_run_tables, encode_run, unfinished, RunOutput, SUMMARY_FILE,
};
use mptlab_scenario::sweep::fnv1a;
use mptlab_scenario::Sweep;
use serde_json::{json, Value as Json};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub const MANIFEST: &str = "sweep.json";
pub const MANIFEST_FORMAT: &str = "mptlab-sweep/1";
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

/// Fingerprint of one point: its effective scenario without `scenario.runs`
/// (more or fewer runs reuse the runs already done: a run's result depends
/// only on the scenario and its index).
pub fn point_fingerprint(effective_toml: &str) -> String {
    let mut doc: toml::Table = toml::from_str(effective_toml).expect("effective TOML parses");
    if let Some(toml::Value::Table(m)) = doc.get_mut("scenario") {
        m.remove("runs");
    }
    format!(
        "{:016x}",
        fnv1a(toml::to_string(&doc).expect("serialises").as_bytes())
    )
}

/// What `sweep.json` records; two sweeps are the same when these match.
pub fn manifest(sweep: &Sweep) -> Json {
    json!({
        "format": MANIFEST_FORMAT,
        "scenario_file": sweep.origin,
        "keys": sweep.keys,
        "points": sweep.points.iter().map(|p| json!({
            "point": p.id,
            "label": p.label,
            "fingerprint": point_fingerprint(&p.scenario.effective_toml),
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
}

impl Store {
    /// Open (or start) the sweep in `dir`. Refuses when `dir` holds a sweep
    /// of different points or other results, unless `force` (which discards
    /// the old runs). Nothing is created when it refuses.
    pub fn open(dir: &Path, sweep: &Sweep, force: bool) -> Result<Store, StoreError> {
        if dir.exists() && !dir.is_dir() {
            return Err(StoreError::Refused(format!(
                "--out {} exists and is not a directory",
                dir.display()
            )));
        }
        let want = manifest(sweep);
        let mpath = dir.join(MANIFEST);
        let runs_dir = dir.join("runs");
        if mpath.exists() {
            let old: Option<Json> = fs::read(&mpath)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
            let same = old.as_ref().is_some_and(|o| {
                o["format"] == want["format"]
                    && o["keys"] == want["keys"]
                    && o["points"] == want["points"]
            });
            if !same {
                if !force {
                    return Err(StoreError::Refused(format!(
                        "{} holds a sweep of a different scenario ({}: {}); use --force to discard its runs, or choose another --out",
                        dir.display(),
                        MANIFEST,
                        describe_change(old.as_ref(), &want)
                    )));
                }
                if runs_dir.exists() {
                    fs::remove_dir_all(&runs_dir).map_err(|e| io(&runs_dir, e))?;
                }
            }
        } else if dir.join(SUMMARY_FILE).exists() && !force {
            return Err(StoreError::Refused(format!(
                "{} already holds results that are not a sweep ({SUMMARY_FILE}); use --force to overwrite, or choose another --out",
                dir.display()
            )));
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
        Ok(Store {
            dir: dir.to_path_buf(),
            done,
            ids: sweep.points.iter().map(|p| p.id.clone()).collect(),
        })
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
            .map(|r| {
                let p = self.run_path(point, r);
                let b = fs::read(&p).map_err(|e| io(&p, e))?;
                let bad = |e: String| StoreError::Io(format!("{}: {e}", p.display()));
                // A run saved before mptlab counted unfinished work (issue
                // 12) gets its `completed` columns and counts derived from
                // its tables, so a resumed sweep neither mixes table schemas
                // nor reports old runs as complete: `transfers` (one row per
                // transfer) is always read for that, `messages` only when an
                // old run has some.
                let with =
                    |extra: &'static str| move |n: &str| keep(n) || n == "transfers" || n == extra;
                let mut o = decode_run_tables(&b, &with("transfers")).map_err(bad)?;
                if unfinished::maybe_legacy_messages(&o) && !keep("messages") {
                    o = decode_run_tables(&b, &with("messages")).map_err(bad)?;
                }
                unfinished::upgrade_legacy(&mut o);
                o.tables.retain(|t| keep(&t.name));
                if o.run != r {
                    return Err(StoreError::Io(format!(
                        "{}: holds run {}",
                        p.display(),
                        o.run
                    )));
                }
                Ok(o)
            })
            .collect()
    }
}

fn describe_change(old: Option<&Json>, want: &Json) -> String {
    let Some(old) = old else {
        return "unreadable".into();
    };
    let labels = |j: &Json| -> Vec<(String, String, String)> {
        j["points"].as_array().map_or(Vec::new(), |a| {
            a.iter()
                .map(|p| {
                    (
                        p["point"].as_str().unwrap_or("").into(),
                        p["label"].as_str().unwrap_or("").into(),
                        p["fingerprint"].as_str().unwrap_or("").into(),
                    )
                })
                .collect()
        })
    };
    let (o, w) = (labels(old), labels(want));
    if let Some(p) = w
        .iter()
        .find(|p| o.iter().any(|q| q.0 == p.0 && q.2 != p.2))
    {
        return format!("the scenario of point `{}` changed", p.1);
    }
    if o.iter().map(|p| &p.0).ne(w.iter().map(|p| &p.0)) {
        return format!("it has {} point(s), this sweep has {}", o.len(), w.len());
    }
    "its axes differ".into()
}
