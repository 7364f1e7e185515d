#!/bin/bash
# Regenerate crates/cli/hot-symbols.txt, the order in which LLD places the
# functions of the simulator's per-packet path (scripts/hot-symbols.py,
# crates/cli/build.rs, docs/performance.md "Engine pass 4"). Run it after
# changes to the per-packet code; it takes about two minutes (a 20 s htsim
# benchmark under callgrind). Only the binary's layout depends on the file.
# `scripts/hot-symbols.sh --check [BIN]` only counts the names BIN has and the ones placed at
# the start of `.text` (exit 1 if any is missing or not placed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ "${1:-}" = "--check" ]; then
  # How many of the order's names the built binary has, and how many the
  # linker placed at the start of `.text`: a stale order (the per-packet code changed
  # and its symbol hashes with it) costs speed, never results; regenerate
  # when names are missing. ThinLTO's `.llvm.N` suffixes differ per build
  # directory; the order names functions without them (crates/cli/build.rs
  # matches them by pattern).
  python3 scripts/hot-symbols.py --check "${2:-target/release/mptlab}" crates/cli/hot-symbols.txt
  exit
fi
cargo build --release -p mptlab-cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the profiled binary, kept: relinking replaces target/release/mptlab
bin=$work/mptlab
cp target/release/mptlab "$bin"
valgrind --tool=callgrind --dump-instr=yes --dump-line=no \
  --callgrind-out-file="$work/cg.out" "$bin" bench --only mptcp --duration 20 --repeat 1 \
  >"$work/bench.txt" 2>"$work/valgrind.txt"
pkts=$(awk '$1 == "mptcp-lia-3g-wifi" {print $4}' "$work/bench.txt")
[ -n "$pkts" ] || { echo "hot-symbols.sh: no benchmark line in $work/bench.txt" >&2; cat "$work/bench.txt" >&2; exit 1; }
# where the ordered functions begin: `.text` (crates/cli/build.rs's linker script)
text_start() { readelf -SW "$1" | sed 's/\[ */[/' | awk '$2 == ".text" {print $4}'; }
python3 scripts/hot-symbols.py "$work/cg.out" "$bin" "$pkts" crates/cli/hot-symbols.txt
# relink with the new order
cargo build --release -p mptlab-cli
# the same code linked again may start `.text` elsewhere (the build script
# reran): then order once more for where it starts now
if [ "$(text_start target/release/mptlab)" != "$(text_start "$bin")" ]; then
  cp target/release/mptlab "$work/relinked"
  python3 scripts/hot-symbols.py "$work/cg.out" "$bin" "$pkts" crates/cli/hot-symbols.txt \
    --base-from "$work/relinked"
  cargo build --release -p mptlab-cli
fi
