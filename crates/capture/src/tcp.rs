//! TCP segments on the wire: 32-bit sequence numbers from the model's 64-bit
//! offsets plus a per-direction ISN drawn from the seed, the options in the
//! order Linux writes them (`tcp_options_write`: MSS, SACK-permitted,
//! timestamps, window scale, SACK blocks; MPTCP after them) but packed
//! without Linux's alignment NOPs, padded only at the end: the model counts
//! option bytes unaligned (`TcpSegment::options_len`), and packed options
//! give frames exactly the size the simulated links serialised. Then the
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

const MAX_OPTIONS: usize = 40;

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
    // ---- options, in Linux's order ----
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
    if s.sack_permitted {
        put(&[4, 2], &mut n);
    }
    if let Some((v, e)) = ts {
        let val = ms(v).wrapping_add(ts_off(seed, p.flow, d));
        // TSecr is meaningful only with ACK set (RFC 7323 section 3.2).
        let ecr = if s.has(flags::ACK) {
            ms(e).wrapping_add(ts_off(seed, p.flow, rev))
        } else {
            0
        };
        put(&[8, 10], &mut n);
        put(&val.to_be_bytes(), &mut n);
        put(&ecr.to_be_bytes(), &mut n);
    }
    if let Some(w) = s.wscale {
        put(&[3, 3, w], &mut n);
    }
    let base = n;
    let mp = s.mptcp.as_ref().map(|o| {
        let who = Who {
            seed,
            flow: p.flow,
            from_client,
            src: p.src,
            dst: p.dst,
        };
        mptcp::encode(&who, s, o)
    });
    let (ctl_len, dss_len, dss_optional) = mp.as_ref().map_or((0, 0, false), |e| {
        (e.control.len(), e.dss.len(), e.dss_ack_only)
    });
    let pad = |x: usize| (x + 3) & !3;
    // Space: SACK blocks give way to MPTCP signalling (Linux
    // `mptcp_established_options` takes what remains), and a DSS that only
    // acknowledges gives way when nothing else fits (the next one acks).
    let mut sacks = s.sack_blocks().len();
    let mut with_dss = dss_len > 0;
    let total = |sacks: usize, with_dss: bool| {
        let sack = if sacks > 0 { 2 + 8 * sacks } else { 0 };
        base + sack + pad(ctl_len + if with_dss { dss_len } else { 0 })
    };
    while total(sacks, with_dss) > MAX_OPTIONS {
        if with_dss && dss_optional {
            with_dss = false;
        } else if sacks > 0 {
            sacks -= 1;
        } else if with_dss {
            // Last resort (a mapping beside a long signalling option on a
            // timestamped segment): counted in `Stats::dss_left_out`.
            with_dss = false;
            st.dss_left_out += 1;
        } else {
            break;
        }
    }
    if sacks > 0 {
        put(&[5, (2 + 8 * sacks) as u8], &mut n);
        for b in s.sack_blocks().iter().take(sacks) {
            put(&peer_isn.wrapping_add(b.start as u32).to_be_bytes(), &mut n);
            put(&peer_isn.wrapping_add(b.end as u32).to_be_bytes(), &mut n);
        }
    }
    // Where the mapping's checksum field landed in `opt`, if it was written.
    let mut csum_at = None;
    if let Some(e) = &mp {
        if let Some(c) = e.csum.filter(|c| !c.in_dss) {
            csum_at = Some((n + c.at, c));
        }
        put(&e.control, &mut n);
        if with_dss {
            if let Some(c) = e.csum.filter(|c| c.in_dss) {
                csum_at = Some((n + c.at, c));
            }
            put(&e.dss, &mut n);
        }
    }
    // Pad to 4 bytes, and on to the option length the simulator
    // counted when it is longer (v0-sized MP_CAPABLE in the SYN, 12-byte
    // MP_JOIN), so the frame has the size the simulated link serialised.
    let model = s.options_len().min(MAX_OPTIONS as u32) as usize;
    let want = pad(n).max(model);
    if n < want {
        // End of Option List, then zeros (RFC 9293 section 3.2); a run of
        // NOPs is what Wireshark flags as options a router removed.
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
