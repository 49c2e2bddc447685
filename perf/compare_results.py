#!/usr/bin/env python3
"""Two folders of result records side by side, speed ratios: perf/pkperf/compare_results.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import compare_results  # noqa: E402

compare_results.main()
