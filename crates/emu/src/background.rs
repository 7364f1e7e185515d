//! Background traffic on the kernel (`[background]`): background hosts in
//! their own namespaces whose packets cross the same emulated access links,
//! and so the same `LinkModel` queues, as the foreground's.
//!
//! The simulator's topology (`mptlab_sim::topology::multi_path`) attaches a
//! background host `bg<i>` to the access router `ap<i>` before path i's
//! link, and a background server `bgserver` to the core router, both over
//! fast LAN links; the server link to the foreground server is not on the
//! background's way. Here the emulated path i starts at the client
//! namespace's TUN device `p<i>` (ap<i> and the LAN are folded into it,
//! topology.rs), so the client namespace also plays ap<i> for the
//! background:
//!
//! ```text
//!  bg ns <p>b<i>          client ns <p>c            core ns <p>r           bg server ns <p>bs
//!  eth0 10.i.1.2 --veth-- bg<i> 10.i.1.1
//!                         p<i> ==[emu path<i>]==    p<i>
//!                         (ip_forward, rule        bgs 10.0.1.1 --veth--  eth0 10.0.1.2
//!                          from 10.i.1.2 table i)  (10.i.1.0/24 dev p<i>)
//! ```
//!
//! Background packets enter the client namespace on `bg<i>`, are forwarded
//! by source address (`ip rule from 10.i.1.2 table i`, table i's default
//! route is `dev p<i>`) into the very TUN device the foreground's path-i
//! packets take, and the emulator's `path<i>.up` direction queues both in
//! one model, in arrival order; `path<i>.down` carries the replies back.
//! The veths are unshaped (the simulator's 1 Gbit/s, 10 us LANs are
//! folded, as the foreground's are).
//!
//! Flows, labels, order and the UDP on/off schedules come from
//! `mptlab_setup::background::flows`, the function the simulator builds
//! its background from (same random streams). As in the simulator
//! (`runner::background`): TCP flows are saturated single-path TCP with
//! `background.tcp_cc`, Nagle off, the scenario's socket buffers and the
//! kernel's defaults otherwise (the simulator's `TcpConfig::default`:
//! initial window 10, RTO min 200 ms, SACK, RACK-TLP); they connect at
//! `background.start_s`. UDP flows send each frame as datagrams of at most
//! 1472 bytes (`MAX_UDP_PAYLOAD`), in the foreground's direction.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use mptlab_core::time::{secs, Nanos};
use mptlab_core::udp::MAX_UDP_PAYLOAD;
use mptlab_results::rows::{self, CounterCells};
use mptlab_results::summary as metric;
use mptlab_scenario as sc;
use mptlab_setup::background::{self as bg, Kind};
use mptlab_setup::traffic::Schedule;

use crate::failover::{connect, sleep_until_or_stop};
use crate::netns::{self, ip_in};
use crate::sock::{self, SockOpts, Stream};
use crate::topology::{PathSpec, Topology};

/// The background server's address (`mptlab_sim::topology::BG_SERVER_ADDR`).
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 2);
/// First port of the background TCP listeners (one per flow) and UDP sockets.
const TCP_PORT: u16 = 5000;
const UDP_PORT: u16 = 6000;
/// Background TCP flows a run may have: two threads each.
pub const MAX_TCP_FLOWS: u32 = 64;
/// Background UDP flows a run may have (two sockets each, two threads in all).
pub const MAX_UDP_FLOWS: usize = 512;

/// The background host of access path `i` (1-based): 10.i.1.2
/// (`mptlab_sim::topology::bg_client_addr`).
pub fn host_addr(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, i as u8, 1, 2)
}

/// Access paths (1-based) that carry background traffic.
pub fn paths(s: &sc::Scenario) -> Vec<usize> {
    let n = s.topology.num_paths();
    (1..=n)
        .filter(|&i| s.background.paths.is_empty() || s.background.paths.contains(&(i as u32)))
        .collect()
}

/// What emulation refuses of `[background]` (checked by `run::supported`).
pub fn supported(s: &sc::Scenario) -> Result<(), String> {
    if !s.background.enabled {
        return Ok(());
    }
    if matches!(s.topology, sc::Topology::Explicit { .. }) {
        return Err("background traffic needs a topology preset (explicit topologies have no background hosts, as in the simulator)".into());
    }
    if s.background.tcp_cc.is_coupled() {
        return Err(format!(
            "background.tcp_cc = \"{}\": background flows are single-path TCP (newreno or cubic)",
            s.background.tcp_cc
        ));
    }
    let tcp = s.background.tcp_flows * paths(s).len() as u32;
    if tcp > MAX_TCP_FLOWS {
        return Err(format!(
            "background.tcp_flows: {tcp} background TCP flows in all; emulation runs at most {MAX_TCP_FLOWS} (two threads each)"
        ));
    }
    Ok(())
}

/// Namespace defaults of a background host: loopback up, no IPv6, no
/// reverse-path filter, no cached TCP metrics between runs; TCP otherwise
/// at the kernel's defaults (the simulator's `TcpConfig::default`).
fn prepare_host(ns: &str) -> Result<(), String> {
    let e = |e: std::io::Error| e.to_string();
    netns::add(ns).map_err(e)?;
    ip_in(ns, &["link", "set", "lo", "up"]).map_err(e)?;
    for (k, v) in [
        ("net.ipv6.conf.all.disable_ipv6", "1"),
        ("net.ipv6.conf.default.disable_ipv6", "1"),
        ("net.ipv4.conf.all.rp_filter", "0"),
        ("net.ipv4.conf.default.rp_filter", "0"),
        ("net.ipv4.tcp_no_metrics_save", "1"),
    ] {
        netns::sysctl(ns, k, v).map_err(e)?;
    }
    Ok(())
}

/// A veth pair `a_dev` in `a_ns` (address `a_cidr`) -- `eth0` in `b_ns`
/// (address `b_cidr`, default route via `gw`), both with MTU `mtu`.
fn veth(
    a_ns: &str,
    a_dev: &str,
    a_cidr: &str,
    b_ns: &str,
    b_cidr: &str,
    gw: &str,
    mtu: u32,
) -> Result<(), String> {
    let m = mtu.to_string();
    let steps: [(&str, Vec<&str>); 6] = [
        (
            a_ns,
            vec![
                "link", "add", a_dev, "type", "veth", "peer", "name", "eth0", "netns", b_ns,
            ],
        ),
        (a_ns, vec!["addr", "add", a_cidr, "dev", a_dev]),
        (a_ns, vec!["link", "set", a_dev, "mtu", &m, "up"]),
        (b_ns, vec!["addr", "add", b_cidr, "dev", "eth0"]),
        (b_ns, vec!["link", "set", "eth0", "mtu", &m, "up"]),
        (
            b_ns,
            vec!["route", "add", "default", "via", gw, "dev", "eth0"],
        ),
    ];
    for (ns, a) in steps {
        ip_in(ns, &a).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The background namespaces of a run. They carry the topology's prefix,
/// so the topology's teardown (and `cleanup::cleanup_stale` after a kill)
/// removes them with the others.
pub struct Hosts {
    /// (access path 1-based, namespace) of every background host.
    pub hosts: Vec<(usize, String)>,
    pub server_ns: String,
}

impl Hosts {
    /// Build the background hosts of `s` on a preset topology `t`.
    pub fn build(t: &Topology, s: &sc::Scenario) -> Result<Hosts, String> {
        let core = t
            .core_ns
            .as_ref()
            .ok_or("background hosts need the core router")?;
        let mtu = s.transport.mtu_bytes;
        let server_ns = format!("{}bs", t.prefix);
        prepare_host(&server_ns)?;
        veth(
            core,
            "bgs",
            "10.0.1.1/24",
            &server_ns,
            "10.0.1.2/24",
            "10.0.1.1",
            mtu,
        )?;
        let mut hosts = Vec::new();
        let e = |e: std::io::Error| e.to_string();
        for i in paths(s) {
            let ns = format!("{}b{i}", t.prefix);
            prepare_host(&ns)?;
            let dev = format!("bg{i}");
            veth(
                &t.client_ns,
                &dev,
                &format!("10.{i}.1.1/24"),
                &ns,
                &format!("{}/24", host_addr(i)),
                &format!("10.{i}.1.1"),
                mtu,
            )?;
            // The client namespace forwards the background host's packets
            // into path i's TUN device (table i: `default dev p<i>`).
            ip_in(
                &t.client_ns,
                &[
                    "rule",
                    "add",
                    "from",
                    &host_addr(i).to_string(),
                    "table",
                    &i.to_string(),
                    "priority",
                    &(200 + i).to_string(),
                ],
            )
            .map_err(e)?;
            // The core router sends replies back over path i.
            ip_in(
                core,
                &[
                    "route",
                    "add",
                    &format!("10.{i}.1.0/24"),
                    "dev",
                    &format!("p{i}"),
                ],
            )
            .map_err(e)?;
            hosts.push((i, ns));
        }
        netns::sysctl(&t.client_ns, "net.ipv4.ip_forward", "1").map_err(e)?;
        Ok(Hosts { hosts, server_ns })
    }

    fn ns_of(&self, path: usize) -> Result<&str, String> {
        self.hosts
            .iter()
            .find(|h| h.0 == path)
            .map(|h| h.1.as_str())
            .ok_or_else(|| format!("no background host on path {path}"))
    }
}

/// One background flow's sockets, made in their namespaces before the run.
enum Sockets {
    Tcp {
        listener: TcpListener,
        client: std::os::fd::OwnedFd,
    },
    Udp {
        client: UdpSocket,
        server: UdpSocket,
        /// The frames up to the end of the run (absolute times since the origin).
        frames: Vec<(Nanos, u32)>,
    },
}

struct FlowState {
    label: String,
    path: usize,
    tcp: bool,
    /// Bytes the receiving application read (TCP) or datagram payload
    /// bytes received (UDP).
    delivered: AtomicU64,
    /// The TCP listener's port.
    port: u16,
    /// UDP, per side (0 client, 1 server): [packets sent, bytes sent,
    /// packets received, bytes received].
    udp: [[AtomicU64; 4]; 2],
    /// Connected TCP streams: (client, server).
    streams: Mutex<(Option<TcpStream>, Option<TcpStream>)>,
}

/// A UDP flow's state, sending socket and frames (time since the origin, bytes).
type UdpSender = (Arc<FlowState>, UdpSocket, Vec<(Nanos, u32)>);

/// The background traffic of a run, ready to start.
pub struct Prepared {
    flows: Vec<(Arc<FlowState>, Sockets)>,
    server_sends: bool,
    start: Nanos,
}

/// Socket options of the background TCP flows (`runner::background`: Nagle
/// off, the scenario's buffers, `background.tcp_cc`).
fn tcp_opts(s: &sc::Scenario) -> SockOpts {
    SockOpts {
        stream: Stream::Tcp,
        cc: if s.background.tcp_cc == sc::CongestionControl::NewReno {
            "reno".into()
        } else {
            "cubic".into()
        },
        nodelay: true,
        sndbuf: s.transport.sndbuf_kib as usize * 1024,
        rcvbuf: s.transport.rcvbuf_kib as usize * 1024,
        quickack: false,
    }
}

impl Prepared {
    /// The flows of run `seed` over the drawn `links` (for the UDP flows'
    /// share of each path's rate in the data direction), with their sockets.
    pub fn new(
        s: &sc::Scenario,
        seed: u64,
        hosts: &Hosts,
        links: &[PathSpec],
        server_sends: bool,
    ) -> Result<Prepared, String> {
        let mut cap = |i: usize| -> Result<f64, String> {
            let d = links.get(i).ok_or("path link missing")?;
            Ok(bg::rate_bps(if server_sends { &d.down } else { &d.up }))
        };
        let list = bg::flows(s, seed, s.topology.num_paths(), &mut cap)?;
        let udp = list
            .iter()
            .filter(|f| matches!(f.kind, Kind::Udp(_)))
            .count();
        if udp > MAX_UDP_FLOWS {
            return Err(format!("background.udp_share_percent: {udp} background UDP flows in this run; emulation runs at most {MAX_UDP_FLOWS}"));
        }
        let end = secs(s.meta.duration_s);
        let so = tcp_opts(s);
        let mut flows = Vec::new();
        for (j, f) in list.into_iter().enumerate() {
            let path = f.path + 1;
            let ns = hosts.ns_of(path)?.to_string();
            let port_t = TCP_PORT + j as u16;
            let port_u = UDP_PORT + j as u16;
            let e = |e: std::io::Error| format!("background flow {}: {e}", f.label);
            let (tcp, sockets) = match f.kind {
                Kind::Tcp => {
                    let o = so.clone();
                    let a = SocketAddrV4::new(SERVER_ADDR, port_t);
                    let listener = netns::in_netns(&hosts.server_ns, move || sock::listen(&o, a))
                        .map_err(e)?;
                    let o = so.clone();
                    let client =
                        netns::in_netns(&ns, move || sock::stream_socket(&o)).map_err(e)?;
                    (true, Sockets::Tcp { listener, client })
                }
                Kind::Udp(mut sched) => {
                    let ca = SocketAddrV4::new(host_addr(path), port_u);
                    let sa = SocketAddrV4::new(SERVER_ADDR, port_u);
                    let client = netns::in_netns(&ns, move || {
                        let u = sock::udp_socket(ca)?;
                        u.connect(sa)?;
                        Ok(u)
                    })
                    .map_err(e)?;
                    let server = netns::in_netns(&hosts.server_ns, move || {
                        let u = sock::udp_socket(sa)?;
                        u.connect(ca)?;
                        Ok(u)
                    })
                    .map_err(e)?;
                    // The simulator's UdpApp sends every frame due up to the end of the run.
                    let mut frames = Vec::new();
                    while let Some((t, b)) = sched.next_message() {
                        if t > end {
                            break;
                        }
                        frames.push((t, b));
                    }
                    (
                        false,
                        Sockets::Udp {
                            client,
                            server,
                            frames,
                        },
                    )
                }
            };
            flows.push((
                Arc::new(FlowState {
                    label: f.label,
                    path,
                    tcp,
                    delivered: AtomicU64::new(0),
                    port: port_t,
                    udp: Default::default(),
                    streams: Mutex::new((None, None)),
                }),
                sockets,
            ));
        }
        Ok(Prepared {
            flows,
            server_sends,
            start: secs(s.background.start_s),
        })
    }

    /// Start every flow; times are relative to `origin` (the emulator's
    /// clock origin). Threads run until `stop`.
    pub fn start(self, origin: u64, stop: Arc<AtomicBool>) -> Running {
        let mut threads = Vec::new();
        let mut listeners = Vec::new();
        let mut udp_tx: Vec<UdpSender> = Vec::new();
        let mut udp_rx: Vec<(Arc<FlowState>, UdpSocket)> = Vec::new();
        let mut states = Vec::new();
        let snd = self.server_sends;
        let start = origin + self.start;
        for (st, sk) in self.flows {
            states.push(st.clone());
            match sk {
                Sockets::Tcp { listener, client } => {
                    let listener = Arc::new(listener);
                    listeners.push(listener.clone());
                    let (st2, stop2) = (st.clone(), stop.clone());
                    threads.push(std::thread::spawn(move || {
                        if let Ok((c, _)) = listener.accept() {
                            tcp_side(c, false, snd, &st2, &stop2);
                        }
                    }));
                    let (st2, stop2) = (st.clone(), stop.clone());
                    let src = host_addr(st.path);
                    threads.push(std::thread::spawn(move || {
                        sleep_until_or_stop(start, &stop2);
                        if stop2.load(Ordering::Relaxed) {
                            return;
                        }
                        let dst = SocketAddrV4::new(SERVER_ADDR, st2.port);
                        if let Ok(c) = connect(client, src, dst, &stop2) {
                            tcp_side(c, true, snd, &st2, &stop2);
                        }
                    }));
                }
                Sockets::Udp {
                    client,
                    server,
                    frames,
                } => {
                    let (tx, rx) = if snd {
                        (server, client)
                    } else {
                        (client, server)
                    };
                    udp_tx.push((st.clone(), tx, frames));
                    udp_rx.push((st, rx));
                }
            }
        }
        if !udp_tx.is_empty() {
            let stop2 = stop.clone();
            threads.push(std::thread::spawn(move || {
                udp_sender(udp_tx, origin, snd, &stop2)
            }));
            let stop2 = stop.clone();
            threads.push(std::thread::spawn(move || {
                udp_receiver(udp_rx, snd, &stop2)
            }));
        }
        Running {
            states,
            threads,
            listeners,
            stop,
        }
    }
}

/// One side of a background TCP flow: the sender writes until `stop`, the
/// receiver reads and counts.
fn tcp_side(c: TcpStream, client: bool, server_sends: bool, st: &FlowState, stop: &AtomicBool) {
    {
        let mut g = st.streams.lock().unwrap();
        let slot = if client { &mut g.0 } else { &mut g.1 };
        *slot = c.try_clone().ok();
    }
    let mut c = c;
    if client != server_sends {
        let buf = vec![0u8; 64 * 1024];
        while !stop.load(Ordering::Relaxed) {
            if c.write_all(&buf).is_err() {
                break;
            }
        }
    } else {
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            match c.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    st.delivered.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Every UDP frame of every flow in time order, each as datagrams of at
/// most `MAX_UDP_PAYLOAD` bytes (as the simulator's `UdpApp`).
fn udp_sender(flows: Vec<UdpSender>, origin: u64, server_sends: bool, stop: &AtomicBool) {
    let side = usize::from(server_sends);
    let mut all: Vec<(Nanos, usize, u32)> = Vec::new();
    for (j, f) in flows.iter().enumerate() {
        all.extend(f.2.iter().map(|&(t, b)| (t, j, b)));
    }
    all.sort_by_key(|x| (x.0, x.1));
    let buf = vec![0u8; MAX_UDP_PAYLOAD as usize];
    for (t, j, bytes) in all {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        sleep_until_or_stop(origin + t, stop);
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (st, u, _) = &flows[j];
        let mut left = bytes;
        for _ in 0..bytes.div_ceil(MAX_UDP_PAYLOAD).max(1) {
            let len = left.min(MAX_UDP_PAYLOAD);
            left -= len;
            if u.send(&buf[..len as usize]).is_ok() {
                st.udp[side][0].fetch_add(1, Ordering::Relaxed);
                st.udp[side][1].fetch_add(len as u64, Ordering::Relaxed);
            }
        }
    }
}

/// Receive every flow's datagrams until `stop` (one `poll` over all sockets).
fn udp_receiver(flows: Vec<(Arc<FlowState>, UdpSocket)>, server_sends: bool, stop: &AtomicBool) {
    let side = usize::from(!server_sends);
    for (_, u) in &flows {
        let _ = u.set_nonblocking(true);
    }
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let mut fds: Vec<libc::pollfd> = flows
            .iter()
            .map(|(_, u)| libc::pollfd {
                fd: u.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: fds is a valid array of pollfd.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 20) };
        for (k, p) in fds.iter().enumerate() {
            if p.revents == 0 {
                continue;
            }
            let (st, u) = &flows[k];
            while let Ok(n) = u.recv(&mut buf) {
                st.udp[side][2].fetch_add(1, Ordering::Relaxed);
                st.udp[side][3].fetch_add(n as u64, Ordering::Relaxed);
                st.delivered.fetch_add(n as u64, Ordering::Relaxed);
            }
        }
    }
}

/// Running background flows.
pub struct Running {
    states: Vec<Arc<FlowState>>,
    threads: Vec<JoinHandle<()>>,
    /// Kept open here until the threads are joined (`stop` shuts them down).
    listeners: Vec<Arc<TcpListener>>,
    stop: Arc<AtomicBool>,
}

/// One background flow as measured at the end of the run.
#[derive(Clone, Debug)]
pub struct Measure {
    pub label: String,
    pub protocol: &'static str,
    /// The access path (1-based).
    pub path: usize,
    pub delivered: u64,
    /// (client, server) counters and addresses; `None` when the side never
    /// connected (a TCP flow whose start lies after the end of the run).
    pub sides: [Option<(String, String, CounterCells)>; 2],
}

impl Running {
    /// The kernel's counters of every background connection (read while
    /// they are open) and the UDP flows' counts.
    pub fn measure(&self) -> Vec<Measure> {
        let sa = SERVER_ADDR.to_string();
        self.states
            .iter()
            .map(|st| {
                let ca = host_addr(st.path).to_string();
                let sides = if st.tcp {
                    let g = st.streams.lock().unwrap();
                    let one = |s: &Option<TcpStream>, l: &str, r: &str| {
                        s.as_ref().and_then(|s| {
                            sock::tcp_info(s.as_raw_fd())
                                .ok()
                                .map(|i| (l.to_string(), r.to_string(), crate::run::counters(&i)))
                        })
                    };
                    [one(&g.0, &ca, &sa), one(&g.1, &sa, &ca)]
                } else {
                    let c = |k: usize| {
                        let [ps, bs, pr, br] =
                            st.udp[k].each_ref().map(|a| a.load(Ordering::Relaxed));
                        CounterCells {
                            packets_sent: Some(ps),
                            data_packets_sent: Some(ps),
                            bytes_sent: Some(bs),
                            packets_received: Some(pr),
                            data_packets_received: Some(pr),
                            bytes_received: Some(br),
                            ..CounterCells::default()
                        }
                    };
                    [
                        Some((ca.clone(), sa.clone(), c(0))),
                        Some((sa.clone(), ca.clone(), c(1))),
                    ]
                };
                Measure {
                    label: st.label.clone(),
                    protocol: if st.tcp { "tcp" } else { "udp" },
                    path: st.path,
                    delivered: st.delivered.load(Ordering::Relaxed),
                    sides,
                }
            })
            .collect()
    }

    /// Stop: close the connections (wakes blocked readers and writers) and
    /// the listeners (wakes a pending accept), join the threads (at most 3 s).
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        for st in &self.states {
            let g = st.streams.lock().unwrap();
            for s in [&g.0, &g.1].into_iter().flatten() {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
        for l in &self.listeners {
            // SAFETY: a listening socket kept open by `self`; shutting it
            // down wakes a blocked accept (a flow that never connected).
            unsafe { libc::shutdown(l.as_raw_fd(), libc::SHUT_RDWR) };
        }
        let t0 = std::time::Instant::now();
        for h in self.threads {
            while !h.is_finished() && t0.elapsed() < Duration::from_secs(3) {
                std::thread::sleep(Duration::from_millis(5));
            }
            if h.is_finished() {
                let _ = h.join();
            }
        }
    }
}

/// The flows and paths rows of the background flows, numbered from
/// `first_flow` (after the foreground's, as the simulator creates them),
/// role `background`; throughput over `secs` seconds.
pub fn rows(
    ms: &[Measure],
    first_flow: u64,
    secs: f64,
) -> (Vec<rows::FlowRow>, Vec<rows::PathRow>) {
    let mut flows = Vec::new();
    let mut paths = Vec::new();
    for (j, m) in ms.iter().enumerate() {
        let fid = first_flow + j as u64;
        let mut total = CounterCells::default();
        for (k, side) in ["client", "server"].into_iter().enumerate() {
            let Some((l, r, c)) = &m.sides[k] else {
                continue;
            };
            total.add(c);
            let sent = c.bytes_sent.unwrap_or(0);
            let data = c.data_packets_sent.unwrap_or(0);
            paths.push(rows::PathRow {
                flow: fid,
                label: m.label.clone(),
                role: "background".into(),
                side: side.into(),
                path: m.path as u64,
                local_addr: l.clone(),
                remote_addr: r.clone(),
                // one path per side: all of it, or none when nothing was sent
                share_bytes: rows::share(sent, sent),
                share_packets: rows::share(data, data),
                counters: c.clone(),
            });
        }
        flows.push(rows::FlowRow {
            flow: fid,
            label: m.label.clone(),
            role: "background".into(),
            protocol: m.protocol.into(),
            bytes_delivered: m.delivered,
            throughput_mbit: metric::mbit_per_s(m.delivered, secs),
            messages_refused: 0,
            counters: total,
        });
    }
    (flows, paths)
}
