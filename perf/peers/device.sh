#!/usr/bin/env bash
# The peers (#62) on a GPU machine in one command: builds the peers (from build/peers/src, see
# perf/peers/prepare.sh), then perf/peers/run.py: each peer and the matching pk-bench cases of
# a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD, default build/device),
# repetitions interleaved; records, peers.md and peers.png in OUT.
#   perf/peers/device.sh [OUT] [gpu|cpu|all|COMPARISON...] [-- run.py options]
# OUT defaults to $OUT/peers (the device tool's output folder), else build/peers/results. An OUT
# inside the device tool's folder comes back as one tarball, OUT.tgz: the tool returns only a
# few files of a folder, and a run writes hundreds.
# Groups: gpu = fluidx3d cubesselk babelstream-cuda gbees-cuda:lorenz63 (+ babelstream-kokkos with a
# Kokkos); cpu = rrze babelstream-omp gbees-c; all (default) = both. COMPARISON:CASE,... names some
# cases of one (gbees-cuda:cr3bp; gbees-cuda alone: its three examples). A peer already built (its
# build/peers/<peer>/build-info.json; for BabelStream, the model's binary) is not rebuilt unless
# PK_PEERS_REBUILD=1: a second call on a warm machine, or binaries built elsewhere and carried.
# Expected on 16 cores + H200: builds about 1 minute; gpu about 5 minutes (FluidX3D's 1024^3
# runs dominate, or fail at once where NVIDIA's OpenCL buffer limit stops them); cpu about 3-4
# minutes. All at once may pass 8 minutes: two calls (gpu, then cpu, same machine while warm)
# stay well inside a 10-minute limit. perf/peers/README.md says what to carry.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-${OUT:+$OUT/peers}}
out=${out:-build/peers/results}
[ $# -gt 0 ] && shift
what=() extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; extra=("$@"); break; fi
  what+=("$1"); shift
done
[ ${#what[@]} -gt 0 ] || what=(all)
bin=${PK_DEVICE_BUILD:-build/device}
pk_bench=${PK_BENCH:-$bin/pk-bench}
mkdir -p "$out/build-logs"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
export PK_PEERS_JOBS=${PK_PEERS_JOBS:-$(nproc)}
start=$(date +%s)
say() { echo "device.sh: [$(($(date +%s) - start)) s] $*" >&2; }

# Which builds the comparisons need.
builds=() models=()
want() { for b in "${builds[@]}"; do [ "$b" = "$1" ] && return; done; builds+=("$1"); }
for w in "${what[@]}"; do
  case "$w" in
    all) want fluidx3d; want cubesselk; want babelstream; want gbeescuda; want rrze; want gbeesc; models+=(cuda omp) ;;
    gpu) want fluidx3d; want cubesselk; want babelstream; want gbeescuda; models+=(cuda) ;;
    cpu) want rrze; want babelstream; want gbeesc; models+=(omp) ;;
    fluidx3d|cubesselk|rrze) want "$w" ;;
    fluidx3d-cpu) want fluidx3d ;;
    gbees-cuda|gbees-cuda:*) want gbeescuda ;;
    gbees-c) want gbeesc ;;
    babelstream-*) want babelstream; models+=("${w#babelstream-}") ;;
    *) echo "device.sh: unknown comparison '$w'" >&2; exit 2 ;;
  esac
done
# BabelStream's Kokkos model: against Kokkos_ROOT, else a carried install in build/peers/kokkos
# (perf/peers/prepare.sh); pk-bench's copy beside it on the space that Kokkos targets.
[ -n "${Kokkos_ROOT:-}" ] || [ ! -f build/peers/kokkos/include/KokkosCore_config.h ] || export Kokkos_ROOT=$PWD/build/peers/kokkos
kokkos_space=openmp
grep -qs '^#define KOKKOS_ENABLE_CUDA' "${Kokkos_ROOT:-/nonexistent}/include/KokkosCore_config.h" && kokkos_space=cuda
if [ -n "${Kokkos_ROOT:-}" ]; then
  for w in "${what[@]}"; do case "$w" in all|gpu) models+=(kokkos) ;; esac; done
fi
models=($(printf '%s\n' "${models[@]}" | sort -u))

# The builds, side by side (each uses all cores; they are short).
pids=()
for b in "${builds[@]}"; do
  args=()
  if [ "$b" = babelstream ]; then  # the models not built yet
    for m in "${models[@]}"; do
      [ "${PK_PEERS_REBUILD:-0}" != 1 ] && grep -qs "\"binary_$m\"" build/peers/babelstream/build-info.json &&
        [ -x "build/peers/babelstream/$m/$m-stream" ] || args+=("$m")
    done
    [ ${#args[@]} -gt 0 ] || { say "babelstream ${models[*]}: already built (PK_PEERS_REBUILD=1 rebuilds)"; continue; }
  elif [ "${PK_PEERS_REBUILD:-0}" != 1 ] && [ -f "build/peers/$b/build-info.json" ]; then
    say "$b: already built (PK_PEERS_REBUILD=1 rebuilds)"
    continue
  fi
  say "building $b ${args[*]}"
  "perf/peers/$b/build.sh" "${args[@]}" >"$out/build-logs/$b.log" 2>&1 &
  pids+=("$!:$b")
done
for p in "${pids[@]}"; do
  if wait "${p%%:*}"; then say "${p#*:}: built"; else say "${p#*:}: BUILD FAILED (log $out/build-logs/${p#*:}.log):"; tail -5 "$out/build-logs/${p#*:}.log" >&2; fi
done
mkdir -p "$out/build-info"
for b in "${builds[@]}"; do
  [ -f "build/peers/$b/build-info.json" ] && cp "build/peers/$b/build-info.json" "$out/build-info/$b.json"
  for f in build/peers/"$b"/*.patch build/peers/"$b"/*.diff; do [ -f "$f" ] && cp "$f" "$out/build-info/"; done
done

# FluidX3D's OpenCL loader and NVIDIA ICD.
. perf/peers/opencl_env.sh

say "running: ${what[*]}"
python=python3  # one with matplotlib for the chart, where there is one
for p in python3 /usr/bin/python3; do if "$p" -c 'import matplotlib' 2>/dev/null; then python=$p; break; fi; done
"$python" perf/peers/run.py --out "$out" --pk-bench "$pk_bench" --kokkos-space "$kokkos_space" "${what[@]}" "${extra[@]}"
status=$?
say "done (status $status): $out/peers.md"
[ -f "$out/peers.md" ] && sed -n '/^| comparison/,/^$/p' "$out/peers.md"
if [ -n "${OUT:-}" ] && [[ "$out" == "$(cd "$OUT" && pwd)"/* ]]; then
  tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out" && say "packed into $out.tgz"
fi
exit $status
