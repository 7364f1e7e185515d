//! The `clients` preset (`[population]`): its resolved form, its address
//! plan and its port plan. The simulator builds its hosts from these
//! functions, and the tests check the plan on them, so what is tested is
//! what runs.
//!
//! Address plan (IPv4): path k's interface (k = 0, 1, 2) of client i is
//! host number i + 1 of the /10 block 10.(64 (k + 1)).0.0, so each path has
//! 2^22 - 2 client addresses and a client never shares an address with
//! another client or another path. Server j is host j + 1 of 10.1.0.0/16.
//! Routers have no addresses.
//!
//! Port plan: every client has its own addresses, hence its own port space.
//! Its connection j takes the block `[40000 + j s, 40000 + (j + 1) s)` of
//! `s` ports (the port stride): the connection's own port first, then one
//! port per additional MPTCP subflow (`s` = the most subflows its path
//! manager opens), so no two 5-tuples of a run are equal. Servers listen on
//! port 80.

use std::net::Ipv4Addr;

use crate::types::Transport;
use crate::{Link, PathManager, Protocol};

/// Client access paths of the `clients` preset (one /10 block each).
pub const MAX_PATHS: usize = 3;
/// Client addresses per path: host numbers 1 ..= 2^22 - 2 of a /10.
pub const ADDRESSES_PER_PATH: u64 = (1 << 22) - 2;
/// Server addresses: host numbers 1 ..= 2^16 - 2 of 10.1.0.0/16.
pub const MAX_SERVERS: u32 = (1 << 16) - 2;
/// Clients of one run: every client is a host with its endpoints, about
/// 4-8 KB when idle (docs/performance.md), so 10^6 clients need GBs.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// Access routers per path: the routes take one breadth-first search per
/// router (`mptlab_sim::routes`), work that grows with its square.
pub const MAX_ROUTERS_PER_PATH: u64 = 4096;
/// The first client port (as the single-client presets).
pub const FIRST_PORT: u32 = 40000;
/// The port servers listen on.
pub const SERVER_PORT: u16 = 80;

/// `[population]`, resolved (links with profiles applied).
#[derive(Clone, Debug, PartialEq)]
pub struct Population {
    pub clients: u32,
    /// Per path: clients per access router.
    pub clients_per_router: Vec<u32>,
    /// Per path: the uplink of each access router to the core router.
    pub router_links: Vec<Link>,
    pub servers: u32,
    pub core_link: Link,
    pub start_spread_s: f64,
    pub per_connection_rows: bool,
}

impl Population {
    /// Access routers of path `k` (0-based).
    pub fn routers(&self, k: usize) -> u32 {
        self.clients.div_ceil(self.clients_per_router[k])
    }
}

/// Address of path `k`'s interface (0-based) of client `i` (0-based).
pub fn client_addr(k: usize, i: u32) -> Result<Ipv4Addr, String> {
    if k >= MAX_PATHS {
        return Err(format!(
            "the clients address plan has {MAX_PATHS} paths (one 10.x.0.0/10 block each), path {} asked",
            k + 1
        ));
    }
    if i as u64 >= ADDRESSES_PER_PATH {
        return Err(format!(
            "the clients address plan has {ADDRESSES_PER_PATH} addresses per path (10.{}.0.0/10), client {} asked",
            64 * (k + 1),
            i as u64 + 1
        ));
    }
    let base = u32::from(Ipv4Addr::new(10, 64 * (k as u8 + 1), 0, 0));
    Ok(Ipv4Addr::from(base + 1 + i))
}

/// Address of server `j` (0-based).
pub fn server_addr(j: u32) -> Result<Ipv4Addr, String> {
    if j >= MAX_SERVERS {
        return Err(format!(
            "the clients address plan has {MAX_SERVERS} server addresses (10.1.0.0/16), server {} asked",
            j as u64 + 1
        ));
    }
    Ok(Ipv4Addr::from(
        u32::from(Ipv4Addr::new(10, 1, 0, 0)) + 1 + j,
    ))
}

/// The block address of path `k`'s client interfaces, for aggregate rows.
pub fn client_block(k: usize) -> String {
    format!("10.{}.0.0/10", 64 * (k + 1))
}

/// The server a client connects to (round robin over the farm).
pub fn server_of(client: u32, servers: u32) -> u32 {
    client % servers
}

/// Ports a connection takes: 1, or the most subflows an MPTCP connection
/// of `t` opens with `paths` client addresses and one server address.
pub fn port_stride(t: &Transport, paths: usize) -> u32 {
    if t.protocol != Protocol::Mptcp {
        return 1;
    }
    let o = &t.mptcp;
    match o.path_manager {
        PathManager::Fullmesh => paths as u32 * o.subflows_per_path,
        PathManager::Ndiffports | PathManager::Binder => o.ndiffports,
        PathManager::Default => 1,
        // an endpoint per client address, plus the initial subflow
        PathManager::Upstream => paths as u32 + 1,
    }
    .max(1)
}

/// The port block of a client's connection `j` (0-based): its first port
/// and the number of ports, or an error when it does not fit below 65536.
pub fn port_block(j: u32, stride: u32) -> Result<(u16, u32), String> {
    let first = FIRST_PORT as u64 + j as u64 * stride as u64;
    if first + stride as u64 - 1 > u16::MAX as u64 {
        return Err(format!(
            "a client has ports {FIRST_PORT}..=65535 for its connections, {stride} per connection (one per subflow): connection {} does not fit ({} at most)",
            j as u64 + 1,
            (u16::MAX as u32 + 1 - FIRST_PORT) / stride
        ));
    }
    Ok((first as u16, stride))
}

/// Whether `clients` clients with `paths` interfaces, `servers` servers
/// and `connections` connections per client of `stride` ports fit the
/// plan; the error says which part does not.
pub fn check_plan(
    clients: u32,
    paths: usize,
    servers: u32,
    connections: u32,
    stride: u32,
) -> Result<(), (&'static str, String)> {
    if paths == 0 || paths > MAX_PATHS {
        return Err((
            "topology.paths",
            format!("expected 1 to {MAX_PATHS} path profile names for preset \"clients\" (the address plan has a 10.x.0.0/10 block per path), found {paths}"),
        ));
    }
    if clients == 0 || clients > MAX_CLIENTS {
        return Err((
            "population.clients",
            format!(
                "expected 1 to {MAX_CLIENTS} clients (docs/scenario.md, limits), found {clients}"
            ),
        ));
    }
    client_addr(paths - 1, clients - 1).map_err(|e| ("population.clients", e))?;
    if servers == 0 {
        return Err((
            "population.servers",
            "expected at least 1 server, found 0".into(),
        ));
    }
    server_addr(servers - 1).map_err(|e| ("population.servers", e))?;
    if connections > 0 {
        port_block(connections - 1, stride).map_err(|e| ("transport.protocol", e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every 5-tuple of a 100,000-client MPTCP population (two paths,
    /// fullmesh: a subflow per client address; web: 6 connections per
    /// client) is distinct, and no address is used twice.
    #[test]
    fn address_and_port_plan_never_collide_at_100k_clients() {
        let t = Transport {
            protocol: Protocol::Mptcp,
            ..Transport::default()
        };
        let (clients, paths, servers, conns) = (100_000u32, 2usize, 64u32, 6u32);
        let stride = port_stride(&t, paths);
        assert_eq!(stride, 2);
        check_plan(clients, paths, servers, conns, stride).unwrap();
        let mut addrs = HashSet::new();
        for j in 0..servers {
            assert!(addrs.insert(server_addr(j).unwrap()));
        }
        let mut tuples = HashSet::new();
        for i in 0..clients {
            let sa = server_addr(server_of(i, servers)).unwrap();
            let ca: Vec<_> = (0..paths).map(|k| client_addr(k, i).unwrap()).collect();
            for a in &ca {
                assert!(addrs.insert(*a), "address {a} twice");
            }
            for j in 0..conns {
                let (first, n) = port_block(j, stride).unwrap();
                // subflow s leaves from address s mod paths on port first + s
                for s in 0..n {
                    let tuple = (ca[s as usize % paths], first + s as u16, sa, SERVER_PORT);
                    assert!(tuples.insert(tuple), "5-tuple {tuple:?} twice");
                }
            }
        }
        assert_eq!(
            tuples.len(),
            clients as usize * conns as usize * stride as usize
        );
        assert_eq!(addrs.len(), clients as usize * paths + servers as usize);
        // the plan stays inside 10/8 and off the single-client presets'
        // addresses (10.0.x.x, 10.1..3.x.x for paths, 10.0.1.2 background)
        for a in &addrs {
            assert_eq!(a.octets()[0], 10);
        }
        assert_eq!(client_addr(0, 0).unwrap(), Ipv4Addr::new(10, 64, 0, 1));
        assert_eq!(
            client_addr(1, 99_999).unwrap(),
            Ipv4Addr::new(10, 129, 134, 160)
        );
    }

    /// A plan too small for what is asked is an error naming the key,
    /// never a wrap onto another client's address or port.
    #[test]
    fn a_mis_sized_plan_is_an_error() {
        let last = (ADDRESSES_PER_PATH - 1) as u32;
        assert!(client_addr(2, last).is_ok());
        let e = client_addr(0, last + 1).unwrap_err();
        assert!(e.contains("4194302 addresses per path"), "{e}");
        assert!(client_addr(3, 0).is_err());
        assert!(server_addr(MAX_SERVERS - 1).is_ok());
        let (k, e) = check_plan(10, 2, MAX_SERVERS + 1, 1, 1).unwrap_err();
        assert_eq!(k, "population.servers");
        assert!(e.contains("65534 server addresses"), "{e}");
        let (k, _) = check_plan(MAX_CLIENTS + 1, 2, 1, 1, 1).unwrap_err();
        assert_eq!(k, "population.clients");
        let (k, _) = check_plan(10, 4, 1, 1, 1).unwrap_err();
        assert_eq!(k, "topology.paths");
        // ports: 25,536 per client; 12,768 connections of 2 ports fit, one more does not
        assert!(check_plan(10, 2, 1, 12_768, 2).is_ok());
        let (k, e) = check_plan(10, 2, 1, 12_769, 2).unwrap_err();
        assert_eq!(k, "transport.protocol");
        assert!(
            e.contains("connection 12769 does not fit (12768 at most)"),
            "{e}"
        );
        assert_eq!(port_block(12_767, 2).unwrap(), (65534, 2));
    }
}
