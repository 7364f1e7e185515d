//! Application failover on the kernel (seed 004 sec. 4.4,
//! `traffic.failover_path` / `failover_after_s`): the simulator's
//! `FailoverBulkApp` (crates/sim/src/failover.rs) over real TCP sockets.
//!
//! A saturated TCP transfer starts at `traffic.start_s` on a socket bound to
//! `transport.path`'s client address. The application sees its path fail
//! only as a stall: when the receiving application has read nothing on the
//! active connection for `failover_after_s` (its last read, or the
//! connection's set-up on either side, whichever is later), it opens a new
//! TCP connection bound to the failover path's address and keeps that one's
//! send buffer full from then on; it never switches back. The abandoned
//! connection is neither closed nor reset: data already in its send buffer
//! is still delivered if the old path returns, and counts as that flow's
//! goodput (`bulk`), as in the simulator. The new connection is the flow
//! `bulk-failover`. The outage itself is the path's `outages` in the link
//! emulator (both directions of the emulated link).
//!
//! Both ends run in this process (the agent's threads), so the
//! application's one view of "delivered" and "switched" is shared memory,
//! as it is the one `FailoverBulkApp` object in the simulator. The
//! connections use the agent's hello (kind bulk, connection index 0 for the
//! first, 1 for the failover connection) on their own port.
//!
//! Emulation-only metrics (`summary.json`): `emu.failover_switch_s` (when the
//! application reconnected), `emu.failover_last_progress_s` (its last read
//! on the first connection, or that connection's set-up), and
//! `emu.failover_first_byte_s` (first byte read on the new connection).

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mptlab_core::Nanos;

use crate::agent::{hello, Busy, ClientEnv, ConnRec, Plan, Shared, HELLO_LEN, KIND_BULK, MAGIC};
use crate::netns;
use crate::sock;

/// Port of the failover transfer's listener in the server namespace (the
/// agent's own listener is `run::AGENT_PORT`; the UDP client uses +1).
pub const PORT: u16 = crate::run::AGENT_PORT + 2;
/// How often blocked reads and writes look at the stop and switch flags.
const POLL: Duration = Duration::from_millis(20);

/// What the failover application needs beyond the agent's plan.
#[derive(Clone, Debug)]
pub struct FailoverPlan {
    /// Client address of the failover path.
    pub backup: Ipv4Addr,
    /// Stall time before the application reconnects.
    pub after: Nanos,
    /// `traffic.start_s`.
    pub start: Nanos,
}

/// When things happened, ns since the run origin.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub switched_at: Option<Nanos>,
    pub last_progress: Option<Nanos>,
    pub first_byte: Option<Nanos>,
}

const LABELS: [&str; 2] = ["bulk", "bulk-failover"];
const NONE: u64 = u64::MAX;

/// The application's state, shared by its threads.
struct App {
    /// Last progress on the active connection (absolute clock ns).
    progress: AtomicU64,
    /// Index of the active connection (0 first, 1 failover).
    active: AtomicUsize,
    /// First byte read on the failover connection (absolute ns), or NONE.
    first_byte: AtomicU64,
    server_sends: bool,
}

impl App {
    fn progress(&self, idx: usize, now: u64) {
        if self.active.load(Ordering::SeqCst) == idx {
            self.progress.store(now, Ordering::SeqCst);
        }
    }
}

/// Sender: keep the send buffer full while `idx` is the active connection.
fn send(mut s: TcpStream, idx: usize, app: &App, stop: &AtomicBool) {
    let _ = s.set_write_timeout(Some(POLL));
    let buf = vec![0u8; 64 * 1024];
    while !stop.load(Ordering::Relaxed) && app.active.load(Ordering::SeqCst) == idx {
        match s.write(&buf) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => break,
        }
    }
    // The abandoned connection stays open (its clone is in `rec.conns`).
}

/// Receiver: read until the end of the run; a read is progress.
fn receive(mut s: TcpStream, idx: usize, app: &App, plan: &Plan, stop: &AtomicBool, rec: &Shared) {
    let _ = s.set_read_timeout(Some(POLL));
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let now = plan.clock.now();
                total += n as u64;
                if plan.sock.quickack {
                    sock::set_quickack(s.as_raw_fd());
                }
                if idx == 1 {
                    let _ = app.first_byte.compare_exchange(
                        NONE,
                        now,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    );
                }
                app.progress(idx, now);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => break,
        }
    }
    *rec.lock()
        .unwrap()
        .delivered
        .entry(LABELS[idx].into())
        .or_default() += total;
}

/// Sleep until `t` (absolute CLOCK_MONOTONIC ns) or until `stop`, whichever
/// comes first (checked every 20 ms; the last slice ends exactly at `t`).
pub(crate) fn sleep_until_or_stop(t: u64, stop: &AtomicBool) {
    loop {
        let now = crate::clock::monotonic_ns();
        if now >= t || stop.load(Ordering::Relaxed) {
            return;
        }
        crate::clock::sleep_abs(t.min(now + POLL.as_nanos() as u64));
    }
}

/// Connect `fd` from `src` to `dst` without blocking past `stop` (a SYN
/// into an outage is retried by the kernel for minutes).
pub(crate) fn connect(
    fd: OwnedFd,
    src: Ipv4Addr,
    dst: SocketAddrV4,
    stop: &AtomicBool,
) -> io::Result<TcpStream> {
    sock::bind(&fd, SocketAddrV4::new(src, 0))?;
    let s = TcpStream::from(fd);
    s.set_nonblocking(true)?;
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: dst.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*dst.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: a valid sockaddr_in.
    let r = unsafe {
        libc::connect(
            s.as_raw_fd(),
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as u32,
        )
    };
    if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINPROGRESS) {
        return Err(io::Error::last_os_error());
    }
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("stopped while connecting"));
        }
        let mut p = libc::pollfd {
            fd: s.as_raw_fd(),
            events: libc::POLLOUT,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        if unsafe { libc::poll(&mut p, 1, POLL.as_millis() as i32) } > 0 {
            break;
        }
    }
    if let Some(e) = s.take_error()? {
        return Err(e);
    }
    s.set_nonblocking(false)?;
    Ok(s)
}

/// The client side of connection `idx` from `src`.
#[allow(clippy::too_many_arguments)]
fn client_conn(
    fd: OwnedFd,
    idx: usize,
    src: Ipv4Addr,
    plan: Arc<Plan>,
    app: Arc<App>,
    origin: u64,
    stop: Arc<AtomicBool>,
    rec: Shared,
) {
    let dst = SocketAddrV4::new(*plan.server.ip(), PORT);
    let Ok(mut s) = connect(fd, src, dst, &stop) else {
        return;
    };
    let _busy = Busy::new(&rec);
    app.progress(idx, plan.clock.now());
    if s.write_all(&hello(KIND_BULK, idx as u8, origin)).is_err() {
        return;
    }
    if let Ok(c) = s.try_clone() {
        rec.lock().unwrap().conns.push(ConnRec {
            label: LABELS[idx].into(),
            side: "client",
            stream: c,
        });
    }
    if app.server_sends {
        receive(s, idx, &app, &plan, &stop, &rec);
    } else {
        send(s, idx, &app, &stop);
    }
}

/// The server side: accept the (at most two) connections until `stop`.
fn serve(
    listener: Arc<TcpListener>,
    plan: Arc<Plan>,
    app: Arc<App>,
    stop: Arc<AtomicBool>,
    rec: Shared,
) {
    for _ in 0..2 {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let (plan, app, stop, rec) = (plan.clone(), app.clone(), stop.clone(), rec.clone());
        std::thread::spawn(move || {
            let _busy = Busy::new(&rec);
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut h = [0u8; HELLO_LEN];
            if s.read_exact(&mut h).is_err() || &h[0..4] != MAGIC || h[4] != KIND_BULK || h[5] > 1 {
                rec.lock()
                    .unwrap()
                    .errors
                    .push("failover server: bad hello".into());
                return;
            }
            let idx = h[5] as usize;
            // set-up on the server side is progress too (`AppEvent::Connected`)
            app.progress(idx, plan.clock.now());
            if let Ok(c) = s.try_clone() {
                rec.lock().unwrap().conns.push(ConnRec {
                    label: LABELS[idx].into(),
                    side: "server",
                    stream: c,
                });
            }
            if app.server_sends {
                send(s, idx, &app, &stop);
            } else {
                receive(s, idx, &app, &plan, &stop, &rec);
            }
        });
    }
}

/// Run the failover transfer until `end` (ns after `origin`): the server
/// listens in `server_ns`, the client's sockets come from `env`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    plan: &Arc<Plan>,
    fo: &FailoverPlan,
    env: &ClientEnv,
    server_ns: &str,
    origin: u64,
    end: Nanos,
    stop: &Arc<AtomicBool>,
    rec: &Shared,
) -> io::Result<Report> {
    let clock = plan.clock;
    let primary = plan
        .client_src
        .ok_or_else(|| io::Error::other("failover needs the first path's address"))?;
    let so = plan.sock.clone();
    let addr = SocketAddrV4::new(*plan.server.ip(), PORT);
    let listener = Arc::new(netns::in_netns(server_ns, move || sock::listen(&so, addr))?);
    let app = Arc::new(App {
        progress: AtomicU64::new(origin + fo.start),
        active: AtomicUsize::new(0),
        first_byte: AtomicU64::new(NONE),
        server_sends: plan.server_sends,
    });
    let server = {
        let (l, p, a, s, r) = (
            listener.clone(),
            plan.clone(),
            app.clone(),
            stop.clone(),
            rec.clone(),
        );
        std::thread::spawn(move || serve(l, p, a, s, r))
    };
    let deadline = origin + end;
    let open = |idx: usize, src: Ipv4Addr| -> io::Result<()> {
        let fd = (env.make_socket)()?;
        let (p, a, s, r) = (plan.clone(), app.clone(), stop.clone(), rec.clone());
        std::thread::spawn(move || client_conn(fd, idx, src, p, a, origin, s, r));
        Ok(())
    };
    let mut report = Report::default();
    sleep_until_or_stop(origin + fo.start, stop);
    if clock.now() < deadline && !stop.load(Ordering::Relaxed) {
        app.progress.store(clock.now(), Ordering::SeqCst);
        open(0, primary)?;
    }
    // The application's stall timer (`FailoverBulkApp::on_timer`): at
    // last progress + after, switch if nothing happened since.
    while clock.now() < deadline && !stop.load(Ordering::Relaxed) {
        if report.switched_at.is_some() {
            sleep_until_or_stop(deadline, stop);
            continue;
        }
        let last = app.progress.load(Ordering::SeqCst);
        let due = last + fo.after;
        let now = clock.now();
        if now < due {
            sleep_until_or_stop(due.min(deadline), stop);
            continue;
        }
        app.active.store(1, Ordering::SeqCst);
        app.progress.store(now, Ordering::SeqCst);
        report.switched_at = Some(now - origin);
        report.last_progress = Some(last.saturating_sub(origin));
        open(1, fo.backup)?;
    }
    let fb = app.first_byte.load(Ordering::SeqCst);
    report.first_byte = (fb != NONE).then(|| fb.saturating_sub(origin));
    // Wake the accept of a connection that never came (the caller stops
    // and shuts down the connections themselves).
    // SAFETY: the listener is open (held by `listener`).
    unsafe { libc::shutdown(listener.as_raw_fd(), libc::SHUT_RDWR) };
    let _ = server.join();
    Ok(report)
}
