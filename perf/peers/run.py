#!/usr/bin/env python3
"""Each peer and the project's matching pk-bench case, back to back on the same problem.

    perf/peers/run.py [options] COMPARISON...      (./pk peers ... runs this)
    perf/peers/run.py --report-only --out DIR [RECORDS-DIR...]

COMPARISON: fluidx3d (GPU, FP32 and FP16S storage), fluidx3d-cpu (the same through an OpenCL
CPU runtime, PK_PEERS_OPENCL_CPU_VENDORS; named on its own only), rrze (CPU, fp64 and fp32),
cubesselk (GPU), babelstream-cuda, babelstream-kokkos, babelstream-omp, gbees-cuda (GPU, its
examples against pk-gbees: cases lorenz63, lorenz96, cr3bp), gbees-c (bhanson10/gbees, serial,
against pk-gbees on OpenMP at one thread and at all); or gpu, cpu, all (those of the group whose
peer is built; gpu takes gbees-cuda's lorenz63 only: its 6-D cases take minutes a run, and
lorenz96 more than the default --timeout). COMPARISON:CASE[,CASE...] runs only those cases of it
(gbees-cuda:cr3bp). The peers are built first by perf/peers/<peer>/build.sh (their binaries and
build records in build/peers, --peers-build); pk-bench is the project's (--pk-bench).

A repetition runs the peer on every case of a comparison, then pk-bench once on all of them
(one process: its Kokkos start-up and copy probe are paid once); repetitions alternate so, peer
then ours, --reps times (at least 5). Each case gets a record OUT/<comparison>-<case>.json:
both figures of every repetition, median/min/max, the ratio of the medians (above 1: ours faster), the peer's
repository, commit, build flags and patch, the problem, the machine, the project's commit and
the command lines. OUT/peers.md (a table) and OUT/peers.png (one chart) cover every record in
OUT. Logs of every run go to OUT/logs.
"""
import argparse
import copy
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parsers  # noqa: E402  (it puts perf/ on the path for pkperf)
from pkperf import cli, records  # noqa: E402
from pkperf.files import save_text  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# gbees-cuda's 6-D cases run minutes a repetition each: named on their own only.
GROUPS = {"gpu": ["fluidx3d", "cubesselk", "babelstream-cuda", "babelstream-kokkos", "gbees-cuda:lorenz63"],
          "cpu": ["rrze", "babelstream-omp", "gbees-c"]}
GROUPS["all"] = GROUPS["gpu"] + GROUPS["cpu"]
# The mpmath table pk-bench rates K_nu's accuracy on; CuBesselK's driver is given it too.
REFERENCE = os.path.join(ROOT, "tests", "besselk", "reference.txt")
OPT_IN = ["fluidx3d-cpu"]  # named on its own only: FluidX3D through an OpenCL CPU runtime (slow)
KNOWN = [n.split(":")[0] for n in GROUPS["all"]] + OPT_IN


def say(*words):
    print("peers:", *words, file=sys.stderr, flush=True)


class Case:
    """One problem: the peer's command and how to read its figure, and ours (a pk-bench case)."""

    def __init__(self, name, problem, peer_cmd, parse, peer_figure, ours_case, ours_metric, unit,
                 peer_env=None, peer_headline=None, notes="", lower_is_better=False, peer_cwd=None,
                 peer_from=None):
        self.name, self.problem, self.peer_cmd, self.parse = name, problem, peer_cmd, parse
        self.peer_figure, self.ours_case, self.ours_metric, self.unit = peer_figure, ours_case, ours_metric, unit
        self.peer_env = peer_env or {}
        self.lower_is_better = lower_is_better  # a time: the ratio is peer / ours (above 1: ours is faster)
        self.peer_cwd = peer_cwd
        self.peer_from = peer_from  # another case's name: its peer run, this repetition, is this one's too
        self.peer_headline = peer_headline  # (name, key of the parsed output): the peer's own figure
        self.notes = notes


class Comparison:
    """A peer's cases and the run of ours that answers them all: pk-bench with pk_bench_args (its
    records read by kernel and space), or, with `ours`, a program of the project: ours(args, dir,
    cases) gives its command line (or several) writing into dir for the cases named, and
    ours_read(dir) its figures as {case: record}."""

    def __init__(self, name, peer, title, space, pk_bench_args, cases, same, differs, ours=None, ours_read=None):
        self.name, self.peer, self.title, self.space = name, peer, title, space
        self.pk_bench_args, self.cases = pk_bench_args, cases
        self.same, self.differs = same, differs  # what is the same problem, and what is not
        self.ours, self.ours_read = ours, ours_read

    def ours_command(self, args, folder, cases):
        if self.ours:
            return self.ours(args, folder, [c.name for c in cases])
        return [args.pk_bench] + self.pk_bench_args + ["--out", folder]

    def read_ours(self, folder):
        if self.ours_read:
            return self.ours_read(folder)
        return parsers.pk_bench_records(folder, self.pk_bench_args[1], self.space)


def cubesselk_case(binary, points, bins):
    """CuBesselK on `points` of pk-bench's K_nu points with `bins` integration bins; a setting
    other than its default 128 is a code of its own in the report (peer_configuration)."""
    def rate(parsed):
        if parsed["bins"] != bins:
            raise parsers.ParseError("CuBesselK ran %d bins, not %d" % (parsed["bins"], bins))
        return parsed["evals_per_second"]
    problem = {"points": points, "nu": "[0.05, 5]", "x": "[1e-3, 100] log-uniform", "pattern": "pk-bench gp_point",
               "peer_bins": bins}
    name = "evaluate-%d" % points
    if bins != 128:
        problem["peer_configuration"] = "%d bins" % bins
        name += "-bins%d" % bins
    return Case(name, problem, [binary, str(points), "5", str(bins), REFERENCE], parsers.cubesselk, rate,
                "evaluate", "evals_per_second", "evaluations/s")


def pk_size(sides):
    """pk-bench's --size whose lbm cases include every side in `sides`."""
    if set(sides) <= {32}:
        return "tiny"
    if set(sides) <= {64, 128}:
        return "small"
    return "full"


def alternation(values):
    return "^(" + "|".join(re.escape(v) for v in values) + ")$"


def build_info(args, peer):
    path = os.path.join(args.peers_build, peer, "build-info.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        info = json.load(f)
    for key in list(info):  # binaries are relative to the peers' build folder
        if key == "binary" or key.startswith("binary_"):
            info[key] = os.path.join(args.peers_build, info[key])
    return info


def comparisons(args):
    """The comparisons whose peer is built, by name."""
    out = {}
    fx = build_info(args, "fluidx3d")
    if fx:
        cases = []
        for precision, ours_precision in (("fp32", "fp32"), ("fp16s", "fp16")):
            for n in args.gpu_sides:
                loops = max(3, int(math.ceil(args.fluidx3d_updates / (10.0 * n ** 3))))
                cases.append(Case(
                    "%s-%d" % (precision, n),
                    {"lattice": "%d^3 fully periodic, D3Q19" % n, "storage": precision, "arithmetic": "fp32",
                     "peer_steps": 10 * loops, "streaming": "FluidX3D: Esoteric-Pull; ours: A-A"},
                    [fx["binary_" + precision]], parsers.fluidx3d, lambda p: p["mean_mlups"],
                    "aa-%s-%d" % (ours_precision, n), "mlups", "MLUPS",
                    peer_env={"PK_PEER_N": str(n), "PK_PEER_LOOPS": str(loops)},
                    peer_headline=("Peak MLUPs/s", "peak_mlups")))
        out["fluidx3d"] = Comparison(
            "fluidx3d", "fluidx3d", "FluidX3D (OpenCL) vs pk-bench lbm (CUDA)", "cuda",
            ["--kernel", "lbm", "--space", "cuda", "--size", pk_size(args.gpu_sides), "--case",
             alternation(["aa-fp32-%d" % n for n in args.gpu_sides] + ["aa-fp16-%d" % n for n in args.gpu_sides])],
            cases,
            "D3Q19, BGK/SRT collision, cube of the same edge, every cell fluid and periodic, FP32 arithmetic, "
            "storage FP32 or FP16 (FluidX3D's FP16S: IEEE half of range-shifted populations; ours: IEEE half, "
            "pk::Binary16)",
            "FluidX3D's figure is its mean over all timed steps of --loops x 10 (its 'Peak MLUPs/s', the best "
            "smoothed rate, is kept beside it); ours is pk-bench's median of 5 timed batches. FluidX3D streams "
            "Esoteric-Pull in one buffer, ours A-A; FluidX3D runs through NVIDIA's OpenCL, ours through CUDA")
    cpu_vendors = os.environ.get("PK_PEERS_OPENCL_CPU_VENDORS")
    if fx and cpu_vendors:  # FluidX3D through an OpenCL CPU runtime (opencl_env.sh finds one)
        cases = []
        for precision, ours_precision in (("fp32", "fp32"), ("fp16s", "fp16")):
            for n in args.cpu_sides:
                loops = max(3, int(math.ceil(args.fluidx3d_cpu_updates / (10.0 * n ** 3))))
                cases.append(Case(
                    "%s-%d" % (precision, n),
                    {"lattice": "%d^3 fully periodic, D3Q19" % n, "storage": precision, "arithmetic": "fp32",
                     "peer_steps": 10 * loops, "streaming": "FluidX3D: Esoteric-Pull; ours: A-A",
                     "opencl_vendors": sorted(os.listdir(cpu_vendors))},
                    [fx["binary_" + precision]], parsers.fluidx3d, lambda p: p["mean_mlups"],
                    "aa-%s-%d" % (ours_precision, n), "mlups", "MLUPS",
                    peer_env={"PK_PEER_N": str(n), "PK_PEER_LOOPS": str(loops), "OCL_ICD_VENDORS": cpu_vendors},
                    peer_headline=("Peak MLUPs/s", "peak_mlups")))
        out["fluidx3d-cpu"] = Comparison(
            "fluidx3d-cpu", "fluidx3d", "FluidX3D (an OpenCL CPU runtime) vs pk-bench lbm (OpenMP)", "openmp",
            ["--kernel", "lbm", "--space", "openmp", "--size", pk_size(args.cpu_sides), "--case",
             alternation(["aa-fp32-%d" % n for n in args.cpu_sides] + ["aa-fp16-%d" % n for n in args.cpu_sides])],
            cases,
            "as fluidx3d, on the host CPU: FluidX3D through the OpenCL CPU runtime named in its vendors folder "
            "(PoCL on the H200 machine), ours through OpenMP",
            "as fluidx3d; and an OpenCL CPU runtime compiles FluidX3D's kernels its own way (PoCL: LLVM), so this "
            "measures that runtime as much as FluidX3D")
    rr = build_info(args, "rrze")
    if rr:
        cases = []
        for precision, rprec in (("fp64", "dp"), ("fp32", "sp")):
            for n in args.cpu_sides:
                cmd = [rr["binary_" + rprec], "-dims", "%dx%dx%d" % (n, n, n), "-geometry", "box", "-periodic-x",
                       "-periodic-y", "-periodic-z", "-iterations", str(args.rrze_iterations), "-t",
                       str(args.threads), "-kernel", args.rrze_kernel]
                cases.append(Case(
                    "%s-%d" % (precision, n),
                    {"lattice": "%d^3 fully periodic, D3Q19" % n, "precision": precision,
                     "peer_iterations": args.rrze_iterations, "threads": args.threads, "peer_kernel": args.rrze_kernel},
                    cmd, parsers.rrze, lambda p: p["mflups"], "aa-%s-%d" % (precision, n), "mlups", "MLUPS",
                    peer_cwd=os.path.dirname(os.path.dirname(rr["binary_" + rprec]))))  # it writes *.dat files
        out["rrze"] = Comparison(
            "rrze", "rrze", "RRZE lbm-benchmark-kernels vs pk-bench lbm (OpenMP)", "openmp",
            ["--kernel", "lbm", "--space", "openmp", "--size", pk_size(args.cpu_sides), "--case",
             alternation(["aa-fp64-%d" % n for n in args.cpu_sides] + ["aa-fp32-%d" % n for n in args.cpu_sides])],
            cases,
            "D3Q19, a cube of the same edge with every cell fluid: lbmbenchk's 'box' geometry made periodic in x, y "
            "and z (-periodic-x -periodic-y -periodic-z; its default 'channel' has walls), like pk-bench's "
            "periodic_box; same precision for storage and arithmetic; the same thread count",
            "lbmbenchk's kernels are TRT (two relaxation times), ours BGK: a few more flops a cell, the same bytes; "
            "its figure is one timed run of --iterations, ours the median of 5 timed batches")
    cb = build_info(args, "cubesselk")
    if cb:
        points = {"tiny": 100000, "small": 2000000, "full": 20000000}[args.besselk_size]
        out["cubesselk"] = Comparison(
            "cubesselk", "cubesselk", "CuBesselK vs pk-bench besselk (CUDA)", "cuda",
            ["--kernel", "besselk", "--space", "cuda", "--size", args.besselk_size, "--case", "^evaluate$"],
            [cubesselk_case(cb["binary"], points, bins) for bins in (128, 64)],
            "the same (nu, x) points (pk-bench's low-discrepancy pattern, generated by both), FP64, kernel time only "
            "(arrays already on the GPU), median of 5 after a warm-up",
            "CuBesselK returns K_nu with 128 integration bins (its default; documented range x <= 140, "
            "nu <= 20) or 64 (faster, less accurate); ours returns K_nu through log K_nu to full double accuracy "
            "over a wider range")
    gcpu = build_info(args, "gbeesc")
    if gcpu:
        config = os.path.join(ROOT, "apps", "gbees", "lorenz63.ini")
        measurements = os.path.join(ROOT, "apps", "gbees", "lorenz63-measurements.txt")

        def pk_gbees_host(a, folder, cases):
            base = [a.pk_gbees, "--config", config, "--measurement-file", measurements, "--threshold", "1e-7",
                    "--space", "openmp", "--paper-back-faces", "--mc-samples", "0", "--snapshots", "1",
                    "--progress", "0", "--out"]
            runs = {"lorenz63-1thread": base + [os.path.join(folder, "t1"), "--kokkos-num-threads=1"],
                    "lorenz63-allthreads": base + [os.path.join(folder, "all"), "--kokkos-num-threads=%d" % a.threads]}
            return [runs[c] for c in cases]

        def read_pk_gbees_host(folder):
            out = {}
            for case, sub in (("lorenz63-1thread", "t1"), ("lorenz63-allthreads", "all")):
                try:
                    r = parsers.pk_gbees_summary(os.path.join(folder, sub), "lorenz63", "openmp")
                except parsers.ParseError:
                    continue
                out[case] = {"metrics": {k: v for k, v in r.items() if isinstance(v, (int, float))},
                             "device": r.get("device"), "commit": r.get("commit"), "command": r.get("command")}
            return out

        problem = {"model": "Lorenz '63 (sigma 4, beta 1, r 48)", "initial": "N([-11.5,-10,9.5], I)", "h": 0.5,
                   "threshold": 1e-7, "end_time": 2, "measurement": "z = -8, std 1, at t = 1",
                   "back_faces": "the paper's (no flux)"}
        out["gbees-c"] = Comparison(
            "gbees-c", "gbeesc", "GBEES in C (bhanson10/gbees, serial) vs pk-gbees (OpenMP), Lorenz '63", "openmp", [],
            [Case("lorenz63-1thread", dict(problem, ours_threads=1), [gcpu["binary_lorenz3d"]], parsers.gbees_c,
                  lambda p: p["program_seconds"], "lorenz63-1thread", "wall_seconds", "s", lower_is_better=True,
                  peer_cwd=os.path.join(args.peers_build, gcpu["cwd_lorenz3d"])),
             Case("lorenz63-allthreads", dict(problem, ours_threads=args.threads), [gcpu["binary_lorenz3d"]],
                  parsers.gbees_c, lambda p: p["program_seconds"], "lorenz63-allthreads", "wall_seconds", "s",
                  lower_is_better=True, peer_from="lorenz63-1thread")],
            "its example Lorenz3D and pk-gbees --config apps/gbees/lorenz63.ini --threshold 1e-7 --paper-back-faces: "
            "the same model, initial PDF, cell width, threshold p* = 1e-7 (its example's), measurement update at "
            "t = 1 and end time 2; its code is serial: ours at one thread, and at all threads beside (the same peer "
            "run in both rows)",
            "its figure is its last 'Program time' (clock(): CPU time of its time marching, initialisation apart; "
            "serial, so its wall time when it has a core to itself), ours pk-gbees' wall_seconds; it clips its steps "
            "to 4 record times per measurement interval, ours to the snapshot and measurement times; built -O3 "
            "-march=native (its makefile's release flags set no optimisation level)",
            ours=pk_gbees_host, ours_read=read_pk_gbees_host)
    gc = build_info(args, "gbeescuda")
    if gc:
        gbees = os.path.join(ROOT, "apps", "gbees")
        back_faces = "the paper's (no flux through a backward face with no cell behind it)"
        # Each example of gbees-cuda and pk-gbees' options for the same problem. --snapshots: gbees-cuda
        # ends a step at each of its record times (numDistRecorded - 1 a measurement interval, recorded
        # or not), pk-gbees at its snapshot times; their snapshots are outside its wall_seconds.
        models = {
            "lorenz63": (3, ["--config", os.path.join(gbees, "lorenz63.ini"), "--measurement-file",
                             os.path.join(gbees, "lorenz63-measurements.txt"), "--snapshots", "8"],
                         {"model": "Lorenz '63 (sigma 4, beta 1, r 48)", "initial": "N([-11.5,-10,9.5], I)", "h": 0.5,
                          "threshold": 5e-6, "end_time": 2, "measurement": "z = -8, std 1, at t = 1",
                          "step_ends": "every 0.25 (gbees-cuda's 5 records a measurement interval)"}),
            # gbees-cuda's Lorenz6D takes each face's drift at the cell's centre, pk-gbees at the face
            # (x_j + h/2); f_j holds x_j once, as -x_j, so F + h/2 gives pk-gbees gbees-cuda's drifts.
            "lorenz96": (6, ["--config", os.path.join(gbees, "lorenz96.ini"), "--forcing", "4.05",
                             "--snapshots", "1"],
                         {"model": "Lorenz '96, 6 variables, F = 4 (gbees-cuda: drift at the cell centre; pk-gbees "
                                   "at the face with F + h/2 = 4.05, the same drift)",
                          "initial": "N([4.5,4,4,4,4,4], 0.04 I)", "h": 0.1, "threshold": 8e-9, "end_time": 1.3,
                          "measurement": "none", "step_ends": "the end only (gbees-cuda's 2 records)",
                          "peer_records": "off (its example writes 2 PDF files)"}),
            "cr3bp": (6, ["--config", os.path.join(gbees, "cr3bp.ini"), "--snapshots", "16"],
                      {"model": "CR3BP, Jupiter-Europa, mu 2.52801752854e-5",
                       "initial": "N(its measurement0 mean, diag(2.2375e-8 x 3, 5.2767e-7 x 3))", "h": "std / 2",
                       "threshold": 1e-7, "end_time": 0.889584448745932, "measurement": "none",
                       "step_ends": "every T/16 (gbees-cuda's 17 records)",
                       "peer_bounds": "gbees-cuda grows no cell whose Jacobi constant lies outside the initial "
                                      "box's range (useBounds); pk-gbees has no such bound"}),
        }
        models = {m: v for m, v in models.items() if "binary_" + m in gc}  # an older build: Lorenz '63 only

        def pk_gbees(a, folder, cases):
            return [[a.pk_gbees] + models[c][1] + ["--space", "cuda", "--paper-back-faces", "--mc-samples", "0",
                                                   "--progress", "0", "--out", os.path.join(folder, c)]
                    for c in cases]

        def read_pk_gbees(folder):
            out = {}
            for c in models:
                try:
                    r = parsers.pk_gbees_summary(os.path.join(folder, c), c, "cuda")
                except parsers.ParseError:
                    continue
                out[c] = {"metrics": {k: v for k, v in r.items() if isinstance(v, (int, float))},
                          "device": r.get("device"), "commit": r.get("commit"), "command": r.get("command")}
            return out

        def case(model):
            dimension, _, problem = models[model]
            return Case(model, dict(problem, back_faces=back_faces, peer_build=gc.get("config_" + model)),
                        [gc["binary_" + model]], lambda out: parsers.gbees_cuda(out, dimension),
                        lambda p: p["elapsed_seconds"], model, "wall_seconds", "s", lower_is_better=True,
                        peer_cwd=os.path.join(args.peers_build, gc.get("cwd_" + model, "gbeescuda/" + model)),
                        peer_env={"CUDA_MODULE_LOADING": "EAGER"})

        out["gbees-cuda"] = Comparison(
            "gbees-cuda", "gbeescuda", "gbees-cuda vs pk-gbees (CUDA): Lorenz '63, Lorenz '96, CR3BP", "cuda", [],
            [case(m) for m in models],
            "gbees-cuda's examples (Lorenz3D, Lorenz6D, CR3BP) and pk-gbees --config apps/gbees/<model>.ini "
            "--paper-back-faces: the same model, initial Gaussian, cell width h = std/2, initial box of +-3 std, "
            "threshold p*, prune every 20 steps, dt = the CFL limit, measurement, end time and step ends "
            "(--snapshots at gbees-cuda's record times); pk-gbees' Lorenz '96 at F + h/2 = 4.05 takes the drifts "
            "gbees-cuda's Lorenz6D takes at F = 4; both load their kernels when the GPU starts "
            "(CUDA_MODULE_LOADING=EAGER: pk-gbees' default, set for gbees-cuda)",
            "gbees-cuda's figure is its 'Elapsed' (its main's wall time: allocation, the cooperative kernel with its "
            "progress prints, freeing), ours pk-gbees' wall_seconds (its solver's run, snapshots apart); one run "
            "each per repetition, no warm-up on either side; gbees-cuda's grid capacity is fixed at build time "
            "(config.h, each case's peer_build), pk-gbees' grows; "
            "CR3BP: gbees-cuda bounds its grid by the Jacobi constant (useBounds), pk-gbees does not, so it "
            "grows more cells late in the run; Lorenz '96: gbees-cuda's PDF files are off",
            ours=pk_gbees, ours_read=read_pk_gbees)
    bs = build_info(args, "babelstream")
    if bs:
        n = {"tiny": 1 << 20, "small": 1 << 24, "full": 1 << 27}[args.copy_size]
        for model, space in (("cuda", "cuda"), ("kokkos", args.kokkos_space), ("omp", "openmp")):
            if "binary_" + model not in bs:
                continue
            cmd = [bs["binary_" + model], "--csv", "--only", "Copy", "--arraysize", str(n), "--numtimes",
                   str(args.copy_times), "--gigabytes"]
            out["babelstream-" + model] = Comparison(
                "babelstream-" + model, "babelstream", "BabelStream %s model vs pk-bench copy (%s)" % (model, space),
                space, ["--kernel", "copy", "--space", space, "--size", args.copy_size, "--case", "^range-policy$"],
                [Case("copy-%d" % n, {"elements": n, "bytes_per_copy": 16 * n, "type": "double"}, cmd,
                      parsers.babelstream, lambda p: p["avg_gbs"], "range-policy", "bandwidth_gbs", "GB/s",
                      peer_headline=("max GB/s", "max_gbs"))],
                "c[i] = a[i] over the same number of doubles, 2 x 8 bytes an element counted",
                "BabelStream's figure here is its mean over --numtimes (its headline, the best run, is kept beside "
                "it); ours is pk-bench's median of 20 copies in its copy probe")
    return out


def run_logged(cmd, env, log, timeout, cwd=None):
    start = time.time()
    with open(log, "w") as f:
        f.write("$ %s\n" % " ".join(["%s=%s" % kv for kv in sorted(env.items())] + [shlex.quote(c) for c in cmd]))
        f.flush()
        full_env = dict(os.environ, **env)
        try:
            p = subprocess.run(cmd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                               cwd=cwd)
            out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = (e.stdout or b"").decode("utf-8", "replace") + "\n[timed out]\n", 124
        except OSError as e:
            out, rc = str(e), 127
        f.write(out)
    return rc, out, time.time() - start


def failure_text(out):
    """What a failed run said: its first line naming an error (and the next two), else its end."""
    lines = [l.strip(" |'-") for l in parsers.ANSI.sub("", out).replace("\r", "\n").splitlines()]
    lines = [l for l in lines if l]
    for i, line in enumerate(lines):
        if re.search(r"\berror\b", line, re.I):
            return " | ".join(lines[i:i + 3])[:300]
    return " | ".join(lines[-3:])[-300:]


def stats(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)} \
        if values else None


def cpu_time():
    """(all, stolen): the CPU time of this machine's CPUs in /proc/stat, and what the hypervisor
    gave to other guests (steal); None where it cannot be read."""
    try:
        with open("/proc/stat") as f:
            rows = [line.split()[1:9] for line in f if re.match(r"cpu\d", line)]
        ticks = [[int(t) for t in row] for row in rows if len(row) == 8]
    except (OSError, ValueError):
        return None
    return (sum(map(sum, ticks)), sum(row[7] for row in ticks)) if ticks else None


def stolen_share(before, after):
    """The share of the CPU time between two cpu_time() readings that other guests took, as
    pk-bench's host_stolen_share (over a comparison's repetitions here); None where unknown."""
    if before is None or after is None or after[0] <= before[0]:
        return None
    return (after[1] - before[1]) / (after[0] - before[0])


def machine():
    info = {"host": platform.node(), "cpu": platform.processor(), "threads": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            if m:
                info["cpu"] = m.group(1).strip()
    except OSError:
        pass
    if shutil.which("nvidia-smi"):
        try:
            q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
            info["gpus"] = [line.strip() for line in q.stdout.decode().splitlines() if line.strip()]
        except (OSError, subprocess.TimeoutExpired):
            pass
    return info


def project_commit():
    try:
        q = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
        return q.stdout.decode().strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def run_comparison(comp, args, info):
    logs = os.path.join(args.out, "logs", comp.name)
    os.makedirs(logs, exist_ok=True)
    peer_vals = {c.name: [] for c in comp.cases}
    peer_parsed = {c.name: [] for c in comp.cases}
    ours_vals = {c.name: [] for c in comp.cases}
    ours_records = {c.name: [] for c in comp.cases}
    errors = {c.name: [] for c in comp.cases}
    dropped = set()
    ours_cmd = None
    cpu_before = cpu_time()
    for rep in range(args.reps):
        this_rep = {}  # case: the peer's figure and parsed output in this repetition
        for case in comp.cases:
            if case.name in dropped:
                continue
            if case.peer_from:
                if case.peer_from in this_rep:
                    peer_vals[case.name].append(this_rep[case.peer_from][0])
                    peer_parsed[case.name].append(this_rep[case.peer_from][1])
                else:
                    errors[case.name].append("peer, repetition %d: no run of %s" % (rep, case.peer_from))
                    if rep == 0:
                        dropped.add(case.name)
                continue
            log = os.path.join(logs, "%s-peer-%d.log" % (case.name, rep))
            rc, out, secs = run_logged(case.peer_cmd, case.peer_env, log, args.timeout, case.peer_cwd)
            try:
                if rc != 0:
                    raise parsers.ParseError("exit status %d" % rc)
                parsed = case.parse(out)
                peer_vals[case.name].append(case.peer_figure(parsed))
                peer_parsed[case.name].append(parsed)
                this_rep[case.name] = (peer_vals[case.name][-1], parsed)
                say("%s %s rep %d: peer %.6g %s (%.1f s)" % (comp.name, case.name, rep, peer_vals[case.name][-1],
                                                             case.unit, secs))
            except parsers.ParseError as e:
                tail = failure_text(out)
                errors[case.name].append("peer, repetition %d: %s (log %s: %s)" % (rep, e, os.path.relpath(log, args.out),
                                                                                  tail))
                say("%s %s rep %d: peer failed: %s; log %s" % (comp.name, case.name, rep, e, log))
                if rep == 0:
                    dropped.add(case.name)  # a peer that cannot run a case is not asked again
        wanted = [c for c in comp.cases if c.name not in dropped]
        if not wanted:
            break
        rec_dir = os.path.join(args.out, "pk-bench", comp.name, "rep%d" % rep)
        shutil.rmtree(rec_dir, ignore_errors=True)
        os.makedirs(rec_dir)
        ours_cmd = comp.ours_command(args, rec_dir, wanted)
        rc, secs = 0, 0.0
        for i, cmd in enumerate(ours_cmd if isinstance(ours_cmd[0], list) else [ours_cmd]):  # one or several
            log = os.path.join(logs, "ours-%d%s.log" % (rep, "-%d" % i if i else ""))
            rc_i, out, secs_i = run_logged(cmd, {}, log, args.timeout)
            rc, secs = rc or rc_i, secs + secs_i
        try:
            found = comp.read_ours(rec_dir)
        except (parsers.ParseError, OSError) as e:
            found = {}
            say("%s rep %d: pk-bench records unreadable: %s" % (comp.name, rep, e))
        for case in wanted:
            r = found.get(case.ours_case)
            if rc == 0 and r is not None and case.ours_metric in r["metrics"]:
                ours_vals[case.name].append(r["metrics"][case.ours_metric])
                ours_records[case.name].append(r)
                say("%s %s rep %d: ours %.6g %s" % (comp.name, case.name, rep, ours_vals[case.name][-1], case.unit))
            else:
                why = "exit status %d" % rc if rc else "no record of case %s" % case.ours_case
                errors[case.name].append("ours, repetition %d: %s (log %s)" % (rep, why, os.path.relpath(log, args.out)))
                say("%s %s rep %d: pk-bench failed: %s; log %s" % (comp.name, case.name, rep, why, log))
        say("%s rep %d: ours %.1f s" % (comp.name, rep, secs))

    stolen = stolen_share(cpu_before, cpu_time())
    binfo = build_info(args, comp.peer) or {}
    written = []
    for case in comp.cases:
        p, o = stats(peer_vals[case.name]), stats(ours_vals[case.name])
        # The ratio: above 1, ours is faster (rates: ours / peer; times: peer / ours).
        ratio = (lambda peer, ours: peer / ours) if case.lower_is_better else (lambda peer, ours: ours / peer)
        pairs = [ratio(a, b) for a, b in zip(peer_vals[case.name], ours_vals[case.name]) if a > 0 and b > 0]
        first = ours_records[case.name][0] if ours_records[case.name] else {}
        record = {
            "comparison": comp.name, "title": comp.title, "case": case.name, "space": comp.space,
            "peer": {"name": comp.peer, "repo": binfo.get("repo"), "commit": binfo.get("commit"),
                     "pinned_commit": binfo.get("pinned_commit"), "build": binfo,
                     "command": case.peer_cmd, "environment": case.peer_env,
                     "figure": case.unit, "values": peer_vals[case.name], "stats": p,
                     "parsed": peer_parsed[case.name]},
            "ours": {"pk_bench_case": case.ours_case, "metric": case.ours_metric, "command": ours_cmd,
                     "values": ours_vals[case.name], "stats": o, "commit": first.get("commit"),
                     "device": first.get("device"), "kokkos": first.get("kokkos"),
                     "metrics": [r["metrics"] for r in ours_records[case.name]]},
            "problem": case.problem, "unit": case.unit, "same": comp.same, "differs": comp.differs,
            "ratio": ratio(p["median"], o["median"]) if p and o and p["median"] > 0 and o["median"] > 0 else None,
            "ratio_means": "peer / ours (a time)" if case.lower_is_better else "ours / peer (a rate)",
            "higher_is_better": not case.lower_is_better,  # of both figures, peer's and ours
            "ratio_pairs": stats(pairs),
            "peer_headline": None, "repetitions": args.reps, "interleaved": "peer then ours, every repetition",
            "errors": errors[case.name], "machine": info, "harness_commit": project_commit(),
            "host_stolen_share": stolen,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "harness_command": [sys.argv[0]] + sys.argv[1:],
        }
        if case.peer_headline and peer_parsed[case.name]:
            name, key = case.peer_headline
            vals = [q[key] for q in peer_parsed[case.name] if key in q]
            record["peer_headline"] = {"name": name, "stats": stats(vals),
                                       "ratio": ratio(statistics.median(vals), o["median"]) if o and vals else None}
        path = os.path.join(args.out, "%s-%s.json" % (comp.name, case.name))
        save_text(path, json.dumps(record, indent=2, sort_keys=True))
        written.append(path)
    # The peer's patch or scripted change beside its records.
    for extra in ("fluidx3d.patch", "default-shared.diff", "gbeescuda.patch"):
        src = os.path.join(args.peers_build, comp.peer, extra)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(args.out, "%s-%s" % (comp.peer, extra) if not extra.startswith(comp.peer)
                                          else extra))
    return written


def load_records(dirs):
    found = [r for d in dirs for _, r in records.objects(d) if "comparison" in r and "ratio" in r]
    # By comparison, then case with its numbers in order (fp32-256 before fp32-1024).
    key = lambda r: (r["comparison"], [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", r["case"])])
    return sorted(found, key=key)


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 1e6:
        return "%.3e" % x
    return ("%.0f" % x) if abs(x) >= 100 else ("%.4g" % x)


def fmt_stats(s):
    return "-" if not s else "%s [%s, %s]" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"]))


def accuracy_line(r):
    """Both codes' largest errors on the reference points, where both records give them (the
    same in every repetition: one kind of run, the same points)."""
    peer = [p for p in r["peer"].get("parsed", []) if "max_rel_error" in p]
    ours = [m for m in r["ours"].get("metrics", []) if "max_rel_error" in m]
    if not peer or not ours:
        return None
    def pair(m):
        return "%s / %s" % (fmt(m["max_rel_error"]), fmt(m.get("max_rel_error_gp")))
    return ("- accuracy, %s: the largest relative error of K or log K on the mpmath reference points "
            "(tests/besselk/reference.txt) in the tested box (nu <= 50, x in [1e-6, 700]) / in the timed points' box "
            "(nu in [0.05, 5], x in [1e-3, 100]): peer %s (%s unanswered), ours %s (%s unanswered)." % (
                r["case"], pair(peer[0]), peer[0].get("unanswered", "?"), pair(ours[0]),
                fmt(ours[0].get("unanswered"))))


def report(found, out):
    """OUT/peers.md (a table) and OUT/peers.png (one chart) over the records FOUND."""
    os.makedirs(out, exist_ok=True)
    lines = ["# The peers beside PortableKernels", "",
             "Each row: the same problem run by the peer and by pk-bench, repetitions interleaved "
             "(peer, ours, peer, ours, ...); median [min, max] over the repetitions; ours vs peer = the ratio of "
             "the medians taken so that above 1 ours is faster (ours / peer for a rate, peer / ours for a time). "
             "Generated by perf/peers/run.py.", "",
             "| comparison | case | peer | ours | unit | ours vs peer | peer's headline (ours vs it) | reps | peer commit |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in found:
        head = r.get("peer_headline")
        head_s = "-" if not head or not head.get("stats") else "%s %s (%s)" % (head["name"], fmt(head["stats"]["median"]),
                                                                           fmt(head.get("ratio")))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %d/%d | %s |" % (
            r["comparison"], r["case"], fmt_stats(r["peer"]["stats"]), fmt_stats(r["ours"]["stats"]), r["unit"],
            fmt(r["ratio"]), head_s, min((r["peer"]["stats"] or {"n": 0})["n"], (r["ours"]["stats"] or {"n": 0})["n"]),
            r["repetitions"], (r["peer"].get("commit") or "?")[:10]))
    seen = set()
    for r in sorted(found, key=lambda r: r["ours"]["stats"] is None):  # one that ran speaks for its comparison
        if r["comparison"] in seen:
            continue
        seen.add(r["comparison"])
        lines += ["", "**%s**: %s." % (r["comparison"], r.get("title", "")), "",
                  "- same: %s." % r.get("same", ""), "- differs: %s." % r.get("differs", "")]
        o = r["ours"]
        lines += [a for a in (accuracy_line(c) for c in found if c["comparison"] == r["comparison"]) if a]
        lines.append("- machine: %s; ours: %s, project commit %s; peer: %s at %s." % (
            "; ".join([r["machine"].get("cpu", "?")] + r["machine"].get("gpus", [])), o.get("device") or "?",
            o.get("commit") or r.get("harness_commit") or "?", r["peer"].get("repo"), r["peer"].get("commit")))
        if r.get("host_stolen_share") is not None:
            lines.append("- the CPUs' time other guests of the virtual machine took during the repetitions: %.1f %%%s" % (
                100 * r["host_stolen_share"], " (above 2 %: the figures may be the neighbours')"
                if r["host_stolen_share"] > 0.02 else ""))
    errs = [(r["comparison"], r["case"], e) for r in found for e in r.get("errors", [])]
    if errs:
        lines += ["", "Failures:", ""] + ["- %s %s: %s" % e for e in errs]
    save_text(os.path.join(out, "peers.md"), "\n".join(lines) + "\n")
    chart(found, os.path.join(out, "peers.png"))
    return os.path.join(out, "peers.md")


def chart(found, path):
    # Imported here, after the runs: matplotlib loads numpy, whose OpenMP OpenBLAS binds this
    # process to one CPU under OMP_PROC_BIND (device.sh sets it), and every run started after
    # that would inherit the binding.
    from pkperf import charts
    if charts.plt is None:
        say("no matplotlib: %s not drawn" % path)
        return None
    plt = charts.plt
    rows = [r for r in found if r.get("ratio")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.6))
    names = sorted({r["comparison"] for r in rows})
    colours = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(names)}
    ys = list(range(len(rows)))[::-1]
    for y, r in zip(ys, rows):
        pr = r.get("ratio_pairs") or {}
        lo, hi = pr.get("min", r["ratio"]), pr.get("max", r["ratio"])
        ax.barh(y, r["ratio"], color=colours[r["comparison"]], alpha=0.85)
        ax.errorbar(r["ratio"], y, xerr=[[max(0, r["ratio"] - lo)], [max(0, hi - r["ratio"])]], fmt="none",
                    ecolor="black", capsize=3, lw=1)
        ax.text(r["ratio"], y, "  %s vs %s %s" % (fmt(r["ours"]["stats"]["median"]), fmt(r["peer"]["stats"]["median"]),
                                                   r["unit"]), va="center", fontsize=7)
    ax.axvline(1.0, color="grey", lw=1, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels(["%s %s" % (r["comparison"], r["case"]) for r in rows], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("ours vs peer, above 1: ours faster (medians of interleaved repetitions; bars: min-max of pairs)")
    ax.set_title("PortableKernels beside its peers, same problems")
    ax.set_xlim(min(0.5, min(r["ratio"] for r in rows) / 1.5), max(2.0, max(r["ratio"] for r in rows) * 3))
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[n]) for n in names]
    ax.legend(handles, names, fontsize=7, loc="lower right")
    fig.tight_layout()
    return charts.write(fig, path, dpi=120)


def sides(text):
    return [int(s) for s in text.split(",") if s.strip()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("comparisons", nargs="*",
                    help="comparisons or groups (gpu, cpu, all); COMPARISON:CASE,... for some of its cases")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "peers", "results"))
    ap.add_argument("--pk-bench", default=os.environ.get("PK_BENCH", os.path.join(ROOT, "build", "device", "pk-bench")))
    ap.add_argument("--pk-gbees", default=os.environ.get("PK_GBEES"),
                    help="pk-gbees (default: beside pk-bench, or in apps/ of its build)")
    ap.add_argument("--peers-build", default=os.environ.get("PK_PEERS_BUILD", os.path.join(ROOT, "build", "peers")))
    ap.add_argument("--reps", type=int, default=5, help="interleaved repetitions (at least 5; default 5)")
    ap.add_argument("--gpu-sides", type=sides, default=[256, 512, 1024], help="FluidX3D vs ours: cube edges")
    ap.add_argument("--cpu-sides", type=sides, default=[256, 384], help="RRZE vs ours: cube edges")
    ap.add_argument("--fluidx3d-updates", type=float, default=1e10,
                    help="lattice updates FluidX3D times per run (loops of 10 steps, at least 3 loops)")
    ap.add_argument("--fluidx3d-cpu-updates", type=float, default=5e8,
                    help="lattice updates FluidX3D times per run on an OpenCL CPU runtime (fluidx3d-cpu)")
    ap.add_argument("--rrze-iterations", type=int, default=10)
    ap.add_argument("--rrze-kernel", default="aa-vec-sl-soa",
                    help="lbmbenchk kernel (default aa-vec-sl-soa: A-A, direct addressing, vectorised, like ours)")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--besselk-size", choices=["tiny", "small", "full"], default="small",
                    help="pk-bench size of the besselk run: its point count (2e6 at small)")
    ap.add_argument("--copy-size", choices=["tiny", "small", "full"], default="full",
                    help="pk-bench size of the copy run: its array length (2^27 doubles at full)")
    ap.add_argument("--copy-times", type=int, default=20, help="BabelStream --numtimes")
    ap.add_argument("--kokkos-space", default="cuda", help="pk-bench space to set beside BabelStream's Kokkos model")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds one run may take (gbees-cuda:lorenz96 needs more: perf/peers/README.md)")
    ap.add_argument("--report-only", action="store_true", help="only (re)write the table and chart from records")
    ap.add_argument("--allow-few-reps", action="store_true", help=argparse.SUPPRESS)  # the unit test's quick runs
    args = ap.parse_args(argv)
    args.peers_build = os.path.abspath(args.peers_build)  # peers run in their own folders
    os.makedirs(args.out, exist_ok=True)
    if args.report_only:
        dirs = args.comparisons or [args.out]
        found = load_records(dirs)
        if not found:
            ap.error("no comparison records in %s" % ", ".join(dirs))
        say("wrote %s" % report(found, args.out))
        return 0
    if args.reps < 5 and not args.allow_few_reps:
        ap.error("--reps must be at least 5")
    available = comparisons(args)
    wanted = {}  # comparison: the names of its cases to run (None: all), in the order named
    for name in args.comparisons or ["all"]:
        for item in GROUPS.get(name, [name]):
            n, _, named_cases = item.partition(":")
            if n not in KNOWN:
                ap.error("unknown comparison %r (%s, or gpu, cpu, all; COMPARISON:CASE,... for some cases)"
                         % (n, ", ".join(KNOWN)))
            if n not in available:
                if name != item:
                    continue  # a group names what is built
                if n == "fluidx3d-cpu" and build_info(args, "fluidx3d"):
                    ap.error("fluidx3d-cpu: no OpenCL CPU runtime (PK_PEERS_OPENCL_CPU_VENDORS: a vendors folder)")
                ap.error("%s: its peer is not built in %s (perf/peers/<peer>/build.sh)" % (n, args.peers_build))
            cases = named_cases.split(",") if named_cases else None
            known = [c.name for c in available[n].cases]
            for c in cases or []:
                if c not in known:
                    ap.error("%s has no case %r (%s)" % (n, c, ", ".join(known)))
            if n not in wanted:
                wanted[n] = cases
            elif wanted[n] is not None:
                wanted[n] = None if cases is None else wanted[n] + [c for c in cases if c not in wanted[n]]
    if not wanted:
        ap.error("no peer of %s is built in %s" % (" ".join(args.comparisons or ["all"]), args.peers_build))
    if not args.pk_gbees:
        here = os.path.dirname(os.path.abspath(args.pk_bench))
        candidates = [os.path.join(here, "pk-gbees"), os.path.join(here, "..", "apps", "pk-gbees")]
        args.pk_gbees = next((c for c in candidates if os.access(c, os.X_OK)), candidates[0])
    if not os.access(args.pk_bench, os.X_OK):
        ap.error("no pk-bench at %s (--pk-bench or PK_BENCH)" % args.pk_bench)
    info = machine()
    for name, cases in wanted.items():
        comp = copy.copy(available[name])
        if cases is not None:
            comp.cases = [c for c in comp.cases if c.name in cases]
        start = time.time()
        say("%s: %d repetitions of %s" % (name, args.reps, ", ".join(c.name for c in comp.cases)))
        run_comparison(comp, args, info)
        say("%s: done in %.0f s" % (name, time.time() - start))
    say("wrote %s" % report(load_records([args.out]), args.out))
    return 0


if __name__ == "__main__":
    cli.main("peers", lambda: sys.exit(main()))
