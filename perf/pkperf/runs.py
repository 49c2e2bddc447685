"""Several runs of one platform's bench at one commit (each a folder of pk-bench records, each a
separate process, say in separate calls of the device tool) merged into one record per case, the
record the portability report rates:

    perf/merge_runs.py RUN-FOLDER... --out DIR

A case's merged record is the record of its median run, whole: its figure, and its limit measured
in that same run (a copy roofline timed in turn with the case, an FP64 rate), so an efficiency is
never a figure of one run over a limit of another. With an even number of runs the slower of the
two middle ones is taken. Beside it, "runs": every run's figure and efficiency (limit_ratio) in
the order the folders were given, their min, median and max, the spread (max - min) / median,
and the records read: how far the figure moves from one process to the next, which the repeats
of one process (repeat_spread) do not show. Records of several commits, or of one case on other
hardware (its device, or the host's CPU and layout), are refused: a merge is of one code on one
machine. Bad input: one line on stderr, status 2.
"""
import json
import pathlib

from . import cli, records
from .efficiency import number
from .files import save_text
from .records import Error


def main():
    cli.main("merge_runs", run)


def run():
    parser = cli.parser(__doc__, whole=True)
    parser.add_argument("runs", nargs="+", metavar="RUN-FOLDER", help="a folder of one run's pk-bench records")
    parser.add_argument("--out", required=True, help="the folder for the merged records")
    args = parser.parse_args()
    runs = [pathlib.Path(r) for r in args.runs]
    out = pathlib.Path(args.out)
    if len(set(r.resolve() for r in runs)) < len(runs):
        raise Error("a run folder given twice: each run counts once")
    if out.resolve() in (r.resolve() for r in runs):
        raise Error(f"--out {out}: one of the runs; write the merged records to a folder of their own")
    merged = merge(runs)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, record in merged.items():
            save_text(out / name, json.dumps(record, indent=1) + "\n")
    except OSError as e:
        raise Error(f"{e.filename or out}: cannot write ({e.strerror})") from None
    spread = sorted(r["runs"]["spread"] for r in merged.values() if r["runs"]["spread"] is not None)
    print(f"merged {len(merged)} cases from {len(runs)} runs into {out}"
          + (f"; spread across runs: median {spread[len(spread) // 2]:.1%}, largest {spread[-1]:.1%}" if spread else ""))


def merge(runs):
    """{file name: merged record} of the cases in RUNS (folders), by the name pk-bench gave them."""
    found = {}
    for folder in runs:
        for path, record in records.objects(folder):
            if "kernel" not in record or not isinstance(record.get("metrics"), dict):
                continue  # another tool's JSON
            records.require(path, record, ("case", "space", "commit"))
            found.setdefault(path.name, []).append((path, record))
    if not found:
        raise Error(f"no pk-bench records (*.json with kernel, case, space, metrics) in {', '.join(map(str, runs))}")
    commits = {str(r["commit"]) for taken in found.values() for _, r in taken}
    if len(commits) > 1:
        raise Error(f"records of {len(commits)} commits ({', '.join(sorted(c[:7] for c in commits))}): "
                    "a merge is of runs of one commit")
    return {name: merged(taken) for name, taken in sorted(found.items())}


def merged(taken):
    """The record of the median run of one case, with every run's figure beside it."""
    first_path, first = taken[0]
    for path, record in taken[1:]:
        if hardware(record) != hardware(first):
            raise Error(f"{path}: measured on other hardware than {first_path} ({record.get('device')}, "
                        f"{first.get('device')}; host {record.get('host')}, {first.get('host')}): "
                        "a merge is of runs on one machine")
    figure, higher = records.figure(first), records.higher_is_better(first)
    values = [number(r["metrics"], figure) for _, r in taken]
    ran = [(v, path, r) for v, (path, r) in zip(values, taken) if v is not None]
    if not ran:  # no run has a figure (the case did not run anywhere): the first says so
        return {**first, "runs": summary(taken, figure, values, None, None)}
    ran.sort(key=lambda item: item[0] if higher else -item[0])  # slowest first
    median, median_path, record = ran[(len(ran) - 1) // 2]
    return {**record, "runs": summary(taken, figure, values, median, median_path)}


def hardware(record):
    """What a record says of the machine it ran on: the device and the host's CPU and layout."""
    return str(record.get("device")), json.dumps(record.get("host"), sort_keys=True)


def summary(taken, figure, values, median, median_path):
    numbers = sorted(v for v in values if v is not None)
    return {"count": len(taken), "figure": figure, "values": values,
            "limit_ratios": [number(r["metrics"], "limit_ratio") for _, r in taken],
            "min": numbers[0] if numbers else None, "median": median, "max": numbers[-1] if numbers else None,
            "spread": (numbers[-1] - numbers[0]) / median if median else None,
            "records": [path.as_posix() for path, _ in taken],
            "median_of": median_path.as_posix() if median_path else None}
