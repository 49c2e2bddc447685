#!/usr/bin/env python3
"""Hostile-user checks of the programs, one per ctest test:

  robustness.py BINDIR full-disk | stdout-full | interrupt | shell | fuzz | input-files | memory-limit | plot |
                outputs-first | config-elsewhere | binding

full-disk: a file size limit (RLIMIT_FSIZE) makes writes fail part way: the program must
  exit 2 and leave no file, whole or partial, under a final name.
stdout-full: standard output on /dev/full: exit status 2.
interrupt: SIGINT / SIGTERM stop a run at a safe point: status 130 / 143, a summary marked
  interrupted, no temporary file left.
shell: an --out holding shell syntax runs no command (pk-gbees --plot).
fuzz: mutated command lines and input files (fixed seed, bounded count): every case ends
  with status 0 or 2 and at most one line on stderr, in time, never by a signal.
input-files: a device, a directory, a FIFO and an oversized file given to every option that
  reads a file: status 2 and one line each, at once (a FIFO without a writer must not block).
memory-limit: an address-space limit (ulimit -v, RLIMIT_AS) is honoured: a run that cannot
  fit is refused up front, one that fits runs, and a GBEES grid that outgrows the limit part
  way (lowered while it runs) stops with one line naming what fits, status 2, and the run
  until then written; pk-bench under a limit its size cannot fit refuses likewise.
outputs-first: an output folder that cannot be made (a file in its way) or a checkpoint whose
  folder cannot be, is refused by every program before its work: one line, status 2.
config-elsewhere: the shipped pk-gbees configs run from another working directory (their data
  paths name files beside them).
binding: a program started without OMP_PROC_BIND and OMP_PLACES binds its threads (spread over
  hardware threads) and its record says pk set it; a user's setting is kept and named; the
  records name OMP_WAIT_POLICY as the user set it, or unset.
plot: pk-gbees --plot finds a Python that has matplotlib past a python3 without it first on
  PATH, and says what to install when PK_PYTHON names one without it.
"""
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
failures = []


def program(name):
    for folder in ("apps", "perf"):
        path = os.path.join(BIN, folder, name)
        if os.path.exists(path):
            return path
    raise SystemExit(f"{name} not found under {BIN}")


def run(argv, timeout=20, env=None, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout, env=env or ENV,
                          **kwargs)


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def files_under(folder):
    return [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names]


def limit_file_size(size):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    return apply


def full_disk(tmp):
    lbm = os.path.join(tmp, "lbm")
    cases = [
        [program("pk-lbm"), "--space", "openmp", "--channel", "12", "6", "6", "--steps", "20", "--vti-every", "10",
         "--out", lbm],
        [program("pk-matern"), "generate", "--space", "openmp", "-n", "400", "--data", os.path.join(tmp, "m", "z.txt")],
        [program("pk-gbees"), "--space", "openmp", "--end-time", "0.05", "--no-measurements", "--snapshots", "1",
         "--out", os.path.join(tmp, "g")],
    ]
    os.makedirs(os.path.join(tmp, "m"))
    for argv in cases:
        r = run(argv, preexec_fn=limit_file_size(2048))
        name = os.path.basename(argv[0])
        check(r.returncode == 2, f"{name} on a full disk: status {r.returncode}, stderr {r.stderr!r}")
        check("failed" in r.stderr and r.stderr.count("\n") == 1, f"{name} on a full disk: stderr {r.stderr!r}")
        left = [f for f in files_under(tmp) if os.path.getsize(f) >= 2048 or ".tmp-" in f or f.endswith(".vti")]
        check(not left, f"{name} on a full disk left {left}")


def stdout_full(tmp):
    with open("/dev/full", "w") as full:
        r = subprocess.run([program("pk-info")], stdout=full, stderr=subprocess.PIPE, text=True, env=ENV, timeout=20)
    check(r.returncode == 2 and "writing to standard output failed" in r.stderr,
          f"pk-info > /dev/full: status {r.returncode}, stderr {r.stderr!r}")


def interrupt_after(argv, seconds, sig):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    time.sleep(seconds)
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err


def interrupt(tmp):
    for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        out_dir = os.path.join(tmp, f"lbm-{sig}")
        rc, out, err = interrupt_after([program("pk-lbm"), "--space", "openmp", "--channel", "32", "16", "16",
                                        "--steps", "100000000", "--vti-every", "20", "--out", out_dir], 2, sig)
        check(rc == status, f"pk-lbm stopped by signal {sig}: status {rc}, stderr {err!r}")
        record = json.load(open(os.path.join(out_dir, "lbm-aa-fp32-32x18x18-openmp.json")))
        check(record.get("interrupted") is True, f"pk-lbm signal {sig}: summary not marked interrupted")
        check(not [f for f in files_under(out_dir) if ".tmp-" in f], f"pk-lbm signal {sig}: temporary files left")
    # `timeout` sends SIGTERM to the program and then to its process group: the two copies,
    # each taken by one of the program's threads, are one request, not a second signal.
    out_dir = os.path.join(tmp, "matern")
    r = run(["timeout", "-s", "TERM", "3", program("pk-matern"), "fit", "--space", "openmp", "-n", "2500",
             "--profile-variance", "--out", out_dir], timeout=120)
    check(r.returncode == 124 and "(interrupted)" in r.stdout,
          f"pk-matern fit under timeout: status {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
    record = json.load(open(os.path.join(out_dir, "matern-fit-n2500-beta0.1-openmp.json")))
    check(record.get("interrupted") is True, "pk-matern fit under timeout: record not marked interrupted")
    out_dir = os.path.join(tmp, "gbees")
    rc, out, err = interrupt_after([program("pk-gbees"), "--space", "openmp", "--convergence", "--progress", "0",
                                    "--out", out_dir], 3, signal.SIGTERM)
    check(rc == 143, f"pk-gbees --convergence stopped by SIGTERM: status {rc}, stderr {err!r}")
    summary = json.load(open(os.path.join(out_dir, "gbees-lorenz63-openmp.json")))
    check(summary["completed"] is False and summary["interrupted"] is True,
          f"pk-gbees interrupted summary says completed {summary['completed']}")


def shell(tmp):
    marker = os.path.join(tmp, "injected")
    out_dir = os.path.join(tmp, f"out'; touch {marker}; echo '")
    r = run([program("pk-gbees"), "--space", "openmp", "--end-time", "0.05", "--no-measurements", "--snapshots", "1",
             "--plot", "--out", out_dir], timeout=120)  # matplotlib starts slowly
    check(r.returncode in (0, 2), f"pk-gbees --plot: status {r.returncode}, stderr {r.stderr!r}")
    check(not os.path.exists(marker), "pk-gbees --plot ran a command from --out")


def one_error_line(r, name, pattern):
    """Status 2 and stderr one line "NAME: error: ..." matching pattern."""
    lines = [line for line in r.stderr.split("\n") if line]
    return r.returncode == 2 and len(lines) == 1 and re.match(f"{name}: error: {pattern}", lines[0]) is not None


def input_files(tmp):
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    big = os.path.join(tmp, "big.txt")
    with open(big, "wb") as f:
        f.truncate((1 << 31) + 1)  # sparse: past every reader's bound (flag files 2 GiB, others 1 GiB)
    readers = [
        [program("pk-lbm"), "--space", "openmp", "--flag-file"],
        [program("pk-gbees"), "--space", "openmp", "--config"],
        [program("pk-gbees"), "--space", "openmp", "--measurement-file"],
        [program("pk-gbees"), "--space", "openmp", "--ensemble"],
        [program("pk-3dvar"), "--space", "openmp", "--observation-file"],
        [program("pk-matern"), "loglik", "--space", "openmp", "--data"],
    ]
    cases = [("/dev/zero", "is a character device, not a regular file"),
             (tmp, "is a directory, not a regular file"),
             (fifo, "is a FIFO, not a regular file"),
             (big, r"holds 2.15 GB, more than the [0-9.]+ [MG]B an input file may hold here")]
    for argv in readers:
        for path, what in cases:
            shown = " ".join(os.path.basename(a) for a in argv + [path])
            try:
                r = run(argv + [path], timeout=20, cwd=tmp)
            except subprocess.TimeoutExpired:
                check(False, f"hang: {shown}")
                continue
            name = os.path.basename(argv[0])
            check(one_error_line(r, name, f".*{re.escape(path)}: {what}$"),
                  f"{shown}: status {r.returncode}, stderr {r.stderr!r}")


def limit_address_space(size):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return apply


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def memory_limit(tmp):
    ulimit_v = limit_address_space(4000000 * 1024)  # ulimit -v 4000000
    out = os.path.join(tmp, "out")
    r = run([program("pk-matern"), "loglik", "--space", "openmp", "-n", "30000", "--out", out], preexec_fn=ulimit_v)
    check(one_error_line(r, "pk-matern", r"openmp: 30000 locations needs about 7.2[0-9]* GB, more than the [0-9.]+ GB it may use "
                                         r"\(90 % of [0-9.]+ GB available\): "
                                         r"about [0-9]+ locations fit \(lower --locations"),
          f"pk-matern -n 30000 under ulimit -v 4000000: status {r.returncode}, stderr {r.stderr!r}")
    r = run([program("pk-matern"), "loglik", "--space", "openmp", "-n", "400", "--out", out], preexec_fn=ulimit_v)
    check(r.returncode == 0, f"pk-matern -n 400 under ulimit -v 4000000: status {r.returncode}, stderr {r.stderr!r}")
    # A GBEES grid that outgrows the address space part way: once the paper's Lorenz '63 run is
    # under way (its grid grows tenfold after t = 0.5), its limit is lowered to what it maps
    # plus 1 MB (prlimit), which the next growths cannot fit in.
    gbees = os.path.join(tmp, "gbees")
    p = subprocess.Popen([program("pk-gbees"), "--space", "openmp", "--no-measurements", "--snapshots", "20",
                          "--progress", "0", "--out", gbees], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, errors="replace", env=ENV)
    while p.poll() is None and cpu_seconds(p.pid) < 0.3:  # past Kokkos' start, into the steps
        time.sleep(0.02)
    with open(f"/proc/{p.pid}/status") as status:
        mapped = [int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:")][0]
    resource.prlimit(p.pid, resource.RLIMIT_AS, (mapped + (1 << 20), resource.RLIM_INFINITY))
    out, err = p.communicate(timeout=120)
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    check(one_error_line(r, "pk-gbees", r"openmp: the grid outgrew the memory at t = [0-9.]+ \([0-9]+ cells\): .*"
                                        r"about [0-9]+ cells fit: set --max-cells below that.*; the run until then is in "),
          f"pk-gbees growing past its address space: status {r.returncode}, stderr {r.stderr!r}")
    summary = os.path.join(gbees, "gbees-lorenz63-openmp.json")
    check(os.path.exists(summary), "pk-gbees growing past its address space wrote no summary")
    if os.path.exists(summary):
        record = json.load(open(summary))
        check(record["completed"] is False and "stopped" in record and not record["interrupted"],
              f"pk-gbees growing past its address space: summary {record.get('completed')}, {record.get('stopped')}")
        marginals = files_under(os.path.join(gbees, "gbees-lorenz63-openmp"))
        check(len(marginals) >= 6, f"pk-gbees growing past its address space kept {len(marginals)} marginal files")
    check(not [f for f in files_under(tmp) if ".tmp-" in f], "temporary files left")
    ulimit_v = limit_address_space(200000 * 1024)  # ulimit -v 200000
    r = run([program("pk-bench"), "--space", "openmp", "--size", "small", "--kernel", "copy", "--out", out],
            preexec_fn=ulimit_v, timeout=120)
    check(one_error_line(r, "pk-bench", r"openmp: pk-bench --size small ran out of memory \(.*\): [0-9.]+ GB may be "
                                        r"used here: try a smaller --size"),
          f"pk-bench --size small under ulimit -v 200000: status {r.returncode}, stderr {r.stderr!r}")


def outputs_first(tmp):
    in_the_way = os.path.join(tmp, "a-file")
    open(in_the_way, "w").close()
    out = ["--out", in_the_way]
    programs = {
        "pk-lbm": ["--space", "openmp", "--channel", "8", "4", "4", "--steps", "5"] + out,
        "pk-gbees": ["--space", "openmp", "--end-time", "0.05", "--no-measurements", "--snapshots", "1"] + out,
        "pk-3dvar": ["--space", "openmp", "--grid", "32,24,4", "--observations", "300"] + out,
        "pk-matern": ["loglik", "--space", "openmp", "-n", "200"] + out,
        "pk-bench": ["--space", "openmp", "--size", "tiny", "--kernel", "copy"] + out,
        "pk-gbees --results": ["--space", "openmp", "--end-time", "0.05", "--no-measurements", "--out",
                               os.path.join(tmp, "o"), "--results", in_the_way],
        "pk-matern fit --checkpoint": ["fit", "--space", "openmp", "-n", "200", "--out", os.path.join(tmp, "o"),
                                       "--checkpoint", os.path.join(in_the_way, "journal")],
        "pk-lbm --checkpoint": ["--space", "openmp", "--channel", "8", "4", "4", "--out", os.path.join(tmp, "o"),
                                "--checkpoint", os.path.join(in_the_way, "c")],
    }
    for what, argv in programs.items():
        name = what.split()[0]
        r = run([program(name)] + argv, timeout=60)
        check(one_error_line(r, name, r"--(out|results|checkpoint) .*(cannot create the directory|not a directory)"),
              f"{what} with a file in the way: status {r.returncode}, stderr {r.stderr!r}")
        check("log-likelihood" not in r.stdout and "MLUPS" not in r.stdout and "steps of" not in r.stdout,
              f"{what} worked before refusing its output: {r.stdout[-300:]!r}")


def config_elsewhere(tmp):
    configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps", "gbees")
    short = ["--space", "openmp", "--mc-samples", "0", "--snapshots", "1", "--progress", "0", "--out", "out"]
    for name, end in (("lorenz63.ini", "1"), ("pcr3bp.ini", "0.02")):  # lorenz63's measurement is at t = 1
        r = run([program("pk-gbees"), "--config", os.path.join(configs, name), "--end-time", end] + short,
                timeout=120, cwd=tmp)
        check(r.returncode == 0, f"pk-gbees --config {name} from {tmp}: status {r.returncode}, stderr {r.stderr!r}")
    # A relative path on the command line is the working directory's, as before (m.txt is
    # there, not beside the config).
    with open(os.path.join(tmp, "m.txt"), "w") as f:
        f.write("0.01 3 -8 1\n")
    r = run([program("pk-gbees"), "--config", os.path.join(configs, "lorenz63.ini"), "--measurement-file", "m.txt",
             "--end-time", "0.02"] + short, timeout=120, cwd=tmp)
    check(r.returncode == 0,
          f"pk-gbees --measurement-file m.txt in {tmp}: status {r.returncode}, {r.stdout[-300:]!r} {r.stderr!r}")


def binding(tmp):
    env = {k: v for k, v in ENV.items() if k not in ("OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY")}
    env = {k: v for k, v in env.items() if not k.startswith(("OMPI_", "PMI", "SLURM_"))}
    # The binding and how idle threads wait: neither set (pk binds, the runtime's wait), then the user's.
    for user, expected, expected_wait in (({}, "spread/threads (set by pk)", "unset (the runtime's default)"),
                                          ({"OMP_PROC_BIND": "close", "OMP_WAIT_POLICY": "active"},
                                           "close/- (the user's)", "active")):
        setting, wait = user.get("OMP_PROC_BIND"), user.get("OMP_WAIT_POLICY")
        run_env = dict(env, **user)
        r = run([program("pk-bench"), "--space", "openmp", "--size", "tiny", "--kernel", "copy", "--out", tmp],
                env=run_env, timeout=120)
        records = [f for f in files_under(tmp) if f.endswith(".json")]
        check(r.returncode == 0 and records, f"pk-bench with OMP_PROC_BIND={setting}: {r.returncode} {r.stderr!r}")
        for path in records:
            record = json.load(open(path))
            got = record.get("openmp_binding")
            check(got == expected, f"OMP_PROC_BIND={setting}: {os.path.basename(path)} says {got!r}, not {expected!r}")
            got = record.get("openmp_wait_policy")
            check(got == expected_wait,
                  f"OMP_WAIT_POLICY={wait}: {os.path.basename(path)} says {got!r}, not {expected_wait!r}")
        check("OMP_PROC_BIND" not in r.stderr or setting, f"Kokkos warned of no binding: {r.stderr!r}")


def plot(tmp):
    fake = os.path.join(tmp, "bin")
    os.makedirs(fake)
    os.symlink("/bin/false", os.path.join(fake, "python3"))  # a python3 without matplotlib
    argv = [program("pk-gbees"), "--space", "openmp", "--end-time", "0.05", "--no-measurements", "--snapshots", "1",
            "--progress", "0", "--plot", "--out", os.path.join(tmp, "out")]
    debian = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode == 0
    r = run(argv, env=dict(ENV, PATH=fake + ":" + ENV.get("PATH", "")), timeout=120)  # matplotlib starts slowly
    if debian:
        check(r.returncode == 0 and [f for f in files_under(tmp) if f.endswith(".png")],
              f"pk-gbees --plot with a python3 without matplotlib first on PATH: status {r.returncode}, {r.stderr!r}")
    r = run(argv, env=dict(ENV, PK_PYTHON=os.path.join(fake, "python3")))
    check(one_error_line(r, "pk-gbees", r"--plot needs a Python with matplotlib, and PK_PYTHON=.* has it: install it "
                                        r"\(Debian: apt-get install python3-matplotlib"),
          f"pk-gbees --plot with PK_PYTHON without matplotlib: status {r.returncode}, stderr {r.stderr!r}")


HOSTILE = ["-1", "0", "-2", "nan", "inf", "-inf", "1e308", "", "abc", "99999999999999999999", "-2147483648",
           "0x10", "1,2", "1,,2", "'; touch pk-fuzz-injected; '", "a\nb", "\x7fELF", "x" * 3000, "all,openmp",
           "--", "=", "3.5", "é"]
KOKKOS = ["--kokkos-threads=0", "--kokkos-threads=100000", "--kokkos-threads=abc", "--kokkos-num-threads=2",
          "--kokkos-num-threads=0", "--kokkos-num-threads=-1", "--kokkos-device-id=-1", "--kokkos-device=-1",
          "--kokkos-ndevices=0", "--kokkos-num-devices=0,9", "--kokkos-map-device-id-by=rank",
          "--kokkos-disable-warnings=maybe", "--kokkos-print-configuration=2", "--kokkos-help=1", "--kokkos-foo",
          "--kokkos-threads"]


def mutate_argv(rng, argv):
    argv = list(argv)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(5)
        i = rng.randrange(1, len(argv)) if len(argv) > 1 else 1
        if kind == 0 and len(argv) > 1:
            argv[i] = rng.choice(HOSTILE)
        elif kind == 1 and len(argv) > 1:
            del argv[i]
        elif kind == 2:
            argv.insert(i, rng.choice(KOKKOS))
        elif kind == 3:
            argv.insert(i, rng.choice(["--bogus", "-K", "--steps", "--tile", "--snapshots", "--grid", "--config"]))
        else:
            argv.insert(i, rng.choice(HOSTILE))
    return argv


def mutate_text(rng, text):
    data = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        i = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[min(i, len(data) - 1)] = rng.randrange(256)
        elif kind == 1:
            data[i:i] = rng.choice([b" 7", b"x", b"\n", b"[s]\n", b"#", b"=", b"\0", b"nan", b",", b"-"])
        elif kind == 2:
            del data[i:i + rng.randint(1, 5)]
        else:
            data = data[:i]  # a truncated file
    return bytes(data)


def fuzz(tmp):
    rng = random.Random(20261124)
    out = os.path.join(tmp, "out")
    matern_data = os.path.join(tmp, "matern.txt")
    with open(matern_data, "w") as f:
        f.write("# x y z\n" + "".join(f"{0.1 * i:.1f} {0.05 * (i * 7 % 11):.2f} {0.3 * (i % 5) - 0.6:.1f}\n" for i in range(12)))
    files = {  # base file, and a command that reads it (FILE replaced)
        "gbees.ini": ("model = lorenz63\nstd = 1\nh = 0.5\nend-time = 0.05\nno-measurements = true\nsnapshots = 1\n",
                      [program("pk-gbees"), "--space", "openmp", "--config", "FILE", "--out", out]),
        "measurements.txt": ("# t component value std\n0.02 3 -8 1\n0.04 1 -11 2\n",
                             [program("pk-gbees"), "--space", "openmp", "--end-time", "0.05", "--snapshots", "1",
                              "--measurement-file", "FILE", "--out", out]),
        "obs.txt": ("# x y z value error_std\n1 2 0 0.5 0.1\n3 4 1 0.2 0.1\n5.5 1 2 -0.1 0.2\n",
                    [program("pk-3dvar"), "--space", "openmp", "--grid", "8,8,4", "--chunks", "2",
                     "--observation-file", "FILE", "--out", out]),
        "matern.txt": (open(matern_data).read(),
                       [program("pk-matern"), "loglik", "--space", "openmp", "--data", "FILE", "--out", out]),
    }
    commands = [
        [program("pk-lbm"), "--space", "openmp", "--channel", "8", "4", "4", "--steps", "5", "--vti-every", "2",
         "--out", out],
        [program("pk-3dvar"), "--space", "openmp", "--grid", "8,8,4", "--observations", "20", "--chunks", "2",
         "-K", "2", "--out", out],
        [program("pk-gbees"), "--space", "openmp", "--end-time", "0.05", "--no-measurements", "--snapshots", "1",
         "--mc-samples", "200", "--out", out],
        [program("pk-matern"), "loglik", "--space", "openmp", "-n", "60", "--tile", "16", "--out", out],
        [program("pk-matern"), "generate", "--space", "openmp", "-n", "40", "--data", matern_data + ".out"],
        [program("pk-bench"), "--space", "openmp", "--kernel", "copy", "--size", "tiny", "--out", out],
        [program("pk-info")],
    ]
    cases = []
    for _ in range(15):
        for argv in commands:
            cases.append(mutate_argv(rng, argv))
    for name, (text, argv) in files.items():
        for k in range(10):
            path = os.path.join(tmp, f"{k}-{name}")
            with open(path, "wb") as f:
                f.write(mutate_text(rng, text))
            cases.append([path if a == "FILE" else a for a in argv])
    start = time.time()
    for argv in cases:
        shown = " ".join(repr(a) if len(a) < 60 else repr(a[:20] + "...") for a in argv)
        try:
            r = run(argv, timeout=30, cwd=tmp)
        except subprocess.TimeoutExpired:
            check(False, f"hang: {shown}")
            continue
        check(r.returncode in (0, 2), f"status {r.returncode}: {shown}\n  stderr: {r.stderr[-300:]!r}")
        # Progress lines ('\r' ... ETA / MLUPS) and "wrote FILE" are not errors.
        errors = [line for line in r.stderr.replace("\r", "\n").split("\n")
                  if line.strip() and not line.startswith("wrote ") and " ETA " not in line and "MLUPS" not in line]
        check(len(errors) <= 1, f"{len(errors)} lines on stderr: {shown}\n  stderr: {r.stderr[-300:]!r}")
        check(not os.path.exists(os.path.join(tmp, "pk-fuzz-injected")), f"a command ran: {shown}")
    print(f"{len(cases)} cases in {time.time() - start:.1f} s")


with tempfile.TemporaryDirectory(prefix="pk-robustness-") as tmp:
    {"full-disk": full_disk, "stdout-full": stdout_full, "interrupt": interrupt, "shell": shell, "fuzz": fuzz,
     "input-files": input_files, "memory-limit": memory_limit, "plot": plot, "outputs-first": outputs_first,
     "config-elsewhere": config_elsewhere, "binding": binding}[sys.argv[2]](tmp)
if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("all passed")
