//! Run prefixes and removal of leftovers from killed runs.
//!
//! Every namespace a run creates is named `mptl-<pid>-<n>-<role>`: the pid of
//! the creating process and a per-process counter (tests in one binary build
//! topologies concurrently). Devices live inside those namespaces and vanish
//! with them; TUN devices are not persistent and vanish with the emulator's
//! descriptors. So a run killed with SIGKILL leaves at most named namespaces
//! behind, and `cleanup_stale` removes those whose creating process no longer
//! exists. (A recycled pid can make a stale namespace look alive until that
//! process exits; harmless, it is removed at a later start.)

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::netns;

/// Common prefix of everything mptlab creates.
pub const PREFIX: &str = "mptl-";

static RUN_COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh run prefix, unique on this host while this process lives:
/// `mptl-<pid>-<n>-`.
pub fn run_prefix() -> String {
    let n = RUN_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{PREFIX}{}-{n}-", std::process::id())
}

/// The pid encoded in a name created by `run_prefix`.
pub fn owner_pid(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

fn pid_alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Names (namespaces, and links in the current namespace) left by runs whose process is gone.
pub fn stale_names() -> io::Result<(Vec<String>, Vec<String>)> {
    let is_stale =
        |n: &str| n.starts_with(PREFIX) && owner_pid(n).map(|p| !pid_alive(p)).unwrap_or(true);
    let ns: Vec<String> = netns::list()?.into_iter().filter(|n| is_stale(n)).collect();
    let links = links_with_prefix(PREFIX)?
        .into_iter()
        .filter(|n| is_stale(n))
        .collect();
    Ok((ns, links))
}

/// Links in the current namespace whose name starts with `prefix`.
pub fn links_with_prefix(prefix: &str) -> io::Result<Vec<String>> {
    let out = netns::ip_output(&["-o", "link", "show"])?;
    let mut v = Vec::new();
    for line in out.lines() {
        // "3: name@peer: <FLAGS> ..."
        if let Some(name) = line.split(':').nth(1) {
            let name = name.trim().split('@').next().unwrap_or("");
            if name.starts_with(prefix) {
                v.push(name.to_string());
            }
        }
    }
    Ok(v)
}

/// Namespaces whose name starts with `prefix`.
pub fn namespaces_with_prefix(prefix: &str) -> io::Result<Vec<String>> {
    Ok(netns::list()?
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect())
}

/// Remove the leftovers of killed runs; returns what was removed. Call at the
/// start of every run.
pub fn cleanup_stale() -> io::Result<Vec<String>> {
    let (ns, links) = stale_names()?;
    let mut removed = Vec::new();
    let mut errors = Vec::new();
    for n in ns {
        match netns::del(&n) {
            Ok(()) => removed.push(n),
            Err(e) => errors.push(e.to_string()),
        }
    }
    for l in links {
        match netns::ip(&["link", "del", &l]) {
            Ok(()) => removed.push(l),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if !errors.is_empty() {
        return Err(netns::err(format!(
            "cleanup of stale runs failed: {}",
            errors.join("; ")
        )));
    }
    Ok(removed)
}

/// Delete every namespace starting with `prefix` (one run's teardown).
/// Keeps going after an error and reports all of them.
pub fn remove_prefix(prefix: &str) -> io::Result<()> {
    let mut errors = Vec::new();
    for n in namespaces_with_prefix(prefix)? {
        if let Err(e) = netns::del(&n) {
            errors.push(e.to_string());
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(netns::err(errors.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_unique_and_parse() {
        let a = run_prefix();
        let b = run_prefix();
        assert_ne!(a, b);
        assert_eq!(owner_pid(&format!("{a}c")), Some(std::process::id()));
        assert_eq!(owner_pid("mptl-x-1-c"), None);
        assert_eq!(owner_pid("other"), None);
    }
}
