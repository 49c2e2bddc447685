#!/usr/bin/env bash
# gbees-cuda (the GBEES-GPU reference code, edited as README.md says, built in build/gbees-cuda) against pk-gbees
# on gbees-cuda's spatial CR3BP case (Jupiter-Europa, 6-D, T = 0.889584448745932), one H200.
# From the repository root, after `tar xzf build/gbc.tar.gz -C build`:   bash build/scripts/gbc1.sh
#  1. pk-gbees --snapshots 8 --paper-back-faces (marginal CSVs at t_K = K T/8, its cells at T in a
#     checkpoint);
#  2. gbees-cuda as configured (Jacobi-constant bounds), every cell recorded at t_K, K = 0..8;
#  3. pk-gbees to each t_K, K = 1..7 (its cells at t_K: the checkpoint at a run's end);
#  4. gbc-reduce: per t_K the grids reduced to marginals and a cell-by-cell comparison;
#  5. if time is left, gbees-cuda without the bounds (GBEES_NO_BOUNDS=1) and the reduction again.
# What comes back is $OUT/gbc.tar.gz (gbc/: logs, pk's --out, reduced/tK.json); the raw grids
# (GBs) stay in build/gbc-work. Then, here: tar xzf gbc.tar.gz &&
#   python3 perf/studies/gbees-cuda-cr3bp/compare.py gbc
# A watchdog stops it at 400 s; each run has its own timeout within that.
B=$(cd "$(dirname "$0")/.." && pwd)
export B G=$B/gbees-cuda R=$OUT/gbc W=$B/gbc-work LIMIT=${GBC_LIMIT:-400} RESERVE=45  # RESERVE: the reduction and the tar
rm -rf "$R" "$W" && mkdir -p "$R"/{pk,pkck,gc,gcnb,reduced} "$W"/pk
cp "$G/cr3bp.ini" "$G/cr3bp.patch" "$0" "$R/"

body() {
  source "$B/gb/mpi-env.sh"
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64 OMP_PROC_BIND=false
  local T=0.889584448745932
  # t_K = T K / 8 as pk-gbees computes its snapshot times (end_time * k / snapshots)
  local TK=(0 0.1111980560932415 0.222396112186483 0.3335941682797245 0.444792224372966 0.5559902804662075
            0.667188336559449 0.7783863926526905 $T)
  local MEAN=1.0169962521469986,-1.0697953862098174e-20,-5.1360139986508944e-34,-1.3935178510137174e-14,1.2575912545456968e-2,-3.1572204202682494e-33
  local STD=0.00014958275301651591,0.00014958275301651591,0.00014958275301651591,0.0007264089757154712,0.0007264089757154712,0.0007264089757154712
  local H=7.479137650825796e-05,7.479137650825796e-05,7.479137650825796e-05,0.0003632044878577356,0.0003632044878577356,0.0003632044878577356
  local PK=("$G/pk-gbees" --config "$G/cr3bp.ini" --space cuda --mc-samples 0 --paper-back-faces)
  TIMEV=(); [ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -v)
  STDBUF=(); command -v stdbuf > /dev/null && STDBUF=(stdbuf -oL)
  left() { echo $((LIMIT - RESERVE - SECONDS)); }
  # run LOG LIMIT CMD...: the command's output and `time -v` appended to LOG, then "status RC after S s"
  run() {
    local log=$1 lim=$2; shift 2
    echo "== $* (limit $lim s) at $SECONDS s" | tee -a "$log"
    local t0=$SECONDS
    timeout -s TERM -k 10 "$lim" "${TIMEV[@]}" "$@" >> "$log" 2>&1
    local rc=$?
    echo "status $rc after $((SECONDS - t0)) s" | tee -a "$log"
    return $rc
  }
  date -u +%FT%TZ; nvidia-smi -L; nproc; free -g | head -2; df -h "$B" | tail -1
  md5sum "$G"/pk-gbees "$G"/bin/* "$G"/gbc-reduce
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv

  # 1. pk-gbees: the whole case with its 9 snapshots' marginals and its cells at T
  run "$R/pk/log.txt" 90 "${PK[@]}" --snapshots 8 --progress 20 --out "$R/pk" --checkpoint "$W/pk/t8.ck"
  # 2. gbees-cuda, in a folder of its own (./measurements/CR3BP in, ./results out)
  gc() {  # gc NAME LIMIT BINARY [ENV=VALUE ...]
    local name=$1 lim=$2 bin=$3; shift 3
    [ -f "$R/$name/log.txt" ] && mv "$R/$name/log.txt" "$R/$name/log-before-$bin.txt"
    rm -rf "$W/$name" && mkdir -p "$W/$name/results" && ln -s "$G/run/measurements" "$W/$name/measurements"
    echo "== binary $bin" >> "$R/$name/log.txt"
    (cd "$W/$name" && run "$R/$name/log.txt" "$lim" env "$@" "${STDBUF[@]}" "$G/bin/$bin")
  }
  GC_BIN=GBEES-528x64
  local lim=$(left); [ "$lim" -gt 290 ] && lim=290
  gc gc "$lim" $GC_BIN
  if grep -q "exceed GPU capacity" "$R/gc/log.txt"; then  # fewer than 4 blocks fit an SM: 2 per SM, same capacity
    GC_BIN=GBEES-264x128; lim=$(left); [ "$lim" -gt 290 ] && lim=290
    gc gc "$lim" $GC_BIN
  fi
  local gc_s=$(awk '/^status/ {s = $4} END {print s + 0}' "$R/gc/log.txt")
  if grep -q "Grid capacity exceeded" "$R/gc/log.txt" && [ "$(left)" -gt $((gc_s * 3 / 2 + 20)) ]; then
    GC_BIN=GBEES-528x128  # twice the capacity
    gc gc "$(left)" $GC_BIN
    gc_s=$(awk '/^status/ {s = $4} END {print s + 0}' "$R/gc/log.txt")
  fi
  ls -la "$W/gc/results"

  # 3. pk-gbees' cells at t_1 .. t_7: a run to t_K with K snapshots steps as the whole run does
  # (in an order that spreads the times, while the time lasts)
  for k in 4 2 6 1 3 5 7; do
    lim=$(left); [ "$lim" -gt 60 ] && lim=60
    [ "$lim" -gt 30 ] || { echo "pk to t$k skipped: $(left) s left"; continue; }
    run "$R/pkck/k$k.log" "$lim" "${PK[@]}" --end-time "${TK[$k]}" --snapshots $k --progress 0 \
        --out "$W/pk-k$k" --checkpoint "$W/pk/t$k.ck"
    cp "$W/pk-k$k"/*.json "$R/pkck/k$k.json" 2>/dev/null
  done
  ls -la "$W/pk"

  # 4. the reduction, one process per snapshot time
  reduce() {
    echo "== reduce at $SECONDS s"
    local t0=$SECONDS k name f
    for k in 0 1 2 3 4 5 6 7 8; do
      local args=()
      for name in gc gcnb; do
        f="$W/$name/results/P0_pdf_$k.bin"
        [ -s "$f" ] && args+=("$name=gbin:$f")
      done
      if [ $k = 0 ]; then args+=(pk=box); elif [ -s "$W/pk/t$k.ck" ]; then args+=("pk=ck:$W/pk/t$k.ck"); fi
      { timeout 40 "$G/gbc-reduce" "$R/reduced/t$k.json.new" "${args[@]}" --mean $MEAN --h $H --std $STD \
          --threshold 1e-7 > "$R/reduced/t$k.log" 2>&1 && mv "$R/reduced/t$k.json.new" "$R/reduced/t$k.json"; } &
    done
    wait
    echo "reduced in $((SECONDS - t0)) s"; du -sh "$R/reduced"
  }
  reduce

  # 5. gbees-cuda without the Jacobi-constant bounds, if the time allows
  if [ "$(left)" -gt $((gc_s * 6 / 5 + 25)) ]; then
    gc gcnb "$(left)" $GC_BIN GBEES_NO_BOUNDS=1
    ls -la "$W/gcnb/results"
    [ -s "$W/gcnb/results/P0_pdf_8.bin" ] && reduce
  else
    echo "gbees-cuda without bounds skipped: $(left) s left, gbees-cuda took $gc_s s"
  fi
  nvidia-smi --query-gpu=memory.used,memory.total --format=csv
  echo "== end at $SECONDS s"
}
export -f body
timeout -s KILL $LIMIT bash -c body > "$R/log.txt" 2>&1
rm -f "$R"/reduced/*.new
tar czf "$OUT/gbc.tar.gz" -C "$OUT" gbc && rm -rf "$R"
ls -la "$OUT"
