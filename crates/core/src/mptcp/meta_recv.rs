//! Connection-level ("meta") receive side: reassembly of the data stream
//! from all subflows by DSN (Linux v0.9x `mptcp_input.c`: `mptcp_ofo_queue`,
//! the meta receive queue), the shared receive window (RFC 8684 3.3.4/3.3.5:
//! one window for the connection, advertised on every subflow, relative to
//! the DATA_ACK) and the DATA_ACK itself.
//!
//! Measurements (seed 002): how long each segment waits in the
//! connection-level out-of-order queue, and the total head-of-line blocking
//! time (time during which data is held because an earlier DSN is missing).

use crate::delay_stats::DelayStats;
use crate::invariants::StreamCheck;
use crate::time::Nanos;

use super::seqmap::SeqMap;

/// Laid out by hand (`repr(C)`, docs/performance.md "Session 32"): what a
/// data segment and a segment built read (the next DSN, the window's
/// inputs, the drop counter, the DATA_FIN) fill the first 64 bytes; what
/// only an arriving data segment's in-order test and its delay sample read
/// (the out-of-order queue's header, `hol_since`, the delay statistics'
/// counts) the next 64. The connection places the record on a cache line
/// (`MptcpConnection`). The compiler's order had spread these over three
/// lines.
#[derive(Debug, Default)]
#[repr(C)]
pub struct MetaRecv {
    /// Next expected DSN: the DATA_ACK we send.
    pub rcv_nxt: u64,
    /// In-order bytes handed to the application.
    pub delivered: u64,
    /// Receive buffer (the application reads at once, so the window is the
    /// buffer minus out-of-order bytes).
    pub rcvbuf: u64,
    ofo_bytes: u64,
    /// Right edge of the largest window advertised (Linux
    /// `msk->rcv_wnd_sent`).
    rcv_wnd_sent: u64,
    /// Segments dropped past the window (`drop_past_wnd`; Linux
    /// `MPTcpExtNoDSSInWindow`).
    pub wnd_drops: u64,
    /// DSN of the peer's DATA_FIN, when seen.
    pub fin_dsn: Option<u64>,
    /// Out-of-order segments: start -> (end, arrival time).
    ofo: SeqMap<(u64, Nanos)>,
    /// When the current head-of-line blocking period began.
    hol_since: Option<Nanos>,
    /// Per delivered segment: time spent in the out-of-order queue (0 when
    /// it arrived in order), as streaming statistics (memory bounded in
    /// time). Its counts lead it (`DelayStats`), right after `hol_since`.
    pub ofo_delays: DelayStats,
    /// Total head-of-line blocking time.
    pub hol_time: Nanos,
    /// Segments that arrived out of order at connection level.
    pub ofo_segments: u64,
    pub fin_received: bool,
    /// Drop out-of-order data ending past `rcv_wnd_sent`
    /// (`with_window_drop`).
    drop_past_wnd: bool,
    /// Invariant `stream-in-order` by DSN (zero-sized unless checks are on).
    inv: StreamCheck,
}

/// What one mapped segment did at connection level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetaRx {
    pub delivered: u64,
    pub fin: bool,
}

impl MetaRecv {
    pub fn new(rcvbuf: u64) -> Self {
        MetaRecv {
            rcv_nxt: 1,
            rcvbuf,
            // `mptcp_finish_connect` / `mptcp_sk_clone`: the first edge
            // is the first expected DSN
            rcv_wnd_sent: 1,
            ..Default::default()
        }
    }

    /// Linux 6.18's receiver: `net/mptcp/protocol.c: mptcp_data_queue_ofo`
    /// drops a segment that arrives out of order and ends past the largest
    /// right edge announced (`msk->rcv_wnd_sent`, MIB
    /// `MPTCP_MIB_NODSSWINDOW`); in-order data (`__mptcp_move_skb`,
    /// `map_seq == ack_seq`) is taken whatever its end. The subflow has
    /// acknowledged the bytes already, so only the sender's
    /// connection-level retransmission (`__mptcp_retrans`) brings them
    /// again once the DATA_ACK reaches them.
    pub fn with_window_drop(mut self) -> Self {
        self.drop_past_wnd = true;
        self
    }

    /// The connection's buffer less its out-of-order bytes.
    pub fn window(&self) -> u64 {
        self.rcvbuf.saturating_sub(self.ofo_bytes)
    }

    /// A subflow offers window `w` relative to our DATA_ACK: returns the
    /// window to send, never moving the connection's right edge left
    /// (Linux `mptcp_set_rwin`: `msk->rcv_wnd_sent`, RFC 8684 3.3.5).
    pub fn advertise(&mut self, w: u64) -> u64 {
        let edge = self.rcv_nxt + w;
        if edge >= self.rcv_wnd_sent {
            self.rcv_wnd_sent = edge;
            w
        } else {
            self.rcv_wnd_sent - self.rcv_nxt
        }
    }

    pub fn ofo_bytes(&self) -> u64 {
        self.ofo_bytes
    }

    /// DATA_FIN at `dsn` (RFC 8684 3.3.3).
    pub fn on_data_fin(&mut self, dsn: u64) -> MetaRx {
        if self.fin_dsn.is_none() {
            self.fin_dsn = Some(dsn);
        }
        self.check_fin()
    }

    fn check_fin(&mut self) -> MetaRx {
        let mut r = MetaRx::default();
        if let Some(f) = self.fin_dsn {
            if !self.fin_received && self.rcv_nxt == f {
                self.fin_received = true;
                self.inv.fin("mptcp meta receiver", f);
                self.rcv_nxt += 1;
                r.fin = true;
            }
        }
        r
    }

    /// Bytes [dsn, dsn+len) arrived (in subflow order) on some subflow.
    ///
    /// Inlined for the common case, the next bytes in order that fill no
    /// gap before out-of-order data, no DATA_FIN seen (most segments of a
    /// transfer): `on_data_general`'s in-order steps with the ones that
    /// would do nothing left out. The out-of-order drain stops at its first
    /// test (the queue is empty, or its first entry starts past the new
    /// `rcv_nxt`); with the queue empty `hol_since` is none, so no
    /// head-of-line time ends (with entries queued none ends either);
    /// `check_fin` finds no DATA_FIN. The call and its prologue cost about
    /// as much as those steps (docs/performance.md "Session 31 pass").
    #[inline(always)]
    pub fn on_data(&mut self, now: Nanos, dsn: u64, len: u32) -> MetaRx {
        let end = dsn + len as u64;
        if dsn == self.rcv_nxt
            && len > 0
            && self.fin_dsn.is_none()
            && match self.ofo.first() {
                None => self.hol_since.is_none(),
                Some((s, _)) => s > end,
            }
        {
            let d = len as u64;
            self.rcv_nxt = end;
            self.ofo_delays.push(0);
            self.inv.deliver("mptcp meta receiver", dsn, d);
            self.delivered += d;
            return MetaRx {
                delivered: d,
                fin: false,
            };
        }
        self.on_data_general(now, dsn, len)
    }

    /// `on_data` in general (Linux `mptcp_data_queue_ofo` /
    /// `mptcp_ofo_queue` for bytes past the next expected DSN).
    #[inline(never)]
    fn on_data_general(&mut self, now: Nanos, dsn: u64, len: u32) -> MetaRx {
        let end = dsn + len as u64;
        if len == 0 || end <= self.rcv_nxt {
            return MetaRx::default();
        }
        if dsn > self.rcv_nxt {
            if self.drop_past_wnd && end > self.rcv_wnd_sent {
                self.wnd_drops += 1;
                return MetaRx::default();
            }
            // RFC 8684 3.3.4 / Linux mptcp_add_meta_ofo_queue.
            let (_, inserted) = self.ofo.get_or_insert_with(dsn, || (end, now));
            if inserted {
                self.ofo_bytes += len as u64;
                self.ofo_segments += 1;
                if self.hol_since.is_none() {
                    self.hol_since = Some(now);
                }
            }
            return MetaRx::default();
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        self.ofo_delays.push(0);
        // Drain the out-of-order queue (Linux mptcp_ofo_queue).
        while let Some((s, &(e, t))) = self.ofo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.ofo.pop_first();
            self.ofo_bytes -= e - s;
            if e > self.rcv_nxt {
                self.rcv_nxt = e;
                self.ofo_delays.push(now - t);
            }
        }
        if self.ofo.is_empty() {
            if let Some(t) = self.hol_since.take() {
                self.hol_time += now - t;
            }
        }
        let d = self.rcv_nxt - before;
        self.inv.deliver("mptcp meta receiver", before, d);
        self.delivered += d;
        let mut r = self.check_fin();
        r.delivered = d;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `on_data`'s inlined in-order case leaves the receiver exactly as
    /// `on_data_general` does: two receivers, one fed through `on_data`
    /// and one through `on_data_general`, take the same arrivals (in
    /// order, filling gaps, out of order, duplicates, old data, past the
    /// announced edge, a DATA_FIN) and agree on every answer and on their
    /// whole state (`Debug`) after each.
    #[test]
    fn the_inlined_in_order_case_is_the_general_one() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for drop in [false, true] {
            let (mut a, mut b) = (MetaRecv::new(200_000), MetaRecv::new(200_000));
            if drop {
                (a, b) = (a.with_window_drop(), b.with_window_drop());
            }
            let mut fast = 0;
            for k in 0..20_000u64 {
                let now = k * 7;
                if k % 50 == 0 {
                    assert_eq!(a.advertise(60_000), b.advertise(60_000));
                }
                let len = [0, 100, 1000, 1400][rnd(4) as usize] as u32;
                let dsn = match rnd(8) {
                    // the next bytes in order
                    0..=3 => a.rcv_nxt,
                    // ahead of a gap, or old data
                    4 | 5 => a.rcv_nxt + 100 * rnd(40),
                    6 => a.rcv_nxt.saturating_sub(100 * rnd(10)).max(1),
                    _ => a.rcv_nxt + 1000 * rnd(5),
                };
                fast += (dsn == a.rcv_nxt && len > 0 && a.ofo.is_empty()) as u32;
                let (ra, rb) = (a.on_data(now, dsn, len), b.on_data_general(now, dsn, len));
                assert_eq!(ra, rb, "arrival {k}: [{dsn}, +{len})");
                if k == 19_000 {
                    let f = a.rcv_nxt + 5000;
                    assert_eq!(a.on_data_fin(f), b.on_data_fin(f));
                }
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "arrival {k}");
            }
            assert!(fast > 1000, "{fast} in-order arrivals with nothing queued");
        }
    }

    #[test]
    fn reassembles_across_subflows_and_measures_ofo_delay() {
        let mut m = MetaRecv::new(100_000);
        assert_eq!(m.on_data(0, 1, 100).delivered, 100);
        // 201.. arrives first (fast subflow), 101.. 30 units later.
        assert_eq!(m.on_data(10, 201, 100).delivered, 0);
        assert_eq!(m.window(), 100_000 - 100);
        assert_eq!(m.on_data(12, 201, 100).delivered, 0, "duplicate copy");
        assert_eq!(m.on_data(40, 101, 100).delivered, 200);
        assert_eq!(m.rcv_nxt, 301);
        assert_eq!(m.ofo_delays.len(), 3);
        assert_eq!(m.ofo_delays.positive(), 1);
        assert_eq!(m.ofo_delays.max(), 30);
        assert_eq!(m.hol_time, 30);
        assert_eq!(m.on_data(50, 1, 100).delivered, 0, "old data");
        assert_eq!(m.window(), 100_000);
    }

    /// Linux 6.18 `mptcp_data_queue_ofo`: out-of-order data ending past
    /// the announced edge is dropped (`MPTcpExtNoDSSInWindow`), in-order
    /// data is taken whatever its end; the DATA_ACK stays below the hole
    /// until the data comes again.
    #[test]
    fn out_of_order_data_past_the_announced_edge_is_dropped() {
        let mut m = MetaRecv::new(100_000).with_window_drop();
        assert_eq!(m.advertise(1000), 1000); // edge 1001
        assert_eq!(m.on_data(0, 501, 500).delivered, 0, "ends at the edge");
        assert_eq!(m.on_data(0, 1001, 100).delivered, 0);
        assert_eq!(m.wnd_drops, 1, "ends past the edge");
        assert_eq!(m.ofo_bytes(), 500);
        // the hole fills: 1..1001 delivered, 1001..1101 missing still
        assert_eq!(m.on_data(5, 1, 500).delivered, 1000);
        assert_eq!(m.rcv_nxt, 1001);
        // in order, it is taken though it ends past the edge
        assert_eq!(m.on_data(9, 1001, 5000).delivered, 5000);
        assert_eq!(m.wnd_drops, 1);
        // without the drop the segment waits in the queue
        let mut p = MetaRecv::new(100_000);
        p.advertise(1000);
        p.on_data(0, 1001, 100);
        assert_eq!((p.ofo_bytes(), p.wnd_drops), (100, 0));
    }

    #[test]
    fn data_fin_after_the_last_byte() {
        let mut m = MetaRecv::new(1000);
        assert!(!m.on_data_fin(101).fin, "bytes 1..101 still missing");
        let r = m.on_data(5, 1, 100);
        assert!(r.fin && r.delivered == 100);
        assert_eq!(m.rcv_nxt, 102, "DATA_FIN takes one DSN");
    }
}

#[cfg(test)]
mod layout_tests {
    use super::MetaRecv;
    use std::mem::offset_of;

    /// docs/performance.md "Session 32": a data segment's and a built
    /// segment's fields in the first 64 bytes, the in-order test's and the
    /// delay sample's in the next 64.
    #[test]
    fn the_per_segment_fields_fill_two_lines() {
        for o in [
            offset_of!(MetaRecv, rcv_nxt),
            offset_of!(MetaRecv, delivered),
            offset_of!(MetaRecv, rcvbuf),
            offset_of!(MetaRecv, ofo_bytes),
            offset_of!(MetaRecv, rcv_wnd_sent),
            offset_of!(MetaRecv, wnd_drops),
            offset_of!(MetaRecv, fin_dsn) + 15,
        ] {
            assert!(o < 64, "offset {o}");
        }
        for o in [
            offset_of!(MetaRecv, ofo),
            offset_of!(MetaRecv, hol_since) + 15,
            offset_of!(MetaRecv, ofo_delays) + crate::delay_stats::COUNTS_END - 1,
        ] {
            assert!((64..128).contains(&o), "offset {o}");
        }
    }
}
