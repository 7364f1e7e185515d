//! `mptlab emulate` end to end: scenarios over the kernel between namespaces
//! (root; skipped otherwise). Real time: a few seconds each, run one at a time.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use mptlab_emu::netns;
use mptlab_emu::run::{differs, message_schedule, run_once, supported, EmulateOptions};
use mptlab_results::{RunOutput, Table, Value};
use mptlab_scenario::Scenario;

static SERIAL: Mutex<()> = Mutex::new(());

// the CLI's test scratch directory (removed when the test ends, passed or failed)
#[path = "../../cli/src/scratch.rs"]
mod scratch;

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn need_root(test: &str) -> bool {
    if netns::is_root() {
        return true;
    }
    eprintln!("skipping {test}: needs root");
    false
}

fn scenario(body: &str) -> Scenario {
    let text = format!("[scenario]\nname = \"t\"\nduration_s = 6.0\nruns = 1\nseed = 3\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n{body}");
    Scenario::from_str(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn my_namespaces() -> Vec<String> {
    let p = format!("mptl-{}-", std::process::id());
    netns::list()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with(&p))
        .collect()
}

fn table<'a>(o: &'a RunOutput, name: &str) -> &'a Table {
    o.table(name).unwrap_or_else(|| panic!("no table {name}"))
}

fn col(t: &Table, c: &str) -> Vec<Value> {
    let k = t.column(c).unwrap_or_else(|| panic!("no column {c}"));
    (0..t.num_rows()).map(|r| k.data.get(r)).collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn metric(o: &RunOutput, k: &str) -> f64 {
    o.summary
        .get(k)
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("no metric {k}: {:?}", o.summary.keys().collect::<Vec<_>>()))
}

fn emulate(s: &Scenario) -> RunOutput {
    let o = run_once(s, 0, &EmulateOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        my_namespaces().is_empty(),
        "namespaces left: {:?}",
        my_namespaces()
    );
    o
}

fn check_written(o: RunOutput, s: &Scenario) {
    let dir = scratch::Scratch::unmade(&format!("emu-test-{}", s.meta.name));
    mptlab_results::write_results(&dir, &[o], &Default::default()).unwrap();
    for t in mptlab_results::schema::STANDARD {
        assert!(dir.join(format!("{t}.csv")).exists(), "{t}.csv");
    }
    assert!(dir.join("summary.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tcp_file_download_over_two_paths() {
    if !need_root("tcp_file_download_over_two_paths") {
        return;
    }
    let _g = serial();
    let s = scenario("[transport]\nprotocol = \"tcp\"\npath = 1\n[traffic]\nmodel = \"file\"\nsize_bytes = 500000\nstart_s = 0.1\n");
    let o = emulate(&s);
    let tr = table(&o, "transfers");
    assert_eq!(tr.num_rows(), 1);
    let ct = f(&col(tr, "completion_time_ms")[0]);
    assert!(
        ct > 2.0 * metric(&o, "drawn.path1.delay_ms"),
        "completion {ct} ms"
    );
    // issue 12 item 3: the finished download is counted as completed
    assert_eq!(col(tr, "completed"), vec![Value::Bool(true)]);
    assert_eq!(metric(&o, "transfers"), 1.0);
    assert_eq!(metric(&o, "transfers_unfinished"), 0.0);
    assert_eq!(metric(&o, "fg_share_path1"), 1.0);
    let fl = table(&o, "flows");
    assert_eq!(col(fl, "bytes_delivered")[0], Value::U64(500_000));
    // TCP_INFO counters at the right offsets: the server sent the file (plus retransmissions)
    let paths = table(&o, "paths");
    let server = (0..paths.num_rows())
        .find(|&r| col(paths, "side")[r] == Value::Str("server".into()))
        .unwrap();
    let sent = f(&col(paths, "bytes_sent")[server]);
    let retr = f(&col(paths, "bytes_retransmitted")[server]);
    assert!(
        sent >= 500_000.0 && sent - retr <= 500_100.0,
        "bytes_sent {sent}, retransmitted {retr}"
    );
    assert!(f(&col(paths, "data_packets_sent")[server]) >= 500_000.0 / 1448.0);
    assert_eq!(
        col(paths, "retrans_fast")[server],
        Value::Null,
        "not exposed by the kernel: null, not 0"
    );
    let links = table(&o, "links");
    assert_eq!(
        links.num_rows(),
        6,
        "path1, path2 and the server link, both directions"
    );
    assert!(col(links, "bytes_delivered").iter().map(f).sum::<f64>() > 500_000.0);
    check_written(o, &s);
}

#[test]
fn mptcp_file_download_uses_both_paths() {
    if !need_root("mptcp_file_download_uses_both_paths") {
        return;
    }
    let _g = serial();
    // A send buffer smaller than the file: with the whole file already in
    // the socket when the second subflow joins, Linux feeds the new subflow
    // only on the next write (docs/emulation.md), so it would carry ~nothing.
    let s = scenario("[transport]\nprotocol = \"mptcp\"\nsndbuf_kib = 256\n[transport.mptcp]\npath_manager = \"fullmesh\"\n[traffic]\nmodel = \"file\"\nsize_bytes = 2000000\nstart_s = 0.1\n");
    let o = emulate(&s);
    assert!(
        col(table(&o, "transfers"), "completion_time_ms")[0] != Value::Null,
        "download did not complete"
    );
    let (p1, p2) = (metric(&o, "fg_share_path1"), metric(&o, "fg_share_path2"));
    assert!(p1 > 0.05 && p2 > 0.05, "shares {p1} {p2}");
    // per-subflow rows from MPTCP_TCPINFO: the server sent on both paths
    let paths = table(&o, "paths");
    let rows: Vec<(Value, Value, f64)> = (0..paths.num_rows())
        .map(|r| {
            (
                col(paths, "side")[r].clone(),
                col(paths, "path")[r].clone(),
                f(&col(paths, "bytes_sent")[r]),
            )
        })
        .collect();
    for p in [1u64, 2] {
        assert!(
            rows.iter()
                .any(|(s, q, b)| *s == Value::Str("server".into())
                    && *q == Value::U64(p)
                    && *b > 100_000.0),
            "{rows:?}"
        );
    }
    check_written(o, &s);
}

#[test]
fn cbr_video_delay_is_one_way_delay_at_low_load() {
    if !need_root("cbr_video_delay_is_one_way_delay_at_low_load") {
        return;
    }
    let _g = serial();
    let s = scenario("[transport]\nprotocol = \"tcp\"\npath = 1\ninitial_cwnd_packets = 4\n[traffic]\nmodel = \"video\"\nbitrate_kbit = 500\nfps = 25\nstart_s = 0.3\n[output]\ntimeseries_interval_ms = 100\ncwnd_series = true\n");
    let mut s = s;
    s.meta.duration_s = 3.0;
    let o = emulate(&s);
    let owd = metric(&o, "drawn.path1.delay_ms");
    let m = table(&o, "messages");
    let delays: Vec<f64> = col(m, "delay_ms")
        .iter()
        .map(f)
        .filter(|d| d.is_finite())
        .collect();
    assert!(delays.len() > 50, "{} messages delivered", delays.len());
    let min = delays.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(
        min >= owd,
        "min delay {min} ms below the one-way delay {owd} ms"
    );
    let med = metric(&o, "delay_ms_median");
    // a 2.5 KB frame at >= 20 Mbit/s serialises in < 1 ms; loss retransmissions only touch the tail
    assert!(
        med < owd + 10.0,
        "median {med} ms vs one-way delay {owd} ms"
    );
    assert!(col(m, "jitter_ms").iter().any(|j| j.as_f64().is_some()));
    // `completed` mirrors the delivery time, and the counts match the rows
    let done = col(m, "completed");
    let undelivered = col(m, "delivery_time_ms")
        .iter()
        .zip(&done)
        .inspect(|(d, c)| assert_eq!(**c, Value::Bool(**d != Value::Null)))
        .filter(|(d, _)| **d == Value::Null)
        .count();
    assert_eq!(metric(&o, "messages_undelivered"), undelivered as f64);
    assert_eq!(metric(&o, "messages"), m.num_rows() as f64);
    // time series sampled from TCP_INFO: the server's sending rate near the video's bit rate
    let ts = table(&o, "timeseries");
    let rates: Vec<f64> = (0..ts.num_rows())
        .filter(|&r| {
            col(ts, "metric")[r] == Value::Str("send_mbit".into())
                && col(ts, "side")[r] == Value::Str("server".into())
                && f(&col(ts, "t_ms")[r]) > 1000.0
        })
        .map(|r| f(&col(ts, "value")[r]))
        .collect();
    assert!(rates.len() >= 10, "{rates:?}");
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    assert!(
        (0.4..0.7).contains(&mean),
        "mean send rate {mean} Mbit/s for 500 kbit/s video"
    );
    assert!(col(ts, "metric").contains(&Value::Str("srtt_ms".into())));
    // initial_cwnd_packets = 4 (route attribute initcwnd): the server's window before any data
    let first = (0..ts.num_rows())
        .find(|&r| {
            col(ts, "metric")[r] == Value::Str("cwnd_bytes".into())
                && col(ts, "side")[r] == Value::Str("server".into())
        })
        .unwrap();
    assert!(f(&col(ts, "t_ms")[first]) < 300.0);
    assert_eq!(f(&col(ts, "value")[first]), 4.0 * 1448.0);
    // same schedule as the simulator's
    let sched = message_schedule(&s, s.run_seed(0)).unwrap().unwrap();
    let sent: Vec<f64> = col(m, "send_time_ms").iter().map(f).collect();
    assert_eq!(sent.len(), sched.len());
    check_written(o, &s);
}

#[test]
fn web_page_over_real_http_with_six_connections() {
    if !need_root("web_page_over_real_http_with_six_connections") {
        return;
    }
    let _g = serial();
    let s = scenario("[transport]\nprotocol = \"tcp\"\npath = 1\n[traffic]\nmodel = \"web\"\nsite = \"wikipedia\"\nmax_connections = 6\nstart_s = 0.1\n");
    let o = emulate(&s);
    let tr = table(&o, "transfers");
    assert_eq!(col(tr, "kind")[0], Value::Str("page".into()));
    let ct = f(&col(tr, "completion_time_ms")[0]);
    // HTML first (>= 2 RTT with the handshake), then the objects (>= 2 more RTT on new connections)
    assert!(
        ct >= 4.0 * 2.0 * metric(&o, "drawn.path1.delay_ms") * 0.99,
        "page load {ct} ms"
    );
    assert!(ct < 5000.0, "page load {ct} ms");
    let fl = table(&o, "flows");
    assert_eq!(fl.num_rows(), 6, "six HTTP connections");
    assert!(col(fl, "bytes_delivered").iter().all(|b| f(b) > 0.0));
    check_written(o, &s);
}

#[test]
fn interrupted_run_cleans_up_and_writes_nothing() {
    if !need_root("interrupted_run_cleans_up_and_writes_nothing") {
        return;
    }
    let _g = serial();
    let s = scenario("[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n");
    let stop = Arc::new(AtomicBool::new(false));
    let st = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(800));
        st.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let t = std::time::Instant::now();
    let e = run_once(
        &s,
        0,
        &EmulateOptions {
            stop: Some(stop),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e, "interrupted");
    assert!(t.elapsed().as_secs_f64() < 4.0, "took {:?}", t.elapsed());
    assert!(my_namespaces().is_empty(), "{:?}", my_namespaces());
}

#[test]
fn unsupported_options_are_refused_clearly() {
    let cases = [
        ("[transport]\nprotocol = \"sctp\"\n[traffic]\nmodel = \"bulk\"\n", "no SCTP"),
        ("[transport]\nprotocol = \"cmt-sctp\"\n[traffic]\nmodel = \"bulk\"\n", "no SCTP"),
        (
            "[transport]\nprotocol = \"mptcp\"\ncc = \"lia\"\n[traffic]\nmodel = \"bulk\"\n",
            "not in upstream Linux",
        ),
        (
            "[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\nscheduler = \"roundrobin\"\n[traffic]\nmodel = \"bulk\"\n",
            "one scheduler",
        ),
        (
            "[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\ntlp = \"mptcp-level\"\n[traffic]\nmodel = \"bulk\"\n",
            "per subflow",
        ),
        (
            "[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\npath_manager = \"binder\"\n[traffic]\nmodel = \"bulk\"\n",
            "path_manager",
        ),
        ("[transport]\ninitial_cwnd_packets = 2000\n[traffic]\nmodel = \"bulk\"\n", "initcwnd"),
        // background is emulated (background.rs), up to 64 TCP flows (2 paths x 40 here)
        (
            "[background]\nenabled = true\ntcp_flows = 40\n[traffic]\nmodel = \"bulk\"\n",
            "at most 64",
        ),
        ("[transport]\ncubic = \"rfc9438\"\n[traffic]\nmodel = \"bulk\"\n", "tcp_cubic.c"),
        ("[transport]\nhystart = \"hystart++\"\n[traffic]\nmodel = \"bulk\"\n", "no HyStart++"),
    ];
    for (body, want) in cases {
        let s = scenario(body);
        let e = supported(&s).unwrap_err();
        assert!(e.contains(want), "{body}: {e}");
    }
    let explicit = Scenario::from_str(
        "[scenario]\nname = \"x\"\nduration_s = 1\n[topology]\nclient = \"c\"\nserver = \"s\"\n[[topology.node]]\nname = \"c\"\nkind = \"host\"\naddresses = [\"10.1.0.2\"]\n[[topology.node]]\nname = \"s\"\nkind = \"host\"\naddresses = [\"10.0.0.2\"]\n[[topology.link]]\na = \"c\"\nb = \"s\"\nrate_mbit = 10\ndelay_ms = 10\n[traffic]\nmodel = \"bulk\"\n",
        "x.toml",
    )
    .unwrap();
    // Explicit topologies are emulated now (explicit.rs; tests/explicit_topology.rs).
    assert!(supported(&explicit).is_ok());
    // Background traffic and seed 004's application failover are emulated
    // (background.rs, failover.rs; crates/cli/tests/emulate_seeds.rs).
    for body in [
        "[background]\nenabled = true\n[traffic]\nmodel = \"bulk\"\n",
        "[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\nfailover_path = 2\nfailover_after_s = 1.0\n",
    ] {
        assert!(supported(&scenario(body)).is_ok(), "{body}");
    }
}

/// `differs`: a v0.9x scheduler with a path manager that opens several
/// subflows is run by the kernel's own send path, and `reproduce --kernel`
/// says so beside the verdict; upstream, a single subflow or TCP do not.
#[test]
fn a_v09x_scheduler_with_several_subflows_is_named_as_run_differently() {
    let mptcp = |sched: &str, pm: &str| {
        scenario(&format!(
            "[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\nscheduler = \"{sched}\"\npath_manager = \"{pm}\"\n[traffic]\nmodel = \"bulk\"\n"
        ))
    };
    let d = differs(&mptcp("minrtt", "ndiffports")).expect("minrtt with ndiffports differs");
    assert!(d.contains("\"minrtt\"") && d.contains("send buffer"), "{d}");
    assert!(differs(&mptcp("blest", "fullmesh")).is_some());
    assert!(differs(&mptcp("upstream", "ndiffports")).is_none());
    assert!(differs(&mptcp("minrtt", "default")).is_none());
    assert!(differs(&scenario(
        "[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"bulk\"\n"
    ))
    .is_none());
}
