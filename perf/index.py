#!/usr/bin/python3
"""The index of the recorded results (./pk index): perf/pkperf/index.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pkperf import index  # noqa: E402

index.main()
