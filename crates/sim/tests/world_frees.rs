//! Whole worlds give back every heap block they took: after a run, once the
//! `World` and everything built for it are dropped, the thread's live
//! allocations (blocks and bytes) are what they were before it.
//!
//! What this guards: a packet the engine writes over in its pool's vacant
//! slot is forgotten, not dropped (`Packet::overwrite_plain_with`), so the
//! pool must clean a freed slot that owns heap memory before making it the
//! vacant one (`PacketPool::claim_vacant`, switched on by an endpoint that
//! `Endpoint::may_send_owning` in `World::push_ep`). The heap-owning packets
//! here are the MPTCP signalling segments (the boxed `MptcpControl` of
//! MP_CAPABLE, MP_JOIN, ADD_ADDR, REMOVE_ADDR, MP_PRIO): a slot forgotten
//! with one leaks its box. Session 31 found such a leak, two to five blocks
//! a connection (docs/performance.md "Session 31 (lead)"). Without the
//! cleaning a checked build (`invariants`, on in this crate's tests) panics
//! at the forget; the counts here also catch a leak the checks do not see.
//!
//! A binary of its own, for its counting allocator. The counts are per
//! thread, so the tests may run in parallel: a world lives on one thread.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::mptcp::{MptcpConfig, MptcpConnection, Role as MpRole};
use mptlab_core::packet::Addr;
use mptlab_core::tcp::{Role as TcpRole, TcpConfig, TcpEndpoint};
use mptlab_core::time::{Nanos, MS, SEC};
use mptlab_core::udp::UdpEndpoint;
use mptlab_sim::apps::{BulkApp, FileApp, FnSchedule, UdpApp};
use mptlab_sim::network::Network;
use mptlab_sim::topology::{multi_path, Duplex, Layout as Lay};
use mptlab_sim::world::{App, Role, Side, World};

thread_local! {
    /// This thread's live heap blocks and bytes (allocations less frees).
    /// Const-initialised and without a destructor: reading it allocates
    /// nothing, so the allocator may use it.
    static LIVE: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
}

fn count(blocks: isize, bytes: isize) {
    // (`try_with`: a thread being torn down still allocates)
    let _ = LIVE.try_with(|c| {
        let (n, b) = c.get();
        c.set((n + blocks, b + bytes));
    });
}

fn live() -> (isize, isize) {
    LIVE.with(|c| c.get())
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(1, layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(1, layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-1, -(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(0, new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `world` twice: once to warm whatever the process keeps for good
/// (lazily built tables), then measured. Returns the blocks and bytes the
/// measured run left allocated after everything it built was dropped.
fn left_allocated(world: impl Fn()) -> (isize, isize) {
    world();
    let before = live();
    world();
    let after = live();
    (after.0 - before.0, after.1 - before.1)
}

/// The capture test's MPTCP fullmesh scenario on a 2x2 mesh: MP_CAPABLE,
/// MP_JOIN over both client addresses (path 2 as backup), the server's
/// ADD_ADDR of its second address, an MP_PRIO making path 2 regular at
/// 0.2 s and a REMOVE_ADDR of client path 1 at 0.3 s; a 300 kB file
/// (done in about 0.8 s).
const MESH: &str = include_str!("../../cli/tests/capture/mptcp-fullmesh.toml");

#[test]
fn an_mptcp_world_with_its_signalling_frees_everything() {
    let s = common::scenario(
        MESH,
        &[
            "traffic.size_bytes=300000",
            "transport.mptcp.prio_changes=[{at_s = 0.2, path = 2, backup = false}]",
            "transport.mptcp.endpoint_removals=[{at_s = 0.3, path = 1}]",
            "output.capture=false",
        ],
    )
    .unwrap();
    mptlab_sim::supported(&s).unwrap();
    let run = || {
        let out = mptlab_sim::run_once(&s, 0).unwrap();
        // the transfer completed (at about 0.8 s: after the MP_PRIO and the
        // REMOVE_ADDR)
        assert!(common::metric_of(&out, "completion_time_ms").is_finite());
    };
    assert_eq!(left_allocated(run), (0, 0), "(blocks, bytes) leaked");
}

fn link(rate_mbit: u64, delay_ms: u64, queue: u32) -> Duplex {
    Duplex::symmetric(LinkParams::new(
        rate_mbit * 1_000_000,
        delay_ms * MS,
        QueueLimit::Packets(queue),
    ))
}

fn tcp_pair(flow: u32, cfg: &TcpConfig, ca: Addr, sa: Addr) -> (TcpEndpoint, TcpEndpoint) {
    let port = 41000 + flow as u16;
    (
        TcpEndpoint::new(cfg, flow, ca, port, sa, 80, TcpRole::Client),
        TcpEndpoint::new(cfg, flow, sa, 80, ca, port, TcpRole::Server),
    )
}

/// A flow and its application, added between runs or before the first.
fn add(
    w: &mut World,
    lay: &Lay,
    proto: &str,
    role: Role,
    (c, s): (
        Box<dyn mptlab_core::endpoint::Endpoint>,
        Box<dyn mptlab_core::endpoint::Endpoint>,
    ),
    app: impl FnOnce(u32) -> Box<dyn App>,
) -> u32 {
    let flow = w.next_flow_id();
    let a = w.next_app_id();
    w.add_flow(proto.into(), proto, role, a, lay.client, c, lay.server, s);
    w.add_app(app(flow));
    flow
}

/// The late join: a world of plain TCP and UDP (its pool skips the
/// cleaning) into which an MPTCP connection is added once packets have
/// gone through the pool; `push_ep` turns the cleaning on then.
///
/// The World has no way to add a flow from inside a run (an application's
/// `AppIo` cannot, a sampler gets `&World`): the flow is added between two
/// calls of `run`. That is sound only when the first run ended because its
/// foreground applications were done (here a TCP file download): a run
/// ended by its time limit drops the event it popped past `end`, and each
/// call of `run` starts every application again (`start_apps`: harmless for
/// these, `UdpApp::start` reconnects a UDP endpoint). The background TCP
/// and UDP flows are still sending when the MPTCP connection joins.
fn late_join_world() -> (World, Nanos, u64) {
    let (spec, lay) = multi_path(
        &[link(10, 15, 100), link(5, 30, 100)],
        &link(100, 2, 1000),
        false,
    );
    let mut w = World::new(Network::build(&spec, 3).unwrap());
    let tcp = TcpConfig::default();
    let (ca0, ca1, sa) = (lay.client_addrs[0], lay.client_addrs[1], lay.server_addr);

    // foreground: a 200 kB TCP download over path 0, which ends the first run
    let f = w.next_flow_id();
    let (c, s) = tcp_pair(f, &tcp, ca0, sa);
    add(
        &mut w,
        &lay,
        "tcp",
        Role::Foreground,
        (Box::new(c), Box::new(s)),
        |f| Box::new(FileApp::new(f, Side::Server, 0, 200_000, "file".into())),
    );
    // background: bulk TCP over path 1, and 1000-byte UDP messages every
    // 20 ms down path 0
    let f = w.next_flow_id();
    let (c, s) = tcp_pair(f, &tcp, ca1, sa);
    add(
        &mut w,
        &lay,
        "tcp",
        Role::Background,
        (Box::new(c), Box::new(s)),
        |f| Box::new(BulkApp::new(f, Side::Server, 0)),
    );
    let f = w.next_flow_id();
    let c = UdpEndpoint::new(f, ca0, 5000, sa, 5001);
    let s = UdpEndpoint::new(f, sa, 5001, ca0, 5000);
    add(
        &mut w,
        &lay,
        "udp",
        Role::Background,
        (Box::new(c), Box::new(s)),
        |f| {
            let mut k = 0u64;
            let sched = FnSchedule(move || {
                k += 1;
                Some((k * 20 * MS, 1000))
            });
            Box::new(UdpApp::new(f, Side::Server, Box::new(sched), false))
        },
    );
    w.run(10 * SEC);
    let joined = w.now;

    // the late join: an MPTCP download over both client addresses (MP_JOIN)
    let cfg = MptcpConfig::default();
    let f = w.next_flow_id();
    let c = MptcpConnection::new(
        cfg.clone(),
        f,
        MpRole::Client,
        &lay.client_addrs,
        40000,
        &[sa],
        80,
    );
    let s = MptcpConnection::new(cfg, f, MpRole::Server, &[sa], 80, &[], 40000);
    let mp = add(
        &mut w,
        &lay,
        "mptcp",
        Role::Foreground,
        (Box::new(c.unwrap()), Box::new(s.unwrap())),
        |f| {
            Box::new(FileApp::new(
                f,
                Side::Server,
                joined + MS,
                300_000,
                "mp".into(),
            ))
        },
    );
    let bg_before = w.delivered(w.flows[1].client_ep);
    w.run(joined + 10 * SEC);
    let bg_during = w.delivered(w.flows[1].client_ep) - bg_before;
    assert_eq!(mp, 3);
    (w, joined, bg_during)
}

#[test]
fn a_tcp_and_udp_world_joined_late_by_mptcp_frees_everything() {
    let run = || {
        let (w, joined, bg_during) = late_join_world();
        // the first run ended with its download, well before its limit
        assert!(joined > 0 && joined < 5 * SEC, "{joined}");
        // the MPTCP download completed, after the join; the background
        // TCP flow went on carrying data meanwhile
        assert!(w.apps[3].is_done());
        assert!(w.now > joined);
        assert!(bg_during > 0);
        drop(w);
    };
    assert_eq!(left_allocated(run), (0, 0), "(blocks, bytes) leaked");
}
