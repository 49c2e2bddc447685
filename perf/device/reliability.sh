#!/usr/bin/env bash
# On a GPU machine of 4 GPUs, over a carried staged build with MPI (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device): what docs/mpi.md and docs/jobs.md promise when
# things go wrong at scale, each run's output in OUT (default perf/results/h200x4/reliability/logs).
#  - A rank that dies: tests/mpi/rank_dies.py with one rank per GPU (pk-lbm and pk-3dvar;
#    rank 2 killed under mpirun, killed under an mpirun that keeps the others, stopped).
#  - A GPU that is too small: an LBM lattice and a 3D-Var grid that fit the host but not the
#    device (refused before the run), and a GBEES grid that outgrows the GPU mid-run: Lorenz
#    '96 in 6-D at the paper's cells with a far lower threshold, on a GPU that another job
#    holds all but PK_RELIABILITY_FREE_GB (default 6) of (PyTorch's allocator, the GPU
#    machine's python3), as on a shared node. Each: one line naming what fits, status 2, the
#    output until then whole.
# PK_RELIABILITY_PARTS picks "ranks", "too-big" or both (the default); PK_RELIABILITY_PROGRAMS
# the programs whose ranks die (default "pk-lbm pk-3dvar").
#   perf/device/reliability.sh [OUT]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PK_DEVICE_BUILD:-build/device}
out=${1:-perf/results/h200x4/reliability/logs}
mkdir -p "$out"
source "$bin/mpi-env.sh"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0

parts=${PK_RELIABILITY_PARTS:-ranks too-big}
if [[ " $parts " == *" ranks "* ]]; then
  for program in ${PK_RELIABILITY_PROGRAMS:-pk-lbm pk-3dvar}; do
    for mode in teardown no-teardown hang; do
      log=$out/rank-dies-$program-$mode.log
      timeout 200 python3 tests/mpi/rank_dies.py "$(command -v mpirun)" "$bin" $program $mode cuda >"$log" 2>&1
      rc=$?
      echo "reliability: rank_dies $program $mode (cuda, 4 GPUs): exit $rc; $(tail -n 2 "$log" | tr '\n' ' ')"
      [ $rc -eq 0 ] || status=1
    done
  done
fi
[[ " $parts " == *" too-big "* ]] || exit $status

# Exit status and last lines of one program run (one GPU): status 2 expected.
too_big() {  # name seconds command...
  local name=$1 seconds=$2 start=$SECONDS rc
  shift 2
  CUDA_VISIBLE_DEVICES=0 timeout "$seconds" "$@" >"$out/$name.log" 2>&1
  rc=$?
  echo "reliability: $name: exit $rc after $((SECONDS - start)) s: $(grep -v '^  ' "$out/$name.log" | tail -n 1)"
  return $rc
}
too_big lbm-1100-fp64-ab 120 "$bin/pk-lbm" --space cuda --channel 1100 1100 1100 --precision fp64 --pattern ab \
  --steps 10 --out "$out/lbm"
[ $? -eq 2 ] || status=1
too_big 3dvar-2048x2048x512 120 "$bin/pk-3dvar" --space cuda --grid 2048,2048,512 --out "$out/3dvar"
[ $? -eq 2 ] || status=1
# Another job's allocation on GPU 0 for as long as pk-gbees runs.
free_gb=${PK_RELIABILITY_FREE_GB:-6}
CUDA_VISIBLE_DEVICES=0 python3 -c "
import sys, time, torch
free, total = torch.cuda.mem_get_info()
held = torch.empty(free - $free_gb * 2**30, dtype=torch.uint8, device='cuda')
print(f'holding {held.numel() / 2**30:.1f} GiB of {total / 2**30:.1f}', flush=True)
time.sleep(600)" >"$out/gpu-held.log" 2>&1 &
holder=$!
until grep -q holding "$out/gpu-held.log" 2>/dev/null || ! kill -0 $holder 2>/dev/null; do sleep 1; done
cat "$out/gpu-held.log"
too_big gbees-lorenz96-shared-gpu 150 "$bin/pk-gbees" --config apps/gbees/lorenz96.ini --space cuda \
  --threshold 1e-14 --end-time 10 --progress 5 --out "$out/gbees"
rc=$?
kill $holder 2>/dev/null
ls -lR "$out/gbees" >>"$out/gbees-lorenz96-shared-gpu.log" 2>&1
[ $rc -eq 2 ] || { echo "reliability: the GBEES run did not end with status 2"; status=1; }
exit $status
