//! One run's output as a self-contained JSON document, for sweeps that
//! persist every finished run (and for Dask workers shipping results back).
//!
//! ```json
//! {"format":"mptlab-run/1","run":0,"seed":7,"summary":{...},
//!  "tables":[{"name":"messages","columns":[{"name":"flow","type":"u64","values":[0,1,null]}]}]}
//! ```
//! Columnar, so it stays compact. Floats are written in their shortest
//! round-trip form and read back exactly (serde_json's `float_roundtrip`);
//! non-finite floats, which JSON lacks, are the strings `"NaN"`, `"inf"`,
//! `"-inf"`. `decode(encode(x)) == x` for every [`RunOutput`].

use crate::output::RunOutput;
use crate::table::{Column, ColumnData, ColumnType, Table};
use serde_json::{json, Map, Value as Json};

pub const RUN_FORMAT: &str = "mptlab-run/1";

fn f64_json(x: f64) -> Json {
    match serde_json::Number::from_f64(x) {
        Some(n) => Json::Number(n),
        None if x.is_nan() => json!("NaN"),
        None if x > 0.0 => json!("inf"),
        None => json!("-inf"),
    }
}

/// The document for one run.
///
/// Written directly, byte for byte what serde_json writes for the
/// equivalent `Value` (objects are BTreeMaps, so keys come sorted:
/// `columns` before `name`), without building that `Value` first: that cost
/// a few percent of a sweep's time, once per run. The test
/// `round_trip_is_exact` compares the two encodings.
pub fn encode_run(o: &RunOutput) -> Vec<u8> {
    fn put<T: serde::Serialize + ?Sized>(w: &mut Vec<u8>, x: &T) {
        serde_json::to_writer(&mut *w, x).expect("JSON values always serialise");
    }
    fn list<T>(w: &mut Vec<u8>, v: &[Option<T>], mut f: impl FnMut(&mut Vec<u8>, &T)) {
        w.push(b'[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                w.push(b',');
            }
            match x {
                Some(x) => f(w, x),
                None => w.extend_from_slice(b"null"),
            }
        }
        w.push(b']');
    }
    let mut w = Vec::with_capacity(4096);
    w.extend_from_slice(b"{\"format\":");
    put(&mut w, RUN_FORMAT);
    w.extend_from_slice(b",\"run\":");
    put(&mut w, &o.run);
    w.extend_from_slice(b",\"seed\":");
    put(&mut w, &o.seed);
    w.extend_from_slice(b",\"summary\":");
    put(&mut w, &o.summary);
    w.extend_from_slice(b",\"tables\":[");
    for (ti, t) in o.tables.iter().enumerate() {
        if ti > 0 {
            w.push(b',');
        }
        w.extend_from_slice(b"{\"columns\":[");
        for (ci, c) in t.columns().iter().enumerate() {
            if ci > 0 {
                w.push(b',');
            }
            w.extend_from_slice(b"{\"name\":");
            put(&mut w, &c.name);
            w.extend_from_slice(b",\"type\":");
            put(&mut w, &c.data.ty().to_string());
            w.extend_from_slice(b",\"values\":");
            // numbers through the formatters serde_json itself calls
            // (itoa, and zmij for finite floats: `Formatter::write_u64` /
            // `write_f64`), without its per-value `Serialize` dispatch
            match &c.data {
                ColumnData::U64(v) => list(&mut w, v, |w, x| {
                    w.extend_from_slice(itoa::Buffer::new().format(*x).as_bytes())
                }),
                ColumnData::I64(v) => list(&mut w, v, |w, x| {
                    w.extend_from_slice(itoa::Buffer::new().format(*x).as_bytes())
                }),
                ColumnData::F64(v) => list(&mut w, v, |w, x| {
                    if x.is_finite() {
                        w.extend_from_slice(zmij::Buffer::new().format_finite(*x).as_bytes())
                    } else {
                        put(w, &f64_json(*x))
                    }
                }),
                ColumnData::Str(v) => list(&mut w, v, put),
                ColumnData::Bool(v) => list(&mut w, v, put),
            }
            w.push(b'}');
        }
        w.extend_from_slice(b"],\"name\":");
        put(&mut w, &t.name);
        w.push(b'}');
    }
    w.extend_from_slice(b"]}");
    w
}

fn values<T>(v: &[Json], f: impl Fn(&Json) -> Option<T>) -> Result<Vec<Option<T>>, String> {
    v.iter()
        .map(|x| match x {
            Json::Null => Ok(None),
            x => f(x).map(Some).ok_or_else(|| format!("bad value {x}")),
        })
        .collect()
}

fn column_from(c: &Json) -> Result<Column, String> {
    let name = c["name"]
        .as_str()
        .ok_or("column without a name")?
        .to_string();
    let vals = c["values"]
        .as_array()
        .ok_or_else(|| format!("column `{name}` without values"))?;
    let ty = c["type"].as_str().unwrap_or("");
    let data = match ty {
        "u64" => ColumnData::U64(values(vals, Json::as_u64)?),
        "i64" => ColumnData::I64(values(vals, Json::as_i64)?),
        "f64" => ColumnData::F64(values(vals, |x| match x {
            Json::String(s) => match s.as_str() {
                "NaN" => Some(f64::NAN),
                "inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                _ => None,
            },
            x => x.as_f64(),
        })?),
        "string" => ColumnData::Str(values(vals, |x| x.as_str().map(str::to_string))?),
        "bool" => ColumnData::Bool(values(vals, Json::as_bool)?),
        t => return Err(format!("column `{name}`: unknown type `{t}`")),
    };
    debug_assert!(matches!(
        data.ty(),
        ColumnType::U64 | ColumnType::I64 | ColumnType::F64 | ColumnType::Str | ColumnType::Bool
    ));
    Ok(Column { name, data })
}

/// Read a document written by [`encode_run`].
pub fn decode_run(bytes: &[u8]) -> Result<RunOutput, String> {
    decode_run_tables(bytes, &|_| true)
}

/// Like [`decode_run`], but only the tables whose name `keep` accepts are
/// decoded (the others are checked to be well-formed JSON only, by
/// `crate::jsonscan`, which finds where they end without parsing their
/// numbers). The kept tables, the summary and the other top-level values are
/// parsed by serde_json as before, so they are exactly what [`decode_run`]
/// returns.
pub fn decode_run_tables(bytes: &[u8], keep: &dyn Fn(&str) -> bool) -> Result<RunOutput, String> {
    use crate::jsonscan::{self as scan, Malformed};
    let bad_json =
        |Malformed(at): Malformed| format!("not a run file: malformed JSON at byte {at}");
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not a run file: {e}"))?;
    let b = text.as_bytes();
    // the top level: members `format`, `run`, `seed`, `summary`, `tables`
    // (raw, parsed below); others are ignored; a missing one is null
    let mut top: [Option<(usize, usize)>; 5] = [None; 5];
    const KEYS: [&[u8]; 5] = [
        b"\"format\"",
        b"\"run\"",
        b"\"seed\"",
        b"\"summary\"",
        b"\"tables\"",
    ];
    let at = scan::ws(b, 0);
    if b.get(at) != Some(&b'{') {
        return Err("not a run file: not a JSON object".into());
    }
    // one pass over the file: the tables array is walked element by
    // element as the top level is scanned, each table's `name` and
    // `columns` noted (raw), everything else only checked
    let mut dup = None;
    // per table: where its `name` and `columns` values are
    type Span = Option<(usize, usize)>;
    let mut tables: Vec<(Span, Span)> = Vec::new();
    let mut tables_bad = false;
    let end = scan::object(b, at, 1, |k, s| {
        let i = KEYS.iter().position(|x| *x == k);
        // `s` can be the end of a truncated file: `get`, never index
        let e = if i == Some(4) && b.get(s) == Some(&b'[') {
            scan::elements(b, s, |t| {
                if b.get(t) != Some(&b'{') {
                    tables_bad = true;
                    return scan::value(b, t, 2);
                }
                let (mut name, mut cols) = (None, None);
                let e = scan::object(b, t, 2, |k, vs| {
                    let ve = scan::value(b, vs, 3)?;
                    match k {
                        b"\"name\"" => name = Some((vs, ve)),
                        b"\"columns\"" => cols = Some((vs, ve)),
                        _ => {}
                    }
                    Ok(ve)
                })?;
                tables.push((name, cols));
                Ok(e)
            })?
        } else {
            scan::value(b, s, 1)?
        };
        if let Some(i) = i {
            if top[i].replace((s, e)).is_some() {
                dup = Some(i);
            }
        }
        Ok(e)
    })
    .map_err(bad_json)?;
    if scan::ws(b, end) != b.len() {
        return Err(bad_json(Malformed(scan::ws(b, end))));
    }
    if let Some(i) = dup {
        return Err(format!(
            "not a run file: duplicate field {}",
            String::from_utf8_lossy(KEYS[i])
        ));
    }
    let json = |m: Option<(usize, usize)>| -> Result<Json, String> {
        match m {
            None => Ok(Json::Null),
            Some((s, e)) => {
                serde_json::from_str(&text[s..e]).map_err(|e| format!("not a run file: {e}"))
            }
        }
    };
    let format = json(top[0])?;
    if format != RUN_FORMAT {
        return Err(format!(
            "not a run file (format {format}, expected {RUN_FORMAT})"
        ));
    }
    let run = json(top[1])?
        .as_u64()
        .and_then(|r| u32::try_from(r).ok())
        .ok_or("bad `run`")?;
    let seed = json(top[2])?.as_u64().ok_or("bad `seed`")?;
    let summary: Map<String, Json> = match json(top[3])? {
        Json::Object(m) => m,
        _ => return Err("bad `summary`".into()),
    };
    let mut o = RunOutput::new(run, seed);
    o.summary = summary.into_iter().collect();
    if tables_bad || top[4].is_none_or(|(s, _)| b[s] != b'[') {
        return Err("bad `tables`".into());
    }
    for (name, cols) in tables {
        let name: Option<String> = match name {
            Some((vs, ve)) => serde_json::from_str(&text[vs..ve]).map_err(|_| "bad `tables`")?,
            None => None,
        };
        let name = name.ok_or("table without a name")?;
        let cols = cols
            .filter(|&(vs, _)| b[vs] != b'n')
            .ok_or_else(|| format!("table `{name}` without columns"))?;
        if !keep(&name) {
            continue;
        }
        let cols: Vec<Json> = serde_json::from_str(&text[cols.0..cols.1])
            .map_err(|_| format!("table `{name}` without columns"))?;
        let cols = cols
            .iter()
            .map(column_from)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("table `{name}`: {e}"))?;
        o.tables
            .push(Table::from_columns(&name, cols).map_err(|e| e.to_string())?);
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    fn column_json(c: &Column) -> Json {
        let values: Vec<Json> = match &c.data {
            ColumnData::U64(v) => v
                .iter()
                .map(|x| x.map_or(Json::Null, |x| json!(x)))
                .collect(),
            ColumnData::I64(v) => v
                .iter()
                .map(|x| x.map_or(Json::Null, |x| json!(x)))
                .collect(),
            ColumnData::F64(v) => v.iter().map(|x| x.map_or(Json::Null, f64_json)).collect(),
            ColumnData::Str(v) => v
                .iter()
                .map(|x| x.as_ref().map_or(Json::Null, |x| json!(x)))
                .collect(),
            ColumnData::Bool(v) => v
                .iter()
                .map(|x| x.map_or(Json::Null, |x| json!(x)))
                .collect(),
        };
        json!({ "name": c.name, "type": c.data.ty().to_string(), "values": values })
    }

    /// The encoding as it was first written: a serde_json `Value`, serialised.
    fn encode_run_value(o: &RunOutput) -> Vec<u8> {
        let tables: Vec<Json> = o
            .tables
            .iter()
            .map(|t| json!({ "name": t.name, "columns": t.columns().iter().map(column_json).collect::<Vec<_>>() }))
            .collect();
        let doc = json!({
            "format": RUN_FORMAT,
            "run": o.run,
            "seed": o.seed,
            "summary": o.summary,
            "tables": tables,
        });
        serde_json::to_vec(&doc).unwrap()
    }

    #[test]
    fn round_trip_is_exact() {
        let mut o = RunOutput::new(3, u64::MAX - 5);
        o.set_metric("delay_ms", 0.1 + 0.2);
        o.summary.insert("note".into(), json!("x"));
        let t = o.table_mut("messages");
        for (i, d) in [
            Some(1.0 / 3.0),
            None,
            Some(f64::NAN),
            Some(f64::NEG_INFINITY),
            Some(5e-324),
        ]
        .iter()
        .enumerate()
        {
            t.push_named(&[
                ("flow", Value::U64(u64::MAX)),
                (
                    "flow_label",
                    if i == 1 {
                        Value::Null
                    } else {
                        Value::Str("fg \"q\"\n".into())
                    },
                ),
                ("delay_ms", d.map_or(Value::Null, Value::F64)),
            ])
            .unwrap();
        }
        let mut x = Table::new("extra");
        x.add_column("i", ColumnType::I64).unwrap();
        x.add_column("b", ColumnType::Bool).unwrap();
        x.push_row(vec![Value::I64(-7), Value::Bool(true)]).unwrap();
        o.tables.push(x);
        assert_eq!(
            String::from_utf8(encode_run(&o)).unwrap(),
            String::from_utf8(encode_run_value(&o)).unwrap()
        );
        let back = decode_run(&encode_run(&o)).unwrap();
        // NaN != NaN: compare the encodings, and the bits of the NaN
        assert_eq!(encode_run(&back), encode_run(&o));
        assert_eq!(back.run, 3);
        assert_eq!(back.tables.len(), 2);
        match &back.tables[0].column("delay_ms").unwrap().data {
            ColumnData::F64(v) => {
                assert_eq!(v[0], Some(1.0 / 3.0));
                assert!(v[2].unwrap().is_nan());
                assert_eq!(v[4], Some(5e-324));
            }
            _ => panic!("type lost"),
        }
        // only the tables asked for, identical to the full decode's
        let some = decode_run_tables(&encode_run(&o), &|n| n == "extra").unwrap();
        assert_eq!(some.tables.len(), 1);
        assert_eq!(some.tables[0], back.tables[1]);
        assert_eq!(some.summary, back.summary);
        assert_eq!((some.run, some.seed), (back.run, back.seed));
        assert!(decode_run(b"{\"format\":\"other\"}").is_err());
        assert!(decode_run(b"{\"format\":\"mptlab-run/1\",\"run\":0,\"seed\":0,\"summary\":{},\"tables\":[{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"u64\",\"values\":[1]},{\"name\":\"b\",\"type\":\"u64\",\"values\":[]}]}]}").is_err());
    }
}
