#!/usr/bin/env bash
# The long fuzz campaign recorded in perf/results/fuzz/: each target in turn for RUNS
# executions (default 10 million) from the committed seeds and what earlier campaigns found
# (build/fuzz-campaign/corpus/), then its coverage: a build with source-based coverage replays
# the corpus, and llvm-cov reports the lines and branches of the parsers it reached.
#   tests/fuzz/campaign.sh OUT [RUNS [TARGET...]]
# OUT gets TARGET.log (libFuzzer's output and final statistics), TARGET.coverage.txt and any
# crash, leak or timeout input (TARGET-crash-*, ...). Run it niced on a shared machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
runs=${2:-10000000}
shift $(($# < 2 ? $# : 2))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(flag_file config_file gbees_columns observations matern_data)
cd "$root"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
coverage=build/fuzz-coverage
cmake -S . -B $coverage -G Ninja -DPK_FUZZ=ON -DPK_FUZZ_COVERAGE=ON -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build $coverage
sources=(src/core/column_file.cpp include/pk/core/details/config_file.hpp src/lbm/geometry.cpp
         src/gbees/parameters.cpp apps/gbees/options.cpp src/rfilter/observations.cpp src/besselk/locations.cpp
         include/pk/besselk/locations.hpp)
for target in "${targets[@]}"; do
  corpus=build/fuzz-campaign/corpus/$target
  mkdir -p "$corpus"
  echo "campaign: $target, $runs executions ($(git rev-parse --short HEAD))"
  # Inputs up to 1 kB: the parsers read line by line, and short inputs run faster.
  status=0
  build/fuzz/tests/fuzz/fuzz-"$target" -runs="$runs" -max_len=1024 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$target-" "$corpus" tests/fuzz/corpus/"$target" \
    >"$out/$target.log" 2>&1 || status=$?
  echo "exit status $status" >>"$out/$target.log"
  LLVM_PROFILE_FILE="$out/$target.profraw" $coverage/tests/fuzz/fuzz-"$target" -runs=0 "$corpus" \
    tests/fuzz/corpus/"$target" >/dev/null 2>&1
  llvm-profdata-14 merge -sparse "$out/$target.profraw" -o "$out/$target.profdata"
  # Per file, then per function (the parser the target calls is the one that counts).
  for how in "" --show-functions; do
    llvm-cov-14 report $how -Xdemangler c++filt $coverage/tests/fuzz/fuzz-"$target" \
      -instr-profile="$out/$target.profdata" "${sources[@]}"
  done >"$out/$target.coverage.txt"
  rm -f "$out/$target.profraw" "$out/$target.profdata"
  grep -E "^(stat::number_of_executed_units|exit status)" "$out/$target.log"
done
