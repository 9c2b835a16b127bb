"""Keys of the disk cache: fingerprints of everything generated code depends on.

An entry is found by a *lookup key*, the sha256 of

* srcad's version and a fingerprint of its installed files (so editing srcad
  itself, e.g. in an editable install, never serves stale code), the Python
  and NumPy versions, the entry format;
* the request (reverse/forward, wrt, options, the argument kinds the code is
  specialized for, the generated function's name);
* the function's fingerprint: its module, qualified name, file, first line and
  source text, and what each global or closure name it reads means (a module,
  a function by its qualified name, a constant by its value, ...);
* the gradient templates and non-differentiable declarations registered
  outside srcad.

The user functions inlined into the code are known only once it is generated:
an entry records each with its fingerprint, and is used only if every callee
still has it. The *full key* (lookup key plus the callees' fingerprints) is
stored in the entry and checked when it is read.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import inspect
import json
import os
import sys
import types

from .. import registry
from ..errors import SrcadError
from ..parse import read
from ..analysis import shapes
from ..serialize import LITERAL_TYPES, NotSerializable, module_of, spec_of
from ..version import __version__

FORMAT = 1  # of an entry; a change makes every older entry a miss

_build = None  # build_fingerprint(), computed once per process


class Uncacheable(Exception):
    """This request cannot be described in a way another process can rebuild."""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def lookup_key(request) -> str:
    """The key an entry for ``request`` (a request.Request) is stored under (see the module
    doc)."""
    numpy = sys.modules.get("numpy")
    material = {
        "format": FORMAT,
        "srcad": __version__,
        "build": build_fingerprint(),
        "python": "%s %s" % (sys.implementation.name, sys.version),
        "numpy": getattr(numpy, "__version__", None),
        "mode": request.mode,
        "request": repr(request),
        "kinds": kinds_text(request.kinds),
        "name": request.name,
        "optimizations": sorted(request.enabled),
        "function": function_fingerprint(request.function),
        "templates": registry_fingerprint(),
    }
    return sha(json.dumps(material, sort_keys=True))


def kinds_text(kinds) -> str:
    """The argument kinds, written so that two kinds are written alike only if equal: a
    ByValue kind (a callable, an object of the user's class: analysis/shapes.py) by what
    another process would import for it; Uncacheable if it cannot be named so."""
    if kinds is None:
        return repr(kinds)
    return "(%s)" % ", ".join(_kind_text(kind) for kind in kinds)


def _kind_text(kind) -> str:
    if isinstance(kind, shapes.Callee):
        return "Callee(%s)" % ", ".join(_part_text(part) for part in kind.parts)
    if isinstance(kind, shapes.Elements):
        return "Elements(%s)" % _kind_text(kind.item)
    if isinstance(kind, shapes.Instance):
        return "Instance(%s%s)" % (_part_text(kind.cls), "".join(
            ", %s=%s" % (name, _kind_text(inner)) for name, inner in kind.attributes))
    return repr(kind)


def _part_text(part) -> str:
    if type(part) is tuple:  # a partial's keyword: (name, value)
        return "%s=%s" % (part[0], _part_text(part[1]))
    try:
        return json.dumps(spec_of(part))
    except NotSerializable:
        raise Uncacheable("an argument %r that cannot be named for another process"
                          % (part,)) from None


def full_key(lookup: str, callee_fingerprints) -> str:
    """The lookup key completed by the fingerprints of the callees inlined into the code."""
    return sha(json.dumps([lookup, list(callee_fingerprints)]))


def build_fingerprint() -> str:
    """Names, sizes and modification times of srcad's own files (its code and templates)."""
    global _build
    if _build is None:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        roots = [package]
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
        _build = sha("\n".join(parts))
    return _build


def function_fingerprint(function) -> str:
    """What the generated code of ``function`` depends on, besides srcad: see the module doc."""
    code = function.__code__
    try:
        parsed = read(function)  # the source the pipeline parses, read once
    except SrcadError as exc:
        raise Uncacheable("no source: %s" % exc.message) from None
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
        "line": parsed.line_offset + 1,
        "source": parsed.raw_source,
        "globals": names,
        "cells": cells,
        "defaults": _describe_defaults(function),
    }
    return sha(json.dumps(material, sort_keys=True))


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


def describe(obj, depth=0) -> str:
    """A description of what a name means, stable across processes."""
    if type(obj) in LITERAL_TYPES:
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
        return "%s %s:%s" % (type(obj).__name__, _module_label(module_of(obj)),
                             getattr(obj, "__qualname__", getattr(obj, "__name__", "?")))
    if isinstance(obj, types.MethodType):
        return "method %s of %s" % (describe(obj.__func__, depth + 1),
                                    _type_name(type(obj.__self__)))
    by_value = shapes.of_value(obj)
    if isinstance(by_value, shapes.ByValue):  # a partial, an object of the user's class:
        return _kind_text(by_value)  # calls through it are resolved by what this says
    return "instance of %s" % _type_name(type(obj))


def _type_name(kind):
    return "%s.%s" % (_module_label(kind.__module__), kind.__qualname__)


_registry_read = (None, "")  # what registry_fingerprint last read (a list), its answer


def registry_fingerprint() -> str:
    """Templates and non-differentiable declarations registered outside srcad itself."""
    global _registry_read
    # read at every lookup (twice per grad and first call): the answer is the last one while
    # every primitive holds the same objects (held here, so none is freed and replaced by a
    # new one that compares alike; templates are not changed in place: registering one makes
    # a new Template)
    held = [(primitive.obj, primitive.adjoint, primitive.tangent, primitive.differentiable)
            for primitive in registry.registered(load=False)]
    try:
        unchanged = held == _registry_read[0]
    except Exception:  # noqa: BLE001 - an object whose == raises: not the same one
        unchanged = False
    if unchanged:
        return _registry_read[1]
    fingerprint = _registry_fingerprint()
    _registry_read = (held, fingerprint)
    return fingerprint


def _registry_fingerprint() -> str:
    parts = []
    # (read at every lookup, over every primitive: the tests below are the cheap spellings of
    # "in package P": module == P or module.startswith(P + "."))
    for primitive in registry.registered(load=False):  # srcad's own are in build_fingerprint
        for template in (primitive.adjoint, primitive.tangent):
            if template is None:
                continue
            module = getattr(template.function, "__module__", "") or ""
            if module.startswith("srcad.") or module == "srcad":
                continue
            try:
                body = "".join(inspect.getsourcelines(template.function)[0])
            except (OSError, TypeError):
                body = template.function.__code__.co_code.hex()
            parts.append("%s %s %s:%s %s" % (describe(primitive.obj), template.kind, module,
                                             template.function.__qualname__, sha(body)))
        if not primitive.differentiable:
            module = getattr(primitive.obj, "__module__", "") or ""
            if inspect.isfunction(primitive.obj) and module.partition(".")[0] not in (
                    "srcad", "numpy", "math"):
                parts.append("nondifferentiable %s" % describe(primitive.obj))
    return sha("\n".join(sorted(parts)))
