#!/usr/bin/env python3
"""The storage each run chose at each lattice, both candidates' trial rates and the rate the
run then measured: summary.py RESULTS (the folder runs.sh wrote) > summary.md"""
import glob
import json
import os
import re
import sys

root = sys.argv[1]
rows = []
for cache in sorted(glob.glob(os.path.join(root, "cache-*")), key=lambda p: int(p.rsplit("-", 1)[1])):
    run = int(cache.rsplit("-", 1)[1])
    for line in open(os.path.join(cache, "choices.tsv")):
        build, device, key, choice, evidence, date = line.rstrip("\n").split("\t")
        if not key.startswith("lbm.aa.shifted.fp32"):
            continue
        slots = int(key.rsplit("=", 1)[1]) // 19
        side = round(slots ** (1 / 3))
        cells = side ** 3
        pairs = max(1, (1 << 22) // cells)
        timings = dict((int(c), [float(x) for x in re.findall(r"[0-9.e+-]+", t)])
                       for c, t in (part.split(": ", 1) for part in evidence.split("; ")))
        rate = {c: 2 * pairs * cells / t[0] / 1e6 for c, t in timings.items()}  # MLUPS at the median
        spread = {c: (t[2] - t[1]) / t[0] for c, t in timings.items()}
        record = json.load(open(os.path.join(root, f"bench-{run}", f"lbm-aa-fp32-{side}-cuda.json")))
        rows.append((side, run, int(choice), rate[1], spread[1], rate[0], spread[0], record["metrics"]["mlups"],
                     record["commit"]))
print("| lattice | run | chose | shifted trial MLUPS (spread) | plain trial MLUPS (spread) | measured MLUPS | commit |")
print("|---|---|---|---|---|---|---|")
by_side = {}
for row in sorted(rows):
    side, run, choice, shifted, s_spread, plain, p_spread, mlups, commit = row
    print(f"| {side}^3 | {run} | {'shifted' if choice else 'plain'} | {shifted:,.0f} ({100 * s_spread:.1f} %) | "
          f"{plain:,.0f} ({100 * p_spread:.1f} %) | {mlups:,.0f} | {commit} |")
    by_side.setdefault(side, []).append(row)
for side, runs in sorted(by_side.items()):
    def median(values):
        values = sorted(values)
        return values[len(values) // 2]
    shifted, plain = median(r[3] for r in runs), median(r[5] for r in runs)
    faster = 1 if shifted > plain else 0
    hits = sum(1 for r in runs if r[2] == faster)
    print(f"\n{side}^3: over the {len(runs)} runs' trials the median shifted rate is {shifted:,.0f} MLUPS and the plain "
          f"{plain:,.0f} ({'shifted' if faster else 'plain'} faster by {100 * abs(shifted / plain - 1):.1f} %); "
          f"the runs chose it in {hits} of {len(runs)}.")
