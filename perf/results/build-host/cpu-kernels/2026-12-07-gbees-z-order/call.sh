#!/bin/bash
# device call: GBEES on the Xeon, main (5820fe6) against Z-ordered compaction, in turn:
# pk-bench's GBEES host cases (3 rounds), gbees_steps' per-kernel shares at 16 and 1 threads;
# the GPU pair.
set -u
o=/tmp/c3; mkdir -p $o
trap 'tar czf $OUT/c3.tgz -C /tmp c3' EXIT
s=$(date +%s)
left() { echo $(( 190 - ($(date +%s) - s) )); }
tar xJf build/carry.tar.xz
export LD_LIBRARY_PATH=$PWD/build/study/lib
lscpu > $o/lscpu.txt; nvidia-smi -L > $o/gpu.txt
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off
b=build/study
for round in 1 2 3; do
  for d in head z; do
    [ $(left) -gt 75 ] || break 2
    mkdir -p $o/bench-$d-r$round
    timeout 40 $b/bench-$d/pk-bench --kernel gbees --space openmp --size full --out $o/bench-$d-r$round > $o/bench-$d-r$round.txt 2>&1
    echo "bench $d r$round rc $? at $(( $(date +%s) - s )) s" >> $o/progress.txt
  done
done
for d in cuda-head cuda-z; do
  timeout 12 $b/$d/gbees_steps lorenz63 lorenz96 > $o/$d-r1.txt 2>&1
done
echo "gpu at $(( $(date +%s) - s )) s" >> $o/progress.txt
for round in 1 2; do
  for t in 16 4 1; do
    for d in v4-head v4-z; do
      [ $(left) -gt 15 ] || break 3
      OMP_NUM_THREADS=$t timeout 10 $b/$d/gbees_steps lorenz63 > $o/$d-l63-t$t-r$round.txt 2>&1
    done
  done
  echo "steps r$round at $(( $(date +%s) - s )) s" >> $o/progress.txt
done
