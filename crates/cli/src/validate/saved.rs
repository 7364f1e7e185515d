//! Saved kernel results of `mptlab validate`, so the simulator side can be
//! re-run against them (`--kernel-from DIR`) without repeating an hour of
//! real-time emulation after a model change.
//!
//! With `-o DIR`, every scenario's kernel runs are written to
//! `DIR/kernel/<name>.json` as soon as they finish: the per-run summary
//! metrics (everything the comparison reads), the run seeds, the scenario's
//! effective TOML and a hash of its kernel-relevant settings. Reusing them
//! refuses when the current scenario file's kernel-relevant settings, seed or
//! run seeds differ: a kernel result belongs to the links, transport and
//! traffic it was measured with, not to the simulator's model of them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mptlab_results::RunOutput;
use mptlab_scenario::Scenario;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Format tag of the saved files.
pub const FORMAT: &str = "mptlab-validate-kernel/1";

/// One saved run: what [`super::values`] and `Unfinished::of` read.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SavedRun {
    pub run: u32,
    pub seed: u64,
    pub summary: BTreeMap<String, Json>,
}

/// One scenario's saved kernel runs.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SavedScenario {
    pub format: String,
    /// The scenario name without `validate-` (the file name below `kernel/`).
    pub scenario: String,
    pub origin: String,
    pub seed: u64,
    /// FNV-1a 64 of [`kernel_settings`], hex.
    pub kernel_hash: String,
    /// The effective scenario document the kernel ran, for reference.
    pub effective_toml: String,
    /// `uname -r` of the machine, when known.
    pub kernel_release: String,
    /// The kernel's CONFIG_HZ (`crate::kernel_hz::host`), when known; absent
    /// in files written before it was recorded. Re-judging runs the
    /// simulator side at this `transport.hz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_hz: Option<u32>,
    pub runs: Vec<SavedRun>,
}

/// The scenario document as TOML without the keys that do not change what
/// the kernel is asked to do: `scenario.runs` (the simulator side may run
/// more), `scenario.description`, the `[output]` table,
/// `traffic.client_hello_bytes` (simulator only) and `transport.hz` (the
/// kernel has its own CONFIG_HZ). Keys are sorted
/// (toml's map is ordered by key without the preserve_order feature, and the
/// serialization below sorts explicitly anyway through a BTreeMap).
pub fn kernel_settings(s: &Scenario) -> Result<String, String> {
    let mut doc: toml::Table = toml::from_str(&s.effective_toml)
        .map_err(|e| format!("{}: effective TOML: {e}", s.origin))?;
    if let Some(toml::Value::Table(meta)) = doc.get_mut("scenario") {
        meta.remove("runs");
        meta.remove("description");
    }
    doc.remove("output");
    // CONFIG_HZ is the kernel's own, fixed when it was built, and its
    // jiffy's phase is wherever the run started: the emulator ignores
    // `transport.hz` and `transport.hz_phase_us` (the simulator side takes
    // the kernel's)
    if let Some(toml::Value::Table(t)) = doc.get_mut("transport") {
        t.remove("hz");
        t.remove("hz_phase_us");
    }
    // what the simulated client writes first; the emulator's agent always
    // writes its own 16-byte hello
    if let Some(toml::Value::Table(t)) = doc.get_mut("traffic") {
        t.remove("client_hello_bytes");
    }
    // sorted by key at every level, independent of the toml map type
    fn sorted(v: &toml::Value) -> serde_json::Value {
        match v {
            toml::Value::Table(t) => serde_json::Value::Object(
                t.iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect::<BTreeMap<_, _>>()
                    .into_iter()
                    .collect(),
            ),
            toml::Value::Array(a) => serde_json::Value::Array(a.iter().map(sorted).collect()),
            other => serde_json::Value::String(other.to_string()),
        }
    }
    Ok(sorted(&toml::Value::Table(doc)).to_string())
}

/// FNV-1a 64 (a fixed, dependency-free hash: the value is stored in files
/// and must not change between builds, unlike `std`'s `DefaultHasher`).
pub fn fnv1a64(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in b {
        h ^= u64::from(*x);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub fn kernel_hash(s: &Scenario) -> Result<String, String> {
    Ok(format!("{:016x}", fnv1a64(kernel_settings(s)?.as_bytes())))
}

/// `uname -r` of this machine, empty when unknown (also the key of
/// `reproduce --kernel` stores, reproduce/kernel.rs `made_by`).
pub(crate) fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

pub fn path(dir: &Path, name: &str) -> PathBuf {
    dir.join("kernel").join(format!("{name}.json"))
}

/// Write one scenario's kernel runs to `dir/kernel/<name>.json` (atomically).
pub fn save(dir: &Path, name: &str, s: &Scenario, runs: &[RunOutput]) -> Result<(), String> {
    save_to(&path(dir, name), name, s, runs)
}

/// Write one scenario's kernel runs to the file `p` (atomically); `--decisions`
/// keeps them beside its kernel captures.
pub fn save_to(p: &Path, name: &str, s: &Scenario, runs: &[RunOutput]) -> Result<(), String> {
    let saved = SavedScenario {
        format: FORMAT.into(),
        scenario: name.into(),
        origin: s.origin.clone(),
        seed: s.meta.seed,
        kernel_hash: kernel_hash(s)?,
        effective_toml: s.effective_toml.clone(),
        kernel_release: kernel_release(),
        kernel_hz: crate::kernel_hz::host().ok().map(|(hz, _)| hz),
        runs: runs
            .iter()
            .map(|r| SavedRun {
                run: r.run,
                seed: r.seed,
                summary: r.summary.clone(),
            })
            .collect(),
    };
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(p.parent().expect("kernel/ has a parent"))?;
        let tmp = p.with_extension("json.partial");
        let text = serde_json::to_string_pretty(&saved).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, p)
    };
    write().map_err(|e| format!("{}: {e}", p.display()))
}

/// The CONFIG_HZ a saved file `p` records (`None`: not recorded, or no
/// readable file; [`load_from`] reports the latter).
pub fn recorded_hz(p: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(p).ok()?;
    serde_json::from_str::<SavedScenario>(&text).ok()?.kernel_hz
}

/// Load `dir/kernel/<name>.json` for scenario `s` and check that it belongs
/// to it: same format, seed and kernel-relevant settings. Returns the runs as
/// [`RunOutput`]s (summary only; no tables).
pub fn load(dir: &Path, name: &str, s: &Scenario) -> Result<Vec<RunOutput>, String> {
    load_from(&path(dir, name), name, s)
}

/// [`load`] from the file `p`.
pub fn load_from(p: &Path, name: &str, s: &Scenario) -> Result<Vec<RunOutput>, String> {
    let text = std::fs::read_to_string(p).map_err(|e| {
        format!(
            "{}: no saved kernel results for scenario {name} ({e}); run `mptlab validate -o DIR` \
             with this scenario first",
            p.display()
        )
    })?;
    let saved: SavedScenario =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    if saved.format != FORMAT {
        return Err(format!(
            "{}: format \"{}\", expected \"{FORMAT}\"",
            p.display(),
            saved.format
        ));
    }
    if saved.seed != s.meta.seed {
        return Err(format!(
            "{}: kernel results were measured with scenario.seed = {}, {} now has {}; \
             re-run the kernel side",
            p.display(),
            saved.seed,
            s.origin,
            s.meta.seed
        ));
    }
    let now = kernel_hash(s)?;
    if saved.kernel_hash != now {
        return Err(format!(
            "{}: kernel results were measured with other settings than {} has now \
             (kernel-relevant hash {} saved, {now} now; the saved effective TOML is in the \
             file); re-run the kernel side",
            p.display(),
            s.origin,
            saved.kernel_hash
        ));
    }
    if saved.runs.is_empty() {
        return Err(format!("{}: no runs", p.display()));
    }
    let mut out = Vec::new();
    for r in saved.runs {
        let want = mptlab_scenario::run_seed(s.meta.seed, r.run);
        if r.seed != want {
            return Err(format!(
                "{}: run {} has seed {}, the scenario's run {} has seed {want}",
                p.display(),
                r.run,
                r.seed,
                r.run
            ));
        }
        let mut o = RunOutput::new(r.run, r.seed);
        o.summary = r.summary;
        out.push(o);
    }
    Ok(out)
}
