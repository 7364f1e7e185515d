//! `[population]` with `topology.preset = "clients"`: sizes against the
//! address and port plan (`crate::population`), links resolved, and what
//! the form does not combine with.

use super::link::{check_params, Resolver};
use super::{err, num, VResult};
use crate::population::{self as pop, Population};
use crate::types::*;
use crate::*;

/// The resolved population, `None` without the `clients` preset; errors
/// when one comes without the other.
pub(super) fn resolve(
    file: &ScenarioFile,
    topology: &Topology,
    traffic: &Traffic,
    res: &mut Resolver,
) -> VResult<Option<Population>> {
    let clients_preset = matches!(
        topology,
        Topology::Preset {
            preset: TopologyPreset::Clients,
            ..
        }
    );
    let Some(p) = &file.population else {
        if clients_preset {
            return err(
                "topology.preset",
                "preset \"clients\" needs a [population] table (at least `clients = N`)",
            );
        }
        return Ok(None);
    };
    if !clients_preset {
        return err(
            "population",
            "[population] describes the clients of topology.preset = \"clients\"; set that preset or remove the table",
        );
    }
    let npaths = topology.num_paths();
    let per_client = match &traffic.model {
        TrafficModel::Web {
            max_connections, ..
        } => *max_connections,
        _ => 1,
    };
    let stride = pop::port_stride(&file.transport, npaths);
    pop::check_plan(p.clients, npaths, p.servers, per_client, stride)
        .or_else(|(k, m)| err(k, m))?;
    let cpr = p
        .clients_per_router
        .clone()
        .unwrap_or_else(|| vec![100; npaths]);
    if cpr.len() != npaths {
        return err(
            "population.clients_per_router",
            format!(
                "expected one entry per path of topology.paths ({npaths}), found {}",
                cpr.len()
            ),
        );
    }
    for (k, &c) in cpr.iter().enumerate() {
        if c == 0 {
            return err(
                "population.clients_per_router",
                format!(
                    "entry {}: expected at least 1 client per access router, found 0",
                    k + 1
                ),
            );
        }
        let routers = (p.clients as u64).div_ceil(c as u64);
        if routers > pop::MAX_ROUTERS_PER_PATH {
            return err(
                "population.clients_per_router",
                format!(
                    "entry {}: {} clients at {c} per router need {routers} access routers, at most {} per path (docs/scenario.md, limits): put more clients on a router",
                    k + 1,
                    p.clients,
                    pop::MAX_ROUTERS_PER_PATH
                ),
            );
        }
    }
    let gigabit = LinkParams {
        profile: Some("gigabit".into()),
        ..Default::default()
    };
    let rl = p
        .router_links
        .clone()
        .unwrap_or_else(|| vec![gigabit; npaths]);
    if rl.len() != npaths {
        return err(
            "population.router_links",
            format!(
                "expected one link table per path of topology.paths ({npaths}), found {}",
                rl.len()
            ),
        );
    }
    let mut router_links = Vec::new();
    for (k, l) in rl.iter().enumerate() {
        let at = format!("population.router_links[{k}]");
        check_params(&at, l, false)?;
        router_links.push(res.link(&at, &format!("{at}.profile"), l)?);
    }
    // a data-centre uplink that is no bottleneck unless asked: 100 Gbit/s,
    // 1 ms, a queue of 10,000 packets for the first flights of many clients
    let core = p.core_link.clone().unwrap_or(LinkParams {
        rate_mbit: Some(Range::Fixed(100_000.0)),
        delay_ms: Some(Range::Fixed(1.0)),
        queue_packets: Some(10_000),
        ..Default::default()
    });
    check_params("population.core_link", &core, false)?;
    let core_link = res.link(
        "population.core_link",
        "population.core_link.profile",
        &core,
    )?;
    num(
        "population.start_spread_s",
        p.start_spread_s,
        0.0,
        false,
        file.scenario.duration_s,
        "a spread in s within the run",
    )?;
    for (k, on, why) in [
        (
            "background.enabled",
            file.background.enabled,
            "the clients preset has no background hosts (the clients are the load)",
        ),
        (
            "output.capture",
            file.output.capture,
            "the clients preset would write a capture file per host",
        ),
        (
            "transport.mptcp.backup_paths",
            !file.transport.mptcp.backup_paths.is_empty()
                || !file.transport.mptcp.prio_changes.is_empty()
                || !file.transport.mptcp.endpoints.is_empty()
                || !file.transport.mptcp.server_endpoints.is_empty(),
            "backup_paths, prio_changes and (server_)endpoints name one client's addresses",
        ),
        (
            "traffic.failover_path",
            traffic.failover.is_some(),
            "the clients preset runs one connection per client and traffic model",
        ),
    ] {
        if on {
            return err(k, format!("not with topology.preset = \"clients\": {why}"));
        }
    }
    Ok(Some(Population {
        clients: p.clients,
        clients_per_router: cpr,
        router_links,
        servers: p.servers,
        core_link,
        start_spread_s: p.start_spread_s,
        per_connection_rows: p.per_connection_rows,
    }))
}
