"""In-memory cache of generated derivatives.

Two levels:

* per user function object (weakly held) and options: the derivative
  wrapper ``grad`` returned, valid while the function's source is unchanged;
* inside each wrapper: one compiled specialization per tuple of argument
  kinds (analysis/shapes.py), filled on first call with such arguments.

Keying on the function object, not just its source text, matters: two
closures made by the same factory share their source but may call
different functions.
"""

from __future__ import annotations

import threading
import weakref

_lock = threading.Lock()
_by_function: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
statistics = {"generated": 0, "hits": 0}


def lookup(function, key, source_hash):
    with _lock:
        entries = _by_function.get(function)
        if entries is None:
            return None
        entry = entries.get(key)
        if entry is None or entry[0] != source_hash:
            return None
        statistics["hits"] += 1
        return entry[1]


def store(function, key, source_hash, value):
    with _lock:
        try:
            entries = _by_function.setdefault(function, {})
        except TypeError:  # not weakly referenceable: do not cache
            return
        entries[key] = (source_hash, value)


def clear() -> None:
    with _lock:
        _by_function.clear()
        statistics["generated"] = 0
        statistics["hits"] = 0
