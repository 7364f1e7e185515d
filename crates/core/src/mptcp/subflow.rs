//! One MPTCP subflow: a TCP `PathSender` + `PathReceiver` pair (the same
//! machinery as the single-path socket, see `tcp/mod.rs`), its 4-tuple, its
//! handshake state, and the DSS mappings of what it carries (RFC 8684 3.3.1:
//! subflow sequence numbers -> data sequence numbers).

use std::collections::VecDeque;

use crate::packet::{Addr, FlowId, Packet, Payload, TcpSegment};
use crate::tcp::sndwnd::SndWnd;
use crate::tcp::{PathReceiver, PathSender, TcpConfig};
use crate::time::Nanos;

use super::seqmap::SeqMap;
use super::skbq::SkbQueue;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SfState {
    /// Client: SYN (MP_CAPABLE or MP_JOIN) sent.
    SynSent,
    /// Server: SYN received, SYN-ACK to (re)send.
    SynRcvd,
    /// MP_JOIN initiator after the third ACK: waits for the peer's ACK of it
    /// before sending data (RFC 8684 3.2, Linux `pre_established`).
    PreEstablished,
    Established,
    /// Closed by REMOVE_ADDR (RFC 8684 3.4.2): sends and receives nothing.
    Closed,
}

/// A mapping of subflow bytes to DSNs, one per segment (RFC 8684 3.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub sseq: u64,
    pub dsn: u64,
    pub len: u32,
}

/// Laid out by hand (`repr(C)`, docs/performance.md "Session 18"): the
/// fields every arriving segment reads on each subflow it tries
/// (`matches`: addresses and ports) and `poll_timeout` folds (`syn_timer`)
/// first, then the sender, whose own hot fields lead it, and the receiver.
///
/// Aligned to a cache line, and its parts placed on line boundaries
/// (docs/performance.md "Session 32"): the subflows lie in one vector,
/// which the allocator aligned to 16 bytes only, so the record's first
/// 64 bytes, and every group after them, mostly straddled one line more
/// than they fill. The head is 64 bytes (`syn_sent_at`, read only by the
/// handshake, fills it), so the sender starts a line; the window every
/// segment reads (`snd_wnd`) and the `tx_maps` header every ACK prunes
/// fill the line the sender ends in, so the receiver starts one too; the
/// send queue's skbs (`prune_maps` reads their headers per ACK) and what
/// only a data segment reads besides the receiver (`rcv_rtt`, the
/// `rx_maps` header) follow it, the latter two in the record's last line.
/// 2,048 bytes, as before.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Subflow {
    pub syn_timer: Option<Nanos>,
    /// Stable id (index in the connection's subflow list), < 64.
    pub id: usize,
    pub syn_sent_at: Nanos,
    pub local: Addr,
    pub remote: Addr,
    /// Linux `tp->mss_cache` (`tcp_sync_mss`): the negotiated MSS less the
    /// timestamp option only. `snd.mss` is `tcp_current_mss`, which also
    /// takes off the DSS an MPTCP data segment carries; the pacing rate
    /// (`tcp_update_pacing_rate`) and with it the scheduler's linger time
    /// and the skb autosize count in `mss_cache`.
    pub mss_cache: u32,
    pub syn_retx: u32,
    pub lport: u16,
    pub rport: u16,
    /// The peer's address id of this subflow's remote address (0 for the
    /// initial subflow, the MP_JOIN's or ADD_ADDR's id otherwise), which a
    /// REMOVE_ADDR names.
    pub remote_id: Option<u8>,
    pub state: SfState,
    /// The MP_CAPABLE (first) subflow.
    pub initial: bool,
    /// Backup priority (MP_JOIN backup bit / MP_PRIO), either direction.
    pub backup: bool,
    /// Potentially failed after an RTO (v0.9x `tp->pf`), cleared by ACK progress.
    pub pf: bool,
    pub syn_pending: bool,
    /// An ACK carrying MP_CAPABLE keys / MP_JOIN third ACK must go out.
    pub third_ack_pending: bool,
    /// MP_PRIO to send on this subflow (RFC 8684 3.3.8): its new backup flag.
    pub prio_pending: Option<bool>,
    /// `push_queued` has queued data in `skbs` (the upstream scheduler's
    /// send buffers): until then the queue is empty, and `prune_maps` does
    /// not read its headers, two lines at the record's end, on every ACK
    /// (docs/performance.md "Session 32").
    skbs_used: bool,
    pub snd: PathSender,
    /// The subflow's TCP `snd_wnd`/`snd_wl1` from the windows its ACKs
    /// carry (the connection's window, relative to the DATA_ACK), for the
    /// connection's send edge (`MetaSend::with_kernel_wnd_edge`); `snd`
    /// itself runs with an unlimited window.
    pub snd_wnd: SndWnd,
    /// Mappings of data handed to the sender, not yet acked at subflow level.
    pub tx_maps: VecDeque<Mapping>,
    pub rcv: PathReceiver,
    /// The skbs of the send queue, for `sk_wmem_queued` (upstream
    /// scheduler with per-subflow send buffers only, `push_queued`).
    pub skbs: SkbQueue,
    /// `tp->rcv_rtt_est` from the timestamps of received data, which the
    /// connection's `mptcp_rcv_space_adjust` paces itself by (`rcv_space.rs`).
    pub rcv_rtt: super::rcv_space::RcvRttEst,
    /// Received mappings waiting for subflow-level in-order delivery:
    /// subflow sequence -> (DSN, length).
    pub rx_maps: SeqMap<(u64, u32)>,
    pub syn_rto: Nanos,
    /// Invariant `mptcp-dss-mapping` over every mapping received (zero-sized
    /// unless checks are on; last, so that the layout above is the same
    /// with them).
    pub rx_map_check: crate::invariants::MappingCheck,
}

impl Subflow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: usize,
        cfg: &TcpConfig,
        snd: PathSender,
        local: Addr,
        lport: u16,
        remote: Addr,
        rport: u16,
        state: SfState,
    ) -> Self {
        let mut rcv_cfg = cfg.clone();
        // The subflow's own receiver never limits: the connection-level
        // window is what every subflow advertises (RFC 8684 3.3.5).
        rcv_cfg.rcvbuf = 1 << 40;
        Subflow {
            id,
            local,
            lport,
            remote,
            rport,
            state,
            mss_cache: snd.mss,
            snd,
            snd_wnd: SndWnd::default(),
            rcv: {
                // ... but its window grows as a subflow socket's does, with
                // the connection's buffer (Linux copies SO_RCVBUF to every
                // subflow, `mptcp_sol_socket_sync_intval`)
                let mut r = PathReceiver::new(&rcv_cfg);
                r.set_sock_rcvbuf(cfg, cfg.rcvbuf);
                r
            },
            initial: id == 0,
            backup: false,
            pf: false,
            tx_maps: VecDeque::new(),
            skbs: SkbQueue::default(),
            rx_maps: SeqMap::new(),
            rx_map_check: Default::default(),
            syn_pending: false,
            syn_sent_at: 0,
            syn_timer: None,
            syn_rto: cfg.rto_initial,
            syn_retx: 0,
            third_ack_pending: false,
            prio_pending: None,
            remote_id: None,
            rcv_rtt: Default::default(),
            skbs_used: false,
        }
    }

    pub fn established(&self) -> bool {
        self.state == SfState::Established
    }

    pub fn matches(&self, pkt: &Packet, seg: &TcpSegment) -> bool {
        pkt.dst == self.local
            && pkt.src == self.remote
            && seg.dst_port == self.lport
            && seg.src_port == self.rport
    }

    pub fn new_packet(&self, flow: FlowId) -> Packet {
        Packet {
            src: self.local,
            dst: self.remote,
            flow,
            size: 0,
            payload: Payload::Tcp(TcpSegment::new(self.lport, self.rport)),
        }
    }

    /// Hand one segment's worth of connection data to this subflow.
    pub fn push(&mut self, dsn: u64, len: u32) {
        let sseq = self.snd.write_seq;
        self.snd.push_data(len as u64);
        self.tx_maps.push_back(Mapping { sseq, dsn, len });
    }

    /// Queue one more segment's worth behind data not yet sent (upstream
    /// scheduler with per-subflow send buffers). Where the kernel appends
    /// the data to the unsent tail skb (`mptcp_sendmsg_frag`, see
    /// `super::skbq`), that skb's mapping grows (`mpext->data_len +=
    /// copy`) and TCP's segments run on across the write boundary; the
    /// last mapping here grows likewise when none of it is transmitted yet.
    /// Elsewhere the boundary is kept, so a transmitted segment never spans
    /// two mappings (the kernel starts a new skb there).
    pub fn push_queued(&mut self, dsn: u64, len: u32) {
        let goal = super::sndbuf::xmit_size_goal(self.snd.mss);
        let sseq = self.snd.write_seq;
        self.skbs_used = true;
        let joined = self.skbs.entail(sseq, dsn, len, goal);
        let nxt = self.snd.snd_nxt;
        if joined > 0 {
            if let Some(m) = self.tx_maps.back_mut().filter(|m| {
                m.sseq + m.len as u64 == sseq && m.dsn + m.len as u64 == dsn && nxt <= m.sseq
            }) {
                m.len += joined as u32;
                self.snd.push_data(joined);
                if joined == len as u64 {
                    return;
                }
                self.snd.chunk_ends.push_back(sseq + joined);
                self.push(dsn + joined, len - joined as u32);
                return;
            }
        }
        if self.snd.unsent() > 0 {
            self.snd.chunk_ends.push_back(sseq);
        }
        self.push(dsn, len);
    }

    /// The mapping covering subflow sequence `sseq`.
    #[inline(always)]
    pub fn map_of(&self, sseq: u64) -> Option<Mapping> {
        // Mappings tile the subflow sequence space in order, and a new
        // transmission is covered by the last one: try it before searching
        // (inlined into the per-packet path; the search is not).
        if let Some(m) = self.tx_maps.back() {
            if m.sseq <= sseq && sseq < m.sseq + m.len as u64 {
                return Some(*m);
            }
        }
        self.search_map(sseq)
    }

    /// `map_of` off the fast path: binary search over the mappings.
    fn search_map(&self, sseq: u64) -> Option<Mapping> {
        let i = self
            .tx_maps
            .partition_point(|m| m.sseq + m.len as u64 <= sseq);
        self.tx_maps.get(i).copied().filter(|m| m.sseq <= sseq)
    }

    /// Forget mappings acked at subflow level. Always inlined into its one
    /// caller, the segment path inlined into `handle_packet` (LLVM kept it
    /// out of line there: a call per ACK).
    #[inline(always)]
    pub fn prune_maps(&mut self) {
        let una = self.snd.snd_una;
        // (only `push_queued` fills `skbs`: `entail` is its only producer)
        if self.skbs_used {
            self.skbs.on_ack(una);
        }
        while let Some(m) = self.tx_maps.front() {
            if m.sseq + m.len as u64 <= una {
                self.tx_maps.pop_front();
            } else {
                break;
            }
        }
    }
}

pub fn seg_mut(p: &mut Packet) -> &mut TcpSegment {
    match &mut p.payload {
        Payload::Tcp(s) => s,
        _ => unreachable!("MPTCP subflows build TCP packets"),
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use crate::tcp::receiver::PathReceiver;
    use crate::tcp::PathSender;
    use std::mem::offset_of;

    /// The hand-made layouts (docs/performance.md "Session 18"): what a
    /// segment reads on every subflow it tries leads the subflow, the
    /// sender's idle-ACK fields and its small fields lead the sender, the
    /// receiver's in-order state leads the receiver.
    #[test]
    fn the_per_packet_fields_lead_their_records() {
        assert!(offset_of!(Subflow, rport) < 64);
        assert!(offset_of!(Subflow, state) < 64);
        // (the head is one line: the sender starts the next)
        assert_eq!(offset_of!(Subflow, snd), 64);
        assert_eq!(offset_of!(PathSender, snd_una), 0);
        assert!(offset_of!(PathSender, packets_out) < offset_of!(PathSender, rtt));
        assert!(offset_of!(PathSender, owner_has_data) < offset_of!(PathSender, rtt));
        assert!(offset_of!(PathSender, cc_state) < offset_of!(PathSender, packets_out));
        assert_eq!(offset_of!(PathReceiver, rcv_nxt), 0);
        assert!(offset_of!(PathReceiver, delack_deadline) < 64);
        assert!(offset_of!(PathReceiver, ts_ok) < offset_of!(PathReceiver, rcv_mss) + 64);
        // docs/performance.md "Session 32": the record, its sender and its
        // receiver start cache lines; the sender's last line holds the
        // window and the `tx_maps` header, the record's last line what a
        // data segment reads besides the receiver
        assert_eq!(std::mem::align_of::<Subflow>(), 64);
        if !crate::invariants::ENABLED {
            assert_eq!(std::mem::size_of::<Subflow>(), 2048);
        }
        let line = |o: usize| o / 64;
        let (snd, rcv) = (offset_of!(Subflow, snd), offset_of!(Subflow, rcv));
        assert_eq!(snd % 64, 0, "sender at {snd}");
        assert_eq!(rcv % 64, 0, "receiver at {rcv}");
        let snd_end = snd + std::mem::size_of::<PathSender>() - 1;
        for o in [
            offset_of!(Subflow, snd_wnd),
            offset_of!(Subflow, tx_maps) + 31,
        ] {
            assert_eq!(
                line(o),
                line(snd_end),
                "offset {o}, sender ends at {snd_end}"
            );
        }
        // ... and the sender's eight per-packet counters fill one line (in
        // checked builds too: `tso_skb_stale` sits in the sender's padding)
        assert_eq!((snd + offset_of!(PathSender, counters)) % 64, 0);
        assert!(offset_of!(Subflow, skbs_used) < 64);
        // (checked builds add the invariant checker's fields to the
        // receiver, `invariants::ENABLED`: the tail moves, as the size does)
        if !crate::invariants::ENABLED {
            let last = line(offset_of!(Subflow, syn_rto));
            assert_eq!(last, 2048 / 64 - 1);
            for o in [
                offset_of!(Subflow, rcv_rtt),
                offset_of!(Subflow, rx_maps) + 31,
            ] {
                assert_eq!(line(o), last, "offset {o}");
            }
        }
    }
}

#[cfg(test)]
mod skbs_tests {
    use super::*;
    use crate::packet::addr;
    use crate::tcp::cc::CcKind;

    fn subflow() -> Subflow {
        let cfg = TcpConfig::default();
        let snd = PathSender::new(&cfg, CcKind::NewReno.build());
        Subflow::new(
            0,
            &cfg,
            snd,
            addr(10, 1, 0, 2),
            1000,
            addr(10, 0, 0, 2),
            80,
            SfState::Established,
        )
    }

    /// `prune_maps` skips the skb queue of a subflow that never queued
    /// (docs/performance.md "Session 32"), and still prunes one that did:
    /// the acknowledged skbs leave it.
    #[test]
    fn prune_maps_prunes_queued_skbs() {
        let mut sf = subflow();
        assert!(!sf.skbs_used);
        sf.push(1, 1000);
        sf.snd.snd_una = 1001;
        sf.prune_maps();
        assert!(sf.tx_maps.is_empty() && sf.skbs.is_empty());
        sf.push_queued(1001, 1000);
        assert!(sf.skbs_used);
        assert_eq!(sf.skbs.len(), 1);
        sf.snd.snd_una = 2001;
        sf.prune_maps();
        assert!(sf.tx_maps.is_empty());
        assert_eq!(sf.skbs.len(), 0, "the acknowledged skb is pruned");
    }
}
