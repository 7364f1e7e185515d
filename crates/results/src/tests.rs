use super::*;
use std::path::Path;

fn sample() -> Table {
    let mut t = Table::with_schema(
        "sample",
        &[
            ("u", ColumnType::U64),
            ("i", ColumnType::I64),
            ("f", ColumnType::F64),
            ("s", ColumnType::Str),
            ("b", ColumnType::Bool),
        ],
    );
    t.push_row(row![1u64, -2i64, 0.1, "plain", true]).unwrap();
    t.push_row(row![
        u64::MAX,
        i64::MIN,
        1e-300,
        "comma, \"quote\"\nnewline",
        false
    ])
    .unwrap();
    t.push_row(row![
        None::<u64>,
        None::<i64>,
        None::<f64>,
        None::<String>,
        None::<bool>
    ])
    .unwrap();
    t.push_row(row![0u64, 0i64, f64::INFINITY, "", true])
        .unwrap();
    t.push_row(row![7u32, 3i32, 2.5f32, " padded ", None::<bool>])
        .unwrap();
    t
}

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

fn tmpdir(tag: &str) -> scratch::Scratch {
    scratch::Scratch::unmade(&format!("results-{tag}"))
}

#[test]
fn push_row_checks_types_and_arity() {
    let mut t = sample();
    let n = t.num_rows();
    assert!(t
        .push_row(row![1u64])
        .unwrap_err()
        .0
        .contains("row has 1 values, expected 5"));
    let e = t.push_row(row!["x", 1i64, 1.0, "s", true]).unwrap_err();
    assert!(e.0.contains("column `u` is u64, found string"), "{e}");
    assert!(t.push_row(row![-1i64, 1i64, 1.0, "s", true]).is_err());
    assert_eq!(t.num_rows(), n, "failed pushes leave the table unchanged");
    t.push_named(&[("s", "named".into()), ("u", 5u64.into())])
        .unwrap();
    assert_eq!(t.get(n, "s"), Some(Value::Str("named".into())));
    assert_eq!(t.get(n, "f"), Some(Value::Null));
    assert!(t.push_named(&[("nope", 1u64.into())]).is_err());
}

#[test]
fn csv_round_trip() {
    let t = sample();
    let mut buf = Vec::new();
    write_csv(&t, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert!(
        text.starts_with("u,i,f,s,b\n1,-2,0.1,plain,true\n"),
        "{text}"
    );
    let schema = t.schema();
    let schema: Vec<(&str, ColumnType)> = schema.iter().map(|(n, ty)| (n.as_str(), *ty)).collect();
    let back = read_csv("sample", &text, &schema).unwrap();
    assert_eq!(back, t);
}

fn run_output(run: u32, rows: u64) -> RunOutput {
    let mut r = RunOutput::new(run, 1000 + run as u64);
    let m = r.table_mut(schema::MESSAGES);
    for k in 0..rows {
        m.push_row(row![
            1u64,
            "fg",
            k,
            1200u64,
            k as f64 * 10.0,
            k as f64 * 10.0 + 50.0,
            50.0,
            None::<f64>,
            true
        ])
        .unwrap();
    }
    r.set_metric("delay_ms_median", 50.0 + run as f64);
    r.summary.insert("note".into(), serde_json::json!("text"));
    r
}

#[test]
fn merge_tags_rows_and_keeps_run_order() {
    let runs = vec![run_output(0, 2), run_output(1, 3)];
    let merged = merge_runs(&runs).unwrap();
    let names: Vec<_> = merged.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, schema::STANDARD);
    let m = &merged[0];
    assert_eq!(m.num_rows(), 5);
    assert_eq!(&m.columns()[0].name, "run");
    assert_eq!(&m.columns()[1].name, "seed");
    assert_eq!(m.get(4, "run"), Some(Value::U64(1)));
    assert_eq!(m.get(4, "seed"), Some(Value::U64(1001)));
    assert_eq!(merged[1].num_rows(), 0);
    assert_eq!(merged[1].columns()[0].name, "run");

    let mut bad = run_output(2, 1);
    bad.tables[0] = Table::with_schema("messages", &[("x", ColumnType::F64)]);
    assert!(merge_runs(&[runs[0].clone(), bad])
        .unwrap_err()
        .0
        .contains("run 2"));

    let agg = aggregate(&runs);
    assert_eq!(agg["delay_ms_median"].median, 50.5);
    assert!(!agg.contains_key("note"));
}

fn pyarrow_available() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import pyarrow.parquet"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("skipped: python3 with pyarrow not available");
    }
    ok
}

/// Read a Parquet file with pyarrow: {"names", "types", "rows"}.
fn pyarrow_read(p: &Path) -> serde_json::Value {
    let script = r#"
import sys, json, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
rows = [list(r.values()) for r in t.to_pylist()]
print(json.dumps({"types": [str(f.type) for f in t.schema], "names": t.schema.names, "rows": rows}))
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Magic bytes and footer length are consistent.
fn check_framing(p: &Path) {
    let b = std::fs::read(p).unwrap();
    assert_eq!(&b[..4], b"PAR1");
    assert_eq!(&b[b.len() - 4..], b"PAR1");
    let n = u32::from_le_bytes(b[b.len() - 8..b.len() - 4].try_into().unwrap()) as usize;
    assert!(n > 0 && n + 12 <= b.len());
}

#[test]
fn write_results_writes_everything() {
    let dir = tmpdir("write");
    let runs = vec![run_output(0, 2), run_output(1, 3)];
    let mut opts = WriteOptions::default();
    opts.meta.insert("scenario".into(), serde_json::json!("t"));
    opts.extra_files
        .push(("scenario.toml".into(), b"x = 1\n".to_vec()));
    let written = write_results(&dir, &runs, &opts).unwrap();
    assert_eq!(written.last().unwrap(), &dir.join("summary.json"));
    for n in schema::STANDARD {
        assert!(dir.join(format!("{n}.csv")).is_file());
        assert!(dir.join(format!("{n}.parquet")).is_file());
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    for n in schema::STANDARD {
        check_framing(&dir.join(format!("{n}.parquet")));
    }
    if pyarrow_available() {
        let m = pyarrow_read(&dir.join("messages.parquet"));
        assert_eq!(m["names"][0], "run");
        assert_eq!(m["types"][0], "uint64");
        assert_eq!(m["rows"].as_array().unwrap().len(), 5);
        assert_eq!(
            m["rows"][4].as_array().unwrap()[..5],
            [
                serde_json::json!(1),
                1001.into(),
                1.into(),
                "fg".into(),
                2.into()
            ]
        );
        assert_eq!(m["rows"][0][9], serde_json::Value::Null);
        let l = pyarrow_read(&dir.join("links.parquet"));
        assert_eq!(l["rows"].as_array().unwrap().len(), 0);
        assert_eq!(l["types"][2], "string");
    }
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["scenario"], "t");
    assert_eq!(s["runs"], 2);
    assert_eq!(s["per_run"][1]["seed"], 1001);
    assert_eq!(s["aggregate"]["delay_ms_median"]["max"], 51.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parquet_framing() {
    let dir = tmpdir("pq");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("sample.parquet");
    write_parquet(&sample(), std::fs::File::create(&p).unwrap()).unwrap();
    check_framing(&p);
    let p = dir.join("empty.parquet");
    write_parquet(&schema::links(), std::fs::File::create(&p).unwrap()).unwrap();
    check_framing(&p);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Several pages, long null runs, bools across byte boundaries.
#[test]
fn pyarrow_reads_multi_page_tables() {
    if !pyarrow_available() {
        return;
    }
    let mut t = Table::with_schema(
        "big",
        &[
            ("i", ColumnType::U64),
            ("x", ColumnType::F64),
            ("b", ColumnType::Bool),
            ("s", ColumnType::Str),
        ],
    );
    let n = 150_000u64;
    for i in 0..n {
        let x = (i % 3 != 0).then_some(i as f64 / 2.0);
        let b = (i % 5 != 0).then_some(i % 7 == 0);
        let s = (i >= 1000).then(|| format!("s{i}"));
        t.push_row(row![i, x, b, s]).unwrap();
    }
    let dir = tmpdir("big");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("big.parquet");
    write_parquet(
        &t,
        std::io::BufWriter::new(std::fs::File::create(&p).unwrap()),
    )
    .unwrap();
    let script = r#"
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1]).to_pydict()
n = 150000
assert t['i'] == list(range(n))
assert t['x'] == [i / 2 if i % 3 else None for i in range(n)]
assert t['b'] == [(i % 7 == 0) if i % 5 else None for i in range(n)]
assert t['s'] == [f's{i}' if i >= 1000 else None for i in range(n)]
md = pq.ParquetFile(sys.argv[1]).metadata
assert md.num_row_groups == 1 and md.num_rows == n
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failed_write_leaves_nothing() {
    let dir = tmpdir("fail");
    let mut r = run_output(0, 1);
    r.tables
        .push(Table::with_schema("bad/name", &[("x", ColumnType::U64)]));
    let e = write_results(&dir, &[r], &WriteOptions::default()).unwrap_err();
    assert!(e.0.contains("bad/name"), "{e}");
    assert!(
        !dir.exists(),
        "a directory created by a failed write is removed"
    );

    // an existing directory keeps its old contents and gets no partial files
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("keep.txt"), "old").unwrap();
    let mut r = run_output(0, 1);
    r.tables
        .push(Table::with_schema("bad/name", &[("x", ColumnType::U64)]));
    write_results(&dir, &[r], &WriteOptions::default()).unwrap_err();
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["keep.txt"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Files must be readable by pyarrow (skipped when python3/pyarrow are absent).
#[test]
fn pyarrow_reads_parquet() {
    if !pyarrow_available() {
        return;
    }
    let dir = tmpdir("pyarrow");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("sample.parquet");
    write_parquet(&sample(), std::fs::File::create(&p).unwrap()).unwrap();
    let script = r#"
import sys, math, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
assert t.num_rows == 5, t.num_rows
assert [str(f.type) for f in t.schema] == ['uint64', 'int64', 'double', 'string', 'bool'], t.schema
d = t.to_pydict()
assert d['u'] == [1, 2**64 - 1, None, 0, 7], d['u']
assert d['i'] == [-2, -2**63, None, 0, 3], d['i']
assert d['f'][0] == 0.1 and d['f'][1] == 1e-300 and d['f'][2] is None and math.isinf(d['f'][3]) and d['f'][4] == 2.5, d['f']
assert d['s'] == ['plain', 'comma, "quote"\nnewline', None, '', ' padded '], d['s']
assert d['b'] == [True, False, None, True, None], d['b']
print('ok')
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rewrite_replaces_old_results() {
    let dir = tmpdir("rewrite");
    write_results(&dir, &[run_output(0, 2)], &WriteOptions::default()).unwrap();
    assert!(dir.join("messages.parquet").is_file());
    let opts = WriteOptions {
        parquet: false,
        ..Default::default()
    };
    write_results(&dir, &[run_output(0, 1)], &opts).unwrap();
    assert!(
        !dir.join("messages.parquet").exists(),
        "stale parquet removed"
    );
    let csv = std::fs::read_to_string(dir.join("messages.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `write_results_with` runs the whole commit, and only the commit, through
/// its `around`: before it the directory holds the earlier result (the new
/// files complete in the partial directory), after it the new one; an
/// `around` that does not run it is an error, not a panic, and changes
/// nothing (session 31: `mptlab run` commits under its interrupt
/// handler's lock).
#[test]
fn the_commit_runs_through_around() {
    let dir = tmpdir("around");
    write_results(&dir, &[run_output(0, 2)], &WriteOptions::default()).unwrap();
    let summary = dir.join(SUMMARY_FILE);
    let earlier = std::fs::read(&summary).unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    let around = |commit: &mut dyn FnMut()| {
        let partial = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(".partial-"));
        let staged = partial.is_some_and(|p| p.path().join(SUMMARY_FILE).is_file());
        seen.borrow_mut().push((
            staged,
            std::fs::read(&summary).ok() == Some(earlier.clone()),
        ));
        commit();
        seen.borrow_mut()
            .push((false, std::fs::read(&summary).ok() == Some(earlier.clone())));
    };
    // two runs where there was one: another summary.json
    let two = [run_output(0, 1), run_output(1, 1)];
    write_results_with(&dir, &two, &WriteOptions::default(), &around).unwrap();
    // before: every new file staged, the earlier result in place; after: replaced
    assert_eq!(*seen.borrow(), [(true, true), (false, false)]);
    let now = std::fs::read(&summary).unwrap();
    let e = write_results_with(&dir, &[run_output(0, 2)], &WriteOptions::default(), &|_| {})
        .unwrap_err();
    assert!(e.0.contains("the write's commit was not run"), "{e}");
    assert_eq!(std::fs::read(&summary).unwrap(), now, "nothing changed");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// docs/results.md documents every standard table's columns, in order and
/// with their types, as the typed rows define them (a renamed, added or
/// reordered field must be documented).
#[test]
fn docs_list_the_row_columns() {
    use crate::rows::{standard_schemas, CounterCells};
    let doc = include_str!("../../../docs/results.md");
    let section = |title: &str| -> &str {
        let start = doc
            .find(&format!("\n### {title}\n"))
            .unwrap_or_else(|| panic!("docs/results.md has no section `{title}`"));
        let rest = &doc[start + title.len() + 6..];
        &rest[..rest.find("\n#").unwrap_or(rest.len())]
    };
    let backticked = |s: &str| -> Vec<String> {
        s.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    for (table, cols) in standard_schemas() {
        let mut documented: Vec<(String, String)> = Vec::new();
        for line in section(table).lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if cells.len() < 4 || cells[1] == "column" || cells[1].starts_with("---") {
                continue;
            }
            let ty = cells[2].to_string();
            if cells[1] == "counters" {
                documented.extend(
                    CounterCells::COLUMNS
                        .iter()
                        .map(|c| (c.to_string(), ty.clone())),
                );
            } else {
                documented.extend(backticked(cells[1]).into_iter().map(|c| (c, ty.clone())));
            }
        }
        let names: Vec<&str> = documented.iter().map(|d| d.0.as_str()).collect();
        let want: Vec<&str> = cols.iter().map(|c| c.0).collect();
        assert_eq!(names, want, "docs/results.md, table `{table}`");
        for ((n, ty), (_, t)) in documented.iter().zip(&cols) {
            // a row naming several columns may leave the type to the text
            assert!(
                ty.is_empty() || *ty == t.to_string(),
                "{table}.{n}: documented {ty}, is {t}"
            );
        }
    }
    let counters = backticked(section("Counters (flows and paths)"));
    assert_eq!(counters, CounterCells::COLUMNS, "docs/results.md, Counters");
}

/// A table built by consuming its rows (`Row::into_table`, the strings
/// moved) equals the one built from references (`Row::table`), nulls and
/// the counters' columns included.
#[test]
fn into_table_equals_table() {
    let rows: Vec<MessageRow> = (0..5u64)
        .map(|i| {
            MessageRow::from_times(
                i % 2,
                format!("flow-{i}"),
                i,
                100 * i,
                i * 1_000_000,
                (i != 3).then_some(i * 2_000_000),
                (i == 1).then_some(5_000.0),
            )
        })
        .collect();
    let by_ref = MessageRow::table(&rows);
    assert_eq!(by_ref.num_rows(), 5);
    assert_eq!(MessageRow::into_table(rows), by_ref);
    let paths = vec![PathRow {
        flow: 1,
        label: "bg".into(),
        role: "background".into(),
        side: "client".into(),
        path: 2,
        local_addr: "10.0.0.1".into(),
        remote_addr: "10.0.0.2".into(),
        share_bytes: Some(0.5),
        share_packets: None,
        counters: CounterCells {
            bytes_sent: Some(7),
            ..Default::default()
        },
    }];
    assert_eq!(PathRow::into_table(paths.clone()), PathRow::table(&paths));
}
