#!/usr/bin/env bash
# `spack install portablekernels` (OpenMP) with the offline Spack 0.23 and no network, then
# the installed programs from another directory: `spack load portablekernels && pk-bench
# --space openmp --size tiny`, and the recipe's stand-alone tests (`spack test run`).
# Sources come from a local mirror: Kokkos and Kokkos Kernels 4.6.01 from ../shared/deps,
# and PortableKernels 0.2.0 as the archive of the commit the recipe names (`git archive |
# gzip -n`, the bytes of GitHub's archive, whose sha256 the recipe records). Takes ~40 min on
# 2 cores (Kokkos Kernels is most of it).
#   tests/spack/install_with_offline_spack.sh WORK_DIR
# WORK_DIR keeps the Spack tree, its configuration and the installs (rerunning reuses them).
# PK_SPACK_KOKKOS_EXTERNAL="VERSION PREFIX" uses an installed Kokkos + Kokkos Kernels (OpenMP,
# BLAS, OpenMP ETI; one prefix, e.g. deps/bootstrap.sh's) as externals instead of building them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "$1" && cd "$1" && pwd)
shared=$root/../shared
[ -f "$shared/tools/offline-spack.tar.xz" ] || { echo "no $shared/tools/offline-spack.tar.xz"; exit 1; }

source "$root/tests/spack/offline/setup.sh"

# Mirror layout: <package>/<package>-<version>.tar.gz.
mirror=$work/mirror
mkdir -p "$mirror/kokkos" "$mirror/kokkos-kernels" "$mirror/portablekernels"
cp "$shared/deps/kokkos-4.6.01.tar.gz" "$mirror/kokkos/"
cp "$shared/deps/kokkos-kernels-4.6.01.tar.gz" "$mirror/kokkos-kernels/"
read -r _ release _ <<<"$(spack -C "$scope" python "$root/tests/spack/offline/releases.py" | grep '^0\.2\.0 ')"
git -C "$root" archive --format=tar --prefix="portablekernels-$release/" "$release" | gzip -cn \
  > "$mirror/portablekernels/portablekernels-0.2.0.tar.gz"
echo "portablekernels-0.2.0.tar.gz ($release): sha256 $(sha256sum < "$mirror/portablekernels/portablekernels-0.2.0.tar.gz" | cut -c1-64)"

if [ -n "${PK_SPACK_KOKKOS_EXTERNAL:-}" ]; then
  read -r kv kprefix <<<"$PK_SPACK_KOKKOS_EXTERNAL"
  cat >> "$scope/packages.yaml" <<EOF
  kokkos:
    externals:
    - spec: kokkos@$kv +openmp +serial ~cuda
      prefix: $kprefix
    buildable: false
  kokkos-kernels:
    externals:
    - spec: kokkos-kernels@$kv +openmp +blas execspace_openmp=True ~cuda
      prefix: $kprefix
    buildable: false
EOF
fi
cat > "$scope/mirrors.yaml" <<EOF
mirrors:
  local: file://$mirror
EOF

t0=$SECONDS
spack -C "$scope" spec -l portablekernels
echo "spack spec: $((SECONDS - t0)) s"
t0=$SECONDS
spack -C "$scope" install -j2 portablekernels
echo "spack install: $((SECONDS - t0)) s"

# From a directory that is neither the source nor the build tree.
cd "$(mktemp -d "${TMPDIR:-/tmp}/pk-spack-run.XXXXXX")"
# `spack load` itself needs the shell function, which does not pass on -C: --sh prints its effect.
eval "$(spack -C "$scope" load --sh portablekernels)"
command -v pk-bench
t0=$SECONDS
pk-bench --space openmp --size tiny --out results
echo "pk-bench --space openmp --size tiny: $((SECONDS - t0)) s in $PWD"
spack -C "$scope" test run portablekernels
