use super::*;

impl SctpAssociation {
    /// Progress per destination: cumulative ack (RFC) or pseudo-cumulative (CUC).
    /// `low_before`/`low_after`: lowest outstanding TSN per destination
    /// before and after the SACK.
    #[inline]
    pub(super) fn cwnd_progress(
        &self,
        low_before: &[Option<u64>],
        low_after: &[Option<u64>],
        cum_advanced: bool,
    ) -> Vec<bool> {
        let n = self.paths.len();
        (0..n)
            .map(|i| {
                let pseudo = low_before[i].is_some() && low_before[i] != low_after[i];
                if self.cfg.cmt && self.cfg.cuc {
                    pseudo
                } else {
                    cum_advanced
                }
            })
            .collect()
    }

    /// Fast recovery exit (section 7.2.4: when the cum ack reaches the exit point).
    #[inline]
    pub(super) fn exit_fast_recovery(&mut self) {
        for p in &mut self.paths {
            if let Some(x) = p.fast_recovery_exit {
                if self.peer_cum.is_some_and(|c| c >= x) {
                    p.fast_recovery_exit = None;
                }
            }
        }
    }

    /// Congestion window updates (section 7.2.1, 7.2.2 via
    /// `congestion::on_ack`), and the partial-bytes-acked reset of an
    /// idle destination.
    #[inline]
    pub(super) fn update_cwnds(&mut self, acked_bytes: &[u64], progress: &[bool]) {
        let n = self.paths.len();
        for i in 0..n {
            if acked_bytes[i] > 0 {
                on_ack(
                    &mut self.paths,
                    i,
                    acked_bytes[i],
                    progress[i],
                    self.cfg.mtu,
                    self.cfg.cc,
                );
            }
            if self.paths[i].flight == 0 && !self.rtx_queue.iter().any(|t| self.sent[t].path == i) {
                self.paths[i].pba = 0;
            }
        }
    }
}
