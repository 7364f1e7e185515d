//! Live mode: the traffic agent between two real hosts
//! (`mptlab agent server` / `mptlab agent client`), no namespaces and no
//! link emulation. Timestamps use `CLOCK_REALTIME`, so one-way delays are
//! as good as the hosts' clock synchronisation; the client also measures
//! the connection's RTT (kernel `tcpi_rtt`) and reports `live.rtt_ms` so a
//! reader can judge (see docs/emulation.md, "Live mode").

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Subcommand;
use mptlab_core::time::secs;
use mptlab_results::{write_results, WriteOptions};
use mptlab_scenario::{Override, Scenario};

use crate::agent::{self, ClientEnv, ClockKind, Records, Server, Shared, Traffic};
use crate::run::{counters, plan, supported, tables, PathMeasure};
use crate::sock;

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Serve the scenario's traffic (sender for "down", receiver for "up") until Ctrl-C.
    Server {
        /// Scenario file (TOML), the same on both hosts.
        scenario: PathBuf,
        /// Address and port to listen on (TCP, and UDP for udp scenarios).
        #[arg(long, value_name = "ADDR:PORT")]
        listen: SocketAddrV4,
        /// Run index (selects the seed, as `mptlab run`).
        #[arg(long, default_value_t = 0)]
        run: u32,
        /// Override a key (repeatable); the same on both hosts.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<Override>,
        /// On Ctrl-C, write the tables of what this side received (messages
        /// of an "up" scenario) into DIR.
        #[arg(long, short, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Overwrite results already in DIR (`--out`).
        #[arg(long, requires = "out")]
        force: bool,
    },
    /// Run the scenario's client side against a server and write the result tables.
    Client {
        /// Scenario file (TOML), the same on both hosts.
        scenario: PathBuf,
        /// The server's address and port.
        #[arg(long, value_name = "ADDR:PORT")]
        connect: SocketAddrV4,
        /// Source address (TCP; MPTCP's initial subflow). Default: the kernel's choice.
        #[arg(long, value_name = "ADDR")]
        bind: Option<Ipv4Addr>,
        /// Run index (selects the seed, as `mptlab run`); the same on both hosts.
        #[arg(long, default_value_t = 0)]
        run: u32,
        /// Override a key (repeatable); the same on both hosts.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<Override>,
        /// Output directory for the result tables.
        #[arg(long, short, value_name = "DIR")]
        out: PathBuf,
        /// Overwrite results already in DIR.
        #[arg(long)]
        force: bool,
    },
}

fn load(p: &PathBuf, set: &[Override], run: u32) -> Result<Scenario, ExitCode> {
    let s = Scenario::load(p, set).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    if let Err(e) = run_in_range(&s, run) {
        eprintln!("error: {}: {e}", p.display());
        return Err(ExitCode::from(2));
    }
    supported(&s).map_err(|e| {
        eprintln!("error: {}: {e}", p.display());
        ExitCode::from(2)
    })?;
    // Emulation builds these in its namespaces (background.rs, failover.rs);
    // live mode runs the agent only.
    let refused = if s.background.enabled {
        Some("background.enabled = true: live mode runs no background hosts (the real network's traffic is the background)")
    } else if s.traffic.failover.is_some() {
        Some("traffic.failover_path: application failover runs in `mptlab emulate` only, not in live mode")
    } else {
        None
    };
    if let Some(r) = refused {
        eprintln!("error: {}: {r}", p.display());
        return Err(ExitCode::from(2));
    }
    Ok(s)
}

/// `--run R` names one of the scenario's runs (`scenario.runs`), as every
/// other command's runs are `0..runs`: a run index beyond them took a seed
/// no `mptlab run` or `emulate` of the same file ever draws, so its result
/// had no simulated counterpart to compare with.
fn run_in_range(s: &Scenario, run: u32) -> Result<(), String> {
    let n = s.meta.runs;
    if run < n {
        return Ok(());
    }
    Err(format!(
        "--run {run}: the scenario has {n} run(s) (scenario.runs = {n}), so --run must be {}; raise \
         scenario.runs in the file (or --set scenario.runs=N, on both hosts) to run more",
        if n <= 1 {
            "0".to_string()
        } else {
            format!("0 to {}", n - 1)
        }
    ))
}

/// `--out DIR` of the server: results already in DIR are refused before
/// the agent serves (they were overwritten when it stopped, the run's
/// result written over another's), unless `--force`.
fn out_free(out: &Option<PathBuf>, force: bool) -> Result<(), String> {
    let Some(out) = out else { return Ok(()) };
    let theirs = mptlab_results::result_files_in(out);
    if theirs.is_empty() || force {
        return Ok(());
    }
    Err(format!(
        "--out {}: it already holds results ({}); use --force to overwrite them, or another DIR",
        out.display(),
        theirs.join(", ")
    ))
}

/// Port 0 asks the kernel for any free port: a server listening there
/// cannot be found by its client, and no server listens on it.
fn port_set(opt: &str, a: SocketAddrV4) -> Result<(), String> {
    if a.port() == 0 {
        return Err(format!(
            "{opt} {a}: port 0 is no port to {}; give the port both hosts use, e.g. {}:5201",
            if opt == "--listen" {
                "listen on (the kernel would pick one the client cannot know)"
            } else {
                "connect to"
            },
            a.ip()
        ));
    }
    Ok(())
}

pub fn main(cmd: AgentCommand) -> ExitCode {
    match run(cmd) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(cmd: AgentCommand) -> Result<ExitCode, String> {
    let stop = crate::signals::stop_on_signals().map_err(|e| e.to_string())?;
    match cmd {
        AgentCommand::Server {
            scenario,
            listen,
            run,
            set,
            out,
            force,
        } => {
            let s = match load(&scenario, &set, run) {
                Ok(s) => s,
                Err(c) => return Ok(c),
            };
            if let Err(e) = out_free(&out, force).and(port_set("--listen", listen)) {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            let p = Arc::new(plan(
                &s,
                s.run_seed(run),
                ClockKind::Realtime,
                None,
                listen,
            )?);
            let rec: Shared = Arc::new(Mutex::new(Records::default()));
            let l = sock::listen(&p.sock, listen).map_err(|e| e.to_string())?;
            let udp = if matches!(p.traffic, Traffic::Messages { udp: true, .. }) {
                Some(sock::udp_socket(listen).map_err(|e| e.to_string())?)
            } else {
                None
            };
            let srv = Server::start(l, udp, p, rec.clone()).map_err(|e| e.to_string())?;
            eprintln!(
                "mptlab agent: serving {} (run {run}) on {listen}; Ctrl-C to stop",
                s.meta.name
            );
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
            }
            let conns = std::mem::take(&mut rec.lock().unwrap().conns);
            for c in &conns {
                let _ = c.stream.shutdown(std::net::Shutdown::Both);
            }
            srv.stop(None);
            let recs = std::mem::take(&mut *rec.lock().unwrap());
            eprintln!(
                "mptlab agent: received {} messages, {:?} bytes per flow",
                recs.messages.len(),
                recs.delivered
            );
            if let Some(out) = out {
                let seed = s.run_seed(run);
                let p = plan(&s, seed, ClockKind::Realtime, None, listen)?;
                let o = tables(
                    &s,
                    run,
                    seed,
                    &p,
                    recs,
                    Vec::new(),
                    &[],
                    secs(s.meta.duration_s),
                    &[],
                );
                let mut w = WriteOptions::default();
                w.meta.insert("scenario".into(), s.meta.name.clone().into());
                w.meta.insert("mode".into(), "live-server".into());
                w.meta.insert(
                    "clock".into(),
                    "CLOCK_REALTIME (delays depend on host clock synchronisation)".into(),
                );
                write_results(&out, &[o], &w).map_err(|e| e.to_string())?;
                eprintln!("wrote results to {}", out.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        AgentCommand::Client {
            scenario,
            connect,
            bind,
            run,
            set,
            out,
            force,
        } => {
            let s = match load(&scenario, &set, run) {
                Ok(s) => s,
                Err(c) => return Ok(c),
            };
            if let Err(e) = port_set("--connect", connect) {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            // not only summary.json: a flows.csv or scenario.toml of the
            // user's own would be overwritten (as `mptlab run`, session 26)
            let theirs = mptlab_results::result_files_in(&out);
            if !theirs.is_empty() && !force {
                eprintln!(
                    "error: {} already holds results ({}); use --force",
                    out.display(),
                    theirs.join(", ")
                );
                return Ok(ExitCode::from(2));
            }
            if !s.traffic.direction.to_string().eq("down")
                && matches!(
                    s.traffic.model,
                    mptlab_scenario::TrafficModel::Video { .. }
                        | mptlab_scenario::TrafficModel::Gaming { .. }
                )
            {
                eprintln!("note: direction \"up\": the messages are measured at the server (its log), the client's tables hold no message rows");
            }
            let seed = s.run_seed(run);
            let p = plan(&s, seed, ClockKind::Realtime, bind, connect)?;
            let rec: Shared = Arc::new(Mutex::new(Records::default()));
            let so = p.sock.clone();
            let make_socket = move || sock::stream_socket(&so);
            let ubind = SocketAddrV4::new(bind.unwrap_or(Ipv4Addr::UNSPECIFIED), 0);
            let make_udp = move || UdpSocket::bind(SocketAddr::V4(ubind));
            let env = ClientEnv {
                make_socket: &make_socket,
                make_udp: &make_udp,
                on_connect: None,
            };
            let origin = ClockKind::Realtime.now();
            let end = secs(s.meta.duration_s);
            let st = Arc::new(AtomicBool::new(false));
            let (st2, ext) = (st.clone(), stop.clone());
            std::thread::spawn(move || loop {
                if ext.load(Ordering::Relaxed) {
                    st2.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            });
            let res = agent::run_client(&p, &env, origin, end, &st, &rec);
            let elapsed = ClockKind::Realtime
                .now()
                .saturating_sub(origin)
                .clamp(1, end);
            let mut prow = Vec::new();
            let mut rtts = Vec::new();
            let conns = std::mem::take(&mut rec.lock().unwrap().conns);
            for c in &conns {
                if let Ok(i) = sock::tcp_info(c.stream.as_raw_fd()) {
                    rtts.push(i.rtt_us as f64 / 1e3);
                    let (l, r) = sock::addrs(&c.stream);
                    prow.push(PathMeasure {
                        label: c.label.clone(),
                        side: c.side,
                        path: s.transport.path as usize,
                        local: l,
                        remote: r,
                        counters: counters(&i),
                    });
                }
            }
            st.store(true, Ordering::Relaxed);
            for c in &conns {
                let _ = c.stream.shutdown(std::net::Shutdown::Both);
            }
            std::thread::sleep(Duration::from_millis(200));
            if stop.load(Ordering::Relaxed) {
                eprintln!("error: interrupted; nothing written");
                return Ok(ExitCode::from(1));
            }
            res.map_err(|e| e.to_string())?;
            let recs = std::mem::take(&mut *rec.lock().unwrap());
            let mut o = tables(&s, run, seed, &p, recs, prow, &[], elapsed, &[]);
            if let Some(r) = rtts.first() {
                o.set_metric("live.rtt_ms", *r);
            }
            let mut w = WriteOptions::default();
            w.meta.insert("scenario".into(), s.meta.name.clone().into());
            w.meta.insert("mode".into(), "live".into());
            w.meta.insert(
                "clock".into(),
                "CLOCK_REALTIME (delays depend on host clock synchronisation)".into(),
            );
            w.extra_files.push((
                "scenario.toml".into(),
                s.effective_toml.clone().into_bytes(),
            ));
            write_results(&out, std::slice::from_ref(&o), &w).map_err(|e| e.to_string())?;
            eprintln!("wrote results to {}", out.display());
            // issue 12 item 3: say what did not complete, as `mptlab run` does
            for line in mptlab_results::Unfinished::of(std::slice::from_ref(&o)).describe() {
                eprintln!("warning: unfinished work: {line}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
