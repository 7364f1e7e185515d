#!/usr/bin/env bash
B=${B:-/work/wt/nvw21/target/release/mptlab}
S=/work/wt/nvw21/scenarios/seed000/nornet-video-wlanwlan.toml
O=${O:-/tmp/nvw21/spread}
mkdir -p $O
for p in 0 250 500 750 1000 1250 1500 1750 2000 2250 2500 2750 3000 3250 3500 3750; do
  nice -n 19 $B run $S --set transport.path=2 --set transport.hz=250 --set transport.hz_phase_us=$p --set scenario.duration_s=20 --runs 20 -j 1 -q --no-parquet --force -o $O/p$p >/dev/null 2>&1
done
