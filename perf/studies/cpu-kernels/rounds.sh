#!/usr/bin/env bash
# Builds of build.sh run in turn, ROUNDS rounds (a, b, ..., a, b, ...), each round the LBM
# cases named and the field filter's three passes; one line per figure into OUT/rounds.txt:
#   perf/studies/cpu-kernels/rounds.sh ROUNDS OUT DIR... -- CASE...
set -euo pipefail
rounds=$1 out=$2
shift 2
dirs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  dirs+=("$1")
  shift
done
if [ $# -eq 0 ] || [ ${#dirs[@]} -eq 0 ]; then
  echo "rounds.sh: usage: rounds.sh ROUNDS OUT DIR... -- CASE..." >&2
  exit 2
fi
shift
mkdir -p "$out"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} PK_TUNING_CACHE=off
for round in $(seq "$rounds"); do
  for dir in "${dirs[@]}"; do
    { "$dir/lbm_steps" "$@"; "$dir/field_filter"; } 2>/dev/null | sed "s|^|$round $(basename "$dir") |" | tee -a "$out/rounds.txt"
  done
done
