#!/usr/bin/env bash
# On the GPU machine: pk-bench's fp32 A-A lattices at 512^3 and 1024^3, ten processes, each
# timing the storage afresh (its own empty tuning cache), so that the cache's lines hold both
# candidates' trials and the records the choice and the rate each run took.
#   runs.sh PK-BENCH OUT [RUNS]
set -euo pipefail
bench=$1 out=$2 runs=${3:-10}
mkdir -p "$out"
for i in $(seq 1 "$runs"); do
  PK_TUNING_CACHE="$out/cache-$i" "$bench" --kernel lbm --space cuda --size full \
    --case '^aa-fp32-(512|1024)$' --out "$out/bench-$i" >"$out/bench-$i.log" 2>&1
  echo "run $i: $(grep -c . "$out/cache-$i/choices.tsv") choices"
done
