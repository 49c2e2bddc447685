"""Weak and strong scaling of pk-lbm's distributed mode, as result records.

    lbm_scaling.py --pk-lbm build/openmp/apps/pk-lbm --ranks 1,2,4 --out build/results

Strong: one lattice (--strong LENGTH WIDTH HEIGHT, a box channel) on every rank count.
Weak: --weak LENGTH WIDTH HEIGHT per rank, stacked along --weak-axis (default x: the channel
LENGTH x ranks long; z: HEIGHT x ranks high). pk-lbm cuts either along z, where its slabs
meet in x-y planes contiguous in memory, unless told otherwise (extra argument --slab-axis,
e.g. x to cut an x-stacked lattice where it was stacked, into strided y-z planes). Each run is
pk-lbm under mpirun (1 rank: pk-lbm as it is); its record gains the series ("strong" or
"weak") and the parallel efficiency against the 1-rank run of the same series, measured in
the same invocation: MLUPS_N / (D MLUPS_1), D the devices the N ranks run on (--devices;
default N, one device or core per rank), for strong and for weak (N times the cells) scaling.
Ranks that share one GPU (--devices 1) thus show the cost of the split itself. Records:
lbm-<series>-<pattern>-<precision>-np<N>-<space>.json in --out (series: strong, weak, or
weak-y / weak-z when stacked along y or z).
Extra arguments after -- go to pk-lbm (say, --kokkos-num-threads=1).
"""
import json
import pathlib
import subprocess
import tempfile

from . import cli, records
from .files import save_text
from .records import Error


def run_pk_lbm(args, ranks, channel, extra):
    with tempfile.TemporaryDirectory() as folder:
        command = [args.pk_lbm, "--space", args.space, "--pattern", args.pattern, "--precision", args.precision,
                   "--steps", str(args.steps), "--channel", *map(str, channel), "--out", folder, *extra]
        if ranks > 1:
            command = args.mpirun.split() + ["-np", str(ranks)] + command
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise Error(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        found = list(pathlib.Path(folder).glob("lbm-*.json"))
        if len(found) != 1:
            raise Error(f"expected one record from {' '.join(command)}, found {len(found)}")
        return records.read(found[0])


def main():
    cli.main("lbm_scaling", run)


def run():
    parser = cli.parser(__doc__, whole=True)
    parser.add_argument("--pk-lbm", required=True)
    parser.add_argument("--mpirun", default="mpirun --oversubscribe --bind-to none")
    parser.add_argument("--ranks", default="1,2,4")
    parser.add_argument("--space", default="openmp")
    parser.add_argument("--pattern", default="aa", choices=["aa", "ab"])
    parser.add_argument("--precision", default="fp32", choices=["fp32", "fp64", "fp16"])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--strong", type=int, nargs=3, default=[126, 30, 30], metavar=("L", "W", "H"))
    parser.add_argument("--weak", type=int, nargs=3, default=[64, 30, 30], metavar=("L", "W", "H"))
    parser.add_argument("--series", nargs="+", default=["strong", "weak"], choices=["strong", "weak"])
    parser.add_argument("--weak-axis", default="x", choices=["x", "y", "z"], help="axis the weak series stacks along")
    parser.add_argument("--devices", type=int, default=0, help="devices the ranks share (default: one per rank)")
    parser.add_argument("--out", required=True)
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    ranks = [int(n) for n in args.ranks.split(",")]
    if ranks[0] != 1:
        raise Error("--ranks must start with 1 (the efficiency's reference)")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for series in args.series:
        base = None
        for n in ranks:
            channel = list(args.strong if series == "strong" else args.weak)
            if series == "weak":
                channel["xyz".index(args.weak_axis)] *= n
            record = run_pk_lbm(args, n, channel, extra)
            metrics = record["metrics"]
            metrics.setdefault("ranks", 1.0)
            metrics.setdefault("cells_per_rank", metrics["active_cells"])
            metrics.setdefault("mlups_per_rank", metrics["mlups"])
            metrics.setdefault("exchange_share", 0.0)
            base = base or metrics["mlups"]
            devices = min(n, args.devices) if args.devices > 0 else n
            metrics["devices"] = float(devices)
            metrics["mlups_per_device"] = metrics["mlups"] / devices
            metrics["parallel_efficiency"] = metrics["mlups"] / (devices * base)
            label = series if series == "strong" or args.weak_axis == "x" else f"weak-{args.weak_axis}"
            record["case"] = f"{label}-{args.pattern}-{args.precision}-np{n}"
            path = out / f"lbm-{record['case']}-{record['space']}.json"
            save_text(path, json.dumps(record, indent=2) + "\n")
            print(f"{series:6} {n} ranks: {metrics['cells_per_rank']:10.0f} cells/rank {metrics['mlups']:8.2f} MLUPS "
                  f"{metrics['mlups_per_rank']:7.2f}/rank {metrics['mlups_per_device']:8.2f}/device  efficiency {metrics['parallel_efficiency']:.2f}  "
                  f"exchange {100 * metrics['exchange_share']:.0f} %")
