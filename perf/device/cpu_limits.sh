#!/usr/bin/env bash
# On a GPU machine's host CPU, over a carried staged build (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device): the pk-bench cases that stay below 0.9 of their limit
# on OpenMP at half and all of the machine's threads (perf/device/threads.sh at full size), for
# perf/limits.py to tell a kernel bound by its cores (twice the threads, about twice the speed)
# from one bound by what the cores share (memory, the last-level cache: about the same speed).
# The machines' CPUs have no hardware counters (a VM without a PMU, no perf): the thread count
# is the probe left.
#   perf/device/cpu_limits.sh OUT [KERNEL;CASE-REGEX...]
# Records go to OUT/threads-<n>/; PK_THREADS (default "8 16") sets the two counts.
set -uo pipefail
out=${1:?usage: perf/device/cpu_limits.sh OUT [KERNEL;CASE-REGEX...]}
shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(
  'copy;^(range-policy|deep-copy)$'
  'lbm;^(aa|ab)-fp(16|32|64)-256$'
  'rfilter;^(field256-[xyz]|line-n100000-k100)$'
  'gbees;^(lorenz63|lorenz96)$'
)
PK_THREADS=${PK_THREADS:-8 16} exec "$(dirname "$0")/threads.sh" "$out" full "${cases[@]}"
