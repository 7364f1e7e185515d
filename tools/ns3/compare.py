#!/usr/bin/env python3
"""Compare mptlab single-path TCP completion times with the ns-3 reference.

Three steps, each usable on its own:

  generate  write one mptlab scenario TOML per (combo, cc, size) of the ns-3 CSV
            into tools/ns3/scenarios/   (--generate)
  run       run `BIN run <scenario.toml> --out <results>/<scenario name>` for each
            scenario                       (--mptlab BIN)
  compare   read <results>/<scenario name>/transfers.csv (columns: run, seed,
            completion_time_ms) and print ns-3 vs mptlab medians with the relative
            difference, flagging |diff| > tolerance (default 15 %)   (--results DIR),
            with a bootstrap 95 % confidence interval of the ratio of the medians
            (mptlab / ns-3) and where the +-tolerance band lies relative to it

Needs only the Python standard library (no ns-3): the ns-3 side is read from
tools/ns3/results/ns3_reference.csv produced by ns3_reference.py.

The scenario format is a draft and may change: adapt `scenario_toml()` only.
"""

from __future__ import annotations

import argparse
import csv
import glob
import math
import os
import random
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = os.path.join(HERE, "results", "ns3_reference.csv")
DEFAULT_SCEN_DIR = os.path.join(HERE, "scenarios")
DEFAULT_RESULTS = os.path.join(HERE, "mptlab-results")

# Settings the ns-3 side uses (see README.md).  The draft mptlab format has no keys
# for most of them yet; they are written as comments unless EMIT_EXTRA_KEYS is set.
NS3_SETTINGS = {
    "mss_bytes": 1448,
    "timestamps": True,
    "initial_cwnd_segments": 10,
    "delayed_ack_count": 2,
    "delayed_ack_timeout_ms": 40,
    "min_rto_ms": 200,
    "initial_rto_ms": 1000,
    "syn_rto_ms": 1000,
    "clock_granularity_ms": 1,
    "recovery": "prr",
    "limited_transmit": True,
    "dupack_threshold": 3,
    "cubic_hystart": True,
    "cubic_beta": 0.7,
    "cubic_c": 0.4,
    "cubic_fast_convergence": True,
    "cubic_tcp_friendliness": True,
    "pacing": False,
    "ecn": False,
    "link_mtu": 1500,
    "link_header_bytes": 2,
}
EMIT_EXTRA_KEYS = False

# ns-3 congestion-control name -> mptlab `cc`.  ns-3's TcpLinuxReno (optional CSV
# results/ns3_reference_linuxreno.csv) is Reno with Linux-style window growth; it is
# the ns-3 counterpart of a Linux-like "newreno" (see README: NewReno vs Linux).
CC_MAP = {"newreno": "newreno", "cubic": "cubic", "linuxreno": "newreno"}


@dataclass
class Group:
    combo: str
    rate_mbit: float
    delay_ms: float
    loss_percent: float
    cc: str
    size_bytes: int
    seeds: list = field(default_factory=list)
    completion_ms: list = field(default_factory=list)  # completed runs only
    incomplete: int = 0

    @property
    def name(self) -> str:
        return scenario_name(self.combo, self.cc, self.size_bytes)

    def median(self) -> float:
        return statistics.median(self.completion_ms) if self.completion_ms else math.nan


def size_label(size_bytes: int) -> str:
    if size_bytes % 1024_000 == 0:
        return f"{size_bytes // 1024_000}MB"
    if size_bytes % 1024 == 0:
        return f"{size_bytes // 1024}KiB"
    return f"{size_bytes}B"


def scenario_name(combo: str, cc: str, size_bytes: int) -> str:
    return f"ns3cmp-{combo}-{cc}-{size_label(size_bytes)}"


def read_ns3_csv(path: str) -> list[Group]:
    if not os.path.exists(path):
        sys.exit(f"error: ns-3 CSV not found: {path} (run ns3_reference.py first)")
    groups: dict[tuple, Group] = {}
    order = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["combo"], r["cc"], int(r["size_bytes"]))
            g = groups.get(key)
            if g is None:
                g = groups[key] = Group(
                    r["combo"],
                    float(r["rate_mbit"]),
                    float(r["delay_ms"]),
                    float(r["loss_percent"]),
                    r["cc"],
                    int(r["size_bytes"]),
                )
                order.append(key)
            g.seeds.append(int(r["seed"]))
            if r["completion_ms"]:
                g.completion_ms.append(float(r["completion_ms"]))
            else:
                g.incomplete += 1
    return [groups[k] for k in order]


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int,)):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def scenario_toml(
    g: Group,
    runs: int,
    seed: int,
    queue_packets: int = 100,
    duration_s: int | None = None,
    buf_kib: int = 4096,
) -> str:
    """mptlab scenario (draft format) matching one ns-3 (combo, cc, size) group.

    This is the only function to change when the mptlab scenario format changes.
    """
    if duration_s is None:
        # generous cap: 3x the slowest ns-3 run, at least 60 s
        worst = max(g.completion_ms) if g.completion_ms else 600_000
        duration_s = max(60, int(math.ceil(3 * worst / 1000.0)))
    if g.size_bytes % 1024:
        raise ValueError(f"size {g.size_bytes} B is not a whole number of KiB")
    lines = [
        f"# Generated by tools/ns3/compare.py from the ns-3 reference ({g.combo}, {g.cc}, "
        f"{size_label(g.size_bytes)} = {g.size_bytes} bytes).",
        "# Completion time = from the connection's first SYN until the receiver has all bytes.",
        "# ns-3 side: the data sender opens the connection; loss hits every packet sent in",
        "# the data direction (data, and the sender's SYN/handshake ACK/FIN), never ACKs.",
        "# Other settings of the ns-3 side (see tools/ns3/README.md):",
    ]
    for k, v in NS3_SETTINGS.items():
        lines.append(f"#   {k} = {_toml_value(v)}")
    lines += [
        "",
        "[scenario]",
        f'name = "{g.name}"',
        f"duration_s = {duration_s}",
        f"runs = {runs}",
        f"seed = {seed}",
        "",
        "# The data sender (the client, direction up) opens the connection, as in ns-3, so",
        "# its SYN crosses the lossy direction too.",
        "[topology]",
        'client = "sender"',
        'server = "receiver"',
        "",
        "[[topology.node]]",
        'name = "sender"',
        'kind = "host"',
        'addresses = ["10.1.0.2"]',
        "",
        "[[topology.node]]",
        'name = "receiver"',
        'kind = "host"',
        'addresses = ["10.0.0.2"]',
        "",
        "[[topology.link]]",
        'a = "sender"',
        'b = "receiver"',
        f"rate_mbit = {_toml_value(float(g.rate_mbit))}",
        f"delay_ms = {_toml_value(float(g.delay_ms))}",
        f"queue_packets = {queue_packets}",
    ]
    if float(g.loss_percent) > 0:
        lines.append(
            f'up = {{ loss = {{ model = "bernoulli", percent = {float(g.loss_percent)!r} }} }}'
        )
    lines += [
        "",
        "[transport]",
        'protocol = "tcp"',
        f'cc = "{CC_MAP.get(g.cc, g.cc)}"',
        "nagle = false",
        "delayed_ack = true",
        "sack = true",
        "tlp = false",
        f"sndbuf_kib = {buf_kib}",
        f"rcvbuf_kib = {buf_kib}",
        "",
        "[traffic]",
        'model = "file"',
        f"size_bytes = {g.size_bytes}",
        'direction = "up"',
        "",
        "[output]",
        "timeseries_interval_ms = 0",
        "",
    ]
    return "\n".join(lines)


def parse_runs(spec: str):
    """--runs: "10" (every size) or "1MB=100,10MB=20" (per size label; "*=N" for the rest)."""
    out = {}
    for part in str(spec).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = int(v)
        else:
            out["*"] = int(part)
    if not out:
        raise ValueError(f"bad --runs {spec!r}")
    return out


def runs_for(runs, g) -> int:
    if isinstance(runs, int):
        return runs
    lab = size_label(g.size_bytes)
    if lab in runs:
        return runs[lab]
    if "*" in runs:
        return runs["*"]
    sys.exit(f"error: --runs gives no count for size {lab} (add {lab}=N or *=N)")


def generate(groups, scen_dir, runs, seed, queue_packets):
    os.makedirs(scen_dir, exist_ok=True)
    paths = {}
    for g in groups:
        p = os.path.join(scen_dir, g.name + ".toml")
        with open(p, "w") as f:
            f.write(scenario_toml(g, runs=runs_for(runs, g), seed=seed, queue_packets=queue_packets))
        paths[g.name] = p
    print(f"wrote {len(paths)} scenario files to {scen_dir}")
    return paths


def run_mptlab(bin_path, groups, scen_paths, results_dir, timeout_s, jobs=None, sets=()):
    failed = []
    for g in groups:
        out = os.path.join(results_dir, g.name)
        os.makedirs(out, exist_ok=True)
        cmd = [bin_path, "run", scen_paths[g.name], "--out", out]
        if jobs:
            cmd += ["--jobs", str(jobs)]
        for kv in sets:
            cmd += ["--set", kv]
        print("+", " ".join(cmd), flush=True)
        try:
            r = subprocess.run(cmd, timeout=timeout_s)
        except FileNotFoundError:
            sys.exit(f"error: mptlab binary not found: {bin_path}")
        except subprocess.TimeoutExpired:
            print(f"  timed out after {timeout_s} s", file=sys.stderr)
            failed.append(g.name)
            continue
        if r.returncode != 0:
            print(f"  exit code {r.returncode}", file=sys.stderr)
            failed.append(g.name)
    return failed


def read_mptlab(results_dir, name):
    """Completion times (ms) of one scenario, or None if no transfers.csv is found."""
    cands = [os.path.join(results_dir, name, "transfers.csv")]
    cands += sorted(glob.glob(os.path.join(results_dir, name, "**", "transfers.csv"), recursive=True))
    for p in cands:
        if os.path.exists(p):
            vals, missing = [], 0
            with open(p, newline="") as f:
                rd = csv.DictReader(f)
                if not rd.fieldnames or "completion_time_ms" not in rd.fieldnames:
                    sys.exit(f"error: {p} has no completion_time_ms column (columns: {rd.fieldnames})")
                for r in rd:
                    v = (r.get("completion_time_ms") or "").strip()
                    if v == "" or v.lower() in ("nan", "none", "na"):
                        missing += 1
                    else:
                        vals.append(float(v))
            return vals, missing, p
    return None


def bootstrap_ratio_ci(ns_vals, mpt_vals, n_boot, rng, level=0.95):
    """Percentile bootstrap CI of median(mptlab) / median(ns-3).

    The two samples are independent (different random streams), so each is resampled
    with replacement on its own, n_boot times; returns (low, high) of the ratio.
    """
    if not ns_vals or not mpt_vals or n_boot <= 0:
        return math.nan, math.nan
    a, b = list(ns_vals), list(mpt_vals)
    na, nb = len(a), len(b)
    ratios = []
    for _ in range(n_boot):
        ma = statistics.median([a[rng.randrange(na)] for _ in range(na)])
        mb = statistics.median([b[rng.randrange(nb)] for _ in range(nb)])
        ratios.append(mb / ma if ma > 0 else math.nan)
    ratios = sorted(r for r in ratios if not math.isnan(r))
    if not ratios:
        return math.nan, math.nan
    alpha = (1.0 - level) / 2.0

    def q(p):  # linear interpolation between order statistics
        x = p * (len(ratios) - 1)
        lo = math.floor(x)
        hi = min(lo + 1, len(ratios) - 1)
        return ratios[lo] + (ratios[hi] - ratios[lo]) * (x - lo)

    return q(alpha), q(1.0 - alpha)


def band_vs_ci(lo, hi, tol_percent):
    """Where the CI of the ratio lies relative to the band [1 - tol, 1 + tol]."""
    if math.isnan(lo) or math.isnan(hi):
        return "-"
    b_lo, b_hi = 1.0 - tol_percent / 100.0, 1.0 + tol_percent / 100.0
    if lo >= b_lo and hi <= b_hi:
        return "inside"  # CI entirely within the band: agreement shown
    if hi < b_lo or lo > b_hi:
        return "outside"  # CI entirely outside the band: disagreement shown
    return "overlap"  # neither shown with these seeds


def compare(groups, results_dir, tol_percent, n_boot=2000, boot_seed=1):
    hdr = (
        f"{'scenario':28} {'rate':>5} {'dly':>4} {'loss%':>5} {'ns3_n':>5} {'ns3_med_ms':>11} "
        f"{'mpt_n':>5} {'mpt_med_ms':>11} {'diff%':>7}  {'flag':7} {'CI95 of diff%':>17}  band"
    )
    print(hdr)
    print("-" * len(hdr))
    n_flag = n_missing = 0
    n_ok = 0
    bands = {"inside": 0, "overlap": 0, "outside": 0}
    for g in groups:
        got = read_mptlab(results_dir, g.name) if results_dir else None
        ns_med = g.median()
        ci, band = "-", "-"
        if got is None:
            mpt = "-"
            mpt_n = "-"
            diff = "-"
            flag = "NO DATA"
            n_missing += 1
        else:
            vals, missing, _ = got
            mpt_n = f"{len(vals)}" + (f"+{missing}x" if missing else "")
            if vals:
                m = statistics.median(vals)
                mpt = f"{m:11.1f}"
                d = (m - ns_med) / ns_med * 100.0
                diff = f"{d:+7.1f}"
                flag = "OUTSIDE" if abs(d) > tol_percent else "ok"
                # one RNG per scenario, seeded from (seed, name): deterministic and
                # independent of which other scenarios are compared
                rng = random.Random(f"{boot_seed}:{g.name}")
                lo, hi = bootstrap_ratio_ci(g.completion_ms, vals, n_boot, rng)
                if not math.isnan(lo):
                    ci = f"[{(lo - 1) * 100:+.1f}, {(hi - 1) * 100:+.1f}]"
                band = band_vs_ci(lo, hi, tol_percent)
                if band in bands:
                    bands[band] += 1
            else:
                mpt, diff, flag = "-", "-", "NO COMPLETED RUN"
            if flag != "ok":
                n_flag += 1
            else:
                n_ok += 1
        print(
            f"{g.name:28} {g.rate_mbit:>5g} {g.delay_ms:>4g} {g.loss_percent:>5g} "
            f"{len(g.completion_ms):>5} {ns_med:>11.1f} {mpt_n:>5} {mpt:>11} {diff:>7}  {flag:7} "
            f"{ci:>17}  {band}"
        )
    print()
    print(
        f"{len(groups)} scenarios, tolerance ±{tol_percent:g} % on the median completion time: "
        f"{n_ok} within, {n_flag} flagged, {n_missing} without mptlab data"
    )
    if n_boot > 0:
        print(
            f"bootstrap 95 % CI of median ratio ({n_boot} resamples, seed {boot_seed}): band "
            f"±{tol_percent:g} % contains the CI (inside) {bands['inside']}, overlaps it "
            f"{bands['overlap']}, lies entirely off it (outside) {bands['outside']}"
        )
    return n_flag, n_missing, bands


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-csv", default=DEFAULT_CSV)
    ap.add_argument("--scenarios", default=DEFAULT_SCEN_DIR, help="where scenario TOMLs are written")
    ap.add_argument("--generate", action="store_true", help="(re)write the scenario TOMLs")
    ap.add_argument("--mptlab", metavar="BIN", help="run BIN run <toml> --out <results>/<name> for each")
    ap.add_argument("--results", default=None, help=f"mptlab results dir (default with --mptlab: {DEFAULT_RESULTS})")
    ap.add_argument(
        "--runs",
        default="10",
        help='runs per scenario for mptlab (--generate): N, or per size "1MB=100,10MB=20" ("*=N": other sizes)',
    )
    ap.add_argument("--jobs", type=int, default=None, help="mptlab --jobs (default: mptlab's, all cores)")
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="passed to mptlab run --set (repeatable), e.g. --set transport.rack=false",
    )
    ap.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples for the CI (0: no CI)")
    ap.add_argument("--bootstrap-seed", type=int, default=1, help="seed of the bootstrap RNG")
    ap.add_argument("--seed", type=int, default=1, help="first seed for mptlab")
    ap.add_argument("--queue-packets", type=int, default=100)
    ap.add_argument("--tolerance", type=float, default=15.0, help="flag |median diff| above this percent")
    ap.add_argument("--timeout-s", type=float, default=3600, help="per mptlab invocation")
    ap.add_argument("--only", default="", help="comma list of scenario names or combo names to restrict to")
    ap.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if any point median differs by more than the tolerance (flag OUTSIDE) or "
        "a scenario has no data; the CI is not used",
    )
    ap.add_argument(
        "--strict-ci",
        action="store_true",
        help="exit 1 if a scenario has no data or its 95 %% CI lies entirely outside the band "
        "(band 'outside'); 'overlap' passes",
    )
    a = ap.parse_args(argv)

    try:
        a.runs = parse_runs(a.runs)
    except ValueError as e:
        ap.error(str(e))
    groups = read_ns3_csv(a.ns3_csv)
    if a.only:
        want = set(a.only.split(","))
        groups = [g for g in groups if g.name in want or g.combo in want]
        if not groups:
            sys.exit(f"error: --only {a.only!r} matches no scenario")

    scen_paths = {g.name: os.path.join(a.scenarios, g.name + ".toml") for g in groups}
    if a.generate or (a.mptlab and not all(os.path.exists(p) for p in scen_paths.values())):
        scen_paths = generate(groups, a.scenarios, a.runs, a.seed, a.queue_packets)

    results_dir = a.results
    if a.mptlab:
        results_dir = results_dir or DEFAULT_RESULTS
        failed = run_mptlab(a.mptlab, groups, scen_paths, results_dir, a.timeout_s, a.jobs, a.sets)
        if failed:
            print(f"{len(failed)} mptlab run(s) failed: {', '.join(failed)}", file=sys.stderr)

    if results_dir is None and not a.generate:
        print("(no --results/--mptlab given: showing the ns-3 side only)\n")
    if results_dir is None and a.generate:
        return 0
    n_flag, n_missing, bands = compare(groups, results_dir, a.tolerance, a.bootstrap, a.bootstrap_seed)
    if a.strict and (n_flag or n_missing):
        return 1
    if a.strict_ci and (n_missing or bands["outside"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
