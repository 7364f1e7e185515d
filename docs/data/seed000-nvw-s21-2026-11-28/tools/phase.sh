#!/usr/bin/env bash
# per-run: simulate run k with the kernel run's jiffy phase; print k, phase, median delay
B=${B:-/work/wt/nvw21/target/release/mptlab}
S=/work/wt/nvw21/scenarios/seed000/nornet-video-wlanwlan.toml
R=/tmp/lead21/k000/kernel/seed000/nornet-video-wlanwlan/ffc36121a7cb/runs/ffc36121a7cb
O=${O:-/tmp/nvw21/ph}
mkdir -p $O
for k in $(seq 0 19); do
  o=$(python3 -c "import json;print(json.load(open('$R/run-$k.json'))['summary']['emu.clock_origin_ns'])")
  p=$(( (o % 4000000) / 1000 ))
  nice -n 19 $B run $S --set transport.path=2 --set transport.hz=250 --set transport.hz_phase_us=$p --set scenario.duration_s=20 --runs $((k+1)) -j 1 -q --no-parquet --force -o $O/r$k >/dev/null 2>&1
  python3 - $O/r$k $k $p <<'PY'
import csv,sys,statistics as st
d=[float(r['delay_ms']) for r in csv.DictReader(open(sys.argv[1]+'/messages.csv')) if r['run']==sys.argv[2] and r['completed']=='true']
print(sys.argv[2], sys.argv[3], round(st.median(d),1))
PY
done
