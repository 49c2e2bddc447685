#!/usr/bin/env bash
# CPU strong scaling on the GPU machine's host, over a carried staged build
# (perf/device/stage.sh; PK_DEVICE_BUILD, default build/device): pk-bench on OpenMP at each
# thread count (PK_THREADS, default "1 2 4 8 16"), the same problems every time, records in
# $1/threads-<n>/. Size: $2 (default small: a one-thread run stays within minutes).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results/threads}
size=${2:-small}
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
status=0
for threads in ${PK_THREADS:-1 2 4 8 16}; do
  start=$SECONDS
  timeout "${PK_BENCH_LIMIT:-150}" "$bin/pk-bench" --space openmp --size "$size" --out "$out/threads-$threads" \
    --kokkos-num-threads="$threads" > "$out/threads-$threads.log" 2>&1
  rc=$?
  echo "threads.sh: $threads threads: exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
done
exit $status
