//! Decoder for the TCP options field and the MPTCP option (TCP option kind
//! 30, RFC 8684 section 3 and its figures). Never panics: a malformed or
//! cut option ends the walk and is reported, the options before it are kept.

use sha2::{Digest, Sha256};

/// TCP option kinds used here (IANA "TCP Option Kind Numbers").
pub const OPT_EOL: u8 = 0;
pub const OPT_NOP: u8 = 1;
pub const OPT_MSS: u8 = 2;
pub const OPT_WSCALE: u8 = 3;
pub const OPT_SACK_PERM: u8 = 4;
pub const OPT_SACK: u8 = 5;
pub const OPT_TIMESTAMP: u8 = 8;
pub const OPT_MPTCP: u8 = 30;

/// MPTCP option subtypes (RFC 8684 section 8, "MPTCP Option Subtypes").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MptcpOpt {
    /// 0x0, RFC 8684 3.1: lengths 4 (SYN, v1), 12 (SYN/ACK, or SYN of v0),
    /// 20 (third ACK), 22/24 (first data, with data-level length and checksum).
    Capable {
        version: u8,
        /// A: checksum required; H: HMAC-SHA256 (flags byte).
        flags: u8,
        sender_key: Option<u64>,
        receiver_key: Option<u64>,
        data_len: Option<u16>,
        checksum: Option<u16>,
    },
    /// 0x1, RFC 8684 3.2: SYN (12), SYN/ACK (16), third ACK (24).
    Join(Join),
    /// 0x2, RFC 8684 3.3 (Figure 9).
    Dss(Dss),
    /// 0x3, RFC 8684 3.4.1.
    AddAddr {
        echo: bool,
        addr_id: u8,
        addr: std::net::IpAddr,
        port: Option<u16>,
        hmac: Option<u64>,
    },
    /// 0x4, RFC 8684 3.4.2.
    RemoveAddr { addr_ids: Vec<u8> },
    /// 0x5, RFC 8684 3.3.8.
    Prio { backup: bool, addr_id: Option<u8> },
    /// 0x6, RFC 8684 3.7.
    Fail { dsn: u64 },
    /// 0x7, RFC 8684 3.5.
    FastClose { receiver_key: u64 },
    /// 0x8, RFC 8684 3.6.
    TcpRst { flags: u8, reason: u8 },
    /// Any other subtype (0xf is private use).
    Other { subtype: u8 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Join {
    Syn {
        backup: bool,
        addr_id: u8,
        token: u32,
        nonce: u32,
    },
    SynAck {
        backup: bool,
        addr_id: u8,
        hmac64: u64,
        nonce: u32,
    },
    Ack {
        hmac: [u8; 20],
    },
}

/// The Data Sequence Signal (RFC 8684 3.3, Figure 9).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dss {
    /// DATA_ACK and whether it was sent as 8 octets (`a` flag).
    pub data_ack: Option<(u64, bool)>,
    /// The mapping: DSN (and whether 8 octets, `m` flag), subflow sequence
    /// number relative to the subflow's ISN, data-level length.
    pub map: Option<DssMap>,
    pub checksum: Option<u16>,
    /// F: DATA_FIN.
    pub data_fin: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DssMap {
    pub dsn: u64,
    pub dsn64: bool,
    pub ssn: u32,
    pub len: u16,
}

/// The TCP options of one segment that the analysis uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpOpts {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_perm: bool,
    pub sack: Vec<(u32, u32)>,
    /// (TSval, TSecr), RFC 7323 3.
    pub ts: Option<(u32, u32)>,
    pub mptcp: Vec<MptcpOpt>,
    /// Why the walk stopped early, if it did (cut by the snap length,
    /// bad length byte, malformed MPTCP option).
    pub error: Option<&'static str>,
}

fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}
fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}
fn be64(b: &[u8], i: usize) -> u64 {
    ((be32(b, i) as u64) << 32) | be32(b, i + 4) as u64
}

/// Walk a TCP options field (RFC 9293 3.1: kind, length, data; EOL and NOP
/// are one octet).
pub fn parse_tcp_options(opts: &[u8]) -> TcpOpts {
    let mut out = TcpOpts::default();
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        if kind == OPT_EOL {
            break;
        }
        if kind == OPT_NOP {
            i += 1;
            continue;
        }
        let Some(&len) = opts.get(i + 1) else {
            out.error = Some("option cut after its kind octet");
            break;
        };
        let len = len as usize;
        if len < 2 {
            out.error = Some("option length below 2");
            break;
        }
        let Some(o) = opts.get(i..i + len) else {
            out.error = Some("option longer than the options field");
            break;
        };
        match (kind, len) {
            (OPT_MSS, 4) => out.mss = Some(be16(o, 2)),
            (OPT_WSCALE, 3) => out.wscale = Some(o[2]),
            (OPT_SACK_PERM, 2) => out.sack_perm = true,
            (OPT_SACK, _) if (len - 2) % 8 == 0 => {
                out.sack = (0..(len - 2) / 8)
                    .map(|k| (be32(o, 2 + 8 * k), be32(o, 6 + 8 * k)))
                    .collect()
            }
            (OPT_TIMESTAMP, 10) => out.ts = Some((be32(o, 2), be32(o, 6))),
            (OPT_MPTCP, _) => match parse_mptcp(o) {
                Ok(m) => out.mptcp.push(m),
                Err(e) => out.error = Some(e),
            },
            _ => {}
        }
        i += len;
    }
    out
}

/// Decode one MPTCP option, `o` = the whole option (kind, length, ...).
pub fn parse_mptcp(o: &[u8]) -> Result<MptcpOpt, &'static str> {
    if o.len() < 3 || o[0] != OPT_MPTCP || o[1] as usize != o.len() {
        return Err("MPTCP option shorter than 3 octets or length mismatch");
    }
    let len = o.len();
    let subtype = o[2] >> 4;
    let low = o[2] & 0x0f;
    Ok(match subtype {
        0 => {
            // RFC 8684 3.1, Figure 4
            if !matches!(len, 4 | 12 | 20 | 22 | 24) {
                return Err("MP_CAPABLE of a length RFC 8684 does not define");
            }
            MptcpOpt::Capable {
                version: low,
                flags: o[3],
                sender_key: (len >= 12).then(|| be64(o, 4)),
                receiver_key: (len >= 20).then(|| be64(o, 12)),
                data_len: (len >= 22).then(|| be16(o, 20)),
                checksum: (len == 24).then(|| be16(o, 22)),
            }
        }
        1 => MptcpOpt::Join(match len {
            // RFC 8684 3.2, Figures 5-7
            12 => Join::Syn {
                backup: low & 1 != 0,
                addr_id: o[3],
                token: be32(o, 4),
                nonce: be32(o, 8),
            },
            16 => Join::SynAck {
                backup: low & 1 != 0,
                addr_id: o[3],
                hmac64: be64(o, 4),
                nonce: be32(o, 12),
            },
            24 => Join::Ack {
                hmac: o[4..24].try_into().unwrap(),
            },
            _ => return Err("MP_JOIN of a length RFC 8684 does not define"),
        }),
        2 => MptcpOpt::Dss(parse_dss(o)?),
        3 => {
            // RFC 8684 3.4.1, Figure 12: E flag is the lowest bit
            let echo = low & 1 != 0;
            let hmac_len = if echo { 0 } else { 8 };
            // fuzz/regressions/mptcp_option/: a 5-octet ADD_ADDR underflowed this
            let (addr, alen): (std::net::IpAddr, usize) = match len.saturating_sub(hmac_len) {
                8 | 10 => (
                    std::net::Ipv4Addr::from(<[u8; 4]>::try_from(&o[4..8]).unwrap()).into(),
                    4,
                ),
                20 | 22 => (
                    std::net::Ipv6Addr::from(<[u8; 16]>::try_from(&o[4..20]).unwrap()).into(),
                    16,
                ),
                _ => return Err("ADD_ADDR of a length RFC 8684 does not define"),
            };
            let port = (len.saturating_sub(hmac_len) == 4 + alen + 2).then(|| be16(o, 4 + alen));
            MptcpOpt::AddAddr {
                echo,
                addr_id: o[3],
                addr,
                port,
                hmac: (!echo).then(|| be64(o, len - 8)),
            }
        }
        4 => {
            if len < 4 {
                return Err("REMOVE_ADDR without an address id");
            }
            MptcpOpt::RemoveAddr {
                addr_ids: o[3..].to_vec(),
            }
        }
        5 => MptcpOpt::Prio {
            backup: low & 1 != 0,
            addr_id: match len {
                3 => None,
                4 => Some(o[3]),
                _ => return Err("MP_PRIO of a length RFC 8684 does not define"),
            },
        },
        6 if len == 12 => MptcpOpt::Fail { dsn: be64(o, 4) },
        6 => return Err("MP_FAIL length is not 12"),
        7 if len == 12 => MptcpOpt::FastClose {
            receiver_key: be64(o, 4),
        },
        7 => return Err("MP_FASTCLOSE length is not 12"),
        8 if len == 4 => MptcpOpt::TcpRst {
            flags: low,
            reason: o[3],
        },
        8 => return Err("MP_TCPRST length is not 4"),
        s => MptcpOpt::Other { subtype: s },
    })
}

/// DSS, RFC 8684 3.3 Figure 9: flags octet `...F m M a A`, then DATA_ACK
/// (4 or 8 octets), then DSN (4 or 8), subflow sequence number (4),
/// data-level length (2) and the checksum (2) when negotiated.
fn parse_dss(o: &[u8]) -> Result<Dss, &'static str> {
    if o.len() < 4 {
        return Err("DSS without its flags octet");
    }
    let f = o[3];
    let mut d = Dss {
        data_fin: f & 0x10 != 0,
        ..Dss::default()
    };
    let mut i = 4;
    let need = |i: usize, n: usize| {
        if i + n <= o.len() {
            Ok(())
        } else {
            Err("DSS shorter than its flags announce")
        }
    };
    if f & 0x01 != 0 {
        let a8 = f & 0x02 != 0;
        let n = if a8 { 8 } else { 4 };
        need(i, n)?;
        d.data_ack = Some((if a8 { be64(o, i) } else { be32(o, i) as u64 }, a8));
        i += n;
    }
    if f & 0x04 != 0 {
        let m8 = f & 0x08 != 0;
        let n = if m8 { 8 } else { 4 };
        need(i, n + 6)?;
        let dsn = if m8 { be64(o, i) } else { be32(o, i) as u64 };
        i += n;
        d.map = Some(DssMap {
            dsn,
            dsn64: m8,
            ssn: be32(o, i),
            len: be16(o, i + 4),
        });
        i += 6;
        match o.len() - i {
            0 => {}
            2 => d.checksum = Some(be16(o, i)),
            _ => return Err("DSS longer than its flags announce"),
        }
    } else if o.len() != i {
        return Err("DSS longer than its flags announce");
    }
    Ok(d)
}

/// Token (most significant 32 bits) and initial data sequence number
/// (least significant 64 bits) of SHA-256 of a key, RFC 8684 3.1 / 3.2.
pub fn token_idsn(key: u64) -> (u32, u64) {
    let h = Sha256::digest(key.to_be_bytes());
    (be32(&h, 0), be64(&h, 24))
}

#[cfg(test)]
mod tests;
