//! Builders of small synthetic captures for tests and fuzz seeds: pcap
//! records, IPv4/TCP packets (etherparse's `PacketBuilder`) and MPTCP
//! options as RFC 8684 lays them out.

use etherparse::PacketBuilder;

pub const LINKTYPE_RAW: u32 = 101;

/// A little-endian microsecond pcap file of (time ns, linktype-framed bytes,
/// original length) records.
pub fn pcap(linktype: u32, recs: &[(u64, Vec<u8>, u32)]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(0xa1b2c3d4u32.to_le_bytes());
    v.extend(2u16.to_le_bytes());
    v.extend(4u16.to_le_bytes());
    v.extend(0i32.to_le_bytes());
    v.extend(0u32.to_le_bytes());
    v.extend(65535u32.to_le_bytes());
    v.extend(linktype.to_le_bytes());
    for (t, d, orig) in recs {
        v.extend(((t / 1_000_000_000) as u32).to_le_bytes());
        v.extend((((t % 1_000_000_000) / 1000) as u32).to_le_bytes());
        v.extend((d.len() as u32).to_le_bytes());
        v.extend(orig.to_le_bytes());
        v.extend(d);
    }
    v
}

/// A minimal pcapng file (SHB, one IDB with if_tsresol 9 = ns, EPBs).
pub fn pcapng(linktype: u16, recs: &[(u64, Vec<u8>, u32)]) -> Vec<u8> {
    let mut v = Vec::new();
    let block = |v: &mut Vec<u8>, ty: u32, body: &[u8]| {
        let len = 12 + body.len().div_ceil(4) * 4;
        v.extend(ty.to_le_bytes());
        v.extend((len as u32).to_le_bytes());
        v.extend(body);
        v.resize(v.len() + (len - 12 - body.len()), 0);
        v.extend((len as u32).to_le_bytes());
    };
    let mut shb = Vec::new();
    shb.extend(0x1a2b3c4du32.to_le_bytes());
    shb.extend(1u16.to_le_bytes());
    shb.extend(0u16.to_le_bytes());
    shb.extend((-1i64).to_le_bytes());
    block(&mut v, 0x0a0d0d0a, &shb);
    let mut idb = Vec::new();
    idb.extend(linktype.to_le_bytes());
    idb.extend(0u16.to_le_bytes());
    idb.extend(0u32.to_le_bytes());
    // if_tsresol = 9 (ns), end of options
    idb.extend([9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
    block(&mut v, 1, &idb);
    for (t, d, orig) in recs {
        let mut e = Vec::new();
        e.extend(0u32.to_le_bytes());
        e.extend(((t >> 32) as u32).to_le_bytes());
        e.extend((*t as u32).to_le_bytes());
        e.extend((d.len() as u32).to_le_bytes());
        e.extend(orig.to_le_bytes());
        e.extend(d);
        e.resize(20 + d.len().div_ceil(4) * 4, 0);
        block(&mut v, 6, &e);
    }
    v
}

/// TCP segment flags.
#[derive(Clone, Copy, Default)]
pub struct Flags {
    pub syn: bool,
    pub ack: Option<u32>,
    pub fin: bool,
}

/// An IPv4/TCP packet with raw options (padded with NOPs to 4 octets).
#[allow(clippy::too_many_arguments)]
pub fn tcp(
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seq: u32,
    f: Flags,
    opts: &[u8],
    payload: &[u8],
) -> Vec<u8> {
    let mut o = opts.to_vec();
    while o.len() % 4 != 0 {
        o.insert(0, 1);
    }
    let mut b = PacketBuilder::ipv4(src, dst, 64).tcp(sport, dport, seq, 65535);
    if f.syn {
        b = b.syn();
    }
    if let Some(a) = f.ack {
        b = b.ack(a);
    }
    if f.fin {
        b = b.fin();
    }
    let b = b.options_raw(&o).expect("options fit");
    let mut v = Vec::new();
    b.write(&mut v, payload).expect("write packet");
    v
}

/// MP_CAPABLE (RFC 8684 3.1, Figure 4): version 1, flag H (HMAC-SHA256).
pub fn mp_capable(sender: Option<u64>, receiver: Option<u64>, data_len: Option<u16>) -> Vec<u8> {
    let mut o = vec![30, 0, 0x01, 0x01];
    if let Some(k) = sender {
        o.extend(k.to_be_bytes());
    }
    if let Some(k) = receiver {
        o.extend(k.to_be_bytes());
    }
    if let Some(l) = data_len {
        o.extend(l.to_be_bytes());
    }
    o[1] = o.len() as u8;
    o
}

/// MP_JOIN SYN (RFC 8684 3.2, Figure 5).
pub fn mp_join_syn(token: u32, nonce: u32) -> Vec<u8> {
    let mut o = vec![30, 12, 0x10, 1];
    o.extend(token.to_be_bytes());
    o.extend(nonce.to_be_bytes());
    o
}

/// DSS with a 64-bit DATA_ACK and a 64-bit mapping (RFC 8684 3.3, Figure 9).
pub fn dss(data_ack: Option<u64>, map: Option<(u64, u32, u16)>) -> Vec<u8> {
    let mut flags = 0u8;
    let mut o = vec![30, 0, 0x20, 0];
    if let Some(a) = data_ack {
        flags |= 0x03;
        o.extend(a.to_be_bytes());
    }
    if let Some((dsn, ssn, len)) = map {
        flags |= 0x0c;
        o.extend(dsn.to_be_bytes());
        o.extend(ssn.to_be_bytes());
        o.extend(len.to_be_bytes());
    }
    o[3] = flags;
    o[1] = o.len() as u8;
    o
}
