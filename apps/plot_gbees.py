#!/usr/bin/env python3
"""Draw the marginals pk-gbees writes as PNG files.

    python3 apps/plot_gbees.py pk-gbees-out/gbees-lorenz63-openmp

For every snapshot label (t0.0000, t1.0000-, ...) in the folder it reads
marginal-<label>-x<a>.csv (1-D) and marginal-<label>-x<a>x<b>.csv (2-D) and writes
marginal-<label>.png: the 1-D marginals on the top row, the 2-D ones below.
Needs python3-matplotlib.
"""
import csv
import os
import re
import sys


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    columns = list(zip(*[[float(v) for v in r] for r in body])) if body else [[] for _ in header]
    return header, columns


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: plot_gbees.py FOLDER  (a folder of marginal-*.csv from pk-gbees)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_gbees.py: matplotlib is missing (apt install python3-matplotlib)")
    folder = sys.argv[1]
    pattern = re.compile(r"marginal-(t[0-9.]+[-+]?)-x(\d+)(?:x(\d+))?\.csv$")
    snapshots = {}
    for name in sorted(os.listdir(folder)):
        m = pattern.match(name)
        if m:
            axes = (int(m.group(2)),) if m.group(3) is None else (int(m.group(2)), int(m.group(3)))
            snapshots.setdefault(m.group(1), {})[axes] = os.path.join(folder, name)
    if not snapshots:
        sys.exit(f"plot_gbees.py: no marginal-*.csv in {folder}")
    for label, files in sorted(snapshots.items()):
        one = sorted(a for a in files if len(a) == 1)
        two = sorted(a for a in files if len(a) == 2)
        columns = max(len(one), len(two), 1)
        rows = 1 + (1 if two else 0)
        fig, grid = plt.subplots(rows, columns, figsize=(3.2 * columns, 3.0 * rows), squeeze=False)
        for k, axes in enumerate(one):
            _, (x, density) = read(files[axes])
            grid[0][k].plot(x, density, "-", lw=1.2)
            grid[0][k].set_xlabel(f"x{axes[0]}")
            grid[0][k].set_ylabel("density")
        for k, axes in enumerate(two):
            _, (x, y, density) = read(files[axes])
            ax = grid[1][k]
            if len(x) >= 3:
                contour = ax.tricontourf(x, y, density, levels=20, cmap="viridis")
                fig.colorbar(contour, ax=ax)
            ax.set_xlabel(f"x{axes[0]}")
            ax.set_ylabel(f"x{axes[1]}")
        for r in range(rows):
            for k in range(columns):
                if (r == 0 and k >= len(one)) or (r == 1 and k >= len(two)):
                    grid[r][k].axis("off")
        fig.suptitle(f"GBEES marginals, {label}")
        fig.tight_layout()
        out = os.path.join(folder, f"marginal-{label}.png")
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(out)


if __name__ == "__main__":
    main()
