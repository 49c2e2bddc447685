"""The one matplotlib set-up of perf/: headless (Agg), imported by the front ends that draw; and
the one way a chart is written (whole or not at all, files.save)."""
import pathlib

from .files import save
from .records import Error

try:
    import matplotlib
    matplotlib.use("Agg")  # before pyplot: no display on the machines that run these
    import matplotlib.colors
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    matplotlib = plt = None


def require():
    """Bad input, where matplotlib is missing: the tool cannot draw what it promises."""
    if plt is None:
        raise Error("needs matplotlib (Debian: python3-matplotlib)")


def write(fig, path, **savefig):
    """Writes FIG to PATH in the format its suffix names (PNG by default) and closes it."""
    path = pathlib.Path(path)
    save(path, lambda t: fig.savefig(t, format=path.suffix[1:] or "png", **savefig))
    plt.close(fig)
    return path
