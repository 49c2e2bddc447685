#!/usr/bin/env python3
"""perf/plot_results.py on records written here:

    test_plot_results.py PLOT_RESULTS_PY OUT_DIR

Two kernels on a CPU and a GPU, one record naming its figure and limit as pk-bench writes them
now, the others as earlier records did: a chart per kernel, and the table's figures and ratios
as written; a folder without records gives one line on stderr and a non-zero exit.
"""
import json
import pathlib
import shutil
import subprocess
import sys

from checks import check, finish

SCRIPT, OUT = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])


def write(folder, kernel, case, space, metrics, **named):
    folder.mkdir(parents=True, exist_ok=True)
    record = {"kernel": kernel, "case": case, "space": space, "device": f"Test {space}", "metrics": metrics, **named}
    (folder / f"{kernel}-{case}-{space}.json").write_text(json.dumps(record))


shutil.rmtree(OUT, ignore_errors=True)
results = OUT / "results"
write(results, "lbm", "aa-fp32-64", "openmp", {"mlups": 400.0, "limit_ratio": 0.62, "steps": 8.0},
      figure="mlups", limit="copy bw / bytes per update")
write(results, "lbm", "aa-fp32-64", "cuda", {"mlups": 18000.0, "limit_ratio": 0.93, "steps": 8.0})
write(results, "copy", "deep-copy", "openmp", {"bandwidth_gbs": 139.0, "limit_ratio": 1.0})
write(results, "copy", "deep-copy", "cuda", {"bandwidth_gbs": 2630.0, "limit_ratio": 1.0})
done = subprocess.run([sys.executable, str(SCRIPT), str(results), "--out", str(OUT / "plots")],
                      capture_output=True, text=True)
check(done.returncode == 0, f"exit 0 on good records (got {done.returncode}: {done.stderr.strip()})")
for kernel in ("lbm", "copy"):
    png = OUT / "plots" / f"{kernel}.png"
    check(png.exists() and png.stat().st_size > 1000, f"a chart for {kernel}")
check(not (OUT / "plots" / "steps.png").exists(), "no chart per metric")
summary_file = OUT / "plots" / "summary.md"
summary = summary_file.read_text() if summary_file.exists() else ""
check("| lbm | aa-fp32-64 | mlups | 400 | 0.62 | 1.8e+04 | 0.93 |" in summary, f"the lbm row as measured:\n{summary}")
check("| copy | deep-copy | bandwidth_gbs | 139 | 1 | 2630 | 1 |" in summary,
      "the copy row, its figure named as earlier records did")
check(summary in done.stdout, "the table on standard output")

empty = OUT / "empty"
empty.mkdir()
done = subprocess.run([sys.executable, str(SCRIPT), str(empty)], capture_output=True, text=True)
check(done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1 and "no result JSON" in done.stderr,
      f"a folder without records is refused in one line (got {done.returncode}: {done.stderr!r})")

finish("plot_results: every check passed")
