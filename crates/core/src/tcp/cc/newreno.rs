//! NewReno (RFC 5681 increase/decrease, RFC 6582 recovery lives in the
//! sender). Linux tcp_reno_cong_avoid / tcp_reno_ssthresh.

use super::{cong_avoid_ai, slow_start, CcState, CongestionControl, PathView};
use crate::time::Nanos;

#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    /// RFC 5681 (4): ssthresh = max(FlightSize/2, 2*SMSS). Linux
    /// tcp_reno_ssthresh uses cwnd instead of FlightSize: max(cwnd/2, 2).
    fn ssthresh(&mut self, s: &CcState, _paths: &[PathView], _now: Nanos) -> u32 {
        (s.cwnd >> 1).max(2)
    }

    fn cong_avoid(&mut self, s: &mut CcState, _paths: &[PathView], acked: u32, _now: Nanos) {
        let mut acked = acked;
        // RFC 5681 3.1: slow start while cwnd < ssthresh.
        if s.in_slow_start() {
            acked = slow_start(s, acked);
            if acked == 0 {
                return;
            }
        }
        // RFC 5681 (3): cwnd += SMSS*SMSS/cwnd per ACK, i.e. +1 packet per cwnd acked.
        let w = s.cwnd;
        cong_avoid_ai(s, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_state;
    use super::*;

    #[test]
    fn slow_start_then_linear() {
        let mut cc = NewReno;
        let mut s = test_state(10, 20);
        let v = [PathView::of(&s)];
        // slow start: +1 per packet acked: 10 -> 20 after 10 ACKs
        for _ in 0..10 {
            cc.cong_avoid(&mut s, &v, 1, 0);
        }
        assert_eq!(s.cwnd, 20);
        // CA: +1 per 20 acked -> after 20 ACKs cwnd 21, cnt 0
        for _ in 0..20 {
            cc.cong_avoid(&mut s, &v, 1, 0);
        }
        assert_eq!((s.cwnd, s.cwnd_cnt), (21, 0));
        // next 21 ACKs -> 22
        for _ in 0..21 {
            cc.cong_avoid(&mut s, &v, 1, 0);
        }
        assert_eq!(s.cwnd, 22);
        // halve: 22/2 = 11
        assert_eq!(cc.ssthresh(&s, &v, 0), 11);
        s.cwnd = 3;
        assert_eq!(cc.ssthresh(&s, &v, 0), 2);
    }
}
