#!/usr/bin/env python3
"""Several runs of a platform's bench merged into one record per case: perf/pkperf/runs.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import runs  # noqa: E402

runs.main()
