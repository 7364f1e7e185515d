//! Routing tables of the routers: shortest paths by hop count, ties broken
//! by the lower directed-link index, computed once when the network is built.
//!
//! A router reaches a host address through the router at the far end of the
//! address's interface (its gateway), so the next hop depends on the gateway
//! alone: one breadth-first search per gateway over the router graph (hosts
//! never forward) gives every router's next hop toward it.
//!
//! Two representations of the same routes:
//!
//! * [`Routes::Table`]: per router a list of (address, link) pairs scanned
//!   linearly. Topologies of a few hosts (every preset and explicit topology
//!   of the seed papers) have a handful of entries per router, where a scan
//!   beats hashing.
//! * [`Routes::Hashed`]: many addresses (the `clients` preset, 10^5 clients
//!   with two interfaces each). A table per router would hold routers x
//!   addresses entries (10^9) and a scan would cost O(addresses) per packet;
//!   instead one map gives an address's gateway (`crate::addr_index`: a
//!   dense table for runs of consecutive addresses), and each router keeps
//!   its most common next hop plus the gateways it reaches otherwise (a
//!   tree's access router: none; its core router: one per access router).
//!
//! Both give the same link for every (router, address), so which one a
//! network uses never changes a result.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use mptlab_core::packet::Addr;

use crate::addr_index::AddrIndex;
use crate::network::{DLink, DLinkId, NodeId, NodeKind, TopologySpec};

/// Above this many host addresses the routes are hashed: a router scans
/// its table linearly, one entry per address, on every packet.
const TABLE_MAX_ADDRESSES: usize = 32;

/// No next hop (the gateway is unreachable from this router).
const NONE: u32 = u32::MAX;

/// A multiplicative hash of integer keys (Fibonacci hashing, as
/// rustc's FxHasher): addresses and node ids are small integers, and
/// the lookup sits on every router hop. Deterministic, which only
/// matters for speed: lookups never depend on the iteration order.
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

pub type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

/// One router's next hops in the hashed representation.
pub struct Hops {
    /// The next hop toward most gateways (`NONE`: unreachable).
    default: u32,
    /// The next hop toward every gateway whose node id is below its length
    /// (`default` where there is no exception): the exceptions of a router
    /// that has any, by node id, when their largest id is below
    /// `DENSE_MAX_IDS` (gateways are routers, which the `clients` preset
    /// numbers first: the core router's table is a few hundred entries even
    /// at 10^5 clients). One bounds-checked load instead of a hash probe:
    /// at 10,000 MPTCP clients the probe was about a quarter of a lookup's
    /// instructions (docs/performance.md "Session 24").
    dense: Box<[u32]>,
    /// Gateways reached over another link (or not at all), by node id,
    /// where `dense` does not hold them (ids too large for a table).
    except: IntMap<u32, u32>,
}

/// Largest table of next hops a router keeps by gateway node id (`Hops::dense`).
const DENSE_MAX_IDS: usize = 1 << 16;

impl Hops {
    fn new(default: u32, except: IntMap<u32, u32>) -> Hops {
        match except.keys().max() {
            Some(&max) if (max as usize) < DENSE_MAX_IDS => {
                let mut dense = vec![default; max as usize + 1];
                for (&gw, &h) in &except {
                    dense[gw as usize] = h;
                }
                Hops {
                    default,
                    dense: dense.into_boxed_slice(),
                    except: IntMap::default(),
                }
            }
            _ => Hops {
                default,
                dense: Box::default(),
                except,
            },
        }
    }

    /// The next hop toward gateway `gw` (not this router).
    #[inline(always)]
    fn toward(&self, gw: u32) -> u32 {
        match self.dense.get(gw as usize) {
            Some(&h) => h,
            None if self.except.is_empty() => self.default,
            None => self.except.get(&gw).copied().unwrap_or(self.default),
        }
    }
}

pub enum Routes {
    /// Per router: (destination address, outgoing directed link).
    Table(Vec<Vec<(Addr, DLinkId)>>),
    /// Per address: (gateway router, link from the gateway into the host),
    /// by runs of consecutive addresses where they form few (`AddrIndex`);
    /// per router (by node id; empty for hosts): its next hops.
    Hashed { dest: AddrIndex, hops: Vec<Hops> },
}

/// The routers of a topology, numbered 0.. in node order, with the
/// router-only adjacency (hosts never forward, so paths never cross them).
struct RouterGraph {
    /// Node id of router r.
    node: Vec<NodeId>,
    /// Router index of a node (`usize::MAX` for hosts).
    index: Vec<usize>,
    /// Per router: (neighbour router index, directed link to it), in the
    /// order the links were given.
    adj: Vec<Vec<(usize, DLinkId)>>,
}

impl RouterGraph {
    fn new(spec: &TopologySpec, adj: &[Vec<(NodeId, DLinkId)>]) -> Self {
        let is_router = |u: NodeId| spec.nodes[u].kind == NodeKind::Router;
        let node: Vec<NodeId> = (0..spec.nodes.len()).filter(|&u| is_router(u)).collect();
        let mut index = vec![usize::MAX; spec.nodes.len()];
        for (r, &u) in node.iter().enumerate() {
            index[u] = r;
        }
        let adj = node
            .iter()
            .map(|&u| {
                adj[u]
                    .iter()
                    .filter(|(v, _)| is_router(*v))
                    .map(|&(v, dl)| (index[v], dl))
                    .collect()
            })
            .collect();
        RouterGraph { node, index, adj }
    }

    /// Every router's next hop toward router `gw` (`NONE` for `gw` itself
    /// and for routers that cannot reach it): the neighbour closest to `gw`
    /// by hop count, the lower link index on a tie.
    fn hops_toward(&self, gw: usize, dist: &mut [u32], q: &mut VecDeque<usize>, out: &mut [u32]) {
        dist.fill(u32::MAX);
        dist[gw] = 0;
        q.clear();
        q.push_back(gw);
        while let Some(u) = q.pop_front() {
            for &(v, _) in &self.adj[u] {
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    q.push_back(v);
                }
            }
        }
        for (u, o) in out.iter_mut().enumerate() {
            *o = if u == gw {
                NONE
            } else {
                self.adj[u]
                    .iter()
                    .filter(|(v, _)| dist[*v] != u32::MAX)
                    .min_by_key(|(v, dl)| (dist[*v], *dl))
                    .map_or(NONE, |&(_, dl)| dl as u32)
            };
        }
    }
}

impl Routes {
    /// The routes of a topology whose host interfaces are `iface`
    /// (address -> (host, outgoing directed link)) and whose adjacency is
    /// `adj` (per node: (neighbour, directed link to it)).
    pub fn build(
        spec: &TopologySpec,
        dlinks: &[DLink],
        adj: &[Vec<(NodeId, DLinkId)>],
        iface: &HashMap<Addr, (NodeId, DLinkId)>,
    ) -> Routes {
        let link_to: Vec<NodeId> = dlinks.iter().map(|d| d.to).collect();
        Self::build_with(spec, &link_to, adj, iface, TABLE_MAX_ADDRESSES)
    }

    /// `build` with the number of addresses above which routes are hashed,
    /// and the node each directed link leads to.
    fn build_with(
        spec: &TopologySpec,
        link_to: &[NodeId],
        adj: &[Vec<(NodeId, DLinkId)>],
        iface: &HashMap<Addr, (NodeId, DLinkId)>,
        table_max: usize,
    ) -> Routes {
        let g = RouterGraph::new(spec, adj);
        let nr = g.node.len();
        // host addresses behind a router, in address order: (address,
        // gateway router index, link from the gateway into the host); a
        // host-to-host link needs no route
        let mut dests: Vec<(Addr, usize, DLinkId)> = iface
            .iter()
            .filter(|(_, &(_, out))| g.index[link_to[out]] != usize::MAX)
            .map(|(&a, &(_, out))| (a, g.index[link_to[out]], out ^ 1))
            .collect();
        dests.sort();
        let mut gws: Vec<usize> = dests.iter().map(|d| d.1).collect();
        gws.sort_unstable();
        gws.dedup();
        let mut dist = vec![0u32; nr];
        let mut q = VecDeque::new();
        let mut hop = vec![NONE; nr];
        if dests.len() <= table_max {
            let mut toward: HashMap<usize, Vec<u32>> = HashMap::new();
            for &gw in &gws {
                g.hops_toward(gw, &mut dist, &mut q, &mut hop);
                toward.insert(gw, hop.clone());
            }
            let mut routes = vec![Vec::new(); spec.nodes.len()];
            for &(a, gw, into_host) in &dests {
                for (r, &u) in g.node.iter().enumerate() {
                    if r == gw {
                        routes[u].push((a, into_host));
                    } else if toward[&gw][r] != NONE {
                        routes[u].push((a, toward[&gw][r] as DLinkId));
                    }
                }
            }
            return Routes::Table(routes);
        }
        // most common next hop of each router over all gateways (the lower
        // link on a tie), then the gateways reached otherwise
        let mut counts: Vec<IntMap<u32, u32>> = vec![IntMap::default(); nr];
        for &gw in &gws {
            g.hops_toward(gw, &mut dist, &mut q, &mut hop);
            for (r, &h) in hop.iter().enumerate() {
                if r != gw {
                    *counts[r].entry(h).or_default() += 1;
                }
            }
        }
        let default: Vec<u32> = counts
            .iter()
            .map(|c| {
                c.iter()
                    .max_by_key(|&(&h, &n)| (n, std::cmp::Reverse(h)))
                    .map_or(NONE, |(&h, _)| h)
            })
            .collect();
        let mut except: Vec<IntMap<u32, u32>> = vec![IntMap::default(); nr];
        for &gw in &gws {
            g.hops_toward(gw, &mut dist, &mut q, &mut hop);
            for (r, &h) in hop.iter().enumerate() {
                if r != gw && h != default[r] {
                    except[r].insert(g.node[gw] as u32, h);
                }
            }
        }
        let mut hops: Vec<Hops> = (0..spec.nodes.len())
            .map(|_| Hops::new(NONE, IntMap::default()))
            .collect();
        for (r, (d, e)) in default.into_iter().zip(except).enumerate() {
            hops[g.node[r]] = Hops::new(d, e);
        }
        let dest = AddrIndex::new(
            dests
                .iter()
                .map(|&(a, gw, into_host)| (a, (g.node[gw] as u32, into_host as u32)))
                .collect(),
        );
        Routes::Hashed { dest, hops }
    }

    /// The directed link router `at` sends a packet for `dst` out of.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: Addr) -> Option<DLinkId> {
        match self {
            Routes::Table(t) => t[at].iter().find(|(a, _)| *a == dst).map(|&(_, dl)| dl),
            Routes::Hashed { dest, hops } => {
                let (gw, into_host) = dest.get(dst)?;
                let h = if gw as usize == at {
                    into_host
                } else {
                    hops[at].toward(gw)
                };
                (h != NONE).then_some(h as DLinkId)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{LinkSpec, NodeSpec};
    use mptlab_core::link::{LinkParams, QueueLimit};
    use mptlab_core::packet::addr;

    /// A router's next hops by gateway answer as the exceptions' map with
    /// its default does, for every gateway, whether held in the dense table
    /// (ids below `DENSE_MAX_IDS`) or kept in the map (an id beyond it).
    #[test]
    fn dense_and_mapped_hops_answer_as_the_map() {
        let small: IntMap<u32, u32> = [(3, 7), (9, NONE), (0, 2)].into_iter().collect();
        let mut large = small.clone();
        large.insert(DENSE_MAX_IDS as u32 + 5, 4);
        for (except, dense) in [(small, true), (large, false), (IntMap::default(), false)] {
            let h = Hops::new(1, except.clone());
            assert_eq!(!h.dense.is_empty(), dense);
            let far = DENSE_MAX_IDS as u32;
            for gw in (0..20).chain(far..far + 10) {
                assert_eq!(h.toward(gw), except.get(&gw).copied().unwrap_or(1), "{gw}");
            }
        }
    }

    /// A random connected topology of routers and (multi-homed) hosts,
    /// with parallel paths so that ties occur: both representations must
    /// give the same next hop for every router and address.
    #[test]
    fn hashed_routes_equal_the_table() {
        let mut x: u64 = 0x9e37_79b9;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..30 {
            let routers = 2 + next(12) as usize;
            let hosts = 1 + next(20) as usize;
            let mut spec = TopologySpec::default();
            let p = LinkParams::new(1_000_000, 0, QueueLimit::Packets(1));
            for i in 0..routers {
                spec.nodes.push(NodeSpec {
                    name: format!("r{i}"),
                    kind: NodeKind::Router,
                });
            }
            let link = |spec: &mut TopologySpec, a, b, a_addr| {
                let name = format!("l{}", spec.links.len());
                spec.links.push(LinkSpec {
                    name,
                    a,
                    b,
                    a_addr,
                    b_addr: None,
                    ab: p.clone(),
                    ba: p.clone(),
                });
            };
            for i in 1..routers {
                let j = next(i as u64) as usize;
                link(&mut spec, i, j, None);
                if next(3) == 0 {
                    let k = next(routers as u64) as usize;
                    if k != i {
                        link(&mut spec, i, k, None);
                    }
                }
            }
            // an isolated router pair: unreachable gateways
            if round % 3 == 0 {
                spec.nodes.push(NodeSpec {
                    name: "lone-a".into(),
                    kind: NodeKind::Router,
                });
                spec.nodes.push(NodeSpec {
                    name: "lone-b".into(),
                    kind: NodeKind::Router,
                });
                let n = spec.nodes.len();
                link(&mut spec, n - 2, n - 1, None);
            }
            let mut a = 0u8;
            for h in 0..hosts {
                let id = spec.nodes.len();
                spec.nodes.push(NodeSpec {
                    name: format!("h{h}"),
                    kind: NodeKind::Host,
                });
                for _ in 0..1 + next(2) {
                    a += 1;
                    let r = next(spec.nodes.len() as u64 - 1) as usize;
                    if spec.nodes[r].kind == NodeKind::Router {
                        link(&mut spec, id, r, Some(addr(10, round as u8, 0, a)));
                    }
                }
            }
            let n = spec.nodes.len();
            let mut adj = vec![Vec::new(); n];
            let mut link_to = Vec::new();
            let mut iface = HashMap::new();
            for (i, l) in spec.links.iter().enumerate() {
                adj[l.a].push((l.b, 2 * i));
                adj[l.b].push((l.a, 2 * i + 1));
                link_to.push(l.b);
                link_to.push(l.a);
                if let Some(ad) = l.a_addr {
                    iface.insert(ad, (l.a, 2 * i));
                }
            }
            let table = Routes::build_with(&spec, &link_to, &adj, &iface, usize::MAX);
            let hashed = Routes::build_with(&spec, &link_to, &adj, &iface, 0);
            assert!(matches!(table, Routes::Table(_)));
            assert!(matches!(hashed, Routes::Hashed { .. }));
            let mut some = 0;
            for u in 0..n {
                if spec.nodes[u].kind != NodeKind::Router {
                    continue;
                }
                for &ad in iface.keys().chain([&addr(9, 9, 9, 9)]) {
                    let t = table.next_hop(u, ad);
                    assert_eq!(t, hashed.next_hop(u, ad), "round {round} router {u} {ad:x}");
                    some += t.is_some() as usize;
                }
            }
            assert!(some > 0 || iface.is_empty());
        }
    }
}
