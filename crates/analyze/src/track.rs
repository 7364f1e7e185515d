//! Connection tracking over one capture: TCP connections (subflows), their
//! grouping into MPTCP connections by the keys and tokens of MP_CAPABLE and
//! MP_JOIN (RFC 8684 3.1, 3.2), UDP flows and SCTP associations; per
//! direction the counters, RTT samples, reassembly and data-level analysis.
//!
//! Everything is seen from where the capture was taken: a segment counts as
//! sent and as received when it passes the capture point. Sender-side
//! counters are exact in a capture at the sender, receiver-side measures
//! (out-of-order delay, message delivery) at the receiver.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use mptlab_core::mptcp::meta_recv::MetaRecv;
use mptlab_core::traffic::framing::{UdpReassembly, KIND_MESSAGES};

use crate::mptcp::{token_idsn, Join, MptcpOpt};
use crate::packet::{Pkt, TcpSeg, L4};
use crate::sctp::Chunk;
use crate::stream::{unwrap32, FirstSent, FramedMsg, Reasm, StreamReader};

/// Counters of one direction of one path (subflow, SCTP address pair, UDP flow).
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub packets: u64,
    pub data_packets: u64,
    pub bytes: u64,
    pub bytes_retransmitted: u64,
    pub bytes_reinjected: u64,
    /// Segments that arrived above the receiver's next expected sequence number.
    pub ooo_segments: u64,
    /// (time, RTT ns, method) samples of this direction's data: "seq"
    /// (the ACK of a segment sent once, Karn's rule) or "ts" (the echoed
    /// TSval, RFC 7323 4.1, when the acked segment was retransmitted).
    pub rtt: Vec<(i128, i128, &'static str)>,
    /// (time, payload bytes) of every data packet (throughput over time).
    pub sends: Vec<(i128, u64)>,
    /// (time, data-level sequence number, 0-based) of every data packet.
    pub seq: Vec<(i128, u64)>,
    /// (time, data-level sequence number 0-based, length) of every mapped
    /// data packet: which path carried which bytes (decision-level
    /// comparison, `mptlab validate --decisions`).
    pub data_sends: Vec<(i128, u64, u64)>,
}

/// One path of a flow: both directions, side 0 = the flow's client.
#[derive(Clone, Debug)]
pub struct PathRec {
    pub client_addr: IpAddr,
    pub server_addr: IpAddr,
    pub dir: [DirStats; 2],
}

/// A message recovered from the agent's framing (times: capture clock).
#[derive(Clone, Debug)]
pub struct MsgRec {
    pub id: u64,
    pub gen_ns: u64,
    pub len: u32,
    /// Capture time the message's first byte was first seen.
    pub first_seen: Option<i128>,
    pub delivered: i128,
}

#[derive(Clone, Debug)]
pub struct FlowRec {
    pub protocol: &'static str,
    pub paths: Vec<PathRec>,
    /// Data-level bytes delivered in order (both directions).
    pub bytes_delivered: u64,
    /// Agent hello: (kind, conn, origin ns).
    pub hello: Option<(u8, u8, u64)>,
    pub msgs: Vec<MsgRec>,
    /// Per delivered segment, time it waited in the connection-level
    /// out-of-order queue (ns), MPTCP only.
    pub ofo_delays: mptlab_core::delay_stats::DelayStats,
    pub hol_ns: u64,
    pub multipath: bool,
    pub first_t: i128,
}

struct Dir {
    isn: Option<u32>,
    /// Highest relative sequence number sent + 1.
    high: u64,
    acked: u64,
    ts_sent: BTreeMap<u32, i128>,
    seq_sent: BTreeMap<u64, (i128, bool)>,
    rcv: Option<Reasm>,
    /// DSS mappings: relative ssn -> (dsn absolute, len).
    maps: BTreeMap<u64, (u64, u64)>,
}

impl Dir {
    fn new() -> Self {
        Dir {
            isn: None,
            high: 1,
            acked: 1,
            ts_sent: BTreeMap::new(),
            seq_sent: BTreeMap::new(),
            rcv: None,
            maps: BTreeMap::new(),
        }
    }
    fn rel(&self, seq: u32) -> u64 {
        unwrap32(self.high, seq.wrapping_sub(self.isn.unwrap_or(0)))
    }
}

struct Sub {
    /// (initiator addr, port, responder addr, port)
    tuple: (IpAddr, u16, IpAddr, u16),
    dirs: [Dir; 2],
    flow: usize,
    path: usize,
    /// Subflow direction 0 (initiator to responder) is the flow's side `side0`.
    side0: usize,
    mptcp: bool,
    join_token: Option<u32>,
}

/// Data-level state of one direction of a flow.
struct DataDir {
    first: FirstSent,
    meta: MetaRecv,
    /// Data-level reassembly feeding the framing reader (payload bytes).
    rx: Reasm,
    reader: StreamReader,
    idsn: Option<u64>,
    last_dsn: u64,
}

impl DataDir {
    fn new() -> Self {
        DataDir {
            first: FirstSent::default(),
            meta: MetaRecv::new(u64::MAX),
            rx: Reasm::new(1),
            reader: StreamReader::new(),
            idsn: None,
            last_dsn: 0,
        }
    }
}

struct Flow {
    rec: FlowRec,
    data: [DataDir; 2],
    keys: [Option<u64>; 2],
    udp: Option<UdpReassembly>,
    /// Whether the UDP flow carries the agent framing (decided on its
    /// first datagram), and the first sighting of each message.
    udp_framed: Option<bool>,
    udp_seen: HashMap<u64, i128>,
    /// SCTP: each direction's messages at its receiver (sctp_rx.rs).
    sctp_rx: Option<Box<[crate::sctp_rx::SctpRx; 2]>>,
}

/// The tracker of one capture.
#[derive(Default)]
pub struct Tracker {
    subs: Vec<Sub>,
    by_tuple: HashMap<(IpAddr, u16, IpAddr, u16), usize>,
    flows: Vec<Flow>,
    tokens: HashMap<u32, usize>,
    udp: HashMap<(IpAddr, u16, IpAddr, u16), usize>,
    sctp: HashMap<(u16, u16), (usize, HashMap<u32, usize>)>,
    /// TCP segments of connections that started before the capture without
    /// any handshake seen are still analysed; this counts joins whose token
    /// matched no connection (analysed as plain TCP).
    pub unmatched_joins: u64,
}

fn new_flow(protocol: &'static str, t: i128) -> Flow {
    Flow {
        rec: FlowRec {
            protocol,
            paths: Vec::new(),
            bytes_delivered: 0,
            hello: None,
            msgs: Vec::new(),
            ofo_delays: Default::default(),
            hol_ns: 0,
            multipath: false,
            first_t: t,
        },
        data: [DataDir::new(), DataDir::new()],
        keys: [None, None],
        udp: None,
        udp_framed: None,
        udp_seen: HashMap::new(),
        sctp_rx: None,
    }
}

fn new_path(c: IpAddr, s: IpAddr) -> PathRec {
    PathRec {
        client_addr: c,
        server_addr: s,
        dir: [DirStats::default(), DirStats::default()],
    }
}

impl Tracker {
    pub fn packet(&mut self, t: i128, p: &Pkt) {
        match &p.l4 {
            L4::Tcp(seg) => self.tcp(t, p.src, p.dst, seg),
            L4::Udp {
                sport,
                dport,
                payload,
                len,
            } => self.udp(t, p, *sport, *dport, payload, *len),
            L4::Sctp(s) => self.sctp(t, p, s),
        }
    }

    /// The flows in order of their first packet.
    pub fn finish(self) -> Vec<FlowRec> {
        let mut out = Vec::new();
        for mut f in self.flows {
            for d in &f.data {
                f.rec.ofo_delays.merge(&d.meta.ofo_delays);
                f.rec.hol_ns += d.meta.hol_time;
            }
            if f.rec.protocol != "mptcp" {
                f.rec.ofo_delays = Default::default();
            }
            if let Some(rx) = &f.sctp_rx {
                // SCTP: the receivers' TSN-level out-of-order queues
                for r in rx.iter() {
                    f.rec.ofo_delays.merge(&r.ofo_delays);
                    f.rec.hol_ns += r.hol_ns;
                }
            }
            out.push(f.rec);
        }
        out
    }

    fn tcp(&mut self, t: i128, src: IpAddr, dst: IpAddr, seg: &TcpSeg) {
        let fwd = (src, seg.sport, dst, seg.dport);
        let rev = (dst, seg.dport, src, seg.sport);
        let syn_only = seg.syn && !seg.ack_flag;
        // A new SYN (another ISN) on a known tuple starts a new connection.
        let known = self
            .by_tuple
            .get(&fwd)
            .or_else(|| self.by_tuple.get(&rev))
            .copied();
        let si = match known {
            Some(i)
                if !(syn_only
                    && self.subs[i].tuple == fwd
                    && self.subs[i].dirs[0].isn.is_some_and(|x| x != seg.seq)) =>
            {
                i
            }
            _ => self.new_sub(t, fwd, seg),
        };
        let d = usize::from(self.subs[si].tuple != fwd);
        self.tcp_in(si, d, t, seg);
    }

    fn new_sub(&mut self, t: i128, fwd: (IpAddr, u16, IpAddr, u16), seg: &TcpSeg) -> usize {
        let mp_capable = seg
            .opts
            .mptcp
            .iter()
            .any(|o| matches!(o, MptcpOpt::Capable { .. }));
        let join = seg.opts.mptcp.iter().find_map(|o| match o {
            MptcpOpt::Join(Join::Syn { token, .. }) => Some(*token),
            _ => None,
        });
        let si = self.subs.len();
        let (flow, side0) = match join.and_then(|tk| self.tokens.get(&tk).map(|&f| (tk, f))) {
            Some((tk, f)) => {
                // The token names the receiver of the SYN (RFC 8684 3.2):
                // the initiator is the other side.
                let fl = &self.flows[f];
                let recv_side = fl
                    .keys
                    .iter()
                    .position(|k| k.is_some_and(|k| token_idsn(k).0 == tk))
                    .unwrap_or(1);
                (f, 1 - recv_side)
            }
            None => {
                if join.is_some() {
                    self.unmatched_joins += 1;
                }
                let proto = if mp_capable { "mptcp" } else { "tcp" };
                self.flows.push(new_flow(proto, t));
                (self.flows.len() - 1, 0)
            }
        };
        let fl = &mut self.flows[flow];
        let (c, s) = if side0 == 0 {
            (fwd.0, fwd.2)
        } else {
            (fwd.2, fwd.0)
        };
        fl.rec.paths.push(new_path(c, s));
        if fl.rec.paths.len() > 1 {
            fl.rec.multipath = true;
        }
        let path = fl.rec.paths.len() - 1;
        self.subs.push(Sub {
            tuple: fwd,
            dirs: [Dir::new(), Dir::new()],
            flow,
            path,
            side0,
            mptcp: mp_capable || join.is_some(),
            join_token: join,
        });
        self.by_tuple.insert(fwd, si);
        si
    }

    fn tcp_in(&mut self, si: usize, d: usize, t: i128, seg: &TcpSeg) {
        let sub = &mut self.subs[si];
        let (fi, pi) = (sub.flow, sub.path);
        let side = if d == 0 { sub.side0 } else { 1 - sub.side0 };
        if seg.syn {
            sub.dirs[d].isn = Some(seg.seq);
        } else if sub.dirs[d].isn.is_none() {
            // Capture began mid-connection: the first byte seen is 1.
            sub.dirs[d].isn = Some(seg.seq.wrapping_sub(1));
        }
        // MPTCP keys (RFC 8684 3.1): SYN/ACK carries the responder's key,
        // the third ACK both (sender's first).
        let mut new_keys = Vec::new();
        for o in &seg.opts.mptcp {
            if let MptcpOpt::Capable {
                sender_key,
                receiver_key,
                ..
            } = o
            {
                if let Some(k) = sender_key {
                    new_keys.push((side, *k));
                }
                if let Some(k) = receiver_key {
                    new_keys.push((1 - side, *k));
                }
            }
        }
        if !new_keys.is_empty() && sub.join_token.is_none() {
            let fl = &mut self.flows[fi];
            for (sd, k) in new_keys {
                if fl.keys[sd].is_none() {
                    fl.keys[sd] = Some(k);
                    let (tok, idsn) = token_idsn(k);
                    fl.data[sd].idsn = Some(idsn);
                    self.tokens.insert(tok, fi);
                }
            }
        }
        let sub = &mut self.subs[si];
        let fl = &mut self.flows[fi];
        let st = &mut fl.rec.paths[pi].dir[side];
        st.packets += 1;
        // Acknowledgements of the other direction's data: RTT samples.
        if seg.ack_flag {
            let o = &mut sub.dirs[1 - d];
            if o.isn.is_some() {
                let a = o.rel(seg.ack);
                if a > o.acked && a <= o.high {
                    o.acked = a;
                    let ost = &mut fl.rec.paths[pi].dir[1 - side];
                    // Karn's rule: the highest segment this ACK covers, if
                    // it was sent only once (seq/ack matching, exact to the
                    // capture's timestamps); else the echoed TSval of an ACK
                    // for new data (RFC 7323 4.1; the TSval clock ticks in
                    // ms on Linux, so the first segment with it is taken).
                    let acked: Vec<_> = o.seq_sent.range(..=a).map(|(&e, &v)| (e, v)).collect();
                    let mut sample = match acked.last() {
                        Some(&(_, (t0, false))) => Some((t - t0, "seq")),
                        _ => None,
                    };
                    if let Some((_, ecr)) = seg.opts.ts {
                        if sample.is_none() {
                            if let Some(&t0) = o.ts_sent.get(&ecr) {
                                sample = Some((t - t0, "ts"));
                            }
                        }
                        o.ts_sent.retain(|&v, _| v.wrapping_sub(ecr) as i32 > 0);
                    }
                    for (e, _) in acked {
                        o.seq_sent.remove(&e);
                    }
                    if let Some((s, m)) = sample {
                        ost.rtt.push((t, s, m));
                    }
                }
            }
        }
        let st = &mut fl.rec.paths[pi].dir[side];
        let dir = &mut sub.dirs[d];
        // DSS mappings (RFC 8684 3.3.1): relative subflow sequence number.
        // MP_CAPABLE carrying data (RFC 8684 3.1, the third ACK's length 22/24
        // form) maps the first data: DSN = IDSN + 1, subflow sequence 1.
        for o in &seg.opts.mptcp {
            if let MptcpOpt::Capable {
                data_len: Some(l), ..
            } = o
            {
                if let Some(idsn) = fl.data[side].idsn {
                    if *l > 0 {
                        dir.maps.insert(1, (idsn.wrapping_add(1), *l as u64));
                    }
                }
            }
            if let MptcpOpt::Dss(dss) = o {
                if let Some(m) = dss.map {
                    let dd = &mut fl.data[side];
                    let dsn = if m.dsn64 {
                        m.dsn
                    } else {
                        unwrap32(dd.last_dsn.max(dd.idsn.unwrap_or(0)), m.dsn as u32)
                    };
                    dd.last_dsn = dsn;
                    let ssn = unwrap32(dir.high, m.ssn);
                    if m.len > 0 {
                        dir.maps.insert(ssn, (dsn, m.len as u64));
                    }
                }
            }
        }
        if seg.len == 0 {
            return;
        }
        let start = dir.rel(seg.seq) + u64::from(seg.syn);
        let len = seg.len as u64;
        let end = start + len;
        st.data_packets += 1;
        st.bytes += len;
        st.sends.push((t, len));
        let retx = if start < dir.high {
            dir.high.min(end) - start
        } else {
            0
        };
        st.bytes_retransmitted += retx;
        if retx == 0 {
            dir.seq_sent.insert(end, (t, false));
            if let Some((tsv, _)) = seg.opts.ts {
                dir.ts_sent.entry(tsv).or_insert(t);
            }
        } else {
            for (_, v) in dir.seq_sent.range_mut(start + 1..) {
                v.1 = true;
            }
        }
        dir.high = dir.high.max(end);
        // Data level: map to DSNs relative to the IDSN (first byte = 1).
        let mapped = if sub.mptcp && fl.rec.protocol == "mptcp" {
            map_range(&dir.maps, start, len, fl.data[side].idsn)
        } else {
            Some(start)
        };
        let full = (seg.payload.len() as u64 == len).then_some(seg.payload);
        if let Some(ds) = mapped {
            // fuzz/regressions/capture_reader/: a mapping to the IDSN itself (DSN 0)
            st.seq.push((t, ds.saturating_sub(1)));
            st.data_sends.push((t, ds.saturating_sub(1), len));
            let (_, other) = fl.data[side].first.send(ds, ds + len, pi, t);
            st.bytes_reinjected += other;
        }
        // Receiver side: subflow reassembly, then the data level.
        let dir = &mut sub.dirs[d];
        let rcv = dir.rcv.get_or_insert_with(|| Reasm::new(start));
        let before = rcv.ooo_segments;
        let segs = rcv.push(start, len, full, t);
        let ooo = rcv.ooo_segments - before;
        fl.rec.paths[pi].dir[1 - side].ooo_segments += ooo;
        let mptcp = sub.mptcp && fl.rec.protocol == "mptcp";
        for s in segs {
            let ds = if mptcp {
                match map_range(&dir.maps, s.start, s.len, fl.data[side].idsn) {
                    Some(x) => x,
                    None => continue,
                }
            } else {
                s.start
            };
            let dd = &mut fl.data[side];
            let before = dd.meta.rcv_nxt;
            dd.meta.on_data(t.max(0) as u64, ds, s.len as u32);
            let newly = dd.meta.rcv_nxt - before;
            fl.rec.bytes_delivered += newly;
            deliver(fl, side, ds, s.len, s.bytes.as_deref(), t);
        }
    }

    fn udp(&mut self, t: i128, p: &Pkt, sport: u16, dport: u16, payload: &[u8], len: u32) {
        let fwd = (p.src, sport, p.dst, dport);
        let rev = (p.dst, dport, p.src, sport);
        let (fi, side) = if let Some(&f) = self.udp.get(&fwd) {
            (f, 0)
        } else if let Some(&f) = self.udp.get(&rev) {
            (f, 1)
        } else {
            // The client is the side with the higher (ephemeral) port; on a
            // tie, the first sender.
            let client_sends = sport >= dport;
            let mut f = new_flow("udp", t);
            let key = if client_sends { fwd } else { rev };
            f.rec.paths.push(new_path(key.0, key.2));
            f.udp = Some(UdpReassembly::default());
            self.flows.push(f);
            self.udp.insert(key, self.flows.len() - 1);
            (self.flows.len() - 1, usize::from(!client_sends))
        };
        let fl = &mut self.flows[fi];
        let st = &mut fl.rec.paths[0].dir[side];
        st.packets += 1;
        st.data_packets += 1;
        st.bytes += len as u64;
        st.sends.push((t, len as u64));
        fl.rec.bytes_delivered += len as u64;
        if let Some(h) = mptlab_core::traffic::framing::parse_hello(payload) {
            fl.rec.hello.get_or_insert(h);
            return;
        }
        // Framed: the agent's hello said so, or (simulator captures, no
        // hello) the flow's first datagram is chunk 0 of message 0.
        let u = fl.udp.as_mut().unwrap();
        if fl.udp_framed.is_none() && payload.len() >= 24 {
            let (id, _, chunk, chunks, _) = mptlab_core::traffic::framing::parse_hdr(payload);
            fl.udp_framed = Some(
                fl.rec
                    .hello
                    .map(|h| h.0 == KIND_MESSAGES)
                    .unwrap_or(id == 0 && chunk == 0 && chunks >= 1),
            );
        }
        if fl.udp_framed == Some(true) && payload.len() as u32 == len {
            let (id, ..) = mptlab_core::traffic::framing::parse_hdr(payload);
            // every datagram carries its generation time: the earliest
            // sighting bounds the clock offset (lib.rs)
            let seen = fl.udp_seen.entry(id).or_insert(t);
            *seen = (*seen).min(t);
            if let Some((id, gen_ns, l)) = u.datagram(payload) {
                let first_seen = fl.udp_seen.remove(&id);
                fl.rec.msgs.push(MsgRec {
                    id,
                    gen_ns,
                    len: l,
                    first_seen,
                    delivered: t,
                });
            }
        }
    }

    fn sctp(&mut self, t: i128, p: &Pkt, s: &crate::sctp::SctpPacket) {
        // Associations by port pair; paths by address pair (multihoming,
        // RFC 9260 6.4). The INIT sender is the client.
        let is_init = s.chunks.iter().any(|c| matches!(c, Chunk::Other { ty: 1 }));
        let fwd = (s.sport, s.dport);
        let rev = (s.dport, s.sport);
        let (key, side) = if self.sctp.contains_key(&fwd) {
            (fwd, 0)
        } else if self.sctp.contains_key(&rev) {
            (rev, 1)
        } else {
            let _ = is_init;
            self.flows.push(new_flow("sctp", t));
            self.sctp
                .insert(fwd, (self.flows.len() - 1, HashMap::new()));
            (fwd, 0)
        };
        let (fi, _) = self.sctp[&key];
        let (c, sv) = if side == 0 {
            (p.src, p.dst)
        } else {
            (p.dst, p.src)
        };
        let fl = &mut self.flows[fi];
        let pi = match fl
            .rec
            .paths
            .iter()
            .position(|x| x.client_addr == c && x.server_addr == sv)
        {
            Some(i) => i,
            None => {
                fl.rec.paths.push(new_path(c, sv));
                fl.rec.multipath = fl.rec.paths.len() > 1;
                fl.rec.paths.len() - 1
            }
        };
        if let Some(it) = s.initial_tsn {
            // the INIT (client) or INIT ACK (server) names the TSNs its
            // sender's DATA starts from
            let rx = fl.sctp_rx.get_or_insert_with(Default::default);
            rx[side].initial_tsn.get_or_insert(it);
        }
        let tsns = &mut self.sctp.get_mut(&key).unwrap().1;
        let mut ooo = 0;
        let st = &mut fl.rec.paths[pi].dir[side];
        st.packets += 1;
        let mut data = false;
        for ch in &s.chunks {
            if let Chunk::Data {
                tsn,
                flags,
                stream,
                ssn,
                data: bytes,
                len,
                ..
            } = ch
            {
                let rx = fl.sctp_rx.get_or_insert_with(Default::default);
                ooo += rx[side].data(
                    t,
                    *tsn,
                    *flags,
                    *stream,
                    *ssn,
                    bytes,
                    *len,
                    &mut fl.rec.msgs,
                ) as u64;
                data = true;
                st.bytes += *len as u64;
                st.sends.push((t, *len as u64));
                // A TSN sent before: retransmission; on another path:
                // also a reinjection (CMT-SCTP rescheduling).
                let k = tsn ^ (side as u32) << 31;
                match tsns.get(&k) {
                    Some(&prev) => {
                        st.bytes_retransmitted += *len as u64;
                        if prev != pi {
                            st.bytes_reinjected += *len as u64;
                        }
                    }
                    None => {
                        tsns.insert(k, pi);
                        fl.rec.bytes_delivered += *len as u64;
                    }
                }
            }
        }
        if data {
            st.data_packets += 1;
        }
        // a receiver counter: the other side received them out of order
        fl.rec.paths[pi].dir[1 - side].ooo_segments += ooo;
    }
}

/// DSN (relative to the sender's IDSN, first byte = 1) of subflow bytes
/// [start, start+len) through the DSS mapping that covers `start`.
fn map_range(
    maps: &BTreeMap<u64, (u64, u64)>,
    start: u64,
    _len: u64,
    idsn: Option<u64>,
) -> Option<u64> {
    let (&ssn, &(dsn, mlen)) = maps.range(..=start).next_back()?;
    if start >= ssn + mlen {
        return None;
    }
    let abs = dsn.wrapping_add(start - ssn);
    // A DSN below the IDSN or far beyond it is not this connection's
    // (damaged or unrelated options): unmapped.
    Some(abs.wrapping_sub(idsn?)).filter(|&d| d < DSN_LIMIT)
}

/// Relative DSNs at or above this are taken as damage (2^62 bytes).
const DSN_LIMIT: u64 = 1 << 62;

/// Data-level bytes (in subflow order) reach the connection level; what
/// is in order there reaches the application: the agent framing.
fn deliver(fl: &mut Flow, side: usize, ds: u64, len: u64, bytes: Option<&[u8]>, t: i128) {
    let dd = &mut fl.data[side];
    for s in dd.rx.push(ds, len, bytes, t) {
        dd.reader.feed(s.len, s.bytes.as_deref(), s.t, side == 0);
    }
    if side == 0 {
        if let Some(h) = dd.reader.hello {
            if fl.rec.hello.is_none() {
                fl.rec.hello = Some(h);
                if h.0 == KIND_MESSAGES {
                    fl.data[1].reader.start_framing();
                }
            }
        }
    }
    let dd = &mut fl.data[side];
    for m in dd.reader.msgs.drain(..) {
        let FramedMsg {
            id,
            gen_ns,
            len,
            start,
            t,
        } = m;
        let first_seen = dd.first.time_of(start);
        fl.rec.msgs.push(MsgRec {
            id,
            gen_ns,
            len,
            first_seen,
            delivered: t,
        });
    }
}
