"""The disk store: entries of generated code, shared by every process of the user.

Where: ``$SRCAD_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/srcad`` or
``~/.cache/srcad``. ``SRCAD_CACHE=0`` switches it off. The directory is
created readable by its owner only (0o700); a directory another user owns, or
that others can write to, is not used.

An entry is a JSON file ``<lookup key>.json`` (cache/keys.py) holding a
payload: the generated source, its name, how to get each alias it uses again
(serialize.py specs), the callees inlined into it with their fingerprints,
and the full key. Entries are written atomically (a temporary file in the same
directory, then ``os.replace``), so processes filling the same entry at once
each write a whole file and the last one wins. Each holds the sha256 of its
payload: an entry that does not match (corrupt, truncated, edited) is not
returned, counted in ``statistics["rejected"]``, and its code never compiled.
Reading an entry touches it; the pruner (cache/prune.py) removes entries
unused for 30 days.

``statistics`` counts this process's hits, misses, stored, rejected and stale
entries, uncacheable requests and errors (``last_error`` holds the last one);
cache/generation.py, the path through this store, updates most of them.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import warnings

from ..files import write_atomically
from . import prune
from .keys import FORMAT, sha

ENV_DIRECTORY = "SRCAD_CACHE_DIR"
ENV_SWITCH = "SRCAD_CACHE"
SUFFIX = ".json"
MAX_ENTRY_BYTES = 16 * 1024 * 1024

statistics = {"hits": 0, "misses": 0, "stored": 0, "rejected": 0, "stale": 0,
              "uncacheable": 0, "errors": 0}
last_error: BaseException | None = None

_lock = threading.Lock()
_warned: set = set()


class CorruptEntry(Exception):
    """An entry file that is not what srcad wrote (its code is never compiled)."""


# ---- where, and whether


def enabled() -> bool:
    """False when ``SRCAD_CACHE`` is set to 0 (or false/no/off)."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def directory() -> str:
    """The cache directory (it may not exist yet)."""
    explicit = os.environ.get(ENV_DIRECTORY)
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.abspath(base), "srcad")


def _usable_directory(create: bool) -> str | None:
    """The cache directory, created 0o700 if asked; None if it must not be used."""
    path = directory()
    if create:
        os.makedirs(path, mode=0o700, exist_ok=True)
    return path if _usable(path) else None


def _usable(path) -> bool:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        _warn_once(path, "%s is not a directory; srcad's persistent cache is off" % path)
        return False
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        _warn_once(path, "srcad's cache directory %s is not owned by you or is writable by "
                         "others; the persistent cache is off (chmod 700 it, or set %s)"
                   % (path, ENV_DIRECTORY))
        return False
    return True


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


# ---- entries by key


def load(lookup: str) -> dict | None:
    """The valid entry stored under ``lookup`` (touched: in use), or None."""
    folder = _usable_directory(create=False)
    if folder is None:
        return None
    path = os.path.join(folder, lookup + SUFFIX)
    try:
        entry = read_entry(path)
    except CorruptEntry:
        statistics["rejected"] += 1
        return None
    if entry is None or entry.get("lookup") != lookup:
        return None
    try:
        os.utime(path)  # in use: keep it
    except OSError:
        pass
    return entry


def store(lookup: str, entry: dict) -> None:
    """Store ``entry`` under ``lookup`` (creating the directory if need be)."""
    folder = _usable_directory(create=True)
    if folder is None:
        return
    write_entry(os.path.join(folder, lookup + SUFFIX), entry)
    statistics["stored"] += 1
    prune.prune_once(folder, "store")


# ---- entry files


def read_entry(path: str):
    """The payload (a dict) of the entry file at ``path``, or None if there is none or it
    was written by another format; raises CorruptEntry if it is not a valid entry."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_ENTRY_BYTES + 1)
    except FileNotFoundError:
        return None
    if len(data) > MAX_ENTRY_BYTES:
        raise CorruptEntry("too large")
    try:
        document = json.loads(data.decode("utf-8"))
        payload = document["payload"]
        digest = document["sha256"]
        if document.get("format") != FORMAT:
            return None  # another version of srcad wrote it: not ours to judge
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise CorruptEntry("not an entry") from None
    if not isinstance(payload, str) or not isinstance(digest, str) or sha(payload) != digest:
        raise CorruptEntry("content hash mismatch")
    try:
        entry = json.loads(payload)
    except ValueError:
        raise CorruptEntry("payload is not JSON") from None
    if not isinstance(entry, dict):
        raise CorruptEntry("payload is not an object")
    return entry


def write_entry(path: str, entry: dict) -> None:
    """Write an entry atomically: a whole file appears under ``path``, or nothing changes."""
    payload = json.dumps(entry, sort_keys=True)
    document = json.dumps({"format": FORMAT, "sha256": sha(payload), "payload": payload})
    write_atomically(path, document)


# ---- srcad cache info / clear


def entries(folder=None) -> list:
    """The paths of the entry files in the cache directory (or ``folder``)."""
    folder = folder or directory()
    try:
        return sorted(item.path for item in os.scandir(folder)
                      if item.name.endswith(SUFFIX) and item.is_file())
    except FileNotFoundError:
        return []


def info(folder=None) -> dict:
    """Where the cache is, whether it is on, and what it holds (``folder``: another one)."""
    folder = folder or directory()
    paths = entries(folder)
    size, invalid = 0, 0
    for path in paths:
        try:
            size += os.path.getsize(path)
            if read_entry(path) is None:
                invalid += 1
        except CorruptEntry:
            invalid += 1
        except OSError:
            pass
    usable = os.path.isdir(folder) and _usable(folder)
    return {
        "directory": folder,
        "enabled": enabled(),
        "exists": os.path.isdir(folder),
        "usable": usable or not os.path.exists(folder),
        "entries": len(paths),
        "invalid": invalid,
        "bytes": size,
    }


def clear() -> int:
    """Remove every entry (and leftover temporary file); returns how many entries went."""
    folder = directory()
    removed = 0
    try:
        items = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for item in items:
        if item.name.endswith((SUFFIX, ".tmp")):
            try:
                os.unlink(item.path)
                removed += item.name.endswith(SUFFIX)
            except OSError:
                pass
    return removed


# ---- counts


def record_error(exc: BaseException) -> None:
    """Count a failure of the cache (the caller goes on without it)."""
    global last_error
    statistics["errors"] += 1
    last_error = exc
    if os.environ.get("SRCAD_CACHE_DEBUG"):
        raise exc


def reset_statistics() -> None:
    global last_error
    with _lock:
        for key in statistics:
            statistics[key] = 0
        last_error = None
