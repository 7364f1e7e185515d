//! MP_FASTCLOSE (RFC 8684 3.5): the application aborts the connection.
//!
//! Linux sends it from `mptcp_do_fastclose` when the socket is closed with
//! unread data or with `SO_LINGER` 0 (`mptcp_close` -> `__mptcp_close`):
//! every subflow is reset, and the RST carries MP_FASTCLOSE with the peer's
//! key (`mptcp_established_options_fastclose`, on a segment with RST set).
//! That is the RFC's option B ("RST on all subflows"); option A (an ACK with
//! MP_FASTCLOSE, then RSTs once the peer answers with RST) is not what
//! Linux does. The receiver that finds its own key in the option resets
//! the connection at once (`mptcp_incoming_options` sets `rcv_fastclose`,
//! `mptcp_check_fastclose` closes every subflow, the application gets
//! ECONNRESET). Both ends report the connection as given up with reason
//! `mp_fastclose` (`Endpoint::gave_up`, the results' `connections_aborted`).

use super::*;

impl MptcpConnection {
    /// The scenario's abort time (`MptcpConfig::fastclose_at`) came: reset
    /// every subflow, the RSTs carrying MP_FASTCLOSE (plain RST after a
    /// fallback to TCP), and stop. Cold: kept out of the per-event paths.
    #[cold]
    #[inline(never)]
    pub(super) fn fastclose(&mut self, now: Nanos) {
        let fast = self.mode == Mode::Mptcp;
        for i in 0..self.sfs.len() {
            if !matches!(
                self.sfs[i].state,
                SfState::Established | SfState::PreEstablished
            ) {
                continue;
            }
            self.build_ack(i, now);
            let Some(p) = self.out.back_mut() else {
                continue;
            };
            let s = seg_mut(p);
            s.flags = flags::RST | flags::ACK;
            s.len = 0;
            s.set_sack_len(0);
            s.mptcp = fast.then(|| {
                MptcpOptions::with_control(MptcpControl {
                    fastclose: true,
                    ..Default::default()
                })
            });
            p.size = s.header_len(self.ip);
        }
        self.abort(if fast { "mp_fastclose" } else { "tcp_reset" });
    }

    /// A RST arrived on subflow `i`: with MP_FASTCLOSE the peer aborted the
    /// connection (RFC 8684 3.5), else only that subflow is reset.
    #[cold]
    #[inline(never)]
    pub(super) fn on_rst(&mut self, i: usize, seg: &TcpSegment) {
        if seg.mptcp.as_ref().is_some_and(|o| o.fastclose()) {
            self.abort("mp_fastclose");
        } else if self.mode == Mode::Fallback {
            self.abort("tcp_reset");
        } else {
            self.sfs[i].state = SfState::Closed;
        }
    }

    /// Close every subflow and report the connection reset (`why`).
    fn abort(&mut self, why: &'static str) {
        self.forget_all();
        for sf in &mut self.sfs {
            sf.state = SfState::Closed;
            sf.syn_pending = false;
            sf.syn_timer = None;
        }
        self.aborted = true;
        self.fin_timer = None;
        self.gave_up = Some(why);
        if !self.close_reported {
            self.close_reported = true;
            self.events.push_back(AppEvent::Closed);
        }
    }
}
