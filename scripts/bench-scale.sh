#!/bin/bash
# The scale table of docs/performance.md: one process per point (so the
# peak RSS is that point's), `mptlab bench --scale` on scenarios/scale/*.toml.
#
# usage: scripts/bench-scale.sh [mptcp|tcp] [BIN] [D [N...]]
#
# Without D, the documented points: small points run longer so that each
# times at least ~50,000 data packets (their connections then spend most of
# the run in steady state, the large points in their start-up).
#
# With D (session 25), like for like: every point runs D simulated seconds
# with the connections' starts spread over D/6 (`population.start_spread_s`,
# the scenarios' 0.5 s at D = 3), so that every point has its connections
# in the same phase; N defaults to 1 10 100 1000 10000 (and 100000 for
# tcp). A point of N connections times ceil(3000 / (N * D)) runs (seeds)
# and sums them (`bench --scale --runs`): the on-CPU time is read from
# schedstat, which moves at the kernel's ticks, so one connection's 3 s
# (a fraction of a millisecond) is timed only in a sum of many. ROUNDS=k
# repeats the whole list k times, points alternating.
set -e
proto=${1:-mptcp}
bin=${2:-target/release/mptlab}
like=${3:-}
if [ -z "$like" ]; then
  if [ "$proto" = mptcp ]; then
    points="1:600 10:60 100:6 1000:3 10000:3"
  else
    points="1:600 10:60 100:6 1000:2 10000:2 100000:2"
  fi
  for p in $points; do
    n=${p%%:*}; d=${p##*:}
    echo "# $proto clients=$n duration_s=$d load: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$bin" bench --scale "scenarios/scale/$proto.toml" \
      --set population.clients="$n" --set scenario.duration_s="$d"
  done
  exit 0
fi
shift 3 || true
ns=${*:-1 10 100 1000 10000}
if [ -z "$*" ] && [ "$proto" = tcp ]; then ns="$ns 100000"; fi
spread=$(awk -v d="$like" 'BEGIN { printf "%.6g", d / 6 }')
for r in $(seq "${ROUNDS:-1}"); do
  for n in $ns; do
    runs=$(awk -v n="$n" -v d="$like" 'BEGIN { k = 3000 / (n * d); r = int(k); if (r < k) r++; print (r < 1 ? 1 : r) }')
    opt=(); [ "$runs" -gt 1 ] && opt=(--runs "$runs")
    echo "# $proto round=$r clients=$n duration_s=$like start_spread_s=$spread runs=$runs load: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$bin" bench --scale "scenarios/scale/$proto.toml" \
      --set population.clients="$n" --set scenario.duration_s="$like" \
      --set population.start_spread_s="$spread" "${opt[@]}"
  done
done
