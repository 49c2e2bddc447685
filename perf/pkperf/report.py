"""Portability report from pk-bench records: per kernel, architectural and application efficiency on
every platform and Pennycook's Φ of each, the copy probe (the memory limit), the CPU-vs-GPU speed-up
and CPU strong scaling; and the README of the folder it writes.

    perf/report.py [NAME=]FOLDER... [--platforms P,...] [--history NAME,...] [--peers NAME=DIR...]
                   [--threads DIR] [--limits FILE...] --out DIR

A platform is one execution space in one folder of records, NAME:SPACE (h200:cuda, h200:openmp,
mi250x:hip): `pk-bench --space all` puts a CPU's and a GPU's records in one folder, and an efficiency
belongs to one piece of hardware. NAME is the folder's name unless given. --platforms keeps only those
named, as NAME (all its spaces) or NAME:SPACE (default: all). --history NAME: that folder's records
predate today's pk-bench and were not re-taken: shown as history, never rated. --peers NAME=DIR: the
records perf/peers/run.py wrote for the platforms of folder NAME (ours and a peer measured side by
side), the application limits. Efficiency and its limits: perf/pkperf/efficiency.py.

Φ of a kernel = the harmonic mean of its efficiency over the platforms measured, each efficiency the
harmonic mean over the cases rated on every one of them (the same cases everywhere); a platform
without a rated record is named as not measured, never counted as 0; a platform's records of the
kernel must be of one commit. Writes DIR/report.md, report.json (full precision), README.md,
phi.png, efficiency-<kernel>.png and speedup.png; with --threads DIR (DIR/threads-<N>/: one OpenMP
run of the same problems at N threads, perf/device/threads.sh) CPU strong scaling and
threads-<kernel>.png. Bad input: one line on stderr, status 2.
"""
import json
import pathlib
import sys

from . import charts, cli
from .files import save
from .portability import KINDS, latest_peer_runs, rate, read_folder, read_limits, read_peers, read_threads, speedups, \
    strong_scaling, summarize
from .portability_charts import chart_efficiency, chart_phi, chart_speedup, chart_threads
from .portability_text import markdown, readme, scaling_section
from .records import Error


def main():
    cli.main("report", run)


def run():
    parser = cli.parser(__doc__)
    parser.add_argument("folders", nargs="+", metavar="[NAME=]FOLDER", help="a folder of one platform's records")
    parser.add_argument("--platforms", help="comma-separated NAME or NAME:SPACE to report on (default: all)")
    parser.add_argument("--history", default="", help="comma-separated folder NAMEs whose records are history: "
                        "shown, never rated (records that predate today's pk-bench, not re-taken since)")
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
    charts.require()
    platforms, skipped, folders = {}, [], {}
    for argument in args.folders:
        name, folder = cli.named(argument)
        name = name or pathlib.Path(folder).resolve().name
        if name in folders:
            raise Error(f"two folders named '{name}' ({folders[name]}, {folder}): name one NAME=FOLDER")
        folders[name] = folder
        platforms.update(read_folder(name, folder, skipped))
    peers_read = []
    for argument in args.peers:
        name, _, folder = argument.partition("=")
        if not folder or name not in folders:
            raise Error(f"--peers {argument}: give NAME=DIR with NAME one of the folders ({', '.join(folders)})")
        read_peers(name, folder, platforms, skipped)
        peers_read.append(folder)
    latest_peer_runs(platforms, skipped)
    if args.platforms:
        wanted = cli.names(args.platforms)
        for w in (w for w in wanted if not any(w in (n, p["name"]) for n, p in platforms.items())):
            raise Error(f"--platforms: no platform '{w}' (have: {', '.join(platforms)})")
        platforms = {n: p for n, p in platforms.items() if n in wanted or p["name"] in wanted}
    past = cli.names(args.history)
    for h in (h for h in past if h not in folders):
        raise Error(f"--history: no folder named '{h}' (have: {', '.join(folders)})")
    history = {n: p for n, p in platforms.items() if p["name"] in past}
    platforms = {n: p for n, p in platforms.items() if p["name"] not in past}
    if not platforms:
        raise Error("no platform left to rate: every folder given is history")
    names = list(platforms)
    rated = rate(platforms)
    kernels = sorted({k for by_kind in rated.values() for k in by_kind})
    summaries = {kind: {k: summarize(k, rated[kind].get(k, {}), names) for k in kernels} for kind in KINDS}
    speedup, different_problems = speedups({**platforms, **history})
    runs = read_threads(args.threads, skipped) if args.threads else None
    scaling = strong_scaling(runs) if runs else None
    out = pathlib.Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        pngs = {k: chart_efficiency(k, platforms, out) for k in kernels
                  if any(e["architectural"] is not None for p in platforms.values()
                         for (kk, _), e in p["cases"].items() if kk == k)}
        if kernels:
            pngs["phi"] = chart_phi(summaries, names, out)
        if speedup:
            pngs["speedup"] = chart_speedup(speedup, out)
        scaling_lines = []
        if scaling:
            thread_charts = {k: chart_threads(k, scaling, out) for k in scaling["kernels"]}
            pngs.update({f"threads-{k}": v for k, v in thread_charts.items()})
            scaling_lines = scaling_section(scaling, runs, args.threads, thread_charts)
        # Charts of an earlier run that this one did not draw (a kernel no longer rated) would mislead.
        for stale in [*out.glob("efficiency-*.png"), *out.glob("threads-*.png")]:
            if stale.name not in pngs.values():
                stale.unlink()
        report = markdown(platforms, history, summaries, speedup, different_problems, pngs, skipped, scaling_lines,
                          limits, peers_read)
        save(out / "report.md", lambda t: t.write_text(report))
        save(out / "README.md", lambda t: t.write_text(readme(argv, summaries, names, history, peers_read)))
        numbers = {"platforms": names, "history": list(history), "architectural": summaries["architectural"],
                   "application": summaries["application"], "speedup": speedup,
                   "speedup_left_out": [{"folder": n, "kernel": k, "case": c, "differs": d}
                                        for n, k, c, d in different_problems],
                   "copy_probe": {n: {c: {"counted_gbs": e["value"], "moved_gbs": e["moved_gbs"]}
                                      for (k, c), e in p["cases"].items() if k == "copy"}
                                  for n, p in platforms.items()}}
        if scaling:
            numbers["threads"] = {"folder": args.threads, **scaling}
        save(out / "report.json", lambda t: t.write_text(json.dumps(numbers, indent=1) + "\n"))
    except OSError as e:
        raise Error(f"{e.filename or out}: cannot write ({e.strerror})")
    for kind in KINDS:
        for k, s in summaries[kind].items():
            if s["phi"] is not None:
                print(f"{kind} Φ {k:8} = {s['phi']:.3f} over {', '.join(s['over'])} "
                      f"({len(s['cases'])} case{'s' if len(s['cases']) > 1 else ''})"
                      + (f"; not in it: {', '.join(s['not_measured'])}" if s["not_measured"] else ""))
            else:
                print(f"{kind} Φ {k:8}: not stated (no platform rated)" if not s["efficiency"] else
                      f"{kind} Φ {k:8}: not stated (no case rated on every platform measured)")
    for name, by_kernel in speedup.items():
        for k, s in by_kernel.items():
            beside = (f"; limits' ratio {s['limits_ratio']:.3g}, {len(s['above_limits'])} of "
                      f"{s['cases_with_limits']} cases above it" if s["limits_ratio"] else "")
            print(f"GPU ÷ CPU throughput on {name}, {k:8} = {s['geometric_mean']:.3g} (geometric mean of "
                  f"{s['cases']} cases; higher = GPU faster{beside})")
    for k, by_kernel in scaling["kernels"].items() if scaling else ():
        n, mean = max(by_kernel["geometric_mean"].items())
        print(f"CPU strong scaling, {k:8}: speed-up {mean['speedup']:.3g} at {n} threads over {min(runs)} "
              f"(efficiency {mean['efficiency']:.2f}; geometric mean of {mean['cases']} cases; higher = better)")
    if skipped:
        print(f"left out {len(skipped)} records with no efficiency (listed in report.md)")
    print(f"wrote {out / 'report.md'}")
