#!/usr/bin/env bash
# On the GPU machine, over a carried staged build with MPI (perf/device/stage.sh; PK_DEVICE_BUILD,
# default build/device): the MPI suite on 1 and 2 ranks (CUDA and OpenMP ranks, two of them
# sharing the one GPU), then 1 vs 2 ranks on the GPU as result records in $1: LBM strong and
# weak scaling (perf/lbm_scaling.py, efficiency per device) and the distributed 3D-Var.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results/h200/mpi}
bin=${PK_DEVICE_BUILD:-build/device}
source "$bin/mpi-env.sh"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export OMP_PROC_BIND=false OMP_NUM_THREADS=4
mkdir -p "$out"
mpirun=(mpirun --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_PROC_BIND -x OMP_NUM_THREADS)
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
for ranks in 1 2; do
  timeout 300 "${mpirun[@]}" -np $ranks "$bin/pk-tests-mpi" --gtest_brief=1 || status=1
done
for pattern in aa ab; do
  timeout 240 python3 perf/lbm_scaling.py --pk-lbm "$bin/pk-lbm" --mpirun "${mpirun[*]}" --ranks 1,2 --devices 1 \
    --space cuda --pattern $pattern --steps 300 --strong 384 384 384 --weak 256 256 256 --out "$out" || status=1
done
grid=256,256,128
for ranks in 1 2; do
  launcher=()
  [ $ranks -eq 1 ] || launcher=("${mpirun[@]}" -np $ranks)
  timeout 240 "${launcher[@]}" "$bin/pk-3dvar" --space cuda --grid $grid --sigma 6 --observations 200000 \
    --chunks 2 --out "$out" || status=1
done
exit $status
