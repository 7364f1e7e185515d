//! Network namespaces and the `ip` command.
//!
//! Namespaces are created with `ip netns add`, so they are named bind mounts
//! under /run/netns that other tools (`ip netns exec`, `ip -n`) can use while
//! a run is in progress. Code that must run inside a namespace (opening a TUN
//! device, creating a socket, writing a per-namespace sysctl) runs on a
//! short-lived helper thread that `setns`es into it, so the caller's thread
//! never changes namespace. Sockets and descriptors created there stay bound
//! to that namespace after the thread exits.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::Command;

/// Where `ip netns add` puts named namespaces.
pub const NETNS_DIR: &str = "/run/netns";

/// An error naming what failed.
pub fn err(msg: impl Into<String>) -> io::Error {
    io::Error::other(msg.into())
}

/// Run `ip <args>`; on failure the error names the command and its stderr.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").args(args).output().map_err(|e| {
        err(format!(
            "could not run `ip {}`: {e} (is iproute2 installed?)",
            args.join(" ")
        ))
    })?;
    if !out.status.success() {
        return Err(err(format!(
            "`ip {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Run `ip -n <ns> <args>`.
pub fn ip_in(ns: &str, args: &[&str]) -> io::Result<()> {
    let mut v = vec!["-n", ns];
    v.extend_from_slice(args);
    ip(&v)
}

/// Run `ip <args>` and return its stdout.
pub fn ip_output(args: &[&str]) -> io::Result<String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| err(format!("could not run `ip {}`: {e}", args.join(" "))))?;
    if !out.status.success() {
        return Err(err(format!(
            "`ip {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Check a namespace name is a plain file name.
pub fn check_ns_name(name: &str) -> io::Result<()> {
    if name.is_empty()
        || name.len() > 64
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(err(format!(
            "invalid namespace name {name:?} (letters, digits, '-', '_')"
        )));
    }
    Ok(())
}

pub fn add(name: &str) -> io::Result<()> {
    check_ns_name(name)?;
    ip(&["netns", "add", name])
}

/// Delete a namespace; devices inside it (veths, TUNs) go with it.
pub fn del(name: &str) -> io::Result<()> {
    ip(&["netns", "del", name])
}

pub fn exists(name: &str) -> bool {
    Path::new(NETNS_DIR).join(name).exists()
}

/// Names of all named namespaces.
pub fn list() -> io::Result<Vec<String>> {
    let rd = match std::fs::read_dir(NETNS_DIR) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(err(format!("read {NETNS_DIR}: {e}"))),
    };
    let mut v = Vec::new();
    for e in rd.flatten() {
        if let Some(n) = e.file_name().to_str() {
            v.push(n.to_string());
        }
    }
    v.sort();
    Ok(v)
}

/// Run `f` on a helper thread that has entered namespace `ns`.
pub fn in_netns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    check_ns_name(ns)?;
    let path = Path::new(NETNS_DIR).join(ns);
    let file = File::open(&path).map_err(|e| err(format!("open {}: {e}", path.display())))?;
    let ns = ns.to_string();
    std::thread::Builder::new()
        .name(format!("netns-{ns}"))
        .spawn(move || {
            // SAFETY: a valid namespace descriptor; setns only affects this thread.
            if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(err(format!(
                    "setns into {ns}: {}",
                    io::Error::last_os_error()
                )));
            }
            f()
        })
        .map_err(|e| err(format!("spawn thread for namespace: {e}")))?
        .join()
        .map_err(|_| err("helper thread inside a namespace panicked"))?
}

/// Write a sysctl of the namespace `ns`, e.g. `net/ipv4/ip_forward`. Network
/// sysctls under /proc/sys/net belong to the namespace of the writing thread.
pub fn sysctl(ns: &str, key: &str, value: &str) -> io::Result<()> {
    let key = key.replace('.', "/");
    let value = value.to_string();
    in_netns(ns, move || {
        let path = format!("/proc/sys/{key}");
        std::fs::write(&path, &value).map_err(|e| err(format!("write {value:?} to {path}: {e}")))
    })
}

/// Refuse clearly when this host cannot run emulations: not root, no TUN,
/// no MPTCP, no iproute2.
pub fn preflight() -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(err(
            "must run as root (creating network namespaces and TUN devices needs CAP_NET_ADMIN)",
        ));
    }
    if !Path::new("/dev/net/tun").exists() {
        return Err(err("/dev/net/tun is missing: the kernel lacks TUN support (CONFIG_TUN) or the device node was not created"));
    }
    if let Err(e) = std::fs::read_to_string("/proc/sys/net/mptcp/enabled") {
        return Err(err(format!(
            "the kernel lacks MPTCP (cannot read /proc/sys/net/mptcp/enabled: {e}; needs CONFIG_MPTCP)"
        )));
    }
    ip(&["-V"]).map_err(|e| err(format!("iproute2 is needed: {e}")))?;
    Ok(())
}

/// True if the process runs as root (tests use this to skip).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
