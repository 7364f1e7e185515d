//! Byte spans <-> dotted key paths, using toml's spanned document.

use std::ops::Range;
use toml::de::{DeTable, DeValue};

/// Every key of a document with the spans of its key and value.
pub(crate) struct KeyIndex {
    entries: Vec<(String, Range<usize>, Range<usize>)>,
}

impl KeyIndex {
    pub fn new(text: &str) -> Option<KeyIndex> {
        let doc = DeTable::parse(text).ok()?;
        let mut entries = Vec::new();
        walk_table(doc.get_ref(), "", &mut entries);
        Some(KeyIndex { entries })
    }

    /// The most specific key whose key or value span contains `span`.
    pub fn path_at(&self, span: &Range<usize>) -> Option<String> {
        if span.end == 0 {
            return None; // the whole document (e.g. a missing top-level table)
        }
        let mut best: Option<(&str, usize)> = None;
        for (p, k, v) in &self.entries {
            for s in [k, v] {
                let hit = if span.start == span.end {
                    s.start <= span.start && span.start < s.end.max(s.start + 1)
                } else {
                    s.start <= span.start && span.end <= s.end
                };
                if hit {
                    let len = s.end - s.start;
                    if best.is_none_or(|(bp, bl)| len < bl || (len == bl && p.len() > bp.len())) {
                        best = Some((p, len));
                    }
                }
            }
        }
        best.map(|(p, _)| p.to_string())
    }

    /// Span to point at for `path`: the key (tables) or the value (scalars);
    /// falls back to the nearest ancestor that is in the file.
    pub fn span_of(&self, path: &str) -> Option<Range<usize>> {
        let mut p = path.to_string();
        loop {
            if let Some((_, k, v)) = self.entries.iter().find(|(q, _, _)| *q == p) {
                return Some(if v.start < k.start || v.end - v.start > 200 {
                    k.clone()
                } else {
                    v.clone()
                });
            }
            match p.rfind(['.', '[']) {
                Some(i) => p.truncate(i),
                None => return None,
            }
        }
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn walk_table(t: &DeTable<'_>, prefix: &str, out: &mut Vec<(String, Range<usize>, Range<usize>)>) {
    for (k, v) in t.iter() {
        let p = join(prefix, k.get_ref());
        out.push((p.clone(), k.span(), v.span()));
        walk_value(v.get_ref(), &p, out);
    }
}

fn walk_value(v: &DeValue<'_>, p: &str, out: &mut Vec<(String, Range<usize>, Range<usize>)>) {
    match v {
        DeValue::Table(t) => walk_table(t, p, out),
        DeValue::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                let q = format!("{p}[{i}]");
                out.push((q.clone(), e.span(), e.span()));
                walk_value(e.get_ref(), &q, out);
            }
        }
        _ => {}
    }
}

/// 1-based (line, column) of a byte offset, and the line's text.
pub(crate) fn line_col(text: &str, pos: usize) -> (usize, usize, String) {
    let pos = pos.min(text.len());
    let before = &text[..pos];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[start..pos].chars().count() + 1;
    let end = text[start..]
        .find('\n')
        .map(|i| start + i)
        .unwrap_or(text.len());
    (
        line,
        col,
        text[start..end].trim_end_matches('\r').to_string(),
    )
}
