#!/usr/bin/env bash
# On a machine with several GPUs, over a carried staged build with MPI (perf/device/stage.sh;
# PK_DEVICE_BUILD, default build/device): the command-line cases of the MPI suite
# (tests/CMakeLists.txt, label mpi) on the GPUs, the runs on PK_CLI_RANKS ranks (default 4, one
# GPU each), the refusals on 4: each command's exit status and the line it must print, as
# ctest checks them on OpenMP.
# PK_MPI_ENV names the file that sets up MPI (default: the staged Debian Open MPI's).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PK_DEVICE_BUILD:-build/device}
source "${PK_MPI_ENV:-$bin/mpi-env.sh}"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export OMP_PROC_BIND=false OMP_NUM_THREADS=4
n=${PK_CLI_RANKS:-4}
mpirun=(mpirun --bind-to none -x LD_LIBRARY_PATH -x OMP_PROC_BIND -x OMP_NUM_THREADS)
out=$(mktemp -d)
failed=0

# check NAME STATUS PATTERN COMMAND...: COMMAND exits with STATUS and prints a line matching PATTERN.
check() {
  local name=$1 expected=$2 pattern=$3
  shift 3
  local text status
  text=$(timeout 120 "$@" 2>&1)
  status=$?
  if [ "$status" -eq "$expected" ] && grep -qE -- "$pattern" <<<"$text"; then
    echo "ok   $name"
  else
    echo "FAIL $name (status $status, expected $expected; wanted /$pattern/):"
    { grep -m3 -E 'error|FAIL' <<<"$text"; tail -3 <<<"$text"; } | sed 's/^/     /'
    failed=$((failed + 1))
  fi
}

check lbm_run 0 "cuda: 20 steps of 16 x 6 x 6 .* on $n ranks \(slabs along z\)" \
  "${mpirun[@]}" -np "$n" "$bin/pk-lbm" --space cuda --channel 16 4 4 --steps 20 --vti-every 10 --out "$out/lbm"
[ -s "$out/lbm/lbm-cuda-00000020.pvti" ] && echo "ok   lbm_run wrote lbm-cuda-00000020.pvti" ||
  { echo "FAIL lbm_run wrote no lbm-cuda-00000020.pvti"; failed=$((failed + 1)); }
check lbm_slab_axis_x 0 "cuda: 20 steps of 16 x 6 x 6 .* on $n ranks \(slabs along x\)" \
  "${mpirun[@]}" -np "$n" "$bin/pk-lbm" --space cuda --channel 16 4 4 --steps 20 --slab-axis x --out "$out/lbm-x"
check lbm_more_ranks_than_layers 2 "pk-lbm: error: 4 ranks, but the lattice has only 3 layers" \
  "${mpirun[@]}" -np 4 "$bin/pk-lbm" --space cuda --channel 3 1 1 --out "$out/lbm-refused"
check lbm_options_differ 2 "pk-lbm: error: rank 1: the command line is '[^']*--tau 0.9[^']*' here but '[^']*--tau 0.8[^']*' on rank 0" \
  "${mpirun[@]}" -np 1 "$bin/pk-lbm" --space cuda --tau 0.8 --out "$out/lbm-differ" : \
  -np 1 "$bin/pk-lbm" --space cuda --tau 0.9 --out "$out/lbm-differ"
check 3dvar_run 0 "cuda: CG converged in [0-9]+ iterations on $n ranks \(x slabs" \
  "${mpirun[@]}" -np "$n" "$bin/pk-3dvar" --space cuda --grid 48,24,4 --chunks 2 --observations 600 --out "$out/3dvar"
check 3dvar_overlap_thicker_than_slab 2 "pk-3dvar: error: 3D-Var on 4 ranks: overlap 5 is larger than the thinnest slab" \
  "${mpirun[@]}" -np 4 "$bin/pk-3dvar" --space cuda --grid 12,8,2 --sigma 2 --chunks 1 --observations 50 \
  --out "$out/3dvar-refused"
check 3dvar_one_layer_slabs 2 "pk-3dvar: error: 3D-Var on 4 ranks: the grid has only 6 x layers; use at most 3 ranks" \
  "${mpirun[@]}" -np 4 "$bin/pk-3dvar" --space cuda --grid 6,8,2 --sigma 0.4 --chunks 1 --observations 50 \
  --out "$out/3dvar-refused"
if [ -x "$bin/pk-matern" ]; then
  check matern_loglik 0 "cuda on $n ranks \([0-9]+ x [0-9]+ ScaLAPACK grid\): n = 500, log-likelihood -?[0-9.]+ at" \
    "${mpirun[@]}" -np "$n" "$bin/pk-matern" loglik --space cuda -n 500 --tile 64 --out "$out/matern"
  check matern_generate_refused 2 "pk-matern: error: generate runs on one rank" \
    "${mpirun[@]}" -np 2 "$bin/pk-matern" generate --space cuda -n 50 --data "$out/matern/never.txt"
fi
rm -rf "$out"
echo "mpi_cli: $failed failed"
[ "$failed" -eq 0 ]
