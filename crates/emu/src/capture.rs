//! Optional packet capture (`mptlab emulate --capture DIR`): one pcap per
//! namespace interface, written by `dumpcap` (or `tshark`) running inside
//! the namespace. Skipped with a note when neither is installed.
//!
//! Completeness. A capture process is only as good as the packets it has
//! read from the kernel when it is stopped: on a loaded machine dumpcap lags
//! behind the interface, and stopping it when the run ends loses the run's
//! tail (seen: a server capture that ended 0.4 s into a 1 MiB download).
//! So the capture counts packets on both ends:
//! - the interface's own counters (`rx_packets + tx_packets + tx_dropped` of the
//!   namespace's device, read when dumpcap reports it is capturing and again
//!   when the run is over): every packet pcap sees on a veth passes these
//!   counters (`veth_xmit` counts tx, the peer's rx; packets dropped before
//!   the device are in neither);
//! - dumpcap's running count (`Packets: N` on its stderr, written every
//!   update interval when not `-q`) and its final report
//!   (`Packets received/dropped on interface ...: R/D`).
//!
//! `stop` waits (up to [`DRAIN_LIMIT`]) while dumpcap's running count is
//! below the interface's and still moving, then stops it with SIGINT and
//! waits for it to read what is left in the kernel's ring, write it and
//! exit; its final count then decides. A capture with fewer packets than the interface passed,
//! or with packets dropped by pcap/dumpcap, is reported incomplete (on
//! stderr and in `DIR/<prefix>capture.csv`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long `stop` waits for dumpcap to catch up with the interface.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(20);
/// How long `start` waits for dumpcap to open its interface.
const START_LIMIT: Duration = Duration::from_secs(20);

/// The capture tool found on PATH, if any.
pub fn tool() -> Option<&'static str> {
    ["dumpcap", "tshark"].into_iter().find(|t| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
    })
}

/// What dumpcap has said on stderr so far.
#[derive(Default, Debug)]
struct Progress {
    /// "Capturing on '...'" seen: the interface is open.
    ready: bool,
    /// Latest packet count ("Packets: N" / "Packets captured: N").
    count: u64,
    /// Final "Packets received/dropped on interface ...: R/D".
    dropped: Option<u64>,
    /// Everything else it wrote (errors), for messages.
    other: String,
}

impl Progress {
    /// Parse one '\r'- or '\n'-separated piece of dumpcap's stderr.
    fn line(&mut self, l: &str) {
        let l = l.trim();
        if l.starts_with("Capturing on") {
            self.ready = true;
        } else if let Some(n) = l
            .strip_prefix("Packets captured:")
            .or_else(|| l.strip_prefix("Packets:"))
        {
            if let Ok(n) = n.trim().parse() {
                self.count = n;
            }
        } else if l.starts_with("Packets received/dropped") {
            // "... 'p1': 600/0 (pcap:0/dumpcap:0/flushed:0/ps_ifdrop:0) (100.0%)"
            let tail = l.rsplit_once("': ").map(|x| x.1).unwrap_or("");
            let rd = tail.split_whitespace().next().unwrap_or("");
            if let Some((_, d)) = rd.split_once('/') {
                self.dropped = d.parse().ok();
            }
        } else if !l.is_empty() && !l.starts_with("File:") {
            self.other.push_str(l);
            self.other.push('\n');
        }
    }
}

struct One {
    child: Child,
    file: PathBuf,
    ns: String,
    dev: String,
    progress: Arc<Mutex<Progress>>,
    reader: Option<std::thread::JoinHandle<()>>,
    /// Interface counters (rx + tx packets) when dumpcap was ready.
    base: Option<u64>,
}

/// One interface's capture, as `stop` found it.
#[derive(Clone, Debug)]
pub struct CaptureFile {
    pub path: PathBuf,
    /// Packets the interface passed while dumpcap was capturing.
    pub interface_packets: Option<u64>,
    /// Packets dumpcap wrote.
    pub captured: u64,
    /// Packets pcap/dumpcap reported dropped.
    pub dropped: Option<u64>,
    /// Every packet of the interface is in the file.
    pub complete: bool,
}

/// Running capture processes; stopped on `stop` (or drop).
pub struct Capture {
    children: Vec<One>,
    dir: PathBuf,
    prefix: String,
}

/// rx_packets + tx_packets + tx_dropped of `dev` in namespace `ns` (sysfs
/// as the namespace sees it: `ip netns exec` mounts the namespace's /sys).
/// tx_dropped: `veth_xmit` drops a packet the peer cannot take after
/// `dev_queue_xmit_nit` gave it to pcap, so the capture has it.
fn counters(ns: &str, dev: &str) -> Option<u64> {
    let base = format!("/sys/class/net/{dev}/statistics");
    let o = Command::new("ip")
        .args(["netns", "exec", ns, "cat"])
        .arg(format!("{base}/rx_packets"))
        .arg(format!("{base}/tx_packets"))
        .arg(format!("{base}/tx_dropped"))
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !o.status.success() {
        return None;
    }
    let s = String::from_utf8_lossy(&o.stdout);
    let v: Vec<u64> = s
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    (v.len() == 3).then(|| v.iter().sum())
}

impl Capture {
    /// Start one capture per (namespace, role, interface); files are
    /// `DIR/<prefix><ns-role>-<dev>.pcap`. Returns once every capture
    /// process reports its interface open.
    pub fn start(
        dir: &Path,
        prefix: &str,
        ifaces: &[(String, String, String)],
    ) -> Result<Option<Capture>, String> {
        let Some(tool) = tool() else {
            eprintln!("mptlab: capture skipped: neither dumpcap nor tshark is installed (apt-get install -y tshark)");
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        let mut c = Capture {
            children: Vec::new(),
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
        };
        for (ns, role, dev) in ifaces {
            let file = dir.join(format!("{prefix}{role}-{dev}.pcap"));
            let mut cmd = Command::new("ip");
            // not -q: the running packet count on stderr is how `stop`
            // knows dumpcap has caught up with the interface
            cmd.args(["netns", "exec", ns, tool, "-i", dev, "-w"])
                .arg(&file)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            // The emulate command blocks SIGINT/SIGTERM in its threads
            // (signals.rs); the mask is inherited across exec, so unblock it.
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                use std::os::unix::process::CommandExt;
                cmd.pre_exec(|| {
                    let mut set: libc::sigset_t = std::mem::zeroed();
                    libc::sigemptyset(&mut set);
                    libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
                    // Not the agent's real-time policy (agentprio.rs).
                    crate::agentprio::reset_in_child();
                    Ok(())
                });
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| format!("start {tool} in {ns}: {e}"))?;
            let progress = Arc::new(Mutex::new(Progress::default()));
            let mut err = child.stderr.take().expect("piped stderr");
            let p = progress.clone();
            let reader = std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let mut pending = String::new();
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    pending.push_str(&String::from_utf8_lossy(&buf[..n]));
                    while let Some(i) = pending.find(['\r', '\n']) {
                        let l: String = pending.drain(..=i).collect();
                        p.lock().unwrap().line(&l);
                    }
                }
                p.lock().unwrap().line(&pending);
            });
            c.children.push(One {
                child,
                file,
                ns: ns.clone(),
                dev: dev.clone(),
                progress,
                reader: Some(reader),
                base: None,
            });
        }
        // Wait until every capture has its interface open, then read the
        // interface counters the file will be checked against.
        let t = Instant::now();
        for one in &mut c.children {
            loop {
                if one.progress.lock().unwrap().ready {
                    break;
                }
                if let Ok(Some(st)) = one.child.try_wait() {
                    let msg = one.progress.lock().unwrap().other.clone();
                    return Err(format!(
                        "{tool} on {} in {} exited ({st}): {}",
                        one.dev,
                        one.ns,
                        msg.trim()
                    ));
                }
                if t.elapsed() > START_LIMIT {
                    return Err(format!(
                        "{tool} on {} in {} did not start capturing within {} s",
                        one.dev,
                        one.ns,
                        START_LIMIT.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            one.base = counters(&one.ns, &one.dev);
        }
        Ok(Some(c))
    }

    /// Stop every capture once it holds the interface's packets (see the
    /// module comment); returns the files with their completeness, and
    /// writes `DIR/<prefix>capture.csv`. Call it after the run's last packet
    /// (the namespaces must still exist).
    pub fn stop(mut self) -> Vec<CaptureFile> {
        let files = self.stop_all();
        let mut csv =
            String::from("file,interface_packets,captured_packets,dropped_packets,complete\n");
        for f in &files {
            let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
            csv.push_str(&format!(
                "{},{},{},{},{}\n",
                f.path.file_name().unwrap_or_default().to_string_lossy(),
                opt(f.interface_packets),
                f.captured,
                opt(f.dropped),
                f.complete
            ));
            if !f.complete {
                eprintln!(
                    "mptlab: capture {} is INCOMPLETE: {} packets in the file, {} passed the interface, {} dropped by pcap",
                    f.path.display(),
                    f.captured,
                    opt(f.interface_packets),
                    opt(f.dropped)
                );
            }
        }
        let _ = std::fs::write(self.dir.join(format!("{}capture.csv", self.prefix)), csv);
        files
    }

    fn stop_all(&mut self) -> Vec<CaptureFile> {
        // the interface's packets since each capture was ready
        let targets: Vec<Option<u64>> = self
            .children
            .iter()
            .map(|o| Some(counters(&o.ns, &o.dev)?.saturating_sub(o.base?)))
            .collect();
        // drain: wait while dumpcap is behind the interface and still
        // catching up (its count moved within IDLE). A count that stands
        // still is not a lagging reader: dumpcap takes the packets of a
        // partly filled kernel ring block only when it stops (seen: a router
        // interface's count stood at 669 of 1096 for 20 s, the final count
        // after SIGINT was 1096); the final count decides completeness.
        const IDLE: Duration = Duration::from_millis(1500);
        let t = Instant::now();
        let mut last: Vec<(u64, Instant)> = self
            .children
            .iter()
            .map(|o| (o.progress.lock().unwrap().count, t))
            .collect();
        let mut done = vec![false; self.children.len()];
        while done.contains(&false) {
            for (i, one) in self.children.iter_mut().enumerate() {
                if done[i] {
                    continue;
                }
                let now = one.progress.lock().unwrap().count;
                if now != last[i].0 {
                    last[i] = (now, Instant::now());
                }
                done[i] = targets[i].is_none_or(|target| now >= target)
                    || last[i].1.elapsed() > IDLE
                    || t.elapsed() > DRAIN_LIMIT
                    || !matches!(one.child.try_wait(), Ok(None));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if std::env::var_os("MPTLAB_CAPTURE_DEBUG").is_some() {
            for (one, (target, (n, at))) in self.children.iter().zip(targets.iter().zip(&last)) {
                eprintln!(
                    "capture {}: dumpcap counted {n} of {target:?}, last change {:?} after the run",
                    one.file.display(),
                    at.duration_since(t)
                );
            }
        }
        let mut files = Vec::new();
        for (mut one, target) in self.children.drain(..).zip(targets) {
            // SIGINT: dumpcap leaves its capture loop, writes what it has
            // read, its statistics block and final counts, and exits.
            // SAFETY: signalling our own child by its pid.
            unsafe { libc::kill(one.child.id() as i32, libc::SIGINT) };
            let t = Instant::now();
            let mut killed = false;
            loop {
                match one.child.try_wait() {
                    Ok(Some(_)) => break,
                    _ if t.elapsed() >= Duration::from_secs(10) => {
                        let _ = one.child.kill();
                        let _ = one.child.wait();
                        killed = true;
                        break;
                    }
                    _ => std::thread::sleep(Duration::from_millis(20)),
                }
            }
            if let Some(r) = one.reader.take() {
                let _ = r.join();
            }
            let p = one.progress.lock().unwrap();
            let complete = !killed
                && p.dropped == Some(0)
                && target.is_some_and(|t| p.count >= t)
                && one.file.exists();
            if one.file.exists() {
                files.push(CaptureFile {
                    path: one.file.clone(),
                    interface_packets: target,
                    captured: p.count,
                    dropped: p.dropped,
                    complete,
                });
            }
        }
        files
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.stop_all();
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn parses_dumpcap_stderr() {
        let mut p = Progress::default();
        for l in [
            "Capturing on 'p1'",
            "File: /tmp/x.pcap",
            "Packets: 201 ",
            "Packets: 400 ",
            "Packets captured: 600",
            "Packets received/dropped on interface 'p1': 600/3 (pcap:3/dumpcap:0/flushed:0/ps_ifdrop:0) (99.5%)",
        ] {
            p.line(l);
        }
        assert!(p.ready);
        assert_eq!(p.count, 600);
        assert_eq!(p.dropped, Some(3));
        assert!(p.other.is_empty(), "{}", p.other);
    }
}
