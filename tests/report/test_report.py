#!/usr/bin/env python3
"""perf/report.py on the hand-written records beside this file:

    test_report.py REPORT_PY OUT_DIR

gpu-box holds a GPU machine's records (cuda, and openmp on its host cores, besselk with GSL and
Boost; the test derives a copy of it with a second commit, a counted FP64 roof and peer records), amd-box an AMD GPU machine's (hip and openmp, lbm only), cpu-box a CPU machine's (openmp;
no copy or rfilter record), old-box records from before pk-bench measured a copy at each case's
footprint, threads one OpenMP run per thread count (2 and 8: lbm, rfilter's time, and a gbees
case only at 2). both Φ (architectural and application), the per-platform efficiencies over the
cases every platform ran, history, the copy probe with write-allocate, the CPU-vs-GPU speed-up and the strong scaling are computed here by hand from the fixtures' numbers;
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


def write(folder, name, record):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(record))


def arch(numbers, kernel):
    return numbers["architectural"][kernel]


def app(numbers, kernel):
    return numbers["application"][kernel]


# Two platforms: the GPU of gpu-box and the CPU-only machine, which has no copy or rfilter record.
out = OUT / "two-platforms"
result, numbers = report(HERE / "gpu-box", HERE / "cpu-box", "--platforms", "gpu-box:cuda,cpu-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:cuda", "cpu-box:openmp"], f"platforms {numbers['platforms']}")
lbm = arch(numbers, "lbm")
check(lbm["cases"] == ["aa-fp32-64", "ab-fp32-64"], f"lbm's cases rated on both {lbm['cases']}")
check(same(lbm["efficiency"]["gpu-box:cuda"], hm(0.8, 0.5)), "lbm efficiency on gpu-box:cuda")
check(same(lbm["efficiency"]["cpu-box:openmp"], hm(0.25, 0.2)), "lbm efficiency on cpu-box:openmp")
check(same(lbm["phi"], hm(hm(0.8, 0.5), hm(0.25, 0.2))), f"Φ lbm = {lbm['phi']}")
check(lbm["over"] == ["gpu-box:cuda", "cpu-box:openmp"] and lbm["commits"]["cpu-box:openmp"] == "fixture", f"{lbm}")
# rfilter ran on the GPU alone: Φ over it, named; the CPU is not measured, not a 0.
rfilter = arch(numbers, "rfilter")
check(same(rfilter["phi"], 0.6) and rfilter["over"] == ["gpu-box:cuda"], f"Φ rfilter over the GPU alone {rfilter}")
check(rfilter["not_measured"] == {"cpu-box:openmp": "not measured: no record of the kernel"}, f"{rfilter}")
check("copy" not in numbers["architectural"], "the copy probe is a limit, not a kernel of Φ")
check("gbees" not in numbers["architectural"], "the gbees case that did not run counts as a record")
check(numbers["speedup"] == {}, "a speed-up without a folder holding both spaces")
markdown = (out / "report.md").read_text()
check("| lbm | memory: copy bandwidth at its footprint ÷ bytes per update | 0.615 | 0.222 | **0.327** | "
      "gpu-box:cuda (fixture), cpu-box:openmp (fixture) | 2 |" in markdown, "the Φ row of lbm in report.md")
check("| rfilter | memory: the time to read and write the field at the copy bandwidth | 0.600 | not measured | "
      "**0.600** | gpu-box:cuda (fixture) | 1 |" in markdown, "the Φ row of rfilter, the CPU not measured")
check("- rfilter on cpu-box:openmp: not measured: no record of the kernel" in markdown, "why not, in report.md")
check("architectural Φ rfilter  = 0.600 over gpu-box:cuda (1 case); not in it: cpu-box:openmp" in result.stdout,
      result.stdout)
check("besselk-accuracy-regions-ours.json`: no entry in the efficiency table" in markdown, "the left-out record")
check("gbees-lorenz96-openmp.json`: the record says the case did not run" in markdown, "the record that did not run")
for png in ("efficiency-lbm.png", "efficiency-rfilter.png", "phi.png"):
    check((out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG")
check(not (out / "efficiency-copy.png").exists() and not (out / "speedup.png").exists(), "no chart of the probe")
check("threads" not in numbers and "CPU strong scaling" not in markdown, "strong scaling without --threads")
readme = (out / "README.md").read_text()
check("nothing here is kept by hand" in readme and "--platforms gpu-box:cuda,cpu-box" in readme
      and "| lbm | memory: copy bandwidth at its footprint ÷ bytes per update | 0.615 | 0.222 | **0.327** |" in readme,
      "README.md: generated, with its command and the Φ tables")

# Every platform: gpu-box adds its host cores, which ran one lbm case: Φ over that case alone.
out = OUT / "all-platforms"
result, numbers = report(HERE / "gpu-box", HERE / "cpu-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:openmp", "gpu-box:cuda", "cpu-box:openmp"], f"{numbers['platforms']}")
lbm = arch(numbers, "lbm")
check(lbm["cases"] == ["aa-fp32-64"] and same(lbm["phi"], hm(0.4, 0.8, 0.25)), f"Φ lbm over the case all ran {lbm}")
check(same(lbm["all_cases"]["gpu-box:cuda"]["efficiency"], hm(0.8, 0.5)), "the GPU over all its cases, beside")
markdown = (out / "report.md").read_text()
check("- lbm on gpu-box:cuda: 1 of its 2 rated cases are not rated on every platform (its efficiency over all 2: "
      "0.615)" in markdown, "the cases left out of Φ, named")
# rfilter: field64-x only (the Table-1 line case has no limit); 1.25 on openmp is not capped.
check(same(arch(numbers, "rfilter")["efficiency"]["gpu-box:openmp"], 1.25), "rfilter field: the ratio, not capped")
check("| line-n10000-k10 | wall_seconds (lower = better) | no limit recorded (a paper's time on another GPU is not "
      "one) | not rated · 8e-05 |" in markdown, "the line case: its figure, no ratio to the paper's time")
speedup = numbers["speedup"]["gpu-box"]
check(same(speedup["lbm"]["geometric_mean"], 8000 / 200) and speedup["lbm"]["cases"] == 1, f"lbm speed-up {speedup}")
check(same(speedup["copy"]["geometric_mean"], 1800 / 60), "copy speed-up")
rfilter = speedup["rfilter"]  # times: CPU time ÷ GPU time; field 0.02/0.001 = 20, line 8e-5/4e-5 = 2
check(same(rfilter["geometric_mean"], math.sqrt(20 * 2)) and same(rfilter["lowest"], 2)
      and same(rfilter["highest"], 20), f"rfilter speed-up {rfilter}")
check("| gpu-box | lbm | 1 | 40 | 40 | 40 | 20 (1) | 1 |" in markdown, "the lbm speed-up row in report.md")
# Beside it the limits' ratio: 40 x the CPU's 0.4 ÷ the GPU's 0.8 = 20, so the speed-up is above it,
# listed with the two efficiencies; the copy's limits are the probes': 1800 ÷ (60 x 1.5 moved) = 20.
check(same(speedup["lbm"]["limits_ratio"], 20) and speedup["lbm"]["above_limits"] and
      same(speedup["lbm"]["above_limits"][0]["cpu_efficiency"], 0.4), f"lbm limits' ratio {speedup['lbm']}")
check("- gpu-box lbm: aa-fp32-64 40 vs 20 (CPU 0.40, GPU 0.80)" in markdown, "the speed-up above it, with its cause")
check(same(speedup["copy"]["limits_ratio"], 20), f"the copy probes' ratio {speedup['copy']}")
check("GPU ÷ CPU throughput" in markdown and "higher = GPU faster" in markdown, "the speed-up's direction")
row = "| field64-x | wall_seconds (lower = better) | memory: the time to read and write the field at the copy " \
      "bandwidth | 1.250 · 0.02 | 0.600 · 0.001 | — |"
check(row in markdown, "the rfilter case row: above 1 on openmp, not run on cpu-box")
# K_ν: no FP64 roof recorded (no fp64_ops_per_eval): not rated architecturally. Application: ours
# ÷ GSL (8e6 ÷ 1e7) on gpu-box's host cores; ours alone on its GPU: not rated, never 1.
besselk = arch(numbers, "besselk")
check(besselk["phi"] is None and besselk["efficiency"] == {}, f"besselk without an FP64 roof {besselk}")
besselk = app(numbers, "besselk")
check(same(besselk["efficiency"]["gpu-box:openmp"], 0.8) and same(besselk["phi"], 0.8)
      and besselk["over"] == ["gpu-box:openmp"], f"besselk application {besselk}")
check(besselk["not_measured"]["gpu-box:cuda"].startswith("not rated: ours is the only implementation measured here "
                                                         "(CuBesselK: not yet measured)"), f"{besselk}")
row = ("| evaluate | evals_per_second (higher = better) | arithmetic: FP64 rate ÷ FP64 operations per evaluation | "
       "not rated · application 0.800 (vs GSL) · 8e+06 · FP64 400 GFLOP/s measured beside it | "
       "not rated · 1e+09 · FP64 5e+04 GFLOP/s measured beside it | — |")
check(row in markdown, "the besselk row: no roof, GSL the application limit, the FP64 rate beside it")
# The copy probe: on host cores a copy to another array moves 1.5 × what it counts; a GPU's as counted.
probe = numbers["copy_probe"]
check(same(probe["gpu-box:openmp"]["range-policy"]["moved_gbs"], 90) and
      same(probe["gpu-box:cuda"]["range-policy"]["moved_gbs"], 1800), f"write-allocate on the host only {probe}")
check("| gpu-box:openmp | 60 counted, 90 moved (the limit) | — | — | **90** | not yet measured |" in markdown,
      "the copy probe's row, write-allocate counted")
check("On gpu-box:openmp the probe's best is the range-policy, counted at three streams" in markdown, markdown)
check((out / "speedup.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "speedup.png is not a PNG")

# An AMD GPU machine beside the NVIDIA one: its hip records are a platform of their own, in Φ
# and in the speed-up over its own host cores.
out = OUT / "amd"
result, numbers = report(HERE / "gpu-box", HERE / "amd-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:openmp", "gpu-box:cuda", "amd-box:openmp", "amd-box:hip"],
      f"{numbers['platforms']}")
lbm = arch(numbers, "lbm")
check(same(lbm["efficiency"]["amd-box:hip"], 0.6), "lbm efficiency on amd-box:hip")
check(same(lbm["phi"], hm(0.3, 0.4, 0.6, 0.8)), f"Φ lbm = {lbm['phi']} over aa-fp32-64, the case all ran")
check(same(numbers["speedup"]["amd-box"]["lbm"]["geometric_mean"], 6000 / 300), f"amd speed-up {numbers['speedup']}")
check(same(numbers["speedup"]["gpu-box"]["lbm"]["geometric_mean"], 8000 / 200), "the NVIDIA speed-up beside it")
markdown = (out / "report.md").read_text()
check("| amd-box:hip | `" in markdown and "Test AMD GPU (110 CUs" in markdown, "the hip platform's row in report.md")
check("| amd-box | lbm | 1 | 20 | 20 | 20 |" in markdown, "the hip speed-up row in report.md")

# History: amd-box's records are not re-taken: shown with its figures, never rated.
out = OUT / "history"
result, numbers = report(HERE / "gpu-box", HERE / "amd-box", "--history", "amd-box", "--out", out)
check(numbers["platforms"] == ["gpu-box:openmp", "gpu-box:cuda"] and
      numbers["history"] == ["amd-box:openmp", "amd-box:hip"], f"history {numbers['platforms']} {numbers['history']}")
check(same(arch(numbers, "lbm")["phi"], hm(0.4, 0.8)) and "amd-box:hip" not in arch(numbers, "lbm")["not_measured"],
      f"history is not rated, nor named as not measured: {arch(numbers, 'lbm')}")
markdown = (out / "report.md").read_text()
check("| aa-fp32-64 | mlups (higher = better) | memory: copy bandwidth at its footprint ÷ bytes per update | 0.400 · 200 "
      "| 0.800 · 8000 | history · 300 | history · 6000 |" in markdown, "history columns: figures only")
check("| amd-box:hip | Test AMD GPU (110 CUs" in markdown and "## History" in markdown, "the history section")
check("| amd-box (history) | lbm | 1 | 20 | 20 | 20 |" in markdown, "the history's speed-up, marked")

# One commit per platform: records of two commits are not rated until re-taken at one. Peers
# (perf/peers/run.py's records) are the application limit; a counted FP64 roof the architectural one.
mixed, peers = OUT / "mixed-box", OUT / "mixed-peers"
for path in (HERE / "gpu-box").glob("*.json"):
    record = json.loads(path.read_text())
    if path.name == "lbm-ab-fp32-64-cuda.json":
        record["commit"] = "other"
    if path.name == "besselk-evaluate-cuda.json":
        record["metrics"]["fp64_ops_per_eval"] = 1000.0  # roof 5e4 GFLOP/s ÷ 1000 = 5e10 evals/s
    write(mixed, path.name, record)
# A run stopped by a signal writes its last case with the repeats it had: left out, said why.
stopped = json.loads((HERE / "gpu-box" / "lbm-aa-fp32-64-openmp.json").read_text())
stopped.update(case="aa-fp32-128", interrupted=True)
stopped["metrics"]["repeats"] = 1
write(mixed, "lbm-aa-fp32-128-openmp.json", stopped)
write(peers, "cubesselk-evaluate-2000000.json",
      {"comparison": "cubesselk", "case": "evaluate-2000000", "space": "cuda", "unit": "evaluations/s",
       "peer": {"name": "cubesselk", "stats": {"median": 2e9, "n": 5}}, "errors": [],
       "ours": {"pk_bench_case": "evaluate", "stats": {"median": 1.2e9, "n": 5}, "commit": "later"}, "ratio": 0.6})
# The same peer at another setting (fewer bins: faster, less accurate) is another code beside ours.
write(peers, "cubesselk-evaluate-2000000-bins64.json",
      {"comparison": "cubesselk", "case": "evaluate-2000000-bins64", "space": "cuda", "unit": "evaluations/s",
       "problem": {"peer_bins": 64, "peer_configuration": "64 bins"},
       "peer": {"name": "cubesselk", "stats": {"median": 2.5e9, "n": 5}}, "errors": [],
       "ours": {"pk_bench_case": "evaluate", "stats": {"median": 1.2e9, "n": 5}, "commit": "later"}, "ratio": 0.48})
write(peers, "fluidx3d-fp32-1024.json",
      {"comparison": "fluidx3d", "case": "fp32-1024", "space": "cuda", "unit": "MLUPS",
       "peer": {"name": "fluidx3d", "stats": None}, "errors": ["peer, repetition 0: exit status 1"],
       "ours": {"pk_bench_case": "aa-fp32-1024", "stats": None, "commit": "fixture"}, "ratio": None})
write(mixed, "gbees-lorenz63-cuda.json", {"kernel": "gbees", "case": "lorenz63", "space": "cuda", "commit": "fixture",
                                           "metrics": {"cells_per_second": 6e7, "limit_ratio": 1.2}})
write(peers, "gbees-cuda-lorenz63.json",  # a time: ours 0.1 s, the peer's 0.08 s, so ours at 0.8 of it
      {"comparison": "gbees-cuda", "case": "lorenz63", "space": "cuda", "unit": "s", "errors": [],
       "date": "2026-12-05T15:00:00Z", "peer": {"name": "gbeescuda", "stats": {"median": 0.08, "n": 5}},
       "ours": {"pk_bench_case": "lorenz63", "stats": {"median": 0.1, "n": 5}, "commit": "fixture"}, "ratio": 1.25})
# An earlier run of the same comparison, in a folder of its own: the later run is rated.
earlier = OUT / "mixed-peers-earlier"
write(earlier, "gbees-cuda-lorenz63.json",
      {"comparison": "gbees-cuda", "case": "lorenz63", "space": "cuda", "unit": "s", "errors": [],
       "date": "2026-12-01T15:00:00Z", "peer": {"name": "gbeescuda", "stats": {"median": 0.08, "n": 5}},
       "ours": {"pk_bench_case": "lorenz63", "stats": {"median": 0.4, "n": 5}, "commit": "older"}, "ratio": 0.2})
write(mixed, "gbees-lorenz63-openmp.json", {"kernel": "gbees", "case": "lorenz63", "space": "openmp",
                                             "commit": "fixture", "metrics": {"cells_per_second": 2e7}})
for case, ours in (("lorenz63-allthreads", 0.5), ("lorenz63-1thread", 3.0)):  # GBEES in C: serial, 0.4 s
    write(peers, f"gbees-c-{case}.json",
          {"comparison": "gbees-c", "case": case, "space": "openmp", "unit": "s", "errors": [],
           "peer": {"name": "gbeesc", "stats": {"median": 0.4, "n": 5}},
           "ours": {"pk_bench_case": case, "stats": {"median": ours, "n": 5}, "commit": "fixture"}})
# Lorenz '96 shortened on the CPU (pk-bench's end time 0.2 there, 1.3 on the GPU): no speed-up.
for space, rate, end in (("openmp", 1e7, 0.2), ("cuda", 6e8, 1.3)):
    write(mixed, f"gbees-lorenz96-{space}.json", {"kernel": "gbees", "case": "lorenz96", "space": space,
                                                  "commit": "fixture", "metrics": {"cells_per_second": rate,
                                                                                   "end_time": end}})
write(peers, "peers.json", {"not": "a record"})
write(peers, "newpeer-x.json", {"comparison": "newpeer", "case": "x", "space": "cuda"})
result, numbers = report(f"gpu-box={mixed}", "--peers", f"gpu-box={earlier}", "--peers", f"gpu-box={peers}", "--out",
                         OUT / "mixed")
lbm = arch(numbers, "lbm")
check(lbm["over"] == ["gpu-box:openmp"] and "2 commits (fixture, other)" in lbm["not_measured"]["gpu-box:cuda"],
      f"two commits on one platform: not rated {lbm}")
besselk = arch(numbers, "besselk")
check(same(besselk["efficiency"]["gpu-box:cuda"], 1e9 / 5e10) and besselk["over"] == ["gpu-box:cuda"],
      f"K_ν against its FP64 roof {besselk}")
besselk = app(numbers, "besselk")
check(same(besselk["efficiency"]["gpu-box:cuda"], 0.48) and same(besselk["phi"], hm(0.8, 0.48)),
      f"K_ν on the GPU against the faster CuBesselK setting, measured beside it {besselk}")
check(same(app(numbers, "gbees")["phi"], 0.8), f"gbees against gbees-cuda, times as rates {app(numbers, 'gbees')}")
check(same(app(numbers, "gbees")["efficiency"]["gpu-box:openmp"], 0.8),
      f"gbees on the CPU against serial GBEES in C, ours on every thread {app(numbers, 'gbees')}")
markdown = (OUT / "mixed" / "report.md").read_text()
check("fluidx3d-fp32-1024.json`: FluidX3D or ours did not run: peer, repetition 0: exit status 1" in markdown,
      "a peer that did not run: left out, said why")
check("newpeer-x.json`: a comparison this report does not know ('newpeer')" in markdown, "an unknown peer: left out")
check("application 0.480 (vs CuBesselK (64 bins))" in markdown, "the application efficiency in the case's cell")
# Ours beside CuBesselK at a later commit than the CPU's records: the Φ is shown, and so is that it
# sets two commits' code side by side.
mixed_line = next((line for line in markdown.splitlines() if line.startswith("- besselk: ")), "")
check("Φ over records of more than one commit:" in markdown and "(later)" in mixed_line and "(fixture)" in mixed_line
      and "2 commits' code side by side" in mixed_line, f"a Φ over two commits flagged: {mixed_line!r}")
check(not any(line.startswith("- gbees: ") and "side by side" in line for line in markdown.splitlines()),
      "a Φ over one commit not flagged")
check("cubesselk-evaluate-2000000.json`: superseded" not in markdown,
      "CuBesselK at 128 bins is not superseded by its run at 64")
check("Peer records read: `" in markdown, "the peers folder named")
check("lbm-aa-fp32-128-openmp.json`: 1 timed repeat, fewer than the 5 a rated figure is the median of" in markdown,
      "a record of one repeat: left out, said why")
# Where a peer is faster, the report says so, by how much, and where it was measured: the next work.
check("- gpu-box:cuda gbees `lorenz63`: gbees-cuda 1.25x ours (0.800), `" in markdown
      and "mixed-peers/gbees-cuda-lorenz63.json`" in markdown, "gbees-cuda faster: named, with its record")
check("- gpu-box:openmp besselk `evaluate`: GSL 1.25x ours (0.800), pk-bench's GSL record beside ours" in markdown,
      "GSL faster on the host: named, the same pk-bench run")
check("mixed-peers-earlier/gbees-cuda-lorenz63.json`: superseded by a later run, " in markdown,
      "an earlier run of a comparison: listed as superseded, not rated")
check("gbees-c-lorenz63-1thread.json`: ours on one thread beside a serial peer" in markdown,
      "ours on one thread beside GBEES in C: not rated, said why")
check(numbers["speedup_left_out"] == [{"folder": "gpu-box", "kernel": "gbees", "case": "lorenz96",
                                       "differs": {"end_time": [0.2, 1.3]}}]
      and numbers["speedup"]["gpu-box"]["gbees"]["cases"] == 1
      and "- gpu-box gbees `lorenz96`: end_time 0.2, 1.3" in markdown,
      f"a case whose CPU and GPU problems differ: no speed-up, said why {numbers['speedup_left_out']}")

# The spread of the repeats: a record that keeps it is counted, one above 10 % is named.
spread = OUT / "spread-box"
for path in (HERE / "gpu-box").glob("*.json"):
    record = json.loads(path.read_text())
    if path.name in ("lbm-aa-fp32-64-cuda.json", "lbm-ab-fp32-64-cuda.json"):
        record["metrics"]["repeat_spread"] = 0.25 if path.name.startswith("lbm-ab") else 0.02
    if path.name in ("lbm-aa-fp32-64-openmp.json", "rfilter-field64-x-openmp.json"):
        record["metrics"]["host_stolen_share"] = 0.3 if path.name.startswith("lbm") else 0.01
    write(spread, path.name, record)
result, numbers = report(f"gpu-box={spread}", "--out", OUT / "spread")
markdown = (OUT / "spread" / "report.md").read_text()
check("| gpu-box:cuda | 2 of " in markdown and "| 25.0% | 1 |" in markdown, "the spread row of gpu-box:cuda")
check("- gpu-box:cuda: lbm ab-fp32-64: 25.0%" in markdown and "aa-fp32-64: 2.0%" not in markdown,
      "the case above 10 % named, the one below not")
check("| gpu-box:openmp | 0 of " in markdown, "a platform whose records keep no spread")
check("- gpu-box:openmp: lbm aa-fp32-64: 30.0%" in markdown and "field64-x: 1.0%" not in markdown,
      "a record taken while other guests had 30 % of the CPUs named, one at 1 % not")

# Three runs of one commit merged (perf/merge_runs.py): each case's record is its median run's,
# its efficiency that run's; aa-fp32-64 on the GPU ran at 7000, 8000 and 9000 MLUPS (limits 0.7,
# 0.8, 0.9): the 8000 run, spread (9000 - 7000) / 8000 = 25 %. rfilter's time (lower = better)
# 0.001, 0.0011, 0.0012 s: the 0.0011 run, spread 0.0002 / 0.0011 = 18.2 %. A run of another commit
# or on another device is refused.
MERGE = REPORT.parent / "merge_runs.py"
runs = [OUT / "runs" / str(r) for r in range(3)]
for r, folder in enumerate(runs):
    for path in (HERE / "gpu-box").glob("*.json"):
        record = json.loads(path.read_text())
        if path.name == "lbm-aa-fp32-64-cuda.json":
            record["metrics"].update(mlups=[7000.0, 9000.0, 8000.0][r], limit_ratio=[0.7, 0.9, 0.8][r])
        if path.name == "rfilter-field64-x-cuda.json":
            record["metrics"]["wall_seconds"] = [0.0012, 0.001, 0.0011][r]
        write(folder, path.name, record)
merged = OUT / "runs" / "merged"
result = subprocess.run([sys.executable, str(MERGE), *map(str, runs), "--out", str(merged)], capture_output=True, text=True)
check(result.returncode == 0, f"merge_runs.py: exit status {result.returncode}: {result.stderr}")
lbm_merged = json.loads((merged / "lbm-aa-fp32-64-cuda.json").read_text())
check(lbm_merged["metrics"]["mlups"] == 8000.0 and lbm_merged["metrics"]["limit_ratio"] == 0.8
      and lbm_merged["runs"]["values"] == [7000.0, 9000.0, 8000.0] and same(lbm_merged["runs"]["spread"], 0.25)
      and lbm_merged["runs"]["median_of"] == (runs[2] / "lbm-aa-fp32-64-cuda.json").as_posix(),
      f"the median run's record, every run beside it: {lbm_merged.get('runs')}")
rfilter_merged = json.loads((merged / "rfilter-field64-x-cuda.json").read_text())
check(rfilter_merged["metrics"]["wall_seconds"] == 0.0011 and rfilter_merged["runs"]["median_of"].startswith(
      runs[2].as_posix()), f"a time's median run: {rfilter_merged['metrics']}")
result, numbers = report(f"gpu-box={merged}", "--out", OUT / "merged-report")
markdown = (OUT / "merged-report" / "report.md").read_text()
check(same(numbers["architectural"]["lbm"]["case_efficiency"]["gpu-box:cuda"]["aa-fp32-64"], 0.8),
      "the merged case rated with its median run's limit")
check("| 3 | 0.0% | 25.0% | 2 |" in markdown and "- gpu-box:cuda: lbm aa-fp32-64: 25.0%" in markdown
      and "- gpu-box:cuda: rfilter field64-x: 18.2%" in markdown,
      "the spread across runs shown, the case above 10 % named")
other = OUT / "runs" / "other-commit"
write(other, "lbm-aa-fp32-64-cuda.json", {**lbm_merged, "commit": "another"})
elsewhere = OUT / "runs" / "other-machine"
write(elsewhere, "lbm-aa-fp32-64-cuda.json", {**lbm_merged, "device": "Test GPU (16 SMs)"})
for args, expected in (([*runs, other], "records of 2 commits"), ([runs[0], runs[0]], "a run folder given twice"),
                       ([*runs, elsewhere], "measured on other hardware"),
                       ([runs[0], runs[1], "--out", runs[0]], "one of the runs")):
    args = [*args, "--out", merged] if "--out" not in args else args
    result = subprocess.run([sys.executable, str(MERGE), *map(str, args)], capture_output=True, text=True)
    check(result.returncode == 2 and len(result.stderr.splitlines()) == 1 and expected in result.stderr,
          f"merge_runs.py {expected}: stderr {result.stderr!r}")

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

# GBEES: its copy roofline is not a limit its cases reach: not rated, application only (no peer yet).
out = OUT / "gbees"
result, numbers = report(HERE / "gbees-box", "--out", out)
check(arch(numbers, "gbees")["phi"] is None and app(numbers, "gbees")["phi"] is None, f"gbees {numbers}")
check(arch(numbers, "gbees")["not_measured"]["gbees-box:cuda"].startswith("not rated: no reachable limit recorded"),
      f"gbees: why {arch(numbers, 'gbees')}")
markdown = (out / "report.md").read_text()
check("| lorenz96 | cells_per_second (higher = better) | no reachable limit recorded (application efficiency only) | "
      "not rated · 6e+08 |" in markdown, "the case with a traffic model, not rated against it")

# Records from before the copy at the case's footprint (no footprint_bytes): shown, not rated,
# whatever their ratio (a 64^3 lattice above its old limit, a 512^3 one below it, a field).
out = OUT / "old"
result, numbers = report(HERE / "old-box", "--out", out)
check(all(s["phi"] is None and s["efficiency"] == {} for s in numbers["architectural"].values()),
      f"old records rated: {numbers['architectural']}")
markdown = (out / "report.md").read_text()
for row in ("| aa-fp32-64 | mlups (higher = better) | memory: copy bandwidth at its footprint ÷ bytes per update | "
            "not rated · 300 |",
            "| aa-fp32-512 | mlups (higher = better) | memory: copy bandwidth at its footprint ÷ bytes per update | "
            "not rated · 400 |",
            "| field256-x | wall_seconds (lower = better) | memory: the time to read and write the field at the copy "
            "bandwidth | not rated · 0.05 |"):
    check(row in markdown, f"the old record's row {row}")
check("lbm on old-box:openmp: not rated: records without footprint_bytes" in markdown, "why the old are not rated")

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
for args, expected in ((["--history", "h100"], "--history: no folder named 'h100'"),
                       (["--history", "gpu-box"], "no platform left to rate"),
                       (["--peers", "h100=x"], "--peers h100=x: give NAME=DIR")):
    result = run(HERE / "gpu-box", *args, "--out", OUT / "bad")
    check(result.returncode == 2 and len(result.stderr.splitlines()) == 1 and expected in result.stderr,
          f"{args}: stderr {result.stderr!r}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("ok: both Φ, efficiencies, history, peers, the copy probe, speed-up, merged runs, strong scaling, Markdown, "
      "PNGs, bad input")
