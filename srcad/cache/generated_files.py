"""Generated source files: where compiled generated code says it comes from.

emit.compile_function compiles generated code from a real file, so that every
traceback printer, pdb and ``inspect.getsource`` can show its lines: the file
is ``<tempdir>/srcad-<uid>/<label>_<hash of the text>.py``, in a folder
readable by its owner only. Equal text gives an equal name, so a file is
written once and reused by every process of the user; using it touches it,
and the pruner (cache/prune.py) removes files unused for a week.
"""

from __future__ import annotations

import os
import re
import tempfile

from ..files import write_atomically
from . import prune


def source_directory() -> str:
    """Where generated sources are written, so every traceback printer can show them."""
    user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return os.path.join(tempfile.gettempdir(), "srcad-%s" % user)


def write_source_file(text: str, label: str, digest: str) -> str | None:
    """The path of a file holding ``text`` (written atomically if need be); None if that is
    not possible (then only linecache holds the text)."""
    directory = source_directory()
    stem = "%s_%s" % (re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")[:60], digest)
    path = os.path.join(directory, stem + ".py")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        prune.prune_once(directory, "sources")
        if os.path.exists(path):
            os.utime(path)  # in use: keep it
        else:
            write_atomically(path, text)
    except OSError:
        return None
    return path
