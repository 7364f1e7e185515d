//! The standard result tables (documented in `docs/results.md`). The engine
//! creates them with these functions and fills rows with `push_row` /
//! `push_named`; the writer adds `run` and `seed` in front of every row.
//! Times are in ms since the start of the run; missing values are nulls.

use crate::table::{ColumnType::*, Table};

pub const MESSAGES: &str = "messages";
pub const TRANSFERS: &str = "transfers";
pub const FLOWS: &str = "flows";
pub const PATHS: &str = "paths";
pub const LINKS: &str = "links";
pub const TIMESERIES: &str = "timeseries";

/// Standard table names, in the order they are written.
pub const STANDARD: &[&str] = &[MESSAGES, TRANSFERS, FLOWS, PATHS, LINKS, TIMESERIES];

/// One row per application message (video frame, game update, datagram).
pub fn messages() -> Table {
    Table::with_schema(
        MESSAGES,
        &[
            ("flow", U64),
            ("msg_id", U64),
            ("bytes", U64),
            ("send_time_ms", F64),
            ("delivery_time_ms", F64),
            ("delay_ms", F64),
            ("jitter_ms", F64),
        ],
    )
}

/// One row per completed (or unfinished) transfer: web page or file.
pub fn transfers() -> Table {
    Table::with_schema(
        TRANSFERS,
        &[
            ("flow", U64),
            ("app", Str),
            ("kind", Str),
            ("objects", U64),
            ("bytes", U64),
            ("start_ms", F64),
            ("end_ms", F64),
            ("completion_time_ms", F64),
        ],
    )
}

/// Per-flow transport counters (summed over the flow's paths).
pub fn flows() -> Table {
    Table::with_schema(
        FLOWS,
        &[
            ("flow", U64),
            ("role", Str),
            ("protocol", Str),
            ("cc", Str),
            ("bytes_sent", U64),
            ("bytes_delivered", U64),
            ("packets_sent", U64),
            ("packets_received", U64),
            ("bytes_retransmitted", U64),
            ("retrans_fast", U64),
            ("retrans_rto", U64),
            ("retrans_tlp", U64),
            ("retrans_spurious", U64),
            ("rto_events", U64),
            ("tlp_probes", U64),
            ("recoveries", U64),
            ("bytes_reinjected", U64),
            ("start_ms", F64),
            ("end_ms", F64),
            ("throughput_mbit", F64),
        ],
    )
}

/// Per-flow, per-path counters (one row per subflow / destination).
pub fn paths() -> Table {
    Table::with_schema(
        PATHS,
        &[
            ("flow", U64),
            ("path", U64),
            ("local_addr", Str),
            ("remote_addr", Str),
            ("packets_sent", U64),
            ("data_packets_sent", U64),
            ("bytes_sent", U64),
            ("packets_received", U64),
            ("bytes_received", U64),
            ("share_bytes", F64),
            ("share_packets", F64),
            ("bytes_retransmitted", U64),
            ("retrans_fast", U64),
            ("retrans_rto", U64),
            ("retrans_tlp", U64),
            ("retrans_spurious", U64),
            ("rto_events", U64),
            ("tlp_probes", U64),
            ("recoveries", U64),
            ("dup_acks", U64),
            ("ooo_segments", U64),
            ("bytes_reinjected", U64),
            ("bytes_probe_extra", U64),
            ("penalizations", U64),
        ],
    )
}

/// Per-link, per-direction counters.
pub fn links() -> Table {
    Table::with_schema(
        LINKS,
        &[
            ("link", Str),
            ("direction", Str),
            ("bytes", U64),
            ("packets", U64),
            ("drops_queue", U64),
            ("drops_random", U64),
            ("drops_outage", U64),
            ("max_queue_packets", U64),
            ("max_queue_bytes", U64),
        ],
    )
}

/// Long-format time series: one row per (time, flow, path, metric).
pub fn timeseries() -> Table {
    Table::with_schema(
        TIMESERIES,
        &[
            ("t_ms", F64),
            ("flow", U64),
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
