//! Reading pcap and pcapng containers with `pcap-parser` (rusticata): one
//! [`Frame`] per captured packet, with its link type and a timestamp in ns.
//! Damage after the first valid record (a truncated last record, garbage
//! in the middle) ends the read with a counted note, keeping the records
//! before it; a file that is neither format is an error.

use pcap_parser::nom;
use pcap_parser::pcapng::Block;
use pcap_parser::{parse_pcap_header, PcapBlockOwned, PcapError, PcapNGSlice};

/// One captured packet.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Capture timestamp, ns since the Unix epoch (or since whatever origin
    /// the writer used: mptlab's simulator writes simulated time).
    pub ts_ns: i128,
    /// LINKTYPE_* value (tcpdump.org/linktypes.html).
    pub linktype: i32,
    /// The captured bytes (at most the snap length).
    pub data: Vec<u8>,
    /// Length of the packet on the wire.
    pub orig_len: u32,
}

/// Everything read from one file.
#[derive(Debug, Default)]
pub struct Capture {
    pub format: &'static str,
    pub frames: Vec<Frame>,
    /// Why the read stopped before the end of the file, if it did.
    pub damaged: Option<String>,
    /// Timestamp resolution in ns (1000 for microsecond pcap).
    pub resolution_ns: f64,
}

#[derive(Debug, PartialEq)]
pub enum ReadError {
    Empty,
    NotACapture,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            ReadError::Empty => write!(f, "empty file"),
            ReadError::NotACapture => write!(
                f,
                "not a pcap or pcapng file (no pcap magic and no pcapng section header)"
            ),
        }
    }
}

fn describe<I>(e: &nom::Err<PcapError<I>>) -> String {
    match e {
        nom::Err::Incomplete(_) => "file ends inside a record (truncated)".into(),
        nom::Err::Error(PcapError::UnexpectedEof | PcapError::Incomplete(_))
        | nom::Err::Failure(PcapError::UnexpectedEof | PcapError::Incomplete(_)) => {
            "file ends inside a record (truncated)".into()
        }
        nom::Err::Error(_) | nom::Err::Failure(_) => "malformed record".into(),
    }
}

/// Parse a whole capture file held in memory.
pub fn read(buf: &[u8]) -> Result<Capture, ReadError> {
    if buf.is_empty() {
        return Err(ReadError::Empty);
    }
    // pcapng: only the blocks before the first one whose length is
    // impossible go to the parser (see `ng_block_lengths_ok`).
    let (ng_buf, bad_block) = ng_block_lengths_ok(buf);
    if let Ok(ng) = PcapNGSlice::from_slice(ng_buf) {
        let mut c = read_ng(ng);
        if c.damaged.is_none() {
            c.damaged = bad_block;
        }
        return Ok(c);
    }
    if let Some(why) = bad_block {
        // a section header whose own length is impossible
        return Ok(Capture {
            format: "pcapng",
            damaged: Some(why),
            resolution_ns: 1000.0,
            ..Capture::default()
        });
    }
    match parse_pcap_header(buf) {
        Ok((rest, h)) => Ok(read_legacy(buf, rest, &h)),
        Err(_) => Err(ReadError::NotACapture),
    }
}

fn read_legacy(buf: &[u8], mut rest: &[u8], h: &pcap_parser::PcapHeader) -> Capture {
    // parse_pcap_header accepts both byte orders and the nanosecond and
    // Kuznetzov ("modified") magics; pick the matching record parser.
    let nano = h.is_nanosecond_precision();
    let mut c = Capture {
        format: "pcap",
        resolution_ns: if nano { 1.0 } else { 1000.0 },
        ..Capture::default()
    };
    let _ = buf;
    while !rest.is_empty() {
        let r = if h.is_modified_format() {
            if h.is_bigendian() {
                c.damaged = Some("big-endian modified (Kuznetzov) pcap is not supported".into());
                break;
            }
            pcap_parser::pcap::parse_pcap_frame_modified(rest)
        } else if h.is_bigendian() {
            pcap_parser::pcap::parse_pcap_frame_be(rest)
        } else {
            pcap_parser::pcap::parse_pcap_frame(rest)
        };
        match r {
            Ok((r2, b)) => {
                let frac = if nano { 1 } else { 1000 };
                c.frames.push(Frame {
                    ts_ns: b.ts_sec as i128 * 1_000_000_000 + b.ts_usec as i128 * frac,
                    linktype: h.network.0,
                    data: b.data.to_vec(),
                    orig_len: b.origlen,
                });
                rest = r2;
            }
            Err(e) => {
                c.damaged = Some(describe(&e));
                break;
            }
        }
    }
    c
}

struct Iface {
    linktype: i32,
    /// Units per second.
    resol: u64,
    offset_s: i64,
}

/// pcapng section header block type (pcapng section 4.1), the same bytes in
/// either byte order.
const NG_SHB: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// The prefix of a pcapng file up to the first block whose total length is
/// below the 12 bytes every block has (type, length, trailing length:
/// pcapng section 3.1), with a message naming it; the whole buffer and
/// `None` when every complete block's length is possible (or `buf` is not
/// pcapng). pcap-parser 0.17 computes `block_len - 12` unchecked for block
/// types whose header it reads in fewer bytes (`pcapng/block.rs`), which
/// wraps (release) or panics (overflow checks), so such a block must never
/// reach it. Each section's byte order comes from its byte-order magic.
fn ng_block_lengths_ok(buf: &[u8]) -> (&[u8], Option<String>) {
    if !buf.starts_with(&NG_SHB) {
        return (buf, None);
    }
    let mut little = true;
    let mut pos = 0usize;
    while let Some(hdr) = buf.get(pos..pos + 8) {
        if hdr[..4] == NG_SHB {
            match buf.get(pos + 8..pos + 12) {
                Some([0x4d, 0x3c, 0x2b, 0x1a]) => little = true,
                Some([0x1a, 0x2b, 0x3c, 0x4d]) => little = false,
                // no or an unknown byte-order magic: the parser refuses it
                _ => return (buf, None),
            }
        }
        let len_bytes = [hdr[4], hdr[5], hdr[6], hdr[7]];
        let len = if little {
            u32::from_le_bytes(len_bytes)
        } else {
            u32::from_be_bytes(len_bytes)
        };
        if len < 12 {
            return (
                &buf[..pos],
                Some(format!(
                    "pcapng block at byte {pos} gives its length as {len}, below the 12-byte minimum"
                )),
            );
        }
        pos = match pos.checked_add(len as usize) {
            Some(p) if p <= buf.len() => p,
            // a truncated last block: the parser reports it
            _ => break,
        };
    }
    (buf, None)
}

fn read_ng(ng: PcapNGSlice) -> Capture {
    let mut c = Capture {
        format: "pcapng",
        resolution_ns: 1000.0,
        ..Capture::default()
    };
    let mut ifaces: Vec<Iface> = Vec::new();
    let mut finest = f64::INFINITY;
    for b in ng {
        let b = match b {
            Ok(PcapBlockOwned::NG(b)) => b,
            Ok(_) => continue,
            Err(e) => {
                c.damaged = Some(describe(&e));
                break;
            }
        };
        match b {
            // A new section starts a new interface list (pcapng 4.1).
            Block::SectionHeader(_) => ifaces.clear(),
            Block::InterfaceDescription(idb) => {
                let resol = idb.ts_resolution().unwrap_or(1_000_000).max(1);
                finest = finest.min(1e9 / resol as f64);
                ifaces.push(Iface {
                    linktype: idb.linktype.0,
                    resol,
                    offset_s: idb.ts_offset(),
                });
            }
            Block::EnhancedPacket(epb) => {
                let Some(ifc) = ifaces.get(epb.if_id as usize) else {
                    c.damaged = Some(format!(
                        "packet on interface {} which no interface block describes",
                        epb.if_id
                    ));
                    break;
                };
                let ts = ((epb.ts_high as u64) << 32) | epb.ts_low as u64;
                let ts_ns = ifc.offset_s as i128 * 1_000_000_000
                    + ts as i128 * 1_000_000_000 / ifc.resol as i128;
                let cap = (epb.caplen as usize).min(epb.data.len());
                c.frames.push(Frame {
                    ts_ns,
                    linktype: ifc.linktype,
                    data: epb.data[..cap].to_vec(),
                    orig_len: epb.origlen,
                });
            }
            Block::SimplePacket(spb) => {
                // No timestamp (pcapng 4.4): only usable for counts; kept
                // at time 0 on interface 0.
                let Some(ifc) = ifaces.first() else {
                    c.damaged = Some("simple packet before any interface block".into());
                    break;
                };
                c.frames.push(Frame {
                    ts_ns: 0,
                    linktype: ifc.linktype,
                    data: spb.data.to_vec(),
                    orig_len: spb.origlen,
                });
            }
            _ => {}
        }
    }
    if finest.is_finite() {
        c.resolution_ns = finest;
    }
    c
}
