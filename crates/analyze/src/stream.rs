//! Byte-stream helpers: 32-bit sequence number unwrapping, in-order
//! reassembly at a receiver (subflow level and data level), the
//! "first sent by" map used to tell retransmissions from reinjections, and
//! the application framing reader on a reassembled stream.

use std::collections::BTreeMap;

use mptlab_core::traffic::framing::{
    parse_hdr, parse_hello, Framer, HDR_LEN, HELLO_LEN, KIND_MESSAGES, MAGIC,
};

/// The 64-bit value congruent to `v` mod 2^32 nearest to `reference`
/// (RFC 9293 sequence arithmetic, extended as Linux does for DSNs).
pub fn unwrap32(reference: u64, v: u32) -> u64 {
    let c = (reference & !0xffff_ffff) | v as u64;
    let half = 1u64 << 31;
    if c < reference && reference - c > half {
        c.checked_add(1 << 32).unwrap_or(c)
    } else if c > reference && c - reference > half {
        c.checked_sub(1 << 32).unwrap_or(c)
    } else {
        c
    }
}

/// A segment handed on in order: start, wire length, the captured bytes
/// (`None` if the snap length cut any of them), arrival time.
#[derive(Clone, Debug)]
pub struct InOrder {
    pub start: u64,
    pub len: u64,
    pub bytes: Option<Vec<u8>>,
    pub t: i128,
}

/// Receiver reassembly by sequence number: in-order segments are handed on
/// at once, out-of-order ones when the hole before them is filled (as a
/// TCP receiver's out-of-order queue, RFC 9293 3.10.7.4).
#[derive(Debug, Default)]
pub struct Reasm {
    pub nxt: u64,
    /// start -> (end, arrival time, bytes)
    ofo: BTreeMap<u64, (u64, i128, Option<Vec<u8>>)>,
    /// Segments that arrived above `nxt` (out of order).
    pub ooo_segments: u64,
}

impl Reasm {
    pub fn new(nxt: u64) -> Self {
        Reasm {
            nxt,
            ..Default::default()
        }
    }

    /// One segment; returns what it makes deliverable, in order. Bytes
    /// already delivered are trimmed (retransmissions, overlaps).
    pub fn push(&mut self, start: u64, len: u64, bytes: Option<&[u8]>, t: i128) -> Vec<InOrder> {
        let end = start + len;
        if len == 0 || end <= self.nxt {
            return Vec::new();
        }
        if start > self.nxt {
            if !self.ofo.contains_key(&start) {
                self.ooo_segments += 1;
                self.ofo.insert(start, (end, t, bytes.map(<[u8]>::to_vec)));
            }
            return Vec::new();
        }
        let mut out = vec![trim(self.nxt, start, end, bytes.map(<[u8]>::to_vec), t)];
        self.nxt = end;
        while let Some((&s, _)) = self.ofo.first_key_value() {
            if s > self.nxt {
                break;
            }
            // delivered now (t), whenever it arrived
            let (e, _, b) = self.ofo.remove(&s).unwrap();
            if e > self.nxt {
                out.push(trim(self.nxt, s, e, b, t));
                self.nxt = e;
            }
        }
        out
    }
}

fn trim(nxt: u64, start: u64, end: u64, bytes: Option<Vec<u8>>, t: i128) -> InOrder {
    let skip = nxt.saturating_sub(start);
    InOrder {
        start: start + skip,
        len: end - start - skip,
        bytes: bytes.map(|b| b.get(skip as usize..).unwrap_or(&[]).to_vec()),
        t,
    }
}

/// Which subflow (or path) first sent each byte range of a stream.
#[derive(Debug, Default)]
pub struct FirstSent {
    /// start -> (end, subflow, time)
    map: BTreeMap<u64, (u64, usize, i128)>,
}

impl FirstSent {
    /// Record [start, end) sent on `sub` at `t`; returns (bytes sent before
    /// on the same subflow, bytes sent before on another one).
    pub fn send(&mut self, start: u64, end: u64, sub: usize, t: i128) -> (u64, u64) {
        let (mut same, mut other) = (0, 0);
        let mut gaps = Vec::new();
        let mut pos = start;
        let first = self
            .map
            .range(..=start)
            .next_back()
            .map(|(&s, _)| s)
            .unwrap_or(start);
        for (&s, &(e, who, _)) in self.map.range(first..end) {
            if e <= pos {
                continue;
            }
            if s > pos {
                gaps.push((pos, s.min(end)));
            }
            let ov = e.min(end) - s.max(pos);
            if who == sub {
                same += ov;
            } else {
                other += ov;
            }
            pos = e.min(end);
            if pos >= end {
                break;
            }
        }
        if pos < end {
            gaps.push((pos, end));
        }
        for (s, e) in gaps {
            if e > s {
                self.map.insert(s, (e, sub, t));
            }
        }
        (same, other)
    }

    /// When the byte at `pos` was first sent.
    pub fn time_of(&self, pos: u64) -> Option<i128> {
        let (_, &(e, _, t)) = self.map.range(..=pos).next_back()?;
        (pos < e).then_some(t)
    }
}

/// A message recovered from the agent's framing: id, generation time (agent
/// clock ns), model length, stream position of its first byte, time (capture
/// clock) of the in-order arrival of its last byte.
#[derive(Clone, Debug, PartialEq)]
pub struct FramedMsg {
    pub id: u64,
    pub gen_ns: u64,
    pub len: u32,
    pub start: u64,
    pub t: i128,
}

/// Reads the agent framing off a reassembled stream (data level).
#[derive(Default)]
pub struct StreamReader {
    /// Position (relative, first byte = 1) of the next byte expected.
    pos: u64,
    /// Bytes of the stream's first 16 octets (hello detection).
    head: Vec<u8>,
    /// The stream carries the client's hello: (kind, conn, origin).
    pub hello: Option<(u8, u8, u64)>,
    framer: Option<Framer>,
    /// Start position of the message the framer is inside.
    msg_start: u64,
    /// A byte the stream needs was not captured (snap length): no framing.
    pub broken: bool,
    pub msgs: Vec<FramedMsg>,
    /// Whether messages are expected on this stream.
    pub framed: bool,
}

impl StreamReader {
    /// The client-to-server direction starts with the hello; the other
    /// direction carries messages from its first byte when the caller calls
    /// [`StreamReader::start_framing`].
    pub fn new() -> Self {
        StreamReader {
            pos: 1,
            ..Default::default()
        }
    }

    /// Start reading messages at the current position (the other
    /// direction's hello said this connection carries messages).
    pub fn start_framing(&mut self) {
        if self.framer.is_none() && !self.broken {
            self.framed = true;
            self.framer = Some(Framer::default());
            self.msg_start = self.pos;
        }
    }

    /// Feed the next in-order bytes (`None`: not captured).
    ///
    /// A stream is read as framed when the client's hello says so (the
    /// agent, `KIND_MESSAGES`), or, without a hello (the simulator's
    /// captures write none), when its first 24 bytes are a first message
    /// header: id 0, chunk 0 of 1, a non-zero length.
    pub fn feed(&mut self, len: u64, bytes: Option<&[u8]>, t: i128, client_to_server: bool) {
        let Some(b) = bytes.filter(|b| b.len() as u64 == len) else {
            self.broken = true;
            self.framer = None;
            self.pos += len;
            return;
        };
        let mut b = b;
        if self.pos == 1
            && self.framer.is_none()
            && !self.broken
            && b.len() >= HDR_LEN
            && &b[..4] != MAGIC
        {
            let (id, _, chunk, chunks, l) = parse_hdr(b);
            if id == 0 && chunk == 0 && chunks == 1 && l > 0 {
                self.start_framing();
            }
        }
        let in_hello = self.pos <= HELLO_LEN as u64 && self.hello.is_none() && !self.framed;
        if client_to_server && in_hello && (self.pos > 1 || b.starts_with(&MAGIC[..b.len().min(4)]))
        {
            let take = (HELLO_LEN - self.head.len()).min(b.len());
            self.head.extend_from_slice(&b[..take]);
            b = &b[take..];
            self.pos += take as u64;
            if self.head.len() == HELLO_LEN {
                self.hello = parse_hello(&self.head);
                match self.hello {
                    None => self.broken = true,
                    Some((KIND_MESSAGES, _, _)) => {
                        self.framed = true;
                        self.framer = Some(Framer::default());
                        self.msg_start = self.pos;
                    }
                    Some(_) => {}
                }
            } else if !MAGIC.starts_with(&self.head[..self.head.len().min(4)]) {
                // Not the agent: no framing on this connection.
                self.broken = true;
            }
        }
        if let Some(f) = self.framer.as_mut() {
            for (id, gen_ns, l) in f.feed(b) {
                let start = self.msg_start;
                self.msg_start += (l as u64).max(HDR_LEN as u64);
                self.msgs.push(FramedMsg {
                    id,
                    gen_ns,
                    len: l,
                    start,
                    t,
                });
            }
        }
        self.pos += b.len() as u64;
    }
}
