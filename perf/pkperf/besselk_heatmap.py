"""Heat map of the relative error of K_nu(x) over (nu, x): ours, GSL and Boost side by side.

Reads the per-point CSV that pk-besselk-accuracy writes (nu,x,ours_log,gsl_log,boost_log,
ours_k,gsl_k,boost_k) and writes a PNG (Debian's python3-matplotlib).

Usage: python3 perf/besselk_heatmap.py perf/results/build-host/besselk-accuracy/besselk-accuracy-points.csv besselk-accuracy.png
"""
import csv
import math
import sys

from . import charts, cli
from .charts import matplotlib, plt
from .records import Error


def main():
    cli.main("besselk_heatmap", run)


def run():
    if len(sys.argv) != 3:
        raise Error("usage: besselk_heatmap.py POINTS.csv OUT.png")
    charts.require()
    try:
        with open(sys.argv[1]) as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise Error(f"{sys.argv[1]}: cannot read ({e.strerror})") from None
    if not rows:
        raise Error("no points in " + sys.argv[1])
    # Each point's error: the larger of the log K and K errors (K where it is a normal double);
    # floored at 1e-17 so that exact answers show on the log colour scale.
    def error(row, impl):
        values = [float(row[impl + "_log"]), float(row[impl + "_k"])]
        values = [v for v in values if not math.isnan(v)]
        return max(max(values), 1e-17) if values else float("nan")

    # The tested box; the few points outside it are in the JSON table.
    rows = [r for r in rows if 1e-6 <= float(r["x"]) <= 700.0000001]
    nu = [float(r["nu"]) for r in rows]
    x = [float(r["x"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), sharey=True, constrained_layout=True)
    norm = matplotlib.colors.LogNorm(vmin=1e-17, vmax=1e-12)
    for ax, impl, title in zip(axes, ("ours", "gsl", "boost"), ("pk::besselk", "GSL gsl_sf_bessel_Knu", "Boost cyl_bessel_k")):
        e = [error(r, impl) for r in rows]
        keep = [i for i, v in enumerate(e) if not math.isnan(v)]
        sc = ax.scatter([x[i] for i in keep], [nu[i] for i in keep], c=[e[i] for i in keep], norm=norm,
                        cmap="viridis", s=14, marker="s")
        missing = [i for i, v in enumerate(e) if math.isnan(v)]
        if missing:
            ax.scatter([x[i] for i in missing], [nu[i] for i in missing], c="red", s=9, marker="x",
                       label="no answer (%d)" % len(missing))
            ax.legend(loc="lower left", fontsize=8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("x")
        ax.set_title("%s: max %.1e" % (title, max(e[i] for i in keep)))
    axes[0].set_ylabel("nu")
    fig.colorbar(sc, ax=axes, label="relative error (max of log K and K)")
    charts.write(fig, sys.argv[2], dpi=120)
    print("wrote", sys.argv[2])
