"""Writing files safely: generated sources, cache entries, offline modules."""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, text: str, permissions: int | None = None) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half.

    The text goes to a temporary file in the same folder, which then replaces
    ``path`` (``os.replace`` is atomic); several processes may race safely.
    """
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".srcad-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        if permissions is not None:
            os.chmod(temporary, permissions)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
