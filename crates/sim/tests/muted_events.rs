//! Events an application ignores (`App::listens` false) are not dispatched
//! (`World::drain`). Skipping them must change nothing: the same run with
//! every event dispatched gives the same deliveries, events and end time.

use std::cell::Cell;
use std::rc::Rc;

use mptlab_core::endpoint::AppEvent;
use mptlab_core::{FlowId, Nanos};
use mptlab_scenario::Scenario;
use mptlab_sim::metrics::Report;
use mptlab_sim::runner::build;
use mptlab_sim::world::{App, AppIo, Side};

/// Forwards to the wrapped app and counts `on_event` calls; with
/// `listen_all` it asks for every event, whatever the app ignores.
struct Counting {
    inner: Box<dyn App>,
    listen_all: bool,
    calls: Rc<Cell<u64>>,
}

impl App for Counting {
    fn start(&mut self, io: &mut AppIo) {
        self.inner.start(io)
    }
    fn on_event(&mut self, flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        self.calls.set(self.calls.get() + 1);
        self.inner.on_event(flow, side, ev, io)
    }
    fn on_timer(&mut self, io: &mut AppIo) {
        self.inner.on_timer(io)
    }
    fn poll_timeout(&self) -> Option<Nanos> {
        self.inner.poll_timeout()
    }
    fn listens(&self, side: Side) -> bool {
        self.listen_all || self.inner.listens(side)
    }
    fn is_done(&self) -> bool {
        self.inner.is_done()
    }
    fn report(&self, rep: &mut Report) {
        self.inner.report(rep)
    }
}

/// (callbacks, per-endpoint delivered bytes, data packets, events, end time)
fn run(listen_all: bool) -> (u64, Vec<u64>, u64, u64, Nanos) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/seed000/gaming-t1-wlan3g-tcp.toml"
    ))
    .unwrap();
    let s = Scenario::from_str_with_overrides(
        &text,
        "gaming-t1-wlan3g-tcp.toml",
        &[
            "background.enabled=true".parse().unwrap(),
            "scenario.duration_s=20".parse().unwrap(),
        ],
    )
    .unwrap();
    let mut b = build(&s, 0).unwrap();
    let calls = Rc::new(Cell::new(0));
    let apps = std::mem::take(&mut b.world.apps);
    b.world.apps = apps
        .into_iter()
        .map(|inner| {
            Box::new(Counting {
                inner,
                listen_all,
                calls: calls.clone(),
            }) as Box<dyn App>
        })
        .collect();
    b.world.run(b.end);
    let w = &b.world;
    let delivered = (0..w.eps.len()).map(|ep| w.delivered(ep)).collect();
    (
        calls.get(),
        delivered,
        w.data_packets_delivered,
        w.events.popped(),
        w.now,
    )
}

#[test]
fn skipping_ignored_events_changes_nothing() {
    let (muted_calls, d1, p1, e1, t1) = run(false);
    let (all_calls, d2, p2, e2, t2) = run(true);
    // the background receivers' per-segment events were skipped...
    assert!(
        all_calls > 10 * muted_calls.max(1),
        "{all_calls} callbacks with every event, {muted_calls} muted"
    );
    // ...and the run is the same, deliveries to the muted receivers included
    assert_eq!(d1, d2);
    assert!(d1.iter().filter(|&&d| d > 0).count() >= 3, "{d1:?}");
    assert_eq!((p1, e1, t1), (p2, e2, t2));
    assert!(p1 > 10_000, "background traffic ran: {p1} data packets");
}
