#!/usr/bin/python3
"""Bar charts of pk-bench results, CPU (openmp) beside GPU (cuda or hip): one PNG per kernel,
one panel per metric, one group of bars per case.

    /usr/bin/python3 perf/plot_results.py [results-dir] [--out png-dir]
"""
import argparse
import collections
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the headless backend)

SPACE_COLOURS = {"openmp": "tab:blue", "cuda": "tab:green", "hip": "tab:red"}


def load(directory):
    """{kernel: {case: {space: record}}} from every *.json pk-bench wrote."""
    kernels = collections.defaultdict(lambda: collections.defaultdict(dict))
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        record = json.loads(path.read_text())
        missing = {"kernel", "case", "space", "device", "metrics"} - record.keys()
        if missing:
            sys.exit(f"plot_results: {path} lacks {sorted(missing)}")
        kernels[record["kernel"]][record["case"]][record["space"]] = record
    return kernels


def plot_kernel(kernel, cases, out_dir):
    spaces = sorted({s for by_space in cases.values() for s in by_space}, key=lambda s: (s != "openmp", s))
    metrics = sorted({m for by_space in cases.values() for r in by_space.values() for m in r["metrics"]})
    names = sorted(cases)
    fig, axes = plt.subplots(len(metrics), 1, figsize=(max(6, 1.6 * len(names)), 2.6 * len(metrics)), squeeze=False)
    width = 0.8 / len(spaces)
    for ax, metric in zip(axes[:, 0], metrics):
        for k, space in enumerate(spaces):
            values = [cases[c].get(space, {}).get("metrics", {}).get(metric, float("nan")) for c in names]
            xs = [i + (k - (len(spaces) - 1) / 2) * width for i in range(len(names))]
            ax.bar(xs, values, width, label=space, color=SPACE_COLOURS.get(space))
        ax.set_ylabel(metric)
        ax.set_xticks(range(len(names)), names)
    devices = {s: next(r["device"] for by in cases.values() for sp, r in by.items() if sp == s) for s in spaces}
    axes[0, 0].set_title(f"{kernel}: " + "; ".join(f"{s}: {d}" for s, d in devices.items()), fontsize=8)
    axes[0, 0].legend()
    fig.tight_layout()
    path = out_dir / f"{kernel}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default="perf/results")
    parser.add_argument("--out", default=None, help="directory for the PNGs (default: <results>/plots)")
    args = parser.parse_args()
    kernels = load(args.results)
    if not kernels:
        sys.exit(f"plot_results: no result JSON in {args.results}")
    out_dir = pathlib.Path(args.out or pathlib.Path(args.results) / "plots")
    out_dir.mkdir(parents=True, exist_ok=True)
    for kernel, cases in sorted(kernels.items()):
        print(f"wrote {plot_kernel(kernel, cases, out_dir)}")


if __name__ == "__main__":
    main()
