#!/usr/bin/env bash
# On the GPU machine, over a carried staged build (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): pk-lbm's checkpoints on CUDA.
#   1. bit-for-bit restart: fp32 A-A (the storage pk::autotune picks), fp16 A-A and fp32 A-B
#      runs stopped at growing ends and by SIGTERM, restarted, compared byte for byte (final
#      checkpoint and .vti) with an uninterrupted run;
#   2. the time and memory to write a checkpoint of a 512^3 fp32 A-A lattice (10.2 GB): the
#      record lbm-aa-fp32-512x512x512-cuda.json in $1 (checkpoint_seconds, checkpoint_bytes,
#      checkpoint_host_buffer_bytes, peak_host_resident_bytes), and the time to restart from it.
#   perf/device/checkpoint.sh [results-dir] [scratch-dir]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results/h200/checkpoint} scratch=${2:-/tmp/pk-checkpoint}
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
rm -rf "$scratch" && mkdir -p "$scratch" "$out"
status=0
same() { if cmp -s "$1" "$2"; then echo "checkpoint.sh: same: $1 $2"; else echo "checkpoint.sh: DIFFER: $1 $2"; status=1; fi; }
for variant in "--precision fp32" "--precision fp16" "--precision fp32 --pattern ab"; do
  tag=$(echo "$variant" | tr -d ' -')
  lbm=("$bin/pk-lbm" --space cuda --channel 256 126 126 $variant --vti-every 3000 --checkpoint-every 1000)
  "${lbm[@]}" --steps 3000 --out "$scratch/$tag-ref" --checkpoint "$scratch/$tag-ref/c" | tail -2
  "${lbm[@]}" --steps 1100 --out "$scratch/$tag-chain" --checkpoint "$scratch/$tag-chain/c" | tail -1
  # SIGTERM where it lands, then to the end.
  "${lbm[@]}" --steps 3000 --out "$scratch/$tag-chain" --checkpoint "$scratch/$tag-chain/c" \
    --restart "$scratch/$tag-chain/c" | tail -1 &
  sleep 2; kill -TERM %1 2>/dev/null; wait %1; echo "checkpoint.sh: $tag stopped with status $? at $(grep -a -m1 '^step' "$scratch/$tag-chain/c")"
  "${lbm[@]}" --steps 3000 --out "$scratch/$tag-chain" --checkpoint "$scratch/$tag-chain/c" \
    --restart "$scratch/$tag-chain/c" | tail -1
  same "$scratch/$tag-ref/c" "$scratch/$tag-chain/c"
  same "$scratch/$tag-ref/lbm-cuda-00003000.vti" "$scratch/$tag-chain/lbm-cuda-00003000.vti"
done
# 512^3 points (a 512 x 510 x 510 channel and its walls), fp32 A-A: 19 x 4 B x 134 M cells.
big=("$bin/pk-lbm" --space cuda --channel 512 510 510 --precision fp32 --check-every 0)
"${big[@]}" --steps 20 --out "$out" --checkpoint "$scratch/lbm512.ckpt" || status=1
ls -l "$scratch/lbm512.ckpt"
grep -E '"checkpoint|"peak_host' "$out/lbm-aa-fp32-512x512x512-cuda.json"
start=$(date +%s%N)
"${big[@]}" --steps 20 --out "$scratch/restart" --checkpoint "$scratch/lbm512.ckpt" --restart "$scratch/lbm512.ckpt" ||
  status=1
echo "checkpoint.sh: restart from 512^3 (read, checksum, copy to the GPU, no steps): $((($(date +%s%N) - start) / 1000000)) ms"
rm -rf "$scratch"
exit $status
