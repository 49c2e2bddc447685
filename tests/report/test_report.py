#!/usr/bin/env python3
"""perf/report.py on the hand-written records beside this file:

    test_report.py REPORT_PY OUT_DIR

gpu-box holds a GPU machine's records (cuda, and openmp on its host cores, besselk with GSL and
Boost), amd-box an AMD GPU machine's (hip and openmp, lbm only), cpu-box a CPU machine's (openmp;
no copy or rfilter record), old-box records from before pk-bench measured a copy at each case's
footprint, threads one OpenMP run per thread count (2 and 8: lbm, rfilter's time, and a gbees
case only at 2). Φ, the per-platform efficiencies, the
CPU-vs-GPU speed-up and the strong scaling are computed here by hand from the fixtures' numbers;
bad input must give one line on stderr naming the file and exit status 2.
"""
import json
import math
import pathlib
import subprocess
import sys

REPORT, OUT = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
HERE = pathlib.Path(__file__).resolve().parent
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def same(a, b):
    return a is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=0)


def run(*args):
    return subprocess.run([sys.executable, str(REPORT), *map(str, args)], capture_output=True, text=True)


def report(*args):
    """A run that must succeed; its numbers."""
    result = run(*args)
    if result.returncode != 0:
        sys.exit(f"FAIL: report.py {' '.join(map(str, args))}: exit status {result.returncode}: {result.stderr}")
    return result, json.loads((pathlib.Path(args[-1]) / "report.json").read_text())


def hm(*values):  # Pennycook's Φ: the harmonic mean
    return len(values) / sum(1 / v for v in values)


# Two platforms: the GPU of gpu-box and the CPU-only machine, which has no copy record.
out = OUT / "two-platforms"
result, numbers = report(HERE / "gpu-box", HERE / "cpu-box", "--platforms", "gpu-box:cuda,cpu-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:cuda", "cpu-box:openmp"], f"platforms {numbers['platforms']}")
check(same(numbers["efficiency"]["lbm"]["gpu-box:cuda"], hm(0.8, 0.5)), "lbm efficiency on gpu-box:cuda")
check(same(numbers["efficiency"]["lbm"]["cpu-box:openmp"], hm(0.25, 0.2)), "lbm efficiency on cpu-box:openmp")
check(same(numbers["phi"]["lbm"], hm(hm(0.8, 0.5), hm(0.25, 0.2))), f"Φ lbm = {numbers['phi']['lbm']}")
check(numbers["efficiency"]["copy"]["cpu-box:openmp"] is None, "copy has no record on cpu-box")
check(numbers["phi"]["copy"] == 0 and numbers["phi"]["rfilter"] == 0, f"Φ copy, rfilter {numbers['phi']}: not 0")
check("Φ copy     = 0.000 over 2 platforms (no rated record on cpu-box:openmp)" in result.stdout, result.stdout)
check(numbers["speedup"] == {}, "a speed-up without a folder holding both spaces")
check("gbees" not in numbers["phi"], "the gbees case that did not run counts as a record")
markdown = (out / "report.md").read_text()
check("| lbm | architectural | 0.615 | 0.222 | **0.327** |" in markdown, "the Φ row of lbm in report.md")
check("besselk-accuracy-regions-ours.json`: no entry in the efficiency table" in markdown, "the left-out record")
check("gbees-lorenz96-openmp.json`: the record says the case did not run" in markdown, "the record that did not run")
for png in ("efficiency-lbm.png", "efficiency-copy.png", "efficiency-rfilter.png", "phi.png"):
    check((out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG")
check(not (out / "speedup.png").exists(), "speedup.png without a speed-up")
check("threads" not in numbers and "CPU strong scaling" not in markdown, "strong scaling without --threads")

# Every platform: gpu-box adds its host cores, so the speed-up appears.
out = OUT / "all-platforms"
result, numbers = report(HERE / "gpu-box", HERE / "cpu-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:openmp", "gpu-box:cuda", "cpu-box:openmp"], f"{numbers['platforms']}")
check(same(numbers["phi"]["lbm"], hm(0.4, hm(0.8, 0.5), hm(0.25, 0.2))), f"Φ lbm = {numbers['phi']['lbm']}")
check(same(numbers["phi"]["copy"], 0) and same(numbers["efficiency"]["copy"]["gpu-box:openmp"], 0.75), "copy")
# rfilter: field64-x only (the Table-1 line case stays out of Φ); 1.25 on openmp is not capped.
check(same(numbers["efficiency"]["rfilter"]["gpu-box:openmp"], 1.25), "rfilter field: the ratio, not capped")
check(same(numbers["efficiency"]["rfilter"]["gpu-box:cuda"], 0.6), "rfilter: the line case in the efficiency")
speedup = numbers["speedup"]["gpu-box"]
check(same(speedup["lbm"]["geometric_mean"], 8000 / 200) and speedup["lbm"]["cases"] == 1, f"lbm speed-up {speedup}")
check(same(speedup["copy"]["geometric_mean"], 1800 / 60), "copy speed-up")
# times: CPU time ÷ GPU time; field 0.02/0.001 = 20, line 8e-5/4e-5 = 2
rfilter = speedup["rfilter"]
check(same(rfilter["geometric_mean"], math.sqrt(20 * 2)) and same(rfilter["lowest"], 2)
      and same(rfilter["highest"], 20), f"rfilter speed-up {rfilter}")
markdown = (out / "report.md").read_text()
check("| gpu-box | lbm | 1 | 40 | 40 | 40 |" in markdown, "the lbm speed-up row in report.md")
check("GPU ÷ CPU throughput" in markdown and "higher = GPU faster" in markdown, "the speed-up's direction")
row = "| field64-x | wall_seconds (lower = better) | efficiency | 1.250 · 0.02 | 0.600 · 0.001 | — |"
check(row in markdown, "the rfilter case row: above 1 on openmp, not run on cpu-box")
# K_ν against the fastest implementation of the platform: GSL on gpu-box's host cores (8e6 ÷ 1e7),
# ours alone on its GPU; the FP64 rate measured beside it, in flops an evaluation's time.
check(same(numbers["efficiency"]["besselk"]["gpu-box:openmp"], 0.8), f"besselk {numbers['efficiency']['besselk']}")
check(same(numbers["efficiency"]["besselk"]["gpu-box:cuda"], 1.0), "besselk: ours, the one GPU implementation")
row = ("| evaluate | evals_per_second (higher = better) | efficiency | 0.800 · 8e+06 · FP64 400 GFLOP/s, "
       "5e+04 flops an evaluation's time | 1.000 · 1e+09 · FP64 5e+04 GFLOP/s, 5e+04 flops an evaluation's time | — |")
check(row in markdown, "the besselk row with the FP64 rate beside it")
check("| evaluate-boost | evals_per_second (higher = better) | library ÷ best (not in Φ) | 0.2× · 2e+06 |" in markdown,
      "Boost against the best")
check((out / "speedup.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "speedup.png is not a PNG")

# An AMD GPU machine beside the NVIDIA one: its hip records are a platform of their own, in Φ
# and in the speed-up over its own host cores.
out = OUT / "amd"
result, numbers = report(HERE / "gpu-box", HERE / "amd-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:openmp", "gpu-box:cuda", "amd-box:openmp", "amd-box:hip"],
      f"{numbers['platforms']}")
check(same(numbers["efficiency"]["lbm"]["amd-box:hip"], 0.6), "lbm efficiency on amd-box:hip")
check(same(numbers["phi"]["lbm"], hm(0.3, 0.4, 0.6, hm(0.8, 0.5))), f"Φ lbm = {numbers['phi']['lbm']}")
check(same(numbers["speedup"]["amd-box"]["lbm"]["geometric_mean"], 6000 / 300), f"amd speed-up {numbers['speedup']}")
check(same(numbers["speedup"]["gpu-box"]["lbm"]["geometric_mean"], 8000 / 200), "the NVIDIA speed-up beside it")
markdown = (out / "report.md").read_text()
check("| amd-box:hip | `" in markdown and "Test AMD GPU (110 CUs" in markdown, "the hip platform's row in report.md")
check("| amd-box | lbm | 1 | 20 | 20 | 20 |" in markdown, "the hip speed-up row in report.md")

# CPU strong scaling, 2 -> 8 threads: lbm 100 -> 350 MLUPS, speed-up 3.5, efficiency 3.5 / 4; rfilter
# 0.02 -> 0.008 s (lower = better), speed-up 0.02 / 0.008 = 2.5, efficiency 2.5 / 4.
out = OUT / "threads"
result, numbers = report(HERE / "gpu-box", "--threads", HERE / "threads", "--out", out)
scaling = numbers["threads"]
check(scaling["counts"] == [2, 8], f"thread counts {scaling['counts']}")
for kernel, case, speed_up in (("lbm", "aa-fp32-64", 3.5), ("rfilter", "field64-x", 2.5)):
    point = scaling["kernels"][kernel]["cases"][case]["points"]["8"]
    check(same(point["speedup"], speed_up) and same(point["efficiency"], speed_up / 4), f"{kernel} {case}: {point}")
    mean = scaling["kernels"][kernel]["geometric_mean"]["8"]
    check(mean["cases"] == 1 and same(mean["speedup"], speed_up), f"{kernel} geometric mean {mean}")
    check((out / f"threads-{kernel}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"threads-{kernel}.png")
check("gbees" not in scaling["kernels"] and not (out / "threads-gbees.png").exists(), "gbees scaled from one count")
check(scaling["missing"] == {"gbees": {"lorenz63": [8]}}, f"missing {scaling['missing']}")
markdown = (out / "report.md").read_text()
check("## CPU strong scaling" in markdown and "Higher = better for both" in markdown, "the scaling section")
check("| case | headline at 2 threads | 8 threads |" in markdown, "the scaling table's header")
check("| aa-fp32-64 | 100 mlups (higher = better) | 3.5 (0.88) |" in markdown, "the lbm scaling row")
check("| field64-x | 0.02 wall_seconds (lower = better) | 2.5 (0.62) |" in markdown, "the rfilter scaling row")
check("- gbees lorenz63: no record at 8 threads" in markdown, "the note on the missing case")
check("CPU strong scaling, lbm     : speed-up 3.5 at 8 threads over 2" in result.stdout, result.stdout)

# GBEES is rated against the copy roofline (roofline_fraction), not its goal (limit_ratio 6
# would be capped at 1); a record from before the traffic model is shown, not rated.
out = OUT / "gbees"
result, numbers = report(HERE / "gbees-box", "--out", out)
check(same(numbers["efficiency"]["gbees"]["gbees-box:cuda"], 0.1), f"gbees efficiency {numbers['efficiency']}")
check(same(numbers["phi"]["gbees"], 0.1), f"Φ gbees = {numbers['phi'].get('gbees')}")
markdown = (out / "report.md").read_text()
check("| lorenz63 | cells_per_second (higher = better) | efficiency | not rated · 7e+07 |" in markdown,
      "the record without a traffic model")

# Records from before the copy at the case's footprint (no footprint_bytes): shown, not rated,
# whatever their ratio (a 64^3 lattice above its old limit, a 512^3 one below it, a field).
out = OUT / "old"
result, numbers = report(HERE / "old-box", "--out", out)
check(numbers["efficiency"] == {} and numbers["phi"] == {}, f"old records rated: {numbers['efficiency']}")
markdown = (out / "report.md").read_text()
for row in ("| aa-fp32-64 | mlups (higher = better) | efficiency | not rated · 300 |",
            "| aa-fp32-512 | mlups (higher = better) | efficiency | not rated · 400 |",
            "| field256-x | wall_seconds (lower = better) | efficiency | not rated · 0.05 |"):
    check(row in markdown, f"the old record's row {row}")

# Bad input: one line on stderr naming the file, exit status 2, no traceback.
empty = OUT / "empty"
empty.mkdir(parents=True, exist_ok=True)
for what, folder, expected in (
        ("no records", empty, f"report: error: {empty}: no pk-bench result records"),
        ("malformed JSON", HERE / "malformed", "malformed/lbm-aa-fp32-64-cuda.json: not a readable JSON"),
        ("no headline", HERE / "no-headline", "no-headline/lbm-aa-fp32-64-cuda.json: no number for 'mlups'")):
    result = run(folder, "--out", OUT / "bad")
    check(result.returncode == 2, f"{what}: exit status {result.returncode}")
    check(len(result.stderr.splitlines()) == 1 and expected in result.stderr, f"{what}: stderr {result.stderr!r}")
result = run(HERE / "gpu-box", "--threads", empty, "--out", OUT / "bad")
check(result.returncode == 2 and len(result.stderr.splitlines()) == 1
      and f"--threads {empty}: no threads-<N> subfolders" in result.stderr, f"--threads: stderr {result.stderr!r}")
result = run(HERE / "gpu-box", "--platforms", "gpu-box:hip", "--out", OUT / "bad")
check(result.returncode == 2 and "no platform 'gpu-box:hip'" in result.stderr, f"unknown platform: {result.stderr!r}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("ok: Φ, efficiencies, speed-up, strong scaling, Markdown, PNGs and bad input")
