#!/usr/bin/env bash
# Golden outputs for byte-identity checks (docs/performance.md): scripts/golden.sh BIN OUTDIR
# Speed and refactoring work must leave them byte-identical: run it with the binary before
# and after the change and compare the two OUTDIRs with diff -r (empty). Model changes move
# cells on purpose: say which and why.
# Runs a fixed set of scenarios and variants (2 runs each, 1 per sweep point) with BIN.
# Compare two OUTDIRs with diff -r.
set -u
BIN=$(readlink -f "$1"); OUT=$(readlink -m "$2")
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
run() { # name scenario [--set ...]
  local name=$1 scen=$2; shift 2
  if grep -q '^\[sweep\]' "$scen"; then
    nice -n 19 "$BIN" sweep "$scen" --out "$OUT/$name" --runs 1 -j 2 -q "$@" >"$OUT/$name.log" 2>&1
    # sweep.json names the build's model sources (a digest that changes with
    # any source edit, docs/sweeps.md): dropped here so that a byte-identical
    # speed change compares equal
    sed -i '/^  "model": /d' "$OUT/$name/sweep.json" 2>/dev/null
  else
    nice -n 19 "$BIN" run "$scen" --out "$OUT/$name" --runs 2 -j 2 -q --force "$@" >"$OUT/$name.log" 2>&1
  fi
  echo "rc=$?" >>"$OUT/$name.log"
}
for f in bulk file-1mb seed000-video-sctp video-wlan-3g web-amazon; do run "$f" "scenarios/$f.toml"; done
for s in minrtt roundrobin redundant blest ecf upstream; do
  run "video-$s" scenarios/video-wlan-3g.toml --set transport.protocol=mptcp --set transport.mptcp.scheduler=$s
  run "file-$s" scenarios/file-1mb.toml --set transport.protocol=mptcp --set transport.mptcp.scheduler=$s
done
for c in lia olia balia wvegas newreno cubic; do
  run "bulk-$c" scenarios/bulk.toml --set transport.protocol=mptcp --set transport.cc=$c --set scenario.duration_s=20
done
run bulk-tcp scenarios/bulk.toml --set transport.protocol=tcp --set scenario.duration_s=20
run video-cmt scenarios/seed000-video-sctp.toml --set transport.protocol=cmt-sctp
for f in scenarios/validate/*.toml; do run "validate-$(basename "$f" .toml)" "$f"; done
for f in seed001/failure-10seg seed001/tail1-3seg seed001/cloud-wlan-lte seed002/att seed003/hukru \
         seed004/handover seed004/subflows seed000/video-wlan3g-tcp seed000/amazon-3g3g-tcp \
         seed000/gaming-t1-wlan3g-sctp; do
  run "$(echo "$f" | tr / -)" "scenarios/$f.toml" --set scenario.duration_s=20
done
run seed004-heavy scenarios/seed004/heavy.toml --set scenario.duration_s=310
run scale-mptcp scenarios/scale/mptcp.toml --set population.clients=50
run scale-tcp scenarios/scale/tcp.toml --set population.clients=200
grep -L 'rc=0' "$OUT"/*.log | sed 's/^/golden: FAILED: /'
echo "golden: done $(ls -d "$OUT"/*/ | wc -l) dirs"
