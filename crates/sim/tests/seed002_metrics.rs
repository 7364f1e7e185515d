//! Seed 002 metrics: per-path mean smoothed RTT from the srtt samples, and
//! the connection-level out-of-order fractions.

use mptlab_scenario::Scenario;

const DL: &str = r#"
[scenario]
name = "dl"
duration_s = 120.0
runs = 1

[topology]
preset = "two-path"
paths = ["fast", "slow"]

[profile.fast]
rate_mbit = 10
delay_ms = 15
queue_packets = 40

[profile.slow]
rate_mbit = 2
delay_ms = 80
queue_packets = 60

[transport]
protocol = "mptcp"
cc = "lia"

[traffic]
model = "file"
size_bytes = 4194304

[output]
timeseries_interval_ms = 100
cwnd_series = true
"#;

#[test]
fn srtt_means_and_ofo_fractions() {
    let s = Scenario::from_str(DL, "dl.toml").unwrap();
    let r = mptlab_sim::run_once(&s, 0).unwrap();
    let m = |k: &str| {
        r.summary
            .get(k)
            .and_then(|v| v.as_f64())
            .unwrap_or_else(|| panic!("no {k}"))
    };
    let (p1, p2) = (m("srtt_ms_mean_path1"), m("srtt_ms_mean_path2"));
    // at least the propagation RTT, the slow path far above the fast one
    assert!(p1 >= 30.0 && p2 >= 160.0 && p2 > 2.0 * p1, "{p1} {p2}");
    let (f, f150) = (m("ofo_fraction"), m("ofo_fraction_over_150ms"));
    assert!(f > 0.0 && f <= 1.0 && f150 <= f, "{f} {f150}");
    assert!(m("ofo_delay_ms_mean") > 0.0);
    // without srtt samples there is no srtt metric
    let s = Scenario::from_str(
        &DL.replace("cwnd_series = true", "cwnd_series = false"),
        "dl.toml",
    )
    .unwrap();
    let r = mptlab_sim::run_once(&s, 0).unwrap();
    assert!(!r.summary.contains_key("srtt_ms_mean_path1"));
}
