#!/usr/bin/env bash
# On the GPU machine, over a carried build/device (perf/device/stage.sh): device facts, the
# whole test suite on every space, then pk-bench at full size with results in $1.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results}
export LD_LIBRARY_PATH=$PWD/build/device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
build/device/pk-info
build/device/pk-tests --gtest_brief=1
build/device/pk-bench --space all --size full --out "$out"
