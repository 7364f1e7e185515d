#!/usr/bin/env bash
# Fuzz smoke run (CI): every cargo-fuzz target of fuzz/ for FUZZ_SECONDS
# (default 20) seconds, from its seed corpus fuzz/corpus/<target>/. New
# inputs go to a scratch directory, so the repository's corpus stays as
# committed. A crash fails (exit 1; the input is in fuzz/artifacts/<target>/).
# Needs the nightly toolchain and cargo-fuzz (installed here when missing);
# without them it prints SKIP and exits 0 rather than fail CI.
#
#   bash scripts/fuzz-smoke.sh                  # all targets, 20 s each
#   FUZZ_SECONDS=300 bash scripts/fuzz-smoke.sh scenario sweep_file
#
# Sanitizer: none. The parsers are safe Rust (no `unsafe`), so AddressSanitizer
# would find nothing more and halves the executions; panics, overflow checks
# and debug assertions are on (cargo-fuzz builds with them).
set -uo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-20}"
skip() {
    echo "fuzz-smoke: SKIP: $*"
    exit 0
}
command -v cargo >/dev/null 2>&1 || skip "cargo not found"
cargo +nightly --version >/dev/null 2>&1 \
    || skip "no nightly Rust toolchain (cargo-fuzz needs it: rustup toolchain install nightly)"
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz-smoke: cargo-fuzz missing, installing it (cargo install cargo-fuzz --locked)"
    log="$(mktemp)"
    if ! cargo install cargo-fuzz --locked >"$log" 2>&1; then
        tail -n 5 "$log"
        skip "cargo install cargo-fuzz --locked failed (log above)"
    fi
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
echo "fuzz-smoke: building ${#targets[@]} target(s)"
if ! cargo +nightly fuzz build -s none >"$scratch/build.log" 2>&1; then
    tail -n 30 "$scratch/build.log"
    echo "fuzz-smoke: FAILED: the fuzz targets do not build"
    exit 1
fi
failed=()
printf '%-16s %12s %8s  %s\n' target executions exec/s result
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t"
    log="$scratch/$t.log"
    # the TOML readers get the scenario keys and names as a dictionary
    dict=()
    case "$t" in
        scenario | sweep_file | web_page) dict=("-dict=$PWD/fuzz/dicts/scenario.dict") ;;
    esac
    # -seed: the same mutations on every run; -timeout: an input slower
    # than that is a finding too
    cargo +nightly fuzz run -s none "$t" "$scratch/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$secs" -seed=1 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 "${dict[@]}" >"$log" 2>&1
    rc=$?
    execs="$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)"
    rate="$(awk '/stat::average_exec_per_sec/ {print $2}' "$log" | tail -1)"
    if [ $rc -eq 0 ]; then
        result=ok
    else
        result="CRASH (exit $rc): see fuzz/artifacts/$t/"
        failed+=("$t")
        grep -E -m 3 "panicked|ERROR: libFuzzer|SUMMARY" "$log" | sed 's/^/    /'
    fi
    printf '%-16s %12s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz-smoke: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz-smoke: no crash in ${#targets[@]} target(s), ${secs} s each"
