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

p = parsers.gbees_cuda(fixture("gbees-cuda-h200-cr3bp.txt"))  # a real H200 log (perf/results/gbees-three-body)
check(abs(p["elapsed_seconds"] - 153.180135614) < 1e-9 and p["last_step"] == 686 and p["cells"] == 6444144 and
      p["capacity"] == 17301504 and p["processed_cells"] == 3487101015 and p["device"] == "NVIDIA H200" and
      abs(p["final_time"] - 0.889584) < 1e-12, "gbees-cuda: %r" % p)
check(rejects(parsers.gbees_cuda, "gbees-cuda-no-gpu.txt"), "gbees-cuda without a GPU is not a figure")
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
    out, space = a[a.index("--out") + 1], a[a.index("--space") + 1]
    assert "--paper-back-faces" in a and os.path.exists(a[a.index("--config") + 1])
    threads = [x for x in a if x.startswith("--kokkos-num-threads=")]
    seconds = 0.5 if space == "cuda" else (2.0 if threads == ["--kokkos-num-threads=1"] else 1.0)
    os.makedirs(out, exist_ok=True)
    json.dump({"wall_seconds": seconds, "completed": True, "device": "stand-in", "final_time": 2.0, "steps": 700,
               "command": "pk-gbees", "commit": "0123456789ab"}, open(os.path.join(out, "gbees-lorenz63-%s.json" % space), "w"))
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
        json.dump(r, open(os.path.join(out, "%s-%s-%s.json" % (kernel, name, space)), "w"))
    print("pk-bench stand-in:", names)
else:
    fixture, status = sys.argv[2], int(sys.argv[3])
    if role in ("gbees-cuda", "gbees-c"):  # they read ./measurements: run in their folders
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
    "gbeescuda": {"binary_lorenz63": executable("gc", "gbees-cuda", os.path.join(fixtures, "gbees-cuda-h200-cr3bp.txt"), "0"),
                  "cwd_lorenz63": os.path.join(scratch, "gc-run")},
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

r = record("gbees-cuda-lorenz63.json")  # a time: the ratio is peer / ours
check(r["peer"]["values"] == [153.180135614] * 5 and r["ours"]["values"] == [0.5] * 5 and
      abs(r["ratio"] - 153.180135614 / 0.5) < 1e-9 and r["ratio_means"].startswith("peer / ours"), "gbees-cuda record")
check(r["ours"]["commit"] == "0123456789ab", "pk-gbees' commit in the record")
check(os.path.exists(os.path.join(out, "pk-bench", "gbees-cuda", "rep4", "gbees-lorenz63-cuda.json")), "pk-gbees out")

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
check(runs.count("pk-gbees") == 5 + 2 * 5 and runs.count("gbees-cuda") == 5, "gbees-cuda and pk-gbees interleaved")
check(runs.count("gbees-c") == 5, "one run of the serial GBEES a repetition serves both of its rows")
check(runs.count("pk-bench") == 4 * 5, "one pk-bench run per comparison and repetition: %r" % runs.count("pk-bench"))
check(runs.count("rrze-dp") == 2 * 5 and runs.count("rrze-sp") == 2 * 5, "rrze runs")
check(os.path.exists(os.path.join(out, "fluidx3d.patch")), "the patch is kept beside the records")

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
