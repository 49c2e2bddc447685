#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): compute-sanitizer over the unit tests (the validation suites, long
# at full size, are left out): memcheck over all of them, racecheck over those that run on
# CUDA. Each run has its own time limit, so the whole stays within about 9 minutes on an
# H100. Exits 1 if any run reports an error, fails a test or runs out of time.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PK_BESSELK_REFERENCE=$PWD/tests/besselk/reference.txt
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "sanitize: no compute-sanitizer on PATH or in /usr/local/cuda/bin" >&2; exit 1; }
status=0

check() {  # limit-seconds tool test-binary gtest-filter
  local start=$SECONDS rc verdict
  timeout "$1" "$sanitizer" --tool "$2" --error-exitcode 99 --print-limit 20 \
    "$bin/$3" --gtest_brief=1 --gtest_filter="$4"
  rc=$?
  case $rc in 0) verdict=clean ;; 99) verdict="errors reported" ;; 124) verdict="out of time" ;; *) verdict="tests failed" ;; esac
  echo "sanitize: $2 $3 '$4': $verdict (exit $rc) after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
}

# Typed tests are named Suite/cuda.Test; the *AcrossSpaces tests compare CUDA with OpenMP.
check 200 memcheck pk-tests '-*Validation*'
check 60 memcheck pk-tests-besselk '-*Validation*'
check 200 racecheck pk-tests '*/cuda.*:*AcrossSpaces*:-*Validation*'
check 60 racecheck pk-tests-besselk '*/cuda.*:-*Validation*'
exit $status
