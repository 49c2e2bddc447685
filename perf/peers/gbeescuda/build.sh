#!/usr/bin/env bash
# gbees-cuda (Cx-Rubio/gbees-cuda, CUDA C, BSD-3): its makefile, its default example (Lorenz '63,
# DIM 3, configureLorenz3D, its config.h capacity) built for the GPU at hand: CUDAFLAGS as its
# makefile's with -arch=sm_90 (PK_PEER_CUDA_ARCH) for its compute_61. gbeescuda.patch: CUDA 13
# removed cudaDeviceProp::clockRate, which it prints; the patch reads it through
# cudaDeviceGetAttribute. It reads ./measurements/Lorenz3D, so it runs in its build folder.
#   perf/peers/gbeescuda/build.sh   (source: PK_PEER_GBEESCUDA_SRC)
# Binary: build/peers/gbeescuda/lorenz63/GBEES.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source gbeescuda Cx-Rubio/gbees-cuda ff885c0d9ae29b6c8123c27096f4820bcea5b0fc PK_PEER_GBEESCUDA_SRC
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$nvcc" ] || peer_die "gbeescuda: no nvcc (PATH, CUDA_HOME or /usr/local/cuda)"
flags="-arch=${PK_PEER_CUDA_ARCH:-sm_90} -lineinfo -O3 -maxrregcount 32"
peer_work gbeescuda lorenz63
peer_patch "$here/gbeescuda.patch"
peer_say "gbeescuda: building in $peer_dir ($flags)"
make -C "$peer_dir" -j"$peers_jobs" NVCC="$nvcc" CUDAFLAGS="$flags" >"$peer_dir/build.log" 2>&1 ||
  { tail -20 "$peer_dir/build.log"; peer_die "gbeescuda did not build (log: $peer_dir/build.log)"; }
[ -x "$peer_dir/GBEES" ] || peer_die "gbeescuda: no GBEES"
cp "$here/gbeescuda.patch" "$peers_build/gbeescuda/"
peer_info gbeescuda "flags=$flags" "compiler=$("$nvcc" --version | tail -1)" "patch=gbeescuda.patch" \
  "config=src/config.h as in the repository (DIM 3, BLOCKS 24, THREADS_PER_BLOCK 512, CELLS_PER_THREAD 2)" \
  "binary_lorenz63=gbeescuda/lorenz63/GBEES" "cwd_lorenz63=gbeescuda/lorenz63"
