//! Emulator benchmark: delay and rate accuracy at 1, 10 and 100 Mbit/s, and
//! the maximum aggregate throughput over two emulated paths.
//!
//! Delay error: UDP datagrams carrying their send time (CLOCK_REALTIME, taken
//! just before `send`) cross a direct topology at half the link rate; the
//! receiver reads the kernel receive timestamp. For each packet the expected
//! arrival is computed with a replica of the link's FIFO serialiser fed with
//! the send times (so sender jitter that makes packets queue is not counted
//! as error): expected = max(sent, previous finish) + tx_time + delay.
//! error = received - expected. It includes everything the emulator adds
//! beyond the model: TUN hand-over, wake-up on arrival, release lateness.
//!
//! Rate error: UDP at 120 % of the rate for a few seconds; delivered IP bytes
//! over the receive interval versus the configured rate.
//!
//! Throughput: seed 000 with two paths at 10 Gbit/s (so the emulator, not the
//! model, is the limit) and 1 ms delay, one TCP stream per path (source
//! address selects the path), aggregate goodput over the measurement window.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::time::{tx_time, MS, SEC};

use crate::clock::{set_min_timer_slack, Clock};
use crate::emulator::{reports_to_json, set_realtime, DirectionReport, EmuOptions};
use crate::hist::Histogram;
use crate::netns::{err, in_netns};
use crate::probe::{realtime_ns, recv_timestamped, timestamped_udp};
use crate::topology::{PathSpec, Topology, TopologyOptions};

/// UDP payload giving 1500-byte IP packets.
const PAYLOAD: usize = 1472;
const IP_UDP_HDR: u64 = 28;

#[derive(Clone, Debug)]
pub struct DelayResult {
    pub rate_bps: u64,
    pub samples: u64,
    pub lost: u64,
    /// Signed error quantiles in ns (actual minus expected).
    pub p50: i64,
    pub p99: i64,
    pub max: i64,
    pub min: i64,
    pub release_lateness: Histogram,
    /// Packets the emulator saw and delivered on the "up" directions (to
    /// tell where missing packets went).
    pub emu_offered: u64,
    pub emu_delivered: u64,
    /// IP-level rate delivered by the emulator over all up directions, bit/s.
    pub delivered_bps: f64,
}

#[derive(Clone, Debug)]
pub struct RateResult {
    pub rate_bps: u64,
    pub measured_bps: f64,
    pub error_pct: f64,
}

#[derive(Clone, Debug)]
pub struct ThroughputResult {
    pub goodput_bps: Vec<f64>,
    pub aggregate_bps: f64,
    pub reports: Vec<DirectionReport>,
}

fn quantile(sorted: &[i64], q: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn udp_sender(ns: &str, src: &str, dst: &str) -> io::Result<UdpSocket> {
    let (src, dst) = (src.to_string(), dst.to_string());
    in_netns(ns, move || {
        let s = UdpSocket::bind(&src).map_err(|e| err(format!("bind {src}: {e}")))?;
        s.connect(&dst)
            .map_err(|e| err(format!("connect {dst}: {e}")))?;
        Ok(s)
    })
}

/// Send `n` datagrams of `PAYLOAD` bytes in bursts of `burst`, one burst
/// every `burst * gap` ns, each stamped with its own send time. Runs at
/// real-time priority so pacing is regular; bursts keep the sender from
/// spinning a whole core at high rates.
fn paced_send(sock: UdpSocket, n: u64, gap: u64, burst: u64) -> io::Result<()> {
    let _ = set_realtime(5);
    set_min_timer_slack();
    if burst > 1 {
        // UDP GSO: one send call per burst, split by the kernel into
        // PAYLOAD-sized datagrams, so the sender's syscall cost does not
        // limit the offered rate.
        let seg: libc::c_int = PAYLOAD as libc::c_int;
        // SAFETY: valid option pointer and length.
        let r = unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_UDP,
                libc::UDP_SEGMENT,
                &seg as *const _ as *const libc::c_void,
                4,
            )
        };
        if r != 0 {
            return Err(err(format!(
                "setsockopt UDP_SEGMENT: {}",
                io::Error::last_os_error()
            )));
        }
    }
    let clock = Clock::start();
    let mut buf = vec![0u8; PAYLOAD * burst as usize];
    // When the sender could not run for a while (CPU busy), it resumes at
    // the nominal rate instead of catching up with one huge burst that
    // would overflow the link's queue.
    let mut shift = 0u64;
    let mut i = 0;
    while i < n {
        let due = i * gap + shift;
        let now = clock.now();
        if now > due + MS {
            shift += now - due;
        }
        clock.sleep_until(i * gap + shift, 30_000);
        let k = burst.min(n - i);
        let t = realtime_ns();
        for j in 0..k {
            let o = j as usize * PAYLOAD;
            buf[o..o + 8].copy_from_slice(&(i + j).to_le_bytes());
            buf[o + 8..o + 16].copy_from_slice(&t.to_le_bytes());
        }
        if let Err(e) = sock.send(&buf[..k as usize * PAYLOAD]) {
            // A full socket buffer is a (counted) loss, not a failure.
            if e.raw_os_error() != Some(libc::ENOBUFS) && e.kind() != io::ErrorKind::WouldBlock {
                return Err(err(format!("send: {e}")));
            }
        }
        i += k;
    }
    Ok(())
}

/// Receive stamped datagrams until `n` arrived or a timeout; returns (seq, sent, received).
fn collect(rx: UdpSocket, n: u64) -> io::Result<Vec<(u64, u64, u64)>> {
    // Real-time (below the emulator) so a busy host does not make the
    // receiver fall behind and overflow its socket buffer; the timestamps
    // are the kernel's either way.
    let _ = set_realtime(4);
    let mut got = Vec::with_capacity(n as usize);
    let mut buf = vec![0u8; 2048];
    while let Some((len, ts)) = recv_timestamped(rx.as_raw_fd(), &mut buf)? {
        if len >= 16 {
            let seq = u64::from_le_bytes(buf[0..8].try_into().expect("8 bytes"));
            let sent = u64::from_le_bytes(buf[8..16].try_into().expect("8 bytes"));
            got.push((seq, sent, ts));
        }
        if got.len() as u64 == n {
            break;
        }
    }
    got.sort();
    Ok(got)
}

/// Delay error of UDP at `load` (fraction of the rate) over every path of
/// a topology whose paths all have `rate_bps` and 20 ms one-way delay.
pub fn delay_error(
    topo_opts: &TopologyOptions,
    rate_bps: u64,
    load: f64,
    burst: u64,
    duration: Duration,
    opts: &EmuOptions,
) -> io::Result<DelayResult> {
    let delay = 20 * MS;
    let topo = Topology::build(topo_opts)?;
    let link = LinkParams::new(rate_bps, delay, QueueLimit::Packets(1000));
    let specs: Vec<PathSpec> = (0..topo_opts.paths)
        .map(|_| PathSpec::symmetric(link.clone()))
        .collect();
    let emu = topo.start_emulator(&specs, 1, opts.clone())?;
    let size = PAYLOAD as u64 + IP_UDP_HDR;
    let tx_ns = tx_time(size, rate_bps);
    let gap = (tx_ns as f64 / load) as u64;
    let n = (duration.as_nanos() as u64 / gap).max(50);
    let mut threads = Vec::new();
    for i in 1..=topo_opts.paths {
        let port = 9000 + i as u16;
        let rx = timestamped_udp(&topo.server_ns, &format!("10.0.0.2:{port}"), 500 * MS)?;
        // Large receive buffer: the receiver thread is not real-time.
        let _ = set_rcvbuf(&rx, 8 << 20);
        let tx = udp_sender(
            &topo.client_ns,
            &format!("10.{i}.0.2:0"),
            &format!("10.0.0.2:{port}"),
        )?;
        let r = std::thread::spawn(move || collect(rx, n));
        let s = std::thread::spawn(move || paced_send(tx, n, gap, burst));
        threads.push((s, r));
    }
    let mut errs = Vec::new();
    let mut samples = 0;
    let mut delivered_bits = 0u64;
    let mut send_ns = 0u64;
    for (s, r) in threads {
        s.join().map_err(|_| err("sender thread panicked"))??;
        let got = r.join().map_err(|_| err("receiver thread panicked"))??;
        samples += got.len() as u64;
        delivered_bits += got.len() as u64 * size * 8;
        if let (Some(a), Some(b)) = (got.first(), got.last()) {
            send_ns = send_ns.max(b.2 - a.2);
        }
        // Replica serialiser over the send times.
        let mut free = 0u64;
        for &(_, sent, recv) in &got {
            let finish = sent.max(free) + tx_ns;
            free = finish;
            errs.push(recv as i64 - (finish + delay) as i64);
        }
    }
    let reps = emu.stop();
    drop(topo);
    errs.sort();
    let mut lat = Histogram::default();
    for r in &reps {
        lat.merge(&r.lateness);
    }
    Ok(DelayResult {
        rate_bps,
        samples,
        lost: n * topo_opts.paths as u64 - samples,
        p50: quantile(&errs, 0.5),
        p99: quantile(&errs, 0.99),
        max: *errs.last().unwrap_or(&0),
        min: *errs.first().unwrap_or(&0),
        release_lateness: lat,
        emu_offered: reps
            .iter()
            .filter(|r| r.name.ends_with(".up"))
            .map(|r| r.stats.packets_offered)
            .sum(),
        emu_delivered: reps
            .iter()
            .filter(|r| r.name.ends_with(".up"))
            .map(|r| r.stats.packets_delivered)
            .sum(),
        delivered_bps: delivered_bits as f64 * SEC as f64 / send_ns.max(1) as f64,
    })
}

fn set_rcvbuf(s: &UdpSocket, bytes: i32) -> io::Result<()> {
    // SAFETY: valid option pointer and length. SO_RCVBUFFORCE: root may exceed rmem_max.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            &bytes as *const i32 as *const libc::c_void,
            4,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Delivered rate when offered 120 % of `rate_bps`.
pub fn rate_error(rate_bps: u64, duration: Duration, opts: &EmuOptions) -> io::Result<RateResult> {
    let topo = Topology::build(&TopologyOptions::direct())?;
    let link = LinkParams::new(rate_bps, 5 * MS, QueueLimit::Packets(100));
    let emu = topo.start_emulator(&[PathSpec::symmetric(link)], 1, opts.clone())?;
    let rx = timestamped_udp(&topo.server_ns, "10.0.0.2:9001", 300 * MS)?;
    let tx = udp_sender(&topo.client_ns, "10.1.0.2:0", "10.0.0.2:9001")?;
    let size = PAYLOAD as u64 + IP_UDP_HDR;
    let gap = tx_time(size, rate_bps) * 5 / 6;
    let n = duration.as_nanos() as u64 / gap;
    let sender = std::thread::spawn(move || paced_send(tx, n, gap, 1));
    let mut buf = vec![0u8; 2048];
    let (mut first, mut last, mut count) = (0u64, 0u64, 0u64);
    while let Some((_, ts)) = recv_timestamped(rx.as_raw_fd(), &mut buf)? {
        if count == 0 {
            first = ts;
        }
        last = ts;
        count += 1;
    }
    sender.join().map_err(|_| err("sender thread panicked"))??;
    emu.stop();
    drop(topo);
    if count < 10 {
        return Err(err(format!(
            "rate test at {rate_bps} bit/s received only {count} packets"
        )));
    }
    // count - 1 packets were delivered after the first one's arrival.
    let measured = (count - 1) as f64 * size as f64 * 8.0 * SEC as f64 / (last - first) as f64;
    Ok(RateResult {
        rate_bps,
        measured_bps: measured,
        error_pct: (measured / rate_bps as f64 - 1.0) * 100.0,
    })
}

/// Aggregate TCP goodput over two emulated paths (seed 000 topology).
pub fn throughput(
    rate_bps: u64,
    delay: u64,
    queue: u32,
    duration: Duration,
    warmup: Duration,
    opts: &EmuOptions,
) -> io::Result<ThroughputResult> {
    let topo = Topology::build(&TopologyOptions::seed000())?;
    let link = LinkParams::new(rate_bps, delay, QueueLimit::Packets(queue));
    let paths = [PathSpec::symmetric(link.clone()), PathSpec::symmetric(link)];
    let emu = topo.start_emulator(&paths, 1, opts.clone())?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut receivers = Vec::new();
    let mut senders = Vec::new();
    let counters: Vec<Arc<AtomicU64>> = (0..2).map(|_| Arc::new(AtomicU64::new(0))).collect();
    for (i, counter) in counters.iter().enumerate() {
        let port = 9100 + i as u16;
        let l = in_netns(&topo.server_ns, move || {
            TcpListener::bind(("10.0.0.2", port))
        })?;
        let c = counter.clone();
        receivers.push(std::thread::spawn(move || -> io::Result<()> {
            let (mut s, _) = l.accept()?;
            let mut buf = vec![0u8; 1 << 18];
            loop {
                match s.read(&mut buf) {
                    Ok(0) => return Ok(()),
                    Ok(n) => {
                        c.fetch_add(n as u64, Ordering::Relaxed);
                    }
                    Err(e) => return Err(e),
                }
            }
        }));
        let src = format!("10.{}.0.2", i + 1);
        let sock = in_netns(&topo.client_ns, move || {
            // Bind the source address first: the policy rules then route the
            // connection over path i.
            let s = socket2_bind_connect(&src, ("10.0.0.2", port))?;
            Ok(s)
        })?;
        let st = stop.clone();
        senders.push(std::thread::spawn(move || -> io::Result<()> {
            let mut sock = sock;
            let buf = vec![0u8; 1 << 18];
            while !st.load(Ordering::Relaxed) {
                sock.write_all(&buf)?;
            }
            Ok(())
        }));
    }
    std::thread::sleep(warmup);
    let b0: Vec<u64> = counters.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let t0 = Instant::now();
    std::thread::sleep(duration);
    let b1: Vec<u64> = counters.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let secs = t0.elapsed().as_secs_f64();
    stop.store(true, Ordering::SeqCst);
    for s in senders {
        s.join().map_err(|_| err("sender panicked"))??;
    }
    for r in receivers {
        r.join().map_err(|_| err("receiver panicked"))??;
    }
    let reports = emu.stop();
    drop(topo);
    let goodput: Vec<f64> = b0
        .iter()
        .zip(&b1)
        .map(|(a, b)| (b - a) as f64 * 8.0 / secs)
        .collect();
    Ok(ThroughputResult {
        aggregate_bps: goodput.iter().sum(),
        goodput_bps: goodput,
        reports,
    })
}

/// A TCP connection from `src` (any port) to `dst`.
fn socket2_bind_connect(src: &str, dst: (&str, u16)) -> io::Result<TcpStream> {
    let src_ip: std::net::Ipv4Addr = src.parse().map_err(|_| err(format!("bad address {src}")))?;
    let dst_ip: std::net::Ipv4Addr = dst
        .0
        .parse()
        .map_err(|_| err(format!("bad address {}", dst.0)))?;
    // SAFETY: plain socket calls on a descriptor we own (handed to TcpStream).
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(err(format!("socket: {}", io::Error::last_os_error())));
        }
        let stream = <TcpStream as std::os::fd::FromRawFd>::from_raw_fd(fd);
        let sa = |ip: std::net::Ipv4Addr, port: u16| libc::sockaddr_in {
            sin_family: libc::AF_INET as u16,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(ip).to_be(),
            },
            sin_zero: [0; 8],
        };
        let len = std::mem::size_of::<libc::sockaddr_in>() as u32;
        let a = sa(src_ip, 0);
        if libc::bind(fd, &a as *const _ as *const libc::sockaddr, len) != 0 {
            return Err(err(format!("bind {src}: {}", io::Error::last_os_error())));
        }
        let b = sa(dst_ip, dst.1);
        if libc::connect(fd, &b as *const _ as *const libc::sockaddr, len) != 0 {
            return Err(err(format!(
                "connect {}:{}: {}",
                dst.0,
                dst.1,
                io::Error::last_os_error()
            )));
        }
        Ok(stream)
    }
}

/// Lateness of `Clock::sleep_until` over `n` sleeps of `period` ns, with the
/// given spin and scheduling policy, run on a fresh thread.
pub fn timer_precision(
    n: u64,
    period: u64,
    spin: u64,
    realtime: Option<i32>,
) -> io::Result<Histogram> {
    std::thread::spawn(move || {
        if let Some(p) = realtime {
            set_realtime(p)?;
        }
        set_min_timer_slack();
        let clock = Clock::start();
        let mut h = Histogram::default();
        for i in 1..=n {
            let deadline = i * period;
            clock.sleep_until(deadline, spin);
            h.record(clock.now() - deadline);
        }
        Ok(h)
    })
    .join()
    .map_err(|_| err("timer thread panicked"))?
}

/// Run the whole benchmark and print a report (text and JSON of the
/// throughput run's emulator counters).
pub fn run(quick: bool, opts: &EmuOptions) -> io::Result<()> {
    let d = if quick {
        Duration::from_secs(2)
    } else {
        Duration::from_secs(5)
    };
    println!(
        "mptlab-emu benchmark (spin {} us, realtime {:?}, {} thread(s) per direction, pinned: {})",
        opts.spin_ns / 1000,
        opts.realtime_priority,
        if opts.split_threads { 2 } else { 1 },
        opts.pin_cpus
    );
    println!("timer precision, 1000 sleeps of 1 ms (lateness of Clock::sleep_until):");
    for (spin, rt) in [
        (0, None),
        (0, opts.realtime_priority),
        (opts.spin_ns, opts.realtime_priority),
    ] {
        let h = timer_precision(1000, MS, spin, rt)?;
        println!(
            "  spin {:>3} us, {:<12}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            spin / 1000,
            if rt.is_some() {
                "SCHED_FIFO"
            } else {
                "SCHED_OTHER"
            },
            h.quantile(0.5) as f64 / 1e6,
            h.quantile(0.99) as f64 / 1e6,
            h.max() as f64 / 1e6
        );
    }
    println!("added-delay error (actual - model), 20 ms one-way, 1500 B UDP packets:");
    let direct = TopologyOptions::direct();
    let two = TopologyOptions::seed000();
    let cases: [(&str, &TopologyOptions, u64, f64, u64); 4] = [
        ("1 path", &direct, 1_000_000, 0.5, 1),
        ("1 path", &direct, 10_000_000, 0.5, 1),
        ("1 path", &direct, 100_000_000, 0.5, 1),
        ("2 paths", &two, 600_000_000, 0.9, 32),
    ];
    for (label, topo, rate, load, burst) in cases {
        let r = delay_error(topo, rate, load, burst, d, opts)?;
        println!(
            "  {label} x {:>4} Mbit/s at {:.0} % load: n={} lost={} (emulator saw {}, delivered {}; {:.1} Mbit/s) error p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms, min {:.3} ms; release lateness p50 {:.3} p99 {:.3} max {:.3} ms",
            rate / 1_000_000,
            load * 100.0,
            r.samples,
            r.lost,
            r.emu_offered,
            r.emu_delivered,
            r.delivered_bps / 1e6,
            r.p50 as f64 / 1e6,
            r.p99 as f64 / 1e6,
            r.max as f64 / 1e6,
            r.min as f64 / 1e6,
            r.release_lateness.quantile(0.5) as f64 / 1e6,
            r.release_lateness.quantile(0.99) as f64 / 1e6,
            r.release_lateness.max() as f64 / 1e6,
        );
    }
    println!("rate error (UDP offered at 120 % of the rate):");
    for rate in [1_000_000u64, 10_000_000, 100_000_000] {
        let r = rate_error(rate, d, opts)?;
        println!(
            "  {:>4} Mbit/s: measured {:.3} Mbit/s, error {:+.2} %",
            rate / 1_000_000,
            r.measured_bps / 1e6,
            r.error_pct
        );
    }
    let (td, warm) = if quick {
        (Duration::from_secs(3), Duration::from_secs(2))
    } else {
        (Duration::from_secs(8), Duration::from_secs(3))
    };
    let cases: [(u64, u64, u32); 2] = [(10_000_000_000, MS, 10_000), (600_000_000, 10 * MS, 2000)];
    let mut last = None;
    for (rate, delay, queue) in cases {
        let t = throughput(rate, delay, queue, td, warm, opts)?;
        println!(
            "TCP, 2 paths x 1 stream, links {} Mbit/s {} ms queue {}: path1 {:.1} Mbit/s, path2 {:.1} Mbit/s, aggregate goodput {:.1} Mbit/s",
            rate / 1_000_000,
            delay / MS,
            queue,
            t.goodput_bps[0] / 1e6,
            t.goodput_bps[1] / 1e6,
            t.aggregate_bps / 1e6
        );
        let mut lat = Histogram::default();
        for r in &t.reports {
            lat.merge(&r.lateness);
        }
        println!(
            "  release lateness: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            lat.quantile(0.5) as f64 / 1e6,
            lat.quantile(0.99) as f64 / 1e6,
            lat.max() as f64 / 1e6
        );
        last = Some(t);
    }
    let t = last.expect("two cases ran");
    println!("  emulator counters: {}", reports_to_json(&t.reports));
    Ok(())
}
