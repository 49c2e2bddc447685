#!/usr/bin/env bash
# Builds a CUDA-aware Open MPI for a GPU machine: Debian 12's own Open MPI source (4.1.4,
# `apt-get source` through a private deb-src list; the system's apt configuration is left
# alone) configured --with-cuda, so that halo buffers in GPU memory go to MPI directly and
# travel between the GPUs of one node through CUDA IPC (the smcuda transport). The result
# is a folder (default build/ompi-cuda) with mpi-env.sh, to carry beside a staged build and
# name in PK_MPI_ENV for perf/device/multi_gpu.sh. Machines whose MPI is CUDA-aware already
# (most supercomputers) need none of this.
#   perf/device/cuda_aware_mpi.sh [out-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mkdir -p "${1:-build/ompi-cuda}" && cd "${1:-build/ompi-cuda}" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
[ -x "$cuda/bin/nvcc" ] || { echo "cuda_aware_mpi: no CUDA toolkit in $cuda (set CUDA_HOME)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sources" "$work/lists/partial"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$work/sources/$(basename "$f")"
done
apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources" -o "Dir::State::Lists=$work/lists"
     -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${apt[@]}" -qq update
(cd "$work" && apt-get "${apt[@]}" -qq source --download-only openmpi=4.1.4-3)
tar xf "$work"/openmpi_4.1.4.orig.tar.xz -C "$work"
cd "$work/openmpi-4.1.4"
# Shared memory and CUDA only: the GPU machines have no network fabric.
./configure --prefix="$out" --with-cuda="$cuda" --disable-mpi-fortran --disable-oshmem --disable-man-pages \
  --without-verbs --without-ucx --without-ofi --without-psm2 --enable-mca-no-build=btl-openib >"$out/configure.log"
make -j"$(nproc)" >"$out/make.log"
make install >"$out/install.log"
cat >"$out/mpi-env.sh" <<'EOF_ENV'
# Sourced on the GPU machine: the carried CUDA-aware Open MPI (it relocates through
# OPAL_PREFIX), beside a staged build's libraries (PK_DEVICE_BUILD, default build/device).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
staged=$(cd "${PK_DEVICE_BUILD:-build/device}" && pwd)
export OPAL_PREFIX=$here PATH=$here/bin:$PATH
export LD_LIBRARY_PATH=$here/lib:$staged/lib:${LD_LIBRARY_PATH:-}
export OMPI_MCA_btl=self,smcuda OMPI_MCA_pml=ob1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EOF_ENV
echo "cuda_aware_mpi: installed in $out ($(du -sh "$out" | cut -f1))"
