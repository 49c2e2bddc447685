"""The portability report's Markdown: report.md, section by section, and the README of its folder."""
import collections
import re

from . import records
from .efficiency import PEERS, TABLE, application, host
from .portability import ABOVE_LIMITS, natural, peer_wins, probe_limit, short, threads


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
            device = f" on {found['device']}" if found.get("device") else ""
            lines.append(f"{head}, {found['method']}, {found.get('commit') or 'commit not given'}{device}:")
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
    lines = ["| kernel | rated against | " + " | ".join(f"{n} (higher = better)" for n in names)
             + " | Φ (higher = better) | over (commit) | cases |", "|---|---|" + "---|" * (len(names) + 3)]
    notes, partial, mixed = [], [], []
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
        commits = sorted({s["commits"][n] for n in s["over"]})
        if len(commits) > 1:
            mixed.append(f"- {k}: {over}: Φ sets {len(commits)} commits' code side by side; "
                         "re-take its platforms' records at one")
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
    if mixed:
        lines += ["", "Φ over records of more than one commit:", "", *mixed]
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
        best = probe_limit(p)
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


STOLEN_NAMED = 0.02  # the share of a machine's CPU time other guests took above which a record is named


def spread_section(platforms, flagged_above=0.10):
    """The spread of each rated record's timed repeats ((slowest - fastest) / median, pk-bench's
    repeat_spread) and, where perf/merge_runs.py merged several runs into it, of its figure from
    one run to the next; the cases above `flagged_above` named: a figure that moves that much is
    not known to three decimals. Records taken while other guests of a virtual machine had its
    CPUs are named too."""
    lines = ["## Spread of the repeats and of the runs", "",
             "A record's figure is the median of its timed repeats; their spread = (slowest - fastest) ÷ median. "
             "Where a platform's bench ran several times at one commit (`perf/merge_runs.py`), a case's record is "
             "its median run's, whose limit was measured in that run, and the spread across runs = (slowest - "
             f"fastest run) ÷ median run. Cases spread by more than {flagged_above:.0%} are named: their "
             "efficiency is not known to the digits shown.", "",
             "| platform | records with a spread | median spread | largest | above 10 % "
             "| runs merged | median spread across runs | largest | above 10 % |", "|---|---|---|---|---|---|---|---|---|"]
    flagged = []

    def cells(n, what, spreads):
        """The median, largest and count above `flagged_above` of SPREADS, those above flagged."""
        if not spreads:
            return ["—"] * 3
        values = sorted(spreads.values())
        above = sorted((key for key, v in spreads.items() if v > flagged_above), key=lambda key: -spreads[key])
        flagged.extend((what, n, key, spreads[key]) for key in above)
        return [f"{values[len(values) // 2]:.1%}", f"{values[-1]:.1%}", str(len(above))]

    for n, p in platforms.items():
        repeats = {key: e["spread"] for key, e in p["cases"].items() if e.get("spread") is not None}
        runs = {key: e["runs"][1] for key, e in p["cases"].items() if e.get("runs") and e["runs"][1] is not None}
        counts = sorted({e["runs"][0] for e in p["cases"].values() if e.get("runs")})
        merged = "one run" if not counts else str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        recorded = f"{len(repeats)} of {len(p['cases'])}" + ("" if repeats else " (recorded by pk-bench from 14221a9 on)")
        row = [n, recorded, *cells(n, "repeats", repeats), merged, *cells(n, "runs", runs)]
        lines.append(f"| {' | '.join(row)} |")
    for what in ("repeats", "runs"):
        named = [f"- {n}: {k} {c}: {v:.1%}" for w, n, (k, c), v in flagged if w == what]
        if named:
            lines += ["", f"Spread of the {what} above {flagged_above:.0%}:", "", *named]
    stolen = [f"- {n}: {k} {c}: {e['stolen']:.1%}" for n, p in platforms.items()
              for (k, c), e in sorted(p["cases"].items()) if (e.get("stolen") or 0) > STOLEN_NAMED]
    if stolen:
        lines += ["", f"Taken while other guests of the virtual machine had more than {STOLEN_NAMED:.0%} of its CPUs' "
                  "time (pk-bench's `host_stolen_share`, over the kernel's cases): these figures may be the "
                  "neighbours', not the code's:", "", *stolen]
    return lines + [""]


def history_section(history):
    lines = ["## History: records not re-taken with today's pk-bench", "",
             "Their records are shown in the per-case tables (`history · figure`), never rated and never in Φ: "
             "they predate the limits today's pk-bench measures, and the machine has not been lent long enough "
             "since to re-take them at one commit.", "", "| platform | device | kernel | records | commits | dates |", "|---|---|---|---|---|---|"]
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


def markdown(platforms, history, summaries, speedup, different_problems, charts, skipped, scaling_lines, limits,
             peers_read):
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
    wins = peer_wins(platforms)
    if wins:
        lines += ["", "Where an implementation measured beside ours is faster, the next work (each case: how much "
                  "faster, ours' application efficiency, and the record that measured both; what differs between the "
                  "two runs and what is known of the cause are in that record and its folder's README):", ""]
        lines += [f"- {n} {k} `{c}`: {f['best']} {1 / f['ratio']:.3g}x ours ({f['ratio']:.3f}), "
                  + (f"`{f['against']['record']}`" if f["against"].get("record") else
                     f"pk-bench's {f['best']} record beside ours in `{platforms[n]['folder']}`, the same run")
                  for n, k, c, f in wins]
    if "phi" in charts:
        lines += ["", f"![efficiency and Φ per kernel, kind and platform]({charts['phi']})"]
    lines += ["", *spread_section(platforms)]
    lines += ["", *copy_section(platforms)]
    if history:
        lines += history_section(history)
    lines += ["## CPU vs GPU speed-up", ""]
    if speedup:
        lines += ["GPU ÷ CPU throughput on the cases both spaces of a folder ran on the same problem (for a "
                  "time: CPU time ÷ GPU time); higher = GPU faster. A folder of history is marked so. Beside it, "
                  "the ratio of the two spaces' limits for the same cases, GPU ÷ CPU (geometric mean over the "
                  "cases rated on both: the copy at the case's footprint for lbm and rfilter, the FP64 roof for "
                  "besselk, the copy probe for copy, whose speed-up compares counted bytes, which leave out the "
                  "write-allocate a CPU pays: see the copy probe; gbees and the 1-D filter have none): a speed-up "
                  "above it means the CPU runs further from its limit than the GPU. Cases above it by more than "
                  f"{(ABOVE_LIMITS - 1) * 100:.0f} % are listed below the table with that measured cause.", "",
                  "| folder | kernel | cases | geometric mean (higher = GPU faster) | lowest | highest | "
                  "limits' ratio (cases) | above it |",
                  "|---|---|---|---|---|---|---|---|"]
        history_names = {p["name"] for p in history.values()}

        def folder(name):
            return f"{name}{' (history)' if name.split(':')[0] in history_names else ''}"

        lines += [f"| {folder(name)} | {k} | {s['cases']} | {s['geometric_mean']:.3g} | {s['lowest']:.3g} | "
                  f"{s['highest']:.3g} | "
                  + (f"{s['limits_ratio']:.3g} ({s['cases_with_limits']})" if s["limits_ratio"] else "none measured")
                  + f" | {len(s['above_limits'])} |"
                  for name, by_kernel in speedup.items() for k, s in by_kernel.items()]
        above = [(name, k, s["above_limits"]) for name, by_kernel in speedup.items() for k, s in by_kernel.items()
                 if s["above_limits"]]
        if above:
            lines += ["", "Speed-ups above the limits' ratio (case: speed-up vs the ratio; the cause, each side's "
                      "efficiency against its own limit):", ""]
            lines += [f"- {folder(name)} {k}: " + "; ".join(
                f"{a['case']} {a['speedup']:.3g} vs {a['ratio']:.3g}"
                + (f" (CPU {a['cpu_efficiency']:.2f}, GPU {a['gpu_efficiency']:.2f})" if a["cpu_efficiency"] else "")
                for a in cases) for name, k, cases in above]
        if different_problems:
            lines += ["", "Left out, the two spaces' records of the case solved different problems (the metric: "
                      "CPU, GPU):", ""]
            lines += [f"- {folder(name)} {k} `{case}`: "
                      + ", ".join(f"{m} {cpu:g}, {gpu:g}" for m, (cpu, gpu) in differs.items())
                      for name, k, case, differs in different_problems]
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
            first = next(p["cases"][(k, c)] for p in everything.values() if (k, c) in p["cases"])
            cells = [cell(p["cases"].get((k, c)), application(p["comparisons"].get((k, c))), n in history)
                     for n, p in everything.items()]
            lines.append(f"| {c} | {first['figure']} ({'higher' if first['higher'] else 'lower'} = better) | "
                         f"{first['row'].label} | " + " | ".join(cells) + " |")
        if k in charts:
            lines += ["", f"![{k} architectural efficiency per case]({charts[k]})"]
        lines.append("")
    lines += ["## How efficiency is derived", "",
              "The model is perf/pkperf/efficiency.py's, shared with `./pk run`'s table and charts (perf/plot_results.py).",
              "", "| kernel | cases | headline | better | kind | limit | when not rated |", "|---|---|---|---|---|---|---|"]
    for r in TABLE:
        case = r.case.replace("|", "\\|")  # a bare | would end the table cell
        kind = {"architectural": "architectural", "probe": "the memory limit"}.get(r.kind, "not rated")
        better = "higher" if records.named_higher_is_better(r.headline) else "lower"
        lines.append(f"| {r.kernel} | `{case}` | {r.headline} | {better} | {kind} | "
                     f"{r.limit or r.label} | {r.why} |")
    lines += ["", "Kernels that move memory (lbm, rfilter) are rated against a copy at the case's footprint: a "
              "record's `footprint_bytes` are the bytes its data span, and pk-bench measured, beside the case, a copy "
              "of two arrays spanning as many (the faster of it and the run's 2 GiB probe), each the best of a copy to "
              "another array, `deep_copy` and an update in place over 16 streams; so a case held in a cache meets a "
              "copy held there too. K_ν's architectural limit is the FP64 roof, the FP64 rate measured beside it "
              "(`fp64_peak_gflops`, an FMA counting 2) ÷ the FP64 operations one evaluation counts "
              "(`fp64_ops_per_eval`: the DADD, DMUL and 2 × DFMA that Nsight Compute counted in one launch of the "
              "GPU build's evaluate kernel, over the points it evaluated, perf/besselk_ops.py; a CPU record takes the "
              "GPU build's count of the same source, as neither CPU gives hardware counters); where a record lacks "
              "the count it is not rated (its "
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
        lines += [f"History, shown in report.md and never rated: {', '.join(history)} (records that "
                  "predate today's pk-bench, not re-taken since).", ""]
    if not peers_read:
        lines += ["No peer records yet (perf/peers/run.py writes them to `perf/results/<platform>/peers/`): the "
                  "application table has GSL and Boost beside K_ν on host cores only.", ""]
    lines += ["## Architectural Φ", ""] + phi_table("architectural", summaries["architectural"], names,
                                                    architectural_words)
    lines += ["", "## Application Φ", ""] + phi_table("application", summaries["application"], names,
                                                      application_words)
    return "\n".join(lines) + "\n"
