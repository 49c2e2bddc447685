#!/usr/bin/env bash
# On a GPU machine of 4 GPUs, over a carried staged build with MPI (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device): what docs/mpi.md and docs/jobs.md promise when
# things go wrong at scale, each run's output in OUT (default perf/results/reliability/logs).
#  - A rank that dies: tests/mpi/rank_dies.py with one rank per GPU (pk-lbm and pk-3dvar;
#    rank 2 killed under mpirun, killed under an mpirun that keeps the others, stopped).
#  - A GPU that is too small: an LBM lattice and a 3D-Var grid that fit the host but not the
#    device (refused before the run), and a GBEES grid that outgrows the GPU mid-run (Lorenz
#    '96 in 6-D at finer cells, until one run fills the GPU): one line naming
#    what fits, status 2, the output until then whole.
#   perf/device/reliability.sh [OUT]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PK_DEVICE_BUILD:-build/device}
out=${1:-perf/results/reliability/logs}
mkdir -p "$out"
source "$bin/mpi-env.sh"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0

for program in pk-lbm pk-3dvar; do
  for mode in teardown no-teardown hang; do
    timeout 200 python3 tests/mpi/rank_dies.py "$(command -v mpirun)" "$bin" $program $mode cuda \
      >"$out/rank-dies-$program-$mode.log" 2>&1
    rc=$?
    echo "reliability: rank_dies $program $mode (cuda, 4 GPUs): exit $rc; $(tail -n 2 "$out/rank-dies-$program-$mode.log" | tr '\n' ' ')"
    [ $rc -eq 0 ] || status=1
  done
done

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
grown=0
for h in 0.045 0.04 0.05; do
  too_big "gbees-lorenz96-h$h" 120 "$bin/pk-gbees" --config apps/gbees/lorenz96.ini --space cuda --h $h \
    --threshold 1e-14 --progress 5 --out "$out/gbees-h$h"
  rc=$?
  if [ $rc -eq 2 ] && grep -q "step\|t = " "$out/gbees-lorenz96-h$h.log"; then
    grown=1
    ls -l "$out/gbees-h$h" >>"$out/gbees-lorenz96-h$h.log" 2>&1
    break
  fi
done
[ $grown -eq 1 ] || { echo "reliability: no GBEES run outgrew the GPU mid-run"; status=1; }
exit $status
