"""Code generation through the disk cache: read an entry, or run the pipeline and store one.

``generate(request)`` is ``pipeline.generate(request)``, a ``pipeline.Generated``, read from the disk store
(cache/disk.py) when an entry for the same request exists and every callee
inlined into it is unchanged, generated (and stored) otherwise. A hit skips
parse, normalize, analyze, transform and optimize: it only compiles the stored
source (emit.compile_function), so a program that starts often does not
regenerate the same gradients at every start. Code whose aliases cannot be
written down (serialize.py) is not cached.

A cache failure (a read-only directory, a full disk, a bug here) never fails
the caller: the code is generated as if there were no cache, and the error is
counted in ``disk.statistics["errors"]`` (``disk.last_error`` holds the last one).
"""

from __future__ import annotations

import time

from .. import emit, pipeline
from ..serialize import NotSerializable, rebuild, spec_of
from ..version import __version__
from . import disk, keys

_UNCACHEABLE = (keys.Uncacheable, NotSerializable)


def generate(request):
    """``pipeline.generate(request)``, through the disk cache."""
    lookup = None
    if disk.enabled():
        try:
            lookup = keys.lookup_key(request)
            found = _load(lookup, request)
            if found is not None:
                return found
        except _UNCACHEABLE:
            disk.statistics["uncacheable"] += 1
            lookup = None
        except Exception as exc:  # never fail the caller because of the cache
            disk.record_error(exc)
            lookup = None
    generated = pipeline.generate(request)
    if lookup is not None:
        disk.statistics["misses"] += 1
        try:
            disk.store(lookup, _entry(lookup, request.function, generated))
        except _UNCACHEABLE:
            disk.statistics["uncacheable"] += 1
        except Exception as exc:
            disk.record_error(exc)
    return generated


def _load(lookup, request):
    entry = disk.load(lookup)
    if entry is None:
        return None
    try:
        callees = [rebuild(spec) for spec, _ in entry["callees"]]
        fingerprints = [keys.function_fingerprint(callee) for callee in callees]
        if fingerprints != [fingerprint for _, fingerprint in entry["callees"]] \
                or entry["key"] != keys.full_key(lookup, fingerprints):
            disk.statistics["stale"] += 1  # a callee changed since the code was generated
            return None
        aliases = {alias: rebuild(spec) for alias, spec in entry["aliases"].items()}
    except Exception:
        disk.statistics["stale"] += 1  # a module or name that is not there any more
        return None
    source, name, function = entry["source"], entry["name"], request.function
    reverse = request.mode == "reverse"
    label = "%s of %s" % ("grad" if reverse else "jvp", function.__qualname__)
    defaults = function.__defaults__ if reverse and not request.extra_params else None
    compiled = emit.compile_function(source, name, aliases, function, label, defaults)
    disk.statistics["hits"] += 1
    return pipeline.Generated(name, source, compiled, {}, aliases, callees)


def _entry(lookup, function, generated) -> dict:
    """The entry describing ``generated``; raises if an alias or callee cannot be written."""
    callees = [[spec_of(callee), keys.function_fingerprint(callee)]
               for callee in generated.callees]
    return {
        "lookup": lookup,
        "key": keys.full_key(lookup, [fingerprint for _, fingerprint in callees]),
        "name": generated.name,
        "source": generated.source,
        "aliases": {alias: spec_of(obj) for alias, obj in generated.aliases.items()},
        "callees": callees,
        "function": "%s.%s" % (function.__module__, function.__qualname__),
        "file": function.__code__.co_filename,
        "srcad": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
