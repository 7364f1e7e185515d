#!/usr/bin/env bash
# scripts/kernel-agreement.sh BIN OUTPREFIX [which...]: how far the simulator agrees with the kernel
# runs committed in docs/data/ (docs/validation.md, "Where agreement with the kernel stands").
# Simulator only, no root, a few minutes on two cores. which: dec1 dec2 grid s000 s002 s003 s004 (default: all):
#   dec1, dec2  validate --decisions on the two committed kernel passes (bytes on the same path)
#   grid        validate on the grid's kernel runs (cells passing)
#   s000 ... s004  reproduce 000 / 002 / 003 / 004 --quick --runs 30 judged against every committed kernel file
#               (later files replace earlier ones cell by cell; the order is part of the measure)
# Prints one line per measure; the logs and outputs are OUTPREFIX-<which>{.log,/}. NICE (default 10).
set -u
BIN=$(readlink -f "$1"); P=$(readlink -m "$2"); shift 2
mkdir -p "$(dirname "$P")"
W=${*:-dec1 dec2 grid s000 s002 s003 s004}
NICE=${NICE:-10}
D=docs/data
S3="--kernel-from $D/seed003-kernel-2026-11-27 --kernel-from $D/seed003-kernel-ct-2026-11-27 --kernel-from $D/seed003-kernel-lossy-2026-11-27 \
 --kernel-from $D/seed003-kernel-s15-2026-11-27/kernel-10run.json --kernel-from $D/seed003-kernel-s15-2026-11-27/kernel-5run.json \
 --kernel-from $D/seed003-kernel-s16-2026-11-28/kernel-5run-udehu.json --kernel-from $D/seed003-kernel-s16-2026-11-28/kernel-until-decided.json \
 --kernel-from $D/seed003-kernel-s16-2026-11-28/kernel-3run-others.json --kernel-from $D/seed003-kernel-s16-2026-11-28/kernel-ntnuhin-repeat.json \
 --kernel-from $D/seed003-kernel-s17-2026-11-28/kernel-until-decided.json --kernel-from $D/seed003-kernel-s17-2026-11-28/kernel-uibhkc-10run.json \
 --kernel-from $D/seed003-kernel-s17-2026-11-28/kernel-ntnuhin-quiet.json --kernel-from $D/seed003-kernel-s17-2026-11-28/kernel-ntnuhin-idle-one-thread.json \
 --kernel-from $D/seed003-kernel-s18-2026-11-28/kernel-ntnuhin-fullmesh11-10run.json --kernel-from $D/seed003-kernel-s18-2026-11-28/kernel-ntnuhin-path1.json \
 --kernel-from $D/seed003-kernel-s19-2026-11-28/kernel-ntnuhin-fullmesh21-10run.json --kernel-from $D/seed003-kernel-s19-2026-11-28/kernel-uibhkc-fullmesh12-10run.json \
 --kernel-from $D/seed003-kernel-s20-2026-11-28/kernel-ntnuhin-fullmesh12-10run.json"
S0="--kernel-from $D/seed000-kernel-s13-2026-11-27/kernel-1run.json --kernel-from $D/seed000-kernel-s13-2026-11-27/kernel-5run.json \
 --kernel-from $D/seed000-kernel-s13-2026-11-27/kernel-gaming-t1-rerun.json --kernel-from $D/seed000-kernel-s14-2026-11-27/kernel-5run.json \
 --kernel-from $D/seed000-kernel-s14-2026-11-27/kernel-10run.json --kernel-from $D/seed000-kernel-s14-2026-11-27/kernel-10run-b.json \
 --kernel-from $D/seed000-kernel-s20-2026-11-28/kernel-background.json --kernel-from $D/seed000-kernel-s20-2026-11-28/kernel-nornet.json \
 --kernel-from $D/seed000-kernel-s20-2026-11-28/kernel-background-others.json --kernel-from $D/seed000-kernel-s21-2026-11-28/kernel-quiet.json --kernel-from $D/seed000-kernel-s23-2026-11-28/kernel-huffpost-p2-20run.json --kernel-from $D/seed000-kernel-s23-2026-11-28/kernel-web-40run.json \
 --kernel-from $D/seed000-kernel-s29-2026-11-29/kernel-until-decided.json ${S0EXTRA:-}"
for w in $W; do
  case $w in
    dec1) nice -n $NICE $BIN validate --decisions --dir scenarios/decisions --runs 5 --kernel-from $D/decisions-kernel-2026-11-27-s13 -o $P-dec1 > $P-dec1.log 2>&1 ;;
    dec2) nice -n $NICE $BIN validate --decisions --dir scenarios/decisions --runs 5 --kernel-from $D/decisions-kernel-2026-11-27-s13b -o $P-dec2 > $P-dec2.log 2>&1 ;;
    grid) nice -n $NICE $BIN validate --runs 30 --hz 250 --kernel-from $D/kernel-grid-2026-11-26 --kernel-from $D/kernel-grid-s24-2026-11-29 --kernel-from $D/kernel-grid-s24-2026-11-29/30run -o $P-grid > $P-grid.log 2>&1 ;;
    s000) nice -n $NICE $BIN reproduce 000 --quick --runs 30 --no-report --out $P-s000 $S0 > $P-s000.log 2>&1 ;;
    s002) nice -n $NICE $BIN reproduce 002 --quick --runs 30 --no-report --out $P-s002 --kernel-from $D/seed002-kernel-s28-2026-11-29 --kernel-from $D/seed002-kernel-s29-2026-11-29/kernel-verizon-wifi-8k-40run.json > $P-s002.log 2>&1 ;;
    s004) nice -n $NICE $BIN reproduce 004 --quick --runs 30 --no-report --out $P-s004 --kernel-from $D/seed004-kernel-s17-2026-11-28 --kernel-from $D/seed004-kernel-s24-2026-11-29 > $P-s004.log 2>&1 ;;
    s003) nice -n $NICE $BIN reproduce 003 --quick --runs 30 --no-report --out $P-s003 $S3 > $P-s003.log 2>&1 ;;
  esac
  echo "$w rc=$? $(grep -h 'of .* \(cells\|points\|agree\)\|fraction\|headline\|same path (first' $P-$w.log | tail -3 | tr '\n' ' ')"
done
