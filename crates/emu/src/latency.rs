//! Per-packet one-way delay error of the link emulator, split into packets
//! that wake an idle emulator and packets that reach a busy one
//! (`mptlab-linkemu latency`, docs/emulation.md "Idle wake-up").
//!
//! One direct emulated link (both directions alike). Small UDP probes cross
//! it, each carrying its CLOCK_MONOTONIC send time; the receiver reads the
//! kernel receive timestamp (SO_TIMESTAMPNS, taken while the emulator's TUN
//! write runs the receiving stack). Expected arrival = max(send, previous
//! finish) + serialisation + delay (a replica of the model's FIFO
//! serialiser, so probes queued behind each other are not counted as error).
//! The emulator's own per-packet trace (`EmuOptions::trace_packets`) splits
//! the error into
//!  - ingress: read from the TUN device minus send time (the wake-up of the
//!    emulator thread and the sender's stack; the model is offered the packet
//!    at the read time, so this is delay the model never sees),
//!  - release: written minus the model's delivery time (timer wake-up,
//!    spin, the TUN write including the receiving stack),
//!
//! and the receive timestamp gives the total. An external round trip (ICMP
//! echo answered by the far kernel, kernel receive timestamp) checks it
//! without the emulator's own clocks.
//!
//! Idle: probes `idle_gap` apart (nothing else on the link, the emulator
//! blocks in ppoll between them). Busy: probes `busy_gap` apart, so the
//! emulator is releasing or about to release when each arrives.

use std::io;
use std::net::{Ipv4Addr, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::Duration;

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::time::{tx_time, MS};
use mptlab_core::Nanos;

use crate::clock::{monotonic_ns, set_min_timer_slack, Clock};
use crate::emulator::{set_realtime, EmuOptions, PacketTrace};
use crate::netns::{err, in_netns};
use crate::probe::{realtime_ns, recv_timestamped, timestamped_udp, Pinger};
use crate::topology::{PathSpec, Topology, TopologyOptions};

/// UDP payload of a probe (seq, send time, padding): 92-byte IP packets.
const PAYLOAD: usize = 64;
const IP_UDP_HDR: u64 = 28;

/// Quantiles of one series, in ns.
#[derive(Clone, Debug, Default)]
pub struct Quantiles {
    pub n: usize,
    pub min: i64,
    pub p50: i64,
    pub p90: i64,
    pub p99: i64,
    pub max: i64,
}

impl Quantiles {
    pub fn of(mut v: Vec<i64>) -> Quantiles {
        v.sort_unstable();
        let q = |f: f64| {
            if v.is_empty() {
                0
            } else {
                v[((f * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
            }
        };
        Quantiles {
            n: v.len(),
            min: v.first().copied().unwrap_or(0),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            max: v.last().copied().unwrap_or(0),
        }
    }

    /// "p50 0.123 p90 ... ms" (ms with 3 decimals).
    pub fn ms(&self) -> String {
        let f = |x: i64| x as f64 / 1e6;
        format!(
            "n={} min {:.3} p50 {:.3} p90 {:.3} p99 {:.3} max {:.3} ms",
            self.n,
            f(self.min),
            f(self.p50),
            f(self.p90),
            f(self.p99),
            f(self.max)
        )
    }
}

/// One case (idle or busy).
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Receive timestamp minus expected arrival.
    pub total: Quantiles,
    /// Emulator read minus send time.
    pub ingress: Quantiles,
    /// Emulator write done minus the model's delivery time.
    pub release: Quantiles,
    /// Probes that woke an idle emulator (by the emulator's own account).
    pub woke_idle: usize,
    /// ICMP echo round trip minus 2 x (delay + serialisation), `n` echoes
    /// at the case's spacing.
    pub rtt: Quantiles,
    /// The emulator held its CPU latency request (or why not).
    pub cpu_qos: Result<bool, String>,
}

/// Settings of a measurement.
#[derive(Clone, Debug)]
pub struct LatencyOptions {
    pub rate_bps: u64,
    pub delay: Nanos,
    pub probes: usize,
    pub idle_gap: Nanos,
    pub busy_gap: Nanos,
}

impl Default for LatencyOptions {
    fn default() -> Self {
        LatencyOptions {
            rate_bps: 100_000_000,
            delay: 5 * MS,
            probes: 200,
            idle_gap: 50 * MS,
            busy_gap: MS / 5,
        }
    }
}

/// CLOCK_REALTIME minus CLOCK_MONOTONIC (the pair read closest together).
fn realtime_offset() -> i64 {
    let mut best = (u64::MAX, 0i64);
    for _ in 0..20 {
        let a = monotonic_ns();
        let r = realtime_ns();
        let b = monotonic_ns();
        if b - a < best.0 {
            best = (b - a, r as i64 - ((a + b) / 2) as i64);
        }
    }
    best.1
}

/// Send `n` probes `gap` apart; returns their CLOCK_MONOTONIC send times.
fn send_probes(sock: &UdpSocket, n: usize, gap: Nanos) -> io::Result<Vec<u64>> {
    let clock = Clock::start();
    let mut sent = Vec::with_capacity(n);
    let mut buf = [0u8; PAYLOAD];
    for i in 0..n {
        clock.sleep_until(i as u64 * gap, 30_000);
        let t = monotonic_ns();
        buf[0..8].copy_from_slice(&(i as u64).to_le_bytes());
        buf[8..16].copy_from_slice(&t.to_le_bytes());
        sock.send(&buf)
            .map_err(|e| err(format!("send probe: {e}")))?;
        sent.push(t);
    }
    Ok(sent)
}

/// One case from the probes' send times, their receive timestamps and the
/// emulator's trace of its up direction (UDP entries only, in order: the
/// probes are the only UDP packets and the link neither drops nor reorders).
fn measure_case(
    o: &LatencyOptions,
    trace: &[PacketTrace],
    origin: u64,
    sent: &[u64],
    rx: &[(u64, u64)],
) -> CaseResult {
    let tx = tx_time(PAYLOAD as u64 + IP_UDP_HDR, o.rate_bps);
    let off = realtime_offset();
    let udp: Vec<&PacketTrace> = trace
        .iter()
        .filter(|t| t.proto == 17 && !t.dropped)
        .collect();
    let mut total = Vec::new();
    let mut ingress = Vec::new();
    let mut release = Vec::new();
    let mut woke = 0;
    let mut free = 0u64;
    for &(seq, ts) in rx {
        let Some(&s) = sent.get(seq as usize) else {
            continue;
        };
        let finish = s.max(free) + tx;
        free = finish;
        let rx_mono = ts as i64 - off;
        total.push(rx_mono - (finish + o.delay) as i64);
        if let Some(t) = udp.get(seq as usize) {
            ingress.push((origin + t.read) as i64 - s as i64);
            release.push(t.written as i64 - t.due as i64);
            woke += t.woke_idle as usize;
        }
    }
    CaseResult {
        total: Quantiles::of(total),
        ingress: Quantiles::of(ingress),
        release: Quantiles::of(release),
        woke_idle: woke,
        rtt: Quantiles::default(),
        cpu_qos: Ok(false),
    }
}

/// ICMP echoes, one every `spacing` (or as soon as the previous returned):
/// round trip minus the model's.
fn echo_case(
    client_ns: &str,
    server: &str,
    o: &LatencyOptions,
    spacing: Nanos,
) -> io::Result<Quantiles> {
    let src: Ipv4Addr = "10.1.0.2".parse().expect("literal");
    let dst: Ipv4Addr = server
        .parse()
        .map_err(|_| err(format!("server address {server}")))?;
    let mut p = Pinger::new(client_ns, src, 2_000 * MS)?;
    // 56 bytes of ICMP data: 84-byte IP packets each way.
    let model = 2 * (o.delay + tx_time(84, o.rate_bps)) as i64;
    let clock = Clock::start();
    let mut v = Vec::new();
    for i in 0..o.probes {
        clock.sleep_until(i as u64 * spacing, 30_000);
        if let Some(rtt) = p.ping(dst, 56)? {
            v.push(rtt as i64 - model);
        }
    }
    Ok(Quantiles::of(v))
}

/// Run both cases on a fresh direct topology each, with the emulator
/// options `opts` (the trace is switched on here). Idle: the probes, then
/// the echoes, each `idle_gap` apart. Busy: the echoes run while the probes
/// (`busy_gap` apart) keep the emulator busy.
pub fn run(o: &LatencyOptions, opts: &EmuOptions) -> io::Result<Vec<(&'static str, CaseResult)>> {
    let mut out = Vec::new();
    for (label, gap) in [("idle", o.idle_gap), ("busy", o.busy_gap)] {
        let busy = label == "busy";
        // Busy: enough probes to cover the echoes.
        let n = if busy {
            o.probes * ((2 * o.delay + 2 * MS) / gap).max(1) as usize
        } else {
            o.probes
        };
        let topo = Topology::build(&TopologyOptions::direct())?;
        let link = LinkParams::new(o.rate_bps, o.delay, QueueLimit::Packets(1000));
        let emu_opts = EmuOptions {
            trace_packets: n + 2 * o.probes + 16,
            ..opts.clone()
        };
        let emu = topo.start_emulator(&[PathSpec::symmetric(link)], 1, emu_opts)?;
        let origin = emu.clock().origin();
        let cpu_qos = match emu.cpu_qos() {
            (_, Some(e)) => Err(e.to_string()),
            (held, None) => Ok(held),
        };
        let rx = timestamped_udp(&topo.server_ns, "10.0.0.2:9100", 1_000 * MS)?;
        let tx = {
            let ns = topo.client_ns.clone();
            in_netns(&ns, || {
                let s = UdpSocket::bind("10.1.0.2:0").map_err(|e| err(format!("bind: {e}")))?;
                s.connect("10.0.0.2:9100")
                    .map_err(|e| err(format!("connect: {e}")))?;
                Ok(s)
            })?
        };
        let receiver = std::thread::spawn(move || -> io::Result<Vec<(u64, u64)>> {
            let _ = set_realtime(4);
            let mut got = Vec::new();
            let mut buf = [0u8; 2048];
            while let Some((len, ts)) = recv_timestamped(rx.as_raw_fd(), &mut buf)? {
                if len >= 16 {
                    got.push((u64::from_le_bytes(buf[0..8].try_into().expect("8")), ts));
                }
                if got.len() == n {
                    break;
                }
            }
            Ok(got)
        });
        // The sender at real-time priority below the emulator's (10), so
        // its own wake-ups do not skew the send times it stamps.
        let sender = std::thread::spawn(move || {
            let _ = set_realtime(5);
            set_min_timer_slack();
            send_probes(&tx, n, gap)
        });
        let echo = |spacing| echo_case(&topo.client_ns, &topo.server_addr, o, spacing);
        let rtt = if busy {
            std::thread::sleep(Duration::from_millis(50));
            let r = echo(0);
            let sent = sender.join().map_err(|_| err("sender thread panicked"))??;
            (r, sent)
        } else {
            let sent = sender.join().map_err(|_| err("sender thread panicked"))??;
            std::thread::sleep(Duration::from_millis(50));
            (echo(gap + 2 * o.delay), sent)
        };
        let (rtt, sent) = (rtt.0?, rtt.1);
        let got = receiver
            .join()
            .map_err(|_| err("receiver thread panicked"))??;
        let reps = emu.stop();
        let up = reps
            .iter()
            .find(|r| r.name == "path1.up")
            .ok_or_else(|| err("no path1.up report"))?;
        let mut r = measure_case(o, &up.trace, origin, &sent, &got);
        r.rtt = rtt;
        r.cpu_qos = cpu_qos;
        drop(topo);
        out.push((label, r));
    }
    Ok(out)
}

/// TCP handshake round trips over the topology of `mptlab emulate`: one
/// path and the emulated server link (client -> path1 -> core -> server
/// link -> server), so a round trip crosses four emulated directions.
/// `n` connects `gap` apart from the client's path address; each one's
/// round trip is the kernel's own first RTT sample (`tcpi_rtt` right after
/// `connect`, the SYN -> SYN-ACK time measured by the client's stack, so
/// the application's wake-up is not in it). Returns the error against the
/// model: 2 x (path delay + server link delay) + the serialisation of the
/// SYN and SYN-ACK on both links, in ns.
pub fn tcp_handshakes(
    o: &LatencyOptions,
    server_delay: Nanos,
    server_rate_bps: u64,
    gap: Nanos,
    opts: &EmuOptions,
) -> io::Result<Quantiles> {
    use crate::sock::{self, SockOpts};
    use std::net::SocketAddrV4;
    let topo = Topology::build(&TopologyOptions {
        paths: 1,
        emulate_server_link: true,
        ..TopologyOptions::seed000()
    })?;
    let path = LinkParams::new(o.rate_bps, o.delay, QueueLimit::Packets(1000));
    let srv = LinkParams::new(server_rate_bps, server_delay, QueueLimit::Packets(1000));
    let emu = topo.start_emulator_with_server(
        &[PathSpec::symmetric(path)],
        &PathSpec::symmetric(srv),
        1,
        opts.clone(),
    )?;
    let so = SockOpts::default();
    let dst = SocketAddrV4::new(topo.server_addr.parse().expect("literal"), 9200);
    let so2 = so.clone();
    let listener = in_netns(&topo.server_ns, move || sock::listen(&so2, dst))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| err(format!("listener: {e}")))?;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let accepter = {
        let done = done.clone();
        std::thread::spawn(move || {
            // Accept and keep the connections until the client side is done.
            let mut keep = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                match listener.accept() {
                    Ok((c, _)) => keep.push(c),
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        })
    };
    // SYN 60 bytes, SYN-ACK 60 (MSS, SACK, timestamps, window scale).
    let model = 2 * (o.delay + server_delay) as i64
        + 2 * (tx_time(60, o.rate_bps) + tx_time(60, server_rate_bps)) as i64;
    let src: Ipv4Addr = "10.1.0.2".parse().expect("literal");
    let clock = Clock::start();
    let mut v = Vec::new();
    let mut conns = Vec::new();
    for i in 0..o.probes {
        clock.sleep_until(i as u64 * gap, 30_000);
        let so2 = so.clone();
        let fd = in_netns(&topo.client_ns, move || sock::stream_socket(&so2))?;
        let c = sock::connect(fd, Some(src), dst)?;
        let info = sock::tcp_info(c.as_raw_fd())?;
        v.push(info.rtt_us as i64 * 1000 - model);
        conns.push(c);
    }
    drop(conns);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = accepter.join();
    let _ = emu.stop();
    drop(topo);
    Ok(Quantiles::of(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_ranks() {
        let q = Quantiles::of((1..=100).rev().collect());
        assert_eq!((q.min, q.p50, q.p90, q.p99, q.max), (1, 50, 90, 99, 100));
        assert_eq!(Quantiles::of(vec![]).n, 0);
    }
}
