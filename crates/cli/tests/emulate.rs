//! `mptlab emulate` and `mptlab agent` through the binary (root for the
//! network tests; they use only namespaces they create).

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use mptlab_core::link::{LinkParams, QueueLimit};
use mptlab_core::loss::LossModel;
use mptlab_emu::{netns, EmuOptions, PathSpec, Topology, TopologyOptions};

static SERIAL: Mutex<()> = Mutex::new(());

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mptlab")
}

fn tmp(name: &str) -> common::Scratch {
    common::Scratch::unmade(&format!("cli-emu-{name}"))
}

fn write_scenario(dir: &std::path::Path, body: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("s.toml");
    std::fs::write(
        &p,
        format!("[scenario]\nname = \"cli-emu\"\nduration_s = 2.0\nruns = 1\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n{body}"),
    )
    .unwrap();
    p
}

const FILE: &str = "[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"file\"\nsize_bytes = 200000\nstart_s = 0.1\n";

#[test]
fn emulate_refuses_unsupported_with_exit_2_and_writes_nothing() {
    let d = tmp("refuse");
    let s = write_scenario(&d, FILE);
    let out = d.join("out");
    let o = Command::new(bin())
        .args(["emulate"])
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .args(["--set", "transport.protocol=sctp"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no SCTP"), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn emulate_refuses_without_root() {
    if !netns::is_root() || !std::path::Path::new("/usr/bin/setpriv").exists() {
        eprintln!(
            "skipping emulate_refuses_without_root: needs root and setpriv to drop to nobody"
        );
        return;
    }
    let d = common::Scratch::new("cli-emu-nonroot");
    std::fs::set_permissions(&d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let s = write_scenario(&d, FILE);
    std::fs::set_permissions(&s, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = d.join("out");
    let o = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            bin(),
            "emulate",
        ])
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("must run as root"));
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn emulate_writes_tables_and_optional_capture() {
    if !netns::is_root() {
        eprintln!("skipping emulate_writes_tables_and_optional_capture: needs root");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("run");
    let s = write_scenario(&d, FILE);
    let (out, cap) = (d.join("out"), d.join("cap"));
    let o = Command::new(bin())
        .arg("emulate")
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .arg("--capture")
        .arg(&cap)
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for t in [
        "messages",
        "transfers",
        "flows",
        "paths",
        "links",
        "timeseries",
    ] {
        assert!(out.join(format!("{t}.csv")).exists(), "{t}");
    }
    let tr = std::fs::read_to_string(out.join("transfers.csv")).unwrap();
    // finished: end and completion time present, `completed` true
    assert!(
        tr.lines()
            .nth(1)
            .is_some_and(|l| l.ends_with(",true") && !l.ends_with(",,true")),
        "{tr}"
    );
    // and no unfinished-work warning (the run printed with -q)
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning: unfinished"));
    if mptlab_emu::capture::tool().is_some() {
        assert!(cap.join("run0-c-p1.pcap").metadata().unwrap().len() > 1000);
        assert!(cap.join("run0-s-srv.pcap").exists());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn emulate_warns_about_an_unfinished_file() {
    if !netns::is_root() {
        eprintln!("skipping emulate_warns_about_an_unfinished_file: needs root");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("unfinished");
    // 20 MB over the 3G path in 2 s cannot finish
    let s = write_scenario(
        &d,
        "[transport]\nprotocol = \"tcp\"\npath = 2\n[traffic]\nmodel = \"file\"\nsize_bytes = 20000000\n",
    );
    let out = d.join("out");
    let o = Command::new(bin())
        .arg("emulate")
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .arg("-q")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: unfinished work in"), "{err}");
    assert!(err.contains("1 of 1 transfer(s)"), "{err}");
    let tr = std::fs::read_to_string(out.join("transfers.csv")).unwrap();
    assert!(
        tr.lines().nth(1).is_some_and(|l| l.ends_with(",,,false")),
        "{tr}"
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"transfers_unfinished\": 1"), "{summary}");
    std::fs::remove_dir_all(&d).unwrap();
}

fn link(rate_mbit: u64, delay_ms: u64) -> LinkParams {
    LinkParams {
        rate_bps: rate_mbit * 1_000_000,
        delay: delay_ms * 1_000_000,
        queue: QueueLimit::Packets(100),
        loss: LossModel::None,
        trace: None,
        outages: Vec::new(),
    }
}

/// Run `agent server` and `agent client` in the server and client
/// namespaces; returns the client's and the server's output directories.
fn live(
    topo: &Topology,
    d: &std::path::Path,
    s: &std::path::Path,
    set: &[&str],
    port: u16,
) -> (PathBuf, PathBuf) {
    let (cout, sout) = (
        d.join(format!("client{port}")),
        d.join(format!("server{port}")),
    );
    let listen = format!("10.0.0.2:{port}");
    let mut server = Command::new("ip")
        .args(["netns", "exec", &topo.server_ns, bin(), "agent", "server"])
        .arg(s)
        .args(["--listen", &listen, "--out"])
        .arg(&sout)
        .args(set)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let o = Command::new("ip")
        .args(["netns", "exec", &topo.client_ns, bin(), "agent", "client"])
        .arg(s)
        .args(["--connect", &listen, "--bind", "10.1.0.2", "--out"])
        .arg(&cout)
        .args(set)
        .output()
        .unwrap();
    // SAFETY: signalling our own child (`ip netns exec` execs the agent).
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    let st = server.wait().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(st.success(), "server exit {st:?}");
    (cout, sout)
}

fn delays(dir: &std::path::Path) -> Vec<f64> {
    let m = std::fs::read_to_string(dir.join("messages.csv")).unwrap();
    m.lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(8)?.parse().ok())
        .collect()
}

#[test]
fn live_agent_between_two_namespaces() {
    if !netns::is_root() {
        eprintln!("skipping live_agent_between_two_namespaces: needs root");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("live");
    let s = write_scenario(
        &d,
        "[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"video\"\nbitrate_kbit = 500\nfps = 25\nstart_s = 0.2\n",
    );
    let topo = Topology::build(&TopologyOptions::seed000()).unwrap();
    let emu = topo
        .start_emulator(
            &[
                PathSpec::symmetric(link(20, 15)),
                PathSpec::symmetric(link(5, 40)),
            ],
            1,
            EmuOptions::default(),
        )
        .unwrap();
    // down: the client measures
    let (cout, _) = live(&topo, &d, &s, &[], 9000);
    // up: the server measures and writes its tables on SIGTERM
    let (_, sout) = live(&topo, &d, &s, &["--set", "traffic.direction=up"], 9001);
    emu.stop();
    drop(topo);
    for dir in [cout, sout] {
        let mut v = delays(&dir);
        assert!(v.len() > 30, "{}: {v:?}", dir.display());
        // one host, so CLOCK_REALTIME is one clock here: delay >= the 15 ms one-way delay
        assert!(v.iter().all(|&x| x >= 15.0), "{v:?}");
        v.sort_by(|a, b| a.total_cmp(b));
        assert!(v[v.len() / 2] < 20.0, "median {}", v[v.len() / 2]);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

fn namespaces_of(pid: u32) -> Vec<String> {
    let p = format!("mptl-{pid}-");
    netns::list()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with(&p))
        .collect()
}

fn wait_for_namespaces(pid: u32) -> bool {
    for _ in 0..100 {
        if namespaces_of(pid).len() >= 3 {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn ctrl_c_and_kill_leave_nothing_behind() {
    if !netns::is_root() {
        eprintln!("skipping ctrl_c_and_kill_leave_nothing_behind: needs root");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("signals");
    let s = write_scenario(
        &d,
        "[transport]\nprotocol = \"mptcp\"\n[traffic]\nmodel = \"bulk\"\n",
    );
    let out = d.join("out");
    // SIGINT: the run stops, tears down, writes nothing, exit 1.
    let mut ch = Command::new(bin())
        .arg("emulate")
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .args(["--set", "scenario.duration_s=30"])
        .spawn()
        .unwrap();
    assert!(wait_for_namespaces(ch.id()), "no namespaces appeared");
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(ch.id() as i32, libc::SIGINT) };
    let t = std::time::Instant::now();
    let st = ch.wait().unwrap();
    assert_eq!(st.code(), Some(1));
    assert!(t.elapsed().as_secs_f64() < 5.0);
    assert!(
        namespaces_of(ch.id()).is_empty(),
        "{:?}",
        namespaces_of(ch.id())
    );
    assert!(!out.exists());
    // SIGKILL: leftovers stay until the next start removes them.
    let mut ch = Command::new(bin())
        .arg("emulate")
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .args(["--set", "scenario.duration_s=30"])
        .spawn()
        .unwrap();
    assert!(wait_for_namespaces(ch.id()));
    ch.kill().unwrap();
    ch.wait().unwrap();
    let dead = ch.id();
    assert!(
        !namespaces_of(dead).is_empty(),
        "a killed run cannot clean up itself"
    );
    let s2 = write_scenario(&d.join("next"), FILE);
    let o = Command::new(bin())
        .arg("emulate")
        .arg(&s2)
        .arg("--out")
        .arg(d.join("out2"))
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        namespaces_of(dead).is_empty(),
        "leftovers of the killed run: {:?}",
        namespaces_of(dead)
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

/// `mptlab validate` runs a validation scenario in both the simulator and the
/// kernel and writes the side-by-side table.
#[test]
fn validate_compares_simulation_and_emulation() {
    if !netns::is_root() {
        eprintln!("skipping validate_compares_simulation_and_emulation: needs root");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tmp("validate");
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = Command::new(bin())
        .args([
            "validate",
            "--runs",
            "2",
            "--only",
            "file-256k-tcp",
            "--dir",
        ])
        .arg(repo.join("scenarios/validate"))
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(d.join("validation.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv
        .lines()
        .find(|l| l.starts_with("file-256k-tcp,completion_time_ms,"))
        .expect(&csv)
        .split(',')
        .collect();
    assert_eq!(header.len(), row.len(), "{csv}");
    let col = |name: &str| row[header.iter().position(|h| *h == name).expect(name)];
    let num = |name: &str| col(name).parse::<f64>().unwrap();
    // Two runs behind each side; the interval brackets the median.
    assert_eq!((col("sim_runs"), col("kernel_runs")), ("2", "2"));
    for side in ["sim", "kernel"] {
        let (m, lo, hi) = (
            num(&format!("{side}_median")),
            num(&format!("{side}_ci_lo")),
            num(&format!("{side}_ci_hi")),
        );
        assert!(lo <= m && m <= hi, "{side}: {lo} {m} {hi}");
        // 2 runs: [min, max] covers 1 - 2 / 4 of the time
        assert_eq!(num(&format!("{side}_ci_coverage")), 0.5);
    }
    // Same link parameters, same TCP: the kernel and the model finish a
    // 256 KiB download over a 20 Mbit/s, 2 x 10 ms path within 10 %, so
    // the cell passes, and the ratio is the medians'.
    let ratio = num("kernel_median") / num("sim_median");
    assert!((num("ratio") - ratio).abs() < 1e-9);
    assert_eq!(col("verdict"), "PASS", "{csv}");
    assert_eq!(
        (col("sim_unfinished"), col("kernel_unfinished")),
        ("0", "0")
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("1 of 1 cells pass"), "{stdout}");
    // The kernel runs were saved; reusing them (no emulation) with the same
    // simulated runs gives the same table, and with more simulated runs
    // keeps the kernel's two.
    assert!(d.join("kernel/file-256k-tcp.json").is_file());
    let reuse = |dir: &std::path::Path, runs: &str, out: &std::path::Path| {
        Command::new(bin())
            .args([
                "validate",
                "--runs",
                runs,
                "--only",
                "file-256k-tcp",
                "--dir",
            ])
            .arg(dir)
            .arg("--kernel-from")
            .arg(&d)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let d2 = tmp("validate-reuse");
    let o = reuse(&repo.join("scenarios/validate"), "2", &d2);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(d2.join("validation.csv")).unwrap(),
        csv
    );
    let o = reuse(&repo.join("scenarios/validate"), "5", &d2);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv5 = std::fs::read_to_string(d2.join("validation.csv")).unwrap();
    let row5: Vec<&str> = csv5
        .lines()
        .find(|l| l.starts_with("file-256k-tcp,completion_time_ms,"))
        .expect(&csv5)
        .split(',')
        .collect();
    let at = |name: &str| header.iter().position(|h| *h == name).expect(name);
    assert_eq!((row5[at("sim_runs")], row5[at("kernel_runs")]), ("5", "2"));
    // The same scenario with another path rate is refused: exit 2, naming
    // the saved file.
    let changed = tmp("validate-changed");
    std::fs::create_dir_all(&changed).unwrap();
    let text = std::fs::read_to_string(repo.join("scenarios/validate/file-256k-tcp.toml")).unwrap();
    assert!(text.contains("rate_mbit = 20\n"));
    let text = text.replacen("rate_mbit = 20\n", "rate_mbit = 21\n", 1);
    std::fs::write(changed.join("file-256k-tcp.toml"), text).unwrap();
    let o = reuse(&changed, "2", &d2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("file-256k-tcp.json") && err.contains("other settings"),
        "{err}"
    );
    // Bad input: exit 2, nothing written.
    let o = Command::new(bin())
        .args(["validate", "--only", "no-such-scenario"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    for x in [&d, &d2, &changed] {
        std::fs::remove_dir_all(x).unwrap();
    }
}

/// `--kernel-from` a directory without saved kernel runs is refused before
/// anything runs (no root needed: nothing is emulated).
#[test]
fn validate_kernel_from_refuses_a_directory_without_saved_runs() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let empty = tmp("validate-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = Command::new(bin())
        .args(["validate", "--only", "file-256k-tcp", "--dir"])
        .arg(repo.join("scenarios/validate"))
        .arg("--kernel-from")
        .arg(&empty)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no saved kernel results"), "{err}");
    std::fs::remove_dir_all(&empty).unwrap();
}

/// `--kernel-from` repeated: each scenario's kernel runs come from the last
/// directory that holds them (a later pass with more runs replaces an
/// earlier one; a directory without the scenario hides nothing), none
/// holding them is refused naming the file, and `--decisions` takes one.
#[test]
fn validate_kernel_from_repeated_takes_each_scenario_from_the_last_directory_with_it() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let saved = repo.join("docs/data/kernel-grid-2026-11-26/kernel/file-256k-tcp.json");
    let ten = tmp("validate-kf-ten");
    let nine = tmp("validate-kf-nine");
    let empty = tmp("validate-kf-empty");
    for d in [&ten, &nine, &empty] {
        std::fs::create_dir_all(d.join("kernel")).unwrap();
    }
    std::fs::copy(&saved, ten.join("kernel/file-256k-tcp.json")).unwrap();
    // the same pass with its last run dropped: a different, still valid file
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    v["runs"].as_array_mut().unwrap().pop();
    std::fs::write(nine.join("kernel/file-256k-tcp.json"), v.to_string()).unwrap();
    let run = |dirs: &[&common::Scratch], extra: &[&str]| {
        let mut c = Command::new(bin());
        c.args([
            "validate",
            "--only",
            "file-256k-tcp",
            "--runs",
            "10",
            "--dir",
        ])
        .arg(repo.join("scenarios/validate"))
        .args(extra);
        for d in dirs {
            c.arg("--kernel-from").arg(d);
        }
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let reused = |n: u32| format!("{n} kernel run(s) reused from --kernel-from");
    let (code, err) = run(&[&ten, &nine], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(&reused(9)), "{err}");
    let (code, err) = run(&[&nine, &ten], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(&reused(10)), "{err}");
    let (code, err) = run(&[&ten, &empty], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(&reused(10)), "{err}");
    let (code, err) = run(&[&empty, &empty], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no saved kernel results"), "{err}");
    assert!(err.contains(&empty.display().to_string()), "{err}");
    let (code, err) = run(&[&ten, &nine], &["--decisions"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--decisions re-judges one saved pass"),
        "{err}"
    );
    for d in [&ten, &nine, &empty] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// `--decisions --kernel-from` a directory without the scenario's kernel
/// captures is refused before anything runs, naming the directory (no root
/// needed: nothing is emulated), and so is an -o inside it.
#[test]
fn validate_decisions_kernel_from_refuses_a_pass_without_the_cell() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let empty = tmp("decisions-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let run = |out: &std::path::Path| {
        let o = Command::new(bin())
            .args([
                "validate",
                "--decisions",
                "--only",
                "file-256k-mptcp",
                "--dir",
            ])
            .arg(repo.join("scenarios/validate"))
            .arg("--kernel-from")
            .arg(&empty)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let (code, err) = run(&empty.with_extension("out"));
    assert_eq!(code, Some(2), "{err}");
    let want = format!(
        "{}: no kernel captures for scenario file-256k-mptcp",
        empty.join("captures/file-256k-mptcp/kernel").display()
    );
    assert!(err.contains(&want), "{err}");
    let (code, err) = run(&empty.join("again"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("would overwrite the captures it reads"),
        "{err}"
    );
    assert!(!empty.join("again").exists());
    std::fs::remove_dir_all(&empty).unwrap();
}
