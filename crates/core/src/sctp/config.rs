//! Association configuration, with the names a scenario file uses.

use crate::packet::IpVersion;
use crate::time::{Nanos, MS, SEC};

crate::named_enum! {
    /// How a destination is chosen for retransmissions
    /// (`transport.sctp.retransmission`; Iyengar et al. 2006, section 5:
    /// RTX-SAME, RTX-ASAP-like lowest RTT, RTX-CWND, RTX-SSTHRESH).
    pub enum RtxPolicy {
        /// The destination the chunk was last sent to (RTX-SAME).
        Same = "same": "retransmit on the path of the original transmission",
        /// The active destination with the lowest smoothed RTT (seed 000, Table 1).
        LowestRtt = "lowest-rtt": "retransmit on the path with the lowest RTT (seed 000)",
        /// The active destination with the largest cwnd (RTX-CWND).
        LargestCwnd = "largest-cwnd": "retransmit on the path with the largest cwnd",
        /// The active destination with the largest ssthresh (RTX-SSTHRESH).
        LargestSsthresh = "largest-ssthresh": "retransmit on the path with the largest ssthresh",
    }
}

crate::named_enum! {
    /// Buffer splitting (`transport.sctp.buffer_splitting`; Dreibholz et al.,
    /// "Transmission Scheduling Optimizations for Concurrent Multipath
    /// Transfer", PFLDNeT 2010, section 3): each of the n active paths may
    /// occupy at most 1/n of the send buffer (sender side) and/or 1/n of the
    /// peer's receive window (receiver side).
    pub enum BufferSplit {
        None = "none": "no buffer splitting",
        Sender = "sender": "split the send buffer per path",
        Receiver = "receiver": "split the receive buffer per path",
        Both = "both": "split both buffers (seed 000)",
    }
}

impl BufferSplit {
    pub fn sender(self) -> bool {
        matches!(self, BufferSplit::Sender | BufferSplit::Both)
    }
    pub fn receiver(self) -> bool {
        matches!(self, BufferSplit::Receiver | BufferSplit::Both)
    }
}

crate::named_enum! {
    /// Path scheduler for CMT (`transport.sctp.scheduler`).
    pub enum Scheduler {
        /// Primary path first, then the others, at every send opportunity
        /// (INET's default CMT sender, `cmtSendAllVariant = "normal"`).
        RoundRobin = "roundrobin": "primary path first, then the others, as INET's default",
        /// Delay-aware packet scheduling (Kuhn et al., ICC 2014).
        Daps = "daps": "delay-aware packet scheduling (Kuhn et al. 2014)",
    }
}

crate::named_enum! {
    /// Congestion control across paths (`transport.sctp.cc`).
    pub enum CcVariant {
        /// Independent RFC 9260 section 7 control per destination.
        Uncoupled = "uncoupled": "RFC 9260 section 7 per path",
        /// CMT/RPv2 resource pooling (Dreibholz et al. 2012).
        CmtRpv2 = "cmt-rpv2": "coupled CMT/RPv2 (Dreibholz et al.)",
    }
}

crate::named_enum! {
    /// Named starting configurations (`transport.sctp.preset`); `config`
    /// builds one.
    pub enum Preset {
        Seed000 = "seed000": "seed 000's CMT-SCTP configuration (default for cmt-sctp)",
        Rfc = "rfc": "RFC 9260 defaults (plus the CMT rules for cmt-sctp)",
    }
}

impl Preset {
    /// The preset with the scenario's buffers (bytes); `cmt` is set by the caller.
    pub fn config(self, send_buffer: u64, recv_buffer: u64) -> SctpConfig {
        match self {
            Preset::Seed000 => SctpConfig::seed000(send_buffer, recv_buffer),
            Preset::Rfc => SctpConfig {
                send_buffer,
                recv_buffer,
                ..SctpConfig::sctp()
            },
        }
    }
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
    /// IP version: the IP header of every packet (20 or 40 bytes).
    pub ip: IpVersion,
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
            ip: IpVersion::V4,
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
}
