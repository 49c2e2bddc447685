"""The portability report's charts: efficiency per case, Φ per kernel and platform, the CPU-vs-GPU
speed-up and CPU strong scaling, each a PNG in the report's folder."""
import math

from . import charts
from .charts import matplotlib, plt
from .portability import KINDS, natural, threads


def save_figure(fig, path):
    return charts.write(fig, path, dpi=100, bbox_inches="tight").name


def save_chart(fig, ax, path):
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))  # beside the bars, never over them
    return save_figure(fig, path)


def chart_efficiency(kernel, platforms, out):
    """The architectural efficiency of every rated case of a kernel, a bar per platform."""
    cases = sorted({c for p in platforms.values() for (k, c), e in p["cases"].items()
                    if k == kernel and e["architectural"] is not None}, key=natural)
    rows = {e["row"] for p in platforms.values() for (k, _), e in p["cases"].items()
            if k == kernel and e["architectural"] is not None}
    width = 0.8 / len(platforms)
    fig, ax = plt.subplots(figsize=(min(30, max(7, 0.22 * len(cases) * len(platforms) + 2)), 4.8))
    for i, (name, p) in enumerate(platforms.items()):
        values = [p["cases"].get((kernel, c), {}).get("architectural") for c in cases]
        xs = [j + (i - (len(platforms) - 1) / 2) * width for j in range(len(cases))]
        ax.bar(xs, [math.nan if v is None else v for v in values], width,
               label=name if any(v is not None for v in values) else f"{name}: not rated")
    ax.axhline(1, color="grey", linestyle="--", linewidth=0.8)
    top = max((e["architectural"] for p in platforms.values() for (k, _), e in p["cases"].items()
               if k == kernel and e["architectural"] is not None), default=1)
    ax.set_ylim(0, max(1.08, 1.05 * top))
    ax.set_xticks(range(len(cases)), cases, rotation=90 if len(cases) > 6 else 0, fontsize=8)
    ax.set_xlabel("case")
    ax.set_ylabel("architectural efficiency\n(fraction of the limit; higher = better)")
    ax.set_title(f"{kernel}: architectural efficiency per case against {'; '.join(sorted(r.label for r in rows))}, "
                 "not capped (higher = better)", fontsize=10)
    return save_chart(fig, ax, out / f"efficiency-{kernel}.png")


def chart_phi(summaries, names, out):
    """Kernel and kind x platforms, the efficiency as colour (red 0, green 1), Φ in the last column;
    a platform not measured or not rated is grey, and says so."""
    labels, grid, texts = [], [], []
    for kind in KINDS:
        for k, s in summaries[kind].items():
            labels.append(f"{k} ({kind})")
            values = [s["efficiency"].get(n) for n in names] + [s["phi"]]
            grid.append([math.nan if v is None else v for v in values])
            texts.append([f"{v:.3f}" if v is not None else
                          ("not measured" if s["not_measured"].get(n, "").startswith("not measured") else "not rated")
                          for n, v in zip(names, values)]
                         + ["—" if s["phi"] is None else f"{s['phi']:.3f} ({len(s['over'])} of {len(names)} platforms)"])
    fig, ax = plt.subplots(figsize=(3.2 + 1.6 * (len(names) + 1), 1.2 + 0.45 * len(labels)))
    cmap = matplotlib.colormaps["RdYlGn"].copy()
    cmap.set_bad("0.85")
    ax.imshow(grid, cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i, row in enumerate(texts):
        for j, text in enumerate(row):
            ax.text(j, i, text, ha="center", va="center", fontsize=8, fontweight="bold" if j == len(names) else None)
    ax.axvline(len(names) - 0.5, color="black", linewidth=2)
    ax.set_xticks(range(len(names) + 1), names + ["Φ (platforms measured)"])
    ax.set_yticks(range(len(labels)), labels)
    ax.set_title("efficiency per kernel and platform over the cases rated on every platform measured\n"
                 "(colour: 0 red .. 1 green, grey: not measured or no limit recorded; higher = better), Φ",
                 fontsize=10)
    return save_figure(fig, out / "phi.png")


def chart_speedup(speedup, out):
    kernels = sorted({k for by_kernel in speedup.values() for k in by_kernel})
    width, labelled = 0.8 / len(speedup), set()
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(kernels) * len(speedup) + 2), 4.8))
    for i, (name, by_kernel) in enumerate(speedup.items()):
        for kernel, s in by_kernel.items():
            x, mean = kernels.index(kernel) + (i - (len(speedup) - 1) / 2) * width, s["geometric_mean"]
            ax.bar(x, mean, width, color=f"C{i}", label=None if name in labelled else name)
            labelled.add(name)
            ax.errorbar(x, mean, yerr=[[max(0, mean - s["lowest"])], [max(0, s["highest"] - mean)]], color="black",
                        capsize=3)
            ax.annotate(f"{mean:.3g}", (x, mean), ha="left", va="bottom", fontsize=8, xytext=(3, 1),
                        textcoords="offset points")
    ax.set_yscale("log")
    ax.axhline(1, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(kernels)), kernels)
    ax.set_xlabel("kernel")
    ax.set_ylabel("GPU ÷ CPU throughput (log scale;\nabove 1: GPU faster)")
    ax.set_title("CPU vs GPU speed-up per kernel: geometric mean over the cases both ran, whiskers: lowest to "
                 "highest case\n(GPU ÷ CPU throughput, higher = GPU faster)", fontsize=10)
    return save_chart(fig, ax, out / "speedup.png")


def chart_threads(kernel, scaling, out):
    counts, low = scaling["counts"], scaling["counts"][0]
    fig, ax = plt.subplots(figsize=(7, 4.8))
    for i, (case, c) in enumerate(scaling["kernels"][kernel]["cases"].items()):
        ns = [low, *c["points"]]
        # Colour and marker cycle with different periods: a pair stays unique well past lbm's 12 cases.
        ax.plot(ns, [1, *(p["speedup"] for p in c["points"].values())], color=f"C{i % 10}", marker="osD^v<>"[i % 7],
                markersize=4, linewidth=1.2, label=case)
    ax.plot(counts, [n / low for n in counts], color="black", linestyle="--", linewidth=1,
            label=f"ideal (threads ÷ {low})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(counts, [str(n) for n in counts])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.grid(True, which="major", color="0.9")
    ax.set_xlabel("OpenMP threads (log2 scale)")
    ax.set_ylabel(f"speed-up over {threads(low)}\n(log2 scale; higher = better)")
    ax.set_title(f"{kernel}: CPU strong scaling, speed-up over {threads(low)} per case "
                 "(throughput ratio;\nfor a time, the inverse) vs OpenMP threads; higher = better, dashed = ideal",
                 fontsize=10)
    return save_chart(fig, ax, out / f"threads-{kernel}.png")
