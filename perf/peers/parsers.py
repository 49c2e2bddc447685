"""Parsers of the peers' output and of pk-bench's records, for perf/peers/run.py.

Each parser takes a program's whole output (stdout and stderr together) and returns a dict of
numbers and strings; it raises ParseError when the figure it exists for is missing, so that a
peer that failed is never recorded as a figure. tests/peers/test_peers.py checks each one on
captured output (tests/peers/fixtures).
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # perf/, for pkperf
from pkperf import records  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class ParseError(ValueError):
    pass


def _clean(text):
    return ANSI.sub("", text).replace("\r", "\n")


def _need(pattern, text, what, flags=0):
    m = re.search(pattern, text, flags)
    if not m:
        raise ParseError("no %s in the output" % what)
    return m


def fluidx3d(text):
    """FluidX3D's benchmark setup with perf/peers/fluidx3d/fluidx3d.patch: "Mean MLUPs/s = X"
    (the patch's: all timed steps) and "Peak MLUPs/s = N" (FluidX3D's own: the best smoothed
    rate), the grid, the device and the storage."""
    t = _clean(text)
    out = {"mean_mlups": float(_need(r"Mean MLUPs/s = ([0-9.]+)", t, "'Mean MLUPs/s'").group(1)),
           "peak_mlups": float(_need(r"Peak MLUPs/s = ([0-9]+)", t, "'Peak MLUPs/s'").group(1))}
    m = re.search(r"Grid Resolution \|\s*(\d+) x (\d+) x (\d+) = (\d+)", t)
    if m:
        out["grid"] = [int(m.group(i)) for i in (1, 2, 3)]
        out["cells"] = int(m.group(4))
    m = re.search(r"LBM Type\s*\|\s*(.*?)\s*\|", t)
    if m:
        out["lbm_type"] = m.group(1)
    m = re.search(r"Device Name\s*\|\s*(.*?)\s*\|", t)
    if m:
        out["device"] = m.group(1)
    m = re.search(r"Memory Usage\s*\|\s*(.*?)\s*\|", t)
    if m:
        out["memory_usage"] = m.group(1)
    if out["mean_mlups"] <= 0:
        raise ParseError("FluidX3D's mean MLUPs/s is not positive")
    return out


def rrze(text):
    """lbmbenchk's result line "P:   X MFLUP/s  t: T  d: S s  iter: I  fnodes: F x1e6  geo: G
    kernel: K  B  dp|sp"."""
    t = _clean(text)
    m = _need(r"^P:\s+([0-9.eE+-]+) MFLUP/s\s+t: (\d+)\s+d: ([0-9.eE+-]+) s\s+iter: (\d+)\s+"
              r"fnodes: ([0-9.eE+-]+) x1e6\s+geo: (\S+)\s+kernel: (\S+)\s+\S+\s+(dp|sp)", t,
              "'P: ... MFLUP/s' line", re.M)
    out = {"mflups": float(m.group(1)), "threads": int(m.group(2)), "seconds": float(m.group(3)),
           "iterations": int(m.group(4)), "fluid_nodes": float(m.group(5)) * 1e6, "geometry": m.group(6),
           "kernel": m.group(7), "precision": m.group(8)}
    m = re.search(r"periodicity:\s+x: (\d) y: (\d) z: (\d)", t)
    if m:
        out["periodic"] = [int(m.group(i)) for i in (1, 2, 3)]
    m = re.search(r"#\s+nodes total:\s+(\d+)", t)
    if m:
        out["nodes_total"] = int(m.group(1))
    return out


def cubesselk(text):
    """perf/peers/cubesselk/driver.cu's line "CuBesselK: points P bins B repeats R median_s S
    min_s S max_s S evals_per_second E not_finite N k0 K", and where it was given the reference
    table, "CuBesselK: accuracy reference_points N box_points N max_rel_error E unanswered N
    gp_points N max_rel_error_gp E"."""
    t = _clean(text)
    m = _need(r"^CuBesselK: points (\d+) bins (\d+) repeats (\d+) median_s (\S+) min_s (\S+) max_s (\S+) "
              r"evals_per_second (\S+) not_finite (\d+) k0 (\S+)", t, "'CuBesselK: points' line", re.M)
    out = {"points": int(m.group(1)), "bins": int(m.group(2)), "repeats": int(m.group(3)),
           "median_seconds": float(m.group(4)), "min_seconds": float(m.group(5)), "max_seconds": float(m.group(6)),
           "evals_per_second": float(m.group(7)), "not_finite": int(m.group(8)), "k0": float(m.group(9))}
    m = re.search(r"^CuBesselK: device (.*)$", t, re.M)
    if m:
        out["device"] = m.group(1).strip()
    m = re.search(r"^CuBesselK: accuracy reference_points (\d+) box_points (\d+) max_rel_error (\S+) "
                  r"unanswered (\d+) gp_points (\d+) max_rel_error_gp (\S+)\s*$", t, re.M)
    if m:
        out.update({"reference_points": int(m.group(1)), "box_points": int(m.group(2)),
                    "max_rel_error": float(m.group(3)), "unanswered": int(m.group(4)), "gp_points": int(m.group(5)),
                    "max_rel_error_gp": float(m.group(6))})
    if out["not_finite"]:
        raise ParseError("CuBesselK returned %d values that are not finite and positive" % out["not_finite"])
    return out


def babelstream(text):
    """BabelStream --csv (with --gigabytes or --megabytes): the Copy row, "Copy,num_times,
    n_elements,sizeof,max_gbytes_per_sec,min_runtime,max_runtime,avg_runtime". Besides its
    headline (the best run's rate), the rate at the mean run time."""
    t = _clean(text)
    header = _need(r"^function,num_times,n_elements,sizeof,max_(\w+)_per_sec,min_runtime,max_runtime,avg_runtime\s*$",
                   t, "BabelStream CSV header", re.M)
    unit = header.group(1)
    scale = {"GB": 1.0, "MB": 1e-3, "GiB": 1.073741824, "MiB": 1.048576e-3, "TB": 1e3, "TiB": 1.099511627776e3}.get(unit)
    if scale is None:
        raise ParseError("BabelStream unit %r is not known" % unit)
    m = _need(r"^Copy,(\d+),(\d+),(\d+),([0-9.eE+-]+),([0-9.eE+-]+),([0-9.eE+-]+),([0-9.eE+-]+)\s*$", t,
              "BabelStream Copy row", re.M)
    n, size = int(m.group(2)), int(m.group(3))
    bytes_per_copy = 2.0 * n * size
    avg = float(m.group(7))
    out = {"num_times": int(m.group(1)), "n_elements": n, "sizeof": size, "bytes_per_copy": bytes_per_copy,
           "max_gbs": float(m.group(4)) * scale, "min_seconds": float(m.group(5)),
           "max_seconds": float(m.group(6)), "avg_seconds": avg, "avg_gbs": bytes_per_copy / avg * 1e-9}
    if out["avg_seconds"] <= 0 or out["max_gbs"] <= 0:
        raise ParseError("BabelStream's Copy row has no positive time or rate")
    return out


def gbees_cuda(text, dimension=None):
    """gbees-cuda's log: "Elapsed: X ms" (its main's wall time around the whole run: set-up, the
    kernel, the records), its "Timestep: m-k, ..., Sim. time: t TU, Used Cells: u/max" lines (the
    last, and the steps of all its measurement intervals) and "Time marching complete, processed
    cells N."; the model's dimension (its first "Measurement: dim n", the initial PDF's) and the
    initial box's cells ("Used cells N"). A run whose grid outgrew its capacity stops early but
    still prints "Elapsed"; with `dimension`, a binary built for a model of another dimension is
    refused."""
    t = _clean(text)
    if re.search(r"^Grid capacity exceeded", t, re.M):
        raise ParseError("gbees-cuda's grid outgrew its capacity (config.h: BLOCKS x THREADS_PER_BLOCK x "
                         "CELLS_PER_THREAD, perf/peers/gbeescuda/build.sh)")
    out = {"elapsed_seconds": float(_need(r"^Elapsed: ([0-9.eE+-]+) ms", t, "'Elapsed: ... ms'", re.M).group(1)) * 1e-3}
    m = re.search(r"^Measurement: dim (\d+)", t, re.M)
    if m:
        out["dimension"] = int(m.group(1))
    if dimension is not None and out.get("dimension") != dimension:
        raise ParseError("gbees-cuda ran a %s-D model; this case is %d-D (a binary built for another example?)"
                         % (out.get("dimension", "?"), dimension))
    m = re.search(r"^Used cells (\d+)", t, re.M)
    if m:
        out["initial_cells"] = int(m.group(1))
    steps = re.findall(r"^Timestep: (\d+)-(\d+), Runtime cycles: \d+, Sim\. time: ([0-9.eE+-]+) TU, "
                       r"Used Cells: (\d+)/(\d+)", t, re.M)
    if steps:
        last = steps[-1]
        ends = {}
        for m, k, *_ in steps:  # it counts steps from 1 in each measurement interval
            ends[m] = max(ends.get(m, 0), int(k))
        out.update({"last_step": int(last[1]), "final_time": float(last[2]), "cells": int(last[3]),
                    "capacity": int(last[4]), "max_cells": max(int(x[3]) for x in steps),
                    "steps": sum(ends.values())})
    m = re.search(r"Time marching complete, processed cells (\d+)", t)
    if m:
        out["processed_cells"] = int(m.group(1))
    else:
        raise ParseError("gbees-cuda did not complete its time marching")
    m = re.search(r"^Device \d+, (.*?), rev", t, re.M)
    if m:
        out["device"] = m.group(1)
    return out


def gbees_c(text):
    """GBEES in C (bhanson10/gbees), an example's log: its "Timestep: m-k, Program time: X s, Sim.
    time: T TU, Active/Total Cells: a/n" lines (X: clock(), the process's CPU time since its time
    marching began; one thread) and "Time marching complete."."""
    t = _clean(text)
    lines = re.findall(r"^Timestep: (\d+)-(\d+), Program time: ([0-9.eE+-]+) s, Sim\. time: ([0-9.eE+-]+) TU, "
                       r"Active/Total Cells: (\d+)/(\d+)", t, re.M)
    if not lines or not re.search(r"^Time marching complete\.", t, re.M):
        raise ParseError("GBEES did not complete its time marching")
    last = lines[-1]
    ends = {}
    for m, k, *_ in lines:  # the last step of each measurement interval
        ends[m] = max(ends.get(m, 0), int(k))
    return {"program_seconds": float(last[2]), "final_time": float(last[3]), "active_cells": int(last[4]),
            "cells": int(last[5]), "max_cells": max(int(x[5]) for x in lines), "steps": sum(ends.values())}


def pk_gbees_summary(folder, model, space):
    """pk-gbees' summary JSON (--out folder): gbees-<model>-<space>.json."""
    path = os.path.join(folder, "gbees-%s-%s.json" % (model, space))
    try:
        r = records.read(path)
    except records.Error as e:
        raise ParseError(str(e)) from None
    if not isinstance(r, dict) or "wall_seconds" not in r:
        raise ParseError("%s has no wall_seconds" % path)
    if r.get("interrupted") or not r.get("completed", True):
        raise ParseError("%s: the run did not complete" % path)
    return r


def pk_bench_records(folder, kernel, space):
    """pk-bench's JSON records in `folder` of `kernel` on `space`: {case: record}."""
    found = {}
    try:
        for path, r in records.objects(folder):
            if r.get("kernel") != kernel or r.get("space") != space:
                continue
            records.require(path, r, ("case", "figure", "metrics"))
            if r["figure"] not in r["metrics"]:
                raise ParseError("%s: its figure %r is not among its metrics" % (path.name, r["figure"]))
            if r.get("interrupted"):
                raise ParseError("%s: the run was interrupted" % path.name)
            found[r["case"]] = r
    except records.Error as e:
        raise ParseError(str(e)) from None
    return found
