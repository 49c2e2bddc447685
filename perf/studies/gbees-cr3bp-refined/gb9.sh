#!/usr/bin/env bash
# CR3BP at half the cell width (p* 1e-7/64) to its end against 100,000 Monte Carlo samples,
# snapshots now written as taken; then 0.4 h (its initial box does not fit: refused), and the
# paper's Lorenz '96 case as a check of the rate.
B=$(cd "$(dirname "$0")/.." && pwd)
cd $B/gb
export OMP_PROC_BIND=false
R=$OUT/gb9; mkdir -p $R/results
A05='--h 3.739568825412898e-05,3.739568825412898e-05,3.739568825412898e-05,0.0001816022439288678,0.0001816022439288678,0.0001816022439288678 --threshold 1.5625e-09'
A04='--h 2.9916550603303185e-05,2.9916550603303185e-05,2.9916550603303185e-05,0.00014528179514309425,0.00014528179514309425,0.00014528179514309425 --threshold 4.096000000000001e-10'
body() {
  date -u +%FT%TZ; nvidia-smi -L
  run() { echo "== $* at $SECONDS s"; local t0=$SECONDS; "$@"; echo "status $? after $((SECONDS - t0)) s"; }
  C="--config cr3bp.ini --space cuda --progress 30"
  run ./pk-gbees $C $A05 --mc-samples 100000 --mc-kde false --out $R/r0.5 --results $R/results/r0.5
  run ./pk-gbees $C $A04 --out $R/r0.4
  run ./pk-gbees --config lorenz96.ini --space cuda --progress 30 --out $R/l96 --results $R/results/l96
}
(export -f body; export R B A05 A04; timeout -s KILL 560 bash -c body) > $R/log.txt 2>&1
tar czf $OUT/gb9.tar.gz -C $OUT gb9
