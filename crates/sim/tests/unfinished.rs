//! Issue 12 item 3: transfers and messages a run did not complete are
//! marked in the tables (`completed`) and counted in the run's summary
//! (`transfers_unfinished`, `messages_undelivered`), consistently with the
//! null end / delivery times.

use mptlab_results::{RunOutput, Table, Value};
use mptlab_scenario::Scenario;

fn run(text: &str) -> RunOutput {
    let s = Scenario::from_str(text, "u.toml").unwrap();
    mptlab_sim::run_once(&s, 0).unwrap()
}

fn table<'a>(r: &'a RunOutput, name: &str) -> &'a Table {
    r.table(name).unwrap()
}

fn col(t: &Table, c: &str) -> Vec<Value> {
    (0..t.num_rows()).map(|i| t.get(i, c).unwrap()).collect()
}

fn metric(r: &RunOutput, k: &str) -> Option<f64> {
    r.summary.get(k).and_then(|v| v.as_f64())
}

/// One path of `rate` Mbit/s, 20 ms; `traffic` is the [traffic] body.
fn scenario(duration_s: f64, rate: f64, protocol: &str, traffic: &str) -> String {
    format!(
        "[scenario]\nname = \"u\"\nduration_s = {duration_s}\nruns = 1\n\
         [profile.p]\nrate_mbit = {rate}\ndelay_ms = 20\nqueue_packets = 100\n\
         [topology]\npreset = \"single-path\"\npaths = [\"p\"]\n\
         [transport]\nprotocol = \"{protocol}\"\n[traffic]\n{traffic}\n"
    )
}

/// Every row's `completed` agrees with its time column being non-null, and
/// the summary counts agree with the rows.
fn check_consistent(r: &RunOutput, name: &str, time_col: &str, total: &str, undone: &str) {
    let t = table(r, name);
    let done = col(t, "completed");
    let times = col(t, time_col);
    assert_eq!(done.len(), times.len());
    for (d, tm) in done.iter().zip(&times) {
        assert_eq!(
            *d,
            Value::Bool(*tm != Value::Null),
            "{name}: {d:?} vs {tm:?}"
        );
    }
    let n_undone = done.iter().filter(|d| **d == Value::Bool(false)).count();
    assert_eq!(metric(r, total), Some(t.num_rows() as f64), "{name}");
    assert_eq!(metric(r, undone), Some(n_undone as f64), "{name}");
}

#[test]
fn file_too_large_for_the_run_is_counted_unfinished() {
    // 4 MB at 2 Mbit/s needs > 16 s; the run lasts 5 s
    let r = run(&scenario(
        5.0,
        2.0,
        "tcp",
        "model = \"file\"\nsize_bytes = 4000000",
    ));
    let t = table(&r, "transfers");
    assert_eq!(col(t, "completed"), vec![Value::Bool(false)]);
    assert_eq!(col(t, "end_ms"), vec![Value::Null]);
    assert_eq!(metric(&r, "transfers"), Some(1.0));
    assert_eq!(metric(&r, "transfers_unfinished"), Some(1.0));
    assert_eq!(metric(&r, "completion_time_ms"), None);
    assert_eq!(metric(&r, "messages_undelivered"), None, "no messages");

    // the same file with time to finish
    let r = run(&scenario(
        60.0,
        2.0,
        "tcp",
        "model = \"file\"\nsize_bytes = 4000000",
    ));
    let t = table(&r, "transfers");
    assert_eq!(col(t, "completed"), vec![Value::Bool(true)]);
    assert_eq!(metric(&r, "transfers_unfinished"), Some(0.0));
    assert!(metric(&r, "completion_time_ms").unwrap() > 16_000.0);
}

#[test]
fn web_page_on_a_very_slow_path_is_counted_unfinished() {
    let r = run(&scenario(
        10.0,
        0.1,
        "tcp",
        "model = \"web\"\nsite = \"amazon\"",
    ));
    check_consistent(
        &r,
        "transfers",
        "end_ms",
        "transfers",
        "transfers_unfinished",
    );
    assert_eq!(metric(&r, "transfers_unfinished"), Some(1.0));
    assert_eq!(
        col(table(&r, "transfers"), "kind"),
        vec![Value::Str("page".into())]
    );
}

#[test]
fn video_frames_in_flight_at_the_end_are_counted_undelivered() {
    // 2 Mbit/s video over a 1.5 Mbit/s path: the backlog grows, so frames
    // generated in the last seconds are still queued when the run ends
    let r = run(&scenario(
        10.0,
        1.5,
        "tcp",
        "model = \"video\"\nbitrate_kbit = 2000\nfps = 25",
    ));
    check_consistent(
        &r,
        "messages",
        "delivery_time_ms",
        "messages",
        "messages_undelivered",
    );
    let undone = metric(&r, "messages_undelivered").unwrap();
    assert!(undone >= 10.0, "{undone}");
    assert_eq!(
        metric(&r, "messages_delivered").unwrap() + undone,
        metric(&r, "messages").unwrap()
    );
}

#[test]
fn udp_messages_lost_on_the_path_are_counted_undelivered() {
    let text = scenario(
        10.0,
        10.0,
        "udp",
        "model = \"video\"\nbitrate_kbit = 500\nfps = 25",
    )
    .replace(
        "queue_packets = 100",
        "queue_packets = 100\nloss = { model = \"bernoulli\", percent = 5 }",
    );
    let r = run(&text);
    check_consistent(
        &r,
        "messages",
        "delivery_time_ms",
        "messages",
        "messages_undelivered",
    );
    assert!(metric(&r, "messages_undelivered").unwrap() > 0.0);
}

#[test]
fn bursts_cut_by_the_end_of_the_run_are_counted_undelivered() {
    // 20 bursts of 1 MB every second at 2 Mbit/s: most cannot finish in 10 s
    let r = run(&scenario(
        10.0,
        2.0,
        "tcp",
        "model = \"bursts\"\ncount = 20\nsize_bytes = 1000000\ninterval_s = 1.0",
    ));
    check_consistent(
        &r,
        "messages",
        "delivery_time_ms",
        "messages",
        "messages_undelivered",
    );
    let undone = metric(&r, "messages_undelivered").unwrap();
    assert!(undone >= 5.0, "{undone}");
}
