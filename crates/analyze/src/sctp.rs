//! SCTP common header and chunks (RFC 9260 sections 3 and 3.3). Never
//! panics: a chunk whose length runs past the captured bytes ends the walk
//! (a snap-length cut keeps the chunks before it and the DATA chunk it cut).

use crate::packet::Skip;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk<'a> {
    /// RFC 9260 3.3.1; `len` is the user data length on the wire.
    Data {
        tsn: u32,
        /// U, B, E bits (RFC 9260 3.3.1).
        flags: u8,
        stream: u16,
        ssn: u16,
        ppid: u32,
        data: &'a [u8],
        len: u32,
    },
    /// RFC 9260 3.3.4.
    Sack {
        cum_tsn: u32,
        a_rwnd: u32,
        gaps: Vec<(u16, u16)>,
        dups: u16,
    },
    /// Any other chunk, by type (INIT 1, INIT ACK 2, HEARTBEAT 4, ...).
    Other { ty: u8 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SctpPacket<'a> {
    pub sport: u16,
    pub dport: u16,
    pub vtag: u32,
    pub chunks: Vec<Chunk<'a>>,
    /// The walk stopped at a chunk cut by the snap length or malformed.
    pub cut: bool,
    /// The sender's Initial TSN, from an INIT or INIT ACK chunk (RFC 9260
    /// 3.3.2/3.3.3: after the tag, a_rwnd and the stream counts).
    pub initial_tsn: Option<u32>,
}

/// Chunk type names (RFC 9260 3.2 and the IANA registry) for reports.
pub fn chunk_name(ty: u8) -> &'static str {
    match ty {
        0 => "DATA",
        1 => "INIT",
        2 => "INIT_ACK",
        3 => "SACK",
        4 => "HEARTBEAT",
        5 => "HEARTBEAT_ACK",
        6 => "ABORT",
        7 => "SHUTDOWN",
        8 => "SHUTDOWN_ACK",
        9 => "ERROR",
        10 => "COOKIE_ECHO",
        11 => "COOKIE_ACK",
        14 => "SHUTDOWN_COMPLETE",
        64 => "I_DATA",
        192 => "FORWARD_TSN",
        _ => "other",
    }
}

/// Parse an SCTP packet; `cut` = bytes the snap length removed at its end.
pub fn parse_sctp(p: &[u8], cut: usize) -> Result<SctpPacket<'_>, Skip> {
    let h = p.get(..12).ok_or("cut inside SCTP common header")?;
    let mut pkt = SctpPacket {
        sport: u16::from_be_bytes([h[0], h[1]]),
        dport: u16::from_be_bytes([h[2], h[3]]),
        vtag: u32::from_be_bytes([h[4], h[5], h[6], h[7]]),
        chunks: Vec::new(),
        cut: false,
        initial_tsn: None,
    };
    let be16 = |b: &[u8], i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    let be32 = |b: &[u8], i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut i = 12;
    while i + 4 <= p.len() {
        let ty = p[i];
        let clen = be16(p, i + 2) as usize;
        if clen < 4 {
            pkt.cut = true;
            break;
        }
        let avail = &p[i..p.len().min(i + clen)];
        let whole = avail.len() == clen;
        match ty {
            0 if avail.len() >= 16 => {
                // A DATA chunk cut by the snap length (it ends where the
                // packet did) keeps its wire length; any other short one is damage.
                if !whole && i + clen != p.len() + cut {
                    pkt.cut = true;
                    break;
                }
                let len = clen - 16;
                pkt.chunks.push(Chunk::Data {
                    tsn: be32(avail, 4),
                    flags: avail[1],
                    stream: be16(avail, 8),
                    ssn: be16(avail, 10),
                    ppid: be32(avail, 12),
                    data: &avail[16..],
                    len: len as u32,
                });
            }
            3 if whole && clen >= 16 => {
                let ng = be16(avail, 12) as usize;
                let gaps = (0..ng)
                    .take_while(|k| 16 + 4 * k + 4 <= clen)
                    .map(|k| (be16(avail, 16 + 4 * k), be16(avail, 18 + 4 * k)))
                    .collect();
                pkt.chunks.push(Chunk::Sack {
                    cum_tsn: be32(avail, 4),
                    a_rwnd: be32(avail, 8),
                    gaps,
                    dups: be16(avail, 14),
                });
            }
            1 | 2 if whole && clen >= 20 => {
                pkt.initial_tsn = Some(be32(avail, 16));
                pkt.chunks.push(Chunk::Other { ty });
            }
            _ if whole => pkt.chunks.push(Chunk::Other { ty }),
            _ => {
                pkt.cut = true;
                break;
            }
        }
        // Chunks are padded to 4 octets (RFC 9260 3.2).
        i += (clen + 3) & !3;
    }
    Ok(pkt)
}
