//! Property-based test of the invariant layer (issue 12, "Invariants,
//! checked by a property-based test"): random scenarios over 1-4 paths with
//! random rates, delays, random and bursty losses, queue sizes and outages,
//! every protocol, MPTCP scheduler / path manager / congestion control and
//! CMT-SCTP option, and a finite transfer. Each run must
//!
//! 1. finish without an invariant violation (`mptlab_core::invariants`:
//!    the models panic, and proptest shrinks the panicking scenario), and
//!    without a run error;
//! 2. complete its transfer within `Case::bound_s` (documented there), or the
//!    test fails with a report of why not (bytes delivered, per-path counters).
//!
//! `cargo test --release -p mptlab-sim --test invariants_prop` runs 256 cases
//! with a fixed RNG seed (0.3 s; a case takes about a millisecond);
//! `PROPTEST_CASES=N` runs more, `PROPTEST_RNG_SEED=S` others, and the
//! ignored `survey` test runs many without stopping at the first failure.
//! Failures shrink to a minimal scenario, printed as TOML; proptest keeps
//! its seed in `invariants_prop.proptest-regressions` and replays it first;
//! ones worth keeping become explicit `#[test]`s at the end of this file.

use mptlab_results::{RunOutput, Value};
use mptlab_scenario::Scenario;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

#[derive(Clone, Debug)]
enum Loss {
    None,
    Bernoulli {
        percent: f64,
    },
    /// Gilbert-Elliott: per-packet transition probabilities and the loss
    /// rate in the bad state (loss in the good state is 0).
    Bursty {
        p_gb: f64,
        p_bg: f64,
        bad_percent: f64,
    },
}

impl Loss {
    /// Long-run loss probability of a packet.
    fn mean(&self) -> f64 {
        match *self {
            Loss::None => 0.0,
            Loss::Bernoulli { percent } => percent / 100.0,
            Loss::Bursty {
                p_gb,
                p_bg,
                bad_percent,
            } => p_gb / (p_gb + p_bg) * bad_percent / 100.0,
        }
    }

    /// Probability that a lone packet (a retransmission after an RTO) is
    /// lost again: in the bad state the chain stays bad with 1 - p_bg.
    fn repeat(&self) -> f64 {
        match *self {
            Loss::None => 0.0,
            Loss::Bernoulli { percent } => percent / 100.0,
            Loss::Bursty {
                p_bg, bad_percent, ..
            } => (1.0 - p_bg) * bad_percent / 100.0,
        }
    }

    fn toml(&self) -> String {
        match *self {
            Loss::None => "\"none\"".into(),
            Loss::Bernoulli { percent } => {
                format!("{{ model = \"bernoulli\", percent = {percent} }}")
            }
            Loss::Bursty {
                p_gb,
                p_bg,
                bad_percent,
            } => format!(
                "{{ model = \"gilbert-elliott\", p_gb = {p_gb}, p_bg = {p_bg}, \
                 loss_good_percent = 0, loss_bad_percent = {bad_percent} }}"
            ),
        }
    }
}

#[derive(Clone, Debug)]
struct PathSpec {
    rate_mbit: f64,
    delay_ms: f64,
    queue_packets: u32,
    loss: Loss,
    /// (at_s, duration_s)
    outages: Vec<(f64, f64)>,
}

impl PathSpec {
    /// Rate in bytes/s.
    fn rate(&self) -> f64 {
        self.rate_mbit * 1e6 / 8.0
    }
    /// Worst round-trip time: propagation both ways, the core links
    /// (4 x 0.1 ms) and a full queue on this link.
    fn rtt_max(&self, mtu: f64) -> f64 {
        2.0 * self.delay_ms / 1e3 + 4e-4 + self.queue_packets as f64 * mtu / self.rate()
    }
}

#[derive(Clone, Debug)]
enum Proto {
    Tcp {
        cc: &'static str,
        cubic: &'static str,
        hystart: &'static str,
    },
    Udp,
    Mptcp {
        cc: &'static str,
        scheduler: &'static str,
        path_manager: &'static str,
        tlp: &'static str,
        ndiffports: u32,
        subflows_per_path: u32,
        /// per path: backup bit (fullmesh) / upstream endpoint flags
        backup: Vec<bool>,
        endpoints: Vec<&'static str>,
        server_capable: bool,
    },
    Sctp {
        cmt: bool,
        preset: &'static str,
        scheduler: &'static str,
        retransmission: &'static str,
        buffer_splitting: &'static str,
        cc: &'static str,
        nr_sack: bool,
        chunk_rescheduling: bool,
    },
}

#[derive(Clone, Debug)]
struct Case {
    paths: Vec<PathSpec>,
    proto: Proto,
    /// 1-based client path for single-path protocols / the initial subflow /
    /// the SCTP primary.
    path: u32,
    up: bool,
    size_bytes: u64,
    sndbuf_kib: u32,
    rcvbuf_kib: u32,
    mtu: u32,
    initial_cwnd: u32,
    sack: bool,
    rack: bool,
    tlp: bool,
    delayed_ack: bool,
    nagle: bool,
    window_scaling: bool,
    seed: u64,
}

impl Case {
    fn is_sctp(&self) -> bool {
        matches!(self.proto, Proto::Sctp { .. })
    }

    /// Client paths the transfer may depend on: the chosen path for
    /// single-path protocols (SCTP: the primary), every path for multipath
    /// (minus those a path manager never uses).
    fn used_paths(&self) -> Vec<&PathSpec> {
        let one = || vec![&self.paths[self.path as usize - 1]];
        match &self.proto {
            Proto::Tcp { .. } | Proto::Udp => one(),
            Proto::Sctp { cmt: false, .. } => one(),
            Proto::Mptcp {
                path_manager: "default" | "ndiffports" | "binder",
                ..
            } => one(),
            Proto::Mptcp {
                server_capable: false,
                ..
            } => one(),
            _ => self.paths.iter().collect(),
        }
    }

    /// The completion bound in seconds (the scenario's duration).
    ///
    /// For each path the transfer may use, a goodput estimate
    /// `g = min(rate x (1 - p) x MSS/MTU, 1.22 MSS / (RTT sqrt(p)), window / RTT)`
    /// (the link, Mathis et al.'s loss-limited TCP rate with the mean loss p,
    /// and the buffer-limited rate at the worst RTT: propagation plus a full
    /// queue). A multipath transfer is allowed what the *slowest* of its
    /// paths would need to carry the whole file alone (a scheduler may put
    /// any share on any path, and head-of-line blocking ties it to the
    /// slowest). Then
    ///
    /// `bound = 4 x (size / g + 10 RTT) + 8 RTO + backoff + sum over outages of (3 D + 2 s)`
    ///
    /// (without SACK each path's time also gets one RTT per expected random
    /// loss and per packet of two windows, NewReno's one repair per RTT),
    /// with RTO = max(RTO.min, 3 RTT) (RTO.min 0.2 s for TCP, 1 s for SCTP),
    /// `backoff` = the exponential RTO backoff of K consecutive losses of one
    /// retransmission, (2^K - 1) RTO, where K is the smallest count whose
    /// probability (repeat loss ^ K) is below 1e-4 (at most 8), and an outage
    /// of D seconds costs up to 2 D of backed-off RTO after it ends.
    fn bound_s(&self) -> f64 {
        let mtu = self.mtu as f64;
        let mss = mtu - 40.0;
        let window = (self.sndbuf_kib.min(self.rcvbuf_kib) as f64) * 1024.0;
        let rto_min = if self.is_sctp() { 1.0 } else { 0.2 };
        let used = self.used_paths();
        let mut worst_time: f64 = 0.0;
        let mut rtt: f64 = 0.0;
        let mut repeat: f64 = 0.0;
        let mut outages = 0.0;
        for p in &used {
            let r = p.rtt_max(mtu);
            let loss = p.loss.mean();
            let mut g = p.rate() * (1.0 - loss) * mss / mtu;
            if loss > 0.0 {
                g = g.min(1.22 * mss / (r * loss.sqrt()));
            }
            g = g.min(window / r);
            let mut time = self.size_bytes as f64 / g;
            if !self.sack {
                // Without SACK, NewReno (RFC 6582) repairs one hole per RTT:
                // each random loss costs an RTT, and a slow-start overshoot
                // can lose up to a window (BDP + queue) at once.
                let pkts = self.size_bytes as f64 / mss;
                let window_pkts = p.rate() * r / mtu + p.queue_packets as f64;
                time += (pkts * loss + 2.0 * window_pkts.min(pkts)) * r;
            }
            worst_time = worst_time.max(time);
            rtt = rtt.max(r);
            repeat = repeat.max(p.loss.repeat());
            outages += p.outages.iter().map(|o| 3.0 * o.1 + 2.0).sum::<f64>();
        }
        let rto = (3.0 * rtt).max(rto_min);
        let mut k = 1;
        while k < 8 && repeat.powi(k) > 1e-4 {
            k += 1;
        }
        let backoff = ((1u64 << k) - 1) as f64 * rto;
        4.0 * (worst_time + 10.0 * rtt) + 8.0 * rto + backoff + outages
    }

    fn toml(&self) -> String {
        use std::fmt::Write;
        let n = self.paths.len();
        let mut t = String::new();
        let bound = if matches!(self.proto, Proto::Udp) {
            10.0
        } else {
            self.bound_s().ceil()
        };
        writeln!(
            t,
            "[scenario]\nname = \"prop\"\nduration_s = {bound}\nruns = 1\nseed = {}\n",
            self.seed
        )
        .unwrap();
        t += "[topology]\nclient = \"c\"\nserver = \"s\"\n";
        let addrs: Vec<String> = (1..=n).map(|i| format!("\"10.0.{i}.2\"")).collect();
        writeln!(
            t,
            "[[topology.node]]\nname = \"c\"\nkind = \"host\"\naddresses = [{}]",
            addrs.join(", ")
        )
        .unwrap();
        for i in 1..=n {
            writeln!(t, "[[topology.node]]\nname = \"r{i}\"\nkind = \"router\"").unwrap();
        }
        t += "[[topology.node]]\nname = \"core\"\nkind = \"router\"\n";
        t += "[[topology.node]]\nname = \"s\"\nkind = \"host\"\naddresses = [\"10.1.0.2\"]\n";
        for (i, p) in self.paths.iter().enumerate() {
            let outages: Vec<String> = p
                .outages
                .iter()
                .map(|(a, d)| format!("{{ at_s = {a}, duration_s = {d} }}"))
                .collect();
            writeln!(
                t,
                "[[topology.link]]\na = \"c\"\nb = \"r{}\"\nrate_mbit = {}\ndelay_ms = {}\n\
                 queue_packets = {}\nloss = {}\noutages = [{}]",
                i + 1,
                p.rate_mbit,
                p.delay_ms,
                p.queue_packets,
                p.loss.toml(),
                outages.join(", ")
            )
            .unwrap();
            writeln!(
                t,
                "[[topology.link]]\na = \"r{}\"\nb = \"core\"\nprofile = \"gigabit\"",
                i + 1
            )
            .unwrap();
        }
        t += "[[topology.link]]\na = \"core\"\nb = \"s\"\nprofile = \"gigabit\"\n\n";
        writeln!(
            t,
            "[transport]\npath = {}\nsndbuf_kib = {}\nrcvbuf_kib = {}\nmtu_bytes = {}\n\
             initial_cwnd_packets = {}\nsack = {}\nrack = {}\ntlp = {}\ndelayed_ack = {}\n\
             nagle = {}\nwindow_scaling = {}",
            self.path,
            self.sndbuf_kib,
            self.rcvbuf_kib,
            self.mtu,
            self.initial_cwnd,
            self.sack,
            self.rack,
            self.tlp,
            self.delayed_ack,
            self.nagle,
            self.window_scaling
        )
        .unwrap();
        match &self.proto {
            Proto::Tcp { cc, cubic, hystart } => {
                writeln!(
                    t,
                    "protocol = \"tcp\"\ncc = \"{cc}\"\ncubic = \"{cubic}\"\nhystart = \"{hystart}\""
                )
                .unwrap();
            }
            Proto::Udp => t += "protocol = \"udp\"\n",
            Proto::Mptcp {
                cc,
                scheduler,
                path_manager,
                tlp,
                ndiffports,
                subflows_per_path,
                backup,
                endpoints,
                server_capable,
            } => {
                let backups: Vec<String> = backup
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b)
                    .map(|(i, _)| (i + 1).to_string())
                    .collect();
                // endpoints only with the upstream path manager (refused otherwise)
                let eps: Vec<String> = endpoints
                    .iter()
                    .filter(|_| *path_manager == "upstream")
                    .map(|e| format!("\"{e}\""))
                    .collect();
                writeln!(
                    t,
                    "protocol = \"mptcp\"\ncc = \"{cc}\"\n[transport.mptcp]\nscheduler = \"{scheduler}\"\n\
                     path_manager = \"{path_manager}\"\ntlp = \"{tlp}\"\nndiffports = {ndiffports}\n\
                     subflows_per_path = {subflows_per_path}\nbackup_paths = [{}]\nendpoints = [{}]\n\
                     server_capable = {server_capable}",
                    backups.join(", "),
                    eps.join(", ")
                )
                .unwrap();
            }
            Proto::Sctp {
                cmt,
                preset,
                scheduler,
                retransmission,
                buffer_splitting,
                cc,
                nr_sack,
                chunk_rescheduling,
            } => {
                writeln!(
                    t,
                    "protocol = \"{}\"\n[transport.sctp]\npreset = \"{preset}\"\nscheduler = \"{scheduler}\"\n\
                     retransmission = \"{retransmission}\"\nbuffer_splitting = \"{buffer_splitting}\"\n\
                     cc = \"{cc}\"\nnr_sack = {nr_sack}\nchunk_rescheduling = {chunk_rescheduling}",
                    if *cmt { "cmt-sctp" } else { "sctp" }
                )
                .unwrap();
            }
        }
        let dir = if self.up { "up" } else { "down" };
        if matches!(self.proto, Proto::Udp) {
            // UDP has no finite transfer (a burst or file needs a reliable
            // protocol): live video for the run, checked for run errors only
            writeln!(
                t,
                "\n[traffic]\nmodel = \"video\"\nbitrate_kbit = {}\nfps = 30\ndirection = \"{dir}\"",
                (self.size_bytes / 1000).clamp(100, 5000)
            )
            .unwrap();
        } else {
            writeln!(
                t,
                "\n[traffic]\nmodel = \"file\"\nsize_bytes = {}\ndirection = \"{dir}\"",
                self.size_bytes
            )
            .unwrap();
        }
        t += "\n[output]\ntimeseries_interval_ms = 0\n";
        t
    }
}

fn loss() -> impl Strategy<Value = Loss> {
    prop_oneof![
        3 => Just(Loss::None),
        3 => (0.0f64..5.0).prop_map(|p| Loss::Bernoulli { percent: round3(p) }),
        // bursty: mean loss up to a few percent, bursts of 1-3 packets
        2 => (0.001f64..0.02, 0.3f64..0.9, 20.0f64..100.0).prop_map(|(a, b, c)| Loss::Bursty {
            p_gb: round3(a),
            p_bg: round3(b),
            bad_percent: round3(c),
        }),
    ]
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn path() -> impl Strategy<Value = PathSpec> {
    (
        // 0.2 .. 50 Mbit/s, log-uniform
        (-0.7f64..1.7).prop_map(|e| round3(10f64.powf(e))),
        1.0f64..150.0,
        2u32..400,
        loss(),
        prop::collection::vec((0.0f64..8.0, 0.05f64..3.0), 0..=2),
    )
        .prop_map(|(rate_mbit, delay, queue_packets, loss, outages)| {
            // (gap after the previous outage, duration): sorted, disjoint
            let mut end = 0.0;
            let outages: Vec<(f64, f64)> = outages
                .into_iter()
                .map(|(gap, d)| {
                    let at = round3(end + gap);
                    end = at + round3(d) + 0.5;
                    (at, round3(d))
                })
                .collect();
            PathSpec {
                rate_mbit: rate_mbit.max(0.2),
                delay_ms: round3(delay),
                queue_packets,
                loss,
                outages,
            }
        })
}

fn pick<T: Clone + std::fmt::Debug + 'static>(v: &'static [T]) -> impl Strategy<Value = T> {
    prop::sample::select(v)
}

fn proto(n: usize) -> impl Strategy<Value = Proto> {
    let tcp = (
        pick(&["newreno", "cubic"]),
        pick(&["linux", "rfc9438"]),
        pick(&["linux", "hystart++", "off"]),
    )
        .prop_map(|(cc, cubic, hystart)| Proto::Tcp { cc, cubic, hystart });
    let mptcp = (
        pick(&["newreno", "cubic", "lia", "olia", "balia", "wvegas"]),
        pick(&[
            "minrtt",
            "default",
            "roundrobin",
            "redundant",
            "blest",
            "ecf",
            "upstream",
        ]),
        pick(&["fullmesh", "default", "ndiffports", "upstream", "binder"]),
        pick(&["subflow", "mptcp-level"]),
        1u32..=4,
        1u32..=2,
        prop::collection::vec(prop::bool::weighted(0.2), n),
        prop::collection::vec(
            pick(&[
                "",
                "subflow",
                "subflow,backup",
                "subflow,fullmesh",
                "signal",
            ]),
            n,
        ),
        prop::bool::weighted(0.9),
    )
        .prop_map(
            |(cc, scheduler, path_manager, tlp, nd, spp, mut backup, endpoints, server_capable)| {
                // at least one path must stay a regular (non-backup) path
                if backup.iter().all(|&b| b) {
                    backup[0] = false;
                }
                Proto::Mptcp {
                    cc,
                    scheduler,
                    path_manager,
                    tlp,
                    ndiffports: nd,
                    subflows_per_path: spp,
                    backup,
                    endpoints,
                    server_capable,
                }
            },
        );
    let sctp = (
        any::<bool>(),
        pick(&["seed000", "rfc"]),
        pick(&["roundrobin", "daps"]),
        pick(&["same", "lowest-rtt", "largest-cwnd", "largest-ssthresh"]),
        pick(&["none", "sender", "receiver", "both"]),
        pick(&["uncoupled", "cmt-rpv2"]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(cmt, preset, scheduler, retransmission, buffer_splitting, cc, nr_sack, resched)| {
                Proto::Sctp {
                    cmt,
                    preset,
                    scheduler,
                    retransmission,
                    buffer_splitting,
                    cc,
                    nr_sack,
                    chunk_rescheduling: resched,
                }
            },
        );
    prop_oneof![3 => tcp, 4 => mptcp, 4 => sctp, 1 => Just(Proto::Udp)]
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=4)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(path(), n),
                proto(n),
                1..=n as u32,
                any::<bool>(),
                // 1 KB .. 2 MB, log-uniform
                (3.0f64..6.3).prop_map(|e| 10f64.powf(e) as u64),
                (4u32..12).prop_map(|e| 1u32 << e), // sndbuf 16 KiB .. 2 MiB
                (4u32..12).prop_map(|e| 1u32 << e), // rcvbuf
                pick(&[1500u32, 1280, 576, 9000]),
                1u32..=20,
                (any::<bool>(), any::<bool>(), any::<bool>()),
                (
                    any::<bool>(),
                    prop::bool::weighted(0.2),
                    prop::bool::weighted(0.9),
                ),
                // TOML integers are i64
                0u64..(i64::MAX as u64),
            )
        })
        .prop_map(
            |(
                paths,
                proto,
                path,
                up,
                size_bytes,
                sndbuf_kib,
                rcvbuf_kib,
                mtu,
                initial_cwnd,
                (sack, rack, tlp),
                (delayed_ack, nagle, window_scaling),
                seed,
            )| {
                let mut c = Case {
                    paths,
                    proto,
                    path,
                    up,
                    size_bytes,
                    sndbuf_kib,
                    rcvbuf_kib,
                    mtu,
                    initial_cwnd,
                    sack,
                    rack,
                    tlp,
                    delayed_ack,
                    nagle,
                    window_scaling,
                    seed,
                };
                // RACK needs SACK (docs/scenario.md).
                c.rack &= c.sack;
                if let Proto::Mptcp {
                    scheduler: "ecf" | "blest",
                    backup,
                    endpoints,
                    ..
                } = &mut c.proto
                {
                    // ECF and BLEST wait for the lowest-RTT established
                    // subflow even when it is a backup subflow that never
                    // gets data, and can stall for good; Linux v0.95
                    // `mptcp_ecf.c` / `mptcp_blest.c` do the same (see
                    // `ecf_with_a_faster_backup_subflow_stalls_as_linux_does`
                    // below), so the model keeps it and the generator leaves
                    // backup subflows out with these two schedulers.
                    backup.iter_mut().for_each(|b| *b = false);
                    endpoints.iter_mut().for_each(|e| {
                        if e.contains("backup") {
                            *e = "subflow";
                        }
                    });
                }
                if let Proto::Mptcp { tlp, .. } = &c.proto {
                    // the MPTCP-level probe builds on subflow TLP
                    if *tlp == "mptcp-level" {
                        c.tlp = true;
                        c.sack = true;
                    }
                }
                if let Proto::Sctp { .. } = c.proto {
                    // SCTP / CMT-SCTP never deliver a message larger than the
                    // receive buffer (issue 12 item 1, partial delivery, on
                    // another branch): a file is written as messages of at
                    // most sndbuf bytes, so keep sndbuf below the receive
                    // buffer's share of one path (buffer splitting).
                    let n = c.paths.len() as u32;
                    c.sndbuf_kib = c.sndbuf_kib.min(c.rcvbuf_kib / (2 * n)).max(4);
                    c.rcvbuf_kib = c.rcvbuf_kib.max(2 * n * c.sndbuf_kib);
                }
                c
            },
        )
}

/// Why a run did not complete, for the failure message.
fn report(out: &RunOutput) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for t in &out.tables {
        if !matches!(
            t.name.as_str(),
            "transfers" | "flows" | "paths" | "messages"
        ) {
            continue;
        }
        writeln!(s, "{}:", t.name).unwrap();
        let names: Vec<&str> = t.columns().iter().map(|c| c.name.as_str()).collect();
        writeln!(s, "  {}", names.join(",")).unwrap();
        for r in 0..t.num_rows().min(20) {
            let row: Vec<String> = t
                .row(r)
                .iter()
                .map(|v| match v {
                    Value::Null => "-".into(),
                    Value::U64(x) => x.to_string(),
                    Value::I64(x) => x.to_string(),
                    Value::F64(x) => format!("{x:.1}"),
                    Value::Str(x) => x.clone(),
                    Value::Bool(x) => x.to_string(),
                })
                .collect();
            writeln!(s, "  {}", row.join(",")).unwrap();
        }
    }
    s
}

/// Run a case; Err describes a violated property.
fn check(c: &Case) -> Result<(), String> {
    check_run(c).map(|_| ())
}

/// The number of connections / associations the run reports as given up
/// by a retry limit of their protocol (`connections_aborted`).
fn aborted(out: &RunOutput) -> u64 {
    out.summary
        .get("connections_aborted")
        .and_then(|v| v.as_f64())
        .map_or(0, |x| x as u64)
}

/// Run a case: Ok(true) when the transfer did not complete but the run
/// reports why (a connection or association given up by its protocol's
/// retry limit, e.g. SCTP Association.Max.Retrans, RFC 9260 8.1), Ok(false)
/// when it completed in its bound; Err describes a violated property.
fn check_run(c: &Case) -> Result<bool, String> {
    let text = c.toml();
    let s = Scenario::from_str_with_overrides(&text, "prop.toml", &[])
        .map_err(|e| format!("generated scenario rejected: {e}\n{text}"))?;
    mptlab_sim::supported(&s).map_err(|e| format!("not supported: {e}\n{text}"))?;
    let out = mptlab_sim::run_once(&s, 0).map_err(|e| format!("run error: {e}\n{text}"))?;
    if matches!(c.proto, Proto::Udp) {
        return Ok(false); // no completion requirement: UDP does not recover losses
    }
    let t = out
        .tables
        .iter()
        .find(|t| t.name == "transfers")
        .ok_or("no transfers table")?;
    let done = (0..t.num_rows()).all(|r| !matches!(t.get(r, "end_ms"), Some(Value::Null) | None));
    if t.num_rows() > 0 && !done && aborted(&out) > 0 {
        return Ok(true);
    }
    if t.num_rows() == 0 || !done {
        return Err(format!(
            "transfer of {} bytes did not complete within the bound {:.1} s ({})\n{}\n{text}",
            c.size_bytes,
            c.bound_s(),
            diagnose(&text, c.bound_s()),
            report(&out)
        ));
    }
    Ok(false)
}

/// Why a transfer missed its bound: run it again for ten times as long;
/// "slow" if it completes then, else "stalled" (with the sender's RTO
/// events: an SCTP endpoint gives up after Association.Max.Retrans = 10
/// consecutive ones, RFC 9260 section 8.1).
fn diagnose(text: &str, bound: f64) -> String {
    let ov = format!("scenario.duration_s={}", (bound * 10.0).ceil());
    let ov: mptlab_scenario::Override = ov.parse().unwrap();
    let Ok(s) = Scenario::from_str_with_overrides(text, "prop.toml", &[ov]) else {
        return "not rerun".into();
    };
    let Ok(out) = mptlab_sim::run_once(&s, 0) else {
        return "rerun failed".into();
    };
    let t = out.tables.iter().find(|t| t.name == "transfers").unwrap();
    if let Some(Value::F64(ct)) = t.get(0, "completion_time_ms") {
        return format!("slow: completes after {:.1} s", ct / 1e3);
    }
    let f = out.tables.iter().find(|t| t.name == "flows").unwrap();
    let (del, rto) = (f.get(0, "bytes_delivered"), f.get(0, "rto_events"));
    format!("stalled: not complete after {:.0} s either; delivered {del:?}, sender+receiver RTO events {rto:?}", bound * 10.0)
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// A fixed seed keeps `cargo test` deterministic (the same cases on every
/// machine); `PROPTEST_RNG_SEED=N` explores others.
fn rng_seed() -> u64 {
    std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

fn config() -> Config {
    Config {
        cases: cases(),
        max_shrink_iters: 400,
        rng_seed: RngSeed::Fixed(rng_seed()),
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_scenarios_keep_invariants_and_complete(c in case()) {
        let r = check(&c);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

/// A long survey that does not stop at the first failure: runs
/// `PROPTEST_CASES` cases (default 200) and prints one line per failing
/// case (its kind and protocol); with `SURVEY_OUT=DIR` each failing scenario
/// is written to `DIR/case-N.toml`. Not shrunk: rerun a case through the
/// property above (or `mptlab run`) to narrow it down.
/// `PROPTEST_CASES=2000 cargo test --release -p mptlab-sim --test invariants_prop -- --ignored --nocapture`
#[test]
#[ignore = "long survey; run by hand"]
fn survey() {
    use proptest::strategy::ValueTree;
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200u32);
    let out = std::env::var("SURVEY_OUT").ok();
    if let Some(d) = &out {
        std::fs::create_dir_all(d).unwrap();
    }
    let mut runner = proptest::test_runner::TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(rng_seed()),
        ..Config::default()
    });
    let strat = case();
    let mut failures = 0;
    let mut reported = 0;
    let mut mptcp_nosack = 0;
    for i in 0..n {
        let c = strat.new_tree(&mut runner).unwrap().current();
        if matches!(c.proto, Proto::Mptcp { .. }) && !c.sack {
            mptcp_nosack += 1;
        }
        let r = std::panic::catch_unwind(|| check_run(&c));
        let err = match r {
            Ok(Ok(false)) => continue,
            Ok(Ok(true)) => {
                reported += 1;
                println!("case {i}: given up by a retry limit (reported)");
                continue;
            }
            Ok(Err(e)) => e,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                format!("panic: {msg}\n{}", c.toml())
            }
        };
        failures += 1;
        let first = err.lines().next().unwrap_or("");
        let proto = match &c.proto {
            Proto::Mptcp {
                scheduler,
                path_manager,
                cc,
                ..
            } => format!("mptcp {scheduler}/{path_manager}/{cc}"),
            Proto::Sctp { cmt, .. } => (if *cmt { "cmt-sctp" } else { "sctp" }).to_string(),
            Proto::Tcp { cc, .. } => format!("tcp {cc}"),
            Proto::Udp => "udp".into(),
        };
        println!("case {i}: {proto}, {} paths: {first}", c.paths.len());
        if let Some(d) = &out {
            std::fs::write(
                format!("{d}/case-{i}.toml"),
                format!("# {first}\n{}", c.toml()),
            )
            .unwrap();
        }
    }
    println!(
        "survey: {n} cases ({mptcp_nosack} MPTCP without SACK), {failures} failing, {reported} given up by a retry limit and reported"
    );
}

// ---- regressions found by the property test -------------------------------

/// Whether the file transfer of a scenario text completes (and the run
/// keeps every invariant).
fn completes(text: &str) -> Result<(), String> {
    let s = Scenario::from_str_with_overrides(text, "regression.toml", &[])
        .map_err(|e| e.to_string())?;
    let out = mptlab_sim::run_once(&s, 0)?;
    let t = out.tables.iter().find(|t| t.name == "transfers").unwrap();
    match t.get(0, "end_ms") {
        Some(Value::F64(_)) => Ok(()),
        _ => Err(format!("did not complete\n{}", report(&out))),
    }
}

/// ECF / BLEST over a regular path (20 ms) and a faster backup path (5 ms):
/// the transfer stalls for good (827 KB of 1 MB delivered with ECF, 367 KB
/// with BLEST, in 120 s; minrtt completes in 0.98 s). Shrunk from survey
/// cases 71, 256, 271, 495, 579, 769, 977, 1379, 1521, 1883, 1989 (seed 12).
///
/// This is what Linux v0.95 does, so the model keeps it:
/// `ecf_get_available_subflow` / `blest_get_available_subflow` take `minsk`,
/// the lowest-srtt subflow, over every subflow that `mptcp_sk_can_send` and
/// is not `pre_established`, with no backup (`low_prio`) test, then call the
/// default `get_available_subflow`, which takes a backup subflow only when
/// no regular one is usable. When that pick is not `minsk`, ECF returns
/// NULL ("wait for the fast subflow") once the queue is short enough, and
/// BLEST whenever the bytes the fast subflow could send in slow start while
/// the slow one lingers exceed the meta send window (the backup keeps
/// ssthresh infinite, so that is quickly every time). The backup subflow
/// gets no data, so none of the inputs (srtt, cwnd, queue) ever changes,
/// and every later decision is the same NULL (the meta socket's probe0
/// timer, `mptcp_write_wakeup`, asks the same `get_subflow` again). The
/// BLEST pull request (multipath-tcp/mptcp #300) says so: "BLEST in this
/// implementation does not consider if a subflow is assigned to backup
/// state". The run reports the stall: the transfer is marked unfinished
/// (`completed = false`, `transfers_unfinished = 1`), and it delivers not
/// one byte more in twice the time.
fn backup_wait_stalls(scheduler: &str, scenario: &str, min_delivered: u64) {
    let run = |duration: u32| {
        let text = scenario
            .replace("\"ecf\"", &format!("\"{scheduler}\""))
            .replace("duration_s = 120", &format!("duration_s = {duration}"));
        let s = Scenario::from_str_with_overrides(&text, "regression.toml", &[]).unwrap();
        mptlab_sim::run_once(&s, 0).unwrap()
    };
    let delivered = |out: &RunOutput| match out
        .tables
        .iter()
        .find(|t| t.name == "flows")
        .unwrap()
        .get(0, "bytes_delivered")
    {
        Some(Value::U64(b)) => b,
        v => panic!("bytes_delivered {v:?}"),
    };
    let out = run(120);
    let t = out.tables.iter().find(|t| t.name == "transfers").unwrap();
    assert_eq!(
        t.get(0, "completed"),
        Some(Value::Bool(false)),
        "{scheduler}"
    );
    assert_eq!(t.get(0, "end_ms"), Some(Value::Null), "{scheduler}");
    assert_eq!(
        out.summary
            .get("transfers_unfinished")
            .and_then(|v| v.as_f64()),
        Some(1.0),
        "{scheduler}: the stall is reported"
    );
    let d = delivered(&out);
    assert!(
        d >= min_delivered && d < 1_000_000,
        "{scheduler}: delivered {d}"
    );
    assert_eq!(
        delivered(&run(240)),
        d,
        "{scheduler}: stalled for good, not slow"
    );
}

const ECF_BACKUP: &str = r#"
[scenario]
name = "ecf-backup"
duration_s = 120
[topology]
preset = "two-path"
paths = ["a", "b"]
[profile.a]
rate_mbit = 10
delay_ms = 20
[profile.b]
rate_mbit = 10
delay_ms = 5
[transport]
protocol = "mptcp"
[transport.mptcp]
scheduler = "ecf"
backup_paths = [2]
[traffic]
model = "file"
size_bytes = 1000000
[output]
timeseries_interval_ms = 0
"#;

#[test]
fn ecf_with_a_faster_backup_subflow_stalls_as_linux_does() {
    backup_wait_stalls("ecf", ECF_BACKUP, 1);
}

#[test]
fn blest_with_a_faster_backup_subflow_stalls_as_linux_does() {
    // Since the option bytes follow Linux's layout (issue 15, `optlen`:
    // e.g. the MP_CAPABLE SYN and third ACK 8 bytes shorter) BLEST's first
    // decision in the shrunk case (backup path 5 ms) falls the other way and
    // the download completes in 978 ms; with the backup path at 2 ms (and at
    // 40 ms + 5 ms) it still stalls as described above, from the first
    // decision on (the regular subflow is not `minsk`, so nothing at all is
    // delivered).
    backup_wait_stalls(
        "blest",
        &ECF_BACKUP.replace("delay_ms = 5", "delay_ms = 2"),
        0,
    );
}

#[test]
fn minrtt_with_a_backup_subflow_completes() {
    completes(&ECF_BACKUP.replace("\"ecf\"", "\"minrtt\"")).unwrap();
}

/// CMT-SCTP, sender-side buffer splitting, DAPS, retransmissions on the
/// largest-cwnd path, and a 2.1 s outage of path 1 at 1.5 s: the
/// association delivers 7000 of 1487850 bytes and then sends only
/// heartbeats (survey case 112, seed 12). With `retransmission = "same"`,
/// `scheduler = "roundrobin"`, `buffer_splitting = "receiver"` or without
/// the outage it completes. Four of the 20 failures in 20000 survey cases
/// are this (DAPS with `buffer_splitting` "sender" or "both" and an outage;
/// with `retransmission = "lowest-rtt"` too): delivery stops with no RTO
/// pending.
#[test]
fn cmt_sctp_sender_split_daps_survives_an_outage() {
    completes(CMT_SCTP_SPLIT_OUTAGE).unwrap();
}

const CMT_SCTP_SPLIT_OUTAGE: &str = r#"
[scenario]
name = "prop"
duration_s = 600
runs = 1
seed = 8820709669683168522

[topology]
client = "c"
server = "s"
[[topology.node]]
name = "c"
kind = "host"
addresses = ["10.0.1.2", "10.0.2.2"]
[[topology.node]]
name = "r1"
kind = "router"
[[topology.node]]
name = "r2"
kind = "router"
[[topology.node]]
name = "core"
kind = "router"
[[topology.node]]
name = "s"
kind = "host"
addresses = ["10.1.0.2"]
[[topology.link]]
a = "c"
b = "r1"
rate_mbit = 0.23
delay_ms = 121.369
queue_packets = 209
loss = "none"
outages = [{ at_s = 1.541, duration_s = 2.084 }]
[[topology.link]]
a = "r1"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "c"
b = "r2"
rate_mbit = 11.589
delay_ms = 126.061
queue_packets = 163
loss = { model = "bernoulli", percent = 4.515 }
outages = []
[[topology.link]]
a = "r2"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "core"
b = "s"
profile = "gigabit"

[transport]
path = 1
sndbuf_kib = 4
rcvbuf_kib = 16
mtu_bytes = 9000
initial_cwnd_packets = 4
sack = true
rack = false
tlp = true
delayed_ack = false
nagle = true
window_scaling = true
protocol = "cmt-sctp"
[transport.sctp]
preset = "rfc"
scheduler = "daps"
retransmission = "largest-cwnd"
buffer_splitting = "both"
cc = "uncoupled"
nr_sack = false
chunk_rescheduling = true

[traffic]
model = "file"
size_bytes = 1487850
direction = "down"

[output]
timeseries_interval_ms = 0
"#;

/// MPTCP with the upstream scheduler, initial subflow on a path with 5 %
/// random loss: a 1000-byte download never sends a data packet (the
/// minimal scenario proptest shrank to; 22 of the 28 failures in 40000
/// survey cases, seeds 12 and 7, are this, all with `scheduler = "upstream"`).
/// With `scheduler = "minrtt"` or without the loss it completes. Cause: the
/// handshake was retransmitted, so (Karn) the subflow has no RTT sample;
/// `connection.rs` `sched_view` then gives it `pacing_rate_bps` 0
/// (`checked_div(srtt).unwrap_or(0)`), `sched/upstream.rs` skips subflows
/// with pacing 0, and with no data sent no RTT sample ever comes. Linux
/// starts `sk_pacing_rate` at ~0UL and does not divide by a zero srtt
/// (`tcp_update_pacing_rate`); `.unwrap_or(u64::MAX)` there makes this test
/// and all 9 survey cases complete (tried, not committed: mptcp/ is being
/// changed on another branch).
#[test]
fn upstream_scheduler_sends_after_a_handshake_loss() {
    completes(UPSTREAM_LOSS).unwrap();
}

const UPSTREAM_LOSS: &str = r#"
[scenario]
name = "prop"
duration_s = 60
runs = 1
seed = 2495992230845613587

[topology]
client = "c"
server = "s"
[[topology.node]]
name = "c"
kind = "host"
addresses = ["10.0.1.2", "10.0.2.2", "10.0.3.2", "10.0.4.2"]
[[topology.node]]
name = "r1"
kind = "router"
[[topology.node]]
name = "r2"
kind = "router"
[[topology.node]]
name = "r3"
kind = "router"
[[topology.node]]
name = "r4"
kind = "router"
[[topology.node]]
name = "core"
kind = "router"
[[topology.node]]
name = "s"
kind = "host"
addresses = ["10.1.0.2"]
[[topology.link]]
a = "c"
b = "r1"
rate_mbit = 1
delay_ms = 1
queue_packets = 2
loss = "none"
outages = []
[[topology.link]]
a = "r1"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "c"
b = "r2"
rate_mbit = 1
delay_ms = 1
queue_packets = 2
loss = { model = "bernoulli", percent = 4.954 }
outages = []
[[topology.link]]
a = "r2"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "c"
b = "r3"
rate_mbit = 1
delay_ms = 1
queue_packets = 2
loss = "none"
outages = []
[[topology.link]]
a = "r3"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "c"
b = "r4"
rate_mbit = 1
delay_ms = 1
queue_packets = 2
loss = "none"
outages = []
[[topology.link]]
a = "r4"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "core"
b = "s"
profile = "gigabit"

[transport]
path = 2
sndbuf_kib = 16
rcvbuf_kib = 16
mtu_bytes = 1500
initial_cwnd_packets = 1
sack = true
rack = false
tlp = false
delayed_ack = false
nagle = false
window_scaling = false
protocol = "mptcp"
cc = "newreno"
[transport.mptcp]
scheduler = "upstream"
path_manager = "default"
tlp = "subflow"
ndiffports = 1
subflows_per_path = 1
backup_paths = []
endpoints = []
server_capable = true

[traffic]
model = "file"
size_bytes = 1000
direction = "down"

[output]
timeseries_interval_ms = 0
"#;

/// CMT-SCTP over two paths with bursty (Gilbert-Elliott) loss: 11
/// consecutive T3-rtx expiries / unanswered heartbeats exceed
/// Association.Max.Retrans (10) and the association is closed (RFC 9260
/// section 8.1): spec behaviour, not a stall, but the 18967-byte file never
/// completes, so the run must say why (survey case 16975, seed 12).
#[test]
fn sctp_association_given_up_is_reported() {
    let s = Scenario::from_str_with_overrides(SCTP_GIVES_UP, "regression.toml", &[]).unwrap();
    let out = mptlab_sim::run_once(&s, 0).unwrap();
    let t = out.tables.iter().find(|t| t.name == "transfers").unwrap();
    assert_eq!(t.get(0, "completed"), Some(Value::Bool(false)));
    let m = |k: &str| out.summary.get(k).and_then(|v| v.as_f64());
    assert_eq!(m("transfers_unfinished"), Some(1.0));
    assert_eq!(m("connections_aborted"), Some(1.0));
    assert_eq!(
        m("connections_aborted.sctp_association_max_retrans"),
        Some(1.0)
    );
    let u = mptlab_results::Unfinished::of(std::slice::from_ref(&out));
    assert!(
        u.describe()
            .iter()
            .any(|l| l.contains("1 sctp_association_max_retrans")),
        "{:?}",
        u.describe()
    );
}

const SCTP_GIVES_UP: &str = r#"
[scenario]
name = "prop"
duration_s = 350
runs = 1
seed = 6252862618513422665

[topology]
client = "c"
server = "s"
[[topology.node]]
name = "c"
kind = "host"
addresses = ["10.0.1.2", "10.0.2.2"]
[[topology.node]]
name = "r1"
kind = "router"
[[topology.node]]
name = "r2"
kind = "router"
[[topology.node]]
name = "core"
kind = "router"
[[topology.node]]
name = "s"
kind = "host"
addresses = ["10.1.0.2"]
[[topology.link]]
a = "c"
b = "r1"
rate_mbit = 17.769
delay_ms = 69.806
queue_packets = 392
loss = { model = "gilbert-elliott", p_gb = 0.006, p_bg = 0.691, loss_good_percent = 0, loss_bad_percent = 35.38 }
outages = []
[[topology.link]]
a = "r1"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "c"
b = "r2"
rate_mbit = 2.142
delay_ms = 94.126
queue_packets = 105
loss = { model = "gilbert-elliott", p_gb = 0.016, p_bg = 0.429, loss_good_percent = 0, loss_bad_percent = 47.958 }
outages = []
[[topology.link]]
a = "r2"
b = "core"
profile = "gigabit"
[[topology.link]]
a = "core"
b = "s"
profile = "gigabit"

[transport]
path = 2
sndbuf_kib = 128
rcvbuf_kib = 512
mtu_bytes = 576
initial_cwnd_packets = 4
sack = true
rack = false
tlp = true
delayed_ack = false
nagle = false
window_scaling = true
protocol = "cmt-sctp"
[transport.sctp]
preset = "rfc"
scheduler = "roundrobin"
retransmission = "largest-cwnd"
buffer_splitting = "both"
cc = "cmt-rpv2"
nr_sack = true
chunk_rescheduling = true

[traffic]
model = "file"
size_bytes = 18967
direction = "down"

[output]
timeseries_interval_ms = 0
"#;
