#!/usr/bin/env bash
# Obtains, patches, builds and caches Kokkos + Kokkos Kernels, and prints the install
# prefix on the last line of stdout. Progress and errors go to stderr.
#
#   deps/bootstrap.sh openmp|cuda|hip
#
# Kokkos + Kokkos Kernels 4.6.01 from their release tarballs where they can be had (a folder
# of tarballs, or a download), otherwise 3.4.01 from Debian's trilinos 13.2.0-4 source package
# (for machines that reach only Debian). Checksums are always verified, and each version is
# built through its patch series in deps/patches/kokkos-<version> (each patch says why).
# The install goes to a cache keyed by version, patch set, build options and backend,
# reused by later builds and CI runs. The hip backend (AMD GPUs, built with Debian's hipcc) is
# built on 4.6.01 only: Kokkos 3.4.01 predates the HIP that Debian 12 packages (5.2).
#
# Environment:
#   PK_KOKKOS_VERSION    4.6.01 or 3.4.01: that version or an error (default: 4.6.01 if it
#                        can be had, else 3.4.01)
#   PK_KOKKOS_TARBALLS   a folder holding kokkos-4.6.01.tar.gz and kokkos-kernels-4.6.01.tar.gz
#                        (no download then)
#   PK_DEPS_CACHE        cache folder (default ~/.cache/portablekernels)
#   PK_JOBS              build jobs (default nproc)
#   PK_CUDA_ARCH         Kokkos arch option for the cuda backend (default HOPPER90)
#   PK_CXX_STANDARD      17 (default) or 20: 20 builds 4.6.01 as C++20 without the code that
#                        Kokkos 4 deprecated (Kokkos_ENABLE_DEPRECATED_CODE_4=OFF), as Kokkos 5
#                        will have it
#   PK_HIP_ARCH          Kokkos arch option for the hip backend (default AMD_GFX90A: MI210/MI250X)
#   PK_TRILINOS_TARBALL  a copy of trilinos_13.2.0.orig.tar.gz to use instead of downloading
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "pk-deps: error: $*" >&2; exit 1; }
say() { echo "pk-deps: $*" >&2; }
need() { command -v "$1" >/dev/null || die "$1 not found: $2"; }

backend=${1:-}
case "$backend" in
  openmp|cuda|hip) ;;
  *) die "usage: deps/bootstrap.sh openmp|cuda|hip (got '${backend}')" ;;
esac

release=4.6.01 fallback=3.4.01
# Release tarballs from GitHub, with the checksums the Kokkos project publishes.
declare -A release_sha256=(
  [kokkos-4.6.01]=b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a
  [kokkos-kernels-4.6.01]=95b9357f37ab3b9c3913c00741acb2501831c28ea8664de67818ae79c69c5908
)
kokkos_version=${PK_KOKKOS_VERSION:-}
case "$kokkos_version" in
  ""|$release|$fallback) ;;
  *) die "PK_KOKKOS_VERSION=$kokkos_version is not supported (use $release or $fallback)" ;;
esac
cuda_arch=${PK_CUDA_ARCH:-HOPPER90}
cxx_standard=${PK_CXX_STANDARD:-17}
case "$cxx_standard" in
  17) ;;
  20) [ "$kokkos_version" != "$fallback" ] || die "PK_CXX_STANDARD=20 needs Kokkos $release (PK_KOKKOS_VERSION=$fallback)"
      kokkos_version=$release ;;
  *) die "PK_CXX_STANDARD=$cxx_standard is not supported (use 17 or 20)" ;;
esac
hip_arch=${PK_HIP_ARCH:-AMD_GFX90A}
jobs=${PK_JOBS:-$(nproc)}
cache=${PK_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/portablekernels}
src=$cache/src
mkdir -p "$src"
# Downloads and unpacking into $src take turns; the lock is let go once the source is unpacked.
exec 8>"$src/.lock"
flock 8 || die "cannot lock $src"
verify() { echo "$2  $1" | sha256sum --check --status; }  # file, sha256

# Puts the release tarballs into $src, verified: from PK_KOKKOS_TARBALLS, from an earlier
# run, or downloaded. When none of these works it sets `missing` to why and fails.
fetch_release_tarballs() {
  local name
  for name in kokkos kokkos-kernels; do
    local file=$name-$release.tar.gz sha256=${release_sha256[$name-$release]}
    if [ -n "${PK_KOKKOS_TARBALLS:-}" ]; then
      [ -f "$PK_KOKKOS_TARBALLS/$file" ] || { missing="PK_KOKKOS_TARBALLS=$PK_KOKKOS_TARBALLS has no $file"; return 1; }
      verify "$PK_KOKKOS_TARBALLS/$file" "$sha256" \
        || { missing="checksum mismatch for $PK_KOKKOS_TARBALLS/$file (expected sha256 $sha256)"; return 1; }
      cp "$PK_KOKKOS_TARBALLS/$file" "$src/$file.part" && mv "$src/$file.part" "$src/$file"
    elif ! { [ -f "$src/$file" ] && verify "$src/$file" "$sha256"; }; then
      command -v curl >/dev/null || { missing="downloading $file needs curl (apt-get install curl)"; return 1; }
      say "downloading $file"
      curl -fsSL --connect-timeout 20 -o "$src/$file.part" \
          "https://github.com/kokkos/$name/releases/download/$release/$file" 2>/dev/null \
        || { rm -f "$src/$file.part"; missing="downloading $file failed (no internet access?)"; return 1; }
      verify "$src/$file.part" "$sha256" \
        || { rm -f "$src/$file.part"; missing="checksum mismatch for the downloaded $file (expected sha256 $sha256)"; return 1; }
      mv "$src/$file.part" "$src/$file"
    fi
  done
}

# A tarball folder or PK_KOKKOS_VERSION=4.6.01 asks for 4.6.01 alone; only a failed
# download falls back, and never for hip.
if [ "$backend" = hip ]; then
  [ "$kokkos_version" = "$fallback" ] \
    && die "the hip backend needs Kokkos $release: Kokkos $fallback predates Debian's HIP (5.2)"
  kokkos_version=$release
fi
if [ "$kokkos_version" != "$fallback" ] && [ -n "${PK_KOKKOS_TARBALLS:-}${kokkos_version}" ]; then
  fetch_release_tarballs || die "Kokkos $release: $missing"
  kokkos_version=$release
elif [ -z "$kokkos_version" ]; then
  if fetch_release_tarballs; then
    kokkos_version=$release
  else
    say "$missing: falling back to Kokkos $fallback from Debian's source"
    kokkos_version=$fallback
  fi
fi

# The build recipe. The cache key hashes it with the patches, so a change to either
# builds a fresh prefix and an unchanged one is reused.
kokkos_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=$cxx_standard
             -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON)
# C++20 rehearses Kokkos 5, which requires it and drops what Kokkos 4 deprecated.
[ "$cxx_standard" = 20 ] && kokkos_opts+=(-DKokkos_ENABLE_DEPRECATED_CODE_4=OFF)
# Kokkos Kernels: vendor BLAS behind the same calls (OpenBLAS on the host, cuBLAS on the GPU).
if [ "$kokkos_version" = "$fallback" ]; then
  # A small explicit-instantiation set (compiled into the library).
  eti=(-DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_FLOAT=OFF
       -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
       -DKokkosKernels_INST_ORDINAL_INT=ON -DKokkosKernels_INST_ORDINAL_INT64_T=OFF
       -DKokkosKernels_INST_OFFSET_INT=ON -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
       -DKokkosKernels_INST_LAYOUTLEFT=ON -DKokkosKernels_INST_LAYOUTRIGHT=OFF
       -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF -DKokkosKernels_INST_MEMSPACE_HBWSPACE=OFF
       -DKokkosKernels_INST_EXECSPACE_OPENMP=ON -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=ON)
else
  # No explicit instantiation: the few BLAS-1/2 calls the project makes are instantiated in
  # its own code, and gemm/trsm go to the vendor BLAS. Building every instantiation of the
  # BLAS component took longer than the project itself with nvcc.
  eti=(-DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
       -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
       -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF
       -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
       -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF
       -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON
       -DKokkosKernels_ENABLE_TPL_LAPACK=OFF -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF)
fi
kk_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=$cxx_standard "${eti[@]}"
         -DKokkosKernels_ENABLE_TPL_BLAS=ON -DBLAS_LIBRARIES=openblas -DLAPACK_LIBRARIES=openblas
         -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
         -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF)
if [ "$backend" = cuda ]; then
  kokkos_opts+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON "-DKokkos_ARCH_$cuda_arch=ON")
  [ "$kokkos_version" = "$fallback" ] \
    && kk_opts+=(-DKokkosKernels_INST_EXECSPACE_CUDA=ON -DKokkosKernels_INST_MEMSPACE_CUDASPACE=ON)
  kk_opts+=(-DKokkosKernels_ENABLE_TPL_CUBLAS=ON)
fi
if [ "$backend" = hip ]; then
  # Debian has no rocThrust, rocBLAS, rocSPARSE or rocSOLVER: Kokkos sorts without Thrust, and
  # Kokkos Kernels runs its own kernels on the GPU behind the same calls (docs/install.md).
  kokkos_opts+=(-DKokkos_ENABLE_HIP=ON "-DKokkos_ARCH_$hip_arch=ON" -DKokkos_ENABLE_ROCTHRUST=OFF)
  kk_opts+=(-DKokkosKernels_ENABLE_TPL_ROCBLAS=OFF -DKokkosKernels_ENABLE_TPL_ROCSPARSE=OFF
            -DKokkosKernels_ENABLE_TPL_ROCSOLVER=OFF)
fi

patches=("$here/patches/kokkos-$kokkos_version"/*.patch)
[ -e "${patches[0]}" ] || die "no patches found in $here/patches/kokkos-$kokkos_version"
recipe_key=$( { cat "${patches[@]}"; echo "${kokkos_opts[*]} ${kk_opts[*]}"; } | sha256sum | cut -c1-10)
prefix=$cache/kokkos-$kokkos_version-$backend-$recipe_key

# One bootstrap per prefix at a time: a second waits for the first, then reuses its install.
mkdir -p "$cache"
exec 9>"$cache/.lock-$(basename "$prefix")"
flock 9 || die "cannot lock $cache for $(basename "$prefix")"
if [ -f "$prefix/.complete" ]; then
  say "using cached Kokkos + Kokkos Kernels $kokkos_version in $prefix"
  echo "$prefix"
  exit 0
fi

need cmake "install it (apt-get install cmake)"
need g++ "install a C++ compiler (apt-get install g++)"
need patch "install it (apt-get install patch)"
ls /usr/lib/*/libopenblas.so >/dev/null 2>&1 || die "OpenBLAS not found (apt-get install libopenblas-openmp-dev)"
if [ "$backend" = cuda ]; then
  export PATH=$PATH:/usr/local/cuda/bin
  need nvcc "the cuda backend needs the CUDA toolkit (nvcc on PATH or in /usr/local/cuda/bin)"
fi
if [ "$backend" = hip ]; then
  export PATH=$PATH:${ROCM_PATH:-/opt/rocm}/bin
  need hipcc "the hip backend needs HIP (apt-get install hipcc libamdhip64-dev rocm-device-libs libomp-15-dev)"
  # hipcc is clang, whose OpenMP runtime is LLVM's (g++ builds use libgomp).
  compgen -G "/usr/lib/llvm-*/lib/libomp.so" >/dev/null || compgen -G "${ROCM_PATH:-/opt/rocm}/llvm/lib/libomp.so" >/dev/null \
    || die "the hip backend's OpenMP needs LLVM's libomp (apt-get install libomp-15-dev)"
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# Sets kokkos_src and kk_src to the unpacked Kokkos and Kokkos Kernels 3.4.01 of Debian's
# trilinos source package.
obtain_debian_source() {
  local version=13.2.0 debian_version=13.2.0-4
  local tarball=trilinos_$version.orig.tar.gz
  local sha256=0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90
  if [ -n "${PK_TRILINOS_TARBALL:-}" ]; then
    [ -f "$PK_TRILINOS_TARBALL" ] || die "PK_TRILINOS_TARBALL=$PK_TRILINOS_TARBALL does not exist"
    verify "$PK_TRILINOS_TARBALL" $sha256 || die "checksum mismatch for $PK_TRILINOS_TARBALL (expected sha256 $sha256)"
    cp "$PK_TRILINOS_TARBALL" "$src/$tarball.part" && mv "$src/$tarball.part" "$src/$tarball"
  elif ! { [ -f "$src/$tarball" ] && verify "$src/$tarball" $sha256; }; then
    say "downloading Debian source package trilinos=$debian_version (166 MB)"
    need apt-get "the bootstrap downloads Debian's trilinos source package with apt-get; elsewhere set Kokkos_ROOT"
    # A private deb-src list, so the system's apt configuration is left untouched.
    local f
    apt=$(mktemp -d)  # global: the exit trap outlives this function
    trap 'rm -rf "${apt:-}"' EXIT
    mkdir -p "$apt/sources" "$apt/lists/partial"
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$apt/sources/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] && sed -n 's/^deb /deb-src /p' "$f" >"$apt/sources/$(basename "$f").list"
    done
    ls "$apt"/sources/* >/dev/null 2>&1 || die "no apt sources in /etc/apt to derive a deb-src entry from"
    local opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/sources"
                -o "Dir::State::Lists=$apt/lists" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" -qq update >&2 || die "apt-get update of the deb-src lists failed (no network?)"
    (cd "$src" && apt-get "${opts[@]}" -qq source --download-only "trilinos=$debian_version" >&2) \
      || die "apt-get source trilinos=$debian_version failed (no network, or the version left the mirror)"
    [ -f "$src/$tarball" ] || die "download finished but $src/$tarball is missing"
    verify "$src/$tarball" $sha256 || die "checksum mismatch for $src/$tarball (expected sha256 $sha256); delete it and retry"
    rm -f "$src"/trilinos_*.debian.tar.* "$src"/trilinos_*.dsc
  fi
  local tree=$src/trilinos-$version
  if [ ! -f "$tree/.extracted" ]; then
    say "extracting packages/kokkos and packages/kokkos-kernels"
    rm -rf "$tree" && mkdir -p "$tree"
    tar xzf "$src/$tarball" -C "$tree" --strip-components=1 --wildcards \
      '*/packages/kokkos/*' '*/packages/kokkos-kernels/*' || die "could not extract $src/$tarball"
    touch "$tree/.extracted"
  fi
  kokkos_src=$tree/packages/kokkos kk_src=$tree/packages/kokkos-kernels
}

# Unpacks the release tarballs (fetched above) into the work folder.
unpack_release_source() {
  local name
  for name in kokkos kokkos-kernels; do
    mkdir -p "$work/$name-src"
    tar xzf "$src/$name-$release.tar.gz" -C "$work/$name-src" --strip-components=1 \
      || die "could not extract $src/$name-$release.tar.gz"
  done
  kk_src=$work/kokkos-kernels-src
}

# --- obtain, patch, build and install ---------------------------------------------------
# Everything is built in a work folder of this prefix's own, so builds for other prefixes can
# run beside it.
work=$cache/build/$(basename "$prefix")
rm -rf "$work" "$prefix" && mkdir -p "$work"
if [ "$kokkos_version" = "$fallback" ]; then
  obtain_debian_source
  cp -r "$kokkos_src" "$work/kokkos-src"
else
  unpack_release_source
fi
flock -u 8
for p in "${patches[@]}"; do
  say "applying $(basename "$p")"
  patch -s -p1 -d "$work/kokkos-src" <"$p" || die "patch $(basename "$p") does not apply"
done

build() {  # name, source, build dir, options...
  local name=$1 source=$2 dir=$3; shift 3
  say "configuring $name ($backend)"
  cmake -S "$source" -B "$dir" "${generator[@]}" "$@" >"$dir.configure.log" 2>&1 \
    || die "configuring $name failed; see $dir.configure.log"
  say "building $name with $jobs jobs (log: $dir.build.log)"
  cmake --build "$dir" --parallel "$jobs" >"$dir.build.log" 2>&1 \
    || die "building $name failed; see $dir.build.log"
  cmake --install "$dir" >>"$dir.build.log" 2>&1 || die "installing $name failed; see $dir.build.log"
}

if [ "$backend" = cuda ]; then
  kokkos_cxx=$work/kokkos-src/bin/nvcc_wrapper kk_cxx=$prefix/bin/nvcc_wrapper
elif [ "$backend" = hip ]; then
  kokkos_cxx=hipcc kk_cxx=hipcc
else
  kokkos_cxx=g++ kk_cxx=g++
fi
start=$SECONDS
build Kokkos "$work/kokkos-src" "$work/kokkos" \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_COMPILER="$kokkos_cxx" "${kokkos_opts[@]}"
build "Kokkos Kernels" "$kk_src" "$work/kokkos-kernels" \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_COMPILER="$kk_cxx" -DKokkos_ROOT="$prefix" "${kk_opts[@]}"
rm -rf "$work"
{
  echo "kokkos=$kokkos_version backend=$backend"
  [ "$backend" = cuda ] && echo "arch=$cuda_arch"
  [ "$backend" = hip ] && echo "arch=$hip_arch"
  echo "patches=$(for p in "${patches[@]}"; do basename "$p" .patch; done | tr '\n' ' ')"
  echo "built=$(date -u +%FT%TZ) seconds=$((SECONDS - start))"
} >"$prefix/.complete"
say "installed Kokkos + Kokkos Kernels $kokkos_version ($backend) in $prefix after $((SECONDS - start)) s"
echo "$prefix"
