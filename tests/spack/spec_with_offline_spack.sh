#!/usr/bin/env bash
# Concretizes the Spack recipe with a real Spack (CI): the offline Spack 0.23 in
# ../shared/tools/offline-spack.tar.xz, unpacked into a temporary directory with its own
# configuration (nothing under ~ is read or written), a repository of only the builtin recipes
# that portablekernels can reach (offline/setup.sh), Debian's packages and the system's CUDA
# 13.0 as externals (offline/packages.yaml). Checks (issue #66):
#   * each release's archive: `git archive | gzip -n` of the commit the recipe names has the
#     recipe's sha256, and Spack reads that sha256 and a URL naming that commit; its
#     cmake/PKVersion.cmake has the one line the recipe's patch() rewrites;
#   * `portablekernels` concretizes to 0.2.0 with an OpenMP-threaded OpenBLAS, also where
#     OpenBLAS is not an external (the recipe chooses threads=openmp itself), and
#     `^openblas threads=none` is refused with the recipe's message;
#   * the site's lines of docs/install.md (its first yaml block, as an environment) with
#     spack/overrides copied out of the repository: `+cuda cuda_arch=90 +mpi +hdf5 +scalapack`
#     onto the external cuda@13.0.88: Kokkos 4.6.01 +cuda +cuda_lambda +wrapper cuda_arch=90
#     with the two patches of deps/patches/kokkos-4.6.01 (their sha256), kokkos-nvcc-wrapper
#     4.6.01 with the first, Kokkos Kernels +cuda +cublas without explicit instantiations, an
#     Open MPI built +cuda, HDF5 +mpi and ScaLAPACK;
#   * `+cuda cuda_arch=80,90` is refused (cuda_arch is single-valued);
#   * without spack/overrides, CUDA 13 external and buildable, `+cuda` is refused with the
#     message that names spack/overrides (no CUDA 12 built, no Kokkos @develop); with them,
#     the external CUDA is the only one;
#   * `+rocm amdgpu_target=gfx90a` onto Debian 12's HIP 5.2.3 as externals: Kokkos 4.6.01
#     +rocm amdgpu_target=gfx90a; `amdgpu_target=gfx90a,gfx942` refused (single-valued);
#   * `+mpi +cuda` with the site's Open MPI (not CUDA-aware) as an external that is not
#     buildable: that Open MPI, ~cuda_aware_mpi;
#   * with Kokkos and Kokkos Kernels as externals, the recipe's cmake_args() take
#     nvcc_wrapper from the external Kokkos' prefix (offline/external_kokkos.py).
# Ten concretizations, 20-45 s each on an idle 2-core machine (about 4.5 min in all).
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

fail() { echo "FAIL: $*" >&2; exit 1; }
# Prints `spack spec` of the arguments (after the scope options up to --); fails the script
# unless it concretizes.
concretize() {
  local out opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  out=$(spack "${opts[@]}" spec -l "$@" 2>&1) || { echo "$out" >&2; fail "spack spec $* does not concretize"; }
  echo "$out"
}
# Fails the script unless `spack SCOPE-OPTIONS spec` of the arguments fails with a message
# matching $1.
refused() {
  local want=$1 out opts=()
  shift
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  if out=$(spack "${opts[@]}" spec "$@" 2>&1); then echo "$out"; fail "spack spec $* concretized"; fi
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

# -- 1. The releases' archives ---------------------------------------------------------------
# "VERSION COMMIT SHA256 URL" for each release, as Spack reads the recipe.
releases=$(spack -C "$scope" python "$root/tests/spack/offline/releases.py")
[ -n "$releases" ] || fail "the recipe names no release"
shallow=$(git -C "$root" rev-parse --is-shallow-repository 2>/dev/null || echo none)
while read -r version commit sha url listed; do
  [ "$sha" = "$listed" ] || fail "$version: Spack reads sha256 $sha, _releases says $listed"
  [[ $url = */$commit.tar.gz ]] || fail "$version: the URL $url does not name the commit $commit"
  if ! git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null; then
    # A shallow clone (or no git at all) cannot rebuild it; a full clone must have it.
    [ "$shallow" = false ] && fail "$version: commit $commit is not in this repository"
    echo "skipped: $version's archive (commit $commit: no full git clone here; git says shallow=$shallow)"
    continue
  fi
  got=$(git -C "$root" archive --format=tar --prefix="portablekernels-$commit/" "$commit" | gzip -cn | sha256sum | cut -c1-64)
  [ "$got" = "$sha" ] || fail "$version: git archive of $commit | gzip -n has sha256 $got, the recipe $sha"
  echo "ok: portablekernels@$version is $commit, its archive's sha256 is the recipe's ($got)"
  # The recipe's patch() names the release in the records through this one line.
  lines=$(git -C "$root" show "$commit:cmake/PKVersion.cmake" | grep -cE '^set\(PK_COMMIT "[^"]*"\)' || true)
  [ "$lines" = 1 ] || fail "$version: cmake/PKVersion.cmake of $commit has $lines lines for patch() to rewrite"
  echo "ok: $version: patch() names the release in its records (cmake/PKVersion.cmake)"
done <<<"$releases"

# -- 2. OpenMP, OpenBLAS ---------------------------------------------------------------------
spec=$(concretize -C "$scope" -- portablekernels)
echo "$spec"
has "$spec" portablekernels "@0.2.0" "~cuda" "\+openmp" "~rocm"
has "$spec" kokkos "~cuda" "\+openmp"
has "$spec" kokkos-kernels "\+blas" "\+openmp"
has "$spec" openblas "threads=openmp"
has "$spec" nlopt "~python"

# OpenBLAS that Spack builds (no external): the recipe chooses its threads.
built_blas=$work/scope-built-openblas
mkdir -p "$built_blas"
cp "$scope/repos.yaml" "$built_blas/"
python3 - "$scope/packages.yaml" "$built_blas/packages.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text, n = re.subn(r"\n  openblas:\n(    .*\n)+", "\n", text)
assert n == 1, "no openblas entry in offline/packages.yaml"
open(sys.argv[2], "w").write(text)
PY
spec=$(concretize -C "$built_blas" -- portablekernels)
has "$spec" openblas "threads=openmp"
grep -E "^ -  .*\^openblas@" <<<"$spec" > /dev/null || fail "openblas is not built by Spack here"
refused "PortableKernels needs an OpenMP-threaded OpenBLAS" -C "$built_blas" -- portablekernels ^openblas threads=none

# -- 3. The site's lines of docs/install.md, as an environment ----------------------------------
# spack/overrides copied out of the repository (it must work on its own), listed in the
# environment's repos; the scope below lists ./spack and the builtin closure only.
env=$work/site-env
mkdir -p "$env"
cp -r "$root/spack/overrides" "$work/site-overrides"
cp -r "$root/spack" "$work/site-spack"
rm -rf "$work/site-spack/overrides"
awk '/<!-- site-config:/ {found=1; next} found && /^```yaml/ {inside=1; next} inside && /^```/ {exit} inside' \
  "$root/docs/install.md" > "$env/spack.yaml"
grep -q "^spack:" "$env/spack.yaml" || fail "docs/install.md has no site-config yaml block"
sed -i -e "s|/path/to/portablekernels/spack/overrides|$work/site-overrides|" \
  -e "s|/path/to/portablekernels/spack|$work/site-spack|" "$env/spack.yaml"
echo "the site's environment (docs/install.md):"; cat "$env/spack.yaml"
sitescope=$work/scope-site
mkdir -p "$sitescope"
cp "$scope/packages.yaml" "$sitescope/"
printf 'repos::\n- %s\n' "$work/builtin" > "$sitescope/repos.yaml"
spec=$(concretize -C "$sitescope" -e "$env" -- portablekernels +cuda cuda_arch=90 +mpi +hdf5 +scalapack)
echo "$spec"
has "$spec" portablekernels "@0.2.0" "%gcc" "\+cuda" "cuda_arch=90" "\+mpi" "\+hdf5" "\+scalapack" "\+cuda_aware_mpi"
has "$spec" kokkos "@4.6.01" "\+cuda" "\+cuda_lambda" "\+wrapper" "cuda_arch=90" "patches=$kokkos_patches "
has "$spec" kokkos-nvcc-wrapper "@4.6.01" "patches=$wrapper_patches "
has "$spec" kokkos-kernels "@4.6.01" "\+cublas" "\+cuda" "cuda_arch=90" "execspace_cuda=False" "execspace_openmp=False" \
  "memspace_cudaspace=False"
has "$spec" cuda "cuda@13.0.88"
has "$spec" openmpi "\+cuda"
has "$spec" hdf5 "\+mpi"
grep -qE "\^(netlib-scalapack|scalapack)@" <<<"$spec" || fail "no ScaLAPACK in the spec of +scalapack"
echo "ok: +scalapack brings $(grep -m1 -oE '(netlib-)?scalapack@[^ %]+' <<<"$spec")"
[ "$(grep -cE '\^cuda@' <<<"$spec")" = 1 ] || fail "more than one CUDA in the spec"
grep -qE "kokkos(-kernels|-nvcc-wrapper)?@(develop|master)" <<<"$spec" && fail "a Kokkos branch in the spec"
echo "ok: one CUDA (the external), no Kokkos branch"

refused 'multiple values are not allowed for variant .cuda_arch.' -C "$scope" -- portablekernels +cuda cuda_arch=80,90

# -- 4. Without spack/overrides, CUDA 13 external but buildable ----------------------------------
plain=$work/scope-plain
mkdir -p "$plain"
printf 'repos::\n- %s\n- %s\n' "$root/spack" "$work/builtin" > "$plain/repos.yaml"
python3 - "$scope/packages.yaml" "$plain/packages.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text, n = re.subn(r"(\n  cuda:\n(?:    .*\n)*?)    buildable: false\n", r"\1    buildable: true\n", text)
assert n == 1, "no cuda entry in offline/packages.yaml"
open(sys.argv[2], "w").write(text)
PY
refused "kokkos@develop is an unpinned branch: .*spack/overrides" -C "$plain" -- portablekernels +cuda cuda_arch=90
# The same site with spack/overrides: the external CUDA, none built.
buildable=$work/scope-cuda-buildable
mkdir -p "$buildable"
cp "$plain/packages.yaml" "$buildable/"
cp "$scope/repos.yaml" "$buildable/"
spec=$(concretize -C "$buildable" -- portablekernels +cuda cuda_arch=90)
has "$spec" cuda "\[e\].*cuda@13.0.88"
has "$spec" kokkos "@4.6.01" "\+cuda"
[ "$(grep -cE '\^cuda@' <<<"$spec")" = 1 ] || fail "more than one CUDA in the spec"

# -- 5. +rocm onto Debian's HIP ------------------------------------------------------------------
rocm=$work/scope-rocm
mkdir -p "$rocm"
cat > "$rocm/packages.yaml" <<EOT
packages:
  # Debian 12's HIP 5.2.3 (hipcc, libamdhip64-dev, libhsa-runtime-dev, clang 15).
  hip:
    externals:
    - spec: hip@5.2.3
      prefix: /usr
    buildable: false
  hsa-rocr-dev:
    externals:
    - spec: hsa-rocr-dev@5.2.3
      prefix: /usr
    buildable: false
  llvm-amdgpu:
    externals:
    - spec: llvm-amdgpu@5.2.3
      prefix: /usr/lib/llvm-15
    buildable: false
EOT
spec=$(concretize -C "$scope" -C "$rocm" -- portablekernels +rocm amdgpu_target=gfx90a)
echo "$spec"
has "$spec" portablekernels "@0.2.0" "\+rocm" "amdgpu_target=gfx90a" "~cuda"
has "$spec" kokkos "@4.6.01" "\+rocm" "amdgpu_target=gfx90a" "~cuda" "\+openmp"
has "$spec" kokkos-kernels "@4.6.01" "~cuda" "\+openmp"
has "$spec" hip "@5.2.3"
refused 'multiple values are not allowed for variant .amdgpu_target.' -C "$scope" -C "$rocm" -- \
  portablekernels +rocm amdgpu_target=gfx90a,gfx942

# -- 6. +mpi +cuda on the site's Open MPI (not CUDA-aware, not buildable) ------------------------
sitempi=$work/scope-site-mpi
mkdir -p "$sitempi"
cat > "$sitempi/packages.yaml" <<EOT
packages:
  openmpi:
    externals:
    - spec: openmpi@4.1.4 ~cuda
      prefix: /usr
    buildable: false
  mpi:
    require: openmpi
EOT
spec=$(concretize -C "$scope" -C "$sitempi" -- portablekernels +mpi +cuda cuda_arch=90)
has "$spec" portablekernels "\+mpi" "~cuda_aware_mpi"
has "$spec" openmpi "@4.1.4" "~cuda"

# -- 7. Kokkos and Kokkos Kernels as a site's externals -------------------------------------------
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
