"""The portability report's numbers: pk-bench records read into platforms (one execution space in
one folder), rated by efficiency.py, summarized as Φ per kernel and kind, the CPU-vs-GPU speed-up
and CPU strong scaling. What the report is and how it is called: report.py."""
import collections
import math
import pathlib
import re

from . import records
from .efficiency import COMPARISONS, PEER_CASES, TABLE, application, architectural, library_comparisons, moved_gbs, number, \
    peers_of, row_of, too_few_repeats
from .records import Error

KINDS = ("architectural", "application")


def short(commit):
    return str(commit or "?")[:7]


def natural(text):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def threads(n):
    return f"{n} thread{'s' if n > 1 else ''}"


def harmonic_mean(values):
    values = list(values)
    return len(values) / sum(1 / v for v in values)


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


# The metrics that set a case's problem (its end time, its size, its iterations): a CPU and a
# GPU record of one case whose values differ solved different problems (pk-bench shortens
# GBEES' Lorenz '96 on a CPU), and their speed-up would compare them.
PROBLEM = ("end_time", "n", "k", "cells", "points")


def read_folder(name, folder, skipped):
    """{NAME:SPACE: {"device", "cases": {(kernel, case): entry}}} from one folder's *.json."""
    folder, platforms = pathlib.Path(folder), {}
    for path, record in records.objects(folder):
        if "kernel" not in record:
            continue  # another tool's JSON (a sanitizer log, a report's own numbers)
        records.require(path, record, ("case", "space", "metrics"))
        if not isinstance(record["metrics"], dict):
            raise Error(f"{path}: a record without a metrics object")
        key, space, metrics = (record["kernel"], record["case"]), record["space"], record["metrics"]
        row = row_of(*key)
        if row is None:
            skipped.append((path, "no entry in the efficiency table (not a pk-bench figure)"))
            continue
        few = too_few_repeats(metrics)
        if few:
            skipped.append((path, few + ": re-take it"))
            continue
        figure = records.figure(record)
        value = number(metrics, figure)
        if value is None and number(metrics, "limit_ratio") == 0:  # pk-bench's mark of a case that did not run
            skipped.append((path, "the record says the case did not run (too large, or stopped)"))
            continue
        if value is None:
            raise Error(f"{path}: no number for '{figure}' ({key[0]} {key[1]})")
        efficiency, why = architectural(row, space, metrics)
        platform = platforms.setdefault(f"{name}:{space}", {"folder": str(folder), "name": name, "space": space,
                                                           "device": record.get("device", "?"), "cases": {}})
        if key in platform["cases"]:
            raise Error(f"{path}: a second record of {key[0]} {key[1]} on {space} in {folder}")
        platform["cases"][key] = {"row": row, "figure": figure, "higher": records.higher_is_better(record),
                                  "value": value, "commit": record.get("commit"),
                                  "date": str(record.get("date") or ""),
                                  "architectural": efficiency, "why": why,
                                  "moved_gbs": moved_gbs(key[1], space, metrics) if row.kind == "probe" else None,
                                  "fp64_peak_gflops": number(metrics, "fp64_peak_gflops"),
                                  "spread": number(metrics, "repeat_spread"),
                                  "stolen": number(metrics, "host_stolen_share"),
                                  "runs": runs_of(record),
                                  "problem": {m: metrics[m] for m in PROBLEM if m in metrics}}
    if not platforms:
        raise Error(f"{folder}: no pk-bench result records (*.json with kernel, case, space, metrics) to report")
    for platform in platforms.values():
        platform["comparisons"] = library_comparisons(platform["cases"])
    return dict(sorted(platforms.items(), key=lambda item: (item[1]["space"] != "openmp", item[0])))  # CPU first


def runs_of(record):
    """(count, spread) of the runs perf/merge_runs.py merged into RECORD, or None for one run's record."""
    runs = record.get("runs")
    if not isinstance(runs, dict) or type(runs.get("count")) is not int:
        return None
    return runs["count"], number(runs, "spread")


def read_peers(name, folder, platforms, skipped):
    """Adds perf/peers/run.py's records in FOLDER (ours and a peer, side by side) to the
    comparisons of the platforms of folder NAME."""
    for path, record in records.objects(folder, option="--peers "):
        if "comparison" not in record:
            continue  # pk-bench's own records of the runs, the table's JSON
        if record["comparison"] not in COMPARISONS:
            skipped.append((path, f"a comparison this report does not know ('{record['comparison']}')"))
            continue
        try:
            kernel, peer = COMPARISONS[record["comparison"]]
            configuration = (record.get("problem") or {}).get("peer_configuration")
            peer = f"{peer} ({configuration})" if configuration else peer  # another setting, another code
            space, case = record["space"], record["ours"]["pk_bench_case"]
            ours, theirs = record["ours"]["stats"], record["peer"]["stats"]
            commit = record["ours"].get("commit")
        except (KeyError, TypeError) as e:
            raise Error(f"{path}: not a perf/peers/run.py record ({e})") from None
        case = PEER_CASES.get((record["comparison"], case), case)
        if case is None:
            skipped.append((path, "ours on one thread beside a serial peer: in the peers table, not rated"))
            continue
        if not ours or not theirs or not ours.get("median") or not theirs.get("median"):
            skipped.append((path, f"{peer} or ours did not run: {'; '.join(record.get('errors') or []) or 'no figure'}"))
            continue
        platform = platforms.get(f"{name}:{space}")
        if platform is None:
            skipped.append((path, f"no pk-bench records of {name}:{space} to set it beside"))
            continue
        rate = (lambda v: v) if records.higher_is_better(record) else (lambda v: 1 / v)  # compared as rates
        platform["comparisons"].setdefault((kernel, case), []).append(
            {"peer": peer, "peer_figure": rate(theirs["median"]), "ours": rate(ours["median"]), "commit": commit,
             "source": f"perf/peers/run.py, {record.get('unit', '')} medians, interleaved", "record": path.as_posix(),
             "date": record.get("date", "")})


def latest_peer_runs(platforms, skipped):
    """Keeps, of each platform's runs of one peer on one case, the latest (by its record's date):
    a later run measured the code as it is now; the earlier ones are listed as superseded."""
    for platform in platforms.values():
        for key, found in platform["comparisons"].items():
            latest = {}
            for c in found:
                if c["peer"] not in latest or c.get("date", "") > latest[c["peer"]].get("date", ""):
                    latest[c["peer"]] = c
            for c in found:
                if c is not latest[c["peer"]]:
                    skipped.append((pathlib.Path(c["record"]), f"superseded by a later run, {latest[c['peer']]['record']}"))
            platform["comparisons"][key] = [c for c in found if c is latest[c["peer"]]]


def peer_wins(platforms):
    """[(platform, kernel, case, application)] of the cases where an implementation measured beside
    ours is faster: the next work."""
    return [(n, k, c, found) for n, p in platforms.items() for (k, c), comparisons in sorted(p["comparisons"].items())
            if (found := application(comparisons)) and found["ratio"] < 1]


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


def read_threads(folder, skipped):
    """{N: platform} from FOLDER/threads-<N>/, one OpenMP run per thread count N, lowest N first."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise Error(f"--threads {folder}: not a folder")
    runs = {}
    for sub in folder.iterdir():
        match = re.fullmatch(r"threads-([1-9][0-9]*)", sub.name)
        if match and sub.is_dir():
            platform = read_folder(sub.name, sub, skipped).get(f"{sub.name}:openmp")
            if platform is None:
                raise Error(f"{sub}: no OpenMP records (thread counts are OpenMP's)")
            # A zero figure has no ratio: the case counts as missing at that thread count.
            platform["cases"] = {key: e for key, e in platform["cases"].items() if e["value"] > 0}
            runs[int(match[1])] = platform
    if len(runs) < 2:
        raise Error(f"--threads {folder}: {'one threads-<N> subfolder' if runs else 'no threads-<N> subfolders'}; "
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
                s = e["value"] / base["value"] if base["higher"] else base["value"] / e["value"]
                points[n] = {"speedup": s, "efficiency": s / (n / low)}
        if points:
            kernels[kernel][case] = {"headline": base["figure"], "higher": base["higher"],
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
    """({name: {kernel: summary}}, left out) of GPU ÷ CPU throughput over the cases both spaces of a
    folder ran on the same problem (PROBLEM; left out: [(name, kernel, case, {metric: (CPU, GPU)})]);
    speed-ups are ratios, so their mean is geometric. The CPU is the folder's openmp space, the GPU
    its other one (cuda or hip: a build holds one GPU backend); with two, each is NAME:SPACE.
    Beside each speed-up, the ratio of the two spaces' measured limits for the case (GPU ÷ CPU):
    where both are rated, speed-up × CPU efficiency ÷ GPU efficiency (the copy at the case's
    footprint, the FP64 roof); for the copy probe, the ratio of the two probes' limits. A speed-up
    more than ABOVE_LIMITS times that ratio is listed, with its measured cause: the two efficiencies."""
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    left_out = []
    for p in platforms.values():
        gpus = [g for g in platforms.values() if g["name"] == p["name"] and g["space"] != "openmp"]
        for gpu in gpus if p["space"] == "openmp" else ():
            name = p["name"] if len(gpus) == 1 else f"{p['name']}:{gpu['space']}"
            # Sorted: a set's order changes between runs, and with it the mean's last digits.
            for key in sorted(p["cases"].keys() & gpu["cases"].keys()):
                cpu, on_gpu = p["cases"][key], gpu["cases"][key]
                a, b = cpu["problem"], on_gpu["problem"]
                differs = {m: (a[m], b[m]) for m in PROBLEM if m in a and m in b and a[m] != b[m]}
                if differs:
                    left_out.append((name, key[0], key[1], differs))
                elif min(cpu["value"], on_gpu["value"]) > 0:
                    speedup = on_gpu["value"] / cpu["value"] if cpu["higher"] else cpu["value"] / on_gpu["value"]
                    ratios[name][key[0]].append((key[1], speedup, limits_ratio(p, gpu, key, speedup)))
    return ({name: {k: speedup_summary(v) for k, v in sorted(by.items())} for name, by in sorted(ratios.items())},
            left_out)


ABOVE_LIMITS = 1.1  # a speed-up above the limits' ratio by more than the spread a record may have


def probe_limit(platform):
    """The copy probe's limit on PLATFORM: the best of its copies at the bytes each moves; None without one."""
    moved = [e["moved_gbs"] for e in platform["cases"].values() if e["moved_gbs"]]
    return max(moved) if moved else None


def limits_ratio(cpu, gpu, key, speedup):
    """GPU ÷ CPU of the limits the case is rated against, and the two efficiencies; None without both."""
    a, b = cpu["cases"][key]["architectural"], gpu["cases"][key]["architectural"]
    if a and b:
        return {"ratio": speedup * a / b, "cpu_efficiency": a, "gpu_efficiency": b}
    if cpu["cases"][key]["row"].kind == "probe":
        on_cpu, on_gpu = probe_limit(cpu), probe_limit(gpu)
        if on_cpu and on_gpu:
            return {"ratio": on_gpu / on_cpu, "cpu_efficiency": None, "gpu_efficiency": None}
    return None


def speedup_summary(cases):
    values = [s for _, s, _ in cases]
    limited = [(c, s, lim) for c, s, lim in cases if lim]
    return {"cases": len(values), "geometric_mean": geometric_mean(values), "lowest": min(values),
            "highest": max(values),
            "limits_ratio": geometric_mean([lim["ratio"] for _, _, lim in limited]) if limited else None,
            "cases_with_limits": len(limited),
            "above_limits": [{"case": c, "speedup": s, **lim} for c, s, lim in limited
                             if s > ABOVE_LIMITS * lim["ratio"]]}


def read_limits(paths):
    """perf/limits.py's findings, by platform."""
    limits = {}
    for path in paths:
        found = records.read(path)
        try:
            limits[found["platform"]] = found
            if not all(isinstance(f.get(key), str) for items in found["kernels"].values() for f in items
                       for key in ("case", "launch", "limit")):
                raise ValueError("a finding without its case, launch or limit")
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise Error(f"{path}: not a perf/limits.py file ({e})") from None
    return limits
