#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): compute-sanitizer's memcheck, racecheck, initcheck and synccheck over
# the GPU test suite (pk-tests, pk-tests-besselk: the unit tests, then the validation suites
# apart, as they are long), and over the MPI suite on 2 ranks, one GPU each, when the build has
# MPI and the machine 2 GPUs.
#   perf/device/sanitize.sh [OUT]
# PK_SANITIZE_PARTS    "suite", "mpi" or both (default)
# PK_SANITIZE_TOOLS    default "memcheck racecheck initcheck synccheck"
# PK_SANITIZE_GPUS     the GPUs to use (default: all). The suite spreads the tools over them,
#                      a tool with several GPUs running its tests in as many gtest shards at
#                      once; the MPI suite takes them in pairs, a test per run
#                      (PK_SANITIZE_JOBS runs at a time, default 8), those that
#                      PK_SANITIZE_MPI_FILTER names (a gtest filter, default */cuda.*).
# PK_SANITIZE_SECONDS  the time limit of each tool's runs together (default 420)
# OUT (default perf/results/h200/sanitizers/logs) gets a log per run; each run's verdict is one line
#   sanitize: TOOL BINARY 'FILTER' [shard K/N]: clean|errors reported|tests failed|out of time (exit RC) after N s
# Exits 1 if any run reports an error, fails a test or runs out of time.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PK_DEVICE_BUILD:-build/device}
out=${1:-perf/results/h200/sanitizers/logs}
limit=${PK_SANITIZE_SECONDS:-420}
read -ra tools <<<"${PK_SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}"
read -ra gpus <<<"${PK_SANITIZE_GPUS:-$(nvidia-smi --query-gpu=index --format=csv,noheader | tr '\n' ' ')}"
parts=${PK_SANITIZE_PARTS:-suite mpi}
mkdir -p "$out"
[ ! -f "$bin/mpi-env.sh" ] || source "$bin/mpi-env.sh"
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PK_BESSELK_REFERENCE=$PWD/tests/besselk/reference.txt OMP_PROC_BIND=false OMP_NUM_THREADS=4
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "sanitize: no compute-sanitizer on PATH or in /usr/local/cuda/bin" >&2; exit 1; }

# The test that makes allocations fail on purpose (a refusal saying what fits) runs apart,
# with failed CUDA calls not reported: they are what it tests.
provoked=Memory/*.AFailedAllocation*

run() {  # deadline "tool [options]" launcher... -- test-binary gtest-filter
  local deadline=$1 tool=$2 launcher=() start=$SECONDS rc verdict
  shift 2
  while [ "$1" != -- ]; do launcher+=("$1"); shift; done
  local binary=$2 filter=$3 left=$((deadline - SECONDS)) shard=""
  [ -z "${GTEST_TOTAL_SHARDS:-}" ] || shard=" shard $GTEST_SHARD_INDEX/$GTEST_TOTAL_SHARDS"
  local log=$out/${tool%% *}-$binary-$(echo "$filter$shard" | tr -c 'A-Za-z0-9\n' '_').log
  if [ $left -le 0 ]; then
    echo "sanitize: $tool $binary '$filter'$shard: out of time (not started)"
    return 1
  fi
  # shellcheck disable=SC2086 # the tool's options are words
  timeout $left "${launcher[@]}" "$sanitizer" --tool $tool --error-exitcode 99 --print-limit 20 \
    "$bin/$binary" --gtest_brief=1 --gtest_filter="$filter" >"$log" 2>&1
  rc=$?
  case $rc in 0) verdict=clean ;; 99) verdict="errors reported" ;; 124) verdict="out of time" ;; *) verdict="tests failed" ;; esac
  echo "sanitize: $tool $binary '$filter'$shard: $verdict (exit $rc) after $((SECONDS - start)) s;" \
    "$(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED' "$log" | sort | uniq -c | tr -s ' \n' ' ')"
  [ $rc -eq 0 ]
}

# racecheck looks at shared memory, which only CUDA kernels use: the tests on CUDA and those
# that compare CUDA with OpenMP (*AcrossSpaces).
filters() {  # tool
  if [ "$1" = racecheck ]; then
    echo "*/cuda.*:*AcrossSpaces*:-*Validation*:$provoked" "*Validation*/cuda.*:*Validation*AcrossSpaces*"
  else
    echo "-*Validation*:$provoked" "*Validation*"
  fi
}

suite() {  # tool gpu [shard shards]
  local tool=$1 deadline=$((SECONDS + limit)) status=0 filter binary
  export CUDA_VISIBLE_DEVICES=$2
  [ $# -lt 4 ] || export GTEST_SHARD_INDEX=$3 GTEST_TOTAL_SHARDS=$4
  for filter in $(filters "$tool"); do  # the unit tests of both first, then the validation suites
    for binary in pk-tests pk-tests-besselk; do
      run $deadline "$tool" -- $binary "$filter" || status=1
    done
  done
  if [ "${3:-0}" = 0 ] && [ "$tool" != racecheck ]; then
    unset GTEST_SHARD_INDEX GTEST_TOTAL_SHARDS
    run $deadline "$tool --report-api-errors no" -- pk-tests "$provoked" || status=1
  fi
  return $status
}

# The MPI suite's tests on CUDA ranks, 2 of them, one GPU each of a pair (pk-tests-mpi picks
# its GPU by node-local rank among the visible ones), one test per run: the tool instruments
# each kernel at its first launch, which takes far longer than the tests, so every tool's runs
# share the pairs, PK_SANITIZE_JOBS (default 8) at a time, within one time limit.
mpi_suite() {
  local deadline=$((SECONDS + limit)) status=0 pairs=$((${#gpus[@]} / 2)) n=0 tool test tests
  tests=$(mpi_tests)
  for tool in "${tools[@]}"; do
    for test in $tests; do
      while [ "$(jobs -rp | wc -l)" -ge "${PK_SANITIZE_JOBS:-8}" ]; do wait -n || status=1; done
      local p=$((n++ % pairs))
      (export CUDA_VISIBLE_DEVICES=${gpus[2 * p]},${gpus[2 * p + 1]}
       run $deadline "$tool" mpirun --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_PROC_BIND \
         -x OMP_NUM_THREADS -x CUDA_VISIBLE_DEVICES -np 2 -- pk-tests-mpi "$test") &
    done
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || status=1; done
  return $status
}
mpi_tests() {  # the full names of the MPI suite's tests on CUDA (or of PK_SANITIZE_MPI_FILTER)
  "$bin/pk-tests-mpi" --gtest_list_tests --gtest_filter="${PK_SANITIZE_MPI_FILTER:-*/cuda.*}" 2>/dev/null |
    awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}'
}

status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
pids=()
if [[ " $parts " == *" suite "* ]]; then
  if [ ${#gpus[@]} -ge ${#tools[@]} ]; then  # a tool per GPU, or per group of GPUs in shards
    shards=$((${#gpus[@]} / ${#tools[@]}))
    for t in "${!tools[@]}"; do
      for ((k = 0; k < shards; k++)); do
        if [ $shards -eq 1 ]; then
          suite "${tools[$t]}" "${gpus[$t]}" &
        else
          suite "${tools[$t]}" "${gpus[$((t * shards + k))]}" $k $shards &
        fi
        pids+=($!)
      done
    done
  else
    for tool in "${tools[@]}"; do suite "$tool" "${gpus[0]}" || status=1; done
  fi
fi
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
if [[ " $parts " == *" mpi "* ]] && [ -x "$bin/pk-tests-mpi" ] && [ ${#gpus[@]} -ge 2 ]; then
  mpi_suite || status=1
fi
exit $status
