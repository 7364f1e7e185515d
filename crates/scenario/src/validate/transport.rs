//! `[transport]`, `[transport.mptcp]` and `[transport.sctp]`.

use super::{err, num, VResult, INF};
use crate::types::*;
use crate::*;

pub(super) fn check(tr: &Transport, topology: &Topology) -> VResult<()> {
    let npaths = topology.num_paths();
    // every protocol starts on `path`: the single path, MPTCP's initial
    // subflow, SCTP's primary path
    if tr.path == 0 || tr.path as usize > npaths {
        return err(
            "transport.path",
            format!(
                "expected a client path number from 1 to {npaths}, found {}",
                tr.path
            ),
        );
    }
    let nserver = match &topology {
        Topology::Preset { .. } => 1,
        Topology::Explicit { server, nodes, .. } => nodes
            .iter()
            .find(|n| &n.name == server)
            .map_or(0, |n| n.addresses.len()),
    };
    if tr.server_path == 0 || tr.server_path as usize > nserver {
        return err(
            "transport.server_path",
            format!(
                "expected a server address number from 1 to {nserver} (the server's addresses in file order), found {}",
                tr.server_path
            ),
        );
    }
    if tr.cc.is_coupled() && tr.protocol != Protocol::Mptcp {
        let hint = if matches!(tr.protocol, Protocol::Sctp | Protocol::CmtSctp) {
            " (SCTP's congestion control is transport.sctp.cc: uncoupled or cmt-rpv2)"
        } else {
            ""
        };
        return err(
            "transport.cc",
            format!(
                "congestion control \"{}\" is a coupled MPTCP algorithm and needs protocol \"mptcp\", found protocol \"{}\"{hint}",
                tr.cc, tr.protocol
            ),
        );
    }
    if tr.ip_version != 4 && tr.ip_version != 6 {
        return err(
            "transport.ip_version",
            format!("expected 4 or 6, found {}", tr.ip_version),
        );
    }
    // RFC 8200 section 5: every IPv6 link has an MTU of at least 1280.
    if tr.ip_version == 6 && tr.mtu_bytes < 1280 {
        return err(
            "transport.mtu_bytes",
            format!(
                "IPv6 (transport.ip_version = 6) needs an MTU of at least 1280 bytes (RFC 8200 section 5), found {}",
                tr.mtu_bytes
            ),
        );
    }
    num(
        "transport.mtu_bytes",
        tr.mtu_bytes as f64,
        576.0,
        false,
        9000.0,
        "an MTU in bytes",
    )?;
    num(
        "transport.sndbuf_kib",
        tr.sndbuf_kib as f64,
        1.0,
        false,
        INF,
        "a send buffer in KiB",
    )?;
    num(
        "transport.rcvbuf_kib",
        tr.rcvbuf_kib as f64,
        1.0,
        false,
        INF,
        "a receive buffer in KiB",
    )?;
    num(
        "transport.initial_cwnd_packets",
        tr.initial_cwnd_packets as f64,
        1.0,
        false,
        INF,
        "an initial window in packets",
    )?;
    num(
        "transport.rto_min_ms",
        tr.rto_min_ms,
        0.0,
        true,
        1e6,
        "a minimum RTO in ms",
    )?;
    if !HZ_CHOICES.contains(&tr.hz) {
        return err(
            "transport.hz",
            format!(
                "expected one of 100, 250, 300, 1000 (Linux CONFIG_HZ, kernel/Kconfig.hz), found {}",
                tr.hz
            ),
        );
    }
    let jiffy_us = 1_000_000 / tr.hz;
    if tr.hz_phase_us >= jiffy_us {
        return err(
            "transport.hz_phase_us",
            format!(
                "expected a phase within one jiffy, 0 to {} us at transport.hz = {}, found {}",
                jiffy_us - 1,
                tr.hz,
                tr.hz_phase_us
            ),
        );
    }
    match tr.protocol {
        Protocol::Mptcp => mptcp(tr, npaths, nserver),
        Protocol::Sctp | Protocol::CmtSctp => sctp(tr),
        Protocol::Tcp | Protocol::Udp => Ok(()),
    }
}

/// `[transport.mptcp]`, checked with protocol = "mptcp" only (a sweep over
/// protocols keeps the table for its MPTCP points).
fn mptcp(tr: &Transport, npaths: usize, nserver: usize) -> VResult<()> {
    let o = &tr.mptcp;
    let k = |s: &str| format!("transport.mptcp.{s}");
    num(
        &k("subflows_per_path"),
        o.subflows_per_path as f64,
        1.0,
        false,
        8.0,
        "a number of subflows per address pair",
    )?;
    num(
        &k("ndiffports"),
        o.ndiffports as f64,
        1.0,
        false,
        16.0,
        "a number of subflows",
    )?;
    for (i, &b) in o.backup_paths.iter().enumerate() {
        if b == 0 || b as usize > npaths {
            return err(
                format!("{}[{i}]", k("backup_paths")),
                format!("expected a client path number from 1 to {npaths}, found {b}"),
            );
        }
    }
    let changes = o.prio_changes.iter().map(|c| (c.path, c.at_s));
    path_schedule(&k("prio_changes"), changes, npaths, "change")?;
    if let Some(t) = o.fastclose_at_s {
        if !t.is_finite() || t < 0.0 {
            return err(
                k("fastclose_at_s"),
                format!("expected a time in s >= 0, found {t}"),
            );
        }
    }
    let removals = o.endpoint_removals.iter().map(|c| (c.path, c.at_s));
    path_schedule(&k("endpoint_removals"), removals, npaths, "removal")?;
    for (i, c) in o.endpoint_removals.iter().enumerate() {
        let key = format!("{}[{i}]", k("endpoint_removals"));
        if o.endpoint_removals[..i].iter().any(|e| e.path == c.path) {
            return err(
                format!("{key}.path"),
                format!(
                    "client path {} is already removed by an earlier entry",
                    c.path
                ),
            );
        }
    }
    let upstream = o.path_manager == PathManager::Upstream;
    for (key, list, n, of) in [
        ("endpoints", &o.endpoints, npaths, "client paths"),
        (
            "server_endpoints",
            &o.server_endpoints,
            nserver,
            "server addresses",
        ),
    ] {
        if !list.is_empty() && !upstream {
            return err(
                k(key),
                format!(
                    "endpoint flags need path_manager = \"upstream\", found path_manager = \"{}\"",
                    o.path_manager
                ),
            );
        }
        if list.len() > n {
            return err(
                k(key),
                format!(
                    "expected at most {n} entries (one per {of}), found {}",
                    list.len()
                ),
            );
        }
    }
    // pm_kernel.c `parse_limit`: at most MPTCP_PM_ADDR_MAX (8)
    for (key, v) in [
        ("limits.subflows", o.limits.subflows),
        ("limits.add_addr_accepted", o.limits.add_addr_accepted),
    ] {
        let Some(v) = v else { continue };
        if !upstream {
            return err(
                k(key),
                format!(
                    "in-kernel path manager limits need path_manager = \"upstream\", found path_manager = \"{}\"",
                    o.path_manager
                ),
            );
        }
        num(
            &k(key),
            v as f64,
            0.0,
            false,
            8.0,
            "a limit of the in-kernel path manager (the kernel allows at most 8, MPTCP_PM_ADDR_MAX)",
        )?;
    }
    num(
        &k("add_addr_timeout_s"),
        o.add_addr_timeout_s,
        0.0,
        false,
        // net.mptcp.add_addr_timeout is an int of jiffies (ctrl.c, proc_dointvec_jiffies)
        2_147_483.0,
        "a timeout in s (0 = ADD_ADDR is never re-sent)",
    )?;
    if o.tlp == MptcpTlp::MptcpLevel && !(tr.tlp && tr.sack) {
        return err(
            k("tlp"),
            "\"mptcp-level\" needs transport.tlp = true and transport.sack = true (TLP requires SACK, RFC 8985 7.2)",
        );
    }
    Ok(())
}

/// `[transport.sctp]`: the values the parser cannot check (its names are
/// the SCTP model's enums, checked when the file is read).
fn sctp(tr: &Transport) -> VResult<()> {
    let o = &tr.sctp;
    let k = |s: &str| format!("transport.sctp.{s}");
    if o.max_burst == Some(0) {
        return err(
            k("max_burst"),
            "expected at least 1 packet per send opportunity, found 0",
        );
    }
    if o.unordered == Some(true) {
        return err(
            k("unordered"),
            "true is not measured yet (message accounting assumes ordered delivery); expected false",
        );
    }
    Ok(())
}

/// A schedule of (client path, time) entries (`prio_changes`,
/// `endpoint_removals`): every path a client path number, times in order.
fn path_schedule(
    base: &str,
    entries: impl Iterator<Item = (u32, f64)>,
    npaths: usize,
    what: &str,
) -> VResult<()> {
    let mut last = 0.0;
    for (i, (path, at_s)) in entries.enumerate() {
        let key = format!("{base}[{i}]");
        if path == 0 || path as usize > npaths {
            return err(
                format!("{key}.path"),
                format!("expected a client path number from 1 to {npaths}, found {path}"),
            );
        }
        if !at_s.is_finite() || at_s < last {
            return err(
                format!("{key}.at_s"),
                format!(
                    "expected a time in s >= 0 and >= the previous {what}'s ({last}), found {at_s}"
                ),
            );
        }
        last = at_s;
    }
    Ok(())
}
