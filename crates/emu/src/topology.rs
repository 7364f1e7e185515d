//! Namespace topologies joined by emulated links.
//!
//! Seed 000 (`Shape::Core`, two paths), mirroring `mptlab_sim::topology::multi_path`:
//!
//! ```text
//!   client ns (<p>c)                core ns (<p>r)               server ns (<p>s)
//!   p1 10.1.0.2/24 ==[emu path1]== p1 10.1.0.1/24
//!   p2 10.2.0.2/24 ==[emu path2]== p2 10.2.0.1/24   srv 10.0.0.1 --veth-- srv 10.0.0.2
//! ```
//!
//! Each `==[emu]==` is a pair of TUN devices, one in each namespace, bridged
//! by the emulator (one `LinkModel` per direction). The simulator's access
//! routers ap_i and LAN links are folded into the emulated link: they are
//! fast and never the bottleneck there; background hosts, when enabled, are
//! forwarded through the client namespace into the same TUN devices
//! (background.rs). The server link is a plain veth (no emulation; tens of
//! Gbit/s) unless `emulate_server_link`.
//!
//! The client routes by source address, as MPTCP subflows need: rule
//! `from 10.i.0.2 lookup table i` with `default dev p_i` in table i, and the
//! main table's default route on path 1.
//!
//! `Shape::Direct` is the two-namespace case: client and server joined by a
//! single emulated link (client 10.1.0.2 on p1, server 10.0.0.2 on p1).
//!
//! Everything is named with a fresh run prefix (`cleanup::run_prefix`); the
//! topology removes its namespaces when dropped (so also when a test panics)
//! and when building fails halfway. Devices live inside the namespaces and
//! need no cleanup of their own.

use std::io;
use std::sync::Arc;

// loss streams are the simulator's own (docs/validation.md, decision level)
use mptlab_core::link::link_stream;

use crate::cleanup;
use crate::clock::Clock;
use crate::emulator::{DirectionSpec, EmuOptions, Emulator};
use crate::netns::{self, err, ip_in};
use crate::tun::Tun;

/// How the namespaces are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// client --emu-- server (exactly one path).
    Direct,
    /// client ==emu paths== core --veth-- server (seed 000).
    Core,
}

/// Both directions of one emulated path ("up" is client to server): the
/// links mptlab-setup draws for a run, the same type the simulator builds on.
pub type PathSpec = mptlab_setup::Duplex;

#[derive(Clone, Debug)]
pub struct TopologyOptions {
    pub shape: Shape,
    /// Number of emulated paths (1..=9; `Direct` needs exactly 1).
    pub paths: usize,
    /// MTU of the TUN devices.
    pub mtu: u32,
    /// `Shape::Core` only: the core-server link is a TUN pair bridged by
    /// the emulator (direction names `server.up` / `server.down`, shaped by
    /// the `server` spec of `start_emulator_with_server`) instead of a veth.
    pub emulate_server_link: bool,
}

impl TopologyOptions {
    /// Seed 000: two paths through a core router.
    pub fn seed000() -> Self {
        TopologyOptions {
            shape: Shape::Core,
            paths: 2,
            mtu: 1500,
            emulate_server_link: false,
        }
    }

    /// Two namespaces joined by one emulated link.
    pub fn direct() -> Self {
        TopologyOptions {
            shape: Shape::Direct,
            paths: 1,
            mtu: 1500,
            emulate_server_link: false,
        }
    }
}

/// The TUN pair of one path: `client` side and the far (`core` or server) side.
#[derive(Clone, Debug)]
pub struct PathDevices {
    pub client: Arc<Tun>,
    pub far: Arc<Tun>,
}

/// A built topology. Dropping it removes its namespaces.
#[derive(Debug)]
pub struct Topology {
    pub prefix: String,
    pub shape: Shape,
    pub client_ns: String,
    pub core_ns: Option<String>,
    pub server_ns: String,
    /// Client address of each path, "10.i.0.2".
    pub client_addrs: Vec<String>,
    pub server_addr: String,
    pub paths: Vec<PathDevices>,
    /// The emulated core-server link (`emulate_server_link`): `client` is the
    /// core side, `far` the server side.
    pub server_link: Option<PathDevices>,
    pub mtu: u32,
    torn_down: bool,
}

/// Client address on path `i` (1-based).
pub fn client_addr(i: usize) -> String {
    format!("10.{i}.0.2")
}

pub const SERVER_ADDR: &str = "10.0.0.2";

fn tun_in(ns: &str, name: &str) -> io::Result<Arc<Tun>> {
    let n = name.to_string();
    let t = netns::in_netns(ns, move || Tun::create(&n))
        .map_err(|e| err(format!("create TUN {name} in {ns}: {e}")))?;
    Ok(Arc::new(t))
}

/// Namespace defaults applied before any device exists, so new devices inherit them.
fn prepare_ns(ns: &str, forward: bool) -> io::Result<()> {
    ip_in(ns, &["link", "set", "lo", "up"])?;
    netns::sysctl(ns, "net.mptcp.enabled", "1")?;
    // No IPv6 on the emulated devices: router solicitations and DAD probes
    // would cross the links and disturb packet counts.
    netns::sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")?;
    netns::sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")?;
    // Asymmetric paths are legitimate here; strict reverse-path filtering would drop them.
    netns::sysctl(ns, "net.ipv4.conf.all.rp_filter", "0")?;
    netns::sysctl(ns, "net.ipv4.conf.default.rp_filter", "0")?;
    if forward {
        netns::sysctl(ns, "net.ipv4.ip_forward", "1")?;
    }
    Ok(())
}

fn up_tun(ns: &str, dev: &str, addr_cidr: &str, mtu: u32) -> io::Result<()> {
    ip_in(ns, &["addr", "add", addr_cidr, "dev", dev])?;
    // A longer device queue than the TUN default (500): the emulator's model
    // is meant to be the only place packets queue or drop.
    ip_in(
        ns,
        &[
            "link",
            "set",
            dev,
            "mtu",
            &mtu.to_string(),
            "txqueuelen",
            "10000",
            "up",
        ],
    )
}

impl Topology {
    /// Build a topology (after removing leftovers of killed runs). On failure
    /// everything already created is removed and the error names the step
    /// that failed.
    pub fn build(opts: &TopologyOptions) -> io::Result<Topology> {
        netns::preflight()?;
        if opts.paths == 0 || opts.paths > 9 {
            return Err(err(format!("paths must be 1..=9, found {}", opts.paths)));
        }
        if opts.shape == Shape::Direct && opts.paths != 1 {
            return Err(err("the direct shape has exactly one path"));
        }
        if !(576..=65535).contains(&opts.mtu) {
            return Err(err(format!("mtu must be 576..=65535, found {}", opts.mtu)));
        }
        // Leftovers of killed runs (dead pids only; never another live run's).
        if let Err(e) = cleanup::cleanup_stale() {
            eprintln!("mptlab-emu: {e}");
        }
        let prefix = cleanup::run_prefix();
        let mut t = Topology {
            client_ns: format!("{prefix}c"),
            core_ns: (opts.shape == Shape::Core).then(|| format!("{prefix}r")),
            server_ns: format!("{prefix}s"),
            prefix,
            shape: opts.shape,
            client_addrs: (1..=opts.paths).map(client_addr).collect(),
            server_addr: SERVER_ADDR.into(),
            paths: Vec::new(),
            server_link: None,
            mtu: opts.mtu,
            torn_down: false,
        };
        // On error, `t` is dropped and its Drop removes the namespaces.
        t.build_inner(opts)?;
        Ok(t)
    }

    fn build_inner(&mut self, opts: &TopologyOptions) -> io::Result<()> {
        let c = self.client_ns.clone();
        let s = self.server_ns.clone();
        netns::add(&c)?;
        netns::add(&s)?;
        prepare_ns(&c, false)?;
        prepare_ns(&s, false)?;
        let far = match &self.core_ns {
            Some(r) => {
                netns::add(r)?;
                prepare_ns(r, true)?;
                if opts.emulate_server_link {
                    let core = tun_in(r, "srv")?;
                    let server = tun_in(&s, "srv")?;
                    up_tun(r, "srv", "10.0.0.1/24", opts.mtu)?;
                    up_tun(&s, "srv", "10.0.0.2/24", opts.mtu)?;
                    self.server_link = Some(PathDevices {
                        client: core,
                        far: server,
                    });
                } else {
                    ip_in(
                        r,
                        &[
                            "link", "add", "srv", "type", "veth", "peer", "name", "srv", "netns",
                            &s,
                        ],
                    )?;
                    ip_in(r, &["addr", "add", "10.0.0.1/24", "dev", "srv"])?;
                    ip_in(r, &["link", "set", "srv", "up"])?;
                    ip_in(&s, &["addr", "add", "10.0.0.2/24", "dev", "srv"])?;
                    ip_in(&s, &["link", "set", "srv", "up"])?;
                }
                ip_in(
                    &s,
                    &["route", "add", "default", "via", "10.0.0.1", "dev", "srv"],
                )?;
                r.clone()
            }
            None => s.clone(),
        };
        for i in 1..=opts.paths {
            let dev = format!("p{i}");
            let client = tun_in(&c, &dev)?;
            let farside = tun_in(&far, &dev)?;
            up_tun(&c, &dev, &format!("10.{i}.0.2/24"), opts.mtu)?;
            match self.shape {
                Shape::Core => up_tun(&far, &dev, &format!("10.{i}.0.1/24"), opts.mtu)?,
                Shape::Direct => {
                    up_tun(&far, &dev, "10.0.0.2/24", opts.mtu)?;
                    // TUN is point-to-point: a device route needs no gateway or ARP.
                    ip_in(&far, &["route", "add", "default", "dev", &dev])?;
                }
            }
            let table = i.to_string();
            let src = client_addr(i);
            ip_in(
                &c,
                &["route", "add", "default", "dev", &dev, "table", &table],
            )?;
            ip_in(
                &c,
                &[
                    "rule",
                    "add",
                    "from",
                    &src,
                    "table",
                    &table,
                    "priority",
                    &(100 + i).to_string(),
                ],
            )?;
            if i == 1 {
                ip_in(&c, &["route", "add", "default", "dev", &dev, "src", &src])?;
            }
            self.paths.push(PathDevices {
                client,
                far: farside,
            });
        }
        Ok(())
    }

    /// Every namespace of this topology.
    pub fn namespaces(&self) -> Vec<String> {
        let mut v = vec![self.client_ns.clone()];
        v.extend(self.core_ns.clone());
        v.push(self.server_ns.clone());
        v
    }

    /// Emulator directions for `paths` (one `PathSpec` per built path): for
    /// path i, "path<i>.up" reads the client TUN and writes the far one,
    /// "path<i>.down" the reverse. Loss streams are the simulator's own for the
    /// same link direction (`link_stream`): the k-th packet a direction admits
    /// gets the same loss draw in both (docs/validation.md, decision level).
    pub fn directions(&self, paths: &[PathSpec], seed: u64) -> io::Result<Vec<DirectionSpec>> {
        if paths.len() != self.paths.len() {
            return Err(err(format!(
                "{} path specs for a topology with {} paths",
                paths.len(),
                self.paths.len()
            )));
        }
        let mut v = Vec::new();
        for (i, (spec, devs)) in paths.iter().zip(&self.paths).enumerate() {
            let n = i + 1;
            v.push(DirectionSpec {
                name: format!("path{n}.up"),
                ingress: devs.client.clone(),
                egress: devs.far.clone(),
                params: spec.up.clone(),
                rng: link_stream(seed, &format!("path{n}"), true),
            });
            v.push(DirectionSpec {
                name: format!("path{n}.down"),
                ingress: devs.far.clone(),
                egress: devs.client.clone(),
                params: spec.down.clone(),
                rng: link_stream(seed, &format!("path{n}"), false),
            });
        }
        Ok(v)
    }

    /// Start the emulator on every path.
    pub fn start_emulator(
        &self,
        paths: &[PathSpec],
        seed: u64,
        opts: EmuOptions,
    ) -> io::Result<Emulator> {
        if self.server_link.is_some() {
            return Err(err(
                "this topology emulates the server link: use start_emulator_with_server",
            ));
        }
        let opts = EmuOptions {
            mtu: self.mtu as usize,
            ..opts
        };
        Emulator::start(self.directions(paths, seed)?, opts, Clock::start())
    }

    /// Start the emulator on every path and on the emulated server link
    /// (`server.up` is core to server, i.e. the client's upstream direction;
    /// loss streams the simulator's `server` link's, see `link_stream`).
    pub fn start_emulator_with_server(
        &self,
        paths: &[PathSpec],
        server: &PathSpec,
        seed: u64,
        opts: EmuOptions,
    ) -> io::Result<Emulator> {
        let mut dirs = self.directions(paths, seed)?;
        if let Some(devs) = &self.server_link {
            dirs.push(DirectionSpec {
                name: "server.up".into(),
                ingress: devs.client.clone(),
                egress: devs.far.clone(),
                params: server.up.clone(),
                rng: link_stream(seed, "server", true),
            });
            dirs.push(DirectionSpec {
                name: "server.down".into(),
                ingress: devs.far.clone(),
                egress: devs.client.clone(),
                params: server.down.clone(),
                rng: link_stream(seed, "server", false),
            });
        }
        let opts = EmuOptions {
            mtu: self.mtu as usize,
            ..opts
        };
        Emulator::start(dirs, opts, Clock::start())
    }

    /// Basic in-kernel MPTCP path-manager setup for seed 000: the client
    /// announces every extra address as a subflow endpoint, both sides accept
    /// as many subflows as there are paths.
    pub fn configure_mptcp(&self) -> io::Result<()> {
        let n = self.paths.len().to_string();
        for ns in [&self.client_ns, &self.server_ns] {
            ip_in(
                ns,
                &[
                    "mptcp",
                    "limits",
                    "set",
                    "subflow",
                    &n,
                    "add_addr_accepted",
                    &n,
                ],
            )?;
        }
        for i in 2..=self.paths.len() {
            let dev = format!("p{i}");
            ip_in(
                &self.client_ns,
                &[
                    "mptcp",
                    "endpoint",
                    "add",
                    &client_addr(i),
                    "dev",
                    &dev,
                    "subflow",
                ],
            )?;
        }
        Ok(())
    }

    /// Remove the namespaces (idempotent). Stop the emulator first, or its
    /// writes fail once the devices are gone.
    pub fn teardown(&mut self) -> io::Result<()> {
        if self.torn_down {
            return Ok(());
        }
        self.torn_down = true;
        // Close our TUN descriptors (the emulator may still hold clones).
        self.paths.clear();
        self.server_link = None;
        cleanup::remove_prefix(&self.prefix)
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            eprintln!("mptlab-emu: teardown of {}: {e}", self.prefix);
        }
    }
}
