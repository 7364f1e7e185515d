//! Packet captures of a run (`output.capture`, `mptlab run --capture DIR`):
//! which hosts and interfaces get files; the encoding and writing are
//! `mptlab_capture`'s (docs/captures.md).

use std::path::PathBuf;

use mptlab_capture::{Capture, HostIfaces, Options};
use mptlab_scenario::Scenario;

use crate::network::NodeKind;
use crate::world::World;

/// Directory of run `run` of a capture.
pub fn run_dir(s: &Scenario, run: u32) -> PathBuf {
    let base = if s.output.capture_dir.is_empty() {
        PathBuf::from("capture")
    } else {
        PathBuf::from(&s.output.capture_dir)
    };
    base.join(format!("run-{run}"))
}

/// Open the files of every host of the world, one interface per link the
/// host is attached to.
pub fn start(s: &Scenario, run: u32, w: &World) -> Result<Capture, String> {
    let net = &w.net;
    let hosts: Vec<HostIfaces> = net
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::Host)
        .map(|(h, n)| {
            let mut links: Vec<(usize, String, Option<u32>)> = net
                .dlinks
                .iter()
                .enumerate()
                .filter(|(_, d)| d.from == h)
                .map(|(dl, d)| {
                    let addr = net
                        .host_interfaces(h)
                        .iter()
                        .find(|(_, l)| *l == dl)
                        .map(|(a, _)| *a);
                    (dl / 2, d.name.clone(), addr)
                })
                .collect();
            links.sort_by_key(|l| l.0);
            HostIfaces {
                host: h,
                name: n.name.clone(),
                links,
            }
        })
        .collect();
    Capture::create(
        &Options {
            dir: run_dir(s, run),
            snaplen: s.output.capture_snaplen,
            seed: s.run_seed(run),
            ip: s.transport.ip(),
        },
        &hosts,
    )
}
