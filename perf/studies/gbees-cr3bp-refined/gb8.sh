#!/usr/bin/env bash
# CR3BP refinement on one H200, cell widths r*h and p* = 1e-7 r^6 (the same density threshold):
# r = 0.8, 0.7, 0.6 to the end against 100,000 Monte Carlo samples (1-D marginals), then
# r = 0.5 with checkpoints until the call's time is nearly spent (SIGTERM: a checkpoint in
# build/ck, continued by gb9.sh on the same warm machine).
B=$(cd "$(dirname "$0")/.." && pwd)
cd $B/gb
export OMP_PROC_BIND=false
R=$OUT/gb8; mkdir -p $R/results $B/ck
A08='--h 5.983310120660637e-05,5.983310120660637e-05,5.983310120660637e-05,0.0002905635902861885,0.0002905635902861885,0.0002905635902861885 --threshold 2.6214400000000007e-08'
A07='--h 5.2353963555780566e-05,5.2353963555780566e-05,5.2353963555780566e-05,0.0002542431415004149,0.0002542431415004149,0.0002542431415004149 --threshold 1.1764899999999996e-08'
A06='--h 4.4874825904954776e-05,4.4874825904954776e-05,4.4874825904954776e-05,0.00021792269271464135,0.00021792269271464135,0.00021792269271464135 --threshold 4.6655999999999984e-09'
A05='--h 3.739568825412898e-05,3.739568825412898e-05,3.739568825412898e-05,0.0001816022439288678,0.0001816022439288678,0.0001816022439288678 --threshold 1.5625e-09'
A045='--h 3.365611942871608e-05,3.365611942871608e-05,3.365611942871608e-05,0.000163442019535981,0.000163442019535981,0.000163442019535981 --threshold 8.303765625e-10'
body() {
  date -u +%FT%TZ; nvidia-smi -L
  run() { echo "== $* at $SECONDS s"; local t0=$SECONDS; "$@"; echo "status $? after $((SECONDS - t0)) s"; }
  C="--config cr3bp.ini --space cuda --progress 30"
  for r in 08 07 06; do
    a=A$r; run ./pk-gbees $C ${!a} --mc-samples 100000 --mc-kde false --out $R/r$r --results $R/results/r$r
  done
  nvidia-smi --query-gpu=memory.used,memory.total --format=csv
  run timeout -s TERM $((525 - SECONDS)) ./pk-gbees $C $A05 --out $R/r0.5 --results $R/results/r0.5 \
      --checkpoint $B/ck/cr3bp-r0.5.ck
  ls -la $B/ck; df -h $B/ck | tail -1
}
(export -f body; export R B A08 A07 A06 A05; timeout -s KILL 585 bash -c body) > $R/log.txt 2>&1
tar czf $OUT/gb8.tar.gz -C $OUT gb8
