#!/usr/bin/env bash
# Stages a CUDA build (default build/cuda) for a GPU machine that has the CUDA runtime but not
# this machine's Debian libraries: the binaries plus OpenBLAS (and its Fortran runtime), GSL
# and NLopt, in a folder (default build/device) to carry. Run perf/device/run.sh there.
#   perf/device/stage.sh [--bench] [build-dir] [staged-dir]
# --bench stages only what perf/device/platform.sh, threads.sh and perf/peers/device.sh run
# (pk-bench, pk-info, pk-gbees) and the libraries they load, stripped: about 60 MB, 12 MB as
# tar.xz, where the whole build passes the device tool's 64 MiB carry. It needs only those
# three targets built (cmake --build --preset cuda --target pk-bench pk-info pk-gbees).
set -euo pipefail
cd "$(dirname "$0")/../.."
# Every library FILE... load that the GPU machine's C/C++ and CUDA runtimes do not provide, into
# the staged lib/ (one already there is kept).
copy_loaded_libraries() {  # FILE...
  { ldd "$@" 2>/dev/null || true; } |
    awk '$2 == "=>" && $3 ~ /^\// && $3 !~ /^\/usr\/local\/cuda/ {print $3}' | sort -u |  # the GPU machine has CUDA
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s|libgomp|libcuda|libcudart)\.so' |
    while read -r lib; do [ -e "$staged/lib/$(basename "$lib")" ] || cp -L "$lib" "$staged/lib/"; done
}
bench_only=false
[ "${1:-}" = --bench ] && { bench_only=true; shift; }
build=${1:-build/cuda} staged=${2:-build/device}
arch=$(sed -n 's/^PK_HOST_ARCH:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null) \
  || { echo "stage: $build is not a configured build" >&2; exit 1; }
[ "$arch" != native ] || echo "stage: warning: $build targets this machine's CPU (PK_HOST_ARCH=native);" \
  "for another host, reconfigure it with that host's level, e.g. -DPK_HOST_ARCH=x86-64-v4" >&2
if $bench_only; then
  programs=("$build/perf/pk-bench" "$build/apps/pk-info" "$build/apps/pk-gbees")
  for program in "${programs[@]}"; do
    [ -x "$program" ] || { echo "stage: no $program (cmake --build --preset cuda --target pk-bench pk-info pk-gbees)" >&2; exit 1; }
  done
  rm -rf "$staged" && mkdir -p "$staged/lib"
  cp "${programs[@]}" "$staged/"
  strip "$staged"/pk-*
  copy_loaded_libraries "${programs[@]}"
  du -sh "$staged"
  exit 0
fi
# The whole build, test programs included: ./pk test on a machine without a GPU compiles only
# the libraries and programs (pk-programs).
[ -x "$build/perf/pk-bench" ] && [ -x "$build/tests/pk-tests" ] \
  || { echo "stage: build all of $build first (cmake --build --preset cuda)" >&2; exit 1; }
rm -rf "$staged" && mkdir -p "$staged/lib"
cp "$build"/apps/pk-{info,gbees,lbm,matern} "$build"/perf/pk-{bench,besselk-accuracy} \
   "$build"/tests/pk-tests{,-besselk} "$staged/"
for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libgsl.so.27 libgslcblas.so.0 libnlopt.so.0; do
  cp -L "$(ldconfig -p | awk -v l=$lib '$1 == l {print $NF; exit}')" "$staged/lib/"
done
# A build with MPI: the MPI programs, and Debian's Open MPI unpacked under openmpi/ (it
# relocates through OPAL_PREFIX) with every library its files and ours load that is not part
# of the C/C++ runtime the GPU machine has; source mpi-env.sh there before mpirun.
if grep -q '^PK_ENABLE_MPI:BOOL=ON' "$build/CMakeCache.txt"; then
  cp "$build/apps/pk-3dvar" "$build/tests/pk-tests-mpi" "$staged/"
  debs=build/debs/openmpi
  mkdir -p "$debs"
  [ -n "$(ls "$debs"/*.deb 2>/dev/null)" ] ||
    (cd "$debs" && apt-get download openmpi-bin libopenmpi3 openmpi-common libpmix2)
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$staged/openmpi"; done
  ln -s orterun "$staged/openmpi/usr/bin/mpirun"  # Debian names it through alternatives
  mapfile -t files < <(find "$staged" -type f \( -perm -u+x -o -name '*.so*' \))
  copy_loaded_libraries "${files[@]}"
  cat > "$staged/mpi-env.sh" <<'EOF_ENV'
# Sourced on the GPU machine: the carried Open MPI (shared memory only; the machine has no network).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usr=$here/openmpi/usr
export OPAL_PREFIX=$usr PMIX_INSTALL_PREFIX=$usr PATH=$usr/bin:$PATH
export LD_LIBRARY_PATH=$here/lib:$usr/lib/x86_64-linux-gnu/openmpi/lib:$usr/lib/x86_64-linux-gnu:$usr/lib/x86_64-linux-gnu/pmix2/lib:${LD_LIBRARY_PATH:-}
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EOF_ENV
fi
du -sh "$staged"
