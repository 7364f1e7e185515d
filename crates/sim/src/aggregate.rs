//! Result tables of the `clients` preset without `per_connection_rows`:
//! one row per population and class instead of one per connection, so the
//! output of 10^5 connections is as small as that of one.
//!
//! * `flows`: one row per role (counters and delivered bytes summed).
//! * `paths`: one row per side and client access path (its address block
//!   as the address); shares are of that side's bytes.
//! * `links`: one row per link class and direction (`path<k>` the clients'
//!   access links of path k, `router_link<k>` the access routers' uplinks,
//!   `core_link`, `server_link`); counters summed, maximum queue the
//!   largest of the class, mean queueing delay over all its packets.
//! * `messages`, `transfers`: no rows; their figures are in the summary
//!   (message delays as for one connection, completion times as mean,
//!   median and 95th percentile over the transfers that completed).
//! * `timeseries`: per sample, side and access path, the sum over all
//!   connections (`send_mbit`), and with `cwnd_series` the mean cwnd and
//!   srtt over the subflows on that path: rows per sample do not depend on
//!   the number of connections.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use mptlab_core::endpoint::Counters;
use mptlab_core::link::LinkStats;
use mptlab_core::packet::Addr;
use mptlab_core::time::{to_ms, Nanos};
use mptlab_results::rows::{self, CounterCells, Row, TimeseriesRow as TS};
use mptlab_results::{summary as metric, unfinished, Table};
use mptlab_scenario::population as pop;

use crate::metrics::Report;
use crate::output::RunTables;
use crate::world::{Role, World};

/// The client access path (0-based) of a client address of the plan.
fn path_of(a: Addr) -> Option<usize> {
    let o = (a >> 16) & 0xff;
    (a >> 24 == 10 && o >= 64).then(|| (o / 64 - 1) as usize)
}

/// The class of a link of the population topology, by its name.
fn link_class(name: &str) -> String {
    if name == "core" {
        return "core_link".into();
    }
    if name.starts_with("server") {
        return "server_link".into();
    }
    if let Some(r) = name.strip_prefix('c') {
        if let Some((_, k)) = r.split_once('p') {
            return format!("path{k}");
        }
    }
    if let Some(r) = name.strip_prefix('p') {
        if let Some((k, _)) = r.split_once('r') {
            return format!("router_link{k}");
        }
    }
    name.into()
}

/// Sums per side ("client", "server") and access path at the last sample.
#[derive(Default)]
pub struct Series {
    rows: Vec<(Nanos, &'static str, usize, &'static str, f64)>,
    last: BTreeMap<(&'static str, usize), u64>,
    last_t: Nanos,
}

/// A sampler for `World::set_sampling` (see the module comment).
pub fn sampler(series: Rc<RefCell<Series>>, cwnd: bool) -> Box<dyn FnMut(&World)> {
    Box::new(move |w: &World| {
        let mut s = series.borrow_mut();
        let dt = w.now.saturating_sub(s.last_t);
        let mut sent: BTreeMap<(&'static str, usize), u64> = BTreeMap::new();
        let mut cw: BTreeMap<(&'static str, usize), (f64, f64, u64)> = BTreeMap::new();
        for f in &w.flows {
            for (side, ep) in [("client", f.client_ep), ("server", f.server_ep)] {
                let paths = w.eps[ep].paths();
                for p in paths.iter() {
                    let k = path_of(p.local).or(path_of(p.remote)).unwrap_or(0);
                    *sent.entry((side, k)).or_default() += p.counters.bytes_sent;
                }
                if cwnd {
                    for (p, st) in paths.iter().zip(w.eps[ep].path_states().iter()) {
                        let k = path_of(p.local).or(path_of(p.remote)).unwrap_or(0);
                        let e = cw.entry((side, k)).or_default();
                        e.0 += st.cwnd_bytes as f64;
                        e.1 += to_ms(st.srtt);
                        e.2 += 1;
                    }
                }
            }
        }
        for (&(side, k), &b) in &sent {
            let prev = s.last.insert((side, k), b).unwrap_or(0);
            if dt > 0 && b >= prev {
                let mbit = (b - prev) as f64 * 8.0 / (dt as f64 / 1e9) / 1e6;
                if mbit > 0.0 || b > 0 {
                    s.rows.push((w.now, side, k, TS::SEND_MBIT, mbit));
                }
            }
        }
        for ((side, k), (c, r, n)) in cw {
            s.rows.push((w.now, side, k, TS::CWND_BYTES, c / n as f64));
            s.rows.push((w.now, side, k, TS::SRTT_MS, r / n as f64));
        }
        s.last_t = w.now;
    })
}

fn add_stats(a: &mut LinkStats, b: &LinkStats) {
    a.packets_offered += b.packets_offered;
    a.bytes_offered += b.bytes_offered;
    a.packets_delivered += b.packets_delivered;
    a.bytes_delivered += b.bytes_delivered;
    a.drops_queue += b.drops_queue;
    a.drops_loss += b.drops_loss;
    a.drops_outage += b.drops_outage;
    a.max_queue_packets = a.max_queue_packets.max(b.max_queue_packets);
    a.max_queue_bytes = a.max_queue_bytes.max(b.max_queue_bytes);
    a.queue_delay_sum += b.queue_delay_sum;
}

/// A sorted sample's value at quantile `q` (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// All tables of one run of a population, aggregated, plus its summary.
pub fn tables(
    w: &World,
    rep: &Report,
    series: Option<&Series>,
    duration: Nanos,
    drawn: &[(String, f64)],
    npaths: usize,
) -> RunTables {
    let mut summary = BTreeMap::new();
    // messages: the summary of one run, whatever the number of connections
    let mut delays = Vec::new();
    let mut refused = 0u64;
    let mut msg_counts = (0u64, 0u64);
    for m in &rep.messages {
        let r = rows::MessageRow::from_times(
            m.flow as u64,
            String::new(),
            m.msg_id,
            m.bytes as u64,
            m.send_time,
            m.delivery_time,
            m.jitter,
        );
        msg_counts.0 += 1;
        msg_counts.1 += r.delay_ms.is_none() as u64;
        delays.extend(r.delay_ms);
        refused += m.refused as u64;
    }
    if !rep.messages.is_empty() {
        summary.extend(metric::message_metrics(rep.messages.len(), &mut delays));
        summary.insert(unfinished::MESSAGES_REFUSED.into(), refused as f64);
        summary.insert(unfinished::MESSAGES_UNDELIVERED.into(), msg_counts.1 as f64);
    }
    drop(delays);
    let mut done: Vec<f64> = rep
        .transfers
        .iter()
        .filter_map(|(f, t)| t.row(*f as u64).completion_time_ms)
        .collect();
    if !rep.transfers.is_empty() {
        summary.insert(unfinished::TRANSFERS.into(), rep.transfers.len() as f64);
        summary.insert(
            unfinished::TRANSFERS_UNFINISHED.into(),
            (rep.transfers.len() - done.len()) as f64,
        );
    }
    if !done.is_empty() {
        done.sort_by(f64::total_cmp);
        let mean = done.iter().sum::<f64>() / done.len() as f64;
        summary.insert(format!("{}_mean", metric::COMPLETION_TIME_MS), mean);
        summary.insert(
            format!("{}_median", metric::COMPLETION_TIME_MS),
            quantile(&done, 0.5),
        );
        summary.insert(
            format!("{}_p95", metric::COMPLETION_TIME_MS),
            quantile(&done, 0.95),
        );
    }
    let aborted = w
        .flows
        .iter()
        .filter(|f| {
            [f.client_ep, f.server_ep]
                .iter()
                .any(|&e| w.eps[e].gave_up().is_some())
        })
        .count();
    if aborted > 0 {
        summary.insert(unfinished::CONNECTIONS_ABORTED.into(), aborted as f64);
    }

    let secs = (w.now.min(duration).max(1)) as f64 / 1e9;
    // flows and paths, summed per role / per side and access path
    let mut by_role: BTreeMap<&str, (String, u64, Counters, u64)> = BTreeMap::new();
    let mut by_path: BTreeMap<(&str, &str, usize), Counters> = BTreeMap::new();
    let mut fg_bytes_by_path: BTreeMap<usize, u64> = (1..=npaths).map(|p| (p, 0)).collect();
    let mut ofo = mptlab_core::delay_stats::DelayStats::new();
    let (mut hol, mut any_ofo) = (0, false);
    for f in &w.flows {
        let role = f.role.as_str();
        let e = by_role
            .entry(role)
            .or_insert_with(|| (f.protocol.clone(), 0, Counters::default(), 0));
        e.3 += 1;
        for (side, ep) in [("client", f.client_ep), ("server", f.server_ep)] {
            for p in w.eps[ep].paths().iter() {
                let k = path_of(p.local).or(path_of(p.remote)).unwrap_or(0);
                e.2.add(&p.counters);
                by_path.entry((role, side, k)).or_default().add(&p.counters);
                if f.role == Role::Foreground {
                    *fg_bytes_by_path.entry(k + 1).or_default() += p.counters.bytes_sent;
                }
            }
            if f.role == Role::Foreground {
                if let Some(st) = w.eps[ep].ofo_stats() {
                    any_ofo = true;
                    ofo.merge(&st.delays);
                    hol += st.hol_time;
                }
            }
        }
        e.1 += if f.protocol == "udp" {
            0
        } else {
            w.delivered(f.client_ep) + w.delivered(f.server_ep)
        };
    }
    let mut flow_rows = Vec::new();
    for (role, (protocol, delivered, c, n)) in &by_role {
        let delivered = if protocol == "udp" {
            c.bytes_received
        } else {
            *delivered
        };
        if *role == Role::Foreground.as_str() {
            summary.insert(
                metric::FG_THROUGHPUT_MBIT.into(),
                metric::mbit_per_s(delivered, secs),
            );
            summary.insert("population.connections".into(), *n as f64);
            crate::output::insert_fg_counters(&mut summary, c);
        }
        flow_rows.push(rows::FlowRow {
            flow: 0,
            label: format!("clients ({n} flows)"),
            role: role.to_string(),
            protocol: protocol.clone(),
            bytes_delivered: delivered,
            throughput_mbit: metric::mbit_per_s(delivered, secs),
            messages_refused: refused,
            counters: CounterCells::from(c),
        });
    }
    let mut path_rows = Vec::new();
    for (&(role, side, k), c) in &by_path {
        let (sum_b, sum_p) = by_path
            .iter()
            .filter(|((r, s, _), _)| *r == role && *s == side)
            .fold((0, 0), |a, (_, c)| {
                (a.0 + c.bytes_sent, a.1 + c.data_packets_sent)
            });
        let (local, remote) = if side == "client" {
            (pop::client_block(k), "10.1.0.0/16".to_string())
        } else {
            ("10.1.0.0/16".to_string(), pop::client_block(k))
        };
        path_rows.push(rows::PathRow {
            flow: 0,
            label: "clients".into(),
            role: role.into(),
            side: side.into(),
            path: k as u64 + 1,
            local_addr: local,
            remote_addr: remote,
            share_bytes: rows::share(c.bytes_sent, sum_b),
            share_packets: rows::share(c.data_packets_sent, sum_p),
            counters: CounterCells::from(c),
        });
    }
    if any_ofo {
        if let Some(s) = ofo.summary() {
            summary.insert("ofo_fraction".into(), s.fraction_positive);
            summary.insert("ofo_fraction_over_150ms".into(), s.fraction_over_bound);
            summary.insert("ofo_delay_ms_mean".into(), s.mean_ms);
            summary.insert("ofo_delay_ms_p95".into(), s.p95_ms);
        }
        summary.insert("hol_blocking_ms".into(), to_ms(hol));
    }
    summary.extend(metric::fg_shares(&fg_bytes_by_path));

    // links, summed per class and direction
    let mut by_class: BTreeMap<(String, &str), (LinkStats, u64)> = BTreeMap::new();
    for (d, st) in w.net.link_stats() {
        let dir = if d.dir == "ab" { "up" } else { "down" };
        let e = by_class.entry((link_class(&d.name), dir)).or_default();
        add_stats(&mut e.0, st);
        e.1 += 1;
    }
    let link_rows: Vec<rows::LinkRow> = by_class
        .iter()
        .map(|((class, dir), (st, n))| {
            rows::LinkRow::of(&format!("{class} ({n} links)"), dir, "*", "*", st)
        })
        .collect();

    let mut ts = rows::TimeseriesRow::empty();
    if let Some(s) = series {
        for &(t, side, k, m, value) in &s.rows {
            let r = rows::TimeseriesRow {
                t_ms: to_ms(t),
                flow: 0,
                label: "clients".into(),
                side: side.into(),
                path: k as u64 + 1,
                metric: m.into(),
                value,
            };
            ts.push_row(r.cells()).expect("a row fits its own table");
        }
    }
    for (k, v) in drawn {
        summary.insert(metric::drawn(k), *v);
    }
    summary.insert("sim_time_s".into(), w.now as f64 / 1e9);
    summary.insert("events".into(), w.events.popped() as f64);
    summary.insert("data_packets".into(), w.data_packets_delivered as f64);
    let empty = |t: Table| t;
    RunTables {
        tables: vec![
            empty(rows::MessageRow::table(&[])),
            empty(rows::TransferRow::table(&[])),
            rows::FlowRow::table(&flow_rows),
            rows::PathRow::table(&path_rows),
            rows::LinkRow::table(&link_rows),
            ts,
        ],
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_classes_and_paths_of_the_plan() {
        assert_eq!(link_class("c123p2"), "path2");
        assert_eq!(link_class("p1r40"), "router_link1");
        assert_eq!(link_class("server7"), "server_link");
        assert_eq!(link_class("core"), "core_link");
        let a = |k, i| u32::from(pop::client_addr(k, i).unwrap());
        assert_eq!(path_of(a(0, 5)), Some(0));
        assert_eq!(path_of(a(1, 99_999)), Some(1));
        assert_eq!(path_of(a(2, 0)), Some(2));
        assert_eq!(path_of(u32::from(pop::server_addr(3).unwrap())), None);
    }
}
