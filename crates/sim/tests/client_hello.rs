//! `traffic.client_hello_bytes`: the simulated client writes first, as the
//! emulator's agent writes its hello. Over MPTCP with the in-kernel path
//! manager (upstream scheduler) that makes the client fully established,
//! so its second subflow joins before the first message (issue 15, the
//! gaming trace T1), and the hello is not counted as a message.

mod common;
use common::*;

const GAMING: &str = r#"
[scenario]
name = "hello"
duration_s = 5
runs = 1
seed = 1
[topology]
preset = "two-path"
paths = ["wifi", "3g"]
[profile.wifi]
rate_mbit = 25.0
delay_ms = 20.0
queue_packets = 100
loss = "none"
[transport]
protocol = "mptcp"
cc = "cubic"
sndbuf_kib = 256
[transport.mptcp]
scheduler = "upstream"
path_manager = "fullmesh"
[traffic]
model = "gaming"
trace = "t1"
start_s = 1.0
"#;

fn messages(r: &mptlab_results::RunOutput) -> (usize, usize) {
    let t = table(r, "messages");
    let done = (0..t.num_rows())
        .filter(|&i| t.get(i, "completed") == Some(mptlab_results::Value::Bool(true)))
        .count();
    (t.num_rows(), done)
}

#[test]
fn the_client_hello_lets_the_second_subflow_take_part_in_the_setup_chunk() {
    let without = &run_all(GAMING, &[])[0];
    let with = &run_all(GAMING, &["traffic.client_hello_bytes=16"])[0];
    // same messages, all but the last few delivered on both
    assert_eq!(messages(without).0, messages(with).0);
    assert!(messages(with).1 + 3 >= messages(with).0);
    // without a hello the 3G subflow joins after the first message, and
    // the thirty-message setup chunk (about 44 KB of ~55 KB) goes over
    // Wi-Fi; with it, the setup chunk's writes spread over both subflows
    let (s0, s1) = (
        metric_of(without, "fg_share_path2"),
        metric_of(with, "fg_share_path2"),
    );
    assert!(s1 > s0 + 0.05, "share of 3G {s0} -> {s1}");
}

#[test]
fn an_uploading_client_counts_its_messages_after_the_hello() {
    let sets = [
        "traffic.client_hello_bytes=16",
        "traffic.direction=\"up\"",
        "transport.protocol=\"tcp\"",
    ];
    let up = &run_all(GAMING, &sets)[0];
    let plain = &run_all(GAMING, &sets[1..])[0];
    assert_eq!(messages(up).0, messages(plain).0);
    assert!(messages(up).1 + 3 >= messages(up).0);
    // message sizes are the model's, not shifted by the 16 bytes
    let (a, b) = (table(up, "messages"), table(plain, "messages"));
    for i in 0..a.num_rows().min(40) {
        assert_eq!(a.get(i, "bytes"), b.get(i, "bytes"));
    }
}
