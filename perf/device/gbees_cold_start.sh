#!/usr/bin/env bash
# Where pk-gbees' Lorenz '63 time goes on a GPU, as the gbees-cuda comparison runs it (issue
# #62: one fresh process a run, perf/peers/run.py's options): each variant a fresh process,
# the variants interleaved over ROUNDS rounds (default 5), then pk-bench's warmed-up case.
#   s8, s8-eager   gbees-cuda's step ends (--snapshots 8), CUDA's lazy and eager module loading
#   s1             the end and the measurement only (--snapshots 1)
#   start, start-eager   to t = 0.02 without the measurement: what a run costs before its steps
#   perf/device/gbees_cold_start.sh OUT [ROUNDS]
# OUT gets each run's summary JSON and log (runs/VARIANT/ROUND) and table.txt: wall_seconds
# (pk-gbees' solver time) per variant, min / median / max.
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
common=(--config "$g/lorenz63.ini" --measurement-file "$g/lorenz63-measurements.txt" --space cuda
  --paper-back-faces --mc-samples 0 --progress 0)
variant() {
  case $1 in
  s8) echo "LAZY --snapshots 8" ;;
  s8-eager) echo "EAGER --snapshots 8" ;;
  s1) echo "LAZY --snapshots 1" ;;
  start) echo "LAZY --snapshots 1 --end-time 0.02 --no-measurements" ;;
  start-eager) echo "EAGER --snapshots 1 --end-time 0.02 --no-measurements" ;;
  esac
}
names=(s8 s8-eager s1 start start-eager)
for r in $(seq 1 "$rounds"); do
  for v in "${names[@]}"; do
    read -r loading extra <<<"$(variant "$v")"
    dir=$out/runs/$v/$r
    mkdir -p "$dir"
    # shellcheck disable=SC2086  # extra holds whole options
    CUDA_MODULE_LOADING=$loading "$bin/pk-gbees" "${common[@]}" $extra --out "$dir" >"$dir/log.txt" 2>&1 ||
      echo "gbees_cold_start: $v round $r exited $?" >&2
  done
done
"$bin/pk-bench" --kernel gbees --space cuda --size full --case '^lorenz63$' --out "$out/bench" >"$out/bench.txt" 2>&1

python3 - "$out" "${names[@]}" <<'EOF' | tee "$out/table.txt"
import glob, json, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
print("variant       runs  wall_seconds min / median / max   steps")
for v in names:
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "runs", v, "*", "gbees-lorenz63-cuda.json"))):
        with open(path) as f:
            r = json.load(f)
        runs.append((r["wall_seconds"], r.get("steps", 0)))
    if runs:
        w = [s for s, _ in runs]
        print("%-12s  %4d  %.4f / %.4f / %.4f        %s" % (v, len(w), min(w), statistics.median(w), max(w), runs[0][1]))
    else:
        print("%-12s  none" % v)
for path in glob.glob(os.path.join(out, "bench", "gbees-lorenz63-cuda.json")):
    with open(path) as f:
        m = json.load(f)["metrics"]
    print("pk-bench lorenz63 (warmed up): %.4f s, repeats %s" % (m.get("wall_seconds", float("nan")), m.get("repeats", 1)))
EOF
