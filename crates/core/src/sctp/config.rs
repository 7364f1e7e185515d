//! Association configuration, with the names a scenario file uses.

use crate::time::{Nanos, MS, SEC};

/// How a destination is chosen for retransmissions (Iyengar et al. 2006,
/// section 5: RTX-SAME, RTX-ASAP-like lowest RTT, RTX-CWND, RTX-SSTHRESH).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtxPolicy {
    /// The destination the chunk was last sent to (RTX-SAME).
    Same,
    /// The active destination with the lowest smoothed RTT (seed 000, Table 1).
    LowestRtt,
    /// The active destination with the largest cwnd (RTX-CWND).
    LargestCwnd,
    /// The active destination with the largest ssthresh (RTX-SSTHRESH).
    LargestSsthresh,
}

impl RtxPolicy {
    pub fn names() -> &'static [&'static str] {
        &["same", "lowest-rtt", "largest-cwnd", "largest-ssthresh"]
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "same" => RtxPolicy::Same,
            "lowest-rtt" => RtxPolicy::LowestRtt,
            "largest-cwnd" => RtxPolicy::LargestCwnd,
            "largest-ssthresh" => RtxPolicy::LargestSsthresh,
            _ => return None,
        })
    }
}

/// Buffer splitting (Dreibholz et al., "Transmission Scheduling
/// Optimizations for Concurrent Multipath Transfer", PFLDNeT 2010, section 3):
/// each of the n active paths may occupy at most 1/n of the send buffer
/// (sender side) and/or 1/n of the peer's receive window (receiver side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSplit {
    None,
    Sender,
    Receiver,
    Both,
}

impl BufferSplit {
    pub fn names() -> &'static [&'static str] {
        &["none", "sender", "receiver", "both"]
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "none" => BufferSplit::None,
            "sender" => BufferSplit::Sender,
            "receiver" => BufferSplit::Receiver,
            "both" => BufferSplit::Both,
            _ => return None,
        })
    }
    pub fn sender(self) -> bool {
        matches!(self, BufferSplit::Sender | BufferSplit::Both)
    }
    pub fn receiver(self) -> bool {
        matches!(self, BufferSplit::Receiver | BufferSplit::Both)
    }
}

/// Path scheduler for CMT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// Least recently used path first (INET's default CMT scheduler).
    RoundRobin,
    /// Delay-aware packet scheduling (Kuhn et al., ICC 2014).
    Daps,
}

impl Scheduler {
    pub fn names() -> &'static [&'static str] {
        &["roundrobin", "daps"]
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "roundrobin" => Scheduler::RoundRobin,
            "daps" => Scheduler::Daps,
            _ => return None,
        })
    }
}

/// Congestion control across paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcVariant {
    /// Independent RFC 9260 section 7 control per destination.
    Uncoupled,
    /// CMT/RPv2 resource pooling (Dreibholz et al. 2012).
    CmtRpv2,
}

impl CcVariant {
    pub fn names() -> &'static [&'static str] {
        &["uncoupled", "cmt-rpv2"]
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "uncoupled" => CcVariant::Uncoupled,
            "cmt-rpv2" => CcVariant::CmtRpv2,
            _ => return None,
        })
    }
}

/// Protocol names: "sctp" (one primary path, others for failover and
/// heartbeats) and "cmt-sctp" (concurrent multipath transfer).
pub fn protocol_names() -> &'static [&'static str] {
    &["sctp", "cmt-sctp"]
}

/// Boolean/integer option names a scenario file may set besides the
/// enumerated ones: `nr_sack`, `chunk_rescheduling` (bool), `max_burst`
/// (packets, 0 = off), `unordered` (bool), `sfr`/`cuc`/`dac` (bool).
pub fn option_names() -> &'static [&'static str] {
    &[
        "nr_sack",
        "chunk_rescheduling",
        "max_burst",
        "unordered",
        "sfr",
        "cuc",
        "dac",
    ]
}

#[derive(Clone, Debug, PartialEq)]
pub struct SctpConfig {
    /// Concurrent multipath transfer on all active paths.
    pub cmt: bool,
    pub scheduler: Scheduler,
    pub rtx_policy: RtxPolicy,
    pub buffer_split: BufferSplit,
    pub cc: CcVariant,
    /// Send NR-SACKs (and use them) when both ends support them.
    pub nr_sack: bool,
    /// Chunk rescheduling (Dreibholz et al. 2010) when buffer splitting blocks.
    pub chunk_rescheduling: bool,
    /// Max.Burst (RFC 9260 section 16): 0 disables burst mitigation.
    pub max_burst: u32,
    /// Split Fast Retransmit, Cwnd Update for CMT, Delayed Ack for CMT
    /// (Iyengar et al. 2006 section 4). Only used when `cmt`.
    pub sfr: bool,
    pub cuc: bool,
    pub dac: bool,
    /// Path MTU (IP packet size).
    pub mtu: u32,
    /// Largest user data per DATA chunk (seed 000: 1452 = 1500 - 20 - 12 - 16).
    pub max_payload: u32,
    /// Send buffer (bytes of user messages queued or outstanding).
    pub send_buffer: u64,
    /// Receive buffer (the a_rwnd advertised when empty).
    pub recv_buffer: u64,
    /// Unordered delivery (U bit) for every message.
    pub unordered: bool,
    pub rto_initial: Nanos,
    pub rto_min: Nanos,
    /// RTO.Max (RTO.Alpha = 1/8 and RTO.Beta = 1/4 are fixed, section 16).
    pub rto_max: Nanos,
    /// HB.interval (section 8.3); a heartbeat goes RTO (jittered +/- 50 %)
    /// plus this after the path was last used.
    pub hb_interval: Nanos,
    /// Heartbeats on idle paths (and path confirmation at setup).
    pub heartbeats: bool,
    pub path_max_retrans: u32,
    pub assoc_max_retrans: u32,
    pub max_init_retrans: u32,
    /// Delayed SACK timer (section 6.2: at most 500 ms, 200 ms typical).
    pub sack_delay: Nanos,
    /// SACK every this many packets containing DATA (2 per section 6.2).
    pub sack_freq: u32,
    /// Seed for the heartbeat jitter and verification tags.
    pub seed: u64,
}

impl Default for SctpConfig {
    fn default() -> Self {
        SctpConfig {
            cmt: false,
            scheduler: Scheduler::RoundRobin,
            rtx_policy: RtxPolicy::Same,
            buffer_split: BufferSplit::None,
            cc: CcVariant::Uncoupled,
            nr_sack: false,
            chunk_rescheduling: false,
            max_burst: 4,
            sfr: true,
            cuc: true,
            dac: true,
            mtu: 1500,
            max_payload: 1452,
            send_buffer: 1024 * 1024,
            recv_buffer: 2048 * 1024,
            unordered: false,
            rto_initial: 3 * SEC,
            rto_min: SEC,
            rto_max: 60 * SEC,
            hb_interval: 30 * SEC,
            heartbeats: true,
            path_max_retrans: 5,
            assoc_max_retrans: 10,
            max_init_retrans: 8,
            sack_delay: 200 * MS,
            sack_freq: 2,
            seed: 0,
        }
    }
}

impl SctpConfig {
    /// Plain SCTP (RFC 9260): data on the primary path only.
    pub fn sctp() -> Self {
        SctpConfig::default()
    }

    /// CMT-SCTP with SFR, CUC, DAC and round-robin scheduling.
    pub fn cmt() -> Self {
        SctpConfig {
            cmt: true,
            ..SctpConfig::default()
        }
    }

    /// Configuration of seed 000 (section 4.2 and Table 1): round-robin,
    /// MaxBurst 4 with "use it or lose it", buffer splitting (both sides, as
    /// INET's `cmtBufferSplitVariant = "bothSides"`), retransmissions on the
    /// lowest-RTT path, chunk rescheduling, uncoupled NewReno-style CC,
    /// 1452-byte DATA payload. Buffers per section 4.5.3 are scenario inputs.
    pub fn seed000(send_buffer: u64, recv_buffer: u64) -> Self {
        SctpConfig {
            cmt: true,
            scheduler: Scheduler::RoundRobin,
            rtx_policy: RtxPolicy::LowestRtt,
            buffer_split: BufferSplit::Both,
            cc: CcVariant::Uncoupled,
            chunk_rescheduling: true,
            max_burst: 4,
            max_payload: 1452,
            send_buffer,
            recv_buffer,
            ..SctpConfig::default()
        }
    }

    /// Set a named option from its text value (see `option_names`).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let b = || {
            value
                .parse::<bool>()
                .map_err(|_| format!("{name}: expected true/false, got {value:?}"))
        };
        match name {
            "nr_sack" => self.nr_sack = b()?,
            "chunk_rescheduling" => self.chunk_rescheduling = b()?,
            "unordered" => self.unordered = b()?,
            "sfr" => self.sfr = b()?,
            "cuc" => self.cuc = b()?,
            "dac" => self.dac = b()?,
            "max_burst" => {
                self.max_burst = value
                    .parse()
                    .map_err(|_| format!("max_burst: expected an integer, got {value:?}"))?
            }
            "scheduler" => {
                self.scheduler =
                    Scheduler::from_name(value).ok_or(format!("unknown scheduler {value:?}"))?
            }
            "retransmission" | "rtx_policy" => {
                self.rtx_policy = RtxPolicy::from_name(value)
                    .ok_or(format!("unknown retransmission policy {value:?}"))?
            }
            "buffer_splitting" | "buffer_split" => {
                self.buffer_split = BufferSplit::from_name(value)
                    .ok_or(format!("unknown buffer splitting {value:?}"))?
            }
            "cc" => self.cc = CcVariant::from_name(value).ok_or(format!("unknown cc {value:?}"))?,
            _ => return Err(format!("unknown SCTP option {name:?}")),
        }
        Ok(())
    }

    /// Build from a protocol name ("sctp" or "cmt-sctp").
    pub fn for_protocol(name: &str) -> Option<Self> {
        match name {
            "sctp" => Some(Self::sctp()),
            "cmt-sctp" => Some(Self::cmt()),
            _ => None,
        }
    }
}
