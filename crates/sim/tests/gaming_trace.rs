//! Gaming traces from files: CSV and D-ITG (-Ft/-Fs) pairs replay the same
//! message schedule; a size file given alone is refused by validation.

use mptlab_results::Value;
use mptlab_scenario::Scenario;

fn scenario(dir: &std::path::Path, trace: &str) -> Scenario {
    load(dir, trace).unwrap()
}

#[allow(clippy::result_large_err)] // the scenario crate's error type, as returned
fn load(dir: &std::path::Path, trace: &str) -> Result<Scenario, mptlab_scenario::ScenarioError> {
    let text = format!(
        r#"
[scenario]
name = "g"
duration_s = 5
[topology]
preset = "two-path"
paths = ["wlan", "3g"]
[traffic]
model = "gaming"
trace = "{trace}"
start_s = 1
"#
    );
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    Scenario::from_file(&p)
}

fn schedule(s: &Scenario) -> Vec<(u64, f64)> {
    let out = mptlab_sim::run_once(s, 0).unwrap();
    let t = out.table("messages").unwrap();
    (0..t.num_rows())
        .map(|i| {
            match (
                t.get(i, "bytes").unwrap(),
                t.get(i, "send_time_ms").unwrap(),
            ) {
                (Value::U64(b), Value::F64(ms)) => (b, ms),
                other => panic!("{other:?}"),
            }
        })
        .collect()
}

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

#[test]
fn csv_and_ditg_traces_replay_the_same_schedule() {
    let dir = scratch::Scratch::new("gt");
    std::fs::write(dir.join("g.idt"), "50\n100\n100\n").unwrap();
    std::fs::write(dir.join("g.ps"), "100\n200\n1400\n").unwrap();
    std::fs::write(
        dir.join("g.csv"),
        "time_ms,size_bytes\n0,100\n50,200\n150,1400\n",
    )
    .unwrap();
    let a = schedule(&scenario(&dir, "g.idt"));
    let b = schedule(&scenario(&dir, "g.csv"));
    assert_eq!(a, vec![(100, 1000.0), (200, 1050.0), (1400, 1150.0)]);
    assert_eq!(a, b);
    let e = load(&dir, "g.ps").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("traffic.trace"), "{e}");
    assert!(e.message.contains("-Ft"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
