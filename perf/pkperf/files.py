"""Files the perf scripts write appear whole or not at all (a full disk or an interruption never
leaves a truncated record, table or chart under its name)."""
import os
import pathlib


def save(path, write):
    """Calls write(temporary) for a temporary name in PATH's folder, then renames it over PATH."""
    path = pathlib.Path(path)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def save_text(path, text):
    save(path, lambda t: t.write_text(text, encoding="utf-8"))
