#!/usr/bin/env bash
# Builds of build.sh run in turn, ROUNDS rounds (a, b, ..., a, b, ...), each round the cases
# named (GBEES's lorenz63 and lorenz96[:T] to gbees_steps, the others to lbm_steps) and, where
# the LBM is timed, the field filter's three passes; one line per figure into OUT/rounds.txt:
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
lbm=() gbees=()
for case in "$@"; do
  case $case in
    lorenz*) gbees+=("$case") ;;
    *) lbm+=("$case") ;;
  esac
done
mkdir -p "$out"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} PK_TUNING_CACHE=off
for round in $(seq "$rounds"); do
  for dir in "${dirs[@]}"; do
    {
      if [ ${#lbm[@]} -gt 0 ]; then
        "$dir/lbm_steps" "${lbm[@]}"
        "$dir/field_filter"
      fi
      if [ ${#gbees[@]} -gt 0 ]; then "$dir/gbees_steps" "${gbees[@]}"; fi
    } 2>/dev/null | sed "s|^|$round $(basename "$dir") |" | tee -a "$out/rounds.txt"
  done
done
