"""What srcad knows of an argument by its value: a callable, or an object of the user's class.

Code is generated per tuple of argument kinds (analysis/shapes.py). For most arguments
the kind is a type and a shape; for these it is the value itself, or what of it decides
what the code calls: a call through such an argument (``f(x)``, ``self.helper(x)``) is
resolved when the code is generated (normalize/calls_by_value.py), so another callable
or an object of another class gets code of its own.

* ``Callee(obj)``: a function, a NumPy ufunc, a ``functools.partial``, a bound method,
  any callable that is not an object of the user's own class;
* ``Instance(cls, attributes)``: an object of a class defined in the user's code (not
  in the standard library or site-packages: parse.is_library_file), with the by-value
  kinds of its own attributes that hold callables or such objects;
* ``Elements(kind)``: a list or tuple of items of one such kind (a list of layers).
"""

from __future__ import annotations

import functools
import numbers
import sys
import types

import numpy as np

from .parse import is_library_file


class ByValue:
    """An argument whose *value* shapes the generated code, not only its kind: calls
    through it are resolved when the code is generated (normalize/to_anf.py)."""

    __slots__ = ()


class Callee(ByValue):
    """A callable argument (a function, a NumPy ufunc, a ``functools.partial``, a bound
    method): code is generated for this very callable, so another one gets its own code.
    A bound method is the same callable as another of the same function and object, and a
    partial as another of the same function and bound values (each access or call may make
    a new such object)."""

    __slots__ = ("_hash", "obj", "parts")

    def __init__(self, obj):
        self.obj = obj
        if isinstance(obj, types.MethodType):
            parts = (types.MethodType, obj.__func__, obj.__self__)
        elif type(obj) is functools.partial:
            parts = ((functools.partial, obj.func) + tuple(obj.args)
                     + tuple(sorted(obj.keywords.items(), key=lambda item: item[0])))
        else:
            parts = (obj,)
        self.parts = parts
        self._hash = hash(tuple(_identity(part) for part in parts))

    def __eq__(self, other):
        return (type(other) is Callee and len(other.parts) == len(self.parts)
                and all(_same(a, b) for a, b in zip(self.parts, other.parts)))

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return "Callee(%s)" % _described(self.obj)


_LITERALS = (bool, int, float, complex, str, type(None))


def _identity(part):
    if type(part) is tuple:  # a partial's keyword: (name, value)
        return (part[0], _identity(part[1]))
    return (type(part), part) if type(part) in _LITERALS else id(part)


def _same(a, b) -> bool:
    if type(a) is tuple and type(b) is tuple:
        return a[0] == b[0] and _same(a[1], b[1])
    if type(a) in _LITERALS:
        return type(a) is type(b) and a == b
    return a is b


class Instance(ByValue):
    """An object of a user's class: its class decides what ``obj.method(...)`` calls, and
    ``attributes`` holds the by-value kinds of its own attributes that hold callables or
    such objects (``self.activation = np.tanh``, ``self.layer = Dense(...)``)."""

    __slots__ = ("_hash", "attributes", "cls")

    def __init__(self, cls, attributes=()):
        self.cls = cls
        self.attributes = tuple(attributes)  # ((name, ByValue), ...) in the object's order
        self._hash = hash((id(cls), self.attributes))

    def attribute(self, name):
        for key, kind in self.attributes:
            if key == name:
                return kind
        return None

    def __eq__(self, other):
        return (type(other) is Instance and other.cls is self.cls
                and other.attributes == self.attributes)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        inner = "".join(", %s=%r" % pair for pair in self.attributes)
        return "Instance(%s%s)" % (_described(self.cls), inner)


class Elements(ByValue):
    """A list or tuple whose items all have one ByValue kind (``self.layers``, a list of
    objects of one class): ``for layer in layers: layer(x)`` calls what that kind says."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item

    def __eq__(self, other):
        return type(other) is Elements and other.item == self.item

    def __hash__(self):
        return hash(("elements", self.item))

    def __repr__(self):
        return "Elements(%r)" % (self.item,)


def sequence_kind(value, depth=0):
    """Elements(kind) for a non-empty list or tuple of items of one ByValue kind, else None
    (only the first item is looked at when it has none: a list of numbers costs nothing)."""
    if type(value) not in (list, tuple) or not value or depth >= 3 or len(value) > 256:
        return None  # (a long list is not looked through at every call: left unresolved)
    first = by_value_kind(value[0], None, depth + 1)
    if first is None or any(by_value_kind(item, None, depth + 1) != first
                            for item in value[1:]):
        return None
    return Elements(first)


def _described(obj) -> str:
    module = getattr(obj, "__module__", None) or type(obj).__module__
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return "%s:%s" % (module, name)


_NOT_INSTANCES = (tuple, list, dict, set, frozenset, str, bytes, type(None), np.ndarray,
                  numbers.Number, np.generic, type)


_user_classes: dict = {}  # class -> whether it is the user's own (not library code)


def _is_user_class(kind) -> bool:
    known = _user_classes.get(kind)
    if known is None:
        module_name = getattr(kind, "__module__", None) or ""
        module = sys.modules.get(module_name)
        known = module_name.split(".")[0] not in _LIBRARY_ROOTS and not is_library_file(
            getattr(module, "__file__", None))
        _user_classes[kind] = known
    return known


_LIBRARY_ROOTS = frozenset(("builtins", "types", "functools", "numpy", "srcad", "math"))


def by_value_kind(value, unknown, depth=0):
    """The ByValue kind of a callable or of an object of a user's class, else ``unknown``."""
    kind = type(value)
    if isinstance(value, _NOT_INSTANCES) or not _is_user_class(kind):
        return Callee(value) if callable(value) and not isinstance(value, type) else unknown
    attributes = []
    if depth < 3:
        for name, attribute in getattr(value, "__dict__", {}).items():
            if type(attribute) in (list, tuple):
                inner = sequence_kind(attribute, depth + 1)
                if inner is not None:
                    attributes.append((name, inner))
            elif callable(attribute) or hasattr(attribute, "__dict__"):
                inner = by_value_kind(attribute, None, depth + 1)
                if inner is not None:
                    attributes.append((name, inner))
    return Instance(kind, attributes)
