//! Optional packet capture (`mptlab emulate --capture DIR`): one pcap per
//! namespace interface, written by `dumpcap` (or `tshark`) running inside
//! the namespace. Skipped with a note when neither is installed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The capture tool found on PATH, if any.
pub fn tool() -> Option<&'static str> {
    ["dumpcap", "tshark"].into_iter().find(|t| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
    })
}

/// Running capture processes; stopped (SIGTERM, then waited for) on `stop` or drop.
pub struct Capture {
    children: Vec<(Child, PathBuf)>,
}

impl Capture {
    /// Start one capture per (namespace, interface); files are
    /// `DIR/<prefix><ns-role>-<dev>.pcap`.
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
        };
        for (ns, role, dev) in ifaces {
            let file = dir.join(format!("{prefix}{role}-{dev}.pcap"));
            let mut cmd = Command::new("ip");
            cmd.args(["netns", "exec", ns, tool, "-q", "-i", dev, "-w"])
                .arg(&file)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            // The emulate command blocks SIGINT/SIGTERM in its threads
            // (signals.rs); the mask is inherited across exec, so unblock it.
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                use std::os::unix::process::CommandExt;
                cmd.pre_exec(|| {
                    let mut set: libc::sigset_t = std::mem::zeroed();
                    libc::sigemptyset(&mut set);
                    libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
                    Ok(())
                });
            }
            let child = cmd
                .spawn()
                .map_err(|e| format!("start {tool} in {ns}: {e}"))?;
            c.children.push((child, file));
        }
        // Give the capture processes time to open their interfaces.
        std::thread::sleep(std::time::Duration::from_millis(500));
        Ok(Some(c))
    }

    /// Stop every capture; returns the files written.
    pub fn stop(mut self) -> Vec<PathBuf> {
        self.stop_all()
    }

    fn stop_all(&mut self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for (mut ch, f) in self.children.drain(..) {
            // SAFETY: signalling our own child by its pid.
            unsafe { libc::kill(ch.id() as i32, libc::SIGTERM) };
            let t = std::time::Instant::now();
            loop {
                match ch.try_wait() {
                    Ok(Some(_)) => break,
                    _ if t.elapsed().as_secs() >= 3 => {
                        let _ = ch.kill();
                        let _ = ch.wait();
                        break;
                    }
                    _ => std::thread::sleep(std::time::Duration::from_millis(20)),
                }
            }
            if f.exists() {
                files.push(f);
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
