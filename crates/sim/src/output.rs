//! Turn a finished world into result tables (schema: docs/results.md) and a
//! per-run summary of key metrics.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use mptlab_core::endpoint::Counters;
use mptlab_core::packet::{addr_to_string, Addr, FlowId};
use mptlab_core::time::{to_ms, Nanos};
use mptlab_results::rows::{self, CounterCells, Row, TimeseriesRow as TS};
use mptlab_results::{summary as metric, unfinished, Table};

use crate::metrics::Report;
use crate::world::{Role, World};

/// One time series sample (a `timeseries` row before the end of the run).
struct Sample {
    t: Nanos,
    flow: u32,
    label: String,
    side: &'static str,
    /// The path's position within the endpoint (1-based).
    path: u32,
    metric: &'static str,
    value: f64,
}

impl Sample {
    fn row(&self) -> rows::TimeseriesRow {
        rows::TimeseriesRow {
            t_ms: to_ms(self.t),
            flow: self.flow as u64,
            label: self.label.clone(),
            side: self.side.into(),
            path: self.path as u64,
            metric: self.metric.into(),
            value: self.value,
        }
    }
}

/// Time series rows collected while the run goes on.
#[derive(Default)]
pub struct Series {
    rows: Vec<Sample>,
    last_bytes: BTreeMap<(usize, usize), u64>,
    last_t: Nanos,
}

/// A sampler for `World::set_sampling`: per flow, side and path, the payload
/// throughput sent in the last interval and (optionally) cwnd and srtt.
pub fn sampler(series: Rc<RefCell<Series>>, cwnd: bool) -> Box<dyn FnMut(&World)> {
    Box::new(move |w: &World| {
        let mut s = series.borrow_mut();
        let dt = w.now.saturating_sub(s.last_t);
        for (fid, f) in w.flows.iter().enumerate() {
            for (side, ep) in [("client", f.client_ep), ("server", f.server_ep)] {
                let sample = |pi: usize, metric: &'static str, value: f64| Sample {
                    t: w.now,
                    flow: fid as u32,
                    label: f.label.clone(),
                    side,
                    path: pi as u32 + 1,
                    metric,
                    value,
                };
                let paths = w.eps[ep].paths();
                for (pi, p) in paths.iter().enumerate() {
                    let prev = s
                        .last_bytes
                        .insert((ep, pi), p.counters.bytes_sent)
                        .unwrap_or(0);
                    if dt > 0 && p.counters.bytes_sent >= prev {
                        let mbit =
                            (p.counters.bytes_sent - prev) as f64 * 8.0 / (dt as f64 / 1e9) / 1e6;
                        if mbit > 0.0 || p.counters.bytes_sent > 0 {
                            s.rows.push(sample(pi, TS::SEND_MBIT, mbit));
                        }
                    }
                }
                if cwnd {
                    for (pi, st) in w.eps[ep].path_states().iter().enumerate() {
                        s.rows
                            .push(sample(pi, TS::CWND_BYTES, st.cwnd_bytes as f64));
                        s.rows.push(sample(pi, TS::SRTT_MS, to_ms(st.srtt)));
                        if st.ssthresh_bytes != u64::MAX {
                            s.rows
                                .push(sample(pi, TS::SSTHRESH_BYTES, st.ssthresh_bytes as f64));
                        }
                    }
                }
            }
        }
        s.last_t = w.now;
    })
}

/// All tables of one run plus its summary.
pub struct RunTables {
    pub tables: Vec<Table>,
    pub summary: BTreeMap<String, f64>,
}

/// The client access path (1-based) a path of an endpoint runs over: the
/// position of its client-side address among the client's addresses.
fn access_path(client_addrs: &[Addr], local: Addr, remote: Addr, fallback: usize) -> usize {
    client_addrs
        .iter()
        .position(|&a| a == local || a == remote)
        .map_or(fallback, |i| i + 1)
}

pub fn tables(
    w: &World,
    rep: &Report,
    series: Option<&Series>,
    duration: Nanos,
    drawn: &[(String, f64)],
    client_addrs: &[Addr],
) -> RunTables {
    let mut summary = BTreeMap::new();
    let label = |f: u32| w.flows[f as usize].label.clone();

    let mut delays = Vec::new();
    let msg_rows: Vec<rows::MessageRow> = rep
        .messages
        .iter()
        .map(|m| {
            let r = rows::MessageRow::from_times(
                m.flow as u64,
                label(m.flow),
                m.msg_id,
                m.bytes as u64,
                m.send_time,
                m.delivery_time,
                m.jitter,
            );
            delays.extend(r.delay_ms);
            r
        })
        .collect();
    let msgs = rows::MessageRow::into_table(msg_rows);
    // messages the send call refused (SCTP, larger than the send buffer),
    // per flow for the flows table and in all for the summary
    let mut refused: BTreeMap<FlowId, u64> = BTreeMap::new();
    for m in rep.messages.iter().filter(|m| m.refused) {
        *refused.entry(m.flow).or_default() += 1;
    }
    if !rep.messages.is_empty() {
        summary.extend(metric::message_metrics(rep.messages.len(), &mut delays));
        summary.insert(
            unfinished::MESSAGES_REFUSED.into(),
            refused.values().sum::<u64>() as f64,
        );
    }

    let mut transfer_rows = Vec::new();
    for (flow, t) in &rep.transfers {
        let r = t.row(*flow as u64);
        if let Some(ct) = r.completion_time_ms {
            summary.insert(metric::COMPLETION_TIME_MS.into(), ct);
        }
        transfer_rows.push(r);
    }
    let transfers = rows::TransferRow::table(&transfer_rows);

    // how many transfers and messages did not complete (issue 12 item 3)
    for (k, v) in unfinished::run_metrics(&msgs, &transfers) {
        summary.insert(k.into(), v);
    }
    // connections / associations given up by their protocol's retry limits
    // (tcp_syn_retries, SCTP Association.Max.Retrans): recorded only when
    // some are, so runs without leave their summary unchanged
    let reasons: Vec<&str> = w
        .flows
        .iter()
        .filter_map(|f| {
            [f.client_ep, f.server_ep]
                .iter()
                .find_map(|&ep| w.eps[ep].gave_up())
        })
        .collect();
    if !reasons.is_empty() {
        summary.insert(unfinished::CONNECTIONS_ABORTED.into(), reasons.len() as f64);
        for r in reasons {
            *summary
                .entry(format!("{}.{r}", unfinished::CONNECTIONS_ABORTED))
                .or_default() += 1.0;
        }
    }

    let secs = (w.now.min(duration).max(1)) as f64 / 1e9;
    let mut flow_rows = Vec::with_capacity(w.flows.len());
    let mut path_rows = Vec::new();
    // every client path has a share, 0 when unused (a path manager that never
    // opened a subflow there), so per-run shares average over all runs
    let mut fg_bytes_by_path: BTreeMap<usize, u64> =
        (1..=client_addrs.len()).map(|p| (p, 0)).collect();
    let mut fg_received = 0u64;
    let mut fg_counters = Counters::default();
    for (fid, f) in w.flows.iter().enumerate() {
        let mut total = Counters::default();
        for (side, ep) in [("client", f.client_ep), ("server", f.server_ep)] {
            let ps = w.eps[ep].paths();
            let sum_b: u64 = ps.iter().map(|p| p.counters.bytes_sent).sum();
            let sum_p: u64 = ps.iter().map(|p| p.counters.data_packets_sent).sum();
            for (pi, p) in ps.iter().enumerate() {
                total.add(&p.counters);
                let ap = access_path(client_addrs, p.local, p.remote, pi + 1);
                if f.role == Role::Foreground {
                    *fg_bytes_by_path.entry(ap).or_default() += p.counters.bytes_sent;
                }
                path_rows.push(rows::PathRow {
                    flow: fid as u64,
                    label: f.label.clone(),
                    role: f.role.as_str().into(),
                    side: side.into(),
                    path: ap as u64,
                    local_addr: addr_to_string(p.local),
                    remote_addr: addr_to_string(p.remote),
                    share_bytes: rows::share(p.counters.bytes_sent, sum_b),
                    share_packets: rows::share(p.counters.data_packets_sent, sum_p),
                    counters: CounterCells::from(&p.counters),
                });
            }
        }
        // Goodput: in-order bytes delivered to the applications (datagram
        // protocols deliver what they receive).
        let delivered = if f.protocol == "udp" {
            total.bytes_received
        } else {
            w.delivered(f.client_ep) + w.delivered(f.server_ep)
        };
        let tput = metric::mbit_per_s(delivered, secs);
        if f.role == Role::Foreground {
            fg_received += delivered;
            fg_counters.add(&total);
        }
        flow_rows.push(rows::FlowRow {
            flow: fid as u64,
            label: f.label.clone(),
            role: f.role.as_str().into(),
            protocol: f.protocol.clone(),
            bytes_delivered: delivered,
            throughput_mbit: tput,
            messages_refused: refused.get(&(fid as FlowId)).copied().unwrap_or(0),
            counters: CounterCells::from(&total),
        });
    }
    summary.insert(
        metric::FG_THROUGHPUT_MBIT.into(),
        metric::mbit_per_s(fg_received, secs),
    );
    insert_fg_counters(&mut summary, &fg_counters);
    // Seed 002: time segments wait in a multipath receiver's connection-level
    // out-of-order queue, and head-of-line blocking time (foreground flows).
    let mut ofo = mptlab_core::delay_stats::DelayStats::new();
    let mut hol = 0;
    let mut any_ofo = false;
    for f in w.flows.iter().filter(|f| f.role == Role::Foreground) {
        for ep in [f.client_ep, f.server_ep] {
            if let Some(st) = w.eps[ep].ofo_stats() {
                any_ofo = true;
                ofo.merge(&st.delays);
                hol += st.hol_time;
            }
        }
    }
    if any_ofo {
        // seed 002 sec. 5: the share of packets that arrive out of order at
        // the connection level, and of those waiting > 150 ms (the
        // interactivity bound); p95 exact up to delay_stats::EXACT_CAP
        // waiting segments, else within 0.39 % (docs/results.md)
        if let Some(s) = ofo.summary() {
            summary.insert("ofo_fraction".into(), s.fraction_positive);
            summary.insert("ofo_fraction_over_150ms".into(), s.fraction_over_bound);
            summary.insert("ofo_delay_ms_mean".into(), s.mean_ms);
            summary.insert("ofo_delay_ms_p95".into(), s.p95_ms);
        }
        summary.insert("hol_blocking_ms".into(), to_ms(hol));
    }
    summary.extend(metric::fg_shares(&fg_bytes_by_path));

    let link_rows: Vec<rows::LinkRow> = w
        .net
        .link_stats()
        .map(|(d, s)| {
            let dir = if d.dir == "ab" { "up" } else { "down" };
            let (from, to) = (&w.net.nodes[d.from].name, &w.net.nodes[d.to].name);
            rows::LinkRow::of(&d.name, dir, from, to, s)
        })
        .collect();

    if let Some(s) = series {
        for (k, v) in srtt_means(w, s, client_addrs) {
            summary.insert(k, v);
        }
    }

    let mut ts = rows::TimeseriesRow::empty();
    if let Some(s) = series {
        for sample in &s.rows {
            ts.push_row(sample.row().cells())
                .expect("a row fits its own table");
        }
    }
    for (k, v) in drawn {
        summary.insert(metric::drawn(k), *v);
    }
    summary.insert("sim_time_s".into(), w.now as f64 / 1e9);
    summary.insert("events".into(), w.events.popped() as f64);
    summary.insert("data_packets".into(), w.data_packets_delivered as f64);
    RunTables {
        tables: vec![
            msgs,
            transfers,
            rows::FlowRow::table(&flow_rows),
            rows::PathRow::table(&path_rows),
            rows::LinkRow::table(&link_rows),
            ts,
        ],
        summary,
    }
}

/// Seed 002 Table 6: per client access path, the mean of the smoothed RTT
/// samples (`output.cwnd_series`) of the foreground flows' data sender (the
/// side that sent more payload), skipping samples before the path has an
/// RTT estimate: `srtt_ms_mean_path<N>`.
/// Seed 001: what loss recovery cost the foreground flows (both ends, all
/// paths), as `fg_*` summary metrics; also used by the population aggregates.
pub(crate) fn insert_fg_counters(summary: &mut BTreeMap<String, f64>, c: &Counters) {
    for (k, v) in [
        ("fg_bytes_sent", c.bytes_sent),
        ("fg_bytes_retransmitted", c.bytes_retransmitted),
        ("fg_bytes_reinjected", c.bytes_reinjected),
        ("fg_bytes_probe_extra", c.bytes_probe_extra),
        ("fg_retrans_fast", c.retrans_fast),
        ("fg_retrans_rto", c.retrans_rto),
        ("fg_retrans_tlp", c.retrans_tlp),
        ("fg_rto_events", c.rto_events),
        ("fg_tlp_probes", c.tlp_probes),
        ("fg_wnd_overshoots", c.wnd_overshoots),
        ("fg_wnd_drops", c.wnd_drops),
        ("fg_msk_retrans", c.msk_retrans),
    ] {
        summary.insert(k.into(), v as f64);
    }
}

fn srtt_means(w: &World, s: &Series, client_addrs: &[Addr]) -> BTreeMap<String, f64> {
    let mut acc: BTreeMap<usize, (f64, u64)> = BTreeMap::new();
    for (fid, f) in w
        .flows
        .iter()
        .enumerate()
        .filter(|(_, f)| f.role == Role::Foreground)
    {
        let sent = |ep: usize| {
            w.eps[ep]
                .paths()
                .iter()
                .map(|p| p.counters.bytes_sent)
                .sum::<u64>()
        };
        let (side, ep) = if sent(f.server_ep) >= sent(f.client_ep) {
            ("server", f.server_ep)
        } else {
            ("client", f.client_ep)
        };
        let paths = w.eps[ep].paths();
        for x in &s.rows {
            if x.flow as usize != fid || x.side != side || x.metric != TS::SRTT_MS || x.value <= 0.0
            {
                continue;
            }
            let Some(p) = paths.get(x.path as usize - 1) else {
                continue;
            };
            let e = acc
                .entry(access_path(
                    client_addrs,
                    p.local,
                    p.remote,
                    x.path as usize,
                ))
                .or_default();
            e.0 += x.value;
            e.1 += 1;
        }
    }
    acc.into_iter()
        .map(|(p, (sum, n))| (format!("srtt_ms_mean_path{p}"), sum / n as f64))
        .collect()
}
