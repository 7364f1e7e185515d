//! `[topology]`: a preset with profile names, or explicit nodes and links.

use super::link::{check_params, Resolver};
use super::{err, VResult};
use crate::types::*;
use crate::*;
use std::collections::BTreeSet;

pub(super) fn resolve(t: &TopologySpec, res: &mut Resolver) -> VResult<Topology> {
    Ok(match t.preset {
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
            let clients = preset == TopologyPreset::Clients;
            if clients && (1..=crate::population::MAX_PATHS).contains(&names.len()) {
                // the clients preset: 1 to 3 interfaces per client
            } else if names.len() != preset.num_paths() || clients {
                return err(
                    "topology.paths",
                    if clients {
                        format!(
                            "expected 1 to {} path profile names for preset \"clients\" (the address plan has a 10.x.0.0/10 block per path), found {}",
                            crate::population::MAX_PATHS,
                            names.len()
                        )
                    } else {
                        format!(
                            "expected {} path profile name(s) for preset \"{preset}\", found {}",
                            preset.num_paths(),
                            names.len()
                        )
                    },
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
                return err("topology", "missing key `preset` (one of two-path, single-path, clients) or explicit [[topology.node]] tables");
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
                // a host's i-th address belongs to its i-th link in file
                // order (the simulator's topology builder)
                for (k, v) in [("a", &l.a), ("b", &l.b)] {
                    if let Some(n) = nodes
                        .iter()
                        .find(|n| &n.name == v && n.kind == NodeKind::Host)
                    {
                        let used = links
                            .iter()
                            .filter(|x: &&ExplicitLink| &x.a == v || &x.b == v)
                            .count();
                        if used >= n.addresses.len() {
                            return err(
                                format!("{at}.{k}"),
                                format!(
                                    "expected an address of host \"{v}\" for each of its links (address i goes with its i-th link), found {} address(es) and this link, its link {}: add an address to the node",
                                    n.addresses.len(),
                                    used + 1
                                ),
                            );
                        }
                    }
                }
                let p = l.params();
                check_params(&at, &p, false)?;
                links.push(ExplicitLink {
                    a: l.a.clone(),
                    b: l.b.clone(),
                    link: res.link(&at, &format!("{at}.profile"), &p)?,
                });
            }
            for (j, n) in nodes.iter().enumerate() {
                let used = links
                    .iter()
                    .filter(|x| x.a == n.name || x.b == n.name)
                    .count();
                if n.kind == NodeKind::Host && n.addresses.len() > used {
                    return err(
                        format!("topology.node[{j}].addresses[{used}]"),
                        format!(
                            "expected a link for each address of host \"{}\" (address i goes with its i-th link), found {} address(es) and {used} link(s): address {} would have no interface",
                            n.name,
                            n.addresses.len(),
                            used + 1
                        ),
                    );
                }
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
    })
}
