#!/usr/bin/env python3
"""Checkpoint and restart of the programs, one per ctest test:

  checkpoint.py BINDIR lbm | 3dvar | gbees | matern | refusals | mpi-lbm | mpi-3dvar  [MPIEXEC ARGS...]

lbm, 3dvar, gbees: a run stopped by SIGTERM (after SIGUSR1 asked for a checkpoint it goes on
  from) and restarted, several times, ends with the checkpoint and output files of an
  uninterrupted run, byte for byte; so does a chain of runs to growing ends (--steps,
  --max-iterations). One OpenMP thread: GBEES and 3D-Var add with atomics, whose order
  varies with several.
matern: a fit that stopped at its evaluation limit, and one stopped by SIGTERM, resume from
  their journals (--checkpoint, --restart) to the estimate of an uninterrupted fit, taking
  the evaluations the journal holds; a journal of other data is refused.
refusals: a truncated, corrupt, other-version, other-program or other-command-line
  checkpoint is refused with one line and status 2; a checkpoint that cannot be written
  (full disk) leaves the previous one whole.
mpi-lbm, mpi-3dvar: the same on 2 ranks (per-rank files and a manifest), stopped by SIGTERM
  to the launcher and by growing ends; a restart on another rank count is refused.
"""
import filecmp
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
CHECK = sys.argv[2]
MPIEXEC = sys.argv[3:]
# One OpenMP thread by OMP_NUM_THREADS, which every Kokkos reads (the option is spelled
# --kokkos-num-threads from 4.0 and --kokkos-threads before). PK_AUTOTUNE=0: launch choices
# by default, not by timing. A restart keeps its checkpoint's choices (pk-lbm's A-B stores),
# but an uninterrupted run compared with it would time its own, and on a loaded machine it
# can choose otherwise.
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", PK_AUTOTUNE="0")
failures = []


def program(name):
    return os.path.join(BIN, "apps", name)


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)
    return condition


def run(argv, timeout=300, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout, env=ENV, **kwargs)


def step_of(path):
    """The step a checkpoint (or a manifest) holds; -1 when there is none yet."""
    try:
        with open(path, "rb") as f:
            for line in f.read(4096).split(b"\n"):
                if line.startswith(b"step "):
                    return int(line[5:])
    except OSError:
        pass
    return -1


def same_files(a, b, what):
    """Every checkpoint file and every other output named in `what` equal, byte for byte."""
    ok = True
    for name in what:
        ok = check(os.path.exists(os.path.join(a, name)) and filecmp.cmp(os.path.join(a, name), os.path.join(b, name),
                                                                         shallow=False),
                   f"{name} differs between {a} and {b}") and ok
    return ok


def stop_after_checkpoint(argv, path, sig=signal.SIGTERM, usr1_first=False):
    """Starts argv, waits for a checkpoint newer than the one at `path`, sends `sig`; returns the status."""
    before = step_of(path)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.time() + 120
    while step_of(path) <= before and p.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    if usr1_first and p.poll() is None:  # a checkpoint on request, and the run goes on
        written = step_of(path)
        p.send_signal(signal.SIGUSR1)
        while step_of(path) <= written and p.poll() is None and time.time() < deadline:
            time.sleep(0.005)
        check(p.poll() is None or p.returncode == 0, f"SIGUSR1 ended {argv[0]}: status {p.returncode}")
    if p.poll() is None:
        p.send_signal(sig)
    out, err = p.communicate(timeout=300)
    return p.returncode, out, err


def signal_chain(base, path, stops):
    """Runs base + checkpoint options, stopped by SIGTERM after a new checkpoint `stops` times, then to the end."""
    restarts = 0
    argv = base + ["--checkpoint", path]
    for k in range(stops):
        rc, out, err = stop_after_checkpoint(argv, path, usr1_first=k == 0)
        if rc == 0:
            break
        if not check(rc == 143, f"{base[0]} stopped by SIGTERM: status {rc}, stderr {err[-500:]!r}"):
            return restarts
        restarts += 1
        argv = base + ["--checkpoint", path, "--restart", path]
    print(f"{os.path.basename(base[0])}: stopped by SIGTERM and restarted {restarts} times")
    r = run(argv)
    check(r.returncode == 0, f"{base[0]} restarted to the end: status {r.returncode}, stderr {r.stderr[-500:]!r}")
    return restarts


def lbm(tmp):
    case = [program("pk-lbm"), "--space", "openmp", "--channel", "16", "8", "8", "--checkpoint-every", "40"]
    # A chain to growing ends, against one run to the last.
    r = run(case + ["--steps", "300", "--vti-every", "100", "--out", f"{tmp}/ref", "--checkpoint", f"{tmp}/ref/c"])
    check(r.returncode == 0, f"pk-lbm reference: {r.stderr!r}")
    argv = case + ["--vti-every", "100", "--out", f"{tmp}/chain", "--checkpoint", f"{tmp}/chain/c"]
    for steps, restart in (("70", []), ("180", ["--restart", f"{tmp}/chain/c"]), ("300", ["--restart", f"{tmp}/chain/c"])):
        r = run(argv + ["--steps", steps] + restart)
        check(r.returncode == 0, f"pk-lbm chain to {steps}: {r.stderr!r}")
    same_files(f"{tmp}/ref", f"{tmp}/chain", ["c", "lbm-openmp-00000300.vti", "lbm-openmp-00000200.vti"])
    # Stopped by signals where they land, then run on to a common end: against one run to it.
    ab = case + ["--pattern", "ab"]
    stop = ["--out", f"{tmp}/stop", "--checkpoint", f"{tmp}/stop/c"]
    rc, out, err = stop_after_checkpoint(ab + ["--steps", "100000000"] + stop, f"{tmp}/stop/c", usr1_first=True)
    check(rc == 143, f"pk-lbm stopped by SIGTERM: status {rc}, stderr {err!r}")
    check("(interrupted)" in out, f"pk-lbm stopped: summary not marked interrupted: {out!r}")
    end = str(step_of(f"{tmp}/stop/c") + 57)
    r = run(ab + ["--steps", end] + stop + ["--restart", f"{tmp}/stop/c"])
    check(r.returncode == 0, f"pk-lbm restarted to step {end}: status {r.returncode}, stderr {r.stderr!r}")
    r = run(ab + ["--steps", end, "--out", f"{tmp}/whole", "--checkpoint", f"{tmp}/whole/c"])
    same_files(f"{tmp}/whole", f"{tmp}/stop", ["c"])


def three_dvar(tmp):
    case = [program("pk-3dvar"), "--space", "openmp", "--grid", "48,48,8", "--chunks", "2", "--observations", "800",
            "--tolerance", "1e-12", "--max-iterations", "2000", "--checkpoint-every", "3"]
    r = run(case + ["--out", f"{tmp}/ref", "--checkpoint", f"{tmp}/ref/c"])
    check(r.returncode == 0 and "CG converged" in r.stdout, f"pk-3dvar reference: {r.stdout!r} {r.stderr!r}")
    restarts = signal_chain(case + ["--out", f"{tmp}/stop"], f"{tmp}/stop/c", 3)
    check(restarts >= 1, "pk-3dvar: no run was stopped by SIGTERM before it ended")
    same_files(f"{tmp}/ref", f"{tmp}/stop", ["c"])
    chain = ["--out", f"{tmp}/chain", "--checkpoint", f"{tmp}/chain/c"]
    for limit, restart in (("8", []), ("20", ["--restart", f"{tmp}/chain/c"]), ("2000", ["--restart", f"{tmp}/chain/c"])):
        r = run([a if a != "2000" else limit for a in case] + chain + restart)
    check(r.returncode == 0 and "CG converged" in r.stdout, f"pk-3dvar chain: {r.stdout!r} {r.stderr!r}")
    same_files(f"{tmp}/ref", f"{tmp}/chain", ["c"])


def gbees(tmp):
    case = [program("pk-gbees"), "--space", "openmp", "--end-time", "1.2", "--snapshots", "3", "--progress", "0",
            "--checkpoint-every", "25", "--measurement-file", os.path.join(tmp, "m.txt")]
    with open(os.path.join(tmp, "m.txt"), "w") as f:
        f.write("0.4 3 -8 1\n0.8 1 -11 2\n")
    r = run(case + ["--out", f"{tmp}/ref", "--checkpoint", f"{tmp}/ref/c"])
    check(r.returncode == 0, f"pk-gbees reference: {r.stderr!r}")
    restarts = signal_chain(case + ["--out", f"{tmp}/stop"], f"{tmp}/stop/c", 4)
    check(restarts >= 1, "pk-gbees: no run was stopped by SIGTERM before it ended")
    marginal = "gbees-lorenz63-openmp/marginal-t1.2000-x1.csv"
    same_files(f"{tmp}/ref", f"{tmp}/stop", ["c", marginal])


def refusals(tmp):
    lbm = [program("pk-lbm"), "--space", "openmp", "--channel", "12", "6", "6", "--steps", "20"]
    good = f"{tmp}/good.ckpt"
    r = run(lbm + ["--out", f"{tmp}/o", "--checkpoint", good])
    check(r.returncode == 0, f"pk-lbm: {r.stderr!r}")
    data = open(good, "rb").read()
    header_end = data.index(b"header-crc32 ") + len(b"header-crc32 ") + 9

    def variant(name, content):
        path = f"{tmp}/{name}.ckpt"
        with open(path, "wb") as f:
            f.write(content)
        return path

    cases = [
        ("truncated", variant("truncated", data[:len(data) - 100]), lbm, "the checkpoint is truncated"),
        ("truncated header", variant("short", data[:40]), lbm, "truncated \\(it ends inside its header\\)"),
        ("corrupt payload", variant("payload", data[:-5] + bytes([data[-5] ^ 1]) + data[-4:]), lbm,
         "the checkpoint is corrupt \\(its payload checksum"),
        ("corrupt header", variant("header", data.replace(b"step 20", b"step 21")), lbm,
         "header is corrupt \\(its checksum differs\\)"),
        ("other version", variant("version", data.replace(b"pk-checkpoint 1", b"pk-checkpoint 7", 1)), lbm,
         "format version 7; this program reads version 1"),
        ("not a checkpoint", variant("text", b"hello\n"), lbm, "not a checkpoint"),
        ("missing", f"{tmp}/missing.ckpt", lbm, "cannot be opened"),
        ("other command line", good, [a if a != "12" else "14" for a in lbm], "the checkpoint's run has --lattice"),
        ("other tau", good, lbm + ["--tau", "0.9"], "the checkpoint's run has --tau 0.8, this command line --tau 0.9"),
        ("other program", good, [program("pk-3dvar"), "--space", "openmp", "--grid", "24,24,4", "--chunks", "2"],
         "a checkpoint of pk-lbm, not of pk-3dvar"),
    ]
    import re
    for what, path, argv, message in cases:
        r = run(argv + ["--out", f"{tmp}/o", "--restart", path])
        lines = [line for line in r.stderr.split("\n") if line.strip()]
        check(r.returncode == 2 and len(lines) == 1 and re.search(message, lines[0]) is not None,
              f"{what}: status {r.returncode}, stderr {r.stderr!r}")
    check(header_end < len(data), "the checkpoint has a payload")
    # A full disk while writing the next checkpoint: status 2, the previous one whole.
    kept = open(good, "rb").read()

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    r = run([a if a != "20" else "40" for a in lbm] + ["--out", f"{tmp}/o", "--checkpoint", good, "--restart", good],
            preexec_fn=limit)
    check(r.returncode == 2 and "failed" in r.stderr, f"full disk: status {r.returncode}, stderr {r.stderr!r}")
    check(open(good, "rb").read() == kept, "a failed checkpoint changed the previous one")
    check(not [f for f in os.listdir(tmp) if ".tmp-" in f], "a failed checkpoint left its temporary file")


def mpi(tmp, which):
    launch = MPIEXEC + ["2"]
    if which == "lbm":
        case = [program("pk-lbm"), "--space", "openmp", "--channel", "16", "4", "4", "--checkpoint-every", "20",
                "--vti-every", "60"]
        ends, end_option, outputs = ("50", "110", "180"), "--steps", ["lbm-openmp-00000180-0.vti",
                                                                      "lbm-openmp-00000180-1.vti"]
    else:
        case = [program("pk-3dvar"), "--space", "openmp", "--grid", "32,24,4", "--chunks", "2", "--observations", "300",
                "--tolerance", "1e-10", "--checkpoint-every", "4"]
        ends, end_option, outputs = ("6", "15", "2000"), "--max-iterations", []
    r = run(launch + case + [end_option, ends[-1], "--out", f"{tmp}/ref", "--checkpoint", f"{tmp}/ref/c"])
    check(r.returncode == 0, f"{which} on 2 ranks: {r.stdout[-300:]!r} {r.stderr[-500:]!r}")
    restart = []
    for end in ends:
        r = run(launch + case + [end_option, end, "--out", f"{tmp}/chain", "--checkpoint", f"{tmp}/chain/c"] + restart)
        check(r.returncode == 0, f"{which} chain to {end} on 2 ranks: {r.stderr[-500:]!r}")
        restart = ["--restart", f"{tmp}/chain/c"]

    def rank_files(folder):
        slot = [line for line in open(f"{folder}/c", "rb").read().split(b"\n") if line.startswith(b"value slot ")]
        return [f"c.{slot[0][11:].decode()}.rank{rank}" for rank in (0, 1)]

    ref, chain = rank_files(f"{tmp}/ref"), rank_files(f"{tmp}/chain")
    for a, b in zip(ref, chain):
        check(filecmp.cmp(f"{tmp}/ref/{a}", f"{tmp}/chain/{b}", shallow=False), f"{which}: {a} differs from {b}")
    same_files(f"{tmp}/ref", f"{tmp}/chain", outputs)
    # SIGTERM to the launcher, which passes it on to the ranks: they agree, checkpoint, stop.
    # 3D-Var's case above converges in a fraction of a second: the stopped run solves a larger,
    # worse-conditioned problem (precise observations) to a tolerance below rounding, so that it
    # runs for seconds unstopped. A launcher on a loaded machine can take a second to pass the
    # signal on, and a run that ends first is no test of stopping.
    long_end = "100000000" if which == "lbm" else "100000"
    if which == "3dvar":
        case = [{"32,24,4": "128,96,24", "300": "3000", "1e-10": "1e-30"}.get(a, a) for a in case]
        case += ["--observation-std", "0.001"]
    rc, out, err = stop_after_checkpoint(launch + case + [end_option, long_end, "--out", f"{tmp}/stop", "--checkpoint",
                                                          f"{tmp}/stop/c"], f"{tmp}/stop/c")
    check("(interrupted)" in out or "interrupted" in out, f"{which} on 2 ranks stopped: {out[-300:]!r} {err[-300:]!r}")
    r = run(MPIEXEC + ["3"] + case + [end_option, long_end, "--out", f"{tmp}/stop", "--checkpoint", f"{tmp}/stop/c",
                                      "--restart", f"{tmp}/stop/c"])
    check(r.returncode != 0 and "a checkpoint of a run on 2 ranks; this run has 3" in r.stderr,
          f"{which}: restart on 3 ranks: status {r.returncode}, stderr {r.stderr[-300:]!r}")


def matern(tmp):
    base = [program("pk-matern"), "fit", "--space", "openmp"]
    fit = base + ["-n", "300", "--tolerance", "1e-6"]
    long_fit = base + ["-n", "1000", "--tolerance", "1e-9"]  # still running when SIGTERM comes

    def estimate(r):
        """The estimate, its log-likelihood and the evaluations it took, as printed."""
        lines = [line for line in r.stdout.split("\n") if "estimate" in line]
        return lines[0].split(": ", 1)[1].split(" evaluations")[0] if r.returncode == 0 and lines else r.stderr

    whole = run(fit + ["--out", f"{tmp}/whole"])
    check(whole.returncode == 0, f"matern: the whole fit: status {whole.returncode}, {whole.stderr[-300:]!r}")
    evaluations = int(whole.stdout.split(" evaluations")[0].rsplit(" ", 1)[1])
    # A fit cut short by its evaluation limit, then resumed.
    short = run(fit + ["--max-evaluations", "12", "--checkpoint", f"{tmp}/j", "--out", f"{tmp}/short"])
    check(short.returncode == 0 and "evaluation limit reached" in short.stdout,
          f"matern: the short fit: status {short.returncode}, {short.stdout[-300:]!r}")
    check(len(open(f"{tmp}/j").read().split("\n")) == 2 + 12 + 1, "matern: the journal holds 12 evaluations")
    resumed = run(fit + ["--checkpoint", f"{tmp}/j", "--restart", f"{tmp}/j", "--out", f"{tmp}/resumed"])
    check(estimate(resumed) == estimate(whole),
          f"matern: resumed {estimate(resumed)!r}, uninterrupted {estimate(whole)!r}")
    check("resumed: 12 of the evaluations taken from" in resumed.stdout, f"matern: {resumed.stdout[-300:]!r}")
    journaled = len(open(f"{tmp}/j").read().split("\n")) - 3  # each point once, in the order made
    check(12 < journaled <= evaluations, f"matern: the resumed fit's journal holds {journaled} of {evaluations}")
    # A fit stopped by SIGTERM: its journal goes on where it stopped.
    p = subprocess.Popen(long_fit + ["--checkpoint", f"{tmp}/k", "--out", f"{tmp}/stop"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.time() + 120
    while time.time() < deadline and (not os.path.exists(f"{tmp}/k") or
                                      len(open(f"{tmp}/k").read().split("\n")) < 2 + 5 + 1):
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=300)
    check(p.returncode == 143 and "(interrupted)" in out, f"matern stopped: status {p.returncode}, {out[-300:]!r}")
    kept = len(open(f"{tmp}/k").read().split("\n")) - 3
    # Far enough past what was kept to show the recall (the whole fit would take minutes under ASan).
    again = run(long_fit + ["--max-evaluations", str(kept + 10), "--restart", f"{tmp}/k", "--out", f"{tmp}/again"])
    recalled = re.search(r"resumed: ([0-9]+) of the evaluations", again.stdout)
    check(again.returncode == 0 and kept >= 5 and recalled and int(recalled.group(1)) >= kept,
          f"matern resumed after SIGTERM ({kept} kept): {again.stdout[-300:]!r} {again.stderr[-300:]!r}")
    other = run(fit + ["--seed", "7", "--restart", f"{tmp}/j", "--out", f"{tmp}/other"])
    lines = [line for line in other.stderr.split("\n") if line.strip()]
    check(other.returncode == 2 and len(lines) == 1 and "a journal of other data" in lines[0],
          f"matern: a journal of other data: status {other.returncode}, {other.stderr!r}")


with tempfile.TemporaryDirectory(prefix="pk-checkpoint-") as tmp:
    {"lbm": lbm, "3dvar": three_dvar, "gbees": gbees, "matern": matern, "refusals": refusals,
     "mpi-lbm": lambda t: mpi(t, "lbm"), "mpi-3dvar": lambda t: mpi(t, "3dvar")}[CHECK](tmp)
if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("all passed")
