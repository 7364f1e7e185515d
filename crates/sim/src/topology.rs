//! Topology presets, built from concrete (already sampled) link parameters.
//!
//! `two_path` is seed 000's Fig. 5: a client with two access paths and a
//! server behind one shared link:
//!
//! ```text
//!             LAN            path 1 (e.g. WLAN)
//!   client ------- ap1 ------------------------+
//!     |                                         core ---- server
//!     +------- ap2 ----------------------------+   server link
//!             LAN            path 2 (e.g. 3G)
//! ```
//!
//! The path characteristics (rate, delay, loss, queue) sit on the ap_i--core
//! links, so background hosts attached to ap_i (client side) and to core
//! (server side) share exactly the bottleneck the foreground flow sees. The
//! LAN and server links are fast and short and never the bottleneck.
//! Directions: "up" is client -> server, "down" is server -> client.

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::packet::{addr, Addr};
use mptlab_core::time::US;

use crate::network::{LinkSpec, NodeId, NodeKind, NodeSpec, TopologySpec};

/// Parameters of one bidirectional link (drawn by mptlab-setup).
pub use mptlab_setup::Duplex;

/// A fast local link (1 Gbit/s, 10 us, 1000-packet queue).
pub fn lan() -> Duplex {
    Duplex::symmetric(LinkParams::new(
        1_000_000_000,
        10 * US,
        QueueLimit::Packets(1000),
    ))
}

/// Where things are in a built topology.
#[derive(Clone, Debug)]
pub struct Layout {
    pub client: NodeId,
    pub server: NodeId,
    /// Client address on each access path, in path order.
    pub client_addrs: Vec<Addr>,
    pub server_addr: Addr,
    /// Every server address (multi-homed servers of explicit topologies),
    /// `server_addr` first.
    pub server_addrs: Vec<Addr>,
    /// Link names of the access paths, in path order.
    pub path_links: Vec<String>,
    /// Background hosts on the client side of each path, and their addresses.
    pub bg_clients: Vec<(NodeId, Addr)>,
    pub bg_server: Option<(NodeId, Addr)>,
}

fn host(name: &str) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        kind: NodeKind::Host,
    }
}

fn router(name: &str) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        kind: NodeKind::Router,
    }
}

fn link(
    name: &str,
    a: NodeId,
    b: NodeId,
    a_addr: Option<Addr>,
    b_addr: Option<Addr>,
    d: &Duplex,
) -> LinkSpec {
    // a is on the client side, so a->b is "up".
    LinkSpec {
        name: name.into(),
        a,
        b,
        a_addr,
        b_addr,
        ab: d.up.clone(),
        ba: d.down.clone(),
    }
}

/// Client address on access path `i` (0-based): 10.(i+1).0.2.
pub fn client_addr(i: usize) -> Addr {
    addr(10, (i + 1) as u8, 0, 2)
}

pub const SERVER_ADDR: Addr = addr(10, 0, 0, 2);
pub const BG_SERVER_ADDR: Addr = addr(10, 0, 1, 2);

/// Background client on path `i`: 10.(i+1).1.2.
pub fn bg_client_addr(i: usize) -> Addr {
    addr(10, (i + 1) as u8, 1, 2)
}

/// A client with `paths.len()` access paths (seed 000 uses two), a shared
/// server link, and optionally background hosts on every path.
pub fn multi_path(
    paths: &[Duplex],
    server_link: &Duplex,
    background: bool,
) -> (TopologySpec, Layout) {
    let mut t = TopologySpec::default();
    t.nodes.push(host("client"));
    t.nodes.push(router("core"));
    t.nodes.push(host("server"));
    let (client, core, server) = (0, 1, 2);
    let mut layout = Layout {
        client,
        server,
        client_addrs: Vec::new(),
        server_addr: SERVER_ADDR,
        server_addrs: vec![SERVER_ADDR],
        path_links: Vec::new(),
        bg_clients: Vec::new(),
        bg_server: None,
    };
    t.links.push(link(
        "server",
        core,
        server,
        None,
        Some(SERVER_ADDR),
        server_link,
    ));
    for (i, p) in paths.iter().enumerate() {
        let ap = t.nodes.len();
        t.nodes.push(router(&format!("ap{}", i + 1)));
        let ca = client_addr(i);
        t.links.push(link(
            &format!("lan{}", i + 1),
            client,
            ap,
            Some(ca),
            None,
            &lan(),
        ));
        let name = format!("path{}", i + 1);
        t.links.push(link(&name, ap, core, None, None, p));
        layout.client_addrs.push(ca);
        layout.path_links.push(name);
        if background {
            let bg = t.nodes.len();
            t.nodes.push(host(&format!("bg{}", i + 1)));
            t.links.push(link(
                &format!("bglan{}", i + 1),
                bg,
                ap,
                Some(bg_client_addr(i)),
                None,
                &lan(),
            ));
            layout.bg_clients.push((bg, bg_client_addr(i)));
        }
    }
    if background {
        let bgs = t.nodes.len();
        t.nodes.push(host("bgserver"));
        t.links.push(link(
            "bgserver",
            core,
            bgs,
            None,
            Some(BG_SERVER_ADDR),
            &lan(),
        ));
        layout.bg_server = Some((bgs, BG_SERVER_ADDR));
    }
    (t, layout)
}

/// Client and server joined by one link (for single-path reference runs).
pub fn single_link(l: &Duplex) -> (TopologySpec, Layout) {
    let mut t = TopologySpec::default();
    t.nodes.push(host("client"));
    t.nodes.push(host("server"));
    let ca = client_addr(0);
    t.links
        .push(link("path1", 0, 1, Some(ca), Some(SERVER_ADDR), l));
    let layout = Layout {
        client: 0,
        server: 1,
        client_addrs: vec![ca],
        server_addr: SERVER_ADDR,
        server_addrs: vec![SERVER_ADDR],
        path_links: vec!["path1".into()],
        bg_clients: Vec::new(),
        bg_server: None,
    };
    (t, layout)
}
