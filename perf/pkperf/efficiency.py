"""How a pk-bench record is rated: the one model of efficiency that the portability report
(perf/report.py) and `./pk run`'s table and charts (perf/plot_results.py) share.

Two kinds of efficiency, never mixed in one number (Pennycook et al.):
- architectural: the case's figure ÷ a limit the hardware sets, measured on the platform (the copy
  bandwidth at the case's footprint for a kernel that moves memory, the FP64 rate ÷ the operations
  an evaluation counts for K_ν);
- application: ours ÷ the best implementation measured on the platform (GSL and Boost beside
  K_ν on host cores; the peers of perf/peers/run.py: FluidX3D, RRZE's lbm-benchmark-kernels,
  CuBesselK).
A case without either is shown with its figure and the reason it is not rated: never a goal, a
paper's time on another machine or another kernel's rate as a limit, and never 1 because ours is
the only implementation measured.
"""
import collections
import math
import re

# Host execution spaces: a CPU, whose ordinary store first reads the line it writes
# (write-allocate). A copy to another array then moves three streams (read x, read y's line,
# write y) where pk-bench counts two; an update in place moves what it counts.
HOST_SPACES = frozenset({"openmp", "serial", "threads", "hpx"})
WRITE_ALLOCATE = 1.5  # bytes moved ÷ bytes counted, a copy to another array on a host space


def host(space):
    return space in HOST_SPACES


# kind: "architectural" (a limit the hardware sets, `limit` in words), "probe" (the copy probe:
# itself the memory limit, not a kernel of Φ) or None (shown, not rated: `why`). `label`: what the
# case is rated against, in the words a table's reader reads. `footprint`: a record is rated only
# if it carries footprint_bytes (the copy at the case's footprint, since 005af5c). `headline`: the
# figure of records that do not name theirs (records.legacy_figure).
Row = collections.namedtuple("Row", "kernel case headline kind limit why label footprint", defaults=(False,))

COPY_LIMIT = ("the copy bandwidth at the case's footprint, measured beside it (the best of a copy to "
              "another array, `deep_copy` and a 16-stream update in place)")
OLD_FOOTPRINT = "records without footprint_bytes (before 005af5c): their limit was one copy of two streams"

TABLE = [
    Row("copy", r"range-policy|deep-copy|in-place", "bandwidth_gbs", "probe",
        "the best of the three copies in the same run, each counted at the bytes it moves",
        "the memory limit the other kernels are rated against, not a kernel of Φ",
        "none: the probe is the memory limit (write-allocate counted on a CPU)"),
    Row("lbm", r"a[ab]-fp(16|32|64)-\d+", "mlups", "architectural",
        f"{COPY_LIMIT} ÷ the bytes a lattice update moves", OLD_FOOTPRINT,
        "memory: copy bandwidth at its footprint ÷ bytes per update", True),
    Row("rfilter", r"field\d+-[xyz]", "wall_seconds", "architectural",
        f"the time to read and write the field once at {COPY_LIMIT}", OLD_FOOTPRINT,
        "memory: the time to read and write the field at the copy bandwidth", True),
    Row("rfilter", r"line-n\d+-k\d+", "wall_seconds", None, "",
        "no limit recorded: the paper's GPU time (a GTX TITAN X), which older records divide by, is "
        "another machine's time, not a limit of this one",
        "no limit recorded (a paper's time on another GPU is not one)"),
    Row("besselk", r"evaluate", "evals_per_second", "architectural",
        "the FP64 roof: the FP64 rate measured beside it ÷ the FP64 operations an evaluation counts",
        "FP64 roof not yet recorded: the record holds the FP64 rate but no count of the operations an "
        "evaluation takes (fp64_ops_per_eval, which perf/besselk_ops.py writes from Nsight Compute); rated by "
        "application efficiency only",
        "arithmetic: FP64 rate ÷ FP64 operations per evaluation"),
    Row("besselk", r"evaluate-(gsl|boost)", "evals_per_second", None, "",
        "a reference implementation (GSL, Boost): the best measured on the platform is the application "
        "limit of ours", "none: a reference implementation, the application limit of ours"),
    Row("besselk", r"matern-n\d+", "elements_per_second", None, "",
        "no limit recorded: K_ν evaluations/s, which older records divide by, is another kernel's rate",
        "no limit recorded (K_ν evaluations/s is another kernel's rate)"),
    Row("gbees", r"lorenz63|lorenz96(-paper)?", "cells_per_second", None, "",
        "no reachable limit recorded: the copy roofline in its records (roofline_fraction) assumes a grid "
        "that fills the device, which these cases' grids (max_cells in the records) do not; rated by "
        "application efficiency only",
        "no reachable limit recorded (application efficiency only)"),
    Row("gbees", r"lorenz63-ensemble-\d+", "cells_per_second", None, "",
        "no limit recorded: a throughput study against the number of PDFs (older records divide by a goal)",
        "no limit recorded (a goal is not a limit)"),
]


def row_of(kernel, case):
    """The TABLE row of a kernel's case, or None."""
    return next((r for r in TABLE if r.kernel == kernel and re.fullmatch(r.case, str(case))), None)


def number(metrics, key):
    value = metrics.get(key)  # a finite number, else None
    return value if type(value) in (int, float) and math.isfinite(value) else None


MIN_REPEATS = 5  # a rated figure is the median of at least this many timed repeats


def too_few_repeats(metrics):
    """Why a record's figure is not rated for its repeats (e.g. the case a signal cut short), or None."""
    repeats = number(metrics, "repeats")
    if repeats is None or repeats >= MIN_REPEATS:
        return None
    return (f"{repeats:.0f} timed repeat{'s' if repeats != 1 else ''}, fewer than the {MIN_REPEATS} a rated figure is "
            "the median of")


def moved_gbs(case, space, metrics):
    """A copy probe's bandwidth at the bytes it moves: a copy to another array on a host space
    pays write-allocate (copy_bytes_per_element, where recorded, says what it moved)."""
    gbs = number(metrics, "bandwidth_gbs")
    if gbs is None or case == "in-place":
        return gbs
    per_element = number(metrics, "copy_bytes_per_element")  # bytes moved per element copied
    factor = per_element / 16 if per_element else WRITE_ALLOCATE if host(space) else 1.0
    return gbs * factor


def architectural(row, space, metrics):
    """(efficiency, None) or (None, why not) for one record, from its own figures."""
    if row.kind != "architectural":
        return None, row.why
    if row.footprint:
        if number(metrics, "footprint_bytes") is None:
            return None, row.why
        ratio = number(metrics, "limit_ratio")
        return (ratio, None) if ratio is not None and ratio > 0 else (None, "no limit recorded")
    if row.kernel == "besselk":  # the FP64 roof, from counted operations
        ops, peak, ours = (number(metrics, k) for k in ("fp64_ops_per_eval", "fp64_peak_gflops", "evals_per_second"))
        if not (ops and peak and ours):
            return None, row.why
        return ours / (peak * 1e9 / ops), None
    return None, row.why


# Application limits: the peers a kernel has (or would have), by kind of space.
PEERS = {
    "lbm": {"cpu": "RRZE lbm-benchmark-kernels, FluidX3D (an OpenCL CPU runtime)", "gpu": "FluidX3D"},
    "besselk": {"cpu": "GSL, Boost", "gpu": "CuBesselK"},
    "gbees": {"cpu": "bhanson10/gbees", "gpu": "gbees-cuda"},
    "rfilter": {},
}
# perf/peers/run.py's comparisons: the pk-bench kernel each stands beside and the peer's name.
COMPARISONS = {"fluidx3d": ("lbm", "FluidX3D"), "fluidx3d-cpu": ("lbm", "FluidX3D (an OpenCL CPU runtime)"),
               "rrze": ("lbm", "RRZE lbm-benchmark-kernels"),
               "cubesselk": ("besselk", "CuBesselK"), "gbees-cuda": ("gbees", "gbees-cuda"), "babelstream-cuda": ("copy", "BabelStream (CUDA)"),
               "babelstream-kokkos": ("copy", "BabelStream (Kokkos)"), "babelstream-omp": ("copy", "BabelStream (OpenMP)"),
               "gbees-c": ("gbees", "bhanson10/gbees")}
# Comparisons whose cases are not pk-bench's: the pk-bench case each stands for, None where the
# case is not rated. GBEES in C is serial: ours on every thread of the platform stands for
# pk-bench's lorenz63 there; ours on one thread is the peers table's, not the platform's.
PEER_CASES = {("gbees-c", "lorenz63-allthreads"): "lorenz63", ("gbees-c", "lorenz63-1thread"): None}


def peers_of(kernel, space):
    return PEERS.get(kernel, {}).get("cpu" if host(space) else "gpu")


def library_comparisons(cases):
    """{(kernel, case): [comparison]} from pk-bench's own records of a platform: K_ν's evaluate
    beside evaluate-gsl and evaluate-boost (host spaces only), one run."""
    found = {}
    ours = cases.get(("besselk", "evaluate"))
    for case, name in (("evaluate-gsl", "GSL"), ("evaluate-boost", "Boost")):
        e = cases.get(("besselk", case))
        if ours and e and e["value"] > 0:
            found.setdefault(("besselk", "evaluate"), []).append(
                {"peer": name, "peer_figure": e["value"], "ours": ours["value"], "commit": ours["commit"],
                 "source": "pk-bench, same run"})
    return found


def application(comparisons):
    """One case's application efficiency from its comparisons (each ours and a peer measured side
    by side): ours ÷ the best implementation measured, ours included, so at most 1; the peer it
    was measured against. None without a comparison: ours alone has no application limit."""
    if not comparisons:
        return None
    worst = min(comparisons, key=lambda c: c["ours"] / c["peer_figure"])
    ratio = worst["ours"] / worst["peer_figure"]
    return {"efficiency": min(1.0, ratio), "best": worst["peer"] if ratio < 1 else "ours",
            "ratio": ratio, "peers": sorted({c["peer"] for c in comparisons}), "against": worst}
