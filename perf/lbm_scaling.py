#!/usr/bin/env python3
"""Weak and strong scaling of pk-lbm's distributed mode, as records: perf/pkperf/lbm_scaling.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import lbm_scaling  # noqa: E402

lbm_scaling.main()
