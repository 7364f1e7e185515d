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

/// The same two paths and transport, downloading 142400 bytes instead.
fn file_scenario() -> String {
    let f = GAMING.replacen(
        "model = \"gaming\"\ntrace = \"t1\"\nstart_s = 1.0",
        "model = \"file\"\nsize_bytes = 142400\nstart_s = 0.1",
        1,
    );
    assert_ne!(f, GAMING);
    f
}

/// (data packets, payload bytes) one side sent on path 1.
fn sent_on_path1(r: &mptlab_results::RunOutput, side: &str) -> (f64, f64) {
    let t = table(r, "paths");
    let i = (0..t.num_rows())
        .find(|&i| cell_str(t.get(i, "side")) == side && cell_f64(t.get(i, "path")) == 1.0)
        .unwrap();
    (
        cell_f64(t.get(i, "data_packets_sent")),
        cell_f64(t.get(i, "bytes_sent")),
    )
}

/// A download: the client's request is its first mapping, a 64-bit DSN, so
/// the server's DATA_ACKs are 64-bit from its first data segment on and
/// its segments carry 1420 bytes (28 DSS bytes), as the kernel's do after
/// the agent's hello; without a request they carry 1424 (24 DSS bytes).
/// 142400 bytes are 100 segments of 1424, 101 of 1420.
#[test]
fn a_download_request_makes_the_servers_data_acks_64_bit_and_its_segments_1420_bytes() {
    let plain = &run_all(&file_scenario(), &[])[0];
    let with = &run_all(&file_scenario(), &["traffic.client_hello_bytes=16"])[0];
    assert_eq!(sent_on_path1(plain, "server"), (100.0, 142400.0));
    assert_eq!(sent_on_path1(with, "server"), (101.0, 142400.0));
    assert_eq!(sent_on_path1(with, "client"), (1.0, 16.0));
    for r in [plain, with] {
        assert_eq!(metric_of(r, "transfers_unfinished"), 0.0);
    }
}

/// An upload: the request precedes the file in the same byte stream, and
/// the transfer completes once the file's bytes after it have arrived.
#[test]
fn an_uploaded_file_follows_the_request() {
    let up = &run_all(
        &file_scenario(),
        &["traffic.client_hello_bytes=16", "traffic.direction=\"up\""],
    )[0];
    assert_eq!(sent_on_path1(up, "client").1, 142416.0);
    assert_eq!(metric_of(up, "transfers_unfinished"), 0.0);
}

/// A TCP CUBIC bulk upload over one slow path (0.8 Mbit/s, 50-packet
/// queue, about 275 ms RTT, near seed 003's Versatel uplink).
const SLOW_BULK: &str = r#"
[scenario]
name = "hello-bulk"
duration_s = 5
runs = 1
seed = 1
[topology]
preset = "two-path"
paths = ["slow", "slow"]
[profile.slow]
rate_mbit = 0.8
delay_ms = 137.0
queue_packets = 50
loss = "none"
[transport]
protocol = "tcp"
cc = "cubic"
[traffic]
model = "bulk"
direction = "up"
"#;

/// Issue 15, ndiff16: the hello's RTT sample (16 bytes, without the 15 ms
/// a full segment takes at 0.8 Mbit/s) is CUBIC's `delay_min`, so HyStart's delay
/// test (net/ipv4/tcp_cubic.c `hystart_update`: a round's minimum RTT
/// above delay_min + 16 ms) ends slow start before the queue overflows,
/// as on the kernel (cwnd 28 on both sides). Without it the full-size
/// segments' RTT is delay_min, every round's first segment finds the
/// queue empty, and slow start runs until the 50-packet queue drops.
#[test]
fn a_bulk_hello_lets_hystart_leave_slow_start_before_the_queue_overflows() {
    let plain = &run_all(SLOW_BULK, &[])[0];
    let with = &run_all(SLOW_BULK, &["traffic.client_hello_bytes=16"])[0];
    assert!(metric_of(plain, "fg_bytes_retransmitted") > 10_000.0);
    assert_eq!(metric_of(with, "fg_bytes_retransmitted"), 0.0);
    // the link is full either way: the same goodput within 2 %
    let (a, b) = (
        metric_of(plain, "fg_throughput_mbit"),
        metric_of(with, "fg_throughput_mbit"),
    );
    assert!((a - b).abs() < 0.02 * a, "{a} vs {b}");
}

/// A bulk download: the server starts sending once it has read the
/// client's hello (the agent's `serve`), and the client sends only it.
#[test]
fn a_bulk_download_waits_for_the_hello() {
    let with = &run_all(
        SLOW_BULK,
        &[
            "traffic.client_hello_bytes=16",
            "traffic.direction=\"down\"",
        ],
    )[0];
    assert_eq!(sent_on_path1(with, "client"), (1.0, 16.0));
    assert!(metric_of(with, "fg_throughput_mbit") > 0.6);
}
