//! The link emulator: packets read from one TUN device are offered to a
//! `LinkModel` at the current time and, if the model delivers them, written to
//! another TUN device at the delivery time it decided.
//!
//! One thread per direction. Each thread loops: release every queued packet
//! that is due, read one packet if one is waiting (offer it to the model,
//! queue it), and otherwise block in `ppoll` on its ingress device until
//! shortly before the next release, then busy-wait the last `spin_ns` while
//! still accepting new packets. Releasing between single reads (rather than
//! after a batch) bounds how long a due packet waits behind arrivals.
//!
//! The release queue is a FIFO: the model serialises packets in arrival order
//! and adds a constant propagation delay, so delivery times are
//! non-decreasing in offer order. (An out-of-order time, which the model does
//! not produce, would still be inserted at its place.)
//!
//! Packets are offered with the time they were read from the TUN device. The
//! kernel queued them slightly earlier (microseconds when the thread is
//! waiting in ppoll); that gap is part of the measured delay error.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use mptlab_core::link::{LinkModel, LinkParams, LinkStats, Verdict};
use mptlab_core::{Nanos, SimRng};

use crate::clock::{set_min_timer_slack, Clock};
use crate::hello::HelloFilter;
use crate::hist::Histogram;
use crate::threadstat::{StallMeter, ThreadReport};
use crate::tun::Tun;

/// One direction of an emulated link.
pub struct DirectionSpec {
    /// Name for reports, e.g. "path1.up".
    pub name: String,
    /// Device packets are read from.
    pub ingress: Arc<Tun>,
    /// Device packets are written to.
    pub egress: Arc<Tun>,
    pub params: LinkParams,
    /// Loss decisions depend only on this stream and the packet order.
    pub rng: SimRng,
}

/// Tuning knobs; the defaults are what the benchmark figures were measured with.
#[derive(Clone, Debug)]
pub struct EmuOptions {
    /// Busy-wait this long before a release instead of sleeping.
    pub spin_ns: Nanos,
    /// At most this fraction of wall time is spent busy-waiting (a token
    /// bucket); past it the thread sleeps to the exact release time and
    /// accepts the wake-up latency. Without the cap, a busy link makes a
    /// real-time thread spin nearly all the time and the kernel's RT
    /// throttling (95 % per second) then freezes it for ~50 ms.
    pub spin_fraction: f64,
    /// Largest packet read from a TUN device (device MTU).
    pub mtu: usize,
    /// Longest single wait, so threads notice `stop` promptly.
    pub max_wait_ns: Nanos,
    /// Run the direction threads SCHED_FIFO at this priority (1..=99). On a
    /// busy host a normal (CFS) thread waking from a timer can wait
    /// milliseconds for a core; a real-time thread preempts the CFS tasks at
    /// once. `None` keeps the normal policy. Failure to set it (no
    /// CAP_SYS_NICE) is reported, not fatal.
    pub realtime_priority: Option<i32>,
    /// Two threads per direction: a reader that offers packets the moment
    /// they arrive and a writer that releases them. Without it one thread
    /// does both, and an arrival waits while the thread is inside a TUN
    /// write (which runs the receiving namespaces' stack, ~10 us).
    pub split_threads: bool,
    /// Pin both directions of path k (directions 2k and 2k+1 in start order)
    /// to CPU k mod n, so a path's packets stay on one core's caches.
    pub pin_cpus: bool,
    /// Run every direction in one thread (`oneloop`): packets produced
    /// inside the emulator's own TUN writes (ACKs, forwarded packets) are
    /// read without waking another thread. The default; `false` is one
    /// thread per direction (more aggregate throughput, more wake-ups;
    /// `split_threads` and `pin_cpus` apply to that mode only).
    pub one_thread: bool,
    /// Record the timing of the first this-many delivered packets of each
    /// direction in `DirectionReport::trace` (0: off). For measurement only
    /// (`mptlab-linkemu latency`); not in `split_threads` mode.
    pub trace_packets: usize,
    /// Hold a CPU latency QoS request of this many microseconds
    /// (`/dev/cpu_dma_latency`) while the emulator runs. A packet that
    /// arrives at an idle emulator has to wake its thread; on an idle CPU
    /// that includes leaving the idle state (on this VM `haltpoll` with
    /// `guest_halt_poll_ns=0`, i.e. HLT and a wake-up by the hypervisor).
    /// A request of 0 makes the cpuidle governor keep idle CPUs in the
    /// polling state, so the wake-up is a context switch (measured in
    /// docs/emulation.md, "Idle wake-up"). The request is the kernel's
    /// documented PM QoS interface (Documentation/power/pm_qos_interface.rst):
    /// it lasts while the file is open and is dropped when the emulator
    /// stops, also if the process dies. `None` (the default): no request.
    pub cpu_latency_us: Option<i32>,
    /// Offer the traffic agent's hello packets without a loss draw
    /// (`hello::HelloFilter`; shared by all directions). Not in
    /// `split_threads` mode. `None`: every packet draws.
    pub hello: Option<Arc<HelloFilter>>,
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            spin_ns: 50_000,
            spin_fraction: 0.2,
            mtu: 1500,
            max_wait_ns: 20_000_000,
            realtime_priority: Some(10),
            split_threads: false,
            pin_cpus: false,
            one_thread: true,
            trace_packets: 0,
            // Measured without effect on the wake-up here (docs/emulation.md,
            // "Idle wake-up"), so no host-wide request by default.
            cpu_latency_us: None,
            hello: None,
        }
    }
}

/// Environment variable naming a directory: every emulation run writes the
/// emulator's per-packet trace there (`run<k>-<direction>.csv`: read, due and
/// written time, IP id, length, dropped), for diagnosis of the emulator itself.
pub const TRACE_ENV: &str = "MPTLAB_EMU_TRACE";
/// Packets traced per direction under `MPTLAB_EMU_TRACE` (about 48 MB per
/// direction at most).
const TRACE_ENV_PACKETS: usize = 1_000_000;

/// Environment variable choosing the thread layout of emulation runs
/// (`mptlab emulate`, `validate`, `reproduce --kernel`): `one` (default)
/// or `per-direction` (the layout before session 12, to measure against).
pub const THREADS_ENV: &str = "MPTLAB_EMU_THREADS";

impl EmuOptions {
    /// The defaults with `MPTLAB_EMU_THREADS` applied.
    pub fn from_env() -> io::Result<EmuOptions> {
        let mut o = EmuOptions::default();
        match std::env::var(THREADS_ENV).as_deref() {
            Err(_) | Ok("") | Ok("one") => {}
            Ok("per-direction") => o.one_thread = false,
            Ok(v) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{THREADS_ENV}={v:?}: expected \"one\" or \"per-direction\""),
                ))
            }
        }
        if trace_dir().is_some() {
            o.trace_packets = TRACE_ENV_PACKETS;
        }
        Ok(o)
    }
}

/// The directory of `MPTLAB_EMU_TRACE`, if set.
pub fn trace_dir() -> Option<std::path::PathBuf> {
    std::env::var_os(TRACE_ENV)
        .filter(|v| !v.is_empty())
        .map(Into::into)
}

/// Write each report's trace to `dir/<prefix><direction>.csv` (times in ns
/// of the emulator's clock).
pub fn write_traces(
    dir: &std::path::Path,
    prefix: &str,
    reps: &[DirectionReport],
) -> io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    for r in reps.iter().filter(|r| !r.trace.is_empty()) {
        let f = std::fs::File::create(dir.join(format!("{prefix}{}.csv", r.name)))?;
        let mut w = io::BufWriter::new(f);
        writeln!(
            w,
            "read_ns,due_ns,written_ns,woke_idle,proto,ip_id,len,dropped"
        )?;
        for t in &r.trace {
            writeln!(
                w,
                "{},{},{},{},{},{},{},{}",
                t.read,
                t.due,
                t.written,
                t.woke_idle as u8,
                t.proto,
                t.ip_id,
                t.len,
                t.dropped as u8
            )?;
        }
        w.flush()?;
    }
    Ok(())
}

/// What one direction did.
#[derive(Clone, Debug, Default)]
pub struct DirectionReport {
    pub name: String,
    pub stats: LinkStats,
    /// Packets larger than the read buffer (cut short by the kernel) and dropped.
    pub drops_oversize: u64,
    pub read_errors: u64,
    pub write_errors: u64,
    /// First write error seen, for diagnosis.
    pub first_write_error: Option<String>,
    /// Release time minus the model's delivery time, in ns.
    pub lateness: Histogram,
    /// Packets still queued (discarded) when the emulator stopped.
    pub discarded_at_stop: u64,
    /// Time the direction ran, in ns.
    pub elapsed_ns: Nanos,
    /// Why the real-time priority could not be set, if it could not.
    pub realtime_error: Option<String>,
    /// Per-packet timing of the first `EmuOptions::trace_packets` packets read.
    pub trace: Vec<PacketTrace>,
    /// The CPU figures of the thread that ran this direction, on the first
    /// direction of each thread (`threadstat`).
    pub thread: Option<ThreadReport>,
}

/// When one packet was read, due and written (clock ns).
#[derive(Clone, Copy, Debug, Default)]
pub struct PacketTrace {
    /// Read from the ingress device (the time offered to the model).
    pub read: Nanos,
    /// The model's delivery time.
    pub due: Nanos,
    /// Written to the egress device (after the write returned).
    pub written: Nanos,
    /// The thread was blocked waiting for input (nothing queued) when the
    /// packet arrived: the packet woke an idle emulator.
    pub woke_idle: bool,
    /// IPv4 protocol number (byte 9 of the packet), to tell probe kinds apart.
    pub proto: u8,
    /// IPv4 identification (bytes 4-5): routers keep it, so one packet can be
    /// followed across the directions it crosses.
    pub ip_id: u16,
    /// Packet length in bytes.
    pub len: u32,
    /// The model dropped it (queue, loss or outage): `due` and `written` are 0.
    pub dropped: bool,
}

/// Append a trace entry for a packet read at `t` (if the trace has room):
/// `due` is the model's delivery time, `None` for a drop. Returns its index.
pub(crate) fn record_trace(
    trace: &mut Vec<PacketTrace>,
    limit: usize,
    t: Nanos,
    due: Option<Nanos>,
    woke_idle: bool,
    pkt: &[u8],
) -> Option<usize> {
    if trace.len() >= limit {
        return None;
    }
    trace.push(PacketTrace {
        read: t,
        due: due.unwrap_or(0),
        written: 0,
        woke_idle,
        proto: pkt.get(9).copied().unwrap_or(0),
        ip_id: pkt
            .get(4..6)
            .map_or(0, |b| u16::from_be_bytes([b[0], b[1]])),
        len: pkt.len() as u32,
        dropped: due.is_none(),
    });
    Some(trace.len() - 1)
}

/// Running emulator threads.
pub struct Emulator {
    /// The open CPU latency QoS request (`EmuOptions::cpu_latency_us`),
    /// closed (request removed) when the emulator is dropped.
    cpu_qos: Option<std::fs::File>,
    /// Why the request could not be made, if it could not.
    cpu_qos_error: Option<String>,
    clock: Clock,
    stop: Arc<AtomicBool>,
    /// Each thread reports on the directions it ran.
    threads: Vec<JoinHandle<Vec<DirectionReport>>>,
    names: Vec<Vec<String>>,
}

impl Emulator {
    /// Start one thread per direction. Every direction shares `clock`, so
    /// outage times in the link parameters are relative to the same instant.
    pub fn start(dirs: Vec<DirectionSpec>, opts: EmuOptions, clock: Clock) -> io::Result<Emulator> {
        for d in &dirs {
            d.params.validate().map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("direction {}: {e}", d.name),
                )
            })?;
        }
        if opts.mtu < 68 || opts.mtu > 65535 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("mtu {} out of range 68..=65535", opts.mtu),
            ));
        }
        let (cpu_qos, cpu_qos_error) = match opts.cpu_latency_us {
            Some(us) => match cpu_latency_request(us) {
                Ok(f) => (Some(f), None),
                Err(e) => (None, Some(e.to_string())),
            },
            None => (None, None),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        let mut names = Vec::new();
        if opts.one_thread {
            names.push(dirs.iter().map(|d| d.name.clone()).collect());
            let (stop2, opts2) = (stop.clone(), opts.clone());
            let h = std::thread::Builder::new()
                .name("emu-all".into())
                .spawn(move || crate::oneloop::run_all(dirs, clock, stop2, opts2))
                .map_err(|e| io::Error::other(format!("spawn emulator thread: {e}")))?;
            threads.push(h);
        } else {
            Self::spawn_per_direction(dirs, clock, &stop, &opts, &mut threads, &mut names)?;
        }
        Ok(Emulator {
            cpu_qos,
            cpu_qos_error,
            clock,
            stop,
            threads,
            names,
        })
    }

    /// One thread per link direction (`MPTLAB_EMU_THREADS=per-direction`), each
    /// pinned when asked; on a failed spawn the started ones are stopped.
    fn spawn_per_direction(
        dirs: Vec<DirectionSpec>,
        clock: Clock,
        stop: &Arc<AtomicBool>,
        opts: &EmuOptions,
        threads: &mut Vec<JoinHandle<Vec<DirectionReport>>>,
        names: &mut Vec<Vec<String>>,
    ) -> io::Result<()> {
        // SAFETY: sysconf has no preconditions.
        let ncpu = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
        for (k, d) in dirs.into_iter().enumerate() {
            let stop2 = stop.clone();
            let opts2 = opts.clone();
            names.push(vec![d.name.clone()]);
            let cpu = opts.pin_cpus.then_some((k / 2) % ncpu);
            let h = std::thread::Builder::new()
                .name(format!("emu-{}", d.name))
                .spawn(move || {
                    if let Some(c) = cpu {
                        pin_to_cpu(c);
                    }
                    vec![if opts2.split_threads {
                        run_split(d, clock, stop2, opts2)
                    } else {
                        run_direction(d, k, clock, stop2, opts2)
                    }]
                });
            match h {
                Ok(h) => threads.push(h),
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    for t in threads.drain(..) {
                        let _ = t.join();
                    }
                    return Err(io::Error::other(format!("spawn emulator thread: {e}")));
                }
            }
        }
        Ok(())
    }

    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Whether the CPU latency QoS request is held, and why not if it was
    /// asked for and failed (e.g. not root, no `/dev/cpu_dma_latency`).
    pub fn cpu_qos(&self) -> (bool, Option<&str>) {
        (self.cpu_qos.is_some(), self.cpu_qos_error.as_deref())
    }

    /// A flag that stops the emulator when set (e.g. from a signal thread).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stop all directions and collect their reports.
    pub fn stop(mut self) -> Vec<DirectionReport> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> Vec<DirectionReport> {
        self.stop.store(true, Ordering::SeqCst);
        // Closing the file removes the request.
        self.cpu_qos = None;
        let names = std::mem::take(&mut self.names);
        std::mem::take(&mut self.threads)
            .into_iter()
            .zip(names)
            .flat_map(|(t, names)| {
                t.join().unwrap_or_else(|_| {
                    names
                        .into_iter()
                        .map(|name| DirectionReport {
                            name: format!("{name} (thread panicked)"),
                            ..Default::default()
                        })
                        .collect()
                })
            })
            .collect()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

pub(crate) struct Queued {
    pub(crate) at: Nanos,
    pub(crate) len: usize,
    pub(crate) buf: Vec<u8>,
    /// Index into the trace, if this packet is traced.
    pub(crate) trace: Option<usize>,
}

fn run_direction(
    spec: DirectionSpec,
    index: usize,
    clock: Clock,
    stop: Arc<AtomicBool>,
    opts: EmuOptions,
) -> DirectionReport {
    set_min_timer_slack();
    let started = clock.now();
    let mut rep = DirectionReport {
        name: spec.name.clone(),
        ..Default::default()
    };
    if let Some(prio) = opts.realtime_priority {
        if let Err(e) = set_realtime(prio) {
            rep.realtime_error = Some(e.to_string());
        }
    }
    let mut model = LinkModel::new(spec.params, spec.rng);
    let mut queue: VecDeque<Queued> = VecDeque::new();
    // Recycled buffers: no allocation per packet in steady state. One byte
    // more than the MTU detects packets the kernel would cut short.
    let buf_len = opts.mtu + 1;
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut spare: Option<Vec<u8>> = None;

    // Release every packet due at the clock's current time.
    let release =
        |queue: &mut VecDeque<Queued>, pool: &mut Vec<Vec<u8>>, rep: &mut DirectionReport| loop {
            let now = clock.now();
            match queue.front() {
                Some(q) if q.at <= now => {}
                _ => return,
            }
            let q = queue.pop_front().expect("front checked");
            if let Err(e) = spec.egress.send(&q.buf[..q.len]) {
                rep.write_errors += 1;
                if rep.first_write_error.is_none() {
                    rep.first_write_error = Some(format!("write to {}: {e}", spec.egress.name()));
                }
            }
            rep.lateness.record(now - q.at);
            if let Some(i) = q.trace {
                rep.trace[i].written = clock.now();
            }
            pool.push(q.buf);
        };

    // Read one packet if one is waiting. Returns true if a packet was read.
    let mut read_one = |queue: &mut VecDeque<Queued>,
                        pool: &mut Vec<Vec<u8>>,
                        rep: &mut DirectionReport,
                        woke_idle: bool|
     -> bool {
        let mut buf = spare
            .take()
            .or_else(|| pool.pop())
            .unwrap_or_else(|| vec![0u8; buf_len]);
        match spec.ingress.recv(&mut buf) {
            Ok(Some(n)) => {
                let t = clock.now();
                if n > opts.mtu {
                    rep.drops_oversize += 1;
                    pool.push(buf);
                    return true;
                }
                match offer(&mut model, &opts, index, t, &buf[..n]) {
                    Verdict::Deliver { at } => {
                        let trace = record_trace(
                            &mut rep.trace,
                            opts.trace_packets,
                            t,
                            Some(at),
                            woke_idle,
                            &buf[..n],
                        );
                        let q = Queued {
                            at,
                            len: n,
                            buf,
                            trace,
                        };
                        if queue.back().is_none_or(|b| b.at <= at) {
                            queue.push_back(q);
                        } else {
                            let pos = queue.partition_point(|x| x.at <= at);
                            queue.insert(pos, q);
                        }
                    }
                    _ => {
                        record_trace(
                            &mut rep.trace,
                            opts.trace_packets,
                            t,
                            None,
                            woke_idle,
                            &buf[..n],
                        );
                        pool.push(buf)
                    }
                }
                true
            }
            Ok(None) => {
                spare = Some(buf);
                false
            }
            Err(_) => {
                // Back off: a broken device may keep failing at once.
                rep.read_errors += 1;
                spare = Some(buf);
                std::thread::sleep(std::time::Duration::from_millis(1));
                false
            }
        }
    };

    // Spin budget in ns (token bucket refilled at `spin_fraction`).
    let budget_cap = (opts.spin_ns * 20) as f64;
    let mut budget = budget_cap;
    let mut budget_at = clock.now();
    // The thread last blocked with nothing queued (so the next packet read
    // is one that woke an idle emulator).
    let mut idle = false;
    let mut stalls = StallMeter::new(clock.now());
    loop {
        stalls.tick(clock.now());
        release(&mut queue, &mut pool, &mut rep);
        if read_one(&mut queue, &mut pool, &mut rep, idle) {
            idle = false;
            continue;
        }
        idle = false;
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let now = clock.now();
        budget = (budget + (now - budget_at) as f64 * opts.spin_fraction).min(budget_cap);
        budget_at = now;
        match queue.front().map(|q| q.at) {
            // Time passed since `release` ran: `at` may already be due.
            Some(at) if at <= now => {}
            Some(at) if at <= now + opts.spin_ns && budget >= (at - now) as f64 => {
                // Busy-wait for the release, still taking arrivals.
                while clock.now() < at {
                    if read_one(&mut queue, &mut pool, &mut rep, false) {
                        // A new arrival cannot be due before `at` (FIFO), keep spinning.
                        continue;
                    }
                    std::hint::spin_loop();
                }
                let end = clock.now();
                budget -= (end - now) as f64;
            }
            Some(at) if at <= now + opts.spin_ns => {
                // Out of spin budget: sleep to the release time itself.
                wait_ingress(&spec.ingress, (at - now).min(opts.max_wait_ns), &mut rep);
                stalls.resume(clock.now());
            }
            Some(at) => {
                wait_ingress(
                    &spec.ingress,
                    (at - opts.spin_ns - now).min(opts.max_wait_ns),
                    &mut rep,
                );
                stalls.resume(clock.now());
            }
            None => {
                wait_ingress(&spec.ingress, opts.max_wait_ns, &mut rep);
                stalls.resume(clock.now());
                idle = true;
            }
        }
    }
    rep.thread = Some(stalls.finish(clock.now()));
    rep.discarded_at_stop = queue.len() as u64;
    rep.stats = model.stats().clone();
    rep.elapsed_ns = clock.now() - started;
    rep
}

/// Offer a packet read at `t` to direction `index`'s model: without a loss
/// draw if it belongs to the agent's hello exchange (`EmuOptions::hello`).
#[inline]
pub(crate) fn offer(
    model: &mut LinkModel,
    opts: &EmuOptions,
    index: usize,
    t: Nanos,
    pkt: &[u8],
) -> Verdict {
    match &opts.hello {
        Some(f) if f.exempt(index, pkt) => model.offer_without_loss(t, pkt.len() as u32),
        _ => model.offer(t, pkt.len() as u32),
    }
}

/// Wait for input on `tun` up to `ns`. A broken descriptor (device deleted)
/// makes ppoll return at once; back off 1 ms so a real-time thread does not
/// spin on it.
fn wait_ingress(tun: &Tun, ns: Nanos, rep: &mut DirectionReport) {
    if tun.wait_readable(ns).is_err() {
        rep.read_errors += 1;
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Packets handed from the reader to the writer of a split direction.
struct Handoff {
    queue: std::sync::Mutex<(VecDeque<Queued>, Vec<Vec<u8>>)>,
    cv: std::sync::Condvar,
}

/// Split mode: this thread releases, a helper thread reads and offers.
fn run_split(
    spec: DirectionSpec,
    clock: Clock,
    stop: Arc<AtomicBool>,
    opts: EmuOptions,
) -> DirectionReport {
    set_min_timer_slack();
    let started = clock.now();
    let mut rep = DirectionReport {
        name: spec.name.clone(),
        ..Default::default()
    };
    if let Some(prio) = opts.realtime_priority {
        if let Err(e) = set_realtime(prio) {
            rep.realtime_error = Some(e.to_string());
        }
    }
    let h = Arc::new(Handoff {
        queue: std::sync::Mutex::new((VecDeque::new(), Vec::new())),
        cv: std::sync::Condvar::new(),
    });
    let reader = {
        let h = h.clone();
        let stop = stop.clone();
        let ingress = spec.ingress.clone();
        let params = spec.params.clone();
        let rng = spec.rng.clone();
        let opts = opts.clone();
        std::thread::Builder::new()
            .name(format!("emu-{}-rd", spec.name))
            .spawn(move || {
                set_min_timer_slack();
                if let Some(prio) = opts.realtime_priority {
                    let _ = set_realtime(prio);
                }
                let mut model = LinkModel::new(params, rng);
                let (mut oversize, mut errors) = (0u64, 0u64);
                let mut buf = vec![0u8; opts.mtu + 1];
                while !stop.load(Ordering::Relaxed) {
                    match ingress.recv(&mut buf) {
                        Ok(Some(n)) => {
                            let t = clock.now();
                            if n > opts.mtu {
                                oversize += 1;
                                continue;
                            }
                            if let Verdict::Deliver { at } = model.offer(t, n as u32) {
                                let mut g = h.queue.lock().unwrap_or_else(|p| p.into_inner());
                                let next = g.1.pop().unwrap_or_else(|| vec![0u8; opts.mtu + 1]);
                                let full = std::mem::replace(&mut buf, next);
                                let was_empty = g.0.is_empty();
                                let q = Queued {
                                    at,
                                    len: n,
                                    buf: full,
                                    trace: None,
                                };
                                if g.0.back().is_none_or(|b| b.at <= at) {
                                    g.0.push_back(q);
                                } else {
                                    let pos = g.0.partition_point(|x| x.at <= at);
                                    g.0.insert(pos, q);
                                }
                                drop(g);
                                if was_empty {
                                    h.cv.notify_one();
                                }
                            }
                        }
                        Ok(None) => {
                            if ingress.wait_readable(opts.max_wait_ns).is_err() {
                                errors += 1;
                                std::thread::sleep(std::time::Duration::from_millis(1));
                            }
                        }
                        Err(_) => {
                            errors += 1;
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                    }
                }
                h.cv.notify_one();
                (model.stats().clone(), oversize, errors)
            })
    };
    let reader = match reader {
        Ok(r) => r,
        Err(e) => {
            rep.read_errors += 1;
            rep.first_write_error = Some(format!("spawn reader thread: {e}"));
            return rep;
        }
    };
    let budget_cap = (opts.spin_ns * 20) as f64;
    let mut budget = budget_cap;
    let mut budget_at = clock.now();
    let max_wait = std::time::Duration::from_nanos(opts.max_wait_ns);
    let mut g = h.queue.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let now = clock.now();
        match g.0.front().map(|q| q.at) {
            None => {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                g =
                    h.cv.wait_timeout(g, max_wait)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
            }
            Some(at) if at <= now => {
                let q = g.0.pop_front().expect("front checked");
                drop(g);
                if let Err(e) = spec.egress.send(&q.buf[..q.len]) {
                    rep.write_errors += 1;
                    if rep.first_write_error.is_none() {
                        rep.first_write_error =
                            Some(format!("write to {}: {e}", spec.egress.name()));
                    }
                }
                rep.lateness.record(now - q.at);
                g = h.queue.lock().unwrap_or_else(|p| p.into_inner());
                g.1.push(q.buf);
            }
            Some(at) => {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                // Later arrivals are never due before the head (FIFO), so
                // sleeping to the head's time cannot miss a release.
                drop(g);
                budget = (budget + (now - budget_at) as f64 * opts.spin_fraction).min(budget_cap);
                budget_at = now;
                let wait = (at - now).min(opts.max_wait_ns);
                if budget >= opts.spin_ns as f64 {
                    clock.sleep_until(now + wait, opts.spin_ns);
                    budget -= (clock.now() - now).min(opts.spin_ns) as f64;
                } else {
                    clock.sleep_until(now + wait, 0);
                }
                g = h.queue.lock().unwrap_or_else(|p| p.into_inner());
            }
        }
    }
    rep.discarded_at_stop = g.0.len() as u64;
    drop(g);
    match reader.join() {
        Ok((stats, oversize, errors)) => {
            rep.stats = stats;
            rep.drops_oversize = oversize;
            rep.read_errors += errors;
        }
        Err(_) => rep.name = format!("{} (reader thread panicked)", rep.name),
    }
    rep.elapsed_ns = clock.now() - started;
    rep
}

/// The device of the kernel's CPU latency QoS (PM QoS) requests.
pub const CPU_LATENCY_DEV: &str = "/dev/cpu_dma_latency";

/// Open a CPU latency QoS request of `us` microseconds: the kernel keeps
/// it while the returned file is open (`cpu_latency_qos_open` /
/// `cpu_latency_qos_write` in kernel/power/qos.c take a binary s32).
pub fn cpu_latency_request(us: i32) -> io::Result<std::fs::File> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(CPU_LATENCY_DEV)
        .map_err(|e| io::Error::new(e.kind(), format!("open {CPU_LATENCY_DEV}: {e}")))?;
    f.write_all(&us.to_ne_bytes())
        .map_err(|e| io::Error::new(e.kind(), format!("write {CPU_LATENCY_DEV}: {e}")))?;
    Ok(f)
}

/// The CPU latency limit in force now (the smallest open request, or the
/// default), as `read` on the device reports it (`cpu_latency_qos_read`).
pub fn cpu_latency_limit() -> io::Result<i32> {
    use std::io::Read;
    let mut b = [0u8; 4];
    std::fs::File::open(CPU_LATENCY_DEV)?.read_exact(&mut b)?;
    Ok(i32::from_ne_bytes(b))
}

/// Best effort: restrict the calling thread to CPU `c`.
fn pin_to_cpu(c: usize) {
    // SAFETY: cpu_set_t is plain data; CPU_SET stays within its bounds for c < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if c < libc::CPU_SETSIZE as usize {
            libc::CPU_SET(c, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
}

/// Make the calling thread SCHED_FIFO at `prio`.
pub fn set_realtime(prio: i32) -> io::Result<()> {
    let p = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: valid sched_param; pid 0 is the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("sched_setscheduler(SCHED_FIFO, {prio}): {e}"),
        ));
    }
    Ok(())
}

/// Reports as a JSON array (hand-written: the crate stays dependency-free).
pub fn reports_to_json(reps: &[DirectionReport]) -> String {
    let mut s = String::from("[\n");
    for (i, r) in reps.iter().enumerate() {
        let st = &r.stats;
        s.push_str(&format!(
            concat!(
                "  {{\"direction\": {}, \"elapsed_ns\": {}, \"packets_offered\": {}, \"bytes_offered\": {}, ",
                "\"packets_delivered\": {}, \"bytes_delivered\": {}, \"drops_queue\": {}, \"drops_loss\": {}, ",
                "\"drops_outage\": {}, \"drops_oversize\": {}, \"max_queue_packets\": {}, \"max_queue_bytes\": {}, ",
                "\"read_errors\": {}, \"write_errors\": {}, \"first_write_error\": {}, \"discarded_at_stop\": {}, ",
                "\"realtime_error\": {}, ",
                "\"release_lateness_ns\": {{\"count\": {}, \"p50\": {}, \"p99\": {}, \"max\": {}}}}}{}\n"
            ),
            json_str(&r.name),
            r.elapsed_ns,
            st.packets_offered,
            st.bytes_offered,
            st.packets_delivered,
            st.bytes_delivered,
            st.drops_queue,
            st.drops_loss,
            st.drops_outage,
            r.drops_oversize,
            st.max_queue_packets,
            st.max_queue_bytes,
            r.read_errors,
            r.write_errors,
            r.first_write_error.as_deref().map(json_str).unwrap_or_else(|| "null".into()),
            r.discarded_at_stop,
            r.realtime_error.as_deref().map(json_str).unwrap_or_else(|| "null".into()),
            r.lateness.count(),
            r.lateness.quantile(0.5),
            r.lateness.quantile(0.99),
            r.lateness.max(),
            if i + 1 < reps.len() { "," } else { "" }
        ));
    }
    s.push(']');
    s
}

/// A JSON string literal.
pub fn json_str(v: &str) -> String {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes() {
        assert_eq!(json_str("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
    }

    #[test]
    fn reports_json_shape() {
        let r = DirectionReport {
            name: "p1.up".into(),
            ..Default::default()
        };
        let j = reports_to_json(&[r.clone(), r]);
        assert!(j.starts_with("[\n  {\"direction\": \"p1.up\""));
        assert_eq!(j.matches("release_lateness_ns").count(), 2);
        assert!(j.ends_with("}\n]"));
    }
}
