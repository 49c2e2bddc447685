#!/usr/bin/env bash
# Concretizes the Spack recipe with a real Spack (CI): the offline Spack 0.23 in
# ../shared/tools/offline-spack.tar.xz, unpacked into a temporary directory with its own
# configuration (nothing under ~ is read or written), a repository of only the builtin recipes
# that portablekernels can reach (offline/setup.sh), and the system's CUDA 13.0 as the only
# CUDA (an external, not buildable, as on a site). Checks:
#   * `portablekernels` (OpenMP) concretizes, with an OpenMP-threaded OpenBLAS;
#   * with spack/overrides, `portablekernels +cuda cuda_arch=90` concretizes with GCC onto
#     the external cuda@13.0.88: Kokkos 4.6.01 +cuda +cuda_lambda +wrapper cuda_arch=90 with
#     the two patches of deps/patches/kokkos-4.6.01 (their sha256), kokkos-nvcc-wrapper
#     4.6.01 with the first, Kokkos Kernels +cuda +cublas cuda_arch=90;
#   * `+cuda cuda_arch=80,90` is refused (cuda_arch is single-valued);
#   * without spack/overrides, `+cuda ^kokkos@4.3.01` (Spack 0.23's newest release) is
#     refused with the recipe's CUDA 13 message;
#   * with Kokkos and Kokkos Kernels as externals, the recipe's cmake_args() take
#     nvcc_wrapper from the external Kokkos' prefix (offline/external_kokkos.py).
# Five concretizations (three before spack/overrides): each about 50 s of CPU cold; the whole
# script took 88 min wall niced at 15 on a 2-core machine that others loaded 16-19x (not a CI figure).
# The Spack 1.x spellings (spack_repo.builtin imports) are checked by check_package.py.
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
# Fails the script unless `spack -C SCOPE spec` of the arguments fails with a message matching $2.
refused() {
  local in_scope=$1 want=$2 out
  shift 2
  if out=$(spack -C "$in_scope" spec "$@" 2>&1); then echo "$out"; fail "spack spec $* concretized"; fi
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
# patches=a,b as `spack spec` prints them (7 characters of each sha256, in sha256 order).
patches() { sha256sum "$@" | cut -c1-7 | sort | paste -sd, -; }
kokkos_patches=$(patches "$root"/deps/patches/kokkos-4.6.01/*.patch)
wrapper_patches=$(patches "$root"/deps/patches/kokkos-4.6.01/*nvcc-wrapper*.patch)

start=$SECONDS
spec=$(concretize portablekernels)
echo "$spec"
has "$spec" portablekernels "~cuda" "\+openmp"
has "$spec" kokkos "~cuda" "\+openmp"
has "$spec" kokkos-kernels "\+blas" "\+openmp"
has "$spec" openblas "threads=openmp"
has "$spec" nlopt "~python"

spec=$(concretize portablekernels +cuda cuda_arch=90)
echo "$spec"
has "$spec" portablekernels "%gcc" "\+cuda" "cuda_arch=90"
has "$spec" kokkos "@4.6.01" "\+cuda" "\+cuda_lambda" "\+wrapper" "cuda_arch=90" "patches=$kokkos_patches "
has "$spec" kokkos-nvcc-wrapper "@4.6.01" "patches=$wrapper_patches "
has "$spec" kokkos-kernels "\+cublas" "\+cuda" "cuda_arch=90"
has "$spec" cuda "cuda@13.0.88"

refused "$scope" 'multiple values are not allowed for variant .cuda_arch.' portablekernels +cuda cuda_arch=80,90

spec=$(concretize portablekernels +mpi +scalapack)
has "$spec" portablekernels "\+mpi" "\+scalapack"
grep -qE "\^(netlib-scalapack|scalapack)@" <<<"$spec" || fail "no ScaLAPACK in the spec of +mpi +scalapack"
echo "ok: +mpi +scalapack brings $(grep -m1 -oE '(netlib-)?scalapack@[^ ]+' <<<"$spec")"

# The same site without spack/overrides: Spack 0.23's releases end at 4.3.01, which CUDA 13
# cannot build (its `develop` branch, which can, is what `+cuda` alone concretizes to).
plain=$work/scope-plain
cp -r "$scope" "$plain"
printf 'repos::\n- %s\n- %s\n' "$root/spack" "$work/builtin" > "$plain/repos.yaml"
refused "$plain" "Kokkos before 4.7.01 does not build with CUDA 13" portablekernels +cuda cuda_arch=90 ^kokkos@4.3.01

# Kokkos and Kokkos Kernels as a site's externals.
externals=$work/scope-externals
mkdir -p "$externals"
cat > "$externals/packages.yaml" <<EOT
packages:
  kokkos:
    externals:
    - spec: kokkos@4.6.01 +openmp +cuda +cuda_lambda +wrapper cuda_arch=90
      prefix: /opt/site/kokkos
    buildable: false
  kokkos-kernels:
    externals:
    - spec: kokkos-kernels@4.6.01 +openmp +cuda +blas +cublas cuda_arch=90
      prefix: /opt/site/kokkos
    buildable: false
EOT
spack -C "$scope" -C "$externals" python "$root/tests/spack/offline/external_kokkos.py" /opt/site/kokkos

echo "spack spec: all checks passed in $((SECONDS - start)) s (Spack $(spack --version))"
