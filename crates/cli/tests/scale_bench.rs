//! `mptlab bench --scale FILE --runs K`: K runs (seeds) of a point timed one
//! after another and summed (docs/performance.md "Session 25").

use std::path::Path;
use std::process::Command;

/// The figures line of `bench --scale`: connections, sim_s, data packets,
/// events.
fn bench(runs: &str) -> (u64, f64, u64, u64) {
    let scen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/scale/mptcp.toml");
    let o = Command::new(env!("CARGO_BIN_EXE_mptlab"))
        .args(["bench", "--scale", scen.to_str().unwrap()])
        .args([
            "--set",
            "population.clients=3",
            "--set",
            "scenario.duration_s=1",
        ])
        .args(["--runs", runs])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let f: Vec<&str> = out
        .lines()
        .last()
        .expect("a line")
        .split_whitespace()
        .collect();
    (
        f[0].parse().unwrap(),
        f[1].parse().unwrap(),
        f[5].parse().unwrap(),
        f[6].parse().unwrap(),
    )
}

#[test]
fn runs_are_summed_and_each_is_its_own_seed() {
    let one = bench("1");
    let two = bench("2");
    let three = bench("3");
    // the connections and the simulated time are one run's
    assert_eq!((one.0, one.1), (3, 1.0));
    assert_eq!((two.0, two.1), (3, 1.0));
    // runs 1 and 2 add their own packets and events: every run delivers
    // some, and run 1 is not run 0 again (another seed)
    assert!(
        two.2 > one.2 && three.2 > two.2,
        "{one:?} {two:?} {three:?}"
    );
    assert!(
        two.3 > one.3 && three.3 > two.3,
        "{one:?} {two:?} {three:?}"
    );
    assert_ne!(two.2, 2 * one.2, "run 1 repeated run 0: {one:?} {two:?}");
    // the same command gives the same sums
    assert_eq!(bench("2"), two);
}
