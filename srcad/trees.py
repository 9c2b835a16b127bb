"""Arguments that are containers of arrays, seen leaf by leaf (for the public functions).

A *container* is a list, a tuple (a namedtuple too), a dict (of any dict
type) or a dataclass instance, nested to any depth (runtime.children);
anything else in it is a *leaf*. A leaf is
*differentiable* if it is a float, a complex, or an array or NumPy scalar of
floats (runtime.is_differentiable_leaf); every other leaf (an int, a bool, an
integer array, a string, None, a function...) is held constant.

A derivative for a container argument has the argument's own structure and
types: a gradient, a cotangent, a Jacobian block or an H·v product holds, at
each differentiable leaf, that leaf's derivative, and None at each leaf held
constant. A tangent (jvp) or direction (hvp) has the same structure, with
None (or nothing but zeros) where a leaf is held constant.

Generated code builds gradients with runtime.match_type; this module is for
what the public functions do around it: checking tangents, one-hot
directions for Jacobians and Hessians, finite differences.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidArgumentError
from .runtime import children, is_differentiable_leaf, rebuild, zeros_like


def is_container(x) -> bool:
    return children(x) is not None


def _items(x):
    return children(x)


def leaves(x, path=()) -> list:
    """``(path, leaf)`` for every leaf of ``x`` in order; ``path`` is the tuple of keys to it.

    A value that is not a container is its own only leaf, at path ``()``.
    """
    if not is_container(x):
        return [(path, x)]
    out = []
    for key, value in _items(x):
        out.extend(leaves(value, path + (key,)))
    return out


def copied(x):
    """``x`` with its containers and arrays copied (other leaves shared).

    For calling the user's own function (vjp, jacobian): as Python runs it, it
    may append to a list argument or write into an array argument, and the
    caller's values must stay as they were.
    """
    if isinstance(x, np.ndarray):
        return x.copy()
    items = children(x)
    if items is None:
        return x
    return rebuild(x, [copied(value) for _, value in items])


def differentiable(path, leaf) -> bool:
    """Whether a leaf gets a derivative (an argument that is no container always does)."""
    return path == () or is_differentiable_leaf(leaf)


def unflatten(like, values):
    """A tree of ``like``'s structure and types whose leaves are ``values``, in order."""
    values = iter(values)

    def build(x):
        if not is_container(x):
            return next(values)
        return rebuild(x, [build(value) for _, value in _items(x)])

    return build(like)


def at(tree, path):
    """The element of ``tree`` at ``path``."""
    for key in path:
        tree = dict(children(tree))[key]
    return tree


def replaced(tree, path, value):
    """A copy of ``tree`` (containers rebuilt, leaves shared) with ``value`` at ``path``."""
    if not path:
        return value
    key = path[0]
    return rebuild(tree, [replaced(item, path[1:], value) if k == key else item
                          for k, item in _items(tree)])


def path_text(name: str, path) -> str:
    return name + "".join("[%r]" % (key,) for key in path)


def one_hot(like, path, index):
    """A direction shaped like ``like``: 1.0 at element ``index`` of the leaf at ``path``,
    None at every other leaf (a leaf held constant in the direction)."""
    def direction(leaf_path, leaf):
        if leaf_path != path:
            return None
        if np.ndim(leaf) == 0:
            return 1.0
        out = np.zeros(np.shape(leaf))
        out[index] = 1.0
        return out

    return unflatten(like, [direction(p, leaf) for p, leaf in leaves(like)])


def tangent_for(tangent, primal, name: str):
    """The tangent of a container argument, checked against its primal's structure.

    None at a leaf (or for a whole sub-container) means a zero tangent. A leaf
    held constant (an int, a string...) takes None or a zero. Returns a tree
    of the primal's types with zeros where None was given.
    """
    def check(t, x, path):
        where = path_text(name, path)
        if is_container(x):
            if t is None:
                return rebuild(x, [check(None, value, path + (key,)) for key, value in _items(x)])
            if isinstance(x, dict):
                if not isinstance(t, dict) or set(t) != set(x):
                    raise InvalidArgumentError(
                        "the tangent for %s must be a dict with the keys %s, got %s"
                        % (where, sorted(map(repr, x)), _describe(t)))
            elif isinstance(x, (list, tuple)):
                if not isinstance(t, (list, tuple)) or len(t) != len(x):
                    raise InvalidArgumentError(
                        "the tangent for %s must be %s of length %d, got %s"
                        % (where, _a(type(x).__name__), len(x), _describe(t)))
            elif type(t) is not type(x):
                raise InvalidArgumentError("the tangent for %s must be %s, got %s"
                                           % (where, _a(type(x).__name__), _describe(t)))
            given = dict(children(t))
            return rebuild(x, [check(given[key], value, path + (key,))
                               for key, value in _items(x)])
        if t is None:
            return zeros_like(x)
        if not is_differentiable_leaf(x):
            if np.ndim(t) == 0 and not is_container(t) and _is_zero(t):
                return zeros_like(x)
            raise InvalidArgumentError(
                "%s is %s, which is held constant: its tangent must be None, got %r"
                % (where, _a(type(x).__name__), t),
                hint="Make it a float (2.0, not 2) to differentiate with respect to it.")
        if np.shape(t) != np.shape(x):
            raise InvalidArgumentError("the tangent for %s has shape %s, but %s has shape %s"
                                       % (where, np.shape(t), where, np.shape(x)))
        return t

    return check(tangent, primal, ())


def _is_zero(value) -> bool:
    try:
        return bool(value == 0)
    except (TypeError, ValueError):
        return False


def _describe(value) -> str:
    if isinstance(value, dict):
        return "%s with the keys %s" % (_a(type(value).__name__), sorted(map(repr, value)))
    if isinstance(value, (list, tuple)):
        return "%s of length %d" % (_a(type(value).__name__), len(value))
    return _a(type(value).__name__)


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun
