//! An MPTCP connection (RFC 8684) as a sans-IO `Endpoint`, modelled on the
//! Linux out-of-tree implementation v0.89-v0.96 (`net/mptcp/mptcp_ctrl.c`,
//! `mptcp_input.c`, `mptcp_output.c`).
//!
//! Structure (one concern per file):
//! - `subflow`: per-subflow `PathSender` + `PathReceiver` (the TCP machinery),
//!   4-tuple, handshake state, DSS mappings;
//! - `meta_send`: connection send buffer, DSN allocation, DATA_ACK,
//!   reinjection queue; `meta_recv`: connection reassembly, shared window,
//!   out-of-order delay and head-of-line measurements;
//! - `connection/build.rs`: the packet builders (options, SYN, data, ACK,
//!   DATA_FIN) of this connection;
//! - `pm`: path managers; `cc`: coupled congestion controls (one instance
//!   per connection, shared by the subflows' senders); `sched`: schedulers.
//!
//! Life of a connection:
//! - The client sends SYN + MP_CAPABLE on its first address (the scenario's
//!   `transport.path`) to the server's first address (RFC 8684 3.1). A
//!   server configured as not MPTCP-capable answers without MP_CAPABLE and
//!   both ends fall back to plain TCP on that subflow (RFC 8684 3.7).
//! - Only once the connection is fully established (v0.9x path managers:
//!   `connection/full_estab.rs`; the in-kernel path manager: options.c
//!   `check_fully_established`, `pm_kernel.rs`) does the client's path
//!   manager open more subflows
//!   with MP_JOIN (RFC 8684 3.2); a joining subflow
//!   carries data after the 4th ACK (the ACK of the third ACK, Linux
//!   `pre_established`). A fullmesh server announces its other addresses with
//!   ADD_ADDR (RFC 8684 3.4.1).
//! - Data: the scheduler hands one segment at a time (<= MSS) to a subflow
//!   and the segment carries one DSS mapping (RFC 8684 3.3.1) plus the
//!   DATA_ACK; every subflow advertises the connection-level window
//!   (RFC 8684 3.3.5). DATA_FIN (RFC 8684 3.3.3) goes on a pure ACK once all
//!   data is handed out and is retransmitted until DATA_ACKed.
//! - Loss (v0.9x): fast retransmit and TLP stay on the subflow (its
//!   `PathSender`). On an RTO the subflow retransmits as TCP does, its
//!   unacknowledged data is queued for reinjection through the scheduler
//!   (`mptcp_reinject_data`, `__mptcp_reinject_data`) and it is marked
//!   potentially failed until an ACK makes progress (`tp->pf`). Optionally
//!   the MPTCP-level TLP of seed 001 also sends the probe on an alternate
//!   subflow chosen by the scheduler (`bytes_probe_extra`).
//!
//! Simplifications (see docs/mptcp.md): keys/tokens/HMACs are plain numbers
//! and never verified beyond the token; DSS checksums (`checksum`) only
//! change option sizes; no subflow FIN or connection teardown beyond
//! DATA_FIN (subflows are dropped at close); the receive window is not
//! scaled per subflow; subflows are never removed.

use std::collections::VecDeque;

use crate::endpoint::{AppEvent, Endpoint, OfoStats, PathReport, PathState};
use crate::packet::{
    flags, AddAddr, Addr, Dss, FlowId, MpCapable, MpJoin, MptcpControl, MptcpOptions, Packet,
    Payload, TcpSegment,
};
use crate::tcp::cc::{CaState, CongestionControl, PathView, SharedCc, INFINITE_SSTHRESH};
use crate::tcp::{AckInfo, CcKind, PathSender, TcpConfig, TlpProbe, Tx, TxKind};
use crate::time::{Nanos, MS};

use super::add_addr::AddAddrTimers;
use super::eventq::EventQueue;
use super::meta_recv::MetaRecv;
use super::meta_send::MetaSend;
use super::msk_rtx::{self, MskRtx};
use super::outq::OutQueue;
use super::pm::{missing, EpFlags, PmKind};
use super::pm_kernel::{self, KernelPm, PmLimits};
use super::prio::PrioChange;
use super::push::Pushes;
use super::remove_addr::AddrRemoval;
use super::sched::{
    tlp_alternate, ConnView, Decision, HeadOfLine, SchedOutcome, Scheduler, SchedulerKind, Segment,
    SubflowView,
};
use super::sndbuf::{self, SendBuffers, SndBufMode};
use super::subflow::{seg_mut, SfState, Subflow};

// Packet builders (base options, SYN, data, ACK, DATA_FIN).
mod build;
// REMOVE_ADDR: withdrawing addresses and closing their subflows.
mod remove;
// MP_FASTCLOSE: aborting the connection.
mod fastclose;
// Wakeups of a writer blocked on the send buffer (join, incoming data).
mod wake;
// When a v0.9x client is fully established (its path manager's trigger).
mod full_estab;
// The scheduler loop's rounds that repeat the last pick.
mod repeat;
use repeat::Repeated;
// The poll that would refill nothing, tested before the call.
mod quiet;
use quiet::Refill;
// A segment on an established subflow: its common steps inline, the rare
// ones out of line.
mod segment;

/// Subflow-level window given to each `PathSender`: the connection-level
/// window is enforced by the connection (RFC 8684 3.3.5).
const SUBFLOW_WND: u64 = 1 << 40;
/// Linux MPTCP_MAX_SUBFLOWS-ish bound; ids must stay < 64 (scheduler masks).
const MAX_SUBFLOWS: usize = 32;

/// A new-data segment that straddles a page fragment's start, cut there
/// (upstream scheduler with page fragments). Linux 6.18's
/// `__subflow_push_pending` (net/mptcp/protocol.c) hands a data fragment
/// to its subflow to the fragment's end (`mptcp_sendmsg_frag` copies up to
/// `info->limit = dfrag->data_len`) and tests the burst and the subflow's
/// memory only after it; the next fragment can go to another subflow,
/// so a subflow's data ends at a fragment start with a short segment. When
/// the same subflow takes the next fragment, `mptcp_sendmsg_frag` appends
/// it to the same unsent skb (`mptcp_skb_can_collapse_to`) and TCP's
/// segments run on across the fragment start: so the first piece waits
/// queued on its subflow, untransmitted, until the decision at the
/// fragment start, and then either leaves with the rest of its segment
/// (same subflow) or alone (`mptcp_push_release` -> `tcp_push`).
#[derive(Clone, Copy, Debug)]
struct FragPiece {
    /// The subflow holding the piece.
    id: usize,
    /// The fragment start: the DSN after the piece.
    next: u64,
    /// The end of the segment the piece was cut from.
    end: u64,
}

/// How `send_on` handed a segment to its subflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handed {
    /// Not taken: the subflow still holds unsent data.
    No,
    /// Taken, and the subflow drained (`drain_subflow`).
    Drained,
    /// Sent alone (`PathSender::send_alone`) by a subflow that already had
    /// packets in flight: of what its scheduler view shows, only the
    /// packets in flight (one more) and the bytes unacknowledged (`len`
    /// more) moved, so the view can be updated instead of rebuilt.
    AloneInFlight,
}

impl Handed {
    fn taken(self) -> bool {
        self != Handed::No
    }
}

/// Which side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

/// What the connection runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// First subflow not yet established.
    Handshake,
    Mptcp,
    /// The peer did not agree on MPTCP: plain TCP on the first subflow.
    Fallback,
}

crate::named_enum! {
    /// Tail loss probe flavour of MPTCP subflows (`transport.mptcp.tlp`).
    pub enum TlpMode {
        Subflow = "subflow": "RFC 8985 TLP on each subflow (Linux)",
        MptcpLevel = "mptcp-level": "seed 001: the probe is also sent on an alternate subflow chosen by the scheduler",
    }
}

#[derive(Clone, Debug)]
pub struct MptcpConfig {
    /// Per-subflow TCP settings (sndbuf/rcvbuf are connection-level here).
    pub tcp: TcpConfig,
    /// newreno or cubic: one instance per subflow (uncoupled); a coupled
    /// algorithm (`CcKind::is_coupled`): one instance for the connection.
    pub cc: CcKind,
    pub scheduler: SchedulerKind,
    pub pm: PmKind,
    /// Local addresses whose subflows are backup (MP_JOIN backup bit).
    pub backup_addrs: Vec<Addr>,
    /// `MptcpLevel`: seed 001's MPTCP-level tail loss probe.
    pub tlp: TlpMode,
    /// This end speaks MPTCP (false: a plain TCP peer, for fallback).
    pub capable: bool,
    /// Upstream path manager: flags of this host's endpoints by address.
    pub endpoints: Vec<(Addr, EpFlags)>,
    /// This host's addresses in the order emulation adds them as in-kernel
    /// PM endpoints (`ip mptcp endpoint add`, path order; emu
    /// `configure_mptcp`). With the in-kernel PM's timing (`kpm`), `fullmesh`
    /// opens its joins in this order, as pm_kernel.c walks
    /// `pernet->local_addr_list` (appended to, `list_add_tail_rcu` in
    /// `mptcp_pm_nl_append_new_local_addr`). Empty: `local_addrs`' order.
    pub endpoint_order: Vec<Addr>,
    /// Backup flag changes of local addresses, in time order (MP_PRIO).
    pub prio_changes: Vec<PrioChange>,
    /// Upstream path manager: `ip mptcp limits` of this host (`pm_kernel.rs`).
    pub limits: PmLimits,
    /// `net.mptcp.add_addr_timeout` (`add_addr.rs`).
    pub add_addr_timeout: Nanos,
    /// This host requires DSS checksums (`net.mptcp.checksum_enabled`,
    /// MP_CAPABLE flag A, RFC 8684 3.1).
    pub checksum: bool,
    /// Local addresses withdrawn during the run, in time order (REMOVE_ADDR).
    pub removals: Vec<AddrRemoval>,
    /// The application aborts the connection at this time (MP_FASTCLOSE,
    /// RFC 8684 3.5; `fastclose.rs`).
    pub fastclose_at: Option<Nanos>,
}

impl Default for MptcpConfig {
    fn default() -> Self {
        MptcpConfig {
            tcp: TcpConfig::default(),
            cc: CcKind::Lia,
            scheduler: SchedulerKind::Minrtt,
            pm: PmKind::Fullmesh { per_pair: 1 },
            backup_addrs: Vec::new(),
            tlp: TlpMode::Subflow,
            capable: true,
            endpoints: Vec::new(),
            endpoint_order: Vec::new(),
            prio_changes: Vec::new(),
            limits: PmLimits {
                subflows: pm_kernel::MPTCP_PM_ADDR_MAX as u8,
                add_addr_accepted: pm_kernel::MPTCP_PM_ADDR_MAX as u8,
            },
            add_addr_timeout: pm_kernel::ADD_ADDR_TIMEOUT_DEFAULT,
            checksum: false,
            removals: Vec::new(),
            fastclose_at: None,
        }
    }
}

/// Laid out by hand (`repr(C)`, docs/performance.md "Session 18"): the
/// fields smaller than 8 bytes (the flow, ports, mode and the flags most
/// entry points test) first, then what a segment or a scheduling pass
/// reads (the quiet and view masks, the subflow list, the scheduler, the
/// timers, the queues and buffers, the connection's send and receive
/// state), the path manager's lists and the
/// configuration last. The compiler's order had spread these over more
/// cache lines, each a miss per packet at 10,000 connections; the small
/// fields pad to 8 bytes as they did at the struct's end.
///
/// Aligned to a cache line (docs/performance.md "Session 32"): the
/// layout's lines are lines only if the record starts on one. With the
/// allocator's 16-byte alignment the boxed connection began 0, 16, 32 or
/// 48 bytes into a line, so that each group above mostly straddled one
/// line more; `send`'s head now fills the record's fifth line.
#[repr(C, align(64))]
pub struct MptcpConnection {
    flow: FlowId,
    base_port: u16,
    remote_port: u16,
    /// Client subflow ports: 0 = subflow k on `base_port + 1 + 97 k` (the
    /// single-client presets); n > 0 = the block `base_port ..
    /// base_port + n`, subflow k on `base_port + k` and at most n subflows,
    /// so connections of one address given disjoint blocks never share a
    /// port (`with_port_block`, the `clients` preset).
    port_block: u16,
    pub role: Role,
    pub mode: Mode,
    /// DSS checksums negotiated on: either side's MP_CAPABLE had flag A
    /// (RFC 8684 3.1, "if either host requires the use of checksums,
    /// checksums MUST be used"; Linux `subflow_finish_connect` sets
    /// `msk->csum_enabled` from the SYN/ACK's flag).
    csum: bool,
    /// DATA_ACKs go out in 8 bytes: a 64-bit DSN was received (Linux
    /// `msk->use_64bit_ack`, set in subflow.c `get_mapping_status`; the
    /// model, like Linux, sends only 64-bit DSNs). Before the peer sent any
    /// data they take 4, and a data segment's DSS 24 option bytes, not 28
    /// (`crate::optlen`).
    ack64: bool,
    write_blocked: bool,
    app_closed: bool,
    close_reported: bool,
    peer_closed_reported: bool,
    /// Client, `kpm`: the connection is fully established (options.c
    /// `check_fully_established`).
    fully_established: bool,
    fallback_fin_pushed: bool,
    /// The scheduler sends copies of sent segments to subflows that lack
    /// them (`Scheduler::sends_copies`, the redundant scheduler).
    copies: bool,
    /// `Scheduler::idle_without_available`: the scheduling loop may stop
    /// when no subflow is available, before building the views.
    idle_unavailable: bool,
    /// `Scheduler::repeats_fresh_pick`: within a pass, new data keeps going
    /// to the subflow the last new segment went to while it is available
    /// (`schedule_loop`), without asking the scheduler again.
    repeats_pick: bool,
    /// `Scheduler::picks_fresh_by_views`: a decision on data sent nowhere
    /// yet that fits the peer's window is read off the views
    /// (`sched::fresh_pick`) without asking the scheduler.
    fresh_by_views: bool,
    /// Something happened since the last `fill` (packet, timer, app call).
    dirty: bool,
    /// A scheduling pass is handing data to subflows: what they transmit
    /// meanwhile is one `tcp_push` round at the push's end
    /// (`mptcp_push_release`), so their skbs are cut only then
    /// (`sync_skbs`).
    in_push: bool,
    /// The `owner_has_data` every subflow's sender holds, as `fill` last
    /// wrote it (None after a subflow was added): `fill` rewrites the flags
    /// only when this changes.
    owner_pending: Option<bool>,
    /// Some subflow may have `syn_pending` set (set with it; `fill` clears
    /// it after sending them), so `fill` looks for SYNs only then.
    syn_due: bool,
    /// Reset by MP_FASTCLOSE (sent or received): nothing more happens.
    aborted: bool,
    /// `cfg.tcp.ip`, fixed at construction, copied into this block (the
    /// padding before `snd_quiet`): every segment built reads it for its
    /// size, and `cfg` lies a kilobyte further on, a line of its own per
    /// segment at 10,000 connections (docs/performance.md "Session 21").
    ip: crate::packet::IpVersion,
    /// The smallest send MSS of the established subflows as the last
    /// scheduler pass found it (`pass_mss`), 0 when not known. Only a
    /// subflow's state or MSS moves it (the handshake's arms, the DATA_ACK
    /// width, REMOVE_ADDR, a reset), and each of those runs `forget_all`,
    /// which clears it; so a pass, one per ACK on the sending end, reads it
    /// instead of walking the subflows. Checked builds compare it with the
    /// walk on every pass. In the small fields' padding before `snd_quiet`
    /// (an MSS fits 16 bits: the TCP option's width).
    pass_mss: u16,
    /// Subflows (bit `1 << id`) whose `drain_subflow` would do nothing:
    /// `fill` drained them, their sender had nothing to send
    /// (`PathSender::nothing_to_send`, so the drain took `next_tx`'s quick
    /// return, which repeated on an unchanged sender changes nothing), and
    /// nothing has touched their sender since. `fill` skips their drain.
    /// A segment on an established subflow clears what `on_segment` says
    /// it touched (nothing for an idle ACK, the ACKed subflow's bit for
    /// another ACK, every bit for its rarer steps), any other segment
    /// (handshake, RST, SYN) every bit, and so do the other entry points
    /// (timer, write, close, connect) and the changes inside `fill` (data
    /// handed to a subflow, penalisations, `owner_has_data`). Kept only for MPTCP
    /// connections without send buffers (`quiet_tracked`). On the
    /// receiving end of a transfer this spares a drain of every subflow per
    /// data segment, on the sending end that of the subflows the ACK did
    /// not come in on. Debug builds run each skipped drain to check it
    /// (`check_quiet`).
    snd_quiet: u64,
    /// Subflows (bit `1 << id`) whose entry in `view_buf` is what
    /// `sched_view` would build now. A scheduler pass used to rebuild every
    /// subflow's view on entry; on the sending end the ACK that starts the
    /// pass has changed one subflow's sender, the others' views are still
    /// those the last pass left. Cleared wherever `snd_quiet` is (the same
    /// entry points and changes: `forget_all`, `forget`), and also for the
    /// subflow a segment arrived on (an idle ACK too: `on_idle_ack`
    /// re-syncs the CC state) and for every subflow `fill` drains (`next_tx`
    /// may move the window: `cwnd_validate`); inside the scheduler loop the
    /// subflows it hands data to or penalises. Kept only where `snd_quiet`
    /// is (`quiet_tracked`: no send buffers, whose views carry pacing and
    /// buffer state, no connection-level timer, whose staleness they carry)
    /// and for at most 64 subflows. Builds with invariants check each kept
    /// view against a fresh one (`check_views`).
    views_valid: u64,
    pub sfs: Vec<Subflow>,
    sched: Box<dyn Scheduler>,
    /// Upstream: the connection-level retransmission timer and stale
    /// subflow detection (`super::msk_rtx`), instead of the v0.9x
    /// potentially-failed subflow and RTO reinjection. Boxed, here among
    /// the per-packet fields: every segment and pass tests whether it is
    /// there (`on_segment`, `quiet_tracked`), and the test read a line of
    /// its own at 10,000 connections when the 56-byte state lay after
    /// `send` and `recv` (docs/performance.md "Session 21").
    msk_rtx: Option<Box<MskRtx>>,
    /// Upstream scheduler: per-subflow send buffers (`super::sndbuf`);
    /// boxed and here for the same reason as `msk_rtx`.
    bufs: Option<Box<SendBuffers>>,
    fin_timer: Option<Nanos>,
    /// The earliest time of the scenario's scheduled events still to come
    /// (`scheduled_events`), kept so `poll_timeout` folds one value.
    sched_next: Option<Nanos>,
    out: OutQueue,
    events: EventQueue,
    /// `announced` has ever held an entry (set by its one insertion, in
    /// `pm_signal`): until then its list is empty, and `earliest_deadline`
    /// does not read its header, a line of its own near the record's end,
    /// after every event (a miss per event at 10,000 connections, where
    /// nothing is announced: docs/performance.md "Session 33"). Here, in
    /// the 8 bytes `events` gave up.
    announcing: bool,
    /// The v0.9x master subflow's `init_rcv_wnd` (`full_estab.rs`), which
    /// Linux fixes when the connection becomes MPTCP: computed here once
    /// from `cfg`, where every data segment before full establishment read
    /// two of `cfg`'s lines for it (docs/performance.md "Session 33"). In
    /// the padding after `announcing`.
    v09x_init_rcv_wnd: u32,
    /// Unused: the 8 bytes the rings' 32-bit positions freed (`ring.rs`)
    /// beyond the two fields above, held so that `send` keeps the start of
    /// its cache line (`layout_tests`); the next small per-event field
    /// goes here.
    _spare: [u8; 8],
    /// Reused buffers for the per-ACK and per-segment subflow snapshots
    /// (`path_views`, `sched_views`), so building them does not allocate.
    path_buf: Vec<PathView>,
    view_buf: Vec<SubflowView>,
    pub send: MetaSend,
    /// A coupled congestion control, shared by the subflows' senders: read
    /// only where a subflow is added (the senders hold it). Here, not
    /// before `send`, so that `send`'s 64-byte head fills one line and
    /// `recv` keeps its place (docs/performance.md "Session 32").
    coupled: Option<SharedCc>,
    pub recv: MetaRecv,
    /// `msk->scaling_ratio` and the measure that re-reads it (`rcv_space.rs`).
    rcv_space: super::rcv_space::MskRcvSpace,
    /// Upstream: the application writes not yet pushed, each a push of its
    /// own (`super::push`).
    pushes: Pushes,
    /// The in-kernel path manager's semantics (`pm_kernel.rs`): the client
    /// opens its extra subflows once the connection is fully established,
    /// ADD_ADDRs are echoed and re-sent until echoed. Set for the `upstream`
    /// path manager, and for `fullmesh`/`default` with the upstream
    /// scheduler (which model the kernel's msk, as emulation runs them).
    kpm: Option<KernelPm>,
    /// Next entry of `cfg.prio_changes` to apply.
    prio_next: usize,
    /// Next entry of `cfg.removals` to apply, the local addresses withdrawn
    /// so far, REMOVE_ADDR ids still to send, and the address ids the peer
    /// announced with ADD_ADDR (`remove.rs`).
    removal_next: usize,
    /// Set when the initial subflow's SYN retries ran out (`Endpoint::gave_up`).
    gave_up: Option<&'static str>,
    peer_key: Option<u64>,
    key: u64,
    /// Announcer, `kpm`: ADD_ADDR retransmission timers.
    announced: AddAddrTimers,
    /// ADD_ADDR options still to send (address id, address, echo).
    add_addr_pending: VecDeque<(u8, Addr, bool)>,
    local_addrs: Vec<Addr>,
    remote_addrs: Vec<Addr>,
    removed_addrs: Vec<Addr>,
    rm_addr_pending: VecDeque<u8>,
    peer_ids: Vec<(Addr, u8)>,
    cfg: MptcpConfig,
}

impl std::fmt::Debug for MptcpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MptcpConnection")
            .field("role", &self.role)
            .field("mode", &self.mode)
            .field("subflows", &self.sfs.len())
            .finish()
    }
}

/// Token of a key (RFC 8684 3.2: most significant 32 bits of SHA-256(key);
/// here a fixed mixing function, keys being plain numbers).
pub fn token_of(key: u64) -> u32 {
    let mut x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    (x >> 32) as u32
}

impl MptcpConnection {
    /// `local_addrs`: this host's addresses, the initial one first (for the
    /// client, the scenario's path). `remote_addrs`: the peer's addresses
    /// known in advance (the client knows the server's first address only;
    /// a server learns client addresses from joins).
    pub fn new(
        cfg: MptcpConfig,
        flow: FlowId,
        role: Role,
        local_addrs: &[Addr],
        local_port: u16,
        remote_addrs: &[Addr],
        remote_port: u16,
    ) -> Result<Self, String> {
        let sched = cfg.scheduler.build();
        let copies = sched.sends_copies();
        let idle_unavailable = sched.idle_without_available();
        let repeats_pick = sched.repeats_fresh_pick();
        let fresh_by_views = sched.picks_fresh_by_views();
        let cc = cfg
            .cc
            .build_with(cfg.tcp.cubic, cfg.tcp.hystart, cfg.tcp.jiffy_clock());
        let coupled = cc.is_coupled().then(|| SharedCc::new(cc));
        let key = 0x1234_5678_9abc_def0u64
            ^ ((flow as u64) << 17)
            ^ if role == Role::Server {
                0xfeed_0000_0000
            } else {
                0
            };
        let mut tcp = cfg.tcp.clone();
        // The meta socket applies Nagle; subflows get whole segments.
        tcp.nagle = false;
        // Upstream Linux sizes the msk's and each subflow's send buffer
        // itself (`super::sndbuf`); 0 = autotuned.
        let bufs = (sched.name() == "upstream").then(|| {
            SendBuffers::new(match cfg.tcp.sndbuf {
                0 => SndBufMode::Auto,
                b => SndBufMode::Locked(b),
            })
        });
        let send = MetaSend::new(bufs.as_ref().map_or(cfg.tcp.sndbuf, |b| b.msk()));
        // The upstream model copies writes in page fragments (mptcp_sendmsg).
        // ... and has Linux 6.18's window edges on both sides
        // (`MetaSend::with_kernel_wnd_edge`, `MetaRecv::with_window_drop`).
        let send = if bufs.is_some() {
            send.with_page_frags().with_kernel_wnd_edge()
        } else {
            send
        };
        let kpm = (matches!(cfg.pm, PmKind::Upstream)
            || (matches!(cfg.pm, PmKind::Fullmesh { .. } | PmKind::Default)
                && sched.name() == "upstream"))
            .then(|| KernelPm::new(cfg.limits));
        let recv = MetaRecv::new(cfg.tcp.rcvbuf);
        let recv = if bufs.is_some() {
            recv.with_window_drop()
        } else {
            recv
        };
        let v09x_init_rcv_wnd = full_estab::v09x_init_rcv_wnd(&tcp);
        let mut c = MptcpConnection {
            ip: tcp.ip,
            v09x_init_rcv_wnd,
            pass_mss: 0,
            cfg: MptcpConfig { tcp, ..cfg },
            flow,
            role,
            local_addrs: local_addrs.to_vec(),
            remote_addrs: remote_addrs.to_vec(),
            base_port: local_port,
            remote_port,
            port_block: 0,
            sfs: Vec::new(),
            mode: Mode::Handshake,
            key,
            peer_key: None,
            csum: false,
            ack64: false,
            send,
            recv,
            rcv_space: Default::default(),
            sched,
            coupled,
            events: EventQueue::default(),
            out: OutQueue::default(),
            write_blocked: false,
            app_closed: false,
            close_reported: false,
            peer_closed_reported: false,
            add_addr_pending: VecDeque::new(),
            kpm,
            fully_established: false,
            announced: AddAddrTimers::new(cfg.add_addr_timeout),
            announcing: false,
            _spare: [0; 8],
            fin_timer: None,
            fallback_fin_pushed: false,
            copies,
            idle_unavailable,
            repeats_pick,
            fresh_by_views,
            dirty: true,
            in_push: false,
            gave_up: None,
            path_buf: Vec::new(),
            view_buf: Vec::new(),
            owner_pending: None,
            syn_due: false,
            snd_quiet: 0,
            views_valid: 0,
            prio_next: 0,
            sched_next: None,
            removal_next: 0,
            removed_addrs: Vec::new(),
            rm_addr_pending: VecDeque::new(),
            peer_ids: Vec::new(),
            aborted: false,
            msk_rtx: bufs.is_some().then(Box::<MskRtx>::default),
            bufs: bufs.map(Box::new),
            pushes: Pushes::default(),
        };
        c.refresh_sched_next();
        Ok(c)
    }

    /// Take client subflow ports from the block of `n` ports starting at
    /// the connection's own port (see `port_block`).
    pub fn with_port_block(mut self, n: u16) -> Self {
        self.port_block = n;
        self
    }

    pub fn scheduler_name(&self) -> &'static str {
        self.sched.name()
    }

    fn new_sender(&self, idx: usize) -> PathSender {
        let cc: Box<dyn CongestionControl> = match &self.coupled {
            Some(c) => Box::new(c.clone()),
            None => self.cfg.cc.build_with(
                self.cfg.tcp.cubic,
                self.cfg.tcp.hystart,
                self.cfg.tcp.jiffy_clock(),
            ),
        };
        let mut s = PathSender::new(&self.cfg.tcp, cc);
        s.cc_state.path_index = idx;
        s
    }

    fn add_subflow(
        &mut self,
        local: Addr,
        lport: u16,
        remote: Addr,
        rport: u16,
        state: SfState,
    ) -> usize {
        let id = self.sfs.len();
        let snd = self.new_sender(id);
        let mut sf = Subflow::new(id, &self.cfg.tcp, snd, local, lport, remote, rport, state);
        sf.backup = self.cfg.backup_addrs.contains(&local) && id > 0;
        sf.remote_id = if id == 0 {
            Some(0)
        } else {
            self.peer_ids
                .iter()
                .find(|&&(a, _)| a == remote)
                .map(|&(_, i)| i)
        };
        self.sfs.push(sf);
        self.owner_pending = None;
        // (every caller sets the new subflow's `syn_pending`)
        self.syn_due = true;
        id
    }

    /// Per-subflow views for coupled congestion control, in index order,
    /// into `out` (cleared first).
    /// Written in place when `out` already holds one view per subflow
    /// (every ACK but the first after a subflow is added): the vector's
    /// clear and extend, which LLVM took out of line when the ACK path was
    /// inlined into `handle_packet`, run only when the count changed.
    #[inline(always)]
    fn path_views(&self, out: &mut Vec<PathView>) {
        if out.len() != self.sfs.len() {
            self.path_views_resized(out);
            return;
        }
        for (v, s) in out.iter_mut().zip(&self.sfs) {
            *v = Self::path_view(s);
        }
    }

    /// `path_views` where the subflow count changed: cleared and extended.
    #[cold]
    #[inline(never)]
    fn path_views_resized(&self, out: &mut Vec<PathView>) {
        out.clear();
        out.extend(self.sfs.iter().map(Self::path_view));
    }

    /// The coupled congestion control's view of one subflow (no RTT
    /// before it is established).
    #[inline(always)]
    fn path_view(s: &Subflow) -> PathView {
        let mut v = s.snd.view();
        if !s.established() {
            v.srtt = 0;
        }
        v
    }

    /// Per-subflow views for the scheduler, in index order, into `out`
    /// (cleared first).
    fn sched_views(&self, out: &mut Vec<SubflowView>) {
        out.clear();
        out.extend(self.sfs.iter().map(|s| self.sched_view(s)));
    }

    /// What the scheduler sees of one subflow (a function of the subflow and
    /// the connection mode only).
    fn sched_view(&self, s: &Subflow) -> SubflowView {
        self.sched_view_inline(s)
    }

    /// `sched_view`'s body, inlined where a pass rebuilds the views on
    /// every ACK (`pick_at_pass_start`): a call there cost 18 instructions
    /// per view besides its body. Its other callers keep the call, so the
    /// code around them is as before (`sched_view` always inlined moved
    /// plain TCP's `RcvWindow::measure` out of line, docs/performance.md
    /// "Session 30 pass").
    #[inline(always)]
    fn sched_view_inline(&self, s: &Subflow) -> SubflowView {
        let ss = s.snd.ssthresh();
        let srtt = s.snd.rtt.srtt;
        let cwnd = s.snd.cwnd();
        let mut v = SubflowView {
            id: s.id,
            established: s.established() && self.mode != Mode::Handshake,
            potentially_failed: s.pf || self.msk_rtx.as_ref().is_some_and(|r| r.is_stale(s.id)),
            in_loss: s.snd.loss_blocks_new_data(),
            ca_open: s.snd.ca_state() == CaState::Open,
            backup: s.backup,
            cwnd_pkts: cwnd,
            ssthresh_pkts: if ss >= INFINITE_SSTHRESH {
                u32::MAX
            } else {
                ss
            },
            inflight_pkts: s.snd.in_flight(),
            srtt,
            rttvar: s.snd.rtt.rttvar,
            mss: s.snd.mss,
            // Only the upstream scheduler reads a pacing rate, and it runs
            // with send buffers (`bufs`), which set Linux's below.
            pacing_rate_bps: 0,
            queued_bytes: s.snd.unsent(),
            unacked_bytes: s.snd.buffered(),
            last_used: 0,
            wmem_queued: 0,
            sndbuf: 0,
        };
        if let Some(b) = &self.bufs {
            v.pacing_rate_bps = Self::pacing_rate_bps(s);
            v.wmem_queued = s.skbs.wmem_queued(v.unacked_bytes);
            v.sndbuf = b.subflow(s.id);
        }
        v
    }

    /// A subflow's `sk_pacing_rate` in bit/s as Linux
    /// `tcp_update_pacing_rate` (net/ipv4/tcp_input.c) sets it on each ACK:
    /// `tp->mss_cache * max(cwnd, packets_out) / srtt`, 200 % or 120 %.
    /// `mss_cache` is the MSS without the DSS option bytes
    /// (`Subflow::mss_cache`): the kernel's tracepoint
    /// `mptcp_subflow_get_send` shows 1353777 B/s for the 4 MiB validation
    /// download's first pick, 1448 x 10 x 2 / 21.392 ms, where the
    /// segments carry 1420 bytes.
    pub(super) fn pacing_rate_bps(s: &Subflow) -> u64 {
        // the values of the last ACK (`PathSender::pacing_seen`)
        let (cwnd, ss, packets_out, srtt) = s.snd.pacing_seen.unwrap_or((
            s.snd.cwnd(),
            s.snd.ssthresh(),
            s.snd.packets_out,
            s.snd.rtt.srtt,
        ));
        super::sched::upstream::linux_pacing_rate_bps(
            cwnd,
            if ss >= INFINITE_SSTHRESH {
                u32::MAX
            } else {
                ss
            },
            packets_out,
            s.mss_cache,
            srtt,
        )
    }

    /// `sched_view(s).available()`, read off the subflow without building
    /// the view (the same fields, the same tests).
    #[inline]
    fn sf_available(&self, s: &Subflow) -> bool {
        let established = s.established() && self.mode != Mode::Handshake;
        let pf = s.pf || self.msk_rtx.as_ref().is_some_and(|r| r.is_stale(s.id));
        established
            && !pf
            && !super::sched::temp_unavailable(
                s.snd.loss_blocks_new_data(),
                s.snd.in_flight(),
                s.snd.cwnd(),
                s.snd.mss,
                s.snd.unsent(),
            )
    }

    fn conn_view(&self, fits: bool) -> ConnView {
        ConnView {
            send_queue_bytes: self.send.unsent(),
            snd_wnd: self.send.peer_wnd,
            fits_rwnd: fits,
            wnd_left: self.send.wnd_end().saturating_sub(self.send.nxt),
            send_buf_full: self.write_blocked,
            head: self.send.head().map(|(_, s)| HeadOfLine {
                len: s.len,
                sent_on: s.sent_on,
            }),
        }
    }

    // ---- packets ------------------------------------------------------------

    fn finish(&mut self, i: usize, p: Packet) {
        self.out.push_back(p);
        self.finish_back(i);
    }

    /// Size and count the packet at the back of `out`, built there in place
    /// (a packet is 128 bytes: building it on the stack and moving it into
    /// the queue cost a copy per packet). Inlined as before the IP version
    /// was a parameter (a call per packet showed in callgrind).
    #[inline]
    fn finish_back(&mut self, i: usize) {
        let ip = self.ip;
        let p = self.out.back_mut().expect("a packet was queued");
        let s = seg_mut(p);
        p.size = s.header_len(ip) + s.len;
        self.sfs[i].snd.counters.packets_sent += 1;
    }

    /// Queue a segment of subflow `i` carrying the MPTCP options `opts`,
    /// built in the queue's slot: `fill` completes it there (sequence
    /// numbers, flags, ACK, window, SACK blocks) and returns its option
    /// bytes, which the builder already knows (`optlen::Established`): the
    /// size `finish_back` would give, without laying the segment out again.
    /// Built on the stack and moved into the slot, the segment was copied
    /// with 16-byte loads of fields just written by narrower stores, which
    /// the store buffer cannot forward: the copy waited for the stores to
    /// reach the cache (an eighth of `build_ack`'s timer samples,
    /// docs/performance.md "Session 25 pass: the segment built in its
    /// slot"). The packet's size is written last, once the segment is
    /// complete. Always inlined: with the push inlined (`OutQueue`) LLVM
    /// kept it out of line; so is `build_data`'s `fill` (LLVM kept that
    /// closure out of line, a call per data segment).
    #[inline(always)]
    fn queue_built(
        &mut self,
        i: usize,
        opts: Option<MptcpOptions>,
        fill: impl FnOnce(&mut TcpSegment, &mut Subflow) -> u32,
    ) {
        self.built_at(None, i, opts, fill);
    }

    /// `queue_built`, or with `slot` the packet written over `*slot`
    /// instead of queued (`*slot` owns nothing: `overwrite_plain_with`),
    /// the pure ACK `poll_transmit_into` builds in the engine's slot
    /// (`quiet.rs`, `ack_into`).
    #[inline(always)]
    fn built_at(
        &mut self,
        slot: Option<&mut Packet>,
        i: usize,
        opts: Option<MptcpOptions>,
        fill: impl FnOnce(&mut TcpSegment, &mut Subflow) -> u32,
    ) {
        let hdr = self.ip.header_len() + crate::packet::TCP_HEADER;
        let sf = &mut self.sfs[i];
        sf.snd.counters.packets_sent += 1;
        let flow = self.flow;
        let make = || Packet {
            src: sf.local,
            dst: sf.remote,
            flow,
            size: 0,
            payload: Payload::Tcp(TcpSegment::with_mptcp(sf.lport, sf.rport, opts)),
        };
        let p = match slot {
            Some(slot) => {
                slot.overwrite_plain_with(make);
                slot
            }
            None => self.out.push_back_mut(make),
        };
        let s = seg_mut(p);
        let optlen = fill(s, sf);
        debug_assert_eq!(optlen, s.options_len(), "option bytes of {s:?}");
        let size = hdr + optlen + s.len;
        p.size = size;
    }

    fn best_subflow(&self) -> Option<usize> {
        self.sfs
            .iter()
            .filter(|s| s.established() && !s.pf)
            .min_by_key(|s| (s.backup, s.snd.rtt.srtt))
            .or_else(|| self.sfs.iter().find(|s| s.established()))
            .map(|s| s.id)
    }

    /// The first mapping arrived (Linux always sends 64-bit DSNs): DATA_ACKs
    /// are 8 bytes from now on (`get_mapping_status` sets
    /// `msk->use_64bit_ack`), so every negotiated subflow's MSS shrinks by
    /// the 4 bytes `tcp_current_mss` now counts (24 -> 28 DSS bytes).
    #[cold]
    fn use_64bit_ack(&mut self) {
        self.forget_all();
        self.ack64 = true;
        if self.mode != Mode::Mptcp || !self.cfg.capable {
            return;
        }
        let grow = crate::optlen::dss_mss_overhead(true) - crate::optlen::dss_mss_overhead(false);
        for sf in self.sfs.iter_mut().filter(|s| s.state != SfState::SynSent) {
            // our send MSS only: what the peer sends (and so `rcv_mss`,
            // `tcp_measure_rcv_mss`) follows the peer's own DATA_ACK width
            let mss = sf.snd.mss.saturating_sub(grow).max(1);
            sf.snd.mss = mss;
            sf.snd.cc_state.mss = mss;
        }
    }

    // ---- handshake -------------------------------------------------------------

    fn negotiate(&mut self, i: usize, seg: &TcpSegment) {
        let cfg = &self.cfg.tcp;
        let mptcp = self.mode == Mode::Mptcp
            || (self.mode == Mode::Handshake
                && seg
                    .mptcp
                    .as_ref()
                    .is_some_and(|o| o.capable().is_some() || o.join().is_some()));
        let sf = &mut self.sfs[i];
        let ts_ok = cfg.timestamps && seg.ts().is_some();
        sf.rcv.ts_ok = ts_ok;
        sf.rcv.sack_ok = cfg.sack && seg.sack_permitted;
        sf.rcv.rcv_wscale = if cfg.window_scaling && seg.wscale.is_some() {
            // what this subflow offered (build.rs: tcp_select_initial_window)
            Some(sf.rcv.win.initial_wscale())
        } else {
            None
        };
        let peer_mss = seg.mss().map(|m| m as u32).unwrap_or(536);
        let mut mss = peer_mss.min(cfg.mss_option()) - if ts_ok { 12 } else { 0 };
        sf.mss_cache = mss;
        if mptcp && self.cfg.capable {
            // Linux `tcp_current_mss`: the DSS a data segment would carry
            // (mapping + DATA_ACK at its current width, aligned; 24 or 28
            // bytes, the checksum fitting either way) shrinks the MSS.
            mss -= crate::optlen::dss_mss_overhead(self.ack64);
        }
        sf.rcv.rcv_mss = mss;
        let active = self.role == Role::Client;
        sf.rcv.on_negotiated(cfg.mss_option(), active);
        sf.snd.mss = mss;
        sf.snd.cc_state.mss = mss;
    }

    /// `ts_ecr`: the TSecr of the SYN-ACK or ACK completing the handshake,
    /// if timestamps were agreed (`RttEstimator::handshake_sample`).
    fn establish(&mut self, i: usize, now: Nanos, ts_ecr: Option<Nanos>) {
        let sf = &mut self.sfs[i];
        let ts_ecr = ts_ecr.filter(|_| sf.rcv.ts_ok);
        let snd_nxt = sf.snd.snd_nxt;
        sf.snd
            .rtt
            .handshake_sample(now, sf.syn_sent_at, sf.syn_retx > 0, ts_ecr, snd_nxt);
        let (mss, sack, ts) = (sf.snd.mss, sf.rcv.sack_ok, sf.rcv.ts_ok);
        sf.snd.established(now, mss, sack, ts, SUBFLOW_WND);
        if sf.syn_retx > 0 {
            sf.snd.rtt.syn_lost_fallback(3 * crate::time::SEC);
        }
        if sf.syn_retx > 1 {
            sf.snd.cc_state.cwnd = 1;
        }
        sf.syn_timer = None;
        sf.syn_pending = false;
    }

    /// Client path manager: open the subflows still missing, once the
    /// connection is fully established: the in-kernel PM (`kpm`: pm.c
    /// `mptcp_pm_fully_established` schedules the PM worker, which runs
    /// pm_kernel.c `mptcp_pm_create_subflow_or_signal_addr`), and the v0.9x
    /// path managers (`create_subflow_worker` exits while the master subflow
    /// is not fully established; the rule is in `full_estab.rs`).
    fn pm_create(&mut self, now: Nanos) {
        self.forget_all();
        if self.role != Role::Client
            || self.mode != Mode::Mptcp
            || !self.sfs.first().is_some_and(|s| s.established())
            || !self.fully_established
        {
            return;
        }
        let existing = self.subflow_pairs();
        let mut new = match (&mut self.kpm, self.cfg.pm) {
            (Some(k), PmKind::Upstream) => k.create_subflows(&self.cfg.endpoints, &existing),
            (_, pm) => missing(&pm.wanted(&self.pm_locals(), &self.remote_addrs), &existing),
        };
        if !self.removed_addrs.is_empty() {
            // withdrawn addresses open no new subflow (`remove.rs`)
            new.retain(|(l, _)| !self.removed_addrs.contains(l));
        }
        self.open_subflows(now, &new);
    }

    /// The local addresses the path manager opens joins from, in its order:
    /// with the in-kernel PM's timing (`kpm`) and `fullmesh`, the endpoint
    /// list's (`MptcpConfig::endpoint_order`), which decides the joins'
    /// places in `msk->conn_list` and so which of two equally idle subflows
    /// `mptcp_subflow_get_send` picks first (it keeps the first of equal
    /// linger times); else `local_addrs`, the initial one first (v0.9x).
    fn pm_locals(&self) -> Vec<Addr> {
        let order = &self.cfg.endpoint_order;
        if self.kpm.is_some() && matches!(self.cfg.pm, PmKind::Fullmesh { .. }) && !order.is_empty()
        {
            let mut v: Vec<Addr> = order
                .iter()
                .copied()
                .filter(|a| self.local_addrs.contains(a))
                .collect();
            v.extend(self.local_addrs.iter().filter(|a| !order.contains(a)));
            v
        } else {
            self.local_addrs.clone()
        }
    }

    /// (local, remote) of every subflow, the initial one first.
    fn subflow_pairs(&self) -> Vec<(Addr, Addr)> {
        self.sfs.iter().map(|s| (s.local, s.remote)).collect()
    }

    /// Client: send SYN + MP_JOIN for each (local, remote) pair.
    fn open_subflows(&mut self, now: Nanos, pairs: &[(Addr, Addr)]) {
        for &(l, r) in pairs {
            if self.sfs.len() >= MAX_SUBFLOWS {
                break;
            }
            let port = if self.port_block == 0 {
                self.base_port.wrapping_add(1 + self.sfs.len() as u16 * 97)
            } else if self.sfs.len() < self.port_block as usize {
                self.base_port + self.sfs.len() as u16
            } else {
                // the block is full: the path manager opens no more subflows
                break;
            };
            let i = self.add_subflow(l, port, r, self.remote_port, SfState::SynSent);
            let sf = &mut self.sfs[i];
            sf.syn_pending = true;
            sf.syn_sent_at = now;
        }
    }

    fn on_new_syn(&mut self, now: Nanos, pkt: &Packet, seg: &TcpSegment) {
        let (local, remote) = (pkt.dst, pkt.src);
        let i = if self.sfs.is_empty() {
            let capable = seg.mptcp.as_ref().is_some_and(|o| o.capable().is_some());
            self.mode = if capable && self.cfg.capable {
                Mode::Mptcp
            } else {
                Mode::Fallback
            };
            let cap = seg.mptcp.as_ref().and_then(|o| o.capable());
            self.peer_key = cap.map(|c| c.sender_key);
            self.csum =
                self.mode == Mode::Mptcp && (self.cfg.checksum || cap.is_some_and(|c| c.checksum));
            self.add_subflow(local, seg.dst_port, remote, seg.src_port, SfState::SynRcvd)
        } else {
            // RFC 8684 3.2: a join must name our token.
            let Some(j) = seg.mptcp.as_ref().and_then(|o| o.join()) else {
                return;
            };
            if self.mode != Mode::Mptcp
                || j.token != token_of(self.key)
                || self.sfs.len() >= MAX_SUBFLOWS
            {
                return;
            }
            // pm.c `mptcp_pm_allow_new_subflow`: the `subflows` limit (the
            // kernel answers and resets the join at its third ACK,
            // subflow.c `subflow_syn_recv_sock`; here the SYN is ignored)
            if let (Some(k), PmKind::Upstream) = (&mut self.kpm, self.cfg.pm) {
                if !k.allow_new_subflow() {
                    return;
                }
            }
            let i = self.add_subflow(local, seg.dst_port, remote, seg.src_port, SfState::SynRcvd);
            self.sfs[i].backup = j.backup;
            self.sfs[i].remote_id = Some(j.addr_id);
            if !self.remote_addrs.contains(&remote) {
                self.remote_addrs.push(remote);
            }
            i
        };
        self.negotiate(i, seg);
        let sf = &mut self.sfs[i];
        sf.rcv.on_syn(seg.ts().map(|t| t.0));
        sf.syn_pending = true;
        sf.syn_sent_at = now;
    }

    // ---- data path ---------------------------------------------------------------

    /// A segment's ADD_ADDR and MP_PRIO (the control options other than the
    /// handshake's). Out of line, as the DATA_FIN below: `on_segment` runs for
    /// every segment and its machine code missed the instruction cache on
    /// each ACK cycle; these steps run a handful of times per connection.
    #[cold]
    #[inline(never)]
    fn on_control(&mut self, now: Nanos, i: usize, c: &MptcpControl) {
        self.forget_all();
        if let Some(a) = c.add_addr {
            if !a.echo && !self.peer_ids.iter().any(|&(x, _)| x == a.addr) {
                self.peer_ids.push((a.addr, a.addr_id));
            }
            self.on_add_addr(now, a);
        }
        if let Some(b) = c.prio_backup {
            self.sfs[i].backup = b;
        }
    }

    /// A DSS option with the DATA_FIN flag arrived on subflow `i`.
    #[cold]
    #[inline(never)]
    fn on_data_fin_option(&mut self, i: usize, d: Dss) {
        self.forget_all();
        if let Some(dsn) = d.dsn().map(|x| x + d.map_len as u64) {
            if self.recv.on_data_fin(dsn).fin {
                self.peer_closed();
            }
            // acknowledge the DATA_FIN at once
            self.sfs[i].rcv.force_ack();
        }
    }

    /// An ADD_ADDR arrived (RFC 8684 3.4.1).
    fn on_add_addr(&mut self, now: Nanos, a: AddAddr) {
        if self.kpm.is_none() {
            // v0.9x: no echo; the client's path manager adds subflows
            if !self.remote_addrs.contains(&a.addr) {
                self.remote_addrs.push(a.addr);
                self.pm_create(now);
            }
            return;
        }
        if a.echo {
            // options.c `mptcp_incoming_options`: the echo stops the timer
            // (`mptcp_pm_announced_del_timer`) and the PM worker may announce
            // the next address (pm.c `mptcp_pm_add_addr_echoed`)
            if self.announced.on_echo(a.addr) {
                self.pm_signal(now);
            }
            return;
        }
        // pm.c `mptcp_pm_add_addr_received`: always echoed
        self.add_addr_pending.push_back((a.addr_id, a.addr, true));
        if self.role != Role::Client || self.mode != Mode::Mptcp {
            return;
        }
        if !self.remote_addrs.contains(&a.addr) {
            self.remote_addrs.push(a.addr);
        }
        let existing = self.subflow_pairs();
        match (&mut self.kpm, self.cfg.pm) {
            (Some(k), PmKind::Upstream) => {
                let new = k.add_addr_received(a.addr, a.addr_id, &self.cfg.endpoints, &existing);
                self.open_subflows(now, &new);
            }
            (Some(_), PmKind::Fullmesh { .. }) if self.fully_established => {
                // pm_kernel.c `mptcp_pm_nl_add_addr_received`: a join to the
                // announced address from every fullmesh endpoint, in list
                // order (`fill_local_addresses_vec`), before the PM worker
                // runs a pending ESTABLISHED event (`__mptcp_pm_kernel_worker`
                // takes ADD_ADDR_RECEIVED first): an ADD_ADDR that itself makes the
                // connection fully established has its joins ahead of those
                // the `subflow` endpoints open (`pm_create`).
                let mut new: Vec<(Addr, Addr)> = self
                    .pm_locals()
                    .into_iter()
                    .map(|l| (l, a.addr))
                    .filter(|p| !existing.contains(p))
                    .collect();
                new.retain(|(l, _)| !self.removed_addrs.contains(l));
                self.open_subflows(now, &new);
            }
            // fullmesh / default with the kernel's timing: their own subflow set
            _ => self.pm_create(now),
        }
    }

    /// Announcer, in-kernel PM: announce the next `signal` endpoint (the
    /// signal part of pm_kernel.c `mptcp_pm_create_subflow_or_signal_addr`)
    /// and arm its retransmission timer (pm.c `mptcp_pm_announced_alloc`).
    /// `fullmesh` announces every other address, as its emulation configures
    /// `signal` endpoints on them.
    fn pm_signal(&mut self, now: Nanos) {
        if self.mode != Mode::Mptcp || self.sfs.is_empty() {
            return;
        }
        let eps: Vec<(Addr, EpFlags)> = match self.cfg.pm {
            PmKind::Upstream => self.cfg.endpoints.clone(),
            pm if pm.announces() => {
                let signal = EpFlags {
                    signal: true,
                    ..EpFlags::default()
                };
                self.local_addrs.iter().map(|&a| (a, signal)).collect()
            }
            _ => return,
        };
        let local0 = self.sfs[0].local;
        let in_flight = self.add_addr_pending.iter().any(|&(_, _, echo)| !echo);
        let max_rto = self.max_rto();
        let Some(k) = &mut self.kpm else { return };
        if let Some(a) = k.next_signal(&eps, local0, in_flight) {
            let id = self.local_addrs.iter().position(|&x| x == a).unwrap_or(0) as u8;
            self.add_addr_pending.push_back((id, a, false));
            self.announced.announce(now, id, a, max_rto);
            self.announcing = true;
        }
    }

    /// The largest RTO of the subflows (pm.c `mptcp_adjust_add_addr_timeout`).
    fn max_rto(&self) -> Nanos {
        self.sfs.iter().map(|s| s.snd.rtt.rto()).max().unwrap_or(0)
    }

    fn peer_closed(&mut self) {
        if !self.peer_closed_reported {
            self.peer_closed_reported = true;
            self.events.push_back(AppEvent::PeerClosed);
        }
    }

    /// `poll_transmit_into` with the queue empty and something new:
    /// everything to transmit now, and its first packet written over
    /// `*slot`. Out of line so that the calls that only take the next
    /// queued packet stay small.
    #[inline(never)]
    fn refill(&mut self, now: Nanos, slot: &mut Packet) -> bool {
        self.dirty = false;
        self.fill(now);
        self.after_activity();
        self.out.pop_front_into(slot)
    }

    /// Runs after every packet in and every refill. Always inlined: with the
    /// scheduler's rare steps moved out of line LLVM stopped inlining it, and
    /// the call cost 7.9 M instructions in the htsim run.
    #[inline(always)]
    fn after_activity(&mut self) {
        if self.write_blocked {
            let free = self.send.space();
            // Linux sk_stream_write_space: a blocked writer is woken once
            // the free space is half of what is queued. The other wakers of
            // the msk's wait queue (a subflow's state change, incoming
            // data) have no such threshold: `wake.rs`.
            if free * 2 >= self.send.wmem_queued() && free > 0 {
                self.write_blocked = false;
                self.events.push_back(AppEvent::Writable);
            }
        }
        // (both FINs are looked at only once the application has closed)
        if !self.close_reported && self.app_closed && self.fins_done() {
            self.close_reported = true;
            self.fin_timer = None;
            self.events.push_back(AppEvent::Closed);
        }
    }

    /// Both directions' FINs acknowledged and received, at the level the
    /// connection's mode uses.
    fn fins_done(&self) -> bool {
        match self.mode {
            Mode::Mptcp => self.send.fin_acked && self.recv.fin_received,
            Mode::Fallback => self.sfs[0].snd.fin_acked() && self.recv.fin_received,
            Mode::Handshake => false,
        }
    }

    /// Hand segment [dsn, dsn+len) to subflow `id` and transmit what it can.
    /// Without send buffers the data is the subflow's only unsent data, one
    /// mapping: when its sender would send all of it as one segment
    /// (`PathSender::sends_alone`, nearly always) the segment is built here
    /// in one go, the sender's two `next_tx` calls (the second finding
    /// nothing) reduced to `send_alone` and the flags and mapping known
    /// without asking (`build_data`), instead of `drain_subflow`'s general
    /// `next_tx` loop and `build_tx`. The caller has cleared `id`'s bit of
    /// `views_valid` (`queue_on`).
    fn send_on(&mut self, now: Nanos, id: usize, dsn: u64, len: u32) -> Handed {
        if !self.queue_on(id, dsn, len) {
            return Handed::No;
        }
        let sf = &self.sfs[id];
        if self.bufs.is_none() && sf.state == SfState::Established && sf.snd.sends_alone(len) {
            // (with packets in flight, `send_alone` does not restart the
            // window after idle nor tell the CC a transmission started)
            let in_flight = sf.snd.packets_out > 0;
            let seq = self.sfs[id].snd.send_alone(now, len);
            debug_assert_eq!(
                self.sfs[id].map_of(seq).map(|m| (m.sseq, m.dsn)),
                Some((seq, dsn))
            );
            // (all of the unsent data: `build_tx` would set PSH)
            self.build_data(id, now, seq, len, flags::ACK | flags::PSH, Some(dsn));
            if in_flight {
                return Handed::AloneInFlight;
            }
        } else {
            self.drain_subflow(now, id);
        }
        Handed::Drained
    }

    /// `send_on` without the transmission: the data joins subflow `id`'s
    /// queue only. Always inlined: `send_on` runs it for every segment (the
    /// other caller, a held page-fragment piece, is rare).
    ///
    /// The caller has cleared `id`'s bit of `views_valid` (every caller
    /// does it before the call, as its own bookkeeping of the view): this
    /// clears `snd_quiet`'s alone. `forget(id)` here cleared both words
    /// with one 16-byte load and store (LLVM merges the two adjacent
    /// `&=`), and the load read `views_valid` just written by the caller's
    /// 8-byte store, which the store buffer cannot forward to a wider load:
    /// the hottest instruction of `send_on`, a seventh of its timer samples
    /// (docs/performance.md "Session 26 pass").
    #[inline(always)]
    fn queue_on(&mut self, id: usize, dsn: u64, len: u32) -> bool {
        debug_assert!(
            id >= 64 || self.views_valid & (1u64 << id) == 0,
            "queue_on: the caller keeps subflow {id}'s view"
        );
        self.snd_quiet &= !(1u64 << (id % 64));
        if self.bufs.is_some() && self.mode == Mode::Mptcp {
            // Upstream: the subflow's write queue takes data beyond its
            // window (`__subflow_push_pending`); the scheduler checked room.
            self.sfs[id].push_queued(dsn, len);
        } else if self.sfs[id].snd.unsent() > 0 {
            return false; // one mapping per segment: never merge chunks
        } else {
            self.sfs[id].push(dsn, len);
        }
        self.send.mark_sent(dsn, len, id);
        true
    }

    /// Transmit what subflow `i` has to send. Inlined into the callers up to
    /// the first `next_tx`, which usually finds nothing.
    #[inline(always)]
    fn drain_subflow(&mut self, now: Nanos, i: usize) {
        if !matches!(
            self.sfs[i].state,
            SfState::Established | SfState::PreEstablished
        ) {
            return;
        }
        if self.bufs.is_some() {
            self.tso_round(i);
        }
        if let Some(tx) = self.sfs[i].snd.next_tx(now) {
            self.drain_subflow_from(now, i, tx);
        }
    }

    /// A `tcp_write_xmit` round over a write queue of multi-segment skbs
    /// (`super::skbq`): its `max_segs = tcp_tso_segs(sk, mss_now)` lets
    /// `tcp_tso_should_defer` hold a small send back
    /// (`PathSender::tso_defers`). Out of line: only connections with
    /// send buffers (`bufs`) run it, and `drain_subflow` is inlined into
    /// every caller, so its body would be copied into the per-packet code
    /// of all of them (the instruction cache is what that code runs short
    /// of: docs/performance.md, "Engine pass 4").
    #[cold]
    #[inline(never)]
    fn tso_round(&mut self, i: usize) {
        let s = &self.sfs[i];
        let pace = Self::pacing_rate_bps(s);
        let mss = s.snd.mss.max(1);
        let goal = sndbuf::size_goal(mss, pace, s.snd.rtt.min_rtt / crate::time::US);
        let snd = &mut self.sfs[i].snd;
        snd.tso_max_segs = (goal / mss as u64) as u32;
        snd.tso_burst_left = 0;
    }

    #[inline(never)]
    fn drain_subflow_from(&mut self, now: Nanos, i: usize, first: Tx) {
        self.build_tx(i, now, first);
        while let Some(tx) = self.sfs[i].snd.next_tx(now) {
            self.build_tx(i, now, tx);
        }
        if self.bufs.is_some() && !self.in_push {
            self.sync_skbs(i);
        }
    }

    /// Subflow `i` transmitted new data in one `tcp_write_xmit` round: cut
    /// its skbs as `tso_fragment` does (`super::skbq`), by the
    /// `tcp_tso_autosize` of its current pacing rate.
    fn sync_skbs(&mut self, i: usize) {
        let s = &self.sfs[i];
        if s.skbs.is_empty() {
            return;
        }
        let pace = Self::pacing_rate_bps(s);
        let autosize = sndbuf::size_goal(s.snd.mss, pace, s.snd.rtt.min_rtt / crate::time::US);
        let nxt = s.snd.snd_nxt;
        self.sfs[i].skbs.on_xmit(nxt, autosize);
    }

    fn sync_all_skbs(&mut self) {
        for i in 0..self.sfs.len() {
            self.sync_skbs(i);
        }
    }

    /// Carry out a scheduler's penalisations and head-of-line
    /// retransmission; true when it retransmitted (the loop stops). Most
    /// outcomes have neither: that test is inlined, the work is not.
    #[inline]
    fn apply(&mut self, now: Nanos, out: &SchedOutcome) -> bool {
        if out.penalize.is_empty() && out.retransmit_head_on.is_none() {
            return false;
        }
        self.apply_some(now, out)
    }

    #[cold]
    #[inline(never)]
    fn apply_some(&mut self, now: Nanos, out: &SchedOutcome) -> bool {
        self.forget_all();
        for p in &out.penalize {
            let s = &mut self.sfs[p.subflow];
            s.snd.cc_state.cwnd = p.new_cwnd;
            s.snd.cc_state.ssthresh = if p.new_ssthresh == u32::MAX {
                INFINITE_SSTHRESH
            } else {
                p.new_ssthresh
            };
            s.snd.counters.penalizations += 1;
        }
        if let Some(id) = out.retransmit_head_on {
            if let Some((dsn, s)) = self.send.head() {
                self.views_valid &= !(1u64 << (id % 64));
                if self.send_on(now, id, dsn, s.len).taken() {
                    self.sfs[id].snd.counters.bytes_reinjected += s.len as u64;
                    // the scheduler loop stops here: look again on the next poll
                    self.dirty = true;
                }
            }
            return true;
        }
        false
    }

    /// The connection-level scheduler loop (Linux `mptcp_write_xmit`): offer
    /// the reinjection queue's head, else the next new segment.
    fn schedule(&mut self, now: Nanos) {
        if self.mode == Mode::Handshake {
            return;
        }
        if self.pushes.pending() {
            self.schedule_pushes(now);
            self.pushes.clear();
            return;
        }
        self.pass_if_any(now);
    }

    /// `schedule` with application writes to replay as pushes of their own
    /// (`super::push`): the first push begins a fresh pick.
    #[cold]
    fn schedule_pushes(&mut self, now: Nanos) {
        if self.mode == Mode::Mptcp {
            self.sched.new_push();
        }
        self.pass_if_any(now);
    }

    /// One pass of the scheduler. Only its entry tests are inlined: on the
    /// receiving end of a transfer (every data segment's `fill`) the pass
    /// stops at them, and the call with its prologue cost about as much as
    /// the tests (4 M instructions in the htsim scenario). The rest keeps
    /// the name `schedule_pass`, which the hot-symbol order
    /// (`crates/cli/hot-symbols.txt`) places.
    #[inline(always)]
    fn pass_if_any(&mut self, now: Nanos) {
        if self.mode == Mode::Fallback {
            self.schedule_fallback(now);
            return;
        }
        if !self.copies
            && !self.write_blocked
            && self.send.unsent() == 0
            && !self.send.repeat_queued()
        {
            // Nothing to offer and nothing for `on_send_blocked` (the
            // receiving end, on every data segment): the loop would stop
            // at its first test.
            return;
        }
        self.schedule_pass(now);
    }

    /// `pass_if_any` past its entry tests: something to offer.
    #[inline(never)]
    fn schedule_pass(&mut self, now: Nanos) {
        let Some(mss) = self.pass_mss() else { return };
        if self.bufs.is_some() || self.msk_rtx.is_some() {
            self.upstream_pass_start(now);
        }
        let mut views = std::mem::take(&mut self.view_buf);
        self.in_push = self.bufs.is_some();
        self.schedule_loop(now, mss, &mut views);
        if self.in_push {
            self.in_push = false;
            self.sync_all_skbs();
        }
        self.view_buf = views;
    }

    /// The segment size limit of a pass: the smallest send MSS of the
    /// established subflows (v0.9x `mptcp_current_mss`, which
    /// `mptcp_write_xmit` cuts new segments by), none when no subflow is
    /// established. Carried from the last pass in
    /// `pass_mss` (see there) while no subflow's state or MSS changed.
    #[inline(always)]
    fn pass_mss(&mut self) -> Option<u32> {
        if self.pass_mss != 0 {
            #[cfg(any(debug_assertions, feature = "invariants"))]
            self.check_pass_mss();
            return Some(self.pass_mss as u32);
        }
        let mss = self.established_mss()?;
        // (0 where it does not fit: found again on every pass)
        self.pass_mss = u16::try_from(mss).unwrap_or(0);
        Some(mss)
    }

    /// The smallest send MSS of the established subflows (`pass_mss`).
    fn established_mss(&self) -> Option<u32> {
        self.sfs
            .iter()
            .filter(|s| s.established())
            .map(|s| s.snd.mss)
            .min()
    }

    /// Builds with invariants: the MSS carried in `pass_mss` is the one
    /// the subflows give now (a change of a subflow's state or MSS that
    /// did not run `forget_all` would cut segments at a stale size).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_pass_mss(&self) {
        assert_eq!(
            Some(self.pass_mss as u32),
            self.established_mss(),
            "pass_mss carried from the last pass is stale"
        );
    }

    /// `schedule_pass` of a connection in fallback (RFC 8684 3.7): the data
    /// goes to the one subflow in order. Out of line, as the other rare
    /// steps of the pass below: the pass runs on every ACK, and its machine
    /// code missed the instruction cache more than any other function's.
    #[cold]
    #[inline(never)]
    fn schedule_fallback(&mut self, now: Nanos) {
        while let Some((dsn, len)) = self.send.peek_new(self.sfs[0].snd.mss) {
            self.views_valid &= !1;
            if !self.send_on(now, 0, dsn, len).taken() {
                break;
            }
        }
        if self.app_closed && !self.fallback_fin_pushed && self.send.unsent() == 0 {
            self.fallback_fin_pushed = true;
            self.sfs[0].snd.push_fin();
            self.drain_subflow(now, 0);
        }
    }

    /// The start of a pass with send buffers (`bufs`) or the connection-level
    /// retransmission timer (`msk_rtx`), both of the upstream model only.
    #[cold]
    #[inline(never)]
    fn upstream_pass_start(&mut self, now: Nanos) {
        if let Some(b) = &mut self.bufs {
            let mem = self.sfs.iter().map(|s| sndbuf::SubflowMem {
                established: s.established(),
                mss: s.snd.mss,
                cwnd: s.snd.cwnd(),
                in_flight: s.snd.in_flight(),
            });
            self.send.sndbuf = b.update(mem, self.write_blocked);
        }
        if self.msk_rtx.is_some() && (self.send.unsent() > 0 || self.send.resend_queued()) {
            // `__mptcp_push_pending` with a send head: its
            // `mptcp_subflow_get_send` stores the interval the connection
            // timer's next (re-)arm uses (`__mptcp_set_timeout`), read from
            // the subflows' timers before this pass hands anything out.
            let sfs = self.msk_rtx_states();
            if let Some(r) = &mut self.msk_rtx {
                r.set_timeout(now, &sfs);
            }
        }
    }

    /// `drain_subflow` where it is rarely needed (a held fragment piece, see
    /// `FragPiece`): a call instead of another inlined copy of its body.
    #[cold]
    #[inline(never)]
    fn drain_subflow_cold(&mut self, now: Nanos, i: usize) {
        self.drain_subflow(now, i);
    }

    /// The redundant scheduler's copy of unacknowledged data, if it offers
    /// one (`Scheduler::copy_candidate`).
    #[cold]
    #[inline(never)]
    fn copy_offer(&mut self, views: &[SubflowView]) -> Option<(u64, u32)> {
        let mut unacked = self
            .send
            .inflight
            .iter()
            .map(|(d, s)| (d, s.len, s.sent_on));
        self.sched.copy_candidate(views, &mut unacked)
    }

    /// A new application write's push begins (`super::push`); true when the
    /// previous push was ended here and every view is out of date.
    #[cold]
    #[inline(never)]
    fn begin_push(&mut self) -> bool {
        self.sched.new_push();
        if self.in_push {
            // the previous write's push ended with its
            // `mptcp_push_release` -> `tcp_push`
            self.sync_all_skbs();
            return true;
        }
        false
    }

    /// Nothing to offer and the writer blocked: the scheduler's
    /// `on_send_blocked` (its penalisations, a head retransmission).
    #[cold]
    #[inline(never)]
    fn send_blocked(&mut self, now: Nanos, views: &[SubflowView]) {
        let conn = self.conn_view(true);
        let out = self.sched.on_send_blocked(now, views, &conn);
        self.apply(now, &out);
    }

    /// The body of `schedule` for an MPTCP connection; `views` is scratch
    /// space for the subflow snapshot taken before each decision.
    fn schedule_loop(&mut self, now: Nanos, mss: u32, views: &mut Vec<SubflowView>) {
        // Subflows whose entry in `views` is out of date: those not in
        // `views_valid` (every one where the views are not kept). Within this
        // loop a subflow changes only when a segment is handed to it or a
        // scheduler penalises it; the others' views stay as they were, so
        // only the changed ones are rebuilt.
        if !(self.quiet_tracked() && views.len() == self.sfs.len() && self.sfs.len() <= 64) {
            self.views_valid = 0;
        }
        // The first piece of a segment cut at a page fragment's start,
        // queued on its subflow but not sent before the decision at the
        // fragment's start (see `FragPiece`).
        let mut held: Option<FragPiece> = None;
        // The subflow the previous round's decision sent a segment to, when
        // the scheduler's next decision is known (`repeats_fresh_pick`):
        // that segment was sent nowhere before and fit the peer's window,
        // it went to that one subflow alone (no held piece drained
        // elsewhere), and the send moved only that subflow's view, which
        // was updated and kept (`Handed::AloneInFlight`).
        let mut repeat: Option<usize> = None;
        if self.repeats_pick && self.fresh_by_views && self.views_valid != 0 {
            repeat = self.pick_at_pass_start(views);
        }
        const ROUNDS: u32 = 100_000;
        let mut rounds = 0;
        loop {
            // The plain repeated rounds run in a loop of their own (`repeat.rs`).
            if let Some(p) = repeat {
                match self.repeat_sends(now, mss, views, p, &mut rounds, ROUNDS) {
                    Repeated::General(r) => repeat = r,
                    Repeated::Stop => break,
                }
            }
            if rounds == ROUNDS {
                break;
            }
            rounds += 1;
            // ... and still available: the pick of this round if its offer
            // is also new data that fits (read from the kept view, which is
            // the subflow's state: `check_views`)
            let again = repeat
                .take()
                .filter(|&p| self.views_valid & (1u64 << p) != 0 && views[p].available());
            // Nothing to offer and nothing for `on_send_blocked` (the
            // receiving end on every data segment): stop before taking the
            // snapshot, which is all the loop below would do.
            // (both answers stay as they are until a segment is handed out
            // below, so they are read once per pass)
            let reinject = self.send.next_reinject();
            // Data pushed again after a stale mark comes before new data
            // (`first_pending` is the retransmission queue's head).
            let resend = if reinject.is_none() {
                self.send.next_resend()
            } else {
                None
            };
            let new = resend.or_else(|| self.send.peek_new(mss));
            if let Some(h) = held {
                if reinject.is_some() || resend.is_some() || new.map(|n| n.0) != Some(h.next) {
                    held = None;
                    self.drain_subflow_cold(now, h.id);
                    self.views_valid &= !(1u64 << h.id);
                }
            }
            if !self.copies && !self.write_blocked && reinject.is_none() && new.is_none() {
                break;
            }
            // No subflow available: the scheduler would answer Wait or
            // NoneAvailable and change nothing (`idle_without_available`),
            // which ends the loop below. Where no view is kept, stop before
            // the snapshot; where views are kept (`views_valid`: at most
            // the subflows touched since the last pass are stale), bring the
            // stale ones up to date first and ask the views, which answer
            // what `sf_available` would: the subflow an ACK touched is read
            // once (its view is rebuilt on nearly every pass that sends)
            // instead of twice, and a view rebuilt for a pass that ends
            // here stays kept until its subflow changes.
            #[cfg(any(debug_assertions, feature = "invariants"))]
            self.check_stale_within_subflows();
            let mut stale = !self.views_valid;
            if stale == u64::MAX {
                if self.idle_unavailable
                    && again.is_none()
                    && !self.sfs.iter().any(|s| self.sf_available(s))
                {
                    break;
                }
                if views.len() != self.sfs.len() {
                    self.sched_views(views);
                } else {
                    // in place: cheaper than clearing and extending the vector
                    for (id, v) in views.iter_mut().enumerate() {
                        *v = self.sched_view(&self.sfs[id]);
                    }
                }
                self.views_valid = u64::MAX;
            } else {
                #[cfg(any(debug_assertions, feature = "invariants"))]
                self.check_views(views);
                while stale != 0 {
                    let id = stale.trailing_zeros() as usize;
                    views[id] = self.sched_view(&self.sfs[id]);
                    stale &= stale - 1;
                }
                self.views_valid = u64::MAX;
                if self.idle_unavailable && again.is_none() && !views.iter().any(|v| v.available())
                {
                    debug_assert!(!self.sfs.iter().any(|s| self.sf_available(s)));
                    break;
                }
            }
            let views_now = &views[..];
            // A cut offer: the end of the segment it was cut from. The
            // offer at a held piece's fragment start: the whole segment
            // that starts there (and its cut), for another subflow.
            let mut cut = None;
            let mut whole = None;
            let copy = if self.copies {
                self.copy_offer(views_now)
            } else {
                None
            };
            let (dsn, len, reinj) = if let Some((d, l)) = reinject {
                (d, l, true)
            } else if let Some((d, l)) = copy {
                // A copy (redundant scheduler): offered like a reinjection.
                (d, l, true)
            } else if let (Some((d, l)), Some(_)) = (new, resend) {
                // Already written: no application push boundary applies.
                (d, l, false)
            } else if let Some((d, l)) = new {
                // One push per application write (`super::push`).
                let step = self.pushes.step(d);
                if step.new_push && self.begin_push() {
                    self.views_valid = 0;
                }
                let l = (l as u64).min(step.end.saturating_sub(d)) as u32;
                let (w, w_cut) = self.frag_cut(d, l);
                match held {
                    // the rest of the held piece's segment, as far as the
                    // next fragment start
                    Some(h) => {
                        whole = Some((w, w_cut));
                        let rest = (h.end - d) as u32;
                        if w < rest {
                            cut = Some(h.end);
                        }
                        (d, w.min(rest), false)
                    }
                    None => {
                        cut = w_cut;
                        (d, w, false)
                    }
                }
            } else {
                if self.write_blocked {
                    self.send_blocked(now, views_now);
                }
                break;
            };
            // (re-pushed data lies below `snd_nxt`, inside the window it was
            // first sent in: `mptcp_check_allowed_size` admits it)
            let fits = reinj || resend.is_some() || dsn + len as u64 <= self.send.wnd_end();
            // The decision on new data that fits (the scheduler's
            // `repeats_fresh_pick` holds for it).
            let fresh = !reinj && fits && held.is_none();
            let (out, pick, by_views);
            pick = again.filter(|_| fresh);
            let ids: &[usize] = match &pick {
                Some(p) => {
                    #[cfg(any(debug_assertions, feature = "invariants"))]
                    self.check_repeat(now, views_now, dsn, len, *p);
                    std::slice::from_ref(p)
                }
                // A decision on new data (or a re-push) that fits where no
                // pick is repeated (views not kept, the repeated pick no
                // longer available, a held fragment piece): the scheduler's
                // answer read off the views, as v0.9x `mptcp_next_segment`
                // -> `get_available_subflow` finds it
                // (`Scheduler::picks_fresh_by_views`). With no pick the
                // scheduler would answer Wait or NoneAvailable and change
                // nothing: the loop ends.
                None if self.fresh_by_views && !reinj && fits => {
                    by_views = super::sched::fresh_pick(views_now);
                    #[cfg(any(debug_assertions, feature = "invariants"))]
                    self.check_fresh_pick(now, views_now, dsn, len, by_views);
                    #[cfg(test)]
                    FRESH_PICKS.with(|n| n.set(n.get() + 1));
                    match &by_views {
                        Some(p) => std::slice::from_ref(p),
                        None => break,
                    }
                }
                None => {
                    let conn = self.conn_view(fits);
                    let seg = self.offer(dsn, len, reinj);
                    out = self.sched.schedule(now, views_now, &conn, &seg);
                    if self.apply(now, &out) {
                        break;
                    }
                    if !out.penalize.is_empty() {
                        self.views_valid = 0;
                    }
                    match &out.decision {
                        Decision::Send(id) => std::slice::from_ref(id),
                        Decision::SendMany(ids) => ids,
                        Decision::Wait | Decision::NoneAvailable => break,
                    }
                }
            };
            let (mut len, mut fits) = (len, fits);
            if let Some(h) = held.take() {
                if ids != [h.id] {
                    // The fragment at `dsn` goes elsewhere: the held piece
                    // ends its subflow's data (`mptcp_push_release` ->
                    // `tcp_push` before the next subflow is pushed), and
                    // the new pick takes a whole segment from here.
                    self.drain_subflow_cold(now, h.id);
                    self.views_valid &= !(1u64 << h.id);
                    if let Some((w, w_cut)) = whole {
                        self.sched.resize_last(len, w);
                        (len, cut) = (w, w_cut);
                        fits = dsn + len as u64 <= self.send.wnd_end();
                    }
                }
            }
            if !fits {
                break;
            }
            if let (Some(end), &[id]) = (cut, ids) {
                // Queue the piece up to the fragment start and decide
                // there; it leaves with the rest of its segment if the
                // same subflow takes the next fragment.
                self.views_valid &= !(1u64 << id);
                if self.queue_on(id, dsn, len) {
                    held = Some(FragPiece {
                        id,
                        next: dsn + len as u64,
                        end,
                    });
                    continue;
                }
            }
            let mut sent = false;
            let over = !reinj && resend.is_none() && self.send.overshoots(dsn + len as u64);
            for &id in ids {
                self.views_valid &= !(1u64 << id);
                let handed = self.send_on(now, id, dsn, len);
                if handed == Handed::AloneInFlight {
                    // `sched_view` of the subflow now, from the one before
                    // the send (`Handed`); `check_views` compares them
                    let v = &mut views[id];
                    v.inflight_pkts += 1;
                    v.unacked_bytes += len as u64;
                    self.views_valid |= 1u64 << id;
                    if fresh && self.repeats_pick && ids.len() == 1 {
                        repeat = Some(id);
                    }
                }
                if handed.taken() {
                    sent = true;
                    self.sfs[id].snd.counters.wnd_overshoots += over as u64;
                    if (reinj && copy.is_none()) || resend.is_some() {
                        self.sfs[id].snd.counters.bytes_reinjected += len as u64;
                    }
                }
            }
            if !sent {
                break;
            }
            if reinj && copy.is_none() {
                self.send.pop_reinject();
            }
            if resend.is_some() {
                self.send.pop_resend();
            }
        }
        if let Some(h) = held {
            self.drain_subflow_cold(now, h.id);
        }
    }

    /// The pass's first decision on new data that fits, known before the
    /// first round (`schedule_loop`'s `repeat`), where the views are kept
    /// and the scheduler states both `repeats_fresh_pick` and
    /// `picks_fresh_by_views` (minRTT): the stale views (those of the
    /// subflows an ACK or a timer touched since the last pass) are brought
    /// up to date, and `fresh_pick` on them is what the scheduler answers
    /// for such data (v0.9x `mptcp_next_segment` -> `get_available_subflow`).
    /// That is the premise of `repeat_sends`' rounds, so the pass starts
    /// there and the common pass (new data, the ACKed subflow's window
    /// opened) runs no general round. Where the offer is anything else (a
    /// reinjection or re-push queued, a new push, a cut at a page fragment,
    /// a segment past the window, nothing new) `repeat_sends` stops before
    /// changing anything and the general round runs with this pick as its
    /// repeated one, which is the scheduler's answer there too. A view
    /// rebuilt here for a pass that ends without a send stays kept until
    /// its subflow changes. Unlike the general round, which stops before
    /// its snapshot when nothing is offered, this rebuilds the stale views
    /// on every such pass too (the receiving end's, on each data segment).
    /// Builds with invariants compare the views (`check_views`) and each
    /// repeated pick with the scheduler's answer (`check_repeat`).
    #[inline(always)]
    fn pick_at_pass_start(&mut self, views: &mut [SubflowView]) -> Option<usize> {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        {
            self.check_views(views);
            self.check_stale_within_subflows();
        }
        let mut stale = !self.views_valid;
        while stale != 0 {
            let id = stale.trailing_zeros() as usize;
            views[id] = self.sched_view_inline(&self.sfs[id]);
            stale &= stale - 1;
        }
        self.views_valid = u64::MAX;
        #[cfg(test)]
        FRESH_PICKS.with(|n| n.set(n.get() + 1));
        super::sched::fresh_pick(views)
    }

    /// Builds with invariants: the stale set `!views_valid` names live
    /// subflows only. The walks over it (`pick_at_pass_start`, the general
    /// round's rebuild) index `views` and `sfs` by its bits, so every bit
    /// at or above `sfs.len()` must be set whenever `views_valid` is not 0:
    /// a kept set is made by `= u64::MAX` and narrowed by clearing live
    /// subflows' bits; the one bit set again (`Handed::AloneInFlight`) is a
    /// live subflow's, and the review found no path where it is set on a
    /// set cleared to 0 (which this would catch).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_stale_within_subflows(&self) {
        let n = self.sfs.len();
        if n < 64 && self.views_valid != 0 {
            assert_eq!(
                self.views_valid >> n,
                u64::MAX >> n,
                "a view marked stale past the last subflow ({n} subflows, views_valid {:#x})",
                self.views_valid
            );
        }
    }

    /// The segment [dsn, dsn + len) as the scheduler is offered it.
    #[inline]
    fn offer(&self, dsn: u64, len: u32, reinj: bool) -> Segment {
        Segment {
            len,
            reinjection: reinj,
            sent_on: if reinj { self.send.sent_on(dsn) } else { 0 },
            frag_boundary: reinj || self.send.enters_new_frag(dsn, len),
        }
    }

    /// Builds with invariants: the scheduler asked for new data
    /// [dsn, dsn + len) that fits the peer's window, a decision `what` the
    /// connection took without the call; asserts that the call left the
    /// scheduler's state (`Scheduler::checked_state`: minRTT's
    /// penalisation clock, v0.9x `mptcp_rcv_buf_optimization`'s
    /// `last_rbuf_opti`) as it was, since the shortcut skips whatever the
    /// call writes. A scheduler that states a shortcut must give its state.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn ask_for_skipped(
        &mut self,
        now: Nanos,
        views: &[SubflowView],
        dsn: u64,
        len: u32,
        what: &str,
    ) -> SchedOutcome {
        let before = self.sched.checked_state().unwrap_or_else(|| {
            panic!(
                "{what}: scheduler {} takes decisions without the call but gives no state to check",
                self.sched.name()
            )
        });
        let conn = self.conn_view(true);
        let seg = self.offer(dsn, len, false);
        let out = self.sched.schedule(now, views, &conn, &seg);
        let after = self.sched.checked_state();
        assert_eq!(
            after.as_deref(),
            Some(before.as_str()),
            "{what}: the call changed the scheduler's state, which taking the decision without it leaves as it was"
        );
        out
    }

    /// Builds with invariants: the pick `schedule_loop` repeats without
    /// asking (`Scheduler::repeats_fresh_pick`) is the scheduler's answer,
    /// the scheduler says nothing else and its state is left as it was
    /// (`ask_for_skipped`).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_repeat(&mut self, now: Nanos, views: &[SubflowView], dsn: u64, len: u32, p: usize) {
        let what = format!("repeated pick of subflow {p}");
        let out = self.ask_for_skipped(now, views, dsn, len, &what);
        assert_eq!(out, SchedOutcome::just(Decision::Send(p)), "{what}");
    }

    /// Builds with invariants: the decision `schedule_loop` read off the
    /// views (`Scheduler::picks_fresh_by_views`) is the scheduler's answer
    /// for new data [dsn, dsn + len) that fits the peer's window, the
    /// scheduler says nothing else (no pick: `Wait` or `NoneAvailable`),
    /// and its state is left as it was (`ask_for_skipped`).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_fresh_pick(
        &mut self,
        now: Nanos,
        views: &[SubflowView],
        dsn: u64,
        len: u32,
        pick: Option<usize>,
    ) {
        let what = match pick {
            Some(p) => format!("fresh pick of subflow {p} read off the views"),
            None => "no fresh pick read off the views".to_string(),
        };
        let out = self.ask_for_skipped(now, views, dsn, len, &what);
        match pick {
            Some(p) => assert_eq!(out, SchedOutcome::just(Decision::Send(p)), "{what}"),
            None => assert!(
                matches!(out.decision, Decision::Wait | Decision::NoneAvailable)
                    && out.retransmit_head_on.is_none()
                    && out.penalize.is_empty(),
                "{what}, the scheduler answered {out:?}"
            ),
        }
    }

    /// Tests: scheduler `sched` in place of the configured one, with the
    /// shortcuts it states (as `new` asks them).
    #[cfg(test)]
    pub(crate) fn replace_scheduler(&mut self, sched: Box<dyn Scheduler>) {
        self.copies = sched.sends_copies();
        self.idle_unavailable = sched.idle_without_available();
        self.repeats_pick = sched.repeats_fresh_pick();
        self.fresh_by_views = sched.picks_fresh_by_views();
        self.sched = sched;
        self.views_valid = 0;
    }

    /// New data [d, d + l) as the push loop offers it: cut at the first
    /// page fragment start inside, if any, with the segment's end.
    fn frag_cut(&self, d: u64, l: u32) -> (u32, Option<u64>) {
        match self.send.frag_start_within(d, l) {
            Some(s) => ((s - d) as u32, Some(d + l as u64)),
            None => (l, None),
        }
    }

    /// Seed 001's MPTCP-level TLP: the probe due on subflow `i` is also sent
    /// on an alternate subflow chosen by the scheduler.
    fn mptcp_level_tlp(&mut self, now: Nanos, i: usize) {
        let sf = &self.sfs[i];
        let m = match sf.snd.tlp_probe() {
            Some(TlpProbe::NewData { .. }) => sf.map_of(sf.snd.snd_nxt),
            Some(TlpProbe::Retransmit { seq, .. }) => sf.map_of(seq),
            None => None,
        };
        let Some(m) = m else { return };
        if m.dsn + m.len as u64 <= self.send.una {
            return;
        }
        let mut views = Vec::new();
        self.sched_views(&mut views);
        let conn = self.conn_view(true);
        let probe = Segment {
            len: m.len,
            reinjection: true,
            sent_on: self.send.sent_on(m.dsn),
            frag_boundary: true,
        };
        if let Some(a) = tlp_alternate(
            self.sched.as_mut(),
            now,
            &views,
            &conn,
            &probe,
            self.sfs[i].id,
        ) {
            self.views_valid &= !(1u64 << (a % 64));
            if self.send_on(now, a, m.dsn, m.len).taken() {
                self.sfs[a].snd.counters.bytes_probe_extra += m.len as u64;
            }
        }
    }

    /// A subflow with a full window is cwnd-limited while the connection
    /// holds data (v0.9x mptcp_write_xmit -> tcp_cwnd_validate).
    fn note_owner_pending(&mut self) {
        let pending = self.send.unsent() > 0 || self.send.repeat_queued();
        if self.owner_pending != Some(pending) {
            for sf in &mut self.sfs {
                sf.snd.owner_has_data = pending;
            }
            self.owner_pending = Some(pending);
            // (`end_pass` reads it)
            self.forget_all();
        }
    }

    /// Something may have changed any subflow's sender: every drain is
    /// redone (`snd_quiet`), every scheduler view rebuilt (`views_valid`)
    /// and the pass's MSS found again (`pass_mss`).
    #[inline]
    fn forget_all(&mut self) {
        self.snd_quiet = 0;
        self.views_valid = 0;
        self.pass_mss = 0;
    }

    /// Subflow `i`'s sender may have changed (its drain is redone and its
    /// scheduler view rebuilt).
    #[inline]
    fn forget(&mut self, i: usize) {
        let bit = !(1u64 << (i % 64));
        self.snd_quiet &= bit;
        self.views_valid &= bit;
    }

    /// `snd_quiet` is kept: an MPTCP connection whose drains are only
    /// `next_tx` (no send buffers: `tso_round`; no connection-level timer).
    #[inline]
    fn quiet_tracked(&self) -> bool {
        self.mode == Mode::Mptcp && self.bufs.is_none() && self.msk_rtx.is_none()
    }

    /// Debug builds: a drain `snd_quiet` skips would have sent nothing and
    /// left the sender's pass state as it was. (Runs the drain to see.)
    #[cfg(debug_assertions)]
    fn check_quiet(&mut self, now: Nanos, i: usize) {
        let idle = self.sfs[i].snd.nothing_to_send();
        let (queued, before) = (self.out.len(), self.sfs[i].snd.pass_state());
        self.drain_subflow(now, i);
        assert!(
            idle && self.out.len() == queued && self.sfs[i].snd.pass_state() == before,
            "snd_quiet skipped the drain of subflow {i}, which acted"
        );
    }

    /// Builds with invariants: every view `views_valid` keeps is the one
    /// `sched_view` builds now (the scheduler would decide the same).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    fn check_views(&self, views: &[SubflowView]) {
        for (id, v) in views.iter().enumerate() {
            if id < 64 && self.views_valid & (1u64 << id) != 0 {
                assert_eq!(
                    *v,
                    self.sched_view(&self.sfs[id]),
                    "kept view of subflow {id}"
                );
            }
        }
    }

    /// The push that ends each application write on an upstream
    /// connection with page fragments: Linux `mptcp_sendmsg`
    /// (net/mptcp/protocol.c) calls `__mptcp_push_pending` before it
    /// returns, so the call's data is handed to the subflows before the
    /// application's next call copies anything. That next call then finds
    /// no pending tail when everything went out (`mptcp_pending_tail` is
    /// NULL once `first_pending` is), carves a new fragment
    /// (`mptcp_carve_data_frag`: 40 bytes of header at the next aligned
    /// offset, charged to `sk_wmem_queued`), and so a run of 64 KiB writes
    /// lays out its fragments, and a blocked writer stops, where the
    /// kernel's does. Replaying the writes' pushes only when the
    /// connection is next polled (`super::push`) copied every write of the
    /// instant into the still-pending tail first: 40 bytes less per write.
    fn push_write(&mut self, now: Nanos) {
        self.note_owner_pending();
        self.schedule(now);
    }

    /// Everything to transmit now, appended to `out`.
    fn fill(&mut self, now: Nanos) {
        self.note_owner_pending();
        debug_assert!(
            self.syn_due || !self.sfs.iter().any(|s| s.syn_pending),
            "a SYN was queued without syn_due"
        );
        let tracked = self.quiet_tracked();
        for i in 0..self.sfs.len() {
            let bit = 1u64 << (i % 64);
            if i < 64 && self.snd_quiet & bit != 0 {
                #[cfg(debug_assertions)]
                self.check_quiet(now, i);
                continue;
            }
            // (a drain may change the sender even when it sends nothing)
            self.views_valid &= !(1u64 << (i % 64));
            self.drain_subflow(now, i);
            if tracked
                && i < 64
                && matches!(
                    self.sfs[i].state,
                    SfState::Established | SfState::PreEstablished
                )
                && self.sfs[i].snd.nothing_to_send()
            {
                self.snd_quiet |= bit;
            }
        }
        self.schedule(now);
        // SYNs after the data of this instant: a join is opened by the PM
        // worker (net/mptcp/pm.c: `mptcp_pm_fully_established` and
        // `mptcp_pm_add_addr_received` only `mptcp_pm_schedule_work`;
        // net/mptcp/protocol.c: `mptcp_worker` -> `__mptcp_subflow_connect`
        // runs in process context), so the softirq that processed the ACK
        // has already sent what that ACK released (`tcp_rcv_established` ->
        // `tcp_data_snd_check`). The order decides which of the two reaches
        // the bottleneck first (docs/validation.md, "Session 20: UDE->HU").
        if self.syn_due {
            self.syn_due = false;
            for i in 0..self.sfs.len() {
                if self.sfs[i].syn_pending {
                    let sf = &mut self.sfs[i];
                    sf.syn_pending = false;
                    if sf.syn_retx == 0 {
                        sf.syn_sent_at = now;
                    }
                    sf.syn_timer = Some(now + sf.syn_rto);
                    self.build_syn(i, now);
                }
            }
        }
        if self.mode == Mode::Mptcp && self.send.fin_ready() && self.fin_timer.is_none() {
            self.build_data_fin(now);
        }
        if self.msk_rtx.is_some() && self.mode == Mode::Mptcp {
            let (una, outstanding) = (self.send.una, self.send.nxt > self.send.una);
            if let Some(r) = &mut self.msk_rtx {
                r.update(now, una, outstanding);
            }
        }
        // (the connection-level halves of `signal` read once, not per subflow)
        let add_addr = !self.add_addr_pending.is_empty();
        let rm_addr = !self.rm_addr_pending.is_empty();
        for i in 0..self.sfs.len() {
            let sf = &self.sfs[i];
            let signal = sf.third_ack_pending
                || (sf.established()
                    && (sf.prio_pending.is_some() || (sf.initial && add_addr) || rm_addr));
            if matches!(sf.state, SfState::Established | SfState::PreEstablished)
                && (sf.rcv.ack_due() || signal)
            {
                self.build_ack(i, now);
            }
        }
    }

    /// A local address's backup flag changes (`prio.rs`): its subflows are
    /// re-flagged and each sends MP_PRIO on its next segment (an ACK is
    /// forced, as `mptcp_pm_nl_mp_prio_send_ack`); later subflows from it
    /// start with the new flag.
    /// Apply the scenario's scheduled events due at `now` (MP_PRIO changes,
    /// address removals, the MP_FASTCLOSE abort) and note when the next is.
    #[cold]
    #[inline(never)]
    fn scheduled_events(&mut self, now: Nanos) {
        while let Some(&c) = self.cfg.prio_changes.get(self.prio_next) {
            if c.at > now {
                break;
            }
            self.prio_next += 1;
            self.change_prio(c);
        }
        // an abort after a normal close does nothing (nothing to reset)
        if self.cfg.fastclose_at.is_some_and(|t| now >= t) && !self.close_reported {
            self.fastclose(now);
        }
        while let Some(&r) = self.cfg.removals.get(self.removal_next) {
            if r.at > now || self.aborted {
                break;
            }
            self.removal_next += 1;
            self.remove_local_addr(now, r.addr);
        }
        self.refresh_sched_next();
    }

    fn refresh_sched_next(&mut self) {
        let fc = self
            .cfg
            .fastclose_at
            .filter(|_| !self.close_reported && !self.aborted);
        self.sched_next = [
            self.cfg.prio_changes.get(self.prio_next).map(|c| c.at),
            self.cfg.removals.get(self.removal_next).map(|r| r.at),
            fc,
        ]
        .into_iter()
        .flatten()
        .min();
    }

    fn change_prio(&mut self, c: PrioChange) {
        self.cfg.backup_addrs.retain(|&a| a != c.addr);
        if c.backup {
            self.cfg.backup_addrs.push(c.addr);
        }
        for sf in self.sfs.iter_mut().filter(|s| s.local == c.addr) {
            if sf.backup != c.backup {
                sf.backup = c.backup;
                sf.prio_pending = Some(c.backup);
            }
        }
    }

    /// What the connection-level retransmission timer reads of the subflows.
    fn msk_rtx_states(&self) -> Vec<msk_rtx::SfState> {
        self.sfs
            .iter()
            .map(|s| msk_rtx::SfState {
                active: s.established(),
                backup: s.backup,
                busy: s.snd.buffered() > 0,
                timer: s.snd.next_timeout(),
            })
            .collect()
    }

    /// The connection-level retransmission timer fired (`__mptcp_retrans`):
    /// re-send the oldest unacknowledged fragment on an idle subflow, and
    /// all unacknowledged data when a subflow turned stale
    /// (`__mptcp_retransmit_pending_data`).
    fn msk_retrans(&mut self, now: Nanos) {
        let sfs = self.msk_rtx_states();
        let Some(r) = self.msk_rtx.as_mut() else {
            return;
        };
        let out = r.on_expiry(now, &sfs);
        if !out.newly_stale.is_empty() && self.send.retransmit_pending() {
            // `mptcp_pm_nl_subflow_chk_stale` -> `__mptcp_retransmit_pending_data`
            // (all unacked data pending again, `msk->snd_burst = 0`) and
            // `__mptcp_push_pending`: the data goes through
            // `mptcp_subflow_get_send`, as much as the other subflows'
            // windows take, not one segment per idle subflow.
            self.sched.new_push();
        }
        if let Some(i) = out.on {
            // `mptcp_rtx_head`, from the DATA_ACK up to its `already_sent`
            // (`info.limit`), sent once on the picked subflow.
            let Some((start, end)) = self.send.rtx_head(msk_rtx::DFRAG_BYTES) else {
                return;
            };
            // Exactly [snd_una, end): the segments that first carried
            // these bytes are cut at the DATA_ACK and at the fragment's
            // end (`mptcp_sendmsg_frag` stops at `info.limit`), in new
            // mappings on the picked subflow's write queue.
            for (key, d, l) in self.send.rtx_pieces(start, end) {
                self.sfs[i].push_queued(d, l);
                self.send.mark_resent(key, i);
                self.sfs[i].snd.counters.bytes_reinjected += l as u64;
                self.sfs[i].snd.counters.msk_retrans += 1;
            }
            self.drain_subflow(now, i);
        }
    }

    pub fn ofo(&self) -> &MetaRecv {
        &self.recv
    }
}

impl MptcpConnection {
    /// The earliest of the connection's and its subflows' deadlines
    /// (`Endpoint::poll_timeout`, and `poll_event_or_timeout` at the end of
    /// every drain, where it is inlined).
    #[inline(always)]
    fn earliest_deadline(&self) -> Option<Nanos> {
        if self.aborted {
            return None;
        }
        // The earliest deadline, folded without branches: `t` is the
        // minimum of the deadlines set, `any` whether there was one.
        #[inline]
        fn fold(t: &mut Nanos, any: &mut bool, x: Option<Nanos>) {
            *any |= x.is_some();
            *t = (*t).min(x.unwrap_or(Nanos::MAX));
        }
        let (mut t, mut any) = (Nanos::MAX, false);
        // The connection-level deadlines, none of which is set on almost
        // every call (the engine asks after every packet in): one test of
        // the four sources first, then their fold. The fold's minimum and
        // `any` do not depend on the order, so the answer is the same. (For
        // the ADD_ADDR timers the test is `announcing`, which holds whenever
        // the list does: an empty list folds to nothing.)
        if self.fin_timer.is_some()
            | self.sched_next.is_some()
            | self.msk_rtx.is_some()
            | self.announcing
        {
            fold(
                &mut t,
                &mut any,
                self.fin_timer.filter(|_| !self.send.fin_acked),
            );
            // the scenario's next MP_PRIO / REMOVE_ADDR / MP_FASTCLOSE time
            fold(&mut t, &mut any, self.sched_next);
            fold(
                &mut t,
                &mut any,
                self.msk_rtx.as_ref().and_then(|r| r.deadline),
            );
            if self.announcing {
                fold(&mut t, &mut any, self.announced.deadline());
            }
        }
        // (checked builds: `announce` is the list's only insertion)
        #[cfg(any(debug_assertions, feature = "invariants"))]
        assert!(self.announcing || self.announced.is_empty());
        for sf in &self.sfs {
            if sf.state == SfState::Closed {
                continue;
            }
            fold(&mut t, &mut any, sf.syn_timer);
            fold(&mut t, &mut any, sf.snd.next_timeout());
            fold(&mut t, &mut any, sf.rcv.delack_deadline);
        }
        any.then_some(t)
    }
}

impl Endpoint for MptcpConnection {
    fn gave_up(&self) -> Option<&'static str> {
        self.gave_up
    }

    fn connect(&mut self, now: Nanos) {
        self.dirty = true;
        self.forget_all();
        if self.role == Role::Client && self.sfs.is_empty() {
            let (l, r) = (self.local_addrs[0], self.remote_addrs[0]);
            let i = self.add_subflow(l, self.base_port, r, self.remote_port, SfState::SynSent);
            self.sfs[i].syn_pending = true;
            self.sfs[i].syn_sent_at = now;
        }
    }

    fn handle_packet(&mut self, now: Nanos, pkt: &Packet) {
        self.dirty = true;
        let Payload::Tcp(seg) = &pkt.payload else {
            return;
        };
        let Some(i) = self.sfs.iter().position(|s| s.matches(pkt, seg)) else {
            self.forget_all();
            if self.role == Role::Server && seg.has(flags::SYN) && !seg.has(flags::ACK) {
                self.on_new_syn(now, pkt, seg);
                if let Some(sf) = self.sfs.last_mut() {
                    let c = &mut sf.snd.counters;
                    c.packets_received += 1;
                }
            }
            return;
        };
        {
            let c = &mut self.sfs[i].snd.counters;
            c.packets_received += 1;
            if seg.len > 0 {
                c.data_packets_received += 1;
                c.bytes_received += seg.len as u64;
            }
        }
        if seg.has(flags::RST) {
            self.forget_all();
            self.on_rst(i, seg);
            return;
        }
        // (`snd_quiet`: every arm but an established subflow's segment
        // clears it; `on_segment` there says which senders it touched)
        match self.sfs[i].state {
            SfState::SynSent => {
                self.forget_all();
                if seg.has(flags::SYN) && seg.has(flags::ACK) && seg.ack == 1 {
                    if self.sfs[i].initial {
                        let cap = seg.mptcp.as_ref().and_then(|o| o.capable());
                        self.mode = if cap.is_some() && self.cfg.capable {
                            Mode::Mptcp
                        } else {
                            Mode::Fallback
                        };
                        self.peer_key = cap.map(|c| c.sender_key);
                        self.csum = self.mode == Mode::Mptcp
                            && (self.cfg.checksum || cap.is_some_and(|c| c.checksum));
                    }
                    self.negotiate(i, seg);
                    self.sfs[i].rcv.on_syn(seg.ts().map(|t| t.0));
                    self.establish(i, now, seg.ts().map(|t| t.1));
                    let sf = &mut self.sfs[i];
                    sf.rcv.force_ack();
                    if sf.initial {
                        sf.state = SfState::Established;
                        sf.third_ack_pending = self.mode == Mode::Mptcp;
                        // `mptcp_finish_connect` -> `mptcp_rcv_space_init`
                        self.rcv_space.init(now);
                        self.events.push_back(AppEvent::Connected);
                        self.pm_create(now);
                    } else {
                        sf.state = SfState::PreEstablished;
                        sf.third_ack_pending = true;
                        // `tcp_finish_connect`: the state change wakes the
                        // msk's wait queue (`wake.rs`)
                        self.wake_blocked_writer();
                    }
                }
            }
            SfState::SynRcvd => {
                self.forget_all();
                if seg.has(flags::SYN) {
                    self.sfs[i].syn_pending = true;
                    self.syn_due = true;
                    self.sfs[i].syn_retx += 1;
                } else if seg.has(flags::ACK) && seg.ack >= 1 {
                    self.establish(i, now, seg.ts().map(|t| t.1));
                    self.sfs[i].state = SfState::Established;
                    if self.sfs[i].initial {
                        // `mptcp_sk_clone_init` -> `mptcp_rcv_space_init`
                        self.rcv_space.init(now);
                        self.events.push_back(AppEvent::Connected);
                        if self.mode == Mode::Mptcp && self.kpm.is_some() {
                            // fully established at the third ACK (subflow.c
                            // `subflow_syn_recv_sock`): the PM worker announces
                            self.pm_signal(now);
                        } else if self.mode == Mode::Mptcp {
                            let first = self.sfs[0].local;
                            for (k, &a) in self.local_addrs.iter().enumerate() {
                                let signal = match self.cfg.pm {
                                    PmKind::Upstream => {
                                        self.cfg.endpoints.iter().any(|&(e, f)| e == a && f.signal)
                                    }
                                    pm => pm.announces(),
                                };
                                if a != first && signal {
                                    self.add_addr_pending.push_back((k as u8, a, false));
                                }
                            }
                        }
                    } else {
                        // RFC 8684 3.2: ACK the third ACK so the initiator may send.
                        self.sfs[i].rcv.force_ack();
                        // SYN_RECV -> ESTABLISHED: `subflow_state_change`
                        // wakes the msk's wait queue (`wake.rs`)
                        self.wake_blocked_writer();
                        // pm.c `mptcp_pm_subflow_established`: the worker runs again
                        if self.kpm.is_some() {
                            self.pm_signal(now);
                        }
                    }
                    self.on_segment(now, i, seg);
                }
            }
            SfState::PreEstablished => {
                self.forget_all();
                if seg.has(flags::SYN) {
                    self.sfs[i].third_ack_pending = true;
                    self.sfs[i].rcv.force_ack();
                } else {
                    self.sfs[i].state = SfState::Established;
                    self.on_segment(now, i, seg);
                    // pm.c `mptcp_pm_subflow_established`: the worker runs again
                    if self.kpm.is_some() {
                        self.pm_create(now);
                    }
                }
            }
            // closed by REMOVE_ADDR: late segments are dropped
            SfState::Closed => {}
            SfState::Established => {
                if seg.has(flags::SYN) {
                    self.forget_all();
                    if self.sfs[i].initial && self.mode == Mode::Mptcp {
                        self.sfs[i].third_ack_pending = true;
                    }
                    self.sfs[i].rcv.force_ack();
                    return;
                }
                // (whatever `on_segment` does to the sender: even an idle
                // ACK re-syncs its CC state)
                self.views_valid &= !(1u64 << (i % 64));
                self.on_segment_inline(now, i, seg);
            }
        }
        self.after_activity();
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Packet> {
        let mut p = Packet::VACANT;
        self.poll_transmit_into(now, &mut p).then_some(p)
    }

    #[inline]
    fn poll_transmit_into(&mut self, now: Nanos, slot: &mut Packet) -> bool {
        if self.out.pop_front_into(slot) {
            return true;
        }
        if !self.dirty {
            return false;
        }
        match self.refill_kind() {
            Refill::Full => self.refill(now, slot),
            Refill::Nothing => {
                // `refill` would queue nothing and change nothing but `dirty`
                // (the receiving end after a data segment that asks for no ACK
                // yet): see `quiet.rs`.
                #[cfg(any(debug_assertions, feature = "invariants"))]
                self.check_quiet_refill(now);
                self.dirty = false;
                false
            }
            Refill::AckOnly(i) => {
                // `refill` would build this one pure ACK (the receiving end
                // after a data segment that asks for one): built in the slot
                self.dirty = false;
                self.ack_into(now, i, slot);
                true
            }
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        self.earliest_deadline()
    }

    fn handle_timeout(&mut self, now: Nanos) {
        self.dirty = true;
        self.forget_all();
        if self.sched_next.is_some_and(|t| now >= t) {
            self.scheduled_events(now);
            if self.aborted {
                return;
            }
        }
        if self
            .msk_rtx
            .as_ref()
            .and_then(|r| r.deadline)
            .is_some_and(|t| now >= t)
            && self.mode == Mode::Mptcp
        {
            self.msk_retrans(now);
        }
        if self.announced.deadline().is_some_and(|t| now >= t) {
            // pm.c `mptcp_pm_add_timer`
            let busy = self.add_addr_pending.iter().any(|&(_, _, echo)| !echo);
            let e = self.announced.on_timeout(now, self.max_rto(), busy);
            for (id, a) in e.resend {
                self.add_addr_pending.push_back((id, a, false));
            }
            if e.gave_up {
                self.pm_signal(now);
            }
        }
        for i in 0..self.sfs.len() {
            if let Some(t) = self.sfs[i].syn_timer {
                if now >= t {
                    let sf = &mut self.sfs[i];
                    sf.syn_timer = None;
                    let active = sf.state == SfState::SynSent;
                    if sf.syn_retx >= self.cfg.tcp.max_syn_retx(active) {
                        if sf.initial && self.mode == Mode::Handshake {
                            // Linux tcp_syn_retries on the initial subflow
                            self.gave_up = Some("tcp_syn_retries");
                            self.events.push_back(AppEvent::Closed);
                        }
                        continue;
                    }
                    sf.syn_retx += 1;
                    sf.snd.counters.rto_events += 1;
                    // tcp_retransmit_timer on the subflow: linear while
                    // total_rto <= tcp_syn_linear_timeouts in SYN_SENT
                    sf.syn_rto = self.cfg.tcp.next_syn_rto(sf.syn_rto, sf.syn_retx, active);
                    sf.syn_pending = true;
                    self.syn_due = true;
                }
            }
            self.sfs[i].rcv.on_timeout(now);
            if !matches!(
                self.sfs[i].state,
                SfState::Established | SfState::PreEstablished
            ) {
                continue;
            }
            let mut views = std::mem::take(&mut self.path_buf);
            self.path_views(&mut views);
            let rto_before = self.sfs[i].snd.counters.rto_events;
            self.sfs[i].snd.on_timeout(now, Some(&views));
            self.path_buf = views;
            if self.sfs[i].snd.counters.rto_events > rto_before
                && self.mode == Mode::Mptcp
                && self.msk_rtx.is_none()
            {
                // v0.9x mptcp_retransmit_timer path: mark the subflow
                // potentially failed and reinject its unacked data at the
                // connection level (mptcp_reinject_data).
                let sf = &mut self.sfs[i];
                sf.pf = true;
                let maps: Vec<_> = sf.tx_maps.iter().copied().collect();
                for m in maps {
                    self.send.queue_reinject(m.dsn, m.len);
                }
            }
            if self.cfg.tlp == TlpMode::MptcpLevel
                && self.mode == Mode::Mptcp
                && self.sfs[i].snd.tlp_due()
            {
                self.mptcp_level_tlp(now, i);
            }
        }
        if let Some(t) = self.fin_timer {
            if now >= t {
                self.fin_timer = None; // resend on the next poll unless acked
            }
        }
    }

    fn poll_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    /// The engine's poll after a drain, both answers inline (as the
    /// trait's default it called the two methods out of line).
    fn poll_event_or_timeout(&mut self) -> Result<AppEvent, Option<Nanos>> {
        match self.events.pop_front() {
            Some(e) => Ok(e),
            None => Err(self.earliest_deadline()),
        }
    }

    fn write(&mut self, now: Nanos, len: u64) -> u64 {
        self.dirty = true;
        self.forget_all();
        if self.app_closed {
            return 0;
        }
        let n = self.send.write(len);
        if n < len {
            self.write_blocked = true;
        }
        if self.bufs.is_some() && n > 0 {
            // mptcp_sendmsg ends with __mptcp_push_pending (`super::push`)
            self.pushes.on_write(self.send.write_seq);
            if self.send.page_frag_copy && self.mode == Mode::Mptcp {
                self.push_write(now);
            }
        }
        n
    }

    fn send_space(&self) -> u64 {
        self.send.space()
    }

    fn close(&mut self, _now: Nanos) {
        self.dirty = true;
        self.forget_all();
        if !self.app_closed {
            self.app_closed = true;
            self.send.fin_queued = true;
        }
    }

    fn paths(&self) -> Vec<PathReport> {
        self.sfs
            .iter()
            .map(|s| PathReport {
                local: s.local,
                remote: s.remote,
                counters: s.snd.counters.clone(),
            })
            .collect()
    }

    fn path_states(&self) -> Vec<PathState> {
        self.sfs
            .iter()
            .map(|s| {
                let mss = s.snd.mss as u64;
                let ss = s.snd.ssthresh();
                PathState {
                    local: s.local,
                    remote: s.remote,
                    cwnd_bytes: s.snd.cwnd() as u64 * mss,
                    ssthresh_bytes: if ss >= INFINITE_SSTHRESH {
                        u64::MAX
                    } else {
                        ss as u64 * mss
                    },
                    srtt: s.snd.rtt.srtt,
                    inflight_bytes: s.snd.in_flight() as u64 * mss,
                }
            })
            .collect()
    }

    fn ofo_stats(&self) -> Option<OfoStats> {
        Some(OfoStats {
            delays: self.recv.ofo_delays.clone(),
            hol_time: self.recv.hol_time,
        })
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: the decisions `schedule_loop` read off the views
    /// (`Scheduler::picks_fresh_by_views`) on this thread. A counter outside
    /// the connection: a test-only field would move the hot fields of test
    /// builds (`layout_tests`).
    pub(super) static FRESH_PICKS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod layout_tests {
    use super::MptcpConnection;
    use std::mem::offset_of;

    /// docs/performance.md "Session 21": the upstream model's state is
    /// boxed among the per-packet fields (every segment tests whether it is
    /// there), and the IP version every segment built reads lies in the
    /// small fields' block, not in `cfg` at the record's end.
    #[test]
    fn the_per_segment_tests_read_the_hot_head() {
        let send = offset_of!(MptcpConnection, send);
        assert!(offset_of!(MptcpConnection, msk_rtx) < send);
        assert!(offset_of!(MptcpConnection, bufs) < send);
        assert!(offset_of!(MptcpConnection, ip) < offset_of!(MptcpConnection, snd_quiet));
        assert!(offset_of!(MptcpConnection, snd_quiet) <= 32);
        // docs/performance.md "Session 32": the record starts a cache line
        // and `send`'s 64-byte head (`MetaSend`: the sequence numbers, the
        // window edges and the queue flags) fills one
        assert_eq!(std::mem::align_of::<MptcpConnection>(), 64);
        assert_eq!(send % 64, 0, "send at {send}");
        // docs/performance.md "Session 33": every event's deadline tests
        // `announcing` in the head, not the ADD_ADDR list near the end
        assert!(offset_of!(MptcpConnection, announcing) < send);
        assert!(offset_of!(MptcpConnection, v09x_init_rcv_wnd) < send);
    }
}

#[cfg(all(test, any(debug_assertions, feature = "invariants")))]
mod stale_tests {
    use super::{MptcpConfig, MptcpConnection, Role};
    use crate::packet::addr;

    /// `check_stale_within_subflows` (session 30 review): a stale bit past
    /// the last subflow would send the pass start's rebuild out of `sfs`.
    #[test]
    fn a_stale_bit_past_the_last_subflow_is_caught() {
        let local = [addr(10, 1, 0, 2)];
        let remote = [addr(10, 0, 0, 2)];
        let mut c = MptcpConnection::new(
            MptcpConfig::default(),
            0,
            Role::Client,
            &local,
            40000,
            &remote,
            80,
        )
        .unwrap();
        // a new client has no subflow yet; the rule holds for any count
        let n = c.sfs.len();
        assert!(n < 63, "{n} subflows");
        // every view kept, and a kept set with every live subflow stale: fine
        c.views_valid = u64::MAX;
        c.check_stale_within_subflows();
        c.views_valid = u64::MAX << n;
        c.check_stale_within_subflows();
        // nothing kept: fine
        c.views_valid = 0;
        c.check_stale_within_subflows();
        // a set rebuilt from 0 by setting one live bit: the bits past the
        // last subflow read stale
        c.views_valid = 1;
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            c.check_stale_within_subflows()
        }));
        assert!(
            caught.is_err(),
            "a stale bit past {n} subflows was not caught"
        );
    }
}
