//! Explicit topologies (`[[topology.node]]` / `[[topology.link]]`, seed
//! 003's multi-ISP 2x2 and 2x3) as network namespaces: one namespace per
//! node, one TUN pair per link bridged by the userspace link emulator (one
//! `LinkModel` per direction, `link<k>.up` = a -> b as in the simulator).
//!
//! Addressing and routing follow the simulator's network
//! (`mptlab_sim::network`, module doc): a host's i-th address belongs to its
//! i-th link in file order; a host sends out of the interface that owns the
//! packet's source address (policy routing: `ip rule from ADDR lookup
//! table`, as a multi-homed host needs); routers forward by destination
//! along shortest paths by hop count, ties broken by the lower link index,
//! never through hosts. Every host address is a /32 on its TUN device
//! (point-to-point, no ARP); a router end gets 10.254.<k>.1 or .2 (only so
//! that it has an address for ICMP).
//!
//! Namespaces are named `<run prefix>n<node index>`; dropping the topology
//! removes them (also on panic), and a killed run's are removed by the next
//! run's `cleanup_stale`, as for the presets.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use mptlab_core::link::link_stream;
use mptlab_scenario as sc;

use crate::cleanup;
use crate::emulator::DirectionSpec;
use crate::netns::{self, err, ip_in};
use crate::tun::Tun;

/// The loss stream of explicit link `k` (0-based, file order), direction
/// a -> b (`up`) or b -> a: the simulator's stream for that link direction.
/// `mptlab_sim::runner` names explicit links `link<k+1>` with `ab` = a -> b
/// and seeds each direction with `link_stream`, so the k-th packet a
/// direction admits gets the same loss draw on both sides (as for preset
/// paths, `topology::directions`; docs/validation.md, decision level).
/// Before 2026-11-27 the emulator drew from its own `emu/link<k>/<up|down>`
/// streams, so seed 003's kernel runs had other loss positions than the
/// simulated runs they were paired with.
pub(crate) fn direction_stream(seed: u64, k: usize, up: bool) -> mptlab_core::SimRng {
    link_stream(seed, &format!("link{}", k + 1), up)
}

/// A built explicit topology.
#[derive(Debug)]
pub struct ExplicitTopology {
    pub prefix: String,
    /// Namespace of every node, in file order.
    pub ns: Vec<String>,
    pub client_ns: String,
    pub server_ns: String,
    /// The client's and the server's addresses in file order (address i
    /// is on the host's i-th link).
    pub client_addrs: Vec<String>,
    pub server_addrs: Vec<String>,
    /// The device of each client / server address (`l<k>`, its link).
    pub client_devs: Vec<String>,
    pub server_devs: Vec<String>,
    /// Per link: (TUN in a's namespace, TUN in b's namespace).
    pub links: Vec<(Arc<Tun>, Arc<Tun>)>,
    torn_down: bool,
}

/// For every node, the links it is on: (link index, far node).
fn adjacency(
    nodes: &[sc::Node],
    links: &[sc::ExplicitLink],
) -> io::Result<Vec<Vec<(usize, usize)>>> {
    let idx = |name: &str| {
        nodes
            .iter()
            .position(|n| n.name == name)
            .ok_or_else(|| err(format!("unknown node {name}")))
    };
    let mut adj = vec![Vec::new(); nodes.len()];
    for (k, l) in links.iter().enumerate() {
        let (a, b) = (idx(&l.a)?, idx(&l.b)?);
        adj[a].push((k, b));
        adj[b].push((k, a));
    }
    Ok(adj)
}

/// Host addresses as (address, host, link index): a host's i-th address
/// goes with its i-th link in file order (as `mptlab_sim::runner` assigns them).
fn host_addresses(
    nodes: &[sc::Node],
    adj: &[Vec<(usize, usize)>],
) -> io::Result<Vec<(String, usize, usize)>> {
    let mut v = Vec::new();
    for (h, n) in nodes.iter().enumerate() {
        if n.kind != sc::NodeKind::Host {
            continue;
        }
        if n.addresses.len() < adj[h].len() {
            return Err(err(format!(
                "host {} has more links than addresses (address i goes with its i-th link)",
                n.name
            )));
        }
        for (i, &(k, _)) in adj[h].iter().enumerate() {
            v.push((n.addresses[i].to_string(), h, k));
        }
    }
    Ok(v)
}

/// Routes of every router: (router, destination address, out link). The
/// simulator's rule (`mptlab_sim::network::Network::new`): BFS by hops
/// from the gateway at the far end of the address's link, never transiting
/// hosts; a router takes the neighbour router closest to the gateway, ties
/// broken by the lower link index.
pub fn router_routes(
    nodes: &[sc::Node],
    links: &[sc::ExplicitLink],
) -> io::Result<Vec<(usize, String, usize)>> {
    let adj = adjacency(nodes, links)?;
    let router = |u: usize| nodes[u].kind == sc::NodeKind::Router;
    let mut out = Vec::new();
    for (addr, host, k) in host_addresses(nodes, &adj)? {
        let gw = adj[host].iter().find(|&&(l, _)| l == k).unwrap().1;
        if !router(gw) {
            continue; // host-to-host link: delivered directly
        }
        let mut dist = vec![usize::MAX; nodes.len()];
        dist[gw] = 0;
        let mut q = VecDeque::from([gw]);
        while let Some(u) = q.pop_front() {
            if !router(u) {
                continue;
            }
            for &(_, v) in &adj[u] {
                if dist[v] == usize::MAX {
                    dist[v] = dist[u] + 1;
                    q.push_back(v);
                }
            }
        }
        for u in (0..nodes.len()).filter(|&u| router(u)) {
            if u == gw {
                out.push((u, addr.clone(), k));
                continue;
            }
            let best = adj[u]
                .iter()
                .filter(|&&(_, v)| dist[v] != usize::MAX && router(v))
                .min_by_key(|&&(l, v)| (dist[v], l));
            if let Some(&(l, _)) = best {
                out.push((u, addr.clone(), l));
            }
        }
    }
    Ok(out)
}

fn tun_in(ns: &str, name: &str) -> io::Result<Arc<Tun>> {
    let n = name.to_string();
    let t = netns::in_netns(ns, move || Tun::create(&n))
        .map_err(|e| err(format!("create TUN {name} in {ns}: {e}")))?;
    Ok(Arc::new(t))
}

impl ExplicitTopology {
    /// Build the namespaces, TUN pairs, addresses, policy rules and routes
    /// of an explicit topology (the emulator is started separately).
    pub fn build(topo: &sc::Topology, mtu: u32) -> io::Result<ExplicitTopology> {
        let sc::Topology::Explicit {
            client,
            server,
            nodes,
            links,
        } = topo
        else {
            return Err(err("not an explicit topology"));
        };
        netns::preflight()?;
        if let Err(e) = cleanup::cleanup_stale() {
            eprintln!("mptlab-emu: {e}");
        }
        let prefix = cleanup::run_prefix();
        let ns: Vec<String> = (0..nodes.len()).map(|i| format!("{prefix}n{i}")).collect();
        let find = |name: &str| {
            nodes
                .iter()
                .position(|n| n.name == name)
                .ok_or_else(|| err(format!("unknown node {name}")))
        };
        let (ci, si) = (find(client)?, find(server)?);
        let adj = adjacency(nodes, links)?;
        let devs = |h: usize| -> Vec<String> {
            adj[h]
                .iter()
                .take(nodes[h].addresses.len())
                .map(|(k, _)| format!("l{}", k + 1))
                .collect()
        };
        let mut t = ExplicitTopology {
            client_ns: ns[ci].clone(),
            server_ns: ns[si].clone(),
            client_addrs: nodes[ci].addresses.iter().map(|a| a.to_string()).collect(),
            server_addrs: nodes[si].addresses.iter().map(|a| a.to_string()).collect(),
            client_devs: devs(ci),
            server_devs: devs(si),
            ns,
            prefix,
            links: Vec::new(),
            torn_down: false,
        };
        t.build_inner(nodes, links, mtu)?;
        Ok(t)
    }

    fn build_inner(
        &mut self,
        nodes: &[sc::Node],
        links: &[sc::ExplicitLink],
        mtu: u32,
    ) -> io::Result<()> {
        let adj = adjacency(nodes, links)?;
        for (i, n) in self.ns.iter().enumerate() {
            netns::add(n)?;
            ip_in(n, &["link", "set", "lo", "up"])?;
            netns::sysctl(n, "net.mptcp.enabled", "1")?;
            netns::sysctl(n, "net.ipv6.conf.all.disable_ipv6", "1")?;
            netns::sysctl(n, "net.ipv6.conf.default.disable_ipv6", "1")?;
            netns::sysctl(n, "net.ipv4.conf.all.rp_filter", "0")?;
            netns::sysctl(n, "net.ipv4.conf.default.rp_filter", "0")?;
            if nodes[i].kind == sc::NodeKind::Router {
                netns::sysctl(n, "net.ipv4.ip_forward", "1")?;
            }
        }
        let addrs = host_addresses(nodes, &adj)?;
        let addr_of = |node: usize, k: usize, end: u8| -> String {
            addrs
                .iter()
                .find(|(_, h, l)| *h == node && *l == k)
                .map(|(a, _, _)| a.clone())
                .unwrap_or_else(|| format!("10.254.{}.{end}", k + 1))
        };
        let idx = |name: &str| nodes.iter().position(|n| n.name == name).unwrap();
        for (k, l) in links.iter().enumerate() {
            let dev = format!("l{}", k + 1);
            let (a, b) = (idx(&l.a), idx(&l.b));
            let ta = tun_in(&self.ns[a], &dev)?;
            let tb = tun_in(&self.ns[b], &dev)?;
            for (node, end) in [(a, 1u8), (b, 2u8)] {
                let ns = &self.ns[node];
                ip_in(
                    ns,
                    &[
                        "addr",
                        "add",
                        &format!("{}/32", addr_of(node, k, end)),
                        "dev",
                        &dev,
                    ],
                )?;
                ip_in(
                    ns,
                    &[
                        "link",
                        "set",
                        &dev,
                        "mtu",
                        &mtu.to_string(),
                        "txqueuelen",
                        "10000",
                        "up",
                    ],
                )?;
            }
            self.links.push((ta, tb));
        }
        // Hosts: route by source address (one table per address), the
        // first address's link is the main table's default.
        for (h, n) in nodes.iter().enumerate() {
            if n.kind != sc::NodeKind::Host {
                continue;
            }
            let ns = &self.ns[h];
            for (i, (a, _, k)) in addrs.iter().filter(|(_, hh, _)| *hh == h).enumerate() {
                let dev = format!("l{}", k + 1);
                let table = (i + 1).to_string();
                ip_in(
                    ns,
                    &["route", "add", "default", "dev", &dev, "table", &table],
                )?;
                ip_in(
                    ns,
                    &[
                        "rule",
                        "add",
                        "from",
                        a,
                        "table",
                        &table,
                        "priority",
                        &(100 + i).to_string(),
                    ],
                )?;
                if i == 0 {
                    ip_in(ns, &["route", "add", "default", "dev", &dev, "src", a])?;
                }
            }
        }
        for (u, addr, k) in router_routes(nodes, links)? {
            ip_in(
                &self.ns[u],
                &[
                    "route",
                    "add",
                    &format!("{addr}/32"),
                    "dev",
                    &format!("l{}", k + 1),
                ],
            )?;
        }
        Ok(())
    }

    /// Emulator directions: `link<k>.up` (a -> b) and `link<k>.down`, with
    /// the links drawn for the run (`ducts[k]`), loss streams the
    /// simulator's (`direction_stream`).
    pub fn directions(
        &self,
        ducts: &[mptlab_setup::Duplex],
        seed: u64,
    ) -> io::Result<Vec<DirectionSpec>> {
        if ducts.len() != self.links.len() {
            return Err(err(format!(
                "{} link specs for {} links",
                ducts.len(),
                self.links.len()
            )));
        }
        let mut v = Vec::new();
        for (k, (d, (ta, tb))) in ducts.iter().zip(&self.links).enumerate() {
            let n = k + 1;
            v.push(DirectionSpec {
                name: format!("link{n}.up"),
                ingress: ta.clone(),
                egress: tb.clone(),
                params: d.up.clone(),
                rng: direction_stream(seed, k, true),
            });
            v.push(DirectionSpec {
                name: format!("link{n}.down"),
                ingress: tb.clone(),
                egress: ta.clone(),
                params: d.down.clone(),
                rng: direction_stream(seed, k, false),
            });
        }
        Ok(v)
    }

    pub fn teardown(&mut self) -> io::Result<()> {
        if self.torn_down {
            return Ok(());
        }
        self.torn_down = true;
        self.links.clear();
        cleanup::remove_prefix(&self.prefix)
    }
}

impl Drop for ExplicitTopology {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            eprintln!("mptlab-emu: teardown of {}: {e}", self.prefix);
        }
    }
}

/// The links of an explicit topology for the run with `seed`, drawn as the
/// simulator draws them (`mptlab_sim::runner`: a fresh `Draw` for the
/// run seed, `duplex` per link in file order with key `link<k>`), so an
/// emulated run gets its simulated twin's link parameters. Also returns
/// the drawn values (`link1.delay_ms`, ...).
pub type ExplicitLinks = (Vec<mptlab_setup::Duplex>, Vec<(String, f64)>);

pub fn explicit_links(s: &sc::Scenario, seed: u64) -> Result<ExplicitLinks, String> {
    let sc::Topology::Explicit { links, .. } = &s.topology else {
        return Err("not an explicit topology".into());
    };
    let mut drawn = Vec::new();
    let mut draw = mptlab_setup::draw::Draw::new(seed, &mut drawn);
    let mut traces = Default::default();
    let mut v = Vec::new();
    for (i, l) in links.iter().enumerate() {
        v.push(mptlab_setup::links::duplex(
            &l.link,
            &format!("link{}", i + 1),
            &mut draw,
            &mut traces,
        )?);
    }
    Ok((v, drawn))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(mut r: mptlab_core::SimRng) -> Vec<f64> {
        (0..64).map(|_| r.uniform()).collect()
    }

    /// Explicit link k's directions draw the simulator's loss stream for
    /// `link<k+1>` (`ab` = up), not the emulator-only streams used before:
    /// the k-th packet is then lost on both sides or on neither.
    #[test]
    fn explicit_links_draw_the_simulators_loss_streams() {
        for seed in [1u64, 7_280_280_077_913_760_158] {
            for k in 0..3 {
                let name = format!("link{}", k + 1);
                let up = draws(direction_stream(seed, k, true));
                let down = draws(direction_stream(seed, k, false));
                assert_eq!(up, draws(link_stream(seed, &name, true)));
                assert_eq!(down, draws(link_stream(seed, &name, false)));
                assert_ne!(up, down);
                let old = mptlab_core::SimRng::stream(seed, &format!("emu/link{}/up", k + 1));
                assert_ne!(up, draws(old));
            }
        }
    }
}
