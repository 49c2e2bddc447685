#!/bin/bash
# device call: GBEES on the Xeon, main (1c85fbb) against the third Z-order form (z3.diff: only
# the codes out of order sorted, then merged), in turn: pk-bench's GBEES host cases, gbees_steps'
# per-kernel shares at 16 threads; the GPU pair.
set -u
o=/tmp/z3; mkdir -p $o
trap 'tar czf $OUT/z3.tgz -C /tmp z3' EXIT
s=$(date +%s)
left() { echo $(( ${LIMIT:-150} - ($(date +%s) - s) )); }
tar xJf build/carry.tar.xz -C build  # the carry holds study/...
export LD_LIBRARY_PATH=$PWD/build/study/lib
lscpu > $o/lscpu.txt; nvidia-smi -L > $o/gpu.txt
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off
b=build/study
for round in 1 2; do
  for d in v4-head v4-z3; do
    OMP_NUM_THREADS=16 timeout 10 $b/$d/gbees_steps lorenz63 > $o/$d-l63-t16-r$round.txt 2>&1
  done
  for d in cuda-head cuda-z3; do
    timeout 12 $b/$d/gbees_steps lorenz63 lorenz96 > $o/$d-r$round.txt 2>&1
  done
  echo "steps and gpu r$round at $(( $(date +%s) - s )) s" >> $o/progress.txt
done
for round in 1 2 3; do
  for d in head z3; do
    [ $(left) -gt 30 ] || break 2
    mkdir -p $o/bench-$d-r$round
    timeout 28 $b/bench-$d/pk-bench --kernel gbees --space openmp --size full --out $o/bench-$d-r$round > $o/bench-$d-r$round.txt 2>&1
    echo "bench $d r$round rc $? at $(( $(date +%s) - s )) s" >> $o/progress.txt
  done
done
