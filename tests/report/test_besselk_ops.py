#!/usr/bin/env python3
"""perf/besselk_ops.py on the hand-written Nsight Compute page and records beside this file:

    test_besselk_ops.py BESSELK_OPS_PY OUT_DIR

besselk-ops holds one profiled launch of the evaluate kernel, bessel_k_all, over 2 M points
(1,954 teams of 128 threads) that executed 1e8 DADD, 6e7 DMUL and 2e8 DFMA: 50 + 30 + 2 x 100 =
280 FP64 operations an evaluation. It is written into a bench folder's evaluate records of the
same commit (GPU and CPU), not into GSL's; a record of another commit, a page of two launches, a
page of another kernel or a page without a count must give one line on stderr and exit status 2.
"""
import json
import pathlib
import shutil
import subprocess
import sys

from checks import check, finish

TOOL, OUT = (pathlib.Path(a) for a in sys.argv[1:3])
HERE = pathlib.Path(__file__).resolve().parent
shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
sys.path.insert(0, str(TOOL.parent))
from pkperf import efficiency  # noqa: E402


def record(space, case="evaluate", commit="fixture0"):
    return {"kernel": "besselk", "case": case, "space": space, "commit": commit, "device": "box",
            "metrics": {"evals_per_second": 1e8 if space == "openmp" else 3e9, "points": 2e7,
                        "fp64_peak_gflops": 280.0 if space == "openmp" else 33000.0},
            "figure": "evals_per_second"}


def bench(name, records):
    folder = OUT / name
    folder.mkdir()
    for r in records:
        (folder / f"besselk-{r['case']}-{r['space']}.json").write_text(json.dumps(r, indent=2) + "\n")
    return folder


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True)


good = bench("good", [record("cuda"), record("openmp"), record("openmp", "evaluate-gsl")])
result = run(HERE / "besselk-ops", good)
check(result.returncode == 0, f"merge: exit status 0, not {result.returncode}: {result.stderr}")
gpu = json.loads((good / "besselk-evaluate-cuda.json").read_text())
cpu = json.loads((good / "besselk-evaluate-openmp.json").read_text())
gsl = json.loads((good / "besselk-evaluate-gsl-openmp.json").read_text())
check(abs(gpu["metrics"].get("fp64_ops_per_eval", 0) - 280) < 1e-9,
      f"280 operations an evaluation on the GPU: {gpu['metrics'].get('fp64_ops_per_eval')}")
check(cpu["metrics"].get("fp64_ops_per_eval") == gpu["metrics"].get("fp64_ops_per_eval"),
      "the CPU record takes the GPU's count")
check(gpu.get("fp64_ops_counted", {}).get("instructions") == {"dadd": 1e8, "dmul": 6e7, "dfma": 2e8},
      f"the instructions kept beside the count: {gpu.get('fp64_ops_counted')}")
check("note" in cpu.get("fp64_ops_counted", {}) and "note" not in gpu.get("fp64_ops_counted", {}),
      "the CPU record says its count is the GPU build's")
check("fp64_ops_per_eval" not in gsl["metrics"], "GSL's record is left alone")
row = efficiency.row_of("besselk", "evaluate")
rated, why = efficiency.architectural(row, "cuda", gpu["metrics"])
check(rated is not None and abs(rated - 3e9 / (33000e9 / 280)) < 1e-12,
      f"the GPU rated against 33 TFLOP/s over 280 operations: {rated} ({why})")
rated, why = efficiency.architectural(row, "openmp", cpu["metrics"])
check(rated is not None and abs(rated - 1e8 / (280e9 / 280)) < 1e-12,
      f"the CPU rated against 280 GFLOP/s over 280 operations: {rated} ({why})")

# Bad input: one line on stderr, exit status 2, and no record changed.
other = bench("other", [record("cuda", commit="another")])
pages = OUT / "pages"
shutil.copytree(HERE / "besselk-ops", pages)
csv = (pages / "besselk-evaluate.csv").read_text().splitlines()
bad = {"another commit": (HERE / "besselk-ops", other)}
two = OUT / "two"
shutil.copytree(pages, two)
(two / "besselk-evaluate.csv").write_text("\n".join(csv + csv[2:]) + "\n")
bad["two launches"] = (two, bench("two-bench", [record("cuda")]))
another = OUT / "another-kernel"
shutil.copytree(pages, another)
(another / "besselk-evaluate.csv").write_text("\n".join(csv[:2] + [csv[2].replace("bessel_k_all", "evaluate_all")]) + "\n")
bad["another kernel"] = (another, bench("another-kernel-bench", [record("cuda")]))
uncounted = OUT / "uncounted"
shutil.copytree(pages, uncounted)
(uncounted / "besselk-evaluate.csv").write_text("\n".join(
    [",".join(c for c in row.split(",")[:7]) for row in csv[:2]] + [csv[2].rsplit(',"', 3)[0]]) + "\n")
bad["no DFMA count"] = (uncounted, bench("uncounted-bench", [record("cuda")]))
bad["no page"] = (OUT / "nowhere", bench("nowhere-bench", [record("cuda")]))
for what, (count, folder) in bad.items():
    before = (folder / "besselk-evaluate-cuda.json").read_text()
    result = run(count, folder)
    check(result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1,
          f"{what}: exit status 2 and one line, not {result.returncode}: {result.stderr!r}")
    check((folder / "besselk-evaluate-cuda.json").read_text() == before, f"{what}: the record is unchanged")
finish("besselk_ops: all checks passed")
