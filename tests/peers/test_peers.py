#!/usr/bin/env python3
"""The peers harness without the peers (#62 item 2): perf/peers/parsers.py on captured output
(tests/peers/fixtures: real output where the peer could run on a CPU-only machine, the rest
composed from the peer's or the driver's format strings, named *-composed.txt), then
perf/peers/run.py end to end over stand-in peers and a stand-in pk-bench: interleaving,
records, ratios, failures, the table and the chart.
    test_peers.py PERF-PEERS-DIR SCRATCH-DIR
"""
import json
import os
import shutil
import stat
import subprocess
import sys

peers_dir, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, peers_dir)
import parsers  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def fixture(name):
    with open(os.path.join(fixtures, name), encoding="utf-8", errors="replace") as f:
        return f.read()


def rejects(parse, name):
    try:
        parse(fixture(name))
    except parsers.ParseError:
        return True
    return False


# --- the parsers ---------------------------------------------------------------------------
p = parsers.fluidx3d(fixture("fluidx3d-fp32-composed.txt"))
check(p["mean_mlups"] == 22812.4 and p["peak_mlups"] == 23081, "fluidx3d fp32 figures: %r" % p)
check(p["grid"] == [256, 256, 256] and p["cells"] == 16777216, "fluidx3d grid: %r" % p)
check(p["lbm_type"] == "D3Q19 SRT (FP32/FP32)" and p["device"] == "NVIDIA H200", "fluidx3d type/device: %r" % p)
p = parsers.fluidx3d(fixture("fluidx3d-fp16s-composed.txt"))
check(p["mean_mlups"] == 35977.2 and p["lbm_type"].endswith("(FP32/FP16S)"), "fluidx3d fp16s: %r" % p)
check(rejects(parsers.fluidx3d, "fluidx3d-no-device.txt"), "fluidx3d without an OpenCL device is not a figure")

p = parsers.rrze(fixture("rrze-dp-aa-vec-sl-soa.txt"))
check(abs(p["mflups"] - 183.444555) < 1e-9 and p["precision"] == "dp" and p["kernel"] == "aa-vec-sl-soa",
      "rrze dp: %r" % p)
check(p["threads"] == 2 and p["iterations"] == 10 and p["fluid_nodes"] == 262144 and p["periodic"] == [1, 1, 1],
      "rrze dp details: %r" % p)
p = parsers.rrze(fixture("rrze-sp-list-aa-pv-soa.txt"))
check(p["precision"] == "sp" and p["kernel"] == "list-aa-pv-soa" and p["geometry"] == "box", "rrze sp: %r" % p)
check(rejects(parsers.rrze, "rrze-unknown-kernel.txt"), "rrze with an unknown kernel is not a figure")

p = parsers.cubesselk(fixture("cubesselk-composed.txt"))
check(p["points"] == 2000000 and p["evals_per_second"] == 1.62e9 and p["device"] == "NVIDIA H200",
      "cubesselk: %r" % p)
check(rejects(parsers.cubesselk, "cubesselk-no-gpu.txt"), "cubesselk without a GPU is not a figure")
check(rejects(parsers.cubesselk, "cubesselk-not-finite-composed.txt"), "cubesselk with non-finite K is not a figure")

p = parsers.babelstream(fixture("babelstream-omp.txt"))
check(p["n_elements"] == 4194304 and p["max_gbs"] == 44.4519 and p["num_times"] == 10, "babelstream: %r" % p)
check(abs(p["avg_gbs"] - 2 * 4194304 * 8 / 0.0158383 * 1e-9) < 1e-9, "babelstream mean rate: %r" % p)
p = parsers.babelstream(fixture("babelstream-kokkos-openmp.txt"))  # Kokkos' warnings before the CSV
check(p["n_elements"] == 4194304 and p["max_gbs"] == 31.7057 and p["avg_seconds"] == 0.0076703, "babelstream kokkos")
check(rejects(parsers.babelstream, "babelstream-cuda-no-gpu.txt"), "babelstream without a GPU is not a figure")
mb = fixture("babelstream-omp.txt").replace("max_GB_per_sec", "max_MB_per_sec").replace("44.4519", "44451.9")
check(abs(parsers.babelstream(mb)["max_gbs"] - 44.4519) < 1e-9, "babelstream in MB/s")

p = parsers.gbees_cuda(fixture("gbees-cuda-h200-cr3bp.txt"), 6)  # a real H200 log (perf/results/gbees-three-body)
check(abs(p["elapsed_seconds"] - 153.180135614) < 1e-9 and p["last_step"] == 686 and p["cells"] == 6444144 and
      p["capacity"] == 17301504 and p["processed_cells"] == 3487101015 and p["device"] == "NVIDIA H200" and
      abs(p["final_time"] - 0.889584) < 1e-12, "gbees-cuda: %r" % p)
check(p["dimension"] == 6 and p["initial_cells"] == 4826809 and p["steps"] == 686, "gbees-cuda CR3BP details: %r" % p)
p = parsers.gbees_cuda(fixture("gbees-cuda-lorenz63-composed.txt"), 3)  # two measurement intervals
check(abs(p["elapsed_seconds"] - 1.234567) < 1e-12 and p["steps"] == 300 + 400 and p["last_step"] == 400 and
      p["final_time"] == 2.0 and p["initial_cells"] == 2197 and p["capacity"] == 24576, "gbees-cuda L63: %r" % p)
p = parsers.gbees_cuda(fixture("gbees-cuda-lorenz96-composed.txt"), 6)
check(abs(p["elapsed_seconds"] - 123.456789) < 1e-12 and p["steps"] == 1000 and p["final_time"] == 1.3 and
      p["capacity"] == 528 * 512 * 256 and p["max_cells"] == 40000000 and p["processed_cells"] == 30000000000,
      "gbees-cuda L96: %r" % p)
check(rejects(parsers.gbees_cuda, "gbees-cuda-no-gpu.txt"), "gbees-cuda without a GPU is not a figure")
check(rejects(parsers.gbees_cuda, "gbees-cuda-capacity-exceeded-composed.txt"),
      "gbees-cuda whose grid outgrew its capacity is not a figure, though it prints 'Elapsed'")
try:
    parsers.gbees_cuda(fixture("gbees-cuda-capacity-exceeded-composed.txt"))
except parsers.ParseError as e:
    check("capacity" in str(e), "the capacity is named: %s" % e)
try:
    parsers.gbees_cuda(fixture("gbees-cuda-lorenz63-composed.txt"), 6)
    check(False, "a 3-D gbees-cuda log is not a 6-D case's figure")
except parsers.ParseError as e:
    check("3-D" in str(e) and "6-D" in str(e), "the dimensions are named: %s" % e)
p = parsers.gbees_c(fixture("gbees-c-lorenz3d.txt"))  # captured here
check(p["program_seconds"] == 7.694366 and p["final_time"] == 2.0 and p["cells"] == 21985 and p["steps"] == 497 + 616,
      "gbees-c: %r" % p)
check(rejects(parsers.gbees_c, "gbees-cuda-no-gpu.txt"), "gbees-c: a run that did not complete is not a figure")
r = parsers.pk_gbees_summary(os.path.join(fixtures, "pk-gbees"), "lorenz63", "openmp")
check(r["wall_seconds"] > 0 and r["final_time"] == 2.0 and r["steps"] == 939, "pk-gbees summary")
try:
    parsers.pk_gbees_summary(os.path.join(fixtures, "pk-gbees"), "lorenz63", "cuda")
    check(False, "a missing pk-gbees summary is an error")
except parsers.ParseError:
    pass

recs = parsers.pk_bench_records(os.path.join(fixtures, "pk-bench"), "lbm", "cuda")
check(list(recs) == ["aa-fp32-768"] and recs["aa-fp32-768"]["metrics"]["mlups"] > 0, "pk-bench lbm records: %r" % recs)
check(list(parsers.pk_bench_records(os.path.join(fixtures, "pk-bench"), "copy", "openmp")) == ["range-policy"],
      "pk-bench copy records")
check(parsers.pk_bench_records(os.path.join(fixtures, "pk-bench"), "copy", "cuda") == {}, "pk-bench: space filter")

# --- run.py end to end over stand-ins --------------------------------------------------------
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
order = os.path.join(scratch, "order.log")
stand_in = os.path.join(scratch, "stand_in.py")
with open(stand_in, "w") as f:
    f.write(r'''import json, os, re, sys
role = sys.argv[1]
with open(os.environ["PK_TEST_ORDER"], "a") as log:
    log.write(role + " " + os.environ.get("PK_PEER_N", "") + "\n")
if role == "pk-gbees":
    a = sys.argv[2:]
    out, space, config = a[a.index("--out") + 1], a[a.index("--space") + 1], a[a.index("--config") + 1]
    assert "--paper-back-faces" in a and os.path.exists(config)
    model = os.path.basename(config).split(".")[0]
    threads = [x for x in a if x.startswith("--kokkos-num-threads=")]
    seconds = 0.5 if space == "cuda" else (2.0 if threads == ["--kokkos-num-threads=1"] else 1.0)
    os.makedirs(out, exist_ok=True)
    json.dump({"wall_seconds": seconds, "completed": True, "device": "stand-in", "final_time": 2.0, "steps": 700,
               "command": "pk-gbees", "commit": "0123456789ab"}, open(os.path.join(out, "gbees-%s-%s.json" % (model, space)), "w"))
elif role == "pk-bench":
    a = sys.argv[2:]
    opt = lambda k: a[a.index(k) + 1]
    kernel, space, cases, out = opt("--kernel"), opt("--space"), opt("--case"), opt("--out")
    names = re.match(r"^\^\((.*)\)\$$", cases).group(1).split("|") if cases.startswith("^(") else [cases.strip("^$")]
    metric = {"lbm": "mlups", "besselk": "evals_per_second", "copy": "bandwidth_gbs"}[kernel]
    value = {"lbm": 30000.0, "besselk": 3.0e9, "copy": 4000.0}[kernel]
    for name in names:
        name = name.replace("\\", "")
        r = {"kernel": kernel, "case": name, "space": space, "device": "stand-in", "commit": "0123456789ab",
             "command": "pk-bench", "metrics": {metric: value}, "figure": metric, "limit": "x"}
        if kernel == "besselk":
            r["metrics"].update(max_rel_error=3.1e-15, max_rel_error_gp=7.8e-16, unanswered=0.0)
        json.dump(r, open(os.path.join(out, "%s-%s-%s.json" % (kernel, name, space)), "w"))
    print("pk-bench stand-in:", names)
else:
    fixture, status = sys.argv[2], int(sys.argv[3])
    if role.startswith("gbees-c"):  # gbees-cuda and gbees-c read ./measurements: run in their folders
        assert os.path.isdir("measurements"), os.getcwd()
    sys.stdout.write(open(fixture).read())
    sys.exit(status)
''')


def executable(name, *args):
    path = os.path.join(scratch, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexec %s %s %s \"$@\"\n" % (sys.executable, stand_in, " ".join(args)))
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


build = os.path.join(scratch, "build")
infos = {
    "fluidx3d": {"binary_fp32": executable("fx32", "fluidx3d-fp32", os.path.join(fixtures, "fluidx3d-fp32-composed.txt"), "0"),
                 "binary_fp16s": executable("fx16", "fluidx3d-fp16s", os.path.join(fixtures, "fluidx3d-no-device.txt"), "1")},
    "rrze": {"binary_dp": executable("rdp", "rrze-dp", os.path.join(fixtures, "rrze-dp-aa-vec-sl-soa.txt"), "0"),
             "binary_sp": executable("rsp", "rrze-sp", os.path.join(fixtures, "rrze-sp-list-aa-pv-soa.txt"), "0")},
    "cubesselk": {"binary": executable("cb", "cubesselk", os.path.join(fixtures, "cubesselk-composed.txt"), "0")},
    "gbeescuda": {"binary_lorenz63": executable("gc63", "gbees-cuda-lorenz63",
                                                os.path.join(fixtures, "gbees-cuda-lorenz63-composed.txt"), "0"),
                  "binary_lorenz96": executable("gc96", "gbees-cuda-lorenz96",
                                                os.path.join(fixtures, "gbees-cuda-lorenz96-composed.txt"), "0"),
                  "binary_cr3bp": executable("gc3b", "gbees-cuda-cr3bp",
                                             os.path.join(fixtures, "gbees-cuda-h200-cr3bp.txt"), "0"),
                  "cwd_lorenz63": os.path.join(scratch, "gc-run"), "cwd_lorenz96": os.path.join(scratch, "gc-run"),
                  "cwd_cr3bp": os.path.join(scratch, "gc-run")},
    "gbeesc": {"binary_lorenz3d": executable("gcpu", "gbees-c", os.path.join(fixtures, "gbees-c-lorenz3d.txt"), "0"),
               "cwd_lorenz3d": os.path.join(scratch, "gc-run")},
    "babelstream": {"binary_omp": executable("bso", "babelstream-omp", os.path.join(fixtures, "babelstream-omp.txt"), "0")},
}
for peer, info in infos.items():
    os.makedirs(os.path.join(build, peer))
    info.update({"peer": peer, "repo": "https://example.invalid/" + peer, "commit": "c0ffee" + peer, "flags": "-O3"})
    with open(os.path.join(build, peer, "build-info.json"), "w") as f:
        json.dump(info, f)
with open(os.path.join(build, "fluidx3d", "fluidx3d.patch"), "w") as f:
    f.write("diff stand-in\n")
pk_bench = executable("pk-bench", "pk-bench")
executable("pk-gbees", "pk-gbees")  # found beside pk-bench
os.makedirs(os.path.join(scratch, "gc-run", "measurements"))
out = os.path.join(scratch, "out")
env = dict(os.environ, PK_TEST_ORDER=order)
run = [sys.executable, os.path.join(peers_dir, "run.py"), "--out", out, "--pk-bench", pk_bench, "--peers-build", build,
       "--gpu-sides", "64", "--cpu-sides", "64,128", "--copy-size", "tiny", "--besselk-size", "small", "--threads", "2"]
few = subprocess.run(run + ["--reps", "3", "all"], env=env, stderr=subprocess.PIPE)
check(few.returncode != 0 and b"at least 5" in few.stderr, "fewer than 5 repetitions are refused")
unknown = subprocess.run(run + ["babelstream-cuda"], env=env, stderr=subprocess.PIPE)
check(unknown.returncode != 0 and b"not built" in unknown.stderr, "a comparison whose peer is not built is refused")
done = subprocess.run(run + ["all"], env=env, stderr=subprocess.PIPE)
check(done.returncode == 0, "run.py all: status %d: %s" % (done.returncode, done.stderr.decode()[-2000:]))

names = sorted(n for n in os.listdir(out) if n.endswith(".json"))
expected = sorted(["fluidx3d-fp32-64.json", "fluidx3d-fp16s-64.json", "rrze-fp64-64.json", "rrze-fp64-128.json",
                   "rrze-fp32-64.json", "rrze-fp32-128.json", "cubesselk-evaluate-2000000.json",
                   "cubesselk-evaluate-2000000-bins64.json",
                   "babelstream-omp-copy-1048576.json", "gbees-cuda-lorenz63.json", "gbees-c-lorenz63-1thread.json",
                   "gbees-c-lorenz63-allthreads.json"])
check(names == expected, "records: %r" % names)


def record(name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


r = record("fluidx3d-fp32-64.json")
check(r["peer"]["values"] == [22812.4] * 5 and r["ours"]["values"] == [30000.0] * 5, "fluidx3d values: %r" % r["peer"])
check(abs(r["ratio"] - 30000.0 / 22812.4) < 1e-12, "fluidx3d ratio %r" % r["ratio"])
check(r["peer"]["environment"] == {"PK_PEER_N": "64", "PK_PEER_LOOPS": str(-(-int(1e10) // (10 * 64 ** 3)))},
      "fluidx3d environment: %r" % r["peer"]["environment"])
check(r["peer"]["commit"] == "c0ffeefluidx3d" and r["peer"]["build"]["flags"] == "-O3", "peer commit and flags")
check(r["ours"]["commit"] == "0123456789ab" and "--case" in r["ours"]["command"], "our commit and command")
check(r["peer_headline"]["stats"]["median"] == 23081, "FluidX3D's own peak kept: %r" % r["peer_headline"])
check(r["ours"]["pk_bench_case"] == "aa-fp32-64" and r["repetitions"] == 5 and not r["errors"], "fluidx3d record")
stolen = r["host_stolen_share"]  # None only where /proc/stat cannot be read
check(stolen is None if not os.path.exists("/proc/stat") else 0 <= stolen <= 1,
      "the share of the CPUs' time other guests took during the repetitions: %r" % stolen)
f16 = record("fluidx3d-fp16s-64.json")
check(f16["ratio"] is None and f16["peer"]["values"] == [] and len(f16["errors"]) == 1 and
      "exit status 1" in f16["errors"][0] and "No OpenCL devices" in f16["errors"][0],
      "a failing peer: no ratio, one error naming the cause: %r" % f16["errors"])
r = record("rrze-fp64-128.json")
check(r["ours"]["pk_bench_case"] == "aa-fp64-128" and "-periodic-z" in r["peer"]["command"] and
      "128x128x128" in r["peer"]["command"], "rrze record: %r" % r["peer"]["command"])
r = record("babelstream-omp-copy-1048576.json")
check(r["ours"]["pk_bench_case"] == "range-policy" and r["space"] == "openmp" and
      "1048576" in r["peer"]["command"], "babelstream record")
r = record("cubesselk-evaluate-2000000.json")
check(abs(r["ratio"] - 3.0e9 / 1.62e9) < 1e-12 and r["peer"]["command"][1] == "2000000", "cubesselk record")
check(r["peer"]["command"][4].endswith("tests/besselk/reference.txt") and os.path.exists(r["peer"]["command"][4]),
      "CuBesselK is given the reference table: %r" % r["peer"]["command"])
check(r["peer"]["parsed"][0]["max_rel_error"] == 0.985 and r["peer"]["parsed"][0]["max_rel_error_gp"] == 4.5e-14 and
      r["peer"]["parsed"][0]["box_points"] == 4788, "CuBesselK's accuracy in the record: %r" % r["peer"]["parsed"][0])
r = record("cubesselk-evaluate-2000000-bins64.json")  # the stand-in's output says 128 bins
check(r["peer"]["command"][3] == "64" and r["problem"]["peer_configuration"] == "64 bins" and r["ratio"] is None and
      "ran 128 bins, not 64" in r["errors"][0], "a CuBesselK run of other bins than asked is refused: %r" % r["errors"])

r = record("gbees-cuda-lorenz63.json")  # a time: the ratio is peer / ours
check(r["peer"]["values"] == [1.234567] * 5 and r["ours"]["values"] == [0.5] * 5 and
      abs(r["ratio"] - 1.234567 / 0.5) < 1e-9 and r["ratio_means"].startswith("peer / ours"), "gbees-cuda record")
check(r["ours"]["commit"] == "0123456789ab", "pk-gbees' commit in the record")
check(r["ours"]["command"] == [r["ours"]["command"][0]] and "lorenz63.ini" in r["ours"]["command"][0][2] and
      r["ours"]["command"][0][r["ours"]["command"][0].index("--snapshots") + 1] == "8",
      "the gpu group runs pk-gbees on Lorenz '63 alone, its steps ending at gbees-cuda's record times: %r"
      % r["ours"]["command"])
check(os.path.exists(os.path.join(out, "pk-bench", "gbees-cuda", "rep4", "lorenz63", "gbees-lorenz63-cuda.json")),
      "pk-gbees out")

r1, ra = record("gbees-c-lorenz63-1thread.json"), record("gbees-c-lorenz63-allthreads.json")
check(r1["peer"]["values"] == [7.694366] * 5 and ra["peer"]["values"] == [7.694366] * 5 and
      r1["ours"]["values"] == [2.0] * 5 and ra["ours"]["values"] == [1.0] * 5 and
      abs(r1["ratio"] - 7.694366 / 2.0) < 1e-12 and abs(ra["ratio"] - 7.694366) < 1e-12, "gbees-c records")

with open(order) as f:
    runs = [line.split()[0] for line in f]
# fluidx3d: fp32 then fp16s (which fails at the first repetition and is not run again), then ours.
fx = [x for x in runs if x.startswith("fluidx3d") or x == "pk-bench"][:10]
check(fx[:3] == ["fluidx3d-fp32", "fluidx3d-fp16s", "pk-bench"] and fx[3:5] == ["fluidx3d-fp32", "pk-bench"],
      "interleaving and the dropped case: %r" % fx)
check(runs.count("pk-gbees") == 5 + 2 * 5 and runs.count("gbees-cuda-lorenz63") == 5 and
      not {"gbees-cuda-lorenz96", "gbees-cuda-cr3bp"} & set(runs),
      "gbees-cuda and pk-gbees interleaved, the 6-D cases not in the gpu group: %r" % runs)
check(runs.count("gbees-c") == 5, "one run of the serial GBEES a repetition serves both of its rows")
check(runs.count("pk-bench") == 4 * 5, "one pk-bench run per comparison and repetition: %r" % runs.count("pk-bench"))
check(runs.count("rrze-dp") == 2 * 5 and runs.count("rrze-sp") == 2 * 5, "rrze runs")
check(os.path.exists(os.path.join(out, "fluidx3d.patch")), "the patch is kept beside the records")

# gbees-cuda's three examples, named; then one case of it.
open(order, "w").close()
gout = os.path.join(scratch, "out-gbees-cuda")
done = subprocess.run(run[:3] + [gout] + run[4:] + ["gbees-cuda"], env=env, stderr=subprocess.PIPE)
check(done.returncode == 0, "run.py gbees-cuda: status %d: %s" % (done.returncode, done.stderr.decode()[-2000:]))
check(sorted(n for n in os.listdir(gout) if n.endswith(".json")) ==
      ["gbees-cuda-cr3bp.json", "gbees-cuda-lorenz63.json", "gbees-cuda-lorenz96.json"], "gbees-cuda's three records")
with open(os.path.join(gout, "gbees-cuda-lorenz96.json")) as f:
    r = json.load(f)
cmd = [c for c in r["ours"]["command"] if "--forcing" in c]
check(r["peer"]["values"] == [123.456789] * 5 and abs(r["ratio"] - 123.456789 / 0.5) < 1e-9 and
      r["peer"]["parsed"][0]["dimension"] == 6 and len(cmd) == 1 and "lorenz96.ini" in cmd[0][2] and
      cmd[0][cmd[0].index("--forcing") + 1] == "4.05" and cmd[0][cmd[0].index("--snapshots") + 1] == "1",
      "gbees-cuda lorenz96 record: its drifts and step ends in pk-gbees' options: %r" % cmd)
with open(os.path.join(gout, "gbees-cuda-cr3bp.json")) as f:
    r = json.load(f)
cmd = [c for c in r["ours"]["command"] if "cr3bp.ini" in c[2]]
check(r["peer"]["values"] == [153.180135614] * 5 and r["ours"]["values"] == [0.5] * 5 and len(cmd) == 1 and
      cmd[0][cmd[0].index("--snapshots") + 1] == "16" and "useBounds" in r["problem"]["peer_bounds"],
      "gbees-cuda cr3bp record: %r" % cmd)
with open(order) as f:
    runs = [line.split()[0] for line in f]
check(runs[:4] == ["gbees-cuda-lorenz63", "gbees-cuda-lorenz96", "gbees-cuda-cr3bp", "pk-gbees"] and
      runs.count("pk-gbees") == 3 * 5, "each repetition: the three examples, then pk-gbees on each: %r" % runs[:8])
open(order, "w").close()
one = subprocess.run(run[:3] + [os.path.join(scratch, "out-cr3bp")] + run[4:] + ["gbees-cuda:cr3bp"], env=env,
                     stderr=subprocess.PIPE)
with open(order) as f:
    runs = [line.split()[0] for line in f]
check(one.returncode == 0 and runs == ["gbees-cuda-cr3bp", "pk-gbees"] * 5 and
      os.listdir(os.path.join(scratch, "out-cr3bp", "pk-bench", "gbees-cuda", "rep0")) == ["cr3bp"],
      "gbees-cuda:cr3bp runs that case alone: %r" % runs)
bad = subprocess.run(run + ["gbees-cuda:lorenz84"], env=env, stderr=subprocess.PIPE)
check(bad.returncode != 0 and b"no case 'lorenz84' (lorenz63, lorenz96, cr3bp)" in bad.stderr,
      "an unknown case is refused in one line: %s" % bad.stderr.decode()[-300:])

# FluidX3D through an OpenCL CPU runtime: named on its own, with a vendors folder.
refused = subprocess.run(run + ["fluidx3d-cpu"], env=env, stderr=subprocess.PIPE)
check(refused.returncode != 0 and b"OpenCL CPU runtime" in refused.stderr, "fluidx3d-cpu without a CPU runtime")
vendors = os.path.join(scratch, "vendors")
os.makedirs(vendors)
open(os.path.join(vendors, "pocl.icd"), "w").write("libpocl.so.2\n")
cpu = subprocess.run(run + ["fluidx3d-cpu"], env=dict(env, PK_PEERS_OPENCL_CPU_VENDORS=vendors), stderr=subprocess.PIPE)
check(cpu.returncode == 0, "run.py fluidx3d-cpu: %s" % cpu.stderr.decode()[-2000:])
r = record("fluidx3d-cpu-fp32-128.json")
check(r["space"] == "openmp" and r["peer"]["environment"]["OCL_ICD_VENDORS"] == vendors and
      r["ours"]["pk_bench_case"] == "aa-fp32-128" and r["ratio"] > 0, "fluidx3d-cpu record")

with open(os.path.join(out, "peers.md")) as f:
    table = f.read()
check("| fluidx3d | fp32-64 | 2.281e+04 [2.281e+04, 2.281e+04]" in table or "| fluidx3d | fp32-64 | 22812.4" in table
      or "| fluidx3d | fp32-64 |" in table, "table row for fluidx3d")
check("Failures:" in table and "fp16s-64" in table, "the table lists the failure")
check("- accuracy, evaluate-2000000: " in table and "peer 0.985 / 4.5e-14 (0 unanswered), ours 3.1e-15 / 7.8e-16 "
      "(0 unanswered)" in table, "both codes' accuracies beside the CuBesselK comparison")
check(os.path.getsize(os.path.join(out, "peers.png")) > 10000 if os.path.exists(os.path.join(out, "peers.png"))
      else False, "the chart is drawn")
os.remove(os.path.join(out, "peers.md"))
again = subprocess.run([sys.executable, os.path.join(peers_dir, "run.py"), "--report-only", "--out", out],
                       stderr=subprocess.PIPE)
check(again.returncode == 0 and os.path.exists(os.path.join(out, "peers.md")), "--report-only rewrites the table")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("peers harness: all checks passed")
