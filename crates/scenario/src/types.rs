//! The scenario file as written (serde, `deny_unknown_fields` everywhere).
//! `validate` turns a [`ScenarioFile`] into a checked, resolved [`crate::Scenario`].

use crate::registry::*;
use crate::value::Range;
pub use mptlab_core::mptcp::EpFlags;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole document.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub scenario: Meta,
    pub topology: TopologySpec,
    /// User link profiles `[profile.NAME]`; they shadow built-in ones.
    #[serde(default)]
    pub profile: BTreeMap<String, LinkParams>,
    #[serde(default)]
    pub transport: Transport,
    pub traffic: TrafficSpec,
    #[serde(default)]
    pub background: Background,
    #[serde(default)]
    pub output: Output,
    /// `[population]`: the clients of `topology.preset = "clients"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub population: Option<PopulationSpec>,
}

/// `[scenario]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Simulated time per run, seconds.
    pub duration_s: f64,
    /// Repetitions.
    #[serde(default = "default_runs")]
    pub runs: u32,
    /// Base seed; run `i` uses `run_seed(seed, i)`.
    #[serde(default = "default_seed")]
    pub seed: u64,
}
fn default_runs() -> u32 {
    1
}
fn default_seed() -> u64 {
    1
}

/// `[topology]`: a preset, or explicit nodes and links.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    pub preset: Option<TopologyPreset>,
    /// Preset: link profile names of the client's access paths 1, 2, ...
    pub paths: Option<Vec<String>>,
    /// Preset: the link between the shared router and the server.
    pub server_link: Option<LinkParams>,
    /// Explicit: name of the client host node.
    pub client: Option<String>,
    /// Explicit: name of the server host node.
    pub server: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node: Vec<NodeSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link: Vec<LinkSpec>,
}

/// `[[topology.node]]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
    /// IPv4 addresses, dotted quad; a host needs at least one.
    #[serde(default)]
    pub addresses: Vec<String>,
}

/// `[[topology.link]]`: endpoints plus link parameters (a profile and/or inline keys).
/// Direction `up` is a -> b, `down` is b -> a.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub profile: Option<String>,
    pub rate_mbit: Option<Range>,
    pub delay_ms: Option<Range>,
    pub queue_packets: Option<u32>,
    pub queue_bytes: Option<u64>,
    pub loss: Option<LossModel>,
    pub trace: Option<String>,
    pub outages: Option<Vec<Outage>>,
    pub up: Option<Box<LinkParams>>,
    pub down: Option<Box<LinkParams>>,
}

impl LinkSpec {
    pub fn params(&self) -> LinkParams {
        LinkParams {
            profile: self.profile.clone(),
            rate_mbit: self.rate_mbit,
            delay_ms: self.delay_ms,
            queue_packets: self.queue_packets,
            queue_bytes: self.queue_bytes,
            loss: self.loss.clone(),
            trace: self.trace.clone(),
            outages: self.outages.clone(),
            up: self.up.clone(),
            down: self.down.clone(),
        }
    }
}

/// Link parameters as written: a `[profile.X]` table, `server_link`, or a
/// per-direction override. Every key is optional; missing keys come from
/// `profile` (a base profile) and then from the defaults.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// Base profile (built-in or `[profile.X]`) these keys override.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_mbit: Option<Range>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<Range>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_packets: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossModel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outages: Option<Vec<Outage>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up: Option<Box<LinkParams>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub down: Option<Box<LinkParams>>,
}

impl LinkParams {
    /// `self` with every key set in `over` replaced (queue_packets and
    /// queue_bytes replace each other; up/down merge recursively).
    pub fn overridden_by(&self, over: &LinkParams) -> LinkParams {
        let mut r = self.clone();
        r.profile = None;
        if over.rate_mbit.is_some() {
            r.rate_mbit = over.rate_mbit;
        }
        if over.delay_ms.is_some() {
            r.delay_ms = over.delay_ms;
        }
        if over.queue_packets.is_some() || over.queue_bytes.is_some() {
            r.queue_packets = over.queue_packets;
            r.queue_bytes = over.queue_bytes;
        }
        if over.loss.is_some() {
            r.loss = over.loss.clone();
        }
        if over.trace.is_some() {
            r.trace = over.trace.clone();
        }
        if over.outages.is_some() {
            r.outages = over.outages.clone();
        }
        for (mine, theirs) in [(&mut r.up, &over.up), (&mut r.down, &over.down)] {
            if let Some(t) = theirs {
                *mine = Some(Box::new(match mine {
                    Some(m) => m.overridden_by(t),
                    None => (**t).clone(),
                }));
            }
        }
        r
    }
}

/// `transport.mptcp.prio_changes` entry: at `at_s` the client's subflows
/// from access path `path` become backup (`backup = true`) or regular, as
/// `ip mptcp endpoint change ... backup|nobackup` does; they tell the server
/// with MP_PRIO.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PrioChangeSpec {
    pub at_s: f64,
    pub path: u32,
    pub backup: bool,
}

/// `transport.mptcp.endpoint_removals` entry: at `at_s` the client deletes
/// the endpoint of access path `path` (`ip mptcp endpoint delete`): its
/// subflows close and the server is told with REMOVE_ADDR.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointRemovalSpec {
    pub at_s: f64,
    pub path: u32,
}

/// A scheduled outage: the link drops everything in `[at_s, at_s + duration_s)`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Outage {
    pub at_s: f64,
    pub duration_s: f64,
}

/// Random loss of a link: `"none"` or a table with `model = ...`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum LossModel {
    None,
    /// Each packet is lost independently with `percent` %.
    Bernoulli {
        percent: Range,
    },
    /// Two-state Markov chain evaluated per packet: `p_gb` = P(good -> bad),
    /// `p_bg` = P(bad -> good) (probabilities 0..1), loss percentages per state.
    GilbertElliott {
        p_gb: Range,
        p_bg: Range,
        loss_good_percent: Range,
        loss_bad_percent: Range,
    },
    /// Deterministic: the data packets at the 1-based positions
    /// `drop_packets` of every train (a data packet after `gap_ms` without
    /// data starts a train) are lost, and with `blackout_ms > 0` everything
    /// within `blackout_ms` after a train's first loss (seed 001 tail losses).
    Train {
        gap_ms: f64,
        drop_packets: Vec<u32>,
        blackout_ms: f64,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LossTable {
    model: LossModelName,
    percent: Option<Range>,
    p_gb: Option<Range>,
    p_bg: Option<Range>,
    loss_good_percent: Option<Range>,
    loss_bad_percent: Option<Range>,
    gap_ms: Option<f64>,
    drop_packets: Option<Vec<u32>>,
    blackout_ms: Option<f64>,
}

impl<'de> Deserialize<'de> for LossModel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, Error, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LossModel;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "\"none\" or a table { model = \"bernoulli\" | \"gilbert-elliott\" | \"train\", ... }",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LossModel, E> {
                match v {
                    "none" => Ok(LossModel::None),
                    _ => Err(E::custom(format!(
                        "expected \"none\" or a table {{ model = ..., ... }}, found \"{v}\""
                    ))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LossModel, A::Error> {
                let t = LossTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let keys = [
                    ("percent", t.percent.is_some()),
                    ("p_gb", t.p_gb.is_some()),
                    ("p_bg", t.p_bg.is_some()),
                    ("loss_good_percent", t.loss_good_percent.is_some()),
                    ("loss_bad_percent", t.loss_bad_percent.is_some()),
                    ("gap_ms", t.gap_ms.is_some()),
                    ("drop_packets", t.drop_packets.is_some()),
                    ("blackout_ms", t.blackout_ms.is_some()),
                ];
                let allowed: &[&str] = match t.model {
                    LossModelName::None => &[],
                    LossModelName::Bernoulli => &["percent"],
                    LossModelName::GilbertElliott => {
                        &["p_gb", "p_bg", "loss_good_percent", "loss_bad_percent"]
                    }
                    LossModelName::Train => &["gap_ms", "drop_packets", "blackout_ms"],
                };
                for (k, present) in keys {
                    if present && !allowed.contains(&k) {
                        return Err(A::Error::custom(format!(
                            "key `{k}` does not apply to loss model \"{}\" (expected {})",
                            t.model,
                            if allowed.is_empty() {
                                "no other keys".to_string()
                            } else {
                                allowed.join(", ")
                            }
                        )));
                    }
                }
                let need = |v: Option<Range>, k: &str| {
                    v.ok_or_else(|| {
                        A::Error::custom(format!("loss model \"{}\" requires key `{k}`", t.model))
                    })
                };
                Ok(match t.model {
                    LossModelName::None => LossModel::None,
                    LossModelName::Bernoulli => LossModel::Bernoulli {
                        percent: need(t.percent, "percent")?,
                    },
                    LossModelName::GilbertElliott => LossModel::GilbertElliott {
                        p_gb: need(t.p_gb, "p_gb")?,
                        p_bg: need(t.p_bg, "p_bg")?,
                        loss_good_percent: t.loss_good_percent.unwrap_or(Range::Fixed(0.0)),
                        loss_bad_percent: t.loss_bad_percent.unwrap_or(Range::Fixed(100.0)),
                    },
                    LossModelName::Train => LossModel::Train {
                        gap_ms: t.gap_ms.unwrap_or(100.0),
                        drop_packets: t.drop_packets.ok_or_else(|| {
                            A::Error::custom("loss model \"train\" requires key `drop_packets`")
                        })?,
                        blackout_ms: t.blackout_ms.unwrap_or(0.0),
                    },
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// `transport.hystart`: one of the names; the boolean of earlier versions
/// (true = HyStart++, false = none) is refused with a hint.
fn hystart_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<HyStart, D::Error> {
    use serde::de::Error;
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = HyStart;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("one of `linux`, `hystart++`, `off`")
        }
        fn visit_bool<E: Error>(self, b: bool) -> Result<HyStart, E> {
            Err(E::custom(format!(
                "expected one of `linux`, `hystart++`, `off`, found boolean `{b}` (transport.hystart is no longer a boolean: the former `true` is \"hystart++\", `false` is \"off\")"
            )))
        }
        fn visit_str<E: Error>(self, s: &str) -> Result<HyStart, E> {
            HyStart::from_name(s).ok_or_else(|| {
                E::custom(format!(
                    "unknown variant `{s}`, expected one of `linux`, `hystart++`, `off`"
                ))
            })
        }
    }
    d.deserialize_any(V)
}

/// `[transport]`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Transport {
    pub protocol: Protocol,
    pub cc: CongestionControl,
    /// Single-path protocols: which client access path (1-based).
    pub path: u32,
    /// Draw the client path per run, uniformly over the client's paths,
    /// instead of `path` (seed 000 section 5: in homogeneous scenarios "the
    /// user will most likely pick one of the WLANs randomly").
    pub random_path: bool,
    /// Which server address (1-based, in the server node's `addresses`
    /// order) single-path protocols and the initial MPTCP subflow connect
    /// to. Only explicit topologies have multi-homed servers (seed 003: "TCP
    /// on each source/destination pair", every initial path).
    pub server_path: u32,
    pub nagle: bool,
    pub delayed_ack: bool,
    pub sack: bool,
    pub tlp: bool,
    /// RACK loss detection (RFC 8985 6), Linux net.ipv4.tcp_recovery = 1.
    pub rack: bool,
    pub sndbuf_kib: u32,
    pub rcvbuf_kib: u32,
    /// IP MTU; MSS = mtu_bytes - 40 over IPv4 (IPv4 + TCP headers, options
    /// not counted), mtu_bytes - 60 over IPv6.
    pub mtu_bytes: u32,
    /// IP version of the simulated network: 4 (default) or 6. Left out of
    /// a written scenario when 4, so IPv4 files read and write as before.
    #[serde(skip_serializing_if = "is_ipv4")]
    pub ip_version: u8,
    pub initial_cwnd_packets: u32,
    pub rto_min_ms: f64,
    /// Linux CONFIG_HZ of the modelled kernel: 100, 250, 300 or 1000 (the
    /// Kconfig choices); the jiffy the RTO and the retransmission timer's
    /// wheel round to and Linux CUBIC's clock (`TcpConfig::hz`). Left out of
    /// a written scenario when 1000, so files read and write as before.
    #[serde(skip_serializing_if = "is_default_hz")]
    pub hz: u32,
    /// Where simulated time 0 falls in the modelled kernel's jiffy, in
    /// microseconds: its CLOCK_MONOTONIC at time 0 modulo 1/hz s (Linux
    /// aligns its tick to multiples of TICK_NSEC, `tick_init_jiffy_update`),
    /// so the first jiffy boundary after 0 is at 1/hz s minus this.
    /// 0 <= value < 1e6 / hz; `mptlab validate --decisions` sets it per run
    /// from the emulator's record. Left out of a written scenario when 0.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub hz_phase_us: u32,
    pub window_scaling: bool,
    /// Which CUBIC: "linux" (tcp_cubic.c, default) or "rfc9438".
    pub cubic: CubicVariant,
    /// CUBIC's slow-start exit: "linux" (Linux HyStart, default),
    /// "hystart++" (RFC 9406) or "off". Ignored by newreno and the coupled
    /// algorithms (Linux has HyStart only in CUBIC).
    #[serde(deserialize_with = "hystart_key")]
    pub hystart: HyStart,
    pub mptcp: MptcpOptions,
    pub sctp: SctpOptions,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            protocol: Protocol::Tcp,
            cc: CongestionControl::Cubic,
            path: 1,
            random_path: false,
            server_path: 1,
            nagle: false,
            delayed_ack: true,
            sack: true,
            tlp: true,
            rack: true,
            sndbuf_kib: 1024,
            rcvbuf_kib: 2048,
            mtu_bytes: 1500,
            ip_version: 4,
            initial_cwnd_packets: 10,
            rto_min_ms: 200.0,
            hz: DEFAULT_HZ,
            hz_phase_us: 0,
            window_scaling: true,
            cubic: CubicVariant::Linux,
            hystart: HyStart::Linux,
            mptcp: MptcpOptions::default(),
            sctp: SctpOptions::default(),
        }
    }
}

/// `transport.hz` when not given (CONFIG_HZ_1000).
pub const DEFAULT_HZ: u32 = 1000;
/// The CONFIG_HZ values Linux's Kconfig offers (kernel/Kconfig.hz).
pub const HZ_CHOICES: [u32; 4] = [100, 250, 300, 1000];

fn is_default_hz(v: &u32) -> bool {
    *v == DEFAULT_HZ
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

fn is_ipv4(v: &u8) -> bool {
    *v == 4
}

impl Transport {
    pub fn mss_bytes(&self) -> u32 {
        self.mtu_bytes - self.ip().header_len() - 20
    }

    /// The IP version, typed (validation admits only 4 and 6).
    pub fn ip(&self) -> mptlab_core::packet::IpVersion {
        if self.ip_version == 6 {
            mptlab_core::packet::IpVersion::V6
        } else {
            mptlab_core::packet::IpVersion::V4
        }
    }
}

/// `[transport.mptcp]` (used when protocol = "mptcp").
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MptcpOptions {
    pub scheduler: MptcpScheduler,
    pub path_manager: PathManager,
    /// fullmesh: subflows per pair of local and remote addresses.
    pub subflows_per_path: u32,
    /// ndiffports / binder: subflows in total over the first address pair.
    pub ndiffports: u32,
    /// Client access paths (1-based) whose subflows are backup subflows.
    pub backup_paths: Vec<u32>,
    /// Backup flag changes during the run (MP_PRIO, RFC 8684 3.3.8).
    pub prio_changes: Vec<PrioChangeSpec>,
    /// Both hosts require DSS checksums (RFC 8684 3.3; Linux
    /// `net.mptcp.checksum_enabled`, default 0).
    pub checksum: bool,
    /// Client addresses withdrawn during the run (REMOVE_ADDR, RFC 8684 3.4.2).
    pub endpoint_removals: Vec<EndpointRemovalSpec>,
    /// The client application aborts its connections at this time
    /// (MP_FASTCLOSE, RFC 8684 3.5).
    pub fastclose_at_s: Option<f64>,
    /// "subflow" (RFC 8985 TLP per subflow) or "mptcp-level" (seed 001).
    pub tlp: MptcpTlp,
    /// false: the server is not MPTCP-capable and the connection falls back
    /// to TCP (RFC 8684 3.7).
    pub server_capable: bool,
    /// path_manager = "upstream": endpoint flags of client path i+1
    /// ("subflow", "signal", "backup", "fullmesh", "laminar", comma separated; parsed
    /// once here, by `EpFlags`'s `Deserialize`).
    pub endpoints: Vec<EpFlags>,
    /// path_manager = "upstream": endpoint flags of server address i+1.
    pub server_endpoints: Vec<EpFlags>,
    /// path_manager = "upstream": `ip mptcp limits` of both hosts; unset
    /// keys are what emulation sets by default (the number of client paths,
    /// at most 8).
    pub limits: MptcpLimits,
    /// path_manager = "upstream" (and fullmesh with the upstream scheduler):
    /// `net.mptcp.add_addr_timeout`, the first ADD_ADDR retransmission
    /// timeout in seconds (0 = never re-sent).
    pub add_addr_timeout_s: f64,
}

/// `[transport.mptcp.limits]`: the in-kernel path manager's limits
/// (`ip mptcp limits set subflows N add_addr_accepted M`, 0..=8).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MptcpLimits {
    /// Subflows besides the initial one (opened or accepted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subflows: Option<u32>,
    /// ADD_ADDRs whose address gets a subflow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub add_addr_accepted: Option<u32>,
}

impl Default for MptcpOptions {
    fn default() -> Self {
        MptcpOptions {
            scheduler: MptcpScheduler::Minrtt,
            path_manager: PathManager::Fullmesh,
            subflows_per_path: 1,
            ndiffports: 2,
            backup_paths: Vec::new(),
            prio_changes: Vec::new(),
            checksum: false,
            endpoint_removals: Vec::new(),
            fastclose_at_s: None,
            tlp: MptcpTlp::Subflow,
            server_capable: true,
            endpoints: Vec::new(),
            server_endpoints: Vec::new(),
            limits: MptcpLimits::default(),
            add_addr_timeout_s: 120.0,
        }
    }
}

/// `[transport.sctp]` (used when protocol = "sctp" or "cmt-sctp"). The
/// names are the SCTP model's own enums (`mptlab list` shows them); unset
/// keys keep the preset's value.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SctpOptions {
    /// Start from a named configuration: "seed000" (seed 000 section 4.2 /
    /// Table 1; the default for cmt-sctp) or "rfc" (RFC 9260 defaults plus
    /// the CMT rules for cmt-sctp).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<SctpPreset>,
    /// CMT scheduler: "roundrobin" | "daps".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<SctpScheduler>,
    /// Retransmission path: "same" | "lowest-rtt" | "largest-cwnd" | "largest-ssthresh".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retransmission: Option<SctpRetransmission>,
    /// Buffer splitting: "none" | "sender" | "receiver" | "both".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_splitting: Option<SctpBufferSplit>,
    /// Congestion control: "uncoupled" | "cmt-rpv2".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cc: Option<SctpCc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nr_sack: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_rescheduling: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unordered: Option<bool>,
}

/// `[traffic]` as written: common keys plus every model's keys; `validate`
/// checks that only the chosen model's keys are present.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    pub model: TrafficModelName,
    #[serde(default = "default_direction")]
    pub direction: Direction,
    #[serde(default)]
    pub start_s: f64,
    pub stop_s: Option<f64>,
    pub bitrate_kbit: Option<f64>,
    pub fps: Option<f64>,
    pub trace: Option<String>,
    pub site: Option<String>,
    pub objects_bytes: Option<Vec<u64>>,
    pub max_connections: Option<u32>,
    pub size_bytes: Option<u64>,
    pub count: Option<u32>,
    pub interval_s: Option<f64>,
    /// `bulk` over single-path TCP: the client path to reconnect on when
    /// nothing is delivered for `failover_after_s` (seed 004 sec. 4.4).
    pub failover_path: Option<u32>,
    pub failover_after_s: Option<f64>,
    /// Message models over TCP/MPTCP, simulator only: bytes the client
    /// writes as soon as it is connected, before any message (as the
    /// emulator's agent writes its 16-byte hello).
    pub client_hello_bytes: Option<u64>,
}
fn default_direction() -> Direction {
    Direction::Down
}

/// `[background]`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Background {
    pub enabled: bool,
    /// Saturated TCP flows per access path.
    pub tcp_flows: u32,
    /// Pareto on/off UDP at this share of each bottleneck's rate.
    pub udp_share_percent: f64,
    /// Congestion control of the background TCP flows (single-path: newreno
    /// or cubic). Linux's default is cubic; seed 000's OMNeT++/INET
    /// simulations ran INET's NewReno-style TCP.
    pub tcp_cc: CongestionControl,
    /// Client access paths (1-based) that carry background traffic; empty =
    /// every path. Seed 004 sec. 4.2: the YouTube download ran over WiFi only.
    pub paths: Vec<u32>,
    /// When the background flows start (s). Seed 004 sec. 4.2/4.6: the
    /// competing download starts mid-run.
    pub start_s: f64,
}

impl Default for Background {
    fn default() -> Self {
        Background {
            enabled: false,
            tcp_flows: 1,
            udp_share_percent: 10.0,
            tcp_cc: CongestionControl::Cubic,
            paths: Vec::new(),
            start_s: 0.0,
        }
    }
}

/// `[output]`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Sampling interval of the time series table; 0 = off.
    pub timeseries_interval_ms: f64,
    /// Also record cwnd/ssthresh/srtt per path.
    pub cwnd_series: bool,
    /// Write pcapng captures of every host's packets (simulator only,
    /// docs/captures.md).
    pub capture: bool,
    /// Where: `<capture_dir>/run-<k>/<host>.pcapng`; empty = `<out>/capture`
    /// under `mptlab run`, `capture` in the working directory otherwise.
    pub capture_dir: String,
    /// Bytes kept of each captured frame; 0 = whole frames.
    pub capture_snaplen: u32,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            timeseries_interval_ms: 100.0,
            cwnd_series: false,
            capture: false,
            capture_dir: String::new(),
            capture_snaplen: 0,
        }
    }
}

/// `[population]` (with `topology.preset = "clients"`): `clients` hosts, each
/// with one interface per `topology.paths` entry (the path's profile is the
/// client's own access link), grouped onto shared access routers per path,
/// and `servers` behind a core link. Every client runs `[traffic]` over
/// `[transport]` to one server (client i to server i mod `servers`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PopulationSpec {
    pub clients: u32,
    /// Per path: clients sharing one access router (and its uplink).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients_per_router: Option<Vec<u32>>,
    /// Per path: the link from each access router to the core router.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router_links: Option<Vec<LinkParams>>,
    #[serde(default = "default_servers")]
    pub servers: u32,
    /// Between the core router and the server farm's router.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_link: Option<LinkParams>,
    /// Client i starts `traffic.start_s` plus a draw uniform in [0, start_spread_s).
    #[serde(default)]
    pub start_spread_s: f64,
    /// Per-connection rows (flows, paths, links, messages, transfers, time
    /// series) instead of one aggregate per population.
    #[serde(default)]
    pub per_connection_rows: bool,
}
fn default_servers() -> u32 {
    1
}
