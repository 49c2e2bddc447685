#!/usr/bin/python3
"""K_nu's FP64 operations an evaluation, into the besselk records: perf/pkperf/besselk_ops.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import besselk_ops  # noqa: E402

besselk_ops.main()
