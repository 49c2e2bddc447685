#!/usr/bin/python3
"""Portability report from pk-bench records: the efficiency of every case on every platform,
Pennycook's performance-portability metric Φ per kernel, the CPU-vs-GPU speed-up and CPU strong scaling.

    perf/report.py [NAME=]FOLDER... [--platforms P,...] [--threads DIR] --out DIR

A platform is one execution space in one folder of records, NAME:SPACE (h100:cuda, h100:openmp,
mi250x:hip):
`pk-bench --space all` puts a CPU's and a GPU's records in one folder, and an efficiency belongs
to one piece of hardware. NAME is the folder's name unless given. --platforms keeps only those
named, as NAME (all its spaces) or NAME:SPACE (default: all). Writes DIR/report.md, report.json
(full precision), efficiency-<kernel>.png and speedup.png. --threads DIR adds CPU strong scaling:
DIR/threads-<N>/ holds the records of one OpenMP run of the same problems at N threads
(perf/device/threads.sh); each case's speed-up over the lowest N and its parallel efficiency go
into report.md, and threads-<kernel>.png. Bad input: one line on stderr, status 2.
"""
import argparse
import collections
import json
import math
import os
import pathlib
import re
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    plt = None

# How each kernel/case's efficiency follows from its record. pk-bench stores limit_ratio =
# headline ÷ limit; `invert` marks where that divides a time by a time (lower = better), so
# that the ratio below is always higher = better. Efficiency = the ratio, never capped, for rows
# with a kind; rows without one are shown but stay out of Φ and the efficiency charts (`why`).
# `metric`, where given, names the record's figure that is the ratio (instead of limit_ratio);
# a record without it (taken before the figure existed) is shown but not rated. `footprint`
# marks a kernel that moves memory: its records carry footprint_bytes (the bytes its data span)
# and are rated against the copy of that footprint pk-bench measured beside the case (005af5c);
# an older record is shown, not rated: its limit was one copy of two streams, below what a CPU
# reaches with many (docs/performance.md).
Row = collections.namedtuple("Row", "kernel case headline higher limit ratio invert kind why metric footprint",
                             defaults=(None, False))


TABLE = [
    Row("copy", r"range-policy|deep-copy", "bandwidth_gbs", True,
        "the fastest of the copies (to another array, deep_copy, in place), same run", "GB/s ÷ limit", False,
        "architectural", "never above 1: the limit is the fastest of them"),
    Row("copy", r"in-place", "bandwidth_gbs", True, "the fastest of the copies, same run", "GB/s ÷ limit", False,
        None, "not in Φ: the probe of what many streams updated in place reach, not a copy a program makes"),
    Row("lbm", r"a[ab]-fp(16|32|64)-\d+", "mlups", True,
        "copy bandwidth at the lattice's footprint ÷ bytes per update (the roofline of the memory it lives in), "
        "same run", "MLUPS ÷ roofline", False, "architectural",
        "a lattice held in a cache is rated against a copy held there too, so none beats its limit by "
        "living in cache; above 1 only within the probes' noise", None, True),
    Row("rfilter", r"field\d+-[xyz]", "wall_seconds", False,
        "copy-bandwidth roofline time at the field's footprint (2 × field bytes ÷ copy bandwidth), same run",
        "roofline time ÷ ours", False, "architectural", "as lbm: a field that fits a cache meets a copy that fits it",
        None, True),
    Row("rfilter", r"line-n\d+-k\d+", "wall_seconds", False, "the paper's Table 1 GPU time (GTX TITAN X)",
        "paper time ÷ ours", True, None,
        "not in Φ: another machine's time, 170 to 96 000 × ours on either space, says nothing of this one's limit"),
    Row("besselk", r"evaluate", "evals_per_second", True,
        "the best implementation measured on the platform (ours, GSL, Boost), same run",
        "ours ÷ best", False, "application",
        "K_ν is bound by arithmetic, not memory; GSL and Boost run on host cores only, so on a GPU ours is the one "
        "implementation measured there (1 by that, not by a cap); the FP64 rate measured beside it says how far "
        "any implementation is from the hardware"),
    Row("besselk", r"evaluate-(gsl|boost)", "evals_per_second", True,
        "the best implementation measured on the platform", "library ÷ best", False, None,
        "not in Φ: the reference libraries, not ours"),
    Row("besselk", r"matern-n\d+", "elements_per_second", True, "K_ν evaluations/s on the same space",
        "elements/s ÷ K_ν evals/s", False, None, "not in Φ: another kernel's rate bounds nothing (ratios 5-10)"),
    Row("gbees", r"lorenz63|lorenz96", "cells_per_second", True,
        "copy bandwidth at the grid's peak allocation ÷ bytes a step moves per cell (step_traffic in "
        "grid_memory.hpp), same run",
        "modelled GB/s ÷ copy GB/s", False, "architectural",
        "records without a traffic model (before 462ba06) or a copy at the grid's footprint: shown, not rated",
        "roofline_fraction", True),
    Row("gbees", r"lorenz63-ensemble-\d+", "cells_per_second", True,
        "the Lorenz '63 goal of the space, as above", "ours ÷ goal", False, None,
        "not in Φ: a throughput study against the number of PDFs (host cores run up to 16, GPUs up to 256), "
        "not another case of the code's efficiency"),
]


def row_of(kernel, case):
    """The TABLE row of a kernel's case, or None."""
    return next((r for r in TABLE if r.kernel == kernel and re.fullmatch(r.case, str(case))), None)


def fail(message):
    print(f"report: error: {message}", file=sys.stderr)
    sys.exit(2)


def number(metrics, key):
    value = metrics.get(key)  # a finite number, else None
    return value if type(value) in (int, float) and math.isfinite(value) else None


def read_folder(name, folder, skipped):
    """{NAME:SPACE: {"device", "cases": {(kernel, case): entry}}} from one folder's *.json."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        fail(f"{folder}: not a folder")
    platforms = {}
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            fail(f"{path}: not a readable JSON file ({e})")
        if not isinstance(record, dict) or "kernel" not in record:
            continue  # another tool's JSON (a sanitizer log, a report's own numbers)
        missing = {"case", "space", "metrics"} - record.keys()
        if missing or not isinstance(record["metrics"], dict):
            fail(f"{path}: a record without {', '.join(sorted(missing)) or 'a metrics object'}")
        key, space, metrics = (record["kernel"], record["case"]), record["space"], record["metrics"]
        row = row_of(*key)
        if row is None:
            skipped.append((path, "no entry in the efficiency table (not a pk-bench figure)"))
            continue
        value, limit_ratio = number(metrics, row.headline), number(metrics, "limit_ratio")
        if value is None and limit_ratio == 0:  # pk-bench's mark of a case that did not run
            skipped.append((path, "the record says the case did not run (too large, or stopped)"))
            continue
        if value is None or limit_ratio is None:
            fail(f"{path}: no number for '{row.headline if value is None else 'limit_ratio'}' ({key[0]} {key[1]})")
        if row.invert and limit_ratio <= 0:
            skipped.append((path, "no limit recorded for this case"))
            continue
        ratio = number(metrics, row.metric) if row.metric else 1 / limit_ratio if row.invert else limit_ratio
        if row.footprint and number(metrics, "footprint_bytes") is None:
            ratio = None  # a record from before the copy at the case's footprint
        platform = platforms.setdefault(f"{name}:{space}", {"folder": str(folder), "name": name, "space": space,
                                                           "device": record.get("device", "?"), "cases": {}})
        if key in platform["cases"]:
            fail(f"{path}: a second record of {key[0]} {key[1]} on {space} in {folder}")
        platform["cases"][key] = {"row": row, "value": value, "ratio": ratio,
                                  "efficiency": ratio if row.kind else None,
                                  "fp64_peak_gflops": number(metrics, "fp64_peak_gflops")}
    if not platforms:
        fail(f"{folder}: no pk-bench result records (*.json with kernel, case, space, metrics) to report")
    for platform in platforms.values():
        rate_against_best(platform["cases"])
    return dict(sorted(platforms.items(), key=lambda item: (item[1]["space"] != "openmp", item[0])))  # CPU first


def rate_against_best(cases):
    """K_ν: ours and the libraries against the fastest implementation the platform ran."""
    evaluations = [e for (k, c), e in cases.items() if k == "besselk" and c.startswith("evaluate")]
    best = max((e["value"] for e in evaluations), default=None)
    for e in evaluations:
        e["ratio"] = e["value"] / best
        e["efficiency"] = e["ratio"] if e["row"].kind else None


def read_threads(folder, skipped):
    """{N: platform} from FOLDER/threads-<N>/, one OpenMP run per thread count N, lowest N first."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        fail(f"--threads {folder}: not a folder")
    runs = {}
    for sub in folder.iterdir():
        match = re.fullmatch(r"threads-([1-9][0-9]*)", sub.name)
        if match and sub.is_dir():
            platform = read_folder(sub.name, sub, skipped).get(f"{sub.name}:openmp")
            if platform is None:
                fail(f"{sub}: no OpenMP records (thread counts are OpenMP's)")
            # A zero figure has no ratio: the case counts as missing at that thread count.
            platform["cases"] = {key: e for key, e in platform["cases"].items() if e["value"] > 0}
            runs[int(match[1])] = platform
    if len(runs) < 2:
        fail(f"--threads {folder}: {'one threads-<N> subfolder' if runs else 'no threads-<N> subfolders'}; "
             "strong scaling needs records at two thread counts or more (perf/device/threads.sh)")
    return dict(sorted(runs.items()))


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def strong_scaling(runs):
    """Per kernel, each case's speed-up over the lowest thread count and parallel efficiency at every
    other count where it has a record, and their geometric means per count (speed-ups are ratios)."""
    low = min(runs)
    kernels = collections.defaultdict(dict)
    for (kernel, case), base in runs[low]["cases"].items():
        points = {}
        for n, run in runs.items():
            e = run["cases"].get((kernel, case))
            if n != low and e:
                s = e["value"] / base["value"] if base["row"].higher else base["value"] / e["value"]
                points[n] = {"speedup": s, "efficiency": s / (n / low)}
        if points:
            kernels[kernel][case] = {"headline": base["row"].headline, "higher": base["row"].higher,
                                     "at_lowest": base["value"], "points": points}
    scaling = {}
    for kernel, cases in sorted(kernels.items()):
        means = {}
        for n in runs:
            values = [c["points"][n]["speedup"] for c in cases.values() if n in c["points"]]
            if values:
                means[n] = {"cases": len(values), "speedup": geometric_mean(values),
                            "efficiency": geometric_mean(values) / (n / low)}
        scaling[kernel] = {"cases": dict(sorted(cases.items(), key=lambda item: natural(item[0]))),
                           "geometric_mean": means}
    missing = collections.defaultdict(dict)
    for kernel, case in sorted(set().union(*(run["cases"] for run in runs.values())), key=natural):
        absent = [n for n, run in runs.items() if (kernel, case) not in run["cases"]]
        if absent:
            missing[kernel][case] = absent
    return {"counts": list(runs), "kernels": scaling, "missing": dict(missing)}


def harmonic_mean(values):
    values = list(values)
    return 0.0 if min(values) <= 0 else len(values) / sum(1 / v for v in values)


def natural(text):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def kernel_efficiency(platform, kernel):
    """Harmonic mean over the cases of `kernel` this platform ran; None: no record of it."""
    values = [e["efficiency"] for (k, _), e in platform["cases"].items() if k == kernel and e["efficiency"] is not None]
    return harmonic_mean(values) if values else None


def speedups(platforms):
    """{name: {kernel: summary}} of GPU ÷ CPU throughput over the cases both spaces of a folder ran;
    speed-ups are ratios, so their mean is geometric. The CPU is the folder's openmp space, the GPU
    its other one (cuda or hip: a build holds one GPU backend); with two, each is NAME:SPACE."""
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    for p in platforms.values():
        gpus = [g for g in platforms.values() if g["name"] == p["name"] and g["space"] != "openmp"]
        for gpu in gpus if p["space"] == "openmp" else ():
            name = p["name"] if len(gpus) == 1 else f"{p['name']}:{gpu['space']}"
            # Sorted: a set's order changes between runs, and with it the mean's last digits.
            for key in sorted(p["cases"].keys() & gpu["cases"].keys()):
                cpu_value, gpu_value = p["cases"][key]["value"], gpu["cases"][key]["value"]
                if min(cpu_value, gpu_value) > 0:
                    ratios[name][key[0]].append(gpu_value / cpu_value if p["cases"][key]["row"].higher
                                                else cpu_value / gpu_value)
    return {name: {k: {"cases": len(v), "geometric_mean": geometric_mean(v),
                       "lowest": min(v), "highest": max(v)} for k, v in sorted(by.items())}
            for name, by in sorted(ratios.items())}


def save(path, write):
    """Writes whole or not at all: a temporary name in the same folder, then a rename."""
    temporary = path.with_name(f".{path.name}.tmp")
    write(temporary)
    os.replace(temporary, path)


def save_figure(fig, path):
    save(path, lambda t: fig.savefig(t, dpi=100, format="png", bbox_inches="tight"))
    plt.close(fig)
    return path.name


def save_chart(fig, ax, path):
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))  # beside the bars, never over them
    return save_figure(fig, path)


def chart_efficiency(kernel, platforms, out):
    cases = sorted({c for p in platforms.values() for (k, c), e in p["cases"].items()
                    if k == kernel and e["efficiency"] is not None}, key=natural)
    rows = {e["row"] for p in platforms.values() for (k, _), e in p["cases"].items() if k == kernel and e["row"].kind}
    width = 0.8 / len(platforms)
    fig, ax = plt.subplots(figsize=(min(30, max(7, 0.22 * len(cases) * len(platforms) + 2)), 4.8))
    for i, (name, p) in enumerate(platforms.items()):
        values = [p["cases"].get((kernel, c), {}).get("efficiency") for c in cases]
        xs = [j + (i - (len(platforms) - 1) / 2) * width for j in range(len(cases))]
        ax.bar(xs, [math.nan if v is None else v for v in values], width,
               label=name if any(v is not None for v in values) else f"{name}: no record")
    ax.axhline(1, color="grey", linestyle="--", linewidth=0.8)
    top = max((e["efficiency"] for p in platforms.values() for (k, _), e in p["cases"].items()
               if k == kernel and e["efficiency"] is not None), default=1)
    ax.set_ylim(0, max(1.08, 1.05 * top))
    ax.set_xticks(range(len(cases)), cases, rotation=90 if len(cases) > 6 else 0, fontsize=8)
    ax.set_xlabel("case")
    ax.set_ylabel("efficiency (fraction of the limit;\nhigher = better)")
    kind = "/".join(sorted({r.kind for r in rows}))
    ax.set_title(f"{kernel}: {kind} efficiency per case = {'; '.join(sorted({r.ratio for r in rows}))}, "
                 "not capped (higher = better)", fontsize=10)
    return save_chart(fig, ax, out / f"efficiency-{kernel}.png")


def chart_phi(kernels, efficiency, phi, out):
    """Kernels x platforms, the efficiency as colour (red 0, green 1), Φ in the last column."""
    names = list(next(iter(efficiency.values())))
    grid = [[math.nan if efficiency[k][n] is None else efficiency[k][n] for n in names] + [phi[k]] for k in kernels]
    fig, ax = plt.subplots(figsize=(2.2 + 1.5 * (len(names) + 1), 1.2 + 0.5 * len(kernels)))
    ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            text = "no rated record" if math.isnan(v) else f"{v:.3f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9, fontweight="bold" if j == len(names) else None)
    ax.axvline(len(names) - 0.5, color="black", linewidth=2)
    ax.set_xticks(range(len(names) + 1), names + ["Φ"])
    ax.set_yticks(range(len(kernels)), kernels)
    ax.set_title("efficiency per kernel and platform (colour: 0 red .. 1 green; higher = better), Φ", fontsize=10)
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


def threads(n):
    return f"{n} thread{'s' if n > 1 else ''}"


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


def cell(e):
    """A case on a platform: the efficiency (or, outside Φ, the ratio) · the headline figure."""
    if e is None:
        return "—"
    if e["ratio"] is None:
        shown = "not rated"
    elif e["efficiency"] is None:
        shown = f"{e['ratio']:.3g}×"
    else:
        shown = f"{e['efficiency']:.3f}"
    peak = e["fp64_peak_gflops"]  # an arithmetic-bound case: the FP64 rate measured beside it
    beside = f" · FP64 {peak:.4g} GFLOP/s, {peak * 1e9 / e['value']:.3g} flops an evaluation's time" if peak else ""
    return f"{shown} · {e['value']:.4g}{beside}"


def scaling_section(scaling, runs, folder, charts):
    counts, low = scaling["counts"], scaling["counts"][0]
    device = re.sub(r" \(\d+ threads?\)$", "", runs[low]["device"])  # the count pk-bench appends is one run's
    lines = ["## CPU strong scaling", "",
             f"The same problems on OpenMP at {', '.join(map(str, counts))} threads, one run per count "
             f"(`{folder}/threads-<N>/`; device: {device}). Each cell: the speed-up over "
             f"{threads(low)} (throughput at N ÷ throughput at {low}; for a time, time at {low} ÷ time at N) and, "
             f"in brackets, the parallel efficiency = speed-up ÷ (N ÷ {low}). Higher = better for both; "
             f"ideal: speed-up N ÷ {low}, efficiency 1.", ""]
    for k, by_kernel in scaling["kernels"].items():
        lines += [f"### {k}: strong scaling", "",
                  f"| case | headline at {threads(low)} | " + " | ".join(threads(n) for n in counts[1:]) + " |",
                  "|---|---|" + "---|" * (len(counts) - 1)]
        for case, c in by_kernel["cases"].items():
            cells = [f"{c['points'][n]['speedup']:.3g} ({c['points'][n]['efficiency']:.2f})" if n in c["points"]
                     else "—" for n in counts[1:]]
            lines.append(f"| {case} | {c['at_lowest']:.4g} {c['headline']} "
                         f"({'higher' if c['higher'] else 'lower'} = better) | " + " | ".join(cells) + " |")
        means = by_kernel["geometric_mean"]
        cells = [f"**{means[n]['speedup']:.3g} ({means[n]['efficiency']:.2f})**, {means[n]['cases']} "
                 f"case{'s' if means[n]['cases'] > 1 else ''}"
                 if n in means else "—" for n in counts[1:]]
        lines += ["| geometric mean | | " + " | ".join(cells) + " |", "",
                  f"![{k}: speed-up vs OpenMP threads]({charts[k]})", ""]
    if not scaling["kernels"]:
        lines += [f"No case has a record at {threads(low)} and at another count.", ""]
    if scaling["missing"]:
        lines += ["Cases without a record at some thread counts (that run stopped before the case, e.g. at "
                  "perf/device/threads.sh's time limit, or the case did not run there); a case without one at "
                  f"{threads(low)} has no speed-up:", ""]
        for k, by_case in scaling["missing"].items():
            grouped = collections.defaultdict(list)
            for case, absent in by_case.items():
                grouped[tuple(absent)].append(case)
            lines += [f"- {k} {', '.join(cases)}: no record at {', '.join(map(threads, absent))}"
                      for absent, cases in grouped.items()]
        lines.append("")
    return lines


def read_limits(paths):
    """perf/limits.py's findings, by platform."""
    limits = {}
    for path in paths:
        try:
            found = json.loads(pathlib.Path(path).read_text())
            limits[found["platform"]] = found
            if not all(isinstance(f.get(key), str) for items in found["kernels"].values() for f in items
                       for key in ("case", "launch", "limit")):
                raise ValueError("a finding without its case, launch or limit")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            fail(f"{path}: not a perf/limits.py file ({e})")
    return limits


def limits_section(kernels, efficiency, limits):
    """Per kernel and platform below 0.9: what limits it, as measured there (perf/limits.py)."""
    lines = ["", "## What limits the kernels below 0.9", "",
             "Measured on the platform: Nsight Compute on a GPU (`perf/device/limits.sh`), the same cases at "
             "two thread counts on a CPU, whose VM has no hardware counters (`perf/device/cpu_limits.sh`); "
             "reduced by `perf/limits.py`. A GPU kernel is limited by its parallelism where its grid fills less "
             "than a wave of the SMs, by a unit where one runs at 80 % of its peak or more, else by latency; a "
             "CPU kernel by its cores where more threads gain at least 60 % of the ideal speed-up (x1.6 on twice "
             "the threads), by what the cores share where at most 25 % (x1.25).", ""]
    for k in kernels:
        for n, e in efficiency[k].items():
            if e is None or round(e, 3) >= 0.9:  # as the tables show it
                continue
            found = limits.get(n)
            head = f"- **{k} on {n}** ({e:.3f})"
            if not found:
                lines.append(f"{head}: not measured on this platform.")
                continue
            items = found["kernels"].get(k)
            if not items:
                lines.append(f"{head}: none of its cases was measured ({found['method']}).")
                continue
            lines.append(f"{head}, {found['method']}, {found.get('commit') or 'commit not given'}:")
            lines += [f"  - {f['case']}, {f['launch']}"
                      + (f" ({f['share']:.0%} of its time)" if "share" in f else "") + f": {f['limit']}"
                      for f in items]
    return lines


def markdown(platforms, kernels, efficiency, phi, speedup, charts, skipped, scaling_lines, limits):
    names = list(platforms)
    lines = ["# Portability report", "",
             "A platform is one execution space in one folder of records.", "",
             "| platform | folder | device | records |", "|---|---|---|---|"]
    lines += [f"| {n} | `{p['folder']}` | {p['device']} | {len(p['cases'])} |" for n, p in platforms.items()]
    lines += ["", "## Performance portability Φ per kernel", "",
              "Φ (Pennycook et al.) = the harmonic mean over the platforms of the kernel's efficiency there, "
              "0 when a platform has no rated record of the kernel; a kernel's efficiency on a platform = the "
              "harmonic mean over the cases it ran there. Higher = better; an efficiency is the measured ratio "
              "to the case's limit, never capped (above 1 only within the noise of the limit's measurement). "
              "Which limit each kernel is rated against, and why: [How efficiency is derived]"
              "(#how-efficiency-is-derived).", "",
              "| kernel | efficiency kind | " + " | ".join(f"{n} (higher = better)" for n in names)
              + " | Φ (higher = better) |", "|---|---|" + "---|" * (len(names) + 1)]
    for k in kernels:
        kind = "/".join(sorted({r.kind for r in TABLE if r.kernel == k and r.kind}))
        cells = ["no rated record" if efficiency[k][n] is None else f"{efficiency[k][n]:.3f}" for n in names]
        lines.append(f"| {k} | {kind} | " + " | ".join(cells) + f" | **{phi[k]:.3f}** |")
    if "phi" in charts:
        lines += ["", f"![efficiency and Φ per kernel and platform]({charts['phi']})"]
    lines += ["", "## CPU vs GPU speed-up", ""]
    if speedup:
        lines += ["GPU ÷ CPU throughput on the cases both spaces of a folder ran (for a time: CPU time ÷ GPU "
                  "time); higher = GPU faster.", "",
                  "| folder | kernel | cases | geometric mean (higher = GPU faster) | lowest | highest |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {name} | {k} | {s['cases']} | {s['geometric_mean']:.3g} | {s['lowest']:.3g} | "
                  f"{s['highest']:.3g} |" for name, by_kernel in speedup.items() for k, s in by_kernel.items()]
        lines += ["", f"![CPU vs GPU speed-up]({charts['speedup']})"]
    else:
        lines.append("No folder holds both an openmp and a GPU (cuda or hip) record of the same case.")
    lines += ["", *scaling_lines, "## Efficiency per case", "",
              "Each cell: the efficiency (the ratio to the limit, higher = better; `not rated`: no limit "
              "measured for it, see the table below) or, for a "
              "case outside Φ, its ratio to the limit (×, higher = better); after `·` the headline figure.", ""]
    for k in sorted({k for p in platforms.values() for k, _ in p["cases"]}):
        cases = sorted({c for p in platforms.values() for kk, c in p["cases"] if kk == k}, key=natural)
        lines += [f"### {k}", "", "| case | headline | measure | " + " | ".join(names) + " |",
                  "|---|---|---|" + "---|" * len(names)]
        for c in cases:
            row = next(p["cases"][(k, c)]["row"] for p in platforms.values() if (k, c) in p["cases"])
            cells = [cell(p["cases"].get((k, c))) for p in platforms.values()]
            lines.append(f"| {c} | {row.headline} ({'higher' if row.higher else 'lower'} = better) | "
                         f"{'efficiency' if row.kind else f'{row.ratio} (not in Φ)'} | " + " | ".join(cells) + " |")
        if k in charts:
            lines += ["", f"![{k} efficiency per case]({charts[k]})"]
        lines.append("")
    lines += ["## How efficiency is derived", "",
              "`limit_ratio` in a record = headline ÷ limit, the limit measured in the same run where one is.", "",
              "| kernel | cases | headline | better | limit | ratio (higher = better) | efficiency | why |",
              "|---|---|---|---|---|---|---|---|"]
    for r in TABLE:
        source = r.metric or ("1 ÷ limit_ratio" if r.invert else "limit_ratio")
        case = r.case.replace("|", "\\|")  # a bare | would end the table cell
        lines.append(f"| {r.kernel} | `{case}` | {r.headline} | {'higher' if r.higher else 'lower'} | {r.limit} | "
                     f"{r.ratio} = {source} | {f'{r.kind}: the ratio' if r.kind else '—'} | {r.why} |")
    lines += ["", "Kernels that move memory (lbm, rfilter, gbees) are rated against a copy at the case's footprint: "
              "a record's `footprint_bytes` are the bytes its data span, and pk-bench measured, beside the case, "
              "a copy of two arrays spanning as many (the faster of it and the run's probe, which spans 2 GiB), "
              "each the best of a copy to another array, `deep_copy` and an update in place over 16 streams; so a "
              "case held in a cache meets a copy held there too. Records taken before pk-bench measured that "
              "copy (no `footprint_bytes`) are shown, not rated: their limit was one copy of two streams, below "
              "the bandwidth a CPU reaches with many. besselk's ratios are computed "
              "here: each evaluate record's rate ÷ the fastest of the platform's evaluate, evaluate-gsl and "
              "evaluate-boost records."]
    lines += limits_section(kernels, efficiency, limits)
    if skipped:
        lines += ["", "## Records left out", ""] + [f"- `{path}`: {why}" for path, why in skipped]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", metavar="[NAME=]FOLDER", help="a folder of one platform's records")
    parser.add_argument("--platforms", help="comma-separated NAME or NAME:SPACE to report on (default: all)")
    parser.add_argument("--threads", metavar="DIR", help="CPU strong scaling from DIR/threads-<N>/ (one OpenMP run "
                        "of the same problems at N threads, as perf/device/threads.sh writes)")
    parser.add_argument("--limits", nargs="*", default=[], metavar="FILE",
                        help="what limits the kernels, per platform (perf/limits.py's JSON files)")
    parser.add_argument("--out", required=True, help="folder for report.md, report.json and the PNGs")
    args = parser.parse_args()
    limits = read_limits(args.limits)
    if plt is None:
        fail("needs matplotlib (Debian: python3-matplotlib)")
    platforms, skipped, folders = {}, [], {}
    for argument in args.folders:
        name, _, folder = argument.partition("=") if "=" in argument else (None, None, argument)
        name = name or pathlib.Path(folder).resolve().name
        if name in folders:
            fail(f"two folders named '{name}' ({folders[name]}, {folder}): name one NAME=FOLDER")
        folders[name] = folder
        platforms.update(read_folder(name, folder, skipped))
    if args.platforms:
        wanted = [w.strip() for w in args.platforms.split(",") if w.strip()]
        for w in (w for w in wanted if not any(w in (n, p["name"]) for n, p in platforms.items())):
            fail(f"--platforms: no platform '{w}' (have: {', '.join(platforms)})")
        platforms = {n: p for n, p in platforms.items() if n in wanted or p["name"] in wanted}
    kernels = sorted({k for p in platforms.values() for (k, _), e in p["cases"].items() if e["efficiency"] is not None})
    efficiency = {k: {n: kernel_efficiency(p, k) for n, p in platforms.items()} for k in kernels}
    phi = {k: 0.0 if None in efficiency[k].values() else harmonic_mean(efficiency[k].values()) for k in kernels}
    speedup = speedups(platforms)
    runs = read_threads(args.threads, skipped) if args.threads else None
    scaling = strong_scaling(runs) if runs else None
    out = pathlib.Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        charts = {k: chart_efficiency(k, platforms, out) for k in kernels}
        if kernels:
            charts["phi"] = chart_phi(kernels, efficiency, phi, out)
        if speedup:
            charts["speedup"] = chart_speedup(speedup, out)
        scaling_lines = []
        if scaling:
            thread_charts = {k: chart_threads(k, scaling, out) for k in scaling["kernels"]}
            scaling_lines = scaling_section(scaling, runs, args.threads, thread_charts)
        report = markdown(platforms, kernels, efficiency, phi, speedup, charts, skipped, scaling_lines, limits)
        save(out / "report.md", lambda t: t.write_text(report))
        numbers = {"platforms": list(platforms), "phi": phi, "efficiency": efficiency, "speedup": speedup}
        if scaling:
            numbers["threads"] = {"folder": args.threads, **scaling}
        save(out / "report.json", lambda t: t.write_text(json.dumps(numbers, indent=1) + "\n"))
    except OSError as e:
        fail(f"{e.filename or out}: cannot write ({e.strerror})")
    for k in kernels:
        lacking = [n for n, v in efficiency[k].items() if v is None]
        print(f"Φ {k:8} = {phi[k]:.3f} over {len(platforms)} platforms"
              + (f" (no rated record on {', '.join(lacking)})" if lacking else ""))
    for name, by_kernel in speedup.items():
        for k, s in by_kernel.items():
            print(f"GPU ÷ CPU throughput on {name}, {k:8} = {s['geometric_mean']:.3g} (geometric mean of "
                  f"{s['cases']} cases; higher = GPU faster)")
    for k, by_kernel in scaling["kernels"].items() if scaling else ():
        n, mean = max(by_kernel["geometric_mean"].items())
        print(f"CPU strong scaling, {k:8}: speed-up {mean['speedup']:.3g} at {n} threads over {min(runs)} "
              f"(efficiency {mean['efficiency']:.2f}; geometric mean of {mean['cases']} cases; higher = better)")
    if skipped:
        print(f"left out {len(skipped)} records with no efficiency (listed in report.md)")
    print(f"wrote {out / 'report.md'}")


if __name__ == "__main__":
    main()
