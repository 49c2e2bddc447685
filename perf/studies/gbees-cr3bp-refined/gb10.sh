#!/usr/bin/env bash
# CR3BP with --initial-cells above-threshold: at 0.6 h against 100,000 Monte Carlo samples
# (beside the whole-box run of gb8), then 0.4 h (whose whole box does not fit) until the
# call's time is spent (SIGTERM: the run so far written).
B=$(cd "$(dirname "$0")/.." && pwd)
cd $B/gb
export OMP_PROC_BIND=false
R=$OUT/gb10; mkdir -p $R/results
A06='--h 4.4874825904954776e-05,4.4874825904954776e-05,4.4874825904954776e-05,0.00021792269271464135,0.00021792269271464135,0.00021792269271464135 --threshold 4.6655999999999984e-09'
A04='--h 2.9916550603303185e-05,2.9916550603303185e-05,2.9916550603303185e-05,0.00014528179514309425,0.00014528179514309425,0.00014528179514309425 --threshold 4.096000000000001e-10'
body() {
  date -u +%FT%TZ; nvidia-smi -L
  run() { echo "== $* at $SECONDS s"; local t0=$SECONDS; "$@"; echo "status $? after $((SECONDS - t0)) s"; }
  C="--config cr3bp.ini --space cuda --progress 20 --initial-cells above-threshold"
  run ./pk-gbees $C $A06 --mc-samples 100000 --mc-kde false --out $R/r0.6 --results $R/results/r0.6
  run timeout -s TERM $((345 - SECONDS)) ./pk-gbees $C $A04 --out $R/r0.4
}
(export -f body; export R B A06 A04; timeout -s KILL 395 bash -c body) > $R/log.txt 2>&1
tar czf $OUT/gb10.tar.gz -C $OUT gb10
