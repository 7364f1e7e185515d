//! mptlab-results: result tables and their writers.
//!
//! * [`Table`]: a small typed columnar table (u64/i64/f64/string/bool
//!   columns, every value optional), with [`row!`] / [`Table::push_row`] /
//!   [`Table::push_named`] to append rows.
//! * [`schema`]: the standard tables every driver fills (see `docs/results.md`).
//! * [`RunOutput`]: what one run produces; [`merge_runs`] tags rows with `run`
//!   and `seed`; [`write_results`] writes CSV, Parquet and `summary.json`
//!   atomically.

pub mod csv;
mod output;
pub mod parquet_writer;
pub mod schema;
mod table;

pub use csv::{read_csv, write_csv};
pub use output::{
    aggregate, merge_runs, summary_json, write_results, RunOutput, Stats, WriteError, WriteOptions,
    SUMMARY_FILE,
};
pub use parquet_writer::write_parquet;
pub use table::{Column, ColumnData, ColumnType, Table, TableError, Value};

#[cfg(test)]
mod tests;
