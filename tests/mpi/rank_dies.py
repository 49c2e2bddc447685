#!/usr/bin/env python3
"""A rank that dies mid-run: 4 ranks of pk-lbm or pk-3dvar on OpenMP, rank 2 killed.

  rank_dies.py MPIEXEC BINDIR pk-lbm|pk-3dvar teardown|no-teardown|hang [SPACE]

BINDIR: a build tree (programs in BINDIR/apps) or a staged folder (perf/device/stage.sh);
SPACE: openmp (default), or cuda for one rank per GPU.

teardown: SIGKILL rank 2 under mpirun as it comes (Open MPI 4.1 ends the job when a rank
  dies: SIGCONT at once, SIGTERM about 1 s later, SIGKILL about 1 s after that).
no-teardown: SIGKILL rank 2 under mpirun --mca orte_abort_on_non_zero_status 0, which
  leaves the others running, as a launcher that does not end the job would (srun without
  --kill-on-bad-exit): they would wait in their next exchange for ever.
hang: SIGSTOP rank 2 (a rank that hangs, or dies on another node): the others give up after
  PK_MPI_TIMEOUT seconds (4 here).
Every other rank must end within the bound (docs/mpi.md) with one line naming what happened
(once one rank has ended with an error, mpirun ends the job: a rank it kills before that rank
has noticed may say nothing),
mpirun (but in no-teardown, where it never ends) with a non-zero status, and every file
written must be whole.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

MPIEXEC, BIN, PROGRAM, MODE = sys.argv[1:5]
SPACE = sys.argv[5] if len(sys.argv) > 5 else "openmp"
TIMEOUT = 4  # PK_MPI_TIMEOUT of the hang case
BOUND = {"teardown": 5, "no-teardown": 5, "hang": TIMEOUT + 5}[MODE]  # seconds, with room for a loaded machine
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def rank_process(parent, rank):
    """The pid of `rank`, a child of mpirun (one node: mpirun starts the ranks itself)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            if int(stat[stat.rindex(")") + 2:].split()[1]) != parent:
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if f"OMPI_COMM_WORLD_RANK={rank}".encode() in f.read().split(b"\0"):
                    return int(entry)
        except (OSError, ValueError):
            continue
    return None


def whole(path):
    """A .vti or .pvti as pk::write_file leaves it: complete, its closing tag last."""
    with open(path, "rb") as f:
        data = f.read()
    return data.startswith(b"<?xml") and data.endswith(b"</VTKFile>\n")


with tempfile.TemporaryDirectory(prefix="pk-rank-dies-") as out:
    # PK_AUTOTUNE=0: no launch trials at the start, which only lengthen the wait for the run.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
               PK_AUTOTUNE="0",
               OMP_PROC_BIND="false", PK_MPI_TIMEOUT=str(TIMEOUT) if MODE == "hang" else "300")
    mpirun = [MPIEXEC, "--oversubscribe", "--bind-to", "none", "-np", "4"]
    if MODE == "no-teardown":
        mpirun += ["--mca", "orte_abort_on_non_zero_status", "0"]
    binary = os.path.join(BIN, "apps", PROGRAM)
    if not os.path.exists(binary):
        binary = os.path.join(BIN, PROGRAM)
    if PROGRAM == "pk-lbm":  # a .pvti with 4 pieces every 20 steps, for ever
        argv = [binary, "--space", SPACE, "--channel", "64", "8", "8", "--steps", "1000000000", "--vti-every", "20"]
    else:  # CG that never converges
        argv = [binary, "--space", SPACE, "--grid", "64,64,8", "--observations", "500", "--chunks", "1",
                "--tolerance", "1e-300", "--max-iterations", "100000"]
    job = subprocess.Popen(mpirun + argv + ["--out", out, "--kokkos-num-threads=1"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", env=env)
    victim, deadline = None, time.time() + 120
    while time.time() < deadline and job.poll() is None:  # mid-run: every rank up, and output under way
        victim = victim or rank_process(job.pid, 2)
        started = all(rank_process(job.pid, r) for r in range(4))
        progressed = PROGRAM != "pk-lbm" or len([f for f in os.listdir(out) if f.endswith(".pvti")]) >= 2
        if victim and started and progressed:
            break
        time.sleep(0.2)
    if PROGRAM != "pk-lbm":
        # Into the CG iterations: on CUDA each rank first makes its GPU's context and loads its
        # kernels, a few seconds on a node of 4 GPUs.
        time.sleep(2 if SPACE == "openmp" else 8)
    check(victim is not None and job.poll() is None, f"the run did not get under way: {job.poll()}")
    if victim is not None and job.poll() is None:
        others = [rank_process(job.pid, r) for r in (0, 1, 3)]
        os.kill(victim, signal.SIGSTOP if MODE == "hang" else signal.SIGKILL)
        killed = time.time()
        # Until mpirun ends, or (no-teardown) the other ranks have: Open MPI 4.1's mpirun with
        # orte_abort_on_non_zero_status 0 waits for ever once a rank was killed by a signal.
        while time.time() < killed + BOUND + 30 and job.poll() is None:
            if MODE == "no-teardown" and not [p for p in others if os.path.exists(f"/proc/{p}")]:
                break
            time.sleep(0.05)
        took = time.time() - killed
        check(took <= BOUND, f"the other ranks took {took:.1f} s to end, more than {BOUND} s")
        if job.poll() is None:
            job.kill()
        output, _ = job.communicate()
        print(output)
        print(f"{PROGRAM} {MODE}: the other ranks ended {took:.1f} s after rank 2 was stopped; mpirun status "
              f"{job.returncode}")
        check(MODE == "no-teardown" or job.returncode != 0, f"mpirun status {job.returncode}")
        # One line from each other rank.
        said = {}
        for line in output.splitlines():
            m = re.match(rf"{PROGRAM}: rank (\d) of 4: (.*)", line)
            if m:
                said.setdefault(int(m.group(1)), []).append(m.group(2))
        # The first news a rank has: a rank of its node has ended (rank 2, or one that ended
        # since), nothing came for PK_MPI_TIMEOUT s (hang), or mpirun's SIGTERM.
        expected = "(rank [0-9] \\(process [0-9]+ on this node\\) has ended|stopped by SIGTERM" + (
            "|no message from the other ranks for 4 s)" if MODE == "hang" else ")")
        # Under teardown and hang, the first rank that ends with an error makes mpirun kill the
        # others at once: a rank still busy (rank 0 writing the .pvti, on a loaded machine) may
        # be killed before it has noticed, and says nothing. Every rank that speaks says one
        # such line.
        for rank in (0, 1, 3):
            lines = said.get(rank, [])
            silent = MODE != "no-teardown" and not lines
            check(silent or (len(lines) == 1 and re.match(expected, lines[0])), f"rank {rank} said {lines}")
        check(any(said.get(rank) for rank in (0, 1, 3)), "no rank said why it ended")
        # Whole files only: the ranks that ended themselves did so between writes.
        names = sorted(os.listdir(out))
        partial = [n for n in names if ".tmp-" in n and f".tmp-{victim}-" not in n]
        check(not partial, f"partial files of the other ranks: {partial}")
        for name in names:
            if name.endswith(".vti") or name.endswith(".pvti"):
                check(whole(os.path.join(out, name)), f"{name} is not whole")
        if PROGRAM == "pk-lbm":
            last = sorted(n for n in names if n.endswith(".pvti"))[-1]
            pieces = re.findall(r'Source="([^"]+)"', open(os.path.join(out, last)).read())
            check(len(pieces) == 4 and all(p in names for p in pieces), f"{last}'s pieces {pieces} are not all there")
if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("all passed")
