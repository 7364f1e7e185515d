//! `[sweep]`: parameter axes and explicit points over a base scenario.
//!
//! ```toml
//! [sweep]
//! "transport.protocol" = ["tcp", "cmt-sctp"]   # an axis: dotted key -> values
//! "transport.path" = [1, 2]
//! runs = 30                                     # optional, overrides scenario.runs
//! [[sweep.point]]                               # optional explicit points
//! "transport.protocol" = "mptcp"
//! ```
//! The grid is the cartesian product of the axes (first axis outermost);
//! explicit points (for non-rectangular designs such as "TCP on each path,
//! and CMT-SCTP") are crossed with it, points outermost. Each point is the base
//! document with `--set` overrides, then the point's values, then the run
//! count applied (the same machinery as `--set`), and is validated like a
//! scenario. Errors name the file, the sweep key and the value.

use crate::error::{ErrorKind, ScenarioError};
use crate::limits::{MAX_SWEEP_POINTS, MAX_SWEEP_RUNS};
use crate::locate::{line_col, KeyIndex};
use crate::overrides::Override;
use crate::Scenario;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One point of the sweep, validated.
#[derive(Clone, Debug)]
pub struct SweepPoint {
    /// 0-based position in the sweep (grid first, then explicit points).
    pub index: usize,
    /// Stable id: 12 hex digits of a hash of the canonical overrides (sorted
    /// `key=value` lines), so it does not depend on axis or point order.
    pub id: String,
    /// Readable label, e.g. `protocol=tcp,path=1`.
    pub label: String,
    /// The point's values, in axis order.
    pub values: Vec<(String, toml::Value)>,
    pub scenario: Scenario,
}

/// A planned sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub origin: String,
    /// Every swept key, in order of first appearance (axes, then keys only
    /// explicit points set); one result column each.
    pub keys: Vec<String>,
    pub points: Vec<SweepPoint>,
    /// Runs per point.
    pub runs: u32,
    /// Whether the file had a `[sweep]` table at all (else: one point, the base).
    pub has_sweep: bool,
}

impl Sweep {
    /// Read a scenario file with a `[sweep]` table and plan every point.
    /// `set` applies to the base document before the points' values; `runs`
    /// (the `--runs` option) wins over `sweep.runs` and `scenario.runs`.
    pub fn from_file(
        path: impl AsRef<Path>,
        set: &[Override],
        runs: Option<u32>,
    ) -> Result<Sweep, ScenarioError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            let what = if e.kind() == std::io::ErrorKind::NotFound {
                "file not found".to_string()
            } else {
                e.to_string()
            };
            ScenarioError::new(
                ErrorKind::Io,
                &origin,
                format!("cannot read scenario: {what}"),
            )
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::plan(&text, &origin, base, set, runs)
    }

    /// `from_file` on text; relative paths resolve against the current directory.
    pub fn from_str(
        text: &str,
        origin: &str,
        set: &[Override],
        runs: Option<u32>,
    ) -> Result<Sweep, ScenarioError> {
        Self::plan(text, origin, PathBuf::new(), set, runs)
    }

    fn plan(
        text: &str,
        origin: &str,
        base_dir: PathBuf,
        set: &[Override],
        runs: Option<u32>,
    ) -> Result<Sweep, ScenarioError> {
        let doc: toml::Table = match toml::from_str(text) {
            Ok(d) => d,
            // let the scenario parser report the syntax error, located
            Err(_) => return Err(Scenario::parse(text, origin, base_dir, set).unwrap_err()),
        };
        let index = KeyIndex::new(text);
        let at = |key: &str, msg: String| {
            let mut e = ScenarioError::new(ErrorKind::Invalid, origin, msg);
            e.key = Some(key.to_string());
            if let Some(s) = index.as_ref().and_then(|i| i.span_of(key)) {
                let (l, c, src) = line_col(text, s.start);
                (e.line, e.column, e.source_line) = (Some(l), Some(c), Some(src));
            }
            e
        };
        let spec = match doc.get("sweep") {
            None => None,
            Some(toml::Value::Table(t)) => Some(t),
            Some(v) => {
                return Err(at(
                    "sweep",
                    format!("expected a table, found a {}", v.type_str()),
                ))
            }
        };
        let mut axes: Vec<(String, Vec<toml::Value>)> = Vec::new();
        let mut explicit: Vec<Vec<(String, toml::Value)>> = Vec::new();
        let mut sweep_runs = None;
        if let Some(spec) = spec {
            for (k, v) in spec {
                match (k.as_str(), v) {
                    ("runs", toml::Value::Integer(n)) if *n >= 1 && *n <= u32::MAX as i64 => {
                        sweep_runs = Some(*n as u32)
                    }
                    ("runs", v) => {
                        return Err(at(
                            "sweep.runs",
                            format!("expected a number of runs >= 1, found {v}"),
                        ))
                    }
                    ("point", toml::Value::Array(pts)) => {
                        for (i, p) in pts.iter().enumerate() {
                            let key = format!("sweep.point[{i}]");
                            let toml::Value::Table(t) = p else {
                                return Err(at(
                                    &key,
                                    format!("expected a table of key = value, found {p}"),
                                ));
                            };
                            let mut vals = Vec::new();
                            flatten(t, "", &mut vals);
                            if vals.is_empty() {
                                return Err(at(&key, "expected at least one key = value".into()));
                            }
                            explicit.push(vals);
                        }
                    }
                    ("point", v) => {
                        return Err(at(
                            "sweep.point",
                            format!("expected [[sweep.point]] tables, found {v}"),
                        ))
                    }
                    _ => {
                        // an axis, written quoted ("transport.cc") or as nested tables
                        let mut leaves = Vec::new();
                        match v {
                            toml::Value::Table(t) => flatten(t, k, &mut leaves),
                            _ => leaves.push((k.clone(), v.clone())),
                        }
                        for (key, vals) in leaves {
                            let toml::Value::Array(vals) = vals else {
                                return Err(at(
                                    &format!("sweep.{key}"),
                                    format!(
                                        "expected a list of values for axis `{key}`, found {vals}"
                                    ),
                                ));
                            };
                            if vals.is_empty() {
                                return Err(at(
                                    &format!("sweep.{key}"),
                                    format!("axis `{key}` has no values"),
                                ));
                            }
                            if key == "scenario.runs" {
                                return Err(at(
                                    &format!("sweep.{key}"),
                                    "the number of runs cannot be an axis; use sweep.runs".into(),
                                ));
                            }
                            axes.push((key, vals));
                        }
                    }
                }
            }
        }
        // toml::Table is sorted by key: restore the file's order
        let pos = |key: &str| {
            index
                .as_ref()
                .and_then(|i| i.span_of(key))
                .map_or(usize::MAX, |s| s.start)
        };
        axes.sort_by_key(|(k, _)| pos(&format!("sweep.{k}")));
        for (i, vals) in explicit.iter_mut().enumerate() {
            vals.sort_by_key(|(k, _)| pos(&format!("sweep.point[{i}].{k}")));
        }
        // bound the grid before building it (a 3e9-point grid must be an
        // error, not an allocation failure)
        let size = axes
            .iter()
            .try_fold(1u64, |n, (_, v)| n.checked_mul(v.len() as u64))
            .and_then(|n| n.checked_mul(explicit.len().max(1) as u64));
        if size.is_none_or(|n| n > MAX_SWEEP_POINTS) {
            let dims: Vec<String> = axes
                .iter()
                .map(|(k, v)| format!("{k}: {}", v.len()))
                .chain((!explicit.is_empty()).then(|| format!("points: {}", explicit.len())))
                .collect();
            return Err(at(
                "sweep",
                format!(
                    "expected at most {MAX_SWEEP_POINTS} sweep points (docs/scenario.md, limits), found {} ({})",
                    size.map_or("more than 2^64".to_string(), |n| n.to_string()),
                    dims.join(" x ")
                ),
            ));
        }
        // grid, first axis outermost
        let mut rows: Vec<Vec<(String, toml::Value)>> = vec![Vec::new()];
        if !axes.is_empty() {
            for (k, vals) in &axes {
                rows = rows
                    .into_iter()
                    .flat_map(|r| {
                        vals.iter().map(move |v| {
                            let mut r = r.clone();
                            r.push((k.clone(), v.clone()));
                            r
                        })
                    })
                    .collect();
            }
        }
        if !explicit.is_empty() {
            // points x grid: each explicit point with every grid cell
            for (i, pt) in explicit.iter().enumerate() {
                if let Some((k, _)) = pt.iter().find(|(k, _)| axes.iter().any(|(a, _)| a == k)) {
                    return Err(at(
                        &format!("sweep.point[{i}].{k}"),
                        format!("`{k}` is both an axis and set by a [[sweep.point]]; use one or the other"),
                    ));
                }
            }
            rows = explicit
                .iter()
                .flat_map(|pt| {
                    rows.iter().map(move |r| {
                        let mut v = pt.clone();
                        v.extend(r.iter().cloned());
                        v
                    })
                })
                .collect();
        }
        let mut keys: Vec<String> = Vec::new();
        for r in &rows {
            for (k, _) in r {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
        let names = short_names(&keys);
        let runs_value = runs.or(sweep_runs);
        let mut files = crate::files::Files::default();
        let base_doc = doc.clone();
        if spec.is_some() {
            // the base document alone is what `mptlab run` of this file runs:
            // it must be valid too, even where every point overrides it
            Scenario::parse_doc(
                text,
                base_doc.clone(),
                origin,
                base_dir.clone(),
                set,
                &mut files,
            )
            .map_err(|mut e| {
                e.message = format!(
                    "{} (in the base scenario, without [sweep] values: what `mptlab run` runs)",
                    e.message
                );
                e
            })?;
        }
        let mut points: Vec<SweepPoint> = Vec::with_capacity(rows.len());
        let mut ids: HashMap<String, usize> = HashMap::with_capacity(rows.len());
        for (i, vals) in rows.into_iter().enumerate() {
            let id = point_id(&vals);
            if let Some(&j) = ids.get(&id) {
                let p = &points[j];
                return Err(at(
                    "sweep",
                    format!(
                        "points {} and {i} set the same values (`{}`)",
                        p.index, p.label
                    ),
                ));
            }
            ids.insert(id.clone(), i);
            let label = if vals.is_empty() {
                "base".to_string()
            } else {
                vals.iter()
                    .map(|(k, v)| {
                        format!(
                            "{}={}",
                            names[keys.iter().position(|x| x == k).unwrap()],
                            display_value(v)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let mut ov: Vec<Override> = set.to_vec();
            ov.extend(vals.iter().map(|(k, v)| Override {
                key: k.clone(),
                value: v.to_string(),
            }));
            if let Some(n) = runs_value {
                ov.push(Override {
                    key: "scenario.runs".into(),
                    value: n.to_string(),
                });
            }
            let scenario = Scenario::parse_doc(
                text,
                base_doc.clone(),
                origin,
                base_dir.clone(),
                &ov,
                &mut files,
            )
            .map_err(|mut e| {
                // blame the sweep value that caused it, if any
                let culprit = e.key.as_ref().and_then(|ek| {
                    vals.iter().rev().find(|(k, _)| {
                        ek == k
                            || ek.starts_with(&format!("{k}."))
                            || k.starts_with(&format!("{ek}."))
                    })
                });
                if let Some((k, v)) = culprit {
                    e.from_override = None;
                    let loc = at(&format!("sweep.{k}"), String::new());
                    (e.line, e.column, e.source_line) = (loc.line, loc.column, loc.source_line);
                    e.message = format!("{} (sweep value {k} = {v}, point `{label}`)", e.message);
                } else if !vals.is_empty() {
                    e.message = format!("{} (sweep point `{label}`)", e.message);
                }
                e
            })?;
            points.push(SweepPoint {
                index: i,
                id,
                label,
                values: vals,
                scenario,
            });
        }
        // a profile no point's links reach (module `unused`)
        let mut used = std::collections::BTreeSet::new();
        let mut defined = std::collections::BTreeSet::new();
        for p in &points {
            used.extend(p.scenario.profiles_used.iter().cloned());
            defined.extend(p.scenario.file.profile.keys().cloned());
        }
        let unused = crate::unused::unused(&defined, &used);
        if !unused.is_empty() {
            let scope = if spec.is_some() {
                "link of any sweep point"
            } else {
                "link"
            };
            let key = format!("profile.{}", unused[0]);
            let mut e = at(&key, crate::unused::message(&unused, &used, scope));
            if let Some(o) = set
                .iter()
                .find(|o| o.key == key || o.key.starts_with(&format!("{key}.")))
            {
                e.from_override = Some(o.to_string());
            }
            return Err(e);
        }
        let runs = points[0].scenario.meta.runs;
        let total = points.len() as u64 * runs as u64;
        if total > MAX_SWEEP_RUNS {
            return Err(at(
                if runs_value.is_some() { "sweep.runs" } else { "scenario.runs" },
                format!(
                    "expected at most {MAX_SWEEP_RUNS} runs in a sweep (docs/scenario.md, limits), found {} points x {runs} runs = {total}",
                    points.len()
                ),
            ));
        }
        Ok(Sweep {
            origin: origin.to_string(),
            keys,
            points,
            runs,
            has_sweep: spec.is_some(),
        })
    }
}

/// Whether the file at `path` parses as TOML with a top-level `sweep` key
/// (false when it cannot be read or parsed: the scenario parser reports that).
pub fn file_has_sweep(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .is_some_and(|d| d.contains_key("sweep"))
}

/// Nested tables -> dotted keys (`transport = { cc = [..] }` is `transport.cc`).
fn flatten(t: &toml::Table, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(t) => flatten(t, &key, out),
            _ => out.push((key, v.clone())),
        }
    }
}

/// Shortest dotted suffix of each key that is unique among `keys`
/// (`transport.path` -> `path`, unless another key also ends in `.path`).
fn short_names(keys: &[String]) -> Vec<String> {
    keys.iter()
        .map(|k| {
            let parts: Vec<&str> = k.split('.').collect();
            for n in 1..=parts.len() {
                let suffix = parts[parts.len() - n..].join(".");
                let clash = keys
                    .iter()
                    .filter(|o| *o == k || o.ends_with(&format!(".{suffix}")) || **o == suffix)
                    .count();
                if clash <= 1 {
                    return suffix;
                }
            }
            k.clone()
        })
        .collect()
}

/// A value as a label shows it: strings bare, everything else as TOML.
pub fn display_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(a) => format!(
            "[{}]",
            a.iter().map(display_value).collect::<Vec<_>>().join(",")
        ),
        v => v.to_string(),
    }
}

/// 12 hex digits of FNV-1a over the sorted `key=value` lines.
pub fn point_id(vals: &[(String, toml::Value)]) -> String {
    let mut lines: Vec<String> = vals.iter().map(|(k, v)| format!("{k}={v}")).collect();
    lines.sort();
    format!("{:012x}", fnv1a(lines.join("\n").as_bytes()) >> 16)
}

/// FNV-1a, 64 bit: a stable hash (std's hasher may change between releases).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[scenario]\nname = \"t\"\nduration_s = 5\nruns = 3\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n";

    fn plan(extra: &str) -> Result<Sweep, ScenarioError> {
        Sweep::from_str(&format!("{BASE}{extra}"), "s.toml", &[], None)
    }

    #[test]
    fn grid_is_cartesian_first_axis_outermost() {
        let s = plan("[sweep]\n\"transport.path\" = [1, 2]\n\"transport.cc\" = [\"newreno\", \"cubic\"]\nruns = 4\n").unwrap();
        let labels: Vec<&str> = s.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "path=1,cc=newreno",
                "path=1,cc=cubic",
                "path=2,cc=newreno",
                "path=2,cc=cubic"
            ]
        );
        assert_eq!(s.keys, ["transport.path", "transport.cc"]);
        assert_eq!(s.runs, 4);
        assert!(s.points.iter().all(|p| p.scenario.meta.runs == 4));
        assert_eq!(s.points[3].scenario.transport.path, 2);
        assert_eq!(s.points[3].scenario.transport.cc.to_string(), "cubic");
        // --runs wins over sweep.runs
        let s = Sweep::from_str(
            &format!("{BASE}[sweep]\nruns = 4\n\"transport.path\" = [1]\n"),
            "s.toml",
            &[],
            Some(2),
        )
        .unwrap();
        assert_eq!(s.runs, 2);
    }

    #[test]
    fn ids_are_stable_and_order_independent() {
        let a = plan(
            "[sweep]\n\"transport.cc\" = [\"newreno\", \"cubic\"]\n\"transport.path\" = [1, 2]\n",
        )
        .unwrap();
        let b =
            plan("[sweep]\n\"transport.path\" = [2, 1]\ntransport.cc = [\"cubic\", \"newreno\"]\n")
                .unwrap();
        let mut ia: Vec<&str> = a.points.iter().map(|p| p.id.as_str()).collect();
        let mut ib: Vec<&str> = b.points.iter().map(|p| p.id.as_str()).collect();
        // pinned: a changed hash would orphan every persisted sweep
        assert_eq!(
            point_id(&[("transport.path".into(), toml::Value::Integer(1))]),
            "c5561b8439f4"
        );
        ia.sort();
        ib.sort();
        assert_eq!(ia, ib);
        assert!(ia.windows(2).all(|w| w[0] != w[1]));
    }

    #[test]
    fn explicit_points_follow_the_grid() {
        let s = plan("[[sweep.point]]\n\"transport.path\" = 1\n[[sweep.point]]\n\"transport.path\" = 2\n\"transport.cc\" = \"newreno\"\n").unwrap();
        assert_eq!(s.points.len(), 2);
        assert_eq!(s.keys, ["transport.path", "transport.cc"]);
        assert_eq!(s.points[1].label, "path=2,cc=newreno");
        let s = plan("[sweep]\n\"transport.path\" = [1, 2]\n[[sweep.point]]\n\"transport.cc\" = \"newreno\"\n[[sweep.point]]\n\"transport.cc\" = \"cubic\"\n").unwrap();
        let labels: Vec<&str> = s.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "cc=newreno,path=1",
                "cc=newreno,path=2",
                "cc=cubic,path=1",
                "cc=cubic,path=2"
            ]
        );
        let e =
            plan("[sweep]\n\"transport.path\" = [1, 2]\n[[sweep.point]]\n\"transport.path\" = 1\n")
                .unwrap_err();
        assert!(e.to_string().contains("both an axis"), "{e}");
        // no [sweep]: the base scenario is the only point
        let s = plan("").unwrap();
        assert_eq!(
            (s.points.len(), s.points[0].label.as_str(), s.has_sweep),
            (1, "base", false)
        );
    }

    #[test]
    fn axis_errors_name_file_key_and_value() {
        let e = plan("[sweep]\n\"transport.path\" = [1, 3]\n").unwrap_err();
        let m = e.to_string();
        assert_eq!(e.line, Some(13), "{m}");
        assert!(m.starts_with("s.toml:13:20: key `transport.path`"), "{m}");
        assert!(m.contains("transport.path = 3"), "{m}");
        let e = plan("[sweep]\n\"transport.cc\" = \"cubic\"\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("expected a list of values for axis `transport.cc`"),
            "{e}"
        );
        let e = plan("[sweep]\n\"transport.cc\" = []\n").unwrap_err();
        assert!(e.to_string().contains("has no values"), "{e}");
        let e = plan("[sweep]\n\"transport.colour\" = [1]\n").unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let e = plan("[sweep]\nruns = 0\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("sweep.runs"));
        let e = plan("[sweep]\n\"transport.path\" = [1, 1]\n").unwrap_err();
        assert!(e.to_string().contains("same values"), "{e}");
    }

    #[test]
    fn short_names_disambiguate() {
        let k = |v: &[&str]| short_names(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(k(&["transport.path", "transport.cc"]), ["path", "cc"]);
        assert_eq!(
            k(&["profile.wlan.delay_ms", "profile.3g.delay_ms"]),
            ["wlan.delay_ms", "3g.delay_ms"]
        );
    }
}
