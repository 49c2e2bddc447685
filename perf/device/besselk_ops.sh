#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): the FP64 operations a K_nu evaluation counts, read by Nsight Compute
# from the kernel of pk-bench's evaluate case (bessel_k_all) on this GPU (--size small: the
# first 2 M points of the full run's sequence), for perf/besselk_ops.py to write into the
# platform's besselk records.
#   perf/device/besselk_ops.sh OUT
# OUT gets besselk-evaluate.csv (ncu's raw page of one launch, after the warm-up), its report
# (.ncu-rep), the log and the pk-bench record of the run. The clocks are left as they are.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: perf/device/besselk_ops.sh OUT}
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -x "$ncu" ] || { echo "besselk_ops: no ncu on PATH, in /usr/local/cuda/bin or /opt/nvidia" >&2; exit 1; }
mkdir -p "$out"
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size
for op in dadd dmul dfma; do metrics+=,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum; done
"$ncu" --clock-control none --kernel-name-base demangled --kernel-name 'regex:besselk::bessel_k_all<' \
  --launch-skip 1 --launch-count 1 --metrics "$metrics" --export "$out/besselk-evaluate" --force-overwrite \
  "$bin/pk-bench" --kernel besselk --space cuda --size small --case '^evaluate$' --out "$out/records" \
  >"$out/besselk-evaluate.log" 2>&1
rc=$?
"$ncu" --import "$out/besselk-evaluate.ncu-rep" --csv --page raw >"$out/besselk-evaluate.csv" \
  2>>"$out/besselk-evaluate.log" || rc=1
echo "besselk_ops: exit $rc, $(($(wc -l <"$out/besselk-evaluate.csv") - 2)) launches profiled"
exit $rc
