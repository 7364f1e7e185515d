//! The traffic agent's application framing, shared by the agent
//! (`mptlab-emu`, which writes and reads it on real sockets) and
//! `mptlab analyze` (which recovers message delays from packet captures).
//!
//! Wire format (docs/emulation.md):
//! * every agent connection starts with a [`HELLO_LEN`]-byte hello from the
//!   client: `b"MPTL"`, kind ([`KIND_MESSAGES`], [`KIND_FILE`],
//!   [`KIND_BULK`]), connection index, 2 bytes zero, the client's run origin
//!   (u64 ns on the shared clock, big endian);
//! * messages: a [`HDR_LEN`]-byte header (message id u64, generation time
//!   u64 in ns of the clock, chunk u16, chunks u16, message length u32; big
//!   endian) followed by padding to the message length (messages shorter
//!   than the header are sent as [`HDR_LEN`] bytes);
//! * UDP: one datagram per chunk, each with the header.

use std::collections::BTreeMap;

pub const MAGIC: &[u8; 4] = b"MPTL";
pub const HELLO_LEN: usize = 16;
pub const HDR_LEN: usize = 24;
pub const KIND_MESSAGES: u8 = 1;
pub const KIND_FILE: u8 = 2;
pub const KIND_BULK: u8 = 3;

/// A message header.
pub fn hdr(id: u64, ts: u64, chunk: u16, chunks: u16, len: u32) -> [u8; HDR_LEN] {
    let mut h = [0u8; HDR_LEN];
    h[0..8].copy_from_slice(&id.to_be_bytes());
    h[8..16].copy_from_slice(&ts.to_be_bytes());
    h[16..18].copy_from_slice(&chunk.to_be_bytes());
    h[18..20].copy_from_slice(&chunks.to_be_bytes());
    h[20..24].copy_from_slice(&len.to_be_bytes());
    h
}

/// (id, generation time, chunk, chunks, length) of a header; `h` must hold
/// at least [`HDR_LEN`] bytes.
pub fn parse_hdr(h: &[u8]) -> (u64, u64, u16, u16, u32) {
    let be8 = |i: usize| u64::from_be_bytes(h[i..i + 8].try_into().unwrap());
    let be2 = |i: usize| u16::from_be_bytes([h[i], h[i + 1]]);
    (
        be8(0),
        be8(8),
        be2(16),
        be2(18),
        u32::from_be_bytes(h[20..24].try_into().unwrap()),
    )
}

/// The client's hello.
pub fn hello(kind: u8, conn: u8, origin: u64) -> [u8; HELLO_LEN] {
    let mut h = [0u8; HELLO_LEN];
    h[0..4].copy_from_slice(MAGIC);
    h[4] = kind;
    h[5] = conn;
    h[8..16].copy_from_slice(&origin.to_be_bytes());
    h
}

/// (kind, connection index, origin) of a hello, if `h` starts with one.
pub fn parse_hello(h: &[u8]) -> Option<(u8, u8, u64)> {
    if h.len() < HELLO_LEN || &h[0..4] != MAGIC {
        return None;
    }
    Some((h[4], h[5], u64::from_be_bytes(h[8..16].try_into().unwrap())))
}

/// Finds message boundaries in a byte stream of header-framed messages.
#[derive(Default)]
pub struct Framer {
    /// Header bytes of the message in progress.
    pending: Vec<u8>,
    /// Bytes still missing of the current message (after its header).
    need: usize,
    /// (id, generation time, model length) of the message in progress.
    cur: Option<(u64, u64, u32)>,
}

impl Framer {
    /// Feed bytes; returns (id, generation time, model length) of every
    /// message completed by them.
    pub fn feed(&mut self, data: &[u8]) -> Vec<(u64, u64, u32)> {
        let mut done = Vec::new();
        let mut i = 0;
        while i < data.len() {
            if self.cur.is_none() {
                let take = (HDR_LEN - self.pending.len()).min(data.len() - i);
                self.pending.extend_from_slice(&data[i..i + take]);
                i += take;
                if self.pending.len() == HDR_LEN {
                    let (id, ts, _, _, len) = parse_hdr(&self.pending);
                    self.pending.clear();
                    self.cur = Some((id, ts, len));
                    self.need = (len as usize).max(HDR_LEN) - HDR_LEN;
                }
            }
            if let Some(m) = self.cur {
                let take = self.need.min(data.len() - i);
                self.need -= take;
                i += take;
                if self.need == 0 {
                    done.push(m);
                    self.cur = None;
                }
            }
        }
        done
    }
}

/// Reassembles UDP messages from data datagrams, each headed by
/// [`HDR_LEN`] bytes (id, generation time, chunk, chunks, model length).
#[derive(Default)]
pub struct UdpReassembly {
    /// id -> (datagrams seen, chunks, generation time, model length)
    pub parts: BTreeMap<u64, (u16, u16, u64, u32)>,
}

impl UdpReassembly {
    /// One data datagram; returns (id, generation time, model length) of the
    /// message it completes.
    pub fn datagram(&mut self, d: &[u8]) -> Option<(u64, u64, u32)> {
        let h = d.get(..HDR_LEN)?;
        let (id, ts, chunk, chunks, len) = parse_hdr(h);
        // No agent writes these (`udp_send` numbers chunks 0..chunks).
        // Counted, a header of 0 chunks would never complete and would
        // overflow its count after 65,536 datagrams.
        if chunk >= chunks {
            return None;
        }
        let e = self.parts.entry(id).or_insert((0, chunks, ts, len));
        // e.0 < e.1 here: the entry is removed when they meet
        e.0 += 1;
        if e.0 < e.1 {
            return None;
        }
        self.parts.remove(&id);
        Some((id, ts, len))
    }
}
