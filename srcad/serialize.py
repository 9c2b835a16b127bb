"""Objects as text another process turns back into the same objects.

Generated code reads objects besides its parameters: srcad's aliases (``np``,
``rt``), the modules, functions and constants of inlined callees. Two places
write such an object down for another process: the disk cache
(srcad/cache/) stores a *spec* per object, and ``srcad.codegen`` writes an
import or an assignment per object into a module. Both use this module, so
both agree on what can be written and how:

* a literal: ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes``,
  ``None``, and tuples of them (``literal_text``; ``float("nan")`` included),
  read back by ``literal_value``, which never evaluates anything else;
* a module, by its name;
* an object importable as ``module.qualified.name``, found by ``locate`` (a
  public module is preferred: ``numpy.linalg.norm``, not
  ``numpy.linalg._linalg.norm``) and checked to give back the very object.
"""

from __future__ import annotations

import ast
import importlib
import math
import sys
import types

LITERAL_TYPES = (bool, int, float, complex, str, bytes, type(None))


class NotSerializable(Exception):
    """The object cannot be written down so that another process gets it back."""


# ---- literals


def is_literal(obj, depth: int = 0) -> bool:
    """Whether ``literal_text`` can write ``obj`` (a literal, or a small tuple of literals)."""
    kind = type(obj)
    if kind in LITERAL_TYPES:
        return True
    if kind is tuple and depth < 3 and len(obj) < 256:
        return all(is_literal(item, depth + 1) for item in obj)
    return False


def literal_text(obj) -> str:
    """Python source for a literal value; ``float("nan")`` and friends included."""
    if type(obj) is float and not math.isfinite(obj):
        return 'float("%r")' % obj
    if type(obj) is complex and not (math.isfinite(obj.real) and math.isfinite(obj.imag)):
        return 'complex("%r")' % obj
    if type(obj) is tuple:
        inner = ", ".join(literal_text(item) for item in obj)
        return "(%s,)" % inner if len(obj) == 1 else "(%s)" % inner
    return repr(obj)


def literal_value(text: str):
    """The value of a literal written by ``literal_text`` (never evaluates anything else)."""
    return _literal_node(ast.parse(text, mode="eval").body)


def _literal_node(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "float", "complex") and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return (float if node.func.id == "float" else complex)(node.args[0].value)
    if isinstance(node, ast.Tuple):
        return tuple(_literal_node(item) for item in node.elts)
    return ast.literal_eval(node)


# ---- importable objects


def module_of(obj) -> str | None:
    """The name of the module defining ``obj`` (NumPy's ufuncs have no ``__module__``)."""
    module = getattr(obj, "__module__", None)
    if module is None:
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(obj, numpy.ufunc):
            return "numpy"
    return module


def find(module: str, qualname: str):
    """The object ``module.qualname`` (importing the module if need be)."""
    obj = _module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def locate(obj, candidates=()) -> tuple | None:
    """``(module, qualified name)`` importing ``obj`` itself, or None.

    Tried in order: the public modules above the object's own (``numpy.linalg``
    before ``numpy.linalg._linalg``), its own module, then ``candidates`` (more
    ``(module, name)`` pairs, e.g. a global of the user's module bound to it).
    """
    tried = []
    module = module_of(obj)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname \
            and callable(obj):
        parts = module.split(".")
        for i in range(1, len(parts)):  # numpy.linalg._linalg.norm -> numpy.linalg.norm
            if parts[i - 1].startswith("_"):
                break
            tried.append((".".join(parts[:i]), qualname))
        tried.append((module, qualname))
    for module, qualname in tried + list(candidates):
        if not module:
            continue
        try:
            found = find(module, qualname)
        except Exception:  # a module that does not import, a missing attribute...
            continue
        if found is obj:
            return module, qualname
    return None


# ---- specs: one object as a JSON-able list


def spec_of(obj) -> list:
    """How another process gets ``obj`` again; raises NotSerializable if it cannot.

    ``["literal", text]``, ``["module", name]`` or ``["object", module, qualified name]``.
    """
    if is_literal(obj):
        return ["literal", literal_text(obj)]
    if isinstance(obj, types.ModuleType):
        spec = ["module", obj.__name__]
        try:
            found = rebuild(spec)
        except Exception:
            raise NotSerializable("cannot import module %s again" % obj.__name__) from None
        if found is not obj:
            raise NotSerializable("%r is not found again under %s" % (obj, spec))
        return spec
    located = locate(obj)
    if located is None:
        raise NotSerializable("cannot name %r so that it is found again" % (obj,))
    return ["object", *located]


def rebuild(spec):
    """The object a spec describes (importing its module if need be)."""
    kind = spec[0]
    if kind == "literal":
        return literal_value(spec[1])
    if kind == "module":
        return _module(spec[1])
    if kind == "object":
        return find(spec[1], spec[2])
    raise ValueError("unknown spec %r" % (spec,))


def _module(name):
    module = sys.modules.get(name)
    if module is None:
        module = importlib.import_module(name)
    return module
