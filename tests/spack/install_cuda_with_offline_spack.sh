#!/usr/bin/env bash
# `spack install portablekernels +cuda cuda_arch=90` as a site would run it, offline, into a
# fixed absolute root that can be carried to a GPU machine and unpacked at the same path
# (tests/spack/carry_install.sh): the offline Spack 0.23, the system's CUDA 13.0 and Debian's
# packages as externals, Kokkos + Kokkos Kernels 4.6.01 built by Spack from a local mirror of
# ../shared/deps through spack/overrides (the project's CUDA 13 patches), and PortableKernels
# from a snapshot of this checkout's HEAD (`git archive`, built in place: dev_path).
#   tests/spack/install_cuda_with_offline_spack.sh ROOT [SPEC...]  (e.g. /opt/pk-spack; niced)
# SPEC defaults to that snapshot, `portablekernels@main +cuda cuda_arch=90 dev_path=...`; a
# site's release is e.g. `portablekernels@0.2.0 +cuda cuda_arch=90 +mpi` (the archive of the
# commit the recipe names is put in the mirror). Debian's Open MPI and parallel HDF5 are
# externals that are not buildable (offline/debian-mpi.yaml), so +mpi takes Debian's Open MPI
# as it is (not CUDA-aware: the recipe turns cuda_aware_mpi off).
# The site's choices, in ROOT/scope (the recipe forces neither): Kokkos Kernels without
# explicit instantiations, as deps/bootstrap.sh builds it (with them, nvcc compiles every
# instantiation: hours on 2 cores), and target=x86_64_v3 (AVX2), so that the binaries run on
# another machine's CPU. Rerunning reuses what ROOT holds; a new HEAD is a new snapshot.
set -euo pipefail
checkout=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] && [[ $1 = /* ]] || { echo "usage: $0 ROOT (an absolute path) [SPEC...]" >&2; exit 2; }
work=$1
export PK_SPACK_TARBALL=$checkout/../shared/tools/offline-spack.tar.xz
deps=$checkout/../shared/deps
[ -f "$PK_SPACK_TARBALL" ] && [ -d "$deps" ] || { echo "needs $PK_SPACK_TARBALL and $deps" >&2; exit 1; }
mkdir -p "$work/src"

# The snapshot: PortableKernels' source and the Spack repositories the install uses.
commit=$(git -C "$checkout" rev-parse --short=12 HEAD)
root=$work/src/portablekernels-$commit
if [ ! -d "$root" ]; then
  git -C "$checkout" archive --prefix="$(basename "$root")/" HEAD | tar -x -C "$work/src"
fi
source "$checkout/tests/spack/offline/setup.sh"

# Mirror layout: <package>/<package>-<version>.tar.gz; kokkos-nvcc-wrapper is Kokkos' tarball.
mirror=$work/mirror
mkdir -p "$mirror/kokkos" "$mirror/kokkos-kernels" "$mirror/kokkos-nvcc-wrapper"
cp "$deps/kokkos-4.6.01.tar.gz" "$mirror/kokkos/"
cp "$deps/kokkos-4.6.01.tar.gz" "$mirror/kokkos-nvcc-wrapper/kokkos-nvcc-wrapper-4.6.01.tar.gz"
cp "$deps/kokkos-kernels-4.6.01.tar.gz" "$mirror/kokkos-kernels/"
# Each release as the recipe names it: `git archive | gzip -n` of its commit (GitHub's bytes).
mkdir -p "$mirror/portablekernels"
while read -r version commit sha _; do
  git -C "$checkout" archive --format=tar --prefix="portablekernels-$commit/" "$commit" | gzip -cn \
    > "$mirror/portablekernels/portablekernels-$version.tar.gz"
  got=$(sha256sum < "$mirror/portablekernels/portablekernels-$version.tar.gz" | cut -c1-64)
  [ "$got" = "$sha" ] || { echo "portablekernels-$version.tar.gz: sha256 $got, the recipe's $sha" >&2; exit 1; }
done < <(spack -C "$scope" python "$checkout/tests/spack/offline/releases.py")
cat > "$scope/mirrors.yaml" <<EOF
mirrors:
  local: file://$mirror
EOF
cat > "$scope/config.yaml" <<EOF
config:
  install_tree:
    root: $work/store
  build_stage:
  - $work/stage
  source_cache: $work/cache/source
  misc_cache: $work/cache/misc
  test_stage: $work/test-stage
  build_jobs: 2
EOF
cat "$checkout/tests/spack/offline/debian-mpi.yaml" >> "$scope/packages.yaml"
cat >> "$scope/packages.yaml" <<'EOF'
  # This install's choices (a site's, not the recipe's): no explicit instantiations, as the
  # project's bootstrap builds Kokkos Kernels; the calls are instantiated in PortableKernels.
  kokkos-kernels:
    require: execspace_cuda=False execspace_openmp=False execspace_serial=False memspace_cudaspace=False memspace_cudauvmspace=False
  # Binaries that run on another machine's CPU: AVX2 + FMA, no -march=native-like target.
  all:
    target: [x86_64_v3]
EOF

spec=("${@:2}")
[ ${#spec[@]} -gt 0 ] || spec=(portablekernels@main +cuda cuda_arch=90 "dev_path=$root")
t0=$SECONDS
spack -C "$scope" spec -l "${spec[@]}" | tee "$work/spec.txt"
echo "spack spec: $((SECONDS - t0)) s"
t0=$SECONDS
spack -C "$scope" install -j2 "${spec[@]}" 2>&1 | tee "$work/install.txt"
echo "spack install: $((SECONDS - t0)) s" | tee -a "$work/install.txt"
spack -C "$scope" find -lv | tee "$work/find.txt"
