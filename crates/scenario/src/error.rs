//! `ScenarioError`: every problem with a scenario, located for the user.

use std::fmt;

/// What kind of problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// Not valid TOML.
    Syntax,
    /// Valid TOML, but an unknown key, a wrong type, a missing key or an unknown name.
    Schema,
    /// Well-formed, but a value is out of range or inconsistent.
    Invalid,
    /// A `--set key=value` override could not be applied.
    Override,
}

/// A scenario error naming the file, position, dotted key, and what was
/// expected and found. `Display` gives a one-paragraph message for users.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub kind: ErrorKind,
    /// File name (or the origin name given to `Scenario::from_str`).
    pub origin: String,
    /// 1-based line and column, when the key is in the file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Dotted key path, e.g. `profile.wlan.delay_ms` or `topology.node[1].name`.
    pub key: Option<String>,
    /// What was expected and what was found.
    pub message: String,
    /// The offending source line, if known.
    pub source_line: Option<String>,
    /// Set when the key came from a `--set` override.
    pub from_override: Option<String>,
}

impl ScenarioError {
    pub(crate) fn new(kind: ErrorKind, origin: &str, message: impl Into<String>) -> Self {
        ScenarioError {
            kind,
            origin: origin.to_string(),
            line: None,
            column: None,
            key: None,
            message: message.into(),
            source_line: None,
            from_override: None,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(k) = &self.key {
            write!(f, "key `{k}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(o) = &self.from_override {
            write!(f, " (from --set {o})")?;
        }
        if let (Some(src), Some(l)) = (&self.source_line, self.line) {
            let g = l.to_string();
            write!(f, "\n {g} | {src}")?;
            if let Some(c) = self.column {
                write!(
                    f,
                    "\n {} | {}^",
                    " ".repeat(g.len()),
                    " ".repeat(c.saturating_sub(1))
                )?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
