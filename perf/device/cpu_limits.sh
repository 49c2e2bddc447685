#!/usr/bin/env bash
# On a GPU machine's host CPU, over a carried staged build (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device): the pk-bench cases that stay below 0.9 of their limit
# on OpenMP at half and all of the machine's threads, for perf/limits.py to tell a kernel bound
# by its cores (twice the threads, about twice the speed) from one bound by what the cores share
# (memory, the last-level cache: about the same speed). The machines' CPUs have no hardware
# counters (a VM without a PMU, no perf): the thread count is the probe left.
#   perf/device/cpu_limits.sh OUT [KERNEL;CASE-REGEX...]
# Records go to OUT/threads-<n>/; PK_THREADS (default "8 16") sets the two counts.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: perf/device/cpu_limits.sh OUT [KERNEL;CASE-REGEX...]}
shift
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(
  'copy;^(range-policy|deep-copy)$'
  'lbm;^(aa|ab)-fp(16|32|64)-256$'
  'rfilter;^(field256-[xyz]|line-n100000-k100)$'
  'gbees;^(lorenz63|lorenz96)$'
)
mkdir -p "$out"
status=0
for threads in ${PK_THREADS:-8 16}; do
  for c in "${cases[@]}"; do
    IFS=';' read -r kernel case <<<"$c"
    start=$SECONDS
    "$bin/pk-bench" --kernel "$kernel" --space openmp --size full --case "$case" --out "$out/threads-$threads" \
      --kokkos-num-threads="$threads" >>"$out/threads-$threads.log" 2>&1
    rc=$?
    echo "cpu_limits: $kernel '$case' on $threads threads: exit $rc after $((SECONDS - start)) s"
    [ $rc -eq 0 ] || status=1
  done
done
exit $status
