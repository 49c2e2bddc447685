#!/usr/bin/env python3
"""perf/index.py: the committed index of perf/results, and its check on a tree made here.

    test_index.py INDEX_PY RESULTS OUT_DIR

The committed RESULTS/README.md must list every file under RESULTS, and every file it lists
must exist (`index.py --check`). On a small tree written in OUT_DIR, the check must fail on a
file the index does not list, on an entry whose file is gone, and on an index that is stale;
a platform or a study that the layout does not allow must be refused.
"""
import json
import pathlib
import shutil
import subprocess
import sys

from checks import check, finish

SCRIPT, RESULTS, OUT = (pathlib.Path(a) for a in sys.argv[1:4])


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


committed = run("--check", RESULTS)
check(committed.returncode == 0, f"the committed index of {RESULTS} passes its check: {committed.stderr.strip()}")

shutil.rmtree(OUT, ignore_errors=True)
bench = OUT / "h200" / "bench"
bench.mkdir(parents=True)
(bench / "README.md").write_text("# Test records\n")
record = {"kernel": "lbm", "case": "aa-fp32-64", "space": "cuda", "commit": "0123456789ab-dirty",
          "date": "2026-12-01T10:00:00Z", "command": "pk-bench", "metrics": {}}
(bench / "lbm-aa-fp32-64-cuda.json").write_text(json.dumps(record))
(bench / "run.log").write_text("log\n")

written = run(OUT)
check(written.returncode == 0, f"index.py writes the index: {written.stderr.strip()}")
index = (OUT / "README.md").read_text() if written.returncode == 0 else ""
check("| [lbm-aa-fp32-64-cuda.json](h200/bench/lbm-aa-fp32-64-cuda.json) | lbm | aa-fp32-64 | cuda | "
      "0123456-dirty | 2026-12-01 | current |" in index, "a record's row holds its own fields")
check("[run.log](h200/bench/run.log)" in index, "a file other than a record is listed")
check(run("--check", OUT).returncode == 0, "the index just written passes its check")

(bench / "new.json").write_text(json.dumps(record))
added = run("--check", OUT)
check(added.returncode == 1 and "not in the index: h200/bench/new.json" in added.stderr,
      f"a file the index does not list fails the check: {added.stderr.strip()}")
(bench / "new.json").unlink()

(bench / "run.log").unlink()
removed = run("--check", OUT)
check(removed.returncode == 1 and "in the index but not a file: h200/bench/run.log" in removed.stderr,
      f"an entry whose file is gone fails the check: {removed.stderr.strip()}")
(bench / "run.log").write_text("log\n")

(OUT / "README.md").write_text(index.replace("| current |", "| superseded |"))
stale = run("--check", OUT)
check(stale.returncode == 1 and "./pk index" in stale.stderr, f"a stale index fails the check: {stale.stderr.strip()}")

(OUT / "gpu9" / "bench").mkdir(parents=True)
(OUT / "gpu9" / "bench" / "README.md").write_text("# Records of a machine nobody described\n")
unknown = run(OUT)
check(unknown.returncode != 0 and "gpu9" in unknown.stderr, "a platform the index does not describe is refused")
shutil.rmtree(OUT / "gpu9")

(OUT / "h200" / "tests").mkdir()
(OUT / "h200" / "tests" / "pk-tests.log").write_text("log\n")
bare = run(OUT)
check(bare.returncode != 0 and "without a README.md" in bare.stderr, "a study without a README is refused")

finish("perf/index.py: the committed index is complete, and its check catches what it must")
