# Sourced by tests/spack/*_with_offline_spack.sh: the offline Spack 0.23 of ../shared/tools in
# $work (unpacked once), its configuration under $work (nothing under ~ is read or written;
# PK_SPACK_CACHE names a cache to keep: a cold one costs minutes of package indexing),
# and $scope, a configuration scope with the project's repository, the 0.23 overrides that add
# Kokkos 4.6.01, and Debian's packages as externals. Needs $root (the repository) and $work.
tarball=$root/../shared/tools/offline-spack.tar.xz
[ -d "$work/offline-spack" ] || tar -xJf "$tarball" -C "$work"
export SPACK_USER_CONFIG_PATH=$work/config SPACK_USER_CACHE_PATH=${PK_SPACK_CACHE:-$work/cache}
# shellcheck disable=SC1091
source "$work/offline-spack/activate.sh"
scope=$work/scope
mkdir -p "$scope"
cp "$root/tests/spack/offline/packages.yaml" "$scope/"
cat > "$scope/repos.yaml" <<REPOS
repos:
- $root/spack
- $root/tests/spack/offline/repo
REPOS
spack compiler find --scope user > /dev/null
