"""Persistent cache of generated code, shared by every process of the user.

The in-memory cache (srcad/cache.py) is the first level; this is the second,
underneath code generation: ``generate_reverse`` / ``generate_forward`` have
the signatures of the pipeline's and return a ``pipeline.Generated``, read
from disk when an entry for the same request exists, generated (and stored)
otherwise. A hit skips parse, normalize, analyze, transform and optimize: it
only compiles the stored source (emit.compile_function), so a program that
starts often does not regenerate the same gradients at every start.

Where: ``$SRCAD_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/srcad`` or
``~/.cache/srcad``. ``SRCAD_CACHE=0`` switches it off. The directory is
created readable by its owner only (0o700); a directory another user owns, or
that others can write to, is not used.

An entry is found by a *lookup key*, the sha256 of

* srcad's version and a fingerprint of its installed files (so editing srcad
  itself, e.g. in an editable install, never serves stale code), the Python
  and NumPy versions, the entry format;
* the request (reverse/forward, wrt, options, the argument kinds the code is
  specialized for, the generated function's name);
* the function's module, qualified name, file, first line and source text,
  and what each global or closure name it reads means (a module, a function
  by its qualified name, a constant by its value, ...);
* the gradient templates and non-differentiable declarations registered
  outside srcad.

The entry lists the user functions inlined into the code (``Generated.callees``)
with the same fingerprint of each; it is used only if every callee still has
it, so the full key is the sha256 of all of the above plus the callees'
sources. An entry holds the generated source and, for each alias the code
uses (``np``, ``rt``, constants and functions of inlined callees), how to get
the object again: a module name, a qualified name, or a literal. Code whose
aliases cannot be described that way is not cached.

Entries are JSON files written atomically (a temporary file in the same
directory, then ``os.replace``), so processes filling the same entry at once
each write a whole file and the last one wins. Each holds the sha256 of its
payload: an entry that does not match (corrupt, truncated, edited) is
ignored, counted in ``statistics["rejected"]`` and regenerated; its code is
never compiled. Entries unused for 30 days are removed.

A cache failure (a read-only directory, a full disk, a bug here) never fails
the caller: the code is generated as if there were no cache, and the error is
counted in ``statistics["errors"]`` (``last_error`` holds the last one).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import importlib
import inspect
import json
import math
import os
import stat
import sys
import threading
import time
import types
import warnings

from . import emit, pipeline, registry
from .files import write_atomically
from .pipeline import Generated
from .version import __version__

FORMAT = 1
ENV_DIRECTORY = "SRCAD_CACHE_DIR"
ENV_SWITCH = "SRCAD_CACHE"
SUFFIX = ".json"
MAX_ENTRY_BYTES = 16 * 1024 * 1024
KEEP_SECONDS = 30 * 24 * 3600

statistics = {"hits": 0, "misses": 0, "stored": 0, "rejected": 0, "stale": 0,
              "uncacheable": 0, "errors": 0}
last_error: BaseException | None = None

_lock = threading.Lock()
_pruned = False
_warned: set = set()
_build = None


class Uncacheable(Exception):
    """This request cannot be described in a way another process can rebuild."""


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


# ---- the generation path


def generate_reverse(function, request, kinds=None, *, name=None, enabled=None):
    """``pipeline.generate_reverse``, through the persistent cache."""
    return _generate("reverse", function, request, kinds, name, enabled)


def generate_forward(function, request, kinds=None, *, name=None, enabled=None):
    """``pipeline.generate_forward``, through the persistent cache."""
    return _generate("forward", function, request, kinds, name, enabled)


def _generate(mode, function, request, kinds, name, optimizations):
    if optimizations is None:
        optimizations = frozenset(pipeline.OPTIMIZATIONS)
    lookup = None
    if enabled():
        try:
            lookup = lookup_key(mode, function, request, kinds, name, optimizations)
            found = _load(lookup, mode, function, request)
            if found is not None:
                return found
        except Uncacheable:
            statistics["uncacheable"] += 1
            lookup = None
        except Exception as exc:  # never fail the caller because of the cache
            _record_error(exc)
            lookup = None
    generate = pipeline.generate_reverse if mode == "reverse" else pipeline.generate_forward
    generated = generate(function, request, kinds, name=name, enabled=optimizations)
    if lookup is not None:
        statistics["misses"] += 1
        try:
            _store(lookup, function, generated)
        except Uncacheable:
            statistics["uncacheable"] += 1
        except Exception as exc:
            _record_error(exc)
    return generated


def _record_error(exc):
    global last_error
    statistics["errors"] += 1
    last_error = exc
    if os.environ.get("SRCAD_CACHE_DEBUG"):
        raise exc


def _label(mode, function):
    return "%s of %s" % ("grad" if mode == "reverse" else "jvp", function.__qualname__)


def _defaults(mode, function, request):
    if mode == "reverse" and not request.extra_params:
        return function.__defaults__
    return None


# ---- keys


def lookup_key(mode, function, request, kinds, name, optimizations) -> str:
    material = {
        "format": FORMAT,
        "srcad": _srcad_version(),
        "build": build_fingerprint(),
        "python": "%s %s" % (sys.implementation.name, sys.version),
        "numpy": _numpy_version(),
        "mode": mode,
        "request": repr(request),
        "kinds": repr(kinds),
        "name": name,
        "optimizations": sorted(optimizations),
        "function": function_fingerprint(function),
        "templates": _registry_fingerprint(),
    }
    return _sha(json.dumps(material, sort_keys=True))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _srcad_version():
    return __version__


def _numpy_version():
    numpy = sys.modules.get("numpy")
    return getattr(numpy, "__version__", None)


def build_fingerprint() -> str:
    """Names, sizes and modification times of srcad's own files (its code and templates)."""
    global _build
    if _build is None:
        roots = [os.path.dirname(os.path.abspath(__file__))]
        templates = sys.modules.get("srcad.templates")
        if templates is None:
            try:
                templates = importlib.import_module("srcad.templates")
            except ImportError:
                templates = None
        roots += list(getattr(templates, "__path__", []))
        parts = []
        for root in roots:
            for folder, subfolders, files in os.walk(root):
                subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
                for filename in sorted(files):
                    if filename.endswith(".py"):
                        path = os.path.join(folder, filename)
                        info = os.stat(path)
                        parts.append("%s %d %d" % (os.path.relpath(path, root), info.st_size,
                                                   info.st_mtime_ns))
        _build = _sha("\n".join(parts))
    return _build


def function_fingerprint(function) -> str:
    """What the generated code of ``function`` depends on, besides srcad: see the module doc."""
    code = function.__code__
    try:
        lines, first_line = inspect.getsourcelines(code)  # never __wrapped__'s source
    except (OSError, TypeError) as exc:
        raise Uncacheable("no source: %s" % exc) from None
    globals_ = function.__globals__
    names = {}
    for name in sorted(_global_names(code)):
        if name in globals_:
            names[name] = describe(globals_[name])
        elif hasattr(builtins, name):
            names[name] = "builtin"
        else:
            names[name] = "undefined"
    cells = {}
    for name, cell in zip(code.co_freevars, function.__closure__ or ()):
        try:
            cells[name] = describe(cell.cell_contents)
        except ValueError:
            cells[name] = "empty"
    material = {
        "module": _module_label(getattr(function, "__module__", None)),
        "qualname": function.__qualname__,
        "file": code.co_filename,
        "line": first_line,
        "source": "".join(lines),
        "globals": names,
        "cells": cells,
        "defaults": _describe_defaults(function),
    }
    return _sha(json.dumps(material, sort_keys=True))


def _describe_defaults(function):
    defaults = function.__defaults__ or ()
    keyword = function.__kwdefaults__ or {}
    return [describe(d) for d in defaults] + sorted("%s=%s" % (k, describe(v))
                                                   for k, v in keyword.items())


def _global_names(code) -> set:
    """Every name ``code`` (and the code nested in it) may look up as a global or attribute."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def _module_label(module):
    if module == "__main__":
        main = sys.modules.get("__main__")
        return "__main__@%s" % getattr(main, "__file__", None)
    return module


_LITERAL_TYPES = (bool, int, float, complex, str, bytes, type(None))


def describe(obj, depth=0) -> str:
    """A description of what a name means, stable across processes."""
    if type(obj) in _LITERAL_TYPES:
        return "%s %r" % (type(obj).__name__, obj)
    if isinstance(obj, types.ModuleType):
        return "module %s" % _module_label(obj.__name__)
    if type(obj) in (tuple, frozenset) and depth < 3 and len(obj) < 64:
        return "%s(%s)" % (type(obj).__name__,
                           ", ".join(describe(item, depth + 1) for item in obj))
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.ndarray):
        return "ndarray %s %s" % (obj.dtype.str, obj.shape)
    if numpy is not None and isinstance(obj, numpy.generic):
        return "%s %r" % (type(obj).__name__, obj.item())
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)) or (
            numpy is not None and isinstance(obj, numpy.ufunc)):
        return "%s %s:%s" % (type(obj).__name__, _module_label(_module_of(obj)),
                             getattr(obj, "__qualname__", getattr(obj, "__name__", "?")))
    if isinstance(obj, types.MethodType):
        return "method %s of %s" % (describe(obj.__func__, depth + 1),
                                    _type_name(type(obj.__self__)))
    return "instance of %s" % _type_name(type(obj))


def _type_name(kind):
    return "%s.%s" % (_module_label(kind.__module__), kind.__qualname__)


def _module_of(obj):
    module = getattr(obj, "__module__", None)
    if module is None:
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(obj, numpy.ufunc):
            return "numpy"
    return module


def _registry_fingerprint() -> str:
    """Templates and non-differentiable declarations registered outside srcad itself."""
    parts = []
    for primitive in list(registry._REGISTRY.values()):
        for template in (primitive.adjoint, primitive.tangent):
            if template is None:
                continue
            module = getattr(template.function, "__module__", "") or ""
            if module.split(".")[0] == "srcad":
                continue
            try:
                body = "".join(inspect.getsourcelines(template.function)[0])
            except (OSError, TypeError):
                body = template.function.__code__.co_code.hex()
            parts.append("%s %s %s:%s %s" % (describe(primitive.obj), template.kind, module,
                                             template.function.__qualname__, _sha(body)))
        if not primitive.differentiable:
            module = getattr(primitive.obj, "__module__", "") or ""
            if inspect.isfunction(primitive.obj) and module.split(".")[0] not in (
                    "srcad", "numpy", "math"):
                parts.append("nondifferentiable %s" % describe(primitive.obj))
    return _sha("\n".join(sorted(parts)))


# ---- describing and rebuilding objects (aliases, callees)


def spec_of(obj) -> list:
    """How another process gets ``obj`` again; raises Uncacheable if it cannot."""
    if _is_literal(obj):
        return ["literal", _literal_text(obj)]
    if isinstance(obj, types.ModuleType):
        spec = ["module", obj.__name__]
    else:
        module = _module_of(obj)
        qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
            raise Uncacheable("cannot name %r" % (obj,))
        spec = ["object", module, qualname]
    try:
        found = rebuild(spec)
    except Exception:
        raise Uncacheable("cannot find %r again" % (obj,)) from None
    if found is not obj:
        raise Uncacheable("%r is not found again under %s" % (obj, spec))
    return spec


def _is_literal(obj, depth=0) -> bool:
    kind = type(obj)
    if kind is float:
        return True
    if kind in _LITERAL_TYPES:
        return True
    if kind is tuple and depth < 3 and len(obj) < 256:
        return all(_is_literal(item, depth + 1) for item in obj)
    return False


def _literal_text(obj) -> str:
    """Python source for a literal value; ``float("nan")`` and friends included."""
    if type(obj) is float and not math.isfinite(obj):
        return 'float("%r")' % obj
    if type(obj) is complex and not (math.isfinite(obj.real) and math.isfinite(obj.imag)):
        return 'complex("%r")' % obj
    if type(obj) is tuple:
        inner = ", ".join(_literal_text(item) for item in obj)
        return "(%s,)" % inner if len(obj) == 1 else "(%s)" % inner
    return repr(obj)


def literal_value(text: str):
    """The value of a literal written by ``_literal_text`` (never evaluates anything else)."""
    tree = ast.parse(text, mode="eval").body
    return _literal_node(tree)


def _literal_node(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "float", "complex") and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return (float if node.func.id == "float" else complex)(node.args[0].value)
    if isinstance(node, ast.Tuple):
        return tuple(_literal_node(item) for item in node.elts)
    return ast.literal_eval(node)


def rebuild(spec):
    """The object a spec describes (importing its module if need be)."""
    kind = spec[0]
    if kind == "literal":
        return literal_value(spec[1])
    if kind == "module":
        return _import(spec[1])
    if kind == "object":
        obj = _import(spec[1])
        for part in spec[2].split("."):
            obj = getattr(obj, part)
        return obj
    raise ValueError("unknown spec %r" % (spec,))


def _import(name):
    module = sys.modules.get(name)
    if module is None:
        module = importlib.import_module(name)
    return module


# ---- entries


def _path(lookup: str) -> str | None:
    folder = _usable_directory(create=False)
    return None if folder is None else os.path.join(folder, lookup + SUFFIX)


def read_entry(path: str):
    """The payload (a dict) of the entry file at ``path``, or None if it is not valid."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_ENTRY_BYTES + 1)
    except FileNotFoundError:
        return None
    if len(data) > MAX_ENTRY_BYTES:
        raise _Corrupt("too large")
    try:
        document = json.loads(data.decode("utf-8"))
        payload = document["payload"]
        digest = document["sha256"]
        if document.get("format") != FORMAT:
            return None  # another version of srcad wrote it: not ours to judge
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise _Corrupt("not an entry") from None
    if not isinstance(payload, str) or not isinstance(digest, str) or _sha(payload) != digest:
        raise _Corrupt("content hash mismatch")
    try:
        entry = json.loads(payload)
    except ValueError:
        raise _Corrupt("payload is not JSON") from None
    if not isinstance(entry, dict):
        raise _Corrupt("payload is not an object")
    return entry


class _Corrupt(Exception):
    pass


def _load(lookup, mode, function, request):
    path = _path(lookup)
    if path is None:
        return None
    try:
        entry = read_entry(path)
    except _Corrupt:
        statistics["rejected"] += 1
        return None
    if entry is None or entry.get("lookup") != lookup:
        return None
    try:
        callees = [rebuild(spec) for spec, _ in entry["callees"]]
        fingerprints = [function_fingerprint(callee) for callee in callees]
        if fingerprints != [fingerprint for _, fingerprint in entry["callees"]]:
            statistics["stale"] += 1
            return None
        if entry["key"] != full_key(lookup, fingerprints):
            statistics["stale"] += 1
            return None
        aliases = {alias: rebuild(spec) for alias, spec in entry["aliases"].items()}
    except Exception:
        statistics["stale"] += 1  # a module or name that is not there any more
        return None

    source, name = entry["source"], entry["name"]
    compiled = emit.compile_function(source, name, aliases, function, _label(mode, function),
                                     _defaults(mode, function, request))
    statistics["hits"] += 1
    try:
        os.utime(path)  # in use: keep it
    except OSError:
        pass
    return Generated(name, source, compiled, {}, aliases, callees)


def full_key(lookup: str, callee_fingerprints) -> str:
    return _sha(json.dumps([lookup, list(callee_fingerprints)]))


def _store(lookup, function, generated):
    callees = []
    for callee in generated.callees:
        callees.append([spec_of(callee), function_fingerprint(callee)])
    aliases = {alias: spec_of(obj) for alias, obj in generated.aliases.items()}
    entry = {
        "lookup": lookup,
        "key": full_key(lookup, [fingerprint for _, fingerprint in callees]),
        "name": generated.name,
        "source": generated.source,
        "aliases": aliases,
        "callees": callees,
        "function": "%s.%s" % (function.__module__, function.__qualname__),
        "file": function.__code__.co_filename,
        "srcad": _srcad_version(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    folder = _usable_directory(create=True)
    if folder is None:
        return
    write_entry(os.path.join(folder, lookup + SUFFIX), entry)
    statistics["stored"] += 1
    _prune_once(folder)


def write_entry(path: str, entry: dict) -> None:
    """Write an entry atomically: a whole file appears under ``path``, or nothing changes."""
    payload = json.dumps(entry, sort_keys=True)
    document = json.dumps({"format": FORMAT, "sha256": _sha(payload), "payload": payload})
    write_atomically(path, document)


def _prune_once(folder):
    """Remove entries unused for KEEP_SECONDS, and temporary files left by crashed writers.

    At most once per process and once a day (a marker file records the last time), so a
    large cache does not cost a scan of every entry at every start.
    """
    global _pruned
    if _pruned:
        return
    _pruned = True
    now = time.time()
    marker = os.path.join(folder, ".pruned")
    try:
        if now - os.stat(marker).st_mtime < 24 * 3600:
            return
    except FileNotFoundError:
        pass
    with open(marker, "w"):
        pass
    for item in os.scandir(folder):
        try:
            age = now - item.stat().st_mtime
            if (item.name.endswith(SUFFIX) and age > KEEP_SECONDS) or (
                    item.name.endswith(".tmp") and age > 3600):
                os.unlink(item.path)
        except OSError:
            pass


# ---- srcad cache info / clear


def entries(folder=None) -> list:
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
        except _Corrupt:
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
        if item.name.endswith(SUFFIX) or (item.name.startswith(".entry-")
                                          and item.name.endswith(".tmp")):
            try:
                os.unlink(item.path)
                removed += item.name.endswith(SUFFIX)
            except OSError:
                pass
    return removed


def reset_statistics() -> None:
    global last_error
    with _lock:
        for key in statistics:
            statistics[key] = 0
        last_error = None
