#!/usr/bin/env python3
"""The tuning cache (include/pk/core/tuning.hpp) across processes:

  tuning_cache.py BINDIR TUNING-PROBE

A second process takes the first's choice without a trial; processes that time at once keep
both choices; pk-info --tuning lists them; PK_TUNING_CACHE=off times again; a cache that
cannot be written costs one warning, not the run.
"""
import os
import subprocess
import sys
import tempfile

BIN, PROBE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def probe(key, cache, **kwargs):
    env = dict(os.environ, PK_TUNING_CACHE=cache, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    return subprocess.Popen([PROBE, key], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs)


def finished(p):
    out, err = p.communicate(timeout=120)
    return p.returncode, out.strip(), err.strip()


with tempfile.TemporaryDirectory(prefix="pk-tuning-") as tmp:
    cache = os.path.join(tmp, "cache")
    status, out, err = finished(probe("test.first", cache))
    check(status == 0 and out == "choice 1 trials 12", f"first process: {status} {out!r} {err!r}")
    status, out, err = finished(probe("test.first", cache))
    check(status == 0 and out == "choice 1 trials 0", f"second process: {status} {out!r} {err!r}")
    together = [probe(f"test.together.{i}", cache) for i in range(4)]
    for i, p in enumerate(together):
        status, out, err = finished(p)
        check(status == 0 and out == "choice 1 trials 12", f"process {i} of four at once: {status} {out!r} {err!r}")
    lines = open(os.path.join(cache, "choices.tsv")).read().splitlines()
    keys = sorted(line.split("\t")[2] for line in lines)
    check(keys == ["test.first"] + [f"test.together.{i}" for i in range(4)], f"cached keys {keys}")
    check(not [f for f in os.listdir(cache) if ".tmp-" in f], "a temporary file was left")
    info = subprocess.run([os.path.join(BIN, "apps", "pk-info"), "--tuning"], capture_output=True, text=True,
                          env=dict(os.environ, PK_TUNING_CACHE=cache, OMP_PROC_BIND="false"), timeout=60)
    check(info.returncode == 0 and "5 choices of this build" in info.stdout and "test.together.3" in info.stdout,
          f"pk-info --tuning: {info.returncode} {info.stdout!r} {info.stderr!r}")
    status, out, err = finished(probe("test.first", "off"))
    check(status == 0 and out == "choice 1 trials 12", f"PK_TUNING_CACHE=off: {status} {out!r} {err!r}")
    blocked = os.path.join(tmp, "a-file")
    open(blocked, "w").close()
    status, out, err = finished(probe("test.first", os.path.join(blocked, "cache")))
    check(status == 0 and out == "choice 1 trials 12" and len(err.splitlines()) == 1 and "not written" in err,
          f"an unwritable cache: {status} {out!r} {err!r}")
if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("all passed")
