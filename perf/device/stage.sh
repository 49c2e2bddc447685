#!/usr/bin/env bash
# Stages the CUDA build for a GPU machine that has the CUDA runtime but not this machine's
# Debian libraries: the binaries plus OpenBLAS (and its Fortran runtime), GSL and NLopt, in build/device
# (small enough to carry). Run perf/device/run.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/cuda/perf/pk-bench ] || { echo "stage: build the cuda preset first (./pk test)" >&2; exit 1; }
arch=$(sed -n 's/^PK_HOST_ARCH:STRING=//p' build/cuda/CMakeCache.txt)
[ "$arch" != native ] || echo "stage: warning: build/cuda targets this machine's CPU (PK_HOST_ARCH=native);" \
  "for another host, reconfigure it with that host's level, e.g. -DPK_HOST_ARCH=x86-64-v4" >&2
rm -rf build/device && mkdir -p build/device/lib
cp build/cuda/apps/pk-info build/cuda/apps/pk-gbees build/cuda/apps/pk-lbm build/cuda/apps/pk-matern build/cuda/perf/pk-bench \
   build/cuda/perf/pk-besselk-accuracy build/cuda/tests/pk-tests build/cuda/tests/pk-tests-besselk build/device/
for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libgsl.so.27 libgslcblas.so.0 libnlopt.so.0; do
  cp -L "$(ldconfig -p | awk -v l=$lib '$1 == l {print $NF; exit}')" build/device/lib/
done
du -sh build/device
