#!/usr/bin/env python3
"""The simulator's side of ktimeline.py: per run, the connection timer's
arm intervals after the first second, the DATA_ACK stalls and the expiries,
from the stderr of a binary built with sim-trace.patch, run with
KTRACE15=1 and --jobs 1 (runs one after another; a run starts where the
time goes back).

    simtimeline.py STDERR.log
"""
import re
import sys

from ktimeline import BINS_TXT, hist


def runs(path):
    out, last = [], -1
    for line in open(path):
        if not line.startswith("KT "):
            continue
        t = int(re.search(r"t=(\d+)", line).group(1)) / 1e9
        if not out or t < last - 1:
            out.append({"arm": [], "adv": [], "exp": []})
        last = t
        if line.startswith("KT arm"):
            ival = int(re.search(r"ival=(\d+)", line).group(1)) / 1e6
            out[-1]["arm"].append((t, ival))
            if "progress=true" in line:
                out[-1]["adv"].append(t)
        elif line.startswith("KT exp"):
            out[-1]["exp"].append((t, "on=Some" in line))
    return out


def main():
    for i, r in enumerate(runs(sys.argv[1])):
        late = [v for t, v in r["arm"] if t >= 1.0]
        gaps = [b - a for a, b in zip(r["adv"], r["adv"][1:]) if a >= 1.0]
        print(f"run {i}: arms {len(r['arm'])}, expiries {len(r['exp'])} "
              f"(re-sent on an idle subflow: {sum(on for _, on in r['exp'])})")
        print(f"  arm intervals after 1 s, ms {BINS_TXT}: {hist(late)}")
        print(f"  DATA_ACK advances {len(r['adv'])}; stalls after 1 s > 0.2 s: {sum(g > 0.2 for g in gaps)}, "
              f"> 0.4 s: {sum(g > 0.4 for g in gaps)}, longest {max(gaps, default=0):.2f} s")


if __name__ == "__main__":
    main()
