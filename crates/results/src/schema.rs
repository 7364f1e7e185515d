//! The standard result tables (documented in `docs/results.md`): their
//! names and empty tables. Their columns are defined once, as the typed rows
//! of [`crate::rows`]; drivers fill them with those rows, the writer adds
//! `run` and `seed` in front of every row. Times are in ms since the start
//! of the run; missing values are nulls.

use crate::rows::{
    CounterCells, FlowRow, LinkRow, MessageRow, PathRow, Row, TimeseriesRow, TransferRow,
};
use crate::table::Table;

pub const MESSAGES: &str = "messages";
pub const TRANSFERS: &str = "transfers";
pub const FLOWS: &str = "flows";
pub const PATHS: &str = "paths";
pub const LINKS: &str = "links";
pub const TIMESERIES: &str = "timeseries";

pub const STANDARD: &[&str] = &[MESSAGES, TRANSFERS, FLOWS, PATHS, LINKS, TIMESERIES];

/// Per-endpoint counters (mptlab-core `endpoint::Counters`), in this order,
/// at the end of the flows and paths tables ([`CounterCells`]).
pub const COUNTERS: &[&str] = CounterCells::COLUMNS;

/// Empty messages table ([`MessageRow`]).
pub fn messages() -> Table {
    MessageRow::empty()
}

/// Empty transfers table ([`TransferRow`]).
pub fn transfers() -> Table {
    TransferRow::empty()
}

/// Empty flows table ([`FlowRow`]).
pub fn flows() -> Table {
    FlowRow::empty()
}

/// Empty paths table ([`PathRow`]).
pub fn paths() -> Table {
    PathRow::empty()
}

/// Empty links table ([`LinkRow`]).
pub fn links() -> Table {
    LinkRow::empty()
}

/// Empty timeseries table ([`TimeseriesRow`]).
pub fn timeseries() -> Table {
    TimeseriesRow::empty()
}

/// The empty standard table called `name`.
pub fn standard(name: &str) -> Option<Table> {
    Some(match name {
        MESSAGES => messages(),
        TRANSFERS => transfers(),
        FLOWS => flows(),
        PATHS => paths(),
        LINKS => links(),
        TIMESERIES => timeseries(),
        _ => return None,
    })
}
