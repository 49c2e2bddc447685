#!/usr/bin/env bash
# Two rounds on the Xeon: the stream-count copy, then the LBM steps it mirrors.
out=${OUT:-/tmp}/sc
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off
lscpu >"$out/lscpu.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
cases="ab-fp32-128:cached ab-fp32-128:streaming ab-fp16-128:cached ab-fp64-128:cached aa-fp32-128 aa-fp16-128 aa-fp64-128 ab-fp32-256:streaming ab-fp16-256:streaming aa-fp32-256"
for r in ${ROUNDS:-1 2}; do
  timeout 150 build/sc/stream_count 11 >"$out/streams-r$r.txt" 2>&1
  timeout 150 build/sc/lbm_steps --updates=1e8 $cases >"$out/lbm-r$r.txt" 2>&1
  echo "round $r done $(date +%T)" >>"$out/progress.txt"
done
