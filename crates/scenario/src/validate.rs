//! Semantic checks and profile resolution. Errors are `(dotted key, message)`;
//! the caller locates the key in the file.

use crate::profiles::builtin;
use crate::registry::*;
use crate::types::*;
use crate::value::Range;
use crate::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

type VResult<T> = Result<T, (String, String)>;

fn err<T>(key: impl Into<String>, msg: impl Into<String>) -> VResult<T> {
    Err((key.into(), msg.into()))
}

/// Check a number: finite, within [min, max] (`min_open` makes min exclusive).
fn num(key: &str, v: f64, min: f64, min_open: bool, max: f64, what: &str) -> VResult<()> {
    let bad_min = if min_open { v <= min } else { v < min };
    if !v.is_finite() || bad_min || v > max {
        let lower = if min_open {
            format!("> {min}")
        } else {
            format!(">= {min}")
        };
        let range = if max.is_finite() {
            format!("{lower} and <= {max}")
        } else {
            lower
        };
        return err(key, format!("expected {what} {range}, found {v}"));
    }
    Ok(())
}

fn range(key: &str, r: &Range, min: f64, min_open: bool, max: f64, what: &str) -> VResult<()> {
    if let Range::Uniform { lo, hi } = *r {
        num(key, lo, min, min_open, max, what)?;
        num(key, hi, min, min_open, max, what)?;
        if lo > hi {
            return err(
                key,
                format!("expected [lo, hi] with lo <= hi, found [{lo}, {hi}]"),
            );
        }
        Ok(())
    } else {
        num(key, r.lo(), min, min_open, max, what)
    }
}

const INF: f64 = f64::INFINITY;

fn check_loss(key: &str, l: &LossModel) -> VResult<()> {
    match l {
        LossModel::None => Ok(()),
        LossModel::Bernoulli { percent } => range(
            &format!("{key}.percent"),
            percent,
            0.0,
            false,
            100.0,
            "a loss percentage",
        ),
        LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good_percent,
            loss_bad_percent,
        } => {
            range(
                &format!("{key}.p_gb"),
                p_gb,
                0.0,
                false,
                1.0,
                "a probability",
            )?;
            range(
                &format!("{key}.p_bg"),
                p_bg,
                0.0,
                false,
                1.0,
                "a probability",
            )?;
            range(
                &format!("{key}.loss_good_percent"),
                loss_good_percent,
                0.0,
                false,
                100.0,
                "a loss percentage",
            )?;
            range(
                &format!("{key}.loss_bad_percent"),
                loss_bad_percent,
                0.0,
                false,
                100.0,
                "a loss percentage",
            )
        }
        LossModel::Train {
            gap_ms,
            drop_packets,
            blackout_ms,
        } => {
            num(
                &format!("{key}.gap_ms"),
                *gap_ms,
                0.0,
                true,
                1e9,
                "an idle gap in ms",
            )?;
            num(
                &format!("{key}.blackout_ms"),
                *blackout_ms,
                0.0,
                false,
                1e9,
                "a blackout in ms (0 = none)",
            )?;
            if drop_packets.is_empty() || drop_packets.contains(&0) {
                return err(
                    format!("{key}.drop_packets"),
                    format!("expected a non-empty list of 1-based packet positions, found {drop_packets:?}"),
                );
            }
            Ok(())
        }
    }
}

/// Value checks of link parameters where they are written (`at` = their key path).
fn check_params(at: &str, p: &LinkParams, nested: bool) -> VResult<()> {
    let k = |s: &str| {
        if at.is_empty() {
            s.to_string()
        } else {
            format!("{at}.{s}")
        }
    };
    if let Some(r) = &p.rate_mbit {
        range(&k("rate_mbit"), r, 0.0, true, 1e6, "a rate in Mbit/s")?;
    }
    if let Some(r) = &p.delay_ms {
        range(&k("delay_ms"), r, 0.0, false, 1e6, "a delay in ms")?;
    }
    if p.queue_packets.is_some() && p.queue_bytes.is_some() {
        return err(
            k("queue_bytes"),
            "expected either queue_packets or queue_bytes, found both",
        );
    }
    if p.queue_packets == Some(0) {
        return err(
            k("queue_packets"),
            "expected a queue limit >= 1 packet, found 0",
        );
    }
    if let Some(b) = p.queue_bytes {
        if b < 1500 {
            return err(
                k("queue_bytes"),
                format!("expected a queue limit >= 1500 bytes (one full packet), found {b}"),
            );
        }
    }
    if let Some(l) = &p.loss {
        check_loss(&k("loss"), l)?;
    }
    if let Some(t) = &p.trace {
        if t.trim().is_empty() {
            return err(
                k("trace"),
                "expected a trace file path, found an empty string",
            );
        }
    }
    if let Some(os) = &p.outages {
        for (i, o) in os.iter().enumerate() {
            let ok = format!("{}[{i}]", k("outages"));
            num(
                &format!("{ok}.at_s"),
                o.at_s,
                0.0,
                false,
                INF,
                "an outage start in s",
            )?;
            num(
                &format!("{ok}.duration_s"),
                o.duration_s,
                0.0,
                true,
                INF,
                "an outage duration in s",
            )?;
        }
    }
    if nested && (p.up.is_some() || p.down.is_some()) {
        let which = if p.up.is_some() { "up" } else { "down" };
        return err(k(which), "expected link keys, found a nested per-direction table (up/down only at the top level of a link)");
    }
    if nested && p.profile.is_some() {
        return err(k("profile"), "a per-direction table cannot name a profile");
    }
    for (d, sub) in [("up", &p.up), ("down", &p.down)] {
        if let Some(s) = sub {
            check_params(&k(d), s, true)?;
        }
    }
    Ok(())
}

struct Resolver<'a> {
    user: &'a BTreeMap<String, LinkParams>,
    base_dir: &'a PathBuf,
}

impl Resolver<'_> {
    fn known_names(&self) -> String {
        let mut v: Vec<String> = self.user.keys().cloned().collect();
        v.extend(crate::profiles::BUILTIN.iter().map(|b| b.name.to_string()));
        v.sort();
        v.dedup();
        v.join(", ")
    }

    /// Flatten the `profile` chain of `p` (`at` names the key of the profile reference).
    fn flatten(&self, at: &str, p: &LinkParams) -> VResult<LinkParams> {
        let mut chain: Vec<LinkParams> = vec![p.clone()];
        let mut seen = BTreeSet::new();
        let mut name = p.profile.clone();
        let mut key = at.to_string();
        while let Some(n) = name {
            // a user profile may name the built-in profile it shadows:
            // [profile.wlan] profile = "wlan" starts from the built-in wlan
            let user = self.user.get(&n).filter(|_| !seen.contains(&n));
            let base = match (user, builtin(&n)) {
                (Some(u), _) => u.clone(),
                (None, Some(b)) => b,
                (None, None) if seen.contains(&n) => {
                    return err(
                        key,
                        format!("profile \"{n}\" refers to itself (a cycle of profile references)"),
                    )
                }
                (None, None) => {
                    return err(
                        key,
                        format!(
                            "expected a link profile name (one of {}), found \"{n}\"",
                            self.known_names()
                        ),
                    )
                }
            };
            seen.insert(n.clone());
            key = format!("profile.{n}.profile");
            name = base.profile.clone();
            chain.push(base);
        }
        let mut acc = LinkParams::default();
        for p in chain.iter().rev() {
            acc = acc.overridden_by(p);
        }
        Ok(acc)
    }

    fn dir(
        &self,
        at: &str,
        p: &LinkParams,
        sub: &Option<Box<LinkParams>>,
        shadowed: &Option<String>,
    ) -> VResult<LinkDir> {
        let mut p = p.clone();
        p.up = None;
        p.down = None;
        if let Some(s) = sub {
            p = p.overridden_by(s);
        }
        if p.rate_mbit.is_none() && p.trace.is_none() {
            let hint = match &shadowed {
                Some(n) => format!(
                    " ([profile.{n}] replaces the built-in profile \"{n}\"; add profile = \"{n}\" to start from it)"
                ),
                None => String::new(),
            };
            return err(
                at,
                format!("missing key `rate_mbit` (or `trace`): the link has no rate{hint}"),
            );
        }
        let queue = match (p.queue_packets, p.queue_bytes) {
            (_, Some(b)) => QueueLimit::Bytes(b),
            (Some(n), None) => QueueLimit::Packets(n),
            (None, None) => QueueLimit::Packets(DEFAULT_QUEUE_PACKETS),
        };
        Ok(LinkDir {
            rate_mbit: p.rate_mbit,
            trace: p.trace.map(|t| self.base_dir.join(t)),
            delay_ms: p.delay_ms.unwrap_or(Range::Fixed(0.0)),
            queue,
            loss: p.loss.unwrap_or(LossModel::None),
            outages: p.outages.unwrap_or_default(),
        })
    }

    fn link(&self, at: &str, profile_key: &str, p: &LinkParams) -> VResult<Link> {
        let flat = self.flatten(profile_key, p)?;
        let shadowed = p.profile.clone().filter(|n| {
            builtin(n).is_some() && self.user.get(n).is_some_and(|u| u.profile.is_none())
        });
        let link = Link {
            up: self.dir(at, &flat, &flat.up, &shadowed)?,
            down: self.dir(at, &flat, &flat.down, &shadowed)?,
        };
        for d in [&link.up, &link.down] {
            if let Some(t) = &d.trace {
                if !t.is_file() {
                    return err(
                        format!("{at}.trace"),
                        format!("trace file not found: {}", t.display()),
                    );
                }
            }
        }
        Ok(link)
    }
}

pub(crate) fn validate(
    file: ScenarioFile,
    origin: &str,
    base_dir: PathBuf,
    effective: String,
) -> VResult<Scenario> {
    let m = &file.scenario;
    if m.name.trim().is_empty() {
        return err("scenario.name", "expected a non-empty name");
    }
    num(
        "scenario.duration_s",
        m.duration_s,
        0.0,
        true,
        1e7,
        "a duration in s",
    )?;
    if m.runs == 0 {
        return err("scenario.runs", "expected at least 1 run, found 0");
    }

    for (name, p) in &file.profile {
        check_params(&format!("profile.{name}"), p, false)?;
    }
    let res = Resolver {
        user: &file.profile,
        base_dir: &base_dir,
    };
    // every user profile's base chain resolves, even if the profile is unused
    for name in file.profile.keys() {
        let p = LinkParams {
            profile: Some(name.clone()),
            ..Default::default()
        };
        res.flatten(&format!("profile.{name}"), &p)?;
    }

    // topology
    let t = &file.topology;
    let topology = match t.preset {
        Some(preset) => {
            for (k, present) in [
                ("client", t.client.is_some()),
                ("server", t.server.is_some()),
                ("node", !t.node.is_empty()),
                ("link", !t.link.is_empty()),
            ] {
                if present {
                    return err(
                        format!("topology.{k}"),
                        format!(
                            "`{k}` belongs to an explicit topology; remove it or remove `preset`"
                        ),
                    );
                }
            }
            let names = t.paths.clone().ok_or_else(|| {
                (
                    "topology".to_string(),
                    format!(
                        "missing key `paths` (preset \"{preset}\" needs {} path profile name(s))",
                        preset.num_paths()
                    ),
                )
            })?;
            if names.len() != preset.num_paths() {
                return err(
                    "topology.paths",
                    format!(
                        "expected {} path profile name(s) for preset \"{preset}\", found {}",
                        preset.num_paths(),
                        names.len()
                    ),
                );
            }
            let mut paths = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let at = format!("topology.paths[{i}]");
                let p = LinkParams {
                    profile: Some(n.clone()),
                    ..Default::default()
                };
                paths.push(AccessPath {
                    profile: n.clone(),
                    link: res.link(&at, &at, &p)?,
                });
            }
            let sl = t.server_link.clone().unwrap_or_else(|| LinkParams {
                profile: Some("ethernet".into()),
                ..Default::default()
            });
            check_params("topology.server_link", &sl, false)?;
            let server_link =
                res.link("topology.server_link", "topology.server_link.profile", &sl)?;
            Topology::Preset {
                preset,
                paths,
                server_link,
            }
        }
        None => {
            if t.node.is_empty() {
                return err("topology", "missing key `preset` (one of two-path, single-path) or explicit [[topology.node]] tables");
            }
            for (k, present) in [
                ("paths", t.paths.is_some()),
                ("server_link", t.server_link.is_some()),
            ] {
                if present {
                    return err(format!("topology.{k}"), format!("`{k}` belongs to a preset topology; add `preset` or use [[topology.link]]"));
                }
            }
            let mut nodes = Vec::new();
            let mut names = BTreeSet::new();
            let mut addrs = BTreeSet::new();
            for (i, n) in t.node.iter().enumerate() {
                let at = format!("topology.node[{i}]");
                if n.name.trim().is_empty() || !names.insert(n.name.clone()) {
                    return err(
                        format!("{at}.name"),
                        format!(
                            "expected a unique, non-empty node name, found \"{}\"",
                            n.name
                        ),
                    );
                }
                let mut a = Vec::new();
                for (j, s) in n.addresses.iter().enumerate() {
                    let ip: std::net::Ipv4Addr = s.parse().map_err(|_| {
                        (
                            format!("{at}.addresses[{j}]"),
                            format!("expected an IPv4 address like 10.0.1.2, found \"{s}\""),
                        )
                    })?;
                    if !addrs.insert(ip) {
                        return err(
                            format!("{at}.addresses[{j}]"),
                            format!("address {ip} is used twice"),
                        );
                    }
                    a.push(ip);
                }
                if n.kind == NodeKind::Host && a.is_empty() {
                    return err(
                        format!("{at}.addresses"),
                        "expected at least one address for a host, found none",
                    );
                }
                nodes.push(Node {
                    name: n.name.clone(),
                    kind: n.kind,
                    addresses: a,
                });
            }
            let host = |k: &str, v: &Option<String>| -> VResult<String> {
                let v = v.clone().ok_or_else(|| {
                    (
                        "topology".to_string(),
                        format!("missing key `{k}` (name of the {k} host node)"),
                    )
                })?;
                match nodes.iter().find(|n| n.name == v) {
                    Some(n) if n.kind == NodeKind::Host => Ok(v),
                    Some(_) => err(
                        format!("topology.{k}"),
                        format!("expected a host node, found router \"{v}\""),
                    ),
                    None => err(
                        format!("topology.{k}"),
                        format!("expected a node name, found \"{v}\""),
                    ),
                }
            };
            let client = host("client", &t.client)?;
            let server = host("server", &t.server)?;
            let mut links = Vec::new();
            for (i, l) in t.link.iter().enumerate() {
                let at = format!("topology.link[{i}]");
                for (k, v) in [("a", &l.a), ("b", &l.b)] {
                    if !names.contains(v) {
                        return err(
                            format!("{at}.{k}"),
                            format!("expected a node name, found \"{v}\""),
                        );
                    }
                }
                if l.a == l.b {
                    return err(format!("{at}.b"), "a link must join two different nodes");
                }
                let p = l.params();
                check_params(&at, &p, false)?;
                links.push(ExplicitLink {
                    a: l.a.clone(),
                    b: l.b.clone(),
                    link: res.link(&at, &format!("{at}.profile"), &p)?,
                });
            }
            // every node reachable from the client
            let mut seen = BTreeSet::from([client.clone()]);
            let mut todo = vec![client.clone()];
            while let Some(n) = todo.pop() {
                for l in &links {
                    for (x, y) in [(&l.a, &l.b), (&l.b, &l.a)] {
                        if *x == n && seen.insert(y.clone()) {
                            todo.push(y.clone());
                        }
                    }
                }
            }
            if let Some(n) = names.iter().find(|n| !seen.contains(*n)) {
                return err(
                    "topology.link",
                    format!("node \"{n}\" is not connected to the client \"{client}\""),
                );
            }
            Topology::Explicit {
                client,
                server,
                nodes,
                links,
            }
        }
    };

    // transport
    let tr = &file.transport;
    let npaths = topology.num_paths();
    if !tr.protocol.is_multipath() && (tr.path == 0 || tr.path as usize > npaths) {
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
    if tr.cc.is_coupled() && !tr.protocol.is_multipath() {
        return err("transport.cc", format!("congestion control \"{}\" couples several paths and needs protocol \"mptcp\" or \"cmt-sctp\", found protocol \"{}\"", tr.cc, tr.protocol));
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

    // traffic
    let tf = &file.traffic;
    let dur = m.duration_s;
    num(
        "traffic.start_s",
        tf.start_s,
        0.0,
        false,
        INF,
        "a start time in s",
    )?;
    if tf.start_s >= dur {
        return err(
            "traffic.start_s",
            format!(
                "expected a start time before the end of the run ({dur} s), found {}",
                tf.start_s
            ),
        );
    }
    if let Some(s) = tf.stop_s {
        if s.partial_cmp(&tf.start_s) != Some(std::cmp::Ordering::Greater) {
            return err(
                "traffic.stop_s",
                format!(
                    "expected a stop time after start_s = {}, found {s}",
                    tf.start_s
                ),
            );
        }
    }
    let keys = [
        ("bitrate_kbit", tf.bitrate_kbit.is_some()),
        ("fps", tf.fps.is_some()),
        ("trace", tf.trace.is_some()),
        ("site", tf.site.is_some()),
        ("objects_bytes", tf.objects_bytes.is_some()),
        ("max_connections", tf.max_connections.is_some()),
        ("size_bytes", tf.size_bytes.is_some()),
        ("count", tf.count.is_some()),
        ("interval_s", tf.interval_s.is_some()),
        ("failover_path", tf.failover_path.is_some()),
        ("failover_after_s", tf.failover_after_s.is_some()),
    ];
    let allowed: &[&str] = match tf.model {
        TrafficModelName::Video => &["bitrate_kbit", "fps"],
        TrafficModelName::Gaming => &["trace"],
        TrafficModelName::Web => &["site", "objects_bytes", "max_connections"],
        TrafficModelName::File => &["size_bytes"],
        TrafficModelName::Bursts => &["count", "size_bytes", "interval_s"],
        TrafficModelName::Bulk => &["failover_path", "failover_after_s"],
    };
    for (k, present) in keys {
        if present && !allowed.contains(&k) {
            let exp = if allowed.is_empty() {
                "no model-specific keys".to_string()
            } else {
                format!("keys {}", allowed.join(", "))
            };
            return err(
                format!("traffic.{k}"),
                format!(
                    "key `{k}` does not apply to model \"{}\" (expected {exp})",
                    tf.model
                ),
            );
        }
    }
    let model = match tf.model {
        TrafficModelName::Video => {
            let bitrate_kbit = tf.bitrate_kbit.unwrap_or(950.0);
            let fps = tf.fps.unwrap_or(30.0);
            num(
                "traffic.bitrate_kbit",
                bitrate_kbit,
                0.0,
                true,
                1e7,
                "a bitrate in kbit/s",
            )?;
            num("traffic.fps", fps, 0.0, true, 1000.0, "a frame rate")?;
            TrafficModel::Video { bitrate_kbit, fps }
        }
        TrafficModelName::Gaming => {
            let t = tf.trace.clone().ok_or_else(|| {
                (
                    "traffic".to_string(),
                    "missing key `trace` (t1, t2, t3 or a trace file)".to_string(),
                )
            })?;
            let trace = if GAMING_TRACES.iter().any(|(n, _)| *n == t) {
                GamingTrace::Builtin(t)
            } else {
                let p = base_dir.join(&t);
                if !p.is_file() {
                    let names: Vec<_> = GAMING_TRACES.iter().map(|(n, _)| *n).collect();
                    return err(
                        "traffic.trace",
                        format!(
                            "expected a built-in trace ({}) or an existing file, found \"{t}\"",
                            names.join(", ")
                        ),
                    );
                }
                GamingTrace::File(p)
            };
            TrafficModel::Gaming { trace }
        }
        TrafficModelName::Web => {
            let page = match (&tf.site, &tf.objects_bytes) {
                (Some(_), Some(_)) => {
                    return err(
                        "traffic.objects_bytes",
                        "expected either `site` or `objects_bytes`, found both",
                    )
                }
                (None, None) => {
                    return err(
                        "traffic",
                        "missing key `site` or `objects_bytes` for model \"web\"",
                    )
                }
                (Some(s), None) => {
                    if !WEB_SITES.iter().any(|(n, _)| n == s) {
                        let names: Vec<_> = WEB_SITES.iter().map(|(n, _)| *n).collect();
                        return err(
                            "traffic.site",
                            format!(
                                "expected a web site name (one of {}), found \"{s}\"",
                                names.join(", ")
                            ),
                        );
                    }
                    WebPage::Site(s.clone())
                }
                (None, Some(o)) => {
                    if o.is_empty() || o.contains(&0) {
                        return err(
                            "traffic.objects_bytes",
                            "expected a non-empty list of object sizes >= 1 byte",
                        );
                    }
                    WebPage::Objects(o.clone())
                }
            };
            let max_connections = tf.max_connections.unwrap_or(6);
            num(
                "traffic.max_connections",
                max_connections as f64,
                1.0,
                false,
                1000.0,
                "a connection count",
            )?;
            TrafficModel::Web {
                page,
                max_connections,
            }
        }
        TrafficModelName::File => {
            let size_bytes = tf.size_bytes.ok_or_else(|| {
                (
                    "traffic".to_string(),
                    "missing key `size_bytes` for model \"file\"".to_string(),
                )
            })?;
            if size_bytes == 0 {
                return err(
                    "traffic.size_bytes",
                    "expected a file size >= 1 byte, found 0",
                );
            }
            TrafficModel::File { size_bytes }
        }
        TrafficModelName::Bursts => {
            let missing = |k: &str| {
                (
                    "traffic".to_string(),
                    format!("missing key `{k}` for model \"bursts\""),
                )
            };
            let count = tf.count.ok_or_else(|| missing("count"))?;
            let size_bytes = tf.size_bytes.ok_or_else(|| missing("size_bytes"))?;
            let interval_s = tf.interval_s.ok_or_else(|| missing("interval_s"))?;
            num(
                "traffic.count",
                count as f64,
                1.0,
                false,
                1e7,
                "a burst count",
            )?;
            num(
                "traffic.size_bytes",
                size_bytes as f64,
                1.0,
                false,
                u32::MAX as f64,
                "a burst size in bytes",
            )?;
            num(
                "traffic.interval_s",
                interval_s,
                0.0,
                true,
                1e6,
                "an interval in s",
            )?;
            TrafficModel::Bursts {
                count,
                size_bytes,
                interval_s,
            }
        }
        TrafficModelName::Bulk => TrafficModel::Bulk,
    };
    if !file.transport.protocol.is_reliable()
        && matches!(
            model,
            TrafficModel::Web { .. }
                | TrafficModel::File { .. }
                | TrafficModel::Bursts { .. }
                | TrafficModel::Bulk
        )
    {
        return err(
            "transport.protocol",
            format!(
                "traffic model \"{}\" needs a reliable protocol, found \"udp\"",
                tf.model
            ),
        );
    }

    let bg = &file.background;
    num(
        "background.udp_share_percent",
        bg.udp_share_percent,
        0.0,
        false,
        100.0,
        "a share in percent",
    )?;
    for (i, &p) in bg.paths.iter().enumerate() {
        if p == 0 || p as usize > npaths {
            return err(
                "background.paths",
                format!(
                    "entry {}: expected a client path number from 1 to {npaths}, found {p}",
                    i + 1
                ),
            );
        }
        if bg.paths[..i].contains(&p) {
            return err(
                "background.paths",
                format!("entry {}: path {p} is listed twice", i + 1),
            );
        }
    }
    num(
        "background.start_s",
        bg.start_s,
        0.0,
        false,
        file.scenario.duration_s,
        "a start time in s within the run (<= scenario.duration_s)",
    )?;
    num(
        "output.timeseries_interval_ms",
        file.output.timeseries_interval_ms,
        0.0,
        false,
        INF,
        "an interval in ms (0 = off)",
    )?;

    let failover = match (tf.failover_path, tf.failover_after_s) {
        (None, None) => None,
        (None, Some(_)) => {
            return err(
                "traffic.failover_after_s",
                "needs `traffic.failover_path` (the client path to reconnect on)",
            )
        }
        (Some(p), after) => {
            if file.transport.protocol != Protocol::Tcp {
                return err(
                    "traffic.failover_path",
                    format!(
                        "application failover reconnects single-path TCP; found protocol \"{}\"",
                        file.transport.protocol
                    ),
                );
            }
            if p == 0 || p as usize > npaths {
                return err(
                    "traffic.failover_path",
                    format!("expected a client path number from 1 to {npaths}, found {p}"),
                );
            }
            if p == file.transport.path || file.transport.random_path {
                return err(
                    "traffic.failover_path",
                    format!("must differ from the initial path transport.path = {} (and transport.random_path must be off)", file.transport.path),
                );
            }
            let after_s = after.unwrap_or(2.0);
            num(
                "traffic.failover_after_s",
                after_s,
                0.0,
                true,
                1e6,
                "a stall time in s",
            )?;
            Some(Failover { path: p, after_s })
        }
    };
    let traffic = Traffic {
        model,
        direction: tf.direction,
        start_s: tf.start_s,
        stop_s: tf.stop_s,
        failover,
    };
    Ok(Scenario {
        origin: origin.to_string(),
        base_dir,
        effective_toml: effective,
        meta: file.scenario.clone(),
        topology,
        transport: file.transport.clone(),
        traffic,
        background: file.background.clone(),
        output: file.output.clone(),
        file,
    })
}
