"""The records perf/ reads: the one loader of their JSON, the error a tool reports as bad input,
and what a record says of its figure (which metric it is, and whether higher is better).

A record names its figure ("figure") and says whether a larger one is better ("higher_is_better",
pk-bench from 97a560a, perf/peers/run.py from the commit that made this package). Older records
do not: the legacy rule at the end of this file derives both for them, and only there. pk-bench
between 97a560a and 9c57b4e wrote true for rfilter's times; no committed record is of those
builds.
"""
import json
import pathlib

from . import efficiency


class Error(Exception):
    """Bad input: cli.main prints it as one line on stderr and exits with status 2."""


def read(path):
    """The JSON in PATH, whatever it holds."""
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise Error(f"{path}: not a readable JSON record ({e})") from None


def objects(folder, pattern="*.json", option=""):
    """(path, object) of each file matching PATTERN under FOLDER that holds a JSON object, in name
    order; a missing folder is named with the OPTION that gave it."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise Error(f"{option}{folder}: not a folder")
    for path in sorted(folder.glob(pattern)):
        record = read(path)
        if isinstance(record, dict):
            yield path, record


def require(path, record, fields):
    """Bad input unless RECORD has every one of FIELDS."""
    missing = set(fields) - record.keys()
    if missing:
        raise Error(f"{path}: a record without {', '.join(sorted(missing))}")


def figure(record):
    """The name of the metric that says how fast the record's case ran, or None."""
    return record["figure"] if "figure" in record else legacy_figure(record)


def higher_is_better(record):
    """Whether a larger figure is the better one (a rate), not a smaller one (a time, a size)."""
    if "higher_is_better" in record:
        return bool(record["higher_is_better"])
    return legacy_higher_is_better(record)


# The legacy rule: records written before their writer said what their figure is and which way is
# better (pk-bench's before it named a figure or before 97a560a, the programs', which name none,
# and perf/peers/run.py's before this package). The figure is the efficiency table's headline of
# the kernel's case, else the first of these present; a figure in seconds or bytes, or a peer
# comparison in a unit of time, is lower-is-better.
LEGACY_FIGURES = ("mlups", "cells_per_second", "evals_per_second", "elements_per_second", "bandwidth_gbs",
                  "wall_seconds", "loglik_seconds", "gpu_kernel_seconds")
LEGACY_TIME_UNITS = ("s", "seconds", "ms", "us")


def legacy_figure(record):
    row = efficiency.row_of(record.get("kernel"), record.get("case"))
    if row is not None:
        return row.headline
    metrics = record.get("metrics")
    return next((name for name in LEGACY_FIGURES if name in metrics), None) if isinstance(metrics, dict) else None


def legacy_higher_is_better(record):
    if "comparison" in record:
        return record.get("unit") not in LEGACY_TIME_UNITS
    return named_higher_is_better(figure(record) or "")


def named_higher_is_better(name):
    """What a figure's name says (the legacy rule), also how the efficiency table describes its headlines."""
    return not name.endswith(("_seconds", "_bytes"))
