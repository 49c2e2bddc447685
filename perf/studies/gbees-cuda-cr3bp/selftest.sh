#!/usr/bin/env bash
# Tests gbc-reduce and compare.py without a GPU: the CR3BP case shortened (to t = 0.2, 4
# snapshots) on cells one standard deviation wide (p* = 1e-7 * 2^6, the same density) with the
# OpenMP pk-gbees, its cells at each snapshot from checkpoints (runs to t_K, as gbc1.sh does), and
# "gbees-cuda" snapshots fabricated from those same cells (gc: identical, so BC 1 and no
# difference; gcnb: 1 % of the cells dropped and 1e-3 noise). Then the results folder as gbc1.sh
# leaves it, compare.py on it, compare.py --verify (numpy) on every reduced file, and gbees-cuda's
# text record through the reducer.
#   selftest.sh [WORKDIR]   (run from the repository root; needs build/openmp and build/gbees-cuda/gbc-reduce)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
W=${1:-$(mktemp -d /tmp/gbc-selftest.XXXXXX)}
mkdir -p "$W" && cd "$W" && rm -rf ck pk pk-k* gc gcnb gbc
PKG=$root/build/openmp/apps/pk-gbees RED=$root/build/gbees-cuda/gbc-reduce
MEAN=1.0169962521469986,-1.0697953862098174e-20,-5.1360139986508944e-34,-1.3935178510137174e-14,1.2575912545456968e-2,-3.1572204202682494e-33
STD=0.00014958275301651591,0.00014958275301651591,0.00014958275301651591,0.0007264089757154712,0.0007264089757154712,0.0007264089757154712
H=$STD THR=6.4e-6 END=0.2 N=4
PY=${PY:-/usr/bin/python3}  # a Python with numpy (Debian's python3-numpy); compare.py's tables need none
export OMP_NUM_THREADS=2 OMP_PROC_BIND=false
PK="$PKG --config $root/apps/gbees/cr3bp.ini --space openmp --mc-samples 0 --paper-back-faces --progress 0 --h $H --threshold $THR"
$PK --end-time $END --snapshots $N --out pk --checkpoint ck/t$N.ck 2>&1 | grep -E 'steps|summary'
for k in $(seq 1 $((N - 1))); do
  $PK --end-time "$(python3 -c "print(repr($END * $k / $N))")" --snapshots $k --out pk-k$k --checkpoint ck/t$k.ck 2>&1 | grep steps
done
G="--mean $MEAN --h $H --std $STD --threshold $THR"
for k in $(seq 0 $N); do
  $PY "$here/selftest.py" ck $k gc $G
  $PY "$here/selftest.py" ck $k gcnb --perturb $k $G
done
mkdir -p gbc/reduced
cp -r pk gbc/pk
sed -e "s/^h = .*/h = ${H}/" -e "s/^threshold = .*/threshold = $THR/" "$root/apps/gbees/cr3bp.ini" > gbc/cr3bp.ini
for k in $(seq 0 $N); do
  if [ $k = 0 ]; then pk=box; else pk=ck:ck/t$k.ck; fi
  args=(gc=gbin:gc/results/P0_pdf_$k.bin gcnb=gbin:gcnb/results/P0_pdf_$k.bin pk=$pk)
  $RED gbc/reduced/t$k.json "${args[@]}" $G 2>/dev/null
  $PY "$here/compare.py" --verify gbc/reduced/t$k.json "${args[@]}" $G
done
echo "== gbees-cuda's text record (cells above p*) against pk at t$N"
$RED txt.json gc=gtxt:gc/results/P0_pdf_$N.txt pk=ck:ck/t$N.ck $G 2>/dev/null
python3 -c "
import json; r = json.load(open('txt.json')); g = {x['label']: x for x in r['grids']}; p = r['pairs'][0]
print('text cells', g['gc']['cells'], 'pk cells >= p*', g['pk']['above_cells'], 'key residual', g['gc']['key_residual'])
print('above p*: only gc', p['cells_above']['only_a'], 'only pk', p['cells_above']['only_b'], 'sum|dp|', p['cells_above']['l1'], 'BC', p['cells_above']['bc'])"
echo "== compare.py $W/gbc"
python3 "$here/compare.py" gbc
