#!/usr/bin/env bash
# Stages the CUDA build for a GPU machine that has the CUDA runtime but not this machine's
# Debian libraries: the binaries plus OpenBLAS and its Fortran runtime, in build/device
# (small enough to carry). Run perf/device/run.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/cuda/perf/pk-bench ] || { echo "stage: build the cuda preset first (./pk test)" >&2; exit 1; }
rm -rf build/device && mkdir -p build/device/lib
cp build/cuda/apps/pk-info build/cuda/perf/pk-bench build/cuda/tests/pk-tests build/device/
for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0; do
  cp -L "$(ldconfig -p | awk -v l=$lib '$1 == l {print $NF; exit}')" build/device/lib/
done
du -sh build/device
