#!/usr/bin/env python3
"""perf/scaling_report.py on records written here:

    test_scaling_report.py SCALING_REPORT_PY OUT_DIR

An LBM weak series (1 and 2 ranks) and a 3D-Var pair (one GPU, two ranks); the table's
efficiency, speed-up and rmse change are checked against numbers worked out by hand, and
bad input must give one line on stderr and exit status 2.
"""
import json
import pathlib
import shutil
import subprocess
import sys

from checks import check, finish

SCRIPT, OUT = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])


def write(path, kernel, case, metrics):
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"kernel": kernel, "case": case, "space": "cuda", "device": "Test GPU", "metrics": metrics}
    path.write_text(json.dumps(record))


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


shutil.rmtree(OUT, ignore_errors=True)
good = OUT / "good"
write(good / "lbm-weak-z-aa-fp32-np1-cuda.json", "lbm", "weak-z-aa-fp32-np1",
      {"mlups": 1000.0, "cells_per_rank": 100.0, "parallel_efficiency": 1.0, "devices": 1.0})
write(good / "lbm-weak-z-aa-fp32-np2-cuda.json", "lbm", "weak-z-aa-fp32-np2",
      {"mlups": 1900.0, "cells_per_rank": 100.0, "parallel_efficiency": 0.95, "devices": 2.0, "exchange_share": 0.1})
write(good / "o15" / "3dvar-synthetic-cuda.json", "3dvar", "synthetic",
      {"wall_seconds": 2.0, "cg_iterations": 10.0, "analysis_rmse": 0.04, "n": 1000.0})
write(good / "o15" / "3dvar-synthetic-np2-cuda.json", "3dvar", "synthetic-np2",
      {"wall_seconds": 1.25, "cg_iterations": 10.0, "analysis_rmse": 0.0401, "n": 1000.0, "overlap": 15.0,
       "communication_share": 0.2})
result = run(good)
check(result.returncode == 0, f"good records: exit {result.returncode}: {result.stderr}")
table = (good / "scaling.md").read_text() if (good / "scaling.md").exists() else ""
# weak: 1900 MLUPS on 2 GPUs = 1.90 GLUPS, efficiency 1900 / (2 x 1000) = 0.95
check("| weak-z aa fp32 | 2 | 2 | 100 | 1.90 | 0.950 | 10.0 % |" in table, "the LBM row:\n" + table)
# 3D-Var: speed-up 2.0 / 1.25 = 1.6, efficiency 1.6 / 2 = 0.8, rmse 0.0401 / 0.04 - 1 = +0.25 %
check("| o15 | 2 | 1e+03 | 15 | 10 | 1.250 | 1.60 | 0.800 | 20.0 % | 0.0401 | +0.250 % |" in table, "the 3D-Var row")
check((good / "scaling.png").stat().st_size > 1000 if (good / "scaling.png").exists() else False, "no chart")
rows = json.loads((good / "scaling.json").read_text()) if (good / "scaling.json").exists() else {"3dvar": []}
check([(r["ranks"], r["speedup"], r["efficiency"]) for r in rows["3dvar"]] == [(1, 1.0, 1.0), (2, 1.6, 0.8)],
      f"scaling.json's 3D-Var rows {rows['3dvar']}")

# Two folders, named: rows carry the names.
result = run(f"first={good}", f"second={good / 'o15'}", "--out", OUT / "named")
check(result.returncode == 0, f"two folders: {result.stderr}")
named = (OUT / "named" / "scaling.md").read_text() if result.returncode == 0 else ""
check("| first: weak-z aa fp32 | 2 |" in named and "| second: o15 | 2 |" in named, "named rows:\n" + named)


def refused(why, args, words):
    result = run(*args)
    lines = result.stderr.strip().splitlines()
    check(result.returncode == 2 and len(lines) == 1 and words in result.stderr,
          f"{why}: exit {result.returncode}, stderr {result.stderr!r}")


broken = OUT / "broken"
write(broken / "lbm-weak-aa-fp32-np1-cuda.json", "lbm", "weak-aa-fp32-np1", {"mlups": 1.0})
(broken / "cut.json").write_text('{"kernel": "lbm", "ca')
refused("a truncated record", [broken], "cut.json: not a readable JSON record")
(broken / "cut.json").unlink()
refused("a record without its metrics", [broken], "lacks the metrics ['cells_per_rank', 'parallel_efficiency']")
lonely = OUT / "lonely"
write(lonely / "3dvar-synthetic-np2-cuda.json", "3dvar", "synthetic-np2",
      {"wall_seconds": 1.0, "cg_iterations": 1.0, "analysis_rmse": 1.0, "n": 1.0})
refused("3D-Var without its one-rank record", [lonely], "has no one-rank 3D-Var record")
(OUT / "empty").mkdir()
refused("no records", [OUT / "empty"], "no LBM or 3D-Var scaling records")
refused("not a folder", [OUT / "missing"], "is not a folder")
refused("several folders, no --out", [good, lonely], "several results folders need --out")

finish("scaling_report: every check passed")
