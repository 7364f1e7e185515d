//! The simulation world and its event loop.
//!
//! Endpoints are sans-IO (`mptlab_core::endpoint::Endpoint`); the world feeds
//! them packets and timeouts and drains what they emit. Applications (`App`)
//! sit on top: they write into endpoints and react to their events. All work
//! caused by one event is finished (dirty endpoints drained, application
//! events dispatched in FIFO order) before the next event is popped, so the
//! order of everything is a function of the scenario and seed alone.
//!
//! Timers are scheduled lazily: each endpoint has at most one live wake-up in
//! the heap, pushed only when its next deadline moves earlier; a wake-up that
//! finds nothing due just re-arms. An RTO re-armed on every ACK therefore
//! costs no heap operation.

use std::collections::VecDeque;

use mptlab_capture::Capture;
use mptlab_core::endpoint::{AppEvent, Endpoint};
use mptlab_core::invariants;
use mptlab_core::{FlowId, Nanos};

use crate::events::EventQueue;
use crate::network::{IfaceMemo, Network, NodeId, NodeKind, PktId, Sent};

pub type EpId = usize;
/// A callback run at every sampling instant (time series).
pub type Sampler = Box<dyn FnMut(&World)>;
pub type AppId = usize;

/// Which end of a flow: the client opened it, the server accepted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

/// Foreground (the application under study) or background (cross traffic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Foreground,
    Background,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Foreground => "foreground",
            Role::Background => "background",
        }
    }
}

#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub label: String,
    pub protocol: String,
    pub role: Role,
    pub app: AppId,
    pub client_host: NodeId,
    pub server_host: NodeId,
    pub client_ep: EpId,
    pub server_ep: EpId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    Arrive(usize),
    EpTimer(EpId),
    AppTimer(AppId),
    Sample,
}

/// Bits of an event's code that hold its kind; the rest hold the index.
const EV_KIND_BITS: u32 = 2;
const EV_INDEX_BITS: u32 = crate::events::CODE_BITS - EV_KIND_BITS;
/// Directed links, endpoints and applications are numbered below this
/// (16,777,216), so that an event fits the queue's code
/// (`crate::events::Packed`).
pub const MAX_EVENT_INDEX: usize = 1 << EV_INDEX_BITS;

impl crate::events::Packed for Ev {
    #[inline(always)]
    fn pack(self) -> u32 {
        let (kind, i) = match self {
            Ev::Arrive(i) => (0, i),
            Ev::EpTimer(i) => (1, i),
            Ev::AppTimer(i) => (2, i),
            Ev::Sample => (3, 0),
        };
        debug_assert!(i < MAX_EVENT_INDEX);
        kind << EV_INDEX_BITS | i as u32
    }

    #[inline(always)]
    fn unpack(code: u32) -> Self {
        let (kind, i) = split_code(code);
        match kind {
            0 => Ev::Arrive(i),
            1 => Ev::EpTimer(i),
            2 => Ev::AppTimer(i),
            _ => Ev::Sample,
        }
    }
}

/// An event's code as its kind (0 `Arrive`, 1 `EpTimer`, 2 `AppTimer`, 3
/// `Sample`) and index: `Ev::unpack`, and `World::run`'s dispatch, which
/// matches on the kind without building the `Ev` (docs/performance.md
/// "Session 27 pass").
#[inline(always)]
fn split_code(code: u32) -> (u32, usize) {
    (
        code >> EV_INDEX_BITS,
        (code & (MAX_EVENT_INDEX as u32 - 1)) as usize,
    )
}

/// Prefetch the upcoming events' state (`EventQueue::upcoming`) once the
/// event heap holds this many entries: below, everything fits the caches and
/// the hints would only cost instructions.
const PREFETCH_FROM: usize = 1024;

/// What an application may do to the endpoints while handling a callback.
pub struct AppIo<'a> {
    pub now: Nanos,
    eps: &'a mut [Box<dyn Endpoint>],
    flows: &'a [FlowInfo],
    dirty: &'a mut Dirty,
    /// Bytes each endpoint's application wrote (for the invariant check).
    written: &'a mut [u64],
    /// The packet capture, when on: applications announce their messages
    /// to it so it can frame them (`mptlab_capture::messages`).
    capture: Option<&'a mut Capture>,
}

impl AppIo<'_> {
    fn ep(&self, flow: FlowId, side: Side) -> EpId {
        let f = &self.flows[flow as usize];
        match side {
            Side::Client => f.client_ep,
            Side::Server => f.server_ep,
        }
    }

    /// Active open of a flow's client side.
    pub fn connect(&mut self, flow: FlowId) {
        let ep = self.ep(flow, Side::Client);
        self.eps[ep].connect(self.now);
        self.dirty.mark(ep);
    }

    /// Write bytes on one side of a flow; returns how many were accepted.
    pub fn write(&mut self, flow: FlowId, side: Side, len: u64) -> u64 {
        let ep = self.ep(flow, side);
        let n = self.eps[ep].write(self.now, len);
        if invariants::ENABLED {
            self.written[ep] += n;
        }
        self.dirty.mark(ep);
        n
    }

    pub fn send_space(&self, flow: FlowId, side: Side) -> u64 {
        self.eps[self.ep(flow, side)].send_space()
    }

    /// The largest message one send call on this side may carry, if the
    /// socket refuses larger ones (SCTP); see `Endpoint::max_message`.
    pub fn max_message(&self, flow: FlowId, side: Side) -> Option<u64> {
        self.eps[self.ep(flow, side)].max_message()
    }

    /// A message of `len` bytes generated at `gen` goes into the byte
    /// stream of `side` (for the capture's framing; nothing when it is off).
    #[inline]
    pub fn message(&mut self, flow: FlowId, side: Side, gen: Nanos, len: u32) {
        if let Some(c) = self.capture.as_mut() {
            c.messages.stream(flow, side == Side::Client, gen, len);
        }
    }

    /// A message the send call refused (it takes a message id).
    #[inline]
    pub fn message_refused(&mut self, flow: FlowId, side: Side) {
        if let Some(c) = self.capture.as_mut() {
            c.messages.refused(flow, side == Side::Client);
        }
    }

    /// A message of `len` bytes sent as `chunks` datagrams.
    #[inline]
    pub fn message_datagrams(
        &mut self,
        flow: FlowId,
        side: Side,
        gen: Nanos,
        len: u32,
        chunks: u32,
    ) {
        if let Some(c) = self.capture.as_mut() {
            c.messages
                .datagrams(flow, side == Side::Client, gen, len, chunks);
        }
    }

    pub fn close(&mut self, flow: FlowId, side: Side) {
        let ep = self.ep(flow, side);
        self.eps[ep].close(self.now);
        self.dirty.mark(ep);
    }
}

/// An application: traffic model plus the glue that measures it.
pub trait App {
    /// Called once at time 0.
    fn start(&mut self, io: &mut AppIo);
    /// An endpoint of one of this app's flows reported an event.
    fn on_event(&mut self, flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo);
    /// The app's timer expired.
    fn on_timer(&mut self, io: &mut AppIo);
    /// When the app next needs `on_timer`.
    fn poll_timeout(&self) -> Option<Nanos>;
    /// False if `on_event` for this side of the app's flows never does
    /// anything (changes no state, writes nothing): the engine then does not
    /// dispatch those events at all. Background bulk and UDP receivers get
    /// one event per segment or datagram and ignore all of them.
    fn listens(&self, _side: Side) -> bool {
        true
    }
    /// True once the app has nothing more to do (a page or file completed).
    /// Apps that never finish (bulk, live video) return false.
    fn is_done(&self) -> bool;
    /// Add this app's measurements to the run's report.
    fn report(&self, rep: &mut crate::metrics::Report);
    /// An inconsistency between the app and its model, which invalidates the run.
    fn error(&self) -> Option<String> {
        None
    }
}

/// The endpoints with work to drain, in the order they were marked, each
/// at most once.
///
/// A vector and a read cursor rather than a `VecDeque`: `settle` empties it
/// after every event that marks one, so the vector is reset when its last
/// entry is taken instead of wrapping around (`VecDeque`'s index
/// arithmetic on every push and pop, docs/performance.md "Session 16 pass").
#[derive(Default)]
struct Dirty {
    /// Entries from `next` on are still to drain; empty whenever all are
    /// drained (then `next` is 0).
    queue: Vec<EpId>,
    next: usize,
    flag: Vec<bool>,
}

impl Dirty {
    #[inline]
    fn mark(&mut self, ep: EpId) {
        if !self.flag[ep] {
            self.flag[ep] = true;
            self.queue.push(ep);
        }
    }

    /// The endpoint marked first of those not drained yet.
    #[inline]
    fn pop(&mut self) -> Option<EpId> {
        let ep = *self.queue.get(self.next)?;
        self.next += 1;
        if self.next == self.queue.len() {
            self.queue.clear();
            self.next = 0;
        }
        self.flag[ep] = false;
        Some(ep)
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// See `World::ep_hot`.
///
/// 32 bytes, aligned: one cache line holds it whole.
#[repr(align(32))]
struct EpHot {
    /// The time of the endpoint's queued timer event, `NO_TIMER` when none
    /// is armed (a time rather than an `Option`: the record then fits 32
    /// bytes with `ifaces`).
    timer: Nanos,
    host: u32,
    flow: FlowId,
    /// Its host's interfaces, for the packets it sends (`IfaceMemo`).
    ifaces: IfaceMemo,
}

const _: () = assert!(std::mem::size_of::<EpHot>() == 32);

/// `EpHot::timer` when no timer is armed. A timeout at `Nanos::MAX`, the
/// end of all time, is therefore not armed: no run reaches it.
const NO_TIMER: Nanos = Nanos::MAX;

pub struct World {
    pub now: Nanos,
    pub events: EventQueue<Ev>,
    pub net: Network,
    pub eps: Vec<Box<dyn Endpoint>>,
    /// Per endpoint, the engine's state of it that every drain and timer
    /// reads (its armed timer, host, flow and the host's interfaces), in
    /// one 32-byte record instead of four arrays: one cache line per
    /// endpoint touched at 10,000 connections rather than four
    /// (docs/performance.md "Scale").
    ep_hot: Vec<EpHot>,
    /// In-order bytes each endpoint has delivered to its application.
    ep_delivered: Vec<u64>,
    /// Bytes each endpoint's application wrote: filled only when the
    /// invariant checks are on (`mptlab_core::invariants::ENABLED`).
    ep_written: Vec<u64>,
    pub flows: Vec<FlowInfo>,
    pub apps: Vec<Box<dyn App>>,
    app_timer: Vec<Option<Nanos>>,
    app_events: VecDeque<(AppId, FlowId, Side, AppEvent)>,
    dirty: Dirty,
    /// Per endpoint: its application ignores every event of this side
    /// (`App::listens`), so `drain` does not queue them (set when `run`
    /// starts the event loop).
    ep_mute: Vec<bool>,
    /// An application callback ran since the run loop last asked whether
    /// the foreground is done (`is_done` depends on the app's state alone,
    /// which only its callbacks change; asking after every event cost 1 %).
    app_ran: bool,
    /// Data packets delivered to hosts (the speed benchmark's unit).
    pub data_packets_delivered: u64,
    sample_interval: Nanos,
    /// Called at every sampling instant with the world.
    pub sampler: Option<Sampler>,
    /// pcapng capture of the hosts' packets (`mptlab run --capture`); off
    /// (`None`) by default, one untaken branch per packet sent or received.
    pub capture: Option<Box<Capture>>,
}

impl World {
    pub fn new(net: Network) -> World {
        World {
            now: 0,
            events: EventQueue::new(),
            net,
            eps: Vec::new(),
            ep_hot: Vec::new(),
            ep_delivered: Vec::new(),
            ep_written: Vec::new(),
            flows: Vec::new(),
            apps: Vec::new(),
            app_timer: Vec::new(),
            app_events: VecDeque::new(),
            dirty: Dirty::default(),
            ep_mute: Vec::new(),
            app_ran: false,
            data_packets_delivered: 0,
            sample_interval: 0,
            sampler: None,
            capture: None,
        }
    }

    /// The id the next flow will get (endpoints need it at construction).
    pub fn next_flow_id(&self) -> FlowId {
        self.flows.len() as FlowId
    }

    /// The id the next app will get.
    pub fn next_app_id(&self) -> AppId {
        self.apps.len()
    }

    /// Register a flow: its two endpoints (client on `client_host`, server on
    /// `server_host`) and the app that owns it. Returns the flow id.
    #[allow(clippy::too_many_arguments)]
    pub fn add_flow(
        &mut self,
        label: String,
        protocol: &str,
        role: Role,
        app: AppId,
        client_host: NodeId,
        client: Box<dyn Endpoint>,
        server_host: NodeId,
        server: Box<dyn Endpoint>,
    ) -> FlowId {
        assert_ne!(
            client_host, server_host,
            "a flow's ends must be on different hosts"
        );
        let id = self.flows.len() as FlowId;
        let client_ep = self.push_ep(client, client_host, id);
        let server_ep = self.push_ep(server, server_host, id);
        // flow f's endpoints are 2f (client) and 2f + 1 (server): a packet
        // arriving at a host finds its endpoint from its flow alone
        // (`on_host_arrive`)
        assert!(client_ep == 2 * id as usize && server_ep == client_ep + 1);
        self.flows.push(FlowInfo {
            label,
            protocol: protocol.to_string(),
            role,
            app,
            client_host,
            server_host,
            client_ep,
            server_ep,
        });
        id
    }

    fn push_ep(&mut self, ep: Box<dyn Endpoint>, host: NodeId, flow: FlowId) -> EpId {
        assert_eq!(
            self.net.nodes[host].kind,
            NodeKind::Host,
            "endpoints live on hosts"
        );
        assert!(
            self.eps.len() < MAX_EVENT_INDEX,
            "more than {MAX_EVENT_INDEX} endpoints in one simulation"
        );
        if ep.may_send_owning() {
            self.net.expect_owning_packets();
        }
        self.eps.push(ep);
        self.ep_hot.push(EpHot {
            timer: NO_TIMER,
            host: u32::try_from(host).expect("fewer than 2^32 nodes"),
            flow,
            ifaces: IfaceMemo::of(self.net.host_interfaces(host)),
        });
        self.ep_delivered.push(0);
        self.ep_written.push(0);
        self.dirty.flag.push(false);
        self.eps.len() - 1
    }

    pub fn add_app(&mut self, app: Box<dyn App>) -> AppId {
        assert!(
            self.apps.len() < MAX_EVENT_INDEX,
            "more than {MAX_EVENT_INDEX} applications in one simulation"
        );
        self.apps.push(app);
        self.app_timer.push(None);
        self.apps.len() - 1
    }

    /// Sample every `interval` (0 = never) by calling `sampler`.
    pub fn set_sampling(&mut self, interval: Nanos, sampler: Sampler) {
        self.sample_interval = interval;
        self.sampler = Some(sampler);
    }

    /// In-order payload bytes delivered to the application by endpoint `ep`
    /// (for UDP: 0; datagrams are counted by the endpoint).
    pub fn delivered(&self, ep: EpId) -> u64 {
        self.ep_delivered[ep]
    }

    fn side_of(&self, ep: EpId) -> Side {
        let f = &self.flows[self.ep_hot[ep].flow as usize];
        if f.client_ep == ep {
            Side::Client
        } else {
            Side::Server
        }
    }

    /// Run until `end` or until every foreground app is done.
    pub fn run(&mut self, end: Nanos) {
        let fg_apps = self.start_apps();
        // ask once after the first event whatever happened, as before any
        // event the apps' start() ran
        self.app_ran = true;
        self.event_loop(end, &fg_apps);
    }

    /// `run`'s start: every app's `start`, then the engine's state for the
    /// event loop; returns the foreground apps. Out of line, so that the
    /// function of the loop (`event_loop`, inlined in `run`) holds only the
    /// loop: with this code beside it, the loop's registers moved with
    /// changes of this code (session 32: `self` kept on the stack, 9 M
    /// instructions more in the background cell, when the `collect` of
    /// `ep_mute` compiled differently).
    #[inline(never)]
    fn start_apps(&mut self) -> Vec<AppId> {
        for a in 0..self.apps.len() {
            let mut io = AppIo {
                now: self.now,
                eps: &mut self.eps,
                flows: &self.flows,
                dirty: &mut self.dirty,
                written: &mut self.ep_written,
                capture: self.capture.as_deref_mut(),
            };
            self.apps[a].start(&mut io);
            self.settle();
            self.rearm_app(a);
        }
        // Events an app ignores are not dispatched from here on. Skipping
        // them changes nothing: their callback would have been a no-op and
        // its `rearm_app` too, since every app was re-armed after its
        // `start` and its `poll_timeout` changes only in its callbacks.
        self.ep_mute = (0..self.eps.len())
            .map(|ep| {
                let f = &self.flows[self.ep_hot[ep].flow as usize];
                !self.apps[f.app].listens(self.side_of(ep))
            })
            .collect();
        if self.sample_interval > 0 {
            self.events.push_timer(0, Ev::Sample);
        }
        let mut fg_apps: Vec<AppId> = self
            .flows
            .iter()
            .filter(|f| f.role == Role::Foreground)
            .map(|f| f.app)
            .collect();
        fg_apps.dedup();
        fg_apps
    }

    /// The event loop of `run`, from `start_apps`'s state.
    #[inline(always)]
    fn event_loop(&mut self, end: Nanos, fg_apps: &[AppId]) {
        loop {
            // the common pop on its own path, with no hint flag to test
            // (`EventQueue::pop_sorted`); the hints of the general path are
            // taken before the time is checked, which changes nothing (a
            // prefetch is only a hint)
            let (t, code) = match self.events.pop_sorted() {
                Some(tc) => tc,
                None => {
                    let Some((t, code, hints)) = self.events.pop_general_hinted(PREFETCH_FROM)
                    else {
                        break;
                    };
                    if hints {
                        self.prefetch_upcoming();
                    }
                    (t, code)
                }
            };
            if t > end {
                self.now = end;
                break;
            }
            self.now = t;
            // Packet arrivals are almost every event (99.8 % in the htsim
            // benchmark): the other kinds are calls, so that the loop's
            // inlined arrival path stays compact in the instruction cache
            // (docs/performance.md, "Engine pass 4").
            //
            // The code is dispatched on as it comes from the queue: with
            // `pop` the loop built an `Ev` (a tag and an index) and moved
            // it through the stack on every event (without it the
            // background cell runs about 5 instructions an event fewer,
            // docs/performance.md "Session 27 pass"). `split_code` is
            // `Ev::unpack`'s.
            //
            // An arrival (kind 0) is a code below `MAX_EVENT_INDEX` whose
            // index is the code itself: one comparison, where the `match`
            // on the kind compiled to a jump table after the shift and the
            // two masks (docs/performance.md "Session 28 pass").
            //
            // Most events are packets crossing a router, which leave nothing
            // to settle and run no application callback: the loop goes on
            // to the next event without testing for work to settle (every
            // event is settled before the next, and `start_apps` settles
            // each start, so there is nothing left from before; checked
            // builds assert it, `check_settled`) or for the foreground's end
            // (unless the run's start asked for it, `app_ran`). Until
            // session 33 the three tests ran after every event, four
            // instructions a router hop more (docs/performance.md "Session
            // 33 pass: the engine's per-event cost").
            if code < MAX_EVENT_INDEX as u32 {
                let dl = code as usize;
                if self.net.arrives_at_router(dl) {
                    self.on_router_arrive(dl);
                    // (`app_ran` is set here only by `run`, so that the
                    // run's first event, whatever it is, is followed by the
                    // foreground test)
                    if !self.app_ran {
                        continue;
                    }
                } else {
                    let ep = self.on_host_arrive(dl);
                    self.drain_received(ep);
                }
            } else {
                let (kind, i) = split_code(code);
                match kind {
                    1 => self.on_ep_timer(i, t),
                    2 => self.on_app_timer(i, t),
                    _ => self.on_sample(t),
                }
            }
            if !self.dirty.is_empty() || !self.app_events.is_empty() {
                self.settle();
            }
            // (tested before it is cleared: `mem::take` stored `false` on
            // every event, and an application callback runs on few of them)
            if self.app_ran {
                self.app_ran = false;
                if !fg_apps.is_empty() && fg_apps.iter().all(|&a| self.apps[a].is_done()) {
                    break;
                }
            }
        }
    }

    /// An endpoint's timer event: stale unless it is the armed one.
    #[inline(never)]
    fn on_ep_timer(&mut self, ep: EpId, t: Nanos) {
        if self.ep_hot[ep].timer == t {
            self.ep_hot[ep].timer = NO_TIMER;
            self.eps[ep].handle_timeout(t);
            self.dirty.mark(ep);
        }
    }

    /// An application's timer event: stale unless it is the armed one.
    #[cold]
    #[inline(never)]
    fn on_app_timer(&mut self, a: AppId, t: Nanos) {
        if self.app_timer[a] == Some(t) {
            self.app_timer[a] = None;
            self.app_ran = true;
            let mut io = AppIo {
                now: t,
                eps: &mut self.eps,
                flows: &self.flows,
                dirty: &mut self.dirty,
                written: &mut self.ep_written,
                capture: self.capture.as_deref_mut(),
            };
            self.apps[a].on_timer(&mut io);
            self.rearm_app(a);
        }
    }

    /// A sampling instant (time series): the sampler, then the next one.
    #[cold]
    #[inline(never)]
    fn on_sample(&mut self, t: Nanos) {
        if let Some(mut s) = self.sampler.take() {
            s(self);
            self.sampler = Some(s);
        }
        self.events.push_timer(t + self.sample_interval, Ev::Sample);
    }

    /// Start loading the state of the events that will probably come next
    /// (`EventQueue::upcoming`), so that their cache misses overlap the
    /// current event's work rather than follow it (docs/performance.md
    /// "Scale"): for the candidates of the next pop, what handling them
    /// reads after their pipe record (prefetched an event earlier); for those
    /// of the pop after, their pipe record. Hints only: nothing is changed.
    ///
    /// A call (only runs with `PREFETCH_FROM` queued events), so that its
    /// code does not sit inside the event loop's.
    #[inline(never)]
    fn prefetch_upcoming(&self) {
        let net = &self.net;
        self.events.upcoming(
            |e| {
                if let Ev::Arrive(dl) = e {
                    if let Some((node, hdr)) = net.prefetch_arrival_deep(dl) {
                        let client_ep = 2 * hdr.flow as usize;
                        let ep = client_ep + (hdr.client_host as usize != node) as usize;
                        if let (Some(b), Some(h)) = (self.eps.get(ep), self.ep_hot.get(ep)) {
                            crate::prefetch::line(h);
                            let obj = &**b as *const dyn Endpoint as *const u8;
                            crate::prefetch::line(obj);
                            crate::prefetch::line(obj.wrapping_add(64));
                        }
                    }
                }
            },
            |e| {
                if let Ev::Arrive(dl) = e {
                    net.prefetch_arrival(dl)
                }
            },
        );
    }

    /// A packet arrival at a router (`Network::arrives_at_router`): the
    /// packet goes on. Nothing is left to settle (`event_loop`).
    #[inline(always)]
    fn on_router_arrive(&mut self, dl: usize) {
        // forwarded from the pipe's record before its next packet
        // moves up (`Network::forward_arrival`); the pipe's next
        // arrival is pushed first, then the forwarded packet's, as when
        // the next arrival was pushed before the forward
        let (sent, next) = self.net.forward_arrival(dl, self.now);
        if let Some(n) = next {
            self.events.push_by_time(n, Ev::Arrive(dl));
        }
        if let Sent::InFlight {
            dlink,
            head: true,
            at,
        } = sent
        {
            self.events.push_by_time(at, Ev::Arrive(dlink));
        }
        if invariants::ENABLED {
            self.check_settled();
        }
    }

    /// Checked builds: the world is settled (no endpoint to drain, no
    /// application event queued): after a router hop, so `event_loop`
    /// skips `settle` (a router hop runs no application callback, so
    /// `app_ran` stays as it was), and before a host arrival, so
    /// `drain_received` drains the receiving endpoint without marking it.
    #[cold]
    #[inline(never)]
    fn check_settled(&self) {
        assert!(
            self.dirty.is_empty() && self.app_events.is_empty(),
            "the world was not settled"
        );
    }

    /// A packet arrival at a host: handed to the receiving endpoint, whose
    /// id is returned for `drain_received`.
    #[inline]
    fn on_host_arrive(&mut self, dl: usize) -> EpId {
        if invariants::ENABLED {
            self.check_settled();
        }
        let crate::network::Arrival {
            node,
            router,
            id,
            hdr,
            next,
        } = self.net.arrive_pooled(dl);
        debug_assert!(!router);
        // Flow f's ends are endpoints 2f and 2f + 1 (add_flow), on
        // different hosts, so the host alone says which end this
        // is. The packet's flow and its client's host travel in
        // the pipe entry (`Hdr`, filled in `transmit` from the
        // packet and the client's engine record): the endpoint is
        // known without first loading the packet's pool slot and
        // then that record, two cache misses one after the other
        // at 10,000 connections.
        let client_ep = 2 * hdr.flow as usize;
        let server_ep = client_ep + 1;
        let ep = if hdr.client_host as usize == node {
            client_ep
        } else {
            server_ep
        };
        // `Packet::is_data` from the pipe entry's copy of the
        // payload length (`Hdr::of`): the packet is read first by
        // the endpoint
        if hdr.payload_len > 0 {
            self.data_packets_delivered += 1;
        }
        // The pipe's next arrival is pushed after the receiving endpoint is
        // found from the entry's fields (nothing between pushes an event):
        // pushed first, the fields were held across the push's code and
        // spilled to the stack (docs/performance.md "Session 33 pass: the
        // engine's per-event cost").
        if let Some(n) = next {
            self.events.push_by_time(n, Ev::Arrive(dl));
        }
        let pkt = self.net.packet(id);
        if let Some(c) = self.capture.as_mut() {
            // received: the sender is the client if this is the server
            c.packet(self.now, node, dl / 2, false, ep == server_ep, pkt);
        }
        self.eps[ep].handle_packet(self.now, pkt);
        self.net.release(id);
        ep
    }

    /// Drain the endpoint a packet was just handed to (`on_host_arrive`),
    /// as `settle` would first: the world was settled before the event
    /// (checked builds assert it, `check_settled`), so marking the endpoint
    /// would have made it the only one to drain, and `settle` would have
    /// taken it back at once. Marking it and taking it back cost about 20
    /// instructions a packet received, and `settle`'s call its saved
    /// registers (docs/performance.md "Session 33 pass: the engine's
    /// per-event cost"); `settle` runs after it only when the drain queued
    /// application events. A call of its own: `drain` inlined into the
    /// event loop as well would crowd its registers.
    #[inline(never)]
    fn drain_received(&mut self, ep: EpId) {
        self.drain(ep);
    }

    /// Send the packet endpoint `ep` on `host` wrote into the pool's vacant
    /// slot (`drain`).
    ///
    /// The packet is pooled where the endpoint built it, and the capture
    /// (when on) reads it there: when the capture read the returned packet
    /// before it was pooled, the 128-byte packet was first copied to a
    /// local for that untaken branch on every packet sent
    /// (docs/performance.md "Session 17 pass"), and until session 26 the
    /// returned packet was copied into its slot.
    ///
    /// The host's interfaces are read from `ep`'s engine record here, once
    /// a packet is to be sent, not by `drain` before its first poll: read
    /// there, they were loaded and kept on the stack across the endpoint's
    /// calls on every drain, most of which send nothing more than the
    /// drains before (docs/performance.md "Session 28 pass").
    ///
    /// Inlined by force: with `drain` inlined in two functions
    /// (`drain_received`, `settle`) the compiler made it a call per packet
    /// sent, 4.8 M instructions more in the background cell
    /// (docs/performance.md "Session 33 pass: the engine's per-event cost").
    #[inline(always)]
    fn transmit(&mut self, ep: EpId) {
        let ifaces = self.ep_hot[ep].ifaces;
        let pkt = self.net.vacant_packet();
        let (flow, src) = (pkt.flow, pkt.src);
        // the client's host, for `on_host_arrive` at the far end: the same
        // record it read before (`ep_hot[2f].host`), here where it is
        // `ep`'s own record or its neighbour
        //
        // Read from the record whichever end sends (not `host` when `ep` is
        // the client): client and server alternate, so a test of which end
        // this is was a branch mispredicted about half the time.
        let client_ep = 2 * flow as usize;
        let client_host = self.ep_hot[client_ep].host;
        let out = ifaces
            .out_link(src)
            .unwrap_or_else(|()| self.net.host_out_link(self.ep_hot[ep].host as NodeId, src));
        let (id, hdr) = self.net.claim_vacant_hdr(client_host);
        if self.capture.is_some() {
            self.capture_sent(ep, self.ep_hot[ep].host as NodeId, id);
        }
        if let Sent::InFlight {
            dlink,
            head: true,
            at,
        } = self.net.enqueue(out, self.now, id, hdr)
        {
            self.events.push(at, Ev::Arrive(dlink));
        }
    }

    /// Finish all work caused by the current event.
    fn settle(&mut self) {
        loop {
            if let Some(ep) = self.dirty.pop() {
                self.drain(ep);
                continue;
            }
            if let Some((a, flow, side, ev)) = self.app_events.pop_front() {
                self.app_ran = true;
                let mut io = AppIo {
                    now: self.now,
                    eps: &mut self.eps,
                    flows: &self.flows,
                    dirty: &mut self.dirty,
                    written: &mut self.ep_written,
                    capture: self.capture.as_deref_mut(),
                };
                self.apps[a].on_event(flow, side, ev, &mut io);
                self.rearm_app(a);
                continue;
            }
            break;
        }
    }

    #[inline(always)]
    fn drain(&mut self, ep: EpId) {
        let now = self.now;
        while self.eps[ep].poll_transmit_into(now, self.net.vacant_slot()) {
            self.transmit(ep);
        }
        // The events, then the timer: `poll_event` until it has none, then
        // `poll_timeout`, asked in one call per event and one for the last
        // (`poll_event_or_timeout`): a dynamic call fewer on every drain.
        // Who receives the events is looked up only once there is one.
        let timeout = match self.eps[ep].poll_event_or_timeout() {
            Err(timeout) => timeout,
            Ok(first) if self.ep_mute.get(ep).copied().unwrap_or(false) => {
                self.drain_muted(ep, first)
            }
            Ok(first) => {
                let flow = self.ep_hot[ep].flow;
                let side = self.side_of(ep);
                let app = self.flows[flow as usize].app;
                let mut e = first;
                loop {
                    self.account_event(ep, &e);
                    self.app_events.push_back((app, flow, side, e));
                    match self.eps[ep].poll_event_or_timeout() {
                        Ok(next) => e = next,
                        Err(timeout) => break timeout,
                    }
                }
            }
        };
        // (one place, inlined: with a second call site it became a call)
        self.rearm_ep(ep, now, timeout);
    }

    /// The events of an endpoint whose application ignores them
    /// (`ep_mute`): only the engine's own bookkeeping. Returns the
    /// endpoint's `poll_timeout` after them.
    ///
    /// Inlined by force, as `transmit`: with `drain` in two functions it
    /// became a call, 10.6 M instructions more in the background cell
    /// (docs/performance.md "Session 33 pass: the engine's per-event cost").
    #[inline(always)]
    fn drain_muted(&mut self, ep: EpId, first: AppEvent) -> Option<Nanos> {
        let mut e = first;
        loop {
            self.account_event(ep, &e);
            match self.eps[ep].poll_event_or_timeout() {
                Ok(next) => e = next,
                Err(timeout) => return timeout,
            }
        }
    }

    /// The engine's own bookkeeping of an application event, whether or
    /// not the application listens to it.
    #[inline]
    fn account_event(&mut self, ep: EpId, e: &AppEvent) {
        if invariants::ENABLED {
            self.check_delivery(ep, e);
        }
        if let AppEvent::Delivered { total } = *e {
            self.ep_delivered[ep] = total;
        }
    }

    /// Queue the endpoint's timer event for `timeout` (its `poll_timeout`
    /// after a drain) unless one as early is queued.
    #[inline(always)]
    fn rearm_ep(&mut self, ep: EpId, now: Nanos, timeout: Option<Nanos>) {
        if let Some(t) = timeout {
            let t = t.max(now);
            // (`t < NO_TIMER` when none is armed)
            if t < self.ep_hot[ep].timer {
                self.ep_hot[ep].timer = t;
                self.events.push_timer(t, Ev::EpTimer(ep));
            }
        }
    }

    /// Record a packet `host` sends, on the interface its source address
    /// routes it to (before the link's queue: see `mptlab_capture`).
    #[cold]
    fn capture_sent(&mut self, ep: EpId, host: NodeId, id: PktId) {
        let from_client = self.side_of(ep) == Side::Client;
        let p = self.net.packet(id);
        if let (Some(dl), Some(c)) = (self.net.host_out_link(host, p.src), self.capture.as_mut()) {
            c.packet(self.now, host, dl / 2, true, from_client, p);
        }
    }

    /// Invariant `app-bytes-exactly-once` (see `mptlab_core::invariants`):
    /// an application never receives more bytes than its peer wrote, and
    /// the delivered total never goes back. (UDP reports datagrams, which
    /// may be lost, and is not checked.)
    #[cold]
    fn check_delivery(&self, ep: EpId, e: &AppEvent) {
        let f = &self.flows[self.ep_hot[ep].flow as usize];
        let peer = if f.client_ep == ep {
            f.server_ep
        } else {
            f.client_ep
        };
        let written = self.ep_written[peer];
        let what = || {
            format!(
                "flow {} ({}, {}) at {} ns",
                self.ep_hot[ep].flow, f.label, f.protocol, self.now
            )
        };
        match *e {
            AppEvent::Delivered { total } => {
                let prev = self.ep_delivered[ep];
                mptlab_core::invariant!(
                    total >= prev && total <= written,
                    "app-bytes-exactly-once",
                    "{}: delivered total {total} after {prev}, the peer wrote {written}",
                    what()
                );
            }
            AppEvent::Message { offset, len } => {
                mptlab_core::invariant!(
                    offset + len <= written,
                    "app-bytes-exactly-once",
                    "{}: message [{offset}, {}) delivered, the peer wrote {written}",
                    what(),
                    offset + len
                );
            }
            _ => {}
        }
    }

    fn rearm_app(&mut self, a: AppId) {
        if let Some(t) = self.apps[a].poll_timeout() {
            let t = t.max(self.now);
            if self.app_timer[a].is_none_or(|s| t < s) {
                self.app_timer[a] = Some(t);
                self.events.push_timer(t, Ev::AppTimer(a));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Packed, CODE_LIMIT};
    use crate::network::tests::pkt;
    use crate::network::{LinkSpec, NodeSpec, TopologySpec};
    use mptlab_core::link::{LinkParams, QueueLimit};
    use mptlab_core::packet::{addr, Addr};
    use mptlab_core::time::MS;

    /// Marks and drains interleaved, as `settle` does (a drain marks other
    /// endpoints): first marked, first drained, each endpoint queued once
    /// until drained, and empty (the vector reset) exactly when all are.
    /// Client host 0, router 1, server host 2, on two links.
    fn line_topology(c: Addr, s: Addr) -> TopologySpec {
        let node = |name: &str, kind| NodeSpec {
            name: name.into(),
            kind,
        };
        let link = |a: usize, b: usize, a_addr, b_addr| LinkSpec {
            name: format!("l{a}{b}"),
            a,
            b,
            a_addr,
            b_addr,
            ab: LinkParams::new(10_000_000, MS, QueueLimit::Packets(100)),
            ba: LinkParams::new(10_000_000, MS, QueueLimit::Packets(100)),
        };
        TopologySpec {
            nodes: vec![
                node("c", NodeKind::Host),
                node("r", NodeKind::Router),
                node("s", NodeKind::Host),
            ],
            links: vec![link(0, 1, Some(c), None), link(1, 2, None, Some(s))],
        }
    }

    /// The event loop skips `settle` after a router hop (`check_settled`):
    /// a world with work left over when a packet crosses a router is caught
    /// in checked builds (without the check the hop runs and the test
    /// fails: no panic).
    #[test]
    #[should_panic(expected = "the world was not settled")]
    fn a_router_hop_with_work_left_is_caught() {
        const { assert!(invariants::ENABLED, "the sim's tests build with invariants") };
        let (c, s) = (addr(10, 0, 0, 1), addr(10, 0, 1, 1));
        let mut w = World::new(Network::build(&line_topology(c, s), 1).unwrap());
        let Sent::InFlight { dlink, .. } = w.net.send_from(0, 0, pkt(c, s)) else {
            panic!("not sent");
        };
        assert!(w.net.arrives_at_router(dlink));
        w.dirty.flag.push(false);
        w.dirty.mark(0);
        w.on_router_arrive(dlink);
    }

    /// A packet arriving at a host is drained at once (`drain_received`),
    /// without marking its endpoint: a world with work left over at that
    /// point is caught in checked builds (without the check the packet is
    /// handed to an endpoint this world does not have: a panic, but not
    /// this one, and the test fails).
    #[test]
    #[should_panic(expected = "the world was not settled")]
    fn a_host_arrival_with_work_left_is_caught() {
        let (c, s) = (addr(10, 0, 0, 1), addr(10, 0, 1, 1));
        let mut w = World::new(Network::build(&line_topology(c, s), 1).unwrap());
        let Sent::InFlight { dlink, .. } = w.net.send_from(1, 0, pkt(c, s)) else {
            panic!("not sent");
        };
        assert!(!w.net.arrives_at_router(dlink));
        w.dirty.flag.push(false);
        w.dirty.mark(0);
        w.on_host_arrive(dlink);
    }

    #[test]
    fn dirty_endpoints_drain_in_marking_order_once_each() {
        let mut d = Dirty {
            flag: vec![false; 8],
            ..Dirty::default()
        };
        let mut reference = VecDeque::new();
        let mut x: u64 = 7;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 == 0 {
                assert_eq!(d.pop(), reference.pop_front());
            } else {
                let ep = (x >> 8) as usize % 8;
                d.mark(ep);
                if !reference.contains(&ep) {
                    reference.push_back(ep);
                }
            }
            assert_eq!(d.is_empty(), reference.is_empty());
            assert_eq!(d.queue.len() - d.next, reference.len());
        }
    }

    /// `World::run` takes a code below `MAX_EVENT_INDEX` for an arrival on
    /// the directed link numbered by the code itself, without unpacking it:
    /// every arrival packs to its link, and every other event to a code at
    /// or above the limit (passes on main too, whose packing is the same;
    /// fails if arrivals are not kind 0, checked).
    #[test]
    fn arrivals_are_the_codes_below_the_index_limit() {
        let last = MAX_EVENT_INDEX - 1;
        for i in [0, 1, 2, 12_345, last] {
            assert_eq!(Ev::Arrive(i).pack(), i as u32);
            for ev in [Ev::EpTimer(i), Ev::AppTimer(i), Ev::Sample] {
                assert!(ev.pack() >= MAX_EVENT_INDEX as u32, "{ev:?}");
            }
        }
    }

    #[test]
    fn events_pack_into_queue_codes_and_back() {
        let last = MAX_EVENT_INDEX - 1;
        for ev in [
            Ev::Arrive(0),
            Ev::Arrive(last),
            Ev::EpTimer(1),
            Ev::EpTimer(last),
            Ev::AppTimer(0),
            Ev::AppTimer(last),
            Ev::Sample,
        ] {
            let code = ev.pack();
            assert!(code < CODE_LIMIT, "{ev:?} packs to {code}");
            assert_eq!(Ev::unpack(code), ev);
        }
    }
}
