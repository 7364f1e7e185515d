//! A message larger than the SCTP send buffer is refused at the send call
//! (Linux `sctp_sendmsg_parse`: `msg_len > sk->sk_sndbuf` -> `-EMSGSIZE`),
//! counted (`messages_refused`), and does not block the messages after it.
//! Byte streams (TCP, MPTCP) take such messages in pieces; UDP messages are
//! split into datagrams by the application, whatever their size.

use mptlab_results::{RunOutput, Table, Value};
use mptlab_scenario::Scenario;

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

/// Send buffer of the scenarios, bytes (`sndbuf_kib = 4`).
const SNDBUF: u32 = 4096;

/// Message sizes of the trace, one every 50 ms from 0.5 s: small ones,
/// the largest accepted (exactly the buffer), and refused ones (one byte
/// over, and much larger), the refused ones followed by small ones.
fn sizes() -> Vec<u32> {
    let pattern = [300, 6000, 800, SNDBUF, 1200, SNDBUF + 1, 500, 20000];
    (0..5).flat_map(|_| pattern).collect()
}

/// Runs `protocol` over two lossless 10 Mbit/s paths with a 4 KiB send
/// buffer, replaying `sizes` as a gaming trace file.
fn run(protocol: &str, sizes: &[u32], tag: &str) -> RunOutput {
    let dir = scratch::Scratch::new(&format!("emsg-{tag}"));
    let trace: String = sizes
        .iter()
        .enumerate()
        .map(|(i, b)| format!("{},{b}\n", 500 + 50 * i))
        .collect();
    std::fs::write(dir.join("t.csv"), trace).unwrap();
    let text = format!(
        r#"
[scenario]
name = "emsg"
duration_s = 10
runs = 1
[profile.p]
rate_mbit = 10
delay_ms = 20
queue_packets = 100
[topology]
preset = "two-path"
paths = ["p", "p"]
[transport]
protocol = "{protocol}"
sndbuf_kib = 4
[traffic]
model = "gaming"
trace = "t.csv"
"#
    );
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    let s = Scenario::from_file(&p).unwrap();
    let out = mptlab_sim::run_once(&s, 0).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    out
}

fn metric(r: &RunOutput, k: &str) -> Option<f64> {
    r.summary.get(k).and_then(|v| v.as_f64())
}

/// (msg_id, bytes, delivered) of every row of `messages`, by msg_id.
fn messages(r: &RunOutput) -> Vec<(u64, u64, bool)> {
    let t: &Table = r.table("messages").unwrap();
    let mut v: Vec<(u64, u64, bool)> = (0..t.num_rows())
        .map(|i| {
            let id = match t.get(i, "msg_id").unwrap() {
                Value::U64(x) => x,
                o => panic!("{o:?}"),
            };
            let b = match t.get(i, "bytes").unwrap() {
                Value::U64(x) => x,
                o => panic!("{o:?}"),
            };
            let done = t.get(i, "completed").unwrap() == Value::Bool(true);
            assert_eq!(done, t.get(i, "delivery_time_ms").unwrap() != Value::Null);
            (id, b, done)
        })
        .collect();
    v.sort();
    v
}

/// `messages_refused` of the foreground flow in the flows table.
fn flow_refused(r: &RunOutput) -> u64 {
    let t = r.table("flows").unwrap();
    let i = (0..t.num_rows())
        .find(|&i| t.get(i, "label").unwrap() == Value::Str("fg".into()))
        .unwrap();
    match t.get(i, "messages_refused").unwrap() {
        Value::U64(x) => x,
        o => panic!("{o:?}"),
    }
}

#[test]
fn sctp_and_cmt_sctp_refuse_messages_larger_than_the_send_buffer_and_go_on() {
    let sizes = sizes();
    let too_big = sizes.iter().filter(|&&b| b > SNDBUF).count();
    assert_eq!(too_big, 15);
    for proto in ["sctp", "cmt-sctp"] {
        let r = run(proto, &sizes, proto);
        let rows = messages(&r);
        // every generated message has a row, ids in generation order
        assert_eq!(rows.len(), sizes.len(), "{proto}");
        for (i, ((id, b, done), want)) in rows.iter().zip(&sizes).enumerate() {
            assert_eq!((*id, *b), (i as u64, *want as u64), "{proto}");
            // refused exactly when larger than the buffer (4096 itself goes
            // through); every other message, also those right after a
            // refused one, is delivered
            assert_eq!(*done, *want <= SNDBUF, "{proto}: message {i} ({want} B)");
        }
        assert_eq!(metric(&r, "messages"), Some(sizes.len() as f64));
        assert_eq!(
            metric(&r, "messages_refused"),
            Some(too_big as f64),
            "{proto}"
        );
        assert_eq!(
            metric(&r, "messages_undelivered"),
            Some(too_big as f64),
            "{proto}: the refused ones count as undelivered"
        );
        assert_eq!(flow_refused(&r), too_big as u64, "{proto}");
        // the refused messages never entered the transport: the receiver
        // got exactly the accepted bytes
        let accepted: u64 = sizes
            .iter()
            .filter(|&&b| b <= SNDBUF)
            .map(|&b| b as u64)
            .sum();
        let t = r.table("flows").unwrap();
        assert_eq!(
            t.get(0, "bytes_delivered").unwrap(),
            Value::U64(accepted),
            "{proto}"
        );
    }
}

#[test]
fn tcp_and_mptcp_deliver_messages_larger_than_the_send_buffer() {
    let sizes = sizes();
    for proto in ["tcp", "mptcp"] {
        let r = run(proto, &sizes, proto);
        let rows = messages(&r);
        assert_eq!(rows.len(), sizes.len(), "{proto}");
        assert!(
            rows.iter().all(|&(_, _, done)| done),
            "{proto}: a byte stream writes a message larger than sndbuf in pieces: {rows:?}"
        );
        assert_eq!(metric(&r, "messages_refused"), Some(0.0), "{proto}");
        assert_eq!(metric(&r, "messages_undelivered"), Some(0.0), "{proto}");
        assert_eq!(flow_refused(&r), 0, "{proto}");
    }
}

#[test]
fn udp_messages_above_the_datagram_limit_are_split_not_refused() {
    // 100,000 bytes is over UDP's 65,507-byte datagram limit; the UDP
    // application splits every message into MTU-sized datagrams, so it
    // goes out (and, on lossless paths, arrives) like any other
    let sizes = [1000, 100_000, 70_000, 500];
    let r = run("udp", &sizes, "udp");
    let rows = messages(&r);
    assert_eq!(rows.len(), sizes.len());
    assert!(rows.iter().all(|&(_, _, done)| done), "{rows:?}");
    assert_eq!(metric(&r, "messages_refused"), Some(0.0));
    assert_eq!(flow_refused(&r), 0);
}
