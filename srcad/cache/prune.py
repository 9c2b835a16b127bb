"""The one pruner: what srcad keeps on disk, and for how long after its last use.

srcad writes files into two folders of its own:

* the disk cache (cache/disk.py): entries ``<key>.json``;
* generated sources (cache/generated_files.py): ``<label>_<hash>.py``, the
  files tracebacks, pdb and inspect show for generated code.

Using a file touches it (its modification time is its last use), so a file is
removed only when nothing used it for ``KEEP[folder kind][suffix]`` seconds;
temporary files a crashed writer left behind (``.tmp``, see files.py) go after
an hour. Sweeping a folder reads every file's time, so each folder is swept at
most once per process and once a day (a marker file records the last sweep).
"""

from __future__ import annotations

import os
import threading
import time

DAY = 24 * 3600

# folder kind -> {file name suffix: seconds a file is kept after its last use}
KEEP = {
    "store": {".json": 30 * DAY, ".tmp": 3600},
    "sources": {".py": 7 * DAY, ".tmp": 3600},
}
MARKER = ".last-sweep"

_lock = threading.Lock()
_swept: set = set()  # folders this process has swept (or decided not to)


def prune_once(folder: str, kind: str) -> None:
    """Remove the files of ``folder`` (a folder of ``kind``) unused for longer than KEEP says.

    At most once per process and once a day per folder; never raises for a file
    another process removed first or cannot be removed.
    """
    keep = KEEP[kind]
    with _lock:
        if folder in _swept:
            return
        _swept.add(folder)
    now = time.time()
    marker = os.path.join(folder, MARKER)
    try:
        if now - os.stat(marker).st_mtime < DAY:
            return
    except FileNotFoundError:
        pass  # never swept
    try:
        with open(marker, "w"):
            pass
        items = list(os.scandir(folder))
    except OSError:
        return
    for item in items:
        suffix = os.path.splitext(item.name)[1]
        if suffix not in keep:
            continue
        try:
            if item.is_file() and now - item.stat().st_mtime > keep[suffix]:
                os.unlink(item.path)
        except OSError:
            pass  # another process got there first
