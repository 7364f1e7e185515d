//! The sans-IO interface every transport endpoint implements (TCP, UDP, and
//! later MPTCP and SCTP), in the style of quinn-proto: the driver feeds in
//! packets and timeouts with the current time, and polls out packets to send,
//! the next timeout, and events for the application. An endpoint never reads a
//! clock and never does I/O, so the simulator and tests drive it alike.

use crate::packet::{Addr, Packet};
use crate::time::Nanos;

/// What an endpoint tells the application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppEvent {
    /// The connection is established (both sides may now send).
    Connected,
    /// In-order bytes handed to the application; `total` counts all bytes
    /// delivered so far on this connection (a cumulative stream offset).
    Delivered { total: u64 },
    /// A datagram arrived (UDP): its flow sequence number, length and the send
    /// time stamped by the sender.
    Datagram { seq: u64, len: u32, sent_at: Nanos },
    /// A complete message handed to the application (SCTP): `offset` is its
    /// position in the sender's written byte stream. Needed for unordered
    /// delivery, where messages complete out of stream order and
    /// `Delivered { total }` only counts bytes.
    Message { offset: u64, len: u64 },
    /// Space opened in the send buffer after `write` had refused bytes.
    Writable,
    /// The peer sent FIN: no more bytes will arrive.
    PeerClosed,
    /// The connection is fully closed (or was reset / gave up).
    Closed,
}

/// Counters every endpoint keeps per path (subflow, destination). They are
/// part of the result schema: every retransmission, probe and drop is counted.
///
/// Laid out by hand (`repr(C)`, docs/performance.md "Session 21"): the
/// eight counters a packet sent or received can move (packets, data
/// packets and bytes each way, and MPTCP's window overshoots and drops)
/// first, in 64 bytes, the counts of rarer events after them. In the
/// compiler's order the window counters sat 150 bytes behind the others,
/// a second cache line per segment at 10,000 connections. Rows name the
/// fields, so the order is not part of the result schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Counters {
    /// Segments / packets sent, including pure ACKs and control.
    pub packets_sent: u64,
    /// Packets sent that carried application payload (incl. retransmissions).
    pub data_packets_sent: u64,
    /// Payload bytes sent, including retransmitted bytes.
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub data_packets_received: u64,
    /// Payload bytes received (including duplicates).
    pub bytes_received: u64,
    /// MPTCP (Linux 6.18 model): new data segments handed to this subflow
    /// past every right edge (DATA_ACK + window) the receiver had announced
    /// (`MetaSend::overshoots`).
    pub wnd_overshoots: u64,
    /// MPTCP (Linux 6.18 model): segments that arrived on this subflow out
    /// of order at connection level past the receiver's announced edge and
    /// were dropped (`MetaRecv::with_window_drop`, the kernel's
    /// `MPTcpExtNoDSSInWindow`).
    pub wnd_drops: u64,
    /// Payload bytes retransmitted (any cause).
    pub bytes_retransmitted: u64,
    /// Retransmissions by cause.
    pub retrans_fast: u64,
    pub retrans_rto: u64,
    pub retrans_tlp: u64,
    /// Retransmissions later found unnecessary (DSACK or timestamps, RFC 3708 / Eifel).
    pub retrans_spurious: u64,
    /// Retransmission timeouts.
    pub rto_events: u64,
    /// Tail loss probes sent (RFC 8985 section 7).
    pub tlp_probes: u64,
    /// Fast-recovery episodes entered.
    pub recoveries: u64,
    /// Duplicate ACKs received.
    pub dup_acks: u64,
    /// Out-of-order segments received.
    pub ooo_segments: u64,
    /// Bytes re-sent on another path by a multipath protocol (MPTCP
    /// reinjection, CMT-SCTP chunk rescheduling).
    pub bytes_reinjected: u64,
    /// Extra bytes sent by multipath probes (MPTCP-level TLP).
    pub bytes_probe_extra: u64,
    /// Times the multipath scheduler penalised this path.
    pub penalizations: u64,
    /// MPTCP (Linux 6.18 model): pieces re-sent on this subflow by the
    /// connection-level retransmission timer (`__mptcp_retrans`, one per
    /// `mptcp_sendmsg_frag`: the kernel's `MPTcpExtMPTCPRetrans`); the data
    /// re-pushed after a subflow turned stale is not among them (it goes
    /// through `__mptcp_push_pending`), only in `bytes_reinjected`.
    pub msk_retrans: u64,
}

impl Counters {
    /// Add another set of counters field by field.
    pub fn add(&mut self, o: &Counters) {
        self.packets_sent += o.packets_sent;
        self.data_packets_sent += o.data_packets_sent;
        self.bytes_sent += o.bytes_sent;
        self.bytes_retransmitted += o.bytes_retransmitted;
        self.packets_received += o.packets_received;
        self.data_packets_received += o.data_packets_received;
        self.bytes_received += o.bytes_received;
        self.retrans_fast += o.retrans_fast;
        self.retrans_rto += o.retrans_rto;
        self.retrans_tlp += o.retrans_tlp;
        self.retrans_spurious += o.retrans_spurious;
        self.rto_events += o.rto_events;
        self.tlp_probes += o.tlp_probes;
        self.recoveries += o.recoveries;
        self.dup_acks += o.dup_acks;
        self.ooo_segments += o.ooo_segments;
        self.bytes_reinjected += o.bytes_reinjected;
        self.bytes_probe_extra += o.bytes_probe_extra;
        self.penalizations += o.penalizations;
        self.wnd_overshoots += o.wnd_overshoots;
        self.wnd_drops += o.wnd_drops;
        self.msk_retrans += o.msk_retrans;
    }
}

/// Snapshot of one path's sender state, for cwnd/ssthresh/srtt time series.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathState {
    pub local: Addr,
    pub remote: Addr,
    pub cwnd_bytes: u64,
    /// `u64::MAX` while ssthresh is still "infinite".
    pub ssthresh_bytes: u64,
    pub srtt: Nanos,
    pub inflight_bytes: u64,
}

/// Per-path view of an endpoint for the results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathReport {
    pub local: Addr,
    pub remote: Addr,
    pub counters: Counters,
}

/// Connection-level reordering measurements of a multipath receiver (seed
/// 002's out-of-order delay): per delivered segment the time it waited in the
/// connection-level out-of-order queue (0 when it arrived in order), and the
/// total time during which the receiver held data behind a missing one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OfoStats {
    pub delays: crate::delay_stats::DelayStats,
    pub hol_time: Nanos,
}

/// A transport endpoint (one side of one flow).
pub trait Endpoint {
    /// Start an active open (client side). Passive endpoints never get this
    /// call and wait for the peer's first packet.
    fn connect(&mut self, now: Nanos);

    /// A packet for this endpoint arrived.
    fn handle_packet(&mut self, now: Nanos, pkt: &Packet);

    /// The next packet to send now, if any. The driver calls this until it
    /// returns `None` after every other call.
    fn poll_transmit(&mut self, now: Nanos) -> Option<Packet>;

    /// `poll_transmit` writing the packet over `*slot` (the engine passes
    /// a slot of its packet pool): true if there was one; on false `*slot`
    /// is left as it was. The same packets in the same order as
    /// `poll_transmit`. It spares the 128-byte copy from the returned value
    /// into the pool on every packet sent (docs/performance.md "Session 26
    /// pass: the sent packet built in its slot").
    ///
    /// `*slot` owns nothing on the heap (`Packet::owns_heap`): the packet
    /// is written over it without a drop (`Packet::overwrite_plain_with`;
    /// checked builds assert it). The engine's pool cleans a freed slot
    /// before it makes it the vacant one, once an endpoint that
    /// `may_send_owning` is in the world.
    fn poll_transmit_into(&mut self, now: Nanos, slot: &mut Packet) -> bool;

    /// Whether a packet this endpoint sends may own memory on the heap
    /// (`Packet::owns_heap`: an SCTP packet's chunks, the MPTCP signalling
    /// options of a TCP segment). Only then does the engine's packet pool
    /// test each packet it frees for memory to drop
    /// (`Endpoint::poll_transmit_into`); true unless the type says
    /// otherwise.
    fn may_send_owning(&self) -> bool {
        true
    }

    /// Earliest time at which `handle_timeout` must be called, if any.
    fn poll_timeout(&self) -> Option<Nanos>;

    /// A timer expired (the driver may call this early or spuriously; the
    /// endpoint checks which of its timers are due).
    fn handle_timeout(&mut self, now: Nanos);

    /// The next event for the application, if any.
    fn poll_event(&mut self) -> Option<AppEvent>;

    /// `poll_event`, and when it has no event, `poll_timeout` as it is
    /// then. The engine drains an endpoint's events and then asks for its
    /// timer with this alone, a dynamic call fewer per drain than
    /// `poll_event` until `None` and `poll_timeout` (docs/performance.md
    /// "Session 32 pass: the engine's per-event cost"). The default calls
    /// the two; the types the engine polls most (TCP, UDP, MPTCP) answer
    /// inline.
    fn poll_event_or_timeout(&mut self) -> Result<AppEvent, Option<Nanos>> {
        match self.poll_event() {
            Some(e) => Ok(e),
            None => Err(self.poll_timeout()),
        }
    }

    /// The application writes `len` bytes; returns how many the send buffer
    /// accepted (the rest must be written again after `AppEvent::Writable`).
    fn write(&mut self, now: Nanos, len: u64) -> u64;

    /// Bytes the send buffer can accept now.
    fn send_space(&self) -> u64;

    /// The largest message one send call may carry, for message-oriented
    /// sockets that refuse larger ones outright (SCTP: `EMSGSIZE`);
    /// `None` for byte streams (TCP, MPTCP), which take any write in
    /// pieces, and for UDP, whose callers split messages into datagrams.
    fn max_message(&self) -> Option<u64> {
        None
    }

    /// The application has nothing more to send (FIN after queued data).
    fn close(&mut self, now: Nanos);

    /// Counters per path (one entry for a single-path protocol).
    fn paths(&self) -> Vec<PathReport>;

    /// Sender state per path, for time series.
    fn path_states(&self) -> Vec<PathState>;

    /// Connection-level reordering measurements (multipath receivers only).
    fn ofo_stats(&self) -> Option<OfoStats> {
        None
    }

    /// Why this endpoint gave the connection up, if it did: a limit of
    /// retransmissions the protocol defines was exceeded. `tcp_syn_retries`
    /// (Linux, TCP and MPTCP's initial subflow: never established),
    /// `sctp_max_init_retransmits` (RFC 9260 5.1),
    /// `sctp_association_max_retrans` (8.1), `sctp_shutdown_max_retrans`
    /// (9.2). Spec behaviour, not a model error, but the transfer then never
    /// completes, so the run reports it (summary `connections_aborted` and
    /// `connections_aborted.REASON`).
    fn gave_up(&self) -> Option<&'static str> {
        None
    }
}

#[cfg(test)]
mod layout_tests {
    use super::Counters;
    use std::mem::offset_of;

    /// docs/performance.md "Session 21": the counters a packet moves fill
    /// the first 64 bytes.
    #[test]
    fn the_per_packet_counters_fill_the_first_64_bytes() {
        for o in [
            offset_of!(Counters, packets_sent),
            offset_of!(Counters, data_packets_sent),
            offset_of!(Counters, bytes_sent),
            offset_of!(Counters, packets_received),
            offset_of!(Counters, data_packets_received),
            offset_of!(Counters, bytes_received),
            offset_of!(Counters, wnd_overshoots),
            offset_of!(Counters, wnd_drops),
        ] {
            assert!(o < 64, "offset {o}");
        }
    }
}
