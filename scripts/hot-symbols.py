#!/usr/bin/env python3
"""Order the hot functions of the `mptlab` binary for the linker.

usage: hot-symbols.py PROFILE BINARY DATA_PACKETS OUT [--iters N] [--seed S] [--base-from BIN]

PROFILE is a `valgrind --tool=callgrind --dump-instr=yes` profile of BINARY
running the htsim benchmark (scripts/hot-symbols.sh makes both), DATA_PACKETS
the data packets that run delivered. OUT receives the mangled names of the
functions with an instruction executed at least once per 50 data packets, in
the order LLD should place them at the start of `.text`
(crates/cli/build.rs turns them into a linker script).

Why: the per-packet path executes about 530 cache lines of code (34 KiB)
that an L1 instruction cache of 32 KiB, 64 sets of 8 lines, must hold. Where
the functions land decides how many sets receive more than 8 hot lines and
thrash; in the default layout 34 sets did. The order is searched so that the
hot lines spread evenly over the sets (docs/performance.md, "Engine pass 4").
Only the layout changes: the code is the same, so are the results.
"""

import bisect
import collections
import random
import re
import subprocess
import sys

SETS, WAYS, LINE, ALIGN = 64, 8, 64, 16
# instructions executed at least this often per data packet count as hot
HOT = 0.02
# (threshold per data packet, weight): lines executed on every packet weigh
# more than lines executed now and then
TIERS = ((1.0, 3.0), (0.5, 2.0), (0.1, 1.0), (0.02, 0.3))
# independent searches, the best kept
RESTARTS = 4


def instruction_counts(path):
    """Self cost per instruction address from a callgrind file (call
    lines' inclusive costs skipped)."""
    counts = collections.Counter()
    last = 0
    after_calls = False
    pos = re.compile(r"^(0x[0-9a-f]+|\+\d+|-\d+|\*)\s+(\d+)")
    with open(path) as f:
        for line in f:
            if line.startswith("calls="):
                after_calls = True
                continue
            m = pos.match(line)
            if not m:
                continue
            a = m.group(1)
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a == "*":
                addr = last
            else:
                addr = last + int(a)
            last = addr
            if after_calls:
                after_calls = False
                continue
            counts[addr] += int(m.group(2))
    return counts


def text_symbols(binary):
    out = subprocess.run(["nm", "-nS", binary], capture_output=True, text=True, check=True)
    syms = []
    for line in out.stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tT":
            syms.append((int(p[0], 16), int(p[1], 16), p[3]))
    return syms


def text_start(binary):
    """Where `.text` starts: crates/cli/build.rs's linker script puts the
    ordered functions at its start."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        p = line.replace("[ ", "[").split()
        if len(p) > 3 and p[1] == ".text":
            return int(p[3], 16)
    sys.exit(f"{binary}: no .text section")


def portable(name):
    """The name without ThinLTO's `.llvm.N` suffix: N hashes the codegen
    unit's bitcode, build directory included, so it differs from one clone
    to the next; crates/cli/build.rs matches the suffix with a pattern."""
    return name.split(".llvm.")[0]


def with_aliases(order, syms):
    """The order's names, each followed by the other names at its address.

    LLVM merges identical functions (rustc's MergeFunctions) and keeps one
    body under several names; the body's section is named after one of them,
    not necessarily the one the profile saw, and crates/cli/build.rs places
    sections by name. Listing every alias lets one of them match; the rest
    match nothing and are ignored."""
    at = collections.defaultdict(list)
    for a, _, n in syms:
        at[a].append(n)
    addr = {n: a for a, _, n in syms}
    names, seen = [], set()
    for n in order:
        for m in [n] + sorted(x for x in at[addr[n]] if x != n):
            if portable(m) not in seen:
                seen.add(portable(m))
                names.append(portable(m))
    return names


def check(binary, order_file):
    """How many of the order's names BINARY has, and how many of them the
    linker placed in the ordered block at the start of `.text`; exit 1
    unless all are (a stale order costs speed, never results: regenerate)."""
    names = [n.strip() for n in open(order_file) if n.strip()]
    syms = text_symbols(binary)
    # a name can have several bodies (local copies in two codegen units)
    where = collections.defaultdict(list)
    for a, size, n in syms:
        where[portable(n)].append((a, size))
    found = [n for n in names if n in where]
    lo = text_start(binary)
    # the ordered block ends at the first function in `.text` that is not
    # one of the listed ones (nor an alias of one)
    listed = {a for n in found for a, _ in where[n]}
    hi = min((a for a, size, _ in syms if a >= lo and size and a not in listed), default=lo)
    placed = [n for n in found if any(lo <= a < hi for a, _ in where[n])]
    print(f"hot-symbols: {len(found)} of {len(names)} names of {order_file} are in {binary}, "
          f"{len(placed)} placed at the start of .text")
    sys.exit(0 if len(placed) == len(names) else 1)


def hot_functions(counts, syms, packets):
    starts = [s[0] for s in syms]
    funcs = {}
    for addr, c in counts.items():
        rate = c / packets
        if rate < HOT:
            continue
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0:
            continue
        start, size, name = syms[i]
        if not start <= addr < start + max(size, 1):
            continue
        f = funcs.setdefault(name, {"size": size, "hot": {}})
        f["hot"][addr - start] = max(f["hot"].get(addr - start, 0), rate)
    return funcs


def placed(order, funcs, base):
    at, c = {}, base
    for n in order:
        c = (c + ALIGN - 1) // ALIGN * ALIGN
        at[n] = c
        c += funcs[n]["size"]
    return at


def hot_lines(at, funcs):
    """Each hot cache line and the rate of its hottest instruction."""
    lines = {}
    for n, start in at.items():
        for off, rate in funcs[n]["hot"].items():
            ln = (start + off) // LINE
            if rate > lines.get(ln, 0):
                lines[ln] = rate
    return lines


def excess(lines, thr):
    """Hot lines beyond the ways of their set."""
    per_set = collections.Counter(ln % SETS for ln, r in lines.items() if r >= thr)
    return sum(max(0, v - WAYS) for v in per_set.values())


def cost(order, funcs, base):
    lines = hot_lines(placed(order, funcs, base), funcs)
    return sum(w * excess(lines, thr) for thr, w in TIERS)


def report(label, at, funcs):
    lines = hot_lines(at, funcs)
    parts = [f"{thr}/pkt: {sum(1 for r in lines.values() if r >= thr)} lines, "
             f"{excess(lines, thr)} beyond 8 ways" for thr, _ in TIERS]
    print(f"{label}: " + "; ".join(parts), file=sys.stderr)


def main():
    args = sys.argv[1:]
    iters, seed = 8000, 1
    if "--iters" in args:
        i = args.index("--iters")
        iters = int(args[i + 1])
        del args[i:i + 2]
    if args[:1] == ["--check"] and len(args) == 3:
        check(args[1], args[2])
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    base_from = None
    if "--base-from" in args:
        i = args.index("--base-from")
        base_from = args[i + 1]
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    profile, binary, packets, out = args[0], args[1], float(args[2]), args[3]
    syms = text_symbols(binary)
    # where `.text` starts in the binary the order is for (the same code
    # linked again can start elsewhere: `--base-from` that binary)
    base = text_start(base_from or binary)
    funcs = hot_functions(instruction_counts(profile), syms, packets)
    if not funcs:
        sys.exit(f"{profile}: no instruction executed {HOT} times per data packet")
    report("as linked", {n: s for s, _, n in syms if n in funcs}, funcs)
    # start hottest first, then local search: swaps and moves that do not
    # raise the cost (deterministic random walks from `--seed` on; the best
    # of `RESTARTS` walks)
    start = sorted(funcs, key=lambda n: -sum(funcs[n]["hot"].values()))
    best, order = None, start
    for walk in range(RESTARTS):
        rnd = random.Random(seed + walk)
        o = list(start)
        c0 = cost(o, funcs, base)
        for _ in range(iters):
            cand = list(o)
            i, j = rnd.randrange(len(cand)), rnd.randrange(len(cand))
            if rnd.random() < 0.5:
                cand[i], cand[j] = cand[j], cand[i]
            else:
                cand.insert(j, cand.pop(i))
            c = cost(cand, funcs, base)
            if c <= c0:
                c0, o = c, cand
        if best is None or c0 < best:
            best, order = c0, o
    report("ordered", placed(order, funcs, base), funcs)
    with open(out, "w") as f:
        f.write("".join(n + "\n" for n in with_aliases(order, syms)))
    print(f"{out}: {len(order)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()
