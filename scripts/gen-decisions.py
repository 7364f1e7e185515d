#!/usr/bin/env python3
"""Copy the 9-cell decision set to scenarios/decisions/.

Issue 15, `mptlab validate --decisions`: the nine MPTCP cells whose byte
placements are compared with the kernel's (docs/validation.md, "Decision
level"). Until session 13 the set was an uncommitted directory of copies
(/work/golden/m8-cells, lost with its machine). It is kept here as byte-for-byte
copies of its sources, the grid's with a `grid-` prefix, so that

    mptlab validate --decisions --dir scenarios/decisions --runs 5 -o OUT

names one fixed set. The copies live outside scenarios/validate/ because
`validate --dir` also reads the immediate subdirectories of its directory:
inside it they would be run twice by a plain `validate`. The scenario names
(`[scenario] name`, which name the captures and table rows) are the sources'.
`cargo test -p mptlab-cli decision_set` fails when a copy differs from its
source.

Run:  python3 scripts/gen-decisions.py   (rewrites the copies; commit them)
"""
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "scenarios" / "validate"
OUT = ROOT / "scenarios" / "decisions"

# (source relative to scenarios/validate, name of the copy)
CELLS = [(f"{c}-mptcp.toml", f"{c}-mptcp.toml")
         for c in ["file-256k", "file-1024k", "file-4096k", "video-wlan-3g"]] + [
    (f"grid/{c}-mptcp.toml", f"grid-{c}-mptcp.toml")
    for c in ["file-1m-wifi-3g-loss0", "file-1m-wifi-lte-loss0", "file-1m-wifi-lte-loss1",
              "file-8m-wifi-3g-loss1", "gaming-wifi-3g"]]


def main():
    OUT.mkdir(exist_ok=True)
    keep = {dst for _, dst in CELLS}
    for p in OUT.glob("*.toml"):
        if p.name not in keep:
            p.unlink()
    for src, dst in CELLS:
        shutil.copyfile(SRC / src, OUT / dst)
    print(f"{len(CELLS)} scenarios in {OUT}")


if __name__ == "__main__":
    main()
