#!/bin/bash
# Profile-guided build of the mptlab binary, for speed measurements (docs/performance.md,
# "Profile-guided build"). The code is the same as `cargo build --release`'s and so are the
# results (the script checks it); only the compiler's layout and inlining choices use a
# profile of typical runs. Output: target/pgo/release/mptlab (its `bench` prints
# "# build: pgo" on stderr).
#
#   scripts/build-pgo.sh          # about 2x a release build's time, plus ~1 min of training
#
# Steps: (1) an instrumented build (-Cprofile-generate) in target/pgo-gen; (2) training on
# the built-in benchmarks and `reproduce all --quick` (every seed's scenarios: MPTCP, TCP,
# SCTP, web, gaming with background traffic); (3) llvm-profdata merge with the LLVM of the
# active toolchain (rustup's llvm-tools component, added if missing: a system
# llvm-profdata of another LLVM version cannot read rustc's profiles); (4) the final build
# (-Cprofile-use) in target/pgo; (5) `reproduce all --quick --no-report` with the release
# binary (when present) and the PGO binary, `diff -r` of the runs: must be empty.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/pgo-work
rm -rf "$work" && mkdir -p "$work"

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  echo "build-pgo: adding rustup component llvm-tools (for llvm-profdata)" >&2
  rustup component add llvm-tools >&2
fi
[ -x "$profdata" ] || { echo "build-pgo: $profdata not found after adding llvm-tools" >&2; exit 1; }

echo "build-pgo: 1/5 instrumented build" >&2
CARGO_TARGET_DIR=$root/target/pgo-gen RUSTFLAGS="-Cprofile-generate=$work/raw" \
  cargo build --release -p mptlab-cli
gen=$root/target/pgo-gen/release/mptlab

echo "build-pgo: 2/5 training runs" >&2
"$gen" bench --duration 60 --repeat 1 >/dev/null 2>&1
"$gen" reproduce all --quick --no-report -q --out "$work/train" >/dev/null 2>>"$work/log"

echo "build-pgo: 3/5 merging the profile" >&2
"$profdata" merge -o "$work/mptlab.profdata" "$work/raw"

echo "build-pgo: 4/5 profile-guided build" >&2
CARGO_TARGET_DIR=$root/target/pgo MPTLAB_BUILD_FLAVOR=pgo \
  RUSTFLAGS="-Cprofile-use=$work/mptlab.profdata" cargo build --release -p mptlab-cli
pgo=$root/target/pgo/release/mptlab

echo "build-pgo: 5/5 checking results against the release binary" >&2
rel=$root/target/release/mptlab
if [ -x "$rel" ]; then
  "$rel" reproduce all --quick --no-report -q --out "$work/check-release" >/dev/null 2>>"$work/log"
  "$pgo" reproduce all --quick --no-report -q --out "$work/check-pgo" >/dev/null 2>>"$work/log"
  # reproduce.json records wall times, which differ between any two runs
  if ! diff -r -x reproduce.json "$work/check-release" "$work/check-pgo" >"$work/check.diff"; then
    echo "build-pgo: results differ from $rel (see $work/check.diff)" >&2
    exit 1
  fi
  echo "build-pgo: results identical to $rel" >&2
else
  echo "build-pgo: no $rel to compare with (run 'cargo build --release' for the check)" >&2
fi
echo "$pgo"
