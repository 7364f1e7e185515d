//! From a validated scenario to one simulated run: draw the per-run values,
//! build the topology, the flows and the applications, run, and collect the
//! measurements (`crate::output` turns them into result tables).

use std::collections::HashMap;

use mptlab_core::endpoint::Endpoint;
use mptlab_core::mptcp::{EpFlags, MptcpConfig, MptcpConnection, Role as MpRole};
use mptlab_core::packet::Addr;
use mptlab_core::sctp::{SctpAssociation, SctpConfig};
use mptlab_core::tcp::{CcKind, Role as TcpRole, TcpConfig, TcpEndpoint};
use mptlab_core::time::{secs, Nanos, MS};
use mptlab_core::traffic::browser::Browser;
use mptlab_core::udp::UdpEndpoint;
use mptlab_core::{FlowId, SimRng};
use mptlab_scenario as sc;
use mptlab_setup::background as bg;
use mptlab_setup::draw::{initial_path, Draw};
use mptlab_setup::links::{duplex, preset_duplexes};
use mptlab_setup::traffic::{self, Traffic};

use crate::apps::{BulkApp, FileApp, SourceSchedule, StreamApp, UdpApp, WebApp};
use crate::failover::FailoverBulkApp;
use crate::network::{LinkSpec, Network, NodeId, NodeKind, NodeSpec, TopologySpec};
use crate::topology::{multi_path, Layout};
use crate::world::{Role, Side, World};

/// A world ready to run, with what the report needs to know about it.
pub struct Built {
    pub world: World,
    pub layout: Layout,
    pub end: Nanos,
    /// The values drawn for this run (e.g. `path1.up.rate_mbit`), for the results.
    pub drawn: Vec<(String, f64)>,
}

fn topology(s: &sc::Scenario, draw: &mut Draw) -> Result<(TopologySpec, Layout), String> {
    let mut traces = HashMap::new();
    match &s.topology {
        sc::Topology::Preset {
            paths, server_link, ..
        } => {
            let (ps, srv) = preset_duplexes(paths, server_link, draw, &mut traces)?;
            Ok(multi_path(&ps, &srv, s.background.enabled))
        }
        sc::Topology::Explicit {
            client,
            server,
            nodes,
            links,
        } => {
            if s.background.enabled {
                return Err("background traffic needs a topology preset (explicit topologies have no background hosts)".into());
            }
            let mut spec = TopologySpec::default();
            for n in nodes {
                let kind = match n.kind {
                    sc::NodeKind::Host => NodeKind::Host,
                    sc::NodeKind::Router => NodeKind::Router,
                };
                spec.nodes.push(NodeSpec {
                    name: n.name.clone(),
                    kind,
                });
            }
            // A host's i-th address belongs to its i-th link in file order.
            let mut next_addr: HashMap<&str, usize> = HashMap::new();
            let mut take = |name: &str| -> Result<Option<Addr>, String> {
                let n = nodes
                    .iter()
                    .find(|n| n.name == name)
                    .ok_or_else(|| format!("unknown node {name}"))?;
                if n.kind == sc::NodeKind::Router {
                    return Ok(None);
                }
                let i = next_addr.entry(&n.name).or_insert(0);
                let a = n.addresses.get(*i).ok_or_else(|| {
                    format!(
                        "host {} has more links than addresses (address i goes with its i-th link)",
                        n.name
                    )
                })?;
                *i += 1;
                Ok(Some(u32::from(*a)))
            };
            for (i, l) in links.iter().enumerate() {
                let key = format!("link{}", i + 1);
                let d = duplex(&l.link, &key, draw, &mut traces)?;
                let a = spec
                    .node(&l.a)
                    .ok_or_else(|| format!("unknown node {}", l.a))?;
                let b = spec
                    .node(&l.b)
                    .ok_or_else(|| format!("unknown node {}", l.b))?;
                let a_addr = take(&l.a)?;
                let b_addr = take(&l.b)?;
                spec.links.push(LinkSpec {
                    name: key,
                    a,
                    b,
                    a_addr,
                    b_addr,
                    ab: d.up,
                    ba: d.down,
                });
            }
            let c = spec
                .node(client)
                .ok_or_else(|| format!("unknown client node {client}"))?;
            let sv = spec
                .node(server)
                .ok_or_else(|| format!("unknown server node {server}"))?;
            let addrs = |name: &str| {
                nodes
                    .iter()
                    .find(|n| n.name == name)
                    .map(|n| {
                        n.addresses
                            .iter()
                            .map(|a| u32::from(*a))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            };
            let client_addrs = addrs(client);
            let server_addrs = addrs(server);
            let server_addr = *server_addrs
                .first()
                .ok_or("the server host needs an address")?;
            let layout = Layout {
                client: c,
                server: sv,
                path_links: (0..client_addrs.len())
                    .map(|i| format!("client-if{}", i + 1))
                    .collect(),
                client_addrs,
                server_addr,
                server_addrs,
                bg_clients: Vec::new(),
                bg_server: None,
            };
            Ok((spec, layout))
        }
    }
}

/// The TCP configuration a scenario asks for.
pub fn tcp_config(t: &sc::Transport) -> Result<TcpConfig, String> {
    let cc = match t.cc {
        cc if !cc.is_coupled() => cc,
        // MPTCP subflows use the coupled controller instead (mptcp_config).
        _ if t.protocol == sc::Protocol::Mptcp => CcKind::NewReno,
        other => return Err(format!("transport.cc = \"{other}\" is a coupled multipath algorithm; single-path TCP supports newreno and cubic")),
    };
    Ok(TcpConfig {
        mtu: t.mtu_bytes,
        ip: t.ip(),
        cc,
        initial_cwnd: t.initial_cwnd_packets,
        sack: t.sack,
        window_scaling: t.window_scaling,
        cubic: t.cubic,
        hystart: t.hystart,
        delayed_ack: t.delayed_ack,
        nagle: t.nagle,
        tlp: t.tlp,
        rack: t.rack,
        sndbuf: t.sndbuf_kib as u64 * 1024,
        rcvbuf: t.rcvbuf_kib as u64 * 1024,
        rto_min: (t.rto_min_ms * MS as f64).round() as Nanos,
        hz: t.hz,
        hz_phase: t.hz_phase_us as Nanos * 1_000,
        ..TcpConfig::default()
    })
}

/// The MPTCP configuration a scenario asks for (`[transport.mptcp]`);
/// `client_addrs` are the client's access-path addresses in path order.
pub fn mptcp_config(t: &sc::Transport, client_addrs: &[Addr]) -> Result<MptcpConfig, String> {
    let o = &t.mptcp;
    let pm = o.path_manager.kind(o.subflows_per_path, o.ndiffports);
    if o.subflows_per_path == 0 || o.subflows_per_path > 8 {
        return Err(format!(
            "transport.mptcp.subflows_per_path: expected 1..8, found {}",
            o.subflows_per_path
        ));
    }
    if o.ndiffports == 0 || o.ndiffports > 16 {
        return Err(format!(
            "transport.mptcp.ndiffports: expected 1..16, found {}",
            o.ndiffports
        ));
    }
    let mut backup_addrs = Vec::new();
    for &b in &o.backup_paths {
        match client_addrs.get((b as usize).wrapping_sub(1)) {
            Some(&a) => backup_addrs.push(a),
            None if client_addrs.is_empty() => {}
            None => return Err(format!("transport.mptcp.backup_paths: path {b} does not exist (the client has {} access paths)", client_addrs.len())),
        }
    }
    let mut prio_changes = Vec::new();
    for (i, c) in o.prio_changes.iter().enumerate() {
        match client_addrs.get((c.path as usize).wrapping_sub(1)) {
            Some(&addr) => prio_changes.push(mptlab_core::mptcp::prio::PrioChange {
                at: secs(c.at_s),
                addr,
                backup: c.backup,
            }),
            None if client_addrs.is_empty() => {}
            None => return Err(format!("transport.mptcp.prio_changes[{i}].path: path {} does not exist (the client has {} access paths)", c.path, client_addrs.len())),
        }
    }
    let mut removals = Vec::new();
    for (i, c) in o.endpoint_removals.iter().enumerate() {
        match client_addrs.get((c.path as usize).wrapping_sub(1)) {
            Some(&addr) => removals.push(mptlab_core::mptcp::remove_addr::AddrRemoval {
                at: secs(c.at_s),
                addr,
            }),
            None if client_addrs.is_empty() => {}
            None => return Err(format!("transport.mptcp.endpoint_removals[{i}].path: path {} does not exist (the client has {} access paths)", c.path, client_addrs.len())),
        }
    }
    let mut endpoints = Vec::new();
    for (i, &flags) in o.endpoints.iter().enumerate() {
        if flags.backup {
            if let Some(&a) = client_addrs.get(i) {
                backup_addrs.push(a);
            }
        }
        if let Some(&a) = client_addrs.get(i) {
            endpoints.push((a, flags));
        } else if !client_addrs.is_empty() {
            return Err(format!("transport.mptcp.endpoints: entry {} names client path {}, but the client has {} access paths", i + 1, i + 1, client_addrs.len()));
        }
    }
    if o.tlp == sc::MptcpTlp::MptcpLevel && !(t.tlp && t.sack) {
        return Err("transport.mptcp.tlp = \"mptcp-level\" needs transport.tlp = true and transport.sack = true (TLP requires SACK, RFC 8985 7.2)".into());
    }
    if o.path_manager != sc::PathManager::Upstream
        && !(o.endpoints.is_empty() && o.server_endpoints.is_empty())
    {
        return Err(
            "transport.mptcp.endpoints / server_endpoints need path_manager = \"upstream\"".into(),
        );
    }
    // `ip mptcp limits` of both hosts; unset: what emulation sets by default
    // (emu `configure_mptcp`: the number of client paths, at most 8)
    let dflt = client_addrs
        .len()
        .clamp(1, mptlab_core::mptcp::pm_kernel::MPTCP_PM_ADDR_MAX as usize) as u32;
    let limits = mptlab_core::mptcp::pm_kernel::PmLimits {
        subflows: o.limits.subflows.unwrap_or(dflt) as u8,
        add_addr_accepted: o.limits.add_addr_accepted.unwrap_or(dflt) as u8,
    };
    Ok(MptcpConfig {
        limits,
        add_addr_timeout: secs(o.add_addr_timeout_s),
        endpoints,
        endpoint_order: client_addrs.to_vec(),
        tcp: tcp_config(t)?,
        cc: t.cc,
        scheduler: o.scheduler,
        pm,
        backup_addrs,
        tlp: o.tlp,
        capable: true,
        prio_changes,
        checksum: o.checksum,
        removals,
        fastclose_at: o.fastclose_at_s.map(secs),
    })
}

/// Creates flows of the scenario's transport protocol between two hosts.
pub(crate) struct FlowFactory {
    protocol: sc::Protocol,
    tcp: TcpConfig,
    sctp: Option<SctpConfig>,
    mptcp: Option<MptcpConfig>,
    /// MPTCP: the server is not MPTCP-capable (fallback).
    server_capable: bool,
    /// Multi-homed servers (explicit topologies): every server address, the first one first.
    server_addrs: Vec<Addr>,
    /// Upstream path manager: the server's endpoint flags by address.
    server_endpoints: Vec<(Addr, EpFlags)>,
    /// Multi-homed protocols: the client's addresses, the chosen path first
    /// (it becomes SCTP's primary path).
    client_addrs: Vec<Addr>,
    /// The next client port and the first one handed out. Ports are counted
    /// in u32 so that running out is an error, never a wrap onto a port in use.
    next_port: u32,
    first_port: u32,
    /// Ports each connection takes (`mptlab_scenario::population`'s port
    /// plan): 1, or a block of one port per MPTCP subflow; MPTCP
    /// connections then open their subflows from their block.
    port_stride: u32,
    /// MPTCP client subflows take their ports from the connection's block
    /// (`MptcpConnection::with_port_block`) instead of `port + 1 + 97 k`.
    port_blocks: bool,
}

impl FlowFactory {
    /// The flows of the `clients` preset: the scenario's transport, ports
    /// from the population's port plan ([`Self::next_client`] per client).
    pub(crate) fn for_population(
        s: &sc::Scenario,
        seed: u64,
        stride: u32,
    ) -> Result<FlowFactory, String> {
        let sctp = if is_sctp(s.transport.protocol) {
            Some(sctp_config(
                &s.transport,
                SimRng::stream(seed, "sctp").below(u64::MAX),
            )?)
        } else {
            None
        };
        let mptcp = if s.transport.protocol == sc::Protocol::Mptcp {
            Some(mptcp_config(&s.transport, &[])?)
        } else {
            None
        };
        Ok(FlowFactory {
            protocol: s.transport.protocol,
            tcp: tcp_config(&s.transport)?,
            sctp,
            mptcp,
            server_capable: s.transport.mptcp.server_capable,
            server_addrs: Vec::new(),
            server_endpoints: Vec::new(),
            client_addrs: Vec::new(),
            next_port: sc::population::FIRST_PORT,
            first_port: sc::population::FIRST_PORT,
            port_stride: stride,
            port_blocks: true,
        })
    }

    /// Start a new client (its own addresses, the chosen path first, and
    /// its own port space) talking to `server`.
    pub(crate) fn next_client(&mut self, client_addrs: &[Addr], server: Addr) {
        self.client_addrs.clear();
        self.client_addrs.extend_from_slice(client_addrs);
        self.server_addrs.clear();
        self.server_addrs.push(server);
        self.next_port = self.first_port;
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        w: &mut World,
        label: String,
        role: Role,
        app: usize,
        ch: NodeId,
        ca: Addr,
        shost: NodeId,
        sa: Addr,
        udp: bool,
    ) -> Result<FlowId, String> {
        let stride = self.port_stride;
        // the flow's first port is `last - (stride - 1)`, written so that
        // no step overflows when `last` is 65535 (`last + 1` would)
        let Ok(cp) =
            u16::try_from(self.next_port + stride - 1).map(|last| last - (stride as u16 - 1))
        else {
            return Err(format!(
                "flow {label}: client {ca} has no free port left ({} connections use ports {}..=65535)",
                (u16::MAX as u32 + 1 - self.first_port) / stride,
                self.first_port
            ));
        };
        self.next_port += stride;
        let flow = w.next_flow_id();
        let sp = 80;
        let (c, s, proto): (Box<dyn Endpoint>, Box<dyn Endpoint>, &str) =
            if udp || self.protocol == sc::Protocol::Udp {
                (
                    Box::new(UdpEndpoint::new(flow, ca, cp, sa, sp).with_ip(self.tcp.ip)),
                    Box::new(UdpEndpoint::new(flow, sa, sp, ca, cp).with_ip(self.tcp.ip)),
                    "udp",
                )
            } else if let Some(cfg) = &self.mptcp {
                let mut sa_all = vec![sa];
                sa_all.extend(self.server_addrs.iter().copied().filter(|&a| a != sa));
                let mut srv = cfg.clone();
                srv.capable = self.server_capable;
                srv.backup_addrs.clear();
                // withdrawals are the client's (its access paths)
                srv.removals.clear();
                // the client's application aborts
                srv.fastclose_at = None;
                srv.endpoints = self.server_endpoints.clone();
                let mut client = MptcpConnection::new(
                    cfg.clone(),
                    flow,
                    MpRole::Client,
                    &self.client_addrs,
                    cp,
                    &[sa],
                    sp,
                )
                .expect("validated");
                if self.port_blocks {
                    client = client.with_port_block(stride as u16);
                }
                (
                    Box::new(client),
                    Box::new(
                        MptcpConnection::new(srv, flow, MpRole::Server, &sa_all, sp, &[], cp)
                            .expect("validated"),
                    ),
                    "mptcp",
                )
            } else if let Some(cfg) = &self.sctp {
                // Both ends multi-homed as SCTP sees them: every client address,
                // the chosen path first (the primary), one server address.
                let mut cfg_c = cfg.clone();
                cfg_c.seed = cfg.seed ^ (flow as u64) << 1;
                let mut cfg_s = cfg.clone();
                cfg_s.seed = cfg.seed ^ ((flow as u64) << 1 | 1);
                (
                    Box::new(SctpAssociation::new(
                        flow,
                        &self.client_addrs,
                        cp,
                        &[sa],
                        sp,
                        cfg_c,
                    )),
                    Box::new(SctpAssociation::new(
                        flow,
                        &[sa],
                        sp,
                        &self.client_addrs,
                        cp,
                        cfg_s,
                    )),
                    if cfg.cmt { "cmt-sctp" } else { "sctp" },
                )
            } else {
                (
                    Box::new(TcpEndpoint::new(
                        &self.tcp,
                        flow,
                        ca,
                        cp,
                        sa,
                        sp,
                        TcpRole::Client,
                    )),
                    Box::new(TcpEndpoint::new(
                        &self.tcp,
                        flow,
                        sa,
                        sp,
                        ca,
                        cp,
                        TcpRole::Server,
                    )),
                    "tcp",
                )
            };
        Ok(w.add_flow(label, proto, role, app, ch, c, shost, s))
    }
}

pub(crate) fn sender(d: sc::Direction) -> Side {
    match d {
        sc::Direction::Down => Side::Server,
        sc::Direction::Up => Side::Client,
    }
}

/// The SCTP configuration a scenario asks for (`[transport.sctp]`).
pub fn sctp_config(t: &sc::Transport, seed: u64) -> Result<SctpConfig, String> {
    let o = &t.sctp;
    let (snd, rcv) = (t.sndbuf_kib as u64 * 1024, t.rcvbuf_kib as u64 * 1024);
    let cmt = t.protocol == sc::Protocol::CmtSctp;
    let preset = o.preset.unwrap_or(if cmt {
        sc::SctpPreset::Seed000
    } else {
        sc::SctpPreset::Rfc
    });
    let mut c = preset.config(snd, rcv);
    c.cmt = cmt;
    c.mtu = t.mtu_bytes;
    c.ip = t.ip();
    c.seed = seed;
    // Unset keys keep the preset's value.
    c.scheduler = o.scheduler.unwrap_or(c.scheduler);
    c.rtx_policy = o.retransmission.unwrap_or(c.rtx_policy);
    c.buffer_split = o.buffer_splitting.unwrap_or(c.buffer_split);
    c.cc = o.cc.unwrap_or(c.cc);
    c.nr_sack = o.nr_sack.unwrap_or(c.nr_sack);
    c.chunk_rescheduling = o.chunk_rescheduling.unwrap_or(c.chunk_rescheduling);
    c.max_burst = o.max_burst.unwrap_or(c.max_burst);
    c.unordered = o.unordered.unwrap_or(c.unordered);
    if c.unordered {
        return Err("transport.sctp.unordered = true is not measured yet (message accounting assumes ordered delivery)".into());
    }
    Ok(c)
}

fn is_sctp(p: sc::Protocol) -> bool {
    matches!(p, sc::Protocol::Sctp | sc::Protocol::CmtSctp)
}

/// Whether the simulator implements what the scenario asks for.
pub fn supported(s: &sc::Scenario) -> Result<(), String> {
    match s.transport.protocol {
        sc::Protocol::Tcp
        | sc::Protocol::Udp
        | sc::Protocol::Sctp
        | sc::Protocol::CmtSctp
        | sc::Protocol::Mptcp => {}
    }
    if s.transport.protocol == sc::Protocol::Mptcp {
        mptcp_config(&s.transport, &[])?;
    }
    if s.transport.protocol == sc::Protocol::Tcp {
        tcp_config(&s.transport)?;
    }
    if is_sctp(s.transport.protocol) {
        sctp_config(&s.transport, 0)?;
    }
    traffic::check_files(s)?;
    if s.background.enabled && s.background.tcp_cc.is_coupled() {
        return Err(format!(
            "background.tcp_cc = \"{}\": background flows are single-path TCP (newreno or cubic)",
            s.background.tcp_cc
        ));
    }
    if s.background.enabled && matches!(s.topology, sc::Topology::Explicit { .. }) {
        return Err("background traffic needs a topology preset (explicit topologies have no background hosts)".into());
    }
    Ok(())
}

/// Build run `run` of a scenario.
pub fn build(s: &sc::Scenario, run: u32) -> Result<Built, String> {
    let seed = s.run_seed(run);
    supported(s)?;
    if let Some(p) = &s.population {
        return crate::population::build(s, p, seed);
    }
    let mut drawn = Vec::new();
    let (spec, layout) = topology(s, &mut Draw::new(seed, &mut drawn))?;
    let net = Network::build(&spec, seed)?;
    let mut w = World::new(net);
    let end = secs(s.meta.duration_s);
    let path = initial_path(s, seed, layout.client_addrs.len(), &mut drawn) as usize;
    let ca = *layout
        .client_addrs
        .get(path.wrapping_sub(1))
        .ok_or_else(|| {
            format!(
                "transport.path = {path}, but the client has {} access paths",
                layout.client_addrs.len()
            )
        })?;
    let mut client_addrs = vec![ca];
    client_addrs.extend(layout.client_addrs.iter().copied().filter(|&a| a != ca));
    let sctp = if is_sctp(s.transport.protocol) {
        Some(sctp_config(
            &s.transport,
            SimRng::stream(seed, "sctp").below(u64::MAX),
        )?)
    } else {
        None
    };
    let mptcp = if s.transport.protocol == sc::Protocol::Mptcp {
        Some(mptcp_config(&s.transport, &layout.client_addrs)?)
    } else {
        None
    };
    let mut ff = FlowFactory {
        protocol: s.transport.protocol,
        tcp: tcp_config(&s.transport)?,
        sctp,
        mptcp,
        server_capable: s.transport.mptcp.server_capable,
        server_addrs: layout.server_addrs.clone(),
        server_endpoints: layout
            .server_addrs
            .iter()
            .zip(&s.transport.mptcp.server_endpoints)
            .map(|(&a, &f)| (a, f))
            .collect(),
        client_addrs,
        next_port: 40000,
        first_port: 40000,
        port_stride: 1,
        port_blocks: false,
    };
    let start = secs(s.traffic.start_s);
    let snd = sender(s.traffic.direction);
    let app = w.next_app_id();
    // transport.server_path picks the server address of the foreground flow
    // (validated against the topology; presets have one server address)
    let sp = s.transport.server_path as usize;
    let sa = *layout.server_addrs.get(sp.wrapping_sub(1)).ok_or_else(|| {
        format!(
            "transport.server_path = {sp}, but the server has {} addresses",
            layout.server_addrs.len()
        )
    })?;
    let (cl, sv) = (layout.client, layout.server);
    let tr = traffic::foreground(s, seed)?;
    let at = Place {
        app,
        client: cl,
        client_addr: ca,
        server: sv,
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
        "",
        &layout.client_addrs,
    )?;
    if s.background.enabled {
        background(s, &mut w, &mut ff, &layout, &spec, snd, seed)?;
    }
    Ok(Built {
        world: w,
        layout,
        end,
        drawn,
    })
}

/// Where a client application runs: its app id, the client host and
/// address it starts from, the server host and address.
pub(crate) struct Place {
    pub app: usize,
    pub client: NodeId,
    pub client_addr: Addr,
    pub server: NodeId,
    pub server_addr: Addr,
}

/// The flows and the application of one client's traffic `tr` starting at
/// `start`; flow labels end in `suffix` (the client of a population).
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_traffic(
    w: &mut World,
    ff: &mut FlowFactory,
    s: &sc::Scenario,
    tr: Traffic,
    start: Nanos,
    snd: Side,
    at: &Place,
    suffix: &str,
    layout_client_addrs: &[Addr],
) -> Result<(), String> {
    let (app, cl, ca, sv, sa) = (at.app, at.client, at.client_addr, at.server, at.server_addr);
    match tr {
        Traffic::Messages { schedule, finite } => {
            message_app(
                w,
                ff,
                suffix,
                app,
                cl,
                ca,
                sv,
                sa,
                snd,
                Box::new(schedule),
                finite,
                s.traffic.client_hello_bytes,
            )?;
        }
        Traffic::Web { page, browser: cfg } => {
            let max_connections = cfg.max_connections;
            let label = page.name.clone();
            let browser = Browser::new(page, cfg)?;
            let flows: Vec<FlowId> = (0..max_connections)
                .map(|i| {
                    ff.add(
                        w,
                        format!("web{i}{suffix}"),
                        Role::Foreground,
                        app,
                        cl,
                        ca,
                        sv,
                        sa,
                        false,
                    )
                })
                .collect::<Result<_, _>>()?;
            w.add_app(Box::new(WebApp::new(flows, start, browser, label)));
        }
        Traffic::File { size_bytes } => {
            let f = ff.add(
                w,
                format!("file{suffix}"),
                Role::Foreground,
                app,
                cl,
                ca,
                sv,
                sa,
                false,
            )?;
            w.add_app(Box::new(
                FileApp::new(f, snd, start, size_bytes, format!("file-{size_bytes}"))
                    .hello(s.traffic.client_hello_bytes),
            ));
        }
        Traffic::Bulk => {
            let f = ff.add(
                w,
                format!("bulk{suffix}"),
                Role::Foreground,
                app,
                cl,
                ca,
                sv,
                sa,
                false,
            )?;
            match &s.traffic.failover {
                None => {
                    w.add_app(Box::new(
                        BulkApp::new(f, snd, start).hello(s.traffic.client_hello_bytes),
                    ));
                }
                Some(fo) => {
                    // seed 004 sec. 4.4: reconnect over another client path after a stall
                    let ba = *layout_client_addrs
                        .get(fo.path as usize - 1)
                        .ok_or("traffic.failover_path: no such client path")?;
                    let b = ff.add(
                        w,
                        format!("bulk-failover{suffix}"),
                        Role::Foreground,
                        app,
                        cl,
                        ba,
                        sv,
                        sa,
                        false,
                    )?;
                    w.add_app(Box::new(
                        FailoverBulkApp::new(f, b, snd, start, secs(fo.after_s))
                            .hello(s.traffic.client_hello_bytes),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn message_app(
    w: &mut World,
    ff: &mut FlowFactory,
    suffix: &str,
    app: usize,
    cl: NodeId,
    ca: Addr,
    sv: NodeId,
    sa: Addr,
    snd: Side,
    sched: Box<SourceSchedule>,
    finite: bool,
    hello: u64,
) -> Result<(), String> {
    let udp = ff.protocol == sc::Protocol::Udp;
    let f = ff.add(
        w,
        format!("fg{suffix}"),
        Role::Foreground,
        app,
        cl,
        ca,
        sv,
        sa,
        udp,
    )?;
    if udp {
        w.add_app(Box::new(UdpApp::new(f, snd, sched, true).ip(ff.tcp.ip)));
    } else {
        // Connect at time 0 so the connection is up when messages start.
        // SCTP is message-oriented: one write per message, whole or not at all.
        let per_message = ff.sctp.is_some();
        w.add_app(Box::new(
            StreamApp::new(f, snd, 0, sched, finite)
                .per_message(per_message)
                .hello(if per_message { 0 } else { hello }),
        ));
    }
    Ok(())
}

/// The TCP of the background flows. The background hosts share the
/// foreground hosts' system settings (seed 000 section 4.5.3 sets the
/// buffers per scenario, not per flow), so background TCP uses the
/// scenario's buffers, with Nagle off as NetPerfMeter does and the
/// congestion control `background.tcp_cc`; its other options are the
/// kernel's defaults, as the emulator's background namespaces leave them
/// (crates/emu/src/background.rs, `tcp_opts`). `transport.hz` is no socket
/// option but the kernel's CONFIG_HZ, which every socket of the machine runs
/// on, the background's too (the RTO's jiffy rounding in
/// `net/ipv4/tcp_input.c: __tcp_set_rto`, the timer wheel, CUBIC's
/// `tcp_jiffies32` clock in `net/ipv4/tcp_cubic.c: bictcp_update`); so is
/// the jiffy's phase.
fn background_tcp(s: &sc::Scenario) -> Result<TcpConfig, String> {
    let t = &s.transport;
    let cc = match s.background.tcp_cc {
        cc if !cc.is_coupled() => cc,
        other => return Err(format!("background.tcp_cc = \"{other}\": background flows are single-path TCP (newreno or cubic)")),
    };
    Ok(TcpConfig {
        nagle: false,
        cc,
        cubic: t.cubic,
        hystart: t.hystart,
        sndbuf: t.sndbuf_kib as u64 * 1024,
        rcvbuf: t.rcvbuf_kib as u64 * 1024,
        mtu: t.mtu_bytes,
        ip: t.ip(),
        hz: t.hz,
        hz_phase: t.hz_phase_us as Nanos * 1_000,
        ..TcpConfig::default()
    })
}

/// Seed 000 section 4.4: on every access path one saturated TCP flow and
/// Pareto on/off UDP flows carrying `udp_share_percent` of the path's rate,
/// in the foreground's direction. `background.paths` limits them to some
/// access paths and `background.start_s` delays them (seed 004 sec. 4.2: a
/// YouTube download over WiFi only, from ~300 s).
fn background(
    s: &sc::Scenario,
    w: &mut World,
    ff: &mut FlowFactory,
    lay: &Layout,
    spec: &TopologySpec,
    snd: Side,
    seed: u64,
) -> Result<(), String> {
    let (bgs, bgs_addr) = lay.bg_server.ok_or("background hosts missing")?;
    let tcp = background_tcp(s)?;
    let mut bg_ff = FlowFactory {
        protocol: sc::Protocol::Tcp,
        tcp,
        sctp: None,
        mptcp: None,
        server_capable: true,
        server_addrs: Vec::new(),
        server_endpoints: Vec::new(),
        client_addrs: Vec::new(),
        next_port: 50000,
        first_port: 50000,
        port_stride: 1,
        port_blocks: false,
    };
    let _ = ff;
    let start = secs(s.background.start_s);
    // The flows, their order and UDP schedules come from mptlab-setup, so
    // the emulator offers the same background traffic (crates/emu/src/background.rs).
    let mut capacity = |i: usize| -> Result<f64, String> {
        // Capacity of the path in the direction the traffic flows.
        let l = spec
            .links
            .iter()
            .find(|l| l.name == lay.path_links[i])
            .ok_or("path link missing")?;
        Ok(bg::rate_bps(if snd == Side::Server {
            &l.ba
        } else {
            &l.ab
        }))
    };
    for f in bg::flows(s, seed, lay.bg_clients.len(), &mut capacity)? {
        let (bgc, bgc_addr) = lay.bg_clients[f.path];
        let app = w.next_app_id();
        let udp = matches!(f.kind, bg::Kind::Udp(_));
        let fl = bg_ff.add(
            w,
            f.label,
            Role::Background,
            app,
            bgc,
            bgc_addr,
            bgs,
            bgs_addr,
            udp,
        )?;
        match f.kind {
            bg::Kind::Tcp => {
                // The emulator's background sender writes 64 KiB per call.
                w.add_app(Box::new(BulkApp::new(fl, snd, start).with_write_calls()));
            }
            bg::Kind::Udp(sched) => {
                w.add_app(Box::new(
                    UdpApp::new(fl, snd, Box::new(sched), false).ip(bg_ff.tcp.ip),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last client port is handed out; the next connection is an error
    /// naming the flow and the address, never a wrap onto port 0 or 40000.
    #[test]
    fn client_ports_run_out_with_an_error_not_a_wrap() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/web-amazon.toml"
        ))
        .unwrap();
        let s = sc::Scenario::from_str_with_overrides(&text, "web-amazon.toml", &[]).unwrap();
        let mut b = build(&s, 0).unwrap();
        let (cl, sv) = (b.layout.client, b.layout.server);
        let (ca, sa) = (b.layout.client_addrs[0], b.layout.server_addrs[0]);
        let mut ff = FlowFactory {
            protocol: sc::Protocol::Tcp,
            tcp: TcpConfig::default(),
            sctp: None,
            mptcp: None,
            server_capable: true,
            server_addrs: Vec::new(),
            server_endpoints: Vec::new(),
            client_addrs: Vec::new(),
            next_port: 65535,
            first_port: 40000,
            port_stride: 1,
            port_blocks: false,
        };
        let w = &mut b.world;
        let app = w.next_app_id();
        let mut add = |ff: &mut FlowFactory, l: &str| {
            ff.add(w, l.into(), Role::Foreground, app, cl, ca, sv, sa, false)
        };
        assert!(add(&mut ff, "last").is_ok());
        let e = add(&mut ff, "one-too-many").unwrap_err();
        assert!(
            e.contains("one-too-many") && e.contains("no free port left"),
            "{e}"
        );
        assert!(
            e.contains("25536 connections use ports 40000..=65535"),
            "{e}"
        );
    }

    /// The background hosts run on the same kernel as the foreground's: a
    /// scenario's `transport.hz` and jiffy phase reach the background TCP
    /// (before session 20 it kept `TcpConfig::default`'s 1000 while the
    /// foreground and the kernel ran 250), its buffers and `tcp_cc` too.
    #[test]
    fn background_tcp_runs_on_the_scenarios_hz() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/seed000/amazon-wlanwlan-tcp.toml"
        ))
        .unwrap();
        let o = [
            "background.enabled=true",
            "transport.hz=250",
            "transport.hz_phase_us=1500",
            "background.tcp_cc=newreno",
        ]
        .map(|o| o.parse::<sc::Override>().unwrap());
        let s = sc::Scenario::from_str_with_overrides(&text, "a.toml", &o).unwrap();
        let b = background_tcp(&s).unwrap();
        assert_eq!(b.hz, 250);
        assert_eq!(b.hz_phase, 1_500_000);
        assert_eq!(b.cc, CcKind::NewReno);
        assert!(!b.nagle);
        assert_eq!(b.sndbuf, 1024 * 1024);
        assert_eq!(b.rcvbuf, 2048 * 1024);
    }
}
