#!/usr/bin/env python3
"""Parallel HDF5 output read back with h5py (ctest cli.hdf5.*, built with PK_ENABLE_HDF5):

  hdf5.py BINDIR lbm | 3dvar  MPIEXEC ARGS...

lbm: pk-lbm on 1 and 2 ranks writes .h5 files whose density, velocity and cell types equal,
  bit for bit, the .vti (1 rank) and .pvti pieces (2 ranks) of the same run, and the two
  runs' .h5 equal each other (N ranks take the steps of one); the .xmf names every dataset
  with its shape and file.
3dvar: pk-3dvar --h5 on 1 and 2 ranks: the analysis, background and truth in the .h5 give
  the root-mean-square errors the run's record reports; its .xmf describes them.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

import h5py
import numpy

BIN = os.path.abspath(sys.argv[1])
CHECK = sys.argv[2]
MPIEXEC = sys.argv[3:]
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)
    return condition


def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=300, env=ENV)
    check(r.returncode == 0, f"{' '.join(argv)}: status {r.returncode}, stderr {r.stderr[-600:]!r}")
    return r


def read_vti(path):
    """The piece extent and the point arrays of a raw-appended .vti (as pk::lbm::write_vti writes it)."""
    data = open(path, "rb").read()
    start = data.index(b'<AppendedData encoding="raw">')
    header = data[:start].decode()
    base = data.index(b"_", start) + 1
    extent = [int(v) for v in re.search(r'<Piece Extent="([^"]+)"', header).group(1).split()]
    size = [extent[1] - extent[0] + 1, extent[3] - extent[2] + 1, extent[5] - extent[4] + 1]
    arrays = {}
    for match in re.finditer(r'<DataArray type="(\w+)" Name="(\w+)"(?: NumberOfComponents="(\d)")? '
                             r'format="appended" offset="(\d+)"', header):
        kind, name, components, offset = match.group(1), match.group(2), int(match.group(3) or 1), int(match.group(4))
        nbytes = struct.unpack("<Q", data[base + offset:base + offset + 8])[0]
        dtype = {"Float64": "<f8", "UInt8": "u1"}[kind]
        values = numpy.frombuffer(data[base + offset + 8:base + offset + 8 + nbytes], dtype=dtype)
        shape = (size[2], size[1], size[0]) + ((components,) if components > 1 else ())
        arrays[name] = values.reshape(shape)
    return extent, arrays


def check_xdmf(h5_path, names):
    """The .xmf beside h5_path parses as XML and names each dataset, its shape and file."""
    xmf = h5_path[:-3] + ".xmf"
    if not check(os.path.exists(xmf), f"{xmf} is missing"):
        return
    root = ElementTree.parse(xmf).getroot()
    items = {a.get("Name"): a.find("DataItem") for a in root.iter("Attribute")}
    with h5py.File(h5_path, "r") as f:
        for name in names:
            item = items.get(name)
            if not check(item is not None, f"{xmf}: no attribute {name}"):
                continue
            check(item.text.strip() == f"{os.path.basename(h5_path)}:/{name}", f"{xmf}: {name} at {item.text!r}")
            shape = tuple(int(v) for v in item.get("Dimensions").split())
            check(shape == f[name].shape, f"{xmf}: {name} has dimensions {shape}, the dataset {f[name].shape}")
    topology = root.find(".//Topology")
    check(topology is not None and topology.get("TopologyType") == "3DCoRectMesh", f"{xmf}: topology")


def lbm(tmp):
    case = [os.path.join(BIN, "apps", "pk-lbm"), "--space", "openmp", "--channel", "16", "6", "5", "--steps", "30",
            "--vti-every", "30", "--h5-every", "30", "--kokkos-num-threads=1"]
    one, two = os.path.join(tmp, "one"), os.path.join(tmp, "two")
    run(MPIEXEC + ["1"] + case + ["--out", one])
    run(MPIEXEC + ["2"] + case + ["--out", two])
    for folder in (one, two):
        for step in ("00000000", "00000030"):
            h5_path = os.path.join(folder, f"lbm-openmp-{step}.h5")
            if not check(os.path.exists(h5_path), f"{h5_path} is missing"):
                continue
            check_xdmf(h5_path, ["density", "velocity", "cell_type"])
            pieces = [os.path.join(folder, f"lbm-openmp-{step}.vti")]
            if folder == two:
                pieces = [os.path.join(folder, f"lbm-openmp-{step}-{rank}.vti") for rank in (0, 1)]
            with h5py.File(h5_path, "r") as f:
                check(int(f.attrs["step"]) == int(step), f"{h5_path}: step {f.attrs['step']}")
                for piece in pieces:
                    extent, arrays = read_vti(piece)
                    box = numpy.s_[extent[4]:extent[5] + 1, extent[2]:extent[3] + 1, extent[0]:extent[1] + 1]
                    for name, values in arrays.items():
                        check(numpy.array_equal(f[name][box], values), f"{h5_path}: {name} differs from {piece}")
    for step in ("00000000", "00000030"):
        with h5py.File(os.path.join(one, f"lbm-openmp-{step}.h5"), "r") as a, \
                h5py.File(os.path.join(two, f"lbm-openmp-{step}.h5"), "r") as b:
            for name in ("density", "velocity", "cell_type"):
                check(numpy.array_equal(a[name][...], b[name][...]), f"step {step}: {name} on 2 ranks differs from 1")


def three_dvar(tmp):
    case = [os.path.join(BIN, "apps", "pk-3dvar"), "--space", "openmp", "--grid", "24,20,4", "--chunks", "2",
            "--observations", "300", "--h5", "--kokkos-num-threads=1"]
    for ranks, record_name in (("1", "3dvar-synthetic-openmp.json"), ("2", "3dvar-synthetic-np2-openmp.json")):
        out = os.path.join(tmp, f"np{ranks}")
        run(MPIEXEC + [ranks] + case + ["--out", out])
        h5_path = os.path.join(out, "3dvar-openmp.h5")
        if not check(os.path.exists(h5_path), f"{h5_path} is missing"):
            continue
        check_xdmf(h5_path, ["analysis", "background", "truth"])
        record = json.load(open(os.path.join(out, record_name)))["metrics"]
        with h5py.File(h5_path, "r") as f:
            check(f["analysis"].shape == (4, 20, 24), f"{h5_path}: analysis of shape {f['analysis'].shape}")
            truth = f["truth"][...]
            for field, metric in (("analysis", "analysis_rmse"), ("background", "background_rmse")):
                rmse = float(numpy.sqrt(numpy.mean((f[field][...] - truth) ** 2)))
                check(abs(rmse - record[metric]) <= 1e-12 * record[metric],
                      f"{ranks} ranks: rmse of {field} in the .h5 is {rmse}, the record says {record[metric]}")


with tempfile.TemporaryDirectory(prefix="pk-hdf5-") as tmp:
    {"lbm": lbm, "3dvar": three_dvar}[CHECK](tmp)
if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("all passed")
