//! Registries of every name a scenario may use. `mptlab list` prints them, and
//! the enums below are what the parser accepts, so the two cannot disagree.
//!
//! The transport mechanisms (congestion controls, MPTCP schedulers, path
//! managers, TLP modes, CUBIC variants, SCTP policies) are `named_enum!`s in
//! mptlab-core beside their implementations (`mptlab_core::registry`); this
//! file re-exports them and declares the names only the scenario format
//! has (protocols, traffic models, loss models, topologies). To add one, see
//! docs/adding-a-mechanism.md.

use mptlab_core::named_enum;
pub use mptlab_core::registry::Category;

// The mechanisms live beside their implementations in mptlab-core, each a
// `named_enum!` there; the scenario format uses them under these names.
pub use mptlab_core::mptcp::{PathManager, SchedulerKind as MptcpScheduler, TlpMode as MptcpTlp};
pub use mptlab_core::sctp::{
    BufferSplit as SctpBufferSplit, CcVariant as SctpCc, Preset as SctpPreset,
    RtxPolicy as SctpRetransmission, Scheduler as SctpScheduler,
};
pub use mptlab_core::tcp::cc::{CcKind as CongestionControl, CubicVariant, HyStartMode as HyStart};

named_enum! {
    /// Transport protocol of the foreground flow.
    pub enum Protocol {
        Tcp = "tcp": "TCP (single path)",
        Udp = "udp": "UDP datagrams (single path, no congestion control)",
        Mptcp = "mptcp": "Multipath TCP (RFC 8684) over all client paths",
        Sctp = "sctp": "SCTP (single path, multi-homing for failover only)",
        CmtSctp = "cmt-sctp": "SCTP with concurrent multipath transfer",
    }
}

impl Protocol {
    /// Uses several paths at once.
    pub fn is_multipath(self) -> bool {
        matches!(self, Protocol::Mptcp | Protocol::CmtSctp)
    }
    /// Delivers a reliable byte stream / messages.
    pub fn is_reliable(self) -> bool {
        !matches!(self, Protocol::Udp)
    }
}

named_enum! {
    /// Foreground application model.
    pub enum TrafficModelName {
        Video = "video": "constant-bitrate video frames (keys: bitrate_kbit, fps)",
        Gaming = "gaming": "online game update messages from a trace (key: trace)",
        Web = "web": "web page download with parallel connections (keys: site or objects_bytes, max_connections)",
        File = "file": "one file download/upload (key: size_bytes)",
        Bursts = "bursts": "request/response bursts, each a message whose delay is its completion time (keys: count, size_bytes, interval_s)",
        Bulk = "bulk": "saturated sender for the whole run (no keys)",
    }
}

named_enum! {
    /// Which way the foreground application sends.
    pub enum Direction {
        Down = "down": "server -> client",
        Up = "up": "client -> server",
    }
}

named_enum! {
    /// Random loss models of a link.
    pub enum LossModelName {
        None = "none": "no random loss",
        Bernoulli = "bernoulli": "independent loss (key: percent)",
        GilbertElliott = "gilbert-elliott": "two-state bursty loss (keys: p_gb, p_bg, loss_good_percent, loss_bad_percent)",
        Train = "train": "deterministic loss of given data-packet positions in every packet train (keys: drop_packets, gap_ms, blackout_ms)",
    }
}

named_enum! {
    /// Built-in topologies.
    pub enum TopologyPreset {
        TwoPath = "two-path": "client with two access paths, server behind one shared link (seed 000 Fig. 5)",
        SinglePath = "single-path": "client with one access path, server behind one link",
        Clients = "clients": "many clients ([population]), one interface per path each, shared access routers, a server farm behind a core link",
    }
}

impl TopologyPreset {
    pub fn num_paths(self) -> usize {
        match self {
            TopologyPreset::TwoPath => 2,
            TopologyPreset::SinglePath => 1,
            // 1 to `population::MAX_PATHS` (validated); two is the usual phone
            TopologyPreset::Clients => 2,
        }
    }
}

named_enum! {
    /// Node kinds of an explicit topology.
    pub enum NodeKind {
        Host = "host": "end host; routes by source address (multi-homed)",
        Router = "router": "forwards by shortest path",
    }
}

/// Built-in gaming traces (seed papers' traces T1..T3).
pub const GAMING_TRACES: &[(&str, &str)] = &[
    ("t1", "game trace T1"),
    ("t2", "game trace T2"),
    ("t3", "game trace T3"),
];

/// Built-in web sites (object size lists from the seed papers).
pub const WEB_SITES: &[(&str, &str)] = &[
    ("wikipedia", "wikipedia.org front page"),
    ("amazon", "amazon.com front page"),
    ("huffpost", "huffpost.com front page"),
];

/// Everything the scenario format accepts by name.
pub fn categories() -> Vec<Category> {
    use mptlab_core::category;
    let mut v = vec![category!(Protocol, "protocols", "transport.protocol")];
    v.extend(mptlab_core::registry::transport_categories());
    v.extend([
        category!(TrafficModelName, "traffic models", "traffic.model"),
        Category {
            title: "gaming traces".into(),
            key: "traffic.trace (model = \"gaming\")".into(),
            entries: GAMING_TRACES
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        },
        Category {
            title: "web sites".into(),
            key: "traffic.site (model = \"web\")".into(),
            entries: WEB_SITES
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        },
        category!(LossModelName, "loss models", "loss.model"),
        category!(TopologyPreset, "topology presets", "topology.preset"),
    ]);
    v.push(Category {
        title: "link profiles".into(),
        key: "topology.paths, profile = \"...\"".into(),
        entries: crate::profiles::BUILTIN
            .iter()
            .map(|b| (b.name.to_string(), b.description.to_string()))
            .collect(),
    });
    v.extend(mptlab_core::registry::sctp_categories());
    v
}
