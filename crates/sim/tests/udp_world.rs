//! End-to-end checks of the engine with the simplest transport (UDP).

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::loss::LossModel;
use mptlab_core::time::{MS, SEC};
use mptlab_core::udp::UdpEndpoint;
use mptlab_sim::apps::{FnSchedule, UdpApp};
use mptlab_sim::metrics::Report;
use mptlab_sim::network::Network;
use mptlab_sim::topology::{multi_path, Duplex};
use mptlab_sim::world::{Role, Side, World};

fn path(rate_mbit: u64, delay_ms: u64, loss: f64) -> Duplex {
    let mut p = LinkParams::new(
        rate_mbit * 1_000_000,
        delay_ms * MS,
        QueueLimit::Packets(100),
    );
    p.loss = if loss > 0.0 {
        LossModel::Bernoulli { p: loss }
    } else {
        LossModel::None
    };
    Duplex::symmetric(p)
}

fn run(path_idx: usize, loss: f64, seed: u64) -> Report {
    let server = Duplex::symmetric(LinkParams::new(
        1_000_000_000,
        MS,
        QueueLimit::Packets(1000),
    ));
    let (spec, lay) = multi_path(&[path(10, 20, loss), path(4, 70, 0.0)], &server, false);
    let mut w = World::new(Network::build(&spec, seed).unwrap());
    let flow = w.next_flow_id();
    let app = w.next_app_id();
    let c = UdpEndpoint::new(
        flow,
        lay.client_addrs[path_idx],
        5000,
        lay.server_addr,
        5001,
    );
    let s = UdpEndpoint::new(
        flow,
        lay.server_addr,
        5001,
        lay.client_addrs[path_idx],
        5000,
    );
    w.add_flow(
        "fg".into(),
        "udp",
        Role::Foreground,
        app,
        lay.client,
        Box::new(c),
        lay.server,
        Box::new(s),
    );
    // 1000-byte messages every 10 ms, server -> client, for 1 s.
    let mut k = 0u64;
    let sched = FnSchedule(move || {
        k += 1;
        (k <= 100).then_some((k * 10 * MS, 1000))
    });
    w.add_app(Box::new(UdpApp::new(
        flow,
        Side::Server,
        Box::new(sched),
        true,
    )));
    w.run(2 * SEC);
    let mut rep = Report::default();
    for a in &w.apps {
        a.report(&mut rep);
    }
    rep
}

#[test]
fn one_way_delay_is_propagation_plus_serialisation() {
    let rep = run(0, 0.0, 1);
    assert_eq!(rep.messages.len(), 100);
    let d = rep.messages[0].delivery_time.unwrap() - rep.messages[0].send_time;
    // 1028-byte packet: server link 1 Gbit/s + 1 ms, path 10 Mbit/s + 20 ms, LAN 1 Gbit/s + 10 us
    let expect = (1028 * 8 * 1000) / 1000 * 2 + 1028 * 8 * 100 + MS + 20 * MS + 10_000;
    assert_eq!(d, expect);
    assert!(rep.messages.iter().all(|m| m.jitter == Some(0.0)));
}

#[test]
fn the_slow_path_is_slower() {
    let fast = run(0, 0.0, 1);
    let slow = run(1, 0.0, 1);
    let d = |r: &Report| r.messages[0].delivery_time.unwrap() - r.messages[0].send_time;
    assert!(d(&slow) > d(&fast) + 50 * MS);
}

#[test]
fn loss_loses_messages_and_runs_are_deterministic() {
    let a = run(0, 0.1, 7);
    let b = run(0, 0.1, 7);
    assert_eq!(a.messages, b.messages);
    let lost = a
        .messages
        .iter()
        .filter(|m| m.delivery_time.is_none())
        .count();
    assert!(lost > 2 && lost < 30, "lost {lost}");
    let c = run(0, 0.1, 8);
    assert_ne!(a.messages, c.messages);
}
