#!/usr/bin/env python3
"""perf/plot_results.py on records written here:

    test_plot_results.py PLOT_RESULTS_PY OUT_DIR

Four kernels on a CPU and a GPU, as the portability report rates them (perf/pkperf/efficiency.py): lbm
against the copy at its footprint (a record without footprint_bytes is not rated), the copy probe
against the run's best copy with a CPU's copy counted at three streams, K_ν against GSL on the CPU
and not rated on the GPU (ours alone there), the filter's line case and GBEES's goal never used
as limits; a chart per kernel, the table's figures, efficiencies and limits in words as written;
a folder without records gives one line on stderr and a non-zero exit.
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
write(results, "lbm", "aa-fp32-64", "openmp", {"mlups": 400.0, "limit_ratio": 0.62, "footprint_bytes": 2e7, "steps": 8.0},
      figure="mlups", limit="copy bw / bytes per update")
write(results, "lbm", "aa-fp32-64", "cuda", {"mlups": 18000.0, "limit_ratio": 0.93, "steps": 8.0})
# A case a signal cut short after one repeat: not rated, as the report leaves it out.
write(results, "lbm", "ab-fp32-64", "openmp", {"mlups": 300.0, "limit_ratio": 0.5, "footprint_bytes": 2e7,
                                               "repeats": 1.0}, figure="mlups")
write(results, "copy", "deep-copy", "openmp", {"bandwidth_gbs": 60.0, "limit_ratio": 0.6})
write(results, "copy", "in-place", "openmp", {"bandwidth_gbs": 100.0, "limit_ratio": 1.0})
write(results, "copy", "deep-copy", "cuda", {"bandwidth_gbs": 2630.0, "limit_ratio": 1.0})
write(results, "besselk", "evaluate", "openmp", {"evals_per_second": 8e6, "limit_ratio": 0.8}, figure="evals_per_second")
write(results, "besselk", "evaluate-gsl", "openmp", {"evals_per_second": 1e7, "limit_ratio": 1.0})
write(results, "besselk", "evaluate", "cuda", {"evals_per_second": 1e9, "limit_ratio": 1.0})
write(results, "rfilter", "line-n10000-k10", "cuda", {"wall_seconds": 4e-5, "limit_ratio": 1.5e-4},
      figure="wall_seconds", limit="paper GPU time (Table 1)")
write(results, "gbees", "lorenz63", "cuda", {"cells_per_second": 6e7, "limit_ratio": 1.15, "roofline_fraction": 0.006,
                                             "footprint_bytes": 2e6}, figure="cells_per_second")
done = subprocess.run([sys.executable, str(SCRIPT), str(results), "--out", str(OUT / "plots")],
                      capture_output=True, text=True)
check(done.returncode == 0, f"exit 0 on good records (got {done.returncode}: {done.stderr.strip()})")
for kernel in ("lbm", "copy", "besselk", "rfilter", "gbees"):
    png = OUT / "plots" / f"{kernel}.png"
    check(png.exists() and png.stat().st_size > 1000, f"a chart for {kernel}")
check(not (OUT / "plots" / "steps.png").exists(), "no chart per metric")
summary_file = OUT / "plots" / "summary.md"
summary = summary_file.read_text() if summary_file.exists() else ""
for row, what in (
        ("| lbm | aa-fp32-64 | mlups | 400 | 0.62 | 1.8e+04 | not rated | openmp: memory: copy bandwidth at its "
         "footprint ÷ bytes per update; cuda: records without footprint_bytes (before 005af5c) |",
         "lbm: rated where the copy at its footprint was measured, each space's limit named"),
        ("| copy | deep-copy | bandwidth_gbs | 60 | 0.9 | 2630 | the limit | the best copy of the run (a CPU's copy counted "
         "at the three streams it moves) |", "the CPU's copy counted at three streams: 90 of 100"),
        ("| lbm | ab-fp32-64 | mlups | 300 | not rated |  |  | 1 timed repeat, fewer than the 5 a rated figure is the "
         "median of |", "one repeat: not rated"),
        ("| besselk | evaluate | evals_per_second | 8e+06 | 0.8 | 1e+09 | not rated | openmp: the best implementation "
         "measured (fastest: GSL); cuda: FP64 roof not yet recorded; ours the only implementation measured "
         "(CuBesselK: not in this run) |", "K_ν: against GSL on the CPU, not 1 on the GPU"),
        ("| rfilter | line-n10000-k10 | wall_seconds |  |  | 4e-05 | not rated | no limit recorded (a paper's time on "
         "another GPU is not one) |", "the paper's time is no limit"),
        ("| gbees | lorenz63 | cells_per_second |  |  | 6e+07 | not rated | no reachable limit recorded (application "
         "efficiency only) |", "GBEES: neither its goal nor an unreachable roofline")):
    check(row in summary, f"{what}:\n{summary}")
check(summary in done.stdout, "the table on standard output")

empty = OUT / "empty"
empty.mkdir()
done = subprocess.run([sys.executable, str(SCRIPT), str(empty)], capture_output=True, text=True)
check(done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1 and "no result JSON" in done.stderr,
      f"a folder without records is refused in one line (got {done.returncode}: {done.stderr!r})")

finish("plot_results: every check passed")
