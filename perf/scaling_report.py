#!/usr/bin/python3
"""Multi-GPU scaling table and chart (perf/device/multi_gpu.sh's records): perf/pkperf/scaling_report.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import scaling_report  # noqa: E402

scaling_report.main()
