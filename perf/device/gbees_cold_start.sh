#!/usr/bin/env bash
# Where pk-gbees' Lorenz '63 time goes on a GPU, as the gbees-cuda comparison runs it (issue
# #62: one fresh process a run, perf/peers/run.py's options): each variant a fresh process,
# the variants interleaved over ROUNDS rounds (default 5), then pk-bench's warmed-up case.
#   s8, s8-eager   gbees-cuda's step ends (--snapshots 8), CUDA's lazy and eager module loading
#   s8-default     the same, CUDA_MODULE_LOADING unset: as pk-gbees chooses
#   s1             the end and the measurement only (--snapshots 1)
#   perf/device/gbees_cold_start.sh OUT [ROUNDS]
# OUT gets each run's summary JSON, log and process time (runs/VARIANT-ROUND) and table.txt:
# per variant, pk-gbees' wall_seconds (its solver's time, as the comparison reads it) and the
# whole process's time (Kokkos and CUDA start-up included), min / median / max.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-}
rounds=${2:-5}
[ -n "$out" ] || { echo "usage: perf/device/gbees_cold_start.sh OUT [ROUNDS]" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "gbees_cold_start: ROUNDS must be 1 to 99" >&2; exit 2; }
bin=${PK_DEVICE_BUILD:-build/device}
[ -x "$bin/pk-gbees" ] || { echo "gbees_cold_start: no $bin/pk-gbees (perf/device/stage.sh)" >&2; exit 2; }
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out/runs" || exit 1

g=apps/gbees
common=(--config "$g/lorenz63.ini" --space cuda --paper-back-faces --mc-samples 0 --progress 0)
measured="--measurement-file $g/lorenz63-measurements.txt"
variant() {
  case $1 in
  s8) echo "LAZY --snapshots 8 $measured" ;;
  s8-eager) echo "EAGER --snapshots 8 $measured" ;;
  s8-default) echo "- --snapshots 8 $measured" ;;
  s1) echo "LAZY --snapshots 1 $measured" ;;
  esac
}
names=(s8 s8-eager s8-default s1)
for r in $(seq 1 "$rounds"); do
  for v in "${names[@]}"; do
    read -r loading extra <<<"$(variant "$v")"
    dir=$out/runs/$v-$r
    mkdir -p "$dir"
    began=$(date +%s.%N)
    if [ "$loading" = - ]; then set -- env -u CUDA_MODULE_LOADING; else set -- env CUDA_MODULE_LOADING="$loading"; fi
    # shellcheck disable=SC2086  # extra holds whole options
    "$@" "$bin/pk-gbees" "${common[@]}" $extra --out "$dir" >"$dir/log.txt" 2>&1 ||
      echo "gbees_cold_start: $v round $r exited $?" >&2
    echo "$began $(date +%s.%N)" >"$dir/process.txt"
  done
done
"$bin/pk-bench" --kernel gbees --space cuda --size full --case '^lorenz63$' --out "$out/bench" >"$out/bench.txt" 2>&1

python3 - "$out" "${names[@]}" <<'EOF' | tee "$out/table.txt"
import glob, json, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
def spread(values):
    return "%.4f / %.4f / %.4f" % (min(values), statistics.median(values), max(values))
print("variant       runs  wall_seconds (solver)     process seconds           steps")
for v in names:
    solver, process, steps = [], [], 0
    for folder in sorted(glob.glob(os.path.join(out, "runs", v + "-[0-9]*"))):
        try:
            with open(os.path.join(folder, "gbees-lorenz63-cuda.json")) as f:
                r = json.load(f)
            with open(os.path.join(folder, "process.txt")) as f:
                began, ended = map(float, f.read().split())
        except (OSError, ValueError):
            continue
        solver.append(r["wall_seconds"])
        process.append(ended - began)
        steps = r.get("steps", 0)
    if solver:
        print("%-12s  %4d  %s  %s  %s" % (v, len(solver), spread(solver), spread(process), steps))
    else:
        print("%-12s  none" % v)
for path in glob.glob(os.path.join(out, "bench", "gbees-lorenz63-cuda.json")):
    with open(path) as f:
        m = json.load(f)["metrics"]
    print("pk-bench lorenz63 (warmed up): %.4f s, repeats %s" % (m.get("wall_seconds", float("nan")), m.get("repeats", 1)))
EOF
