//! Linux's delayed-ACK engine in jiffies: the ACK timeout `ato` adapted to
//! the data's inter-arrival time, quick ACKs after a long silence, and the
//! delayed-ACK timer on the timer wheel (net/ipv4/tcp_input.c
//! `tcp_event_data_recv`, net/ipv4/tcp_output.c `tcp_send_delayed_ack`,
//! net/ipv4/tcp_timer.c `tcp_delack_timer_handler`, Linux 6.18).
//!
//! All of it counts `tcp_jiffies32` on the modelled kernel's jiffy clock
//! (`TcpConfig::jiffy_clock`: CONFIG_HZ and its phase), as the kernel does:
//! `TCP_ATO_MIN` and `TCP_DELACK_MIN` are HZ/25 jiffies (40 ms),
//! `TCP_DELACK_MAX` HZ/5 (200 ms), and the timer fires on the wheel
//! (`timer_wheel`), one jiffy after its expiry at level 0.
//!
//! What the receiver reads of its own socket (`icsk_rto`, `srtt_us`) comes
//! with each segment ([`OwnRtt`]). Simplification: the delayed-ACK timer's
//! handler uses the value of the last data segment, not the one at its
//! expiry.

use crate::time::{Nanos, US};

use super::config::TcpConfig;
use super::timer_wheel::{self, JiffyClock};

/// The receiving socket's own RTO (`icsk_rto`, with its backoff) and
/// smoothed RTT (`srtt_us`, 0 before a sample), which the delayed-ACK
/// engine reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwnRtt {
    pub rto: Nanos,
    pub srtt: Nanos,
}

/// What `tcp_send_delayed_ack` decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delack {
    /// The pending timer was about to expire: ACK now.
    SendNow,
    /// The timer runs at this time (simulated).
    At(Nanos),
}

#[derive(Clone, Debug)]
pub struct DelackEngine {
    clock: JiffyClock,
    /// `TCP_ATO_MIN` = `TCP_DELACK_MIN` (`TcpConfig::delack_min`) and
    /// `TCP_DELACK_MAX` (`delack_max`, also `icsk_delack_max`), jiffies.
    ato_min: u32,
    delack_max: u32,
    /// `icsk_ack.ato`, jiffies; 0 until the first data segment.
    ato: u32,
    /// `icsk_ack.lrcvtime`, jiffies.
    lrcvtime: u32,
    /// `icsk_ack.timeout` while `ICSK_ACK_TIMER` is pending.
    timeout: Option<u32>,
    /// The last [`OwnRtt`] seen.
    own: OwnRtt,
}

impl DelackEngine {
    pub fn new(cfg: &TcpConfig) -> Self {
        let clock = cfg.jiffy_clock();
        let j = |d: Nanos| timer_wheel::to_jiffies(d, clock.hz) as u32;
        DelackEngine {
            clock,
            ato_min: j(cfg.delack_min).max(1),
            delack_max: j(cfg.delack_max).max(1),
            ato: 0,
            lrcvtime: 0,
            timeout: None,
            own: OwnRtt::default(),
        }
    }

    fn now_j(&self, now: Nanos) -> u32 {
        self.clock.jiffies(now) as u32
    }

    /// `icsk_rto` in jiffies (the model's RTO is whole jiffies already).
    fn rto_j(&self) -> u32 {
        timer_wheel::to_jiffies(self.own.rto, self.clock.hz).min(u32::MAX as u64) as u32
    }

    /// The ato in simulated time (`TcpConfig::delack_min` before data).
    pub fn ato(&self) -> Nanos {
        self.ato.max(self.ato_min) as Nanos * timer_wheel::jiffy(self.clock.hz)
    }

    /// `tcp_event_data_recv` for an in-order data segment at `now`: adapt
    /// `ato` to the gap since the last one. True when the caller does
    /// `tcp_incr_quickack`: the first data segment, and after a gap longer
    /// than the RTO ("Too long gap. Apparently sender failed to restart
    /// window, so that we send ACKs quickly."). (Forced inline into
    /// `PathReceiver::on_segment`, its one caller, on every in-order data
    /// segment: with `timer_wheel::per_jiffy` it went out of line, 11.6 M
    /// instructions own in the background cell against 8.7 M saved.)
    #[inline(always)]
    pub fn on_data(&mut self, now: Nanos, own: OwnRtt) -> bool {
        self.own = own;
        let now_j = self.now_j(now);
        let mut quick = false;
        if self.ato == 0 {
            quick = true;
            self.ato = self.ato_min;
        } else {
            let m = now_j.wrapping_sub(self.lrcvtime) as i32;
            if m <= (self.ato_min / 2) as i32 {
                // "The fastest case is the first."
                self.ato = (self.ato >> 1) + self.ato_min / 2;
            } else if m < self.ato as i32 {
                self.ato = (self.ato >> 1) + m as u32;
                self.ato = self.ato.min(self.rto_j());
            } else if m > self.rto_j() as i32 {
                quick = true;
            }
        }
        self.lrcvtime = now_j;
        quick
    }

    /// `tcp_enter_quickack_mode`: `icsk_ack.ato = TCP_ATO_MIN`.
    pub fn reset_ato(&mut self) {
        self.ato = self.ato_min;
    }

    /// `tcp_event_data_sent`: our data at `now` is a reply within `ato` of
    /// the last data received (`inet_csk_inc_pingpong_cnt`).
    pub fn reply_within_ato(&self, now: Nanos) -> bool {
        // (`ato` is 0 until data arrives, and no gap is below it: the
        // jiffy clock's divisions are skipped on a host that only sends,
        // at every segment it sends)
        self.ato != 0 && self.now_j(now).wrapping_sub(self.lrcvtime) < self.ato
    }

    /// `tcp_send_delayed_ack` at `now`; `pingpong` and `pushed`
    /// (`ICSK_ACK_PUSHED`) as the receiver has them. (Forced inline into
    /// the receiver's data path, which calls it on every second in-order
    /// data segment; the bound of an `ato` above its minimum, with its
    /// divisions, stays a call: `bounded_ato`.)
    #[inline(always)]
    pub fn schedule(&mut self, now: Nanos, pingpong: bool, pushed: bool) -> Delack {
        let mut ato = self.ato.max(self.ato_min);
        if ato > self.ato_min {
            ato = self.bounded_ato(ato, pingpong, pushed);
        }
        ato = ato.min(self.delack_max);
        // the jiffy count once, for the timeout and for the wheel
        let clk = self.clock.jiffies(now);
        let now_j = clk as u32;
        let mut timeout = now_j.wrapping_add(ato);
        if let Some(t) = self.timeout {
            // "If delack timer is about to expire, send ACK now."
            if (now_j.wrapping_add(ato >> 2).wrapping_sub(t) as i32) >= 0 {
                return Delack::SendNow;
            }
            if (timeout.wrapping_sub(t) as i32) >= 0 {
                timeout = t;
            }
        }
        self.timeout = Some(timeout);
        Delack::At(self.fires_at(clk, timeout))
    }

    /// `tcp_send_delayed_ack`'s bound of an `ato` above `TCP_ATO_MIN`: half
    /// a second, or `TCP_DELACK_MAX` in ping-pong mode or with
    /// `ICSK_ACK_PUSHED`, and the RTT if one is known.
    #[inline(never)]
    fn bounded_ato(&self, ato: u32, pingpong: bool, pushed: bool) -> u32 {
        let hz = self.clock.hz;
        let mut max_ato = hz / 2;
        if pingpong || pushed {
            max_ato = self.delack_max;
        }
        // "If some rtt estimate is known, use it to bound delayed ack."
        if self.own.srtt > 0 {
            let us = self.own.srtt / US;
            let rtt = (timer_wheel::to_jiffies(us * US, hz) as u32).max(self.ato_min);
            if rtt < max_ato {
                max_ato = rtt;
            }
        }
        ato.min(max_ato)
    }

    /// `sk_reset_timer(.., timeout)` at the jiffy `clk` (the jiffies count
    /// at `now`, `JiffyClock::jiffies`, which the caller has): when the
    /// wheel runs it. (Inline with `schedule`: left to the compiler, it
    /// became a call once `schedule` was forced inline.)
    #[inline(always)]
    fn fires_at(&self, clk: u64, timeout: u32) -> Nanos {
        let when = timeout.wrapping_sub(clk as u32) as i32;
        timer_wheel::expiry_at_jiffy(self.clock, clk, when.max(0) as u64)
    }

    /// `tcp_delack_timer_handler` at `now` with an ACK still scheduled:
    /// "Delayed ACK missed": outside ping-pong mode `ato` doubles (at most
    /// the RTO), in it `ato` goes back to `TCP_ATO_MIN` (the caller leaves
    /// ping-pong mode). `None`: the timer was re-armed for a later
    /// `icsk_ack.timeout` (returned).
    pub fn on_timer(&mut self, now: Nanos, pingpong: bool) -> Option<Nanos> {
        let t = self.timeout?;
        let clk = self.clock.jiffies(now);
        if (t.wrapping_sub(clk as u32) as i32) > 0 {
            return Some(self.fires_at(clk, t));
        }
        self.timeout = None;
        if !pingpong {
            self.ato = (self.ato.max(self.ato_min) << 1).min(self.rto_j().max(1));
        } else {
            self.ato = self.ato_min;
        }
        None
    }

    /// An ACK went out (`tcp_event_ack_sent` ->
    /// `inet_csk_clear_xmit_timer(ICSK_TIME_DACK)`): no timer pending.
    pub fn clear(&mut self) {
        self.timeout = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn engine(hz: u32, phase: Nanos) -> DelackEngine {
        DelackEngine::new(&TcpConfig {
            hz,
            hz_phase: phase,
            ..TcpConfig::default()
        })
    }

    const OWN: OwnRtt = OwnRtt {
        rto: 240 * MS,
        srtt: 50 * MS,
    };

    /// `tcp_event_data_recv`: the first segment and one after a gap longer
    /// than the RTO start quick ACKs; gaps of a 30 fps video's frames (33
    /// ms, 8 jiffies at HZ 250) raise ato from 10 to 13 jiffies.
    #[test]
    fn ato_follows_the_gaps_and_a_long_silence_starts_quick_acks() {
        let mut e = engine(250, 0);
        assert!(e.on_data(0, OWN));
        assert_eq!(e.ato, 10);
        // 4 ms later: ato / 2 + 5 = 10
        assert!(!e.on_data(4 * MS, OWN));
        assert_eq!(e.ato, 10);
        // a frame 33 ms later (8 jiffies < ato): 5 + 8
        assert!(!e.on_data(37 * MS, OWN));
        assert_eq!(e.ato, 13);
        // 240 ms: not more than the RTO (60 jiffies)
        assert!(!e.on_data(277 * MS, OWN));
        // 244 ms later: 61 jiffies > 60
        assert!(e.on_data(521 * MS, OWN));
    }

    /// `tcp_send_delayed_ack` on the wheel: ato 10 jiffies at HZ 250 from
    /// jiffy 0 expires at 10 and runs at 11 (44 ms), on the kernel's jiffy
    /// boundaries at the phase; a later call keeps the earlier timeout, and
    /// one within ato/4 of it ACKs at once.
    #[test]
    fn the_delayed_ack_runs_on_the_wheel_at_the_phase() {
        let mut e = engine(250, 0);
        e.on_data(0, OWN);
        assert_eq!(e.schedule(MS, false, false), Delack::At(44 * MS));
        let mut e = engine(250, 1_509_000);
        e.on_data(0, OWN);
        assert_eq!(
            e.schedule(MS, false, false),
            Delack::At(44 * MS - 1_509_000)
        );
        // 20 ms later (jiffy 5, timeout 10): 15 would be later, keeps 10
        assert_eq!(
            e.schedule(20 * MS, false, false),
            Delack::At(44 * MS - 1_509_000)
        );
        // jiffy 8 + ato/4 (2) >= 10: now
        assert_eq!(e.schedule(32 * MS, false, false), Delack::SendNow);
    }

    /// ato above `TCP_DELACK_MIN` is bounded by the SRTT (at least
    /// `TCP_DELACK_MIN`); a missed delayed ACK doubles ato up to the RTO.
    #[test]
    fn ato_is_bounded_by_the_srtt_and_inflated_by_a_missed_ack() {
        let mut e = engine(1000, 0);
        e.on_data(0, OWN);
        e.ato = 120;
        // min(120, srtt 50 -> max(50, 40)) = 50 jiffies: expires 50, level 0: 51
        assert_eq!(e.schedule(0, false, false), Delack::At(51 * MS));
        assert_eq!(e.on_timer(30 * MS, false), Some(51 * MS));
        assert_eq!(e.on_timer(51 * MS, false), None);
        assert_eq!(e.ato, 240);
        e.ato = 100;
        e.schedule(60 * MS, true, false);
        assert_eq!(e.on_timer(200 * MS, true), None);
        assert_eq!(e.ato, 40);
    }
}
