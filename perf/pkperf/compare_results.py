"""Side by side: two folders of result records (say, one build against Kokkos 3.4.01 and one
against 4.6.01, run on the same machine), one Markdown row per record present in both, with
each record's speed figure and the speed ratio of second to first (above 1: the second is
faster): a rate divided, or a time inverted. Each record's figure and whether it is higher-is-better
are the record's own (records.figure, records.higher_is_better).
"""
from . import cli, records
from .records import Error


def load(folder):
    found = {path.name: record for path, record in records.objects(folder) if "metrics" in record}
    if not found:
        raise Error(f"no result records (*.json) in {folder}")
    return found


def main():
    cli.main("compare_results", run)


def run():
    parser = cli.parser(__doc__, whole=True)
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--labels", nargs=2, default=["first", "second"], metavar=("FIRST", "SECOND"))
    args = parser.parse_args()
    first, second = load(args.first), load(args.second)
    a, b = args.labels
    print(f"| kernel | case | space | figure | {a} | {b} | speed {b} / {a} |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(first.keys() & second.keys()):
        x, y = first[name], second[name]
        metric = records.figure(x)
        value_x, value_y = x["metrics"].get(metric), y["metrics"].get(metric)
        if metric is None or not value_x or not value_y:
            continue
        speed = value_y / value_x if records.higher_is_better(x) else value_x / value_y
        print(f"| {x['kernel']} | {x['case']} | {x['space']} | {metric} | {value_x:.4g} | {value_y:.4g} "
              f"| {speed:.3f} |")
    for label, only in ((a, first.keys() - second.keys()), (b, second.keys() - first.keys())):
        if only:
            print(f"\nOnly in {label}: {', '.join(sorted(only))}")

