//! The sweep's merged tables and `summary.json`.

use mptlab_results::rows::{PathRow, Row};
use mptlab_results::stats::{path_shares, Describe};
use mptlab_results::{merge_runs, ColumnType, RunOutput, Table, TableError, Unfinished, Value};
use mptlab_scenario::sweep::display_value;
use mptlab_scenario::Sweep;
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

/// Column type of a swept key: integers -> i64, numbers -> f64, booleans,
/// strings; anything else (lists, mixed) -> its TOML text as a string.
fn key_type(sweep: &Sweep, key: &str) -> ColumnType {
    let vals: Vec<&toml::Value> = sweep
        .points
        .iter()
        .flat_map(|p| p.values.iter().filter(|(k, _)| k == key).map(|(_, v)| v))
        .collect();
    use toml::Value as T;
    if vals.iter().all(|v| matches!(v, T::Integer(_))) {
        ColumnType::I64
    } else if vals
        .iter()
        .all(|v| matches!(v, T::Integer(_) | T::Float(_)))
    {
        ColumnType::F64
    } else if vals.iter().all(|v| matches!(v, T::Boolean(_))) {
        ColumnType::Bool
    } else {
        ColumnType::Str
    }
}

fn cell(v: Option<&toml::Value>, ty: ColumnType) -> Value {
    match (v, ty) {
        (None, _) => Value::Null,
        (Some(toml::Value::Integer(i)), ColumnType::I64) => Value::I64(*i),
        (Some(toml::Value::Integer(i)), ColumnType::F64) => Value::F64(*i as f64),
        (Some(toml::Value::Float(x)), _) => Value::F64(*x),
        (Some(toml::Value::Boolean(b)), ColumnType::Bool) => Value::Bool(*b),
        (Some(v), _) => Value::Str(display_value(v)),
    }
}

fn value_json(v: &toml::Value) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// One table per name: every point's runs merged (`run`, `seed` first, see
/// `merge_runs`), prefixed with `point`, `point_label` and one column per
/// swept key; rows in point order, then run order.
pub fn merge_sweep(sweep: &Sweep, runs: &[Vec<RunOutput>]) -> Result<Vec<Table>, TableError> {
    let types: Vec<ColumnType> = sweep.keys.iter().map(|k| key_type(sweep, k)).collect();
    let mut out: Vec<Table> = Vec::new();
    for (p, rs) in sweep.points.iter().zip(runs) {
        let mut lead: Vec<(&str, Value, ColumnType)> = vec![
            ("point", Value::Str(p.id.clone()), ColumnType::Str),
            ("point_label", Value::Str(p.label.clone()), ColumnType::Str),
        ];
        for (k, ty) in sweep.keys.iter().zip(&types) {
            let v = p.values.iter().find(|(x, _)| x == k).map(|(_, v)| v);
            lead.push((k.as_str(), cell(v, *ty), *ty));
        }
        for t in merge_runs(rs)? {
            let t = t.with_leading(&lead)?;
            match out.iter_mut().find(|o| o.name == t.name) {
                Some(o) => o
                    .append(&t)
                    .map_err(|e| TableError(format!("point `{}`: {e}", p.label)))?,
                None => out.push(t),
            }
        }
    }
    Ok(out)
}

/// A point's statistics with `completed` / `of` beside each completed-only metric.
fn annotated(unf: &Unfinished, agg: Map<String, Json>) -> Json {
    let mut j = Json::Object(agg);
    unf.annotate(&mut j);
    j
}

/// `summary.json` of a sweep: `meta`, the runs per point, the swept keys, and
/// per point its values, per-run metrics, per-metric statistics (mean,
/// median, 95 % CI of the mean, box plot) and mean path shares.
pub fn summary(sweep: &Sweep, runs: &[Vec<RunOutput>], meta: &Map<String, Json>) -> Json {
    let mut doc = meta.clone();
    doc.insert("runs".into(), json!(sweep.runs));
    doc.insert("keys".into(), json!(sweep.keys));
    doc.insert(
        "seeds".into(),
        json!(
            "run r of every point uses run_seed(scenario.seed, r): the same seeds in every point"
        ),
    );
    let points: Vec<Json> = sweep
        .points
        .iter()
        .zip(runs)
        .map(|(p, rs)| {
            let mut vals: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for r in rs {
                for (k, v) in &r.summary {
                    if let Some(x) = v.as_f64() {
                        vals.entry(k).or_default().push(x);
                    }
                }
            }
            let unf = Unfinished::of(rs);
            let unfinished = unf.to_json();
            let agg: Map<String, Json> = vals
                .into_iter()
                .filter_map(|(k, v)| Some((k.to_string(), serde_json::to_value(Describe::of(&v)?).ok()?)))
                .collect();
            let paths: Vec<&Table> = rs.iter().filter_map(|r| r.table(PathRow::TABLE)).collect();
            json!({
                "point": p.id,
                "label": p.label,
                "values": p.values.iter().map(|(k, v)| (k.clone(), value_json(v))).collect::<Map<_, _>>(),
                "runs": rs.len(),
                "aggregate": annotated(&unf, agg),
                "unfinished": unfinished,
                "path_shares": path_shares(&paths),
                "per_run": rs.iter().map(|r| json!({"run": r.run, "seed": r.seed, "metrics": r.summary})).collect::<Vec<_>>(),
            })
        })
        .collect();
    // unfinished work over the whole sweep, and the points that have some
    let mut total = Unfinished::default();
    let mut where_: Vec<Json> = Vec::new();
    for (p, rs) in sweep.points.iter().zip(runs) {
        let u = Unfinished::of(rs);
        total.transfers += u.transfers;
        total.transfers_unfinished += u.transfers_unfinished;
        total.messages += u.messages;
        total.messages_undelivered += u.messages_undelivered;
        total.messages_refused += u.messages_refused;
        if u.any() {
            where_.push(json!({
                "point": p.id,
                "label": p.label,
                "transfers_unfinished": u.transfers_unfinished,
                "messages_undelivered": u.messages_undelivered,
                "messages_refused": u.messages_refused,
            }));
        }
    }
    doc.insert(
        "unfinished".into(),
        json!({
            "transfers": total.transfers,
            "transfers_unfinished": total.transfers_unfinished,
            "messages": total.messages,
            "messages_undelivered": total.messages_undelivered,
            "messages_refused": total.messages_refused,
            "points": where_,
        }),
    );
    doc.insert("points".into(), Json::Array(points));
    Json::Object(doc)
}
