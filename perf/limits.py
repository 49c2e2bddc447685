#!/usr/bin/env python3
"""What limits a platform's kernels (perf/device/limits.sh, cpu_limits.sh): perf/pkperf/limits.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import limits  # noqa: E402

limits.main()
