//! The background traffic of a run (`[background]`, seed 000 section 4.4,
//! seed 004 sections 4.2/4.6): on every access path that carries background
//! traffic, `tcp_flows` saturated single-path TCP flows and enough Pareto
//! on/off UDP flows (`mptlab_core::traffic::onoff`) to load
//! `udp_share_percent` of the path's rate in the direction the traffic
//! flows. The simulator puts them on background hosts next to its access
//! routers, the emulator on background namespaces forwarded through the same
//! emulated links; both take the flows, their order, labels and the UDP
//! schedules (same random streams, `bg/udp/<path>/<k>`) from [`flows`], so a
//! run offers the same background traffic in both.

use mptlab_core::link::LinkParams;
use mptlab_core::time::secs;
use mptlab_core::traffic::onoff::{background_plan, OnOffConfig, OnOffSource};
use mptlab_core::SimRng;
use mptlab_scenario as sc;

use crate::traffic::SourceSchedule;

/// What a background flow carries.
pub enum Kind {
    /// A saturated TCP sender from `background.start_s` on.
    Tcp,
    /// Pareto on/off frames on this schedule (absolute times).
    Udp(SourceSchedule),
}

/// One background flow between the background host of an access path and
/// the background server, sending in the foreground's direction.
pub struct Flow {
    /// `bg-tcp-p<path>-<k>` / `bg-udp-p<path>-<k>`.
    pub label: String,
    /// The access path, 0-based.
    pub path: usize,
    pub kind: Kind,
}

/// Mean rate of a link direction, bit/s (a trace's mean over one period).
pub fn rate_bps(p: &LinkParams) -> f64 {
    match &p.trace {
        Some(t) => t.mean_rate_bps(),
        None => p.rate_bps as f64,
    }
}

/// The background flows of run `seed` over `paths` access paths, in the
/// order the simulator creates them (per path: TCP flows, then UDP flows).
/// `capacity(i)` is the rate (bit/s) of access path `i` (0-based) in the
/// direction the traffic flows; it is asked only for paths with UDP flows.
pub fn flows(
    s: &sc::Scenario,
    seed: u64,
    paths: usize,
    capacity: &mut dyn FnMut(usize) -> Result<f64, String>,
) -> Result<Vec<Flow>, String> {
    let b = &s.background;
    let start = secs(b.start_s);
    let mut v = Vec::new();
    for i in 0..paths {
        if !b.paths.is_empty() && !b.paths.contains(&(i as u32 + 1)) {
            continue;
        }
        for k in 0..b.tcp_flows {
            v.push(Flow {
                label: format!("bg-tcp-p{}-{k}", i + 1),
                path: i,
                kind: Kind::Tcp,
            });
        }
        if b.udp_share_percent > 0.0 {
            let plan = background_plan(capacity(i)?, b.udp_share_percent / 100.0)?;
            for k in 0..plan.flows {
                let src = OnOffSource::new(OnOffConfig::for_mean_rate(plan.per_flow_bps)?)?;
                let sched = SourceSchedule::new(
                    Box::new(src),
                    SimRng::stream(seed, &format!("bg/udp/{i}/{k}")),
                    start,
                    None,
                );
                v.push(Flow {
                    label: format!("bg-udp-p{}-{k}", i + 1),
                    path: i,
                    kind: Kind::Udp(sched),
                });
            }
        }
    }
    Ok(v)
}
