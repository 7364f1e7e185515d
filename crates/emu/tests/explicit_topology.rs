//! Seed 003's explicit multi-ISP topology as namespaces and emulated links:
//! every client address reaches every server address over the links the
//! simulator's routing picks, and nothing is left behind.
//! Needs root, TUN and MPTCP (skipped with a printed reason otherwise).

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Instant;

use mptlab_emu::clock::Clock;
use mptlab_emu::explicit::{explicit_links, router_routes, ExplicitTopology};
use mptlab_emu::sock::{self, SockOpts};
use mptlab_emu::{netns, EmuOptions, Emulator};
use mptlab_scenario::Scenario;

fn seed003(name: &str) -> Scenario {
    let p = format!(
        "{}/../../scenarios/seed003/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    Scenario::from_file(&p).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn routes_follow_the_simulators_shortest_paths() {
    let s = seed003("udehu.toml");
    let mptlab_scenario::Topology::Explicit { nodes, links, .. } = &s.topology else {
        panic!()
    };
    let r = router_routes(nodes, links).unwrap();
    let name = |u: usize| nodes[u].name.as_str();
    // inet reaches HU's second address (10.102.0.2) over the CnUnicom long haul (link 8).
    assert!(
        r.iter()
            .any(|(u, a, k)| name(*u) == "inet" && a == "10.102.0.2" && *k == 7),
        "{r:?}"
    );
    // and UDE's Versatel address (10.2.0.2, link 2) through UDE-Versatel's uplink (link 6).
    assert!(
        r.iter()
            .any(|(u, a, k)| name(*u) == "inet" && a == "10.2.0.2" && *k == 5),
        "{r:?}"
    );
}

#[test]
fn seed003_2x2_every_address_pair_connects_over_its_emulated_path() {
    if !netns::is_root() || !std::path::Path::new("/dev/net/tun").exists() {
        eprintln!("skipping seed003_2x2_every_address_pair_connects_over_its_emulated_path: needs root and /dev/net/tun");
        return;
    }
    let s = seed003("udehu.toml");
    let (ducts, drawn) = explicit_links(&s, s.run_seed(0)).unwrap();
    let prefix;
    {
        let topo = ExplicitTopology::build(&s.topology, 1500).unwrap();
        prefix = topo.prefix.clone();
        let emu = Emulator::start(
            topo.directions(&ducts, 1).unwrap(),
            EmuOptions::default(),
            Clock::start(),
        )
        .unwrap();
        let server = topo.server_ns.clone();
        let mut listeners = Vec::new();
        for a in &topo.server_addrs {
            let sa = SocketAddrV4::new(a.parse().unwrap(), 8080);
            let so = SockOpts::default();
            listeners.push(netns::in_netns(&server, move || sock::listen(&so, sa)).unwrap());
        }
        // One-way delay of the long hauls as drawn (links 7 and 8).
        let haul = |k: usize| {
            drawn
                .iter()
                .find(|(n, _)| n == &format!("link{k}.delay_ms"))
                .map(|x| x.1)
                .unwrap_or(0.0)
        };
        for c in &topo.client_addrs {
            for (j, a) in topo.server_addrs.iter().enumerate() {
                let so = SockOpts::default();
                let fd =
                    netns::in_netns(&topo.client_ns, move || sock::stream_socket(&so)).unwrap();
                let t0 = Instant::now();
                let src: Ipv4Addr = c.parse().unwrap();
                sock::connect(fd, Some(src), SocketAddrV4::new(a.parse().unwrap(), 8080))
                    .unwrap_or_else(|e| panic!("{c} -> {a}: {e}"));
                let rtt_ms = t0.elapsed().as_secs_f64() * 1e3;
                // Handshake RTT >= twice the long haul to that server address.
                let min = 2.0 * haul(7 + j);
                assert!(
                    rtt_ms >= min,
                    "{c} -> {a}: connect took {rtt_ms:.1} ms < {min:.1} ms"
                );
            }
        }
        let reps = emu.stop();
        // Each long haul carried packets in both directions.
        for k in [7, 8] {
            for d in ["up", "down"] {
                let n = format!("link{k}.{d}");
                let r = reps.iter().find(|r| r.name == n).unwrap();
                assert!(r.stats.packets_delivered > 0, "{n}: {:?}", r.stats);
            }
        }
    }
    let left: Vec<String> = netns::list()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert!(left.is_empty(), "namespaces left: {left:?}");
}
