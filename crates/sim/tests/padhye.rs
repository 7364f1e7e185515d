//! A single NewReno flow under random loss against the Padhye et al. model
//! (SIGCOMM 1998, eq. 31/32: B(p) = 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32p^2))).
//!
//! Parameters of the model, from the scenario and the TCP model (not fitted):
//! - RTT: 40 ms propagation + two 1500-byte serialisations at 100 Mbit/s
//!   (the queue stays near empty at these throughputs);
//! - T0 = RTT + 200 ms: Linux's RTO (SRTT + max(4 RTTVAR, rto_min)) with
//!   rto_min = 200 ms dominating the variance term;
//! - b = 1: Linux (and the model) grows cwnd by the number of packets acked
//!   (RFC 3465 ABC), so delayed ACKs do not slow window growth;
//! - p: the link's random loss rate on the data direction (ACKs are not lost).
//!
//! The flow runs with SACK (Linux's default; RFC 6675 recovery) and without
//! (RFC 6582 NewReno partial ACKs). Without SACK the full model is the
//! reference (within 25 %). With SACK, recovery repairs several losses per
//! window without the retransmission timeouts the model's T0 term counts
//! (0-5 RTOs in 200 s at 3 % loss), and Linux's SACK compression
//! (`__tcp_ack_snd_check`) makes its duplicate ACKs fewer, so the flow lies
//! between the full model and the model without timeouts (the paper's
//! triple-duplicate-only approximation, eq. 20: B = 1 / (RTT sqrt(2bp/3))):
//! at least 75 % of the first, at most 125 % of the second.

use mptlab_scenario::Scenario;

fn padhye_mbit(p: f64, rtt: f64, t0: f64, b: f64, mss: f64) -> f64 {
    let denom = rtt * (2.0 * b * p / 3.0).sqrt()
        + t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    mss * 8.0 / denom / 1e6
}

/// The model without its timeout term (Padhye et al. eq. 20).
fn padhye_no_timeouts_mbit(p: f64, rtt: f64, b: f64, mss: f64) -> f64 {
    mss * 8.0 / (rtt * (2.0 * b * p / 3.0).sqrt()) / 1e6
}

fn simulate(loss_percent: f64, sack: bool) -> f64 {
    let text = format!(
        r#"
[scenario]
name = "padhye"
duration_s = 200
runs = 4
seed = 1
[topology]
preset = "single-path"
paths = ["p"]
server_link = {{ rate_mbit = 1000, delay_ms = 0, queue_packets = 1000 }}
[profile.p]
rate_mbit = 100
delay_ms = 20
queue_packets = 1000
[profile.p.down]
loss = {{ model = "bernoulli", percent = {loss_percent} }}
[transport]
protocol = "tcp"
cc = "newreno"
sack = {sack}
tlp = false
[traffic]
model = "bulk"
[output]
timeseries_interval_ms = 0
"#
    );
    let s = Scenario::from_str(&text, "padhye").unwrap();
    let mut v: Vec<f64> = (0..s.meta.runs)
        .map(|r| {
            let out = mptlab_sim::run_once(&s, r).unwrap();
            out.summary["fg_throughput_mbit"].as_f64().unwrap()
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    (v[1] + v[2]) / 2.0
}

#[test]
fn newreno_throughput_follows_padhye() {
    let rtt = 0.040 + 2.0 * 1500.0 * 8.0 / 100e6;
    for sack in [true, false] {
        for p in [0.1, 1.0, 3.0] {
            let sim = simulate(p, sack);
            let model = padhye_mbit(p / 100.0, rtt, rtt + 0.2, 1.0, 1448.0);
            // without SACK the full model bounds both sides; with SACK the
            // model without timeouts is the upper reference (module doc)
            let upper = if sack {
                padhye_no_timeouts_mbit(p / 100.0, rtt, 1.0, 1448.0)
            } else {
                model
            };
            eprintln!(
                "sack = {sack}, p = {p} %: simulated {sim:.3} Mbit/s, Padhye {model:.3} Mbit/s \
                 (ratio {:.3}), upper reference {upper:.3} Mbit/s (ratio {:.3})",
                sim / model,
                sim / upper
            );
            assert!(
                sim >= 0.75 * model && sim <= 1.25 * upper,
                "sack = {sack}, p = {p} %: simulated {sim:.3} vs model {model:.3} Mbit/s \
                 (upper reference {upper:.3})"
            );
        }
    }
}
