#!/usr/bin/env bash
# Two builds of build.sh run in turn, ROUNDS rounds (a, b, a, b, ...), each round the LBM cases
# named and the field filter's three passes; one line per figure into OUT/rounds.txt:
#   perf/studies/cpu-kernels/rounds.sh DIR_A DIR_B ROUNDS OUT CASE...
set -euo pipefail
a=$1 b=$2 rounds=$3 out=$4
shift 4
mkdir -p "$out"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} PK_TUNING_CACHE=off
for round in $(seq "$rounds"); do
  for dir in "$a" "$b"; do
    { "$dir/lbm_steps" "$@"; "$dir/field_filter"; } 2>/dev/null | sed "s|^|$round $(basename "$dir") |" | tee -a "$out/rounds.txt"
  done
done
