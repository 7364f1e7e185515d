//! Receive side: reassembly of fragmented messages (B/E bits, RFC 9260
//! section 6.9), ordered delivery per stream by SSN and unordered delivery
//! (U bit, section 6.6), partial delivery of a message that does not fit in
//! the receive buffer (section 6.9, Linux `net/sctp/ulpqueue.c`),
//! receive-buffer accounting for a_rwnd, and the reordering-delay measure
//! (seed 002 style "out-of-order delay").
//!
//! Partial delivery (PD). RFC 9260 section 6.9: "If the data receiver runs
//! out of buffer space while still waiting for more fragments to complete
//! the reassembly of the message, it SHOULD dispatch part of its inbound
//! message through a partial delivery API (see Section 11), freeing some of
//! its receive buffer space so that the rest of the message can be
//! received." Linux does it as follows, and so does this model:
//! - `sctp_eat_data` (sm_statefuns.c) asks for PD when a new DATA chunk is
//!   at least as long as the receive window and no PD is under way
//!   (`datalen >= asoc->rwnd && !ulpq.pd_mode`); the association calls
//!   [`Reassembly::partial_delivery`] then, before it adds the chunk.
//! - `sctp_ulpq_partial_delivery`: PD starts only if the head of the
//!   reassembly queue (lowest TSN held) is at or below the cumulative TSN
//!   and is the first fragment of its message (`sctp_ulpq_retrieve_first`);
//!   the first fragment and the consecutive fragments after it go to the
//!   application without MSG_EOR, and the association enters PD mode.
//! - In PD mode (`sctp_ulpq_reasm` -> `sctp_ulpq_retrieve_partial`) every
//!   further fragment of that message that continues the delivered prefix
//!   goes up at once; the piece with the last fragment carries MSG_EOR.
//! - Without I-DATA (RFC 8260) nothing else is delivered while PD runs
//!   (`sctp_ulpq_tail_event` parks other messages in the socket's
//!   `pd_lobby`; `sctp_ulpq_retrieve_reassembled` is not called). When the
//!   last piece is delivered `sctp_ulpq_clear_pd` ends PD and
//!   `sctp_ulpq_reasm_drain` delivers the messages completed meanwhile, in
//!   TSN order and, for ordered ones, SSN order per stream.
//!
//! Linux's `SCTP_PARTIAL_DELIVERY_POINT` socket option (RFC 6458 section
//! 8.1.21, `pd_point` in `sctp_ulpq_retrieve_reassembled`) is 0 by default,
//! which leaves PD to receive-window pressure alone; the model has that
//! default and no option to change it.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::chunk::DataChunk;
use crate::invariants::SctpRecvCheck;
use crate::time::Nanos;

/// Bytes handed to the application in one go: a whole message, or under
/// partial delivery one piece of a message (Linux: a `recvmsg` without
/// MSG_EOR; the piece with the last fragment has MSG_EOR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveredMsg {
    /// Offset of the message in the sender's written byte stream.
    pub offset: u64,
    /// Bytes in this piece (the whole message unless partially delivered).
    pub len: u64,
    pub unordered: bool,
    /// This piece ends the message (MSG_EOR): the message is complete.
    pub eor: bool,
    /// Length of the whole message; meaningful when `eor`.
    pub msg_len: u64,
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

/// A fragment held in the receive buffer.
#[derive(Clone, Copy, Debug)]
struct Frag {
    tsn: u64,
    at: Nanos,
    len: u32,
}

#[derive(Clone, Debug, Default)]
struct Assembly {
    begin: Option<u64>,
    end: Option<u64>,
    /// Fragments received, including those already partially delivered.
    count: u64,
    /// Bytes received, including those already partially delivered.
    bytes: u64,
    offset: u64,
    unordered: bool,
    /// Fragments held (not yet handed over), sorted by TSN.
    frags: VecDeque<Frag>,
}

impl Assembly {
    fn complete(&self) -> bool {
        matches!((self.begin, self.end), (Some(b), Some(e)) if e >= b && e - b + 1 == self.count)
    }

    fn insert(&mut self, f: Frag) {
        // fragments arrive mostly in TSN order: usually an append
        let pos = self.frags.partition_point(|g| g.tsn < f.tsn);
        self.frags.insert(pos, f);
    }

    /// Lowest TSN held.
    fn head(&self) -> Option<u64> {
        self.frags.front().map(|f| f.tsn)
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

/// A partial delivery under way (Linux `ulpq->pd_mode`): the message and
/// the TSN of its next fragment to hand over.
#[derive(Clone, Copy, Debug)]
struct Partial {
    key: Key,
    next_tsn: u64,
    /// Bytes of the message handed over so far (for the invariant checks).
    delivered: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    asm: HashMap<Key, Assembly>,
    /// Next SSN to deliver, per stream.
    next_ssn: BTreeMap<u16, u64>,
    /// Bytes held (received, not yet delivered).
    pub held: u64,
    pub stats: ReorderStats,
    pd: Option<Partial>,
    /// Partial deliveries started (messages handed over in pieces).
    pub pd_started: u64,
    /// Bytes handed over by partial delivery.
    pub pd_bytes: u64,
    /// Invariants `sctp-tsn-once`, `sctp-ssn-order`, `sctp-message-once`
    /// (zero-sized unless checks are on).
    inv: SctpRecvCheck,
}

impl Reassembly {
    /// Add a new (non-duplicate) chunk and return what became deliverable,
    /// in delivery order.
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
        a.insert(Frag {
            tsn: d.tsn,
            at: now,
            len: d.len,
        });
        if d.begin {
            a.begin = Some(d.tsn);
        }
        if d.end {
            a.end = Some(d.tsn);
        }
        self.held += d.len as u64;
        if let Some(pd) = self.pd {
            // PD mode (Linux sctp_ulpq_reasm -> sctp_ulpq_retrieve_partial):
            // only the message in partial delivery moves; every other one
            // waits for its end (no interleaving without I-DATA).
            if pd.key == key {
                self.retrieve_partial(now, out);
            }
            return;
        }
        if d.unordered {
            if self.asm[&key].complete() {
                let a = self.asm.remove(&key).unwrap();
                self.inv.on_deliver(None, a.offset, a.bytes);
                self.deliver(now, a, out);
            }
        } else {
            self.deliver_ordered(now, d.stream, out);
        }
    }

    /// Deliver the complete messages of `stream` that are next in SSN order.
    fn deliver_ordered(&mut self, now: Nanos, stream: u16, out: &mut Vec<DeliveredMsg>) {
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

    /// A partial delivery is under way.
    pub fn in_partial_delivery(&self) -> bool {
        self.pd.is_some()
    }

    /// Start partial delivery if possible (Linux `sctp_ulpq_partial_delivery`,
    /// called on receive-window pressure; RFC 9260 section 6.9). `cum` is the
    /// cumulative TSN before the arriving chunk is recorded. Returns whether
    /// a piece was handed over.
    pub fn partial_delivery(
        &mut self,
        now: Nanos,
        cum: Option<u64>,
        out: &mut Vec<DeliveredMsg>,
    ) -> bool {
        if self.pd.is_some() {
            return false;
        }
        // Head of the reassembly queue: the lowest TSN held by a message not
        // yet complete (complete ones waiting for their SSN are in Linux's
        // ordering lobby, not the reassembly queue).
        let Some((key, head)) = self
            .asm
            .iter()
            .filter(|(_, a)| !a.complete())
            .filter_map(|(k, a)| a.head().map(|h| (*k, h)))
            .min_by_key(|&(_, h)| h)
        else {
            return false;
        };
        // "Data must be at or below the Cumulative TSN ACK Point to start
        // partial delivery", and the head must be a first fragment
        // (sctp_ulpq_retrieve_first returns nothing otherwise).
        if cum.is_none_or(|c| head > c) || self.asm[&key].begin != Some(head) {
            return false;
        }
        // Every TSN below the head has arrived, so every earlier message of
        // its stream is complete and delivered: the head message is next in
        // SSN order (Linux relies on this without checking).
        if let Key::Ordered(stream, ssn) = key {
            if ssn != *self.next_ssn.get(&stream).unwrap_or(&0) {
                debug_assert!(false, "PD head message out of SSN order");
                return false;
            }
        }
        self.pd = Some(Partial {
            key,
            next_tsn: head,
            delivered: 0,
        });
        self.pd_started += 1;
        self.retrieve_partial(now, out);
        true
    }

    /// Hand over the fragments of the message in partial delivery that
    /// continue its delivered prefix (Linux `sctp_ulpq_retrieve_first` /
    /// `sctp_ulpq_retrieve_partial`); after the last one end PD
    /// (`sctp_ulpq_clear_pd`) and deliver what completed meanwhile
    /// (`sctp_ulpq_reasm_drain`).
    fn retrieve_partial(&mut self, now: Nanos, out: &mut Vec<DeliveredMsg>) {
        let Some(pd) = self.pd.as_mut() else {
            return;
        };
        let a = self.asm.get_mut(&pd.key).expect("PD message");
        let mut bytes = 0u64;
        let mut eor = false;
        while let Some(f) = a.frags.front().copied() {
            if f.tsn != pd.next_tsn {
                break;
            }
            a.frags.pop_front();
            pd.next_tsn += 1;
            bytes += f.len as u64;
            Self::count_wait(&mut self.stats, now, f);
            if a.end == Some(f.tsn) {
                eor = true;
                break;
            }
        }
        if bytes == 0 {
            return;
        }
        self.held -= bytes;
        self.pd_bytes += bytes;
        // The SSN is checked with the first piece; every piece's bytes once.
        let ssn = match pd.key {
            Key::Ordered(stream, ssn) if pd.delivered == 0 => Some((stream, ssn)),
            _ => None,
        };
        self.inv.on_deliver(ssn, a.offset + pd.delivered, bytes);
        pd.delivered += bytes;
        out.push(DeliveredMsg {
            offset: a.offset,
            len: bytes,
            unordered: a.unordered,
            eor,
            msg_len: a.bytes,
        });
        if eor {
            let key = pd.key;
            self.asm.remove(&key);
            self.pd = None;
            if let Key::Ordered(stream, ssn) = key {
                self.next_ssn.insert(stream, ssn + 1);
            }
            self.drain(now, out);
        }
    }

    /// Deliver every message that completed while a partial delivery ran,
    /// in TSN order, ordered ones in SSN order per stream (Linux
    /// `sctp_ulpq_reasm_drain` and the `pd_lobby` splice of `sctp_clear_pd`).
    fn drain(&mut self, now: Nanos, out: &mut Vec<DeliveredMsg>) {
        let mut ready: Vec<(u64, Key)> = self
            .asm
            .iter()
            .filter(|(_, a)| a.complete())
            .map(|(k, a)| (a.begin.unwrap(), *k))
            .collect();
        ready.sort_unstable();
        for (_, k) in ready {
            match k {
                Key::Unordered(..) => {
                    let a = self.asm.remove(&k).unwrap();
                    self.inv.on_deliver(None, a.offset, a.bytes);
                    self.deliver(now, a, out);
                }
                Key::Ordered(stream, _) => self.deliver_ordered(now, stream, out),
            }
        }
    }

    fn count_wait(stats: &mut ReorderStats, now: Nanos, f: Frag) {
        let w = now - f.at;
        stats.chunks += 1;
        stats.bytes += f.len as u64;
        stats.wait_ns_bytes += w as u128 * f.len as u128;
        stats.max_wait = stats.max_wait.max(w);
        if w > 0 {
            stats.waited_chunks += 1;
        }
    }

    fn deliver(&mut self, now: Nanos, a: Assembly, out: &mut Vec<DeliveredMsg>) {
        self.held -= a.bytes;
        for &f in &a.frags {
            Self::count_wait(&mut self.stats, now, f);
        }
        out.push(DeliveredMsg {
            offset: a.offset,
            len: a.bytes,
            unordered: a.unordered,
            eor: true,
            msg_len: a.bytes,
        });
    }
}
