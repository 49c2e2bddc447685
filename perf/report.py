#!/usr/bin/python3
"""Portability report from pk-bench records: per kernel, architectural and application efficiency on
every platform and Pennycook's Φ of each, the copy probe (the memory limit), the CPU-vs-GPU speed-up
and CPU strong scaling; and the README of the folder it writes.

    perf/report.py [NAME=]FOLDER... [--platforms P,...] [--history NAME,...] [--peers NAME=DIR...]
                   [--threads DIR] [--limits FILE...] --out DIR

A platform is one execution space in one folder of records, NAME:SPACE (h200:cuda, h200:openmp,
mi250x:hip): `pk-bench --space all` puts a CPU's and a GPU's records in one folder, and an efficiency
belongs to one piece of hardware. NAME is the folder's name unless given. --platforms keeps only those
named, as NAME (all its spaces) or NAME:SPACE (default: all). --history NAME: that folder's records are
of a machine that can no longer be measured: shown as history, never rated. --peers NAME=DIR: the
records perf/peers/run.py wrote for the platforms of folder NAME (ours and a peer measured side by
side), the application limits. Efficiency and its limits: perf/efficiency.py.

Φ of a kernel = the harmonic mean of its efficiency over the platforms measured, each efficiency the
harmonic mean over the cases rated on every one of them (the same cases everywhere); a platform
without a rated record is named as not measured, never counted as 0; a platform's records of the
kernel must be of one commit. Writes DIR/report.md, report.json (full precision), README.md,
phi.png, efficiency-<kernel>.png and speedup.png; with --threads DIR (DIR/threads-<N>/: one OpenMP
run of the same problems at N threads, perf/device/threads.sh) CPU strong scaling and
threads-<kernel>.png. Bad input: one line on stderr, status 2.
"""
import argparse
import collections
import json
import math
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from files import save  # noqa: E402
from efficiency import (COMPARISONS, PEERS, TABLE, TIME_UNITS, application, architectural, host, library_comparisons,  # noqa: E402
                        moved_gbs, number, peers_of, row_of)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    plt = None

KINDS = ("architectural", "application")


def fail(message):
    print(f"report: error: {message}", file=sys.stderr)
    sys.exit(2)


def short(commit):
    return str(commit or "?")[:7]


def json_records(folder, option=""):
    """(path, object) of each *.json in FOLDER that holds a JSON object, in name order; fails on a
    missing folder (named with the OPTION that gave it) or an unreadable file."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        fail(f"{option}{folder}: not a folder")
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            fail(f"{path}: not a readable JSON file ({e})")
        if isinstance(record, dict):
            yield path, record


def read_folder(name, folder, skipped):
    """{NAME:SPACE: {"device", "cases": {(kernel, case): entry}}} from one folder's *.json."""
    folder, platforms = pathlib.Path(folder), {}
    for path, record in json_records(folder):
        if "kernel" not in record:
            continue  # another tool's JSON (a sanitizer log, a report's own numbers)
        missing = {"case", "space", "metrics"} - record.keys()
        if missing or not isinstance(record["metrics"], dict):
            fail(f"{path}: a record without {', '.join(sorted(missing)) or 'a metrics object'}")
        key, space, metrics = (record["kernel"], record["case"]), record["space"], record["metrics"]
        row = row_of(*key)
        if row is None:
            skipped.append((path, "no entry in the efficiency table (not a pk-bench figure)"))
            continue
        value = number(metrics, row.headline)
        if value is None and number(metrics, "limit_ratio") == 0:  # pk-bench's mark of a case that did not run
            skipped.append((path, "the record says the case did not run (too large, or stopped)"))
            continue
        if value is None:
            fail(f"{path}: no number for '{row.headline}' ({key[0]} {key[1]})")
        efficiency, why = architectural(row, space, metrics)
        platform = platforms.setdefault(f"{name}:{space}", {"folder": str(folder), "name": name, "space": space,
                                                           "device": record.get("device", "?"), "cases": {}})
        if key in platform["cases"]:
            fail(f"{path}: a second record of {key[0]} {key[1]} on {space} in {folder}")
        platform["cases"][key] = {"row": row, "value": value, "commit": record.get("commit"),
                                  "date": str(record.get("date") or ""),
                                  "architectural": efficiency, "why": why,
                                  "moved_gbs": moved_gbs(key[1], space, metrics) if row.kind == "probe" else None,
                                  "fp64_peak_gflops": number(metrics, "fp64_peak_gflops"),
                                  "spread": number(metrics, "repeat_spread")}
    if not platforms:
        fail(f"{folder}: no pk-bench result records (*.json with kernel, case, space, metrics) to report")
    for platform in platforms.values():
        platform["comparisons"] = library_comparisons(platform["cases"])
    return dict(sorted(platforms.items(), key=lambda item: (item[1]["space"] != "openmp", item[0])))  # CPU first


def read_peers(name, folder, platforms, skipped):
    """Adds perf/peers/run.py's records in FOLDER (ours and a peer, side by side) to the
    comparisons of the platforms of folder NAME."""
    for path, record in json_records(folder, "--peers "):
        if "comparison" not in record:
            continue  # pk-bench's own records of the runs, the table's JSON
        if record["comparison"] not in COMPARISONS:
            skipped.append((path, f"a comparison this report does not know ('{record['comparison']}')"))
            continue
        try:
            kernel, peer = COMPARISONS[record["comparison"]]
            space, case = record["space"], record["ours"]["pk_bench_case"]
            ours, theirs = record["ours"]["stats"], record["peer"]["stats"]
            commit = record["ours"].get("commit")
        except (KeyError, TypeError) as e:
            fail(f"{path}: not a perf/peers/run.py record ({e})")
        if not ours or not theirs or not ours.get("median") or not theirs.get("median"):
            skipped.append((path, f"{peer} or ours did not run: {'; '.join(record.get('errors') or []) or 'no figure'}"))
            continue
        platform = platforms.get(f"{name}:{space}")
        if platform is None:
            skipped.append((path, f"no pk-bench records of {name}:{space} to set it beside"))
            continue
        rate = (lambda v: 1 / v) if record.get("unit") in TIME_UNITS else (lambda v: v)  # higher = better
        platform["comparisons"].setdefault((kernel, case), []).append(
            {"peer": peer, "peer_figure": rate(theirs["median"]), "ours": rate(ours["median"]), "commit": commit,
             "source": f"perf/peers/run.py, {record.get('unit', '')} medians, interleaved"})


def rate(platforms):
    """{kind: {kernel: {platform: {"cases": {case: efficiency}, "commits", "why"}}}}."""
    rated = {kind: collections.defaultdict(dict) for kind in KINDS}
    for n, p in platforms.items():
        by_kernel = collections.defaultdict(lambda: {kind: {"cases": {}, "commits": set(), "why": []} for kind in KINDS})
        for (k, c), e in p["cases"].items():
            if k == "copy":
                continue  # the probe: a limit, not a kernel of Φ
            a = by_kernel[k]["architectural"]
            if e["architectural"] is not None:
                a["cases"][c], a["commits"] = e["architectural"], a["commits"] | {e["commit"]}
            else:  # why not: the reason of the kernel's rated kind of case first, else of its first row
                a["why"].append((e["row"].kind != "architectural", TABLE.index(e["row"]), e["why"]))
            b = by_kernel[k]["application"]
            found = application(p["comparisons"].get((k, c)))
            if found:
                b["cases"][c] = found["efficiency"]
                b["commits"] |= {x["commit"] for x in p["comparisons"][(k, c)]}
        for k, by_kind in by_kernel.items():
            reasons = sorted(set(by_kind["architectural"]["why"]))
            by_kind["architectural"]["why"] = [why for first, index, why in reasons
                                               if (first, index) == reasons[0][:2]] if reasons else []
            peers = peers_of(k, p["space"])
            if not by_kind["application"]["cases"]:
                by_kind["application"]["why"] = [
                    f"ours is the only implementation measured here ({peers}: not yet measured)" if peers
                    else "no peer implementation known"]
            for kind in KINDS:
                rated[kind][k][n] = by_kind[kind]
    return rated


def harmonic_mean(values):
    values = list(values)
    return len(values) / sum(1 / v for v in values)


def summarize(kernel, by_platform, names):
    """Φ of one kernel and kind over the platforms measured and the cases rated on all of them."""
    measured, not_measured = {}, {}
    for n in names:
        r = by_platform.get(n)
        if r is None:
            not_measured[n] = "not measured: no record of the kernel"
        elif not r["cases"]:
            not_measured[n] = "not rated: " + "; ".join(r["why"] or ["no limit recorded"])
        elif len(r["commits"]) > 1:
            not_measured[n] = (f"not rated: records of {len(r['commits'])} commits "
                               f"({', '.join(sorted(map(short, r['commits'])))}); re-take them at one")
        else:
            measured[n] = r
    common = sorted(set.intersection(*(set(r["cases"]) for r in measured.values())), key=natural) if measured else []
    summary = {"over": list(measured) if common else [], "not_measured": not_measured, "cases": common,
               "commits": {n: short(next(iter(r["commits"]))) for n, r in measured.items()},
               "efficiency": {n: harmonic_mean(r["cases"][c] for c in common) if common else None
                              for n, r in measured.items()},
               "all_cases": {n: {"cases": len(r["cases"]), "efficiency": harmonic_mean(r["cases"].values())}
                             for n, r in measured.items()},
               "case_efficiency": {n: r["cases"] for n, r in measured.items()}}
    summary["phi"] = harmonic_mean(summary["efficiency"].values()) if common else None
    return summary


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def natural(text):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


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


def save_figure(fig, path):
    save(path, lambda t: fig.savefig(t, dpi=100, format="png", bbox_inches="tight"))
    plt.close(fig)
    return path.name


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


def scaling_section(scaling, runs, folder, charts):
    counts, low = scaling["counts"], scaling["counts"][0]
    device = re.sub(r" \(\d+ threads?\)$", "", runs[low]["device"])  # the count pk-bench appends is one run's
    lines = ["## CPU strong scaling", "",
             f"The same problems on OpenMP at {', '.join(map(str, counts))} threads, one run per count "
             f"(`{folder}/threads-<N>/`; device: {device}; records of "
             f"{', '.join(sorted({short(e['commit']) for run in runs.values() for e in run['cases'].values()}))}). "
             "Each cell: the speed-up over "
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


def limits_section(kernels, efficiency, limits, names):
    """Per kernel and platform below 0.9, or without an architectural limit, where it was measured:
    what limits it, as measured there (perf/limits.py)."""
    lines = ["", "## What limits the kernels below 0.9", "",
             "A kernel's architectural efficiency on a platform here is over all the cases rated there; a "
             "kernel without an architectural limit (not rated) is listed where its cases were measured. "
             "Measured on the platform: Nsight Compute on a GPU (`perf/device/limits.sh`), the same cases at "
             "two thread counts on a CPU, whose VM has no hardware counters (`perf/device/cpu_limits.sh`); "
             "reduced by `perf/limits.py`. A GPU kernel is limited by its parallelism where its grid fills less "
             "than a wave of the SMs, by a unit where one runs at 80 % of its peak or more, else by latency; a "
             "CPU kernel by its cores where more threads gain at least 60 % of the ideal speed-up (x1.6 on twice "
             "the threads), by what the cores share where at most 25 % (x1.25).", ""]
    for k in kernels:
        for n in names:
            e, found = efficiency[k].get(n), limits.get(n)
            items = found["kernels"].get(k) if found else None
            if e is None and not items or e is not None and round(e, 3) >= 0.9:  # as the tables show it
                continue
            head = f"- **{k} on {n}** ({'not rated' if e is None else f'{e:.3f}'})"
            if not found:
                lines.append(f"{head}: not measured on this platform.")
                continue
            if not items:
                lines.append(f"{head}: none of its cases was measured ({found['method']}).")
                continue
            lines.append(f"{head}, {found['method']}, {found.get('commit') or 'commit not given'}:")
            lines += [f"  - {f['case']}, {f['launch']}"
                      + (f" ({f['share']:.0%} of its time)" if "share" in f else "") + f": {f['limit']}"
                      for f in items]
    return lines


def cell(e, found, history):
    """A case on a platform: its architectural efficiency, its application efficiency where a peer
    was measured beside it, and its headline figure."""
    if e is None:
        return "—"
    value = f"{e['value']:.4g}"
    if e["moved_gbs"] is not None and e["moved_gbs"] != e["value"]:
        value += f" counted, {e['moved_gbs']:.4g} moved"
    if history:
        return f"history · {value}"
    if e["row"].kind == "probe":
        return f"limit probe · {value}"
    shown = [f"{e['architectural']:.3f}" if e["architectural"] is not None else "not rated"]
    if found:
        versus = (f"ours fastest of ours, {', '.join(found['peers'])}" if found["best"] == "ours"
                  else f"vs {found['best']}")
        shown.append(f"application {found['efficiency']:.3f} ({versus})")
    peak = e["fp64_peak_gflops"]  # an arithmetic-bound case: the FP64 rate measured beside it
    beside = f" · FP64 {peak:.4g} GFLOP/s measured beside it" if peak else ""
    return " · ".join(shown) + f" · {value}{beside}"


def phi_table(kind, summaries, names, limit_words):
    """One kind's table: per kernel the efficiency on each platform over the same cases, Φ over the
    platforms measured (named, with their commit), then why the others are not in it."""
    lines = [f"| kernel | rated against | " + " | ".join(f"{n} (higher = better)" for n in names)
             + " | Φ (higher = better) | over (commit) | cases |", "|---|---|" + "---|" * (len(names) + 3)]
    notes, partial = [], []
    for k, s in summaries.items():
        cells = []
        for n in names:
            v = s["efficiency"].get(n)
            cells.append(f"{v:.3f}" if v is not None else
                         "not measured" if s["not_measured"].get(n, "").startswith("not measured") else "not rated")
        over = ", ".join(f"{n} ({s['commits'][n]})" for n in s["over"]) or "—"
        phi = "—" if s["phi"] is None else f"**{s['phi']:.3f}**"
        lines.append(f"| {k} | {limit_words(k)} | " + " | ".join(cells) + f" | {phi} | {over} | {len(s['cases'])} |")
        notes += [f"- {k} on {n}: {why}" for n, why in s["not_measured"].items()]
        if s["phi"] is None and s["efficiency"]:
            notes.append(f"- {k}: no case is rated on every platform measured ({', '.join(s['efficiency'])})")
        for n, a in s["all_cases"].items():
            if a["cases"] > len(s["cases"]):
                partial.append(f"- {k} on {n}: {a['cases'] - len(s['cases'])} of its {a['cases']} rated cases are "
                               f"not rated on every platform (its efficiency over all {a['cases']}: "
                               f"{a['efficiency']:.3f})")
    if notes:
        lines += ["", f"Not in {kind} Φ:", "", *notes]
    if partial:
        lines += ["", "Cases left out of Φ because another platform did not run them or has no limit for them:",
                  "", *partial]
    return lines


def architectural_words(k):
    rows = [r for r in TABLE if r.kernel == k and r.kind == "architectural"]
    return "; ".join(r.label for r in rows) or next(r.label for r in TABLE if r.kernel == k)


def application_words(k):
    peers = PEERS.get(k, {})
    if not peers:
        return "no peer implementation known"
    return f"the best of ours and {peers['cpu']} (CPU), {peers['gpu']} (GPU)"


def copy_section(platforms):
    """The copy probe of each platform: each copy counted and at the bytes it moved, the limit."""
    lines = ["## The copy probe: the memory limit", "",
             "The limit the memory-bound kernels are rated against, not a kernel of Φ: a copy to another array "
             "(RangePolicy), `deep_copy` and an update in place over 16 streams, 2 GiB, in the same run. A CPU's "
             "ordinary store reads the line it writes first (write-allocate): a copy to another array moves three "
             "streams where pk-bench counts two. The copy records do not say the bytes they moved "
             "(no `copy_bytes_per_element`), so this report counts 1.5 × the counted bytes for the two copies on a "
             "host space (openmp), and the counted bytes on a GPU, which does not pay it; the update in place moves "
             "what it counts. Each cell: GB/s (higher = better) and its ratio to the limit, the best of the three "
             "(`the limit`: that copy is it, a ratio of 1 by construction, so not an efficiency).",
             "", "| platform | copy to another array | `deep_copy` | update in place | limit | BabelStream |",
             "|---|---|---|---|---|---|"]
    any_probe = False
    for n, p in platforms.items():
        probes = {c: e for (k, c), e in p["cases"].items() if k == "copy"}
        if not probes:
            continue
        any_probe = True
        best = max(e["moved_gbs"] for e in probes.values())
        cells = []
        for case in ("range-policy", "deep-copy", "in-place"):
            e = probes.get(case)
            if e is None:
                cells.append("—")
            elif e["moved_gbs"] != e["value"]:
                share = "the limit" if e["moved_gbs"] == best else f"{e['moved_gbs'] / best:.2f}"
                cells.append(f"{e['value']:.4g} counted, {e['moved_gbs']:.4g} moved ({share})")
            else:
                share = "the limit" if e["value"] == best else f"{e['value'] / best:.2f}"
                cells.append(f"{e['value']:.4g} ({share})")
        peers = [c for c in p["comparisons"].get(("copy", "range-policy"), [])]
        bs = "; ".join(f"{c['peer']} {c['peer_figure']:.4g} counted (ours {c['ours']:.4g} beside it)"
                       for c in peers) or "not yet measured"
        lines.append(f"| {n} | " + " | ".join(cells) + f" | **{best:.4g}** | {bs} |")
    if not any_probe:
        return []
    lines += ["", "The limits derived from it (lbm, rfilter: `copy_bandwidth_gbs` in their records, the best copy at "
              "the case's footprint) are used as recorded: the records keep only the best of the three copies, not "
              "which it was, so where a copy to another array set a CPU's limit that limit is understated by up to "
              "a third (its efficiency overstated)."]
    for n, p in platforms.items():
        probes = {c: e for (k, c), e in p["cases"].items() if k == "copy"}
        if host(p["space"]) and probes:
            best = max(probes, key=lambda c: probes[c]["moved_gbs"])
            lines.append(f"On {n} the probe's best is the {'update in place, which pays no write-allocate' if best == 'in-place' else best + ', counted at three streams'}"
                         + (", so the limits derived from it are not understated by the counting."
                            if best == "in-place" else ": limits derived from a copy are understated."))
    lines.append("")
    return lines


def spread_section(platforms, flagged_above=0.10):
    """The spread of each rated record's timed repeats ((slowest - fastest) / median, pk-bench's
    repeat_spread), the cases above `flagged_above` named: a figure that moves that much between
    repeats is not known to three decimals."""
    lines = ["## Spread of the repeats", "",
             f"A record's figure is the median of its timed repeats; its spread = (slowest - fastest) ÷ median. "
             f"Cases spread by more than {flagged_above:.0%} are named: their efficiency is not known to the "
             "digits shown.", "", "| platform | records with a spread | median spread | largest | above 10 % |",
             "|---|---|---|---|---|"]
    flagged = []
    for n, p in platforms.items():
        spreads = {key: e["spread"] for key, e in p["cases"].items() if e.get("spread") is not None}
        if not spreads:
            lines.append(f"| {n} | 0 of {len(p['cases'])} (recorded by pk-bench from 14221a9 on) | — | — | — |")
            continue
        values = sorted(spreads.values())
        above = sorted((key for key, v in spreads.items() if v > flagged_above), key=lambda key: -spreads[key])
        flagged += [(n, key, spreads[key]) for key in above]
        lines.append(f"| {n} | {len(spreads)} of {len(p['cases'])} | {values[len(values) // 2]:.1%} | "
                     f"{values[-1]:.1%} | {len(above)} |")
    if flagged:
        lines += ["", "Spread above 10 %:", ""] + [f"- {n}: {k} {c}: {v:.1%}" for n, (k, c), v in flagged]
    return lines + [""]


def history_section(history):
    lines = ["## History: machines that can no longer be measured", "",
             "Their records are shown in the per-case tables (`history · figure`), never rated and never in Φ: "
             "the machine is not lent any more, so they cannot be re-taken at one commit with the limits of "
             "today's pk-bench.", "", "| platform | device | kernel | records | commits | dates |", "|---|---|---|---|---|---|"]
    for n, p in history.items():
        by_kernel = collections.defaultdict(list)
        for (k, _), e in p["cases"].items():
            by_kernel[k].append(e)
        for k, entries in sorted(by_kernel.items()):
            commits = ", ".join(sorted({short(e["commit"]) for e in entries}))
            dates = sorted({e["date"][:10] for e in entries if e["date"]})
            span = f"{dates[0]} to {dates[-1]}" if len(dates) > 1 else (dates[0] if dates else "?")
            lines.append(f"| {n} | {p['device']} | {k} | {len(entries)} | {commits} | {span} |")
    return lines + [""]


def markdown(platforms, history, summaries, speedup, charts, skipped, scaling_lines, limits, peers_read):
    names = list(platforms)
    everything = {**platforms, **history}
    lines = ["# Portability report", "",
             "A platform is one execution space in one folder of records; the rated ones:", "",
             "| platform | folder | device | records | commits |", "|---|---|---|---|---|"]
    lines += [f"| {n} | `{p['folder']}` | {p['device']} | {len(p['cases'])} | "
              f"{', '.join(sorted({short(e['commit']) for e in p['cases'].values()}))} |" for n, p in platforms.items()]
    if history:
        lines += ["", f"History, shown and not rated ([below](#history-machines-that-can-no-longer-be-measured)): "
                  f"{', '.join(history)}."]
    lines += ["", "## Architectural efficiency and Φ", "",
              "Efficiency = the case's figure ÷ a limit the hardware sets, measured on the platform in the same run "
              "(never a goal, another machine's time or another kernel's rate), never capped: above 1 only within "
              "the noise of the limit's measurement. A kernel's efficiency on a platform = the harmonic mean over the "
              "cases rated on every platform measured (the same cases everywhere, `cases`); Φ (Pennycook et al.) = "
              "the harmonic mean of those efficiencies over the platforms measured, named in `over` with the one "
              "commit of their records. A platform without a rated record of the kernel is named below with the "
              "reason and is not in Φ: its efficiency is unknown, not 0. Higher = better. Each limit and why: "
              "[How efficiency is derived](#how-efficiency-is-derived).", ""]
    lines += phi_table("architectural", summaries["architectural"], names, architectural_words)
    lines += ["", "## Application efficiency and Φ", "",
              "Efficiency = ours ÷ the best implementation measured on the platform, ours included (so at most 1): "
              "GSL and Boost measured beside K_ν in pk-bench's host runs, and the peers perf/peers/run.py runs "
              "beside ours (FluidX3D and RRZE's lbm-benchmark-kernels for lbm, CuBesselK for K_ν). Where ours is the "
              "only implementation measured there is no application limit: not rated, never 1. Φ as above, over the "
              "platforms measured and the cases rated on all of them. "
              + (f"Peer records read: {', '.join(f'`{f}`' for f in peers_read)}." if peers_read else
                 "No peer records were given (`--peers`): the peers of perf/peers/run.py are not yet measured."), ""]
    lines += phi_table("application", summaries["application"], names, application_words)
    if "phi" in charts:
        lines += ["", f"![efficiency and Φ per kernel, kind and platform]({charts['phi']})"]
    lines += ["", *spread_section(platforms)]
    lines += ["", *copy_section(platforms)]
    if history:
        lines += history_section(history)
    lines += ["## CPU vs GPU speed-up", ""]
    if speedup:
        lines += ["GPU ÷ CPU throughput on the cases both spaces of a folder ran (for a time: CPU time ÷ GPU "
                  "time); higher = GPU faster. A folder of history is marked so.", "",
                  "| folder | kernel | cases | geometric mean (higher = GPU faster) | lowest | highest |",
                  "|---|---|---|---|---|---|"]
        history_names = {p["name"] for p in history.values()}
        lines += [f"| {name}{' (history)' if name.split(':')[0] in history_names else ''} | {k} | {s['cases']} | "
                  f"{s['geometric_mean']:.3g} | {s['lowest']:.3g} | {s['highest']:.3g} |"
                  for name, by_kernel in speedup.items() for k, s in by_kernel.items()]
        lines += ["", f"![CPU vs GPU speed-up]({charts['speedup']})"]
    else:
        lines.append("No folder holds both an openmp and a GPU (cuda or hip) record of the same case.")
    lines += ["", *scaling_lines, "## Efficiency per case", "",
              "Each cell: the architectural efficiency (`not rated`: no limit the hardware sets is recorded for it, "
              "see `rated against`), the application efficiency where another implementation was measured beside "
              "it, then the headline figure. A platform of history shows its figure only.", ""]
    columns = list(everything)
    for k in sorted({k for p in everything.values() for k, _ in p["cases"]}):
        cases = sorted({c for p in everything.values() for kk, c in p["cases"] if kk == k}, key=natural)
        lines += [f"### {k}", "", "| case | headline | rated against | "
                  + " | ".join(f"{n} (history)" if n in history else n for n in columns) + " |",
                  "|---|---|---|" + "---|" * len(columns)]
        for c in cases:
            row = next(p["cases"][(k, c)]["row"] for p in everything.values() if (k, c) in p["cases"])
            cells = [cell(p["cases"].get((k, c)), application(p["comparisons"].get((k, c))), n in history)
                     for n, p in everything.items()]
            lines.append(f"| {c} | {row.headline} ({'higher' if row.higher else 'lower'} = better) | {row.label} | "
                         + " | ".join(cells) + " |")
        if k in charts:
            lines += ["", f"![{k} architectural efficiency per case]({charts[k]})"]
        lines.append("")
    lines += ["## How efficiency is derived", "",
              "The model is perf/efficiency.py's, shared with `./pk run`'s table and charts (perf/plot_results.py).",
              "", "| kernel | cases | headline | better | kind | limit | when not rated |", "|---|---|---|---|---|---|---|"]
    for r in TABLE:
        case = r.case.replace("|", "\\|")  # a bare | would end the table cell
        kind = {"architectural": "architectural", "probe": "the memory limit"}.get(r.kind, "not rated")
        lines.append(f"| {r.kernel} | `{case}` | {r.headline} | {'higher' if r.higher else 'lower'} | {kind} | "
                     f"{r.limit or r.label} | {r.why} |")
    lines += ["", "Kernels that move memory (lbm, rfilter) are rated against a copy at the case's footprint: a "
              "record's `footprint_bytes` are the bytes its data span, and pk-bench measured, beside the case, a copy "
              "of two arrays spanning as many (the faster of it and the run's 2 GiB probe), each the best of a copy to "
              "another array, `deep_copy` and an update in place over 16 streams; so a case held in a cache meets a "
              "copy held there too. K_ν's architectural limit is the FP64 roof, the FP64 rate measured beside it "
              "(`fp64_peak_gflops`, an FMA counting 2) ÷ the FP64 operations one evaluation counts "
              "(`fp64_ops_per_eval`); where a record lacks the count it is not rated (its "
              "`fp64_ops_per_eval_at_peak` is the rate ÷ our own speed, not a count). GBEES's copy roofline "
              "(`roofline_fraction`) is not a limit its cases can reach: at their cell counts its kernels' grids fill a "
              "fraction of a GPU's wave (what limits them: below); it is rated by application efficiency only, "
              "once its peers (gbees-cuda, bhanson10/gbees) are measured."]
    lines += limits_section(list(summaries["architectural"]),  # over all the cases rated on the platform
                            {k: {n: a["efficiency"] for n, a in s["all_cases"].items()}
                             for k, s in summaries["architectural"].items()}, limits, list(platforms))
    if skipped:
        lines += ["", "## Records left out", ""] + [f"- `{path}`: {why}" for path, why in skipped]
    return "\n".join(lines) + "\n"


def readme(argv, summaries, names, history, peers_read):
    """The README of the report's folder, generated: what is here, from what, and both Φ tables."""
    lines = ["# The portability report", "",
             "Generated by `./pk report` (perf/report.py) from the records; nothing here is kept by hand. "
             "Regenerate it after changing any of its inputs:", "",
             "    perf/report.py " + " ".join(argv), "",
             "`report.md` (with `report.json` and the charts): architectural and application efficiency per case and "
             "platform, Φ of each, the copy probe, the GPU-vs-CPU speed-up and CPU thread scaling. The commits behind "
             "each folder's records are listed in that folder's README and, per platform, in the tables below.", ""]
    if history:
        lines += [f"History, shown in report.md and never rated: {', '.join(history)} (a machine that can no longer "
                  "be measured).", ""]
    if not peers_read:
        lines += ["No peer records yet (perf/peers/run.py writes them to `perf/results/<platform>/peers/`): the "
                  "application table has GSL and Boost beside K_ν on host cores only.", ""]
    lines += ["## Architectural Φ", ""] + phi_table("architectural", summaries["architectural"], names,
                                                    architectural_words)
    lines += ["", "## Application Φ", ""] + phi_table("application", summaries["application"], names,
                                                      application_words)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", metavar="[NAME=]FOLDER", help="a folder of one platform's records")
    parser.add_argument("--platforms", help="comma-separated NAME or NAME:SPACE to report on (default: all)")
    parser.add_argument("--history", default="", help="comma-separated folder NAMEs whose records are history: "
                        "shown, never rated (a machine that can no longer be measured)")
    parser.add_argument("--peers", action="append", default=[], metavar="NAME=DIR",
                        help="perf/peers/run.py's records for the platforms of folder NAME")
    parser.add_argument("--threads", metavar="DIR", help="CPU strong scaling from DIR/threads-<N>/ (one OpenMP run "
                        "of the same problems at N threads, as perf/device/threads.sh writes)")
    parser.add_argument("--limits", nargs="*", default=[], metavar="FILE",
                        help="what limits the kernels, per platform (perf/limits.py's JSON files)")
    parser.add_argument("--out", required=True, help="folder for report.md, report.json, README.md and the PNGs")
    argv = sys.argv[1:]
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
    peers_read = []
    for argument in args.peers:
        name, _, folder = argument.partition("=")
        if not folder or name not in folders:
            fail(f"--peers {argument}: give NAME=DIR with NAME one of the folders ({', '.join(folders)})")
        read_peers(name, folder, platforms, skipped)
        peers_read.append(folder)
    if args.platforms:
        wanted = [w.strip() for w in args.platforms.split(",") if w.strip()]
        for w in (w for w in wanted if not any(w in (n, p["name"]) for n, p in platforms.items())):
            fail(f"--platforms: no platform '{w}' (have: {', '.join(platforms)})")
        platforms = {n: p for n, p in platforms.items() if n in wanted or p["name"] in wanted}
    past = [h.strip() for h in args.history.split(",") if h.strip()]
    for h in (h for h in past if h not in folders):
        fail(f"--history: no folder named '{h}' (have: {', '.join(folders)})")
    history = {n: p for n, p in platforms.items() if p["name"] in past}
    platforms = {n: p for n, p in platforms.items() if p["name"] not in past}
    if not platforms:
        fail("no platform left to rate: every folder given is history")
    names = list(platforms)
    rated = rate(platforms)
    kernels = sorted({k for by_kind in rated.values() for k in by_kind})
    summaries = {kind: {k: summarize(k, rated[kind].get(k, {}), names) for k in kernels} for kind in KINDS}
    speedup = speedups({**platforms, **history})
    runs = read_threads(args.threads, skipped) if args.threads else None
    scaling = strong_scaling(runs) if runs else None
    out = pathlib.Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        charts = {k: chart_efficiency(k, platforms, out) for k in kernels
                  if any(e["architectural"] is not None for p in platforms.values()
                         for (kk, _), e in p["cases"].items() if kk == k)}
        if kernels:
            charts["phi"] = chart_phi(summaries, names, out)
        if speedup:
            charts["speedup"] = chart_speedup(speedup, out)
        scaling_lines = []
        if scaling:
            thread_charts = {k: chart_threads(k, scaling, out) for k in scaling["kernels"]}
            charts.update({f"threads-{k}": v for k, v in thread_charts.items()})
            scaling_lines = scaling_section(scaling, runs, args.threads, thread_charts)
        # Charts of an earlier run that this one did not draw (a kernel no longer rated) would mislead.
        for stale in [*out.glob("efficiency-*.png"), *out.glob("threads-*.png")]:
            if stale.name not in charts.values():
                stale.unlink()
        report = markdown(platforms, history, summaries, speedup, charts, skipped, scaling_lines, limits, peers_read)
        save(out / "report.md", lambda t: t.write_text(report))
        save(out / "README.md", lambda t: t.write_text(readme(argv, summaries, names, history, peers_read)))
        numbers = {"platforms": names, "history": list(history), "architectural": summaries["architectural"],
                   "application": summaries["application"], "speedup": speedup,
                   "copy_probe": {n: {c: {"counted_gbs": e["value"], "moved_gbs": e["moved_gbs"]}
                                      for (k, c), e in p["cases"].items() if k == "copy"}
                                  for n, p in platforms.items()}}
        if scaling:
            numbers["threads"] = {"folder": args.threads, **scaling}
        save(out / "report.json", lambda t: t.write_text(json.dumps(numbers, indent=1) + "\n"))
    except OSError as e:
        fail(f"{e.filename or out}: cannot write ({e.strerror})")
    for kind in KINDS:
        for k, s in summaries[kind].items():
            if s["phi"] is not None:
                print(f"{kind} Φ {k:8} = {s['phi']:.3f} over {', '.join(s['over'])} ({len(s['cases'])} case{'s' if len(s['cases']) > 1 else ''})"
                      + (f"; not in it: {', '.join(s['not_measured'])}" if s["not_measured"] else ""))
            else:
                print(f"{kind} Φ {k:8}: not stated (no platform rated)" if not s["efficiency"] else
                      f"{kind} Φ {k:8}: not stated (no case rated on every platform measured)")
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
