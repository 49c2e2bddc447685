#!/usr/bin/env python3
"""Reference values of K_nu(x) and log K_nu(x) from mpmath (50 significant digits of
working precision), for tests/tstBesselK*.cpp and the accuracy report.

Grid: nu on a log grid over [0.001, 50] plus orders at and next to integers and
half-integers; x on a log grid over [1e-6, 700]; plus a few points outside that box that
check the documented validity region (nu = 0, x down to 1e-300 and up to 1e6).
Each nu and x is a double, printed with repr() so that C++ reads back the same double.

Usage: python3 tests/besselk/make_reference.py > tests/besselk/reference.txt
"""
import math
import sys

import mpmath as mp

mp.mp.dps = 50


def log_grid(lo, hi, count):
    return [float(lo * (hi / lo) ** (i / (count - 1))) for i in range(count)]


def orders():
    nus = set(log_grid(0.001, 50.0, 25))
    for centre in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 10.0, 10.5, 20.0, 25.5, 49.5):
        nus.add(centre)
        for offset in (1e-9, 1e-5):
            nus.add(centre - offset)
            nus.add(centre + offset)
    nus.update((0.05, 0.25, 0.75, 1.25, 4.0, 7.3, 15.0, 33.0, 50.0))
    return sorted(nu for nu in nus if 0.001 <= nu <= 50.0)


def main():
    out = sys.stdout
    out.write("# nu x log_K K   (mpmath %s, dps %d; made by tests/besselk/make_reference.py)\n"
              % (mp.__version__, mp.mp.dps))
    xs = log_grid(1e-6, 700.0, 46)
    xs += [2.0, 2.0000001, 24.999999, 25.0, 1.0, 0.1, 10.0, 100.0]
    points = [(nu, x) for nu in orders() for x in sorted(set(xs))]
    # Outside the tested box, inside the documented validity region.
    for nu in (0.0, 0.5, 1e-3, 7.5, 50.0):
        for x in (1e-300, 1e-100, 1e-30, 1e-12, 1e3, 1e4, 1e6):
            points.append((nu, x))
    for nu, x in points:
        k = mp.besselk(mp.mpf(nu), mp.mpf(x))
        out.write("%r %r %s %s\n" % (nu, x, mp.nstr(mp.log(k), 22), mp.nstr(k, 22)))


if __name__ == "__main__":
    main()
