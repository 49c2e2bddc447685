"""What limits a platform's kernels, from measurements taken there: Nsight Compute's raw pages
of a GPU's kernels (perf/device/limits.sh) or a CPU's pk-bench records at two thread counts
(perf/device/cpu_limits.sh), reduced to one JSON file that perf/report.py reads.

GPU: per case, the kernels that take at least a tenth of the profiled time at the case's own
size (the most threads a kernel was launched with), in the variant pk::autotune takes there (the
fastest of the launch shapes and launch bounds profiled). A kernel whose grid fills less than one
wave of the SMs is limited by its parallelism; one with a unit (DRAM, L2, L1, the SMs' pipes) at
80 % of its peak or more, by that unit; the others by latency, named by the warps' most frequent
stall.
CPU: per case, the speed-up from the fewer to the more threads beside that of the best copy: a
kernel that gains at least 60 % of the ideal speed-up (x1.6 on twice the threads) is limited by
what each core does or waits on, one that gains at most 25 % of it (x1.25) by what the cores
share.
"""
import csv
import json
import pathlib
import re

from . import cli, records
from .files import save_text
from .records import Error

UNITS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0,
         "second": 1.0}
BYTE_RATES = {"byte/s": 1.0, "Kbyte/s": 1e3, "Mbyte/s": 1e6, "Gbyte/s": 1e9, "Tbyte/s": 1e12}
THROUGHPUT = {"DRAM": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
              "L2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
              "L1": "l1tex__throughput.avg.pct_of_peak_sustained_active",
              "SM": "sm__throughput.avg.pct_of_peak_sustained_elapsed"}
STALLS = {"long_scoreboard": "loads from memory (long scoreboard)",
          "wait": "fixed-latency dependencies (wait)",
          "short_scoreboard": "shared-memory and special-function results (short scoreboard)",
          "mio_throttle": "the shared-memory instruction queue (MIO throttle)",
          "lg_throttle": "the global-memory instruction queue (LG throttle)",
          "barrier": "barriers", "math_pipe_throttle": "a busy math pipe", "not_selected": "other eligible warps",
          "no_instruction": "instruction fetch", "imc_miss": "constant-cache misses", "branch_resolving": "branches",
          "membar": "memory barriers", "drain": "stores draining", "dispatch_stall": "dispatch",
          "tex_throttle": "the texture queue", "misc": "other causes", "sleeping": "sleeping"}
BOUND_PCT, SHARE, CORES, SHARED = 80.0, 0.1, 0.6, 0.25
KERNEL_STEPS = {"0": "A-B step", "1": "A-A even step", "2": "A-A odd step"}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def read_ncu(path):
    """The launches of one Nsight Compute raw page (CSV): name, grid, block, seconds, metrics."""
    try:
        rows = list(csv.reader(path.open(newline="")))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise Error(f"{path}: cannot read ({e})") from None
    if len(rows) < 3 or "Kernel Name" not in rows[0] or "gpu__time_duration.sum" not in rows[0]:
        raise Error(f"{path}: not an Nsight Compute raw page with launches (ncu --import R --csv --page raw)")
    header, units = rows[0], rows[1]
    index = {name: i for i, name in enumerate(header)}
    scale = UNITS.get(units[index["gpu__time_duration.sum"]])
    if scale is None:
        raise Error(f"{path}: unknown time unit '{units[index['gpu__time_duration.sum']]}'")
    launches = []
    for row in rows[2:]:
        if len(row) != len(header):
            raise Error(f"{path}: a row of {len(row)} fields under a header of {len(header)}")
        values = {name: number(row[i]) for name, i in index.items()}
        if values["gpu__time_duration.sum"] is None:
            raise Error(f"{path}: a launch without a duration")
        dram = values.get("dram__bytes.sum.per_second") or 0.0
        dram_unit = units[index["dram__bytes.sum.per_second"]] if "dram__bytes.sum.per_second" in index else ""
        launches.append({"name": row[index["Kernel Name"]], "grid": values.get("launch__grid_size") or 0,
                         "block": values.get("launch__block_size") or 0,
                         "seconds": values["gpu__time_duration.sum"] * scale, "metrics": values,
                         "dram_bytes_per_second": dram * BYTE_RATES.get(dram_unit, 0.0)})
    return launches


def family(name):
    """A kernel's name with its launch bounds left out: the variants one autotune chooses among."""
    return re.sub(r", \d+, \d+>\(T1\)$", ">(T1)", re.sub(r"LaunchBounds<\d+, \d+>", "LaunchBounds", name))


def label(name):
    """A short name: the functor or the function that holds the lambda, and the LBM step."""
    m = re.search(r"Parallel(?:For|Reduce|Scan\w*)<(?:\w+ )?([\w:]+)", name)
    text = (m.group(1) if m else name).split("::")[-1]
    step = re.search(r"StreamCollide<\w+, (?:[^<>,]|<[^<>]*>)+, (\d), [01]>", name)
    if step and text in ("StreamCollide", "OpenCells", "WalledCells", "BoxCells"):
        text += f" ({KERNEL_STEPS.get(step.group(1), 'step')})"
    return text


def gpu_limit(m, sms):
    """What limits one launch, from its metrics, and whether it spills registers."""
    spills = m.get("derived__local_spilling_requests") or 0
    return unit_limit(m, sms) + (f"; it spills registers ({spills:.3g} local-memory requests)" if spills else "")


def unit_limit(m, sms):
    """Parallelism, a unit's throughput or latency: which of them limits the launch."""
    waves = m.get("launch__waves_per_multiprocessor")
    if waves is not None and waves < 1:
        return (f"parallelism: a grid of {m['launch__grid_size']:.0f} blocks of {m['launch__block_size']:.0f} "
                f"threads fills {waves:.2f} of a wave on the {sms:.0f} SMs; the GPU waits on launches and idle "
                "SMs, no unit's throughput")
    units = {u: m.get(metric) or 0.0 for u, metric in THROUGHPUT.items()}
    busiest = max(units, key=units.get)
    if units[busiest] >= BOUND_PCT:
        return f"{busiest} throughput: {units[busiest]:.0f} % of its peak"
    stalls = {s: m.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") or 0.0 for s in STALLS}
    stall = max(stalls, key=stalls.get)
    busy = ", ".join(f"{u} {v:.0f} %" for u, v in units.items())
    occupancy = m.get("sm__warps_active.avg.pct_of_peak_sustained_active") or 0
    registers = m.get("launch__registers_per_thread") or 0
    return (f"latency: no unit at {BOUND_PCT:.0f} % of its peak ({busy}); the warps wait mostly on "
            f"{STALLS[stall]}: {stalls[stall]:.1f} warps waiting per issued instruction, at {occupancy:.0f} % "
            f"occupancy ({registers:.0f} registers a thread)")


def gpu_findings(folder):
    findings = {}
    if not pathlib.Path(folder).is_dir():
        raise Error(f"{folder}: not a folder")
    files = sorted(pathlib.Path(folder).glob("*.csv"))
    if not files:
        raise Error(f"{folder}: no Nsight Compute pages (*.csv)")
    for path in files:
        kernel, _, case = path.stem.partition("-")
        launches = read_ncu(path)
        chosen = []
        for fam in sorted({family(x["name"]) for x in launches}):
            runs = [x for x in launches if family(x["name"]) == fam]
            threads = max(x["grid"] * x["block"] for x in runs)  # the case's own size, not a smaller trial's
            variants = {}
            for x in (x for x in runs if x["grid"] * x["block"] == threads):
                variants.setdefault((x["name"], x["grid"], x["block"]), []).append(x)
            means = {key: sum(x["seconds"] for x in v) / len(v) for key, v in variants.items()}
            best = min(means, key=means.get)
            chosen.append((variants[best][-1], means[best], len(variants)))
        total = sum(seconds for _, seconds, _ in chosen)
        for launch, seconds, variants in sorted(chosen, key=lambda c: -c[1]):
            if seconds < SHARE * total:
                continue
            m = launch["metrics"]
            findings.setdefault(kernel, []).append({
                "case": case, "launch": f"{label(launch['name'])}, {launch['grid']:.0f} x {launch['block']:.0f}",
                "share": seconds / total,
                "microseconds": seconds * 1e6, "variants_profiled": variants,
                "dram_tbs": launch["dram_bytes_per_second"] * 1e-12,
                "limit": gpu_limit(m, m.get("device__attribute_multiprocessor_count") or 0)})
    return findings


def read_records(folder):
    """{(kernel, case): record} of the pk-bench records in FOLDER."""
    found = {}
    for path, record in records.objects(folder):
        records.require(path, record, ("kernel", "case", "metrics"))
        found[(record["kernel"], record["case"])] = record
    return found


def speed(record):
    value = record["metrics"][records.figure(record)]
    return value if records.higher_is_better(record) else 1 / value


def cpu_findings(folder):
    if not pathlib.Path(folder).is_dir():
        raise Error(f"{folder}: not a folder")
    counts = sorted(int(p.name.split("-")[1]) for p in pathlib.Path(folder).glob("threads-*") if p.is_dir()
                    and p.name.split("-")[1].isdigit())
    if len(counts) < 2:
        raise Error(f"{folder}: needs threads-<N>/ folders of records at two thread counts")
    few, many = counts[0], counts[-1]
    a, b = read_records(f"{folder}/threads-{few}"), read_records(f"{folder}/threads-{many}")
    findings = {}
    for key in sorted(set(a) & set(b)):
        gain = speed(b[key]) / speed(a[key])
        probe = [r["metrics"].get("dram_copy_bandwidth_gbs") for r in (a[key], b[key])]
        copy = probe[1] / probe[0] if all(probe) else None
        than = f", the best copy x{copy:.2f}" if copy else ""
        ideal = many / few
        part = (gain - 1) / (ideal - 1)  # of the ideal gain
        if part >= CORES:
            limit = (f"the cores: x{gain:.2f} on {ideal:.0f} times the threads{than}: bound by what each core "
                     "does or waits on (instructions, dependency chains, its own cache misses), not by a resource "
                     "the cores share")
        elif part <= SHARED:
            limit = (f"what the cores share (memory, last-level cache): x{gain:.2f} on {ideal:.0f} times the "
                     f"threads{than}")
        else:
            limit = f"partly the cores, partly what they share: x{gain:.2f} on {ideal:.0f} times the threads{than}"
        findings.setdefault(key[0], []).append({"case": key[1], "launch": f"{few} -> {many} threads",
                                                "speedup": gain, "copy_speedup": copy, "limit": limit})
    if not findings:
        raise Error(f"{folder}: no case was run at both {few} and {many} threads")
    return findings


def main():
    cli.main("limits", run)


def run():
    parser = cli.parser(__doc__)
    parser.add_argument("platform", help="the report's platform, e.g. h200:cuda")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--ncu", metavar="DIR", help="Nsight Compute raw pages, DIR/<kernel>-<case>.csv")
    source.add_argument("--threads", metavar="DIR", help="pk-bench records in DIR/threads-<N>/, two counts")
    parser.add_argument("--device", default="", help="the device, as the records name it")
    parser.add_argument("--commit", default="", help="the commit measured")
    parser.add_argument("--out", required=True, help="JSON file to write")
    args = parser.parse_args()
    findings = gpu_findings(args.ncu) if args.ncu else cpu_findings(args.threads)
    result = {"platform": args.platform, "device": args.device, "commit": args.commit,
              "source": args.ncu or args.threads,
              "method": "Nsight Compute (perf/device/limits.sh)" if args.ncu else
              "pk-bench at two thread counts (perf/device/cpu_limits.sh)", "kernels": findings}
    try:
        save_text(args.out, json.dumps(result, indent=1) + "\n")
    except OSError as e:
        raise Error(f"{args.out}: cannot write ({e.strerror})") from None
    for kernel, items in findings.items():
        for f in items:
            print(f"{args.platform} {kernel} {f['case']} {f['launch']}: {f['limit']}")
