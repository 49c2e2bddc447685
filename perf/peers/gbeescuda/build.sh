#!/usr/bin/env bash
# gbees-cuda (Cx-Rubio/gbees-cuda, CUDA C, BSD-3): its makefile, once per example model from the
# same source (its README picks a model by editing config.h and main.cu), for the GPU at hand:
# CUDAFLAGS as its makefile's with -arch=sm_90 (PK_PEER_CUDA_ARCH) for its compute_61, plus the
# model's -D macros. gbeescuda.patch takes config.h's DIM, BLOCKS and CELLS_PER_THREAD and main.cu's
# configure call from those macros (without them: its own, Lorenz '63), turns its PDF files off
# under PK_PEER_NO_RECORD, and reads prop.clockRate (gone in CUDA 13) through
# cudaDeviceGetAttribute. Each reads ./measurements/<its model>, so it runs in its build folder.
#   perf/peers/gbeescuda/build.sh   (source: PK_PEER_GBEESCUDA_SRC)
# Binaries: build/peers/gbeescuda/{lorenz63,lorenz96,cr3bp}/GBEES.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source gbeescuda Cx-Rubio/gbees-cuda ff885c0d9ae29b6c8123c27096f4820bcea5b0fc PK_PEER_GBEESCUDA_SRC
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$nvcc" ] || peer_die "gbeescuda: no nvcc (PATH, CUDA_HOME or /usr/local/cuda)"
flags="-arch=${PK_PEER_CUDA_ARCH:-sm_90} -lineinfo -O3 -maxrregcount 32"
# The 6-D grids start as a box of 13^6 cells and grow past its config.h's 24 x 512 x 2; 528 blocks
# are 4 of 512 threads on each of 132 SMs (H100 SXM, H200): its cooperative launch needs every
# block resident. Cells per thread: room for the grid's peak (perf/peers/README.md).
six_d="-DDIM=6 -DBLOCKS=528"
declare -A defines=(
  [lorenz63]=""
  [lorenz96]="$six_d -DCELLS_PER_THREAD=256 -DPK_PEER_MODEL=configureLorenz6D -DPK_PEER_NO_RECORD"
  [cr3bp]="$six_d -DCELLS_PER_THREAD=64 -DPK_PEER_MODEL=configureCr3bp"
)
declare -A config=(
  [lorenz63]="configureLorenz3D; config.h as in the repository (DIM 3, BLOCKS 24, THREADS_PER_BLOCK 512, CELLS_PER_THREAD 2: 24576 cells)"
  [lorenz96]="configureLorenz6D, performRecord off; DIM 6, BLOCKS 528, THREADS_PER_BLOCK 512, CELLS_PER_THREAD 256: 69206016 cells"
  [cr3bp]="configureCr3bp; DIM 6, BLOCKS 528, THREADS_PER_BLOCK 512, CELLS_PER_THREAD 64: 17301504 cells"
)
info=()
for model in lorenz63 lorenz96 cr3bp; do
  peer_work gbeescuda "$model"
  peer_patch "$here/gbeescuda.patch"
  peer_say "gbeescuda: building $model in $peer_dir ($flags ${defines[$model]})"
  make -C "$peer_dir" -j"$peers_jobs" NVCC="$nvcc" CUDAFLAGS="$flags ${defines[$model]}" >"$peer_dir/build.log" 2>&1 ||
    { tail -20 "$peer_dir/build.log"; peer_die "gbeescuda ($model) did not build (log: $peer_dir/build.log)"; }
  [ -x "$peer_dir/GBEES" ] || peer_die "gbeescuda: no GBEES in $peer_dir"
  info+=("defines_$model=${defines[$model]}" "config_$model=${config[$model]}"
         "binary_$model=gbeescuda/$model/GBEES" "cwd_$model=gbeescuda/$model")
done
cp "$here/gbeescuda.patch" "$peers_build/gbeescuda/"
peer_info gbeescuda "flags=$flags" "compiler=$("$nvcc" --version | tail -1)" "patch=gbeescuda.patch" "${info[@]}"
