#!/bin/bash
# The scale table of docs/performance.md: one process per point (so the
# peak RSS is that point's), `mptlab bench --scale` on scenarios/scale/*.toml.
# Small points run longer so that each times at least ~50,000 data packets.
# usage: scripts/bench-scale.sh [mptcp|tcp] [BIN]
set -e
proto=${1:-mptcp}
bin=${2:-target/release/mptlab}
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
