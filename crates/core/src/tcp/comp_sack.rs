//! Linux's SACK compression: how a receiver with out-of-order data ACKs
//! (net/ipv4/tcp_input.c `__tcp_ack_snd_check` and `tcp_sack_new_ofo_skb`,
//! net/ipv4/tcp_timer.c `tcp_compressed_ack_kick`, Linux 6.18).
//!
//! While the out-of-order queue is not empty, a segment that no other rule
//! ACKs at once (more than one full-sized segment unacknowledged, quick-ACK
//! mode, `ICSK_ACK_NOW`) is ACKed at once only for the first
//! `TCP_FASTRETRANS_THRESH` (3) such segments at one `rcv_nxt`
//! (`dup_ack_counter`, reset when `rcv_nxt` moves), so that the sender
//! still sees its three duplicate ACKs. Later ones are counted
//! (`compressed_ack`) and ACKed together when the compressed-ACK hrtimer
//! fires: 5 % of the RTT, at most `tcp_comp_sack_delay_ns` (1 ms), after
//! the first of them. At `tcp_comp_sack_nr` (44) compressed segments the
//! next is ACKed at once. Any ACK sent cancels the timer and the count
//! (`tcp_event_ack_sent`).
//!
//! Simplifications: the delay is computed from the socket's own SRTT,
//! where Linux takes the smaller of its receive-RTT estimate
//! (`rcv_rtt_est`, not modelled) and the SRTT; on every path of the
//! validation sets both are above 20 ms, so the 1 ms cap decides. The
//! hrtimer's 100 us slack (`tcp_comp_sack_slack_ns`) is not modelled: the
//! timer fires at its soft expiry.

use crate::time::{Nanos, MS};

/// `TCP_FASTRETRANS_THRESH`.
const FASTRETRANS_THRESH: u8 = 3;
/// `net.ipv4.tcp_comp_sack_nr` (default).
const COMP_SACK_NR: u8 = 44;
/// `net.ipv4.tcp_comp_sack_delay_ns` (default 1 ms).
const COMP_SACK_DELAY: Nanos = MS;
/// `TCP_SACK_BLOCKS_EXPECTED` (tcp_input.c).
pub const SACK_BLOCKS_EXPECTED: usize = 2;

/// What `__tcp_ack_snd_check` decided for a segment on its out-of-order
/// path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfoAck {
    /// ACK now (`goto send_now`).
    Now,
    /// Compressed: the ACK goes out when the timer fires, at this time.
    At(Nanos),
    /// Compressed under a timer already running.
    Pending,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct CompSack {
    /// `tp->compressed_ack`.
    compressed: u8,
    /// `tp->dup_ack_counter`.
    dup_acks: u8,
    /// `tp->compressed_ack_rcv_nxt` (None: never set, as the zeroed socket).
    rcv_nxt: Option<u64>,
    /// The compressed-ACK timer's expiry.
    timer: Option<Nanos>,
    /// A flush's ACK is still to be sent, and what was compressed after
    /// it stays held (see `flush`).
    flushing: bool,
}

impl CompSack {
    /// `__tcp_ack_snd_check` past its immediate rules, the out-of-order
    /// queue not empty and SACK in use; `srtt` is the socket's own (0
    /// before a sample). Inline: its one caller (`PathReceiver::on_segment`)
    /// runs on every data segment, and LLVM's choice to inline it or not
    /// flipped with unrelated changes to the crate (+0.29 M instructions on
    /// the background cell in session 21 when it stayed out of line).
    #[inline]
    pub fn on_ofo_segment(&mut self, now: Nanos, rcv_nxt: u64, srtt: Nanos) -> OfoAck {
        if self.compressed >= COMP_SACK_NR {
            return OfoAck::Now;
        }
        if self.rcv_nxt != Some(rcv_nxt) {
            self.rcv_nxt = Some(rcv_nxt);
            self.dup_acks = 0;
        }
        if self.dup_acks < FASTRETRANS_THRESH {
            self.dup_acks += 1;
            return OfoAck::Now;
        }
        self.compressed += 1;
        if self.timer.is_some() {
            return OfoAck::Pending;
        }
        // "compress ack timer : 5 % of rtt, but no more than
        // tcp_comp_sack_delay_ns" (no sample: the cap, see the module doc)
        let delay = if srtt == 0 {
            COMP_SACK_DELAY
        } else {
            COMP_SACK_DELAY.min(srtt / 20)
        };
        let at = now + delay;
        self.timer = Some(at);
        OfoAck::At(at)
    }

    /// ACKs are being held back (`tcp_sack_compress_send_ack` has one to
    /// send).
    pub fn holding(&self) -> bool {
        self.compressed > 0
    }

    /// The timer's expiry while ACKs are held back.
    pub fn timer(&self) -> Option<Nanos> {
        self.timer.filter(|_| self.compressed > 0)
    }

    /// The timer has fired by `now` with ACKs held back
    /// (`tcp_compressed_ack_kick`).
    pub fn due(&self, now: Nanos) -> bool {
        self.compressed > 0 && self.timer.is_some_and(|t| now >= t)
    }

    /// `tcp_sack_new_ofo_skb` sends the held ACKs at once
    /// (`tcp_sack_compress_send_ack`) before the segment's own
    /// `__tcp_ack_snd_check` when the segment extends the third or a later
    /// SACK block or opens a new block behind two or more
    /// (`TCP_SACK_BLOCKS_EXPECTED`). True if something was held: the
    /// caller sends that ACK; the segment itself then goes through
    /// `on_ofo_segment`, and what it holds survives that ACK. Linux's flush
    /// ACK goes out before the segment's SACK block is added when it opens
    /// a new block; here the one ACK carries it (the receiver sends one ACK
    /// per segment).
    pub fn flush(&mut self) -> bool {
        if self.compressed == 0 {
            return false;
        }
        self.compressed = 0;
        self.timer = None;
        self.flushing = true;
        true
    }

    /// An ACK was sent (`tcp_event_ack_sent`): the count and the timer go,
    /// except for what a segment held after a flush whose ACK this is.
    pub fn on_ack_sent(&mut self) {
        if std::mem::take(&mut self.flushing) {
            return;
        }
        self.compressed = 0;
        self.timer = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_acks_at_once_then_one_per_timer() {
        let mut c = CompSack::default();
        let srtt = 50 * MS;
        for _ in 0..3 {
            assert_eq!(c.on_ofo_segment(0, 100, srtt), OfoAck::Now);
        }
        // the 4th at the same rcv_nxt is held for 1 ms (5 % of 50 ms capped)
        assert_eq!(c.on_ofo_segment(10, 100, srtt), OfoAck::At(10 + MS));
        assert_eq!(c.on_ofo_segment(20, 100, srtt), OfoAck::Pending);
        assert!(!c.due(MS));
        assert!(c.due(10 + MS));
        c.on_ack_sent();
        assert!(!c.holding());
        // the counter stays at 3 for this rcv_nxt: compressed again
        assert_eq!(
            c.on_ofo_segment(2 * MS, 100, 10 * MS),
            OfoAck::At(2 * MS + MS / 2)
        );
        // rcv_nxt moved: three more at once
        c.on_ack_sent();
        assert_eq!(c.on_ofo_segment(3 * MS, 200, srtt), OfoAck::Now);
    }

    #[test]
    fn a_flush_sends_the_held_acks_and_keeps_what_follows() {
        let mut c = CompSack::default();
        assert!(!c.flush(), "nothing held, nothing to flush");
        for _ in 0..3 {
            c.on_ofo_segment(0, 1, 40 * MS);
        }
        c.on_ofo_segment(0, 1, 40 * MS);
        assert!(c.flush());
        // the segment that caused the flush is held under a new timer
        assert_eq!(c.on_ofo_segment(5, 1, 40 * MS), OfoAck::At(5 + MS));
        c.on_ack_sent(); // the flush's ACK
        assert!(c.holding());
        assert!(c.due(5 + MS));
        c.on_ack_sent(); // the timer's ACK
        assert!(!c.holding());
    }

    #[test]
    fn at_comp_sack_nr_the_next_goes_at_once() {
        let mut c = CompSack::default();
        for _ in 0..3 {
            c.on_ofo_segment(0, 1, MS * 40);
        }
        for _ in 0..COMP_SACK_NR {
            assert_ne!(c.on_ofo_segment(0, 1, MS * 40), OfoAck::Now);
        }
        assert_eq!(c.on_ofo_segment(0, 1, MS * 40), OfoAck::Now);
    }
}
