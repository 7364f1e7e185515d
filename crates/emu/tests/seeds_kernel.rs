//! Seeds' experiments on the kernel (issue 15): several subflows per address
//! pair through the kernel's userspace path manager, and what is refused.
//! Needs root, TUN and MPTCP (skipped with a printed reason otherwise).
//! Real time: a few seconds each, run one at a time.

use std::sync::Mutex;

use mptlab_emu::netns;
use mptlab_emu::run::{run_once, supported, EmulateOptions};
use mptlab_results::{RunOutput, Value};
use mptlab_scenario::Scenario;

static SERIAL: Mutex<()> = Mutex::new(());

fn need_kernel(test: &str) -> bool {
    if !netns::is_root() {
        eprintln!("skipping {test}: needs root");
        return false;
    }
    if !std::path::Path::new("/proc/sys/net/mptcp/enabled").exists() {
        eprintln!("skipping {test}: kernel without MPTCP");
        return false;
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        eprintln!("skipping {test}: no /dev/net/tun");
        return false;
    }
    true
}

fn scenario(body: &str) -> Scenario {
    let text = format!("[scenario]\nname = \"t\"\nduration_s = 3.0\nruns = 1\nseed = 3\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n{body}");
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

fn emulate(s: &Scenario) -> RunOutput {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = run_once(s, 0, &EmulateOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        my_namespaces().is_empty(),
        "namespaces left: {:?}",
        my_namespaces()
    );
    o
}

/// (path, bytes_sent) of the sending side's subflows in the paths table.
fn sender_subflows(o: &RunOutput, side: &str) -> Vec<(i64, f64)> {
    let t = o.table("paths").unwrap();
    let c = |n: &str| t.column(n).unwrap_or_else(|| panic!("no column {n}"));
    (0..t.num_rows())
        .filter(|&r| c("side").data.get(r) == Value::from(side))
        .map(|r| {
            (
                c("path").data.get(r).as_f64().unwrap() as i64,
                c("bytes_sent").data.get(r).as_f64().unwrap_or(0.0),
            )
        })
        .collect()
}

#[test]
fn ndiffports_opens_its_subflows_over_the_initial_address_pair() {
    if !need_kernel("ndiffports_opens_its_subflows_over_the_initial_address_pair") {
        return;
    }
    let s = scenario("[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\nscheduler = \"upstream\"\npath_manager = \"ndiffports\"\nndiffports = 3\n[traffic]\nmodel = \"bulk\"\ndirection = \"up\"\n");
    supported(&s).unwrap();
    let o = emulate(&s);
    let sf = sender_subflows(&o, "client");
    // v0.9x ndiffports: n subflows in total, all over the first address pair.
    assert_eq!(sf.len(), 3, "client subflows: {sf:?}");
    assert!(sf.iter().all(|&(p, _)| p == 1), "{sf:?}");
    // The extra subflows carry data (the kernel scheduler uses all three).
    assert!(
        sf.iter().filter(|&&(_, b)| b > 10_000.0).count() >= 2,
        "{sf:?}"
    );
}

#[test]
fn fullmesh_with_two_subflows_per_pair_opens_two_on_each_path() {
    if !need_kernel("fullmesh_with_two_subflows_per_pair_opens_two_on_each_path") {
        return;
    }
    let s = scenario("[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\nscheduler = \"upstream\"\npath_manager = \"fullmesh\"\nsubflows_per_path = 2\n[traffic]\nmodel = \"bulk\"\ndirection = \"up\"\n");
    let o = emulate(&s);
    let mut paths: Vec<i64> = sender_subflows(&o, "client").iter().map(|x| x.0).collect();
    paths.sort();
    assert_eq!(paths, vec![1, 1, 2, 2]);
}

#[test]
fn binder_is_refused_with_the_reason() {
    let s = scenario("[transport]\nprotocol = \"mptcp\"\n[transport.mptcp]\npath_manager = \"binder\"\n[traffic]\nmodel = \"bulk\"\n");
    let e = supported(&s).unwrap_err();
    assert!(e.contains("loose source routing"), "{e}");
}

fn seed003(name: &str, sets: &[(&str, &str)]) -> Scenario {
    let p = format!(
        "{}/../../scenarios/seed003/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let o: Vec<mptlab_scenario::Override> = sets
        .iter()
        .map(|(k, v)| format!("{k}={v}").parse().unwrap())
        .collect();
    Scenario::from_file_with_overrides(&p, &o).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn seed003_2x2_tcp_runs_over_the_chosen_isp_pair() {
    if !need_kernel("seed003_2x2_tcp_runs_over_the_chosen_isp_pair") {
        return;
    }
    // UDE via Versatel (1 Mbit/s uplink) to HU via CnUnicom: Versatel is the bottleneck.
    let s = seed003(
        "udehu.toml",
        &[
            ("scenario.duration_s", "3"),
            ("transport.path", "2"),
            ("transport.server_path", "2"),
        ],
    );
    supported(&s).unwrap();
    let o = emulate(&s);
    let t = o
        .summary
        .get("fg_throughput_mbit")
        .and_then(|v| v.as_f64())
        .unwrap();
    assert!(
        t > 0.3 && t <= 1.0,
        "throughput {t} Mbit/s over a 1 Mbit/s uplink"
    );
    let sf = sender_subflows(&o, "client");
    assert_eq!(sf.len(), 1, "{sf:?}");
    assert_eq!(sf[0].0, 2, "{sf:?}");
}

#[test]
fn seed003_2x2_ndiffports_on_the_kernel() {
    if !need_kernel("seed003_2x2_ndiffports_on_the_kernel") {
        return;
    }
    let s = seed003(
        "udehu.toml",
        &[
            ("scenario.duration_s", "3"),
            ("transport.protocol", "mptcp"),
            ("transport.mptcp.path_manager", "ndiffports"),
            ("transport.mptcp.scheduler", "upstream"),
        ],
    );
    let o = emulate(&s);
    let sf = sender_subflows(&o, "client");
    assert_eq!(sf.len(), 2, "ndiffports = 2 in the scenario: {sf:?}");
    assert!(sf.iter().all(|&(p, _)| p == 1), "{sf:?}");
}

#[test]
fn seed003_2x2_fullmesh_opens_every_address_pair() {
    if !need_kernel("seed003_2x2_fullmesh_opens_every_address_pair") {
        return;
    }
    let s = seed003(
        "udehu.toml",
        &[
            ("scenario.duration_s", "4"),
            ("transport.protocol", "mptcp"),
            ("transport.mptcp.path_manager", "fullmesh"),
            ("transport.mptcp.scheduler", "upstream"),
        ],
    );
    let o = emulate(&s);
    let t = o.table("paths").unwrap();
    let c = |n: &str| t.column(n).unwrap();
    let mut pairs: Vec<String> = (0..t.num_rows())
        .filter(|&r| c("side").data.get(r) == Value::from("client"))
        .map(|r| {
            format!(
                "{:?}>{:?}",
                c("local_addr").data.get(r),
                c("remote_addr").data.get(r)
            )
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    // v0.9x fullmesh (the simulator): 2 client x 2 server addresses; the
    // server announces 10.102.0.2 (ADD_ADDR) and accepts joins to it.
    assert_eq!(pairs.len(), 4, "{pairs:?}");
}
