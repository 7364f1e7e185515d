//! From a validated scenario to one simulated run: draw the per-run values,
//! build the topology, the flows and the applications, run, and collect the
//! measurements (`crate::output` turns them into result tables).

use std::collections::HashMap;
use std::sync::Arc;

use mptlab_core::endpoint::Endpoint;
use mptlab_core::link::{LinkParams, Outage, QueueLimit};
use mptlab_core::loss::LossModel;
use mptlab_core::mptcp::{EpFlags, MptcpConfig, MptcpConnection, Role as MpRole};
use mptlab_core::packet::Addr;
use mptlab_core::sctp::{SctpAssociation, SctpConfig};
use mptlab_core::tcp::{CcKind, Role as TcpRole, TcpConfig, TcpEndpoint};
use mptlab_core::time::{secs, Nanos, MS};
use mptlab_core::trace::Trace;
use mptlab_core::traffic::browser::{Browser, BrowserConfig};
use mptlab_core::traffic::bursts::{BurstSource, BurstsConfig};
use mptlab_core::traffic::gaming::{GamingConfig, GamingSource};
use mptlab_core::traffic::gaming_trace::{Trace as GameTrace, TraceSource};
use mptlab_core::traffic::onoff::{background_plan, OnOffConfig, OnOffSource};
use mptlab_core::traffic::video::{FramePhase, VideoConfig, VideoSource};
use mptlab_core::traffic::web::Page;
use mptlab_core::traffic::MessageSource;
use mptlab_core::udp::UdpEndpoint;
use mptlab_core::{FlowId, SimRng};
use mptlab_scenario as sc;

use crate::apps::{BulkApp, FileApp, SourceSchedule, StreamApp, UdpApp, WebApp};
use crate::failover::FailoverBulkApp;
use crate::network::{LinkSpec, Network, NodeId, NodeKind, NodeSpec, TopologySpec};
use crate::topology::{multi_path, Duplex, Layout};
use crate::world::{Role, Side, World};

/// A world ready to run, with what the report needs to know about it.
pub struct Built {
    pub world: World,
    pub layout: Layout,
    pub end: Nanos,
    /// The values drawn for this run (e.g. `path1.up.rate_mbit`), for the results.
    pub drawn: Vec<(String, f64)>,
}

/// Draws per-run values from scenario ranges. A value is drawn from a stream
/// named by its key, so the up and down direction of a link that share a
/// range get the same value, and adding a key never changes another's draw.
struct Draw<'a> {
    seed: u64,
    log: &'a mut Vec<(String, f64)>,
}

impl Draw<'_> {
    fn value(&mut self, key: &str, r: &sc::Range) -> f64 {
        let v = match *r {
            sc::Range::Fixed(v) => v,
            sc::Range::Uniform { lo, hi } => {
                SimRng::stream(self.seed, &format!("draw/{key}")).uniform_range(lo, hi)
            }
        };
        if !self.log.iter().any(|(k, _)| k == key) {
            self.log.push((key.to_string(), v));
        }
        v
    }
}

fn link_dir(
    d: &sc::LinkDir,
    key: &str,
    dir: &str,
    draw: &mut Draw,
    traces: &mut HashMap<std::path::PathBuf, Arc<Trace>>,
) -> Result<LinkParams, String> {
    let rate_bps = match &d.rate_mbit {
        Some(r) => (draw.value(&format!("{key}.rate_mbit"), r) * 1e6).round() as u64,
        None => 0,
    };
    let delay = (draw.value(&format!("{key}.delay_ms"), &d.delay_ms) * MS as f64).round() as Nanos;
    let queue = match d.queue {
        sc::QueueLimit::Packets(n) => QueueLimit::Packets(n),
        sc::QueueLimit::Bytes(b) => QueueLimit::Bytes(b),
    };
    let loss = match &d.loss {
        sc::LossModel::None => LossModel::None,
        sc::LossModel::Train {
            gap_ms,
            drop_packets,
            blackout_ms,
        } => LossModel::Train {
            gap: (gap_ms * MS as f64).round() as Nanos,
            drop: drop_packets.clone(),
            blackout: (blackout_ms * MS as f64).round() as Nanos,
        },
        sc::LossModel::Bernoulli { percent } => {
            let p = draw.value(&format!("{key}.loss_percent"), percent) / 100.0;
            if p > 0.0 {
                LossModel::Bernoulli { p }
            } else {
                LossModel::None
            }
        }
        sc::LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good_percent,
            loss_bad_percent,
        } => LossModel::GilbertElliott {
            p_gb: draw.value(&format!("{key}.p_gb"), p_gb),
            p_bg: draw.value(&format!("{key}.p_bg"), p_bg),
            loss_good: draw.value(&format!("{key}.loss_good_percent"), loss_good_percent) / 100.0,
            loss_bad: draw.value(&format!("{key}.loss_bad_percent"), loss_bad_percent) / 100.0,
        },
    };
    let trace = match &d.trace {
        None => None,
        Some(p) => Some(match traces.get(p) {
            Some(t) => t.clone(),
            None => {
                // the reader validation used (the file was checked then;
                // an error here is I/O: the file changed or vanished since)
                let t = Arc::new(sc::files::load_link_trace(p)?);
                traces.insert(p.clone(), t.clone());
                t
            }
        }),
    };
    let outages = d
        .outages
        .iter()
        .map(|o| Outage {
            start: secs(o.at_s),
            end: secs(o.at_s + o.duration_s),
        })
        .collect();
    let p = LinkParams {
        rate_bps,
        delay,
        queue,
        loss,
        trace,
        outages,
    };
    p.validate().map_err(|e| format!("{key} ({dir}): {e}"))?;
    Ok(p)
}

fn duplex(
    l: &sc::Link,
    key: &str,
    draw: &mut Draw,
    traces: &mut HashMap<std::path::PathBuf, Arc<Trace>>,
) -> Result<Duplex, String> {
    Ok(Duplex {
        up: link_dir(&l.up, key, "up", draw, traces)?,
        down: link_dir(&l.down, key, "down", draw, traces)?,
    })
}

fn topology(s: &sc::Scenario, draw: &mut Draw) -> Result<(TopologySpec, Layout), String> {
    let mut traces = HashMap::new();
    match &s.topology {
        sc::Topology::Preset {
            paths, server_link, ..
        } => {
            let mut ps = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                ps.push(duplex(
                    &p.link,
                    &format!("path{}", i + 1),
                    draw,
                    &mut traces,
                )?);
            }
            let srv = duplex(server_link, "server_link", draw, &mut traces)?;
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

/// Access paths, server link, drawn values (see [`preset_links`]).
pub type PresetLinks = (Vec<Duplex>, Duplex, Vec<(String, f64)>);

/// The links of a preset topology for the run with `seed`, drawn exactly as
/// [`build`] draws them (same keys, same streams, same order of the log):
/// one `Duplex` per access path, the server link, and the drawn values
/// (`path1.rate_mbit`, ...). Shared with emulation (`mptlab-emu`), so an
/// emulated run gets the very link parameters its simulated twin gets.
pub fn preset_links(s: &sc::Scenario, seed: u64) -> Result<PresetLinks, String> {
    let mut drawn = Vec::new();
    let mut draw = Draw {
        seed,
        log: &mut drawn,
    };
    let mut traces = HashMap::new();
    let (ps, srv) = match &s.topology {
        sc::Topology::Preset {
            paths, server_link, ..
        } => {
            let mut ps = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                ps.push(duplex(
                    &p.link,
                    &format!("path{}", i + 1),
                    &mut draw,
                    &mut traces,
                )?);
            }
            (
                ps,
                duplex(server_link, "server_link", &mut draw, &mut traces)?,
            )
        }
        sc::Topology::Explicit { .. } => {
            return Err("explicit topologies have no preset links".into())
        }
    };
    Ok((ps, srv, drawn))
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
    let mut endpoints = Vec::new();
    for (i, f) in o.endpoints.iter().enumerate() {
        let flags =
            EpFlags::parse(f).map_err(|e| format!("transport.mptcp.endpoints[{i}]: {e}"))?;
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
    for (i, f) in o.server_endpoints.iter().enumerate() {
        EpFlags::parse(f).map_err(|e| format!("transport.mptcp.server_endpoints[{i}]: {e}"))?;
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
    Ok(MptcpConfig {
        endpoints,
        tcp: tcp_config(t)?,
        cc: t.cc,
        scheduler: o.scheduler,
        pm,
        backup_addrs,
        tlp: o.tlp,
        capable: true,
    })
}

/// Creates flows of the scenario's transport protocol between two hosts.
struct FlowFactory {
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
    next_port: u16,
}

impl FlowFactory {
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
    ) -> FlowId {
        let flow = w.next_flow_id();
        let cp = self.next_port;
        self.next_port += 1;
        let sp = 80;
        let (c, s, proto): (Box<dyn Endpoint>, Box<dyn Endpoint>, &str) =
            if udp || self.protocol == sc::Protocol::Udp {
                (
                    Box::new(UdpEndpoint::new(flow, ca, cp, sa, sp)),
                    Box::new(UdpEndpoint::new(flow, sa, sp, ca, cp)),
                    "udp",
                )
            } else if let Some(cfg) = &self.mptcp {
                let mut sa_all = vec![sa];
                sa_all.extend(self.server_addrs.iter().copied().filter(|&a| a != sa));
                let mut srv = cfg.clone();
                srv.capable = self.server_capable;
                srv.backup_addrs.clear();
                srv.endpoints = self.server_endpoints.clone();
                (
                    Box::new(
                        MptcpConnection::new(
                            cfg.clone(),
                            flow,
                            MpRole::Client,
                            &self.client_addrs,
                            cp,
                            &[sa],
                            sp,
                        )
                        .expect("validated"),
                    ),
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
        w.add_flow(label, proto, role, app, ch, c, shost, s)
    }
}

fn sender(d: sc::Direction) -> Side {
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
    if let sc::TrafficModel::Gaming {
        trace: sc::GamingTrace::File(p),
    } = &s.traffic.model
    {
        load_game_trace(p).map_err(|e| format!("traffic.trace: {e}"))?;
    }
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
    let mut drawn = Vec::new();
    let (spec, layout) = topology(
        s,
        &mut Draw {
            seed,
            log: &mut drawn,
        },
    )?;
    let net = Network::build(&spec, seed)?;
    let mut w = World::new(net);
    let end = secs(s.meta.duration_s);
    let path = s.client_path(seed, layout.client_addrs.len()) as usize;
    if s.transport.random_path {
        drawn.push(("initial_path".to_string(), path as f64));
    }
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
            .map(|(&a, f)| (a, EpFlags::parse(f).unwrap_or_default()))
            .collect(),
        client_addrs,
        next_port: 40000,
    };
    let start = secs(s.traffic.start_s);
    let stop = s.traffic.stop_s.map(secs);
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
    let stream = |src: Box<dyn MessageSource>, label: &str| {
        SourceSchedule::new(src, SimRng::stream(seed, label), start, stop)
    };
    match &s.traffic.model {
        sc::TrafficModel::Video { bitrate_kbit, fps } => {
            let cfg = VideoConfig {
                bit_rate_bps: (bitrate_kbit * 1000.0).round() as u64,
                frame_rate: fps.round() as u32,
                phase: FramePhase::Fixed(0),
                max_frames: None,
            };
            let src = VideoSource::new(cfg)?;
            message_app(
                &mut w,
                &mut ff,
                app,
                cl,
                ca,
                sv,
                sa,
                snd,
                Box::new(stream(Box::new(src), "traffic/video")),
                false,
            );
        }
        sc::TrafficModel::Gaming { trace } => {
            let src: Box<dyn MessageSource> = match trace {
                sc::GamingTrace::Builtin(name) => {
                    let preset = format!("aoc-trace{}", name.trim_start_matches('t'));
                    Box::new(GamingSource::new(GamingConfig::preset(&preset)?)?)
                }
                sc::GamingTrace::File(p) => Box::new(TraceSource::new(load_game_trace(p)?, 0)),
            };
            message_app(
                &mut w,
                &mut ff,
                app,
                cl,
                ca,
                sv,
                sa,
                snd,
                Box::new(stream(src, "traffic/gaming")),
                true,
            );
        }
        sc::TrafficModel::Web {
            page,
            max_connections,
        } => {
            let page = match page {
                sc::WebPage::Site(name) => Page::preset(name, seed)?,
                sc::WebPage::Objects(v) => Page::from_sizes("custom", v)?,
            };
            let cfg = BrowserConfig {
                max_connections: *max_connections as usize,
                ..BrowserConfig::default()
            };
            let label = page.name.clone();
            let browser = Browser::new(page, cfg)?;
            let flows: Vec<FlowId> = (0..*max_connections)
                .map(|i| {
                    ff.add(
                        &mut w,
                        format!("web{i}"),
                        Role::Foreground,
                        app,
                        cl,
                        ca,
                        sv,
                        sa,
                        false,
                    )
                })
                .collect();
            w.add_app(Box::new(WebApp::new(flows, start, browser, label)));
        }
        sc::TrafficModel::File { size_bytes } => {
            let f = ff.add(
                &mut w,
                "file".into(),
                Role::Foreground,
                app,
                cl,
                ca,
                sv,
                sa,
                false,
            );
            w.add_app(Box::new(FileApp::new(
                f,
                snd,
                start,
                *size_bytes,
                format!("file-{size_bytes}"),
            )));
        }
        sc::TrafficModel::Bursts {
            count,
            size_bytes,
            interval_s,
        } => {
            // each burst is a message: its delay is the burst completion time
            let src = BurstSource::new(BurstsConfig::from_scenario(
                *count,
                *size_bytes,
                *interval_s,
            ))?;
            message_app(
                &mut w,
                &mut ff,
                app,
                cl,
                ca,
                sv,
                sa,
                snd,
                Box::new(stream(Box::new(src), "traffic/bursts")),
                true,
            );
        }
        sc::TrafficModel::Bulk => {
            let f = ff.add(
                &mut w,
                "bulk".into(),
                Role::Foreground,
                app,
                cl,
                ca,
                sv,
                sa,
                false,
            );
            match &s.traffic.failover {
                None => {
                    w.add_app(Box::new(BulkApp::new(f, snd, start)));
                }
                Some(fo) => {
                    // seed 004 sec. 4.4: reconnect over another client path after a stall
                    let ba = *layout
                        .client_addrs
                        .get(fo.path as usize - 1)
                        .ok_or("traffic.failover_path: no such client path")?;
                    let b = ff.add(
                        &mut w,
                        "bulk-failover".into(),
                        Role::Foreground,
                        app,
                        cl,
                        ba,
                        sv,
                        sa,
                        false,
                    );
                    w.add_app(Box::new(FailoverBulkApp::new(
                        f,
                        b,
                        snd,
                        start,
                        secs(fo.after_s),
                    )));
                }
            }
        }
    }
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

/// A gaming trace file, read by the scenario crate's reader (the one
/// validation uses): see [`sc::files::load_gaming_trace`].
pub fn load_game_trace(p: &std::path::Path) -> Result<GameTrace, String> {
    sc::files::load_gaming_trace(p)
}

#[allow(clippy::too_many_arguments)]
fn message_app(
    w: &mut World,
    ff: &mut FlowFactory,
    app: usize,
    cl: NodeId,
    ca: Addr,
    sv: NodeId,
    sa: Addr,
    snd: Side,
    sched: Box<SourceSchedule>,
    finite: bool,
) {
    let udp = ff.protocol == sc::Protocol::Udp;
    let f = ff.add(w, "fg".into(), Role::Foreground, app, cl, ca, sv, sa, udp);
    if udp {
        w.add_app(Box::new(UdpApp::new(f, snd, sched, true)));
    } else {
        // Connect at time 0 so the connection is up when messages start.
        // SCTP is message-oriented: one write per message, whole or not at all.
        let per_message = ff.sctp.is_some();
        w.add_app(Box::new(
            StreamApp::new(f, snd, 0, sched, finite).per_message(per_message),
        ));
    }
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
    // The background hosts share the foreground hosts' system settings
    // (seed 000 section 4.5.3 sets the buffers per scenario, not per flow),
    // so background TCP uses the scenario's buffers, with Nagle off as
    // NetPerfMeter does and the congestion control `background.tcp_cc`.
    let t = &s.transport;
    let cc = match s.background.tcp_cc {
        cc if !cc.is_coupled() => cc,
        other => return Err(format!("background.tcp_cc = \"{other}\": background flows are single-path TCP (newreno or cubic)")),
    };
    let tcp = TcpConfig {
        nagle: false,
        cc,
        cubic: t.cubic,
        hystart: t.hystart,
        sndbuf: t.sndbuf_kib as u64 * 1024,
        rcvbuf: t.rcvbuf_kib as u64 * 1024,
        mtu: t.mtu_bytes,
        ..TcpConfig::default()
    };
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
    };
    let _ = ff;
    let start = secs(s.background.start_s);
    for (i, &(bgc, bgc_addr)) in lay.bg_clients.iter().enumerate() {
        if !s.background.paths.is_empty() && !s.background.paths.contains(&(i as u32 + 1)) {
            continue;
        }
        for k in 0..s.background.tcp_flows {
            let app = w.next_app_id();
            let f = bg_ff.add(
                w,
                format!("bg-tcp-p{}-{k}", i + 1),
                Role::Background,
                app,
                bgc,
                bgc_addr,
                bgs,
                bgs_addr,
                false,
            );
            w.add_app(Box::new(BulkApp::new(f, snd, start)));
        }
        if s.background.udp_share_percent > 0.0 {
            // Capacity of the path in the direction the traffic flows.
            let l = spec
                .links
                .iter()
                .find(|l| l.name == lay.path_links[i])
                .ok_or("path link missing")?;
            let p = if snd == Side::Server { &l.ba } else { &l.ab };
            let cap = match &p.trace {
                Some(t) => t.mean_rate_bps(),
                None => p.rate_bps as f64,
            };
            let plan = background_plan(cap, s.background.udp_share_percent / 100.0)?;
            for k in 0..plan.flows {
                let app = w.next_app_id();
                let f = bg_ff.add(
                    w,
                    format!("bg-udp-p{}-{k}", i + 1),
                    Role::Background,
                    app,
                    bgc,
                    bgc_addr,
                    bgs,
                    bgs_addr,
                    true,
                );
                let src = OnOffSource::new(OnOffConfig::for_mean_rate(plan.per_flow_bps)?)?;
                let sched = SourceSchedule::new(
                    Box::new(src),
                    SimRng::stream(seed, &format!("bg/udp/{i}/{k}")),
                    start,
                    None,
                );
                w.add_app(Box::new(UdpApp::new(f, snd, Box::new(sched), false)));
            }
        }
    }
    Ok(())
}
