//! The emulator and the simulator are twins: the same scenario and seed give
//! the same message schedule and the same drawn link parameters. This test
//! lives in the CLI crate, which depends on both, so that `mptlab-emu` never
//! depends on `mptlab-sim` (docs/architecture.md).

use mptlab_emu::run::message_schedule;
use mptlab_results::{Table, Value};
use mptlab_scenario::Scenario;

fn scenario(body: &str) -> Scenario {
    let text = format!("[scenario]\nname = \"t\"\nduration_s = 6.0\nruns = 1\nseed = 3\n[topology]\npreset = \"two-path\"\npaths = [\"wlan\", \"3g\"]\n{body}");
    Scenario::from_str(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn col(t: &Table, c: &str) -> Vec<Value> {
    let k = t.column(c).unwrap_or_else(|| panic!("no column {c}"));
    (0..t.num_rows()).map(|r| k.data.get(r)).collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

#[test]
fn message_schedule_is_deterministic_and_matches_the_simulator() {
    let s = scenario("[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"gaming\"\ntrace = \"t1\"\nstart_s = 0.5\n");
    let a = message_schedule(&s, s.run_seed(0)).unwrap().unwrap();
    let b = message_schedule(&s, s.run_seed(0)).unwrap().unwrap();
    assert_eq!(a, b);
    assert!(a.len() > 20);
    // the simulator sends the same messages at the same times
    let sim = mptlab_sim::run_once(&s, 0).unwrap();
    let m = sim.table("messages").unwrap();
    let mut rows: Vec<(u64, f64, u64)> = (0..m.num_rows())
        .map(
            |r| match (col(m, "msg_id")[r].clone(), col(m, "bytes")[r].clone()) {
                (Value::U64(i), Value::U64(b)) => (i, f(&col(m, "send_time_ms")[r]), b),
                x => panic!("{x:?}"),
            },
        )
        .collect();
    rows.sort_by_key(|r| r.0);
    assert_eq!(rows.len(), a.len());
    for (r, (t, b)) in rows.iter().zip(&a) {
        assert!(
            (r.1 - *t as f64 / 1e6).abs() < 1e-6 && r.2 == *b as u64,
            "{r:?} vs {t} {b}"
        );
    }
    // video too (a frame falls due exactly at the end of the run)
    let v = scenario("[transport]\nprotocol = \"tcp\"\n[traffic]\nmodel = \"video\"\nbitrate_kbit = 950\nfps = 30\nstart_s = 1.0\n");
    let a = message_schedule(&v, v.run_seed(0)).unwrap().unwrap();
    let sim = mptlab_sim::run_once(&v, 0).unwrap();
    assert_eq!(a.len(), sim.table("messages").unwrap().num_rows());
    // and the links are drawn as the simulator draws them
    let (_, _, drawn) = mptlab_setup::links::preset_links(&s, s.run_seed(0)).unwrap();
    let built = mptlab_sim::runner::build(&s, 0).unwrap();
    assert_eq!(drawn, built.drawn);
}
