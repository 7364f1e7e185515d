//! Receive side: reassembly of fragmented messages (B/E bits, RFC 9260
//! section 6.9), ordered delivery per stream by SSN and unordered delivery
//! (U bit, section 6.6), receive-buffer accounting for a_rwnd, and the
//! reordering-delay measure (seed 002 style "out-of-order delay").

use std::collections::{BTreeMap, HashMap};

use super::chunk::DataChunk;
use crate::invariants::SctpRecvCheck;
use crate::time::Nanos;

/// A message handed to the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveredMsg {
    /// Offset of the message in the sender's written byte stream.
    pub offset: u64,
    pub len: u64,
    pub unordered: bool,
}

/// Time data waited in the receive buffer between arrival of each chunk and
/// delivery of its message to the application (reassembly and reordering
/// wait). Byte-weighted sum, so the mean is `wait_ns_bytes / bytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReorderStats {
    pub chunks: u64,
    pub bytes: u64,
    pub wait_ns_bytes: u128,
    pub max_wait: Nanos,
    /// Chunks that waited for an earlier TSN (arrived out of order).
    pub waited_chunks: u64,
}

impl ReorderStats {
    pub fn mean_wait_ns(&self) -> f64 {
        if self.bytes == 0 {
            0.0
        } else {
            self.wait_ns_bytes as f64 / self.bytes as f64
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Assembly {
    begin: Option<u64>,
    end: Option<u64>,
    count: u64,
    bytes: u64,
    offset: u64,
    unordered: bool,
    /// (arrival time, len) per chunk, for the waiting-time measure.
    arrivals: Vec<(Nanos, u32)>,
}

impl Assembly {
    fn complete(&self) -> bool {
        matches!((self.begin, self.end), (Some(b), Some(e)) if e >= b && e - b + 1 == self.count)
    }
}

/// Key of a message being reassembled: ordered messages by (stream, SSN);
/// unordered ones by the sender's message offset, which stands in for the
/// scan over consecutive TSNs from B to E a real stack does (fragments of a
/// message always have consecutive TSNs, so both find the same chunks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Ordered(u16, u64),
    Unordered(u16, u64),
}

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    asm: HashMap<Key, Assembly>,
    /// Next SSN to deliver, per stream.
    next_ssn: BTreeMap<u16, u64>,
    /// Bytes held (received, not yet delivered).
    pub held: u64,
    pub stats: ReorderStats,
    /// Invariants `sctp-tsn-once`, `sctp-ssn-order`, `sctp-message-once`
    /// (zero-sized unless checks are on).
    inv: SctpRecvCheck,
}

impl Reassembly {
    /// Add a new (non-duplicate) chunk and return the messages that became
    /// deliverable, in delivery order.
    pub fn add(&mut self, now: Nanos, d: &DataChunk, out: &mut Vec<DeliveredMsg>) {
        let key = if d.unordered {
            Key::Unordered(d.stream, d.msg_offset)
        } else {
            Key::Ordered(d.stream, d.ssn)
        };
        self.inv.on_chunk(d.tsn);
        let a = self.asm.entry(key).or_default();
        a.count += 1;
        a.bytes += d.len as u64;
        a.offset = d.msg_offset;
        a.unordered = d.unordered;
        a.arrivals.push((now, d.len));
        if d.begin {
            a.begin = Some(d.tsn);
        }
        if d.end {
            a.end = Some(d.tsn);
        }
        self.held += d.len as u64;
        if d.unordered {
            if a.complete() {
                let a = self.asm.remove(&key).unwrap();
                self.inv.on_deliver(None, a.offset, a.bytes);
                self.deliver(now, a, out);
            }
        } else {
            let stream = d.stream;
            loop {
                let next = *self.next_ssn.get(&stream).unwrap_or(&0);
                let k = Key::Ordered(stream, next);
                match self.asm.get(&k) {
                    Some(a) if a.complete() => {
                        let a = self.asm.remove(&k).unwrap();
                        self.next_ssn.insert(stream, next + 1);
                        self.inv.on_deliver(Some((stream, next)), a.offset, a.bytes);
                        self.deliver(now, a, out);
                    }
                    _ => break,
                }
            }
        }
    }

    fn deliver(&mut self, now: Nanos, a: Assembly, out: &mut Vec<DeliveredMsg>) {
        self.held -= a.bytes;
        for &(t, len) in &a.arrivals {
            let w = now - t;
            self.stats.chunks += 1;
            self.stats.bytes += len as u64;
            self.stats.wait_ns_bytes += w as u128 * len as u128;
            self.stats.max_wait = self.stats.max_wait.max(w);
            if w > 0 {
                self.stats.waited_chunks += 1;
            }
        }
        out.push(DeliveredMsg {
            offset: a.offset,
            len: a.bytes,
            unordered: a.unordered,
        });
    }
}
