#!/usr/bin/env bash
# CPU strong scaling on the GPU machine's host, over a carried staged build
# (perf/device/stage.sh; PK_DEVICE_BUILD, default build/device): pk-bench on OpenMP at each
# thread count (PK_THREADS, default "1 2 4 8 16"), the same problems every time, records in
# $1/threads-<n>/. Size: $2 (default small: a one-thread run stays within minutes). Further
# arguments, each KERNEL;CASE-REGEX, narrow the run to those cases (one pk-bench run each);
# without them every kernel runs. Each run stops after PK_BENCH_LIMIT seconds (default 150).
#   perf/device/threads.sh [OUT [SIZE [KERNEL;CASE-REGEX...]]]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results/h200/threads}
size=${2:-small}
shift $(($# < 2 ? $# : 2))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=('all;.')
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
mkdir -p "$out"
status=0
for threads in ${PK_THREADS:-1 2 4 8 16}; do
  : >"$out/threads-$threads.log"
  for c in "${cases[@]}"; do
    IFS=';' read -r kernel case <<<"$c"
    start=$SECONDS
    timeout "${PK_BENCH_LIMIT:-150}" "$bin/pk-bench" --kernel "$kernel" --space openmp --size "$size" --case "$case" \
      --out "$out/threads-$threads" --kokkos-num-threads="$threads" >>"$out/threads-$threads.log" 2>&1
    rc=$?
    echo "threads.sh: $kernel '$case' on $threads threads: exit $rc after $((SECONDS - start)) s"
    [ $rc -eq 0 ] || status=1
  done
done
exit $status
