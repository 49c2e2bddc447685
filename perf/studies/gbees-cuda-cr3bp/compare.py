#!/usr/bin/env python3
"""gbees-cuda against pk-gbees on gbees-cuda's spatial CR3BP case, grid to grid.

    compare.py RESULTS            markdown tables on stdout
    compare.py --verify REDUCED.json LABEL=SPEC [...] [--mean ..] [--h ..] [--std ..] [--threshold p]

RESULTS is the folder build/scripts/gbc1.sh leaves in $OUT/gbc.tar.gz (gbc/): reduced/tK.json,
one per snapshot time t_K = K T/8 (build/gbees-cuda/gbc-reduce: per grid its cells, total, the
cells at or above p*, its 1-D marginals; per pair of grids the cell-by-cell comparison and the
marginals' BC), pk/ (pk-gbees --out: summary JSON, marginal CSVs), the runs' logs and cr3bp.ini.
Grids: gc = gbees-cuda as configured (Jacobi-constant bounds on), gcnb = gbees-cuda without the
bounds (GBEES_NO_BOUNDS=1, when the call had time for it), pk = pk-gbees (its checkpoint at t_K;
at t = 0 the initial box the reducer computes, which is what both codes start from).

Both codes put cell i at mean + h i with the same mean and h, so cells are matched by their
integer index; the tables say how far that holds (the header's centre and widths, and how far
gbees-cuda's coordinates are from mean + h i).

--verify recomputes a reduced file's figures from the raw grids with numpy (an independent
reader of gbees-cuda's snapshots and pk-gbees' checkpoints) and prints the largest deviation.
SPEC: gbin:FILE (gbees-cuda binary snapshot of the patched copy), gtxt:FILE (its text snapshot),
ck:FILE (pk-gbees checkpoint), box (the initial box).
"""
import glob
import json
import math
import os
import re
import sys

AXES = ["x", "y", "z", "vx", "vy", "vz"]


# ---------------------------------------------------------------- reading the results folder

def read_ini(path):
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            k, v = (s.strip() for s in line.split("=", 1))
            out[k] = v
    return out


def floats(s):
    return [float(v) for v in re.split(r"[,\s]+", s.strip()) if v]


def read_reduced(results):
    files = glob.glob(os.path.join(results, "reduced", "t*.json"))
    out = {}
    for f in files:
        m = re.match(r"t(\d+)\.json$", os.path.basename(f))
        if m:
            try:
                out[int(m.group(1))] = json.load(open(f))
            except ValueError as e:
                print(f"(unreadable {f}: {e})", file=sys.stderr)
    return dict(sorted(out.items()))


def pk_summary(results):
    for f in sorted(glob.glob(os.path.join(results, "pk", "gbees-*.json"))):
        return json.load(open(f)), os.path.splitext(f)[0]
    return None, None


def pk_csv_marginal(folder, label, axis, mean, h):
    """pk-gbees' marginal CSV of one axis (density at the cell centres) as {index: mass}."""
    path = os.path.join(folder, f"marginal-{label}-x{axis + 1}.csv")
    if not os.path.exists(path):
        return None
    out = {}
    with open(path) as f:
        next(f)
        for line in f:
            x, d = (float(v) for v in line.split(","))
            i = round((x - mean[axis]) / h[axis])
            out[i] = out.get(i, 0.0) + d * h[axis]
    return out


def bc_dicts(a, b):
    sa, sb = sum(a.values()), sum(b.values())
    if sa <= 0 or sb <= 0:
        return float("nan")
    return sum(math.sqrt(a[i] / sa * b[i] / sb) for i in a if i in b)


def marginal_dict(grid, axis):
    m = grid["marginal1"][axis]
    return dict(zip(m["index"], m["mass"]))


def parse_gc_log(path):
    """Steps, sampled peak of used cells, kernel seconds, overflow, from gbees-cuda's output."""
    if not os.path.exists(path):
        return None
    info = {"steps": None, "peak_sampled": 0, "kernel_s": None, "overflow": False, "capacity": None, "binary": None}
    for line in open(path, errors="replace"):
        m = re.search(r"Timestep: \d+-(\d+),.*Used Cells: (\d+)/(\d+)", line)
        if m:
            info["steps"] = int(m.group(1))
            info["peak_sampled"] = max(info["peak_sampled"], int(m.group(2)))
            info["capacity"] = int(m.group(3))
        m = re.search(r"Kernel time: ([\d.]+) s", line)
        if m:
            info["kernel_s"] = float(m.group(1))
        if "Grid capacity exceeded" in line:
            info["overflow"] = True
        m = re.search(r"^== binary (\S+)", line)
        if m:
            info["binary"] = m.group(1)
        m = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", line)
        if m:
            info["wall"] = m.group(1)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", line)
        if m:
            info["rss_gb"] = int(m.group(1)) / 1e6
        m = re.search(r"^status (\d+) after (\d+) s", line)
        if m:
            info["status"], info["wall_s"] = int(m.group(1)), int(m.group(2))
    return info


# ---------------------------------------------------------------- the tables

def fmt(v, digits=4):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:.{digits}f}"


def fbc(v):
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{float(v):.5f}"


def sci(v):
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3g}"


def table(head, rows):
    def cell(c):
        return str(c).replace("|", "\\|")
    out = ["| " + " | ".join(cell(c) for c in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def report(results):
    ini = read_ini(os.path.join(results, "cr3bp.ini"))
    mean = floats(ini["mean"]) if "mean" in ini else None
    h = floats(ini["h"]) if "h" in ini else None
    reduced = read_reduced(results)
    summary, pk_dir = pk_summary(results)
    lines = [f"# gbees-cuda vs pk-gbees, CR3BP (Jupiter-Europa, 6-D): {os.path.abspath(results)}", ""]

    # Runs
    rows = []
    for label, sub in (("gc", "gc"), ("gcnb", "gcnb")):
        info = parse_gc_log(os.path.join(results, sub, "log.txt"))
        if info:
            rows.append([f"gbees-cuda ({'Jacobi bounds' if label == 'gc' else 'no bounds'})", fmt(info["steps"]),
                         fmt(info["peak_sampled"]) + " (every 20 steps)", fmt(info["capacity"]),
                         fmt(info["kernel_s"], 2), str(info.get("wall_s", "—")),
                         "**grid overflowed**" if info["overflow"] else ("status %s" % info.get("status", "—"))])
    if summary:
        rows.append(["pk-gbees", fmt(summary.get("steps")), fmt(summary.get("max_cells")), "—",
                     fmt(summary.get("wall_seconds"), 2), "—", "completed" if summary.get("completed") else "**not completed**"])
    if rows:
        lines += ["## Runs", "", table(["code", "steps", "peak cells", "capacity", "solver s (kernel / pk's solver)",
                                        "process s", "end"], rows), ""]

    if not reduced:
        lines.append("No reduced grids (reduced/t*.json) in the results.")
        print("\n".join(lines))
        return

    # Alignment of the two grids: the worst over the snapshots, per grid
    worst = {}
    for k, r in reduced.items():
        g = {x["label"]: x for x in r["grids"]}
        ref = g.get("pk")
        for lab in ("gc", "gcnb"):
            if lab in g and ref:
                c = max(abs(a - b) / hh for a, b, hh in zip(g[lab]["center"], ref["center"], ref["h"]))
                dh = max(abs(a / b - 1) for a, b in zip(g[lab]["h"], ref["h"]))
                w = worst.setdefault(lab, [0.0, 0.0, 0.0])
                worst[lab] = [max(w[0], c), max(w[1], dh), max(w[2], g[lab]["key_residual"])]
    if worst:
        lines += ["## Do the cells line up?", "",
                  "The largest over the snapshots of: the difference of the grids' centres in cell widths, the "
                  "relative difference of their cell widths (gbees-cuda's from its record, pk's from its checkpoint "
                  "or the box), and the largest distance of a gbees-cuda cell's coordinates from centre + h i, in "
                  "cells. All at round-off: cell i of one grid is cell i of the other.", "",
                  table(["grid", "max |Δcentre|/h", "max |Δh|/h", "max key residual"],
                        [[lab] + [sci(v) for v in w] for lab, w in worst.items()]), ""]

    pairs_seen = []
    for r in reduced.values():
        for p in r["pairs"]:
            if (p["a"], p["b"]) not in pairs_seen:
                pairs_seen.append((p["a"], p["b"]))
    order = {("gc", "pk"): 0, ("gcnb", "pk"): 1, ("gc", "gcnb"): 2}
    pairs_seen.sort(key=lambda ab: order.get(ab, 9))

    # Grids at each time
    rows = []
    labels = []
    for r in reduced.values():
        for x in r["grids"]:
            if x["label"] not in labels:
                labels.append(x["label"])
    for k, r in reduced.items():
        g = {x["label"]: x for x in r["grids"]}
        t = next(iter(g.values()))["time"]
        row = [f"t{k}", f"{t:.6f}"]
        for lab in labels:
            x = g.get(lab)
            row += [fmt(x["cells"]) if x else "—", f"{x['total']:.12f}" if x else "—",
                    fmt(x["above_cells"]) if x else "—", fmt(x["above_mass"]) if x else "—"]
        rows.append(row)
    head = ["snapshot", "t"]
    for lab in labels:
        head += [f"{lab} cells", f"{lab} total p", f"{lab} cells ≥ p*", f"{lab} p ≥ p*"]
    lines += ["## Grids", "", "Total p: the sum over every cell of the grid (each code normalises to 1 every step). "
              "Times: gbees-cuda's own record time (the same as pk's to round-off).", "", table(head, rows), ""]
    times = {k: [x["time"] for x in r["grids"]] for k, r in reduced.items()}
    worst = max((max(v) - min(v) for v in times.values() if v), default=0)
    lines += [f"Largest difference between the grids' times at one snapshot: {worst:.3g}.", ""]

    # pk's grids at t_K (a run to t_K each) against its main run's snapshots
    if summary and mean and h and pk_dir:
        rows = []
        for k, r in reduced.items():
            g = {x["label"]: x for x in r["grids"]}
            if "pk" not in g:
                continue
            snap = next((s for s in summary.get("snapshots", []) if abs(s["time"] - g["pk"]["time"]) < 1e-6), None)
            if not snap:
                continue
            worst = 0.0
            for ax in range(len(g["pk"]["marginal1"])):
                m = pk_csv_marginal(pk_dir, snap["label"], ax, mean, h)
                if m:
                    worst = max(worst, 1 - bc_dicts(marginal_dict(g["pk"], ax), m))
            rows.append([f"t{k}", g["pk"]["source"].split("/")[-1], fmt(g["pk"]["cells"]), fmt(snap["cells"]), sci(worst)])
        if rows:
            lines += ["pk-gbees' grid at each t_K (the initial box the reducer computes at t0, else the checkpoint "
                      "at the end of a run to t_K) against its main run's snapshot there: cells, and the largest "
                      "1 − BC of a 1-D marginal against the main run's marginal CSV (round-off if the runs agree):",
                      "", table(["snapshot", "pk grid", "cells", "main run's cells", "max 1 − BC"], rows), ""]

    for a, b in pairs_seen:
        lines += [f"## {a} vs {b}", ""]
        # 1-D marginals
        rows = []
        for k, r in reduced.items():
            p = next((p for p in r["pairs"] if (p["a"], p["b"]) == (a, b)), None)
            if not p:
                continue
            bc1 = p["marginal1_bc"]
            row = [f"t{k}"] + [fbc(v) for v in bc1] + [fbc(min(bc1))]
            bc2 = p["marginal2_bc"]
            valid = [(v, n) for v, n in zip(bc2, p["marginal2_names"]) if v is not None]
            row.append(f"{min(valid)[0]:.5f} ({min(valid)[1]})" if valid else "—")
            # cross-check with pk-gbees' own marginal CSVs (same run's snapshots)
            if b == "pk" and summary and mean and h and pk_dir:
                label = next((s["label"] for s in summary.get("snapshots", [])
                              if abs(s["time"] - r["grids"][0]["time"]) < 1e-6), None)
                ga = next(x for x in r["grids"] if x["label"] == a)
                vals = []
                for ax in range(len(bc1)):
                    m = pk_csv_marginal(pk_dir, label, ax, mean, h) if label else None
                    if m:
                        vals.append(bc_dicts(marginal_dict(ga, ax), m))
                row.append(fbc(min(vals)) if vals else "—")
            rows.append(row)
        n_axes = len(next(p for r in reduced.values() for p in r["pairs"] if (p["a"], p["b"]) == (a, b))["marginal1_bc"])
        head = ["snapshot"] + AXES[:n_axes] + ["min", "min 2-D (pair)"]
        if b == "pk" and summary:
            head.append(f"min {a} vs pk CSV")
        lines += [f"Bhattacharyya coefficient of the 1-D marginals ({a} vs {b}, each normalised, same bins), the "
                  "lowest over the 15 2-D marginals" +
                  (", and the lowest 1-D BC against pk-gbees' own marginal CSVs of its main run (a check: pk's "
                   "grids at t1..t7 come from separate runs to those times)" if b == "pk" and summary else "") + ":", "",
                  table(head, rows), ""]
        # cell by cell
        rows = []
        for k, r in reduced.items():
            p = next((p for p in r["pairs"] if (p["a"], p["b"]) == (a, b)), None)
            if not p:
                continue
            c, ca = p["cells"], p["cells_above"]
            rows.append([f"t{k}", fmt(c["both"]), fmt(c["only_a"]), fmt(c["only_b"]), sci(c["mass_only_a"]),
                         sci(c["mass_only_b"]), sci(c["l1"]), fbc(c["bc"]), sci(c["max_abs"]),
                         fmt(ca["only_a"]), fmt(ca["only_b"]), sci(ca["l1"]), fbc(ca["bc"])])
        lines += [f"Cell by cell (each grid normalised to 1): cells in both, in {a} only, in {b} only, the "
                  f"probability on the cells of one only, Σ|p_{a} − p_{b}| over the union (0 = identical, 2 = "
                  f"disjoint), Σ√(p_{a} p_{b}), the largest |p_{a} − p_{b}|; then the same over each grid's cells "
                  f"≥ p* (renormalised: what gbees-cuda's own text records hold).", "",
                  table(["snapshot", "both", f"only {a}", f"only {b}", f"p only {a}", f"p only {b}", "Σ|Δp|", "BC",
                         "max |Δp|", f"≥p*: only {a}", f"≥p*: only {b}", "≥p*: Σ|Δp|", "≥p*: BC"], rows), ""]
        # moments
        rows = []
        for k, r in reduced.items():
            g = {x["label"]: x for x in r["grids"]}
            if a in g and b in g:
                dm = [x - y for x, y in zip(g[a]["mean_index"], g[b]["mean_index"])]
                sr = [x / y if y > 0 else float("nan") for x, y in zip(g[a]["std_index"], g[b]["std_index"])]
                rows.append([f"t{k}"] + [f"{d:+.3f} / {s:.3f}" for d, s in zip(dm, sr)])
        if rows:
            lines += [f"Mean difference ({a} − {b}, in cells) / std ratio ({a} / {b}) per axis:", "",
                      table(["snapshot"] + AXES[:len(rows[0]) - 1], rows), ""]
    print("\n".join(lines))


# ---------------------------------------------------------------- --verify (numpy)

def np_grids(specs, mean, h, std, threshold, extent=3.0):
    import numpy as np

    grids = []
    for label, spec in specs:
        g = {"label": label}
        if spec.startswith("gbin:"):
            path = spec[5:]
            raw = open(path, "rb").read()
            assert raw[:8] == b"GBCBIN1\0", path
            n = int(np.frombuffer(raw, np.int32, 1, 8)[0])
            time = float(np.frombuffer(raw, np.float64, 1, 16)[0])
            count = int(np.frombuffer(raw, np.uint64, 1, 24)[0])
            center = np.frombuffer(raw, np.float64, n, 32)
            hh = np.frombuffer(raw, np.float64, n, 32 + 8 * n)
            thr = float(np.frombuffer(raw, np.float64, 1, 32 + 16 * n)[0])
            cells = np.frombuffer(raw, np.float64, count * (n + 1), 40 + 16 * n).reshape(count, n + 1)
            g.update(time=time, center=center, h=hh, threshold=thr, p=cells[:, 0].copy(),
                     key=np.rint((cells[:, 1:] - center) / hh).astype(np.int64))
        elif spec.startswith("gtxt:"):
            path = spec[5:]
            with open(path) as f:
                time = float(f.readline())
            cells = np.loadtxt(path, skiprows=1, ndmin=2)
            center, hh = np.array(mean), np.array(h)
            g.update(time=time, center=center, h=hh, threshold=threshold, p=cells[:, 0].copy(),
                     key=np.rint((cells[:, 1:] - center) / hh).astype(np.int64))
        elif spec.startswith("ck:"):
            path = spec[3:]
            raw = open(path, "rb").read()
            end = raw.index(b"\nheader-crc32 ")
            end = raw.index(b"\n", end + 1) + 1
            header = raw[:end].decode()
            opt = dict(re.findall(r"^option (\S+) (.*)$", header, re.M))
            val = dict(re.findall(r"^value (\S+) (\S+)", header, re.M))
            sections = re.findall(r"^section (\S+) (\d+)", header, re.M)
            center, hh = np.array(floats(opt["mean"])), np.array(floats(opt["h"]))
            n, count = len(hh), int(val["cells"])
            at, where = end, {}
            for name, size in sections:
                where[name] = at
                at += int(size)
            assert at == len(raw), path
            key = np.frombuffer(raw, np.uint64, count, where["key"])
            bits = 64 // n
            idx = np.stack([((key >> np.uint64(d * bits)) & np.uint64((1 << bits) - 1)).astype(np.int64) - (1 << (bits - 1))
                            for d in range(n)], axis=1)
            g.update(time=float.fromhex(val["time"]) if val["time"].startswith(("0x", "-0x")) else float(val["time"]),
                     center=center, h=hh, threshold=float(opt["threshold"]),
                     p=np.frombuffer(raw, np.float64, count, where["probability"]).copy(), key=idx)
        elif spec == "box":
            hh, s = np.array(h), np.array(std)
            half = np.rint(extent * s / hh).astype(int)
            axes = [np.arange(-w, w + 1) for w in half]
            key = np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], axis=1)
            z2 = (((key * hh) / s) ** 2).sum(axis=1)
            p = np.exp(-0.5 * z2)
            g.update(time=0.0, center=np.array(mean) if mean else np.zeros(len(hh)), h=hh, threshold=threshold,
                     p=p / p.sum(), key=key.astype(np.int64))
        else:
            raise SystemExit(f"unknown SPEC {spec}")
        if g["threshold"] is None or g["threshold"] < 0:
            g["threshold"] = threshold
        grids.append(g)
    return grids


def np_reduce(grids):
    import numpy as np

    n = grids[0]["key"].shape[1]
    lo = np.min([g["key"].min(axis=0) for g in grids], axis=0)
    hi = np.max([g["key"].max(axis=0) for g in grids], axis=0)
    rng = hi - lo + 1
    out = {"grids": [], "pairs": []}
    marg = []
    for g in grids:
        p = g["p"] / g["p"].sum()
        k = g["key"] - lo
        one = [np.bincount(k[:, d], weights=p, minlength=rng[d]) for d in range(n)]
        two = {}
        for a in range(n):
            for b in range(a + 1, n):
                two[(a, b)] = np.bincount(k[:, a] * rng[b] + k[:, b], weights=p, minlength=rng[a] * rng[b])
        marg.append((one, two))
        above = g["p"] >= g["threshold"]
        out["grids"].append({"label": g["label"], "cells": int(len(g["p"])), "total": float(g["p"].sum()),
                             "above_cells": int(above.sum()), "above_mass": float(g["p"][above].sum()),
                             "marginal1": [{"index": list(np.nonzero(m)[0] + lo[d]), "mass": list(m[m > 0])}
                                           for d, m in enumerate(one)]})

    def cells(ga, gb, above):
        def packed(g):
            sel = g["p"] >= g["threshold"] if above else np.ones(len(g["p"]), bool)
            k = g["key"][sel] - lo
            code = np.zeros(len(k), np.int64)
            for d in range(n):
                code = code * rng[d] + k[:, d]
            p = g["p"][sel] / g["p"][sel].sum()
            return code, p
        ca, pa = packed(ga)
        cb, pb = packed(gb)
        both, ia, ib = np.intersect1d(ca, cb, assume_unique=True, return_indices=True)
        only_a = np.setdiff1d(np.arange(len(ca)), ia)
        only_b = np.setdiff1d(np.arange(len(cb)), ib)
        d = np.abs(pa[ia] - pb[ib])
        return {"both": len(both), "only_a": len(only_a), "only_b": len(only_b),
                "mass_only_a": float(pa[only_a].sum()), "mass_only_b": float(pb[only_b].sum()),
                "l1": float(d.sum() + pa[only_a].sum() + pb[only_b].sum()),
                "bc": float(np.sqrt(pa[ia] * pb[ib]).sum()),
                "max_abs": float(max(d.max(initial=0), pa[only_a].max(initial=0), pb[only_b].max(initial=0)))}

    for i in range(len(grids)):
        for j in range(i + 1, len(grids)):
            (oa, ta), (ob, tb) = marg[i], marg[j]
            out["pairs"].append({"a": grids[i]["label"], "b": grids[j]["label"],
                                 "cells": cells(grids[i], grids[j], False),
                                 "cells_above": cells(grids[i], grids[j], True),
                                 "marginal1_bc": [float(np.sqrt(x * y).sum()) for x, y in zip(oa, ob)],
                                 "marginal2_bc": [float(np.sqrt(ta[q] * tb[q]).sum()) for q in ta]})
    return out


def verify(argv):
    opts = {"--mean": None, "--h": None, "--std": None, "--threshold": None}
    specs = []
    reduced = argv[0]
    it = iter(argv[1:])
    for a in it:
        if a in opts:
            opts[a] = next(it)
        else:
            label, spec = a.split("=", 1)
            specs.append((label, spec))
    mean = floats(opts["--mean"]) if opts["--mean"] else None
    h = floats(opts["--h"]) if opts["--h"] else None
    std = floats(opts["--std"]) if opts["--std"] else None
    thr = float(opts["--threshold"]) if opts["--threshold"] else -1
    mine = np_reduce(np_grids(specs, mean, h, std, thr))
    theirs = json.load(open(reduced))
    worst = [0.0, ""]

    def cmp(x, y, where):
        if isinstance(x, dict):
            for k in x:
                if k in y:
                    cmp(x[k], y[k], f"{where}.{k}")
        elif isinstance(x, list):
            if len(x) != len(y):
                worst[:] = [float("inf"), f"{where}: lengths {len(x)} != {len(y)}"]
                return
            for i, (u, v) in enumerate(zip(x, y)):
                cmp(u, v, f"{where}[{i}]")
        elif isinstance(x, str):
            if x != y:
                worst[:] = [float("inf"), f"{where}: {x} != {y}"]
        else:
            d = abs(float(x) - float(y)) / max(1.0, abs(float(y)))
            if d > worst[0]:
                worst[:] = [d, where]

    cmp(mine, theirs, "")
    print(f"verify {reduced}: largest relative deviation numpy vs gbc-reduce {worst[0]:.3g} at {worst[1] or '-'}")
    return 0 if worst[0] < 1e-9 else 1


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--verify":
        sys.exit(verify(sys.argv[2:]))
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__)
        sys.exit(2)
    report(sys.argv[1])
