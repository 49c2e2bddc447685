"""The FP64 operations one K_nu evaluation counts, for the FP64 roof of besselk's evaluate case
(perf/besselk_ops.py).

Nsight Compute counts, on the GPU, the FP64 instructions of pk-bench's evaluate kernel
(bessel_k_all) that ran (DADD, DMUL and DFMA of the threads whose predicate was on); an operation
is an add or a multiply, so a DFMA counts two, as in the FP64 rate pk-bench measures beside the
case. Divided by the points the kernel evaluated, that is the count the roof divides the FP64
rate by. The CPUs measured here
give no hardware counters, so their records take the count of the same source on the GPU: their
roof says how far the host build is from the FP64 rate at the GPU build's operation count.
"""
import json
import pathlib

from . import cli, limits, records
from .files import save_text
from .records import Error

OPS = {"dadd": 1, "dmul": 1, "dfma": 2}
METRIC = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"


def count(folder):
    """The count of perf/device/besselk_ops.sh's FOLDER: the operations, the points and the run."""
    folder = pathlib.Path(folder)
    launches = limits.read_ncu(folder / "besselk-evaluate.csv")
    if len(launches) != 1:
        raise Error(f"{folder / 'besselk-evaluate.csv'}: {len(launches)} launches profiled, not one")
    metrics = launches[0]["metrics"]
    instructions = {}
    for op in OPS:
        value = metrics.get(METRIC.format(op))
        if value is None:
            raise Error(f"{folder / 'besselk-evaluate.csv'}: no {METRIC.format(op)}")
        instructions[op] = value
    path = folder / "records" / "besselk-evaluate-cuda.json"
    run = records.read(path)
    records.require(path, run, ("commit", "device", "metrics"))
    points = run["metrics"].get("points")
    if not isinstance(points, (int, float)) or points <= 0:
        raise Error(f"{path}: no points evaluated")
    if "bessel_k_all" not in launches[0]["name"]:  # the timed case's kernel, not another evaluation
        raise Error(f"{folder / 'besselk-evaluate.csv'}: the launch profiled is not bessel_k_all's")
    ops = sum(OPS[op] * n for op, n in instructions.items())
    return {"fp64_ops_per_eval": ops / points, "points": points, "instructions": instructions,
            "commit": run["commit"], "device": run["device"], "date": run.get("date", ""),
            "method": "Nsight Compute: DADD + DMUL + 2 DFMA executed (predicate on) by pk-bench's evaluate "
                      "kernel, over the points it evaluated (perf/device/besselk_ops.sh)",
            "source": folder.as_posix()}


def merge(counted, folder):
    """Writes COUNTED into the besselk evaluate records of FOLDER, which must all be of the count's
    commit (none is written otherwise); the paths written."""
    found = [(path, record) for path, record in records.objects(folder, "besselk-evaluate-*.json")
             if record.get("case") == "evaluate" and isinstance(record.get("metrics"), dict)]
    if not found:
        raise Error(f"{folder}: no besselk evaluate record")
    for path, record in found:
        if record.get("commit") != counted["commit"]:
            raise Error(f"{path}: measured at {record.get('commit')}, the count at {counted['commit']}")
    for path, record in found:
        record["metrics"]["fp64_ops_per_eval"] = counted["fp64_ops_per_eval"]
        record["fp64_ops_counted"] = {k: v for k, v in counted.items() if k != "fp64_ops_per_eval"}
        if record.get("space") != "cuda":
            record["fp64_ops_counted"]["note"] = ("counted on the GPU build of the same source: this CPU gives "
                                                  "no hardware counters")
        save_text(path, json.dumps(record, indent=2) + "\n")
    return [path for path, _ in found]


def main():
    cli.main("besselk_ops", run)


def run():
    parser = cli.parser(__doc__)
    parser.add_argument("count", help="perf/device/besselk_ops.sh's output folder")
    parser.add_argument("bench", nargs="+", help="a folder of the same platform's pk-bench records")
    args = parser.parse_args()
    counted = count(args.count)
    for folder in args.bench:
        for path in merge(counted, folder):
            print(f"{path}: {counted['fp64_ops_per_eval']:.1f} FP64 operations an evaluation")
