#!/bin/bash
# device call: GBEES on the Xeon, main (5820fe6) against Z-ordered compactions (Z=z2, the
# default, or Z=z3, or several, Z="z3 z4": z2.diff, z3.diff, z4.diff; build/study/*-$z), in turn:
# pk-bench's GBEES host cases (3 rounds; with BASE=1 also build/study/bench-base, the issue's
# commit b4028e5), gbees_steps' per-kernel shares at 16, 4 and 1 threads;
# the GPU pair; then both at 16 threads with OMP_WAIT_POLICY=active (do the step's eight
# parallel regions wait on sleeping threads?).
set -u
z=${Z:-z2}
o=/tmp/c3; mkdir -p $o
trap 'tar czf $OUT/c3.tgz -C /tmp c3' EXIT
s=$(date +%s)
left() { echo $(( ${LIMIT:-230} - ($(date +%s) - s) )); }
tar xJf build/carry.tar.xz -C build  # the carry holds study/...
export LD_LIBRARY_PATH=$PWD/build/study/lib
lscpu > $o/lscpu.txt; nvidia-smi -L > $o/gpu.txt
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off
b=build/study
for round in 1 2 3; do
  for d in ${BASE:+base} head $z; do
    [ $(left) -gt 75 ] || break 2
    mkdir -p $o/bench-$d-r$round
    timeout 40 $b/bench-$d/pk-bench --kernel gbees --space openmp --size full --out $o/bench-$d-r$round > $o/bench-$d-r$round.txt 2>&1
    echo "bench $d r$round rc $? at $(( $(date +%s) - s )) s" >> $o/progress.txt
  done
done
for round in 1 2 3; do
  for d in cuda-head cuda-${z// / cuda-}; do
    timeout 12 $b/$d/gbees_steps lorenz63 lorenz96 > $o/$d-r$round.txt 2>&1
  done
done
echo "gpu at $(( $(date +%s) - s )) s" >> $o/progress.txt
for round in 1 2; do
  for t in 16 4 1; do
    for d in v4-head v4-${z// / v4-}; do
      [ $(left) -gt 40 ] || break 3
      OMP_NUM_THREADS=$t timeout 10 $b/$d/gbees_steps lorenz63 > $o/$d-l63-t$t-r$round.txt 2>&1
    done
  done
  echo "steps r$round at $(( $(date +%s) - s )) s" >> $o/progress.txt
done
for round in 1 2; do
  for d in v4-head v4-${z// / v4-}; do
    [ $(left) -gt 10 ] || break 2
    OMP_WAIT_POLICY=active OMP_NUM_THREADS=16 timeout 10 $b/$d/gbees_steps lorenz63 > $o/$d-l63-t16-active-r$round.txt 2>&1
  done
done
echo "active at $(( $(date +%s) - s )) s" >> $o/progress.txt
