#!/usr/bin/env bash
# 15734e5 (base) and cedff46 (scan) lbm_steps in turn on the build machine, 2 threads
cd /work/main
export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
lscpu > build/zen5-cedff46/lscpu.txt
for r in 1 2 3 4; do
  order="base scan"; [ $((r % 2)) = 0 ] && order="scan base"
  for v in $order; do
    build/study-host/$v/lbm_steps --updates=4e7 aa-fp16-64 ab-fp16-64 aa-fp16-128 ab-fp16-128 aa-fp16-256 ab-fp16-256 \
      aa-fp32-64 ab-fp32-64 aa-fp32-128 ab-fp32-128 aa-fp32-256 ab-fp32-256 aa-fp64-128 ab-fp64-128 2>/dev/null | sed "s/^/$r $v /"
  done
done
