#!/usr/bin/env python3
"""perf/limits.py on the hand-written measurements beside this file, and perf/report.py's section
that reads what it writes:

    test_limits.py LIMITS_PY REPORT_PY OUT_DIR

ncu holds two Nsight Compute raw pages: an LBM case with an autotune trial at a smaller size, two
launch-bounds variants of its odd step (the faster is the one autotune takes), an L2-bound even
step and an initialization under a tenth of the time; a GBEES case whose grid fills a
fiftieth of a wave. cpu-limits holds pk-bench records at 4 and 8 threads: lbm x1.8 (its cores),
rfilter's time 0.010 -> 0.009 s (x1.11: what the cores share), gbees x1.4 (partly both), and a
case at 8 threads only. Bad input must give one line on stderr and exit status 2.
"""
import json
import pathlib
import subprocess
import sys

from checks import check, finish

LIMITS, REPORT, OUT = (pathlib.Path(a) for a in sys.argv[1:4])
HERE = pathlib.Path(__file__).resolve().parent
OUT.mkdir(parents=True, exist_ok=True)


def run(script, *args):
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True)


def limits(*args):
    result = run(LIMITS, *args)
    if result.returncode != 0:
        sys.exit(f"FAIL: limits.py {' '.join(map(str, args))}: exit status {result.returncode}: {result.stderr}")
    return json.loads(pathlib.Path(args[-1]).read_text())


gpu = limits("gpu-box:cuda", "--ncu", HERE / "ncu", "--commit", "fixture", "--out", OUT / "gpu.json")
lbm, gbees = gpu["kernels"]["lbm"], gpu["kernels"]["gbees"]
check([f["launch"] for f in lbm] == ["StreamCollide (A-A odd step), 2048 x 128", "PairedCollide, 1024 x 128"],
      f"lbm's kernels over a tenth of the time, the odd step's faster variant first: {[f['launch'] for f in lbm]}")
check(abs(lbm[0]["microseconds"] - 90) < 1e-9 and abs(lbm[0]["share"] - 90 / 175) < 1e-12,
      f"the variant autotune takes (90 us, LaunchBounds<128, 10>), of 90 + 80 + 5 us: {lbm[0]}")
check(lbm[0]["variants_profiled"] == 2, f"two variants of the odd step at the case's size: {lbm[0]}")
check(lbm[0]["limit"].startswith("latency: no unit at 80 % of its peak (DRAM 78 %, L2 79 %, L1 30 %, SM 62 %)")
      and "loads from memory (long scoreboard): 8.0 warps" in lbm[0]["limit"] and "(48 registers" in lbm[0]["limit"],
      f"the odd step is latency-bound, waiting on loads: {lbm[0]['limit']}")
check(lbm[1]["limit"] == "L2 throughput: 85 % of its peak", f"the even step is L2-bound: {lbm[1]['limit']}")
check(abs(lbm[1]["dram_tbs"] - 3.8) < 1e-12, f"DRAM bandwidth in TB/s from the page's unit: {lbm[1]['dram_tbs']}")
check(len(gbees) == 1 and gbees[0]["limit"].startswith("parallelism: a grid of 10 blocks of 128 threads fills 0.02 "
                                                       "of a wave on the 132 SMs"), f"gbees: {gbees}")

cpu = limits("cpu-box:openmp", "--threads", HERE / "cpu-limits", "--out", OUT / "cpu.json")
found = {k: v[0] for k, v in cpu["kernels"].items()}
check(set(found) == {"lbm", "rfilter", "gbees"} and all(len(v) == 1 for v in cpu["kernels"].values()),
      f"one finding per case run at both counts: {cpu['kernels']}")
check(found["lbm"]["limit"].startswith("the cores: x1.80 on 2 times the threads, the best copy x1.20"),
      f"lbm: {found['lbm']['limit']}")
check(found["rfilter"]["limit"].startswith("what the cores share (memory, last-level cache): x1.11"),
      f"rfilter, a time: {found['rfilter']['limit']}")
check(found["gbees"]["limit"].startswith("partly the cores, partly what they share: x1.40"),
      f"gbees: {found['gbees']['limit']}")

# The report lists, for each kernel below 0.9 on a platform, what limits it there.
out = OUT / "report"
result = run(REPORT, HERE / "gpu-box", "--limits", OUT / "gpu.json", "--out", out)
text = (out / "report.md").read_text() if result.returncode == 0 else ""
check(result.returncode == 0, f"report.py --limits: {result.stderr}")
check("- **lbm on gpu-box:cuda** (0.615), Nsight Compute (perf/device/limits.sh), fixture:" in text
      and "  - aa-fp32-64, PairedCollide, 1024 x 128 (46% of its time): L2 throughput: 85 % of its peak" in text,
      "report: lbm on gpu-box:cuda with its findings")
check("- **lbm on gpu-box:openmp** (0.400): not measured on this platform." in text,
      "report: a platform without findings says so")
check("**besselk on gpu-box:cuda**" not in text, "report: kernels at 0.9 or above are not listed")
# A kernel without an architectural limit (GBEES) is listed where its cases were measured.
out = OUT / "report-gbees"
result = run(REPORT, f"gpu-box={HERE / 'gbees-box'}", "--limits", OUT / "gpu.json", "--out", out)
text = (out / "report.md").read_text() if result.returncode == 0 else ""
check("- **gbees on gpu-box:cuda** (not rated), Nsight Compute (perf/device/limits.sh), fixture:" in text
      and "fills 0.02 of a wave on the 132 SMs" in text, f"report: gbees, not rated, with its findings: {result.stderr}")

# Bad input: one line on stderr, exit status 2.
(OUT / "bad").mkdir(exist_ok=True)
(OUT / "bad" / "lbm-x.csv").write_text("not,a,page\n")
(OUT / "one-count" / "threads-8").mkdir(parents=True, exist_ok=True)
(OUT / "broken.json").write_text('{"platform": "x", "kernels": {"lbm": [{"case": "c"}]}}\n')
for what, script, args in [("a page without launches", LIMITS, ["p", "--ncu", OUT / "bad", "--out", OUT / "x"]),
                           ("no folder", LIMITS, ["p", "--ncu", OUT / "missing", "--out", OUT / "x"]),
                           ("one thread count", LIMITS, ["p", "--threads", OUT / "one-count", "--out", OUT / "x"]),
                           ("a finding without its limit", REPORT,
                            [HERE / "gpu-box", "--limits", OUT / "broken.json", "--out", OUT / "r"])]:
    result = run(script, *args)
    lines = result.stderr.strip().splitlines()
    check(result.returncode == 2 and len(lines) == 1 and "error:" in lines[0],
          f"{what}: exit {result.returncode}, stderr {result.stderr!r}")

finish("limits: all checks passed")
