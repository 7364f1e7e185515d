//! The `clients` preset (`[population]`): many clients, each a host with one
//! interface per `topology.paths` entry, sharing access routers, and a
//! server farm behind a core link.
//!
//! ```text
//!   client i --path 1 profile--> access router i / clients_per_router[0] --router_links[0]--+
//!       |                                                                                    core --core_link-- farm --server_link-- server j
//!       +----path 2 profile--> access router i / clients_per_router[1] --router_links[1]--+
//! ```
//!
//! Each client's access links carry its path's profile (its own radio: rate,
//! delay, loss); the access routers' uplinks are shared by their clients.
//! Client i talks to server i mod `servers`. Addresses and ports follow
//! `mptlab_scenario::population`'s plan. Every link's ranges are drawn once
//! per run and class (`path1.*`, `router_link1.*`, `core_link.*`,
//! `server_link.*`), so all clients of a path see the same drawn values,
//! while each link has its own loss stream (named by the link).

use std::collections::HashMap;

use mptlab_core::packet::Addr;
use mptlab_core::time::secs;
use mptlab_core::SimRng;
use mptlab_scenario as sc;
use mptlab_scenario::population::{self as pop, Population};
use mptlab_setup::draw::Draw;
use mptlab_setup::links::{duplex, Duplex};
use mptlab_setup::traffic;

use crate::network::{LinkSpec, Network, NodeId, NodeKind, NodeSpec, TopologySpec};
use crate::runner::{add_traffic, sender, Built, FlowFactory, Place};
use crate::topology::Layout;
use crate::world::World;

/// Node ids of a built population: clients, servers, and where the client
/// hosts start (they are the last nodes).
pub struct Hosts {
    pub first_client: NodeId,
    pub first_server: NodeId,
}

fn link(
    name: String,
    a: NodeId,
    b: NodeId,
    a_addr: Option<Addr>,
    b_addr: Option<Addr>,
    d: &Duplex,
) -> LinkSpec {
    // a is on the client side, so a->b is "up"
    LinkSpec {
        name,
        a,
        b,
        a_addr,
        b_addr,
        ab: d.up.clone(),
        ba: d.down.clone(),
    }
}

/// The topology of a population with every class's links drawn once.
fn topology(
    paths: &[sc::AccessPath],
    server_link: &sc::Link,
    p: &Population,
    draw: &mut Draw,
) -> Result<(TopologySpec, Hosts), String> {
    let mut traces = HashMap::new();
    let access: Vec<Duplex> = paths
        .iter()
        .enumerate()
        .map(|(k, a)| duplex(&a.link, &format!("path{}", k + 1), draw, &mut traces))
        .collect::<Result<_, _>>()?;
    let uplinks: Vec<Duplex> = p
        .router_links
        .iter()
        .enumerate()
        .map(|(k, l)| duplex(l, &format!("router_link{}", k + 1), draw, &mut traces))
        .collect::<Result<_, _>>()?;
    let core_link = duplex(&p.core_link, "core_link", draw, &mut traces)?;
    let srv = duplex(server_link, "server_link", draw, &mut traces)?;
    let mut t = TopologySpec::default();
    let node = |t: &mut TopologySpec, name: String, kind| {
        t.nodes.push(NodeSpec { name, kind });
        t.nodes.len() - 1
    };
    let core = node(&mut t, "core".into(), NodeKind::Router);
    let farm = node(&mut t, "farm".into(), NodeKind::Router);
    t.links
        .push(link("core".into(), core, farm, None, None, &core_link));
    let first_server = t.nodes.len();
    for j in 0..p.servers {
        let h = node(&mut t, format!("server{}", j + 1), NodeKind::Host);
        let a = u32::from(pop::server_addr(j)?);
        t.links.push(link(
            format!("server{}", j + 1),
            farm,
            h,
            None,
            Some(a),
            &srv,
        ));
    }
    // access routers of path k: router r serves clients r*cpr .. (r+1)*cpr
    let mut first_router = Vec::new();
    for (k, up) in uplinks.iter().enumerate() {
        first_router.push(t.nodes.len());
        for r in 0..p.routers(k) {
            let id = node(&mut t, format!("p{}r{}", k + 1, r + 1), NodeKind::Router);
            t.links.push(link(
                format!("p{}r{}", k + 1, r + 1),
                id,
                core,
                None,
                None,
                up,
            ));
        }
    }
    let first_client = t.nodes.len();
    for i in 0..p.clients {
        let h = node(&mut t, format!("c{}", i + 1), NodeKind::Host);
        for (k, d) in access.iter().enumerate() {
            let r = first_router[k] + (i / p.clients_per_router[k]) as usize;
            let a = u32::from(pop::client_addr(k, i)?);
            t.links.push(link(
                format!("c{}p{}", i + 1, k + 1),
                h,
                r,
                Some(a),
                None,
                d,
            ));
        }
    }
    Ok((
        t,
        Hosts {
            first_client,
            first_server,
        },
    ))
}

/// Build run `run` of a scenario with the `clients` preset.
pub fn build(s: &sc::Scenario, p: &Population, seed: u64) -> Result<Built, String> {
    let sc::Topology::Preset {
        paths, server_link, ..
    } = &s.topology
    else {
        return Err("the clients preset needs topology.preset = \"clients\"".into());
    };
    let mut drawn = Vec::new();
    let (spec, hosts) = topology(paths, server_link, p, &mut Draw::new(seed, &mut drawn))?;
    let net = Network::build(&spec, seed)?;
    drop(spec);
    let mut w = World::new(net);
    let npaths = paths.len();
    let stride = pop::port_stride(&s.transport, npaths);
    let mut ff = FlowFactory::for_population(s, seed, stride)?;
    let snd = sender(s.traffic.direction);
    let mut spread = SimRng::stream(seed, "population/start");
    let mut addrs: Vec<Addr> = Vec::with_capacity(npaths);
    let mut first_addrs = Vec::new();
    for i in 0..p.clients {
        // each client its own random streams (traffic models, path draw)
        let cseed = sc::run_seed(seed ^ 0x636c_6965_6e74, i); // "client"
        let path = s.client_path(cseed, npaths) as usize;
        addrs.clear();
        let own = |k: usize| pop::client_addr(k, i).map(u32::from);
        addrs.push(own(path - 1)?);
        for k in (0..npaths).filter(|&k| k != path - 1) {
            addrs.push(own(k)?);
        }
        if i == 0 {
            first_addrs = (0..npaths).map(own).collect::<Result<_, _>>()?;
        }
        let j = pop::server_of(i, p.servers);
        let sa = u32::from(pop::server_addr(j)?);
        ff.next_client(&addrs, sa);
        let offset = if p.start_spread_s > 0.0 {
            spread.uniform_range(0.0, p.start_spread_s)
        } else {
            0.0
        };
        let start = secs(s.traffic.start_s + offset);
        let tr = traffic::foreground_at(s, cseed, start)?;
        let at = Place {
            app: w.next_app_id(),
            client: hosts.first_client + i as usize,
            client_addr: addrs[0],
            server: hosts.first_server + j as usize,
            server_addr: sa,
        };
        add_traffic(
            &mut w,
            &mut ff,
            s,
            tr,
            start,
            snd,
            &at,
            &format!("-c{}", i + 1),
            &first_addrs,
        )?;
    }
    let server = u32::from(pop::server_addr(0)?);
    let layout = Layout {
        client: hosts.first_client,
        server: hosts.first_server,
        client_addrs: first_addrs,
        server_addr: server,
        server_addrs: vec![server],
        path_links: (0..npaths).map(|k| format!("c1p{}", k + 1)).collect(),
        bg_clients: Vec::new(),
        bg_server: None,
    };
    Ok(Built {
        world: w,
        layout,
        end: secs(s.meta.duration_s),
        drawn,
    })
}
