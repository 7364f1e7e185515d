//! All directions of an emulator in one thread (`EmuOptions::one_thread`,
//! the default).
//!
//! Why: a packet that reaches an idle direction thread has to wake it (ppoll
//! returns, the thread is scheduled, it reads), and that wake-up is delay
//! the model never sees, because the packet is offered when it is read.
//! Measured with `mptlab-linkemu latency` (docs/emulation.md, "Idle
//! wake-up"): 45-50 us per traversal at the median on this VM, against 5 us
//! for a packet reaching a busy thread; the CPU latency QoS request did not
//! change it, keeping sender and emulator on one CPU cut it to 30 us.
//!
//! Most packets of a TCP connection are produced *inside the emulator's own
//! TUN write*: writing a packet into a namespace runs that namespace's
//! stack in the writing thread (`tun_get_user` -> `netif_receive_skb`), so
//! the receiver's ACK, the router's forwarded packet and the sender's next
//! segments sent on that ACK (`tcp_ack` -> `tcp_data_snd_check`) are queued
//! on the next TUN device before the write returns. With one thread per
//! direction each of them wakes another thread; here the same thread reads
//! them right after the write, at no wake-up cost. Only packets the
//! applications send on their own (a write, a timer) still wake the loop.
//!
//! The loop: release every due packet of every direction (earliest first),
//! read at most one packet from each ingress, repeat while anything
//! happened; then sleep in one `ppoll` over all ingress devices until
//! `spin_ns` before the next release and busy-wait the rest (within the
//! spin budget), as the per-direction loop does.

use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use mptlab_core::link::{LinkModel, Verdict};
use mptlab_core::Nanos;

use crate::clock::{set_min_timer_slack, Clock};
use crate::emulator::{
    offer, record_trace, set_realtime, DirectionReport, DirectionSpec, EmuOptions, Queued,
};
use crate::threadstat::StallMeter;

struct Dir {
    index: usize,
    spec: DirectionSpec,
    model: LinkModel,
    queue: VecDeque<Queued>,
    rep: DirectionReport,
}

/// Run every direction until `stop`; one report per direction, in order.
pub fn run_all(
    specs: Vec<DirectionSpec>,
    clock: Clock,
    stop: Arc<AtomicBool>,
    opts: EmuOptions,
) -> Vec<DirectionReport> {
    set_min_timer_slack();
    let started = clock.now();
    let rt_error = opts
        .realtime_priority
        .and_then(|p| set_realtime(p).err().map(|e| e.to_string()));
    let mut dirs: Vec<Dir> = specs
        .into_iter()
        .enumerate()
        .map(|(index, spec)| {
            let model = LinkModel::new(spec.params.clone(), spec.rng.clone());
            let rep = DirectionReport {
                name: spec.name.clone(),
                realtime_error: rt_error.clone(),
                ..Default::default()
            };
            Dir {
                index,
                spec,
                model,
                queue: VecDeque::new(),
                rep,
            }
        })
        .collect();
    let mut pfds: Vec<libc::pollfd> = dirs
        .iter()
        .map(|d| libc::pollfd {
            fd: d.spec.ingress.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let buf_len = opts.mtu + 1;
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let budget_cap = (opts.spin_ns * 20) as f64;
    let mut budget = budget_cap;
    let mut stalls = StallMeter::new(clock.now());
    // The last wait blocked (not a spin): the next packets read woke the loop.
    let mut blocked = false;
    loop {
        stalls.tick(clock.now());
        let mut worked = release_due(&mut dirs, &mut pool, clock);
        if worked {
            // What is read now may have been made by those writes.
            blocked = false;
        }
        for d in dirs.iter_mut() {
            worked |= read_one(d, &mut pool, clock, &opts, buf_len, blocked);
        }
        blocked = false;
        if worked {
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let now = clock.now();
        let next = dirs
            .iter()
            .filter_map(|d| d.queue.front().map(|q| q.at))
            .min();
        match next {
            Some(at) if at <= now => {}
            Some(at) if at <= now + opts.spin_ns && budget >= (at - now) as f64 => {
                // Busy-wait for the release; leave early when input arrives
                // (it is read, then the release is still waited for).
                while clock.now() < at {
                    if poll_all(&mut pfds, 0) {
                        break;
                    }
                    std::hint::spin_loop();
                }
                budget -= (clock.now() - now) as f64;
            }
            Some(at) => {
                // Sleep to the release (out of spin budget), or to `spin_ns`
                // before it; or until input when nothing is queued.
                let ns = if at <= now + opts.spin_ns {
                    at - now
                } else {
                    at - opts.spin_ns - now
                };
                let slept = wait(&mut pfds, ns.min(opts.max_wait_ns), &mut dirs, clock);
                budget = refill(budget, slept, opts.spin_fraction, budget_cap);
                stalls.resume(clock.now());
                blocked = true;
            }
            None => {
                let slept = wait(&mut pfds, opts.max_wait_ns, &mut dirs, clock);
                budget = refill(budget, slept, opts.spin_fraction, budget_cap);
                stalls.resume(clock.now());
                blocked = true;
            }
        }
    }
    let end = clock.now();
    let thread = stalls.finish(end);
    let elapsed = end - started;
    dirs.into_iter()
        .map(|mut d| {
            d.rep.discarded_at_stop = d.queue.len() as u64;
            d.rep.stats = d.model.stats().clone();
            d.rep.elapsed_ns = elapsed;
            // The thread's figures once, on its first direction.
            d.rep.thread = (d.index == 0).then_some(thread);
            d.rep
        })
        .collect()
}

/// The spin budget after sleeping `slept_ns`: it refills at `fraction` of the
/// time the thread **slept**, not of wall time. Why (session 18): a real-time
/// thread may run at most 95 % of each second on its CPU before the kernel
/// throttles it for the rest (Documentation/scheduler/sched-rt-group.rst);
/// the one thread's work at an 83 Mbit/s four-hop path under load is most of
/// a CPU, and a budget refilled from wall time let it spin another 20 % on
/// top, past the limit (frozen ~50 ms about once a second). Refilled from
/// sleep, spinning takes at most `fraction` of the time the thread has no
/// work: an idle emulator (the wake-up case the spin is for) still spins
/// before every release, a saturated one no longer does.
pub fn refill(budget: f64, slept_ns: Nanos, fraction: f64, cap: f64) -> f64 {
    (budget + slept_ns as f64 * fraction).min(cap)
}

/// Write every packet due now, earliest first across directions. Returns
/// whether any was written.
fn release_due(dirs: &mut [Dir], pool: &mut Vec<Vec<u8>>, clock: Clock) -> bool {
    let mut any = false;
    loop {
        let now = clock.now();
        let Some(i) = dirs
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.queue.front().map(|q| (q.at, i)))
            .filter(|&(at, _)| at <= now)
            .min()
            .map(|(_, i)| i)
        else {
            return any;
        };
        let d = &mut dirs[i];
        let q = d.queue.pop_front().expect("front checked");
        if let Err(e) = d.spec.egress.send(&q.buf[..q.len]) {
            d.rep.write_errors += 1;
            if d.rep.first_write_error.is_none() {
                d.rep.first_write_error = Some(format!("write to {}: {e}", d.spec.egress.name()));
            }
        }
        d.rep.lateness.record(now - q.at);
        if let Some(t) = q.trace {
            d.rep.trace[t].written = clock.now();
        }
        pool.push(q.buf);
        any = true;
    }
}

/// Read one packet from `d`'s ingress if one is waiting and offer it.
fn read_one(
    d: &mut Dir,
    pool: &mut Vec<Vec<u8>>,
    clock: Clock,
    opts: &EmuOptions,
    buf_len: usize,
    woke_idle: bool,
) -> bool {
    let mut buf = pool.pop().unwrap_or_else(|| vec![0u8; buf_len]);
    match d.spec.ingress.recv(&mut buf) {
        Ok(Some(n)) => {
            let t = clock.now();
            if n > opts.mtu {
                d.rep.drops_oversize += 1;
                pool.push(buf);
                return true;
            }
            match offer(&mut d.model, opts, d.index, t, &buf[..n]) {
                Verdict::Deliver { at } => {
                    let trace = record_trace(
                        &mut d.rep.trace,
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
                    if d.queue.back().is_none_or(|b| b.at <= at) {
                        d.queue.push_back(q);
                    } else {
                        let pos = d.queue.partition_point(|x| x.at <= at);
                        d.queue.insert(pos, q);
                    }
                }
                _ => {
                    record_trace(
                        &mut d.rep.trace,
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
            pool.push(buf);
            false
        }
        Err(_) => {
            d.rep.read_errors += 1;
            pool.push(buf);
            false
        }
    }
}

/// `ppoll` on every ingress for up to `ns`; true if any is readable.
fn poll_all(pfds: &mut [libc::pollfd], ns: Nanos) -> bool {
    for p in pfds.iter_mut() {
        p.revents = 0;
    }
    let ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: valid pollfd array of its length; null sigmask.
    let r = unsafe {
        libc::ppoll(
            pfds.as_mut_ptr(),
            pfds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    r > 0
}

/// Block until input or `ns`; returns how long it blocked. A device in
/// error (deleted under us) makes ppoll return at once: count it and back
/// off 1 ms so a real-time thread does not spin on it.
fn wait(pfds: &mut [libc::pollfd], ns: Nanos, dirs: &mut [Dir], clock: Clock) -> Nanos {
    let t0 = clock.now();
    if !poll_all(pfds, ns) {
        return clock.now() - t0;
    }
    let mut broken = false;
    for (p, d) in pfds.iter().zip(dirs.iter_mut()) {
        if p.revents & libc::POLLIN == 0
            && p.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
        {
            d.rep.read_errors += 1;
            broken = true;
        }
    }
    if broken {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    clock.now() - t0
}
