#!/usr/bin/env bash
# CuBesselK (stsds/CuBesselK, CUDA C): perf/peers/cubesselk/driver.cu compiles the peer's
# src/logbesselk.cu in unchanged and times its kernel on pk-bench's besselk points. No patch.
#   perf/peers/cubesselk/build.sh   (source: PK_PEER_CUBESSELK_SRC; PK_PEER_CUDA_ARCH, default sm_90)
# Binary: build/peers/cubesselk/bin/pk-peer-cubesselk.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source cubesselk stsds/CuBesselK 94ec9ca4bb9d7524c196f044503519ab30d8eb39 PK_PEER_CUBESSELK_SRC
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$nvcc" ] || peer_die "cubesselk: no nvcc (PATH, CUDA_HOME or /usr/local/cuda)"
flags="-O3 -arch=${PK_PEER_CUDA_ARCH:-sm_90}"
mkdir -p "$peers_build/cubesselk/bin"
peer_say "cubesselk: $nvcc $flags"
# shellcheck disable=SC2086
"$nvcc" $flags -I"$peer_src/include" -I"$peer_src/src" "$here/driver.cu" -o "$peers_build/cubesselk/bin/pk-peer-cubesselk"
peer_info cubesselk "flags=$flags" "compiler=$("$nvcc" --version | tail -1)" "patch=none (driver: perf/peers/cubesselk/driver.cu)" \
  "binary=cubesselk/bin/pk-peer-cubesselk"
