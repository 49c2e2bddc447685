"""One chart per kernel of pk-bench results, CPU (openmp) beside GPU (cuda or hip): on the left
how fast each case ran (the record's figure: MLUPS, GB/s, cells/s, ...), on the right its
efficiency as the portability report rates it (efficiency.py): against a limit the hardware
sets, measured in the same run (the copy bandwidth at the case's footprint, the FP64 roof), or the
best implementation measured beside ours (GSL, Boost); a case with neither is marked "not rated",
never divided by a goal, a paper's time or another kernel's rate. A table of the same numbers,
with each limit in words, goes beside the PNGs (summary.md) and to standard output.

    /usr/bin/python3 perf/plot_results.py [results-dir] [--out png-dir]
"""
import collections
import math
import pathlib

from . import charts, cli, records
from .charts import plt
from .efficiency import application, architectural, library_comparisons, moved_gbs, peers_of, row_of, \
    too_few_repeats
from .files import save_text
from .portability import natural
from .records import Error

SPACE_COLOURS = {"openmp": "tab:blue", "cuda": "tab:green", "hip": "tab:red"}


def figure_of(record):
    """The record's figure (records.figure), which must be among its metrics."""
    figure = records.figure(record)
    if figure not in record["metrics"]:
        raise Error(f"{record['kernel']}/{record['case']}: the record names no figure")
    return figure


def load(directory):
    """{kernel: {case: {space: record}}} from every *.json pk-bench wrote, each record rated."""
    kernels = collections.defaultdict(lambda: collections.defaultdict(dict))
    for path, record in records.objects(directory):
        records.require(path, record, ("kernel", "case", "space", "device", "metrics"))
        kernels[record["kernel"]][record["case"]][record["space"]] = record
    rate(kernels)
    return kernels


def rate(kernels):
    """Adds to each record "rated": (efficiency or None, what it is rated against, in words)."""
    by_space = collections.defaultdict(dict)
    for kernel, cases in kernels.items():
        for case, by in cases.items():
            for space, r in by.items():
                by_space[space][(kernel, case)] = r
    for space, of_space in by_space.items():
        entries = {key: {"value": r["metrics"].get(figure_of(r)), "commit": r.get("commit")}
                   for key, r in of_space.items()}
        comparisons = library_comparisons(entries)
        best_copy = max((moved_gbs(c, space, r["metrics"]) or 0 for (k, c), r in of_space.items() if k == "copy"),
                        default=0)
        for key, r in of_space.items():
            row = row_of(*key)
            if row is None:
                r["rated"] = (None, "no limit recorded (a case the report does not know)")
            elif too_few_repeats(r["metrics"]):
                r["rated"] = (None, too_few_repeats(r["metrics"]))
            elif row.kind == "probe":
                moved = moved_gbs(key[1], space, r["metrics"])
                r["rated"] = (moved / best_copy if moved and best_copy else None,
                              "the best copy of the run (a CPU's copy counted at the three streams it moves)")
            else:
                found = application(comparisons.get(key))
                efficiency, _ = architectural(row, space, r["metrics"])
                if efficiency is not None:
                    r["rated"] = (efficiency, row.label)
                elif found:
                    r["rated"] = (found["efficiency"], f"the best implementation measured (fastest: {found['best']})")
                else:
                    alone = f"; ours the only implementation measured ({peers_of(key[0], space)}: not in this run)" \
                        if key[0] == "besselk" and peers_of(key[0], space) else ""  # pk-bench runs GSL, Boost
                    r["rated"] = (None, row.label if row.kind != "architectural" else row.why.split(":")[0] + alone)


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
    ax.grid(axis="x", alpha=0.3)


def plot_kernel(kernel, cases, out_dir):
    spaces = spaces_of(cases)
    names = sorted(cases, key=natural)
    any_record = next(iter(next(iter(cases.values())).values()))
    figure = figure_of(any_record)
    fig, (speed, ratio) = plt.subplots(1, 2, sharey=True, figsize=(11, 1.2 + 0.32 * len(names) * len(spaces)))
    bars(speed, cases, names, spaces, lambda r: r["metrics"][figure_of(r)])
    speed.set_xlabel(figure + ("" if records.higher_is_better(any_record) else " (lower is faster)"))
    speed.set_title("how fast", fontsize=10)
    bars(ratio, cases, names, spaces, lambda r: math.nan if r["rated"][0] is None else r["rated"][0])
    for i, c in enumerate(names):  # a case without a limit says so where its bar would be
        if all(r["rated"][0] is None for r in cases[c].values()):
            ratio.text(0.02, i, "not rated: " + next(iter(cases[c].values()))["rated"][1], va="center", fontsize=7,
                       transform=ratio.get_yaxis_transform())
    ratio.axvline(1.0, color="black", linewidth=0.8)
    speed.invert_yaxis()  # the first case on top; once: the two panels share the axis
    rated = [r["rated"][0] for by in cases.values() for r in by.values() if r["rated"][0] is not None]
    if ratio.get_xscale() == "linear":
        ratio.set_xlim(0, max([1.05, *(1.05 * v for v in rated)]))
    limits = sorted({r["rated"][1] for by in cases.values() for r in by.values() if r["rated"][0] is not None})
    ratio.set_xlabel("efficiency (1 = at the limit; higher = better)\nagainst: " + ("; ".join(limits) or "—"),
                     fontsize=8)
    ratio.set_title("efficiency, as the portability report rates it", fontsize=10)
    devices = {s: next(r["device"] for by in cases.values() for sp, r in by.items() if sp == s) for s in spaces}
    fig.suptitle(f"{kernel}: " + "; ".join(f"{s}: {d}" for s, d in devices.items()), fontsize=9)
    speed.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return charts.write(fig, out_dir / f"{kernel}.png", dpi=110)


def key_is_probe(kernel, case):
    row = row_of(kernel, case)
    return row is not None and row.kind == "probe"


def table(kernels):
    """A markdown table: a row per kernel and case, the figure and efficiency per space, and what
    each is rated against, in words."""
    spaces = spaces_of({(k, c): by for k, cases in kernels.items() for c, by in cases.items()})
    head = "| kernel | case | figure | " + " | ".join(f"{s} | {s} efficiency" for s in spaces) + " | rated against |"
    rows = [head, "|" + "---|" * (4 + 2 * len(spaces))]
    for kernel, cases in sorted(kernels.items()):
        for case, by in sorted(cases.items(), key=lambda item: natural(item[0])):
            cells, against = [], []
            for s in spaces:
                r = by.get(s)
                if r is None:
                    cells += ["", ""]
                    continue
                efficiency, words = r["rated"]
                shown = "not rated" if efficiency is None else f"{efficiency:.3g}"
                if key_is_probe(kernel, case) and efficiency == 1:
                    shown = "the limit"  # the best copy: 1 by construction, not an efficiency
                cells += [f"{r['metrics'][figure_of(r)]:.4g}", shown]
                against.append((s, words))
            words = {w for _, w in against}  # one limit for every space, or each space's own, named
            said = next(iter(words)) if len(words) == 1 else "; ".join(f"{s}: {w}" for s, w in against)
            rows.append(f"| {kernel} | {case} | {figure_of(next(iter(by.values())))} | " + " | ".join(cells)
                        + f" | {said} |")
    return "\n".join(rows) + "\n"


def main():
    cli.main("plot_results", run)


def run():
    parser = cli.parser(__doc__)
    parser.add_argument("results", nargs="?", default="perf/results")
    parser.add_argument("--out", default=None, help="directory for the PNGs (default: <results>/plots)")
    args = parser.parse_args()
    charts.require()
    kernels = load(args.results)
    if not kernels:
        raise Error(f"no result JSON in {args.results}")
    out_dir = pathlib.Path(args.out or pathlib.Path(args.results) / "plots")
    out_dir.mkdir(parents=True, exist_ok=True)
    for kernel, cases in sorted(kernels.items()):
        print(f"wrote {plot_kernel(kernel, cases, out_dir)}")
    summary = table(kernels)
    save_text(out_dir / "summary.md", summary)
    print(summary, end="")
