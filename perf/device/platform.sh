#!/usr/bin/env bash
# A platform's bench (every kernel, GPU and CPU, full size) at one commit in two calls of the
# device tool, each inside its time limit, over a carried staged build (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device):
#   part 1: the GPU's records of every kernel, then the CPU's: all but LBM fp64 and fp16
#   part 2: the CPU's LBM fp64 and fp16, K_nu's FP64 operations (perf/device/besselk_ops.sh),
#           then, in the time left, the GPU peers (perf/peers/device.sh)
#   perf/device/platform.sh 1|2 START [LIMIT]
# START: the call's start (date +%s), taken before the carry is unpacked, so that the stages
# fit LIMIT seconds (default 540) of the call. Records are written under WORK (PK_PLATFORM_WORK,
# default /tmp/platform-PART), and after every stage WORK goes into one tarball,
# $OUT/platform-PART.tgz (else build/platform-PART.tgz): a call stopped at its limit still returns
# what finished, and the device tool's count of returned files is never reached. The tuning
# cache is WORK/tuning unless PK_TUNING_CACHE names one: each call tunes for itself (a run
# repeated for perf/merge_runs.py does not take an earlier run's choices) and its choices, with
# every candidate's trials, come back with the records.
set -uo pipefail
cd "$(dirname "$0")/../.."
part=${1:-} start=${2:-}
limit=${3:-540}
case "$part" in 1 | 2) ;; *) echo "platform.sh: the part must be 1 or 2" >&2; exit 2 ;; esac
[[ "$start" =~ ^[0-9]+$ ]] || { echo "platform.sh: START must be the call's start in seconds (date +%s)" >&2; exit 2; }
[[ "$limit" =~ ^[0-9]+$ ]] || { echo "platform.sh: LIMIT must be a number of seconds" >&2; exit 2; }
bin=${PK_DEVICE_BUILD:-build/device}
[ -x "$bin/pk-bench" ] || { echo "platform.sh: no $bin/pk-bench (perf/device/stage.sh, then carry it)" >&2; exit 2; }
work=${PK_PLATFORM_WORK:-/tmp/platform-$part}
tarball=${OUT:-$PWD/build}/platform-$part.tgz
rm -rf "$work" && mkdir -p "$work/bench" "$work/logs" "$(dirname "$tarball")"
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
export PK_TUNING_CACHE=${PK_TUNING_CACHE:-$work/tuning}

left() { echo $((start + limit - $(date +%s))); }
# The ticks of all the machine's CPUs and those other guests took (/proc/stat's steal; pk-bench
# records the same share per kernel): a stage's share says at once whether the slice was contended.
cpu_ticks() { awk '/^cpu[0-9]/ { for (i = 2; i <= 9; i++) all += $i; stolen += $9 } END { print all + 0, stolen + 0 }' /proc/stat 2>/dev/null; }
pack() { tar czf "$tarball.part" -C "$(dirname "$work")" "$(basename "$work")" && mv "$tarball.part" "$tarball"; }
# stage NAME SECONDS COMMAND...: runs COMMAND under the smaller of SECONDS and the time left,
# its output in logs/NAME.txt, then packs.
stage() {
  local name=$1 seconds=$2
  shift 2
  local t
  # Room after the stage: pk-bench stops at SIGTERM only after the repetition under way, so
  # it is killed 15 s later, and the pack follows.
  t=$(($(left) - 20))
  [ "$seconds" -lt "$t" ] && t=$seconds
  if [ "$t" -le 10 ]; then
    echo "platform.sh: no time left for $name" | tee -a "$work/logs/stages.txt"
    return
  fi
  local began before after status
  began=$(date +%s)
  before=($(cpu_ticks))
  timeout --kill-after=15 "$t" "$@" >"$work/logs/$name.txt" 2>&1
  status=$?
  after=($(cpu_ticks))
  local stolen="other guests' share of the CPUs unknown"
  [ "${#before[@]}" = 2 ] && [ "${#after[@]}" = 2 ] && [ "${after[0]}" -gt "${before[0]}" ] &&
    stolen="other guests took $(awk -v a="$((after[0] - before[0]))" -v s="$((after[1] - before[1]))" 'BEGIN { printf "%.1f", 100 * s / a }') % of the CPUs"
  echo "platform.sh: $name: exit $status after $(($(date +%s) - began)) s, $stolen ($(left) s left)" |
    tee -a "$work/logs/stages.txt"
  pack
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv \
  >"$work/logs/gpu.txt" 2>&1
lscpu >"$work/logs/lscpu.txt" 2>&1
pack
if [ "$part" = 1 ]; then
  stage bench-gpu 300 env PK_SKIP_TESTS=1 PK_BENCH_SPACE=cuda PK_BENCH_LIMIT=200 \
    perf/device/run.sh "$work/bench" copy besselk rfilter gbees lbm
  stage bench-cpu 150 env PK_SKIP_TESTS=1 PK_BENCH_SPACE=openmp PK_BENCH_LIMIT=60 \
    perf/device/run.sh "$work/bench" copy besselk rfilter gbees
  stage bench-cpu-lbm-fp32 "$limit" "$bin/pk-bench" --kernel lbm --space openmp --size full --case '-fp32-' \
    --out "$work/bench"
else
  stage bench-cpu-lbm-fp64-fp16 360 "$bin/pk-bench" --kernel lbm --space openmp --size full --case '-fp(64|16)-' \
    --out "$work/bench"
  stage besselk-ops 120 perf/device/besselk_ops.sh "$work/besselk-ops"
  stage peers "$limit" perf/peers/device.sh "$work/peers" gbees-cuda:lorenz63 cubesselk babelstream-cuda \
    babelstream-kokkos
fi
echo "platform.sh: part $part done, $(left) s left; records in $tarball"
