//! CSV (RFC 4180): header row, one row per table row. Missing values are
//! empty fields; empty strings are written as `""` so they stay distinct.
//! Floats use Rust's shortest round-trip formatting (`NaN`, `inf`, `-inf`).

use crate::table::{ColumnData, ColumnType, Table, TableError, Value};
use std::io::{self, Write};

fn quote(s: &str, out: &mut String) {
    if s.is_empty() || s.contains([',', '"', '\n', '\r']) || s.trim() != s {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Write `t` as CSV.
pub fn write_csv<W: Write>(t: &Table, w: &mut W) -> io::Result<()> {
    let mut line = String::new();
    for (i, c) in t.columns().iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        quote(&c.name, &mut line);
    }
    line.push('\n');
    w.write_all(line.as_bytes())?;
    for r in 0..t.num_rows() {
        line.clear();
        for (i, c) in t.columns().iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            match &c.data {
                ColumnData::U64(v) => {
                    if let Some(x) = v[r] {
                        line.push_str(&x.to_string())
                    }
                }
                ColumnData::I64(v) => {
                    if let Some(x) = v[r] {
                        line.push_str(&x.to_string())
                    }
                }
                ColumnData::F64(v) => {
                    if let Some(x) = v[r] {
                        line.push_str(&x.to_string())
                    }
                }
                ColumnData::Bool(v) => {
                    if let Some(x) = v[r] {
                        line.push_str(if x { "true" } else { "false" })
                    }
                }
                ColumnData::Str(v) => {
                    if let Some(x) = &v[r] {
                        quote(x, &mut line)
                    }
                }
            }
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Split CSV text into records of (field, was_quoted).
fn records(text: &str) -> Result<Vec<Vec<(String, bool)>>, String> {
    let mut out = Vec::new();
    let mut rec = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        match c {
            '"' if at_start => {
                quoted = true;
                at_start = false;
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => field.push(c),
                        None => return Err("unterminated quoted field".into()),
                    }
                }
            }
            ',' => {
                rec.push((std::mem::take(&mut field), quoted));
                quoted = false;
                at_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                rec.push((std::mem::take(&mut field), quoted));
                out.push(std::mem::take(&mut rec));
                quoted = false;
                at_start = true;
            }
            c => {
                field.push(c);
                at_start = false;
            }
        }
    }
    if !at_start || !rec.is_empty() || !field.is_empty() {
        rec.push((field, quoted));
        out.push(rec);
    }
    Ok(out)
}

/// Read CSV written by [`write_csv`] back into a table with a known schema
/// (the header must list exactly the schema's columns, in order).
pub fn read_csv(
    name: &str,
    text: &str,
    schema: &[(&str, ColumnType)],
) -> Result<Table, TableError> {
    let e = |m: String| TableError(format!("{name}.csv: {m}"));
    let recs = records(text).map_err(e)?;
    let mut it = recs.into_iter();
    let header: Vec<String> = it
        .next()
        .ok_or_else(|| e("empty file".into()))?
        .into_iter()
        .map(|f| f.0)
        .collect();
    let want: Vec<&str> = schema.iter().map(|s| s.0).collect();
    if header != want {
        return Err(e(format!("header {header:?}, expected {want:?}")));
    }
    let mut t = Table::with_schema(name, schema);
    for (i, r) in it.enumerate() {
        if r.len() != schema.len() {
            return Err(e(format!(
                "row {}: {} fields, expected {}",
                i + 2,
                r.len(),
                schema.len()
            )));
        }
        let mut row = Vec::new();
        for ((f, q), (col, ty)) in r.into_iter().zip(schema) {
            let bad = || {
                e(format!(
                    "row {}: column `{col}`: cannot parse `{f}` as {ty}",
                    i + 2
                ))
            };
            row.push(if f.is_empty() && !q {
                Value::Null
            } else {
                match ty {
                    ColumnType::U64 => Value::U64(f.parse().map_err(|_| bad())?),
                    ColumnType::I64 => Value::I64(f.parse().map_err(|_| bad())?),
                    ColumnType::F64 => Value::F64(f.parse().map_err(|_| bad())?),
                    ColumnType::Bool => Value::Bool(f.parse().map_err(|_| bad())?),
                    ColumnType::Str => Value::Str(f),
                }
            });
        }
        t.push_row(row)?;
    }
    Ok(t)
}
