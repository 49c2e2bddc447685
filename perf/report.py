#!/usr/bin/python3
"""The portability report (./pk report): perf/pkperf/report.py says what it writes and how it is called."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import report  # noqa: E402

report.main()
