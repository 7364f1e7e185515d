//! MPTCP options as RFC 8684 (version 1) encodes them, from the model's
//! decoded options (`mptlab_core::packet::MptcpOptions`).
//!
//! The model keeps keys and tokens as plain numbers; on the wire every
//! connection gets two 64-bit keys drawn from the run's seed, tokens and
//! IDSNs derived from them with SHA-256 (RFC 8684 section 3.1), nonces per
//! subflow and the HMACs of MP_JOIN and ADD_ADDR computed from those keys.
//! Data sequence numbers are the model's 64-bit offsets (first data byte 1)
//! plus the sender's IDSN, so DSN = IDSN + 1 for the first byte as the RFC
//! says.

use mptlab_core::optlen::{self, MpMain};
use mptlab_core::packet::{flags, Addr, MptcpOptions, TcpSegment};
use mptlab_core::FlowId;

use crate::keys;

/// Option kind of MPTCP (RFC 8684 section 3).
pub const KIND: u8 = 30;
const MP_CAPABLE: u8 = 0x0;
const MP_JOIN: u8 = 0x1;
const DSS: u8 = 0x2;
const ADD_ADDR: u8 = 0x3;
const REMOVE_ADDR: u8 = 0x4;
const MP_PRIO: u8 = 0x5;
const MP_FASTCLOSE: u8 = 0x7;
/// MP_CAPABLE version 1 (RFC 8684).
const VERSION: u8 = 1;
/// MP_CAPABLE flag H: HMAC-SHA256 (RFC 8684 section 3.1, required).
const FLAG_H: u8 = 0x01;
/// MP_CAPABLE flag A: checksum required (RFC 8684 section 3.1).
const FLAG_A: u8 = 0x80;

/// Identifies one packet's place in a connection for key and nonce draws.
#[derive(Clone, Copy, Debug)]
pub struct Who {
    pub seed: u64,
    pub flow: FlowId,
    /// The sender is the client (the side that opened the connection).
    pub from_client: bool,
    pub src: Addr,
    pub dst: Addr,
}

impl Who {
    /// The 64-bit key of one side of the connection.
    pub fn key(&self, client: bool) -> u64 {
        keys::draw(self.seed, "mptcp-key", &[self.flow as u64, client as u64])
    }

    fn key_sender(&self) -> u64 {
        self.key(self.from_client)
    }

    fn key_peer(&self) -> u64 {
        self.key(!self.from_client)
    }

    /// Nonce of the initiator (`initiator` true) or responder of the subflow
    /// with this 4-tuple, oriented from the initiator.
    fn nonce(&self, tuple: [u64; 4], initiator: bool) -> u32 {
        let mut p = [self.flow as u64, 0, 0, 0, 0, initiator as u64];
        p[1..5].copy_from_slice(&tuple);
        keys::draw(self.seed, "mptcp-nonce", &p) as u32
    }
}

/// Encoded MPTCP options of one segment, as Linux 6.18 lays them out
/// (`mptcp_write_options`): which suboptions go on the wire follows
/// `mptlab_core::optlen::layout`, the one the simulated packet was sized by.
pub struct Encoded {
    /// The leading non-DSS suboption (MP_CAPABLE, MP_JOIN, ADD_ADDR on a pure
    /// ACK, MP_FASTCLOSE and/or MP_RST), if the layout has one.
    pub control: Vec<u8>,
    /// The DSS option, if on the wire (its mapping padded with two NOPs
    /// when it has no checksum).
    pub dss: Vec<u8>,
    /// What follows: an ADD_ADDR beside the DSS, MP_PRIO, REMOVE_ADDR.
    pub tail: Vec<u8>,
    /// MP_CAPABLE with data-level length covered the mapping (no DSS needed).
    pub capable_maps_data: bool,
    /// The segment's DSS mapping is not on the wire (left out by the layout).
    pub mapping_left_out: bool,
    /// Where the mapping's DSS checksum goes, once the payload is written.
    pub csum: Option<CsumSlot>,
}

/// TCP option kind NOP, Linux's alignment filler.
const NOP: u8 = 1;
/// MP_RST subtype (RFC 8684 3.6).
const MP_RST: u8 = 0x8;

/// The 2-byte checksum field of a mapping (in the DSS, or in an MP_CAPABLE
/// carrying data) and the pseudo-header it covers (RFC 8684 3.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsumSlot {
    /// In `Encoded::dss` (else in `Encoded::control`).
    pub in_dss: bool,
    /// Offset of the checksum field in that option buffer.
    pub at: usize,
    /// 64-bit data sequence number as on the wire (IDSN-based).
    pub dsn: u64,
    /// Subflow sequence number relative to the subflow's ISN.
    pub ssn: u32,
    /// Data-level length.
    pub dll: u16,
}

impl CsumSlot {
    /// The DSS checksum (RFC 8684 3.3.1): the ones' complement of the ones'
    /// complement sum of the pseudo-header (64-bit DSN, 32-bit subflow
    /// sequence number, 16-bit data-level length, 16-bit zero checksum) and
    /// the mapped payload, as the TCP checksum (RFC 1071) and Linux
    /// `mptcp_generate_dss_csum` compute it. `payload` is what the capture
    /// writes (zero fill plus the agent's framing).
    pub fn checksum(&self, payload: &[u8]) -> u16 {
        etherparse::checksum::Sum16BitWords::new()
            .add_8bytes(self.dsn.to_be_bytes())
            .add_4bytes(self.ssn.to_be_bytes())
            .add_2bytes(self.dll.to_be_bytes())
            .add_2bytes([0, 0])
            .add_slice(payload)
            .ones_complement()
            // etherparse sums native-endian words: back to wire order
            .to_be()
    }
}

/// Encode the model's MPTCP options of `seg` sent by `who`, the suboptions
/// `optlen::layout(seg)` puts on the wire.
pub fn encode(who: &Who, seg: &TcpSegment, o: &MptcpOptions) -> Encoded {
    let l = optlen::layout_with(seg, Some(o));
    let mut control = Vec::new();
    let mut tail = Vec::new();
    let syn = seg.has(flags::SYN);
    let ack = seg.has(flags::ACK);
    let mut capable_maps_data = false;
    let mut csum = None;
    let tuple = |initiator_is_src: bool| {
        let (a, ap, b, bp) = if initiator_is_src {
            (who.src, seg.src_port, who.dst, seg.dst_port)
        } else {
            (who.dst, seg.dst_port, who.src, seg.src_port)
        };
        [a as u64, ap as u64, b as u64, bp as u64]
    };
    match (l.main, o.capable(), o.join()) {
        (MpMain::Capable, Some(c), _) => {
            // RFC 8684 section 3.1: the SYN carries no key (v1), the SYN/ACK
            // the responder's key, the third ACK both keys, initiator's
            // first; a first data segment both keys and the data-level
            // length, then the checksum or two NOPs (`mptcp_write_options`).
            let a = if c.checksum { FLAG_A } else { 0 };
            control.extend_from_slice(&[KIND, 0, (MP_CAPABLE << 4) | VERSION, a | FLAG_H]);
            if syn && ack {
                control.extend_from_slice(&who.key_sender().to_be_bytes());
            } else if !syn {
                control.extend_from_slice(&who.key_sender().to_be_bytes());
                control.extend_from_slice(&who.key_peer().to_be_bytes());
                if seg.len > 0 {
                    control.extend_from_slice(&(seg.len as u16).to_be_bytes());
                    capable_maps_data = true;
                    if o.dss.is_some_and(|d| d.csum) {
                        let dsn = o.dss.and_then(|d| d.dsn()).unwrap_or(1);
                        csum = Some(CsumSlot {
                            in_dss: false,
                            at: control.len(),
                            dsn: keys::idsn(who.key_sender()).wrapping_add(dsn),
                            ssn: seg.seq as u32,
                            dll: seg.len as u16,
                        });
                        control.extend_from_slice(&[0, 0]);
                    }
                }
            }
            control[1] = control.len() as u8;
            if capable_maps_data && csum.is_none() {
                control.extend_from_slice(&[NOP, NOP]);
            }
        }
        (MpMain::Join, _, Some(j)) => {
            let b = j.backup as u8;
            if syn && !ack {
                // SYN: token of the receiver's key, the initiator's nonce.
                control.extend_from_slice(&[KIND, 12, (MP_JOIN << 4) | b, j.addr_id]);
                control.extend_from_slice(&keys::token(who.key_peer()).to_be_bytes());
                control.extend_from_slice(&who.nonce(tuple(true), true).to_be_bytes());
            } else if syn {
                // SYN/ACK: HMAC(Key-B+Key-A, R-B+R-A), leftmost 64 bits, and R-B.
                let t = tuple(false);
                let rb = who.nonce(t, false);
                let ra = who.nonce(t, true);
                let h = keys::join_hmac(who.key_sender(), who.key_peer(), rb, ra);
                control.extend_from_slice(&[KIND, 16, (MP_JOIN << 4) | b, j.addr_id]);
                control.extend_from_slice(&h[..8]);
                control.extend_from_slice(&rb.to_be_bytes());
            } else {
                // Third ACK: the full 160 bits of HMAC(Key-A+Key-B, R-A+R-B).
                let t = tuple(true);
                let ra = who.nonce(t, true);
                let rb = who.nonce(t, false);
                let h = keys::join_hmac(who.key_sender(), who.key_peer(), ra, rb);
                control.extend_from_slice(&[KIND, 24, MP_JOIN << 4, 0]);
                control.extend_from_slice(&h[..20]);
            }
        }
        (MpMain::Fastclose, _, _) => {
            // RFC 8684 section 3.5: the receiver's key.
            control.extend_from_slice(&[KIND, 12, MP_FASTCLOSE << 4, 0]);
            control.extend_from_slice(&who.key_peer().to_be_bytes());
        }
        _ => {}
    }
    if l.rst_after_fastclose || l.main == MpMain::Rst {
        // MP_RST (RFC 8684 3.6, `mptcp_established_options_rst`): no
        // transient flag, reason 0 (unspecified; the model has no reasons).
        control.extend_from_slice(&[KIND, 4, MP_RST << 4, 0]);
    }
    if let Some(a) = o
        .add_addr()
        .filter(|_| l.main == MpMain::AddAddr || l.add_addr_beside)
    {
        // RFC 8684 section 3.4.1: E = 0 with the truncated HMAC, or the echo
        // (E = 1) without it; a 4-byte (IPv4) or 16-byte (IPv6) address, a
        // port then two NOPs (`mptcp_write_options`).
        let port = a.port.unwrap_or(0);
        let addr = crate::ip::addr_bytes(a.ip, a.addr);
        let len = 4
            + addr.len() as u8
            + if a.port.is_some() { 2 } else { 0 }
            + if a.echo { 0 } else { 8 };
        let out = if l.main == MpMain::AddAddr {
            &mut control
        } else {
            &mut tail
        };
        out.extend_from_slice(&[KIND, len, (ADD_ADDR << 4) | a.echo as u8, a.addr_id]);
        out.extend_from_slice(&addr);
        if a.port.is_some() {
            out.extend_from_slice(&port.to_be_bytes());
        }
        if !a.echo {
            out.extend_from_slice(&keys::add_addr_hmac(
                who.key_sender(),
                who.key_peer(),
                a.addr_id,
                &addr,
                port,
            ));
        }
        if a.port.is_some() {
            out.extend_from_slice(&[NOP, NOP]);
        }
    }
    if let Some(b) = o.prio_backup().filter(|_| l.prio) {
        // RFC 8684 section 3.3.8: length 3, B flag, then a NOP.
        tail.extend_from_slice(&[KIND, 3, (MP_PRIO << 4) | b as u8, NOP]);
    }
    if let Some(id) = o.remove_addr().filter(|_| l.rm_addr) {
        // RFC 8684 section 3.4.2: length 3 + number of address ids.
        tail.extend_from_slice(&[KIND, 4, REMOVE_ADDR << 4, id]);
    }
    let mut dss = Vec::new();
    let mut mapping_left_out = false;
    if let Some(d) = o.dss {
        let on_wire = l.main == MpMain::Dss || l.add_addr_beside;
        let mapping = d.dsn().filter(|_| !capable_maps_data);
        mapping_left_out = mapping.is_some() && !on_wire;
        // RFC 8684 section 3.3: flags F (DATA_FIN), m (8-octet DSN), M (DSN,
        // SSN, data-level length present), a (8-octet DATA_ACK), A (DATA_ACK).
        let mut f = 0u8;
        if d.data_ack().is_some() {
            f |= 0x01;
            if d.ack64() {
                f |= 0x02;
            }
        }
        if mapping.is_some() {
            f |= 0x04 | 0x08;
            if d.data_fin {
                f |= 0x10;
            }
        }
        if f != 0 && on_wire {
            dss.extend_from_slice(&[KIND, 0, DSS << 4, f]);
            if let Some(a) = d.data_ack() {
                let v = keys::idsn(who.key_peer()).wrapping_add(a);
                if d.ack64() {
                    dss.extend_from_slice(&v.to_be_bytes());
                } else {
                    dss.extend_from_slice(&(v as u32).to_be_bytes());
                }
            }
            if let Some(dsn) = mapping {
                let v = keys::idsn(who.key_sender()).wrapping_add(dsn);
                // A DATA_FIN without data has SSN 0 (RFC 8684 3.3.3); its
                // data-level length counts the DATA_FIN.
                let (ssn, dll) = if d.data_fin && d.map_len == 0 {
                    (0u32, 1u16)
                } else {
                    (seg.seq as u32, (d.map_len + d.data_fin as u32) as u16)
                };
                dss.extend_from_slice(&v.to_be_bytes());
                dss.extend_from_slice(&ssn.to_be_bytes());
                dss.extend_from_slice(&dll.to_be_bytes());
                if d.csum {
                    // filled in by the TCP encoder once the payload is
                    // written (`CsumSlot::checksum`)
                    csum = Some(CsumSlot {
                        in_dss: true,
                        at: dss.len(),
                        dsn: v,
                        ssn,
                        dll,
                    });
                    dss.extend_from_slice(&[0, 0]);
                }
            }
            dss[1] = dss.len() as u8;
            if mapping.is_some() && !d.csum {
                // `mptcp_write_options`: data length, then NOP NOP.
                dss.extend_from_slice(&[NOP, NOP]);
            }
        }
    }
    Encoded {
        control,
        dss,
        tail,
        capable_maps_data,
        mapping_left_out,
        csum,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_core::packet::{AddAddr, Dss, MpCapable, MpJoin, MptcpControl};

    fn who(from_client: bool) -> Who {
        Who {
            seed: 7,
            flow: 2,
            from_client,
            src: 1,
            dst: 2,
        }
    }

    fn seg(f: u8) -> TcpSegment {
        let mut s = TcpSegment::new(40000, 80);
        s.flags = f;
        s
    }

    #[test]
    fn mp_capable_sizes_follow_rfc8684_v1() {
        let c = MptcpOptions::with_control(MptcpControl {
            capable: Some(MpCapable {
                sender_key: 1,
                receiver_key: None,
                checksum: false,
            }),
            ..Default::default()
        });
        let e = encode(&who(true), &seg(flags::SYN), &c);
        assert_eq!(e.control, [30, 4, 0x01, 0x01]);
        let e = encode(&who(false), &seg(flags::SYN | flags::ACK), &c);
        assert_eq!(e.control.len(), 12);
        assert_eq!(e.control[4..12], who(true).key(false).to_be_bytes());
        let mut c3 = c.clone();
        c3.control_mut().capable.as_mut().unwrap().receiver_key = Some(2);
        let e = encode(&who(true), &seg(flags::ACK), &c3);
        assert_eq!(e.control.len(), 20);
        assert_eq!(e.control[4..12], who(true).key(true).to_be_bytes());
        assert_eq!(e.control[12..20], who(true).key(false).to_be_bytes());
    }

    #[test]
    fn join_hmacs_verify_as_a_peer_would() {
        let j = MptcpOptions::with_control(MptcpControl {
            join: Some(MpJoin {
                token: 0,
                addr_id: 1,
                backup: true,
            }),
            ..Default::default()
        });
        // client 1:40000 -> server 2:80
        let syn = encode(&who(true), &seg(flags::SYN), &j).control;
        assert_eq!(syn[..4], [30, 12, 0x11, 1]);
        let kc = who(true).key(true);
        let ks = who(true).key(false);
        assert_eq!(syn[4..8], keys::token(ks).to_be_bytes());
        let ra = u32::from_be_bytes(syn[8..12].try_into().unwrap());
        let mut s = seg(flags::SYN | flags::ACK);
        s.src_port = 80;
        s.dst_port = 40000;
        let w = Who {
            src: 2,
            dst: 1,
            ..who(false)
        };
        let synack = encode(&w, &s, &j).control;
        assert_eq!(synack.len(), 16);
        let rb = u32::from_be_bytes(synack[12..16].try_into().unwrap());
        assert_eq!(synack[4..12], keys::join_hmac(ks, kc, rb, ra)[..8]);
        let ack = encode(&who(true), &seg(flags::ACK), &j).control;
        assert_eq!(ack.len(), 24);
        assert_eq!(ack[4..24], keys::join_hmac(kc, ks, ra, rb)[..20]);
    }

    #[test]
    fn dss_maps_offsets_onto_the_idsn() {
        let mut d = Dss::with_data_ack(1);
        d.set_dsn(Some(1));
        d.map_len = 100;
        let o = MptcpOptions {
            dss: Some(d),
            control: None,
        };
        let mut s = seg(flags::ACK);
        s.seq = 1;
        s.len = 100;
        let e = encode(&who(true), &s, &o);
        // 26 bytes, then NOP NOP (`mptcp_write_options` without checksum)
        assert_eq!(e.dss.len(), 4 + 8 + 8 + 4 + 2 + 2);
        assert_eq!(e.dss[1], 26);
        assert_eq!(e.dss[26..28], [1, 1]);
        assert_eq!(e.dss[3], 0x0f);
        let kc = who(true).key(true);
        let ks = who(true).key(false);
        assert_eq!(e.dss[4..12], (keys::idsn(ks) + 1).to_be_bytes());
        assert_eq!(e.dss[12..20], (keys::idsn(kc) + 1).to_be_bytes());
        assert_eq!(e.dss[20..24], 1u32.to_be_bytes());
        assert_eq!(e.dss[24..26], 100u16.to_be_bytes());
        assert!(!e.mapping_left_out);
        // a 32-bit DATA_ACK (flag a clear) before a 64-bit DSN was received
        let mut d32 = d;
        d32.set_ack64(false);
        let o32 = MptcpOptions {
            dss: Some(d32),
            control: None,
        };
        let e = encode(&who(true), &s, &o32);
        assert_eq!((e.dss[1], e.dss[3], e.dss.len()), (22, 0x0d, 24));
        assert_eq!(e.dss[4..8], ((keys::idsn(ks) + 1) as u32).to_be_bytes());
    }

    #[test]
    fn dss_checksum_verifies_and_covers_flag_a() {
        let mut d = Dss::with_data_ack(1);
        d.set_dsn(Some(1));
        d.map_len = 3;
        d.csum = true;
        let o = MptcpOptions {
            dss: Some(d),
            control: None,
        };
        let mut s = seg(flags::ACK);
        s.seq = 1;
        s.len = 3;
        let e = encode(&who(true), &s, &o);
        // RFC 8684 Figure 9: 4 + DATA_ACK 8 + DSN 8 + SSN 4 + length 2 + checksum 2
        assert_eq!(e.dss.len(), 28);
        let c = e.csum.expect("a checksum slot");
        assert!(c.in_dss && c.at == 26 && c.ssn == 1 && c.dll == 3);
        let payload = [0xab, 0xcd, 0xef];
        let v = c.checksum(&payload);
        // a receiver's check: pseudo-header with the checksum filled in
        // plus the payload (odd length padded with a zero byte) sums to
        // 0xffff in ones' complement (RFC 1071)
        let mut words: Vec<u16> = Vec::new();
        let mut b = c.dsn.to_be_bytes().to_vec();
        b.extend_from_slice(&c.ssn.to_be_bytes());
        b.extend_from_slice(&c.dll.to_be_bytes());
        b.extend_from_slice(&v.to_be_bytes());
        b.extend_from_slice(&payload);
        b.push(0);
        for w in b.chunks(2) {
            words.push(u16::from_be_bytes([w[0], w[1]]));
        }
        let mut sum: u32 = 0;
        for w in words {
            sum += w as u32;
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff);
        // flag A on MP_CAPABLE only when negotiated
        let cap = |checksum| {
            MptcpOptions::with_control(MptcpControl {
                capable: Some(MpCapable {
                    sender_key: 1,
                    receiver_key: None,
                    checksum,
                }),
                ..Default::default()
            })
        };
        assert_eq!(
            encode(&who(true), &seg(flags::SYN), &cap(true)).control[3],
            0x81
        );
        assert_eq!(
            encode(&who(true), &seg(flags::SYN), &cap(false)).control[3],
            0x01
        );
    }

    #[test]
    fn add_addr_carries_the_rightmost_hmac_bits() {
        let o = MptcpOptions::with_control(MptcpControl {
            add_addr: Some(AddAddr {
                addr_id: 2,
                addr: 0x0a00_0102,
                port: None,
                echo: false,
                ip: Default::default(),
            }),
            ..Default::default()
        });
        let e = encode(&who(false), &seg(flags::ACK), &o).control;
        assert_eq!(e[..8], [30, 16, 0x30, 2, 10, 0, 1, 2]);
        let h = keys::hmac(
            who(false).key(false),
            who(false).key(true),
            &[2, 10, 0, 1, 2, 0, 0],
        );
        assert_eq!(e[8..16], h[24..32]);
    }
}
