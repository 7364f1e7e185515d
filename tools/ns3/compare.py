#!/usr/bin/env python3
"""Compare mptlab single-path TCP completion times with the ns-3 reference.

Three steps, each usable on its own:

  generate  write one mptlab scenario TOML per (combo, cc, size) of the ns-3 CSV
            into tools/ns3/scenarios/   (--generate)
  run       run `BIN run <scenario.toml> --out <results>/<scenario name>` for each
            scenario                       (--mptlab BIN)
  compare   read <results>/<scenario name>/transfers.csv (columns: run, seed,
            completion_time_ms) and print ns-3 vs mptlab medians with the relative
            difference, flagging |diff| > tolerance (default 15 %)   (--results DIR)

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


def generate(groups, scen_dir, runs, seed, queue_packets):
    os.makedirs(scen_dir, exist_ok=True)
    paths = {}
    for g in groups:
        p = os.path.join(scen_dir, g.name + ".toml")
        with open(p, "w") as f:
            f.write(scenario_toml(g, runs=runs, seed=seed, queue_packets=queue_packets))
        paths[g.name] = p
    print(f"wrote {len(paths)} scenario files to {scen_dir}")
    return paths


def run_mptlab(bin_path, groups, scen_paths, results_dir, timeout_s):
    failed = []
    for g in groups:
        out = os.path.join(results_dir, g.name)
        os.makedirs(out, exist_ok=True)
        cmd = [bin_path, "run", scen_paths[g.name], "--out", out]
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


def compare(groups, results_dir, tol_percent):
    hdr = (
        f"{'scenario':28} {'rate':>5} {'dly':>4} {'loss%':>5} {'ns3_n':>5} {'ns3_med_ms':>11} "
        f"{'mpt_n':>5} {'mpt_med_ms':>11} {'diff%':>7}  flag"
    )
    print(hdr)
    print("-" * len(hdr))
    n_flag = n_missing = 0
    for g in groups:
        got = read_mptlab(results_dir, g.name) if results_dir else None
        ns_med = g.median()
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
            else:
                mpt, diff, flag = "-", "-", "NO COMPLETED RUN"
            if flag != "ok":
                n_flag += 1
        print(
            f"{g.name:28} {g.rate_mbit:>5g} {g.delay_ms:>4g} {g.loss_percent:>5g} "
            f"{len(g.completion_ms):>5} {ns_med:>11.1f} {mpt_n:>5} {mpt:>11} {diff:>7}  {flag}"
        )
    print()
    print(
        f"{len(groups)} scenarios, tolerance ±{tol_percent:g} % on the median completion time: "
        f"{n_flag} flagged, {n_missing} without mptlab data"
    )
    return n_flag, n_missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-csv", default=DEFAULT_CSV)
    ap.add_argument("--scenarios", default=DEFAULT_SCEN_DIR, help="where scenario TOMLs are written")
    ap.add_argument("--generate", action="store_true", help="(re)write the scenario TOMLs")
    ap.add_argument("--mptlab", metavar="BIN", help="run BIN run <toml> --out <results>/<name> for each")
    ap.add_argument("--results", default=None, help=f"mptlab results dir (default with --mptlab: {DEFAULT_RESULTS})")
    ap.add_argument("--runs", type=int, default=10, help="runs per scenario for mptlab")
    ap.add_argument("--seed", type=int, default=1, help="first seed for mptlab")
    ap.add_argument("--queue-packets", type=int, default=100)
    ap.add_argument("--tolerance", type=float, default=15.0, help="flag |median diff| above this percent")
    ap.add_argument("--timeout-s", type=float, default=3600, help="per mptlab invocation")
    ap.add_argument("--only", default="", help="comma list of scenario names or combo names to restrict to")
    ap.add_argument("--strict", action="store_true", help="exit 1 if anything is flagged or missing")
    a = ap.parse_args(argv)

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
        failed = run_mptlab(a.mptlab, groups, scen_paths, results_dir, a.timeout_s)
        if failed:
            print(f"{len(failed)} mptlab run(s) failed: {', '.join(failed)}", file=sys.stderr)

    if results_dir is None and not a.generate:
        print("(no --results/--mptlab given: showing the ns-3 side only)\n")
    if results_dir is None and a.generate:
        return 0
    n_flag, n_missing = compare(groups, results_dir, a.tolerance)
    if a.strict and (n_flag or n_missing):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
