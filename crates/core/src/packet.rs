//! Packets as the models see them: decoded header fields (a "Repr" in smoltcp's
//! terms), not bytes. The simulator never puts these on a real wire, so
//! sequence numbers are 64-bit stream offsets (no wrap-around arithmetic to get
//! wrong); a capture writer maps them to 32-bit on-the-wire values.
//!
//! `Packet` is `Clone` but small enough to move cheaply; the engine keeps
//! packets in a pool and passes indices through queues (as htsim recycles
//! packets from a free list).

use crate::time::Nanos;

/// An IPv4 address as a host-order integer.
pub type Addr = u32;

/// Build an address from its four dotted-quad parts.
pub const fn addr(a: u8, b: u8, c: u8, d: u8) -> Addr {
    u32::from_be_bytes([a, b, c, d])
}

/// Dotted-quad text of an address.
pub fn addr_to_string(a: Addr) -> String {
    let b = a.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// Index of a transport flow (connection or datagram flow) in a run. The
/// simulator uses it to find the endpoint at the destination host in O(1),
/// which is equivalent to a 4-tuple lookup because each 4-tuple belongs to
/// exactly one flow; it is also the key for per-flow accounting at queues.
pub type FlowId = u32;

/// IPv4 header bytes (no options, RFC 791 section 3.1).
pub const IPV4_HEADER: u32 = 20;
/// IPv6 header bytes (no extension headers, RFC 8200 section 3).
pub const IPV6_HEADER: u32 = 40;
/// UDP header bytes.
pub const UDP_HEADER: u32 = 8;
/// TCP base header bytes (no options).
pub const TCP_HEADER: u32 = 20;

/// IP version of a simulated network. Addresses stay the scenario's IPv4
/// address plan either way (a capture maps them into an IPv6 prefix); what
/// the models feel is the header: every packet grows by 20 bytes and the
/// MSS shrinks by 20 (Linux `tcp_mtu_to_mss` subtracts the address family's
/// `net_header_len`: 20 in `ipv4_specific`, 40 in `ipv6_specific`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum IpVersion {
    #[default]
    V4 = 0,
    V6 = 1,
}

impl IpVersion {
    /// Fixed IP header bytes, without options or extension headers.
    #[inline]
    pub const fn header_len(self) -> u32 {
        // Branch-free (it is on every packet's path): 20 + 20 * (V6 = 1).
        IPV4_HEADER + (IPV6_HEADER - IPV4_HEADER) * self as u32
    }

    /// The version number (4 or 6).
    pub const fn number(self) -> u8 {
        match self {
            IpVersion::V4 => 4,
            IpVersion::V6 => 6,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    pub src: Addr,
    pub dst: Addr,
    pub flow: FlowId,
    /// Total IP packet length in bytes (headers + payload); what links
    /// serialise and byte-limited queues count.
    pub size: u32,
    pub payload: Payload,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    Tcp(TcpSegment),
    Udp(UdpDatagram),
    /// An SCTP packet (boxed: chunk lists are larger than a TCP header).
    Sctp(Box<crate::sctp::chunk::SctpPacket>),
}

impl Packet {
    /// A packet that is nobody's: what a slot holds before anything is
    /// written into it (`Endpoint::poll_transmit_into` overwrites it; the
    /// engine's packet pool keeps one such slot ready). An empty UDP
    /// datagram between address 0 and itself, with nothing to drop.
    pub const VACANT: Packet = Packet {
        src: 0,
        dst: 0,
        flow: 0,
        size: 0,
        payload: Payload::Udp(UdpDatagram {
            src_port: 0,
            dst_port: 0,
            len: 0,
            seq: 0,
            sent_at: 0,
        }),
    };

    /// True if the packet owns memory on the heap, which its drop frees: an
    /// SCTP packet's boxed chunks, or a TCP segment's MPTCP signalling
    /// options (`MptcpOptions::control`: MP_CAPABLE, MP_JOIN, ADD_ADDR ...).
    /// Every other packet's drop does nothing, so a write over it
    /// (`overwrite_plain_with`) may forget it instead of calling the drop
    /// glue. (Written as a test for TCP first: as a `match` over the three
    /// payloads it cost 9.7 M instructions more than the SCTP-only test it
    /// replaced on the background cell, this form 5.8 M fewer than the
    /// `match`; docs/performance.md "Session 31 (lead)".)
    #[inline(always)]
    pub fn owns_heap(&self) -> bool {
        if let Payload::Tcp(s) = &self.payload {
            return match &s.mptcp {
                Some(o) => o.control.is_some(),
                None => false,
            };
        }
        matches!(self.payload, Payload::Sctp(_))
    }

    #[cold]
    #[inline(never)]
    fn drop_boxed(&mut self) {
        *self = Packet::VACANT;
    }

    /// Drop what the packet owns on the heap, if anything (`owns_heap`),
    /// leaving `Packet::VACANT`: a slot about to be written over without a
    /// drop (`overwrite_plain_with`).
    #[inline(always)]
    pub fn drop_owned(&mut self) {
        if self.owns_heap() {
            self.drop_boxed();
        }
    }

    /// `*self = make()` without the drop of the packet replaced, which is
    /// forgotten: what a sent packet is written over
    /// (`Endpoint::poll_transmit_into`'s slot, which the engine's pool
    /// cleans before it makes it vacant, `Packet::VACANT`, a queue's free
    /// place). The plain assignment called the drop glue
    /// (`drop_in_place::<Packet>`) out of line on every packet, and built
    /// the new packet on the stack and copied it, because the drop may
    /// unwind (docs/performance.md "Session 26 pass: the sent packet built
    /// in its slot").
    /// Until session 32 the write tested the replaced packet itself
    /// (`owns_heap`, three loads and three branches for a TCP segment) on
    /// every packet sent; the pool now makes that test
    /// (`Packet::drop_owned`) only when a packet that may own heap memory
    /// was sent (docs/performance.md "Session 32 pass: the engine's
    /// per-event cost"). The leak this guards against, the boxed MPTCP
    /// signalling options of a forgotten handshake segment (session 31),
    /// is tested on whole worlds in `crates/sim/tests/world_frees.rs`.
    ///
    /// # Precondition
    ///
    /// `*self` owns nothing on the heap (`!self.owns_heap()`): whatever it
    /// owns is leaked. Only checked builds (`invariants`) enforce it, with
    /// a panic (`check_owns_nothing`); a release build leaks silently.
    #[inline(always)]
    pub fn overwrite_plain_with(&mut self, make: impl FnOnce() -> Packet) {
        if crate::invariants::ENABLED {
            self.check_owns_nothing();
        }
        // (`*self` owns nothing on the heap: forgetting it leaks nothing)
        std::mem::forget(std::mem::replace(self, make()));
    }

    /// Checked builds: a packet written over without the drop test
    /// (`overwrite_plain_with`) owned nothing the forget would leak.
    #[cold]
    #[inline(never)]
    pub fn check_owns_nothing(&self) {
        assert!(
            !self.owns_heap(),
            "a packet owning heap memory is written over without its drop \
             (flow {}, {} bytes)",
            self.flow,
            self.size
        );
    }

    #[inline]
    pub fn tcp(&self) -> Option<&TcpSegment> {
        match &self.payload {
            Payload::Tcp(s) => Some(s),
            _ => None,
        }
    }

    /// Application payload bytes carried (0 for pure control packets).
    #[inline]
    pub fn payload_len(&self) -> u32 {
        match &self.payload {
            Payload::Tcp(s) => s.len,
            Payload::Udp(d) => d.len,
            Payload::Sctp(s) => s.data_len(),
        }
    }

    /// True if this packet carries application data (counts as a "data packet"
    /// in speed benchmarks and per-path shares).
    #[inline]
    pub fn is_data(&self) -> bool {
        self.payload_len() > 0
    }
}

/// TCP flag bits, as on the wire.
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
}

/// A SACK block: bytes [start, end) received out of order (RFC 2018).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// At most this many SACK blocks fit beside the timestamp option in 40 bytes
/// of TCP options (RFC 2018 section 3: 3 blocks with timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The SACK blocks of a segment, decoded (see `TcpSegment::sack_blocks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [SackBlock; MAX_SACK_BLOCKS],
    len: u8,
}

impl std::ops::Deref for SackBlocks {
    type Target = [SackBlock];
    #[inline]
    fn deref(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
}

/// A decoded TCP segment. `seq`/`ack` are 64-bit offsets in the sender's and
/// receiver's byte streams where the SYN occupies offset 0 (ISN = 0), so the
/// first data byte is 1, as with a real ISN of 0.
///
/// Kept within 112 bytes (a `Packet` of 128), the most a move copies with
/// inline instructions rather than a call to memcpy: the timestamp and MSS
/// options are stored with presence bits instead of `Option`s (read them with
/// `ts()`/`mss()`), and SACK blocks as their 32-bit wire values, unwrapped
/// against the ACK field when read (`sack_blocks()`), as a receiver of the
/// real option does.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSegment {
    pub seq: u64,
    pub ack: u64,
    /// Receive window in bytes, already scaled (window scaling limits what can
    /// be expressed: see `tcp::window`).
    pub window: u64,
    /// Timestamp option (RFC 7323): TSval and TSecr, valid if `opt_bits` has
    /// TS. Kept in nanoseconds of the sender's clock; a capture writer converts
    /// to the 1 ms ticks Linux uses.
    ts_val: Nanos,
    ts_ecr: Nanos,
    /// SACK blocks' start and end, low 32 bits (the wire encoding).
    sack: [[u32; 2]; MAX_SACK_BLOCKS],
    /// Multipath TCP options (RFC 8684), when the segment belongs to an MPTCP
    /// subflow.
    pub mptcp: Option<MptcpOptions>,
    /// Payload length in bytes.
    pub len: u32,
    pub src_port: u16,
    pub dst_port: u16,
    /// MSS option value (SYN only), valid if `opt_bits` has MSS.
    mss: u16,
    /// Window scale option (SYN only).
    pub wscale: Option<u8>,
    pub flags: u8,
    /// SACK-permitted option (SYN only).
    pub sack_permitted: bool,
    sack_len: u8,
    opt_bits: u8,
}

const OPT_TS: u8 = 1;
const OPT_MSS: u8 = 2;

impl TcpSegment {
    pub fn new(src_port: u16, dst_port: u16) -> TcpSegment {
        TcpSegment {
            seq: 0,
            ack: 0,
            window: 0,
            ts_val: 0,
            ts_ecr: 0,
            sack: [[0; 2]; MAX_SACK_BLOCKS],
            mptcp: None,
            len: 0,
            src_port,
            dst_port,
            mss: 0,
            wscale: None,
            flags: 0,
            sack_permitted: false,
            sack_len: 0,
            opt_bits: 0,
        }
    }

    /// `new` carrying the MPTCP options `mptcp`, written with the other
    /// fields (setting `mptcp` afterwards on a segment already in place
    /// first drops the `None` there).
    #[inline(always)]
    pub fn with_mptcp(src_port: u16, dst_port: u16, mptcp: Option<MptcpOptions>) -> TcpSegment {
        TcpSegment {
            mptcp,
            ..TcpSegment::new(src_port, dst_port)
        }
    }

    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    /// Timestamp option (RFC 7323): TSval and TSecr.
    #[inline]
    pub fn ts(&self) -> Option<(Nanos, Nanos)> {
        (self.opt_bits & OPT_TS != 0).then_some((self.ts_val, self.ts_ecr))
    }

    #[inline]
    pub fn set_ts(&mut self, ts: Option<(Nanos, Nanos)>) {
        let (v, e) = ts.unwrap_or((0, 0));
        self.ts_val = v;
        self.ts_ecr = e;
        self.opt_bits = (self.opt_bits & !OPT_TS) | if ts.is_some() { OPT_TS } else { 0 };
    }

    /// MSS option (SYN only).
    #[inline]
    pub fn mss(&self) -> Option<u16> {
        (self.opt_bits & OPT_MSS != 0).then_some(self.mss)
    }

    #[inline]
    pub fn set_mss(&mut self, mss: Option<u16>) {
        self.mss = mss.unwrap_or(0);
        self.opt_bits = (self.opt_bits & !OPT_MSS) | if mss.is_some() { OPT_MSS } else { 0 };
    }

    /// Number of SACK blocks carried.
    #[inline]
    pub fn sack_len(&self) -> usize {
        self.sack_len as usize
    }

    /// Set SACK block `i` (`i < MAX_SACK_BLOCKS`); `set_sack_len` says how
    /// many are carried. The block must lie within 2^31 bytes of the ACK
    /// field, as on the wire (a receive window is at most 2^30).
    #[inline]
    pub fn set_sack_block(&mut self, i: usize, b: SackBlock) {
        self.sack[i] = [b.start as u32, b.end as u32];
    }

    #[inline]
    pub fn set_sack_len(&mut self, n: usize) {
        debug_assert!(n <= MAX_SACK_BLOCKS);
        self.sack_len = n as u8;
    }

    /// The SACK blocks, unwrapped against the ACK field.
    #[inline]
    pub fn sack_blocks(&self) -> SackBlocks {
        let mut out = SackBlocks {
            blocks: [SackBlock::default(); MAX_SACK_BLOCKS],
            len: self.sack_len,
        };
        let a = self.ack;
        let unwrap = |w: u32| a.wrapping_add(w.wrapping_sub(a as u32) as i32 as i64 as u64);
        for (o, w) in out
            .blocks
            .iter_mut()
            .zip(&self.sack[..self.sack_len as usize])
        {
            *o = SackBlock {
                start: unwrap(w[0]),
                end: unwrap(w[1]),
            };
        }
        out
    }

    /// Sequence space consumed: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }

    /// Bytes of TCP options on the wire, each option aligned as Linux 6.18
    /// writes it (`crate::optlen`).
    #[inline]
    pub fn options_len(&self) -> u32 {
        crate::optlen::layout(self).len
    }

    /// Header bytes (IP + TCP + options).
    #[inline]
    pub fn header_len(&self, ip: IpVersion) -> u32 {
        ip.header_len() + TCP_HEADER + self.options_len().min(40)
    }
}

/// A decoded UDP datagram. `seq` numbers datagrams of a flow from 0 so that
/// loss and reordering can be measured; it is not a wire field.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpDatagram {
    pub src_port: u16,
    pub dst_port: u16,
    pub len: u32,
    pub seq: u64,
    /// Send time, as a measurement agent would stamp it into the payload.
    pub sent_at: Nanos,
}

/// Multipath TCP options carried by one segment (RFC 8684 section 3).
/// A segment may carry a DSS and one signalling option at the same time.
///
/// Only the DSS appears on ordinary data and ACK segments, so it is kept
/// inline; the signalling options (MP_CAPABLE, MP_JOIN, ADD_ADDR, REMOVE_ADDR,
/// MP_PRIO, MP_FASTCLOSE) live out of line in [`MptcpControl`], allocated only
/// for the few segments that carry one. This keeps `Packet` small to move.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MptcpOptions {
    pub dss: Option<Dss>,
    /// Signalling options, if the segment carries any (`None` on ordinary
    /// data and ACK segments).
    pub control: Option<Box<MptcpControl>>,
}

/// The rarely sent MPTCP signalling options of one segment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MptcpControl {
    pub capable: Option<MpCapable>,
    pub join: Option<MpJoin>,
    pub add_addr: Option<AddAddr>,
    pub remove_addr: Option<u8>,
    /// MP_PRIO: the sender asks the peer to treat this subflow as backup (true)
    /// or regular (false).
    pub prio_backup: Option<bool>,
    pub fastclose: bool,
}

/// MP_CAPABLE (RFC 8684 section 3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MpCapable {
    pub sender_key: u64,
    pub receiver_key: Option<u64>,
    /// Flag A, "checksum required" (RFC 8684 3.1): the sender requires DSS
    /// checksums (`net.mptcp.checksum_enabled`), or echoes that they were
    /// negotiated on.
    pub checksum: bool,
}

/// MP_JOIN (RFC 8684 section 3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MpJoin {
    pub token: u32,
    pub addr_id: u8,
    pub backup: bool,
}

/// Data Sequence Signal (RFC 8684 section 3.3): a cumulative DATA_ACK and/or a
/// mapping of subflow bytes to connection-level data sequence numbers.
///
/// Stored compactly (presence flags beside plain integers, 24 bytes instead of
/// 40) because every data and ACK segment of an MPTCP subflow carries one; read
/// and set the optional fields through `data_ack()`/`dsn()` and their setters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dss {
    data_ack: u64,
    dsn: u64,
    /// Length of the mapping in bytes.
    pub map_len: u32,
    /// Bytes of the DATA_ACK on the wire: 0 (none), 4 or 8 (RFC 8684 3.3.2
    /// flags A and a; Linux `msk->use_64bit_ack`).
    ack_width: u8,
    has_dsn: bool,
    pub data_fin: bool,
    /// The mapping carries the 2-byte DSS checksum (RFC 8684 3.3: present
    /// in every mapping once checksums were negotiated in MP_CAPABLE).
    pub csum: bool,
}

impl Dss {
    /// A DSS carrying only a DATA_ACK.
    #[inline]
    pub fn with_data_ack(data_ack: u64) -> Dss {
        Dss {
            data_ack,
            ack_width: 8,
            ..Dss::default()
        }
    }

    /// The cumulative DATA_ACK, if present.
    #[inline]
    pub fn data_ack(&self) -> Option<u64> {
        (self.ack_width != 0).then_some(self.data_ack)
    }

    /// The DATA_ACK is sent in 8 bytes (flag a), else 4.
    #[inline]
    pub fn ack64(&self) -> bool {
        self.ack_width == 8
    }

    /// Send the DATA_ACK (if any) in 8 bytes or in 4: Linux sends 64-bit
    /// DATA_ACKs once it received a 64-bit DSN (`msk->use_64bit_ack`,
    /// set in subflow.c `get_mapping_status`), 32-bit ones before.
    #[inline]
    pub fn set_ack64(&mut self, ack64: bool) {
        if self.ack_width != 0 {
            self.ack_width = if ack64 { 8 } else { 4 };
        }
    }

    /// Data sequence number of the first payload byte of this segment, if the
    /// DSS carries a mapping.
    #[inline]
    pub fn dsn(&self) -> Option<u64> {
        self.has_dsn.then_some(self.dsn)
    }

    #[inline]
    pub fn set_data_ack(&mut self, v: Option<u64>) {
        self.ack_width = match (v.is_some(), self.ack_width) {
            (false, _) => 0,
            (true, 0) => 8,
            (true, w) => w,
        };
        self.data_ack = v.unwrap_or(0);
    }

    #[inline]
    pub fn set_dsn(&mut self, v: Option<u64>) {
        self.has_dsn = v.is_some();
        self.dsn = v.unwrap_or(0);
    }
}

/// ADD_ADDR (RFC 8684 section 3.4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddAddr {
    pub addr_id: u8,
    pub addr: Addr,
    pub port: Option<u16>,
    /// RFC 8684 3.4.1 E flag: the receiver's echo (no HMAC).
    pub echo: bool,
    /// Which address family the option carries (its length depends on it).
    pub ip: IpVersion,
}

impl MptcpOptions {
    /// Options carrying only the given signalling options.
    pub fn with_control(c: MptcpControl) -> MptcpOptions {
        MptcpOptions {
            dss: None,
            control: Some(Box::new(c)),
        }
    }

    /// The signalling options, allocating them if the segment has none yet.
    pub fn control_mut(&mut self) -> &mut MptcpControl {
        self.control.get_or_insert_with(Box::default)
    }

    #[inline]
    pub fn capable(&self) -> Option<MpCapable> {
        self.control.as_ref().and_then(|c| c.capable)
    }

    #[inline]
    pub fn join(&self) -> Option<MpJoin> {
        self.control.as_ref().and_then(|c| c.join)
    }

    #[inline]
    pub fn add_addr(&self) -> Option<AddAddr> {
        self.control.as_ref().and_then(|c| c.add_addr)
    }

    #[inline]
    pub fn remove_addr(&self) -> Option<u8> {
        self.control.as_ref().and_then(|c| c.remove_addr)
    }

    #[inline]
    pub fn prio_backup(&self) -> Option<bool> {
        self.control.as_ref().and_then(|c| c.prio_backup)
    }

    #[inline]
    pub fn fastclose(&self) -> bool {
        self.control.as_ref().is_some_and(|c| c.fastclose)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_data_segment_header_is_52_bytes() {
        // IP 20 + TCP 20 + timestamps 10 padded to 12: MSS 1448 in a 1500 MTU.
        let mut s = TcpSegment::new(1, 2);
        s.set_ts(Some((1, 0)));
        assert_eq!(s.header_len(IpVersion::V4), 52);
        // IPv6: 20 bytes more, MSS 1428 in a 1500 MTU.
        assert_eq!(s.header_len(IpVersion::V6), 72);
    }

    #[test]
    fn sack_blocks_count_in_options() {
        let mut s = TcpSegment::new(1, 2);
        s.set_ts(Some((1, 0)));
        s.set_sack_len(3);
        // NOP NOP TS (12) + NOP NOP SACK 2 + 24 (Linux `tcp_options_write`)
        assert_eq!(s.options_len(), 40);
    }

    #[test]
    fn packets_stay_small() {
        // Every packet is moved through the engine's queues and pool; the
        // rare MPTCP signalling options live out of line to keep it this small.
        assert_eq!(std::mem::size_of::<Dss>(), 24);
        assert_eq!(std::mem::size_of::<Option<MptcpOptions>>(), 32);
        assert!(
            std::mem::size_of::<TcpSegment>() <= 112,
            "TcpSegment is {} bytes",
            std::mem::size_of::<TcpSegment>()
        );
        assert!(
            std::mem::size_of::<Packet>() <= 128,
            "Packet is {} bytes",
            std::mem::size_of::<Packet>()
        );
    }

    #[test]
    fn dss_optional_fields_round_trip() {
        let mut d = Dss::with_data_ack(5);
        assert_eq!((d.data_ack(), d.dsn()), (Some(5), None));
        d.set_dsn(Some(0));
        assert_eq!(d.dsn(), Some(0));
        d.set_data_ack(None);
        assert_eq!((d.data_ack(), d.dsn()), (None, Some(0)));
        // Equality is of the decoded fields: an absent value leaves no trace.
        let mut e = Dss::default();
        e.set_dsn(Some(0));
        assert_eq!(d, e);
        assert_eq!(
            crate::optlen::dss_len(d.dsn().is_some(), false, None),
            4 + 14 + 2
        );
        // the DATA_ACK keeps its width through set_data_ack
        let mut a = Dss::with_data_ack(1);
        a.set_ack64(false);
        a.set_data_ack(Some(2));
        assert!(!a.ack64());
        a.set_data_ack(None);
        a.set_data_ack(Some(3));
        assert!(a.ack64());
    }

    #[test]
    fn addresses_print_dotted() {
        assert_eq!(addr_to_string(addr(10, 0, 1, 2)), "10.0.1.2");
    }
}
