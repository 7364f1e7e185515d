//! The standard result tables as typed rows, each defined once.
//!
//! Every table (messages, transfers, flows, paths, links, timeseries) is a
//! struct here whose fields are its columns, in column order. The
//! [`result_row!`] macro derives from that one definition the column list
//! (name and type) the writers and `crate::schema` use, the conversion of a
//! row into cells ([`Row::cells`]), reading a row back from a table
//! ([`Row::read`]), and a struct of column names ([`Row::COL`]) for code that
//! reads one column of a table by name. So the schema and the code that fills
//! it cannot disagree, and no driver (simulator, emulator) fills a table by
//! position.
//!
//! The per-endpoint counters (mptlab-core `endpoint::Counters`) map to
//! columns in one place, [`CounterCells`], which the flows and paths rows end
//! with.

use crate::stats::opt_ms;
use crate::table::{ColumnType, Table, TableError, Value};
use mptlab_core::endpoint::Counters;
use mptlab_core::link::LinkStats;
use mptlab_core::time::{to_ms, Nanos};

/// A field type that is one table column.
pub trait Cell: Sized {
    const TYPE: ColumnType;
    fn value(&self) -> Value;
    /// `value`, consuming the field (a string is moved, not copied).
    fn into_value(self) -> Value {
        self.value()
    }
    /// The field from a cell of its column; `None` if the cell does not fit
    /// (e.g. null in a column the row requires).
    fn from_value(v: Value) -> Option<Self>;
}

impl Cell for u64 {
    const TYPE: ColumnType = ColumnType::U64;
    fn value(&self) -> Value {
        Value::U64(*self)
    }
    fn from_value(v: Value) -> Option<Self> {
        match v {
            Value::U64(x) => Some(x),
            Value::I64(x) => u64::try_from(x).ok(),
            _ => None,
        }
    }
}

impl Cell for f64 {
    const TYPE: ColumnType = ColumnType::F64;
    fn value(&self) -> Value {
        Value::F64(*self)
    }
    fn from_value(v: Value) -> Option<Self> {
        match v {
            Value::Null | Value::Str(_) | Value::Bool(_) => None,
            v => v.as_f64(),
        }
    }
}

impl Cell for bool {
    const TYPE: ColumnType = ColumnType::Bool;
    fn value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(v: Value) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl Cell for String {
    const TYPE: ColumnType = ColumnType::Str;
    fn value(&self) -> Value {
        Value::Str(self.clone())
    }
    fn into_value(self) -> Value {
        Value::Str(self)
    }
    fn from_value(v: Value) -> Option<Self> {
        match v {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A nullable column: `None` is a missing value.
impl<T: Cell> Cell for Option<T> {
    const TYPE: ColumnType = T::TYPE;
    fn value(&self) -> Value {
        self.as_ref().map_or(Value::Null, Cell::value)
    }
    fn into_value(self) -> Value {
        self.map_or(Value::Null, Cell::into_value)
    }
    fn from_value(v: Value) -> Option<Self> {
        match v {
            Value::Null => Some(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// One cell of `t` read as a field, or an error naming table, row and column.
fn read_cell<T: Cell>(t: &Table, row: usize, column: &str) -> Result<T, TableError> {
    let v = t.get(row, column).ok_or_else(|| {
        TableError(format!(
            "table `{}`: no column `{column}` (or no row {row})",
            t.name
        ))
    })?;
    let shown = format!("{v:?}");
    T::from_value(v).ok_or_else(|| {
        TableError(format!(
            "table `{}`, row {row}: column `{column}` holds {shown}, expected {}{}",
            t.name,
            T::TYPE,
            if shown == "Null" { " (not null)" } else { "" }
        ))
    })
}

/// A typed row of a standard table.
pub trait Row: Sized {
    /// The table's name (`crate::schema::FLOWS` etc.).
    const TABLE: &'static str;
    /// The names of the columns, as a struct with one field per column.
    type Names: 'static;
    const COL: Self::Names;
    /// (name, type) of every column, in order.
    fn columns() -> Vec<(&'static str, ColumnType)>;
    /// The row's cells, in column order.
    fn cells(&self) -> Vec<Value>;
    /// `cells`, consuming the row.
    fn into_cells(self) -> Vec<Value>;
    /// Row `row` of `t`, found by column name (extra columns such as `run`
    /// and `seed` are ignored).
    fn read(t: &Table, row: usize) -> Result<Self, TableError>;

    /// An empty table with this row's schema.
    fn empty() -> Table {
        Table::with_schema(Self::TABLE, &Self::columns())
    }
    /// A table of these rows.
    fn table<'a>(rows: impl IntoIterator<Item = &'a Self>) -> Table
    where
        Self: 'a,
    {
        let rows = rows.into_iter();
        let mut t = Self::empty();
        t.reserve(rows.size_hint().0);
        for r in rows {
            t.push_row(r.cells())
                .expect("cells and columns come from one definition");
        }
        t
    }
    /// [`Row::table`], consuming the rows (their strings are moved into
    /// the table, not copied: a gaming run has ~7,300 message rows).
    fn into_table(rows: Vec<Self>) -> Table {
        let mut t = Self::empty();
        t.reserve(rows.len());
        for r in rows {
            t.push_row(r.into_cells())
                .expect("cells and columns come from one definition");
        }
        t
    }
    /// Every row of `t`.
    fn read_all(t: &Table) -> Result<Vec<Self>, TableError> {
        (0..t.num_rows()).map(|i| Self::read(t, i)).collect()
    }
}

/// Defines a row struct, the struct of its column names, and its [`Row`]
/// implementation from one list of fields (each a [`Cell`] type); a final
/// `counters: CounterCells` field stands for the counter columns.
macro_rules! result_row {
    (
        $(#[$m:meta])*
        pub struct $row:ident / $names:ident in $table:path {
            $( $(#[$fm:meta])* pub $f:ident : $t:ty, )*
        }
        $( with pub $cf:ident : CounterCells )?
    ) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $row {
            $( $(#[$fm])* pub $f: $t, )*
            $( pub $cf: CounterCells, )?
        }

        #[doc = concat!("The column names of [`", stringify!($row), "`].")]
        #[derive(Clone, Copy, Debug)]
        pub struct $names {
            $( pub $f: &'static str, )*
            $( pub $cf: CounterNames, )?
        }

        impl Row for $row {
            const TABLE: &'static str = $table;
            type Names = $names;
            const COL: $names = $names {
                $( $f: stringify!($f), )*
                $( $cf: CounterCells::COL, )?
            };
            fn columns() -> Vec<(&'static str, ColumnType)> {
                #[allow(unused_mut)]
                let mut v = vec![$( (stringify!($f), <$t as Cell>::TYPE), )*];
                // `$cf` named only so that this optional group repeats with it
                $( let _ = stringify!($cf);
                   v.extend(CounterCells::COLUMNS.iter().map(|c| (*c, ColumnType::U64))); )?
                v
            }
            fn cells(&self) -> Vec<Value> {
                #[allow(unused_mut)]
                let mut v = vec![$( Cell::value(&self.$f), )*];
                $( self.$cf.push_cells(&mut v); )?
                v
            }
            fn into_cells(self) -> Vec<Value> {
                #[allow(unused_mut)]
                let mut v = vec![$( Cell::into_value(self.$f), )*];
                $( self.$cf.push_cells(&mut v); )?
                v
            }
            fn read(t: &Table, row: usize) -> Result<Self, TableError> {
                Ok($row {
                    $( $f: read_cell(t, row, stringify!($f))?, )*
                    $( $cf: CounterCells::read(t, row)?, )?
                })
            }
        }
    };
}

/// Defines [`CounterCells`] and [`CounterNames`] from the list of
/// mptlab-core `Counters` fields, in column order.
macro_rules! counter_cells {
    ($($f:ident),* $(,)?) => {
        /// The per-endpoint counters as table cells, one nullable `u64`
        /// column each, named and ordered as listed here (the end of the
        /// flows and paths tables). The simulator fills every one from
        /// mptlab-core's `Counters`; emulation leaves null what the kernel's
        /// `tcp_info` does not expose.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct CounterCells {
            $( pub $f: Option<u64>, )*
        }

        /// The counter column names.
        #[derive(Clone, Copy, Debug)]
        pub struct CounterNames {
            $( pub $f: &'static str, )*
        }

        impl CounterCells {
            /// The counter columns, in order.
            pub const COLUMNS: &'static [&'static str] = &[$( stringify!($f), )*];
            pub const COL: CounterNames = CounterNames { $( $f: stringify!($f), )* };

            /// Add `o` counter by counter; a null stays null unless `o` has
            /// a value there.
            pub fn add(&mut self, o: &CounterCells) {
                $( if let Some(y) = o.$f {
                    self.$f = Some(self.$f.unwrap_or(0) + y);
                } )*
            }
            fn push_cells(&self, out: &mut Vec<Value>) {
                $( out.push(Cell::value(&self.$f)); )*
            }
            fn read(t: &Table, row: usize) -> Result<Self, TableError> {
                Ok(CounterCells { $( $f: read_cell(t, row, stringify!($f))?, )* })
            }
        }

        impl From<&Counters> for CounterCells {
            fn from(c: &Counters) -> Self {
                // No `..`: a counter added to mptlab-core's `Counters` but
                // not listed here is a compile error, not a missing column.
                let Counters { $( $f, )* } = c;
                CounterCells { $( $f: Some(*$f), )* }
            }
        }
    };
}

counter_cells!(
    packets_sent,
    data_packets_sent,
    bytes_sent,
    bytes_retransmitted,
    packets_received,
    data_packets_received,
    bytes_received,
    retrans_fast,
    retrans_rto,
    retrans_tlp,
    retrans_spurious,
    rto_events,
    tlp_probes,
    recoveries,
    dup_acks,
    ooo_segments,
    bytes_reinjected,
    bytes_probe_extra,
    penalizations,
    wnd_overshoots,
    wnd_drops,
    msk_retrans,
);

result_row! {
    /// One row per application message (video frame, game packet, burst);
    /// `completed`: delivered whole before the run ended (see
    /// `crate::unfinished`). Times in ms since the start of the run.
    pub struct MessageRow / MessageColumns in crate::schema::MESSAGES {
        pub flow: u64,
        pub flow_label: String,
        pub msg_id: u64,
        pub bytes: u64,
        pub send_time_ms: f64,
        /// When the last byte reached the receiving application in order.
        pub delivery_time_ms: Option<f64>,
        pub delay_ms: Option<f64>,
        /// RFC 3550 interarrival jitter estimate after this message.
        pub jitter_ms: Option<f64>,
        pub completed: bool,
    }
}

result_row! {
    /// One row per finite transfer (web page, file); `completed`: its last
    /// byte was delivered before the run ended.
    pub struct TransferRow / TransferColumns in crate::schema::TRANSFERS {
        pub flow: u64,
        pub label: String,
        pub kind: String,
        pub objects: u64,
        pub bytes: u64,
        pub start_ms: f64,
        pub end_ms: Option<f64>,
        pub completion_time_ms: Option<f64>,
        pub completed: bool,
    }
}

/// Both drivers fill the messages and transfers tables from their times in
/// ns through these, so a delay or a completion time is derived in one place.
impl MessageRow {
    /// Message `msg_id` of `bytes`, generated at `send` and delivered whole
    /// at `delivery` (`None`: not before the run ended), with the RFC 3550
    /// jitter estimate after it (`jitter_ns`, ns).
    pub fn from_times(
        flow: u64,
        flow_label: String,
        msg_id: u64,
        bytes: u64,
        send: Nanos,
        delivery: Option<Nanos>,
        jitter_ns: Option<f64>,
    ) -> Self {
        let delay = delivery.map(|d| d.saturating_sub(send));
        MessageRow {
            flow,
            flow_label,
            msg_id,
            bytes,
            send_time_ms: to_ms(send),
            delivery_time_ms: opt_ms(delivery),
            delay_ms: opt_ms(delay),
            jitter_ms: jitter_ns.map(|j| j / 1e6),
            completed: delivery.is_some(),
        }
    }
}

impl TransferRow {
    /// A transfer started at `start` and finished at `end` (`None`: not
    /// before the run ended).
    pub fn from_times(
        flow: u64,
        label: String,
        kind: &str,
        objects: u64,
        bytes: u64,
        start: Nanos,
        end: Option<Nanos>,
    ) -> Self {
        let ct = end.map(|e| e.saturating_sub(start));
        TransferRow {
            flow,
            label,
            kind: kind.into(),
            objects,
            bytes,
            start_ms: to_ms(start),
            end_ms: opt_ms(end),
            completion_time_ms: opt_ms(ct),
            completed: end.is_some(),
        }
    }
}

result_row! {
    /// One row per flow: both endpoints' counters summed over paths.
    pub struct FlowRow / FlowColumns in crate::schema::FLOWS {
        pub flow: u64,
        pub label: String,
        /// `foreground` or `background`.
        pub role: String,
        pub protocol: String,
        /// Bytes delivered in order to the applications (goodput).
        pub bytes_delivered: u64,
        pub throughput_mbit: f64,
        /// Messages the send call refused (SCTP `EMSGSIZE`).
        pub messages_refused: u64,
    }
    with pub counters: CounterCells
}

result_row! {
    /// One row per flow, side (client/server) and path.
    pub struct PathRow / PathColumns in crate::schema::PATHS {
        pub flow: u64,
        pub label: String,
        pub role: String,
        /// `client` or `server`.
        pub side: String,
        /// The client access path (1-based).
        pub path: u64,
        pub local_addr: String,
        pub remote_addr: String,
        /// This path's share of the side's payload bytes / data packets sent
        /// (null when the side sent none).
        pub share_bytes: Option<f64>,
        pub share_packets: Option<f64>,
    }
    with pub counters: CounterCells
}

result_row! {
    /// One row per link direction.
    pub struct LinkRow / LinkColumns in crate::schema::LINKS {
        pub link: String,
        /// `up` or `down`.
        pub direction: String,
        pub from: String,
        pub to: String,
        pub packets_offered: u64,
        pub bytes_offered: u64,
        pub packets_delivered: u64,
        pub bytes_delivered: u64,
        pub drops_queue: u64,
        pub drops_loss: u64,
        pub drops_outage: u64,
        pub max_queue_packets: u64,
        pub max_queue_bytes: u64,
        /// Null when no packet was sent.
        pub mean_queue_delay_ms: Option<f64>,
    }
}

result_row! {
    /// Long-format time series: one row per (time, flow, side, path, metric).
    pub struct TimeseriesRow / TimeseriesColumns in crate::schema::TIMESERIES {
        pub t_ms: f64,
        pub flow: u64,
        pub label: String,
        pub side: String,
        pub path: u64,
        pub metric: String,
        pub value: f64,
    }
}

/// The `metric` values of the time series.
impl TimeseriesRow {
    /// Payload bytes sent on the path in the last interval (retransmissions
    /// included), Mbit/s.
    pub const SEND_MBIT: &'static str = "send_mbit";
    /// With `output.cwnd_series`: congestion window, bytes.
    pub const CWND_BYTES: &'static str = "cwnd_bytes";
    /// With `output.cwnd_series`: smoothed RTT, ms.
    pub const SRTT_MS: &'static str = "srtt_ms";
    /// With `output.cwnd_series`, once ssthresh is finite (simulator only).
    pub const SSTHRESH_BYTES: &'static str = "ssthresh_bytes";
}

impl LinkRow {
    /// The row of one link direction from its model's counters (the
    /// simulator's links and the emulator's, which run the same model).
    pub fn of(link: &str, direction: &str, from: &str, to: &str, s: &LinkStats) -> LinkRow {
        // packets that reached serialisation: the queueing delay's denominator
        let sent = s.packets_offered - s.drops_queue - s.drops_outage;
        LinkRow {
            link: link.into(),
            direction: direction.into(),
            from: from.into(),
            to: to.into(),
            packets_offered: s.packets_offered,
            bytes_offered: s.bytes_offered,
            packets_delivered: s.packets_delivered,
            bytes_delivered: s.bytes_delivered,
            drops_queue: s.drops_queue,
            drops_loss: s.drops_loss,
            drops_outage: s.drops_outage,
            max_queue_packets: s.max_queue_packets,
            max_queue_bytes: s.max_queue_bytes,
            mean_queue_delay_ms: (sent > 0).then(|| s.queue_delay_sum as f64 / sent as f64 / 1e6),
        }
    }
}

/// The share `part / whole` of a path, null when the whole is 0.
pub fn share(part: u64, whole: u64) -> Option<f64> {
    (whole != 0).then(|| part as f64 / whole as f64)
}

/// The (name, type) columns of every standard table, in documented order
/// (for the Python API and docs checks).
pub fn standard_schemas() -> Vec<(&'static str, Vec<(&'static str, ColumnType)>)> {
    vec![
        (MessageRow::TABLE, MessageRow::columns()),
        (TransferRow::TABLE, TransferRow::columns()),
        (FlowRow::TABLE, FlowRow::columns()),
        (PathRow::TABLE, PathRow::columns()),
        (LinkRow::TABLE, LinkRow::columns()),
        (TimeseriesRow::TABLE, TimeseriesRow::columns()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one derivation of delays and completion times both drivers use.
    #[test]
    fn rows_from_times() {
        use mptlab_core::time::MS;
        let m = MessageRow::from_times(1, "fg".into(), 7, 1200, 10 * MS, Some(35 * MS), Some(2e6));
        assert_eq!((m.send_time_ms, m.delivery_time_ms), (10.0, Some(35.0)));
        assert_eq!(
            (m.delay_ms, m.jitter_ms, m.completed),
            (Some(25.0), Some(2.0), true)
        );
        let lost = MessageRow::from_times(1, "fg".into(), 8, 1200, 10 * MS, None, None);
        assert_eq!((lost.delay_ms, lost.completed), (None, false));
        let t =
            TransferRow::from_times(0, "file".into(), "file", 1, 5000, 100 * MS, Some(350 * MS));
        assert_eq!((t.kind.as_str(), t.end_ms), ("file", Some(350.0)));
        assert_eq!((t.completion_time_ms, t.completed), (Some(250.0), true));
        let open = TransferRow::from_times(0, "page".into(), "page", 3, 9000, MS, None);
        assert_eq!(
            (open.end_ms, open.completion_time_ms, open.completed),
            (None, None, false)
        );
    }

    fn path_row() -> PathRow {
        PathRow {
            flow: 2,
            label: "fg".into(),
            role: "foreground".into(),
            side: "server".into(),
            path: 1,
            local_addr: "10.0.0.1".into(),
            remote_addr: "10.0.1.1".into(),
            share_bytes: Some(0.25),
            share_packets: None,
            counters: CounterCells {
                bytes_sent: Some(7),
                retrans_fast: None,
                ..CounterCells::from(&Counters {
                    packets_sent: 3,
                    penalizations: 9,
                    ..Default::default()
                })
            },
        }
    }

    #[test]
    fn rows_round_trip_through_a_table() {
        let rows = vec![path_row(), {
            let mut r = path_row();
            r.side = "client".into();
            r.share_bytes = None;
            r
        }];
        let t = PathRow::table(&rows);
        assert_eq!(t.name, "paths");
        assert_eq!(t.num_rows(), 2);
        assert_eq!(PathRow::read_all(&t).unwrap(), rows);
        // cells land in the columns their fields are named after
        assert_eq!(
            t.get(0, PathRow::COL.side),
            Some(Value::Str("server".into()))
        );
        assert_eq!(
            t.get(0, PathRow::COL.counters.bytes_sent),
            Some(Value::U64(7))
        );
        assert_eq!(t.get(0, "packets_sent"), Some(Value::U64(3)));
        assert_eq!(t.get(0, "penalizations"), Some(Value::U64(9)));
        assert_eq!(t.get(0, "retrans_fast"), Some(Value::Null));
        assert_eq!(t.get(1, "share_bytes"), Some(Value::Null));
    }

    #[test]
    fn counters_come_last_in_core_order_and_add_keeps_nulls() {
        let cols = FlowRow::columns();
        let tail: Vec<&str> = cols[cols.len() - CounterCells::COLUMNS.len()..]
            .iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(tail, CounterCells::COLUMNS);
        assert_eq!(CounterCells::COLUMNS.len(), 22);
        assert_eq!(CounterCells::COLUMNS[0], "packets_sent");
        assert_eq!(CounterCells::COLUMNS[18], "penalizations");
        assert_eq!(CounterCells::COLUMNS[20], "wnd_drops");
        assert_eq!(CounterCells::COLUMNS[21], "msk_retrans");
        let mut a = CounterCells {
            bytes_sent: Some(5),
            ..Default::default()
        };
        a.add(&CounterCells {
            bytes_sent: Some(2),
            dup_acks: Some(1),
            ..Default::default()
        });
        assert_eq!(a.bytes_sent, Some(7));
        assert_eq!(a.dup_acks, Some(1));
        assert_eq!(a.rto_events, None);
    }

    #[test]
    fn reading_a_null_into_a_required_field_names_the_column() {
        let mut t = MessageRow::empty();
        let mut cells = MessageRow {
            flow: 0,
            flow_label: "fg".into(),
            msg_id: 1,
            bytes: 10,
            send_time_ms: 1.5,
            delivery_time_ms: None,
            delay_ms: None,
            jitter_ms: None,
            completed: false,
        }
        .cells();
        let bytes = MessageRow::columns()
            .iter()
            .position(|c| c.0 == MessageRow::COL.bytes)
            .unwrap();
        cells[bytes] = Value::Null;
        t.push_row(cells).unwrap();
        let e = MessageRow::read(&t, 0).unwrap_err();
        assert!(e.0.contains("column `bytes`"), "{e}");
        // a table without a column the row needs
        let e = TransferRow::read(&MessageRow::empty(), 0).unwrap_err();
        assert!(e.0.contains("table `messages`"), "{e}");
    }

    #[test]
    fn extra_leading_columns_are_ignored_when_reading() {
        let r = TimeseriesRow {
            t_ms: 100.0,
            flow: 0,
            label: "bulk".into(),
            side: "server".into(),
            path: 2,
            metric: "send_mbit".into(),
            value: 3.5,
        };
        let t = TimeseriesRow::table([&r])
            .with_leading(&[("run", Value::U64(4), ColumnType::U64)])
            .unwrap();
        assert_eq!(TimeseriesRow::read(&t, 0).unwrap(), r);
    }

    #[test]
    fn schemas_are_the_documented_ones() {
        // the column lists of docs/results.md, as written before the rows
        // existed: results files must not change
        let counters = CounterCells::COLUMNS.join(",");
        let want = [
            ("messages", "flow:u64,flow_label:string,msg_id:u64,bytes:u64,send_time_ms:f64,delivery_time_ms:f64,delay_ms:f64,jitter_ms:f64,completed:bool".to_string()),
            ("transfers", "flow:u64,label:string,kind:string,objects:u64,bytes:u64,start_ms:f64,end_ms:f64,completion_time_ms:f64,completed:bool".into()),
            ("flows", format!("flow:u64,label:string,role:string,protocol:string,bytes_delivered:u64,throughput_mbit:f64,messages_refused:u64,{counters}")),
            ("paths", format!("flow:u64,label:string,role:string,side:string,path:u64,local_addr:string,remote_addr:string,share_bytes:f64,share_packets:f64,{counters}")),
            ("links", "link:string,direction:string,from:string,to:string,packets_offered:u64,bytes_offered:u64,packets_delivered:u64,bytes_delivered:u64,drops_queue:u64,drops_loss:u64,drops_outage:u64,max_queue_packets:u64,max_queue_bytes:u64,mean_queue_delay_ms:f64".into()),
            ("timeseries", "t_ms:f64,flow:u64,label:string,side:string,path:u64,metric:string,value:f64".into()),
        ];
        let got: Vec<(&str, String)> = standard_schemas()
            .into_iter()
            .map(|(t, cols)| {
                let c: Vec<String> = cols
                    .iter()
                    .map(|(n, ty)| {
                        let ty = ty.to_string();
                        if CounterCells::COLUMNS.contains(n) {
                            assert_eq!(ty, "u64", "{n}");
                            n.to_string()
                        } else {
                            format!("{n}:{ty}")
                        }
                    })
                    .collect();
                (t, c.join(","))
            })
            .collect();
        let want: Vec<(&str, String)> = want.into_iter().collect();
        assert_eq!(got, want);
        assert_eq!(
            crate::schema::STANDARD,
            got.iter().map(|g| g.0).collect::<Vec<_>>()
        );
        // unfinished::count reads `completed` of either table by one name
        assert_eq!(MessageRow::COL.completed, TransferRow::COL.completed);
        assert_eq!(
            FlowRow::COL.messages_refused,
            crate::unfinished::MESSAGES_REFUSED
        );
    }
}
