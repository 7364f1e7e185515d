//! The link parameters of a run: every scenario link direction with its
//! ranges drawn ([`crate::draw::Draw`]) and its trace loaded, checked by
//! `LinkParams::validate`. The simulator builds its network from them, the
//! emulator its TUN links.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use mptlab_core::link::{LinkParams, Outage, QueueLimit};
use mptlab_core::loss::LossModel;
use mptlab_core::time::{secs, Nanos, MS};
use mptlab_core::trace::Trace;
use mptlab_scenario as sc;

use crate::draw::Draw;

/// Parameters of one bidirectional link. "up" is client to server.
#[derive(Clone, Debug)]
pub struct Duplex {
    pub up: LinkParams,
    pub down: LinkParams,
}

impl Duplex {
    pub fn symmetric(p: LinkParams) -> Duplex {
        Duplex {
            up: p.clone(),
            down: p,
        }
    }
}

/// Link traces already read in this run, by file (a trace shared by several
/// links is read once and shared).
pub type Traces = HashMap<PathBuf, Arc<Trace>>;

pub fn link_dir(
    d: &sc::LinkDir,
    key: &str,
    dir: &str,
    draw: &mut Draw,
    traces: &mut Traces,
) -> Result<LinkParams, String> {
    let rate_bps = match &d.rate_mbit {
        Some(r) => (draw.value(&format!("{key}.rate_mbit"), r) * 1e6).round() as u64,
        None => 0,
    };
    let delay = (draw.value(&format!("{key}.delay_ms"), &d.delay_ms) * MS as f64).round() as Nanos;
    let queue = match d.queue {
        sc::QueueLimit::Packets(n) => QueueLimit::Packets(n),
        sc::QueueLimit::Bytes(b) => QueueLimit::Bytes(b),
    };
    let loss = match &d.loss {
        sc::LossModel::None => LossModel::None,
        sc::LossModel::Train {
            gap_ms,
            drop_packets,
            blackout_ms,
        } => LossModel::Train {
            gap: (gap_ms * MS as f64).round() as Nanos,
            drop: drop_packets.clone(),
            blackout: (blackout_ms * MS as f64).round() as Nanos,
        },
        sc::LossModel::Bernoulli { percent } => {
            let p = draw.value(&format!("{key}.loss_percent"), percent) / 100.0;
            if p > 0.0 {
                LossModel::Bernoulli { p }
            } else {
                LossModel::None
            }
        }
        sc::LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good_percent,
            loss_bad_percent,
        } => LossModel::GilbertElliott {
            p_gb: draw.value(&format!("{key}.p_gb"), p_gb),
            p_bg: draw.value(&format!("{key}.p_bg"), p_bg),
            loss_good: draw.value(&format!("{key}.loss_good_percent"), loss_good_percent) / 100.0,
            loss_bad: draw.value(&format!("{key}.loss_bad_percent"), loss_bad_percent) / 100.0,
        },
    };
    let trace = match &d.trace {
        None => None,
        Some(p) => Some(match traces.get(p) {
            Some(t) => t.clone(),
            None => {
                // the reader validation used (the file was checked then;
                // an error here is I/O: the file changed or vanished since)
                let t = Arc::new(sc::files::load_link_trace(p)?);
                traces.insert(p.clone(), t.clone());
                t
            }
        }),
    };
    let outages = d
        .outages
        .iter()
        .map(|o| Outage {
            start: secs(o.at_s),
            end: secs(o.at_s + o.duration_s),
        })
        .collect();
    let p = LinkParams {
        rate_bps,
        delay,
        queue,
        loss,
        trace,
        outages,
    };
    p.validate().map_err(|e| format!("{key} ({dir}): {e}"))?;
    Ok(p)
}

pub fn duplex(
    l: &sc::Link,
    key: &str,
    draw: &mut Draw,
    traces: &mut Traces,
) -> Result<Duplex, String> {
    Ok(Duplex {
        up: link_dir(&l.up, key, "up", draw, traces)?,
        down: link_dir(&l.down, key, "down", draw, traces)?,
    })
}

/// The access paths and the server link of a preset topology, drawn in this
/// order: path 1, 2, ..., then the server link (the order of the `drawn` log).
pub fn preset_duplexes(
    paths: &[sc::AccessPath],
    server_link: &sc::Link,
    draw: &mut Draw,
    traces: &mut Traces,
) -> Result<(Vec<Duplex>, Duplex), String> {
    let mut ps = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        ps.push(duplex(&p.link, &format!("path{}", i + 1), draw, traces)?);
    }
    let srv = duplex(server_link, "server_link", draw, traces)?;
    Ok((ps, srv))
}

/// Access paths, server link, drawn values (see [`preset_links`]).
pub type PresetLinks = (Vec<Duplex>, Duplex, Vec<(String, f64)>);

/// The links of a preset topology for the run with `seed`, drawn exactly as
/// the simulator draws them (same keys, same streams, same order of the log):
/// one `Duplex` per access path, the server link, and the drawn values
/// (`path1.rate_mbit`, ...). Shared by simulation and emulation, so an
/// emulated run gets the very link parameters its simulated twin gets.
pub fn preset_links(s: &sc::Scenario, seed: u64) -> Result<PresetLinks, String> {
    let mut drawn = Vec::new();
    let mut draw = Draw::new(seed, &mut drawn);
    let mut traces = HashMap::new();
    let (ps, srv) = match &s.topology {
        sc::Topology::Preset {
            paths, server_link, ..
        } => preset_duplexes(paths, server_link, &mut draw, &mut traces)?,
        sc::Topology::Explicit { .. } => {
            return Err("explicit topologies have no preset links".into())
        }
    };
    Ok((ps, srv, drawn))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(topology: &str) -> sc::Scenario {
        let text = format!("[scenario]\nname = \"t\"\nduration_s = 10\n[topology]\n{topology}\n[traffic]\nmodel = \"bulk\"\n");
        sc::Scenario::from_str(&text, "t.toml").unwrap()
    }

    #[test]
    fn preset_links_draw_paths_then_server_link_and_log_each_key_once() {
        let s = scenario("preset = \"two-path\"\npaths = [\"wlan\", \"3g\"]");
        let (ps, srv, drawn) = preset_links(&s, s.run_seed(0)).unwrap();
        assert_eq!(ps.len(), 2);
        assert!(ps[0].up.rate_bps > 0 && srv.down.rate_bps > 0);
        let keys: Vec<&str> = drawn.iter().map(|(k, _)| k.as_str()).collect();
        let first_srv = keys
            .iter()
            .position(|k| k.starts_with("server_link"))
            .unwrap();
        assert!(
            keys[..first_srv].iter().all(|k| k.starts_with("path")),
            "{keys:?}"
        );
        assert!(keys.iter().any(|k| k.starts_with("path2.")), "{keys:?}");
        let mut uniq = keys.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), keys.len(), "{keys:?}");
        // the same run draws the same links
        let (ps2, _, drawn2) = preset_links(&s, s.run_seed(0)).unwrap();
        assert_eq!(drawn, drawn2);
        assert_eq!(ps[1].down.delay, ps2[1].down.delay);
    }
}
