#!/usr/bin/env python3
"""Per-cell verdicts of several re-judged `kernel.json` files side by side.

    python3 verdicts.py OUT.csv LABEL=DIR/kernel.json [LABEL=...]

Each file is the `kernel.json` that `mptlab reproduce 000 ... --kernel-from ...`
wrote (README.md gives the commands). For every cell the kernel ran, per file:
verdict, kernel runs, kernel and simulated medians of the same runs, their
ratio, the kernel median over the simulator's 30-run median (`sim_all`), and
the per-run ratios.
"""
import csv
import json
import sys


def cells(path):
    out = {}
    for c in json.load(open(path))["cells"]:
        if c["status"] != "ran":
            continue
        m = c["metrics"][0]
        runs = " ".join(f"{r['ratio']:.2f}" for r in m["runs"] if r.get("ratio"))
        out[(c["experiment"], c["point"])] = [
            c["verdict"],
            m["kernel"]["n"],
            round(m["kernel"]["median"], 1),
            round(m["sim"]["median"], 1),
            round(m["ratio"], 3) if m.get("ratio") else "",
            round(m["kernel"]["median"] / m["sim_all"]["median"], 3),
            runs,
        ]
    return out


def main():
    out, specs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    tables = [(label, cells(path)) for label, path in specs]
    keys = sorted(set().union(*(t.keys() for _, t in tables)))
    cols = ["verdict", "kernel_runs", "kernel_ms", "sim_ms", "ratio", "ratio_sim_all", "per_run"]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "point"] + [f"{l}_{c}" for l, _ in tables for c in cols])
        for k in keys:
            row = list(k)
            for _, t in tables:
                row += t.get(k, [""] * len(cols))
            w.writerow(row)


if __name__ == "__main__":
    main()
