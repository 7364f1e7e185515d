//! Per-run outputs, merging runs, and atomic writing of a result directory.

use crate::table::{ColumnType, Table, TableError, Value};
use crate::unfinished::Unfinished;
use crate::{csv, parquet_writer, schema};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Everything one simulation run produces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutput {
    /// Run index, 0-based.
    pub run: u32,
    pub seed: u64,
    /// Result tables (standard ones from [`crate::schema`], or extra ones).
    pub tables: Vec<Table>,
    /// Key metrics of the run (numbers for the summary, or any JSON).
    pub summary: BTreeMap<String, Json>,
}

impl RunOutput {
    pub fn new(run: u32, seed: u64) -> Self {
        RunOutput {
            run,
            seed,
            ..Default::default()
        }
    }
    /// The table called `name`, created empty (standard schema if it is a
    /// standard table) when missing.
    pub fn table_mut(&mut self, name: &str) -> &mut Table {
        let i = match self.tables.iter().position(|t| t.name == name) {
            Some(i) => i,
            None => {
                self.tables
                    .push(schema::standard(name).unwrap_or_else(|| Table::new(name)));
                self.tables.len() - 1
            }
        };
        &mut self.tables[i]
    }
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
    /// Record a numeric summary metric (non-finite values become null).
    pub fn set_metric(&mut self, key: impl Into<String>, v: f64) {
        self.summary.insert(
            key.into(),
            serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number),
        );
    }
}

/// Statistics of one numeric summary metric across runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Stats {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (0 for one run).
    pub stddev: f64,
}

impl Stats {
    pub fn of(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let var = if n > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(Stats {
            n,
            mean,
            median,
            min: v[0],
            max: v[n - 1],
            stddev: var.sqrt(),
        })
    }
}

/// Per-metric statistics over runs, for every summary key whose values are numbers.
pub fn aggregate(runs: &[RunOutput]) -> BTreeMap<String, Stats> {
    let mut vals: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in runs {
        for (k, v) in &r.summary {
            if let Some(x) = v.as_f64() {
                vals.entry(k).or_default().push(x);
            }
        }
    }
    vals.into_iter()
        .filter_map(|(k, v)| Some((k.to_string(), Stats::of(&v)?)))
        .collect()
}

/// Merge the tables of many runs (in the order given) into one table per
/// name, each row prefixed with `run` and `seed`. Standard tables come first
/// in their documented order and are present even when no run produced
/// them (empty, with the standard schema); other tables follow in order of
/// first appearance.
pub fn merge_runs(runs: &[RunOutput]) -> Result<Vec<Table>, TableError> {
    let mut names: Vec<String> = schema::STANDARD.iter().map(|s| s.to_string()).collect();
    for r in runs {
        for t in &r.tables {
            if !names.contains(&t.name) {
                names.push(t.name.clone());
            }
        }
    }
    let mut out = Vec::new();
    for name in names {
        let mut merged: Option<Table> = None;
        for r in runs {
            for t in r.tables.iter().filter(|t| t.name == name) {
                let tagged = t.with_leading(&[
                    ("run", Value::U64(r.run as u64), ColumnType::U64),
                    ("seed", Value::U64(r.seed), ColumnType::U64),
                ])?;
                match &mut merged {
                    None => merged = Some(tagged),
                    Some(m) => m
                        .append(&tagged)
                        .map_err(|e| TableError(format!("run {}: {e}", r.run)))?,
                }
            }
        }
        let t = match merged {
            Some(t) => t,
            None => schema::standard(&name)
                .expect("only standard names can be missing")
                .with_leading(&[
                    ("run", Value::Null, ColumnType::U64),
                    ("seed", Value::Null, ColumnType::U64),
                ])?,
        };
        out.push(t);
    }
    Ok(out)
}

/// The `summary.json` document: `meta` fields, then per-run metrics and
/// per-metric statistics.
pub fn summary_json(runs: &[RunOutput], meta: &Map<String, Json>) -> Json {
    let mut doc = meta.clone();
    doc.insert("runs".into(), json!(runs.len()));
    doc.insert(
        "per_run".into(),
        Json::Array(
            runs.iter()
                .map(|r| json!({ "run": r.run, "seed": r.seed, "metrics": r.summary }))
                .collect(),
        ),
    );
    // Unfinished work, and over how many items the completed-only metrics
    // of `aggregate` were computed (crate::unfinished)
    let unf = Unfinished::of(runs);
    doc.insert("unfinished".into(), unf.to_json());
    let mut agg = serde_json::to_value(aggregate(runs)).expect("stats serialise");
    unf.annotate(&mut agg);
    doc.insert("aggregate".into(), agg);
    Json::Object(doc)
}

/// What to write.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    pub csv: bool,
    pub parquet: bool,
    /// Extra top-level fields of `summary.json` (scenario name, version, ...).
    pub meta: Map<String, Json>,
    /// Extra files written verbatim (e.g. the effective `scenario.toml`).
    pub extra_files: Vec<(String, Vec<u8>)>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            csv: true,
            parquet: true,
            meta: Map::new(),
            extra_files: Vec::new(),
        }
    }
}

/// Error while writing results.
#[derive(Debug)]
pub struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for WriteError {}

/// Name of the file written last; its presence marks a complete result set.
pub const SUMMARY_FILE: &str = "summary.json";

/// Merge `runs` and write `DIR/{table}.csv`, `DIR/{table}.parquet`, extra
/// files and `DIR/summary.json`.
///
/// Atomic per file, and complete-or-nothing for the set: everything is first
/// written to `DIR/.partial-<pid>-<n>/`; only when every file is complete are
/// they renamed into `DIR` (`summary.json` last; an older `summary.json` and
/// older standard tables that this write does not replace are removed
/// first). On any error the partial
/// directory is removed, and `DIR` too if this call created it. Returns the
/// paths written, in order.
pub fn write_results(
    dir: &Path,
    runs: &[RunOutput],
    opts: &WriteOptions,
) -> Result<Vec<PathBuf>, WriteError> {
    write_results_with(dir, runs, opts, &|commit| commit())
}

/// How a write runs its commit: `around(commit)` calls `commit` once.
/// The commit is the part of a write that changes which result set its
/// directory holds (the older `summary.json` and the standard tables this
/// write does not produce removed, the new files renamed in, `summary.json`
/// last); the files are complete in the partial directory before it. A
/// caller that reads the directory to say what it holds (`mptlab run`'s
/// interrupt line) runs the commit under a lock it takes too, so the
/// directory does not change between its read and what it does with it.
pub type AroundCommit<'a> = &'a dyn Fn(&mut dyn FnMut());

/// [`write_results`] with its commit run through `around`.
pub fn write_results_with(
    dir: &Path,
    runs: &[RunOutput],
    opts: &WriteOptions,
    around: AroundCommit<'_>,
) -> Result<Vec<PathBuf>, WriteError> {
    let tables =
        merge_runs(runs).map_err(|e| WriteError(format!("cannot merge run outputs: {e}")))?;
    write_tables_with(dir, &tables, &summary_json(runs, &opts.meta), opts, around)
}

/// Write already merged `tables` and the `summary` document into `dir`,
/// exactly as [`write_results`] does (sweeps build their own summary; its
/// `opts.meta` is not used here).
pub fn write_tables(
    dir: &Path,
    tables: &[Table],
    summary: &Json,
    opts: &WriteOptions,
) -> Result<Vec<PathBuf>, WriteError> {
    write_tables_with(dir, tables, summary, opts, &|commit| commit())
}

/// [`write_tables`] with its commit run through `around`
/// ([`AroundCommit`]).
fn write_tables_with(
    dir: &Path,
    tables: &[Table],
    summary: &Json,
    opts: &WriteOptions,
    around: AroundCommit<'_>,
) -> Result<Vec<PathBuf>, WriteError> {
    let created = !dir.exists();
    fs::create_dir_all(dir)
        .map_err(|e| WriteError(format!("cannot create {}: {e}", dir.display())))?;
    remove_stale_partials(dir);
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".partial-{}-{n}", std::process::id()));
    let result = write_into(&tmp, dir, tables, summary, opts, around);
    let _ = fs::remove_dir_all(&tmp);
    if result.is_err() && created {
        let _ = fs::remove_dir(dir); // only succeeds if empty
    }
    result
}

/// Remove `.partial-<pid>-<n>` directories in `dir` whose writing process
/// no longer runs (killed while writing), so they do not pile up. A live
/// pid's directory is left alone: another write may be under way. Where
/// `/proc` is missing, nothing is removed.
pub fn remove_stale_partials(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(".partial-"))
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
            if !alive && e.path().is_dir() {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}

fn write_into(
    tmp: &Path,
    dir: &Path,
    tables: &[Table],
    summary: &Json,
    opts: &WriteOptions,
    around: AroundCommit<'_>,
) -> Result<Vec<PathBuf>, WriteError> {
    let io = |p: &Path, e: std::io::Error| WriteError(format!("cannot write {}: {e}", p.display()));
    fs::create_dir(tmp).map_err(|e| io(tmp, e))?;
    let mut files: Vec<String> = Vec::new();
    let mut put = |name: String,
                   f: &dyn Fn(&mut BufWriter<fs::File>) -> Result<(), String>|
     -> Result<(), WriteError> {
        let p = tmp.join(&name);
        let file = fs::File::create(&p).map_err(|e| io(&p, e))?;
        let mut w = BufWriter::new(file);
        f(&mut w).map_err(|e| WriteError(format!("cannot write {}: {e}", p.display())))?;
        let file = w.into_inner().map_err(|e| io(&p, e.into_error()))?;
        file.sync_all().map_err(|e| io(&p, e))?;
        files.push(name);
        Ok(())
    };
    for t in tables {
        if opts.csv {
            put(format!("{}.csv", t.name), &|w| {
                csv::write_csv(t, w).map_err(|e| e.to_string())
            })?;
        }
        if opts.parquet {
            put(format!("{}.parquet", t.name), &|w| {
                parquet_writer::write_parquet(t, w)
            })?;
        }
    }
    for (name, bytes) in &opts.extra_files {
        put(name.clone(), &|w| {
            w.write_all(bytes).map_err(|e| e.to_string())
        })?;
    }
    put(SUMMARY_FILE.to_string(), &|w| {
        serde_json::to_writer_pretty(&mut *w, summary).map_err(|e| e.to_string())?;
        w.write_all(b"\n").map_err(|e| e.to_string())
    })?;
    let mut committed = Err(WriteError(format!(
        "{}: the write's commit was not run",
        dir.display()
    )));
    around(&mut || committed = commit(tmp, dir, &files));
    let written = committed?;
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(written)
}

/// The commit of a write whose `files` are complete in `tmp`: an older
/// result set in `dir` stops being "complete" first (its summary.json
/// goes), and standard files this write does not produce are removed so
/// old and new results never mix; then the new files are moved into place,
/// summary.json last (it is last in `files`).
fn commit(tmp: &Path, dir: &Path, files: &[String]) -> Result<Vec<PathBuf>, WriteError> {
    let io = |p: &Path, e: std::io::Error| WriteError(format!("cannot write {}: {e}", p.display()));
    let old_summary = dir.join(SUMMARY_FILE);
    if old_summary.exists() {
        fs::remove_file(&old_summary).map_err(|e| io(&old_summary, e))?;
    }
    for t in schema::STANDARD {
        for ext in ["csv", "parquet"] {
            let name = format!("{t}.{ext}");
            let p = dir.join(&name);
            if !files.contains(&name) && p.is_file() {
                fs::remove_file(&p).map_err(|e| io(&p, e))?;
            }
        }
    }
    let mut written = Vec::new();
    for name in files {
        let (from, to) = (tmp.join(name), dir.join(name));
        fs::rename(&from, &to).map_err(|e| io(&to, e))?;
        written.push(to);
    }
    Ok(written)
}

/// The files in `dir` that writing results there would replace or remove
/// ([`write_tables`]: `summary.json`, `scenario.toml` and every standard
/// table, CSV and Parquet, whether this write produces it or not), in that
/// order. Callers refuse a non-empty list without `--force`: a `flows.csv`
/// of the user's own, in a directory without `summary.json`, used to be
/// overwritten, or deleted by `--no-csv` (session 26).
pub fn result_files_in(dir: &Path) -> Vec<String> {
    let mut names = vec![SUMMARY_FILE.to_string(), "scenario.toml".to_string()];
    for t in schema::STANDARD {
        for ext in ["csv", "parquet"] {
            names.push(format!("{t}.{ext}"));
        }
    }
    names.retain(|n| dir.join(n).is_file());
    names
}

/// Whether files can be created in `dir` (created if missing, and removed
/// again if it was: nothing is left behind when the runs then fail).
pub fn probe_writable(dir: &Path) -> std::io::Result<()> {
    let created = !dir.exists();
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    let r = std::fs::File::create(&probe).map(drop);
    let _ = std::fs::remove_file(&probe);
    if created {
        let _ = std::fs::remove_dir(dir);
    }
    r
}
