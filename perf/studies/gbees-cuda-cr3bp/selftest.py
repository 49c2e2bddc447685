#!/usr/bin/env python3
"""Writes gbees-cuda snapshots made from pk-gbees' own cells, for selftest.sh:

    selftest.py CKDIR K OUTDIR [--perturb SEED] [--mean ..] [--h ..] [--std ..] [--threshold p]

For K = 0 the initial box, else CKDIR/tK.ck, written as OUTDIR/results/P0_pdf_K.bin (the patched
gbees-cuda's binary record: every cell) and P0_pdf_K.txt (gbees-cuda's own text record: the cells
above p*, "%f" time, "%.10e" values, as src/record.cu writes them). --perturb drops a few cells
and scales the others' probabilities by 1 + 1e-3 noise: a grid that is not pk's.
"""
import os
import struct
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ beside the records

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402


def main(argv):
    ckdir, k, out = argv[0], int(argv[1]), argv[2]
    opts = {"--perturb": None, "--mean": None, "--h": None, "--std": None, "--threshold": None}
    it = iter(argv[3:])
    for a in it:
        opts[a] = next(it)
    mean, h, std = (compare.floats(opts[o]) if opts[o] else None for o in ("--mean", "--h", "--std"))
    thr = float(opts["--threshold"])
    spec = "box" if k == 0 else "ck:" + os.path.join(ckdir, f"t{k}.ck")
    g = compare.np_grids([("pk", spec)], mean, h, std, thr)[0]
    key, p = g["key"], g["p"].copy()
    center, hh = np.asarray(g["center"], float), np.asarray(g["h"], float)
    if opts["--perturb"] is not None:
        rng = np.random.default_rng(int(opts["--perturb"]))
        keep = rng.random(len(p)) > 0.01
        key, p = key[keep], p[keep] * (1 + 1e-3 * rng.standard_normal(keep.sum()))
        p /= p.sum()
    n = key.shape[1]
    x = center + hh * key  # as gbees-cuda: dx * key + center
    os.makedirs(os.path.join(out, "results"), exist_ok=True)
    with open(os.path.join(out, "results", f"P0_pdf_{k}.bin"), "wb") as f:
        f.write(b"GBCBIN1\0" + struct.pack("<ii", n, 0) + struct.pack("<d", g["time"]) + struct.pack("<Q", len(p)))
        f.write(np.asarray(center, "<f8").tobytes() + np.asarray(hh, "<f8").tobytes() + struct.pack("<d", thr))
        f.write(np.column_stack([p, x]).astype("<f8").tobytes())
    with open(os.path.join(out, "results", f"P0_pdf_{k}.txt"), "w") as f:
        f.write("%f\n" % g["time"])
        for q, row in zip(p, x):
            if q > thr:
                f.write("%.10e" % q + "".join(" %.10e" % v for v in row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
