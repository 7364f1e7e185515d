//! `mptlab validate --decisions`: which subflow carries each data sequence
//! number, in the simulator and in the kernel, on the same realization of
//! the links (docs/validation.md, "Decision-level comparison").
//!
//! Both sides of a run use the run's seed: the setup crate draws the same
//! link parameters, and every link direction's loss process is seeded by
//! `mptlab_core::link::link_stream` in both, so the k-th packet a direction
//! admits past its queue gets the same loss draw. Each run is captured on
//! both sides (the simulator's `server.pcapng`, the emulator's server
//! interface `run<k>-s-srv.pcap`); `mptlab_analyze` decodes the DSS
//! mappings (RFC 8684 3.3.1) and gives every data packet its data sequence
//! number (DSN). A DSN byte is placed on the path whose packet first carried
//! it (first transmission; retransmissions and reinjections do not move it).
//! The headline is the fraction of the bytes both sides placed that they
//! placed on the same path.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use mptlab_analyze::track::FlowRec;
use mptlab_scenario::{Protocol, Scenario};

use super::ratio_ci::{combined_ratio_ci, RatioCi};
use crate::driver::{Driver, Emulate, Simulate};

/// A first-transmission placement of one direction of a connection:
/// disjoint DSN ranges `start -> (end, path, first time ns from capture start)`.
pub type Placement = BTreeMap<u64, (u64, u8, i128)>;

/// Path number of a subflow: the i of the client address 10.i.0.2 (the
/// simulator's and the emulator's address plan alike), 0 if not of that form.
fn path_of(a: IpAddr) -> u8 {
    match a {
        IpAddr::V4(v) => v.octets()[1],
        IpAddr::V6(_) => 0,
    }
}

/// Placement of side `side`'s data (0 = sent by the client, 1 = by the server).
pub fn placement(flow: &FlowRec, side: usize, t0: i128) -> Placement {
    let mut sends: Vec<(i128, u64, u64, u8)> = Vec::new();
    for p in &flow.paths {
        let path = path_of(p.client_addr);
        for &(t, dsn, len) in &p.dir[side].data_sends {
            sends.push((t - t0, dsn, len, path));
        }
    }
    // time order = transmission order at the vantage point; ties by DSN
    sends.sort_unstable();
    let mut placed = Placement::new();
    for (t, a, len, path) in sends {
        for (s, e) in uncovered(&placed, a, a + len) {
            placed.insert(s, (e, path, t));
        }
    }
    placed
}

/// The parts of [a, b) no range of `placed` covers.
fn uncovered(placed: &Placement, a: u64, b: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut cur = a;
    // the range starting at or before a may reach into [a, b)
    let first = placed.range(..=a).next_back().map(|(&s, _)| s).unwrap_or(a);
    for (&s, &(e, _, _)) in placed.range(first..b) {
        if e <= cur {
            continue;
        }
        if s > cur {
            out.push((cur, s.min(b)));
        }
        cur = cur.max(e);
        if cur >= b {
            break;
        }
    }
    if cur < b {
        out.push((cur, b));
    }
    out
}

/// The comparison of two placements of the same direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    /// Bytes both sides placed.
    pub compared: u64,
    /// Of those, bytes placed on the same path.
    pub same: u64,
    /// Bytes placed by one side only (unfinished or truncated capture).
    pub one_side: u64,
    /// First DSN (0-based) placed on different paths: (dsn, sim path, kernel
    /// path, sim time ns, kernel time ns).
    pub first: Option<(u64, u8, u8, i128, i128)>,
}

/// Walk both placements' ranges together.
pub fn compare(sim: &Placement, krn: &Placement) -> Agreement {
    let total = |p: &Placement| p.iter().map(|(s, (e, _, _))| e - s).sum::<u64>();
    let mut g = Agreement::default();
    let mut bi = krn.iter().peekable();
    for (&s0, &(e0, pa, ta)) in sim {
        while let Some((&s1, &(e1, pb, tb))) = bi.peek() {
            if e1 <= s0 {
                bi.next();
                continue;
            }
            if s1 >= e0 {
                break;
            }
            let (lo, hi) = (s0.max(s1), e0.min(e1));
            g.compared += hi - lo;
            if pa == pb {
                g.same += hi - lo;
            } else if g.first.is_none_or(|f| lo < f.0) {
                g.first = Some((lo, pa, pb, ta, tb));
            }
            if e1 <= e0 {
                bi.next();
            } else {
                break;
            }
        }
    }
    g.one_side = total(sim) + total(krn) - 2 * g.compared;
    g
}

/// Bytes of a placement per path.
fn per_path(p: &Placement) -> BTreeMap<u8, u64> {
    let mut m = BTreeMap::new();
    for (s, (e, path, _)) in p {
        *m.entry(*path).or_insert(0) += e - s;
    }
    m
}

/// The MPTCP connection of a capture carrying the most data.
fn main_flow(file: &Path) -> Result<(Vec<Placement>, String), String> {
    let fa = mptlab_analyze::analyze_file(file, &mptlab_analyze::Options::default())?;
    let flow = fa
        .flows
        .iter()
        .filter(|f| f.protocol == "mptcp")
        .max_by_key(|f| f.bytes_delivered)
        .ok_or_else(|| format!("{}: no MPTCP connection in the capture", file.display()))?;
    let note = fa.damaged.clone().unwrap_or_default();
    Ok((
        vec![placement(flow, 0, fa.t0_ns), placement(flow, 1, fa.t0_ns)],
        note,
    ))
}

/// The two sides a comparison sets against each other, as the table, the
/// CSV header and the per-run line name them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sides {
    /// CSV column prefixes.
    pub a: &'static str,
    pub b: &'static str,
    /// The table's short names.
    pub short_a: &'static str,
    pub short_b: &'static str,
}

/// The simulator against the kernel (every comparison but `--kernel-vs`).
pub const SIM_KERNEL: Sides = Sides {
    a: "sim",
    b: "kernel",
    short_a: "sim",
    short_b: "krn",
};

/// One saved kernel pass against another of the same runs (`--kernel-vs`).
pub const KERNEL_PAIR: Sides = Sides {
    a: "kernel_a",
    b: "kernel_b",
    short_a: "A",
    short_b: "B",
};

/// One compared run.
pub struct RunCmp {
    pub scenario: String,
    pub run: u32,
    pub seed: u64,
    pub agree: Agreement,
    pub sim_paths: BTreeMap<u8, u64>,
    pub krn_paths: BTreeMap<u8, u64>,
    /// First DSN (0-based) each path carried, in the direction with the
    /// most data: (simulator, kernel) for path 2 (where the second subflow's
    /// first data began).
    pub p2_first: (Option<u64>, Option<u64>),
    pub note: String,
}

/// Lowest DSN placed on `path`.
fn first_on(p: &Placement, path: u8) -> Option<u64> {
    p.iter().find(|(_, v)| v.1 == path).map(|(s, _)| *s)
}

fn bytes(p: &Placement) -> u64 {
    p.iter().map(|(s, (e, _, _))| e - s).sum()
}

fn shares(m: &BTreeMap<u8, u64>) -> String {
    let tot: u64 = m.values().sum();
    m.iter()
        .map(|(p, b)| format!("p{p}:{:.3}", *b as f64 / tot.max(1) as f64))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The saved kernel runs (summaries with the drawn link parameters, seeds,
/// kernel-relevant settings hash) beside a scenario's kernel captures, what
/// `--decisions --kernel-from` checks before re-judging them.
pub const KERNEL_RUNS: &str = "kernel-runs.json";

/// The kernel capture of run `r` that the comparison reads (the emulator's
/// server interface).
fn kernel_capture(kernel_dir: &Path, r: u32) -> PathBuf {
    kernel_dir.join(format!("run{r}-s-srv.pcap"))
}

/// A saved kernel capture of run `r`: the live pass's `run<k>-s-srv.pcap`,
/// else its gzip copy `run<k>-s-srv.pcap.gz` ([`keep_compressed`]); the
/// plain name when neither exists (for the error).
fn saved_capture(kernel_dir: &Path, r: u32) -> PathBuf {
    let plain = kernel_capture(kernel_dir, r);
    let gz = gz_name(&plain);
    if !plain.is_file() && gz.is_file() {
        gz
    } else {
        plain
    }
}

fn gz_name(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".gz");
    PathBuf::from(s)
}

/// Emulate and simulate every run of `s` with captures under `out`, and
/// compare the placements. The kernel runs' summaries are saved beside the
/// kernel captures after every run ([`KERNEL_RUNS`]), so a later
/// `--kernel-from` can re-judge them. Each run's simulation follows its
/// kernel run, at the jiffy phase that run recorded (`phase`).
pub fn run_scenario(
    s: &Scenario,
    emulate: &mptlab_emu::run::EmulateOptions,
    out: &Path,
    phase: super::phase::PhaseFrom,
) -> Result<Vec<RunCmp>, String> {
    let name = s.meta.name.trim_start_matches("validate-").to_string();
    let base = out.join(&name);
    let sc = with_capture(s, &base);
    let emu_dir = base.join("kernel");
    let emu = Emulate(mptlab_emu::run::EmulateOptions {
        capture: Some(emu_dir.clone()),
        ..emulate.clone()
    });
    let mut v = Vec::new();
    let mut kernel_runs = Vec::new();
    for r in 0..s.meta.runs {
        let k = emu
            .run_once(s, r)
            .map_err(|e| format!("{name}: emulation run {r}: {e}"))?;
        Simulate
            .run_once(&super::phase::for_run(&sc, r, Some(&k), phase), r)
            .map_err(|e| format!("{name}: simulation run {r}: {e}"))?;
        kernel_runs.push(k);
        super::saved::save_to(&emu_dir.join(KERNEL_RUNS), &name, s, &kernel_runs)?;
        let sim_file = mptlab_sim::capture::run_dir(&sc, r).join("server.pcapng");
        v.push(judge(
            &name,
            s,
            r,
            &sim_file,
            &kernel_capture(&emu_dir, r),
            SIM_KERNEL,
        )?);
    }
    Ok(v)
}

/// `s` with the simulator's captures under `base/sim`.
fn with_capture(s: &Scenario, base: &Path) -> Scenario {
    let mut sc = s.clone();
    sc.output.capture = true;
    sc.output.capture_dir = base.join("sim").display().to_string();
    sc
}

/// What an earlier `--decisions -o PREV` saved for one scenario, checked
/// against the scenario as it is now ([`check_saved`]).
pub struct Saved {
    /// `PREV/captures/<name>/kernel`.
    pub kernel_dir: PathBuf,
    /// The saved kernel runs by run number; `None` for a directory written
    /// before [`KERNEL_RUNS`] existed (its seeds were checked against
    /// `PREV/decisions.csv`; settings and link draws cannot be).
    pub runs: Option<BTreeMap<u32, mptlab_results::RunOutput>>,
}

/// The `(scenario, run) -> seed` rows of a saved `decisions.csv`.
pub fn csv_seeds(p: &Path) -> Result<BTreeMap<(String, u32), u64>, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.splitn(4, ',').collect();
        let (Some(run), Some(seed)) = (
            f.get(1).and_then(|x| x.parse().ok()),
            f.get(2).and_then(|x| x.parse().ok()),
        ) else {
            return Err(format!(
                "{}: line {}: no run and seed in columns 2-3",
                p.display(),
                i + 1
            ));
        };
        m.insert((f[0].to_string(), run), seed);
    }
    Ok(m)
}

/// Check that `prev` (an earlier `--decisions -o PREV`) holds scenario `s`'s
/// kernel captures for every run `s` asks for, measured with the same
/// kernel-relevant settings, scenario seed and run seeds. `legacy` are the
/// seeds of PREV's decisions.csv, read when [`KERNEL_RUNS`] is absent.
pub fn check_saved(
    s: &Scenario,
    prev: &Path,
    legacy: &mut Option<BTreeMap<(String, u32), u64>>,
) -> Result<Saved, String> {
    let name = s.meta.name.trim_start_matches("validate-").to_string();
    let kernel_dir = prev.join("captures").join(&name).join("kernel");
    if !kernel_dir.is_dir() {
        return Err(format!(
            "{}: no kernel captures for scenario {name}; run `mptlab validate --decisions -o DIR` \
             with this scenario first",
            kernel_dir.display()
        ));
    }
    let meta = kernel_dir.join(KERNEL_RUNS);
    let runs = if meta.exists() {
        let saved = super::saved::load_from(&meta, &name, s)?;
        let by: BTreeMap<u32, _> = saved.into_iter().map(|r| (r.run, r)).collect();
        for r in 0..s.meta.runs {
            if !by.contains_key(&r) {
                return Err(format!(
                    "{}: no kernel run {r} (saved: {} run(s)); pass --runs {} or fewer",
                    meta.display(),
                    by.len(),
                    by.len()
                ));
            }
        }
        Some(by)
    } else {
        // written before kernel-runs.json: the seeds are in decisions.csv
        if legacy.is_none() {
            let csv = prev.join("decisions.csv");
            *legacy = Some(csv_seeds(&csv).map_err(|e| {
                format!("{e} (no {KERNEL_RUNS} in {} either)", kernel_dir.display())
            })?);
        }
        let seeds = legacy.as_ref().expect("read above");
        let csv = prev.join("decisions.csv");
        for r in 0..s.meta.runs {
            let want = s.run_seed(r);
            match seeds.get(&(name.clone(), r)) {
                None => {
                    return Err(format!(
                        "{}: no row for scenario {name} run {r}; pass --runs with the runs it has",
                        csv.display()
                    ))
                }
                Some(&got) if got != want => {
                    return Err(format!(
                        "{}: {name} run {r} has seed {got}, the scenario's run {r} has seed {want} \
                         ({} has scenario.seed = {}); re-run the kernel side",
                        csv.display(),
                        s.origin,
                        s.meta.seed
                    ))
                }
                Some(_) => {}
            }
        }
        eprintln!(
            "decisions: {name}: {} has no {KERNEL_RUNS} (written before it existed): run seeds \
             checked against {}, kernel-relevant settings and link draws not checked",
            kernel_dir.display(),
            csv.display()
        );
        None
    };
    for r in 0..s.meta.runs {
        let f = saved_capture(&kernel_dir, r);
        if !f.is_file() {
            return Err(format!(
                "{}: missing (kernel capture of scenario {name} run {r}; or {})",
                f.display(),
                gz_name(&f).display()
            ));
        }
        // a damaged gzip copy is refused here, before anything runs
        if f.extension().is_some_and(|x| x == "gz") {
            mptlab_analyze::gz::read_file(&f)?;
        }
    }
    Ok(Saved { kernel_dir, runs })
}

/// `--decisions --kernel-from`: simulate every run of `s` with captures
/// under `out`, and compare them with the kernel captures of `saved`. The
/// compared kernel captures (and [`KERNEL_RUNS`]) are copied to
/// `out/<name>/kernel`, so `out` can serve as a later `--kernel-from` in
/// turn; nothing under the saved directory is written. Each run is
/// simulated at the jiffy phase its kernel run recorded (`phase`).
pub fn rejudge_scenario(
    s: &Scenario,
    saved: &Saved,
    out: &Path,
    phase: super::phase::PhaseFrom,
) -> Result<Vec<RunCmp>, String> {
    let name = s.meta.name.trim_start_matches("validate-").to_string();
    let base = out.join(&name);
    let sc = with_capture(s, &base);
    let krn_dir = base.join("kernel");
    std::fs::create_dir_all(&krn_dir).map_err(|e| format!("{}: {e}", krn_dir.display()))?;
    let copy = |from: &Path, to: &Path| {
        std::fs::copy(from, to)
            .map(|_| ())
            .map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
    };
    let meta = saved.kernel_dir.join(KERNEL_RUNS);
    if saved.runs.is_some() {
        copy(&meta, &krn_dir.join(KERNEL_RUNS))?;
    }
    let mut v = Vec::new();
    for r in 0..s.meta.runs {
        let kernel_run = saved.runs.as_ref().and_then(|m| m.get(&r));
        let sim = Simulate
            .run_once(&super::phase::for_run(&sc, r, kernel_run, phase), r)
            .map_err(|e| format!("{name}: simulation run {r}: {e}"))?;
        // The same seed draws the same links only if the drawing did not
        // change since: the kernel ran on the values it recorded.
        if let Some(k) = kernel_run {
            if let Some((key, dk, ds)) = drawn_difference(k, &sim) {
                return Err(format!(
                    "{}: run {r}: the kernel ran on {key} = {dk}, this simulator draws {ds} from the \
                     same seed; the link realizations differ, re-run the kernel side",
                    meta.display(),
                ));
            }
        }
        let src = saved_capture(&saved.kernel_dir, r);
        let krn_file = krn_dir.join(src.file_name().expect("a file"));
        copy(&src, &krn_file)?;
        let sim_file = mptlab_sim::capture::run_dir(&sc, r).join("server.pcapng");
        // judged where the live pass judged it (a damaged-capture note names
        // the file)
        v.push(judge(&name, s, r, &sim_file, &src, SIM_KERNEL)?);
    }
    Ok(v)
}

/// The link parameters a run was drawn (its `drawn.*` summary values).
fn drawn(o: &mptlab_results::RunOutput) -> BTreeMap<String, String> {
    o.summary
        .iter()
        .filter(|(k, _)| k.starts_with("drawn."))
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect()
}

/// The first drawn link parameter in which two runs differ: (key, a's
/// value, b's value; "(none)" where a run lacks it), `None` when they ran
/// on the same draw.
fn drawn_difference(
    a: &mptlab_results::RunOutput,
    b: &mptlab_results::RunOutput,
) -> Option<(String, String, String)> {
    let (da, db) = (drawn(a), drawn(b));
    let key = da
        .keys()
        .chain(db.keys())
        .find(|k| da.get(*k) != db.get(*k))?;
    let val = |m: &BTreeMap<String, String>| m.get(key).cloned().unwrap_or("(none)".into());
    Some((key.clone(), val(&da), val(&db)))
}

/// `--decisions --kernel-from A --kernel-vs B`: the kernel against itself.
/// Run `r` of saved pass `a` is compared with run `r` of saved pass `b`
/// (both checked by [`check_saved`] against `s`: the same settings and run
/// seeds), on the same link draws where both recorded them. Nothing is
/// simulated: the fraction says how reproducible the kernel's own
/// placement is on one realization of the links, the ceiling a model can
/// reach against any one pass (docs/validation.md).
pub fn kernel_vs_kernel(s: &Scenario, a: &Saved, b: &Saved) -> Result<Vec<RunCmp>, String> {
    let name = s.meta.name.trim_start_matches("validate-").to_string();
    let mut v = Vec::new();
    for r in 0..s.meta.runs {
        let (ra, rb) = (a.runs.as_ref(), b.runs.as_ref());
        if let (Some(ka), Some(kb)) = (ra.and_then(|m| m.get(&r)), rb.and_then(|m| m.get(&r))) {
            if let Some((key, va, vb)) = drawn_difference(ka, kb) {
                return Err(format!(
                    "{name} run {r}: {} ran on {key} = {va}, {} on {vb}: not the same link \
                     realization, so the two passes cannot be compared run by run",
                    a.kernel_dir.display(),
                    b.kernel_dir.display()
                ));
            }
        }
        let (fa, fb) = (
            saved_capture(&a.kernel_dir, r),
            saved_capture(&b.kernel_dir, r),
        );
        v.push(judge(&name, s, r, &fa, &fb, KERNEL_PAIR)?);
    }
    Ok(v)
}

/// Write `s`'s saved kernel runs (checked by [`check_saved`]) to
/// `to/captures/<name>/kernel/` in the form kept in the repository: the
/// server captures the comparison reads, gzip-compressed
/// (`run<k>-s-srv.pcap.gz`, byte for byte the capture once decompressed),
/// and [`KERNEL_RUNS`]. The captures of the other vantage points are left
/// out. Returns the bytes written.
pub fn keep_compressed(s: &Scenario, saved: &Saved, to: &Path) -> Result<u64, String> {
    let name = s.meta.name.trim_start_matches("validate-").to_string();
    let dir = to.join("captures").join(&name).join("kernel");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |p: &Path, b: &[u8]| {
        std::fs::write(p, b)
            .map(|_| b.len() as u64)
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut bytes = 0;
    if saved.runs.is_some() {
        let meta = saved.kernel_dir.join(KERNEL_RUNS);
        let text = std::fs::read(&meta).map_err(|e| format!("{}: {e}", meta.display()))?;
        bytes += write(&dir.join(KERNEL_RUNS), &text)?;
    }
    for r in 0..s.meta.runs {
        let src = saved_capture(&saved.kernel_dir, r);
        let raw = mptlab_analyze::gz::read_file(&src)?;
        let gz = mptlab_analyze::gz::compress(&raw);
        bytes += write(&gz_name(&kernel_capture(&dir, r)), &gz)?;
    }
    Ok(bytes)
}

/// Compare run `r`'s captures of side a (the simulator's) and side b (the
/// kernel's), named by `sides` on stderr.
fn judge(
    name: &str,
    s: &Scenario,
    r: u32,
    sim_file: &Path,
    krn_file: &Path,
    sides: Sides,
) -> Result<RunCmp, String> {
    let (ps, ns) = main_flow(sim_file)?;
    let (pk, nk) = main_flow(krn_file)?;
    let mut agree = Agreement::default();
    let (mut sp, mut kp) = (BTreeMap::new(), BTreeMap::new());
    for side in 0..2 {
        let g = compare(&ps[side], &pk[side]);
        agree.compared += g.compared;
        agree.same += g.same;
        agree.one_side += g.one_side;
        if agree.first.is_none() {
            agree.first = g.first;
        }
        for (p, b) in per_path(&ps[side]) {
            *sp.entry(p).or_insert(0) += b;
        }
        for (p, b) in per_path(&pk[side]) {
            *kp.entry(p).or_insert(0) += b;
        }
    }
    let main = if bytes(&ps[1]) >= bytes(&ps[0]) { 1 } else { 0 };
    let p2_first = (first_on(&ps[main], 2), first_on(&pk[main], 2));
    let note = [ns, nk]
        .into_iter()
        .filter(|n| !n.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    let c = RunCmp {
        scenario: name.to_string(),
        run: r,
        seed: s.run_seed(r),
        agree,
        sim_paths: sp,
        krn_paths: kp,
        p2_first,
        note,
    };
    eprintln!(
        "decisions: {name} run {r}: same path {}/{} bytes ({:.3}); {} {} {} {}",
        c.agree.same,
        c.agree.compared,
        frac(c.agree.same, c.agree.compared),
        sides.a,
        shares(&c.sim_paths),
        sides.b,
        shares(&c.krn_paths)
    );
    Ok(c)
}

fn opt(v: Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn frac(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// Whether `--decisions` compares this scenario (MPTCP only: a TCP control
/// has one path, nothing to decide).
pub fn applies(s: &Scenario) -> bool {
    s.transport.protocol == Protocol::Mptcp
}

/// The per-run CSV (`decisions.csv`), its columns named after `sides`.
pub fn csv_of(rows: &[RunCmp], sides: Sides) -> String {
    let Sides { a, b, .. } = sides;
    let mut t = format!(
        "scenario,run,seed,compared_bytes,same_path_bytes,same_fraction,one_side_bytes,\
{a}_shares,{b}_shares,first_diverge_dsn,first_diverge_{a}_path,first_diverge_{b}_path,\
first_diverge_{a}_ms,first_diverge_{b}_ms,{a}_path2_first_dsn,{b}_path2_first_dsn,note\n",
    );
    for c in rows {
        let g = &c.agree;
        let (d, pa, pb, ta, tb) = match g.first {
            Some((d, pa, pb, ta, tb)) => (
                d.to_string(),
                pa.to_string(),
                pb.to_string(),
                format!("{:.3}", ta as f64 / 1e6),
                format!("{:.3}", tb as f64 / 1e6),
            ),
            None => Default::default(),
        };
        t.push_str(&format!(
            "{},{},{},{},{},{:.4},{},{},{},{d},{pa},{pb},{ta},{tb},{},{},\"{}\"\n",
            c.scenario,
            c.run,
            c.seed,
            g.compared,
            g.same,
            frac(g.same, g.compared),
            g.one_side,
            shares(&c.sim_paths),
            shares(&c.krn_paths),
            opt(c.p2_first.0),
            opt(c.p2_first.1),
            c.note.replace('"', "'")
        ));
    }
    t
}

/// Per scenario: pooled fraction, per-run range, and the first divergence
/// of each run, the two sides named after `sides`.
pub fn table_of(rows: &[RunCmp], sides: Sides) -> String {
    let mut by: BTreeMap<&str, Vec<&RunCmp>> = BTreeMap::new();
    for c in rows {
        by.entry(&c.scenario).or_default().push(c);
    }
    let mut t = format!(
        "{:<36} {:>5} {:>24} {:>13} {:>15} {:>30}\n",
        "scenario",
        "runs",
        "same path / placed",
        "95 % CI",
        "per-run range",
        format!(
            "first divergence (run: DSN @ {}/{} ms)",
            sides.short_a, sides.short_b
        )
    );
    let (mut all_same, mut all_cmp) = (0u64, 0u64);
    let strata: Vec<Vec<(u64, u64)>> = by
        .values()
        .map(|v| v.iter().map(|c| (c.agree.same, c.agree.compared)).collect())
        .collect();
    for ((name, v), runs) in by.iter().zip(&strata) {
        let same: u64 = v.iter().map(|c| c.agree.same).sum();
        let cmp: u64 = v.iter().map(|c| c.agree.compared).sum();
        all_same += same;
        all_cmp += cmp;
        let fr: Vec<f64> = v
            .iter()
            .map(|c| frac(c.agree.same, c.agree.compared))
            .collect();
        let lo = fr.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = fr.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let firsts = v
            .iter()
            .filter_map(|c| {
                c.agree.first.map(|(d, _, _, ta, tb)| {
                    format!(
                        "{}: {d} @ {:.0}/{:.0}",
                        c.run,
                        ta as f64 / 1e6,
                        tb as f64 / 1e6
                    )
                })
            })
            .take(3)
            .collect::<Vec<_>>()
            .join("; ");
        // run 0's; every run's in the CSV
        let p2 = format!("{}/{}", opt(v[0].p2_first.0), opt(v[0].p2_first.1));
        t.push_str(&format!(
            "{:<36} {:>5} {:>24} {:>13} {:>15} {:>24} {}\n",
            name,
            v.len(),
            format!("{same}/{cmp} = {:.3}", frac(same, cmp)),
            ci_text(combined_ratio_ci(std::slice::from_ref(runs))),
            format!("{lo:.3}-{hi:.3}"),
            if v[0].p2_first == (None, None) {
                "-".into()
            } else {
                p2
            },
            if firsts.is_empty() {
                "-".into()
            } else {
                firsts
            }
        ));
    }
    t.push_str(&format!(
        "\nbytes placed on the same path (first transmission, both directions), all cells: \
{all_same}/{all_cmp} = {:.3}\n",
        frac(all_same, all_cmp)
    ));
    t.push_str(&match combined_ratio_ci(&strata) {
        Some(c) => format!(
            "95 % CI over the runs: {:.3}-{:.3} (combined ratio estimate over the cells, \
t with {} df; first-order, docs/validation.md)\n",
            c.lo, c.hi, c.df
        ),
        None => "95 % CI over the runs: none (a cell has fewer than 2 runs)\n".into(),
    });
    t
}

/// A per-cell interval column: `lo-hi`, or `-` without one.
fn ci_text(c: Option<RatioCi>) -> String {
    c.map_or("-".into(), |c| format!("{:.3}-{:.3}", c.lo, c.hi))
}

#[cfg(test)]
mod tests {
    use super::super::phase::PhaseFrom;
    use super::*;

    fn pl(v: &[(u64, u64, u8)]) -> Placement {
        v.iter().map(|&(s, e, p)| (s, (e, p, s as i128))).collect()
    }

    const CELL: &str = include_str!("../../../../scenarios/validate/file-1024k-mptcp.toml");
    const NAME: &str = "file-1024k-mptcp";

    fn scen(set: &[(&str, &str)]) -> Scenario {
        let mut v = vec![("scenario.runs", "2")];
        v.extend_from_slice(set);
        let set: Vec<mptlab_scenario::Override> = v
            .iter()
            .map(|(k, v)| mptlab_scenario::Override {
                key: k.to_string(),
                value: v.to_string(),
            })
            .collect();
        Scenario::from_str_with_overrides(CELL, "cell.toml", &set).unwrap()
    }

    fn tmp(name: &str) -> crate::scratch::Scratch {
        crate::scratch::Scratch::unmade(name)
    }

    /// A live `--decisions -o prev` pass without root: [`run_scenario`]'s
    /// steps with the simulator standing in for the kernel (another
    /// scheduler, so the two sides decide differently), its capture and
    /// summaries saved where the emulator's go.
    fn fake_live(s: &Scenario, prev: &Path) -> Vec<RunCmp> {
        let base = prev.join("captures").join(NAME);
        let sc = with_capture(s, &base);
        let kernel = with_capture(
            &scen(&[("transport.mptcp.scheduler", "\"roundrobin\"")]),
            &base.join("kernel-stand-in"),
        );
        let kdir = base.join("kernel");
        std::fs::create_dir_all(&kdir).unwrap();
        let (mut kruns, mut rows) = (Vec::new(), Vec::new());
        for r in 0..s.meta.runs {
            Simulate.run_once(&sc, r).unwrap();
            kruns.push(Simulate.run_once(&kernel, r).unwrap());
            let from = mptlab_sim::capture::run_dir(&kernel, r).join("server.pcapng");
            std::fs::copy(from, kernel_capture(&kdir, r)).unwrap();
            super::super::saved::save_to(&kdir.join(KERNEL_RUNS), NAME, s, &kruns).unwrap();
            let sim = mptlab_sim::capture::run_dir(&sc, r).join("server.pcapng");
            rows.push(judge(NAME, s, r, &sim, &kernel_capture(&kdir, r), SIM_KERNEL).unwrap());
        }
        std::fs::write(prev.join("decisions.csv"), csv_of(&rows, SIM_KERNEL)).unwrap();
        rows
    }

    /// Rewrite a saved pass's `kernel-runs.json` as if its run 1 had run on
    /// another draw of the links (path 1 at 21 Mbit/s).
    fn redraw_run1(meta: &Path) {
        let text = std::fs::read_to_string(meta).unwrap();
        let mut j: super::super::saved::SavedScenario = serde_json::from_str(&text).unwrap();
        j.runs[1]
            .summary
            .insert("drawn.path1.rate_mbit".into(), serde_json::json!(21.0));
        std::fs::write(meta, serde_json::to_string(&j).unwrap()).unwrap();
    }

    /// Re-judging saved kernel captures with the same simulator gives the
    /// live pass's decisions.csv byte for byte, and the output can serve as
    /// `--kernel-from` in turn.
    #[test]
    fn rejudged_captures_give_the_live_csv() {
        let (prev, out, out2) = (tmp("dec-prev"), tmp("dec-out"), tmp("dec-out2"));
        let s = scen(&[]);
        let live = fake_live(&s, &prev);
        let saved = check_saved(&s, &prev, &mut None).unwrap();
        assert_eq!(saved.runs.as_ref().map(|m| m.len()), Some(2));
        let again = rejudge_scenario(&s, &saved, &out.join("captures"), PhaseFrom::Kernel).unwrap();
        assert_eq!(csv_of(&live, SIM_KERNEL), csv_of(&again, SIM_KERNEL));
        assert_eq!(table_of(&live, SIM_KERNEL), table_of(&again, SIM_KERNEL));
        // the two sides did decide differently somewhere (not trivially 1.0)
        let g = &again[0].agree;
        assert!(g.compared > 0 && g.same < g.compared, "{g:?}");
        // chained: out holds the kernel captures and kernel-runs.json
        let chained = check_saved(&s, &out, &mut None).unwrap();
        let third =
            rejudge_scenario(&s, &chained, &out2.join("captures"), PhaseFrom::Kernel).unwrap();
        assert_eq!(csv_of(&live, SIM_KERNEL), csv_of(&third, SIM_KERNEL));
        for d in [prev, out, out2] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    /// The compressed form kept in the repository re-judges to the live
    /// pass's decisions.csv, holds only the server captures (gzip) and
    /// kernel-runs.json, and a damaged copy is refused before anything runs.
    #[test]
    fn kept_compressed_runs_rejudge_to_the_live_csv() {
        let (prev, kept, out) = (tmp("dec-keep-prev"), tmp("dec-keep"), tmp("dec-keep-out"));
        let s = scen(&[]);
        let live = fake_live(&s, &prev);
        let saved = check_saved(&s, &prev, &mut None).unwrap();
        let bytes = keep_compressed(&s, &saved, &kept).unwrap();
        let kdir = kept.join("captures").join(NAME).join("kernel");
        let mut files: Vec<String> = std::fs::read_dir(&kdir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(
            files,
            [KERNEL_RUNS, "run0-s-srv.pcap.gz", "run1-s-srv.pcap.gz"]
        );
        let plain = std::fs::metadata(kernel_capture(&saved.kernel_dir, 0))
            .unwrap()
            .len();
        assert!(
            bytes < plain,
            "{bytes} bytes kept for a {plain}-byte capture"
        );
        let from_kept = check_saved(&s, &kept, &mut None).unwrap();
        let again =
            rejudge_scenario(&s, &from_kept, &out.join("captures"), PhaseFrom::Kernel).unwrap();
        assert_eq!(csv_of(&live, SIM_KERNEL), csv_of(&again, SIM_KERNEL));
        // the re-judged output keeps the .gz name, so it chains as well
        assert!(out
            .join("captures")
            .join(NAME)
            .join("kernel")
            .join("run1-s-srv.pcap.gz")
            .is_file());
        // a copy cut short is refused, naming the file and the problem
        let gz = kdir.join("run1-s-srv.pcap.gz");
        let b = std::fs::read(&gz).unwrap();
        std::fs::write(&gz, &b[..b.len() / 2]).unwrap();
        let e = check_saved(&s, &kept, &mut None).err().unwrap();
        assert!(e.contains("run1-s-srv.pcap.gz: damaged gzip file"), "{e}");
        std::fs::remove_file(&gz).unwrap();
        let e = check_saved(&s, &kept, &mut None).err().unwrap();
        assert!(
            e.contains("run1-s-srv.pcap: missing") && e.contains("run1-s-srv.pcap.gz"),
            "{e}"
        );
        for d in [prev, kept, out] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    /// A saved pass that lacks the cell or a run, or was measured with other
    /// settings, seeds or link draws, is refused naming the file and problem.
    #[test]
    fn mismatched_saved_captures_are_refused() {
        let (prev, out) = (tmp("dec-refuse"), tmp("dec-refuse-out"));
        let s = scen(&[]);
        fake_live(&s, &prev);
        let err = |s: &Scenario| check_saved(s, &prev, &mut None).err().unwrap();
        let e = err(&scen(&[("transport.sndbuf_kib", "512")]));
        assert!(
            e.contains("other settings") && e.contains(KERNEL_RUNS),
            "{e}"
        );
        let e = err(&scen(&[("scenario.seed", "2")]));
        assert!(e.contains("scenario.seed = 1"), "{e}");
        let e = err(&scen(&[("scenario.runs", "3")]));
        assert!(
            e.contains("no kernel run 2") && e.contains("--runs 2"),
            "{e}"
        );
        let e = err(&scen(&[("scenario.name", "\"validate-other\"")]));
        assert!(e.contains("no kernel captures for scenario other"), "{e}");
        // a simulator that draws other links than the kernel ran on
        let meta = prev
            .join("captures")
            .join(NAME)
            .join("kernel")
            .join(KERNEL_RUNS);
        redraw_run1(&meta);
        let saved = check_saved(&s, &prev, &mut None).unwrap();
        let e = rejudge_scenario(&s, &saved, &out, PhaseFrom::Kernel)
            .err()
            .unwrap();
        assert!(
            e.contains("run 1: the kernel ran on drawn.path1.rate_mbit = 21.0"),
            "{e}"
        );
        // written before kernel-runs.json: seeds from decisions.csv
        std::fs::remove_file(&meta).unwrap();
        let saved = check_saved(&s, &prev, &mut None).unwrap();
        assert!(saved.runs.is_none());
        let e = err(&scen(&[("scenario.seed", "2")]));
        assert!(
            e.contains("decisions.csv: file-1024k-mptcp run 0 has seed"),
            "{e}"
        );
        let e = err(&scen(&[("scenario.runs", "3")]));
        assert!(
            e.contains("no row for scenario file-1024k-mptcp run 2"),
            "{e}"
        );
        std::fs::remove_file(kernel_capture(&saved.kernel_dir, 1)).unwrap();
        let e = err(&s);
        assert!(e.contains("run1-s-srv.pcap: missing"), "{e}");
        for d in [prev, out] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    /// `--kernel-vs`: two identical passes agree on every byte; a pass whose
    /// run 0 is another decision-maker's capture agrees with the first as
    /// much as the live comparison of those two captures did; passes on other
    /// link draws are refused, naming the run and the parameter.
    #[test]
    fn kernel_against_kernel_compares_saved_passes_run_by_run() {
        let (a, b) = (tmp("dec-kvk-a"), tmp("dec-kvk-b"));
        let s = scen(&[]);
        let live = fake_live(&s, &a);
        fake_live(&s, &b);
        let ka = check_saved(&s, &a, &mut None).unwrap();
        let kb = check_saved(&s, &b, &mut None).unwrap();
        let rows = kernel_vs_kernel(&s, &ka, &kb).unwrap();
        assert_eq!(rows.len(), 2);
        for r in &rows {
            assert!(r.agree.compared > 0);
            assert_eq!(r.agree.same, r.agree.compared);
            assert!(r.agree.first.is_none());
        }
        let head = csv_of(&rows, KERNEL_PAIR);
        assert!(head.starts_with(
            "scenario,run,seed,compared_bytes,same_path_bytes,same_fraction,one_side_bytes,\
             kernel_a_shares,kernel_b_shares,"
        ));
        assert!(table_of(&rows, KERNEL_PAIR).contains("DSN @ A/B ms"));
        // B's run 0 replaced by the simulator's capture of A's run 0
        let sim0 = with_capture(&s, &a.join("captures").join(NAME));
        let sim0 = mptlab_sim::capture::run_dir(&sim0, 0).join("server.pcapng");
        std::fs::copy(&sim0, kernel_capture(&kb.kernel_dir, 0)).unwrap();
        let rows = kernel_vs_kernel(&s, &ka, &kb).unwrap();
        let (g, l) = (&rows[0].agree, &live[0].agree);
        assert!(g.same < g.compared, "{g:?}");
        assert_eq!((g.same, g.compared), (l.same, l.compared));
        assert_eq!(rows[1].agree.same, rows[1].agree.compared);
        // another draw of the links in B's run 1
        let meta = kb.kernel_dir.join(KERNEL_RUNS);
        redraw_run1(&meta);
        let kb = check_saved(&s, &b, &mut None).unwrap();
        let e = kernel_vs_kernel(&s, &ka, &kb).err().unwrap();
        assert!(
            e.contains("run 1:") && e.contains("drawn.path1.rate_mbit") && e.contains("21.0"),
            "{e}"
        );
        for d in [a, b] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn uncovered_skips_placed_ranges() {
        let p = pl(&[(10, 20, 1), (30, 40, 2)]);
        assert_eq!(uncovered(&p, 0, 50), vec![(0, 10), (20, 30), (40, 50)]);
        assert_eq!(uncovered(&p, 15, 35), vec![(20, 30)]);
        assert_eq!(uncovered(&p, 12, 18), vec![]);
        assert_eq!(uncovered(&p, 40, 45), vec![(40, 45)]);
    }

    #[test]
    fn compare_counts_overlaps_and_first_divergence() {
        let a = pl(&[(0, 100, 1), (100, 150, 2), (150, 300, 1)]);
        let b = pl(&[(0, 120, 1), (120, 200, 2)]);
        let g = compare(&a, &b);
        assert_eq!(g.compared, 200);
        // same: [0,100) p1, [120,150) p2; differ: [100,120), [150,200)
        assert_eq!(g.same, 130);
        assert_eq!(g.one_side, 100);
        assert_eq!(g.first.map(|f| (f.0, f.1, f.2)), Some((100, 2, 1)));
    }
}
