#!/usr/bin/env bash
# Builds lbm_steps, field_filter, gbees_steps and besselk_paths against the headers of a commit, linking the
# libraries of a build of the tree, OpenMP or CUDA (the commits compared differ in headers only):
#   perf/studies/cpu-kernels/build.sh COMMIT OUTDIR [BUILD]   (BUILD: default build/openmp)
set -euo pipefail
cd "$(dirname "$0")/../../.."
commit=$1 out=$2 build=${3:-build/openmp}
mkdir -p "$out/include"
git archive "$commit" include | tar -x -C "$out"
kokkos=$(sed -n 's/^Kokkos_DIR:PATH=\(.*\)\/lib\/cmake\/Kokkos$/\1/p' "$build/CMakeCache.txt")
arch=$(sed -n 's/^PK_HOST_ARCH:STRING=//p' "$build/CMakeCache.txt")
# the vector width the build asks g++ for (src/CMakeLists.txt: set only where it does)
prefer=()
grep -q '^PK_CXX_HAS_PREFER_VECTOR_WIDTH:INTERNAL=1' "$build/CMakeCache.txt" && [ -n "$arch" ] && prefer=(-mprefer-vector-width=512)
# A CUDA build's Kokkos compiles through its nvcc_wrapper with the device flags it exports
# (every Kokkos installs nvcc_wrapper: its configuration says whether CUDA is enabled).
compiler=(g++) device_libraries=()
if grep -q '^#define KOKKOS_ENABLE_CUDA$' "$kokkos/include/KokkosCore_config.h"; then
  device_libraries=("$(sed -n 's/^CUDA_cuda_driver_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")")
  device_flags=$(sed -n 's/.*COMPILE_LANGUAGE:CXX>:\(-extended-lambda[^>]*\)>.*/\1/p' \
    "$kokkos/lib/cmake/Kokkos/KokkosTargets.cmake" | tr ';' ' ')
  read -ra compiler <<<"$kokkos/bin/nvcc_wrapper $device_flags"
fi
for program in lbm_steps field_filter gbees_steps besselk_paths; do
  "${compiler[@]}" -O3 -DNDEBUG -march="${arch:-native}" "${prefer[@]}" -ffp-contract=off -fopenmp -std=c++17 -I"$out/include" \
    -isystem "$kokkos/include" "perf/studies/cpu-kernels/$program.cpp" -o "$out/$program" \
    "$build"/src/libpk_rfilter.a "$build"/src/libpk_lbm.a "$build"/src/libpk_gbees.a \
    "$build"/src/libpk_core.a \
    "$kokkos"/lib/libkokkoscontainers.a "$kokkos"/lib/libkokkoscore.a "$kokkos"/lib/libkokkossimd.a "${device_libraries[@]}" -ldl -lz
done
echo "built $out/lbm_steps, field_filter, gbees_steps and besselk_paths at $(git rev-parse --short "$commit")"
