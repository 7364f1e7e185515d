//! Invariant layer: cheap run-time checks of what every transport model must
//! guarantee, whatever its congestion control, scheduler or loss recovery
//! (issue 12, "Invariants"):
//!
//! - `stream-in-order`: a byte-stream receiver (TCP, the MPTCP meta level)
//!   hands the application each byte exactly once and in order: every
//!   delivery starts where the previous one ended, and nothing follows FIN;
//! - `mptcp-dss-mapping`: a subflow sequence range, whenever it is received
//!   again (retransmission, reinjection), maps to the same data sequence
//!   numbers (RFC 8684 3.3.1: a mapping, once sent, is fixed);
//! - `sctp-tsn-once` / `sctp-ssn-order` / `sctp-message-once`: each TSN
//!   enters reassembly once, ordered messages of a stream are delivered in
//!   SSN order without a gap (RFC 9260 6.5/6.6), and no byte of the
//!   sender's message stream is delivered twice;
//! - `retransmission-attributed`: a segment or chunk is retransmitted only
//!   while not acknowledged, and every retransmission is counted under a
//!   cause (fast, RTO, TLP; SCTP fast/T3; reinjection/rescheduling).
//!
//! The simulator adds the cross-endpoint check `app-bytes-exactly-once`
//! (`mptlab_sim::world`): bytes delivered to an application never exceed
//! the bytes its peer wrote, and the delivered total never goes back.
//!
//! **When they run.** In debug builds (`debug_assertions`) and whenever the
//! `invariants` feature of `mptlab-core` is on; `mptlab-sim`'s tests turn it
//! on through a dev-dependency, so `cargo test --release` checks them too.
//! Otherwise the checkers are zero-sized types with empty inline methods
//! and `ENABLED` is `false`: a release build carries no trace of them.
//!
//! **What a violation does.** It panics with `invariant violated: NAME:
//! STATE`. A broken invariant means the model itself is wrong (not the
//! scenario), so the run's numbers cannot be trusted and there is no
//! sensible way to continue; the sans-IO models have no error channel, and a
//! panic names the invariant and the state at the point of failure, which a
//! run error could not. (The property test in `mptlab-sim` relies on it.)

/// True when the checks are compiled in.
pub const ENABLED: bool = cfg!(any(debug_assertions, feature = "invariants"));

/// Panic naming the invariant and the state: `invariant!(cond, "name",
/// "fmt", args...)`. Only evaluates anything when `ENABLED`.
#[macro_export]
macro_rules! invariant {
    ($cond:expr, $name:expr, $($fmt:tt)+) => {
        if $crate::invariants::ENABLED && !$cond {
            panic!("invariant violated: {}: {}", $name, format_args!($($fmt)+));
        }
    };
}

#[cfg(any(debug_assertions, feature = "invariants"))]
pub use on::*;

#[cfg(not(any(debug_assertions, feature = "invariants")))]
pub use off::*;

#[cfg(any(debug_assertions, feature = "invariants"))]
mod on {
    use std::collections::BTreeMap;

    /// How far below the receive point a subflow's mappings are remembered.
    /// A sender retransmits only above its SND.UNA, which is never more than
    /// its send buffer below what the receiver has acknowledged; send
    /// buffers are far below this horizon (scenario limit: a few MiB).
    const MAP_HORIZON: u64 = 256 << 20;

    /// Disjoint half-open ranges, merged when adjacent.
    #[derive(Clone, Debug, Default)]
    pub struct RangeSet {
        /// start -> end
        r: BTreeMap<u64, u64>,
    }

    impl RangeSet {
        /// The first stored range overlapping [s, e), if any.
        pub fn overlap(&self, s: u64, e: u64) -> Option<(u64, u64)> {
            if let Some((&a, &b)) = self.r.range(..e).next_back() {
                if b > s {
                    return Some((a, b));
                }
            }
            None
        }

        /// Insert [s, e) (must not overlap anything stored).
        pub fn insert(&mut self, s: u64, e: u64) {
            let (mut s, mut e) = (s, e);
            if let Some((&a, &b)) = self.r.range(..=s).next_back() {
                if b == s {
                    self.r.remove(&a);
                    s = a;
                }
            }
            if let Some(&b) = self.r.get(&e) {
                self.r.remove(&e);
                e = b;
            }
            self.r.insert(s, e);
        }

        pub fn len(&self) -> usize {
            self.r.len()
        }

        pub fn is_empty(&self) -> bool {
            self.r.is_empty()
        }
    }

    /// `stream-in-order`: deliveries of a byte stream to the application.
    #[derive(Clone, Debug, Default)]
    pub struct StreamCheck {
        next: Option<u64>,
        fin: bool,
    }

    impl StreamCheck {
        /// `len` bytes at stream offset `start` were handed to the application.
        #[inline]
        pub fn deliver(&mut self, what: &str, start: u64, len: u64) {
            if len == 0 {
                return;
            }
            let next = *self.next.get_or_insert(start);
            crate::invariant!(
                !self.fin,
                "stream-in-order",
                "{what}: {len} bytes at {start} delivered after FIN"
            );
            crate::invariant!(
                start == next,
                "stream-in-order",
                "{what}: delivery of {len} bytes starts at {start}, expected {next} ({})",
                if start < next {
                    "bytes delivered twice"
                } else {
                    "bytes skipped"
                }
            );
            self.next = Some(start + len);
        }

        /// The end of the stream was reached at offset `at`.
        #[inline]
        pub fn fin(&mut self, what: &str, at: u64) {
            if let Some(next) = self.next {
                crate::invariant!(
                    at == next,
                    "stream-in-order",
                    "{what}: FIN at {at} but the stream was delivered up to {next}"
                );
            }
            crate::invariant!(
                !self.fin,
                "stream-in-order",
                "{what}: FIN consumed twice (at {at})"
            );
            self.fin = true;
        }
    }

    /// `mptcp-dss-mapping`: every subflow range received maps to the same
    /// DSNs each time (stored as range -> DSN of its first byte).
    #[derive(Clone, Debug, Default)]
    pub struct MappingCheck {
        maps: BTreeMap<u64, (u64, u64)>,
        /// Longest range stored: how far back an overlapping one may start.
        max_len: u64,
    }

    impl MappingCheck {
        /// Subflow bytes [sseq, sseq+len) arrived mapped to DSN `dsn`;
        /// `rcv_nxt` is the subflow's receive point (for forgetting).
        pub fn on_map(&mut self, subflow: usize, sseq: u64, len: u32, dsn: u64, rcv_nxt: u64) {
            if len == 0 {
                return;
            }
            let end = sseq + len as u64;
            // every stored range overlapping [sseq, end) must agree
            for (&s, &(e, d)) in self.maps.range(..end).rev() {
                if s + self.max_len <= sseq {
                    break; // no earlier range can reach sseq
                }
                if e <= sseq {
                    continue;
                }
                crate::invariant!(
                    d.wrapping_sub(s) == dsn.wrapping_sub(sseq),
                    "mptcp-dss-mapping",
                    "subflow {subflow}: bytes [{sseq}, {end}) mapped to DSN {dsn}, \
                     but [{s}, {e}) was mapped to DSN {d} (different data)"
                );
            }
            self.maps.entry(sseq).or_insert((end, dsn));
            self.max_len = self.max_len.max(len as u64);
            // forget ranges far below the receive point
            let horizon = rcv_nxt.saturating_sub(MAP_HORIZON);
            while let Some((&s, &(e, _))) = self.maps.first_key_value() {
                if e >= horizon {
                    break;
                }
                self.maps.remove(&s);
            }
        }
    }

    /// `sctp-tsn-once`, `sctp-ssn-order`, `sctp-message-once`.
    #[derive(Clone, Debug, Default)]
    pub struct SctpRecvCheck {
        tsns: RangeSet,
        next_ssn: BTreeMap<u16, u64>,
        bytes: RangeSet,
    }

    impl SctpRecvCheck {
        /// A chunk with `tsn` entered reassembly.
        #[inline]
        pub fn on_chunk(&mut self, tsn: u64) {
            crate::invariant!(
                self.tsns.overlap(tsn, tsn + 1).is_none(),
                "sctp-tsn-once",
                "TSN {tsn} entered reassembly twice"
            );
            self.tsns.insert(tsn, tsn + 1);
        }

        /// A message (or, with partial delivery, a piece of one) of `len`
        /// bytes at stream offset `offset` was handed to the application;
        /// `ordered`: its stream and SSN, for ordered delivery.
        #[inline]
        pub fn on_deliver(&mut self, ordered: Option<(u16, u64)>, offset: u64, len: u64) {
            if let Some((stream, ssn)) = ordered {
                let next = self.next_ssn.entry(stream).or_insert(0);
                crate::invariant!(
                    ssn == *next,
                    "sctp-ssn-order",
                    "stream {stream}: delivered SSN {ssn}, expected {}",
                    *next
                );
                *next = ssn + 1;
            }
            if len > 0 {
                let end = offset + len;
                crate::invariant!(
                    self.bytes.overlap(offset, end).is_none(),
                    "sctp-message-once",
                    "message bytes [{offset}, {end}) delivered again (overlap with {:?})",
                    self.bytes.overlap(offset, end)
                );
                self.bytes.insert(offset, end);
            }
        }
    }
}

#[cfg(not(any(debug_assertions, feature = "invariants")))]
mod off {
    //! Zero-sized stand-ins: the same methods, no state, no code.

    #[derive(Clone, Copy, Debug, Default)]
    pub struct StreamCheck;

    impl StreamCheck {
        #[inline(always)]
        pub fn deliver(&mut self, _what: &str, _start: u64, _len: u64) {}
        #[inline(always)]
        pub fn fin(&mut self, _what: &str, _at: u64) {}
    }

    #[derive(Clone, Copy, Debug, Default)]
    pub struct MappingCheck;

    impl MappingCheck {
        #[inline(always)]
        pub fn on_map(&mut self, _sf: usize, _sseq: u64, _len: u32, _dsn: u64, _rcv_nxt: u64) {}
    }

    #[derive(Clone, Copy, Debug, Default)]
    pub struct SctpRecvCheck;

    impl SctpRecvCheck {
        #[inline(always)]
        pub fn on_chunk(&mut self, _tsn: u64) {}
        #[inline(always)]
        pub fn on_deliver(&mut self, _ordered: Option<(u16, u64)>, _offset: u64, _len: u64) {}
    }
}

#[cfg(all(test, any(debug_assertions, feature = "invariants")))]
mod tests {
    use super::*;

    #[test]
    fn stream_accepts_contiguous_deliveries() {
        let mut c = StreamCheck::default();
        c.deliver("t", 1, 100);
        c.deliver("t", 101, 0);
        c.deliver("t", 101, 50);
        c.fin("t", 151);
    }

    #[test]
    #[should_panic(expected = "invariant violated: stream-in-order")]
    fn stream_rejects_a_duplicate() {
        let mut c = StreamCheck::default();
        c.deliver("t", 1, 100);
        c.deliver("t", 51, 100);
    }

    #[test]
    #[should_panic(expected = "bytes skipped")]
    fn stream_rejects_a_gap() {
        let mut c = StreamCheck::default();
        c.deliver("t", 1, 100);
        c.deliver("t", 102, 100);
    }

    #[test]
    #[should_panic(expected = "after FIN")]
    fn stream_rejects_data_after_fin() {
        let mut c = StreamCheck::default();
        c.deliver("t", 1, 100);
        c.fin("t", 101);
        c.deliver("t", 101, 1);
    }

    #[test]
    fn mapping_accepts_same_mapping_and_resegmentation() {
        let mut m = MappingCheck::default();
        m.on_map(0, 1, 1000, 5001, 1);
        m.on_map(0, 1001, 1000, 9001, 1);
        m.on_map(0, 1, 1000, 5001, 2001);
        // part of the first range again, same data
        m.on_map(0, 501, 500, 5501, 2001);
    }

    #[test]
    #[should_panic(expected = "invariant violated: mptcp-dss-mapping")]
    fn mapping_rejects_different_data() {
        let mut m = MappingCheck::default();
        m.on_map(0, 1, 1000, 5001, 1);
        m.on_map(0, 501, 1000, 7001, 1);
    }

    #[test]
    #[should_panic(expected = "invariant violated: sctp-tsn-once")]
    fn sctp_rejects_a_tsn_twice() {
        let mut c = SctpRecvCheck::default();
        c.on_chunk(1);
        c.on_chunk(2);
        c.on_chunk(1);
    }

    #[test]
    #[should_panic(expected = "invariant violated: sctp-ssn-order")]
    fn sctp_rejects_an_ssn_gap() {
        let mut c = SctpRecvCheck::default();
        c.on_deliver(Some((0, 0)), 0, 10);
        c.on_deliver(Some((0, 2)), 20, 10);
    }

    #[test]
    #[should_panic(expected = "invariant violated: sctp-message-once")]
    fn sctp_rejects_a_message_twice() {
        let mut c = SctpRecvCheck::default();
        c.on_deliver(None, 0, 10);
        c.on_deliver(None, 10, 10);
        c.on_deliver(None, 5, 3);
    }

    #[test]
    fn range_set_merges_neighbours() {
        let mut r = RangeSet::default();
        r.insert(0, 10);
        r.insert(20, 30);
        r.insert(10, 20);
        assert_eq!(r.len(), 1);
        assert_eq!(r.overlap(29, 40), Some((0, 30)));
        assert_eq!(r.overlap(30, 40), None);
    }
}
