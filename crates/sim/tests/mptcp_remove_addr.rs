//! REMOVE_ADDR (RFC 8684 3.4.2) through the runner: withdrawing a client
//! address moves the transfer onto the remaining path and it still
//! completes; bad entries (and a bad `fastclose_at_s`) name their key.

mod common;

use common::{metric_of, run_all};

/// The capture test's fullmesh mesh (crates/cli/tests/capture/
/// mptcp-fullmesh.toml) without its backup path, a 3 MB file.
const MESH: &str = include_str!("../../cli/tests/capture/mptcp-fullmesh.toml");

fn sets(extra: &'static str) -> Vec<&'static str> {
    let mut v = vec![
        "transport.mptcp.backup_paths=[]",
        "transport.mptcp.prio_changes=[]",
        "scenario.duration_s=20",
        // the library file writes captures; not here
        "output.capture=false",
    ];
    if !extra.is_empty() {
        v.push(extra);
    }
    v
}

#[test]
fn a_withdrawn_address_stops_carrying_data_and_the_file_completes() {
    let run = |extra| {
        let r = &run_all(MESH, &sets(extra))[0];
        (
            metric_of(r, "fg_share_path1"),
            metric_of(r, "completion_time_ms"),
        )
    };
    let (both, t_both) = run("");
    let (removed, t_removed) = run("transport.mptcp.endpoint_removals=[{at_s = 0.5, path = 1}]");
    eprintln!(
        "path 1 share: both paths {both:.3} ({t_both} ms); path 1 withdrawn at 0.5 s {removed:.3} ({t_removed} ms)"
    );
    assert!(both > 0.3, "{both}");
    assert!(removed < both - 0.15, "{removed} vs {both}");
    assert!(
        t_removed.is_finite() && t_removed > t_both,
        "{t_removed} vs {t_both}"
    );
}

#[test]
fn a_bad_endpoint_removal_names_its_key() {
    for (set, key) in [
        (
            "transport.mptcp.endpoint_removals=[{at_s = 1.0, path = 3}]",
            "transport.mptcp.endpoint_removals[0].path",
        ),
        (
            "transport.mptcp.endpoint_removals=[{at_s = 2.0, path = 1}, {at_s = 1.0, path = 2}]",
            "transport.mptcp.endpoint_removals[1].at_s",
        ),
        (
            "transport.mptcp.endpoint_removals=[{at_s = 1.0, path = 1}, {at_s = 2.0, path = 1}]",
            "transport.mptcp.endpoint_removals[1].path",
        ),
        (
            "transport.mptcp.endpoint_removals=[{at_s = 1.0}]",
            "transport.mptcp.endpoint_removals",
        ),
        (
            "transport.mptcp.fastclose_at_s=-1.0",
            "transport.mptcp.fastclose_at_s",
        ),
    ] {
        let e = common::scenario(MESH, &[set]).unwrap_err();
        assert!(e.contains(key), "{set}: {e}");
    }
}
