//! Registries of every name a scenario may use. `mptlab list` prints them, and
//! the enums below are what the parser accepts, so the two cannot disagree.
//!
//! To add a protocol, congestion control, model, ...: add one line to the
//! matching `named_enum!` below (name as written in scenario files, and a one
//! line description), then handle the new variant in the simulator.

use serde::{Deserialize, Serialize};

macro_rules! named_enum {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal : $desc:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        $vis enum $name { $($(#[$vm])* #[serde(rename = $s)] $var),* }
        impl $name {
            /// Every value, in the order `mptlab list` prints them.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            /// The name as written in scenario files.
            pub fn name(self) -> &'static str { match self { $($name::$var => $s),* } }
            /// One-line description.
            pub fn description(self) -> &'static str { match self { $($name::$var => $desc),* } }
            /// Look a value up by its scenario-file name.
            pub fn from_name(s: &str) -> Option<Self> { Self::ALL.iter().copied().find(|v| v.name() == s) }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.name()) }
        }
    };
}

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
    /// Congestion control algorithm.
    pub enum CongestionControl {
        NewReno = "newreno": "NewReno (RFC 6582); uncoupled per subflow for multipath",
        Cubic = "cubic": "CUBIC (Linux tcp_cubic.c or RFC 9438, see transport.cubic); uncoupled per subflow for multipath",
        Lia = "lia": "Linked Increases (RFC 6356), coupled, multipath only",
        Olia = "olia": "Opportunistic LIA, coupled, multipath only",
        Balia = "balia": "Balanced LIA, coupled, multipath only",
        Wvegas = "wvegas": "Weighted Vegas, delay-based coupled, multipath only",
    }
}

named_enum! {
    /// Which CUBIC (`transport.cubic`), for single-path TCP, uncoupled MPTCP
    /// subflows and background TCP.
    pub enum CubicVariant {
        Linux = "linux": "Linux tcp_cubic.c (6.17): fixed point, cubic_root approximation, target at t + delay_min, Reno estimate at 0.53/RTT (default)",
        Rfc9438 = "rfc9438": "RFC 9438 in floating point: target at t + SRTT, W_est with alpha switching to 1",
    }
}

named_enum! {
    /// CUBIC's slow-start exit (`transport.hystart`).
    pub enum HyStart {
        Linux = "linux": "Linux HyStart: ACK-train and delay-increase detection (tcp_cubic.c hystart=1, hystart_detect=3; default)",
        HyStartPlusPlus = "hystart++": "RFC 9406 HyStart++ (Conservative Slow Start)",
        Off = "off": "no slow-start exit before the first loss",
    }
}

impl CongestionControl {
    /// Couples the windows of several paths (needs a multipath protocol).
    pub fn is_coupled(self) -> bool {
        !matches!(self, CongestionControl::NewReno | CongestionControl::Cubic)
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
    }
}

impl TopologyPreset {
    pub fn num_paths(self) -> usize {
        match self {
            TopologyPreset::TwoPath => 2,
            TopologyPreset::SinglePath => 1,
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

named_enum! {
    /// MPTCP packet schedulers.
    pub enum MptcpScheduler {
        Minrtt = "minrtt": "lowest RTT first among subflows with cwnd space, with opportunistic retransmission and penalisation (Linux v0.9x default)",
        Default = "default": "alias of minrtt",
        RoundRobin = "roundrobin": "round robin over subflows with cwnd space",
        Redundant = "redundant": "send every segment on all subflows",
        Blest = "blest": "BLEST: blocking estimation, waits for the fast subflow when sending on the slow one would block it",
        Ecf = "ecf": "ECF: earliest completion first, waits for the fast subflow when it completes sooner",
        Upstream = "upstream": "upstream Linux (net/mptcp) scheduler: lowest linger time by pacing rate, backup only when needed",
    }
}

named_enum! {
    /// MPTCP path managers.
    pub enum PathManager {
        Fullmesh = "fullmesh": "one subflow per pair of local and remote addresses",
        Default = "default": "only the initial subflow",
        Ndiffports = "ndiffports": "several subflows over the same address pair (count: transport.mptcp.ndiffports)",
        Upstream = "upstream": "upstream Linux pm_netlink endpoints with subflow/signal/backup/fullmesh flags (transport.mptcp.endpoints, server_endpoints)",
        Binder = "binder": "Binder: extra subflows loose-source-routed through other gateways; the network ignores LSRR (seed 003), so they follow the initial path",
    }
}

named_enum! {
    /// Tail loss probe flavour of MPTCP subflows.
    pub enum MptcpTlp {
        Subflow = "subflow": "RFC 8985 TLP on each subflow (Linux)",
        MptcpLevel = "mptcp-level": "seed 001: the probe is also sent on an alternate subflow chosen by the scheduler",
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

/// One category of names for `mptlab list`.
#[derive(Clone, Debug)]
pub struct Category {
    /// Heading, e.g. "protocols".
    pub title: String,
    /// Scenario key(s) the names are used with.
    pub key: String,
    pub entries: Vec<(String, String)>,
}

fn cat<T: Copy>(
    title: &str,
    key: &str,
    all: &[T],
    f: impl Fn(T) -> (&'static str, &'static str),
) -> Category {
    Category {
        title: title.into(),
        key: key.into(),
        entries: all
            .iter()
            .map(|v| f(*v))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
    }
}

/// Everything the scenario format accepts by name.
pub fn categories() -> Vec<Category> {
    let mut v = vec![
        cat("protocols", "transport.protocol", Protocol::ALL, |p| {
            (p.name(), p.description())
        }),
        cat(
            "congestion controls",
            "transport.cc",
            CongestionControl::ALL,
            |p| (p.name(), p.description()),
        ),
        cat(
            "cubic variants",
            "transport.cubic",
            CubicVariant::ALL,
            |p| (p.name(), p.description()),
        ),
        cat(
            "cubic slow-start exits",
            "transport.hystart",
            HyStart::ALL,
            |p| (p.name(), p.description()),
        ),
        cat(
            "mptcp schedulers",
            "transport.mptcp.scheduler",
            MptcpScheduler::ALL,
            |p| (p.name(), p.description()),
        ),
        cat(
            "mptcp path managers",
            "transport.mptcp.path_manager",
            PathManager::ALL,
            |p| (p.name(), p.description()),
        ),
        cat(
            "mptcp tail loss probes",
            "transport.mptcp.tlp",
            MptcpTlp::ALL,
            |p| (p.name(), p.description()),
        ),
        cat(
            "traffic models",
            "traffic.model",
            TrafficModelName::ALL,
            |p| (p.name(), p.description()),
        ),
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
        cat("loss models", "loss.model", LossModelName::ALL, |p| {
            (p.name(), p.description())
        }),
        cat(
            "topology presets",
            "topology.preset",
            TopologyPreset::ALL,
            |p| (p.name(), p.description()),
        ),
    ];
    v.push(Category {
        title: "link profiles".into(),
        key: "topology.paths, profile = \"...\"".into(),
        entries: crate::profiles::BUILTIN
            .iter()
            .map(|b| (b.name.to_string(), b.description.to_string()))
            .collect(),
    });
    v
}
