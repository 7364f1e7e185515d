//! SCTP messages at a capture point: the agent's framing at each user
//! message's first fragment (B bit; `mptlab-capture` writes it there) and
//! the receiver's delivery, by the model's own receive side
//! (`mptlab_core::sctp::recv::Reassembly`: reassembly by B/E bits, ordered
//! delivery per stream by SSN, RFC 9260 6.5/6.9), fed with the DATA chunks
//! in capture order. A message counts as delivered when the chunk that lets
//! the receiver deliver it passes the capture point.
//!
//! The receiver's out-of-order delay and head-of-line time (seed 002's
//! metric, `run`'s `ofo_*` and `hol_blocking_ms` for SCTP) are measured as
//! the model measures them (`SctpAssociation::track_reordering`): TSNs
//! relative to the sender's Initial TSN (from its INIT / INIT ACK, else
//! the first TSN seen), the model's own `TsnTracker` for the cumulative
//! TSN, a chunk at the next expected TSN waits 0, one above it waits
//! until the cumulative TSN reaches it; head-of-line time is the time
//! gaps exist, counted when they close.
//!
//! Not recovered: unordered messages (U bit: the wire does not say which
//! fragments form one message beyond TSN adjacency) and partial delivery
//! (started by the receiver's buffer pressure, which the packets do not
//! show).

use std::collections::{HashMap, HashSet, VecDeque};

use mptlab_core::delay_stats::DelayStats;
use mptlab_core::sctp::chunk::DataChunk;
use mptlab_core::sctp::recv::{DeliveredMsg, Reassembly};
use mptlab_core::sctp::sack::TsnTracker;
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
    /// The sender's Initial TSN, if its INIT / INIT ACK was captured.
    pub initial_tsn: Option<u32>,
    /// TSN bookkeeping of the receiver (the model's).
    tsns: TsnTracker,
    /// Highest model TSN seen (unwrapping reference).
    hi: u64,
    /// Out-of-order TSNs waiting for the cumulative TSN, by TSN, with
    /// their arrival time.
    waiting: VecDeque<(u64, i128)>,
    pub ofo_delays: DelayStats,
    pub hol_ns: u64,
    gap_since: Option<i128>,
}

impl SctpRx {
    /// A DATA chunk passing the capture point at `t`; delivered, framed
    /// messages go to `msgs`. True if the chunk arrived above the next
    /// expected TSN (the model's `ooo_segments`).
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
    ) -> bool {
        let ooo = self.reordering(t, tsn);
        self.messages(t, tsn, flags, stream, ssn, data, len, msgs);
        ooo
    }

    /// Out-of-order delay and head-of-line time, as the model's receiver
    /// (`track_reordering`, called for every new TSN, ordered or not).
    fn reordering(&mut self, t: i128, tsn: u32) -> bool {
        let base = *self.initial_tsn.get_or_insert(tsn);
        let rel = tsn.wrapping_sub(base);
        // the 64-bit TSN nearest the highest seen with these low 32 bits
        let tsn = [
            (self.hi & !0xffff_ffff).wrapping_sub(1 << 32),
            self.hi & !0xffff_ffff,
            (self.hi & !0xffff_ffff) + (1 << 32),
        ]
        .into_iter()
        .map(|b| b | rel as u64)
        .filter(|&c| c < 1 << 62)
        .min_by_key(|&c| c.abs_diff(self.hi))
        .unwrap_or(rel as u64);
        let expected = self.tsns.cum.map_or(0, |c| c + 1);
        if !self.tsns.on_tsn(tsn) {
            return false; // duplicate (RFC 9260 6.2)
        }
        self.hi = self.hi.max(tsn);
        if tsn == expected {
            self.ofo_delays.push(0);
        } else {
            let pos = self.waiting.partition_point(|&(w, _)| w < tsn);
            self.waiting.insert(pos, (tsn, t));
        }
        let cum = self.tsns.cum;
        while let Some(&(w, at)) = self.waiting.front() {
            if cum.is_none_or(|c| w > c) {
                break;
            }
            self.waiting.pop_front();
            self.ofo_delays.push((t - at).max(0) as u64);
        }
        match (self.tsns.has_gaps(), self.gap_since) {
            (true, None) => self.gap_since = Some(t),
            (false, Some(since)) => {
                self.hol_ns += (t - since).max(0) as u64;
                self.gap_since = None;
            }
            _ => {}
        }
        tsn != expected
    }

    /// Reassembly and delivery of the framed messages.
    #[allow(clippy::too_many_arguments)]
    fn messages(
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
    use super::{unwrap16, SctpRx};

    #[test]
    fn out_of_order_delay_and_hol_as_the_model() {
        // initial TSN 0xffff_fffe (wraps): TSN +0 at 0 ns, +2 at 10 ns
        // (above the next expected), +1 at 30 ns fills the gap
        let mut rx = SctpRx {
            initial_tsn: Some(0xffff_fffe),
            ..Default::default()
        };
        let mut msgs = Vec::new();
        let mut at = |rx: &mut SctpRx, t, tsn: u32| rx.data(t, tsn, 3, 0, 0, &[], 10, &mut msgs);
        assert!(!at(&mut rx, 0, 0xffff_fffe));
        assert!(at(&mut rx, 10, 0));
        assert!(!at(&mut rx, 30, 0xffff_ffff));
        assert!(!at(&mut rx, 40, 0xffff_ffff), "duplicate: not counted");
        assert_eq!(rx.ofo_delays.len(), 3, "one delay per new TSN");
        let s = rx.ofo_delays.summary().unwrap();
        assert!((s.fraction_positive - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.mean_ms - 20e-6 / 3.0).abs() < 1e-15, "{}", s.mean_ms);
        assert_eq!(rx.hol_ns, 20, "a gap from 10 to 30 ns");
    }

    #[test]
    fn ssn_unwraps_near_the_last() {
        assert_eq!(unwrap16(0, 5), 5);
        assert_eq!(unwrap16(65534, 1), 65537);
        assert_eq!(unwrap16(65537, 65535), 65535);
    }
}
