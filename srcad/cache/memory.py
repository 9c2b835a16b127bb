"""In-memory table of what srcad made for each function, kept on the function itself.

An entry maps a key (the request: ``("grad", wrt names, ...)``, ``"vjp_of"``...)
to what srcad made for it: the derivative wrapper ``grad`` returned, the
generated vjp of a recursive function... It is valid while the function's code
object is unchanged (redefining, or editing and reloading, the function gives a
new one; so does assigning ``__code__``, as IPython's autoreload does). Inside
each derivative wrapper, one compiled specialization per tuple of argument kinds
(analysis/shapes.py) is filled on first call with such arguments.

Keying on the function object, not just its source text, matters: two
closures made by the same factory share their source but may call
different functions. The cache lives in the function's own ``__dict__``, so
it goes away with the function. ``functools.wraps`` copies a function's
``__dict__`` into its wrapper, so each function's entries record their owner
and a function never reads (or writes) entries it received that way.
"""

from __future__ import annotations

import threading
import weakref

_ATTRIBUTE = "__srcad_cache__"
_lock = threading.Lock()
_functions: "weakref.WeakSet" = weakref.WeakSet()
statistics = {"generated": 0, "hits": 0}


class _Entries(dict):
    """One function's cached derivatives, key -> (its code object, the derivative)."""

    def __init__(self, owner):
        super().__init__()
        self.owner = weakref.ref(owner)


def _own_entries(function):
    entries = getattr(function, "__dict__", {}).get(_ATTRIBUTE)
    if isinstance(entries, _Entries) and entries.owner() is function:
        return entries
    return None


def _code_of(function):
    """What a function's entries stay valid with: its code (a Derivative has none)."""
    return getattr(function, "__code__", None)


def lookup(function, key, counted: bool = True):
    """The entry stored for ``function`` under ``key`` (None: none, or the code changed);
    ``counted`` entries are the hits ``statistics`` reports (derivatives asked for)."""
    entries = _own_entries(function)
    if not entries:
        return None
    entry = entries.get(key)
    if entry is None or entry[0] is not _code_of(function):
        return None
    if counted:
        statistics["hits"] += 1
    return entry[1]


def store(function, key, value):
    with _lock:
        entries = _own_entries(function)
        if entries is None:  # none yet, or copied from a wrapped function by functools.wraps
            entries = function.__dict__[_ATTRIBUTE] = _Entries(function)
        entries[key] = (_code_of(function), value)
        _functions.add(function)


def clear(function=None) -> None:
    """Forget what srcad made or read for ``function`` (its generated code, its parse), or
    for every function (and the counts)."""
    with _lock:
        for cached in [function] if function is not None else list(_functions):
            cached.__dict__.pop(_ATTRIBUTE, None)
            _functions.discard(cached)
        if function is None:
            statistics["generated"] = 0
            statistics["hits"] = 0
