#!/usr/bin/env bash
# Concretizes the Spack recipe with a real Spack (CI): the offline Spack 0.23 in
# ../shared/tools/offline-spack.tar.xz, unpacked into a temporary directory with its own
# configuration (nothing under ~ is read or written) and a repository of only the builtin recipes
# that portablekernels can reach (offline/setup.sh). Cold caches: 2 min of CPU (6-11 min wall
# niced on a 2-core machine that others loaded 2-4x), against 36 min wall when Spack indexed
# all ~8000 builtin recipes. Checks:
#   * `portablekernels` (OpenMP) concretizes, with Kokkos Kernels' OpenMP ETI;
#   * `portablekernels +cuda cuda_arch=90` concretizes with GCC, Kokkos +cuda +cuda_lambda
#     +wrapper cuda_arch=90 and Kokkos Kernels cuda_arch=90, and CUDA 12 (Kokkos 4.6 cannot
#     build with the system's CUDA 13);
#   * `+cuda cuda_arch=80,90` fails with the recipe's conflict message.
# (The CUDA 13 conflict is checked by check_package.py: proving `+cuda ^cuda@13` unsatisfiable
# takes the concretizer far longer than a CI step should.)
# Exits 1 on the first failed check; exits 0 with one line when ../shared/tools is absent.
#   tests/spack/spec_with_offline_spack.sh   (or ./pk test-spack; PK_SPACK_CACHE: see offline/setup.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tarball=$root/../shared/tools/offline-spack.tar.xz
if [ ! -f "$tarball" ]; then
  echo "spack spec: skipped (no $tarball)"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pk-spack-spec.XXXXXX")
trap 'rm -rf "$work"' EXIT
source "$root/tests/spack/offline/setup.sh"

fail() { echo "FAIL: $*"; exit 1; }
# Prints `spack spec` of the arguments; fails the script unless it concretizes.
concretize() {
  local out
  out=$(spack -C "$scope" spec -l "$@" 2>&1) || { echo "$out"; fail "spack spec $* does not concretize"; }
  echo "$out"
}
# Fails the script unless `spack spec` of the arguments fails with a message matching $1.
refused() {
  local want=$1 out
  shift
  if out=$(spack -C "$scope" spec "$@" 2>&1); then echo "$out"; fail "spack spec $* concretized"; fi
  grep -q "$want" <<<"$out" || { echo "$out"; fail "spack spec $*: no message matching '$want'"; }
  echo "ok: spack spec $* is refused: $(grep -m1 "$want" <<<"$out" | sed 's/^ *//')"
}
has() {  # has SPEC_OUTPUT PACKAGE PATTERN...: the concretized PACKAGE matches every PATTERN
  local line pattern
  line=$(grep -m1 -E "(^| )\^?$2@" <<<"$1") || fail "no $2 in the concretized spec"
  for pattern in "${@:3}"; do
    grep -qE -- "$pattern" <<<"$line" || fail "$2 does not match '$pattern'"
  done
  echo "ok: $2 has ${*:3}"
}

start=$SECONDS
spec=$(concretize portablekernels)
echo "$spec"
has "$spec" portablekernels "~cuda" "\+openmp"
has "$spec" kokkos "~cuda" "\+openmp"
has "$spec" kokkos-kernels "\+blas" "\+openmp" "execspace_openmp=True"
has "$spec" nlopt "~python"

spec=$(concretize portablekernels +cuda cuda_arch=90)
echo "$spec"
has "$spec" portablekernels "%gcc" "\+cuda" "cuda_arch=90"
has "$spec" kokkos "\+cuda" "\+cuda_lambda" "\+wrapper" "cuda_arch=90"
has "$spec" kokkos-kernels "\+cublas" "\+cuda" "cuda_arch=90" "execspace_cuda=True" "memspace_cudaspace=True"
has "$spec" cuda "cuda@12"

refused "one GPU architecture" portablekernels +cuda cuda_arch=80,90
echo "spack spec: all checks passed in $((SECONDS - start)) s (Spack $(spack --version))"
