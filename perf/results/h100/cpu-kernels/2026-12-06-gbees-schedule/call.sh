#!/bin/bash
# device call: GBEES L63 scheduling variants in turn (16 threads), then the GPU check
set -u
o=/tmp/g; mkdir -p $o
trap 'tar czf $OUT/g.tgz -C /tmp g' EXIT
lscpu > $o/lscpu.txt; nvidia-smi -L > $o/gpu.txt
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off OMP_NUM_THREADS=16
s=build/study
for round in 1 2 3; do
  for d in v4-head v4-dyn v4-dyn3 v4-merge; do
    /usr/bin/time -f "%e s" timeout 15 $s/$d/gbees_steps lorenz63 > $o/$d-l63-r$round.txt 2>&1
  done
done
for round in 1 2; do
  for d in cuda-head cuda-merge; do
    /usr/bin/time -f "%e s" timeout 25 $s/$d/gbees_steps lorenz63 > $o/$d-l63-r$round.txt 2>&1
  done
done
