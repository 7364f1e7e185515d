//! The standard result tables (documented in `docs/results.md`). The engine
//! creates them with these functions and fills rows with `push_row` /
//! `push_named`; the writer adds `run` and `seed` in front of every row.
//! Times are in ms since the start of the run; missing values are nulls.

use crate::table::{ColumnType, ColumnType::*, Table};

pub const MESSAGES: &str = "messages";
pub const TRANSFERS: &str = "transfers";
pub const FLOWS: &str = "flows";
pub const PATHS: &str = "paths";
pub const LINKS: &str = "links";
pub const TIMESERIES: &str = "timeseries";

pub const STANDARD: &[&str] = &[MESSAGES, TRANSFERS, FLOWS, PATHS, LINKS, TIMESERIES];

/// Per-endpoint counters (mptlab-core `endpoint::Counters`), in this order,
/// at the end of the flows and paths tables.
pub const COUNTERS: &[&str] = &[
    "packets_sent",
    "data_packets_sent",
    "bytes_sent",
    "bytes_retransmitted",
    "packets_received",
    "data_packets_received",
    "bytes_received",
    "retrans_fast",
    "retrans_rto",
    "retrans_tlp",
    "retrans_spurious",
    "rto_events",
    "tlp_probes",
    "recoveries",
    "dup_acks",
    "ooo_segments",
    "bytes_reinjected",
    "bytes_probe_extra",
    "penalizations",
];

fn with_counters(name: &str, lead: &[(&str, ColumnType)]) -> Table {
    let mut s = lead.to_vec();
    s.extend(COUNTERS.iter().map(|c| (*c, U64)));
    Table::with_schema(name, &s)
}

/// One row per application message (video frame, game packet, burst);
/// `completed`: delivered whole before the run ended (see `crate::unfinished`).
pub fn messages() -> Table {
    Table::with_schema(
        MESSAGES,
        &[
            ("flow", U64),
            ("flow_label", Str),
            ("msg_id", U64),
            ("bytes", U64),
            ("send_time_ms", F64),
            ("delivery_time_ms", F64),
            ("delay_ms", F64),
            ("jitter_ms", F64),
            ("completed", Bool),
        ],
    )
}

/// One row per finite transfer (web page, file); `completed`: its last byte
/// was delivered before the run ended.
pub fn transfers() -> Table {
    Table::with_schema(
        TRANSFERS,
        &[
            ("flow", U64),
            ("label", Str),
            ("kind", Str),
            ("objects", U64),
            ("bytes", U64),
            ("start_ms", F64),
            ("end_ms", F64),
            ("completion_time_ms", F64),
            ("completed", Bool),
        ],
    )
}

/// One row per flow: both endpoints' counters summed over paths.
pub fn flows() -> Table {
    with_counters(
        FLOWS,
        &[
            ("flow", U64),
            ("label", Str),
            ("role", Str),
            ("protocol", Str),
            ("bytes_delivered", U64),
            ("throughput_mbit", F64),
            ("messages_refused", U64),
        ],
    )
}

/// One row per flow, side (client/server) and path.
pub fn paths() -> Table {
    with_counters(
        PATHS,
        &[
            ("flow", U64),
            ("label", Str),
            ("role", Str),
            ("side", Str),
            ("path", U64),
            ("local_addr", Str),
            ("remote_addr", Str),
            ("share_bytes", F64),
            ("share_packets", F64),
        ],
    )
}

/// One row per link direction.
pub fn links() -> Table {
    Table::with_schema(
        LINKS,
        &[
            ("link", Str),
            ("direction", Str),
            ("from", Str),
            ("to", Str),
            ("packets_offered", U64),
            ("bytes_offered", U64),
            ("packets_delivered", U64),
            ("bytes_delivered", U64),
            ("drops_queue", U64),
            ("drops_loss", U64),
            ("drops_outage", U64),
            ("max_queue_packets", U64),
            ("max_queue_bytes", U64),
            ("mean_queue_delay_ms", F64),
        ],
    )
}

/// Long-format time series: one row per (time, flow, side, path, metric).
pub fn timeseries() -> Table {
    Table::with_schema(
        TIMESERIES,
        &[
            ("t_ms", F64),
            ("flow", U64),
            ("label", Str),
            ("side", Str),
            ("path", U64),
            ("metric", Str),
            ("value", F64),
        ],
    )
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
