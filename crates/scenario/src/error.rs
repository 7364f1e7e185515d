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

/// Longest source line echoed, in characters (a longer one is shown as a
/// window around the error column, with ellipses).
pub const MAX_ECHO_CHARS: usize = 120;
/// Longest key and message shown, in characters (they may quote user text).
const MAX_MESSAGE_CHARS: usize = 1000;

/// How a character is echoed: control characters (NUL, escape, tab, ...)
/// escaped so they neither vanish nor drive the terminal.
fn echo(c: char) -> String {
    match c {
        '\t' => "\\t".into(),
        '\0' => "\\0".into(),
        c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
        c => c.to_string(),
    }
}

/// `s` with control characters escaped, cut at `max` characters.
fn clean(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).map(echo).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// The source line as echoed and the caret's offset in it: at most
/// `MAX_ECHO_CHARS` characters around 1-based column `col`, escaped.
fn echo_line(src: &str, col: Option<usize>) -> (String, Option<usize>) {
    let chars: Vec<char> = src.chars().collect();
    let c = col.unwrap_or(1).saturating_sub(1).min(chars.len());
    let start = if chars.len() <= MAX_ECHO_CHARS {
        0
    } else {
        c.saturating_sub(MAX_ECHO_CHARS / 2)
            .min(chars.len() - MAX_ECHO_CHARS)
    };
    let end = (start + MAX_ECHO_CHARS).min(chars.len());
    let mut out = String::new();
    let mut caret = None;
    if start > 0 {
        out.push('…');
    }
    for (i, &ch) in chars.iter().enumerate().take(end).skip(start) {
        if i == c {
            caret = Some(out.chars().count());
        }
        out.push_str(&echo(ch));
    }
    if caret.is_none() {
        caret = Some(out.chars().count());
    }
    if end < chars.len() {
        out.push('…');
    }
    (out, col.and(caret))
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", clean(&self.origin, MAX_MESSAGE_CHARS))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(k) = &self.key {
            write!(f, "key `{}`: ", clean(k, MAX_ECHO_CHARS))?;
        }
        write!(f, "{}", clean(&self.message, MAX_MESSAGE_CHARS))?;
        if let Some(o) = &self.from_override {
            write!(f, " (from --set {})", clean(o, MAX_ECHO_CHARS))?;
        }
        if let (Some(src), Some(l)) = (&self.source_line, self.line) {
            let g = l.to_string();
            let (line, caret) = echo_line(src, self.column);
            write!(f, "\n {g} | {line}")?;
            if let Some(c) = caret {
                write!(f, "\n {} | {}^", " ".repeat(g.len()), " ".repeat(c))?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str, col: usize) -> String {
        let mut e = ScenarioError::new(ErrorKind::Syntax, "f.toml", "bad");
        e.line = Some(3);
        e.column = Some(col);
        e.source_line = Some(src.to_string());
        e.to_string()
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let src = format!("x = {}1", "[".repeat(100_000));
        let s = at(&src, 100_005);
        let echoed = s.lines().nth(1).unwrap();
        assert!(echoed.chars().count() < MAX_ECHO_CHARS + 10, "{echoed}");
        assert!(
            echoed.starts_with(" 3 | …[[[") && echoed.ends_with('1'),
            "{echoed}"
        );
        // the caret still points at the column
        let caret = s.lines().nth(2).unwrap();
        let pos = caret.find('^').unwrap();
        assert_eq!(echoed.chars().nth(pos), Some('1'), "{s}");
    }

    #[test]
    fn control_characters_are_escaped() {
        let s = at("name = \"a\0b\u{1b}[31m\"", 13);
        assert!(!s.contains('\0') && !s.contains('\u{1b}'), "{s:?}");
        assert!(s.contains("a\\0b\\u{1b}[31m"), "{s}");
        let caret = s.lines().nth(2).unwrap().find('^').unwrap();
        assert_eq!(&s.lines().nth(1).unwrap()[caret..caret + 1], "[", "{s}");
    }
}
