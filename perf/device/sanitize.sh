#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): compute-sanitizer's memcheck, racecheck, initcheck and synccheck over
# the GPU test suite (pk-tests, pk-tests-besselk: the unit tests, then the validation suites
# apart, as they are long), and over the MPI suite on 2 ranks, one GPU each, when the build has
# MPI and the machine 2 GPUs. With 4 GPUs each tool has a GPU of its own (the MPI suite: a pair
# of GPUs, two tools at a time); otherwise the tools run in turn. PK_SANITIZE_PARTS picks
# "suite", "mpi" or both (the default). Every run has a time limit (PK_SANITIZE_SECONDS,
# default 420 s, for each tool's runs together); OUT (default perf/results/sanitizers/logs)
# gets a log per run, and each run's verdict is printed as one line:
#   sanitize: TOOL BINARY 'FILTER': clean|errors reported|tests failed|out of time (exit RC) after N s
# Exits 1 if any run reports an error, fails a test or runs out of time.
#   perf/device/sanitize.sh [OUT]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PK_DEVICE_BUILD:-build/device}
out=${1:-perf/results/sanitizers/logs}
limit=${PK_SANITIZE_SECONDS:-420}
mkdir -p "$out"
[ ! -f "$bin/mpi-env.sh" ] || source "$bin/mpi-env.sh"
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PK_BESSELK_REFERENCE=$PWD/tests/besselk/reference.txt OMP_PROC_BIND=false OMP_NUM_THREADS=4
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "sanitize: no compute-sanitizer on PATH or in /usr/local/cuda/bin" >&2; exit 1; }
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)

run() {  # deadline tool launcher... -- test-binary gtest-filter
  local deadline=$1 tool=$2 launcher=() start=$SECONDS rc verdict
  shift 2
  while [ "$1" != -- ]; do launcher+=("$1"); shift; done
  local binary=$2 filter=$3 left=$((deadline - SECONDS))
  local log=$out/$tool-$binary-$(echo "$filter" | tr -c 'A-Za-z0-9\n' '_').log
  if [ $left -le 0 ]; then
    echo "sanitize: $tool $binary '$filter': out of time (not started)"
    return 1
  fi
  timeout $left "${launcher[@]}" "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
    "$bin/$binary" --gtest_brief=1 --gtest_filter="$filter" >"$log" 2>&1
  rc=$?
  case $rc in 0) verdict=clean ;; 99) verdict="errors reported" ;; 124) verdict="out of time" ;; *) verdict="tests failed" ;; esac
  echo "sanitize: $tool $binary '$filter': $verdict (exit $rc) after $((SECONDS - start)) s;" \
    "$(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$log" | sort | uniq -c | tr -s ' \n' ' ')"
  [ $rc -eq 0 ]
}

# racecheck looks at shared memory, which only CUDA kernels use: the tests on CUDA and those
# that compare CUDA with OpenMP (*AcrossSpaces).
filters() {  # tool
  if [ "$1" = racecheck ]; then
    echo "*/cuda.*:*AcrossSpaces*:-*Validation*" "*Validation*/cuda.*:*Validation*AcrossSpaces*"
  else
    echo "-*Validation*" "*Validation*"
  fi
}

suite() {  # tool gpu
  local tool=$1 deadline=$((SECONDS + limit)) status=0 filter
  export CUDA_VISIBLE_DEVICES=$2
  for filter in $(filters "$tool"); do  # the unit tests of both first, then the validation suites
    for binary in pk-tests pk-tests-besselk; do
      run $deadline "$tool" -- $binary "$filter" || status=1
    done
  done
  return $status
}

# The MPI suite on 2 ranks, one GPU each of the pair (pk-tests-mpi picks its GPU by node-local
# rank among the visible ones).
mpi_suite() {  # tool gpu-pair
  export CUDA_VISIBLE_DEVICES=$2
  run $((SECONDS + limit)) "$1" mpirun --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_PROC_BIND \
    -x OMP_NUM_THREADS -x CUDA_VISIBLE_DEVICES -np 2 -- pk-tests-mpi "*"
}

tools=(memcheck racecheck initcheck synccheck)
parts=${PK_SANITIZE_PARTS:-suite mpi}
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [[ " $parts " == *" suite "* ]]; then
  if [ "$gpus" -ge 4 ]; then
    pids=()
    for i in 0 1 2 3; do
      suite "${tools[$i]}" "$i" &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  else
    for tool in "${tools[@]}"; do suite "$tool" 0 || status=1; done
  fi
fi
if [[ " $parts " == *" mpi "* ]] && [ -x "$bin/pk-tests-mpi" ] && [ "$gpus" -ge 2 ]; then
  if [ "$gpus" -ge 4 ]; then
    for pair in "0 1" "2 3"; do
      mpi_suite "${tools[${pair% *}]}" 0,1 &
      first=$!
      mpi_suite "${tools[${pair#* }]}" 2,3 || status=1
      wait $first || status=1
    done
  else
    for tool in "${tools[@]}"; do mpi_suite "$tool" 0,1 || status=1; done
  fi
fi
exit $status
