//! When the MPTCP connection's window learns a subflow's scaling ratio.
//!
//! A subflow's window is the connection's free buffer scaled by
//! `msk->scaling_ratio` (`__mptcp_space` / `mptcp_win_from_space`), and
//! Linux 6.18 sets that ratio in one place only: `net/mptcp/protocol.c:
//! mptcp_rcv_space_adjust`, at an application read, to the minimum of the
//! subflows' own `tp->scaling_ratio`. The function returns early while less
//! than one receive RTT (the largest of the subflows' `tp->rcv_rtt_est`,
//! kept scaled by 8, hence `rtt_us >> 3`) has passed since its last
//! measure, so the connection sees a subflow's ratio change (a joined
//! subflow, at 50 % until its first data, or that subflow's first measured
//! ratio) up to one receive RTT late. On a long path that decides how long
//! the window stays at half the buffer once a second subflow joined:
//! traced on UDE->HU ndiffports (docs/validation.md, "Session 19: MPTCP
//! receive space"), the kernel's right edge went on growing for about one
//! RTT after the join and jumped 0.39 s (a receive RTT) after the new
//! subflow's first data. (That cell's remaining gap, the model's second
//! subflow idle where the kernel's carries data, is not this pace.)
//!
//! Kept out: the buffer growth `mptcp_rcvbuf_grow` does in the same
//! function (the emulator's buffers are locked, `SOCK_RCVBUF_LOCK`, so it
//! returns at once), and the non-timestamp `tcp_rcv_rtt_measure`, whose
//! sequence mark `rcv_nxt + rcv_wnd` lies a whole window ahead.

use crate::tcp::rcvwnd::DEFAULT_SCALING_RATIO;
use crate::time::Nanos;

/// A subflow's `tp->rcv_rtt_est` as the timestamp option feeds it
/// (net/ipv4/tcp_input.c: `tcp_rcv_rtt_measure_ts`, `tcp_rcv_rtt_update`).
#[derive(Clone, Debug, Default)]
pub struct RcvRttEst {
    /// `rcv_rtt_est.rtt_us`: the receive RTT in microseconds, times 8.
    pub rtt_us8: u64,
    /// `tp->rcv_rtt_last_tsecr` (0 before any sample, as Linux starts).
    last_tsecr_ms: u64,
}

impl RcvRttEst {
    /// A data segment of `len` bytes echoing `tsecr` arrived at `now`;
    /// `rcv_mss` is the receiver's `icsk_ack.rcv_mss`. Timestamps count
    /// milliseconds (`TCP_TS_HZ`, no `tcp_usec_ts`), so the sample is the
    /// difference of the two millisecond clocks (`tcp_rtt_tsopt_us`), and a
    /// zero difference is no sample. The sample replaces a larger estimate
    /// or is averaged in at 1/8 (`win_dep` = 0). Not modelled: the test
    /// `rcv_nxt != copied_seq` (data not yet read): an MPTCP subflow hands
    /// its in-order data to the connection as it arrives.
    ///
    /// Always inlined into the segment path (`connection/segment.rs`),
    /// which runs it for every segment: LLVM kept it out of line there.
    #[inline(always)]
    pub fn on_data(&mut self, now: Nanos, tsecr: Nanos, len: u32, rcv_mss: u32) {
        let tsecr_ms = tsecr / 1_000_000;
        if tsecr_ms == self.last_tsecr_ms {
            return;
        }
        self.last_tsecr_ms = tsecr_ms;
        if len < rcv_mss {
            return;
        }
        let delta_ms = (now / 1_000_000).saturating_sub(tsecr_ms);
        if delta_ms == 0 {
            return;
        }
        let sample = delta_ms * 1000;
        let m = sample << 3;
        let old = self.rtt_us8;
        self.rtt_us8 = if old == 0 || m < old {
            m
        } else {
            old - (old >> 3) + sample
        };
    }
}

/// The connection's `msk->scaling_ratio` with the `rcvq_space` fields
/// `mptcp_rcv_space_adjust` paces itself by.
#[derive(Clone, Debug)]
pub struct MskRcvSpace {
    /// `msk->scaling_ratio`, in 1/256: `TCP_DEFAULT_SCALING_RATIO` from
    /// `__mptcp_init_sock` (the client's copy of its first subflow's,
    /// `__mptcp_socket_create`, is the same 50 % before any data).
    ratio: u32,
    /// `rcvq_space.time`: the start of the current measure.
    time: Option<Nanos>,
    /// `rcvq_space.rtt_us`: the largest subflow receive RTT (times 8) at
    /// the last pass.
    rtt_us8: u64,
}

impl Default for MskRcvSpace {
    fn default() -> Self {
        MskRcvSpace {
            ratio: DEFAULT_SCALING_RATIO,
            time: None,
            rtt_us8: 0,
        }
    }
}

impl MskRcvSpace {
    /// `msk->scaling_ratio`.
    #[inline]
    pub fn ratio(&self) -> u32 {
        self.ratio
    }

    /// `mptcp_rcv_space_init` at the connection's establishment
    /// (`mptcp_finish_connect` / `mptcp_sk_clone_init`): the first measure
    /// starts at the first subflow's `tcp_mstamp`.
    pub fn init(&mut self, now: Nanos) {
        if self.time.is_none() {
            self.time = Some(now);
        }
    }

    /// `mptcp_rcv_space_adjust` for a read that copied data. `subflows`
    /// yields each subflow's (`rcv_rtt_est.rtt_us`, `scaling_ratio`) over the
    /// connection's subflow list. Returns true when the ratio was re-read.
    ///
    /// The test that paces it is inlined (the segment path runs it for
    /// every read, `connection/segment.rs`); the measure, once per receive
    /// RTT, is `measure`.
    #[inline(always)]
    pub fn adjust(&mut self, now: Nanos, subflows: impl Iterator<Item = (u64, u32)>) -> bool {
        let start = *self.time.get_or_insert(now);
        let time_us = now.saturating_sub(start) / 1000;
        if self.rtt_us8 != 0 && time_us < self.rtt_us8 >> 3 {
            return false;
        }
        self.measure(now, time_us, subflows)
    }

    /// `adjust` once a receive RTT has passed (or none is known yet): the
    /// ratio and the RTT re-read from the subflows, a new measure begun.
    #[inline(never)]
    fn measure(
        &mut self,
        now: Nanos,
        time_us: u64,
        subflows: impl Iterator<Item = (u64, u32)>,
    ) -> bool {
        let (mut rtt, mut ratio) = (0u64, u8::MAX as u32);
        for (r, s) in subflows {
            rtt = rtt.max(r);
            ratio = ratio.min(s);
        }
        self.rtt_us8 = rtt;
        self.ratio = ratio;
        if time_us < rtt >> 3 || rtt == 0 {
            return true;
        }
        // new_measure (the locked buffer never grows: `mptcp_rcvbuf_grow`
        // returns false under SOCK_RCVBUF_LOCK)
        self.time = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn a_sample_needs_a_new_echo_and_a_full_segment() {
        let mut e = RcvRttEst::default();
        // shorter than rcv_mss: the echo is remembered, no sample
        e.on_data(400 * MS, 100 * MS, 16, 536);
        assert_eq!(e.rtt_us8, 0);
        // the same echo again: ignored even at full size
        e.on_data(401 * MS, 100 * MS, 1424, 536);
        assert_eq!(e.rtt_us8, 0);
        e.on_data(402 * MS, 101 * MS, 1424, 536);
        assert_eq!(e.rtt_us8, 301_000 << 3);
        // a smaller sample replaces, a larger one is averaged in at 1/8
        e.on_data(500 * MS, 250 * MS, 1424, 536);
        assert_eq!(e.rtt_us8, 250_000 << 3);
        e.on_data(700 * MS, 350 * MS, 1424, 536);
        assert_eq!(e.rtt_us8, (250_000 << 3) - 250_000 + 350_000);
    }

    #[test]
    fn the_ratio_is_read_again_only_after_a_receive_rtt() {
        let mut s = MskRcvSpace::default();
        s.init(0);
        // no receive RTT yet: every read takes the subflows' ratio
        assert!(s.adjust(10 * MS, [(0, 158)].into_iter()));
        assert_eq!(s.ratio(), 158);
        // a 300 ms receive RTT, 320 ms into the measure: a new measure
        assert!(s.adjust(320 * MS, [(300_000 << 3, 158), (0, 128)].into_iter()));
        assert_eq!(s.ratio(), 128);
        // within 300 ms of it the joined subflow's measured ratio is not seen
        assert!(!s.adjust(600 * MS, [(300_000 << 3, 158), (0, 158)].into_iter()));
        assert_eq!(s.ratio(), 128);
        assert!(s.adjust(620 * MS, [(300_000 << 3, 158), (0, 158)].into_iter()));
        assert_eq!(s.ratio(), 158);
    }
}
