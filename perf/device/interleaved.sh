#!/usr/bin/env bash
# Side by side on one machine (docs/performance.md): programs, or one program under several
# environments, run in turn round after round, each run a fresh process. A VARIANT is
# NAME=COMMAND (words split on spaces; `env VAR=VALUE PROGRAM` sets an environment), run with
# the ARGS after `--` and `--out OUT/runs/NAME-ROUND` appended, so that each run's pk-bench
# records land apart. OUT/table.txt: per record and variant, the record's figure and its limit
# ratio (min / median / max over the rounds), and each variant's median against the first's
# (above 1: faster).
#   perf/device/interleaved.sh OUT ROUNDS NAME=COMMAND... -- ARGS...
# e.g. (a staged build of each commit carried; perf/device/stage.sh)
#   perf/device/interleaved.sh /tmp/ab 5 old=build/device-old/pk-bench new=build/device/pk-bench \
#     -- --kernel rfilter --space openmp --size full --case '^field256'
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
usage="usage: perf/device/interleaved.sh OUT ROUNDS NAME=COMMAND... -- ARGS..."
out=${1:-} rounds=${2:-}
[ -n "$out" ] && [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "interleaved: ROUNDS must be 1 to 99" >&2; exit 2; }
shift 2
names=() commands=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  [[ "$1" =~ ^[A-Za-z0-9_.-]+=.+ ]] || { echo "interleaved: '$1' is not NAME=COMMAND" >&2; exit 2; }
  names+=("${1%%=*}") commands+=("${1#*=}")
  shift
done
[ $# -gt 0 ] && [ ${#names[@]} -gt 0 ] || { echo "$usage" >&2; exit 2; }
shift
bin=${PK_DEVICE_BUILD:-build/device}
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
mkdir -p "$out/runs" || exit 1

# Even rounds run the variants in reverse order (a, b, b, a, ...): a fixed order charges any
# drift within a round to the later variant (on the H100 machine's Xeon the second of two
# runs of one build was the slower: perf/results/h100/host-pages).
for r in $(seq 1 "$rounds"); do
  order=()
  for i in "${!names[@]}"; do
    if [ $((r % 2)) -eq 0 ]; then order=("$i" "${order[@]}"); else order+=("$i"); fi
  done
  for i in "${order[@]}"; do
    dir=$out/runs/${names[$i]}-$r
    mkdir -p "$dir"
    read -ra command <<<"${commands[$i]}"
    "${command[@]}" "$@" --out "$dir" >"$dir/log.txt" 2>&1 || echo "interleaved: ${names[$i]} round $r exited $?" >&2
  done
done

python3 - "$out" "${names[@]}" <<'PY' | tee "$out/table.txt"
import glob, json, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
records = {}  # file name -> variant -> [(figure, limit ratio)]
higher = {}
for name in names:
    for path in glob.glob(os.path.join(out, "runs", name + "-[0-9]*", "*.json")):
        try:
            with open(path) as f:
                r = json.load(f)
            figure = r["metrics"][r["figure"]]
        except (OSError, ValueError, KeyError):
            continue
        key = os.path.basename(path)[:-5]
        higher[key] = r.get("higher_is_better", True)
        records.setdefault(key, {}).setdefault(name, []).append((figure, r["metrics"].get("limit_ratio", float("nan"))))
def spread(values):
    return "%.4g / %.4g / %.4g" % (min(values), statistics.median(values), max(values))
print("record  variant  runs  figure min / median / max  limit ratio min / median / max  vs %s" % names[0])
for key in sorted(records):
    base = None
    for name in names:
        runs = records[key].get(name)
        if not runs:
            print("%s  %s  none" % (key, name))
            continue
        figure = statistics.median(v for v, _ in runs)
        base = figure if base is None and name == names[0] else base
        speed = (figure / base if higher[key] else base / figure) if base else float("nan")
        print("%s  %s  %d  %s  %s  %.3f" % (key, name, len(runs), spread([v for v, _ in runs]),
                                             spread([q for _, q in runs]), speed))
PY
