//! The network: nodes (hosts and routers) joined by bidirectional links, each
//! direction a `LinkModel` followed by a propagation "pipe".
//!
//! Routing: a host sends a packet out of the interface that owns the packet's
//! source address (as a multi-homed phone with source-address policy routing
//! does); routers forward by destination address along shortest paths (hop
//! count, ties broken by the lower link index), computed once at build time.
//! Hosts never forward.

use std::cell::Cell;
use std::collections::HashMap;

use mptlab_core::fifo::Fifo;
use mptlab_core::invariants;
use mptlab_core::link::{LinkModel, LinkParams, LinkStats, Verdict};
use mptlab_core::packet::{addr_to_string, Addr};
use mptlab_core::{Nanos, Packet};

use crate::routes::Routes;

pub type NodeId = usize;
pub type DLinkId = usize;
/// A packet in flight, as an index into the network's packet pool.
pub type PktId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Router,
}

#[derive(Clone, Debug)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// A bidirectional link between nodes `a` and `b`, with the address of each
/// host-side interface (routers need none) and per-direction parameters.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    pub a: NodeId,
    pub b: NodeId,
    pub a_addr: Option<Addr>,
    pub b_addr: Option<Addr>,
    pub ab: LinkParams,
    pub ba: LinkParams,
}

#[derive(Clone, Debug, Default)]
pub struct TopologySpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
}

impl TopologySpec {
    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// One direction of a link: its model, then its propagation pipe.
///
/// The pipe is held here, not in a vector of its own beside `dlinks`
/// (until session 30): a send (`Network::enqueue`) offers the packet to
/// the model and puts it into the pipe of the same link, and the two
/// vectors were indexed one after the other, each with its own bounds
/// check and base load (docs/performance.md "Session 30 pass: the
/// engine's per-event cost"). An arrival still touches only the pipe's
/// own two cache lines of the record.
pub struct DLink {
    pub name: String,
    /// "ab" or "ba" relative to the spec, for reports.
    pub dir: &'static str,
    pub from: NodeId,
    pub to: NodeId,
    pub model: LinkModel,
    pipe: Pipe,
}

/// What a router needs of a packet to forward it, carried beside the
/// packet's pool index in the pipe: a router hop then never loads the
/// packet's pool slot (at 10,000 connections that load was a cache miss on
/// most hops, docs/performance.md "Scale").
///
/// `flow` and `client_host` are carried for the engine at the receiving host
/// (`World::on_host_arrive`), which picks the endpoint from them without loading
/// the packet or the flow's records first: at 10,000 connections each of
/// those loads was a cache miss that the next one waited for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hdr {
    pub dst: Addr,
    pub size: u32,
    pub payload_len: u32,
    /// The packet's flow (`Packet::flow`).
    pub flow: u32,
    /// The host of the flow's client endpoint, as the sender's engine knew
    /// it (`u32::MAX` when sent without one).
    pub client_host: u32,
}

impl Hdr {
    #[inline]
    fn of(p: &Packet, client_host: u32) -> Hdr {
        Hdr {
            dst: p.dst,
            size: p.size,
            payload_len: p.payload_len(),
            flow: p.flow,
            client_host,
        }
    }
}

/// A host's interfaces, copied into the engine's record of each endpoint on
/// it (`World::ep_hot`) so that a packet sent picks its outgoing link from a
/// record already in cache: at 10,000 connections the table lookup
/// (`Network::host_out_link`: `host_if_at[host]`, then the scan of
/// `host_ifaces`) was two dependent cache misses per packet sent
/// (docs/performance.md "Session 13"). Up to two interfaces (a phone's
/// Wi-Fi and cellular, a server's one) are held here; a host with more is
/// marked `MANY` and looked up in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IfaceMemo([(Addr, u32); 2]);

impl IfaceMemo {
    /// An empty slot's link (its address, 0, then matches nothing a host
    /// owns: an owned address 0 would sit in a filled slot, checked first).
    const NONE: u32 = u32::MAX;
    /// In slot 0's link: more interfaces than fit, use the table.
    const MANY: u32 = u32::MAX - 1;

    pub fn of(ifaces: &[(Addr, DLinkId)]) -> IfaceMemo {
        let mut m = [(0, Self::NONE); 2];
        if ifaces.len() > m.len() || ifaces.iter().any(|&(_, dl)| dl >= Self::MANY as usize) {
            m[0].1 = Self::MANY;
        } else {
            for (slot, &(a, dl)) in m.iter_mut().zip(ifaces) {
                *slot = (a, dl as u32);
            }
        }
        IfaceMemo(m)
    }

    /// The directed link out of the interface owning `src` (`None`: no
    /// interface owns it), or `Err(())` when the host's interfaces did not
    /// fit and the table must be asked.
    #[inline(always)]
    #[allow(clippy::result_unit_err)]
    pub fn out_link(&self, src: Addr) -> Result<Option<DLinkId>, ()> {
        let [a, b] = self.0;
        if a.1 == Self::MANY {
            return Err(());
        }
        let dl = if a.0 == src {
            a.1
        } else if b.0 == src {
            b.1
        } else {
            Self::NONE
        };
        Ok((dl != Self::NONE).then_some(dl as DLinkId))
    }
}

/// A packet in propagation: its arrival time, pool index and routing fields.
#[derive(Clone, Copy, Default)]
struct InPipe {
    at: Nanos,
    id: PktId,
    hdr: Hdr,
}

/// The hot part of a directed link's far end, a record of its own in the
/// `DLink` so that an arrival touches one small record: the packets in
/// propagation, in arrival order (FIFO because the model serialises in
/// order and the delay is constant), and the node they arrive at.
///
/// The packet due first is held in the record itself (`head`), the others
/// behind it in `rest`: an arrival reads its packet from the record, and
/// an arrival or a send on an otherwise empty pipe (most of them at light
/// load) does not touch the queue at all. (Until session 16 the record held
/// a copy of the queue's first entry beside the queue: each arrival then
/// took two queue operations, `pop_front` and `front`, and each send into
/// an empty pipe a `push_back`.)
///
/// 64-byte aligned (128 bytes), so a record spans exactly two cache lines
/// wherever it sits in its `DLink` (32-byte aligned until session 30, in a
/// vector of pipes; until session 17 it was 96 bytes).
#[repr(align(64))]
struct Pipe {
    /// The packet due first, when `busy`: an arrival expected soon is
    /// prefetched through this record alone (`prefetch_arrival_deep`),
    /// without a dependent load of the queue's buffer.
    head: InPipe,
    /// The packets behind `head`, in arrival order (a `Fifo`, not a
    /// `VecDeque`: docs/performance.md "Session 29 pass").
    rest: Fifo<InPipe>,
    to: NodeId,
    /// `head` holds a packet.
    busy: bool,
    to_router: bool,
    /// The last destination a packet out of this pipe was routed to and its
    /// next hop at `to` (routes are fixed when the network is built): a
    /// pipe mostly carries one connection's packets, or one direction of a
    /// few, so the route lookup (`Routes::next_hop`: a scan, or a load
    /// from the address table and at the core a hash probe) is skipped for
    /// most router hops. A `Cell` because the prefetch of an arrival
    /// expected next (`prefetch_arrival_deep`, through `&self`) looks the
    /// head's route up where the memo misses and leaves it here, so that
    /// the arrival's `forward_arrival` finds it instead of repeating the
    /// lookup (docs/performance.md "Session 24").
    memo: Cell<Option<(Addr, DLinkId)>>,
}

impl Pipe {
    fn new(to: NodeId, to_router: bool) -> Pipe {
        Pipe {
            head: InPipe::default(),
            rest: Fifo::new(),
            busy: false,
            to,
            to_router,
            memo: Cell::new(None),
        }
    }

    /// Queue `e` behind the packets in propagation; whether it is the only
    /// one (the caller then schedules its arrival).
    #[inline(always)]
    fn push(&mut self, e: InPipe) -> bool {
        let head = !self.busy;
        if head {
            self.head = e;
            self.busy = true;
        } else {
            self.rest.push_back(e);
        }
        head
    }

    /// The next hop at this pipe's far end (a router) for `dst`: the memo,
    /// or where it holds another destination `route_memoised`.
    #[inline(always)]
    fn next_hop(&self, routes: &Routes, dst: Addr) -> Option<DLinkId> {
        match self.memo.get() {
            Some((d, out)) if d == dst => Some(out),
            _ => self.route_memoised(routes, dst),
        }
    }

    /// The next hop at this pipe's far end (a router) for `dst`, left in
    /// the memo. The memo only ever holds `next_hop`'s answer for its
    /// destination (routes are fixed once built), whoever filled it, so a
    /// lookup skipped for it returns what it would have.
    #[inline(always)]
    fn route_memoised(&self, routes: &Routes, dst: Addr) -> Option<DLinkId> {
        let out = routes.next_hop(self.to, dst);
        if let Some(o) = out {
            self.memo.set(Some((dst, o)));
        }
        out
    }
}

/// Packets in flight, stored once while they cross the network hop by hop
/// (as htsim recycles packets from a free list): queues and events carry a
/// `PktId`, so a packet of ~200 bytes is not copied in and out of every
/// pipe it crosses.
struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    /// A slot neither in use nor in `free`: the next packet an endpoint
    /// sends is written into it (`Endpoint::poll_transmit_into`) and
    /// `claim_vacant` takes it, rather than the packet being returned and
    /// copied into a slot (128 bytes per packet sent; docs/performance.md
    /// "Session 26 pass: the sent packet built in its slot"). It holds
    /// whatever it held last, which owns nothing on the heap: the write
    /// (`Packet::overwrite_plain_with`) forgets it.
    vacant: PktId,
    /// A packet that owns memory on the heap (`Packet::owns_heap`) may be
    /// sent through the pool (`Network::expect_owning_packets`, or one was
    /// inserted): `claim_vacant` then drops what the slot it makes vacant
    /// owns, which keeps the vacant slot owning nothing. When no endpoint sends such packets
    /// (plain TCP and UDP: the background traffic) the test is skipped,
    /// and with it the test each write into the slot made until session
    /// 32 (docs/performance.md "Session 32 pass: the engine's per-event
    /// cost"); checked builds assert that it would have found nothing.
    owning: bool,
}

impl Default for PacketPool {
    fn default() -> Self {
        PacketPool {
            slots: vec![Packet::VACANT],
            free: Vec::new(),
            vacant: 0,
            owning: false,
        }
    }
}

impl PacketPool {
    /// The vacant slot's packet is now in use: its id, and the next free
    /// slot (or a new one) becomes the vacant one.
    ///
    /// The new vacant slot is cleaned here (`owning`), not when it was
    /// freed: a test in `release` sat in the event loop's arrival path,
    /// whose registers it upset (`self` kept on the stack, +11 M
    /// instructions in the background cell).
    #[inline(always)]
    fn claim_vacant(&mut self) -> PktId {
        let id = self.vacant;
        self.vacant = match self.free.pop() {
            Some(i) => i,
            None => self.grow(),
        };
        if self.owning {
            self.slots[self.vacant as usize].drop_owned();
        } else if invariants::ENABLED {
            self.slots[self.vacant as usize].check_owns_nothing();
        }
        id
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> PktId {
        self.slots.push(Packet::VACANT);
        (self.slots.len() - 1) as PktId
    }

    #[inline]
    fn insert(&mut self, p: Packet) -> PktId {
        self.owning |= p.owns_heap();
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as PktId
            }
        }
    }

    /// The slot may be reused: by `insert`, which drops its packet, or as
    /// the vacant slot, which `claim_vacant` cleans.
    #[inline]
    fn release(&mut self, i: PktId) {
        self.free.push(i);
    }
}

pub struct Network {
    pub nodes: Vec<NodeSpec>,
    pub dlinks: Vec<DLink>,
    /// Host interfaces: address -> (host, outgoing directed link).
    iface: HashMap<Addr, (NodeId, DLinkId)>,
    /// Every host's (address, outgoing directed link) pairs, host by host:
    /// host h's are `host_ifaces[host_if_at[h]..host_if_at[h + 1]]`. A linear
    /// scan of these few entries is cheaper than hashing on every packet,
    /// and one flat table (rather than a vector per host) spares a
    /// dependent load per packet sent.
    host_ifaces: Vec<(Addr, DLinkId)>,
    host_if_at: Vec<u32>,
    /// Where routers send each destination address (`crate::routes`).
    routes: Routes,
    pub drops_no_route: u64,
    pool: PacketPool,
    /// Per directed link, the cache lines of its `LinkModel` that
    /// `offer_packet` reads (`LinkModel::hot_lines`), for
    /// `prefetch_departure`: kept here, one byte a link, because the model
    /// itself is what is being prefetched.
    model_lines: Vec<u8>,
}

/// What the network did with a packet handed to it.
pub enum Sent {
    /// Now in the pipe of this directed link; if it is the pipe's only
    /// packet the caller must schedule its arrival.
    InFlight {
        dlink: DLinkId,
        head: bool,
        at: Nanos,
    },
    Dropped(Verdict),
    NoRoute,
}

/// A packet taken off the head of a pipe (`Network::arrive_pooled`).
pub struct Arrival {
    pub node: NodeId,
    /// The node is a router: forward with `forward_pooled` and `hdr`.
    pub router: bool,
    pub id: PktId,
    pub hdr: Hdr,
    /// The arrival time of the pipe's next packet, if any.
    pub next: Option<Nanos>,
}

impl Network {
    pub fn build(spec: &TopologySpec, seed: u64) -> Result<Network, String> {
        let n = spec.nodes.len();
        if spec.links.len() * 2 > crate::world::MAX_EVENT_INDEX {
            return Err(format!(
                "{} links: at most {} fit one simulation (the event queue numbers directed links below {})",
                spec.links.len(),
                crate::world::MAX_EVENT_INDEX / 2,
                crate::world::MAX_EVENT_INDEX
            ));
        }
        let mut dlinks = Vec::with_capacity(spec.links.len() * 2);
        let mut iface = HashMap::new();
        let mut adj: Vec<Vec<(NodeId, DLinkId)>> = vec![Vec::new(); n];
        for (i, l) in spec.links.iter().enumerate() {
            if l.a >= n || l.b >= n || l.a == l.b {
                return Err(format!(
                    "link {}: endpoints must be two different existing nodes",
                    l.name
                ));
            }
            for (p, dir) in [(&l.ab, "ab"), (&l.ba, "ba")] {
                p.validate()
                    .map_err(|e| format!("link {} ({dir}): {e}", l.name))?;
            }
            let ab = 2 * i;
            let ba = 2 * i + 1;
            let rng_ab = mptlab_core::link::link_stream(seed, &l.name, true);
            let rng_ba = mptlab_core::link::link_stream(seed, &l.name, false);
            for (dir, from, to, params, rng) in [
                ("ab", l.a, l.b, &l.ab, rng_ab),
                ("ba", l.b, l.a, &l.ba, rng_ba),
            ] {
                dlinks.push(DLink {
                    name: l.name.clone(),
                    dir,
                    from,
                    to,
                    model: LinkModel::new(params.clone(), rng),
                    pipe: Pipe::new(to, spec.nodes[to].kind == NodeKind::Router),
                });
            }
            adj[l.a].push((l.b, ab));
            adj[l.b].push((l.a, ba));
            for (node, addr, out) in [(l.a, l.a_addr, ab), (l.b, l.b_addr, ba)] {
                if let Some(a) = addr {
                    if spec.nodes[node].kind != NodeKind::Host {
                        return Err(format!(
                            "link {}: only hosts have interface addresses",
                            l.name
                        ));
                    }
                    if iface.insert(a, (node, out)).is_some() {
                        return Err(format!("address {} is assigned twice", addr_to_string(a)));
                    }
                }
            }
        }
        let routes = Routes::build(spec, &dlinks, &adj, &iface);
        let mut all: Vec<_> = iface.iter().map(|(a, &(h, dl))| (h, *a, dl)).collect();
        all.sort();
        let host_ifaces: Vec<(Addr, DLinkId)> = all.iter().map(|&(_, a, dl)| (a, dl)).collect();
        let mut host_if_at = Vec::with_capacity(n + 1);
        let mut i = 0;
        for h in 0..=n {
            while i < all.len() && all[i].0 < h {
                i += 1;
            }
            host_if_at.push(u32::try_from(i).expect("fewer than 2^32 interfaces"));
        }
        let model_lines = dlinks.iter().map(|d| d.model.hot_lines() as u8).collect();
        Ok(Network {
            model_lines,
            nodes: spec.nodes.clone(),
            dlinks,
            iface,
            host_ifaces,
            host_if_at,
            routes,
            drops_no_route: 0,
            pool: PacketPool::default(),
        })
    }

    /// The host owning an address.
    pub fn host_of(&self, a: Addr) -> Option<NodeId> {
        self.iface.get(&a).map(|v| v.0)
    }

    /// The directed link a host sends a packet with source `src` out of.
    #[inline(always)]
    pub fn host_out_link(&self, host: NodeId, src: Addr) -> Option<DLinkId> {
        self.host_interfaces(host)
            .iter()
            .find(|(a, _)| *a == src)
            .map(|&(_, dl)| dl)
    }

    /// A host's (address, outgoing directed link) pairs.
    #[inline(always)]
    pub fn host_interfaces(&self, host: NodeId) -> &[(Addr, DLinkId)] {
        let at = &self.host_if_at[host..host + 2];
        &self.host_ifaces[at[0] as usize..at[1] as usize]
    }

    /// Hand a packet to node `at` (a host sending, or a router forwarding).
    pub fn send_from(&mut self, at: NodeId, now: Nanos, pkt: Packet) -> Sent {
        let id = self.pool.insert(pkt);
        self.send_pooled(at, now, id)
    }

    /// Put a packet into the pool, for `send_pooled`.
    #[inline]
    pub fn pool_insert(&mut self, pkt: Packet) -> PktId {
        self.pool.insert(pkt)
    }

    /// A pooled packet (taken by `arrive_pooled`, not yet released).
    #[inline]
    pub fn packet(&self, id: PktId) -> &Packet {
        &self.pool.slots[id as usize]
    }

    /// Done with a packet delivered to a host.
    #[inline]
    pub fn release(&mut self, id: PktId) {
        self.pool.release(id);
    }

    /// Packets that own memory on the heap (`Packet::owns_heap`) will be
    /// written into the pool's vacant slot (an endpoint that
    /// `Endpoint::may_send_owning` was added): freed slots are cleaned
    /// from now on. Before any packet is sent.
    #[inline]
    pub fn expect_owning_packets(&mut self) {
        self.pool.owning = true;
    }

    /// `send_from` for a packet already in the pool; a packet not sent on
    /// (dropped, no route) is released.
    #[inline]
    pub fn send_pooled(&mut self, at: NodeId, now: Nanos, id: PktId) -> Sent {
        match self.nodes[at].kind {
            NodeKind::Host => self.send_from_host(at, now, id, u32::MAX),
            NodeKind::Router => {
                let hdr = Hdr::of(&self.pool.slots[id as usize], u32::MAX);
                let out = self.routes.next_hop(at, hdr.dst);
                self.enqueue(out, now, id, hdr)
            }
        }
    }

    /// The pool's vacant slot, for the packet a host sends next to be
    /// written into (`Endpoint::poll_transmit_into`); `claim_vacant_hdr`
    /// then pools it. What the slot holds before is no packet in flight.
    #[inline(always)]
    pub fn vacant_slot(&mut self) -> &mut Packet {
        &mut self.pool.slots[self.pool.vacant as usize]
    }

    /// The packet written into the vacant slot, before `claim_vacant_hdr`.
    #[inline(always)]
    pub fn vacant_packet(&self) -> &Packet {
        &self.pool.slots[self.pool.vacant as usize]
    }

    /// Pool the packet written into the vacant slot, with its pipe entry's
    /// fields (`Hdr`, with the host of the packet's flow's client), for
    /// `enqueue`.
    #[inline(always)]
    pub fn claim_vacant_hdr(&mut self, client_host: u32) -> (PktId, Hdr) {
        let hdr = Hdr::of(self.vacant_packet(), client_host);
        (self.pool.claim_vacant(), hdr)
    }

    /// `send_pooled` from a node the caller knows is a host (an endpoint's
    /// host), with the host of the packet's flow's client for `Hdr`.
    #[inline(always)]
    pub fn send_from_host(
        &mut self,
        host: NodeId,
        now: Nanos,
        id: PktId,
        client_host: u32,
    ) -> Sent {
        let hdr = Hdr::of(&self.pool.slots[id as usize], client_host);
        let src = self.pool.slots[id as usize].src;
        let out = self.host_out_link(host, src);
        self.enqueue(out, now, id, hdr)
    }

    /// A router forwards a packet that arrived at it (`Arrival`), by the
    /// routing fields carried in the pipe: the packet itself is not read.
    #[inline(always)]
    pub fn forward_pooled(&mut self, router: NodeId, now: Nanos, id: PktId, hdr: Hdr) -> Sent {
        let out = self.routes.next_hop(router, hdr.dst);
        self.enqueue(out, now, id, hdr)
    }

    /// Whether an arrival on `dl` is at a router (`forward_arrival`) or at
    /// a host (`arrive_pooled`).
    #[inline(always)]
    pub fn arrives_at_router(&self, dl: DLinkId) -> bool {
        self.dlinks[dl].pipe.to_router
    }

    /// The packet at the head of pipe `dl`, whose far end is a router
    /// (`arrives_at_router`), forwarded where it lies in the pipe's record
    /// (by the pipe's route memo, then the next link's model and pipe), and
    /// only then the next entry moved into the record (`arrive_pooled`'s
    /// step); the arrival time of the pipe's next packet is returned beside
    /// what the forward did.
    ///
    /// `arrive_pooled` then `forward_from` (until session 30) copied the head's fields out of
    /// the record and kept them on the stack across the caller's push of
    /// the pipe's next arrival (five stores and as many loads per hop) and
    /// indexed the pipe twice (docs/performance.md "Session 30 pass: the
    /// engine's per-event cost"). The result is the same: the forward
    /// touches only the next link (a router's next hop is never the pipe
    /// the packet came by: `out` leaves the router `dl` enters, and
    /// `Network::build` refuses a link whose two ends are one node), and the
    /// caller pushes the two arrivals in the order it did.
    ///
    /// The links are indexed through one slice held here, so its length
    /// stays in a register and the pop's index of `dl` repeats no bounds
    /// check; the model is offered the head's size and payload length only,
    /// and the head entry is read from the record again once the model has
    /// let the packet through, then written into the next pipe. Through
    /// `enqueue` (until session 33) the entry's fields were loaded before
    /// the offer and held across it, spilled to the stack (the general
    /// path is a call) and read back for the push: docs/performance.md
    /// "Session 33 pass: the engine's per-event cost".
    #[inline(always)]
    pub fn forward_arrival(&mut self, dl: DLinkId, now: Nanos) -> (Sent, Option<Nanos>) {
        let Network {
            dlinks,
            routes,
            pool,
            drops_no_route,
            ..
        } = self;
        let links = &mut dlinks[..];
        let pipe = &links[dl].pipe;
        assert!(pipe.busy, "arrival event for an empty pipe");
        debug_assert!(pipe.to_router);
        let hdr = &pipe.head.hdr;
        let (size, payload_len) = (hdr.size, hdr.payload_len);
        let out = pipe.next_hop(routes, hdr.dst);
        debug_assert_ne!(out, Some(dl), "a router's next hop is the link it came by");
        // `enqueue`'s steps, the same order and effects
        let sent = match out {
            None => {
                *drops_no_route += 1;
                pool.release(links[dl].pipe.head.id);
                Sent::NoRoute
            }
            Some(out) => match links[out].model.offer_packet(now, size, payload_len) {
                Verdict::Deliver { at } => {
                    let e = InPipe {
                        at,
                        ..links[dl].pipe.head
                    };
                    let head = links[out].pipe.push(e);
                    Sent::InFlight {
                        dlink: out,
                        head,
                        at,
                    }
                }
                v => {
                    pool.release(links[dl].pipe.head.id);
                    Sent::Dropped(v)
                }
            },
        };
        let pipe = &mut links[dl].pipe;
        let next = if pipe.rest.pop_front_into(&mut pipe.head) {
            Some(pipe.head.at)
        } else {
            pipe.busy = false;
            None
        };
        (sent, next)
    }

    /// Offer pooled packet `id` to directed link `out` (`None`: no route;
    /// the packet is released, as it is when the link drops it).
    #[inline(always)]
    pub fn enqueue(&mut self, out: Option<DLinkId>, now: Nanos, id: PktId, hdr: Hdr) -> Sent {
        let Some(out) = out else {
            self.drops_no_route += 1;
            self.pool.release(id);
            return Sent::NoRoute;
        };
        // one index for the model and the pipe (`DLink`)
        let d = &mut self.dlinks[out];
        match d.model.offer_packet(now, hdr.size, hdr.payload_len) {
            Verdict::Deliver { at } => {
                let head = d.pipe.push(InPipe { at, id, hdr });
                Sent::InFlight {
                    dlink: out,
                    head,
                    at,
                }
            }
            v => {
                self.pool.release(id);
                Sent::Dropped(v)
            }
        }
    }

    /// Take the packet at the head of a pipe (its arrival time has come) and
    /// the arrival time of the next one, if any.
    pub fn arrive(&mut self, dl: DLinkId) -> (NodeId, Packet, Option<Nanos>) {
        let a = self.arrive_pooled(dl);
        let pkt = self.pool.slots[a.id as usize].clone();
        self.pool.release(a.id);
        (a.node, pkt, a.next)
    }

    /// `arrive` leaving the packet in the pool: the caller forwards it
    /// (`forward_pooled`) or hands it to a host and `release`s it.
    #[inline(always)]
    pub fn arrive_pooled(&mut self, dl: DLinkId) -> Arrival {
        let pipe = &mut self.dlinks[dl].pipe;
        assert!(pipe.busy, "arrival event for an empty pipe");
        // the head, in the record (at 10,000 connections the queue's
        // buffer is a cache miss: its entry is read only as the next head)
        let e = pipe.head;
        // the next entry is copied from the queue's buffer straight into
        // the record, then dropped from the queue: `pipe.head =
        // pop_front()` moved it through a stack temporary (two stores
        // and two loads, and in `perf annotate` the busiest lines of
        // `World::run`: docs/performance.md "Session 22 pass")
        let next = if pipe.rest.pop_front_into(&mut pipe.head) {
            Some(pipe.head.at)
        } else {
            pipe.busy = false;
            None
        };
        Arrival {
            node: pipe.to,
            router: pipe.to_router,
            id: e.id,
            hdr: e.hdr,
            next,
        }
    }

    /// Start loading what an arrival on `dl` reads first (its pipe
    /// record), for an arrival expected soon (`EventQueue::upcoming`).
    #[inline(always)]
    pub fn prefetch_arrival(&self, dl: DLinkId) {
        if let Some(d) = self.dlinks.get(dl) {
            crate::prefetch::record(&d.pipe);
        }
    }

    /// For an arrival on `dl` expected next, whose pipe record was
    /// prefetched an event earlier: start loading what handling it reads
    /// next. For a router, by the route memo, the next link's model and
    /// pipe; for a host, the packet's pool slot, and the head's node and
    /// routing fields are returned so that the caller can prefetch the
    /// receiving endpoint's state.
    #[inline(always)]
    pub fn prefetch_arrival_deep(&self, dl: DLinkId) -> Option<(NodeId, Hdr)> {
        let pipe = &self.dlinks.get(dl)?.pipe;
        if !pipe.busy {
            return None;
        }
        let e = &pipe.head;
        // the entry after the head: the arrival copies it into `head`
        if let Some(n) = pipe.rest.front() {
            crate::prefetch::line(n);
        }
        if pipe.to_router {
            // by the memo, or where the memo will miss (a shared link,
            // carrying many clients' packets: the core's and the access
            // routers' hops at 10,000 clients) by the route itself, which
            // `forward_arrival` will look up anyway (since session 12 a load
            // from a dense table, `crate::addr_index`)
            if let Some(out) = pipe.next_hop(&self.routes, e.hdr.dst) {
                self.prefetch_departure(out);
            }
            None
        } else {
            if let Some(p) = self.pool.slots.get(e.id as usize) {
                crate::prefetch::record(p);
            }
            // a host answers a segment (an ACK, or the data an ACK lets
            // out) mostly on the same interface: the reverse direction of
            // the link it arrived on (directed links 2i and 2i + 1)
            self.prefetch_departure(dl ^ 1);
            Some((pipe.to, e.hdr))
        }
    }

    /// Start loading what sending a packet into directed link `out` reads:
    /// its model's hot fields and its pipe record.
    #[inline(always)]
    fn prefetch_departure(&self, out: DLinkId) {
        if let Some(d) = self.dlinks.get(out) {
            crate::prefetch::record(&d.pipe);
            // the fields `offer_packet` touches fill the model's first
            // three cache lines (mptlab_core::link)
            // (a link with random loss, as the phones' Wi-Fi, takes the
            // general path: the loss process too, `LinkModel::hot_lines`)
            let m = &d.model as *const LinkModel as *const u8;
            let lines = self.model_lines.get(out).copied().unwrap_or(3) as usize;
            for l in 0..lines {
                crate::prefetch::line(m.wrapping_add(64 * l));
            }
        }
    }

    pub fn link_stats(&self) -> impl Iterator<Item = (&DLink, &LinkStats)> {
        self.dlinks.iter().map(|d| (d, d.model.stats()))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use mptlab_core::link::QueueLimit;
    use mptlab_core::packet::{addr, Payload, UdpDatagram};
    use mptlab_core::time::MS;

    fn lp(ms: u64) -> LinkParams {
        LinkParams::new(1_000_000_000, ms * MS, QueueLimit::Packets(100))
    }

    fn two_path() -> TopologySpec {
        let host = |n: &str| NodeSpec {
            name: n.into(),
            kind: NodeKind::Host,
        };
        let router = |n: &str| NodeSpec {
            name: n.into(),
            kind: NodeKind::Router,
        };
        let link = |name: &str, a, b, a_addr, b_addr, ms| LinkSpec {
            name: name.into(),
            a,
            b,
            a_addr,
            b_addr,
            ab: lp(ms),
            ba: lp(ms),
        };
        TopologySpec {
            nodes: vec![
                host("client"),
                router("r1"),
                router("r2"),
                router("core"),
                host("server"),
            ],
            links: vec![
                link("acc1", 0, 1, Some(addr(10, 1, 0, 2)), None, 10),
                link("acc2", 0, 2, Some(addr(10, 2, 0, 2)), None, 30),
                link("p1", 1, 3, None, None, 0),
                link("p2", 2, 3, None, None, 0),
                link("srv", 3, 4, None, Some(addr(10, 0, 0, 2)), 0),
            ],
        }
    }

    /// A 100-byte UDP datagram from `src` to `dst` (also the world's
    /// tests' packet).
    pub(crate) fn pkt(src: Addr, dst: Addr) -> Packet {
        Packet {
            src,
            dst,
            flow: 0,
            size: 100,
            payload: Payload::Udp(UdpDatagram {
                src_port: 1,
                dst_port: 2,
                len: 72,
                seq: 0,
                sent_at: 0,
            }),
        }
    }

    /// A packet told apart by `n`: a UDP datagram, or for odd `n` an SCTP
    /// packet (a boxed payload, which the pool must drop when the slot is
    /// written over).
    fn numbered(n: u32) -> Packet {
        let mut p = pkt(n, n);
        p.size = n;
        if n % 2 == 1 {
            p.payload = Payload::Sctp(Box::new(mptlab_core::sctp::chunk::SctpPacket {
                src_port: 1,
                dst_port: 2,
                vtag: n,
                chunks: Vec::new(),
            }));
        }
        p
    }

    /// The pool's vacant slot (session 26: a sent packet is written into
    /// it, then claimed) and its free list, interleaved with plain inserts
    /// and releases: every packet in use keeps its own slot and contents,
    /// the vacant slot is never one in use, and a write that does not
    /// happen (`poll_transmit_into` returning false) claims nothing. Half
    /// the packets own heap memory (SCTP): in a pool that expects them the
    /// vacant slot never holds any, since a freed slot is cleaned when it
    /// becomes the vacant one (`claim_vacant`), so the write over it
    /// forgets nothing that owns memory (without the cleaning it holds one
    /// once a freed slot that holds one becomes the vacant one).
    #[test]
    fn the_vacant_slot_is_never_a_packet_in_use() {
        let mut pool = PacketPool {
            owning: true,
            ..PacketPool::default()
        };
        let mut live: Vec<(PktId, u32)> = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for n in 0..5_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 4 {
                0 => {
                    let slot = &mut pool.slots[pool.vacant as usize];
                    slot.overwrite_plain_with(|| numbered(n));
                    live.push((pool.claim_vacant(), n));
                }
                1 => live.push((pool.insert(numbered(n)), n)),
                2 if !live.is_empty() => {
                    let (id, _) = live.swap_remove((x as usize / 4) % live.len());
                    pool.release(id);
                }
                _ => {}
            }
            assert!(live.iter().all(|&(id, _)| id != pool.vacant));
            assert!(!pool.slots[pool.vacant as usize].owns_heap(), "step {n}");
            for &(id, m) in &live {
                assert_eq!(pool.slots[id as usize], numbered(m), "slot {id}");
            }
            let mut ids: Vec<PktId> = live.iter().map(|&(id, _)| id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), live.len(), "a slot handed out twice");
        }
    }

    /// A pool told of no endpoint that sends packets owning heap memory
    /// skips the cleaning of the slots it makes vacant; a checked build
    /// (`invariants`, on in this crate's tests) catches such a packet when
    /// its freed slot becomes the vacant one, where the next write over it
    /// would have leaked it (without the check the claim passes and the
    /// test fails).
    #[test]
    #[should_panic(expected = "a packet owning heap memory is written over without its drop")]
    fn an_owning_packet_in_a_pool_not_told_of_one_is_caught() {
        let mut pool = PacketPool::default();
        pool.slots[pool.vacant as usize].overwrite_plain_with(|| numbered(1));
        let id = pool.claim_vacant();
        pool.release(id);
        pool.slots[pool.vacant as usize].overwrite_plain_with(|| numbered(2));
        // the SCTP packet's slot becomes the vacant one
        pool.claim_vacant();
    }

    /// Walk a packet hop by hop, returning (final node, arrival time).
    fn walk(net: &mut Network, from: NodeId, p: Packet) -> (NodeId, Nanos) {
        let mut at = from;
        let mut t = 0;
        let mut p = p;
        loop {
            match net.send_from(at, t, p) {
                Sent::InFlight {
                    dlink, at: when, ..
                } => {
                    let (to, pk, _) = net.arrive(dlink);
                    t = when;
                    if net.nodes[to].kind == NodeKind::Host {
                        return (to, t);
                    }
                    at = to;
                    p = pk;
                }
                _ => panic!("dropped"),
            }
        }
    }

    #[test]
    fn source_address_picks_the_access_path() {
        let mut net = Network::build(&two_path(), 1).unwrap();
        let (dst, t1) = walk(&mut net, 0, pkt(addr(10, 1, 0, 2), addr(10, 0, 0, 2)));
        assert_eq!(dst, 4);
        let (_, t2) = walk(&mut net, 0, pkt(addr(10, 2, 0, 2), addr(10, 0, 0, 2)));
        assert!(t2 > t1 + 19 * MS, "path 2 is the slow one: {t1} {t2}");
    }

    #[test]
    fn routers_route_back_to_the_right_interface() {
        let mut net = Network::build(&two_path(), 1).unwrap();
        let (dst, t) = walk(&mut net, 4, pkt(addr(10, 0, 0, 2), addr(10, 2, 0, 2)));
        assert_eq!(dst, 0);
        assert!(t >= 30 * MS);
    }

    #[test]
    fn host_interface_table_is_per_host() {
        let net = Network::build(&two_path(), 1).unwrap();
        let client: Vec<Addr> = net.host_interfaces(0).iter().map(|i| i.0).collect();
        assert_eq!(client, vec![addr(10, 1, 0, 2), addr(10, 2, 0, 2)]);
        for router in 1..=3 {
            assert!(net.host_interfaces(router).is_empty());
        }
        assert_eq!(net.host_interfaces(4).len(), 1);
        assert_eq!(net.host_out_link(0, addr(10, 2, 0, 2)), Some(2));
        assert_eq!(net.host_out_link(4, addr(10, 1, 0, 2)), None);
    }

    /// Several packets in one pipe come out in order, each arrival
    /// reporting the next one's time: the record's copy of the head
    /// (`Pipe::head`) follows the queue.
    #[test]
    fn a_pipe_delivers_its_packets_in_order() {
        let mut net = Network::build(&two_path(), 1).unwrap();
        let mut sent = Vec::new();
        for i in 0..3u64 {
            let mut p = pkt(addr(10, 1, 0, 2), addr(10, 0, 0, 2));
            p.size = 100 + i as u32;
            match net.send_from(0, i, p) {
                Sent::InFlight { dlink, head, at } => {
                    assert_eq!(head, i == 0);
                    sent.push((dlink, at));
                }
                _ => panic!("dropped"),
            }
        }
        for i in 0..3 {
            let a = net.arrive_pooled(sent[i].0);
            assert_eq!(a.hdr.size, 100 + i as u32);
            assert_eq!(a.next, sent.get(i + 1).map(|s| s.1));
            assert!(a.router);
            net.release(a.id);
        }
    }

    /// The hint for an arrival at a router expected next looks its route up
    /// and leaves it in the pipe's memo (docs/performance.md "Session 24"),
    /// which the arrival's `forward_arrival` then uses: the memo holds the
    /// route's answer and the packet leaves on the link the route gives.
    /// The forward takes the head and moves the next packet up, as
    /// `arrive_pooled` does (session 30: the head is forwarded from the
    /// pipe's record before the next one moves up).
    #[test]
    fn the_arrival_hint_leaves_the_route_in_the_memo() {
        let mut net = Network::build(&two_path(), 1).unwrap();
        let server = addr(10, 0, 0, 2);
        let Sent::InFlight { dlink, .. } = net.send_from(0, 0, pkt(addr(10, 1, 0, 2), server))
        else {
            panic!("dropped")
        };
        let mut second = pkt(addr(10, 1, 0, 2), server);
        second.size = 200;
        let Sent::InFlight {
            dlink: d2,
            head: false,
            at: at2,
        } = net.send_from(0, 0, second)
        else {
            panic!("dropped, or not behind the first")
        };
        assert_eq!(d2, dlink);
        let router = net.dlinks[dlink].pipe.to;
        assert_eq!(net.dlinks[dlink].pipe.memo.get(), None);
        assert!(
            net.prefetch_arrival_deep(dlink).is_none(),
            "a router's arrival"
        );
        let out = net.routes.next_hop(router, server).expect("a route");
        assert_eq!(net.dlinks[dlink].pipe.memo.get(), Some((server, out)));
        assert!(net.arrives_at_router(dlink));
        let (sent, next) = net.forward_arrival(dlink, at2);
        assert_eq!(next, Some(at2), "the second packet moved up");
        match sent {
            Sent::InFlight { dlink: next, .. } => assert_eq!(next, out),
            _ => panic!("dropped"),
        }
        let (sent, next) = net.forward_arrival(dlink, at2);
        assert_eq!(next, None, "the pipe is empty");
        assert!(matches!(sent, Sent::InFlight { dlink: o, head: false, .. } if o == out));
        assert!(!net.dlinks[dlink].pipe.busy);
    }

    /// The memo in the engine's endpoint record answers as the table does
    /// for every address, and defers to it for a host with more than two
    /// interfaces.
    #[test]
    fn iface_memo_answers_as_the_table() {
        let net = Network::build(&two_path(), 1).unwrap();
        let probes = [
            addr(10, 1, 0, 2),
            addr(10, 2, 0, 2),
            addr(10, 0, 0, 2),
            0,
            addr(9, 9, 9, 9),
        ];
        for host in [0, 4] {
            let memo = IfaceMemo::of(net.host_interfaces(host));
            for a in probes {
                assert_eq!(
                    memo.out_link(a),
                    Ok(net.host_out_link(host, a)),
                    "host {host}"
                );
            }
        }
        assert_eq!(
            IfaceMemo::of(net.host_interfaces(0)).out_link(addr(10, 2, 0, 2)),
            Ok(Some(2))
        );
        let three = [(1, 0), (2, 2), (3, 4)];
        assert_eq!(IfaceMemo::of(&three).out_link(1), Err(()));
        assert_eq!(IfaceMemo::of(&[]).out_link(0), Ok(None));
    }

    #[test]
    fn unknown_source_is_not_routed() {
        let mut net = Network::build(&two_path(), 1).unwrap();
        assert!(matches!(
            net.send_from(0, 0, pkt(addr(9, 9, 9, 9), addr(10, 0, 0, 2))),
            Sent::NoRoute
        ));
        assert_eq!(net.drops_no_route, 1);
    }
}
