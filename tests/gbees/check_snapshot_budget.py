#!/usr/bin/env python3
"""pk-gbees' summary record carries the probability budget at every snapshot, and the time its
snapshots took:

    check_snapshot_budget.py PK_GBEES OUT_DIR

Runs a short Lorenz '63 case with snapshots and checks each snapshot's kept, pruned, clipped
and outflow probability: kept sums to 1 (one PDF, renormalised), the other three only grow,
and the last snapshot's budget is the run's own.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

PK_GBEES, OUT = sys.argv[1], pathlib.Path(sys.argv[2])
shutil.rmtree(OUT, ignore_errors=True)
start = time.monotonic()
done = subprocess.run([PK_GBEES, "--space", "openmp", "--end-time", "0.2", "--no-measurements", "--snapshots", "2",
                       "--out", str(OUT)], capture_output=True, text=True,
                      env={**os.environ, "OMP_NUM_THREADS": "1"})  # read by Kokkos 3.4 and 4 alike
elapsed = time.monotonic() - start
if done.returncode != 0:
    sys.exit(f"pk-gbees failed ({done.returncode}): {done.stderr}")
run = json.loads((OUT / "gbees-lorenz63-openmp.json").read_text())
budget = ("pruned_probability", "clipped_probability", "outflow_probability")
snapshots = run["snapshots"]
problems = []
if len(snapshots) != 3:
    problems.append(f"expected 3 snapshots (t = 0, 0.1, 0.2), got {len(snapshots)}")
for s in snapshots:
    if abs(s["kept_probability"] - 1) > 1e-9:
        problems.append(f"{s['label']}: kept {s['kept_probability']}, not 1")
for before, after in zip(snapshots, snapshots[1:]):
    problems += [f"{after['label']}: {key} fell" for key in budget if after[key] < before[key]]
problems += [f"last snapshot's {key} is not the run's" for key in budget if snapshots[-1][key] != run[key]]
# Where the time outside the solver goes: each part of taking the snapshots, measured (the cells
# and their marginals were taken and written three times; no Monte Carlo was asked for), and all
# of it within the process's own wall time.
parts = run["snapshot_seconds"]
if not (parts["cells"] > 0 and parts["marginals"] > 0 and parts["monte_carlo"] == 0):
    problems.append(f"snapshot_seconds {parts}: cells and marginals not timed, or Monte Carlo timed unasked")
if sum(parts.values()) + run["wall_seconds"] > elapsed:
    problems.append(f"snapshots {parts} and solver {run['wall_seconds']} s exceed the process's {elapsed:.3f} s")
if not any(snapshots[-1][key] > 0 for key in budget):
    problems.append("nothing pruned, clipped or lost: the case checks nothing")
print("\n".join(problems) or "every snapshot carries the budget")
sys.exit(1 if problems else 0)
