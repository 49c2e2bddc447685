#!/usr/bin/env bash
# The long fuzz campaign recorded in perf/results/h100x4/fuzz/: each target in turn for RUNS
# executions (default 10 million) from the committed seeds and what earlier campaigns found
# (build/fuzz-campaign/corpus/), then its coverage: a build with source-based coverage replays
# the corpus, and llvm-cov reports the lines and branches of the parsers it reached.
#   tests/fuzz/campaign.sh OUT [RUNS [TARGET...]]
# OUT gets TARGET.log (libFuzzer's output and final statistics), TARGET.coverage.txt and any
# crash, leak or timeout input (TARGET-crash-*, ...). Run it niced on a shared machine.
# PK_FUZZ_JOBS=N splits each target's executions over N processes sharing its corpus
# (libFuzzer's -jobs; their logs are TARGET.job-K.log); campaigns of different targets may
# share OUT and run at once. PK_FUZZ_ONLY=1 runs the executions with the fuzz build as it is,
# without building or measuring coverage: for a machine of many cores that has no clang (the
# GPU machines), after which `campaign.sh OUT 0` here, with that corpus in
# build/fuzz-campaign/corpus/, measures its coverage.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
runs=${2:-10000000}
shift $(($# < 2 ? $# : 2))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(flag_file config_file gbees_columns observations matern_data checkpoint)
jobs=${PK_FUZZ_JOBS:-1}
only=${PK_FUZZ_ONLY:-0}
cd "$root"
coverage=build/fuzz-coverage
if [ "$only" = 0 ]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
  cmake -S . -B $coverage -G Ninja -DPK_FUZZ=ON -DPK_FUZZ_COVERAGE=ON -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build $coverage
fi
sources=(src/core/column_file.cpp include/pk/core/details/config_file.hpp src/lbm/geometry.cpp
         src/gbees/parameters.cpp apps/gbees/options.cpp src/rfilter/observations.cpp src/besselk/locations.cpp
         include/pk/besselk/locations.hpp src/core/checkpoint.cpp)
for target in "${targets[@]}"; do
  corpus=build/fuzz-campaign/corpus/$target
  mkdir -p "$corpus"
  echo "campaign: $target, $runs executions ($(git rev-parse --short HEAD 2>/dev/null || echo "no git"))"
  # Inputs up to 1 kB: the parsers read line by line, and short inputs run faster; a
  # checkpoint's header alone is longer.
  max_len=1024
  [ "$target" != checkpoint ] || max_len=2048
  status=0
  fuzz=(build/fuzz/tests/fuzz/fuzz-"$target" -max_len=$max_len -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1 -dict="$root/tests/fuzz/numbers.dict" -artifact_prefix="$out/$target-" "$corpus"
        tests/fuzz/corpus/"$target")
  if [ "$jobs" -gt 1 ] && [ "$runs" -gt 0 ]; then
    # libFuzzer writes job K's output to fuzz-K.log in the working directory: one per target,
    # as campaigns of several targets may run at once.
    mkdir -p "$out/$target.jobs"
    (cd "$out/$target.jobs" && "$root/${fuzz[0]}" "${fuzz[@]:1:6}" -runs=$(((runs + jobs - 1) / jobs)) \
       -jobs="$jobs" -workers="$jobs" "$root/$corpus" "$root/tests/fuzz/corpus/$target") >"$out/$target.log" 2>&1 ||
      status=$?
    for k in $(seq 0 $((jobs - 1))); do mv "$out/$target.jobs/fuzz-$k.log" "$out/$target.job-$k.log"; done
    rmdir "$out/$target.jobs"
    grep -h "^stat::number_of_executed_units" "$out/$target".job-*.log |
      awk '{n += $2} END {print "stat::number_of_executed_units: " n " (all jobs)"}' >>"$out/$target.log"
  else
    "${fuzz[@]}" -runs="$runs" >"$out/$target.log" 2>&1 || status=$?
  fi
  echo "exit status $status" >>"$out/$target.log"
  [ "$only" = 0 ] || { grep -E "^(stat::number_of_executed_units|exit status)" "$out/$target.log"; continue; }
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
