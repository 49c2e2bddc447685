#!/usr/bin/python3
"""One chart per kernel of pk-bench results, CPU (openmp) beside GPU (cuda or hip): on the left
how fast each case ran (the record's figure: MLUPS, GB/s, cells/s, ...), on the right how close
that is to the space's own limit (the record's limit_ratio: measured copy roofline, paper,
reference library, as pk-bench names it). A table of the same numbers goes beside the PNGs
(summary.md) and to standard output.

    /usr/bin/python3 perf/plot_results.py [results-dir] [--out png-dir]
"""
import argparse
import collections
import json
import math
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the headless backend)

from report import natural, row_of  # noqa: E402  (numeric order of case names; the report's table)

SPACE_COLOURS = {"openmp": "tab:blue", "cuda": "tab:green", "hip": "tab:red"}


def figure_of(record):
    """The record's figure; for records written before pk-bench named it, the report's headline."""
    if "figure" in record:
        return record["figure"]
    row = row_of(record["kernel"], record["case"])
    if row is None or row.headline not in record["metrics"]:
        sys.exit(f"plot_results: {record['kernel']}/{record['case']}: the record names no figure")
    return row.headline


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


def spaces_of(cases):
    return sorted({s for by_space in cases.values() for s in by_space}, key=lambda s: (s != "openmp", s))


def bars(ax, cases, names, spaces, value):
    """Horizontal bars, a group per case (top to bottom), a bar per space; the x axis turns
    logarithmic where the values span more than 20x."""
    height = 0.8 / len(spaces)
    shown = []
    for k, space in enumerate(spaces):
        values = [value(cases[c][space]) if space in cases[c] else math.nan for c in names]
        ys = [i + (k - (len(spaces) - 1) / 2) * height for i in range(len(names))]
        ax.barh(ys, values, height, label=space, color=SPACE_COLOURS.get(space))
        shown += [v for v in values if v > 0 and math.isfinite(v)]
    if shown and max(shown) > 20 * min(shown):
        ax.set_xscale("log")
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)


def plot_kernel(kernel, cases, out_dir):
    spaces = spaces_of(cases)
    names = sorted(cases, key=natural)
    any_record = next(iter(next(iter(cases.values())).values()))
    figure = figure_of(any_record)
    limits = sorted({r.get("limit", "") for by in cases.values() for r in by.values()} - {""})
    fig, (speed, ratio) = plt.subplots(1, 2, sharey=True, figsize=(11, 1.2 + 0.32 * len(names) * len(spaces)))
    bars(speed, cases, names, spaces, lambda r: r["metrics"][figure_of(r)])
    speed.set_xlabel(figure + (" (lower is faster)" if figure.endswith("seconds") else ""))
    speed.set_title("how fast", fontsize=10)
    bars(ratio, cases, names, spaces, lambda r: r["metrics"].get("limit_ratio", math.nan))
    ratio.axvline(1.0, color="black", linewidth=0.8)
    ratio.set_xlabel("figure / limit" + (": " + "; ".join(limits) if limits else ""))
    ratio.set_title("how close to the space's limit (1 = at it)", fontsize=10)
    devices = {s: next(r["device"] for by in cases.values() for sp, r in by.items() if sp == s) for s in spaces}
    fig.suptitle(f"{kernel}: " + "; ".join(f"{s}: {d}" for s, d in devices.items()), fontsize=9)
    speed.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path = out_dir / f"{kernel}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def table(kernels):
    """A markdown table: a row per kernel and case, the figure and ratio per space."""
    spaces = spaces_of({(k, c): by for k, cases in kernels.items() for c, by in cases.items()})
    head = "| kernel | case | figure | " + " | ".join(f"{s} | {s} / limit" for s in spaces) + " |"
    rows = [head, "|" + "---|" * (3 + 2 * len(spaces))]
    for kernel, cases in sorted(kernels.items()):
        for case, by in sorted(cases.items(), key=lambda item: natural(item[0])):
            cells = []
            for s in spaces:
                r = by.get(s)
                cells += [f"{r['metrics'][figure_of(r)]:.4g}", f"{r['metrics'].get('limit_ratio', math.nan):.3g}"] \
                    if r else ["", ""]
            rows.append(f"| {kernel} | {case} | {figure_of(next(iter(by.values())))} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


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
    summary = table(kernels)
    (out_dir / "summary.md").write_text(summary)
    print(summary, end="")


if __name__ == "__main__":
    main()
