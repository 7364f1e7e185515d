use super::*;

impl PathSender {
    /// Congestion-control growth on an ACK (Linux tcp_may_raise_cwnd /
    /// tcp_cong_avoid): only outside Recovery/CWR, only for cumulatively
    /// ACKed data, and only when cwnd-limited (RFC 7661).
    #[inline]
    pub(super) fn raise_cwnd(
        &mut self,
        now: Nanos,
        acked_pkts: u32,
        delivered: u32,
        paths: Option<&[PathView]>,
    ) {
        if acked_pkts > 0
            && !matches!(self.cc_state.ca_state, CaState::Recovery | CaState::Cwr)
            && self.cwnd_limited()
        {
            self.sync_cc();
            // Without `paths`, the hook's view is `self.view()`: just
            // synced, `cc_state` holds its `in_flight` already (`SenderCc`
            // builds it from `cc_state`, and only for an algorithm that
            // reads it).
            debug_assert_eq!(self.cc_state.in_flight, self.in_flight());
            self.cc
                .cong_avoid(&mut self.cc_state, paths, delivered, now);
        }
    }

    /// Linux tcp_cwnd_restart (RFC 5681 4.1 / RFC 2861): after an idle
    /// period, halve cwnd once per RTO elapsed, down to the initial window.
    pub(super) fn cwnd_restart(&mut self, idle: Nanos) {
        let rto = self.rtt.rto().max(1);
        self.cc_state.ssthresh = self.current_ssthresh();
        let restart = self.initial_cwnd.min(self.cc_state.cwnd);
        let mut cwnd = self.cc_state.cwnd;
        let mut delta = idle as i128 - rto as i128;
        while delta > 0 && cwnd > restart {
            cwnd >>= 1;
            delta -= rto as i128;
        }
        self.cc_state.cwnd = cwnd.max(restart);
        self.cc_state.cwnd_cnt = 0;
    }

    /// The end of a sending pass (`next_tx` returns None). Linux
    /// `tcp_write_xmit` ends with `if (likely(sent_pkts ||
    /// is_cwnd_limited)) tcp_cwnd_validate(sk, is_cwnd_limited)`: a pass
    /// that sent no new data and found the window not full leaves the
    /// window's usage (`is_cwnd_limited`, `max_packets_out`,
    /// `cwnd_usage_seq`) as the last send set it (an ACK with nothing
    /// queued does not reach `tcp_write_xmit` at all: `tcp_push_pending_frames`
    /// needs a send head). The model validated on every poll, so an ACK that
    /// passed `cwnd_usage_seq` with nothing to send cleared
    /// `is_cwnd_limited`, and the following ACKs of an application-limited
    /// sender did not grow cwnd where the kernel's did (docs/validation.md,
    /// session 12: the video cell's Wi-Fi cwnd 4 -> 5 at 3.93 s instead of
    /// the kernel's 3.79 s).
    #[inline]
    pub(super) fn end_pass(&mut self, limited: bool) {
        if self.sent_in_pass || limited {
            self.cwnd_validate(limited);
        }
        self.sent_in_pass = false;
    }

    /// Linux tcp_cwnd_validate: track whether the window is actually used.
    #[inline]
    pub(super) fn cwnd_validate(&mut self, limited: bool) {
        if self.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.is_cwnd_limited && self.packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = limited;
            self.max_packets_out = self.packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// Linux tcp_is_cwnd_limited.
    pub(super) fn cwnd_limited(&self) -> bool {
        if self.cc_state.in_slow_start() {
            return self.cc_state.cwnd < 2 * self.max_packets_out;
        }
        self.is_cwnd_limited
    }
}
