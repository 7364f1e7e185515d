#!/usr/bin/env bash
cd /work/wt/nvw21
B=/tmp/nvw21/mptlab-main
echo "start $(date -u +%T) $(uptime)"
$B emulate scenarios/seed000/nornet-video-wlanwlan.toml --set transport.path=2 --set scenario.duration_s=20 --runs 2 -o /tmp/nvw21/kout6 --force > /tmp/nvw21/k6-emu.log 2>&1 &
EP=$!
while kill -0 $EP 2>/dev/null; do
  for n in /run/netns/mptl-$EP-*-c; do
    [ -e "$n" ] || continue
    echo "T $(date +%s.%N) ${n##*/}"
    ip netns exec ${n##*/} ss -tinH 2>/dev/null
  done
done > /tmp/nvw21/ss6.txt
wait $EP
echo "end $(date -u +%T) rc=$? $(uptime)"
