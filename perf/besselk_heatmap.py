#!/usr/bin/env python3
"""Heat map of K_nu's relative error, ours beside GSL and Boost: perf/pkperf/besselk_heatmap.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import besselk_heatmap  # noqa: E402

besselk_heatmap.main()
