#!/usr/bin/python3
"""./pk run's and ./pk plot's charts and table of pk-bench records: perf/pkperf/plot_results.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import plot_results  # noqa: E402

plot_results.main()
