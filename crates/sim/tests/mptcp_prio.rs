//! MP_PRIO (RFC 8684 3.3.8): a backup path turned regular during the run
//! starts carrying data, and one turned backup stops; without a change the
//! run is the same as before the feature (no extra events).

mod common;

use common::{metric_of, run_all};

/// The capture test's 2x2 mesh (crates/cli/tests/capture/mptcp-fullmesh.toml)
/// with client path 2 backup, bulk traffic, no loss.
const MESH: &str = concat!(
    r#"
[scenario]
name = "prio"
duration_s = 6
runs = 1
seed = 3
"#,
    mesh_2x2_topology!(),
    r#"[transport]
protocol = "mptcp"
cc = "lia"
sndbuf_kib = 4096
rcvbuf_kib = 8192
[transport.mptcp]
path_manager = "fullmesh"
backup_paths = [2]
[traffic]
model = "bulk"
[output]
timeseries_interval_ms = 0
"#
);

#[test]
fn mp_prio_moves_traffic_onto_and_off_a_path() {
    let share = |sets: &[&str]| metric_of(&run_all(MESH, sets)[0], "fg_share_path2");
    let backup = share(&[]);
    let regular_at_2s =
        share(&["transport.mptcp.prio_changes=[{at_s = 2.0, path = 2, backup = false}]"]);
    let back_at_4s = share(&[
        "transport.mptcp.prio_changes=[{at_s = 2.0, path = 2, backup = false}, {at_s = 4.0, path = 2, backup = true}]",
    ]);
    eprintln!(
        "path 2 share: backup all run {backup:.3}; regular from 2 s {regular_at_2s:.3}; regular 2-4 s only {back_at_4s:.3}"
    );
    assert!(
        backup < 0.01,
        "a backup path idles while path 1 works: {backup}"
    );
    assert!(regular_at_2s > 0.2, "{regular_at_2s}");
    assert!(
        back_at_4s > 0.05 && back_at_4s < regular_at_2s - 0.05,
        "{back_at_4s} vs {regular_at_2s}"
    );
}

#[test]
fn a_bad_prio_change_names_its_key() {
    let e = common::scenario(
        MESH,
        &["transport.mptcp.prio_changes=[{at_s = 1.0, path = 3, backup = false}]"],
    )
    .unwrap_err();
    assert!(e.contains("transport.mptcp.prio_changes[0].path"), "{e}");
    let e = common::scenario(
        MESH,
        &["transport.mptcp.prio_changes=[{at_s = 2.0, path = 2, backup = false}, {at_s = 1.0, path = 2, backup = true}]"],
    )
    .unwrap_err();
    assert!(e.contains("transport.mptcp.prio_changes[1].at_s"), "{e}");
}
