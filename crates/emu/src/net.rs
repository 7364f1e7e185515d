//! The network a run uses: a preset topology (`topology::Topology`) or an
//! explicit one (`explicit::ExplicitTopology`), seen through what
//! `run::run_once` needs: the client's and server's namespaces, addresses
//! and devices, and how to start the link emulator on it. Dropping it
//! removes the namespaces (the inner topologies' own drops).

use crate::clock::Clock;
use crate::emulator::{EmuOptions, Emulator};
use crate::explicit::ExplicitTopology;
use crate::hello::HelloFilter;
use crate::topology::{PathSpec, Topology};
use std::sync::Arc;

pub struct Net {
    pub preset: Option<Topology>,
    pub explicit: Option<ExplicitTopology>,
    pub client_ns: String,
    /// Preset only: the core router (capture points).
    pub core_ns: Option<String>,
    pub server_ns: String,
    pub client_addrs: Vec<String>,
    /// Device of each client address (preset `p<i>`, explicit `l<k>`).
    pub client_devs: Vec<String>,
    pub server_addrs: Vec<String>,
    pub server_devs: Vec<String>,
    mtu: u32,
}

impl Net {
    pub fn preset(t: Topology) -> Net {
        Net {
            client_ns: t.client_ns.clone(),
            core_ns: t.core_ns.clone(),
            server_ns: t.server_ns.clone(),
            client_addrs: t.client_addrs.clone(),
            client_devs: (1..=t.client_addrs.len())
                .map(|i| format!("p{i}"))
                .collect(),
            server_addrs: vec![t.server_addr.clone()],
            server_devs: vec!["srv".into()],
            mtu: t.mtu,
            preset: Some(t),
            explicit: None,
        }
    }

    pub fn explicit(t: ExplicitTopology, mtu: u32) -> Net {
        Net {
            client_ns: t.client_ns.clone(),
            core_ns: None,
            server_ns: t.server_ns.clone(),
            client_addrs: t.client_addrs.clone(),
            client_devs: t.client_devs.clone(),
            server_addrs: t.server_addrs.clone(),
            server_devs: t.server_devs.clone(),
            mtu,
            preset: None,
            explicit: Some(t),
        }
    }

    /// Start the emulator: preset paths plus the server link, or every
    /// link of the explicit topology (`ducts` in file order, `server` unused).
    /// `tcp_hello_in_scenario`: the scenario sets `traffic.client_hello_bytes`,
    /// so the simulated twin sends the agent's hello too; otherwise the
    /// hello and its ACK take no loss draw (`hello::HelloFilter`).
    pub fn start_emulator(
        &self,
        ducts: &[PathSpec],
        server: &PathSpec,
        seed: u64,
        tcp_hello_in_scenario: bool,
    ) -> std::io::Result<Emulator> {
        let opts = EmuOptions {
            hello: Some(Arc::new(HelloFilter::new(tcp_hello_in_scenario))),
            ..EmuOptions::from_env()?
        };
        match (&self.preset, &self.explicit) {
            (Some(t), _) => t.start_emulator_with_server(ducts, server, seed, opts),
            (None, Some(t)) => Emulator::start(
                t.directions(ducts, seed)?,
                EmuOptions {
                    mtu: self.mtu as usize,
                    ..opts
                },
                Clock::start(),
            ),
            (None, None) => Err(crate::netns::err("no topology")),
        }
    }
}
