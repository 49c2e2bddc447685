#!/usr/bin/env bash
# On a machine with several GPUs, over a carried staged build with MPI (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device): one rank per GPU. Records in $1:
#  - the MPI suite on the largest rank count (CUDA and OpenMP ranks);
#  - LBM A-A (PK_LBM_PRECISION, default fp32) weak scaling (PK_WEAK cells per GPU, default
#    512^3, stacked along PK_WEAK_AXIS, default x) and strong scaling of one lattice
#    (PK_STRONG, default 768^3) on PK_RANKS GPUs (default 1,2; a node of 4: 1,2,4)
#    (perf/lbm_scaling.py);
#  - 3D-Var strong scaling of one field (PK_3DVAR_GRID, default 512,512,256, with
#    PK_3DVAR_OBSERVATIONS, default 1600000) on as many GPUs, at the overlaps PK_3DVAR_OVERLAPS
#    (default 2.5 and 5 sigma).
#  - with "gbees" in PK_SERIES: distributed GBEES, Lorenz '96 6-D (apps/gbees/lorenz96.ini):
#    strong scaling of the paper's case, and weak scaling with the first axis' cell width
#    (the slab axis) and p* divided by the rank count, on PK_RANKS GPUs.
# PK_SERIES names the parts to run (default "strong weak 3dvar").
# PK_MPI_ENV names the file that sets up MPI (default: the staged Debian Open MPI's
# mpi-env.sh); PK_SKIP_TESTS=1 skips the suite. perf/scaling_report.py charts the records.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-perf/results/h200x2/multi-gpu}
bin=${PK_DEVICE_BUILD:-build/device}
source "${PK_MPI_ENV:-$bin/mpi-env.sh}"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export OMP_PROC_BIND=false OMP_NUM_THREADS=4
mkdir -p "$out"
mpirun=(mpirun --bind-to none -x LD_LIBRARY_PATH -x OMP_PROC_BIND -x OMP_NUM_THREADS)
status=0
ranks=${PK_RANKS:-1,2}
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
nvidia-smi topo -m || true
mpirun --version | head -1
if [ "${PK_SKIP_TESTS:-0}" != 1 ]; then  # measure nothing that the suite finds wrong
  timeout 300 "${mpirun[@]}" -np "${ranks##*,}" "$bin/pk-tests-mpi" --gtest_brief=1 || exit 1
fi
read -r -a weak <<<"${PK_WEAK:-512 512 512}"
read -r -a strong <<<"${PK_STRONG:-768 768 768}"
series=${PK_SERIES:-strong weak 3dvar}
lbm_series=$(echo "$series" | tr ' ' '\n' | grep -xE 'strong|weak' | tr '\n' ' ')
[ -z "$lbm_series" ] || timeout "${PK_LBM_TIMEOUT:-360}" python3 perf/lbm_scaling.py --pk-lbm "$bin/pk-lbm" \
  --mpirun "${mpirun[*]}" --ranks "$ranks" --space cuda --pattern aa --precision "${PK_LBM_PRECISION:-fp32}" \
  --steps "${PK_LBM_STEPS:-300}" --strong "${strong[@]}" --weak "${weak[@]}" \
  --weak-axis "${PK_WEAK_AXIS:-x}" --series $lbm_series --out "$out" || status=1
if [[ " $series " == *" gbees "* ]]; then
  l96=(--config apps/gbees/lorenz96.ini --space cuda --snapshots 1 --progress 0)
  for n in ${ranks//,/ }; do
    launcher=()
    [ "$n" -eq 1 ] || launcher=("${mpirun[@]}" -np "$n")
    timeout 300 "${launcher[@]}" "$bin/pk-gbees" "${l96[@]}" --out "$out/gbees-strong-np$n" \
      --results "$out/gbees-strong" || status=1
    [ "$n" -eq 1 ] && continue  # the weak series' one-GPU case is the strong one
    h=$(awk -v n="$n" 'BEGIN { print 0.1 / n }') threshold=$(awk -v n="$n" 'BEGIN { print 8e-9 / n }')
    timeout 300 "${launcher[@]}" "$bin/pk-gbees" "${l96[@]}" --h "$h,0.1,0.1,0.1,0.1,0.1" --threshold "$threshold" \
      --out "$out/gbees-weak-np$n" --results "$out/gbees-weak" || status=1
  done
fi
[[ " $series " == *" 3dvar "* ]] || exit $status
grid=${PK_3DVAR_GRID:-512,512,256}
sigma=6 observations=${PK_3DVAR_OBSERVATIONS:-1600000}
for overlap in ${PK_3DVAR_OVERLAPS:-$(((5 * sigma + 1) / 2)) $((5 * sigma))}; do
  for n in ${ranks//,/ }; do
    launcher=()
    [ "$n" -eq 1 ] || launcher=("${mpirun[@]}" -np "$n")
    timeout 240 "${launcher[@]}" "$bin/pk-3dvar" --space cuda --grid "$grid" --sigma $sigma \
      --observations "$observations" --max-iterations 2000 --chunks 2 --overlap "$overlap" --out "$out/3dvar-overlap$overlap" || status=1
  done
done
exit $status
