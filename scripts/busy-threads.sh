#!/bin/bash
# How many of a command's threads are runnable over time: run the command,
# read the state of each of its threads (/proc/PID/task/*/stat, field 3) every
# 20 ms, and print the share of samples with 0, 1, 2 and 3+ threads in state R
# and the mean per second. A command that keeps two cores busy shows about 2
# in every second (used for docs/performance.md, "Session 12").
#
#   scripts/busy-threads.sh SAMPLES_FILE mptlab reproduce 000 --quick -j 2 --no-report -o DIR
#
# `nice -n 19 mptlab ...` is fine (nice execs the program); `/usr/bin/time` is not:
# it forks, and the threads of the process started are the ones sampled.
set -u
out=$1
shift
"$@" &
pid=$!
: >"$out"
while kill -0 "$pid" 2>/dev/null; do
  n=0
  for t in /proc/"$pid"/task/*/stat; do
    s=$(awk '{print $3}' "$t" 2>/dev/null)
    [ "$s" = R ] && n=$((n + 1))
  done
  echo "$(date +%s.%N) $n" >>"$out"
  sleep 0.02
done
wait "$pid"
rc=$?
awk '{c[$2 >= 3 ? 3 : $2]++; t++} END {for (k = 0; k <= 3; k++) printf "%d runnable: %.1f%%  ", k, 100 * c[k] / t; print " samples", t}' "$out"
awk 'NR == 1 {t0 = $1} {b = int($1 - t0); s[b] += $2; c[b]++} END {printf "mean runnable per second:"; for (k = 0; k in c; k++) printf " %.2f", s[k] / c[k]; print ""}' "$out"
exit $rc
