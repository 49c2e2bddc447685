# Sourced by tests/spack/*_with_offline_spack.sh: the offline Spack 0.23 of ../shared/tools in
# $work (unpacked once), its configuration under $work (nothing under ~ is read or written;
# PK_SPACK_CACHE names a cache to keep), and $scope, a configuration scope with the project's
# repositories (spack/overrides, which adds Kokkos 4.6.01 and its CUDA 13 patches, then spack)
# and Debian's packages and the system's CUDA as externals.
# Spack searches no full builtin repository (indexing its ~8000 recipes takes ~9 min cold on
# 2 cores): $work/builtin holds only the ~550 recipes that portablekernels can reach.
# Needs $root (the repository) and $work; PK_SPACK_TARBALL names the Spack tarball if it is not
# $root/../shared/tools/offline-spack.tar.xz.
tarball=${PK_SPACK_TARBALL:-$root/../shared/tools/offline-spack.tar.xz}
[ -d "$work/offline-spack" ] || tar -xJf "$tarball" -C "$work"
export SPACK_USER_CONFIG_PATH=$work/config SPACK_USER_CACHE_PATH=${PK_SPACK_CACHE:-$work/cache}
# shellcheck disable=SC1091
source "$work/offline-spack/activate.sh"
scope=$work/scope
mkdir -p "$scope"
cp "$root/tests/spack/offline/packages.yaml" "$scope/"
repos() {  # repos.yaml of the scope: ours first; `repos::` drops the builtin one if asked
  printf 'repos%s\n' "$1"
  printf -- '- %s\n' "$root/spack/overrides" "$root/spack" "${@:2}"
} > "$scope/repos.yaml"
if [ ! -d "$work/builtin" ]; then
  repos :
  # gcc-runtime: the concretizer adds it to every spec built with GCC.
  spack -C "$scope" python "$root/tests/spack/offline/closure_repo.py" "$work/builtin" \
    portablekernels gcc-runtime
fi
repos :: "$work/builtin"
spack compiler find --scope user > /dev/null
