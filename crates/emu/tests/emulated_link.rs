//! End-to-end tests over real namespaces, TUN devices and the kernel stack.
//! They need root (CI runs them as root) and skip with a message otherwise.
//! Network traffic stays inside namespaces the tests create.
//!
//! Tests that measure timing or throughput run one at a time (a mutex): the
//! host has two cores and concurrent transfers would disturb each other.
//! Their upper bounds leave room for a loaded host (they check that delay,
//! rate and loss are applied, and never below the configured values);
//! precision is measured by `mptlab-linkemu bench`, not asserted here.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::loss::{LossModel, LossProcess};
use mptlab_core::time::{tx_time, MS};
use mptlab_core::SimRng;
use mptlab_emu::cleanup;
use mptlab_emu::netns::{self, in_netns};
use mptlab_emu::probe::Pinger;
use mptlab_emu::{EmuOptions, PathSpec, Topology, TopologyOptions};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn need_root(test: &str) -> bool {
    if netns::is_root() {
        return true;
    }
    eprintln!("skipping {test}: needs root (network namespaces and TUN devices)");
    false
}

fn params(rate_mbit: u64, delay_ms: u64, queue: u32) -> LinkParams {
    LinkParams::new(
        rate_mbit * 1_000_000,
        delay_ms * MS,
        QueueLimit::Packets(queue),
    )
}

fn assert_gone(prefix: &str) {
    let ns = cleanup::namespaces_with_prefix(prefix).unwrap();
    assert!(ns.is_empty(), "namespaces left behind: {ns:?}");
    let links = cleanup::links_with_prefix(prefix).unwrap();
    assert!(links.is_empty(), "links left behind: {links:?}");
}

fn udp_in(ns: &str, addr: &str) -> UdpSocket {
    let a: SocketAddr = addr.parse().unwrap();
    let s = in_netns(ns, move || UdpSocket::bind(a)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    s
}

#[test]
fn rtt_matches_configured_delay() {
    if !need_root("rtt_matches_configured_delay") {
        return;
    }
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    let emu = topo
        .start_emulator(
            &[PathSpec::symmetric(params(10, 20, 100))],
            1,
            EmuOptions::default(),
        )
        .unwrap();

    // ICMP echo, answered by the server's kernel; RTT from the send call to
    // the kernel's receive timestamp (see probe.rs).
    let mut pinger = Pinger::new(&topo.client_ns, Ipv4Addr::new(10, 1, 0, 2), 500 * MS).unwrap();
    let mut rtts = Vec::new();
    for _ in 0..50 {
        rtts.push(
            pinger
                .ping(Ipv4Addr::new(10, 0, 0, 2), 64)
                .unwrap()
                .expect("echo reply"),
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let reps = emu.stop();
    drop(topo);
    assert_gone(&prefix);

    rtts.sort();
    // 64 B payload + 8 ICMP + 20 IP = 92 B, serialised once each way.
    let expected = 2 * (20 * MS + tx_time(92, 10_000_000));
    let (min, p50, p90, max) = (
        rtts[0],
        rtts[rtts.len() / 2],
        rtts[rtts.len() * 9 / 10],
        rtts[rtts.len() - 1],
    );
    eprintln!("RTT expected {expected} ns: min {min} p50 {p50} p90 {p90} max {max}");
    for r in &reps {
        eprintln!(
            "{}: release lateness p50 {} p99 {} max {} ns; realtime: {:?}",
            r.name,
            r.lateness.quantile(0.5),
            r.lateness.quantile(0.99),
            r.lateness.max(),
            r.realtime_error
        );
    }
    assert!(
        min >= expected,
        "RTT {min} ns shorter than the configured {expected} ns"
    );
    assert!(
        p50 < expected + 2 * MS,
        "median RTT {p50} ns too far above {expected} ns"
    );
    assert!(
        p90 < expected + 10 * MS,
        "p90 RTT {p90} ns too far above {expected} ns"
    );
    for r in &reps {
        assert_eq!(r.write_errors, 0, "{}: {:?}", r.name, r.first_write_error);
        assert_eq!(r.stats.packets_delivered, 50, "{}", r.name);
    }
}

#[test]
fn tcp_throughput_matches_rate() {
    if !need_root("tcp_throughput_matches_rate") {
        return;
    }
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    let emu = topo
        .start_emulator(
            &[PathSpec::symmetric(params(10, 20, 100))],
            1,
            EmuOptions::default(),
        )
        .unwrap();

    let listener = in_netns(&topo.server_ns, || TcpListener::bind("10.0.0.2:5001")).unwrap();
    let rx = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let start = Instant::now();
        // (seconds since first byte, total bytes) samples
        let mut marks = Vec::new();
        let mut total = 0u64;
        loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n as u64;
                    marks.push((start.elapsed().as_secs_f64(), total));
                }
            }
        }
        marks
    });
    let mut tx = in_netns(&topo.client_ns, || TcpStream::connect("10.0.0.2:5001")).unwrap();
    let chunk = vec![1u8; 1 << 16];
    let end = Instant::now() + Duration::from_secs(5);
    while Instant::now() < end {
        tx.write_all(&chunk).unwrap();
    }
    drop(tx);
    let marks = rx.join().unwrap();
    emu.stop();
    drop(topo);
    assert_gone(&prefix);

    // Goodput between 1 s and 4.5 s (skip slow start and the tail).
    let at = |t: f64| {
        marks
            .iter()
            .find(|m| m.0 >= t)
            .map(|m| m.1)
            .expect("transfer lasted")
    };
    let goodput = (at(4.5) - at(1.0)) as f64 * 8.0 / 3.5;
    // 1448 B of payload per 1500 B IP packet (20 IP + 20 TCP + 12 timestamp option).
    let expected = 10e6 * 1448.0 / 1500.0;
    eprintln!(
        "TCP goodput {:.3} Mbit/s, expected {:.3}",
        goodput / 1e6,
        expected / 1e6
    );
    assert!(
        (goodput / expected - 1.0).abs() < 0.20,
        "goodput {goodput} not within 20 % of {expected}"
    );
}

#[test]
fn random_loss_is_about_ten_percent_and_deterministic() {
    if !need_root("random_loss_is_about_ten_percent_and_deterministic") {
        return;
    }
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    let mut up = params(10, 5, 1000);
    up.loss = LossModel::Bernoulli { p: 0.1 };
    let seed = 42;
    let emu = topo
        .start_emulator(
            &[PathSpec {
                up,
                down: params(10, 5, 1000),
            }],
            seed,
            EmuOptions::default(),
        )
        .unwrap();

    let server = udp_in(&topo.server_ns, "10.0.0.2:7001");
    let client = udp_in(&topo.client_ns, "10.1.0.2:0");
    client.connect("10.0.0.2:7001").unwrap();
    let sent = 5000u64;
    let rx = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let mut got = 0u64;
        while server.recv_from(&mut buf).is_ok() {
            got += 1;
        }
        got
    });
    // Bursts of 25 x 128 B every 5 ms: 5 Mbit/s, well under the 10 Mbit/s
    // rate, so no queue drops disturb the count.
    for i in 0..sent {
        client.send(&[0u8; 100]).unwrap();
        if i % 25 == 24 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let got = rx.join().unwrap();
    let reps = emu.stop();
    drop(topo);
    assert_gone(&prefix);

    let up_rep = reps.iter().find(|r| r.name == "path1.up").unwrap();
    let lost = sent - got;
    let rate = lost as f64 / sent as f64;
    eprintln!(
        "sent {sent}, received {got}, loss {rate:.4}; emulator: {:?}",
        up_rep.stats
    );
    assert_eq!(up_rep.stats.packets_offered, sent);
    assert_eq!(up_rep.stats.drops_queue, 0);
    assert_eq!(
        up_rep.stats.drops_loss, lost,
        "every missing packet was a random loss"
    );
    // 3 sigma of Binomial(5000, 0.1) is 0.0127.
    assert!((rate - 0.1).abs() < 0.0127, "loss {rate} not near 10 %");
    // The decisions are the seeded stream's, in packet order.
    let mut lp = LossProcess::new(
        LossModel::Bernoulli { p: 0.1 },
        // the simulator's stream of link path1, client-to-server (sim::network)
        SimRng::stream(seed, "link/path1/ab"),
    );
    let predicted = (0..sent).filter(|_| lp.lose()).count() as u64;
    assert_eq!(
        lost, predicted,
        "loss decisions must follow the seeded stream"
    );
}

#[test]
fn seed000_routes_each_source_over_its_path() {
    if !need_root("seed000_routes_each_source_over_its_path") {
        return;
    }
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::seed000()).unwrap();
    let prefix = topo.prefix.clone();
    let paths = [
        PathSpec::symmetric(params(20, 10, 100)),
        PathSpec::symmetric(params(5, 30, 100)),
    ];
    let emu = topo
        .start_emulator(&paths, 1, EmuOptions::default())
        .unwrap();
    let server = udp_in(&topo.server_ns, "10.0.0.2:7002");
    let echo = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let mut n_echoed = 0;
        while let Ok((n, from)) = server.recv_from(&mut buf) {
            server.send_to(&buf[..n], from).unwrap();
            n_echoed += 1;
        }
        n_echoed
    });
    let mut rtt = Vec::new();
    for src in ["10.1.0.2:0", "10.2.0.2:0"] {
        let c = udp_in(&topo.client_ns, src);
        c.connect("10.0.0.2:7002").unwrap();
        let t0 = Instant::now();
        c.send(b"ping").unwrap();
        let mut buf = [0u8; 64];
        c.recv(&mut buf)
            .expect("reply over the path of the source address");
        rtt.push(t0.elapsed().as_nanos() as u64);
    }
    assert_eq!(echo.join().unwrap(), 2);
    let reps = emu.stop();
    drop(topo);
    assert_gone(&prefix);
    eprintln!("RTT path1 {} ns, path2 {} ns", rtt[0], rtt[1]);
    assert!(
        rtt[0] >= 20 * MS && rtt[0] < 40 * MS,
        "path 1 RTT {}",
        rtt[0]
    );
    assert!(
        rtt[1] >= 60 * MS && rtt[1] < 80 * MS,
        "path 2 RTT {}",
        rtt[1]
    );
    for r in &reps {
        assert_eq!(
            r.stats.packets_delivered, 1,
            "{} carried exactly its own ping or pong",
            r.name
        );
    }
}

#[test]
fn cleanup_after_panic() {
    if !need_root("cleanup_after_panic") {
        return;
    }
    let _g = serial();
    let (tx, rx) = std::sync::mpsc::channel();
    let r = std::thread::spawn(move || {
        let topo = Topology::build(&TopologyOptions::seed000()).unwrap();
        let _emu = topo
            .start_emulator(
                &[
                    PathSpec::symmetric(params(10, 1, 10)),
                    PathSpec::symmetric(params(10, 1, 10)),
                ],
                1,
                EmuOptions::default(),
            )
            .unwrap();
        tx.send(topo.prefix.clone()).unwrap();
        assert_eq!(
            cleanup::namespaces_with_prefix(&topo.prefix).unwrap().len(),
            3
        );
        panic!("deliberate panic with a topology and an emulator alive");
    })
    .join();
    assert!(r.is_err());
    let prefix = rx.recv().unwrap();
    assert_gone(&prefix);
}

#[test]
fn stale_namespaces_of_dead_processes_are_removed() {
    if !need_root("stale_namespaces_of_dead_processes_are_removed") {
        return;
    }
    let _g = serial();
    // A pid that certainly belonged to a process that has exited.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let name = format!("{}{dead}-0-c", cleanup::PREFIX);
    netns::add(&name).unwrap();
    cleanup::cleanup_stale().unwrap();
    assert!(!netns::exists(&name));
    // Building a topology also clears leftovers.
    netns::add(&name).unwrap();
    let t = Topology::build(&TopologyOptions::direct()).unwrap();
    assert!(!netns::exists(&name));
    drop(t);
    // Our own live namespaces are kept.
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    cleanup::cleanup_stale().unwrap();
    assert!(netns::exists(&topo.client_ns));
}

/// An MPTCP socket (IPPROTO_MPTCP) created in `ns`.
fn mptcp_socket(ns: &str) -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    in_netns(ns, || {
        // SAFETY: plain socket call; the descriptor is owned by the OwnedFd.
        let fd = unsafe {
            libc::socket(
                libc::AF_INET,
                libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                libc::IPPROTO_MPTCP,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fresh descriptor.
        Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
    })
    .unwrap()
}

fn sockaddr(ip: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as u16,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_be_bytes(ip).to_be(),
        },
        sin_zero: [0; 8],
    }
}

#[test]
fn mptcp_uses_both_emulated_paths() {
    if !need_root("mptcp_uses_both_emulated_paths") {
        return;
    }
    use std::os::fd::{AsRawFd, IntoRawFd};
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::seed000()).unwrap();
    topo.configure_mptcp().unwrap();
    let prefix = topo.prefix.clone();
    let paths = [
        PathSpec::symmetric(params(10, 10, 100)),
        PathSpec::symmetric(params(10, 20, 100)),
    ];
    let emu = topo
        .start_emulator(&paths, 1, EmuOptions::default())
        .unwrap();

    let len = std::mem::size_of::<libc::sockaddr_in>() as u32;
    let lfd = mptcp_socket(&topo.server_ns);
    let a = sockaddr([10, 0, 0, 2], 5002);
    // SAFETY: valid descriptor and sockaddr.
    unsafe {
        assert_eq!(
            libc::bind(
                lfd.as_raw_fd(),
                &a as *const _ as *const libc::sockaddr,
                len
            ),
            0
        );
        assert_eq!(libc::listen(lfd.as_raw_fd(), 4), 0);
    }
    // SAFETY: the descriptor is a listening stream socket; ownership moves.
    let listener =
        unsafe { <TcpListener as std::os::fd::FromRawFd>::from_raw_fd(lfd.into_raw_fd()) };
    let rx = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    let cfd = mptcp_socket(&topo.client_ns);
    let b = sockaddr([10, 0, 0, 2], 5002);
    // SAFETY: valid descriptor and sockaddr.
    assert_eq!(
        unsafe {
            libc::connect(
                cfd.as_raw_fd(),
                &b as *const _ as *const libc::sockaddr,
                len,
            )
        },
        0
    );
    // SAFETY: a connected stream socket; ownership moves.
    let mut tx = unsafe { <TcpStream as std::os::fd::FromRawFd>::from_raw_fd(cfd.into_raw_fd()) };
    let chunk = vec![1u8; 1 << 16];
    let end = Instant::now() + Duration::from_secs(4);
    while Instant::now() < end {
        tx.write_all(&chunk).unwrap();
    }
    drop(tx);
    let total = rx.join().unwrap();
    let reps = emu.stop();
    drop(topo);
    assert_gone(&prefix);
    let up = |n: &str| {
        reps.iter()
            .find(|r| r.name == n)
            .unwrap()
            .stats
            .bytes_delivered
    };
    let (b1, b2) = (up("path1.up"), up("path2.up"));
    eprintln!("MPTCP received {total} B; path1.up {b1} B, path2.up {b2} B");
    // Each path alone carries at most 10 Mbit/s x 4 s = 5 MB; together clearly more than one.
    assert!(
        b1 > 1_000_000 && b2 > 1_000_000,
        "both subflows must carry data: {b1} / {b2}"
    );
    let goodput = total as f64 * 8.0 / 4.0;
    assert!(
        goodput > 12e6,
        "aggregate goodput {goodput} bit/s should exceed one path's 10 Mbit/s"
    );
}

#[test]
fn split_threads_mode_keeps_the_delay() {
    if !need_root("split_threads_mode_keeps_the_delay") {
        return;
    }
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    let opts = EmuOptions {
        split_threads: true,
        ..EmuOptions::default()
    };
    let emu = topo
        .start_emulator(&[PathSpec::symmetric(params(10, 5, 100))], 1, opts)
        .unwrap();
    let mut pinger = Pinger::new(&topo.client_ns, Ipv4Addr::new(10, 1, 0, 2), 500 * MS).unwrap();
    let mut rtts: Vec<u64> = (0..20)
        .map(|_| {
            pinger
                .ping(Ipv4Addr::new(10, 0, 0, 2), 64)
                .unwrap()
                .expect("reply")
        })
        .collect();
    let reps = emu.stop();
    drop(topo);
    assert_gone(&prefix);
    rtts.sort();
    let expected = 2 * (5 * MS + tx_time(92, 10_000_000));
    eprintln!(
        "split mode RTT min {} p50 {} (expected {expected})",
        rtts[0], rtts[10]
    );
    assert!(rtts[0] >= expected);
    assert!(rtts[10] < expected + 2 * MS);
    for r in &reps {
        assert_eq!(r.stats.packets_delivered, 20, "{}", r.name);
        assert_eq!(r.lateness.count(), 20, "{}", r.name);
    }
}

/// CPU time (user + system) of this process, in ns.
fn cpu_ns() -> u64 {
    // SAFETY: getrusage writes into a zeroed struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

#[test]
fn emulator_survives_its_devices_disappearing() {
    if !need_root("emulator_survives_its_devices_disappearing") {
        return;
    }
    let _g = serial();
    let mut topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    let emu = topo
        .start_emulator(
            &[PathSpec::symmetric(params(10, 5, 100))],
            1,
            EmuOptions::default(),
        )
        .unwrap();
    // Wrong order on purpose: the namespaces (and TUN devices) go first.
    topo.teardown().unwrap();
    assert_gone(&prefix);
    let c0 = cpu_ns();
    std::thread::sleep(Duration::from_millis(300));
    let used = cpu_ns() - c0;
    let t0 = Instant::now();
    let reps = emu.stop();
    assert!(
        t0.elapsed() < Duration::from_secs(1),
        "stop took {:?}",
        t0.elapsed()
    );
    // Two real-time threads must not spin on dead descriptors (0.6 s of CPU if they did).
    assert!(
        used < 150_000_000,
        "emulator used {used} ns of CPU in 300 ms with its devices gone"
    );
    assert_eq!(reps.len(), 2);
}

#[test]
fn outage_drops_packets_in_its_window() {
    if !need_root("outage_drops_packets_in_its_window") {
        return;
    }
    use mptlab_core::link::Outage;
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    let mut up = params(10, 5, 100);
    // Outage times are on the emulator's clock (zero when it started).
    up.outages = vec![Outage {
        start: 300 * MS,
        end: 600 * MS,
    }];
    let emu = topo
        .start_emulator(
            &[PathSpec {
                up,
                down: params(10, 5, 100),
            }],
            1,
            EmuOptions::default(),
        )
        .unwrap();
    let clock = emu.clock();
    let mut pinger = Pinger::new(&topo.client_ns, Ipv4Addr::new(10, 1, 0, 2), 50 * MS).unwrap();
    let mut results = Vec::new(); // (send time on the emulator clock, replied)
    while clock.now() < 900 * MS {
        let t = clock.now();
        let ok = pinger
            .ping(Ipv4Addr::new(10, 0, 0, 2), 32)
            .unwrap()
            .is_some();
        results.push((t, ok));
        std::thread::sleep(Duration::from_millis(10));
    }
    let reps = emu.stop();
    drop(topo);
    assert_gone(&prefix);
    // Margins for the time between taking `t` and the emulator reading the packet.
    for &(t, ok) in &results {
        if !(290 * MS..=610 * MS).contains(&t) {
            assert!(ok, "ping at {t} ns outside the outage was lost");
        }
        if t > 310 * MS && t < 590 * MS {
            assert!(!ok, "ping at {t} ns inside the outage got through");
        }
    }
    let upr = reps.iter().find(|r| r.name == "path1.up").unwrap();
    // Every ping sent well inside the window was dropped by the outage (how
    // many fit depends on the 50 ms ping timeout and the machine's load).
    let inside = results
        .iter()
        .filter(|&&(t, _)| t > 310 * MS && t < 590 * MS)
        .count() as u64;
    assert!(
        inside >= 1 && upr.stats.drops_outage >= inside,
        "{inside} pings inside the outage, {:?}",
        upr.stats
    );
    assert_eq!(
        upr.stats.drops_outage + upr.stats.packets_delivered,
        upr.stats.packets_offered
    );
}

#[test]
fn mahimahi_trace_sets_the_rate() {
    if !need_root("mahimahi_trace_sets_the_rate") {
        return;
    }
    use mptlab_core::trace::Trace;
    use mptlab_emu::probe::{recv_timestamped, timestamped_udp};
    use std::os::fd::AsRawFd;
    let _g = serial();
    let topo = Topology::build(&TopologyOptions::direct()).unwrap();
    let prefix = topo.prefix.clone();
    // One 1500-byte opportunity per ms: 12 Mbit/s.
    let mut up = params(1, 5, 100);
    up.trace = Some(std::sync::Arc::new(Trace::constant(1, 10)));
    let emu = topo
        .start_emulator(
            &[PathSpec {
                up,
                down: params(10, 5, 100),
            }],
            1,
            EmuOptions::default(),
        )
        .unwrap();
    let rx = timestamped_udp(&topo.server_ns, "10.0.0.2:7003", 300 * MS).unwrap();
    let client = udp_in(&topo.client_ns, "10.1.0.2:0");
    client.connect("10.0.0.2:7003").unwrap();
    let receiver = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let mut ts = Vec::new();
        while let Some((_, t)) = recv_timestamped(rx.as_raw_fd(), &mut buf).unwrap() {
            ts.push(t);
        }
        ts
    });
    // 1500-byte IP packets at 19.2 Mbit/s (8 every 5 ms; less if sleeps overrun on a
    // busy host) for 2 s: the trace is the bottleneck.
    for _ in 0..400 {
        for _ in 0..8 {
            client.send(&[0u8; 1472]).unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let ts = receiver.join().unwrap();
    emu.stop();
    drop(topo);
    assert_gone(&prefix);
    let n = ts.len() as f64;
    let rate = (n - 1.0) * 1500.0 * 8.0 * 1e9 / (ts[ts.len() - 1] - ts[0]) as f64;
    eprintln!("trace link: {} packets, {:.3} Mbit/s", ts.len(), rate / 1e6);
    assert!(
        (rate / 12e6 - 1.0).abs() < 0.10,
        "rate {rate} bit/s, trace gives 12 Mbit/s"
    );
}

/// The echo reply is made by the server's kernel inside the emulator's TUN
/// write of the request. One thread for all directions (the default) reads
/// it right after that write, without a wake-up; one thread per direction
/// has to wake the down direction's thread for it (the extra delay of
/// docs/emulation.md, "Idle wake-up").
#[test]
fn one_thread_reads_packets_made_by_its_own_writes_without_a_wake_up() {
    if !need_root("one_thread_reads_packets_made_by_its_own_writes_without_a_wake_up") {
        return;
    }
    let _g = serial();
    let mut woke = Vec::new();
    for one_thread in [true, false] {
        let topo = Topology::build(&TopologyOptions::direct()).unwrap();
        let prefix = topo.prefix.clone();
        let opts = EmuOptions {
            one_thread,
            trace_packets: 100,
            ..EmuOptions::default()
        };
        let emu = topo
            .start_emulator(&[PathSpec::symmetric(params(10, 5, 100))], 1, opts)
            .unwrap();
        let mut pinger =
            Pinger::new(&topo.client_ns, Ipv4Addr::new(10, 1, 0, 2), 500 * MS).unwrap();
        for _ in 0..20 {
            pinger
                .ping(Ipv4Addr::new(10, 0, 0, 2), 64)
                .unwrap()
                .expect("reply");
            std::thread::sleep(Duration::from_millis(5));
        }
        let reps = emu.stop();
        drop(topo);
        assert_gone(&prefix);
        let down = reps.iter().find(|r| r.name == "path1.down").unwrap();
        let replies: Vec<_> = down.trace.iter().filter(|t| t.proto == 1).collect();
        assert_eq!(replies.len(), 20);
        woke.push(replies.iter().filter(|t| t.woke_idle).count());
    }
    eprintln!(
        "echo replies that woke the emulator: one thread {}, per direction {}",
        woke[0], woke[1]
    );
    assert_eq!(
        woke[0], 0,
        "one thread: replies should be read after the write that made them"
    );
    assert!(
        woke[1] >= 15,
        "per direction: the down thread sleeps when the reply comes ({})",
        woke[1]
    );
}
