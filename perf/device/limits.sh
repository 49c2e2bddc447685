#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): Nsight Compute over the kernels of the pk-bench cases that stay below
# 0.9 of their limit, for perf/limits.py to name what limits each (#46 item 6).
#   perf/device/limits.sh OUT [CASE...]
# A CASE is kernel;case-regex;kernel-name-regex;launches;filter-mode, e.g.
#   'lbm;^aa-fp32-512$;StreamCollide|StagedCollide;2;per-launch-config'
# (default: the list below): of pk-bench's run of the case, the kernels whose demangled names
# match, `launches` of them (after skipping one, a warm-up) in all (filter mode global) or of
# each kernel and grid (per-launch-config: an autotune's small trials and the run's own steps).
# Each gets OUT/<kernel>-<case>.csv, ncu's raw page (every metric of the sections below, a row
# per profiled launch), its report (.ncu-rep) and the pk-bench record.
# The clocks are left as they are (--clock-control none).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: perf/device/limits.sh OUT [CASE...]}
shift
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -x "$ncu" ] || { echo "limits: no ncu on PATH, in /usr/local/cuda/bin or /opt/nvidia" >&2; exit 1; }
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(
  'lbm;^aa-fp32-512$;pk::lbm::Details;2;per-launch-config'
  'lbm;^aa-fp16-512$;pk::lbm::Details;2;per-launch-config'
  'lbm;^ab-fp16-512$;pk::lbm::Details;2;per-launch-config'
  'lbm;^aa-fp64-256$;pk::lbm::Details;2;per-launch-config'
  'rfilter;^field256-x$;pk::rfilter;2;per-launch-config'
  'rfilter;^field256-y$;pk::rfilter;2;per-launch-config'
  'rfilter;^field256-z$;pk::rfilter;2;per-launch-config'
  'rfilter;^line-n100000-k100$;pk::rfilter;2;per-launch-config'
  'copy;^range-policy$;pk::copy<;2;per-launch-config'
  'gbees;^lorenz63$;pk::gbees;60;global'
  'gbees;^lorenz96$;pk::gbees;60;global'
)
sections=(SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats SchedulerStats ComputeWorkloadAnalysis)
mkdir -p "$out"
status=0
for c in "${cases[@]}"; do
  IFS=';' read -r kernel case names launches mode <<<"$c"
  tag=$kernel-$(echo "$case" | tr -cd 'A-Za-z0-9-')
  start=$SECONDS
  "$ncu" --clock-control none --target-processes all --kernel-name-base demangled \
    --kernel-name "regex:$names" --filter-mode "$mode" --launch-skip 1 --launch-count "$launches" \
    $(printf -- '--section %s ' "${sections[@]}") --export "$out/$tag" --force-overwrite \
    "$bin/pk-bench" --kernel "$kernel" --space cuda --size full --case "$case" --out "$out/records" \
    >"$out/$tag.log" 2>&1
  rc=$?
  "$ncu" --import "$out/$tag.ncu-rep" --csv --page raw >"$out/$tag.csv" 2>>"$out/$tag.log" || rc=1
  echo "limits: $tag: exit $rc after $((SECONDS - start)) s, $(($(wc -l <"$out/$tag.csv") - 2)) launches profiled"
  [ $rc -eq 0 ] || status=1
done
exit $status
