//! mptlab-scenario: the scenario file format (TOML), its validation, and the
//! registries of names it accepts.
//!
//! ```text
//! text --toml--> [overrides applied] --serde--> ScenarioFile --validate--> Scenario
//! ```
//! Every error is a [`ScenarioError`] naming the file, line, column and dotted
//! key. The crate never samples: `[lo, hi]` values stay [`Range`]s and the
//! simulator draws them with its own seeded RNG.

// Errors are cold and carry the location and source line for the user.
#![allow(clippy::result_large_err)]

mod error;
pub mod files;
mod inputs;
pub mod limits;
mod locate;
pub mod msgsize;
mod overrides;
pub mod population;
pub mod profiles;
pub mod registry;
pub mod suggest;
pub mod sweep;
pub mod types;
mod unused;
mod validate;
pub mod value;

pub use error::{ErrorKind, ScenarioError};
pub use overrides::{apply_override, Override};
pub use registry::*;
pub use sweep::{Sweep, SweepPoint};
pub use types::*;
pub use value::Range;

use locate::{line_col, KeyIndex};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

/// A validated scenario with every link profile resolved.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Where it came from (file path or the name given to `from_str`).
    pub origin: String,
    /// Directory relative paths (traces) are resolved against.
    pub base_dir: PathBuf,
    /// The effective document (after `--set` overrides) as TOML, for
    /// reproducibility (the CLI stores it next to the results).
    pub effective_toml: String,
    /// The document as written (after overrides).
    pub file: ScenarioFile,
    pub meta: Meta,
    pub topology: Topology,
    pub transport: Transport,
    pub traffic: Traffic,
    pub background: Background,
    pub output: Output,
    /// The clients of `topology.preset = "clients"` (`[population]`).
    pub population: Option<population::Population>,
    /// Every profile name (the file's and built-in) that a link reaches,
    /// directly or as a base; a file's `[profile.X]` outside it is refused
    /// (module `unused`).
    pub profiles_used: std::collections::BTreeSet<String>,
}

/// Resolved topology.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    Preset {
        preset: TopologyPreset,
        /// Client access paths 1, 2, ... (index 0 is path 1).
        paths: Vec<AccessPath>,
        /// Shared link between the router and the server.
        server_link: Link,
    },
    Explicit {
        client: String,
        server: String,
        nodes: Vec<Node>,
        links: Vec<ExplicitLink>,
    },
}

impl Topology {
    /// Number of client access paths (preset paths, or client addresses).
    pub fn num_paths(&self) -> usize {
        match self {
            Topology::Preset { paths, .. } => paths.len(),
            Topology::Explicit { client, nodes, .. } => nodes
                .iter()
                .find(|n| &n.name == client)
                .map_or(0, |n| n.addresses.len()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AccessPath {
    /// Profile name as written in `topology.paths`.
    pub profile: String,
    pub link: Link,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub addresses: Vec<Ipv4Addr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExplicitLink {
    pub a: String,
    pub b: String,
    /// `up` is a -> b, `down` is b -> a.
    pub link: Link,
}

/// A bidirectional link; `up` = client -> server, `down` = server -> client.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub up: LinkDir,
    pub down: LinkDir,
}

/// One direction of a link, fully resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDir {
    /// Bottleneck rate; `None` when a trace gives the delivery opportunities.
    pub rate_mbit: Option<Range>,
    /// Mahimahi trace file (absolute or relative to `base_dir`), overrides the rate.
    pub trace: Option<PathBuf>,
    /// One-way propagation delay.
    pub delay_ms: Range,
    pub queue: QueueLimit,
    pub loss: LossModel,
    pub outages: Vec<Outage>,
}

/// Drop-tail queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// Default queue when neither queue_packets nor queue_bytes is given.
pub const DEFAULT_QUEUE_PACKETS: u32 = 100;

/// The foreground application, typed per model.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    pub model: TrafficModel,
    pub direction: Direction,
    pub start_s: f64,
    /// Stop generating at this time (default: end of the run).
    pub stop_s: Option<f64>,
    /// Application-level failover of a `bulk` TCP transfer (seed 004 sec. 4.4).
    pub failover: Option<Failover>,
    /// Message models over TCP/MPTCP: bytes the simulated client writes
    /// first, once connected (0: none). The emulator's agent always writes
    /// its 16-byte hello (docs/emulation.md).
    pub client_hello_bytes: u64,
}

/// An application that notices its connection stalled (nothing delivered for
/// `after_s`) and continues on a new TCP connection over another client path,
/// as seed 004's FTP client did when the WiFi access point went down.
#[derive(Clone, Debug, PartialEq)]
pub struct Failover {
    /// 1-based client path of the new connection.
    pub path: u32,
    /// Stall time before the application reconnects (s).
    pub after_s: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TrafficModel {
    Video {
        bitrate_kbit: f64,
        fps: f64,
    },
    Gaming {
        trace: GamingTrace,
    },
    Web {
        page: WebPage,
        max_connections: u32,
    },
    File {
        size_bytes: u64,
    },
    /// `count` bursts of `size_bytes`, one every `interval_s` (seed 001).
    Bursts {
        count: u32,
        size_bytes: u64,
        interval_s: f64,
    },
    Bulk,
}

#[derive(Clone, Debug, PartialEq)]
pub enum GamingTrace {
    /// One of [`registry::GAMING_TRACES`].
    Builtin(String),
    /// A dit_g / CSV trace file.
    File(PathBuf),
}

#[derive(Clone, Debug, PartialEq)]
pub enum WebPage {
    /// One of [`registry::WEB_SITES`].
    Site(String),
    Objects(Vec<u64>),
}

/// Seed of run `run` of a scenario with base seed `seed` (SplitMix64 mix, so
/// neighbouring runs get unrelated seeds).
pub fn run_seed(seed: u64, run: u32) -> u64 {
    mix(seed ^ mix(run as u64 ^ 0x6d70_746c_6162_0000))
}

/// SplitMix64's finaliser: a well-mixed 64-bit value from any input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Scenario {
    /// Read, parse and validate a scenario file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        Self::from_file_with_overrides(path, &[])
    }

    /// THE validation of a scenario file, used by every command that runs
    /// one (`run`, `emulate`, the Python API): the file as a whole, so a
    /// file `check` refuses is refused here too. With a `[sweep]` table its
    /// base document and every point are validated ([`Sweep::from_file`]);
    /// the result is the base scenario (the document without `[sweep]`).
    pub fn load(path: impl AsRef<Path>, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        if sweep::file_has_sweep(path) {
            Sweep::from_file(path, overrides, None)?;
        }
        Self::from_file_with_overrides(path, overrides)
    }

    /// Read a file, apply `--set` overrides, parse and validate.
    pub fn from_file_with_overrides(
        path: impl AsRef<Path>,
        overrides: &[Override],
    ) -> Result<Scenario, ScenarioError> {
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
        Self::parse(&text, &origin, base, overrides)
    }

    /// Parse and validate scenario text; `origin` names it in errors.
    /// Relative paths resolve against the current directory.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, origin, PathBuf::new(), &[])
    }

    /// `from_str` with overrides.
    pub fn from_str_with_overrides(
        text: &str,
        origin: &str,
        overrides: &[Override],
    ) -> Result<Scenario, ScenarioError> {
        Self::parse(text, origin, PathBuf::new(), overrides)
    }

    /// Parse and validate scenario text whose relative paths (traces)
    /// resolve against `base_dir` (a point's effective TOML on a Dask worker).
    pub fn from_str_in(
        text: &str,
        origin: &str,
        base_dir: PathBuf,
    ) -> Result<Scenario, ScenarioError> {
        Self::parse(text, origin, base_dir, &[])
    }

    /// Seed of run `run` (0-based).
    pub fn run_seed(&self, run: u32) -> u64 {
        run_seed(self.meta.seed, run)
    }

    /// The client path (1-based) of the foreground flow in the run with
    /// seed `run_seed`: `transport.path`, or with `transport.random_path` a
    /// uniform draw over `npaths` from its own random stream, so the draw
    /// does not shift any other random choice of the run and every protocol
    /// of a sweep point with the same run seed gets the same path.
    pub fn client_path(&self, run_seed: u64, npaths: usize) -> u32 {
        if !self.transport.random_path || npaths == 0 {
            return self.transport.path;
        }
        // modulo bias is below 2^-60 for any realistic number of paths
        1 + (mix(run_seed ^ 0x7061_7468_7261_6e64) % npaths as u64) as u32 // "pathrand"
    }

    fn parse(
        text: &str,
        origin: &str,
        base_dir: PathBuf,
        overrides: &[Override],
    ) -> Result<Scenario, ScenarioError> {
        Self::parse_with(
            text,
            origin,
            base_dir,
            overrides,
            &mut files::Files::default(),
        )
    }

    /// `parse`, with the verdicts on files already read (a sweep's points).
    fn parse_with(
        text: &str,
        origin: &str,
        base_dir: PathBuf,
        overrides: &[Override],
        files: &mut files::Files,
    ) -> Result<Scenario, ScenarioError> {
        let loc = Locator {
            origin,
            text,
            index: std::cell::OnceCell::new(),
        };
        // 1. syntax
        let doc: toml::Table =
            toml::from_str(text).map_err(|e| loc.toml_error(ErrorKind::Syntax, &e, None))?;
        // with a [sweep], a profile may be used by some point only: the
        // sweep checks the union of its points (`Sweep::from_str`)
        let single = !doc.contains_key("sweep");
        // the file's own tables (one added by --set has no place in it)
        let in_file: Vec<String> = doc
            .get("profile")
            .and_then(toml::Value::as_table)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        let s = Self::parse_doc(text, doc, origin, base_dir, overrides, files)?;
        let unused = unused::unused(s.file.profile.keys(), &s.profiles_used);
        if single && !unused.is_empty() {
            let key = format!("profile.{}", unused[0]);
            let msg = unused::message(&unused, &s.profiles_used, "link");
            let mut err = if in_file.contains(&unused[0]) {
                loc.at_key(ErrorKind::Invalid, Some(&key), msg)
            } else {
                let mut e = ScenarioError::new(ErrorKind::Invalid, origin, msg);
                e.key = Some(key);
                e
            };
            mark_override(&mut err, overrides);
            return Err(err);
        }
        Ok(s)
    }

    /// Steps 2-4 of `parse` on the document `doc` parsed from `text` (a
    /// sweep parses its text once and validates each point from a copy).
    fn parse_doc(
        text: &str,
        mut doc: toml::Table,
        origin: &str,
        base_dir: PathBuf,
        overrides: &[Override],
        files: &mut files::Files,
    ) -> Result<Scenario, ScenarioError> {
        // spans of keys, built only when an error needs locating
        let loc = Locator {
            origin,
            text,
            index: std::cell::OnceCell::new(),
        };
        // 2. overrides; a `[sweep]` table belongs to `mptlab sweep` (see
        // `sweep.rs`), a single scenario is the base document without it
        let had_sweep = doc.remove("sweep").is_some();
        let rewritten = had_sweep || !overrides.is_empty();
        let effective = if !rewritten {
            text.to_string()
        } else {
            for o in overrides {
                apply_override(&mut doc, o).map_err(|m| {
                    let mut e = ScenarioError::new(ErrorKind::Override, origin, m);
                    e.key = Some(o.key.clone());
                    e.from_override = Some(o.to_string());
                    e
                })?;
            }
            toml::to_string(&doc).expect("a toml::Table always serialises")
        };
        // 3. types
        let file: ScenarioFile = toml::from_str(&effective).map_err(|e| {
            let eff_index = if !rewritten {
                None
            } else {
                KeyIndex::new(&effective)
            };
            let key = e
                .span()
                .and_then(|s| eff_index.as_ref().or(loc.index())?.path_at(&s));
            // serde says "field"; TOML users write keys
            let msg = e
                .message()
                .trim()
                .replace("unknown field", "unknown key")
                .replace("missing field", "missing key");
            let msg = suggest::serde_hint(&msg);
            let mut err = loc.at_key(ErrorKind::Schema, key.as_deref(), msg);
            if !rewritten && key.is_some() {
                // spans refer to the file itself: use them exactly
                if let Some(s) = e.span() {
                    loc.set_pos(&mut err, s.start);
                }
            }
            mark_override(&mut err, overrides);
            err
        })?;
        // 4. validation
        validate::validate(file, origin, base_dir, effective, files).map_err(|(key, msg)| {
            let mut err = loc.at_key(ErrorKind::Invalid, Some(&key), msg);
            mark_override(&mut err, overrides);
            err
        })
    }
}

fn mark_override(err: &mut ScenarioError, overrides: &[Override]) {
    if let Some(k) = &err.key {
        if let Some(o) = overrides.iter().rev().find(|o| {
            k == &o.key
                || k.starts_with(&format!("{}.", o.key))
                || o.key.starts_with(&format!("{k}."))
        }) {
            err.from_override = Some(o.to_string());
        }
    }
}

struct Locator<'a> {
    origin: &'a str,
    text: &'a str,
    index: std::cell::OnceCell<Option<KeyIndex>>,
}

impl Locator<'_> {
    fn index(&self) -> Option<&KeyIndex> {
        self.index.get_or_init(|| KeyIndex::new(self.text)).as_ref()
    }

    fn set_pos(&self, err: &mut ScenarioError, pos: usize) {
        let (l, c, src) = line_col(self.text, pos);
        err.line = Some(l);
        err.column = Some(c);
        err.source_line = Some(src);
    }

    fn toml_error(
        &self,
        kind: ErrorKind,
        e: &toml::de::Error,
        key: Option<String>,
    ) -> ScenarioError {
        let mut err = ScenarioError::new(kind, self.origin, e.message().trim().to_string());
        err.key = key;
        if let Some(s) = e.span() {
            self.set_pos(&mut err, s.start);
        }
        err
    }

    fn at_key(&self, kind: ErrorKind, key: Option<&str>, msg: String) -> ScenarioError {
        let mut err = ScenarioError::new(kind, self.origin, msg);
        if let Some(k) = key {
            err.key = Some(k.to_string());
            if let Some(s) = self.index().and_then(|i| i.span_of(k)) {
                self.set_pos(&mut err, s.start);
            }
        }
        err
    }
}

#[cfg(test)]
mod tests;
