#!/bin/bash
# device call: LBM A-A fp32 and fp16, main (the pairs' fmas written out, 512-bit vectors, A-B
# runs a register at a time) against cedff46 (before them), builds in turn, 16 threads: does
# A-A fp32 at 128^3 lose (0.90x, 0.84-1.03 a round, in 7a16c9c-ab-fp16-parts)?
set -u
o=/tmp/lbm; mkdir -p $o
trap 'tar czf $OUT/lbm.tgz -C /tmp lbm' EXIT
s=$(date +%s)
left() { echo $(( ${LIMIT:-150} - ($(date +%s) - s) )); }
[ -d build/study ] || tar xJf build/carry.tar.xz -C build
lscpu > $o/lscpu.txt
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off OMP_NUM_THREADS=16
b=build/study
for round in 1 2 3 4; do
  for d in v4-cedff46 v4-head; do
    [ $(left) -gt 25 ] || break 2
    { timeout 20 $b/$d/lbm_steps --updates=4e7 aa-fp32-128 aa-fp16-128 aa-fp32-256; } 2>&1 | sed "s|^|$round $d |" >> $o/lbm-rounds.txt
  done
  echo "round $round at $(( $(date +%s) - s )) s" >> $o/progress.txt
done
