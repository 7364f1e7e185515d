#!/usr/bin/env python3
"""Condense `mptlab validate`'s validation.csv into the Markdown table of
docs/validation.md: one row per scenario, its counted cells (median
completion time or median message delay, share of path 2) with both
medians, their 95 % confidence intervals, runs, ratio / difference and
verdict, then the "N of M cells pass" line.

    python3 scripts/validation-table.py OUT/validation.csv > table.md

Standard library only.
"""

import csv
import sys


def fmt(x, share):
    return f"{float(x):.3f}" if share else f"{float(x):.1f}"


def side(r, s, share):
    return (
        f"{fmt(r[s + '_median'], share)} "
        f"[{fmt(r[s + '_ci_lo'], share)}, {fmt(r[s + '_ci_hi'], share)}]"
    )


def main(path):
    rows = list(csv.DictReader(open(path, newline="")))
    by = {}
    for r in rows:
        by.setdefault(r["scenario"], {})[r["metric"]] = r
    print(
        "| scenario | metric | simulated [95 % CI] | kernel [95 % CI] | runs sim/krn "
        "| kernel/sim or diff | verdict | sim on the kernel's runs |"
    )
    print("|---|---|---|---|---|---|---|---|")
    n = ok = 0
    for name, m in by.items():
        for metric in ("completion_time_ms", "delay_ms_median", "fg_share_path2"):
            r = m.get(metric)
            if r is None or r["verdict"] == "info":
                continue
            share = metric.startswith("fg_share")
            cmp = (
                f"{float(r['diff']):+.3f}"
                if r["diff"]
                else f"x{float(r['ratio']):.3f}"
            )
            unf = ""
            if r["sim_unfinished"] != "0" or r["kernel_unfinished"] != "0":
                unf = (
                    f" (unfinished {r['sim_unfinished']}/{r['sim_items']} sim, "
                    f"{r['kernel_unfinished']}/{r['kernel_items']} krn)"
                )
            short = {
                "completion_time_ms": "completion ms",
                "delay_ms_median": "msg delay ms",
                "fg_share_path2": "share path 2",
            }[metric]
            v = r["verdict"]
            p = r.get("sim_median_kernel_runs", "")
            paired = ""
            if p and r["sim_runs"] != r["kernel_runs"]:
                k = float(r["kernel_median"])
                pc = f"{k - float(p):+.3f}" if share else (f"x{k / float(p):.3f}" if float(p) else "-")
                paired = f"{fmt(p, share)} ({pc})"
            n += 1
            ok += v == "PASS"
            print(
                f"| {name} | {short} | {side(r, 'sim', share)} | "
                f"{side(r, 'kernel', share)} | {r['sim_runs']}/{r['kernel_runs']} | "
                f"{cmp} | {'**FAIL**' if v == 'FAIL' else v}{unf} | {paired} |"
            )
    print(f"\n{ok} of {n} cells pass")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: validation-table.py OUT/validation.csv")
    main(sys.argv[1])
