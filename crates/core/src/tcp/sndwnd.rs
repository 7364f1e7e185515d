//! The peer's window as a TCP sender takes it from ACKs: Linux
//! `net/ipv4/tcp_input.c: tcp_ack_update_window`, which updates `snd_wnd`
//! (and `snd_wl1`, the sequence number of the segment it came from,
//! `tcp_update_wl`) only when `tcp_may_update_window` accepts the ACK:
//!
//! - it acknowledges new data (`after(ack, snd_una)`), or
//! - its segment is newer than the one the window was last taken from
//!   (`after(ack_seq, snd_wl1)`), or
//! - it is the same segment number with a larger window, or a zero window
//!   (6.18: `nwin > snd_wnd || !nwin`).
//!
//! So an ACK that neither advances SND.UNA nor carries a newer sequence
//! number (a pure ACK of a receiver that sends no data, repeating its
//! acknowledgment) can grow the window but never shrink it.
//!
//! Plain TCP (`sender::PathSender::update_window`) takes every window: its
//! receiver never moves the right edge (ACK + window) left
//! (`tcp_select_window`), so on an ACK that does not advance SND.UNA the
//! window is the same and this rule would change nothing there. An MPTCP
//! subflow's window is the connection's, relative to the DATA_ACK (RFC 8684
//! 3.3.5), which moves while the subflow's ACK stands still; there the rule
//! keeps an older, larger window (`crate::mptcp::meta_send`).

/// `tp->snd_wnd` and `tp->snd_wl1` of one TCP sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SndWnd {
    /// The window last taken (bytes, scaled).
    pub wnd: u64,
    /// Sequence number of the segment it was taken from.
    wl1: u64,
}

impl SndWnd {
    /// `tcp_ack_update_window` for an ACK of `ack` (the sender's SND.UNA
    /// before it was `snd_una`) on a segment numbered `seq` carrying window
    /// `nwin`. Returns whether the window was taken (`FLAG_WIN_UPDATE`).
    /// The caller passes only ACKs `tcp_ack` processes (not older than
    /// SND.UNA, not beyond SND.NXT).
    pub fn on_ack(&mut self, ack: u64, snd_una: u64, seq: u64, nwin: u64) -> bool {
        // tcp_may_update_window
        let may =
            ack > snd_una || seq > self.wl1 || (seq == self.wl1 && (nwin > self.wnd || nwin == 0));
        if may {
            self.wl1 = seq;
            self.wnd = nwin;
        }
        may
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ack_that_does_not_advance_cannot_shrink_the_window() {
        let mut w = SndWnd::default();
        assert!(w.on_ack(1001, 1, 1, 50_000), "new data acked");
        // same ACK, same segment number, smaller window: ignored
        assert!(!w.on_ack(1001, 1001, 1, 40_000));
        assert_eq!(w.wnd, 50_000);
        // ... a larger one is taken
        assert!(w.on_ack(1001, 1001, 1, 60_000));
        assert_eq!(w.wnd, 60_000);
        // a zero window is taken (6.18's `!nwin`)
        assert!(w.on_ack(1001, 1001, 1, 0));
        assert_eq!(w.wnd, 0);
        w.on_ack(1001, 1001, 1, 60_000);
        // a newer segment number carries any window
        assert!(w.on_ack(1001, 1001, 2, 30_000));
        assert_eq!(w.wnd, 30_000);
        // an ACK that advances SND.UNA carries any window
        assert!(w.on_ack(2001, 1001, 2, 10_000));
        assert_eq!(w.wnd, 10_000);
    }
}
