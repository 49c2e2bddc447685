"""The report tests' checks: each failed one is printed and counted; finish() exits non-zero
if any failed."""
import sys

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def finish(passed_line):
    print(f"{len(failures)} failures" if failures else passed_line)
    sys.exit(1 if failures else 0)
