#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): device facts, the whole test suite on every space (unless
# PK_SKIP_TESTS=1), then pk-bench at full size with results in $1, one kernel at a time
# under its own time limit (PK_BENCH_LIMIT seconds, default 240), so that one slow or
# failing kernel costs only its own figures. Further arguments name the kernels to run
# (default: every kernel pk-bench lists). PK_BENCH_SPACE picks the spaces (default all).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results/h200/bench}
shift $(($# > 0 ? 1 : 0))
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
"$bin/pk-info" || status=1
if [ "${PK_SKIP_TESTS:-0}" != 1 ]; then
  "$bin/pk-tests" --gtest_brief=1 || status=1
  PK_BESSELK_REFERENCE=$PWD/tests/besselk/reference.txt "$bin/pk-tests-besselk" --gtest_brief=1 || status=1
fi
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <("$bin/pk-bench" --list | awk '{print $1}')
for kernel in "${kernels[@]}"; do
  start=$SECONDS
  timeout "${PK_BENCH_LIMIT:-240}" "$bin/pk-bench" --kernel "$kernel" --space "${PK_BENCH_SPACE:-all}" --size full --out "$out"
  rc=$?
  echo "run.sh: pk-bench --kernel $kernel: exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
done
exit $status
