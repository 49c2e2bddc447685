#!/usr/bin/env python3
"""Side by side: two folders of result records (say, one build against Kokkos 3.4.01 and one
against 4.6.01, run on the same machine), one Markdown row per record present in both, with
each record's speed figure and the speed ratio of second to first (above 1: the second is
faster): a rate divided, or a time inverted.
"""
import argparse
import json
import pathlib
import sys

# The figure that says how fast a record's case ran, in order of preference: rates (higher
# is faster), then times (lower is faster).
RATES = ["mlups", "cells_per_second", "evals_per_second", "elements_per_second", "bandwidth_gbs"]
TIMES = ["wall_seconds", "loglik_seconds", "gpu_kernel_seconds"]


def load(folder):
    records = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            record = json.loads(path.read_text())
            records[path.name] = record
        except (OSError, ValueError) as error:
            sys.exit(f"compare_results: {path}: {error}")
    if not records:
        sys.exit(f"compare_results: no result records (*.json) in {folder}")
    return records


def speed_figure(metrics):
    return next((name for name in RATES + TIMES if name in metrics), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--labels", nargs=2, default=["first", "second"], metavar=("FIRST", "SECOND"))
    args = parser.parse_args()
    first, second = load(args.first), load(args.second)
    a, b = args.labels
    print(f"| kernel | case | space | figure | {a} | {b} | speed {b} / {a} |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(first.keys() & second.keys()):
        x, y = first[name], second[name]
        metric = speed_figure(x["metrics"])
        value_x, value_y = x["metrics"].get(metric), y["metrics"].get(metric)
        if metric is None or not value_x or not value_y:
            continue
        speed = value_y / value_x if metric in RATES else value_x / value_y
        print(f"| {x['kernel']} | {x['case']} | {x['space']} | {metric} | {value_x:.4g} | {value_y:.4g} "
              f"| {speed:.3f} |")
    for label, only in ((a, first.keys() - second.keys()), (b, second.keys() - first.keys())):
        if only:
            print(f"\nOnly in {label}: {', '.join(sorted(only))}")


if __name__ == "__main__":
    main()
