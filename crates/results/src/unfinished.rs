//! Unfinished work (issue 12 item 3): finite transfers (web pages, files)
//! and application messages (video frames, game packets, bursts) that had
//! not completed when a run ended.
//!
//! Statistics such as `completion_time_ms` or `delay_ms_mean` can only be
//! computed over the items that completed; without the count of those that
//! did not, an average over the finished ones is a silently optimistic
//! answer (the slowest items are the ones missing). So every driver fills
//! the `completed` column of the `messages` and `transfers` tables and
//! records per run, from those tables, the summary metrics named here
//! ([`run_metrics`]); everything downstream (`summary.json`, the warnings of
//! `mptlab run`/`sweep`/`reproduce`, the Python report) reads these metrics,
//! which sweeps keep even when they drop the tables.

use crate::output::RunOutput;
use crate::rows::{FlowRow, MessageRow, Row, TransferRow};
use crate::summary;
use crate::table::{Table, Value};
use serde_json::{json, Map, Value as Json};

/// Per-run metric: finite transfers in the run (rows of `transfers`).
pub const TRANSFERS: &str = "transfers";
/// Per-run metric: transfers whose last byte was not delivered by the end.
pub const TRANSFERS_UNFINISHED: &str = "transfers_unfinished";
/// Per-run metric: application messages in the run (rows of `messages`).
pub const MESSAGES: &str = "messages";
/// Per-run metric: messages not delivered whole by the end (still in
/// flight, waiting in a send buffer, or lost for UDP).
pub const MESSAGES_UNDELIVERED: &str = "messages_undelivered";
/// Per-run metric (simulator, runs with messages): messages the send call
/// refused, i.e. SCTP messages larger than the send buffer (`EMSGSIZE`,
/// Linux `sctp_sendmsg_parse`); they are among `messages_undelivered`.
pub const MESSAGES_REFUSED: &str = "messages_refused";
/// Per-run metric, present only when non-zero: flows whose connection or
/// association was given up by a retry limit of its protocol (Linux
/// `tcp_syn_retries`, SCTP Association.Max.Retrans, RFC 9260 8.1), plus one
/// `connections_aborted.REASON` count per reason (`Endpoint::gave_up` in
/// mptlab-core). Spec behaviour; their transfers do not complete.
pub const CONNECTIONS_ABORTED: &str = "connections_aborted";

/// Which items a statistic is computed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Items {
    Transfers,
    Messages,
}

/// Summary metrics that are computed over completed items only, and over
/// which kind of item.
pub const COMPLETED_ONLY: &[(&str, Items)] = &[
    (summary::COMPLETION_TIME_MS, Items::Transfers),
    (summary::DELAY_MS_MEDIAN, Items::Messages),
    (summary::DELAY_MS_P95, Items::Messages),
    (summary::DELAY_MS_MEAN, Items::Messages),
];

/// The kind of items `metric` is computed over, if it is a completed-only metric.
pub fn completed_only(metric: &str) -> Option<Items> {
    COMPLETED_ONLY
        .iter()
        .find(|(m, _)| *m == metric)
        .map(|(_, i)| *i)
}

/// (rows, rows whose `completed` is not true) of a messages or transfers
/// table; a missing `completed` value counts as not completed.
pub fn count(t: &Table) -> (u64, u64) {
    let n = t.num_rows() as u64;
    // `completed` has one name in both tables (checked in the tests)
    let done = t.column(MessageRow::COL.completed).map_or(0, |c| {
        (0..t.num_rows())
            .filter(|&i| c.data.get(i) == Value::Bool(true))
            .count() as u64
    });
    (n, n - done)
}

/// The per-run summary metrics of unfinished work, from the run's
/// `messages` and `transfers` tables: `transfers` and
/// `transfers_unfinished` when the run has transfers, `messages` and
/// `messages_undelivered` when it has messages.
pub fn run_metrics(messages: &Table, transfers: &Table) -> Vec<(&'static str, f64)> {
    let mut out = Vec::new();
    let (n, u) = count(transfers);
    if n > 0 {
        out.push((TRANSFERS, n as f64));
        out.push((TRANSFERS_UNFINISHED, u as f64));
    }
    let (n, u) = count(messages);
    if n > 0 {
        out.push((MESSAGES, n as f64));
        out.push((MESSAGES_UNDELIVERED, u as f64));
    }
    out
}

/// Whether a run file written before mptlab counted unfinished work may
/// need [`upgrade_legacy`]: it has messages but no `messages_undelivered`
/// (its `transfers` table, one row per transfer, is always worth checking).
pub fn maybe_legacy_messages(o: &RunOutput) -> bool {
    o.summary.contains_key(MESSAGES) && !o.summary.contains_key(MESSAGES_UNDELIVERED)
}

/// Bring a run written before mptlab counted unfinished work (no
/// `completed` column, no counts; e.g. the finished runs of a sweep being
/// resumed) up to date: `completed` derived from the end / delivery time
/// (exactly how the drivers fill it), then the missing per-run counts from
/// the tables. A run that has them is left alone; so is a table not loaded.
pub fn upgrade_legacy(o: &mut RunOutput) {
    use crate::table::{Column, ColumnData};
    for (name, time, completed) in [
        (
            MessageRow::TABLE,
            MessageRow::COL.delivery_time_ms,
            MessageRow::COL.completed,
        ),
        (
            TransferRow::TABLE,
            TransferRow::COL.end_ms,
            TransferRow::COL.completed,
        ),
    ] {
        let Some(t) = o.tables.iter_mut().find(|t| t.name == name) else {
            continue;
        };
        if t.column(completed).is_some() {
            continue;
        }
        let Some(tc) = t.column(time) else {
            continue;
        };
        let done: Vec<Option<bool>> = (0..t.num_rows())
            .map(|i| Some(tc.data.get(i) != Value::Null))
            .collect();
        let mut cols = t.columns().to_vec();
        cols.push(Column {
            name: completed.into(),
            data: ColumnData::Bool(done),
        });
        if let Ok(n) = Table::from_columns(name, cols) {
            *t = n;
        }
    }
    // `flows` before the `messages_refused` column: no run of that time
    // refused a message (the SCTP app queued it and stalled instead)
    if let Some(t) = o.tables.iter_mut().find(|t| t.name == FlowRow::TABLE) {
        let refused = FlowRow::COL.messages_refused;
        if t.column(refused).is_none() {
            let mut cols = t.columns().to_vec();
            let at = cols
                .iter()
                .position(|c| c.name == FlowRow::COL.throughput_mbit)
                .map_or(cols.len(), |i| i + 1);
            cols.insert(
                at,
                Column {
                    name: refused.into(),
                    data: ColumnData::U64(vec![Some(0); t.num_rows()]),
                },
            );
            if let Ok(n) = Table::from_columns(FlowRow::TABLE, cols) {
                *t = n;
            }
        }
    }
    let msgs = o.table(MessageRow::TABLE).cloned();
    let trs = o.table(TransferRow::TABLE).cloned();
    let (have_m, have_t) = (msgs.is_some(), trs.is_some());
    let metrics = run_metrics(
        &msgs.unwrap_or_else(MessageRow::empty),
        &trs.unwrap_or_else(TransferRow::empty),
    );
    for (k, v) in metrics {
        let loaded = if k == TRANSFERS || k == TRANSFERS_UNFINISHED {
            have_t
        } else {
            have_m
        };
        if loaded && !o.summary.contains_key(k) {
            o.set_metric(k, v);
        }
    }
}

/// Unfinished work summed over runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unfinished {
    pub transfers: u64,
    pub transfers_unfinished: u64,
    pub messages: u64,
    pub messages_undelivered: u64,
    /// Of the undelivered messages, those refused by the send call
    /// ([`MESSAGES_REFUSED`]).
    pub messages_refused: u64,
    /// Runs with at least one unfinished transfer, in run order.
    pub runs_transfers: Vec<u32>,
    /// Runs with at least one undelivered message, in run order.
    pub runs_messages: Vec<u32>,
    /// Connections / associations given up ([`CONNECTIONS_ABORTED`]), and
    /// how many for each reason.
    pub connections_aborted: u64,
    pub aborted_reasons: std::collections::BTreeMap<String, u64>,
    /// Runs with at least one connection given up, in run order.
    pub runs_aborted: Vec<u32>,
}

fn metric(r: &RunOutput, k: &str) -> u64 {
    r.summary
        .get(k)
        .and_then(Json::as_f64)
        .map_or(0, |x| x.max(0.0) as u64)
}

impl Unfinished {
    /// From the runs' summary metrics ([`run_metrics`]).
    pub fn of(runs: &[RunOutput]) -> Unfinished {
        let mut u = Unfinished::default();
        for r in runs {
            let (t, tu) = (metric(r, TRANSFERS), metric(r, TRANSFERS_UNFINISHED));
            let (m, mu) = (metric(r, MESSAGES), metric(r, MESSAGES_UNDELIVERED));
            u.transfers += t;
            u.transfers_unfinished += tu;
            u.messages += m;
            u.messages_undelivered += mu;
            u.messages_refused += metric(r, MESSAGES_REFUSED);
            if tu > 0 {
                u.runs_transfers.push(r.run);
            }
            if mu > 0 {
                u.runs_messages.push(r.run);
            }
            let a = metric(r, CONNECTIONS_ABORTED);
            if a > 0 {
                u.connections_aborted += a;
                u.runs_aborted.push(r.run);
                let prefix = format!("{CONNECTIONS_ABORTED}.");
                for k in r.summary.keys() {
                    if let Some(reason) = k.strip_prefix(&prefix) {
                        *u.aborted_reasons.entry(reason.to_string()).or_default() += metric(r, k);
                    }
                }
            }
        }
        u
    }

    /// True when some transfer or message did not complete.
    pub fn any(&self) -> bool {
        self.transfers_unfinished > 0
            || self.messages_undelivered > 0
            || self.connections_aborted > 0
    }

    /// (completed, total) of the items behind a completed-only metric.
    pub fn items(&self, kind: Items) -> (u64, u64) {
        match kind {
            Items::Transfers => (self.transfers - self.transfers_unfinished, self.transfers),
            Items::Messages => (self.messages - self.messages_undelivered, self.messages),
        }
    }

    /// The `unfinished` object of `summary.json`: totals, the runs with
    /// unfinished items, and for each completed-only metric of a kind of
    /// item the runs have (whether or not any run has a value for it) over
    /// how many of how many items it was computed.
    pub fn to_json(&self) -> Json {
        let mut over = Map::new();
        for (m, kind) in COMPLETED_ONLY {
            let (done, of) = self.items(*kind);
            if of > 0 {
                over.insert(m.to_string(), json!({ "completed": done, "of": of }));
            }
        }
        let mut doc = json!({
            "transfers": self.transfers,
            "transfers_unfinished": self.transfers_unfinished,
            "messages": self.messages,
            "messages_undelivered": self.messages_undelivered,
            "messages_refused": self.messages_refused,
            "runs_with_unfinished_transfers": self.runs_transfers,
            "runs_with_undelivered_messages": self.runs_messages,
            "completed_only": over,
        });
        // only when some connection was given up (older documents unchanged)
        if self.connections_aborted > 0 {
            doc[CONNECTIONS_ABORTED] = json!(self.connections_aborted);
            doc["aborted_reasons"] = json!(self.aborted_reasons);
            doc["runs_with_aborted_connections"] = json!(self.runs_aborted);
        }
        doc
    }

    /// Beside the statistics of every completed-only metric in `aggregate`
    /// (a JSON object metric -> statistics object), `completed` and `of`:
    /// over how many of how many items the metric was computed, so the
    /// mean is never read without them.
    pub fn annotate(&self, aggregate: &mut Json) {
        let Some(agg) = aggregate.as_object_mut() else {
            return;
        };
        for (m, kind) in COMPLETED_ONLY {
            if let Some(Json::Object(st)) = agg.get_mut(*m) {
                let (done, of) = self.items(*kind);
                st.insert("completed".into(), json!(done));
                st.insert("of".into(), json!(of));
            }
        }
    }

    /// One line per kind of unfinished item, e.g. `1 of 1 transfer(s) did
    /// not finish before the end of the run (run 0); completion_time_ms is
    /// over finished transfers only`; empty when everything completed.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.transfers_unfinished > 0 {
            out.push(format!(
                "{} of {} transfer(s) (file or web page) did not finish before the end of their run ({}); \
                 completion_time_ms covers the {} finished one(s) only",
                self.transfers_unfinished,
                self.transfers,
                run_list(&self.runs_transfers),
                self.transfers - self.transfers_unfinished,
            ));
        }
        if self.connections_aborted > 0 {
            let why: Vec<String> = self
                .aborted_reasons
                .iter()
                .map(|(r, n)| format!("{n} {r}"))
                .collect();
            out.push(format!(
                "{} connection(s) or association(s) were given up by their protocol's retry limit or aborted ({}; {}): \
                 spec behaviour, their transfers cannot complete",
                self.connections_aborted,
                why.join(", "),
                run_list(&self.runs_aborted),
            ));
        }
        if self.messages_undelivered > 0 {
            out.push(format!(
                "{} of {} message(s) were not delivered by the end of their run ({}; still in flight or \
                 queued at the end, or lost); delay_ms_* cover the {} delivered one(s) only",
                self.messages_undelivered,
                self.messages,
                run_list(&self.runs_messages),
                self.messages - self.messages_undelivered,
            ));
        }
        if self.messages_refused > 0 {
            out.push(format!(
                "{} of these message(s) were refused by the send call and never sent: each was larger \
                 than the SCTP send buffer (EMSGSIZE, as Linux `sctp_sendmsg_parse`); raise \
                 transport.sndbuf_kib to at least the largest message to send them \
                 (per flow: `messages_refused` in flows)",
                self.messages_refused,
            ));
        }
        out
    }
}

/// `run 3`, `runs 0, 1, 4`, `runs 0, 1, 2, ... (12 runs)`.
pub fn run_list(runs: &[u32]) -> String {
    const SHOW: usize = 8;
    let mut s = if runs.len() == 1 { "run " } else { "runs " }.to_string();
    let shown: Vec<String> = runs.iter().take(SHOW).map(|r| r.to_string()).collect();
    s.push_str(&shown.join(", "));
    if runs.len() > SHOW {
        s.push_str(&format!(", ... ({} runs)", runs.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{schema, summary_json};

    /// A run with `t` transfers of which `tu` unfinished and `m` messages
    /// of which `mu` undelivered, its metrics from its tables.
    fn run(i: u32, t: u64, tu: u64, m: u64, mu: u64) -> RunOutput {
        let mut o = RunOutput::new(i, 100 + i as u64);
        let mut tr = schema::transfers();
        for k in 0..t {
            tr.push_named(&[("flow", 0u64.into()), ("completed", (k >= tu).into())])
                .unwrap();
        }
        let mut ms = schema::messages();
        for k in 0..m {
            // a null `completed` counts as not completed
            let c = if k < mu { Value::Null } else { true.into() };
            ms.push_named(&[("msg_id", k.into()), ("completed", c)])
                .unwrap();
        }
        for (k, v) in run_metrics(&ms, &tr) {
            o.set_metric(k, v);
        }
        if tu < t {
            o.set_metric("completion_time_ms", 100.0);
        }
        o.tables = vec![ms, tr];
        o
    }

    #[test]
    fn counts_from_tables_and_over_runs() {
        let runs = [run(0, 1, 0, 10, 0), run(1, 1, 1, 10, 3), run(2, 2, 1, 0, 0)];
        assert_eq!(
            run_metrics(
                runs[1].table("messages").unwrap(),
                runs[1].table("transfers").unwrap()
            ),
            vec![
                (TRANSFERS, 1.0),
                (TRANSFERS_UNFINISHED, 1.0),
                (MESSAGES, 10.0),
                (MESSAGES_UNDELIVERED, 3.0)
            ]
        );
        // no rows, no metrics
        assert!(run_metrics(&schema::messages(), &schema::transfers()).is_empty());
        let u = Unfinished::of(&runs);
        assert_eq!(
            u,
            Unfinished {
                transfers: 4,
                transfers_unfinished: 2,
                messages: 20,
                messages_undelivered: 3,
                messages_refused: 0,
                runs_transfers: vec![1, 2],
                runs_messages: vec![1],
                ..Default::default()
            }
        );
        assert!(u.any());
        assert_eq!(u.items(Items::Transfers), (2, 4));
        assert_eq!(u.items(Items::Messages), (17, 20));
        let d = u.describe();
        assert_eq!(d.len(), 2);
        assert!(d[0].starts_with("2 of 4 transfer(s)"), "{}", d[0]);
        assert!(d[0].contains("(runs 1, 2)"), "{}", d[0]);
        assert!(d[1].starts_with("3 of 20 message(s)"), "{}", d[1]);
        assert!(d[1].contains("(run 1;"), "{}", d[1]);
        assert!(!Unfinished::of(&runs[..1]).any());
        assert!(Unfinished::of(&runs[..1]).describe().is_empty());
    }

    #[test]
    fn summary_json_says_over_how_many_items_completion_times_are() {
        let runs = [run(0, 1, 0, 0, 0), run(1, 1, 1, 0, 0), run(2, 1, 0, 0, 0)];
        let doc = summary_json(&runs, &Map::new());
        let u = &doc["unfinished"];
        assert_eq!(u["transfers"], 3);
        assert_eq!(u["transfers_unfinished"], 1);
        assert_eq!(u["runs_with_unfinished_transfers"], json!([1]));
        assert_eq!(
            u["completed_only"]["completion_time_ms"],
            json!({"completed": 2, "of": 3})
        );
        // no messages: no message statistics named
        assert!(u["completed_only"].get("delay_ms_mean").is_none());
        // the aggregate averages the 2 finished runs only: n says so, and
        // completed / of beside the mean
        assert_eq!(doc["aggregate"]["completion_time_ms"]["n"], 2);
        assert_eq!(doc["aggregate"]["completion_time_ms"]["completed"], 2);
        assert_eq!(doc["aggregate"]["completion_time_ms"]["of"], 3);
        assert!(doc["aggregate"]["transfers"].get("completed").is_none());
        assert_eq!(doc["per_run"][1]["metrics"]["transfers_unfinished"], 1.0);
    }

    #[test]
    fn legacy_runs_get_completed_and_counts() {
        // a run as written before: no `completed` columns, no counts; end /
        // delivery times null for the unfinished ones
        let strip = |t: &Table| {
            let cols: Vec<_> = t
                .columns()
                .iter()
                .filter(|c| c.name != "completed")
                .cloned()
                .collect();
            Table::from_columns(t.name.clone(), cols).unwrap()
        };
        let mut tr = schema::transfers();
        for k in 0..2u64 {
            let end = if k == 0 { Value::Null } else { 5.0.into() };
            tr.push_named(&[("flow", k.into()), ("end_ms", end)])
                .unwrap();
        }
        let mut ms = schema::messages();
        for k in 0..3u64 {
            let d = if k == 2 { Value::Null } else { 1.0.into() };
            ms.push_named(&[("msg_id", k.into()), ("delivery_time_ms", d)])
                .unwrap();
        }
        let mut o = RunOutput::new(0, 1);
        o.tables = vec![strip(&ms), strip(&tr)];
        o.set_metric(MESSAGES, 3.0);
        assert!(maybe_legacy_messages(&o));
        upgrade_legacy(&mut o);
        assert!(!maybe_legacy_messages(&o));
        assert_eq!(
            o.table("transfers").unwrap().schema(),
            schema::transfers().schema()
        );
        assert_eq!(
            o.table("messages").unwrap().schema(),
            schema::messages().schema()
        );
        assert_eq!(count(o.table("transfers").unwrap()), (2, 1));
        assert_eq!(count(o.table("messages").unwrap()), (3, 1));
        let new = run(0, 2, 1, 3, 1);
        for k in [
            TRANSFERS,
            TRANSFERS_UNFINISHED,
            MESSAGES,
            MESSAGES_UNDELIVERED,
        ] {
            assert_eq!(o.summary.get(k), new.summary.get(k), "{k}");
        }
        // a current run is left alone
        let mut cur = run(1, 1, 0, 2, 0);
        let before = cur.clone();
        upgrade_legacy(&mut cur);
        assert_eq!(cur, before);
    }

    #[test]
    fn legacy_flows_get_messages_refused_zero_in_place() {
        // flows as written before the column: a resumed sweep appends old
        // and new runs, so the schema must come out the current one
        let mut fl = schema::flows();
        fl.push_named(&[("flow", 0u64.into()), ("bytes_sent", 7u64.into())])
            .unwrap();
        let cols: Vec<_> = fl
            .columns()
            .iter()
            .filter(|c| c.name != MESSAGES_REFUSED)
            .cloned()
            .collect();
        let mut o = RunOutput::new(0, 1);
        o.tables = vec![Table::from_columns("flows", cols).unwrap()];
        upgrade_legacy(&mut o);
        let t = o.table("flows").unwrap();
        assert_eq!(t.schema(), schema::flows().schema());
        assert_eq!(t.get(0, MESSAGES_REFUSED), Some(Value::U64(0)));
        assert_eq!(t.get(0, "bytes_sent"), Some(Value::U64(7)));
        // and the count of a run without the metric is 0
        assert_eq!(Unfinished::of(&[o]).messages_refused, 0);
    }

    #[test]
    fn run_lists_are_short() {
        assert_eq!(run_list(&[3]), "run 3");
        assert_eq!(run_list(&[0, 4]), "runs 0, 4");
        let many: Vec<u32> = (0..12).collect();
        assert_eq!(
            run_list(&many),
            "runs 0, 1, 2, 3, 4, 5, 6, 7, ... (12 runs)"
        );
    }

    #[test]
    fn message_and_transfer_tables_end_with_completed() {
        for t in [schema::messages(), schema::transfers()] {
            let s = t.schema();
            assert_eq!(
                s.last().unwrap(),
                &("completed".to_string(), crate::ColumnType::Bool)
            );
        }
    }

    #[test]
    fn connections_given_up_are_counted_with_their_reasons() {
        let mut a = run(0, 1, 1, 0, 0);
        a.set_metric(CONNECTIONS_ABORTED, 1.0);
        a.set_metric("connections_aborted.sctp_association_max_retrans", 1.0);
        let mut b = run(1, 1, 1, 0, 0);
        b.set_metric(CONNECTIONS_ABORTED, 1.0);
        b.set_metric("connections_aborted.tcp_syn_retries", 1.0);
        let c = run(2, 1, 0, 0, 0);
        let u = Unfinished::of(&[a, b, c.clone()]);
        assert_eq!(u.connections_aborted, 2);
        assert_eq!(u.runs_aborted, vec![0, 1]);
        let j = u.to_json();
        assert_eq!(j["connections_aborted"], json!(2));
        assert_eq!(
            j["aborted_reasons"],
            json!({"sctp_association_max_retrans": 1, "tcp_syn_retries": 1})
        );
        let d = u.describe();
        assert!(
            d.iter().any(|l| l.starts_with("2 connection(s)")
                && l.contains("1 sctp_association_max_retrans, 1 tcp_syn_retries; runs 0, 1")),
            "{d:?}"
        );
        // runs without give-ups: no such keys, no such line
        let u = Unfinished::of(&[c]);
        assert!(u.to_json().get(CONNECTIONS_ABORTED).is_none());
        assert!(u.describe().is_empty());
    }
}
