#!/usr/bin/env bash
# Stages a CUDA build (default build/cuda) for a GPU machine that has the CUDA runtime but not
# this machine's Debian libraries: the binaries plus OpenBLAS (and its Fortran runtime), GSL
# and NLopt, in a folder (default build/device) to carry. Run perf/device/run.sh there.
#   perf/device/stage.sh [build-dir] [staged-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/cuda} staged=${2:-build/device}
[ -x "$build/perf/pk-bench" ] || { echo "stage: build $build first (./pk test builds build/cuda)" >&2; exit 1; }
arch=$(sed -n 's/^PK_HOST_ARCH:STRING=//p' "$build/CMakeCache.txt")
[ "$arch" != native ] || echo "stage: warning: $build targets this machine's CPU (PK_HOST_ARCH=native);" \
  "for another host, reconfigure it with that host's level, e.g. -DPK_HOST_ARCH=x86-64-v4" >&2
rm -rf "$staged" && mkdir -p "$staged/lib"
cp "$build"/apps/pk-{info,gbees,lbm,matern} "$build"/perf/pk-{bench,besselk-accuracy} \
   "$build"/tests/pk-tests{,-besselk} "$staged/"
for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libgsl.so.27 libgslcblas.so.0 libnlopt.so.0; do
  cp -L "$(ldconfig -p | awk -v l=$lib '$1 == l {print $NF; exit}')" "$staged/lib/"
done
du -sh "$staged"
