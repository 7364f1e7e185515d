//! SCTP packets and chunks as the models see them (decoded, not bytes), with
//! their wire sizes from RFC 9260 section 3 so links serialise realistic
//! packets. TSNs and SSNs are 64-bit counters starting at 0 (no serial-number
//! arithmetic, as for TCP in `packet.rs`); a capture writer maps them to the
//! 32-bit (TSN) and 16-bit (SSN) wire fields.

use crate::packet::{Addr, IpVersion};
use crate::time::Nanos;

/// SCTP common header (RFC 9260 section 3.1): ports, verification tag, checksum.
pub const COMMON_HEADER: u32 = 12;
/// DATA chunk header (RFC 9260 section 3.3.1): type, flags, length, TSN,
/// stream id, SSN, PPID.
pub const DATA_HEADER: u32 = 16;
/// SACK chunk fixed part (RFC 9260 section 3.3.4).
pub const SACK_HEADER: u32 = 16;
/// NR-SACK fixed part (draft-natarajan-tsvwg-sctp-nrsack section 4.2):
/// SACK fields plus the number of NR gap blocks and a reserved field.
pub const NR_SACK_HEADER: u32 = 20;

/// Round up to a multiple of 4 (chunks are padded, RFC 9260 section 3.2).
pub const fn pad4(n: u32) -> u32 {
    (n + 3) & !3
}

/// A decoded SCTP packet: common header fields and the bundled chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct SctpPacket {
    pub src_port: u16,
    pub dst_port: u16,
    pub vtag: u32,
    pub chunks: Vec<Chunk>,
}

impl SctpPacket {
    /// Bytes of SCTP (common header + padded chunks), without IP.
    pub fn wire_len(&self) -> u32 {
        COMMON_HEADER + self.chunks.iter().map(|c| pad4(c.wire_len())).sum::<u32>()
    }

    /// User data bytes carried in DATA chunks.
    pub fn data_len(&self) -> u32 {
        self.chunks
            .iter()
            .map(|c| if let Chunk::Data(d) = c { d.len } else { 0 })
            .sum()
    }
}

/// The chunk types mptlab models (RFC 9260 section 3.2 plus NR-SACK).
#[derive(Clone, Debug, PartialEq)]
pub enum Chunk {
    /// INIT (section 3.3.2) with the sender's addresses as parameters.
    Init {
        init_tag: u32,
        a_rwnd: u64,
        addrs: Vec<Addr>,
        nr_sack: bool,
        /// Family of the address parameters (IPv4 type 5 or IPv6 type 6).
        ip: IpVersion,
    },
    /// INIT-ACK (section 3.3.3) carrying a state cookie.
    InitAck {
        init_tag: u32,
        a_rwnd: u64,
        addrs: Vec<Addr>,
        cookie: u64,
        nr_sack: bool,
        ip: IpVersion,
    },
    CookieEcho {
        cookie: u64,
    },
    CookieAck,
    Data(DataChunk),
    /// SACK (section 3.3.4) or NR-SACK.
    Sack(SackChunk),
    /// HEARTBEAT (section 3.3.5): the sender-specific info carries the
    /// path probed (source and destination address) and the send time, as
    /// Linux/FreeBSD put the transport address and a timestamp there.
    Heartbeat {
        src: Addr,
        dest: Addr,
        sent_at: Nanos,
    },
    HeartbeatAck {
        src: Addr,
        dest: Addr,
        sent_at: Nanos,
    },
    /// SHUTDOWN (section 3.3.8) with the cumulative TSN ack.
    Shutdown {
        cum_tsn: Option<u64>,
    },
    ShutdownAck,
    ShutdownComplete,
    Abort,
}

/// Size of the state cookie parameter we model (HMAC, timestamps, TCB digest).
const COOKIE_PARAM: u32 = 4 + 32;

/// Bytes of an IPv4 / IPv6 Address parameter (RFC 9260 section 3.3.2.1).
fn addr_param(ip: IpVersion) -> u32 {
    match ip {
        IpVersion::V4 => 8,
        IpVersion::V6 => 20,
    }
}

impl Chunk {
    /// Chunk length on the wire before padding.
    pub fn wire_len(&self) -> u32 {
        match self {
            // fixed 20 bytes + one address parameter per address (section
            // 3.3.2.1: IPv4 8 bytes, IPv6 20) + supported-extensions
            // parameter (4 + 1 type) when NR-SACK is offered.
            Chunk::Init {
                addrs, nr_sack, ip, ..
            } => 20 + addr_param(*ip) * addrs.len() as u32 + if *nr_sack { 8 } else { 0 },
            Chunk::InitAck {
                addrs, nr_sack, ip, ..
            } => {
                20 + addr_param(*ip) * addrs.len() as u32
                    + COOKIE_PARAM
                    + if *nr_sack { 8 } else { 0 }
            }
            Chunk::CookieEcho { .. } => 4 + 32,
            Chunk::CookieAck => 4,
            Chunk::Data(d) => DATA_HEADER + d.len,
            Chunk::Sack(s) => s.wire_len(),
            // chunk header 4 + heartbeat-info parameter header 4 + 16 bytes of info
            Chunk::Heartbeat { .. } | Chunk::HeartbeatAck { .. } => 4 + 4 + 16,
            Chunk::Shutdown { .. } => 8,
            Chunk::ShutdownAck | Chunk::ShutdownComplete | Chunk::Abort => 4,
        }
    }
}

/// A DATA chunk (RFC 9260 section 3.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    pub tsn: u64,
    pub stream: u16,
    pub ssn: u64,
    /// U bit: unordered delivery.
    pub unordered: bool,
    /// B bit: first fragment of a user message.
    pub begin: bool,
    /// E bit: last fragment of a user message.
    pub end: bool,
    /// User data bytes in this chunk.
    pub len: u32,
    /// Not a wire field: offset of the message's first byte in the sender's
    /// stream of written bytes, so the receiver can report which message
    /// completed (like `UdpDatagram::seq`, a measurement aid).
    pub msg_offset: u64,
}

/// A SACK or NR-SACK chunk. Gap blocks are kept as absolute inclusive TSN
/// ranges (the wire carries 16-bit offsets from the cumulative TSN ack).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackChunk {
    /// Cumulative TSN ack: every TSN <= this was received. `None` before
    /// the first DATA chunk (TSN 0) arrives (the wire carries initial TSN - 1).
    pub cum_tsn: Option<u64>,
    pub a_rwnd: u64,
    /// Gap ack blocks: TSNs received above `cum_tsn` (renegable).
    pub gaps: Vec<(u64, u64)>,
    /// NR gap ack blocks (non-renegable, draft-natarajan-tsvwg-sctp-nrsack
    /// section 4.2): out-of-order TSNs the receiver will not renege, i.e.
    /// already delivered (unordered) and freed.
    pub nr_gaps: Vec<(u64, u64)>,
    /// Duplicate TSNs received since the last SACK.
    pub dups: Vec<u64>,
    /// True for the NR-SACK chunk type.
    pub nr: bool,
    /// DAC (Iyengar et al. 2006 section 4.3): number of data packets (1 or
    /// 2) this SACK acknowledges, carried in two flag bits of the chunk.
    pub dac_packets: u8,
}

impl SackChunk {
    pub fn wire_len(&self) -> u32 {
        let hdr = if self.nr { NR_SACK_HEADER } else { SACK_HEADER };
        hdr + 4 * (self.gaps.len() + self.nr_gaps.len() + self.dups.len()) as u32
    }

    /// Is `tsn` acknowledged by this SACK (cumulatively or in a gap block)?
    pub fn acks(&self, tsn: u64) -> bool {
        self.cum_tsn.is_some_and(|c| tsn <= c)
            || self
                .gaps
                .iter()
                .chain(self.nr_gaps.iter())
                .any(|&(a, b)| a <= tsn && tsn <= b)
    }
}
