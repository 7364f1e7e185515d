#!/usr/bin/env python3
"""Replay ns-3's random-loss positions in mptlab (docs/validation.md, "What remains").

For each ns-3 seed traced with `ns3_reference.py --trace '.../s{seed}.csv'`, find the
transmissions that ns-3's RateErrorModel dropped (the `lost` events, matched to the
latest `tx`/`retx` of that sequence number), write an mptlab scenario that drops the
same data-packet positions with the deterministic `train` loss model, run it, and
compare completion times seed by seed. Seeds with queue drops are skipped (the train
model counts packets offered to the link, so tail drops would shift the positions).

    python3 tools/ns3/match_losses.py --traces '/tmp/c4tr/s*.csv' \
        --ns3-csv tools/ns3/results/ns3_reference_cubic_nohystart_linuxlike_1MB_100seeds.csv \
        --combo c4 --scenario /tmp/sc-nohs/ns3cmp-c4-cubic-1MB.toml \
        --mptlab target/release/mptlab --out /tmp/match

Standard library only.
"""

import argparse
import csv
import glob
import os
import re
import statistics
import subprocess


def loss_positions(trace):
    """1-based positions (among data transmissions) of the packets ns-3 lost, or None."""
    sent, pos = [], []
    with open(trace) as f:
        for line in f:
            _, kind, value = line.strip().split(",")
            if kind in ("tx", "retx"):
                sent.append(int(value))
            elif kind == "lost":
                hits = [i for i, s in enumerate(sent) if s == int(value)]
                if not hits:
                    return None
                pos.append(hits[-1] + 1)
    return pos


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", required=True, help="glob of ns-3 trace files named ...s{seed}.csv")
    ap.add_argument("--ns3-csv", required=True)
    ap.add_argument("--combo", required=True)
    ap.add_argument("--scenario", required=True, help="compare.py scenario TOML with a bernoulli loss on `up`")
    ap.add_argument("--mptlab", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tolerance", type=float, default=15.0)
    a = ap.parse_args()

    ns3 = {int(r["seed"]): r for r in csv.DictReader(open(a.ns3_csv)) if r["combo"] == a.combo}
    base = open(a.scenario).read()
    loss_line = re.search(r"^up = \{ loss = \{ model = \"bernoulli\".*$", base, re.M)
    if not loss_line:
        raise SystemExit(f"{a.scenario}: no `up = {{ loss = {{ model = \"bernoulli\" ...` line")
    os.makedirs(a.out, exist_ok=True)
    rows, skipped = [], []
    for trace in sorted(glob.glob(a.traces)):
        seed = int(re.findall(r"s(\d+)\.csv$", trace)[0])
        if seed not in ns3 or int(ns3[seed]["pkts_dropped_queue"]) > 0:
            skipped.append(seed)
            continue
        pos = loss_positions(trace)
        if not pos:
            skipped.append(seed)
            continue
        train = 'up = { loss = { model = "train", drop_packets = [%s], gap_ms = 100000 } }' % ", ".join(map(str, pos))
        text = base.replace(loss_line.group(0), train)
        text = re.sub(r"^runs = \d+$", "runs = 1", text, flags=re.M)
        toml = os.path.join(a.out, f"s{seed}.toml")
        with open(toml, "w") as f:
            f.write(text)
        res = os.path.join(a.out, f"s{seed}")
        subprocess.run([a.mptlab, "run", toml, "--out", res, "--force", "-j", "1"], check=True, capture_output=True)
        t = float(next(csv.DictReader(open(os.path.join(res, "transfers.csv"))))["completion_time_ms"])
        rows.append((seed, float(ns3[seed]["completion_ms"]), t))
    if not rows:
        raise SystemExit("no usable seeds")
    ratios = [m / n for _, n, m in rows]
    tol = a.tolerance / 100
    print(f"{len(rows)} seeds (skipped {len(skipped)}: queue drops or unmatched)")
    print(f"median ns-3 {statistics.median(r[1] for r in rows):.1f} ms, mptlab {statistics.median(r[2] for r in rows):.1f} ms")
    print(f"per-seed mptlab/ns-3: median {statistics.median(ratios):.3f}, within {a.tolerance:g} %: "
          f"{sum(abs(x - 1) <= tol for x in ratios)}, slower: {sum(x > 1 + tol for x in ratios)}, faster: {sum(x < 1 - tol for x in ratios)}")
    for seed, n, m in sorted(rows, key=lambda r: r[2] / r[1]):
        if abs(m / n - 1) > tol:
            print(f"  seed {seed}: ns-3 {n:.1f} ms, mptlab {m:.1f} ms")


if __name__ == "__main__":
    main()
