#!/usr/bin/env bash
# `spack install portablekernels` (OpenMP) with the offline Spack 0.23 and no network, then
# the installed programs from another directory: `spack load portablekernels && pk-bench
# --space openmp --size tiny`, and the recipe's stand-alone tests (`spack test run`).
# Sources come from a local mirror: Kokkos and Kokkos Kernels 4.6.01 from ../shared/deps,
# and PortableKernels 0.2.0 as the archive of the commit the recipe names (`git archive |
# gzip -n`, the bytes of GitHub's archive, whose sha256 the recipe records). Takes ~40 min on
# 2 cores with Spack's default Kokkos Kernels (most of it), ~20 min without its instantiations.
#   tests/spack/install_with_offline_spack.sh WORK_DIR [SPEC...]   (run it niced)
# SPEC defaults to `portablekernels`; a site's `portablekernels +mpi +hdf5` builds on Debian's
# Open MPI 4.1.4 and parallel HDF5 1.10.8, externals that are not buildable (no network: Spack
# could not fetch their sources anyway; offline/debian-mpi.yaml). PK_SPACK_SITE=1 adds the site lines
# of docs/install.md that a CPU build reads: Kokkos Kernels without explicit instantiations.
# WORK_DIR keeps the Spack tree, its configuration and the installs (rerunning reuses them);
# WORK_DIR/out gets `spack spec -l`, `spack find -lv`, pk-info, the pk-bench table and the
# stand-alone tests' results of the last run.
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
cat "$root/tests/spack/offline/debian-mpi.yaml" >> "$scope/packages.yaml"
if [ "${PK_SPACK_SITE:-0}" = 1 ]; then
  cat >> "$scope/packages.yaml" <<'EOF'
  kokkos-kernels:  # docs/install.md's site lines: the calls are instantiated in PortableKernels
    require: execspace_cuda=False execspace_openmp=False execspace_serial=False memspace_cudaspace=False memspace_cudauvmspace=False
EOF
fi
cat > "$scope/mirrors.yaml" <<EOF
mirrors:
  local: file://$mirror
EOF

spec=("${@:2}")
[ ${#spec[@]} -gt 0 ] || spec=(portablekernels)
out=$work/out
rm -rf "$out" && mkdir -p "$out"
t0=$SECONDS
spack -C "$scope" spec -l "${spec[@]}" | tee "$out/spec.txt"
echo "spack spec: $((SECONDS - t0)) s"
t0=$SECONDS
spack -C "$scope" install -j2 "${spec[@]}" 2>&1 | tee "$out/install.txt"
echo "spack install: $((SECONDS - t0)) s" | tee -a "$out/install.txt"
spack -C "$scope" find -lv | tee "$out/find.txt"

# From a directory that is neither the source nor the build tree.
cd "$(mktemp -d "${TMPDIR:-/tmp}/pk-spack-run.XXXXXX")"
# `spack load` itself needs the shell function, which does not pass on -C: --sh prints its effect.
eval "$(spack -C "$scope" load --sh "${spec[@]}")"
command -v pk-bench
pk-info | tee "$out/pk-info.txt"
t0=$SECONDS
pk-bench --space openmp --size tiny --out results | tee "$out/pk-bench-tiny.txt"
echo "pk-bench --space openmp --size tiny: $((SECONDS - t0)) s in $PWD" | tee -a "$out/pk-bench-tiny.txt"
alias=pk-$(date +%s)  # an earlier run's suite may be there
rc=0
spack -C "$scope" test run --alias "$alias" "${spec[@]}" 2>&1 | tee "$out/test-run.txt" || rc=$?
spack -C "$scope" test results -l "$alias" 2>&1 | tee "$out/test-results.txt"
exit $rc
