//! The MPTCP window-edge counters in a run's output (issue 15, uib14):
//! `wnd_overshoots` (new data handed to a subflow past every right edge the
//! receiver had announced, `MetaSend::overshoots`) and `wnd_drops` (data the
//! receiver dropped past its announced edge, `MetaRecv::with_window_drop`),
//! with `msk_retrans` (pieces the connection-level timer re-sent), per path in the `paths` and `flows` tables and as `fg_wnd_overshoots` /
//! `fg_wnd_drops` / `fg_msk_retrans` in the summary.

mod common;

use common::{metric_of, run_all, table};
use mptlab_results::Value;

/// Seed 003 UiB -> HKC, the fullmesh cell rwnd13 moved the wrong way: the
/// receive window opens from its initial size over 250-350 ms RTTs, and the
/// kernel-modelled sender (`upstream`) passes the announced edge early.
const UIBHKC: &str = include_str!("../../../scenarios/seed003/uibhkc.toml");

fn cell(scheduler: &str) -> Vec<mptlab_results::RunOutput> {
    let sched = format!("transport.mptcp.scheduler={scheduler}");
    run_all(
        UIBHKC,
        &[
            "scenario.runs=1",
            "scenario.duration_s=20",
            "transport.protocol=mptcp",
            "transport.cc=cubic",
            "transport.mptcp.path_manager=fullmesh",
            "transport.path=1",
            "transport.server_path=1",
            "transport.hz=1000",
            &sched,
        ],
    )
}

fn column_total(r: &mptlab_results::RunOutput, name: &str, col: &str) -> u64 {
    let t = table(r, name);
    (0..t.num_rows())
        .map(|i| match t.get(i, col) {
            Some(Value::U64(x)) => x,
            other => panic!("{name}.{col}: {other:?}"),
        })
        .sum()
}

#[test]
fn window_edge_counters_reach_the_summary_and_the_tables() {
    let r = &cell("upstream")[0];
    let (over, drops) = (
        metric_of(r, "fg_wnd_overshoots"),
        metric_of(r, "fg_wnd_drops"),
    );
    eprintln!("upstream: {over} overshoots, {drops} drops");
    assert!(over > 0.0 && drops > 0.0, "{over} / {drops}");
    assert!(metric_of(r, "fg_msk_retrans") >= 0.0, "present");
    // every drop is of data sent past an edge the sender had seen
    // announced, unless the ACK announcing a later edge was lost
    assert!(drops <= over);
    for (k, col) in [
        ("fg_wnd_overshoots", "wnd_overshoots"),
        ("fg_wnd_drops", "wnd_drops"),
        ("fg_msk_retrans", "msk_retrans"),
    ] {
        assert_eq!(metric_of(r, k), column_total(r, "paths", col) as f64);
        assert_eq!(metric_of(r, k), column_total(r, "flows", col) as f64);
    }
    // v0.9x (minrtt) keeps DATA_ACK + the last window and takes every
    // segment: nothing passes the edge, nothing is dropped
    let v = &cell("minrtt")[0];
    assert_eq!(metric_of(v, "fg_wnd_overshoots"), 0.0);
    assert_eq!(metric_of(v, "fg_wnd_drops"), 0.0);
}
