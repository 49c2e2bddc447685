"""What every front end in perf/ does with its command line: one parser set-up, [NAME=]FOLDER
and comma-separated lists, and bad input as one line on stderr with exit status 2."""
import argparse
import sys

from .records import Error


def parser(doc, whole=False):
    """A parser described by the first line of DOC, or by all of it as written (WHOLE)."""
    if whole:
        return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    return argparse.ArgumentParser(description=doc.splitlines()[0])


def named(argument):
    """(NAME, FOLDER) of a [NAME=]FOLDER argument; NAME is None where it is not given."""
    name, _, folder = argument.partition("=") if "=" in argument else (None, None, argument)
    return name or None, folder


def names(text):
    """The non-empty items of a comma-separated list."""
    return [w.strip() for w in (text or "").split(",") if w.strip()]


def main(tool, run):
    """Runs RUN(); bad input (records.Error) ends it as `TOOL: error: ...` and status 2."""
    try:
        run()
    except Error as e:
        print(f"{tool}: error: {e}", file=sys.stderr)
        sys.exit(2)
