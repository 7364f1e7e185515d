//! `mptlab._core`: the compiled half of the `mptlab` Python package.
//!
//! Deliberately small: it runs scenarios and sweeps and writes result
//! directories exactly like the CLI; the Python half (`python/mptlab`) reads
//! them into polars and drives Dask. Errors are raised as the Python classes
//! in `mptlab._errors`, so they can carry attributes (`.file`, `.line`, ...).

use mptlab_results::{encode_run, write_results, RunOutput, WriteOptions};
use mptlab_scenario::{Override, Scenario, ScenarioError, Sweep};
use mptlab_sweep::{ExecError, Store, StoreError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn raise(py: Python<'_>, class: &str, msg: String, kw: &[(&str, Option<Py<PyAny>>)]) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("mptlab._errors")?.getattr(class)?;
        let d = PyDict::new(py);
        for (k, v) in kw {
            d.set_item(*k, v)?;
        }
        Ok(PyErr::from_value(cls.call((msg.clone(),), Some(&d))?))
    })();
    made.unwrap_or_else(|e| e)
}

fn scenario_error(py: Python<'_>, e: &ScenarioError) -> PyErr {
    let o = |v: Option<usize>| v.map(|x| x.into_pyobject(py).unwrap().into_any().unbind());
    raise(
        py,
        "ScenarioError",
        e.to_string(),
        &[
            (
                "file",
                Some(
                    e.origin
                        .clone()
                        .into_pyobject(py)
                        .unwrap()
                        .into_any()
                        .unbind(),
                ),
            ),
            ("line", o(e.line)),
            ("column", o(e.column)),
            (
                "key",
                e.key
                    .clone()
                    .map(|k| k.into_pyobject(py).unwrap().into_any().unbind()),
            ),
            (
                "message",
                Some(
                    e.message
                        .clone()
                        .into_pyobject(py)
                        .unwrap()
                        .into_any()
                        .unbind(),
                ),
            ),
        ],
    )
}

/// A problem with the input that has no position (unsupported by the
/// simulator, output directory refused, bad `set`).
fn usage_error(py: Python<'_>, file: &str, msg: String) -> PyErr {
    raise(
        py,
        "ScenarioError",
        format!("{file}: {msg}"),
        &[
            (
                "file",
                Some(file.into_pyobject(py).unwrap().into_any().unbind()),
            ),
            (
                "message",
                Some(msg.into_pyobject(py).unwrap().into_any().unbind()),
            ),
        ],
    )
}

fn simulation_error(py: Python<'_>, msg: String) -> PyErr {
    raise(py, "SimulationError", msg, &[])
}

fn overrides(
    py: Python<'_>,
    file: &str,
    set: &[String],
    seed: Option<u64>,
) -> PyResult<Vec<Override>> {
    let mut v = set
        .iter()
        .map(|s| {
            s.parse::<Override>()
                .map_err(|e| usage_error(py, file, format!("set {s}: {e}")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    if let Some(s) = seed {
        v.push(Override {
            key: "scenario.seed".into(),
            value: s.to_string(),
        });
    }
    Ok(v)
}

fn jobs_or_all(jobs: Option<usize>) -> usize {
    jobs.filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Every run of `s` on `jobs` threads, in run order.
fn run_all(s: &Scenario, jobs: usize) -> Result<Vec<RunOutput>, String> {
    let n = s.meta.runs;
    let next = AtomicU32::new(0);
    let failed = AtomicBool::new(false);
    let res: Mutex<Vec<Option<Result<RunOutput, String>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|sc| {
        for _ in 0..jobs.clamp(1, n.max(1) as usize) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || failed.load(Ordering::Relaxed) {
                    return;
                }
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    mptlab_sim::run_once(s, i)
                }))
                .unwrap_or_else(|_| Err("simulation panicked".into()));
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                res.lock().unwrap()[i as usize] = Some(r);
            });
        }
    });
    let mut out = Vec::new();
    for (i, r) in res.into_inner().unwrap().into_iter().enumerate() {
        match r {
            Some(Ok(o)) => out.push(o),
            Some(Err(e)) => return Err(format!("run {i} (seed {}): {e}", s.run_seed(i as u32))),
            None => {}
        }
    }
    if out.len() != n as usize {
        return Err("runs were skipped after a failure".into());
    }
    Ok(out)
}

/// Run every repetition of a scenario and write the result directory `out`
/// (as `mptlab run`).
#[pyfunction]
#[pyo3(signature = (path, out, runs=None, seed=None, set=Vec::new(), jobs=None, force=false))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    path: PathBuf,
    out: PathBuf,
    runs: Option<u32>,
    seed: Option<u64>,
    set: Vec<String>,
    jobs: Option<usize>,
    force: bool,
) -> PyResult<()> {
    let file = path.display().to_string();
    let mut ov = overrides(py, &file, &set, seed)?;
    if let Some(r) = runs {
        ov.push(Override {
            key: "scenario.runs".into(),
            value: r.to_string(),
        });
    }
    let s = Scenario::load(&path, &ov).map_err(|e| scenario_error(py, &e))?;
    mptlab_sim::supported(&s).map_err(|e| usage_error(py, &file, e))?;
    // not only summary.json: a flows.csv or scenario.toml of the user's own
    // would be overwritten (as the CLI's `run`, session 26)
    let theirs = mptlab_results::result_files_in(&out);
    if !theirs.is_empty() && !force {
        return Err(usage_error(
            py,
            &file,
            format!(
                "{} already holds results ({}); pass force=True or another out",
                out.display(),
                theirs.join(", ")
            ),
        ));
    }
    // an unwritable `out` is bad input, refused before anything runs
    mptlab_results::probe_writable(&out).map_err(|e| {
        usage_error(
            py,
            &file,
            format!("out {}: cannot write results there: {e}", out.display()),
        )
    })?;
    let runs = py
        .detach(|| run_all(&s, jobs_or_all(jobs)))
        .map_err(|e| simulation_error(py, format!("{file}: {e}")))?;
    let mut opts = WriteOptions::default();
    opts.meta
        .insert("scenario".into(), s.meta.name.clone().into());
    opts.meta
        .insert("scenario_file".into(), s.origin.clone().into());
    opts.meta.insert("mptlab_version".into(), VERSION.into());
    opts.meta.insert("base_seed".into(), s.meta.seed.into());
    opts.extra_files.push((
        "scenario.toml".into(),
        s.effective_toml.clone().into_bytes(),
    ));
    py.detach(|| write_results(&out, &runs, &opts))
        .map_err(|e| simulation_error(py, e.to_string()))?;
    Ok(())
}

/// Simulate run `run` of a scenario given as text (a sweep point's
/// effective TOML): the task a Dask worker executes. Returns the run in the
/// format of `runs/<point>/run-<r>.json`.
#[pyfunction]
#[pyo3(signature = (text, origin, base_dir, run))]
fn run_toml<'py>(
    py: Python<'py>,
    text: &str,
    origin: &str,
    base_dir: PathBuf,
    run: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let s = Scenario::from_str_in(text, origin, base_dir).map_err(|e| scenario_error(py, &e))?;
    let bytes = py
        .detach(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                mptlab_sim::run_once(&s, run)
            }))
            .unwrap_or_else(|_| Err("simulation panicked".into()))
            .map(|o| encode_run(&o))
        })
        .map_err(|e| {
            simulation_error(
                py,
                format!("{origin}: run {run} (seed {}): {e}", s.run_seed(run)),
            )
        })?;
    Ok(PyBytes::new(py, &bytes))
}

/// A planned sweep with its output directory opened (see `mptlab sweep`).
#[pyclass(frozen)]
struct SweepJob {
    sweep: Sweep,
    store: Store,
}

#[pymethods]
impl SweepJob {
    #[new]
    #[pyo3(signature = (path, out, runs=None, seed=None, set=Vec::new(), force=false))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        out: PathBuf,
        runs: Option<u32>,
        seed: Option<u64>,
        set: Vec<String>,
        force: bool,
    ) -> PyResult<Self> {
        let file = path.display().to_string();
        let ov = overrides(py, &file, &set, seed)?;
        let sweep = Sweep::from_file(&path, &ov, runs).map_err(|e| scenario_error(py, &e))?;
        for p in &sweep.points {
            mptlab_sim::supported(&p.scenario)
                .map_err(|e| usage_error(py, &file, format!("sweep point `{}`: {e}", p.label)))?;
        }
        let store = Store::open(&out, &sweep, force).map_err(|e| match e {
            StoreError::Refused(m) => usage_error(py, &file, m),
            StoreError::Io(m) => simulation_error(py, m),
        })?;
        Ok(SweepJob { sweep, store })
    }

    /// (point index, run) pairs not yet on disk.
    fn pending(&self) -> Vec<(usize, u32)> {
        self.store.pending()
    }

    /// Number of (point, run) pairs in the sweep.
    #[getter]
    fn total(&self) -> usize {
        self.store.total()
    }

    /// Points as (id, label) in sweep order.
    #[getter]
    fn points(&self) -> Vec<(String, String)> {
        self.sweep
            .points
            .iter()
            .map(|p| (p.id.clone(), p.label.clone()))
            .collect()
    }

    /// What a worker needs to run a point: (effective TOML, origin, base dir).
    fn task(&self, point: usize) -> PyResult<(String, String, PathBuf)> {
        let p = self
            .sweep
            .points
            .get(point)
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no such point"))?;
        Ok((
            p.scenario.effective_toml.clone(),
            format!("{} (point {})", self.sweep.origin, p.label),
            p.scenario.base_dir.clone(),
        ))
    }

    /// Persist run `run` of `point` (bytes from `run_toml`), atomically.
    fn save(&self, py: Python<'_>, point: usize, run: u32, data: &[u8]) -> PyResult<()> {
        if point >= self.sweep.points.len() {
            return Err(pyo3::exceptions::PyIndexError::new_err("no such point"));
        }
        self.store
            .save_encoded(point, run, data)
            .map_err(|e| simulation_error(py, e.to_string()))
    }

    /// Run the pending pairs here, on `jobs` threads; returns how many ran.
    #[pyo3(signature = (jobs=None, stop_after=None))]
    fn run_local(
        &self,
        py: Python<'_>,
        jobs: Option<usize>,
        stop_after: Option<usize>,
    ) -> PyResult<usize> {
        let r = py.detach(|| {
            mptlab_sweep::execute(
                &self.sweep,
                &self.store,
                jobs_or_all(jobs),
                &mptlab_sim::run_once,
                stop_after,
                &|| {},
            )
        });
        r.map_err(|e| match e {
            ExecError::Stopped(_) => pyo3::exceptions::PyKeyboardInterrupt::new_err(e.to_string()),
            e => simulation_error(py, format!("{}: {e}", self.sweep.origin)),
        })
    }

    /// Merge every run from disk and write the sweep's tables and summary.
    #[pyo3(signature = (csv=true, parquet=true))]
    fn finish(&self, py: Python<'_>, csv: bool, parquet: bool) -> PyResult<()> {
        let opts = WriteOptions {
            csv,
            parquet,
            meta: mptlab_sweep::meta(&self.sweep, VERSION),
            extra_files: Vec::new(),
        };
        py.detach(|| mptlab_sweep::finish(&self.sweep, &self.store, &opts))
            .map(|_| ())
            .map_err(|e| simulation_error(py, e))
    }

    #[getter]
    fn out(&self) -> PathBuf {
        self.store.dir.clone()
    }
}

/// Validate a scenario (and its sweep); raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (path, set=Vec::new()))]
fn check(py: Python<'_>, path: PathBuf, set: Vec<String>) -> PyResult<usize> {
    let file = path.display().to_string();
    let ov = overrides(py, &file, &set, None)?;
    let sweep =
        Sweep::from_file(Path::new(&path), &ov, None).map_err(|e| scenario_error(py, &e))?;
    for p in &sweep.points {
        mptlab_sim::supported(&p.scenario)
            .map_err(|e| usage_error(py, &file, format!("sweep point `{}`: {e}", p.label)))?;
    }
    Ok(sweep.points.len())
}

/// Statistics of a sample (non-finite values dropped), as in sweep
/// summaries: n, mean, median, stddev, min, max, ci95_low/high, boxplot.
/// None for no finite value.
#[pyfunction]
fn describe(py: Python<'_>, values: Vec<f64>) -> PyResult<Option<Py<PyAny>>> {
    let Some(d) = mptlab_results::stats::Describe::of(&values) else {
        return Ok(None);
    };
    let json = serde_json::to_string(&d).expect("serialises");
    Ok(Some(
        py.import("json")?.call_method1("loads", (json,))?.unbind(),
    ))
}

/// Two-sided 95 % Student t quantile t(0.975, df).
/// One `mptlab list` category: (title, scenario key, [(name, description)]).
type Category = (String, String, Vec<(String, String)>);

/// Every name a scenario may use, from the one registry `mptlab list`
/// prints (`mptlab_scenario::categories`, which holds mptlab-core's
/// mechanism enums).
#[pyfunction]
fn names() -> Vec<Category> {
    mptlab_scenario::categories()
        .into_iter()
        .map(|c| (c.title, c.key, c.entries))
        .collect()
}

#[pyfunction]
fn t975(df: u64) -> f64 {
    mptlab_results::stats::t975(df)
}

/// The standard tables and their columns, in order: `[(table, [(column,
/// type)])]` with types `u64`, `i64`, `f64`, `string`, `bool`, from the
/// typed rows of `mptlab_results::rows` (the one definition both drivers
/// fill).
#[pyfunction]
fn schemas() -> Vec<(String, Vec<(String, String)>)> {
    mptlab_results::rows::standard_schemas()
        .into_iter()
        .map(|(t, cols)| {
            let cols = cols
                .into_iter()
                .map(|(n, ty)| (n.to_string(), ty.to_string()))
                .collect();
            (t.to_string(), cols)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", VERSION)?;
    // the identity of the model this build simulates (the CLI's `--version`
    // prints it): Dask workers' runs are stored only when theirs is this
    m.add("MODEL_ID", mptlab_sweep::store::MODEL_ID)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_toml, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(t975, m)?)?;
    m.add_function(wrap_pyfunction!(schemas, m)?)?;
    m.add_function(wrap_pyfunction!(names, m)?)?;
    m.add_class::<SweepJob>()?;
    Ok(())
}
