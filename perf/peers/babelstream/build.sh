#!/usr/bin/env bash
# BabelStream (UoB-HPC/BabelStream) in the models named (default "omp cuda", and kokkos where
# Kokkos_ROOT names a Kokkos install: BabelStream's Kokkos model then builds against it, with
# that install's compiler, e.g. its nvcc_wrapper for a CUDA Kokkos). Its own CMake build,
# Release, no patch: the array size and repetitions are command-line options.
#   perf/peers/babelstream/build.sh [model...]   (source: PK_PEER_BABELSTREAM_SRC;
#                                                PK_PEER_CUDA_ARCH, default sm_90)
# Binaries: build/peers/babelstream/<model>/<model>-stream.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source babelstream UoB-HPC/BabelStream 57637d572532fc028b6c0964944f1afc27ff5436 PK_PEER_BABELSTREAM_SRC
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(omp cuda)
  [ -z "${Kokkos_ROOT:-}" ] || models+=(kokkos)
fi
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
arch=${PK_PEER_CUDA_ARCH:-sm_90}
info=() failed=() built=()
# A model that cannot be built is reported and skipped; the others are built and recorded.
fail() { peer_say "babelstream $model: $*"; failed+=("$model"); }
for model in "${models[@]}"; do
  dir=$peers_build/babelstream/$model
  rm -rf "$dir" && mkdir -p "$dir"
  args=(-DMODEL="$model" -DCMAKE_BUILD_TYPE=Release)
  case "$model" in
    omp) args+=(-DCMAKE_CXX_COMPILER=g++) ;;
    cuda)
      [ -x "$nvcc" ] || { fail "no nvcc (PATH, CUDA_HOME or /usr/local/cuda)"; continue; }
      args+=(-DCMAKE_CXX_COMPILER=g++ -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDA_ARCH="$arch")
      # A toolkit without NVML's header: babelstream/no-nvml/nvml.h and an empty libnvidia-ml
      # (dropped by --as-needed) in its place; the model prints a 0 MHz memory clock then.
      if ! echo '#include <nvml.h>' | "$nvcc" -E -x cu - >/dev/null 2>&1; then
        peer_say "babelstream: cuda: no <nvml.h> in this CUDA toolkit: using perf/peers/babelstream/no-nvml"
        mkdir -p "$dir/no-nvml" && gcc -shared -o "$dir/no-nvml/libnvidia-ml.so" -x c /dev/null
        args+=(-DCUDA_EXTRA_FLAGS="-I$here/no-nvml" -DCMAKE_EXE_LINKER_FLAGS="-L$dir/no-nvml -Wl,--as-needed")
        info+=("nvml_cuda=stand-in header perf/peers/babelstream/no-nvml/nvml.h (the toolkit has no nvml.h)")
      fi ;;
    kokkos)
      [ -n "${Kokkos_ROOT:-}" ] || { fail "set Kokkos_ROOT to a Kokkos install"; continue; }
      cxx=${PK_PEER_KOKKOS_CXX:-}
      # A CUDA Kokkos compiles through its nvcc_wrapper; a host-only one with g++.
      if [ -z "$cxx" ]; then
        cxx=g++
        if grep -qs '^#define KOKKOS_ENABLE_CUDA' "$Kokkos_ROOT/include/KokkosCore_config.h"; then
          cxx=$Kokkos_ROOT/bin/nvcc_wrapper
        fi
      fi
      args+=(-DCMAKE_CXX_COMPILER="$cxx" -DKOKKOS_IN_PACKAGE="$Kokkos_ROOT" -DKokkos_ROOT="$Kokkos_ROOT") ;;
    *) fail "not a model this harness builds (omp, cuda, kokkos)"; continue ;;
  esac
  peer_say "babelstream: $model: cmake ${args[*]}"
  if ! { cmake -S "$peer_src" -B "$dir" "${args[@]}" && cmake --build "$dir" -j"$peers_jobs"; } >"$dir/build.log" 2>&1 ||
    [ ! -x "$dir/$model-stream" ]; then
    tail -20 "$dir/build.log" >&2
    fail "did not build (log: $dir/build.log)"
    continue
  fi
  built+=("$model")
  info+=("cmake_$model=${args[*]}" "binary_$model=babelstream/$model/$model-stream"
         "flags_$model=$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:[A-Z]*=//p' "$dir/CMakeCache.txt") $(grep -ho -- '-[DO]\S*\|-march\S*\|-arch\S*\|-fopenmp\S*' "$dir"/CMakeFiles/*.dir/flags.make 2>/dev/null | sort -u | tr '\n' ' ')")
done
[ ${#built[@]} -eq 0 ] || PK_PEER_INFO_MERGE=1 peer_info babelstream "models_last_built=${built[*]}" "patch=none" "${info[@]}"
[ ${#failed[@]} -eq 0 ] || peer_die "babelstream: not built: ${failed[*]}"
