//! The `clients` preset ([population]): many clients in one run, aggregate
//! rows that do not grow with the number of connections and add up to the
//! per-connection rows, every 5-tuple distinct, bad sizes refused.

use std::collections::HashSet;

use mptlab_results::RunOutput;
use mptlab_results::Value;
use mptlab_scenario::Scenario;

const BASE: &str = r#"
[scenario]
name = "pop"
duration_s = 1.5

[topology]
preset = "clients"
paths = ["wlan", "3g"]

[population]
clients = CLIENTS
clients_per_router = [4, 16]
servers = 3
start_spread_s = 0.2

[transport]
protocol = "mptcp"
cc = "lia"

[traffic]
model = "bulk"

[output]
timeseries_interval_ms = 100
cwnd_series = true
"#;

fn run(clients: u32) -> RunOutput {
    let text = BASE.replace("CLIENTS", &clients.to_string());
    let s = Scenario::from_str(&text, "pop.toml").unwrap();
    mptlab_sim::run_once(&s, 0).unwrap()
}

fn rows(r: &RunOutput, t: &str) -> usize {
    r.table(t).unwrap().num_rows()
}

fn sum(r: &RunOutput, t: &str, col: &str) -> f64 {
    let t = r.table(t).unwrap();
    (0..t.num_rows())
        .map(|i| t.get(i, col).unwrap().as_f64().unwrap())
        .sum()
}

/// 5 and 40 clients: the same number of rows in every table (the time
/// series included); the aggregate equals the sum of the per-connection
/// rows of the very same run.
#[test]
fn aggregate_rows_do_not_grow_with_connections_and_add_up() {
    let small = run(5);
    let big = run(40);
    for t in ["flows", "paths", "links", "messages", "transfers"] {
        assert_eq!(rows(&small, t), rows(&big, t), "table {t}");
    }
    // time series: at most a row per sample (16 in 1.5 s), side (2), access
    // path (2) and metric (send_mbit, cwnd_bytes, srtt_ms) however many
    // connections (a row appears once its path exists or has sent)
    for r in [&small, &big] {
        assert!(rows(r, "timeseries") <= 16 * 2 * 2 * 3);
    }
    assert_eq!(rows(&big, "flows"), 1);
    assert_eq!(rows(&big, "paths"), 4, "2 sides x 2 access paths");
    assert!(rows(&big, "timeseries") > 0);
    let text = BASE.replace("CLIENTS", "40").replace(
        "start_spread_s = 0.2",
        "start_spread_s = 0.2\nper_connection_rows = true",
    );
    let s = Scenario::from_str(&text, "pop.toml").unwrap();
    let each = mptlab_sim::run_once(&s, 0).unwrap();
    assert_eq!(rows(&each, "flows"), 40);
    assert!(
        rows(&each, "paths") >= 40 * 2 * 2 - 4,
        "subflows per connection"
    );
    for col in ["bytes_delivered", "bytes_sent", "packets_sent"] {
        assert_eq!(sum(&big, "flows", col), sum(&each, "flows", col), "{col}");
    }
    for col in ["bytes_sent", "data_packets_sent"] {
        assert_eq!(sum(&big, "paths", col), sum(&each, "paths", col), "{col}");
    }
    for col in ["packets_offered", "drops_loss", "bytes_delivered"] {
        assert_eq!(sum(&big, "links", col), sum(&each, "links", col), "{col}");
    }
    assert_eq!(big.summary["data_packets"], each.summary["data_packets"]);
    assert_eq!(big.summary["population.connections"].as_f64(), Some(40.0));
    // every MPTCP connection used both of its client's interfaces
    let t = each.table("paths").unwrap();
    let mut addrs = HashSet::new();
    for i in 0..t.num_rows() {
        if t.get(i, "side") == Some(Value::Str("client".into())) {
            let a = format!("{:?}", t.get(i, "local_addr"));
            assert!(addrs.insert(a), "address twice");
        }
    }
    assert_eq!(addrs.len(), 80, "40 clients x 2 interfaces");
}

/// Bad sizes name the key: too many routers, wrong list lengths, too many
/// clients for the plan, a population without the preset.
#[test]
fn bad_populations_are_refused_with_the_key() {
    let bad = |text: String, key: &str| {
        let e = Scenario::from_str(&text, "pop.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{key}: {e}");
    };
    bad(
        BASE.replace("CLIENTS", "100000")
            .replace("[4, 16]", "[1, 16]"),
        "population.clients_per_router",
    );
    bad(
        BASE.replace("CLIENTS", "10").replace("[4, 16]", "[4]"),
        "population.clients_per_router",
    );
    bad(BASE.replace("CLIENTS", "2000000"), "population.clients");
    bad(
        BASE.replace("CLIENTS", "10")
            .replace("servers = 3", "servers = 70000"),
        "population.servers",
    );
    bad(
        BASE.replace("CLIENTS", "10")
            .replace("\"clients\"", "\"two-path\""),
        "population",
    );
    bad(
        BASE.replace("CLIENTS", "10").replace(
            "paths = [\"wlan\", \"3g\"]",
            "paths = [\"wlan\", \"3g\", \"lte\", \"lte\"]",
        ),
        "topology.paths",
    );
    bad(
        BASE.replace("CLIENTS", "10").replace(
            "cc = \"lia\"",
            "cc = \"lia\"\n[transport.mptcp]\nbackup_paths = [2]",
        ),
        "transport.mptcp.backup_paths",
    );
}
