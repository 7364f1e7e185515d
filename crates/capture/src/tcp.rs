//! TCP segments on the wire: 32-bit sequence numbers from the model's 64-bit
//! offsets plus a per-direction ISN drawn from the seed, the options byte
//! for byte as Linux 6.18 writes them (`tcp_options_write`: MSS,
//! SACK-permitted + timestamps or `NOP NOP` timestamps, `NOP NOP`
//! SACK-permitted, `NOP` window scale, `NOP NOP` SACK blocks, then MPTCP as
//! `mptcp_write_options` aligns it). The model sizes packets with the same
//! layout (`mptlab_core::optlen`), so frames have exactly the size the
//! simulated links serialised. Then the
//! IP (v4 or v6, `crate::ip`) and TCP headers with valid checksums
//! (etherparse).

use std::collections::HashMap;

use etherparse::{IpNumber, TcpHeader};
use mptlab_core::packet::{flags, Addr, IpVersion, Packet, TcpSegment};
use mptlab_core::FlowId;

use crate::ip::Ip;
use crate::keys;
use crate::messages::Messages;
use crate::mptcp::{self, Who};
use mptlab_core::optlen;

const MAX_OPTIONS: usize = 40;
/// TCP option kind NOP.
const NOP: u8 = 1;

/// A direction of a subflow: (source, source port, destination, destination port).
type Dir = (Addr, u16, Addr, u16);

/// What the TCP encoder remembers between segments: the window scale each
/// direction announced in its SYN, applied once both SYNs offered one
/// (RFC 7323 section 2.2).
#[derive(Default)]
pub struct TcpState {
    /// The IP version the segments are written in.
    pub ip: IpVersion,
    wscale: HashMap<Dir, Option<u8>>,
    /// DSS options with a mapping that did not fit beside other options.
    pub dss_left_out: u64,
}

impl TcpState {
    pub fn new(ip: IpVersion) -> TcpState {
        TcpState {
            ip,
            ..Default::default()
        }
    }

    fn shift(&self, d: Dir) -> u8 {
        let rev = (d.2, d.3, d.0, d.1);
        match (self.wscale.get(&d), self.wscale.get(&rev)) {
            (Some(Some(s)), Some(Some(_))) => *s,
            _ => 0,
        }
    }
}

/// ISN of one direction of a subflow.
fn isn(seed: u64, flow: FlowId, d: Dir) -> u32 {
    keys::draw(
        seed,
        "isn",
        &[flow as u64, d.0 as u64, d.1 as u64, d.2 as u64, d.3 as u64],
    ) as u32
}

/// Offset of a direction's TSval clock (Linux randomises it per connection,
/// `secure_tcp_ts_off`).
fn ts_off(seed: u64, flow: FlowId, d: Dir) -> u32 {
    keys::draw(
        seed,
        "tsoff",
        &[flow as u64, d.0 as u64, d.1 as u64, d.2 as u64, d.3 as u64],
    ) as u32
}

/// Nanoseconds to the 1 ms TSval ticks of Linux (`tcp_time_stamp`).
fn ms(t: u64) -> u32 {
    (t / 1_000_000) as u32
}

/// Write the IP packet of a TCP segment into `out` (cleared first).
pub fn encode(
    st: &mut TcpState,
    msgs: &Messages,
    seed: u64,
    from_client: bool,
    p: &Packet,
    s: &TcpSegment,
    out: &mut Vec<u8>,
) {
    let d: Dir = (p.src, s.src_port, p.dst, s.dst_port);
    let rev: Dir = (p.dst, s.dst_port, p.src, s.src_port);
    let syn = s.has(flags::SYN);
    if syn {
        st.wscale.insert(d, s.wscale);
    }
    let (my_isn, peer_isn) = (isn(seed, p.flow, d), isn(seed, p.flow, rev));
    // ---- options, as Linux writes them (`tcp_options_write`) ----
    // Which options go on the wire, and their aligned sizes, come from the
    // layout the simulated packet was sized by (`optlen::layout`).
    let l = optlen::layout(s);
    let mut opt = [0u8; 64];
    let mut n = 0;
    let mut put = |b: &[u8], n: &mut usize| {
        opt[*n..*n + b.len()].copy_from_slice(b);
        *n += b.len();
    };
    if let Some(m) = s.mss() {
        put(&[2, 4], &mut n);
        put(&m.to_be_bytes(), &mut n);
    }
    let ts = s.ts();
    if let Some((v, e)) = ts {
        let val = ms(v).wrapping_add(ts_off(seed, p.flow, d));
        // TSecr is meaningful only with ACK set (RFC 7323 section 3.2).
        let ecr = if s.has(flags::ACK) {
            ms(e).wrapping_add(ts_off(seed, p.flow, rev))
        } else {
            0
        };
        // SACK-permitted shares the timestamps' first word, else NOP NOP.
        if s.sack_permitted && syn {
            put(&[4, 2, 8, 10], &mut n);
        } else {
            put(&[NOP, NOP, 8, 10], &mut n);
        }
        put(&val.to_be_bytes(), &mut n);
        put(&ecr.to_be_bytes(), &mut n);
    }
    if s.sack_permitted && syn && ts.is_none() {
        put(&[NOP, NOP, 4, 2], &mut n);
    }
    if let Some(w) = s.wscale {
        put(&[NOP, 3, 3, w], &mut n);
    }
    if l.sack_blocks > 0 {
        put(&[NOP, NOP, 5, (2 + 8 * l.sack_blocks) as u8], &mut n);
        for b in s.sack_blocks().iter().take(l.sack_blocks) {
            put(&peer_isn.wrapping_add(b.start as u32).to_be_bytes(), &mut n);
            put(&peer_isn.wrapping_add(b.end as u32).to_be_bytes(), &mut n);
        }
    }
    // Where the mapping's checksum field landed in `opt`, if it was written.
    let mut csum_at = None;
    if let Some(o) = s.mptcp.as_ref() {
        let who = Who {
            seed,
            flow: p.flow,
            from_client,
            src: p.src,
            dst: p.dst,
        };
        let e = mptcp::encode(&who, s, o);
        if e.mapping_left_out {
            st.dss_left_out += 1;
        }
        if let Some(c) = e.csum.filter(|c| !c.in_dss) {
            csum_at = Some((n + c.at, c));
        }
        put(&e.control, &mut n);
        if let Some(c) = e.csum.filter(|c| c.in_dss) {
            csum_at = Some((n + c.at, c));
        }
        put(&e.dss, &mut n);
        put(&e.tail, &mut n);
    }
    // Linux's options are aligned by construction; the model's length is
    // the same layout, so this only pads what does not fit (capped at 40).
    let want = (l.len as usize).max((n + 3) & !3);
    if n < want {
        // End of Option List, then zeros (RFC 9293 section 3.2).
        put(&[0u8; MAX_OPTIONS][..want - n], &mut n);
    }
    let n = n.min(MAX_OPTIONS);
    // ---- headers ----
    let mut th = TcpHeader::new(s.src_port, s.dst_port, my_isn.wrapping_add(s.seq as u32), 0);
    th.syn = syn;
    th.ack = s.has(flags::ACK);
    th.fin = s.has(flags::FIN);
    th.rst = s.has(flags::RST);
    th.psh = s.has(flags::PSH);
    if th.ack {
        th.acknowledgment_number = peer_isn.wrapping_add(s.ack as u32);
    }
    let shift = if syn { 0 } else { st.shift(d) };
    th.window_size = (s.window >> shift).min(65535) as u16;
    // 20 bytes of fixed header plus the options (already padded to 4)
    let tcp_len = 20 + n + s.len as usize;
    let ip = Ip::new(st.ip, p.src, p.dst, IpNumber::TCP, tcp_len);
    out.clear();
    out.resize(ip.header_len() + tcp_len, 0);
    let payload_at = ip.header_len() + 20 + n;
    if s.len > 0 {
        let payload = &mut out[payload_at..];
        // Stream offset of the first payload byte: the DSS mapping's data
        // sequence number on an MPTCP subflow, else the subflow's own.
        let off = s
            .mptcp
            .as_ref()
            .and_then(|o| o.dss)
            .and_then(|d| d.dsn())
            .unwrap_or(s.seq);
        msgs.frame_stream(p.flow, from_client, off.saturating_sub(1), payload);
    }
    if let Some((at, c)) = csum_at.filter(|&(at, _)| at + 2 <= n) {
        // DSS checksum over the payload as written (RFC 8684 3.3.1)
        let v = c.checksum(&out[payload_at..]);
        opt[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
    th.set_options_raw(&opt[..n])
        .expect("at most 40 bytes of options");
    debug_assert_eq!(th.header_len(), 20 + n);
    th.checksum = ip.tcp_checksum(&th, &out[payload_at..]);
    let mut w = &mut out[..payload_at];
    ip.write(&mut w).expect("buffer sized");
    th.write(&mut w).expect("buffer sized");
}
