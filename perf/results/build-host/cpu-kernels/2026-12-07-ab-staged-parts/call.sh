#!/usr/bin/env bash
# On the Xeon, ROUNDS (default 1 2) rounds: the stream-count copy, then lbm_steps of 732b400
# (old), 497730a (new: the A-B parts), 8a60c7a (whole: fp16 parts loaded whole) and 71051ed
# (pf: the walls words asked for) in turn.
# Carry build/sc (x86-64-v4 builds).
out=${OUT:-/tmp}/sc
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads PK_TUNING_CACHE=off
lscpu >"$out/lscpu.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
cases="ab-fp16-128 ab-fp16-128:cached ab-fp32-128:cached ab-fp64-128:cached aa-fp32-128 aa-fp16-128 aa-fp64-128 ab-fp16-256 ab-fp32-256:streaming aa-fp32-256"
for r in ${ROUNDS:-1 2}; do
  timeout 150 build/sc/stream_count 11 >"$out/streams-r$r.txt" 2>&1
  order="lbm_steps lbm_steps-new lbm_steps-whole lbm_steps-pf"
  [ $((r % 2)) -eq 0 ] && order="lbm_steps-pf lbm_steps-whole lbm_steps-new lbm_steps"
  for b in $order; do timeout 150 "build/sc/$b" --updates=1e8 $cases >"$out/$b-r$r.txt" 2>&1; done
  echo "round $r done $(date +%T)" >>"$out/progress.txt"
done
