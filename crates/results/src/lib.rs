//! mptlab-results: result tables and their writers.
//!
//! * [`Table`]: a small typed columnar table (u64/i64/f64/string/bool
//!   columns, every value optional), with [`row!`] / [`Table::push_row`] /
//!   [`Table::push_named`] to append rows.
//! * [`rows`]: the standard tables as typed rows, each defined once
//!   ([`rows::Row`]); [`schema`]: their names and empty tables (see
//!   `docs/results.md`).
//! * [`RunOutput`]: what one run produces; [`merge_runs`] tags rows with `run`
//!   and `seed`; [`write_results`] writes CSV, Parquet and `summary.json`
//!   atomically; [`write_tables`] writes tables merged elsewhere (sweeps).
//! * [`summary`]: the per-run summary metrics both drivers report.
//! * [`stats`]: confidence intervals, box plots, path shares for summaries.
//! * [`runfile`]: one run as a JSON document (sweep persistence).
//! * [`unfinished`]: counts of transfers and messages a run did not complete.

pub mod csv;
mod jsonscan;
mod output;
pub mod parquet_writer;
pub mod records;
pub mod rows;
pub mod runfile;
pub mod schema;
pub mod stats;
pub mod summary;
mod table;
pub mod unfinished;

pub use csv::{read_csv, write_csv};
pub use output::{
    aggregate, merge_runs, probe_writable, result_files_in, summary_json, write_results,
    write_results_with, write_tables, AroundCommit, RunOutput, Stats, WriteError, WriteOptions,
    SUMMARY_FILE,
};
pub use parquet_writer::write_parquet;
pub use rows::{
    CounterCells, FlowRow, LinkRow, MessageRow, PathRow, Row, TimeseriesRow, TransferRow,
};
pub use runfile::{decode_run, decode_run_tables, encode_run};
pub use table::{Column, ColumnData, ColumnType, Table, TableError, Value};
pub use unfinished::Unfinished;

#[cfg(test)]
mod tests;
