//! SCTP messages at a capture point: the agent's framing at each user
//! message's first fragment (B bit; `mptlab-capture` writes it there) and
//! the receiver's delivery, by the model's own receive side
//! (`mptlab_core::sctp::recv::Reassembly`: reassembly by B/E bits, ordered
//! delivery per stream by SSN, RFC 9260 6.5/6.9), fed with the DATA chunks
//! in capture order. A message counts as delivered when the chunk that lets
//! the receiver deliver it passes the capture point.
//!
//! Not recovered: unordered messages (U bit: the wire does not say which
//! fragments form one message beyond TSN adjacency) and partial delivery
//! (started by the receiver's buffer pressure, which the packets do not
//! show).

use std::collections::{HashMap, HashSet};

use mptlab_core::sctp::chunk::DataChunk;
use mptlab_core::sctp::recv::{DeliveredMsg, Reassembly};
use mptlab_core::traffic::framing::{parse_hdr, HDR_LEN};

use crate::track::MsgRec;

/// Flags of a DATA chunk (RFC 9260 3.3.1).
const FLAG_U: u8 = 4;
const FLAG_B: u8 = 2;
const FLAG_E: u8 = 1;

/// One direction of an association, as its receiver sees it.
#[derive(Default)]
pub struct SctpRx {
    /// The first TSN seen: TSNs are kept relative to it (serial
    /// arithmetic, RFC 9260 1.6), so the model's u64 TSNs never wrap.
    first_tsn: Option<u32>,
    seen: HashSet<u64>,
    /// Per stream: the last SSN seen, unwrapped (16-bit SSNs, 1.6).
    ssn: HashMap<u16, u64>,
    reasm: Reassembly,
    /// Framing of the messages not yet delivered, by (stream, SSN):
    /// message id, generation time, length, first sighting.
    heads: HashMap<(u16, u64), (u64, u64, u32, i128)>,
    out: Vec<DeliveredMsg>,
    /// Each message's stand-in stream offset (the wire has none): the n-th
    /// message seen gets n * 2^32, so messages never overlap (the model's
    /// `sctp-message-once` check holds), and back.
    offsets: HashMap<(u16, u64), u64>,
    by_offset: HashMap<u64, (u16, u64)>,
    /// Messages delivered (their offsets are not reused).
    delivered: u64,
    /// Unordered chunks (not analysed).
    pub unordered: u64,
}

impl SctpRx {
    /// A DATA chunk passing the capture point at `t`; delivered, framed
    /// messages go to `msgs`.
    #[allow(clippy::too_many_arguments)]
    pub fn data(
        &mut self,
        t: i128,
        tsn: u32,
        flags: u8,
        stream: u16,
        ssn: u16,
        data: &[u8],
        len: u32,
        msgs: &mut Vec<MsgRec>,
    ) {
        if flags & FLAG_U != 0 {
            self.unordered += 1;
            return;
        }
        let first = *self.first_tsn.get_or_insert(tsn);
        // relative TSN, 2^31 below the first allowed (retransmissions of
        // earlier TSNs seen after later ones)
        let rel = (tsn.wrapping_sub(first) as i32 as i64 + (1 << 31)) as u64;
        if !self.seen.insert(rel) {
            return; // duplicate: the receiver drops it (RFC 9260 6.2)
        }
        let last = self.ssn.get(&stream).copied().unwrap_or(0);
        let ssn = unwrap16(last, ssn);
        self.ssn.insert(stream, ssn.max(last));
        let begin = flags & FLAG_B != 0;
        if begin && data.len() >= HDR_LEN {
            let (id, gen, _, _, mlen) = parse_hdr(data);
            self.heads
                .entry((stream, ssn))
                .or_insert((id, gen, mlen, t));
        }
        let d = DataChunk {
            tsn: rel,
            stream,
            ssn,
            unordered: false,
            begin,
            end: flags & FLAG_E != 0,
            len,
            msg_offset: self.offset_of(stream, ssn),
        };
        self.reasm.add(0, &d, &mut self.out);
        for m in self.out.drain(..) {
            let Some(&(k, s)) = self.by_offset.get(&m.offset) else {
                continue;
            };
            if m.eor {
                self.delivered += 1;
                self.by_offset.remove(&m.offset);
                self.offsets.remove(&(k, s));
            }
            if let Some((id, gen_ns, len, first)) = self.heads.remove(&(k, s)) {
                msgs.push(MsgRec {
                    id,
                    gen_ns,
                    len,
                    first_seen: Some(first),
                    delivered: t,
                });
            }
        }
    }
}

impl SctpRx {
    fn offset_of(&mut self, stream: u16, ssn: u64) -> u64 {
        let n = self.offsets.len() as u64 + self.delivered;
        *self.offsets.entry((stream, ssn)).or_insert_with(|| {
            self.by_offset.insert(n << 32, (stream, ssn));
            n << 32
        })
    }
}

/// The 64-bit SSN nearest `reference` whose low 16 bits are `v`.
fn unwrap16(reference: u64, v: u16) -> u64 {
    let base = reference & !0xffff;
    [base.wrapping_sub(1 << 16), base, base + (1 << 16)]
        .into_iter()
        .map(|c| c | v as u64)
        .filter(|&c| c < 1 << 48)
        .min_by_key(|&c| c.abs_diff(reference))
        .unwrap_or(v as u64)
}

#[cfg(test)]
mod tests {
    use super::unwrap16;

    #[test]
    fn ssn_unwraps_near_the_last() {
        assert_eq!(unwrap16(0, 5), 5);
        assert_eq!(unwrap16(65534, 1), 65537);
        assert_eq!(unwrap16(65537, 65535), 65535);
    }
}
