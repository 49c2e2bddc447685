#!/usr/bin/env bash
# Whether the OpenMP runtime's idle threads cost the CPU kernels with the shortest parallel
# regions (issue #64: GBEES Lorenz '63 scales 5.6x on 16 threads of the Xeon): pk-gbees'
# Lorenz '63 on OpenMP at all threads under OMP_WAIT_POLICY unset, active and passive, each a
# fresh process, the policies interleaved over ROUNDS rounds (default 5).
#   perf/device/omp_wait_policy.sh OUT [ROUNDS]
# OUT gets each run's summary JSON and log (runs/POLICY-ROUND) and table.txt: per policy,
# pk-gbees' wall_seconds (its solver's time), min / median / max.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${1:-}
rounds=${2:-5}
[ -n "$out" ] || { echo "usage: perf/device/omp_wait_policy.sh OUT [ROUNDS]" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "omp_wait_policy: ROUNDS must be 1 to 99" >&2; exit 2; }
bin=${PK_DEVICE_BUILD:-build/device}
[ -x "$bin/pk-gbees" ] || { echo "omp_wait_policy: no $bin/pk-gbees (perf/device/stage.sh)" >&2; exit 2; }
export LD_LIBRARY_PATH=$PWD/$bin/lib:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
mkdir -p "$out/runs" || exit 1

g=apps/gbees
policies=(unset active passive)
for r in $(seq 1 "$rounds"); do
  for p in "${policies[@]}"; do
    dir=$out/runs/$p-$r
    mkdir -p "$dir"
    if [ "$p" = unset ]; then set -- env -u OMP_WAIT_POLICY; else set -- env OMP_WAIT_POLICY="$p"; fi
    "$@" "$bin/pk-gbees" --config "$g/lorenz63.ini" --measurement-file "$g/lorenz63-measurements.txt" \
      --space openmp --paper-back-faces --mc-samples 0 --progress 0 --out "$dir" >"$dir/log.txt" 2>&1 ||
      echo "omp_wait_policy: $p round $r exited $?" >&2
  done
done

python3 - "$out" "${policies[@]}" <<'PY' | tee "$out/table.txt"
import glob, json, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
print("OMP_WAIT_POLICY  runs  wall_seconds min / median / max  steps  cell-steps/s (median)")
for p in names:
    seconds, cell_steps, steps = [], 0, 0
    for folder in sorted(glob.glob(os.path.join(out, "runs", p + "-[0-9]*"))):
        try:
            with open(os.path.join(folder, "gbees-lorenz63-openmp.json")) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        seconds.append(r["wall_seconds"])
        cell_steps, steps = r.get("cell_steps", 0), r.get("steps", 0)
    if seconds:
        m = statistics.median(seconds)
        print("%-15s  %4d  %.4f / %.4f / %.4f  %5s  %.3g" % (p, len(seconds), min(seconds), m, max(seconds), steps,
                                                            cell_steps / m if m > 0 else float("nan")))
    else:
        print("%-15s  none" % p)
PY
