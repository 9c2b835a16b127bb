"""Everything srcad keeps so it does not generate the same code twice.

One file per job:

    memory.py           what srcad made for a function (derivative wrappers, vjps of
                        recursive functions), in the function's own __dict__
    specializations.py  one request's code per tuple of argument kinds (grad, jvp, vjp)
    keys.py             fingerprints of what generated code depends on: the disk keys
    disk.py             the disk store: entries of generated code shared by processes
    generation.py       code generation through the disk store (hit, or pipeline + store)
    generated_files.py  the files compiled generated code comes from (tracebacks, pdb)
    prune.py            the one pruner: what is kept on disk, and how long after last use

``srcad.cache.clear()`` and ``srcad.cache.statistics`` are the in-memory level
(memory.py); ``srcad.cache.disk`` has ``info()``, ``clear()`` and ``statistics``
for the disk store. Importing the package loads memory.py only (it needs nothing
but the standard library, so the lowest layers keep their tables there too:
recursion.py); each other file is imported by whoever uses it (api imports
disk.py and generation.py, emit generated_files.py).
"""

from .memory import clear, lookup, statistics, store

__all__ = ["clear", "disk", "lookup", "statistics", "store"]
