//! mptlab-linkemu: build the seed 000 namespaces, emulate the paths until
//! Ctrl-C / SIGTERM (or --duration), write per-direction counters as JSON,
//! tear everything down. Also: `bench`, `cleanup`, `check`.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::loss::LossModel;
use mptlab_core::time::ms;
use mptlab_core::trace::Trace;
use mptlab_emu::emulator::reports_to_json;
use mptlab_emu::{
    bench, cleanup, latency, netns, signals, EmuOptions, PathSpec, Shape, Topology, TopologyOptions,
};

const USAGE: &str = "usage:
  mptlab-linkemu run [--path SPEC]... [--direct] [--seed N] [--duration SECS] [--stats FILE] [--no-mptcp]
  mptlab-linkemu bench [--quick] [--spin-us N] [--no-realtime] [--split] [--pin] [--per-direction]
  mptlab-linkemu latency [--rate R] [--delay D] [--probes N] [--idle-gap D] [--busy-gap D] [--spin-us N] [--no-realtime] [--cpu-qos] [--per-direction]
                          one-way delay error of idle-wakeup and busy packets (docs/emulation.md)
  mptlab-linkemu cleanup     remove namespaces left by killed runs
  mptlab-linkemu check       say whether this host can run emulations

SPEC is comma-separated key=value, applied to both directions of one path:
  rate=10mbit (bit/s; k/m/g suffixes, 'bit' optional)  delay=20ms (or us/s)
  queue=100 (packets) or queue=150000b (bytes)  loss=0.01 (Bernoulli)
  trace=FILE (Mahimahi trace, replaces rate)
default: two paths, rate=10mbit,delay=20ms,queue=100 and rate=2mbit,delay=60ms,queue=100
run prints the namespace names, then waits; use `ip netns exec <ns> ...` to run traffic.";

fn parse_rate(v: &str) -> Result<u64, String> {
    let s = v.trim().to_ascii_lowercase();
    let s = s
        .strip_suffix("bit")
        .or_else(|| s.strip_suffix("bps"))
        .unwrap_or(&s);
    let (num, mult) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1e3),
        Some('m') => (&s[..s.len() - 1], 1e6),
        Some('g') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("bad rate {v:?} (e.g. 10mbit)"))?;
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return Err(format!("rate must be positive, found {v:?}"));
    }
    Ok((x * mult).round() as u64)
}

fn parse_time(v: &str) -> Result<u64, String> {
    let s = v.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix("us") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1e3)
    } else {
        (s, 1.0)
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("bad time {v:?} (e.g. 20ms)"))?;
    if x.is_nan() || x < 0.0 || !x.is_finite() {
        return Err(format!("time must be >= 0, found {v:?}"));
    }
    Ok(ms(x * scale))
}

fn parse_path(spec: &str) -> Result<PathSpec, String> {
    let mut p = LinkParams::new(10_000_000, ms(20.0), QueueLimit::Packets(100));
    for kv in spec.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("expected key=value in path spec, found {kv:?}"))?;
        match k {
            "rate" => p.rate_bps = parse_rate(v)?,
            "delay" => p.delay = parse_time(v)?,
            "queue" => {
                p.queue = if let Some(b) = v.strip_suffix('b') {
                    QueueLimit::Bytes(b.parse().map_err(|_| format!("bad queue {v:?}"))?)
                } else {
                    QueueLimit::Packets(v.parse().map_err(|_| format!("bad queue {v:?}"))?)
                }
            }
            "loss" => {
                p.loss = LossModel::Bernoulli {
                    p: v.parse().map_err(|_| format!("bad loss {v:?}"))?,
                }
            }
            "trace" => {
                let text =
                    std::fs::read_to_string(v).map_err(|e| format!("read trace {v}: {e}"))?;
                p.trace = Some(Arc::new(Trace::parse(&text, v)?));
            }
            _ => {
                return Err(format!(
                    "unknown path key {k:?} (rate, delay, queue, loss, trace)"
                ))
            }
        }
    }
    p.validate()?;
    Ok(PathSpec::symmetric(p))
}

fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, String> {
    *i += 1;
    args.get(*i)
        .map(|s| s.as_str())
        .ok_or_else(|| format!("{flag} needs a value"))
}

fn cmd_run(args: &[String]) -> Result<(), String> {
    let mut paths = Vec::new();
    let mut seed = 0u64;
    let mut duration = None;
    let mut stats_file = None;
    let mut direct = false;
    let mut mptcp = true;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--path" => paths.push(parse_path(value(args, &mut i, "--path")?)?),
            "--seed" => {
                seed = value(args, &mut i, "--seed")?
                    .parse()
                    .map_err(|_| "bad --seed")?
            }
            "--duration" => {
                let s: f64 = value(args, &mut i, "--duration")?
                    .parse()
                    .map_err(|_| "bad --duration")?;
                duration = Some(Duration::from_secs_f64(s.max(0.0)));
            }
            "--stats" => stats_file = Some(value(args, &mut i, "--stats")?.to_string()),
            "--direct" => direct = true,
            "--no-mptcp" => mptcp = false,
            a => return Err(format!("unknown argument {a:?}\n{USAGE}")),
        }
        i += 1;
    }
    if paths.is_empty() {
        paths.push(parse_path("rate=10mbit,delay=20ms,queue=100")?);
        if !direct {
            paths.push(parse_path("rate=2mbit,delay=60ms,queue=100")?);
        }
    }
    netns::preflight().map_err(|e| e.to_string())?;
    // Before any thread exists, so every thread inherits the blocked signals.
    let stop = signals::stop_on_signals().map_err(|e| format!("signal setup: {e}"))?;
    if let Ok(removed) = cleanup::cleanup_stale() {
        if !removed.is_empty() {
            eprintln!("removed leftovers of killed runs: {}", removed.join(" "));
        }
    }
    let opts = TopologyOptions {
        shape: if direct { Shape::Direct } else { Shape::Core },
        paths: paths.len(),
        mtu: 1500,
        emulate_server_link: false,
    };
    let topo = Topology::build(&opts).map_err(|e| e.to_string())?;
    if mptcp {
        topo.configure_mptcp().map_err(|e| e.to_string())?;
    }
    let emu = topo
        .start_emulator(&paths, seed, EmuOptions::default())
        .map_err(|e| e.to_string())?;
    println!(
        "namespaces: client {} core {} server {}",
        topo.client_ns,
        topo.core_ns.as_deref().unwrap_or("-"),
        topo.server_ns
    );
    println!(
        "client addresses {} ; server {}",
        topo.client_addrs.join(" "),
        topo.server_addr
    );
    let start = Instant::now();
    while !stop.load(Ordering::SeqCst) && duration.is_none_or(|d| start.elapsed() < d) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let reps = emu.stop();
    drop(topo);
    let json = reports_to_json(&reps);
    match stats_file {
        Some(f) => std::fs::write(&f, json + "\n").map_err(|e| format!("write {f}: {e}"))?,
        None => println!("{json}"),
    }
    Ok(())
}

fn cmd_bench(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut opts = EmuOptions::default();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--quick" => quick = true,
            "--no-realtime" => opts.realtime_priority = None,
            "--split" => {
                opts.split_threads = true;
                opts.one_thread = false
            }
            "--pin" => {
                opts.pin_cpus = true;
                opts.one_thread = false
            }
            "--per-direction" => opts.one_thread = false,
            "--spin-us" => opts.spin_ns = spin_ns(value(args, &mut i, "--spin-us")?)?,
            a => return Err(format!("unknown argument {a:?}\n{USAGE}")),
        }
        i += 1;
    }
    netns::preflight().map_err(|e| e.to_string())?;
    let _stop = signals::stop_on_signals().map_err(|e| format!("signal setup: {e}"))?;
    let _ = cleanup::cleanup_stale();
    bench::run(quick, &opts).map_err(|e| e.to_string())
}

/// `--spin-us N` as nanoseconds (shared by `bench` and `latency`).
fn spin_ns(v: &str) -> Result<u64, String> {
    Ok(v.parse::<u64>().map_err(|_| "bad --spin-us")? * 1000)
}

fn cmd_latency(args: &[String]) -> Result<(), String> {
    let mut o = latency::LatencyOptions::default();
    let mut opts = EmuOptions::default();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--rate" => o.rate_bps = parse_rate(value(args, &mut i, "--rate")?)?,
            "--delay" => o.delay = parse_time(value(args, &mut i, "--delay")?)?,
            "--idle-gap" => o.idle_gap = parse_time(value(args, &mut i, "--idle-gap")?)?,
            "--busy-gap" => o.busy_gap = parse_time(value(args, &mut i, "--busy-gap")?)?,
            "--probes" => {
                o.probes = value(args, &mut i, "--probes")?
                    .parse()
                    .map_err(|_| "bad --probes")?
            }
            "--no-realtime" => opts.realtime_priority = None,
            "--cpu-qos" => opts.cpu_latency_us = Some(0),
            "--per-direction" => opts.one_thread = false,
            "--spin-us" => opts.spin_ns = spin_ns(value(args, &mut i, "--spin-us")?)?,
            a => return Err(format!("unknown argument {a:?}\n{USAGE}")),
        }
        i += 1;
    }
    if o.probes == 0 || o.busy_gap == 0 || o.idle_gap == 0 {
        return Err("--probes, --idle-gap and --busy-gap must be positive".into());
    }
    netns::preflight().map_err(|e| e.to_string())?;
    let _stop = signals::stop_on_signals().map_err(|e| format!("signal setup: {e}"))?;
    let _ = cleanup::cleanup_stale();
    println!(
        "link {} bit/s, {} us one-way, {} probes; emulator spin {} us, realtime {:?}, cpu latency request {:?} us, {}",
        o.rate_bps,
        o.delay / 1000,
        o.probes,
        opts.spin_ns / 1000,
        opts.realtime_priority,
        opts.cpu_latency_us,
        if opts.one_thread {
            "one thread"
        } else {
            "one thread per direction"
        }
    );
    for (label, r) in latency::run(&o, &opts).map_err(|e| e.to_string())? {
        println!(
            "{label}: one-way error (kernel rx - model) {}",
            r.total.ms()
        );
        println!(
            "  {label} ingress (emulator read - send)   {}",
            r.ingress.ms()
        );
        println!(
            "  {label} release (written - model due)    {}",
            r.release.ms()
        );
        println!(
            "  {label} probes that woke an idle emulator: {}",
            r.woke_idle
        );
        println!("  {label} ICMP echo RTT - model RTT        {}", r.rtt.ms());
        println!("  {label} cpu latency request held: {:?}", r.cpu_qos);
    }
    // The topology of `mptlab emulate`: path plus emulated server link
    // (100 Mbit/s, 1 ms, the scenario default).
    let h = latency::tcp_handshakes(&o, 1_000_000, 100_000_000, o.idle_gap, &opts)
        .map_err(|e| e.to_string())?;
    println!(
        "idle: TCP handshake RTT (tcpi_rtt) - model, path + server link: {}",
        h.ms()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(|s| s.as_str()) {
        Some("run") => cmd_run(&args[1..]),
        Some("bench") => cmd_bench(&args[1..]),
        Some("latency") => cmd_latency(&args[1..]),
        Some("cleanup") => netns::preflight()
            .and_then(|_| cleanup::cleanup_stale())
            .map(|v| println!("removed {} stale item(s) {}", v.len(), v.join(" ")))
            .map_err(|e| e.to_string()),
        Some("check") => netns::preflight()
            .map(|_| println!("ok: root, TUN and MPTCP available"))
            .map_err(|e| e.to_string()),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mptlab-linkemu: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        assert_eq!(parse_rate("10mbit").unwrap(), 10_000_000);
        assert_eq!(parse_rate("1.5G").unwrap(), 1_500_000_000);
        assert_eq!(parse_rate("800k").unwrap(), 800_000);
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("-1m").is_err());
        assert_eq!(parse_time("20ms").unwrap(), 20_000_000);
        assert_eq!(parse_time("250us").unwrap(), 250_000);
        assert_eq!(parse_time("1s").unwrap(), 1_000_000_000);
        let p = parse_path("rate=2mbit,delay=60ms,queue=150000b,loss=0.01").unwrap();
        assert_eq!(p.up.rate_bps, 2_000_000);
        assert_eq!(p.up.queue, QueueLimit::Bytes(150_000));
        assert!(parse_path("loss=2").is_err());
        assert!(parse_path("color=red").is_err());
        assert!(parse_path("rate").is_err());
    }
}
