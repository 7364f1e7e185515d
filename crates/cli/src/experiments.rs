//! The experiment registry, `scenarios/registry/experiments.toml`: every
//! generated scenario file of the seed libraries (seed, id = file stem, sweep
//! axes, the report sections that show it). `mptlab reproduce` runs exactly
//! these experiments, after checking that every listed file exists with the
//! listed sweep axes, that every `seed<seed>/*.toml` is listed, and that every
//! experiment a claim of `docs/claims/claims.toml` names (key `experiments`)
//! is registered. The generators and the report read the same file through
//! `python/mptlab/experiments.py`; the two parsers are strict in the same way
//! (unknown keys, wrong types, duplicates are errors) and their messages name
//! the file, the entry and the key. See docs/report.md, "The experiment
//! registry".

use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The registry's place under the scenario library root.
pub const REGISTRY: &str = "registry/experiments.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    experiment: Vec<Experiment>,
}

/// One generated scenario file, `seed<seed>/<id>.toml` under the library,
/// swept into `DIR/runs/seed<seed>/<id>/`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub seed: String,
    pub id: String,
    /// The file's sweep keys in order of first appearance
    /// (`mptlab_scenario::Sweep::keys`): the axis values the report reads.
    pub axes: Vec<String>,
    /// Report sections / figures that show it (for readers; not matched).
    pub figures: Vec<String>,
}

impl Experiment {
    /// `seed<seed>/<id>`: the name claims, reproduce.json and `DIR/runs` use.
    pub fn key(&self) -> String {
        format!("seed{}/{}", self.seed, self.id)
    }

    pub fn file(&self, library: &Path) -> PathBuf {
        library
            .join(format!("seed{}", self.seed))
            .join(format!("{}.toml", self.id))
    }
}

#[derive(Debug)]
pub struct Registry {
    pub path: PathBuf,
    pub experiments: Vec<Experiment>,
}

/// The part of a claim the registry checks; the rest of the claim is the
/// report's business (docs/claims/README.md).
#[derive(Debug, Deserialize)]
struct ClaimRef {
    id: String,
    #[serde(default)]
    seed: String,
    #[serde(default)]
    experiments: Vec<String>,
    #[serde(default = "yes")]
    verdict_bearing: bool,
    #[serde(default)]
    fidelity: String,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
struct ClaimsFile {
    claim: Vec<ClaimRef>,
}

fn is_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-' || *c == b'.')
}

impl Registry {
    /// Read and validate `path` (types, unknown keys, ids, duplicates).
    pub fn load(path: &Path) -> Result<Registry, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!("{}: experiment registry not found", path.display())
            } else {
                format!("{}: {e}", path.display())
            }
        })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Registry, String> {
        let f: RegistryFile = toml::from_str(text)
            .map_err(|e| format!("{}: {}", path.display(), e.to_string().trim_end()))?;
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (n, x) in f.experiment.iter().enumerate() {
            let where_ = format!("{}: experiment {}", path.display(), x.key());
            if x.seed.len() != 3 || !x.seed.bytes().all(|c| c.is_ascii_digit()) {
                return Err(format!(
                    "{where_}: key `seed`: `{}` is not three digits",
                    x.seed
                ));
            }
            if !is_id(&x.id) {
                return Err(format!(
                    "{where_}: key `id`: `{}` is not a file stem of [a-z0-9.-]",
                    x.id
                ));
            }
            if let Some(first) = seen.insert(x.key(), n + 1) {
                return Err(format!(
                    "{where_}: key `id`: duplicate of [[experiment]] #{first}"
                ));
            }
        }
        if f.experiment.is_empty() {
            return Err(format!(
                "{}: key `experiment`: expected one or more [[experiment]] tables",
                path.display()
            ));
        }
        Ok(Registry {
            path: path.to_path_buf(),
            experiments: f.experiment,
        })
    }

    pub fn of_seed(&self, seed: &str) -> Vec<&Experiment> {
        self.experiments.iter().filter(|x| x.seed == seed).collect()
    }

    /// Every listed file exists and every `seed<seed>/*.toml` of a seed the
    /// registry knows is listed: a renamed file fails one way or the other.
    pub fn check_files(&self, library: &Path) -> Result<(), String> {
        for x in &self.experiments {
            let f = x.file(library);
            if !f.is_file() {
                return Err(format!(
                    "{}: experiment {}: file {} does not exist (a renamed scenario is renamed here, in its \
                     generator and in the claims' `experiments` together)",
                    self.path.display(),
                    x.key(),
                    f.display()
                ));
            }
        }
        let keys: BTreeSet<String> = self.experiments.iter().map(Experiment::key).collect();
        let seeds: BTreeSet<&str> = self.experiments.iter().map(|x| x.seed.as_str()).collect();
        for seed in seeds {
            let dir = library.join(format!("seed{seed}"));
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|e| format!("{}: {e}", dir.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            for f in files {
                let stem = f.file_stem().unwrap_or_default().to_string_lossy();
                if !keys.contains(&format!("seed{seed}/{stem}")) {
                    return Err(format!(
                        "{}: scenario file not in the experiment registry {} (add an [[experiment]] with \
                         seed = \"{seed}\", id = \"{stem}\", or remove the file)",
                        f.display(),
                        self.path.display()
                    ));
                }
            }
        }
        Ok(())
    }

    /// The experiment's listed axes are the planned sweep's keys.
    pub fn check_axes(&self, x: &Experiment, keys: &[String]) -> Result<(), String> {
        if x.axes != keys {
            return Err(format!(
                "{}: experiment {}: key `axes` is {:?}, but the file's sweep has {:?}",
                self.path.display(),
                x.key(),
                x.axes,
                keys
            ));
        }
        Ok(())
    }

    /// Every experiment a claim names is registered, and every claim of a
    /// registered seed that gets a verdict names at least one.
    pub fn check_claims(&self, claims_path: &Path) -> Result<(), String> {
        let text = std::fs::read_to_string(claims_path)
            .map_err(|e| format!("{}: {e}", claims_path.display()))?;
        self.check_claims_text(&text, claims_path)
    }

    pub fn check_claims_text(&self, text: &str, claims_path: &Path) -> Result<(), String> {
        let f: ClaimsFile = toml::from_str(text)
            .map_err(|e| format!("{}: {}", claims_path.display(), e.to_string().trim_end()))?;
        let keys: BTreeSet<String> = self.experiments.iter().map(Experiment::key).collect();
        let seeds: BTreeSet<&str> = self.experiments.iter().map(|x| x.seed.as_str()).collect();
        for c in &f.claim {
            if let Some(k) = c.experiments.iter().find(|k| !keys.contains(*k)) {
                return Err(format!(
                    "{}: claim {}: key `experiments`: `{k}` is not in the experiment registry {}",
                    claims_path.display(),
                    c.id,
                    self.path.display()
                ));
            }
            let judged = c.verdict_bearing && c.fidelity != "not-modelled";
            if judged && c.experiments.is_empty() && seeds.contains(c.seed.as_str()) {
                return Err(format!(
                    "{}: claim {}: key `experiments` is missing or empty: name the experiments its verdict reads",
                    claims_path.display(),
                    c.id
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REG: &str = r#"
[[experiment]]
seed = "003"
id = "hukru"
axes = ["transport.protocol"]
figures = ["HU -> KRU"]
"#;

    fn reg() -> Registry {
        Registry::parse(REG, Path::new("experiments.toml")).unwrap()
    }

    /// A library with one file per name under seed003/.
    fn library(tag: &str, stems: &[&str]) -> crate::scratch::Scratch {
        let d = crate::scratch::Scratch::unmade(&format!("registry-{tag}"));
        std::fs::create_dir_all(d.join("seed003")).unwrap();
        for s in stems {
            std::fs::write(d.join("seed003").join(format!("{s}.toml")), "").unwrap();
        }
        d
    }

    #[test]
    fn renamed_scenario_is_an_error_naming_the_entry_and_the_file() {
        let lib = library("renamed", &["hukru2"]);
        let e = reg().check_files(&lib).unwrap_err();
        assert!(
            e.starts_with("experiments.toml: experiment seed003/hukru: file "),
            "{e}"
        );
        assert!(e.contains("hukru.toml does not exist"), "{e}");
        // the entry renamed too but the old file left behind: the stray file is named
        let lib = library("stray", &["hukru", "hukru-old"]);
        let e = reg().check_files(&lib).unwrap_err();
        assert!(
            e.contains("hukru-old.toml: scenario file not in the experiment registry"),
            "{e}"
        );
        let lib = library("ok", &["hukru"]);
        reg().check_files(&lib).unwrap();
        let _ = std::fs::remove_dir_all(&lib);
    }

    #[test]
    fn claim_naming_an_unknown_experiment_is_an_error() {
        let c = "[[claim]]\nid = \"s003-x\"\nseed = \"003\"\nexperiments = [\"seed003/hukru\", \"seed003/kuhig\"]\n";
        let e = reg()
            .check_claims_text(c, Path::new("claims.toml"))
            .unwrap_err();
        assert_eq!(
            e,
            "claims.toml: claim s003-x: key `experiments`: `seed003/kuhig` is not in the experiment \
             registry experiments.toml"
        );
        // a claim that gets a verdict must name what it reads; a method entry need not
        let c = "[[claim]]\nid = \"s003-y\"\nseed = \"003\"\n";
        let e = reg()
            .check_claims_text(c, Path::new("claims.toml"))
            .unwrap_err();
        assert!(
            e.contains("claim s003-y: key `experiments` is missing"),
            "{e}"
        );
        let c = "[[claim]]\nid = \"s003-m\"\nseed = \"003\"\nverdict_bearing = false\n";
        reg()
            .check_claims_text(c, Path::new("claims.toml"))
            .unwrap();
    }

    #[test]
    fn bad_registry_entries_name_the_key() {
        let p = Path::new("experiments.toml");
        let e = Registry::parse(&format!("{REG}{REG}"), p).unwrap_err();
        assert!(
            e.contains("experiment seed003/hukru: key `id`: duplicate of [[experiment]] #1"),
            "{e}"
        );
        let e = Registry::parse(&REG.replace("figures", "figure"), p).unwrap_err();
        assert!(e.contains("unknown field `figure`"), "{e}");
        let e = Registry::parse(&REG.replace("\"003\"", "\"3\""), p).unwrap_err();
        assert!(e.contains("key `seed`: `3` is not three digits"), "{e}");
        let e = Registry::parse(&REG.replace("hukru", "Hu Kru"), p).unwrap_err();
        assert!(e.contains("key `id`"), "{e}");
        let x = &reg().experiments[0];
        let e = reg()
            .check_axes(x, &["transport.cc".to_string()])
            .unwrap_err();
        assert!(e.contains("experiment seed003/hukru: key `axes`"), "{e}");
    }
}
