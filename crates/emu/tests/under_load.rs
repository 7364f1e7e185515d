//! The emulation on a busy host (issue 15, session 18; docs/emulation.md,
//! "Under load"). Root tests are skipped with a printed reason elsewhere.
//! Real time: one run of 6 s, while busy threads hold every CPU.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use mptlab_emu::netns;
use mptlab_emu::oneloop::refill;
use mptlab_emu::run::{run_once, EmulateOptions};
use mptlab_results::{RunOutput, Value};
use mptlab_scenario::Scenario;

/// The spin budget grows only with the time the emulator slept: a thread
/// that never slept (saturated by its own work) can never spin, so spinning
/// cannot push a busy real-time thread into the kernel's RT throttling.
#[test]
fn the_spin_budget_grows_only_while_the_emulator_sleeps() {
    let cap = 1_000_000.0;
    assert_eq!(refill(0.0, 0, 0.2, cap), 0.0);
    assert_eq!(refill(0.0, 1_000_000, 0.2, cap), 200_000.0);
    assert_eq!(refill(900_000.0, 1_000_000, 0.2, cap), cap);
    // However long the thread has been awake, a zero sleep adds nothing.
    let mut b = 0.0;
    for _ in 0..1000 {
        b = refill(b, 0, 0.2, cap);
    }
    assert_eq!(b, 0.0);
}

/// Two hops as on seed 003's NTNU->HiN path 1: a 1 Gbit/s access link and
/// an 86.6 Mbit/s bottleneck with a 109-packet queue; TCP CUBIC upload.
fn chain() -> Scenario {
    let text = r#"
[scenario]
name = "under-load"
duration_s = 6.0
runs = 1
seed = 1
[topology]
client = "C"
server = "S"
[[topology.node]]
name = "C"
kind = "host"
addresses = ["10.1.0.2"]
[[topology.node]]
name = "S"
kind = "host"
addresses = ["10.101.0.2"]
[[topology.node]]
name = "R"
kind = "router"
[[topology.link]]
a = "C"
b = "R"
rate_mbit = 1000.0
delay_ms = 1.0
queue_packets = 1250
[[topology.link]]
a = "R"
b = "S"
rate_mbit = 86.6
delay_ms = 4.0
queue_packets = 109
[transport]
protocol = "tcp"
cc = "cubic"
sndbuf_kib = 16384
rcvbuf_kib = 16384
[traffic]
model = "bulk"
direction = "up"
client_hello_bytes = 16
"#;
    Scenario::from_str(text, "under-load.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn metric(o: &RunOutput, k: &str) -> f64 {
    o.summary
        .get(k)
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("no metric {k}"))
}

/// The bottleneck's (link2 up) queue drops.
fn bottleneck_drops(o: &RunOutput) -> f64 {
    let t = o.table("links").expect("links table");
    let c = |n: &str| t.column(n).unwrap_or_else(|| panic!("no column {n}"));
    (0..t.num_rows())
        .find(|&r| {
            c("link").data.get(r) == Value::Str("link2".into())
                && c("direction").data.get(r) == Value::Str("up".into())
        })
        .map(|r| c("drops_queue").data.get(r).as_f64().unwrap_or(f64::NAN))
        .expect("link2 up row")
}

/// With a normal-priority busy thread on every CPU, the kernel's receiver
/// is still scheduled at once: its ACKs are not held back until it reads, so
/// the sender does not burst into the bottleneck and the run reads the
/// link's rate. Before session 18 (the agent at normal priority, receiver
/// woken behind the real-time emulator) the same run lost throughput and
/// dropped several times the packets at the bottleneck (docs/emulation.md,
/// "Under load (session 18)", for the numbers this test's bounds come from).
#[test]
fn busy_threads_on_every_cpu_do_not_change_a_fast_upload() {
    if !netns::is_root() {
        eprintln!("skipping busy_threads_on_every_cpu_do_not_change_a_fast_upload: needs root");
        return;
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        eprintln!(
            "skipping busy_threads_on_every_cpu_do_not_change_a_fast_upload: no /dev/net/tun"
        );
        return;
    }
    let s = chain();
    let stop = Arc::new(AtomicBool::new(false));
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let busy: Vec<_> = (0..cpus)
        .map(|_| {
            let st = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !st.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    let out = run_once(&s, 0, &EmulateOptions::default());
    stop.store(true, Ordering::Relaxed);
    for b in busy {
        b.join().unwrap();
    }
    let o = out.unwrap_or_else(|e| panic!("{e}"));
    let mine = format!("mptl-{}-", std::process::id());
    assert!(
        !netns::list().unwrap().iter().any(|n| n.starts_with(&mine)),
        "namespaces left"
    );
    let mbit = metric(&o, "fg_throughput_mbit");
    let drops = bottleneck_drops(&o);
    eprintln!(
        "under load: {mbit:.2} Mbit/s, {drops} bottleneck drops, emulator thread cpu {:.2}, stalls {}",
        metric(&o, "emu.thread_cpu_fraction_max"),
        metric(&o, "emu.stalls")
    );
    // 86.6 Mbit/s of IP packets carry 86.6 x 1448/1500 = 83.6 Mbit/s of
    // payload; slow start and one CUBIC epoch in 6 s cost a few percent.
    assert!(mbit > 0.93 * 83.6, "{mbit:.2} Mbit/s");
    assert!(drops <= BOUND_DROPS, "{drops} bottleneck drops");
    assert_eq!(metric(&o, "emu.agent_priority"), 5.0);
}

/// Queue drops at the bottleneck allowed in 6 s. Measured (branch emu18):
/// 49-53 with the agent at SCHED_FIFO under this load (most of them slow
/// start's overshoot), 54 and 108 with it at normal priority. The bound
/// sits well above the passing runs so that a slower CI host does not fail
/// on slow start alone; the priority check below catches the 54 run.
const BOUND_DROPS: f64 = 90.0;
