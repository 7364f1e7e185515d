//! Seed 001 features end to end: the `bursts` traffic model, the
//! deterministic `train` loss model and the MPTCP-level tail loss probe.

mod common;
use mptlab_scenario::{Override, Scenario};

/// 10-segment bursts (10 x the 1424-byte MPTCP subflow MSS) over a 40 ms
/// loss path whose down direction loses every burst's last segment, and a
/// backup alternate path (5 ms) that only carries recovery traffic.
const TAIL: &str = r#"
[scenario]
name = "tail"
duration_s = 30.0
runs = 2

[topology]
preset = "two-path"
paths = ["losspath", "altpath"]

[profile.losspath]
rate_mbit = 20
delay_ms = 40
down = { loss = { model = "train", drop_packets = [10], gap_ms = 300 } }

[profile.altpath]
rate_mbit = 20
delay_ms = 5

[transport]
protocol = "mptcp"
cc = "lia"

[transport.mptcp]
backup_paths = [2]

[traffic]
model = "bursts"
count = 10
size_bytes = 14240
interval_s = 1.0
start_s = 1.0

[output]
timeseries_interval_ms = 0
"#;

use common::mean as metric;
use common::run_all as run;

fn drops_loss(runs: &[mptlab_results::RunOutput], link: &str) -> u64 {
    use mptlab_results::Value as V;
    let t = runs[0].tables.iter().find(|t| t.name == "links").unwrap();
    (0..t.num_rows())
        .filter(|&i| matches!(t.get(i, "link"), Some(V::Str(s)) if s == link))
        .map(|i| {
            t.get(i, "drops_loss")
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0) as u64
        })
        .sum()
}

#[test]
fn every_burst_is_a_message_and_loses_exactly_its_tail() {
    let runs = run(TAIL, &[]);
    assert_eq!(metric(&runs, "messages"), 10.0);
    assert_eq!(metric(&runs, "messages_delivered"), 10.0);
    // one tail per burst, nothing else (the probe is position 11)
    assert_eq!(drops_loss(&runs, "path1"), 10);
    assert_eq!(metric(&runs, "fg_tlp_probes"), 10.0);
    assert_eq!(metric(&runs, "fg_rto_events"), 0.0);
    // a burst takes longer than an RTT plus the probe timeout
    assert!(metric(&runs, "delay_ms_mean") > 80.0 + 160.0);
}

/// The probe copy on the 5 ms alternate path arrives 35 ms earlier than the
/// probe on the 40 ms loss path, and costs one segment per tail loss.
#[test]
fn mptcp_level_probe_shortens_bursts_when_the_alternate_is_faster() {
    let std = run(TAIL, &[]);
    let mpl = run(TAIL, &["transport.mptcp.tlp=mptcp-level"]);
    let (a, b) = (metric(&std, "delay_ms_mean"), metric(&mpl, "delay_ms_mean"));
    assert!(b + 20.0 < a, "MPTCP-level {b} ms vs standard {a} ms");
    assert_eq!(metric(&std, "fg_bytes_probe_extra"), 0.0);
    // one copy per tail but the first: the client writes nothing, so a
    // v0.9x client is fully established, and joins the alternate path, only
    // once more than a whole initial receive window (10 x 1460 bytes) has
    // arrived, the 11th segment, in the second burst (mptcp_input.c
    // `mptcp_prevalidate_skb`; core `connection/full_estab.rs`)
    assert_eq!(metric(&mpl, "fg_bytes_probe_extra"), 9.0 * 1424.0);
    // a slower alternate (160 ms) gives the copy no edge
    let slow = ["profile.altpath.delay_ms=160"];
    let a = metric(&run(TAIL, &slow), "delay_ms_mean");
    let b = metric(
        &run(TAIL, &[slow[0], "transport.mptcp.tlp=mptcp-level"]),
        "delay_ms_mean",
    );
    assert!((a - b).abs() < 1.0, "{a} vs {b}");
}

/// A blackout that also swallows the probe forces the standard TLP into an
/// RTO; the MPTCP-level copy on the alternate path completes the burst first.
/// The blackout (320 ms) outlasts the probe timeout (2 SRTT of about 80 ms
/// after the tail left) plus the timer wheel's lateness (up to 8 ms at
/// HZ = 1000, `tcp::timer_wheel`); with 300 ms one probe of ten got out
/// just after the blackout.
#[test]
fn probe_loss_needs_an_rto_unless_the_probe_goes_on_the_alternate_path() {
    let bl = "profile.losspath.down.loss={ model = \"train\", drop_packets = [10], gap_ms = 300, blackout_ms = 320 }";
    let std = run(TAIL, &[bl]);
    let mpl = run(TAIL, &[bl, "transport.mptcp.tlp=mptcp-level"]);
    assert!(metric(&std, "fg_rto_events") >= 5.0);
    assert!(metric(&mpl, "delay_ms_mean") + 50.0 < metric(&std, "delay_ms_mean"));
}

#[test]
fn bad_train_and_bursts_keys_name_the_key() {
    let bad = |set: &str| {
        let ov: Vec<Override> = vec![set.parse().unwrap()];
        Scenario::from_str_with_overrides(TAIL, "tail.toml", &ov)
            .unwrap_err()
            .to_string()
    };
    let e = bad("profile.losspath.down.loss={ model = \"train\", drop_packets = [0] }");
    assert!(e.contains("drop_packets"), "{e}");
    let e = bad("traffic.interval_s=0");
    assert!(e.contains("traffic.interval_s"), "{e}");
    let e = bad("traffic.fps=30");
    assert!(e.contains("traffic.fps"), "{e}");
}
