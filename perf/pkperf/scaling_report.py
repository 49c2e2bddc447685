"""Multi-GPU scaling from the records of perf/device/multi_gpu.sh: a Markdown table, the same
rows as JSON and a PNG chart of LBM weak and strong scaling and of 3D-Var strong scaling.

    /usr/bin/python3 perf/scaling_report.py [NAME=]RESULTS-DIR... [--out DIR]

Each folder is read recursively; with several, NAME (default: the folder's name) labels
its rows and bars.

LBM records (perf/lbm_scaling.py) carry their parallel efficiency. For 3D-Var the efficiency
is computed here: t_1 / (N t_N), t_1 from the one-rank record (the single-GPU ThreeDVar) in
the same folder. Every ratio is higher-is-better; the communication share is the slowest
rank's share of the time in halo exchanges and reductions (lower is better).
"""
import json
import pathlib
import re
import textwrap

from . import charts, cli, records
from .charts import plt
from .files import save_text
from .records import Error


# The metrics each kind of record must carry.
NEEDED = {"lbm": {"mlups", "cells_per_rank", "parallel_efficiency"}, "3dvar": {"wall_seconds", "cg_iterations",
                                                                              "analysis_rmse", "n"}}


def load(folder, name, found):
    """Adds {(kernel, series or folder, ranks): record} from every record under folder."""
    prefix = f"{name}: " if name else ""
    for path, record in records.objects(folder, "**/*.json"):
        if path.name == "scaling.json":  # what this script writes
            continue
        records.require(path, record, ("kernel", "case", "device", "metrics"))
        if record["kernel"] == "lbm":
            match = re.fullmatch(r"(strong|weak|weak-[yz])-(\w+)-(\w+)-np(\d+)", record["case"])
            if not match:
                continue
            key = ("lbm", f"{prefix}{match[1]} {match[2]} {match[3]}", int(match[4]))
        elif record["kernel"] == "3dvar":
            match = re.fullmatch(r"synthetic(?:-np(\d+))?", record["case"])
            if not match:
                continue
            key = ("3dvar", f"{prefix}{path.parent.name}", int(match[1] or 1))
        else:
            continue
        if key in found:
            raise Error(f"two records for {key} (the second: {path})")
        missing = NEEDED[key[0]] - record["metrics"].keys()
        if missing:
            raise Error(f"{path} lacks the metrics {sorted(missing)}")
        found[key] = record


def lbm_rows(records):
    rows = []
    for (kernel, series, ranks), r in sorted(records.items()):
        if kernel != "lbm":
            continue
        m = r["metrics"]
        rows.append({"series": series, "ranks": ranks, "devices": m.get("devices", ranks), "glups": m["mlups"] / 1e3, "cells_per_rank": m["cells_per_rank"],
                     "efficiency": m["parallel_efficiency"], "communication": m.get("exchange_share", 0.0),
                     "device": r["device"]})
    return rows


def var_rows(records):
    rows = []
    for (kernel, folder, ranks), r in sorted(records.items()):
        if kernel != "3dvar":
            continue
        one = records.get(("3dvar", folder, 1))
        if one is None:
            raise Error(f"{folder} has no one-rank 3D-Var record to compare with")
        m, m1 = r["metrics"], one["metrics"]
        rows.append({"folder": folder, "ranks": ranks, "seconds": m["wall_seconds"],
                     "speedup": m1["wall_seconds"] / m["wall_seconds"],
                     "efficiency": m1["wall_seconds"] / (ranks * m["wall_seconds"]),
                     "communication": m.get("communication_share", 0.0), "iterations": m["cg_iterations"],
                     "rmse": m["analysis_rmse"], "rmse_change": m["analysis_rmse"] / m1["analysis_rmse"] - 1,
                     "overlap": m.get("overlap"), "points": m["n"], "device": r["device"]})
    return rows


def table(lbm, var):
    lines = ["## LBM (GLUPS: higher is better; efficiency: GLUPS_N / (D GLUPS_1) on D GPUs, higher is better)", "",
             "| series | ranks | GPUs | cells per rank | GLUPS | efficiency | communication share |", "|---|---|---|---|---|---|---|"]
    for row in lbm:
        lines.append(f"| {row['series']} | {row['ranks']} | {row['devices']:.0f} | {row['cells_per_rank']:.3g} | {row['glups']:.2f} | "
                     f"{row['efficiency']:.3f} | {100 * row['communication']:.1f} % |")
    lines += ["", "## 3D-Var (time: lower is better; speed-up t_1 / t_N and efficiency t_1 / (N t_N): higher is "
              "better; analysis rmse change against one GPU: nearer 0 is better)", "",
              "| run | ranks | points | overlap | CG iterations | seconds | speed-up | efficiency | communication share "
              "| analysis rmse | rmse change |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in var:
        overlap = "—" if row["ranks"] == 1 else f"{row['overlap']:.0f}"
        lines.append(f"| {row['folder']} | {row['ranks']} | {row['points']:.3g} | {overlap} | {row['iterations']:.0f} | "
                     f"{row['seconds']:.3f} | {row['speedup']:.2f} | {row['efficiency']:.3f} | "
                     f"{100 * row['communication']:.1f} % | {row['rmse']:.6g} | {100 * row['rmse_change']:+.3f} % |")
    devices = sorted({row["device"] for row in lbm + var})
    lines += ["", "Devices: " + "; ".join(devices), ""]
    return "\n".join(lines)


def chart(lbm, var, path):
    groups = max(len({row["series"] for row in lbm}), len({row["folder"] for row in var}), 1)
    fig, axes = plt.subplots(1, 2, figsize=(max(11, 4 * groups), 5.5))
    for ax, rows, label, value, note in (
            (axes[0], lbm, "series", "glups", "efficiency"),
            (axes[1], var, "folder", "seconds", "speedup")):
        groups = sorted({row[label] for row in rows})
        ranks = sorted({row["ranks"] for row in rows})
        width = 0.8 / max(len(ranks), 1)
        for k, n in enumerate(ranks):
            labelled = False  # the legend names each rank count once, from its first bar
            for g, group in enumerate(groups):
                for row in rows:
                    if row[label] == group and row["ranks"] == n:
                        x = g + (k - (len(ranks) - 1) / 2) * width
                        ax.bar(x, row[value], width, color=f"C{k}",
                               label=None if labelled else f"{n} rank{'s' if n > 1 else ''}")
                        labelled = True
                        if n > 1:
                            ax.annotate(f"{note} {row[note]:.2f}", (x, row[value]), ha="center", va="bottom",
                                        fontsize=8)
        ax.set_xticks(range(len(groups)), ["\n".join(textwrap.wrap(g, 24)) for g in groups], fontsize=8)
        ax.legend(fontsize=8)
    axes[0].set_title("LBM: GLUPS (higher is better)")
    axes[1].set_title("3D-Var: seconds per analysis (lower is better)")
    fig.tight_layout()
    charts.write(fig, path, dpi=110)


def main():
    cli.main("scaling_report", run)


def run():
    parser = cli.parser(__doc__, whole=True)
    parser.add_argument("results", nargs="+", metavar="[NAME=]RESULTS-DIR")
    parser.add_argument("--out", help="folder for scaling.md and scaling.png (default: the one results folder)")
    args = parser.parse_args()
    charts.require()
    if len(args.results) > 1 and not args.out:
        raise Error("several results folders need --out")
    found = {}
    for spec in args.results:
        name, folder = cli.named(spec)
        if not pathlib.Path(folder).is_dir():
            raise Error(f"{folder} is not a folder")
        load(folder, name or (pathlib.Path(folder).name if len(args.results) > 1 else ""), found)
    lbm, var = lbm_rows(found), var_rows(found)
    if not lbm and not var:
        raise Error(f"no LBM or 3D-Var scaling records under {' '.join(args.results)}")
    out = pathlib.Path(args.out or args.results[0])
    out.mkdir(parents=True, exist_ok=True)
    save_text(out / "scaling.md", table(lbm, var))
    save_text(out / "scaling.json", json.dumps({"lbm": lbm, "3dvar": var}, indent=2) + "\n")
    chart(lbm, var, out / "scaling.png")
    print(f"scaling_report: wrote scaling.md, scaling.json and scaling.png in {out}")
