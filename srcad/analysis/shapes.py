"""Abstract shapes: what generated code may assume about the type and rank of each value.

srcad specializes generated code on the *kinds* of the arguments of a call:
a Python float, an int, a NumPy scalar, or an array of a given rank with, per
dimension, whether its size is 1 (the "broadcast pattern", which decides where
an adjoint must be summed). From those, shape rules attached to primitives
(registry.shape_rule) give every variable an abstract value; the optimizer
then turns runtime broadcasting helpers into plain expressions, or removes them.

Abstract values:
  ``Scalar(kind)``  kind is "float" (exactly a Python float), "int", "bool",
                    "numpy" (certainly no Python scalar: a NumPy scalar, or the 0-d array
                    a few NumPy functions give for scalars; shape () either way),
                    or "scalar" (any scalar: a mix the kinds cannot tell, e.g. a
                    Python float at one point and a NumPy scalar at another)
  ``Array(ones)``   an ndarray; ``ones[i]`` is True if dimension i has size 1,
                    False if not, None if unknown; ``len(ones)`` is the rank
  ``Known(value)``  a compile-time constant (used for axes, keepdims, shapes)
  ``UNKNOWN``       nothing is known; generated code keeps its runtime checks
``None`` stands for "no value seen yet" (the bottom of the lattice).
"""

from __future__ import annotations

import heapq
import numbers
import operator
from dataclasses import dataclass

import gast
import numpy as np

from .. import registry, syntax
from ..annotations import is_placeholder, is_restore
from ..by_value import (  # noqa: F401 - re-exported
    ByValue,
    Callee,
    Elements,
    Instance,
    by_value_kind,
    sequence_kind,
)
from .operations import (
    ATTRIBUTE,
    BINARY_OPERATORS,
    COMPARISONS,
    FORMATTED,
    TUPLE,
    UNARY_OPERATORS,
    UNRESOLVED,
)


class Abstract:
    __slots__ = ()


@dataclass(frozen=True)
class Scalar(Abstract):
    kind: str


@dataclass(frozen=True)
class Array(Abstract):
    ones: tuple

    @property
    def ndim(self) -> int:
        return len(self.ones)


@dataclass(frozen=True)
class Known(Abstract):
    value: object

    def __hash__(self):
        return hash(repr(self.value))

    def __eq__(self, other):
        return isinstance(other, Known) and repr(other.value) == repr(self.value)


class _Unknown(Abstract):
    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = _Unknown()
FLOAT = Scalar("float")
# a NumPy scalar (np.float64...) or a 0-d result of NumPy: never a Python float, so a
# specializer knows float() is not wanted; joined with a Python scalar, ANY_SCALAR
NUMPY_SCALAR = Scalar("numpy")
ANY_SCALAR = Scalar("scalar")


def of_value(value) -> Abstract:
    """The abstract value of a concrete runtime value (used to key specializations)."""
    kind = type(value)
    if kind is float:
        return FLOAT
    if kind is int:
        return Scalar("int")
    if kind is bool:
        return Scalar("bool")
    if kind is np.ndarray:
        return _array_kind(value.shape)
    if isinstance(value, np.generic):
        return NUMPY_SCALAR
    if isinstance(value, numbers.Number):
        return ANY_SCALAR  # a complex, a Fraction...
    if kind in _CONTAINERS:
        return (sequence_kind(value) or UNKNOWN) if kind is list or kind is tuple else UNKNOWN
    return by_value_kind(value, UNKNOWN)


_CONTAINERS = frozenset((tuple, list, dict, str, type(None)))
# shape -> its Array kind: every call of a derivative looks its arguments' kinds up
_ARRAY_KINDS: dict = {}


def _array_kind(shape) -> Array:
    kind = _ARRAY_KINDS.get(shape)
    if kind is None:
        kind = Array(tuple(n == 1 for n in shape))
        if len(_ARRAY_KINDS) < 4096:  # bounded: a program with ever new shapes
            _ARRAY_KINDS[shape] = kind
    return kind


def shape_kinds(kinds):
    """``kinds`` for shape inference: what is known of a ByValue argument is no shape."""
    if kinds is None:
        return None
    return tuple(UNKNOWN if isinstance(k, ByValue) else k for k in kinds)


def values_of(params, kinds) -> dict:
    """The parameters whose kind is ByValue, with it (``{}`` for code of any kind)."""
    if kinds is None:
        return {}
    return {param: kind for param, kind in zip(params, kinds) if isinstance(kind, ByValue)}


def has_no_axes(a) -> bool:
    """Whether a value of kind ``a`` has ``np.ndim`` 0 at run time: a scalar or a 0-d array
    (``np.tensordot(x, x, axes=2)`` of a matrix, ``np.array(0.5)``), which the helpers that
    branch on ``np.ndim`` treat alike."""
    a = plain(a)
    return isinstance(a, Scalar) or type(a) is Array and not a.ones


def plain(a):
    """Forget a constant's value, keeping its kind."""
    kind = type(a)
    if kind is Array or kind is Scalar:
        return a  # (the usual kinds: nothing to forget)
    if isinstance(a, ShapeTuple):
        return UNKNOWN
    if isinstance(a, Dimension):
        return Scalar("int")
    if isinstance(a, Known):
        value = a.value
        if isinstance(value, (bool, int, float)) or value is None:
            return of_value(value) if value is not None else UNKNOWN
        if isinstance(value, np.ndarray):
            return of_value(value)
        return UNKNOWN
    return a


def join(a, b):
    """The least abstract value covering both ``a`` and ``b``."""
    if a is None:
        return b
    if b is None:
        return a
    if a == b:
        return a
    a, b = plain(a), plain(b)
    if a == b:
        return a
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        return ANY_SCALAR
    if isinstance(a, Array) and isinstance(b, Array) and a.ndim == b.ndim:
        return Array(tuple(x if x == y else None for x, y in zip(a.ones, b.ones)))
    if isinstance(a, IndexTuple) and isinstance(b, IndexTuple) and len(a.parts) == len(
            b.parts) and a.adds_items == b.adds_items:
        return IndexTuple(tuple(join(x, y) for x, y in zip(a.parts, b.parts)), a.adds_items)
    return UNKNOWN


# ---------------------------------------------------------------- shape rules
# A rule takes the abstract positional arguments and keyword arguments of a
# call and returns the abstract result.


def stacked(items):
    """The array NumPy makes of a list or tuple of these items (np.array([a, b])): scalars,
    or arrays of one rank (of one shape, or NumPy refuses them) along a new first axis; a
    nested list is an array of its own."""
    patterns = [stacked(item.parts) if isinstance(item, IndexTuple) else (
        stacked([Known(v) for v in item.value])
        if isinstance(item, Known) and isinstance(item.value, tuple) else plain(item))
        for item in items]
    if not patterns:
        return UNKNOWN
    if all(isinstance(p, Scalar) for p in patterns):
        return Array((len(patterns) == 1,))
    if not all(isinstance(p, Array) for p in patterns) or len({p.ndim for p in patterns}) != 1:
        return UNKNOWN  # a mix, or ragged items
    return Array((len(patterns) == 1,) + tuple(
        True if True in flags else False if False in flags else None  # one size: NumPy's check
        for flags in zip(*(p.ones for p in patterns))))


def _as_operand(value):
    """An operand as a ufunc sees it: a list or tuple of numbers as the array NumPy makes
    of it (not an adjoint's Parts, which adds item by item)."""
    if isinstance(value, IndexTuple) and not value.adds_items:
        return stacked(value.parts)
    if isinstance(value, Known) and isinstance(value.value, tuple):
        return stacked([Known(v) for v in value.value])
    return plain(value)


def _broadcast(values):
    if len(values) == 1 and type(values[0]) is Array and all(
            f is True or f is False or f is None for f in values[0].ones):
        return values[0]  # (np.tanh(x)...: as below)
    if len(values) == 2:  # (the usual operands: an array and a scalar, or two arrays alike)
        first, second = values
        if type(first) is Scalar and type(second) is Array:
            first, second = second, first
        if type(first) is Array and (type(second) is Scalar or (
                type(second) is Array and second.ones == first.ones)) and all(
                f is True or f is False or f is None for f in first.ones):
            return first  # one pattern: itself, as below
    # (an Array or a Scalar is its own operand: no call for those, the usual operands)
    arrays = [v if type(v) is Array or type(v) is Scalar else _as_operand(v) for v in values]
    if any(not isinstance(v, (Array, Scalar)) for v in arrays):
        return UNKNOWN  # an object, a ragged list...
    shaped = [v for v in arrays if isinstance(v, Array)]
    if not shaped:
        return None
    first = shaped[0].ones
    if all(v.ones == first for v in shaped) and all(
            f is True or f is False or f is None for f in first):
        return shaped[0]  # one pattern (an array and scalars, most often): itself
    ndim = max(v.ndim for v in shaped)
    result = []
    for axis in range(ndim):
        flags = [v.ones[axis - ndim + v.ndim] for v in shaped if axis - ndim + v.ndim >= 0]
        if all(f is True for f in flags):
            result.append(True)
        elif any(f is False for f in flags):
            result.append(False)
        else:
            result.append(None)
    return Array(tuple(result))


def elementwise(*args, **kwargs):
    """A NumPy ufunc-like function: broadcast of the arguments; scalars give a NumPy scalar
    (np.sin(0.5) is an np.float64; np.where of scalars a 0-d array)."""
    shape = _broadcast(args)
    if shape is None:
        return NUMPY_SCALAR
    return shape


def _sequence_kept(args) -> bool:
    """Whether a Python operator leaves a list or tuple operand a sequence: unless an array
    is among the operands (NumPy then makes an array of it), ``[a] * 3`` repeats the list and
    ``[a] + [b]`` concatenates."""
    for a in args:
        if type(a) is Array or type(a) is Scalar:
            continue  # (the usual operands: neither a list nor a tuple)
        if isinstance(a, IndexTuple) or isinstance(a, Known) and isinstance(a.value, tuple):
            return not any(isinstance(plain(b), Array) for b in args)
    return False


def operator_elementwise(*args, **kwargs):
    """A Python operator: like ``elementwise`` but Python scalars stay Python scalars."""
    if _sequence_kept(args):
        return UNKNOWN
    shape = _broadcast(args)
    if shape is not None:
        return shape
    kinds = [plain(a).kind for a in args]
    if all(k in ("int", "bool") for k in kinds):
        return Scalar("int")
    if all(k in ("float", "int", "bool") for k in kinds):
        return FLOAT
    if "numpy" in kinds:
        return NUMPY_SCALAR  # np.float64(1) + 1.0, -np.float64(1): NumPy's operators win
    return ANY_SCALAR


def add(a, b, **kwargs):
    """``a + b``: ``operator_elementwise``; two adjoints of one list (``IndexTuple``s that
    add item by item: rt.Parts) add up part by part."""
    if isinstance(a, IndexTuple) or isinstance(b, IndexTuple):
        if isinstance(a, IndexTuple) and isinstance(b, IndexTuple) and a.adds_items and (
                b.adds_items) and len(a.parts) == len(b.parts):
            return IndexTuple(tuple(operator_elementwise(x, y) for x, y in zip(
                a.parts, b.parts)), adds_items=True)
        return UNKNOWN  # a list concatenated, an array added to a Parts...
    return operator_elementwise(a, b)


def true_divide(*args, **kwargs):
    result = operator_elementwise(*args)
    return FLOAT if result == Scalar("int") else result


def power(*args, **kwargs):
    result = operator_elementwise(*args)
    return ANY_SCALAR if result == Scalar("int") else result


def comparison(*args, **kwargs):
    """A Python bool for Python scalars; a NumPy scalar (np.bool_) when one is NumPy's."""
    if _sequence_kept(args):
        return UNKNOWN
    shape = _broadcast(args)
    if shape is not None:
        return shape
    kinds = [plain(a).kind for a in args]
    if all(k in ("float", "int", "bool") for k in kinds):
        return Scalar("bool")
    if "numpy" in kinds:
        return NUMPY_SCALAR  # an np.bool_
    return ANY_SCALAR


# the rules of arithmetic: functions of their operands' kinds alone (a constant number read as
# its kind), kept per kinds by _arithmetic
_ARITHMETIC = frozenset((elementwise, operator_elementwise, add, true_divide, power, comparison))


def same_as_first(*args, **kwargs):
    return plain(args[0]) if args else UNKNOWN


def python_float(*args, **kwargs):
    return FLOAT


def reduction(x, axis=Known(None), *rest, keepdims=Known(False), **kwargs):
    """sum / mean / max ...: drop (or keep as size 1) the reduced axes."""
    x = plain(x)
    if isinstance(x, Scalar):
        return NUMPY_SCALAR  # np.sum(0.5) is an np.float64
    if not isinstance(x, Array) or not isinstance(axis, Known) or not isinstance(keepdims, Known):
        return UNKNOWN
    axes = axis.value
    if axes is None:
        axes = tuple(range(x.ndim))
    elif not isinstance(axes, tuple):
        axes = (axes,)
    try:
        axes = {a % x.ndim for a in axes} if x.ndim else set()
    except TypeError:
        return UNKNOWN
    if keepdims.value:
        return Array(tuple(True if i in axes else f for i, f in enumerate(x.ones)))
    kept = tuple(f for i, f in enumerate(x.ones) if i not in axes)
    return Array(kept) if kept else NUMPY_SCALAR


def dot(a, b, *rest, **kwargs):
    a, b = plain(a), plain(b)
    if has_no_axes(a) or has_no_axes(b):  # (a 0-d array too: np.dot multiplies then)
        return elementwise(a, b)
    if not isinstance(a, Array) or not isinstance(b, Array):
        return UNKNOWN
    if b.ndim == 1:
        ones = a.ones[:-1]
    else:
        ones = a.ones[:-1] + b.ones[:-2] + b.ones[-1:]
    return Array(ones) if ones else NUMPY_SCALAR


def matmul(a, b, *rest, **kwargs):
    a, b = plain(a), plain(b)
    if not isinstance(a, Array) or not isinstance(b, Array):
        return UNKNOWN
    if a.ndim == 1 and b.ndim == 1:
        return NUMPY_SCALAR
    if a.ndim == 1:
        return Array(b.ones[:-2] + b.ones[-1:])
    if b.ndim == 1:
        return Array(a.ones[:-1])
    batch = _broadcast([Array(a.ones[:-2]), Array(b.ones[:-2])])
    return Array(batch.ones + a.ones[-2:-1] + b.ones[-1:])


def transpose(x, axes=Known(None), *rest, **kwargs):
    x = plain(x)
    if isinstance(x, Scalar):
        return NUMPY_SCALAR  # np.transpose(0.5) is a 0-d array; np.float64(0.5).T itself
    if not isinstance(x, Array):
        return UNKNOWN
    if isinstance(axes, Known) and axes.value is None:
        return Array(x.ones[::-1])
    if isinstance(axes, Known) and isinstance(axes.value, tuple):
        return Array(tuple(x.ones[a] for a in axes.value))
    return UNKNOWN


def reshape(x, shape=UNKNOWN, *rest, **kwargs):
    """``np.reshape(x, shape)``: a rank as long as the shape; each size is known to be 1 or
    not where it is a constant or another array's size (``x.reshape(x.shape[0], -1)``)."""
    if isinstance(shape, ShapeTuple):  # y.reshape(x.shape): x's pattern
        if shape.ones is not None:
            return Array(shape.ones)
        return Array((None,) * shape.ndim) if shape.ndim is not None else UNKNOWN
    if isinstance(shape, Known) and isinstance(shape.value, tuple):
        parts = tuple(Known(n) for n in shape.value)
    elif isinstance(shape, IndexTuple):
        parts = shape.parts
    else:
        parts = (shape,)
    ones = []
    for part in parts:
        if isinstance(part, Known) and type(part.value) is int:
            ones.append(None if part.value == -1 else part.value == 1)
        elif isinstance(part, Dimension):
            ones.append(part.one)
        elif plain(part) == Scalar("int"):
            ones.append(None)
        else:
            return UNKNOWN
    x = plain(x)
    inferred = [i for i, part in enumerate(parts) if part == Known(-1)]
    if len(inferred) == 1 and isinstance(x, Array) and None not in x.ones:
        # the size NumPy infers is x's size over the others': 1 when x holds one element;
        # not 1 when the others are 1 (x.reshape(-1), x.reshape(1, -1)) and x has a size
        # other than 1 (0 included)
        if all(x.ones):
            ones[inferred[0]] = True
        elif all(part == Known(1) for i, part in enumerate(parts) if i != inferred[0]):
            ones[inferred[0]] = False
    return Array(tuple(ones))


def method_reshape(x, *shape, **kwargs):
    if len(shape) == 1:
        return reshape(x, shape[0])
    return reshape(x, IndexTuple(tuple(shape)))


def method_transpose(x, *axes, **kwargs):
    if not axes:
        return transpose(x)
    if len(axes) == 1:
        return transpose(x, axes[0])
    if all(isinstance(a, Known) for a in axes):
        return transpose(x, Known(tuple(a.value for a in axes)))
    return UNKNOWN


def getitem(x, index):
    """``x[index]`` for an array ``x``: ints drop a dimension, slices keep it; an item of a
    constant tuple (``axes[1]``) is a constant."""
    if isinstance(x, Known) and isinstance(x.value, tuple) and isinstance(index, Known):
        try:
            return _known_or_unknown(x.value[index.value])
        except (IndexError, TypeError):
            return UNKNOWN
    if isinstance(x, IndexTuple):  # an item of a list or tuple of known length
        if isinstance(index, Known) and type(index.value) is int and -len(
                x.parts) <= index.value < len(x.parts):
            return x.parts[index.value]
        return UNKNOWN
    if isinstance(x, ShapeTuple):
        is_int = isinstance(index, Known) and isinstance(index.value, int)
        if is_int and x.ones is not None and -len(x.ones) <= index.value < len(x.ones):
            return Dimension(one=x.ones[index.value])  # x.shape[0], x's pattern known
        return Scalar("int") if is_int or plain(index) == Scalar("int") else UNKNOWN
    x = plain(x)
    if not isinstance(x, Array):
        return UNKNOWN
    if isinstance(index, Known) and isinstance(index.value, tuple):
        parts = tuple(Known(value) for value in index.value)  # x[:, None]: each part a constant
    else:
        parts = index.parts if isinstance(index, IndexTuple) else (index,)
    ellipses = [i for i, part in enumerate(parts) if part == _ELLIPSIS]
    if ellipses:  # x[..., 1]: as many full slices as the dimensions the other parts leave
        consumed = sum(1 for part in parts if part != _ELLIPSIS and part != Known(None))
        if len(ellipses) > 1 or consumed > len(x.ones):
            return UNKNOWN
        at = ellipses[0]
        parts = parts[:at] + (FULL_SLICE,) * (len(x.ones) - consumed) + parts[at + 1:]
    if any(isinstance(part, Abstract) and isinstance(plain(part), Array) for part in parts):
        return _advanced_getitem(x, parts)
    ones = list(x.ones)
    result = []
    position = 0
    for part in parts:
        value = part.value if isinstance(part, Known) else part
        if isinstance(part, Known) and value is None:
            result.append(True)
        elif isinstance(value, slice) or part == FULL_SLICE or isinstance(part, SliceAbstract):
            if position >= len(ones):
                return UNKNOWN
            full = part == FULL_SLICE or (isinstance(value, slice) and value == slice(None))
            result.append(ones[position] if full else None)
            position += 1
        elif isinstance(value, (int, np.integer)) or plain(part) in (Scalar("int"), Scalar("bool")):
            if position >= len(ones):
                return UNKNOWN
            position += 1
        else:
            return UNKNOWN
    result.extend(ones[position:])
    return Array(tuple(result)) if result else NUMPY_SCALAR  # an element: a NumPy scalar


def _advanced_getitem(x, parts):
    """``x[rows, cols]``, ``x[rows]``, ``x[:, cols]``: index arrays of rank 1 (and ints)
    consume one dimension each and give one dimension, in their place when they are
    adjacent, first otherwise (NumPy's rule). Its size is unknown: an index array may be a
    mask (kinds do not say), whose count of True values is the size."""
    ones, result, position = list(x.ones), [], 0
    advanced_at, advanced_block_ended, adjacent = None, False, True
    for part in parts:
        value = part.value if isinstance(part, Known) else part
        kind = plain(part) if isinstance(part, Abstract) else None
        is_array = isinstance(kind, Array)
        is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool) or (
            kind == Scalar("int"))
        if is_array and kind.ndim != 1:
            return UNKNOWN  # a mask of rank 2 consumes two dimensions; an int array of rank 2
        if (is_array or is_int) and position < len(ones):
            if advanced_at is None:
                advanced_at = len(result)
                result.append(None)
            elif advanced_block_ended:
                adjacent = False
            position += 1
            continue
        if advanced_at is not None:
            advanced_block_ended = True
        full = part == FULL_SLICE or (isinstance(value, slice) and value == slice(None))
        if isinstance(value, slice) or full or isinstance(part, SliceAbstract):
            if position >= len(ones):
                return UNKNOWN
            result.append(ones[position] if full else None)
            position += 1
        elif isinstance(part, Known) and value is None:
            result.append(True)
        else:
            return UNKNOWN  # an Ellipsis, an index past the last dimension...
    result.extend(ones[position:])
    if not adjacent:
        result.insert(0, result.pop(advanced_at))
    return Array(tuple(result))


@dataclass(frozen=True)
class ShapeTuple(Abstract):
    """The ``.shape`` of an array: a tuple of ints (its length known when the rank is, and
    whether each is 1 when ``ones`` is given: the array's pattern)."""

    ndim: int | None
    ones: tuple | None = None


@dataclass(frozen=True)
class Dimension(Scalar):
    """An int that is one of an array's sizes (``x.shape[0]``): 1 or not as ``one`` says
    (None: either). Its kind is "int"; ``plain`` forgets the rest."""

    kind: str = "int"
    one: bool | None = None


def shape_of(x, *rest, **kwargs):
    x = plain(x)
    if isinstance(x, Array):
        return ShapeTuple(x.ndim, x.ones)
    if isinstance(x, Scalar):
        return Known(())
    return ShapeTuple(None)


def integer(*args, **kwargs):
    return Scalar("int")


@dataclass(frozen=True)
class SliceAbstract(Abstract):
    """A slice whose bounds are not all constants."""


FULL_SLICE = Known(slice(None))
_ELLIPSIS = Known(Ellipsis)


@dataclass(frozen=True)
class IndexTuple(Abstract):
    """A tuple or list of known length, by the abstract values of its items: an index
    (``x[i, :]``), a shape (``(n, -1)``), a list of arrays (``[x, y]``, np.split's pieces,
    np.linalg.eigh's pair). ``adds_items``: an adjoint of a list (rt.Parts, from the helpers
    that cut an adjoint into parts), whose ``+`` adds item by item instead of
    concatenating."""

    parts: tuple
    adds_items: bool = False


def made_of_shape(shape):
    """An array made of shape ``shape`` (np.full, np.broadcast_to...): its pattern when
    ``shape`` is an int, a constant tuple of ints or another array's ``.shape``."""
    if isinstance(shape, ShapeTuple):
        return Array(shape.ones) if shape.ones is not None else UNKNOWN
    if isinstance(shape, Known):
        value = shape.value if isinstance(shape.value, tuple) else (shape.value,)
        if all(type(n) is int and n >= 0 for n in value):
            return Array(tuple(n == 1 for n in value))
    return UNKNOWN


# ------------------------------------------------------------- inference


def _known_or_unknown(obj):
    if isinstance(obj, (bool, int, float)) or obj is None or obj is np.r_ or obj is np.c_:
        return Known(obj)  # (np.r_ and np.c_: how rt.concatenated joins)
    return UNKNOWN


def evaluate(node, env: dict, resolve, cache: dict | None = None) -> Abstract:
    """The abstract value of an expression (of any nesting) under ``env``. ``cache`` (a
    dict, if given) keeps the shape rules and callees looked up (and each constant's Known),
    for a caller evaluating many expressions while the names keep what they refer to and the
    constants their values (a pass)."""
    return _evaluate(node, env, resolve, {} if cache is None else cache)


_NO_KEYWORDS: dict = {}


_CALLEE = object()  # marks the keys of ``rules`` that hold a callee (never a primitive's)
_UNSEEN = object()


def _rule_of(primitive, rules: dict):
    """The shape rule of ``primitive`` (None: none), kept in ``rules`` once looked up."""
    try:
        return rules[primitive]
    except KeyError:
        entry = registry.lookup(primitive)
        rule = rules[primitive] = entry.shape_rule if entry is not None else None
        return rule
    except TypeError:  # an unhashable callee: the registry keys it by its id
        entry = registry.lookup(primitive)
        return entry.shape_rule if entry is not None else None


def _evaluate(node, env: dict, resolve, rules: dict) -> Abstract:
    """``evaluate``; ``rules`` caches the shape rule of each primitive met (and the object
    each callee ``m.f`` refers to, and the Known of each constant operand, by its node).

    The operation an expression performs is read as ``operations.operation_of`` reads it
    (the same primitive, operands and keywords), without building an Operation."""
    kind = type(node)
    if kind is gast.Name:
        if node.id in env:
            return env[node.id]  # None while no assignment to it has been evaluated yet
        obj = resolve(node)
        return UNKNOWN if obj is UNRESOLVED else _known_or_unknown(obj)
    if kind is gast.Constant:
        return Known(node.value)
    keywords = _NO_KEYWORDS
    if kind is gast.BinOp:
        left, right = node.left, node.right
        if (type(node.op) is gast.Mult and type(left) is gast.Name and type(right) is gast.Name
                and left.id == right.id):
            # x * x is np.square for its derivative (one term), but its value is the
            # product's: a Python float of a Python float
            primitive, operands = operator.mul, (left, left)
        else:
            primitive, operands = BINARY_OPERATORS[type(node.op)], (left, right)
    elif kind is gast.Call:
        func = node.func
        if type(func) is gast.Attribute and type(func.value) is gast.Name:
            # what ``m.f`` refers to, kept for the run (a run makes no names)
            key = (_CALLEE, func.value.id, func.attr)
            primitive = rules.get(key, _UNSEEN)
            if primitive is _UNSEEN:
                primitive = rules[key] = resolve(func)
        else:
            primitive = resolve(func)
        if primitive is not UNRESOLVED:
            operands = node.args
        elif type(func) is gast.Attribute:  # method call on a value
            primitive = getattr(np.ndarray, func.attr, UNRESOLVED)
            if primitive is UNRESOLVED:
                return UNKNOWN
            operands = [func.value] + node.args
        else:
            return UNKNOWN
        if node.keywords:
            keywords = {k.arg: k.value for k in node.keywords}
    elif kind is gast.UnaryOp:
        if type(node.op) is gast.USub and type(node.operand) is gast.Constant and type(
                node.operand.value) in (int, float):
            return Known(-node.operand.value)  # -1 (an axis), as a constant
        primitive, operands = UNARY_OPERATORS[type(node.op)], (node.operand,)
    elif kind is gast.Compare:
        primitive, operands = COMPARISONS[type(node.ops[0])], (node.left, node.comparators[0])
    elif kind is gast.Subscript:
        primitive, operands = operator.getitem, (node.value, node.slice)
    elif kind is gast.Attribute:
        obj = resolve(node)
        if obj is not UNRESOLVED:
            return _known_or_unknown(obj)
        primitive = getattr(np.ndarray, node.attr, UNRESOLVED)
        if primitive is not UNRESOLVED:  # x.T, x.shape...
            operands = (node.value,)
        else:  # a field of a record
            primitive = ATTRIBUTE
            operands = (node.value, gast.Constant(value=node.attr, kind=None))
    elif kind is gast.Slice:
        parts = [None if p is None else _evaluate(p, env, resolve, rules)
                 for p in (node.lower, node.upper, node.step)]
        if all(p is None for p in parts):
            return FULL_SLICE
        if all(p is None or isinstance(p, Known) for p in parts):
            return Known(slice(*(None if p is None else p.value for p in parts)))
        return SliceAbstract()
    elif kind is gast.Tuple or kind is gast.List:
        parts = [_evaluate(e, env, resolve, rules) for e in node.elts]
        if all(isinstance(p, Known) for p in parts) and kind is gast.Tuple:
            return Known(tuple(p.value for p in parts))
        return IndexTuple(tuple(parts))
    elif kind is gast.IfExp:  # one of the two values: what covers both
        body = _evaluate(node.body, env, resolve, rules)
        orelse = _evaluate(node.orelse, env, resolve, rules)
        return None if body is None or orelse is None else join(body, orelse)
    elif kind is gast.Dict:
        primitive, operands = TUPLE, node.values
    elif kind is gast.JoinedStr:
        primitive = FORMATTED
        operands = [n for n in syntax.walk(node) if isinstance(n, gast.Name)]
    else:
        return UNKNOWN  # (an operation srcad does not resolve)
    rule = _rule_of(primitive, rules)
    if rule is None:
        return UNKNOWN
    args = []
    for operand in operands:
        # (a name or a constant, the usual operands of generated code: as above, no call)
        operand_kind = type(operand)
        if operand_kind is gast.Name and operand.id in env:
            value = env[operand.id]
        elif operand_kind is gast.Constant:
            value = rules.get(operand)  # (each constant's Known made once: rules keeps it)
            if value is None:
                value = rules[operand] = Known(operand.value)
        else:
            value = _evaluate(operand, env, resolve, rules)
        if value is None:
            return None  # an operand not known yet: nothing to say about the result yet
        args.append(value)
    if keywords:
        keywords = {k: _evaluate(v, env, resolve, rules) for k, v in keywords.items()}
        if any(v is None for v in keywords.values()):
            return None
    if rule in _ARITHMETIC and not keywords:
        return _arithmetic(rule, args)
    try:
        return rule(*args, **keywords)
    except (TypeError, ValueError, IndexError, AttributeError):
        return UNKNOWN  # a call the rule does not understand: assume nothing


# (rule, the operands' kinds) -> the arithmetic rule's result: for ``a * b``, ``a + 0.5``,
# np.tanh(a)..., most of what generated code computes, over a few kinds
_ARITHMETIC_RESULTS: dict = {}
_PLAIN_KINDS = {float: "float", int: "int", bool: "bool"}  # a constant's -> plain's kind


def _arithmetic(rule, args):
    """``rule(*args)`` for one of the ``_ARITHMETIC`` rules, kept per rule and operand kinds
    when those are arrays, scalars or constant numbers: the rules are functions of those alone,
    and read a constant number as its kind (``plain``: Known(0.5) as FLOAT), so equal keys
    give equal results."""
    key = [rule]
    for a in args:
        kind = type(a)
        if kind is Array:
            key.append(a.ones)  # (a tuple: never a kind's name)
        elif kind is Scalar:
            key.append(a.kind)
        elif kind is Known and type(a.value) in _PLAIN_KINDS:
            key.append(_PLAIN_KINDS[type(a.value)])
        else:
            return _applied(rule, args)
    key = tuple(key)
    result = _ARITHMETIC_RESULTS.get(key, _UNSEEN)
    if result is _UNSEEN:
        result = _applied(rule, args)
        if len(_ARITHMETIC_RESULTS) < 4096:  # bounded: ever new patterns
            _ARITHMETIC_RESULTS[key] = result
    return result


def _applied(rule, args):
    try:
        return rule(*args)
    except (TypeError, ValueError, IndexError, AttributeError):
        return UNKNOWN


_CHILD_FIELDS: dict = {}  # node type -> syntax.child_fields(type)
_NOTHING_BOUND: dict = {}


def _atoms_read(value):
    """The names ``value`` reads when it is made of the usual forms of generated code only
    (names read, constants, operators, calls without keywords, attributes, indexing,
    tuples), else None (the general walk below answers)."""
    read = set()
    return read if _add_reads(value, read) else None


def _add_reads(node, read: set) -> bool:
    kind = type(node)
    if kind is gast.Name:
        if type(node.ctx) is not gast.Load:
            return False
        read.add(node.id)
        return True
    if kind is gast.Constant:
        return True
    if kind is gast.BinOp or kind is gast.Call:
        if kind is gast.BinOp:
            operands = (node.left, node.right)
        else:
            if node.keywords or not _add_reads(node.func, read):
                return False
            operands = node.args
        for operand in operands:
            # (a name read or a constant, the usual operands: taken here, without a call)
            operand_kind = type(operand)
            if operand_kind is gast.Name and type(operand.ctx) is gast.Load:
                read.add(operand.id)
            elif operand_kind is not gast.Constant and not _add_reads(operand, read):
                return False
        return True
    if kind is gast.Attribute:
        return _add_reads(node.value, read)
    if kind is gast.UnaryOp:
        return _add_reads(node.operand, read)
    if kind is gast.Subscript:
        return _add_reads(node.value, read) and _add_reads(node.slice, read)
    if kind is gast.Tuple or kind is gast.List:
        for element in node.elts:
            if not _add_reads(element, read):
                return False
        return True
    return False


def _reads_and_binds(value) -> tuple:
    """(the names ``value`` reads, the names it may bind: a walrus, a comprehension's
    target, each with how often), in one walk over its Name nodes (those ``syntax.names``
    gives)."""
    read = _atoms_read(value)
    if read is not None:
        return read, _NOTHING_BOUND
    read, bound = set(), {}
    stack = [value]
    pop, push = stack.pop, stack.append
    Name, Load, Store, Del, AST = gast.Name, gast.Load, gast.Store, gast.Del, gast.AST
    fields_of = _CHILD_FIELDS
    while stack:
        current = pop()
        kind = type(current)
        if kind is Name:
            context = type(current.ctx)
            if context is Load:
                read.add(current.id)
            elif context is Store or context is Del:
                bound[current.id] = bound.get(current.id, 0) + 1
        elif kind is list:
            stack.extend(current)
        elif isinstance(current, AST):
            fields = fields_of.get(kind)
            if fields is None:
                fields = fields_of[kind] = syntax.child_fields(kind)
            for field in fields:
                child = getattr(current, field, None)
                if child is not None:
                    push(child)
    return read, bound


_BLOCKS = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))


def _count_stored_outside_blocks(statement, counts: dict) -> None:
    """Count into ``counts`` the assigned names of ``statement`` but those of the statements
    in its blocks (``syntax.statements`` gives those): its target, its test..., and the
    parts of its except handlers and match cases outside their bodies."""
    for field in syntax.child_fields(type(statement)):
        value = getattr(statement, field, None)
        if value is None:
            continue
        if field in _BLOCKS:
            if field in ("handlers", "cases"):
                for holder in value:
                    for part in syntax.child_fields(type(holder)):
                        if part != "body":
                            _count_stored(getattr(holder, part, None), counts)
            continue
        _count_stored(value, counts)


def _count_stored(node, counts: dict) -> None:
    for found in syntax.names(node) if node is not None else ():
        if type(found.ctx) in (gast.Store, gast.Del):
            counts[found.id] = counts.get(found.id, 0) + 1


_STATEMENT_HOLDERS = (gast.stmt, gast.excepthandler, gast.match_case)
_BLOCKS_OF: dict = {}  # node type -> its fields that may hold statements, in field order


def _statements(tree) -> list:
    """The statements of ``tree`` in program order (a statement before those its blocks
    hold, a block before the next statement), without a generator, and without looking
    into the statements that hold none. (infer takes assignments in this order: most
    read only names assigned before them, known at their first visit.)"""
    found, stack = [], [tree]
    Assign, Expr, stmt, holders = gast.Assign, gast.Expr, gast.stmt, _STATEMENT_HOLDERS
    blocks_of = _BLOCKS_OF
    pop, push = stack.pop, stack.append
    while stack:
        current = pop()
        kind = type(current)
        if kind is Assign or kind is Expr:
            found.append(current)
            continue
        if isinstance(current, stmt):
            found.append(current)
        blocks = blocks_of.get(kind)
        if blocks is None:
            blocks = blocks_of[kind] = tuple(field for field in kind._fields if field in _BLOCKS)
        for field in reversed(blocks):  # (pushed last first: popped in order)
            children = getattr(current, field, None)
            if type(children) is list:
                for child in reversed(children):
                    if isinstance(child, holders):
                        push(child)
    return found


def _type_loop_targets(tree, loops, assigns, env, resolve) -> None:
    """The kind of each loop's target in ``env``: an int where the loop counts (``_counts``),
    else unknown; joined, as assignments are, where a name is the target of several loops."""
    is_range = _Ranges(tree, assigns, resolve)
    for loop in loops:
        kind = Scalar("int") if _counts(loop.iter, resolve, is_range) else UNKNOWN
        env[loop.target.id] = join(env.get(loop.target.id), kind)


class _Ranges:
    """``is_range(name)``: whether ``name`` is assigned once, by a counting value (decided when
    asked). (An object, not a closure calling itself: that would be a reference cycle, and
    keep the whole tree alive until the next collection.)"""

    def __init__(self, tree, assigns, resolve):
        self.tree, self.assigns, self.resolve = tree, assigns, resolve
        self.ranges = {}
        self.counts = None

    def __call__(self, name) -> bool:
        ranges = self.ranges
        if name not in ranges:
            if self.counts is None:
                self.counts = syntax.assignment_counts(self.tree)
            ranges[name] = False  # (while deciding: a name defined through itself is not)
            if self.counts.get(name) == 1:
                value = next((node.value for node in self.assigns if len(node.targets) == 1
                              and type(node.targets[0]) is gast.Name
                              and node.targets[0].id == name), None)
                ranges[name] = value is not None and _counts(value, self.resolve, self)
        return ranges[name]


def _counts(iterable, resolve, is_range) -> bool:
    """Whether a ``for`` over ``iterable`` counts (its targets are ints): ``range(...)``,
    ``reversed`` of one, a slice of one (``range(n)[::-1]``), or a name assigned once, one of
    those (``is_range(name)``): the loops normalize leaves, and their adjoint loops."""
    kind = type(iterable)
    if kind is gast.Name:
        return is_range(iterable.id)
    if kind is gast.Subscript:
        return type(iterable.slice) is gast.Slice and _counts(iterable.value, resolve, is_range)
    if kind is not gast.Call:
        return False
    function = resolve(iterable.func)
    if function is reversed and len(iterable.args) == 1 and not iterable.keywords:
        return _counts(iterable.args[0], resolve, is_range)
    return function is range


def infer(tree: gast.FunctionDef, params: dict, resolve, counts: dict | None = None) -> dict:
    """Abstract values of every variable assigned in ``tree``, given the parameters'.

    ``counts`` (a dict, if given) receives how often each name is assigned (a Name in
    Store or Del context, as ``syntax.names`` gives them) in ``tree``: counted in the same
    walk, for the passes that need it next."""
    env = dict(params)
    assigns = []
    loops = []  # the for loops with a name as target
    readers = {}  # name -> positions in assigns of the assignments reading it
    Store, Del, Name, Load, Assign = gast.Store, gast.Del, gast.Name, gast.Load, gast.Assign
    for node in _statements(tree):
        if type(node) is Assign:
            value = node.value
            if type(value) is Name and type(value.ctx) is Load:  # (a copy: x = y)
                read, bound = {value.id}, _NOTHING_BOUND
            else:
                read = set()
                bound = _NOTHING_BOUND
                if not _add_reads(value, read):
                    read, bound = _reads_and_binds(value)
            targets = node.targets
            if len(targets) == 1 and type(targets[0]) is Name and type(
                    targets[0].ctx) is Store:
                target = targets[0].id
                if counts is not None:
                    counts[target] = counts.get(target, 0) + 1
                if not bound:  # (the usual assignment: one name, nothing bound inside)
                    env.setdefault(target, None)
                    if not is_restore(node) and not is_placeholder(node):
                        position = len(assigns)
                        assigns.append(node)
                        for name in read:
                            positions = readers.get(name)
                            if positions is None:
                                readers[name] = [position]
                            else:
                                positions.append(position)
                    continue
                stored = {target}
            else:
                found_stored = [found.id for found in syntax.names(targets)
                                if type(found.ctx) in (Store, Del)]
                stored = set(found_stored)
                if counts is not None:
                    for name in found_stored:
                        counts[name] = counts.get(name, 0) + 1
            if bound:
                if counts is not None:
                    for name in bound:
                        counts[name] = counts.get(name, 0) + bound[name]
                bound = set(bound)
            for name in stored | bound if bound else stored:
                env.setdefault(name, None)
            if not is_restore(node) and not is_placeholder(node):
                position = len(assigns)
                assigns.append(node)
                for name in read:
                    readers.setdefault(name, []).append(position)
        elif type(node) is gast.Expr:  # (a call for its effect, most often: rt.check_...)
            if counts is not None and not _add_reads(node.value, set()):
                _count_stored_outside_blocks(node, counts)  # (the usual forms store nothing)
        else:
            if counts is not None:
                _count_stored_outside_blocks(node, counts)
            if isinstance(node, gast.For) and isinstance(node.target, gast.Name):
                loops.append(node)
    if loops:
        _type_loop_targets(tree, loops, assigns, env, resolve)
    # a worklist: an assignment is evaluated again only when a name it reads changed (each
    # value only grows, by join); taking the first pending statement in program order,
    # most are final at their first visit
    rules = {}
    pending = list(range(len(assigns)))  # a heap of positions
    queued = [True] * len(assigns)
    budget = 20 * len(assigns)  # as many evaluations as 20 rounds over every statement
    pop, push, evaluate_value, Name = heapq.heappop, heapq.heappush, _evaluate, gast.Name
    while pending and budget > 0:
        budget -= 1
        position = pop(pending)
        queued[position] = False
        node = assigns[position]
        value = evaluate_value(node.value, env, resolve, rules)
        changed = []
        for target in node.targets:
            if type(target) is Name:
                if value is None:
                    continue  # nothing known yet: the name keeps its value (join's identity)
                old = env.get(target.id)
                if old is None:  # its first value (no abstract value equals None)
                    env[target.id] = value
                    changed.append(target.id)
                    continue
                new = join(old, value)
                if new is not old and new != old:
                    env[target.id] = new
                    changed.append(target.id)
            elif (type(target) in (gast.Tuple, gast.List) and isinstance(value, IndexTuple)
                  and len(target.elts) == len(value.parts)
                  and all(type(e) is gast.Name for e in target.elts)):
                for element, part in zip(target.elts, value.parts):  # a, b = (x, y)
                    old = env.get(element.id)
                    new = part if old is None else join(old, part)
                    if new is not None and new != old:
                        env[element.id] = new
                        changed.append(element.id)
            else:  # unpacking: nothing known about the parts
                for n in syntax.walk(target):
                    if isinstance(n, gast.Name) and env.get(n.id) is not UNKNOWN:
                        env[n.id] = UNKNOWN
                        changed.append(n.id)
        for name in changed:
            for reader in readers.get(name, ()):
                if not queued[reader]:
                    queued[reader] = True
                    push(pending, reader)
    return env
