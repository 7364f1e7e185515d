//! `mptlab emulate`: one scenario run over the real kernel between network
//! namespaces, links shaped by the emulator, traffic by the agent, results
//! in the simulator's tables (docs/results.md, docs/emulation.md).

use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mptlab_core::time::{secs, to_ms, Nanos};
use mptlab_core::traffic::metrics::Jitter;
use mptlab_results::rows::{self, CounterCells, Row, TimeseriesRow as TS};
use mptlab_results::stats::median_p95_mean;
use mptlab_results::{summary as metric, RunOutput};
use mptlab_scenario as sc;
use mptlab_setup::draw::initial_path;
use mptlab_setup::links::preset_links;
use mptlab_setup::traffic::{self, Schedule};

use crate::agent::{
    self, ClientEnv, ClockKind, Plan, Records, Sample, Server, Shared, Traffic, UdpCounts,
};
use crate::emulator::DirectionReport;
use crate::net::Net;
use crate::netns::{self, ip_in};
use crate::sock::{self, SockOpts, Stream, TcpInfo};
use crate::topology::{PathSpec, Topology, TopologyOptions};

/// Port the agent's server listens on (TCP and UDP) inside the server namespace.
pub const AGENT_PORT: u16 = 8080;

/// Options of `mptlab emulate` beyond the scenario.
#[derive(Clone, Debug, Default)]
pub struct EmulateOptions {
    /// Set by SIGINT/SIGTERM (see `signals::stop_on_signals`): the run stops,
    /// everything is torn down and nothing is written.
    pub stop: Option<Arc<AtomicBool>>,
    /// Write a pcap per namespace interface into this directory
    /// (`run<k>-<c|r|s>-<dev>.pcap`; needs dumpcap or tshark, skipped otherwise).
    pub capture: Option<std::path::PathBuf>,
}

/// Everything `mptlab emulate` checks before the first run: the scenario is
/// emulable, the host can emulate (root, TUN, MPTCP, iproute2), leftovers of
/// killed runs are removed, and Ctrl-C / SIGTERM will stop the run cleanly.
/// Returns the options to pass to every [`run_once`] (the stop flag the
/// signals set, `capture`).
pub fn prepare(
    s: &sc::Scenario,
    capture: Option<std::path::PathBuf>,
) -> Result<EmulateOptions, String> {
    supported(s)?;
    netns::preflight().map_err(|e| e.to_string())?;
    if s.transport.protocol == sc::Protocol::Mptcp
        && s.transport.mptcp.scheduler != sc::MptcpScheduler::Upstream
    {
        eprintln!(
            "note: transport.mptcp.scheduler = \"{}\" runs with the kernel's (upstream) scheduler, the only one Linux offers (docs/emulation.md)",
            s.transport.mptcp.scheduler
        );
    }
    if let Some(d) = differs(s) {
        eprintln!("note: {d}");
    }
    if let Some(w) = crate::hostload::warning(crate::hostload::load1(), crate::hostload::cpus()) {
        eprintln!("{w}");
    }
    if let Err(e) = crate::cleanup::cleanup_stale() {
        eprintln!("mptlab: cleaning leftovers of killed runs: {e}");
    }
    let stop = crate::signals::stop_on_signals().map_err(|e| e.to_string())?;
    Ok(EmulateOptions {
        stop: Some(stop),
        capture,
    })
}

/// What the kernel runs differently from the simulated scenario although it
/// runs it: a v0.9x scheduler with a path manager that opens more than one
/// subflow. Linux 6.18 hands data to a subflow while the subflow's send
/// buffer has room (`__subflow_push_pending`: `sk_stream_memory_free`),
/// v0.9x only while its congestion window has (`mptcp_write_xmit` asks the
/// scheduler, whose `mptcp_is_temp_unavailable` in mptcp_sched.c refuses a
/// subflow with `in_flight >= snd_cwnd` or a queue that already fills the
/// window); with a large send buffer the first subflow then
/// holds the whole buffer before the next one exists, and the later
/// subflows' data waits at the receiver (measured on seed 003's
/// ndiffports cells, docs/report.md). `reproduce --kernel` writes it beside
/// the cell's verdict.
pub fn differs(s: &sc::Scenario) -> Option<String> {
    let m = &s.transport.mptcp;
    (s.transport.protocol == sc::Protocol::Mptcp
        && m.scheduler != sc::MptcpScheduler::Upstream
        && m.path_manager != sc::PathManager::Default)
        .then(|| {
            format!(
                "the kernel sends with Linux 6.18's scheduler and send path, not the scenario's v0.9x \"{}\": 6.18 hands data to a subflow while its send buffer has room, v0.9x while its congestion window has, so with several subflows the kernel's result measures 6.18's send path (`reproduce --kernel` judges such a cell against the simulator run with transport.mptcp.scheduler = \"upstream\", like for like; after `mptlab emulate`, run that simulation to compare; docs/report.md, seed 003)",
                m.scheduler
            )
        })
}

fn name<T: std::fmt::Display>(v: T) -> String {
    v.to_string()
}

/// A userspace path manager request thread (userpm.rs).
type UpmThread = std::thread::JoinHandle<Result<(), String>>;

/// Whether emulation can run what the scenario asks for; the error says
/// what is refused and why. Checked before anything is built.
pub fn supported(s: &sc::Scenario) -> Result<(), String> {
    let t = &s.transport;
    match &s.topology {
        sc::Topology::Preset { paths, .. } => {
            if paths.is_empty() || paths.len() > 8 {
                return Err(format!(
                    "emulation supports 1 to 8 access paths, found {}",
                    paths.len()
                ));
            }
        }
        sc::Topology::Explicit { .. } => {
            // Namespaces per node, emulated links (explicit.rs).
            let n = s.topology.num_paths();
            if n == 0 || n > 8 {
                return Err(format!(
                    "emulation supports 1 to 8 client addresses, found {n}"
                ));
            }
        }
    }
    if s.population.is_some() {
        return Err("topology.preset = \"clients\" ([population]) is simulation only: the emulator builds one client namespace".into());
    }
    if t.protocol == sc::Protocol::Mptcp && t.mptcp.fastclose_at_s.is_some() {
        return Err("transport.mptcp.fastclose_at_s (MP_FASTCLOSE) is simulated only, not emulated yet (the agent would need an SO_LINGER 0 close at that time)".into());
    }
    if t.protocol == sc::Protocol::Mptcp && !t.mptcp.endpoint_removals.is_empty() {
        return Err("transport.mptcp.endpoint_removals (REMOVE_ADDR) is simulated only, not emulated yet (it would need `ip mptcp endpoint delete` at run time)".into());
    }
    // Background hosts in namespaces on the emulated access links (background.rs).
    crate::background::supported(s)?;
    match t.protocol {
        sc::Protocol::Tcp | sc::Protocol::Udp | sc::Protocol::Mptcp => {}
        sc::Protocol::Sctp | sc::Protocol::CmtSctp => {
            return Err(format!(
                "transport.protocol = \"{}\" cannot be emulated: this kernel has no SCTP (and Linux has no CMT-SCTP); use `mptlab run` to simulate it",
                t.protocol
            ))
        }
    }
    if t.ip_version != 4 {
        // The namespaces, TUN devices, the link emulator's parsing and the
        // agent's sockets are built on the IPv4 address plan; an IPv6
        // emulation would need all of them redone, so refuse rather than
        // emulate IPv4 under an IPv6 label.
        return Err(format!(
            "transport.ip_version = {}: emulation builds IPv4 namespaces and links only; use `mptlab run` to simulate IPv6",
            t.ip_version
        ));
    }
    match t.cc {
        sc::CongestionControl::Cubic | sc::CongestionControl::NewReno => {}
        c => {
            return Err(format!(
                "transport.cc = \"{c}\": coupled congestion controls (lia, olia, balia, wvegas) are not in upstream Linux MPTCP; emulation supports cubic and newreno (kernel \"reno\")"
            ))
        }
    }
    if t.cc == sc::CongestionControl::Cubic && t.cubic == sc::CubicVariant::Rfc9438 {
        return Err("transport.cubic = \"rfc9438\": the kernel runs its own CUBIC (tcp_cubic.c); emulation supports transport.cubic = \"linux\"".into());
    }
    if t.cc == sc::CongestionControl::Cubic && t.hystart == sc::HyStart::HyStartPP {
        return Err("transport.hystart = \"hystart++\": Linux CUBIC has no HyStart++ (RFC 9406); emulation runs the host's CUBIC with its HyStart setting (\"linux\" or \"off\" are accepted but not applied, see docs/emulation.md)".into());
    }
    if t.protocol == sc::Protocol::Mptcp {
        let m = &t.mptcp;
        match m.path_manager {
            sc::PathManager::Fullmesh
            | sc::PathManager::Default
            | sc::PathManager::Upstream
            | sc::PathManager::Ndiffports => {}
            sc::PathManager::Binder => {
                return Err(
                    "transport.mptcp.path_manager = \"binder\" cannot be emulated: binder routes its subflows through relays with IPv4 loose source routing (the LSRR option), which upstream Linux MPTCP has no path manager for (and the kernel's userspace path manager cannot set IP options on a subflow); use `mptlab run` to simulate it"
                        .into(),
                )
            }
        }
        match m.scheduler.canonical() {
            // The kernel's only scheduler; minrtt/default are approximated by it (docs/emulation.md).
            sc::MptcpScheduler::Upstream | sc::MptcpScheduler::Minrtt => {}
            _ => {
                let sch = m.scheduler;
                return Err(format!(
                    "transport.mptcp.scheduler = \"{sch}\": upstream Linux MPTCP has one scheduler (no per-socket choice without BPF schedulers); emulation supports \"upstream\" (and \"minrtt\"/\"default\", run with the upstream scheduler)"
                ));
            }
        }
        if crate::userpm::needed(m) {
            // Several subflows per address pair: the kernel's userspace path manager (userpm.rs).
            let n = s.topology.num_paths();
            let addrs: Vec<Ipv4Addr> = (0..n)
                .map(|i| Ipv4Addr::new(10, i as u8 + 1, 0, 2))
                .collect();
            let extra = crate::userpm::extra_subflows(m, &addrs, 0).len();
            if extra > 8 {
                return Err(format!("transport.mptcp: {} subflows besides the initial one; the server's in-kernel path manager accepts at most 8 joins (`ip mptcp limits` maximum, MPTCP_PM_ADDR_MAX)", extra));
            }
            if matches!(s.traffic.model, sc::TrafficModel::Web { .. }) {
                return Err(format!("transport.mptcp.path_manager = \"{}\" with subflows_per_path = {}: the userspace path manager is driven for agent streams only, not for web page connections", m.path_manager, m.subflows_per_path));
            }
        }
        if m.tlp != sc::MptcpTlp::Subflow {
            return Err(format!(
                "transport.mptcp.tlp = \"{}\": Linux sends tail loss probes per subflow only",
                m.tlp
            ));
        }
        let n = s.topology.num_paths();
        if let Some(p) = m.backup_paths.iter().find(|&&p| p == 0 || p as usize > n) {
            return Err(format!(
                "transport.mptcp.backup_paths: path {p} does not exist (1..={n})"
            ));
        }
        if m.server_endpoints.len() > 1 {
            return Err(
                "transport.mptcp.server_endpoints: the emulated server has one address (10.0.0.2)"
                    .into(),
            );
        }
        // endpoint flags are `EpFlags`, checked when the scenario was read;
        // `laminar` (Linux >= 6.18) needs an `ip` that knows it (iproute2 >= 6.18)
        if m.endpoints
            .iter()
            .chain(&m.server_endpoints)
            .any(|f| f.laminar)
            && !ip_knows_laminar()
        {
            return Err("transport.mptcp.endpoints: the \"laminar\" endpoint flag (Linux >= 6.18) cannot be emulated: this machine's `ip mptcp` (iproute2) does not know it (`ip mptcp help` lists no \"laminar\"); use `mptlab run` to simulate it".into());
        }
        if m.add_addr_timeout_s.fract() != 0.0 {
            return Err(format!("transport.mptcp.add_addr_timeout_s = {}: the kernel's net.mptcp.add_addr_timeout takes whole seconds", m.add_addr_timeout_s));
        }
    }
    if t.initial_cwnd_packets == 0 || t.initial_cwnd_packets > 1000 {
        return Err(format!(
            "transport.initial_cwnd_packets = {}: the kernel's route attribute initcwnd takes 1..=1000",
            t.initial_cwnd_packets
        ));
    }
    if t.rto_min_ms < 1.0 || t.rto_min_ms > 120_000.0 {
        return Err(format!(
            "transport.rto_min_ms = {}: the kernel's route attribute rto_min takes 1..=120000 ms",
            t.rto_min_ms
        ));
    }
    if !(576..=9000).contains(&t.mtu_bytes) {
        return Err(format!(
            "transport.mtu_bytes = {}: emulation supports 576..=9000",
            t.mtu_bytes
        ));
    }
    traffic::check_files(s)?;
    if t.protocol == sc::Protocol::Udp
        && !matches!(
            s.traffic.model,
            sc::TrafficModel::Video { .. } | sc::TrafficModel::Gaming { .. }
        )
    {
        return Err("transport.protocol = \"udp\" carries video and gaming messages only (files, bulk and web pages need a stream)".into());
    }
    let n = s.topology.num_paths();
    if !t.protocol.is_multipath() && (t.path == 0 || t.path as usize > n) {
        return Err(format!(
            "transport.path = {}, but the client has {n} access paths",
            t.path
        ));
    }
    Ok(())
}

/// The message schedule of a video or gaming scenario for run seed `seed`:
/// (time since the run origin, bytes), every message generated up to `end`.
/// Same sources and random streams as the simulator (`mptlab_setup::traffic`).
pub fn message_schedule(s: &sc::Scenario, seed: u64) -> Result<Option<Vec<(Nanos, u32)>>, String> {
    match traffic::foreground(s, seed)? {
        traffic::Traffic::Messages { schedule, .. } => {
            Ok(Some(until_end(schedule, secs(s.meta.duration_s))))
        }
        _ => Ok(None),
    }
}

/// Every message of `sched` generated up to `end`.
fn until_end(mut sched: impl Schedule, end: Nanos) -> Vec<(Nanos, u32)> {
    let mut v = Vec::new();
    while let Some((t, b)) = sched.next_message() {
        // The simulator runs until `end` inclusive: a message due at `end` is generated.
        if t > end {
            break;
        }
        v.push((t, b));
    }
    v
}

/// The agent's plan for run seed `seed` (shared by emulation and live mode).
pub fn plan(
    s: &sc::Scenario,
    seed: u64,
    clock: ClockKind,
    client_src: Option<Ipv4Addr>,
    server: SocketAddrV4,
) -> Result<Plan, String> {
    let t = &s.transport;
    let start = secs(s.traffic.start_s);
    let traffic = match traffic::foreground(s, seed)? {
        traffic::Traffic::Messages { schedule, .. } => Traffic::Messages {
            schedule: until_end(schedule, secs(s.meta.duration_s)),
            udp: t.protocol == sc::Protocol::Udp,
        },
        traffic::Traffic::File { size_bytes } => Traffic::File {
            size: size_bytes,
            start,
        },
        traffic::Traffic::Bulk => Traffic::Bulk {
            start,
            end: secs(s.meta.duration_s),
        },
        traffic::Traffic::Web { page, browser } => Traffic::Web {
            page,
            cfg: browser,
            start,
        },
    };
    let sock = SockOpts {
        stream: if t.protocol == sc::Protocol::Mptcp {
            Stream::Mptcp
        } else {
            Stream::Tcp
        },
        cc: if t.cc == sc::CongestionControl::NewReno {
            "reno".into()
        } else {
            "cubic".into()
        },
        nodelay: !t.nagle,
        sndbuf: t.sndbuf_kib as usize * 1024,
        rcvbuf: t.rcvbuf_kib as usize * 1024,
        quickack: !t.delayed_ack,
    };
    Ok(Plan {
        traffic,
        server_sends: s.traffic.direction == sc::Direction::Down,
        sock,
        clock,
        client_src,
        server,
    })
}

/// Namespace sysctls for `[transport]` (client and server).
fn transport_sysctls(t: &sc::Transport, ns: &str) -> Result<(), String> {
    let b = |v: bool| if v { "1" } else { "0" };
    for (k, v) in [
        ("net.ipv4.tcp_sack", b(t.sack)),
        ("net.ipv4.tcp_window_scaling", b(t.window_scaling)),
        // 3: RACK-TLP probes on (kernel default); 0: no tail loss probes.
        ("net.ipv4.tcp_early_retrans", if t.tlp { "3" } else { "0" }),
        // 1: RACK loss detection (kernel default); 0: RFC 6675 DupThresh.
        ("net.ipv4.tcp_recovery", b(t.rack)),
        ("net.ipv4.tcp_no_metrics_save", "1"),
    ] {
        netns::sysctl(ns, k, v).map_err(|e| e.to_string())?;
    }
    // `transport.mptcp.checksum`: both hosts require DSS checksums (RFC 8684
    // 3.3). Written only when on (kernel default 0; the sysctl exists from
    // Linux 5.14, so older kernels still run every other scenario).
    if t.protocol == sc::Protocol::Mptcp && t.mptcp.checksum {
        netns::sysctl(ns, "net.mptcp.checksum_enabled", "1").map_err(|e| {
            format!("transport.mptcp.checksum = true: cannot set net.mptcp.checksum_enabled: {e} (needs Linux >= 5.14)")
        })?;
    }
    Ok(())
}

/// `initial_cwnd_packets` and `rto_min_ms` as route attributes (`initcwnd`,
/// `rto_min`) on every route the client and server use (kernel defaults:
/// 10 packets, 200 ms; set always, so the values are explicit).
fn route_attrs(topo: &Net, t: &sc::Transport) -> Result<(), String> {
    let iw = t.initial_cwnd_packets.to_string();
    let rto = format!("{}ms", t.rto_min_ms.round() as u64);
    let attrs = ["initcwnd", iw.as_str(), "rto_min", rto.as_str()];
    let change = |ns: &str, route: &[&str]| -> Result<(), String> {
        let mut a = vec!["route", "change"];
        a.extend_from_slice(route);
        a.extend_from_slice(&attrs);
        ip_in(ns, &a).map_err(|e| e.to_string())
    };
    // Hosts route by source address: table i per address, main default from the first.
    let mut hosts = vec![(&topo.client_ns, &topo.client_devs, &topo.client_addrs)];
    if topo.explicit.is_some() {
        hosts.push((&topo.server_ns, &topo.server_devs, &topo.server_addrs));
    }
    for (ns, devs, addrs) in hosts {
        for (i, dev) in devs.iter().enumerate() {
            let table = (i + 1).to_string();
            change(ns, &["default", "dev", dev, "table", &table])?;
            if i == 0 {
                change(ns, &["default", "dev", dev, "src", &addrs[0]])?;
            }
        }
    }
    if topo.core_ns.is_some() {
        change(
            &topo.server_ns,
            &["default", "via", "10.0.0.1", "dev", "srv"],
        )?;
    }
    Ok(())
}

/// Whether `ip mptcp` accepts the `laminar` endpoint flag (its usage lists it).
fn ip_knows_laminar() -> bool {
    std::process::Command::new("ip")
        .args(["mptcp", "help"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stderr).contains("laminar")
                || String::from_utf8_lossy(&o.stdout).contains("laminar")
        })
        .unwrap_or(false)
}

/// In-kernel path manager: limits on both sides; with `fullmesh`, every
/// client address other than the initial subflow's becomes a `subflow
/// fullmesh` endpoint (the kernel opens a subflow from it to every server
/// address); with `default`, no endpoints (the initial subflow only).
fn configure_mptcp(topo: &Net, s: &sc::Scenario, server_addr: &str) -> Result<(), String> {
    let m = &s.transport.mptcp;
    let userspace = crate::userpm::needed(m);
    let n = if userspace {
        // The server accepts every join the client's userspace path manager asks for.
        "8".to_string()
    } else if m.path_manager == sc::PathManager::Fullmesh && topo.server_addrs.len() > 1 {
        // Every (client, server) address pair, as v0.9x fullmesh: pairs - 1 joins.
        (topo.client_addrs.len() * topo.server_addrs.len() - 1)
            .clamp(1, 8)
            .to_string()
    } else {
        topo.client_addrs.len().min(8).to_string()
    };
    if userspace {
        // The client's subflows come from the userspace path manager
        // (net.mptcp.pm_type = 1, Linux >= 5.19), which opens none by
        // itself; `run_once` asks for them over netlink (userpm.rs).
        netns::sysctl(&topo.client_ns, "net.mptcp.pm_type", "1").map_err(|e| {
            format!("{e} (the kernel's userspace MPTCP path manager needs Linux >= 5.19)")
        })?;
    }
    // transport.mptcp.limits.* (path_manager = "upstream") replace the default
    let sub = m.limits.subflows.map_or(n.clone(), |v| v.to_string());
    let acc = m
        .limits
        .add_addr_accepted
        .map_or(n.clone(), |v| v.to_string());
    // net.mptcp.add_addr_timeout is in jiffies read as seconds (ctrl.c, proc_dointvec_jiffies)
    let timeout = format!("{}", m.add_addr_timeout_s.round() as u64);
    for ns in [&topo.client_ns, &topo.server_ns] {
        ip_in(
            ns,
            &[
                "mptcp",
                "limits",
                "set",
                "subflow",
                &sub,
                "add_addr_accepted",
                &acc,
            ],
        )
        .map_err(|e| e.to_string())?;
        if m.add_addr_timeout_s != 120.0 {
            netns::sysctl(ns, "net.mptcp.add_addr_timeout", &timeout).map_err(|e| e.to_string())?;
        }
    }
    let backup = |i: usize| m.backup_paths.contains(&(i as u32 + 1));
    let add = |ns: &str, addr: &str, dev: &str, flags: &[&str]| -> Result<(), String> {
        let mut a = vec!["mptcp", "endpoint", "add", addr, "dev", dev];
        a.extend_from_slice(flags);
        ip_in(ns, &a).map_err(|e| e.to_string())
    };
    match m.path_manager {
        _ if userspace => {}
        sc::PathManager::Fullmesh => {
            // The server announces its other addresses (ADD_ADDR), as the
            // simulator's fullmesh does (`PmKind::announces`): `signal` endpoints.
            for (a, dev) in topo.server_addrs.iter().zip(&topo.server_devs) {
                if a != server_addr {
                    add(&topo.server_ns, a, dev, &["signal"])?;
                }
            }
            for (i, a) in topo.client_addrs.iter().enumerate() {
                let dev = topo.client_devs[i].clone();
                let b: &[&str] = if backup(i) { &["backup"] } else { &[] };
                // With several server addresses the initial subflow's address
                // needs a fullmesh endpoint too: the in-kernel PM joins an
                // announced address only from fullmesh endpoints
                // (`fill_local_addresses_vec`, pm_kernel.c).
                if i + 1 == s.transport.path as usize && topo.server_addrs.len() == 1 {
                    // The initial subflow's address: an endpoint only to mark it backup.
                    if backup(i) {
                        add(&topo.client_ns, a, &dev, b)?;
                    }
                    continue;
                }
                let mut f = vec!["subflow", "fullmesh"];
                f.extend_from_slice(b);
                if add(&topo.client_ns, a, &dev, &f).is_err() {
                    // Kernels before 5.18 have no fullmesh flag; one server address makes it equivalent.
                    f.retain(|x| *x != "fullmesh");
                    add(&topo.client_ns, a, &dev, &f)?;
                }
            }
        }
        sc::PathManager::Upstream => {
            // Endpoint flags exactly as given (`ip mptcp endpoint add ... <flags>`).
            for (i, flags) in m.endpoints.iter().enumerate().take(topo.client_addrs.len()) {
                let f = flags.words();
                if !f.is_empty() {
                    add(
                        &topo.client_ns,
                        &topo.client_addrs[i],
                        &topo.client_devs[i],
                        &f,
                    )?;
                }
            }
            if let Some(flags) = m.server_endpoints.first() {
                let f = flags.words();
                if !f.is_empty() {
                    add(&topo.server_ns, server_addr, &topo.server_devs[0], &f)?;
                }
            }
        }
        // "default": the initial subflow only; ndiffports uses the userspace PM, binder is refused by `supported`
        _ => {}
    }
    Ok(())
}

/// The counters of one kernel connection (subflow); what `tcp_info` does
/// not expose is null (see docs/emulation.md).
pub(crate) fn counters(i: &TcpInfo) -> CounterCells {
    // retrans_fast / _rto / _tlp / _spurious, tlp_probes, recoveries,
    // dup_acks stay null: the kernel counts retransmissions, not their
    // cause; bytes_reinjected, bytes_probe_extra and penalizations are
    // MPTCP-level counters tcp_info does not have
    CounterCells {
        packets_sent: Some(i.segs_out as u64),
        data_packets_sent: Some(i.data_segs_out as u64),
        bytes_sent: Some(i.bytes_sent.unwrap_or(i.bytes_acked)),
        bytes_retransmitted: i.bytes_retrans,
        packets_received: Some(i.segs_in as u64),
        data_packets_received: Some(i.data_segs_in as u64),
        bytes_received: Some(i.bytes_received),
        rto_events: i.total_rto.map(|v| v as u64),
        ooo_segments: i.rcv_ooopack.map(|v| v as u64),
        ..CounterCells::default()
    }
}

/// The counters of one side of a UDP flow: every datagram carries data.
fn udp_counters(c: &UdpCounts) -> CounterCells {
    CounterCells {
        packets_sent: Some(c.packets_sent),
        data_packets_sent: Some(c.packets_sent),
        bytes_sent: Some(c.bytes_sent),
        packets_received: Some(c.packets_received),
        data_packets_received: Some(c.packets_received),
        bytes_received: Some(c.bytes_received),
        ..CounterCells::default()
    }
}

/// One path of one side of a flow, as measured.
#[derive(Clone)]
pub(crate) struct PathMeasure {
    pub(crate) label: String,
    pub(crate) side: &'static str,
    pub(crate) path: usize,
    pub(crate) local: String,
    pub(crate) remote: String,
    pub(crate) counters: CounterCells,
}

/// Sample the kernel's per-connection (per-subflow for MPTCP) counters every
/// `interval` until `stop`: `send_mbit` (bytes sent in the interval, incl.
/// retransmissions), and with `cwnd` also `cwnd_bytes` and `srtt_ms`, as the
/// simulator's time series.
#[allow(clippy::too_many_arguments)]
fn sampler(
    rec: Shared,
    origin: u64,
    interval: Nanos,
    cwnd: bool,
    mptcp: bool,
    client_addrs: Vec<String>,
    default_path: usize,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut last: std::collections::BTreeMap<
            (String, &'static str, String, String),
            (u64, u64),
        > = Default::default();
        let mut k = 1u64;
        loop {
            crate::clock::sleep_abs(origin + k * interval);
            k += 1;
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let now = crate::clock::monotonic_ns();
            let t = now.saturating_sub(origin);
            let mut samples = Vec::new();
            {
                let r = rec.lock().unwrap();
                for c in &r.conns {
                    let fd = c.stream.as_raw_fd();
                    let (l, rm) = sock::addrs(&c.stream);
                    let subs: Vec<(String, String, TcpInfo)> = match if mptcp {
                        sock::mptcp_subflows(fd).ok()
                    } else {
                        None
                    } {
                        Some(v) => v
                            .into_iter()
                            .map(|s| (s.local.ip().to_string(), s.remote.ip().to_string(), s.info))
                            .collect(),
                        None => sock::tcp_info(fd)
                            .map(|i| vec![(l.clone(), rm.clone(), i)])
                            .unwrap_or_default(),
                    };
                    for (la, ra, i) in subs {
                        let path = client_addrs
                            .iter()
                            .position(|a| *a == la || *a == ra)
                            .map_or(default_path, |p| p + 1);
                        let b = i.bytes_sent.unwrap_or(i.bytes_acked);
                        let key = (c.label.clone(), c.side, la, ra);
                        let (pb, pt) = last.insert(key, (b, now)).unwrap_or((0, origin));
                        let sample = |metric: &'static str, value: f64| Sample {
                            t,
                            label: c.label.clone(),
                            side: c.side,
                            path,
                            metric,
                            value,
                        };
                        if now > pt && b >= pb && b > 0 {
                            let mbit = (b - pb) as f64 * 8.0 / ((now - pt) as f64 / 1e9) / 1e6;
                            samples.push(sample(TS::SEND_MBIT, mbit));
                        }
                        if cwnd {
                            let cwnd_bytes = i.snd_cwnd as f64 * i.snd_mss as f64;
                            samples.push(sample(TS::CWND_BYTES, cwnd_bytes));
                            samples.push(sample(TS::SRTT_MS, i.rtt_us as f64 / 1e3));
                        }
                    }
                }
            }
            rec.lock().unwrap().series.extend(samples);
        }
    })
}

/// Emulate run `run` (0-based) of `s` with seed `s.run_seed(run)`.
pub fn run_once(s: &sc::Scenario, run: u32, o: &EmulateOptions) -> Result<RunOutput, String> {
    supported(s)?;
    let seed = s.run_seed(run);
    let (duplexes, server_link, mut drawn) = match &s.topology {
        sc::Topology::Preset { .. } => preset_links(s, seed)?,
        sc::Topology::Explicit { .. } => {
            let (links, drawn) = crate::explicit::explicit_links(s, seed)?;
            let srv = links[0].clone(); // unused: the server's links are among `links`
            (links, srv, drawn)
        }
    };
    let nclient = s.topology.num_paths();
    // `transport.random_path`: the same draw as the simulator's for this run
    let resolved;
    let s = if s.transport.random_path {
        let mut r = s.clone();
        r.transport.path = initial_path(s, seed, nclient, &mut drawn);
        r.transport.random_path = false;
        resolved = r;
        &resolved
    } else {
        s
    };
    let specs: Vec<PathSpec> = duplexes;
    let npaths = nclient;
    let topo = match &s.topology {
        sc::Topology::Preset { .. } => Net::preset(
            Topology::build(&TopologyOptions {
                shape: crate::Shape::Core,
                paths: npaths,
                mtu: s.transport.mtu_bytes,
                emulate_server_link: true,
            })
            .map_err(|e| e.to_string())?,
        ),
        sc::Topology::Explicit { .. } => Net::explicit(
            crate::explicit::ExplicitTopology::build(&s.topology, s.transport.mtu_bytes)
                .map_err(|e| e.to_string())?,
            s.transport.mtu_bytes,
        ),
    };
    // The server address of `transport.server_path` (explicit topologies; presets have one).
    let sidx = (s.transport.server_path as usize).clamp(1, topo.server_addrs.len()) - 1;
    let server_addr = topo.server_addrs[sidx].clone();
    for ns in [&topo.client_ns, &topo.server_ns] {
        transport_sysctls(&s.transport, ns)?;
    }
    route_attrs(&topo, &s.transport)?;
    let mptcp = s.transport.protocol == sc::Protocol::Mptcp;
    if mptcp {
        configure_mptcp(&topo, s, &server_addr)?;
    }
    // Background hosts and their sockets (background.rs); started with the emulator.
    let background = match (&topo.preset, s.background.enabled) {
        (Some(t), true) => {
            let hosts = crate::background::Hosts::build(t, s)?;
            let down = s.traffic.direction == sc::Direction::Down;
            Some(crate::background::Prepared::new(
                s, seed, &hosts, &specs, down,
            )?)
        }
        _ => None,
    };
    let path = (s.transport.path as usize).clamp(1, npaths);
    let src: Ipv4Addr = topo.client_addrs[path - 1].parse().unwrap();
    let server = SocketAddrV4::new(server_addr.parse().unwrap(), AGENT_PORT);
    let plan = Arc::new(plan(s, seed, ClockKind::Monotonic, Some(src), server)?);

    let rec: Shared = Arc::new(Mutex::new(Records::default()));
    let mut so = plan.sock.clone();
    if mptcp && !s.transport.mptcp.server_capable {
        // Not MPTCP-capable: a plain TCP listener; the client falls back to TCP (RFC 8684 3.7).
        so.stream = Stream::Tcp;
    }
    // A multi-homed server accepts on all its addresses (joins to an
    // announced address), as the simulator's server does.
    let listen_on = if topo.server_addrs.len() > 1 {
        SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, AGENT_PORT)
    } else {
        server
    };
    let listener = netns::in_netns(&topo.server_ns, move || sock::listen(&so, listen_on))
        .map_err(|e| e.to_string())?;
    let udp = if matches!(plan.traffic, Traffic::Messages { udp: true, .. }) {
        Some(
            netns::in_netns(&topo.server_ns, move || sock::udp_socket(server))
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };
    // The agent's threads (all created from here on) run SCHED_FIFO below the
    // emulator, so the host's load does not decide when the kernel's
    // receiver reads and ACKs (agentprio.rs).
    let agent_rt =
        crate::agentprio::Raised::raise(crate::agentprio::from_env().map_err(|e| e.to_string())?);
    if let Some(e) = &agent_rt.error {
        eprintln!("note: the traffic agent runs at normal priority: {e}");
    }
    let srv = Server::start(listener, udp, plan.clone(), rec.clone()).map_err(|e| e.to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    if let Some(ext) = &o.stop {
        let (ext, st) = (ext.clone(), stop.clone());
        std::thread::spawn(move || {
            while !st.load(Ordering::Relaxed) {
                if ext.load(Ordering::Relaxed) {
                    st.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
    }
    let (cns, so) = (topo.client_ns.clone(), plan.sock.clone());
    let make_socket = move || {
        let so = so.clone();
        netns::in_netns(&cns, move || sock::stream_socket(&so))
    };
    let cns = topo.client_ns.clone();
    let make_udp = move || {
        netns::in_netns(&cns, move || {
            sock::udp_socket(SocketAddrV4::new(src, AGENT_PORT + 1))
        })
    };
    // Userspace path manager: a netlink socket in the client namespace; every
    // agent connection gets its extra subflows from a helper thread (joined below).
    let upm = if mptcp && crate::userpm::needed(&s.transport.mptcp) {
        let pm = netns::in_netns(&topo.client_ns, crate::userpm::UserPm::open)
            .map_err(|e| e.to_string())?;
        let addrs: Vec<Ipv4Addr> = topo
            .client_addrs
            .iter()
            .map(|a| a.parse().unwrap())
            .collect();
        Some((
            Arc::new(Mutex::new(pm)),
            Arc::new(crate::userpm::extra_subflows(
                &s.transport.mptcp,
                &addrs,
                path - 1,
            )),
        ))
    } else {
        None
    };
    let upm_threads: Mutex<Vec<UpmThread>> = Mutex::new(Vec::new());
    let upm_stop = stop.clone();
    let on_connect = |c: &std::net::TcpStream| -> std::io::Result<()> {
        let Some((pm, extra)) = &upm else {
            return Ok(());
        };
        let token = crate::userpm::token(c.as_raw_fd())?;
        let (pm, extra, st) = (pm.clone(), extra.clone(), upm_stop.clone());
        let deadline = crate::clock::monotonic_ns() + 3_000_000_000;
        upm_threads
            .lock()
            .unwrap()
            .push(std::thread::spawn(move || {
                crate::userpm::create_all(&pm, token, &extra, server, deadline, &st)
                    .map_err(|e| e.to_string())
            }));
        Ok(())
    };
    let env = ClientEnv {
        make_socket: &make_socket,
        make_udp: &make_udp,
        on_connect: upm.as_ref().map(|_| &on_connect as &agent::OnConnect),
    };

    let capture = match &o.capture {
        Some(dir) => {
            let mut ifs = Vec::new();
            for dev in &topo.client_devs {
                ifs.push((topo.client_ns.clone(), "c".to_string(), dev.clone()));
                if let Some(r) = &topo.core_ns {
                    ifs.push((r.clone(), "r".to_string(), dev.clone()));
                }
            }
            if let Some(r) = &topo.core_ns {
                ifs.push((r.clone(), "r".to_string(), "srv".to_string()));
            }
            for dev in &topo.server_devs {
                ifs.push((topo.server_ns.clone(), "s".to_string(), dev.clone()));
            }
            match crate::capture::Capture::start(dir, &format!("run{run}-"), &ifs) {
                Ok(c) => c,
                Err(e) => {
                    srv.stop(Some(&topo.server_ns));
                    return Err(e);
                }
            }
        }
        None => None,
    };
    let end = secs(s.meta.duration_s);
    // Time 0 of the run is the emulator's clock origin (outage times are relative to it).
    let srv_spec = server_link;
    let emu = match topo.start_emulator(&specs, &srv_spec, seed, s.traffic.client_hello_bytes > 0) {
        Ok(e) => e,
        Err(e) => {
            stop.store(true, Ordering::Relaxed);
            srv.stop(Some(&topo.server_ns));
            return Err(e.to_string());
        }
    };
    let origin = emu.clock().origin();
    let load_start = crate::hostload::load1();
    // The run's time 0 on CLOCK_REALTIME (the captures' clock), read beside
    // CLOCK_MONOTONIC now: both recorded below.
    let realtime_origin = (crate::probe::realtime_ns() as i128
        - crate::clock::monotonic_ns() as i128
        + origin as i128) as u64;
    let background = background.map(|b| b.start(origin, stop.clone()));
    let iv = s.output.timeseries_interval_ms;
    let sampling = (iv > 0.0).then(|| {
        let every = ((iv * 1e6).round() as Nanos).max(1_000_000);
        sampler(
            rec.clone(),
            origin,
            every,
            s.output.cwnd_series,
            mptcp,
            topo.client_addrs.clone(),
            path,
            stop.clone(),
        )
    });
    let mut failover_report = None;
    let client_result = match &s.traffic.failover {
        // seed 004's application failover (failover.rs)
        Some(fo) => {
            let fp = crate::failover::FailoverPlan {
                backup: topo.client_addrs[fo.path as usize - 1].parse().unwrap(),
                after: secs(fo.after_s),
                start: secs(s.traffic.start_s),
            };
            crate::failover::run(&plan, &fp, &env, &topo.server_ns, origin, end, &stop, &rec)
                .map(|r| failover_report = Some(r))
        }
        None => agent::run_client(&plan, &env, origin, end, &stop, &rec),
    };
    for h in upm_threads.lock().unwrap().drain(..) {
        if let Ok(Err(e)) = h.join() {
            eprintln!(
                "note: userspace path manager: {e}; the paths table lists the subflows that exist"
            );
        }
    }
    let elapsed = crate::clock::monotonic_ns()
        .saturating_sub(origin)
        .min(end)
        .max(1);

    // Kernel counters while the connections are still open.
    let mut prow: Vec<PathMeasure> = Vec::new();
    let mut subflow_counters_missing = false;
    let client_addrs: Vec<String> = topo.client_addrs.clone();
    let access = |a: &str, b: &str| {
        client_addrs
            .iter()
            .position(|c| c == a || c == b)
            .map_or(path, |i| i + 1)
    };
    {
        let r = rec.lock().unwrap();
        for c in &r.conns {
            let fd = c.stream.as_raw_fd();
            let (l, rmt) = sock::addrs(&c.stream);
            let subs = if mptcp {
                sock::mptcp_subflows(fd).ok().filter(|v| !v.is_empty())
            } else {
                None
            };
            if mptcp && subs.is_none() {
                subflow_counters_missing = true;
            }
            match subs {
                Some(subs) => {
                    for sf in subs {
                        let (la, ra) = (sf.local.ip().to_string(), sf.remote.ip().to_string());
                        prow.push(PathMeasure {
                            label: c.label.clone(),
                            side: c.side,
                            path: access(&la, &ra),
                            local: la,
                            remote: ra,
                            counters: counters(&sf.info),
                        });
                    }
                }
                None => {
                    if let Ok(i) = sock::tcp_info(fd) {
                        prow.push(PathMeasure {
                            label: c.label.clone(),
                            side: c.side,
                            path: access(&l, &rmt),
                            local: l,
                            remote: rmt,
                            counters: counters(&i),
                        });
                    }
                }
            }
        }
    }
    let bg_measures = background.as_ref().map(|b| b.measure()).unwrap_or_default();
    // Stop: close the connections (wakes blocked readers and writers), the
    // server, then the emulator; the topology goes when `topo` is dropped.
    stop.store(true, Ordering::Relaxed);
    if let Some(b) = background {
        b.stop();
    }
    if let Some(h) = sampling {
        let _ = h.join();
    }
    let (conns, active) = {
        let mut r = rec.lock().unwrap();
        (std::mem::take(&mut r.conns), r.active.clone())
    };
    for c in &conns {
        let _ = c.stream.shutdown(std::net::Shutdown::Both);
    }
    srv.stop(Some(&topo.server_ns));
    let t_wait = std::time::Instant::now();
    while active.load(Ordering::SeqCst) > 0 && t_wait.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(conns);
    let reports = emu.stop();
    if let Some(w) =
        crate::threadstat::warning(reports.iter().filter_map(|r| r.thread.as_ref()), run)
    {
        eprintln!("{w}");
    }
    if let Some(dir) = crate::emulator::trace_dir() {
        if let Err(e) = crate::emulator::write_traces(&dir, &format!("run{run}-"), &reports) {
            eprintln!("warning: {}: {e}", crate::emulator::TRACE_ENV);
        }
    }
    let pcaps = capture.map(|c| c.stop()).unwrap_or_default();
    let agent_priority = agent_rt.priority.unwrap_or(0);
    drop(agent_rt);
    drop(topo);
    if o.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
        return Err("interrupted".into());
    }
    client_result.map_err(|e| format!("traffic agent: {e}"))?;
    let mut rec = std::mem::take(&mut *rec.lock().unwrap());
    rec.background = bg_measures;
    if let Some(e) = rec.errors.first() {
        return Err(format!("traffic agent: {e}"));
    }
    if active.load(Ordering::SeqCst) > 0 {
        return Err("traffic agent threads did not finish within 3 s of the end of the run".into());
    }
    let mut out = tables(s, run, seed, &plan, rec, prow, &reports, elapsed, &drawn);
    if let Some(r) = failover_report {
        for (k, v) in [
            ("emu.failover_switch_s", r.switched_at),
            ("emu.failover_last_progress_s", r.last_progress),
            ("emu.failover_first_byte_s", r.first_byte),
        ] {
            if let Some(v) = v {
                out.set_metric(k, v as f64 / 1e9);
            }
        }
    }
    if subflow_counters_missing {
        // Kernel without MPTCP_TCPINFO / MPTCP_SUBFLOW_ADDRS (< 5.16): the
        // per-path shares come from the emulator's per-path byte counters in
        // the direction the data flows (headers and ACKs included).
        let dir = if plan.server_sends { ".down" } else { ".up" };
        let per: Vec<(usize, u64)> = reports
            .iter()
            .filter(|r| r.name.starts_with("path") && r.name.ends_with(dir))
            .map(|r| {
                (
                    r.name
                        .trim_start_matches("path")
                        .split('.')
                        .next()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0),
                    r.stats.bytes_delivered,
                )
            })
            .collect();
        let total: u64 = per.iter().map(|p| p.1).sum();
        if total > 0 {
            for (p, b) in per {
                out.set_metric(metric::fg_share_path(p), b as f64 / total as f64);
            }
            out.set_metric("emu.shares_from_links", 1.0);
        }
    }
    // Time 0 on the kernel's clocks (exact integers): CLOCK_MONOTONIC, whose
    // multiples of 1/HZ s are the kernel's jiffy boundaries (`mptlab validate
    // --decisions` gives the simulator that phase), and CLOCK_REALTIME, the
    // captures' timestamps.
    out.summary
        .insert("emu.clock_origin_ns".into(), origin.into());
    out.summary
        .insert("emu.realtime_origin_ns".into(), realtime_origin.into());
    // the host's load beside the run (hostload.rs: fast paths read low on a
    // busy host)
    for (k, v) in [
        ("emu.loadavg_1m_start", load_start),
        ("emu.loadavg_1m_end", crate::hostload::load1()),
    ] {
        if let Some(v) = v {
            out.summary.insert(k.into(), v.into());
        }
    }
    out.summary
        .insert("emu.cpus".into(), (crate::hostload::cpus() as u64).into());
    // SCHED_FIFO priority of the agent's threads (0: normal priority).
    out.summary
        .insert("emu.agent_priority".into(), (agent_priority as u64).into());
    if !pcaps.is_empty() {
        out.set_metric("emu.pcap_files", pcaps.len() as f64);
        // captures known to lack packets the interface passed (capture.rs)
        let incomplete = pcaps.iter().filter(|f| !f.complete).count();
        out.set_metric("emu.pcap_incomplete", incomplete as f64);
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn tables(
    s: &sc::Scenario,
    run: u32,
    seed: u64,
    plan: &Plan,
    rec: Records,
    prow: Vec<PathMeasure>,
    reports: &[DirectionReport],
    elapsed: Nanos,
    drawn: &[(String, f64)],
) -> RunOutput {
    let mut out = RunOutput::new(run, seed);
    let proto = name(s.transport.protocol);
    // Flow ids in order of first appearance (the simulator numbers flows as it creates them).
    let mut labels: Vec<String> = Vec::new();
    let flow_of = |l: &str, labels: &mut Vec<String>| -> u64 {
        match labels.iter().position(|x| x == l) {
            Some(i) => i as u64,
            None => {
                labels.push(l.to_string());
                labels.len() as u64 - 1
            }
        }
    };
    match &plan.traffic {
        Traffic::Messages { .. } => {
            flow_of("fg", &mut labels);
        }
        Traffic::File { size, .. } => {
            flow_of(&format!("file-{size}"), &mut labels);
        }
        Traffic::Bulk { .. } => {
            flow_of("bulk", &mut labels);
            if s.traffic.failover.is_some() {
                // the simulator creates the failover flow up front (runner.rs)
                flow_of("bulk-failover", &mut labels);
            }
        }
        Traffic::Web { .. } => {}
    }
    for p in &prow {
        flow_of(&p.label, &mut labels);
    }
    for l in rec.delivered.keys() {
        flow_of(l, &mut labels);
    }

    // messages: every message generated before the end, in id order.
    let mut msg_rows: Vec<rows::MessageRow> = Vec::new();
    let mut summary: Vec<(String, f64)> = Vec::new();
    if let Traffic::Messages { schedule, .. } = &plan.traffic {
        let mut got: Vec<&agent::MsgRec> = rec.messages.iter().collect();
        got.sort_by_key(|m| (m.delivery, m.id));
        let mut jitter = Jitter::default();
        let mut by_id = std::collections::BTreeMap::new();
        for m in got {
            if let Some(d) = m.delivery {
                jitter.update(m.send, d);
                by_id.insert(m.id, (d, jitter.ns()));
            }
        }
        let mut delays = Vec::new();
        for (id, &(at, bytes)) in schedule.iter().enumerate() {
            let (d, j) = by_id
                .get(&(id as u64))
                .map_or((None, None), |&(d, j)| (Some(d), Some(j)));
            let r = rows::MessageRow::from_times(0, "fg".into(), id as u64, bytes as u64, at, d, j);
            delays.extend(r.delay_ms);
            msg_rows.push(r);
        }
        summary.extend(metric::message_metrics(msg_rows.len(), &mut delays));
        if !rec.send_lateness.is_empty() {
            let mut l: Vec<f64> = rec.send_lateness.iter().map(|&x| x as f64 / 1e6).collect();
            let (m, p, _) = median_p95_mean(&mut l);
            summary.push(("emu.send_lateness_ms_median".into(), m));
            summary.push(("emu.send_lateness_ms_p95".into(), p));
        }
    }

    let msgs = rows::MessageRow::table(&msg_rows);
    let mut transfer_rows = Vec::new();
    for t in &rec.transfers {
        let fl = if t.kind == "page" {
            flow_of("web0", &mut labels)
        } else {
            flow_of(&t.label, &mut labels)
        };
        let r = t.row(fl);
        if let Some(ct) = r.completion_time_ms {
            summary.push((metric::COMPLETION_TIME_MS.into(), ct));
        }
        transfer_rows.push(r);
    }

    let transfers = rows::TransferRow::table(&transfer_rows);

    // how many transfers and messages did not complete (issue 12 item 3)
    for (k, v) in mptlab_results::unfinished::run_metrics(&msgs, &transfers) {
        summary.push((k.into(), v));
    }

    // paths and flows
    let mut path_rows = Vec::new();
    let mut flow_rows = Vec::new();
    let secs_f = elapsed as f64 / 1e9;
    let mut fg_by_path: std::collections::BTreeMap<usize, u64> = Default::default();
    let mut fg_received = 0u64;
    for (fid, l) in labels.iter().enumerate() {
        let mut total = CounterCells::default();
        let mut measured: Vec<PathMeasure> =
            prow.iter().filter(|p| &p.label == l).cloned().collect();
        if proto == "udp" {
            let ca = plan.client_src.map(|a| a.to_string()).unwrap_or_default();
            let sa = plan.server.ip().to_string();
            let p = s.transport.path as usize;
            for side in ["client", "server"] {
                if let Some(c) = rec.udp.get(side) {
                    let (lo, re) = if side == "client" {
                        (ca.clone(), sa.clone())
                    } else {
                        (sa.clone(), ca.clone())
                    };
                    measured.push(PathMeasure {
                        label: l.clone(),
                        side,
                        path: p,
                        local: lo,
                        remote: re,
                        counters: udp_counters(c),
                    });
                }
            }
        }
        for side in ["client", "server"] {
            let mine: Vec<&PathMeasure> = measured.iter().filter(|m| m.side == side).collect();
            let sent = |m: &PathMeasure| m.counters.bytes_sent.unwrap_or(0);
            let data_packets = |m: &PathMeasure| m.counters.data_packets_sent.unwrap_or(0);
            let sum_b: u64 = mine.iter().map(|m| sent(m)).sum();
            let sum_p: u64 = mine.iter().map(|m| data_packets(m)).sum();
            for m in mine {
                total.add(&m.counters);
                *fg_by_path.entry(m.path).or_default() += sent(m);
                path_rows.push(rows::PathRow {
                    flow: fid as u64,
                    label: l.clone(),
                    role: "foreground".into(),
                    side: side.into(),
                    path: m.path as u64,
                    local_addr: m.local.clone(),
                    remote_addr: m.remote.clone(),
                    share_bytes: rows::share(sent(m), sum_b),
                    share_packets: rows::share(data_packets(m), sum_p),
                    counters: m.counters.clone(),
                });
            }
        }
        let delivered = rec.delivered.get(l).copied().unwrap_or(0);
        fg_received += delivered;
        flow_rows.push(rows::FlowRow {
            flow: fid as u64,
            label: l.clone(),
            role: "foreground".into(),
            protocol: proto.clone(),
            bytes_delivered: delivered,
            throughput_mbit: metric::mbit_per_s(delivered, secs_f),
            // emulation writes messages on TCP streams and UDP sockets only
            // (no SCTP), which refuse no send (the agent splits UDP
            // messages into datagrams)
            messages_refused: 0,
            counters: total,
        });
    }
    // Background flows after the foreground's, as the simulator numbers them.
    let (bg_flows, bg_paths) =
        crate::background::rows(&rec.background, labels.len() as u64, secs_f);
    flow_rows.extend(bg_flows);
    path_rows.extend(bg_paths);
    summary.push((
        metric::FG_THROUGHPUT_MBIT.into(),
        metric::mbit_per_s(fg_received, secs_f),
    ));
    summary.extend(metric::fg_shares(&fg_by_path));

    // links: the emulator's per-direction counters (path<i>.up / .down).
    let mut link_rows = Vec::new();
    let mut late = crate::hist::Histogram::default();
    for r in reports {
        let (link, dir) = r.name.split_once('.').unwrap_or((&r.name, ""));
        let (from, to) = match (link, dir) {
            ("server", "up") => ("core", "server"),
            ("server", _) => ("server", "core"),
            (_, "up") => ("client", "core"),
            _ => ("core", "client"),
        };
        link_rows.push(rows::LinkRow::of(link, dir, from, to, &r.stats));
        late.merge(&r.lateness);
    }
    if late.count() > 0 {
        summary.push((
            "emu.release_lateness_us_p99".into(),
            late.quantile(0.99) as f64 / 1e3,
        ));
    }
    summary.extend(crate::threadstat::summary(
        reports.iter().filter_map(|r| r.thread.as_ref()),
    ));
    let mut ts_rows = Vec::new();
    for x in rec.series.iter().filter(|x| x.t <= elapsed) {
        ts_rows.push(rows::TimeseriesRow {
            t_ms: to_ms(x.t),
            flow: flow_of(&x.label, &mut labels),
            label: x.label.clone(),
            side: x.side.into(),
            path: x.path as u64,
            metric: x.metric.into(),
            value: x.value,
        });
    }
    out.tables = vec![
        msgs,
        transfers,
        rows::FlowRow::table(&flow_rows),
        rows::PathRow::table(&path_rows),
        rows::LinkRow::table(&link_rows),
        rows::TimeseriesRow::table(&ts_rows),
    ];
    for (k, v) in drawn {
        summary.push((metric::drawn(k), *v));
    }
    summary.push(("emu_time_s".into(), elapsed as f64 / 1e9));
    for (k, v) in summary {
        out.set_metric(k, v);
    }
    out
}
