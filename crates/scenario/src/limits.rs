//! Documented bounds on scenario values (docs/scenario.md, "Limits"). Each
//! keeps a run's memory, time arithmetic or output within what the machine
//! and the integer types can hold; values beyond them are refused by
//! validation with the key named, before anything is allocated.

/// `scenario.duration_s`: 10^7 s (116 days) of simulated time, so every time
/// in nanoseconds (u64) stays below 10^16, far from overflow (1.8e19).
pub const MAX_DURATION_S: f64 = 1e7;

/// `scenario.runs` (and `--runs`): every run's output is kept in memory
/// until the tables are written.
pub const MAX_RUNS: u32 = 100_000;

/// Points of a `[sweep]` grid (axes x explicit points). Checked on the
/// product of the axis lengths before the grid is built; each point is a
/// validated scenario held in memory, about 8.5 KB (`mptlab check` of an
/// 81,000-point two-path grid: 692 MB resident, 2.7 s).
pub const MAX_SWEEP_POINTS: u64 = 100_000;

/// Points x runs of a sweep: the resumable store lists every pending run.
pub const MAX_SWEEP_RUNS: u64 = 10_000_000;

/// Lowest link rate, Mbit/s (1 kbit/s). The simulator counts whole bit/s,
/// so smaller rates round to a link that never sends; at 1 kbit/s one
/// 1500-byte packet already takes 12 s to serialise.
pub const MIN_RATE_MBIT: f64 = 0.001;

/// Highest link rate, Mbit/s (1 Tbit/s).
pub const MAX_RATE_MBIT: f64 = 1e6;

/// Time-series samples per run (`scenario.duration_s` / `timeseries_interval_ms`).
/// Every sample is a row per path and flow, kept in memory until the run
/// ends: about 1 KB per sample for a two-path MPTCP run (10 s at 0.01 ms,
/// 10^6 samples: 1.0 GB resident, 109 MB of CSV), so 10^5 samples stay near
/// 100 MB per run, and every parallel job holds one run.
pub const MAX_TIMESERIES_SAMPLES: u64 = 100_000;

/// `background.tcp_flows` per access path: each is a full TCP connection
/// with its own buffers and a port of its own (ports 50000-65535 are shared
/// by all background flows of a run).
pub const MAX_BACKGROUND_TCP_FLOWS: u32 = 1000;

/// Background flows of a run (TCP and UDP, all paths): each needs a port of
/// its own, and the background ports are 50000-65535.
pub const MAX_BACKGROUND_FLOWS: u32 = 15_000;

/// A `file` transfer, a `web` object or a burst: at most 2^53 bytes, the
/// largest byte count the result tables (f64) hold exactly.
pub const MAX_TRANSFER_BYTES: u64 = 1 << 53;

/// Timestamps of link and gaming traces, ms (the same bound as
/// `MAX_DURATION_S`): one period of a trace cannot be longer than a run can
/// be, and times in nanoseconds stay far below u64 overflow.
pub const MAX_TRACE_MS: u64 = mptlab_core::trace::MAX_TIMESTAMP_MS;
