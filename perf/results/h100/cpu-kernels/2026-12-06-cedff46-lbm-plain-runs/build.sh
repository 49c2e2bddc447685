#!/usr/bin/env bash
# lbm_steps at c8dce54, 15734e5 and cedff46, x86-64-v4, for the Xeon's A/B
set -euo pipefail
cd /work/main
out=build/rows-v4
K=/root/.cache/portablekernels/kokkos-4.6.01-openmp-a283617119
for v in c8dce54 15734e5 cedff46; do
  d=$out/$v; rm -rf $d; mkdir -p $d
  c=$v
  git archive $c include | tar -x -C $d
  g++ -O3 -DNDEBUG -march=x86-64-v4 -ffp-contract=off -fopenmp -std=c++17 -I$d/include -isystem $K/include \
    perf/studies/cpu-kernels/lbm_steps.cpp -o $d/lbm_steps build/openmp/src/libpk_lbm.a \
    build/openmp/src/libpk_core.a $K/lib/libkokkoscontainers.a $K/lib/libkokkoscore.a $K/lib/libkokkossimd.a -ldl -lz
  rm -rf $d/include
done
echo built $out
