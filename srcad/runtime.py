"""Numerics shared by all templates and called from generated code (imported there as ``rt``).

Every broadcasting, zero and accumulation rule lives here, once; templates call
these helpers instead of re-deriving them. When the argument types of a call
are known, optimize/specialize_runtime_calls.py replaces many of these calls
with the plain expression they reduce to (or removes them).
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import linecache
import math
import numbers

import numpy as np

from .errors import (AliasedWriteError, Location, MissingTemplateError, NonScalarOutputError,
                     UnsupportedOperationError)


class Parts(list):
    """The adjoint of a list or tuple: one adjoint per element (shapes may differ, as on a tape).

    Adds element by element, so accumulating two adjoints of one list works as
    for arrays (``array + parts`` is a Parts too); slicing keeps
    it a Parts. It never reaches the user: ``match_type`` turns it into the
    argument's own list or tuple.
    """

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # array + Parts adds element by element; any other ufunc sees an ordinary array
        if ufunc is np.add and method == "__call__" and len(inputs) == 2 and not kwargs:
            return Parts(a + b for a, b in zip(*inputs, strict=True))
        arrays = [np.asarray(list(i)) if isinstance(i, Parts) else i for i in inputs]
        return getattr(ufunc, method)(*arrays, **kwargs)

    def __add__(self, other):
        if _is_zero_scalar(other):
            return self
        return Parts(a + b for a, b in zip(self, other, strict=True))

    __radd__ = __add__
    __iadd__ = __add__  # x_bar += parts adds element by element too (never extends)

    def __getitem__(self, index):
        item = super().__getitem__(index)
        return Parts(item) if isinstance(index, slice) else item


class Entries(dict):
    """The adjoint of a dict: one adjoint per key, added key by key.

    Like Parts, it stays inside generated code: ``match_type`` turns it into
    the argument's own dict type.
    """

    __array_ufunc__ = None  # array + Entries: NumPy defers to Entries.__radd__

    def __add__(self, other):
        if _is_zero_scalar(other):
            return self
        if not isinstance(other, dict):
            return NotImplemented
        out = Entries(self)
        for key, value in other.items():
            out[key] = out[key] + value if key in out else value
        return out

    __radd__ = __add__
    __iadd__ = __add__  # a new Entries: another name may hold this one


def _is_zero_scalar(value) -> bool:
    return (isinstance(value, (numbers.Number, np.generic)) and np.ndim(value) == 0
            and value == 0)


def _is_ragged(x) -> bool:
    """A list, tuple or dict: its adjoint is a Parts or an Entries, one adjoint per element."""
    return isinstance(x, (list, tuple, dict))


def unbroadcast(g, x):
    """Sum ``g`` (an adjoint of a broadcast result) back to the shape of ``x``.

    In general: ``g`` broadcast to the common shape of ``g`` and ``x``, then
    summed to x's shape. This map is linear in ``g`` and its transpose is
    ``unbroadcast(., g)``, which is what its adjoint template uses; so a
    smaller ``g`` (a scalar seed, a row of a matrix) is broadcast to x's shape.
    """
    if type(g) is np.ndarray and type(x) is np.ndarray and g.ndim == x.ndim:
        # the common case, without the general path's Python-level calls: sum where x has 1
        summed = tuple(i for i, (n, m) in enumerate(zip(x.shape, g.shape)) if n != m)
        if not summed:
            return g
        if all(x.shape[i] == 1 for i in summed):
            return np.add.reduce(g, axis=summed, keepdims=True)
    if _is_ragged(x):
        return g
    x_shape = np.shape(x)
    g_shape = np.shape(g)
    if g_shape == x_shape:
        return g
    if not x_shape:
        return np.sum(g)
    lead = len(g_shape) - len(x_shape)
    if lead > 0:
        g = np.sum(g, axis=tuple(range(lead)))
    elif lead < 0:  # align g's axes with x's last ones
        g = np.reshape(g, (1,) * -lead + g_shape)
    kept = tuple(i for i, n in enumerate(x_shape) if n == 1 and np.shape(g)[i] != 1)
    if kept:
        g = np.sum(g, axis=kept, keepdims=True)
    if np.shape(g) != x_shape:  # g had size-1 axes (or none) where x has more
        g = np.broadcast_to(g, x_shape)
    return g


def zeros_like(x):
    """A zero adjoint for ``x``: ``0.0`` for scalars, a float array of x's shape otherwise.

    A list or tuple gets a Parts and a dict (or a dataclass) an Entries of
    zeros, element by element (e.g. a tape of (array, float) pairs); a value
    that is no number (a string, None, a function) gets ``0.0``: it never has
    a gradient.
    """
    if type(x) is np.ndarray and x.dtype.kind == "f":
        return np.zeros(x.shape, dtype=x.dtype)
    if isinstance(x, (numbers.Number, np.generic)) and np.ndim(x) == 0:
        return 0.0
    if isinstance(x, (list, tuple)):
        return Parts(zeros_like(item) for item in x)
    if isinstance(x, range):  # indexed and iterated like its elements (a taped loop's steps)
        return np.zeros(len(x))
    items = children(x)
    if items is not None:  # a dict, or a dataclass: by key, by field name
        return Entries((key, zeros_like(value)) for key, value in items)
    if not isinstance(x, np.ndarray) and not _is_array_like(x):
        return 0.0  # never np.asarray: it iterates np.r_ forever
    x = np.asarray(x)
    if x.dtype.kind not in "biufc":
        return 0.0
    dtype = x.dtype if np.issubdtype(x.dtype, np.inexact) else np.float64
    return np.zeros(x.shape, dtype=dtype)


def _is_array_like(x) -> bool:
    return any(hasattr(x, attribute) for attribute in (
        "__array__", "__array_interface__", "__array_struct__", "__array_namespace__"))


def match_type(g, x):
    """Give the gradient of ``x`` the type of ``x``: a Python float for a Python scalar.

    For a container (``children``), nested to any depth, the gradient has x's
    own structure and container types, built from the adjoint ``g`` (a Parts
    or an Entries) leaf by leaf, as ``gradient_leaf`` says.
    """
    # np.float64 subclasses float: compare exact types, or a NumPy scalar slips through
    if type(x) in (float, int) and type(g) is not float:
        return float(g)
    if children(x) is not None:
        return _gradient_tree(g, x)
    return g


def children(x):
    """``(key, value)`` pairs of a container, or None for a leaf.

    The containers: lists and tuples (namedtuples too), by position; dicts of
    any type, by key; dataclass instances, by field name. Their adjoints in
    generated code are a Parts (lists, tuples) or an Entries (dicts, dataclasses).
    """
    if isinstance(x, dict):
        return list(x.items())
    if isinstance(x, (list, tuple)):
        return list(enumerate(x))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return [(f.name, getattr(x, f.name)) for f in dataclasses.fields(x)]
    return None


def rebuild(like, items):
    """A container of ``like``'s type and keys holding ``items`` (its values, in order).

    Keeps the container type: a list stays a list, a tuple (or namedtuple) a
    tuple of that type, a dict (or OrderedDict...) a mapping of that type, a
    dataclass an instance of that class (built without calling its __init__).
    """
    if isinstance(like, dict):
        if type(like) in (dict, Entries):
            return dict(zip(like, items))
        out = copy.copy(like)  # OrderedDict, defaultdict...: same type, same order
        out.update(zip(like, items))
        return out
    if type(like) in (list, tuple, Parts):
        return list(items) if type(like) in (list, Parts) else tuple(items)
    if isinstance(like, tuple) and hasattr(like, "_fields"):  # a namedtuple
        return type(like)(*items)
    if isinstance(like, (list, tuple)):
        return type(like)(items)
    out = copy.copy(like)  # a dataclass: every field replaced (frozen ones too)
    for field, value in zip(dataclasses.fields(like), items):
        object.__setattr__(out, field.name, value)
    return out


def _gradient_tree(g, x):
    items = children(x)
    if items is None:
        return gradient_leaf(g, x)
    return rebuild(x, [_gradient_tree(_element(g, key), value) for key, value in items])


def _element(g, key):
    """Element ``key`` of a container's adjoint (a scalar zero: a zero adjoint throughout)."""
    if _is_zero_scalar(g):
        return 0.0
    if isinstance(key, str) and not isinstance(g, dict):  # a dataclass of tangents
        return getattr(g, key)
    return g[key]


def is_differentiable_leaf(x) -> bool:
    """A leaf of a container with a gradient: a float, a complex, or an array of floats.

    Ints, bools, integer arrays, strings, None, functions and other objects
    inside a container are held constant: their gradient slot holds None.
    """
    if type(x) in (float, complex):
        return True
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, np.dtype) and np.issubdtype(dtype, np.inexact)


def gradient_leaf(g, x):
    """The gradient of leaf ``x`` of a container argument, of x's own type; None if it has none.

    A Python float gets a Python float, a NumPy scalar its own type, an
    array an array of its shape.
    """
    if not is_differentiable_leaf(x):
        return None
    if type(x) in (float, complex):
        return type(x)(g)
    if isinstance(x, np.generic):
        return x.dtype.type(g)
    if np.shape(g) != np.shape(x):  # an adjoint never accumulated into: a scalar zero
        g = np.broadcast_to(g, np.shape(x))
    return g


def owned(g):
    """A gradient the caller may keep and modify: never a read-only (broadcast) view.

    In a container gradient, no array is read-only or appears twice.
    """
    if isinstance(g, np.ndarray):
        return g.copy() if not g.flags.writeable else g
    if children(g) is not None:
        return _owned(g, {})
    return g


def owned_tuple(*gradients):
    """Like ``owned`` for several gradients; no array is returned twice."""
    seen = {}
    return tuple(_owned(g, seen) for g in gradients)


def _owned(g, seen):
    if isinstance(g, np.ndarray):
        if not g.flags.writeable or id(g) in seen:
            g = g.copy()
        seen[id(g)] = g  # (keeps g alive, so its id stays its own)
        return g
    items = children(g)
    if items is not None:
        return rebuild(g, [_owned(value, seen) for _, value in items])
    return g


def field_key(x, name):
    """Where attribute ``name`` of a record ``x`` sits in x's adjoint.

    A namedtuple's adjoint is a Parts (by position), a dataclass's an Entries
    (by field name).
    """
    if isinstance(x, tuple) and name in getattr(x, "_fields", ()):
        return x._fields.index(name)
    if dataclasses.is_dataclass(x) and not isinstance(x, type) and name in {
            f.name for f in dataclasses.fields(x)}:
        return name
    if isinstance(x, dict) and name in x and hasattr(type(x), "__getattr__"):
        return name  # a dict whose keys read as attributes (SciPy's OdeResult: sol.y)
    raise UnsupportedOperationError(
        "srcad differentiates reading the attribute .%s of a namedtuple or a dataclass, "
        "not of a %s" % (name, type(x).__name__),
        hint="Pass the value as an argument of its own, or hold this argument constant.")


def unfield(g, x, name):
    """Adjoint of ``x.name`` (x a namedtuple or dataclass): zeros like x, ``g`` at the field."""
    return add_at(zeros_like(x), field_key(x, name), g)


def field_of(t, x, name):
    """``t.name`` for ``t`` a tangent or adjoint of record ``x`` (its own type, a Parts...).

    A namedtuple's adjoint may also be an array stacking its fields' adjoints (as a
    list's is, after ``np.array(record)``): indexed by position too.
    """
    if isinstance(t, (list, dict, np.ndarray)):  # a Parts, an Entries, a stacked array
        return t[field_key(x, name)]
    return getattr(t, name)


def expand_reduced(g, x, axis=None, keepdims=False):
    """Adjoint of a reduction (sum) of ``x`` over ``axis``: broadcast ``g`` back to x's shape."""
    x_shape = np.shape(x)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, _normalize_axes(axis, len(x_shape)))
    return np.broadcast_to(g, x_shape)


def reduced_size(x, axis=None):
    """How many elements a reduction over ``axis`` folds into one (for mean)."""
    x_shape = np.shape(x)
    if axis is None:
        return int(np.prod(x_shape))
    return int(np.prod([x_shape[a] for a in _normalize_axes(axis, len(x_shape))]))


def _normalize_axes(axis, ndim):
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axes))


def unindex(g, x, index):
    """Adjoint of ``x[index]``: zeros of x's shape with ``g`` added at ``index``."""
    if _is_ragged(x):
        return add_at(zeros_like(x), index, g)
    if type(x) is np.ndarray and (type(g) is float or (
            type(g) is np.ndarray and g.dtype == np.float64)):
        out = np.zeros(x.shape)  # (np.result_type is slow next to a small array's work)
    else:
        out = np.zeros(np.shape(x), dtype=np.result_type(g, np.float64))
    if _is_basic_index(index):
        out[index] = g  # (a basic index never repeats a position: no need to add)
    else:  # fancy indexes may repeat positions: accumulate every occurrence
        np.add.at(out, index, g)
    return out


def _is_basic_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    if type(parts[0] if parts else None) is np.ndarray:  # x[rows, cols]: the common fancy case
        return False
    return all(
        isinstance(p, (int, np.integer, slice)) or p is None or p is Ellipsis for p in parts
    )


def dot_adjoint_left(g, a, b):
    """Adjoint of ``a`` in ``np.dot(a, b)`` given the result's adjoint ``g``."""
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    if a_ndim == 0 or b_ndim == 0:
        return unbroadcast(g * b, a)
    if b_ndim == 1:  # result = a.shape[:-1]
        return np.multiply.outer(g, b)
    # result = a.shape[:-1] + b.shape[:-2] + b.shape[-1:]; contract g with b but for b's k axis
    b_axes = list(range(b_ndim - 2)) + [b_ndim - 1]
    return np.tensordot(g, b, axes=(list(range(a_ndim - 1, np.ndim(g))), b_axes))


def dot_adjoint_right(g, a, b):
    """Adjoint of ``b`` in ``np.dot(a, b)`` given the result's adjoint ``g``."""
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    if a_ndim == 0 or b_ndim == 0:
        return unbroadcast(g * a, b)
    lead = list(range(a_ndim - 1))
    contribution = np.tensordot(a, g, axes=(lead, lead))  # (k,) + b.shape[:-2] + b.shape[-1:]
    return contribution if b_ndim == 1 else np.moveaxis(contribution, 0, -2)


def matmul_adjoint_left(g, a, b):
    """Adjoint of ``a`` in ``a @ b`` (NumPy matmul semantics, with batch broadcasting)."""
    if np.ndim(b) == 1:
        contribution = np.multiply.outer(g, b) if np.ndim(a) > 1 else g * b
    elif np.ndim(a) == 1:
        contribution = np.matmul(b, g[..., None])[..., 0] if np.ndim(g) else np.dot(b, g)
        return unbroadcast(contribution, a)
    else:
        contribution = np.matmul(g, np.swapaxes(b, -1, -2))
    return unbroadcast(contribution, a)


def matmul_adjoint_right(g, a, b):
    """Adjoint of ``b`` in ``a @ b`` (NumPy matmul semantics, with batch broadcasting)."""
    if np.ndim(a) == 1:
        # g has b's batch axes followed by n: the outer product is taken per batch entry
        contribution = np.multiply(a[:, None], g[..., None, :]) if np.ndim(b) > 1 else g * a
    elif np.ndim(b) == 1:
        contribution = np.matmul(np.swapaxes(a, -1, -2), g[..., None])[..., 0]
    else:
        contribution = np.matmul(np.swapaxes(a, -1, -2), g)
    return unbroadcast(contribution, b)


def falling_factorial(y, n, k=0):
    """The ``k``-th derivative in ``y`` of ``y (y - 1) ... (y - n + 1)`` (1 for ``n = 0``).

    It is the coefficient of ``x ** (y - n)`` in the n-th derivative of ``x ** y``.
    """
    coefficients = np.poly(np.arange(n)) if n else np.ones(1)
    for _ in range(k):
        coefficients = np.polyder(coefficients)
    value = np.polyval(coefficients, y)
    return float(value) if type(y) in (float, int) else value


def power_derivative(x, y, n=1):
    """The ``n``-th derivative in ``x`` of ``x ** y``: ``falling_factorial(y, n) * x ** (y - n)``.

    Exactly 0 where the coefficient is 0 (y a whole number below n: there x ** y is
    a polynomial of lower degree), x = 0 included, where ``x ** (y - n)`` would divide
    by zero. At x = 0 with ``y < n`` otherwise, the derivative is infinite: inf or
    nan, as NumPy computes it, for Python floats too (never ZeroDivisionError).
    """
    coefficient = falling_factorial(y, n)
    if np.ndim(x) == 0 and np.ndim(y) == 0:
        python = type(x) in (float, int) and type(y) in (float, int)
        if coefficient == 0:
            return 0.0 if python else np.float64(0.0)
        if x == 0 and y - n < 0:
            value = coefficient * np.power(np.float64(x), y - n)
        else:
            value = coefficient * x ** (y - n)
        return float(value) if python else value
    exponent = np.where(coefficient == 0, 0.0, np.subtract(y, n, dtype=float))
    return np.where(coefficient == 0, 0.0, coefficient * np.power(x, exponent))


def if_inexact(g, y):
    """``g``, or zeros where ``y`` holds integers: a value rounded into an integer array has
    derivative 0 (``np.full_like(int_array, x)``, ``np.linspace(a, b, n, dtype=int)``)."""
    if np.issubdtype(np.result_type(y), np.inexact):
        return g
    return np.zeros(np.shape(g))


def linspace_weights(y, num, endpoint, axis, which):
    """d y / d start (``which`` 0) or d y / d stop (1) of ``y = np.linspace(start, stop, num,
    endpoint, axis=axis)``, one weight per element of y: y = start (1 - t) + stop t."""
    count = int(num)
    divisions = (count - 1 if endpoint else count) or 1
    t = np.arange(count, dtype=float) / divisions
    weights = t if which else 1.0 - t
    axis = axis % np.ndim(y)
    weights = np.reshape(weights, (count,) + (1,) * (np.ndim(y) - 1 - axis))
    return if_inexact(np.broadcast_to(weights, np.shape(y)), y)


def linspace_fractions(num, endpoint):
    """The t of ``np.linspace(start, stop, num, endpoint)`` = start (1 - t) + stop t: 0,
    1/(num - 1), ..., 1 (1/num ..., (num - 1)/num without the endpoint), as a vector."""
    count = int(num)
    return np.arange(count, dtype=float) / ((count - 1 if endpoint else count) or 1)


def arange_weights(y, stop, which):
    """d y / d start (``which`` 0) or d y / d step (1) of ``y = np.arange(start, stop, step)``.

    Called with one argument, ``np.arange(stop)`` binds that argument to ``start``:
    its weight is then 0 (the stop only decides how many elements there are).
    """
    if which == 0:
        weights = np.zeros(np.shape(y)) if stop is None else np.ones(np.shape(y))
    else:
        weights = np.arange(np.shape(y)[0], dtype=float)
    return if_inexact(weights, y)


def concatenated(trick, pieces):
    """``np.r_[a, b]`` or ``np.c_[a, b]`` written by srcad: ``trick[tuple(pieces)]``."""
    return trick[tuple(pieces)]


def pieces_of(g, trick, pieces):
    """Adjoint of ``concatenated(trick, pieces)``: ``g`` cut back into one part per piece.

    Each piece enters as ``trick`` makes it alone (``np.r_``: at least 1-d; ``np.c_``:
    at least 2-d, a vector as a column), joined along the trick's axis.
    """
    axis = trick.axis
    parts = Parts()
    start = 0
    for piece in pieces:
        joined_shape = np.shape(trick[np.zeros(np.shape(piece))])
        size = joined_shape[axis]
        index = [slice(None)] * np.ndim(g)
        index[axis] = slice(start, start + size)
        parts.append(np.reshape(np.asarray(g)[tuple(index)], np.shape(piece)))
        start += size
    return parts


def split_along(g, pieces, axis=0):
    """Adjoint of ``np.concatenate(pieces, axis)``: ``g`` cut into one part per piece."""
    parts = Parts()
    if axis is None:  # the pieces were flattened
        bounds = np.cumsum([np.size(piece) for piece in pieces])[:-1]
        for part, piece in zip(np.split(np.ravel(g), bounds), pieces):
            parts.append(np.reshape(part, np.shape(piece)))
        return parts
    bounds = np.cumsum([np.shape(piece)[axis] for piece in pieces])[:-1]
    parts.extend(np.split(np.asarray(g), bounds, axis=axis))
    return parts


def unstacked(g, pieces, axis=0):
    """Adjoint of ``np.stack(pieces, axis)``: one part of ``g`` per piece."""
    g = np.asarray(g)
    return Parts(np.take(g, i, axis=axis) for i in range(len(pieces)))


def log_of_base(a):
    """``log(a)`` for the exponent's adjoint of ``a ** b``, taken as 0 where ``a == 0``."""
    if np.ndim(a) == 0:
        return float(np.log(a)) if a != 0 else 0.0
    return np.log(np.where(a == 0, 1.0, a))


def times_log_of_base(h, a):
    """``h * log_of_base(a)``, 0 where ``h`` is 0: the exponent's term of ``a ** b``.

    Where nothing flows (a zero adjoint, or the zero tangent of an integer exponent
    that generated code cannot see is constant) the term is 0, even for a negative
    base, whose log is nan.
    """
    if np.ndim(h) == 0 and np.ndim(a) == 0:
        return 0.0 * h if h == 0 else h * log_of_base(a)
    with np.errstate(invalid="ignore"):
        return np.where(np.asarray(h) == 0, 0.0, h * log_of_base(a))


def inverse_transpose_axes(axes, ndim):
    """The axes that undo ``np.transpose(x, axes)`` (None reverses, as NumPy does)."""
    if axes is None:
        return None
    return tuple(np.argsort([a % ndim for a in axes]))


def _is_discrete(value) -> bool:
    """True for a value that carries no derivative: a string, a boolean, an integer, None,
    an array of integers or booleans, or a container holding only such values."""
    parts = children(value)
    if parts is not None:
        return all(_is_discrete(part) for _, part in parts)
    if value is None or isinstance(value, (str, bytes, bool, int, np.bool_, np.integer)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuSUO" and (
        value.dtype.kind != "O" or all(_is_discrete(v) for v in value.flat))


def _described(value) -> str:
    if isinstance(value, np.ndarray):
        return "an array of %s" % value.dtype
    kind = type(value).__name__
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def check_discrete(value, where, method):
    """Raise MissingTemplateError unless ``value``, the result of a method srcad could not
    resolve (``key.startswith("W")``), needs no derivative (analysis/activity.py)."""
    if not _is_discrete(value):
        raise MissingTemplateError(
            "cannot differentiate the call to the method .%s(): srcad could not tell which "
            "function it calls, and it gave %s, which would need a derivative"
            % (method, _described(value)), _location(where),
            "Call functions through a module or a global name (e.g. np.tanh), or pass the "
            "object whose method this is as an argument of the differentiated function.")


def check_scalar_output(value, where):
    """Raise NonScalarOutputError unless ``value`` is a scalar (what ``grad`` needs): a
    number, or an array holding one number (shape ``()``, ``(1,)``, ``(1, 1)``...), as
    autograd takes it."""
    if children(value) is not None or np.size(value) != 1:
        what = ("a %s" % type(value).__name__ if children(value) is not None
                else "an array of shape %s" % (np.shape(value),))
        raise NonScalarOutputError(
            "grad needs a function that returns a scalar, but this return gave %s" % what,
            _location(where),
            hint="Reduce the output to a scalar, for example with np.sum(...).",
        )
    return value


def unit_seed(output):
    """The adjoint the reverse sweep of ``grad`` starts from: 1.0 for a scalar output, ones
    of its shape for an array holding one number (``np.sum(x, keepdims=True)``)."""
    return 1.0 if np.ndim(output) == 0 else np.ones(np.shape(output))


def check_unshared(written, index, other, where, written_name, other_name, shared_since):
    """Raise AliasedWriteError if writing into ``written`` in place would change ``other``.

    Generated code calls this before a write srcad cannot reproduce when the
    two names may share memory (normalize/propagate_writes.py): ``written``
    is the object written into (at ``index``; None: the whole object, as by
    ``+=``), ``other`` a value read after the write. They share if ``other``
    (or an array or list it holds) overlaps the written part of an array, or
    is (or holds) the written list or dict. A float or a NumPy scalar is never
    written in place (``s += 1.0`` makes a new one), so it passes. ``where``
    and ``shared_since`` are ``file:line:col`` of the write and of the line
    where the sharing began ("" if the caller passed the shared values).
    """
    if not _write_reaches(written, index, other):
        return
    raise AliasedWriteError(
        "this write into `%s` also changes `%s`, which is read later; srcad's derivative "
        "code computes with values and cannot follow a write through shared memory"
        % (written_name, other_name), _location(where),
        sharing_hint(written_name, other_name, shared_since))


def may_share(first, second) -> bool:
    """False if ``first`` and ``second`` are arrays of numbers that share no memory (then no
    write into one ever changes the other), else True. propagate_writes asks it where
    memory still tells, for the writes after an earlier one made a copy."""
    return not (isinstance(first, np.ndarray) and isinstance(second, np.ndarray)
                and first.dtype.kind in "biufc" and second.dtype.kind in "biufc"
                and not np.may_share_memory(first, second))


def check_writable(written, where, written_name):
    """Raise AliasedWriteError where NumPy refuses the write: ``written`` is a read-only
    view (np.diagonal, np.broadcast_to...), which generated code would quietly copy."""
    if isinstance(written, np.ndarray) and not written.flags.writeable:
        raise AliasedWriteError(
            "this write into `%s` fails in NumPy (assignment destination is read-only): "
            "`%s` is a read-only view of another array" % (written_name, written_name),
            _location(where), "Write into a copy (`.copy()`) of the view, or into the "
            "array it views.")


def check_not_written(value, where, message, hint):
    """Raise UnsupportedOperationError if ``value``, passed to a recursive function that
    writes into it with ``+=`` and the like, is an array or a list (changed in place)."""
    if written_in_place(value):
        raise UnsupportedOperationError(message, _location(where), hint)


def cannot_follow_write(other, where, written_name, other_name, shared_since, written=None):
    """Raise AliasedWriteError: a write srcad cannot follow, nor check at run time.

    After an earlier write, the generated code holds its own copies where
    Python holds one shared object, so memory no longer tells whether the
    write into ``written_name`` changes ``other_name``. Unless ``other``, the
    value of other_name, holds nothing the write can change: a write into an
    array (``written``, the object written into) changes arrays only, so a
    list of floats is safe; any write leaves a float as it is.
    """
    changeable = (np.ndarray,) if isinstance(written, np.ndarray) else (np.ndarray, list, dict)
    if next(_held(other, changeable), None) is None:
        return
    raise AliasedWriteError(
        "this write into `%s` may also change `%s`, which is read later, and srcad cannot "
        "tell: an earlier write made its own copy of what they may share"
        % (written_name, other_name), _location(where),
        sharing_hint(written_name, other_name, shared_since))


def check_holds_nothing(value, where, written_name, other_name, shared_since):
    """Raise AliasedWriteError if ``value`` (an argument) holds arrays or lists.

    Called where srcad's analysis cannot rule out that a write changes an
    element of the argument ``value`` (had it been a list of arrays) and an
    earlier write keeps it from checking memory: an array or a float holds no
    elements, so it passes.
    """
    if isinstance(value, np.ndarray) or not any(
            held is not value for held in _held(value, (np.ndarray, list, dict))):
        return
    raise AliasedWriteError(
        "this write into `%s` may also change `%s`, which is read later, and srcad cannot "
        "tell: an earlier write made its own copy of what they may share"
        % (written_name, other_name), _location(where),
        sharing_hint(written_name, other_name, shared_since))


def check_separate(first, second, where, written_name, first_name, second_name):
    """Raise AliasedWriteError if arguments ``first`` and ``second`` share memory.

    Called on entry when the function writes into (what it reads of) ``first``
    at ``where`` while ``second`` is still to be read: f(a, a) would make the
    write change ``second`` too.
    """
    for array in _held(first, np.ndarray):
        for other in _held(second, np.ndarray):
            if np.may_share_memory(array, other) and _shares_exactly(array, other):
                break
        else:
            continue
        break
    else:
        if not any(held is container for held in _held(second, (list, dict))
                   for container in _held(first, (list, dict))):
            return
    raise AliasedWriteError(
        "this write into `%s` also changes `%s`, which is read later: the caller passed "
        "`%s` and `%s` sharing memory" % (written_name, second_name, first_name, second_name),
        _location(where), sharing_hint(first_name, second_name, ""))


def sharing_hint(written_name, other_name, shared_since) -> str:
    """What to do about a write into ``written_name`` that would change ``other_name``."""
    if shared_since:
        since = _location(shared_since)
        return ("`%s` and `%s` share memory since line %d (`%s`). To keep `%s` as it is, "
                "make a copy where they start sharing (`.copy()`); to change it, write into "
                "`%s` itself." % (written_name, other_name, since.lineno, _code(since.line),
                                   other_name, other_name))
    return ("The caller passed `%s` and `%s` sharing memory (for example f(a, a)). Pass "
            "separate arrays, or copy before writing (`%s = %s.copy()`)."
            % (written_name, other_name, written_name, written_name))


def _code(line) -> str:
    """A source line without its comment."""
    import io
    import tokenize

    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip()).readline):
            if token.type == tokenize.COMMENT:
                return line.strip()[:token.start[1]].rstrip()
    except (tokenize.TokenError, IndentationError):
        pass
    return line.strip()


def written_in_place(value) -> bool:
    """Whether ``value op= x`` changes ``value`` itself (an array or list) or makes a new one."""
    return isinstance(value, (np.ndarray, list, dict))


def writes_through(base, index, part) -> bool:
    """Whether a write into ``part``, which was ``base[index]``, changes ``base``.

    It does if ``part`` is a view of the array ``base`` (a basic index), or the
    very element object a list, tuple or dict holds, written in place (an
    array or list, not a float). A fancy index or a list's slice made a copy.
    """
    if isinstance(base, np.ndarray):
        return (isinstance(part, np.ndarray) and _is_basic_index(index)
                and np.may_share_memory(part, base))
    if isinstance(base, (list, tuple, dict)) and written_in_place(part):
        try:
            return base[index] is part
        except (IndexError, KeyError, TypeError):
            return False
    return False


def same_object(base, part) -> bool:
    """Whether ``part`` (made from ``base`` as rt.iterated(base)) is ``base`` itself."""
    return part is base


def views_whole(base, part) -> bool:
    """Whether ``part`` (base.T, base.reshape(...), np.ravel(base)...) is a view of all of the
    array ``base`` (a reshape may copy instead)."""
    return (isinstance(base, np.ndarray) and isinstance(part, np.ndarray)
            and part.size == base.size and np.may_share_memory(part, base)
            and _shares_exactly(part, base))


def views_into(base, index, part) -> bool:
    """Whether ``part``, which was ``base[index]``, is a view of the array ``base``: it
    then sees every later write into base (an element of a list does not: it stays the
    object it was)."""
    return (isinstance(base, np.ndarray) and isinstance(part, np.ndarray)
            and _is_basic_index(index) and np.may_share_memory(part, base))


def _location(where):
    filename, lineno, col = where.rsplit(":", 2)
    return Location(filename, int(lineno), int(col), linecache.getline(filename, int(lineno)))


def _write_reaches(written, index, other) -> bool:
    """Whether writing into ``written`` (at ``index``) in place changes what ``other`` holds."""
    if isinstance(written, np.ndarray):
        region = _written_region(written, index)
        for array in _held(other, np.ndarray):
            if np.may_share_memory(region, array) and _shares_exactly(region, array):
                return True
        return False
    if isinstance(written, (list, dict)):
        return any(held is written for held in _held(other, (list, dict)))
    return False  # immutable: `s += 1.0` on a float or NumPy scalar makes a new object


def _written_region(array, index):
    """The part of ``array`` that ``array[index] = ...`` writes (all of it if unsure)."""
    if index is None or not _is_basic_index(index):
        return array
    parts = index if isinstance(index, tuple) else (index,)
    # an integer index gives a scalar copy, not a view: index with a length-1 slice instead
    as_slices = tuple(slice(p, p + 1 if p != -1 else None)
                      if isinstance(p, (int, np.integer)) and not isinstance(p, bool) else p
                      for p in parts)
    try:
        return array[as_slices]
    except (IndexError, TypeError, ValueError):
        return array


def _shares_exactly(a, b) -> bool:
    try:
        return bool(np.shares_memory(a, b, max_work=10_000))
    except np.exceptions.TooHardError:
        return True  # undecided: assume they share


def _held(value, kinds, seen=None):
    """``value`` and everything a list, tuple, dict or dataclass in it holds, of type ``kinds``."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, kinds):
        yield value
    if isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        items = value.values()
    elif hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        items = [getattr(value, name) for name in value.__dataclass_fields__]
    else:
        return
    for item in items:
        yield from _held(item, kinds, seen)


def method_axes(axes):
    """``x.transpose(*axes)`` accepts ``()``, ``(None,)``, ``((1, 0),)`` or ``(1, 0)``."""
    if not axes or (len(axes) == 1 and axes[0] is None):
        return None
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        return tuple(axes[0])
    return tuple(axes)


def array_of(*items):
    """``np.array([a, b, ...])`` written by srcad: an array made of differentiable parts."""
    return np.array(items)


def updated(container, index, value):
    """``container[index] = value`` on a copy: what ``y[i] = v`` means in generated code.

    The caller's arrays are never written to, and every earlier value stays
    available to the reverse sweep.
    """
    if isinstance(container, np.ndarray):
        out = container.copy()
    elif isinstance(container, (list, dict)):
        out = container.copy()
    elif isinstance(container, tuple):  # an element of a tuple written through (propagate_writes)
        items = list(container)
        items[index] = value
        return type(container)._make(items) if hasattr(container, "_fields") else tuple(items)
    else:
        out = np.array(container, dtype=np.result_type(container, value))
    out[index] = value
    return out


def without(g, index):
    """A copy of ``g`` with zeros at ``index``: an overwritten value gets no gradient."""
    if isinstance(g, (list, dict)):  # the adjoint of a list or dict: a Parts or an Entries
        out = copy.copy(g)
        if isinstance(index, slice):
            for position in range(len(g))[index]:
                out[position] = zeros_like(g[position])
        else:
            out[index] = zeros_like(g[index])
        return out
    if type(g) is np.ndarray and g.dtype == np.float64:
        out = g.copy()  # (what np.array below does, without its slower dispatch)
    else:
        out = np.array(g, dtype=np.result_type(g, np.float64), copy=True)
    out[index] = 0.0
    return out


def extremum_adjoint(g, x, y, axis=None, keepdims=False):
    """Adjoint of ``max``/``min`` over ``axis``: ``g`` shared equally by the tied extremes."""
    x_shape = np.shape(x)
    if axis is not None and not keepdims:
        axes = _normalize_axes(axis, len(x_shape))
        g = np.expand_dims(g, axes)
        y = np.expand_dims(y, axes)
    mask = np.asarray(x) == y
    if np.count_nonzero(mask) == np.size(y):  # no ties (the usual case): no count to divide by
        return mask * g
    # the ufunc's reduce, not np.sum (its Python-level dispatch costs more than the sum on
    # small arrays); g / count first: the divide runs on the reduced shape
    count = np.add.reduce(mask, axis=axis, keepdims=True)
    return mask * (g / count)


def norm_adjoint(g, x, y, ord=None, axis=None, keepdims=False):
    """Adjoint of ``np.linalg.norm`` for the 2-norm / Frobenius norm (the default)."""
    if ord not in (None, 2, "fro") or (ord == 2 and np.ndim(x) != 1 and axis is None):
        raise UnsupportedOperationError(
            "srcad differentiates np.linalg.norm for the 2-norm of vectors and the "
            "Frobenius norm of arrays, not ord=%r" % (ord,),
            hint="Write the norm out (e.g. np.sum(np.abs(x)) for ord=1).")
    if axis is not None and not keepdims:
        axes = _normalize_axes(axis, np.ndim(x))
        g = np.expand_dims(g, axes)
        y = np.expand_dims(y, axes)
    return np.asarray(x) * (g / nonzero(y))  # one pass over x: g / y is y's (reduced) size


def nonzero(y):
    """``y`` with its zeros replaced by 1.0: the divisor of a norm's derivatives, where
    a zero norm means a zero ``x`` (so the quotient is 0, and its derivatives too)."""
    return np.where(y == 0, 1.0, y)


def appended(items, value):
    """``items.append(value)`` as a new list, so every earlier list stays as it was."""
    return list(items) + [value]


def match_tangent(tangent, value):
    """The output tangent of a jvp: the output's shape (and a Python float for a float).

    A container output (``children``) gets a tangent of its own structure and types;
    a None in it (the gradient slot of a leaf held constant) has None as tangent.
    """
    items = children(value)
    if items is not None:
        return rebuild(value, [match_tangent(_element(tangent, key), v) for key, v in items])
    if value is None:
        return None
    if type(value) is float and type(tangent) is not float and np.ndim(tangent) == 0:
        return float(tangent)
    if np.shape(tangent) != np.shape(value):
        return np.broadcast_to(tangent, np.shape(value)).copy()
    return tangent


def add_at(total, index, g):
    """``total[index] += g`` in place (every occurrence of a repeated fancy index counts).

    Returns ``total``, so forward-mode code can write ``total = rt.add_at(total, i, g)``.
    """
    if isinstance(total, list) and isinstance(index, slice):  # element by element
        positions = range(len(total))[index]
        for position, part in zip(positions, g, strict=True):
            total[position] = total[position] + part
    elif isinstance(total, (list, dict)):
        total[index] = total[index] + g
    elif _is_basic_index(index):
        total[index] += g
    else:
        np.add.at(total, index, g)
    return total


def added_at(total, index, g):
    """``add_at`` on a copy: what srcad reads ``rt.add_at(total, i, g)`` as when it
    differentiates generated code (every earlier value stays as it was)."""
    if isinstance(total, dict):
        fresh = Entries(total)
    elif isinstance(total, list):
        fresh = Parts(total)
    else:
        fresh = np.array(total, copy=True)
    return add_at(fresh, index, g)


def all_but_last(items):
    """``items.pop()`` leaves this list (a new one: earlier lists stay as they were)."""
    return items[:-1]


def _visited_as_is(items) -> bool:
    """A sequence ``for`` visits by index: a list, tuple, array, range... (not a dict)."""
    return (not isinstance(items, dict) and hasattr(items, "__len__")
            and hasattr(items, "__getitem__"))


def iterated(items):
    """What ``for x in items`` visits, indexable: a sequence itself, else a new list of
    what iterating it gives (a dict's keys, a set's or an iterator's items)."""
    return items if _visited_as_is(items) else list(items)


def keys_of(mapping):
    """The keys ``for k in mapping.keys()`` (or ``.items()``, ``.values()``) visits, as a
    list: static structure, never differentiated."""
    return list(mapping)


def iterated_adjoint(g, items):
    """Adjoint of ``iterated``: ``g`` flows back to ``items``, but a dict's keys carry none."""
    return zeros_like(items) if isinstance(items, dict) else g


def iterated_tangent(t, items):
    """Tangent of ``iterated(items)`` (``t`` is items' tangent): zeros for a dict's keys."""
    return [0.0] * len(items) if isinstance(items, dict) else t


def sequence_adjoint(g, items):
    """Adjoint of ``list(items)`` or ``tuple(items)``: ``g`` (one adjoint per element) flows
    back element by element; a dict's keys carry none, an array's rows are stacked back."""
    if isinstance(items, dict):
        return zeros_like(items)
    if isinstance(items, (list, tuple)) or _is_zero_scalar(g):
        return Parts(g) if isinstance(g, Parts) else g
    return np.reshape(np.array([np.asarray(part) for part in g], dtype=float), np.shape(items))


def merged(first, second):
    """``{**first, **second}``: a new dict, second's entries overriding first's."""
    out = dict(first)
    out.update(second)
    return out


def check_mapping(value, where):
    """Raise UnsupportedOperationError unless ``value`` (copied by ``dict(value)``) is a
    dict: the pairs of a list by name are not followed (``dict(zip(keys, values))`` is)."""
    if not isinstance(value, dict):
        raise UnsupportedOperationError(
            "srcad differentiates dict(x) for a dict x, and this x is a %s"
            % type(value).__name__, _location(where),
            "Build the dict from its pairs where you call dict: dict(zip(keys, values)), "
            "or {key: value for key, value in pairs}.")


def entries_of(g, like, dropped=()):
    """The entries of ``g`` (an adjoint or tangent of a dict) at the keys of the dict
    ``like``: zeros at the keys ``dropped`` has and where g has none (a zero ``g``: all)."""
    zero = _is_zero_scalar(g)
    return Entries((key, 0.0 if zero or key in dropped or key not in g else g[key])
                   for key in like)


def merged_tangent(first_tangent, second_tangent, first, second):
    """Tangent of ``merged(first, second)``: each key's tangent from the dict whose value
    the merge kept (zeros for a zero tangent: every key of the result is there)."""
    return entries_of(first_tangent, first, second) + entries_of(second_tangent, second)


def sum_adjoint(g, items):
    """Adjoint of ``sum(items)`` for its items: an array's rows each get ``g``; a list's or
    tuple's elements (broadcast together by the sum, shapes may differ) each get ``g``
    summed back to their own shape."""
    if isinstance(items, (list, tuple)):
        return Parts(unbroadcast(g, item) for item in items)
    return expand_reduced(g, items, 0, False)


def sum_tangent(t, items):
    """Tangent of ``sum(items)`` (``t`` is items' tangent): the sum of the items' tangents."""
    if _is_zero_scalar(t):
        return t
    if isinstance(t, np.ndarray):
        return np.sum(t, axis=0)
    total = 0.0
    for part in t:
        total = total + part
    return total


def sequence_tangent(t, items):
    """Tangent of ``list(items)`` or ``tuple(items)`` (``t`` is items' tangent): a new list
    of the elements' tangents (forward mode appends to a list's tangent in place)."""
    if isinstance(items, dict) or _is_zero_scalar(t):
        return [0.0] * len(items)
    return list(t)


def append_in_place(items, value):
    """Forward mode's ``items.append(value)``: in place, since nothing reads the old list."""
    items.append(value)
    return items


def pop_in_place(items):
    """Forward mode's list after ``items.pop()``: in place, returns the shortened list."""
    items.pop()
    return items


def weighted(values, weights):
    """``values * weights``, or ``values`` when ``weights`` is None (an optional weight, such
    as scipy.special.logsumexp's b)."""
    return values if weights is None else values * weights


def reduced_kept(y, a, b=None, axis=None, keepdims=False):
    """``y``, a reduction over ``axis`` of ``a`` (broadcast with ``b`` when b is not None),
    with the reduced axes back as size 1 (as keepdims=True gives them), so that it broadcasts
    against a: y itself for a reduction of all axes without keepdims (a scalar). (SciPy's
    logsumexp keeps the dims of a 0-d input as shape (1,): cut back to 0-d.)"""
    if axis is None and not keepdims:
        return y
    ndim = max(np.ndim(a), np.ndim(b) if b is not None else 0)
    if ndim == 0:
        return np.reshape(y, ())
    if not keepdims:
        return np.expand_dims(y, _normalize_axes(axis, ndim))
    return y if np.ndim(y) == ndim else np.reshape(y, np.shape(y)[np.ndim(y) - ndim:])
# ---- scans and differences (their adjoints: srcad/templates/numpy_reductions.py)


def reverse_cumsum(g, x, axis=None):
    """Adjoint of ``np.cumsum(x, axis)``: the sums of ``g`` from each element to the end (of
    the flattened array for axis=None, given back in x's shape)."""
    g = np.asarray(g)
    if axis is None:
        return np.reshape(np.cumsum(g.ravel()[::-1])[::-1], np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def diff_adjoint(g, n=1, axis=-1):
    """Adjoint of ``np.diff(x, n, axis)``: each difference's transpose, -diff of g padded
    with a zero at both ends of ``axis``, n times."""
    for _ in range(n):
        g = -np.diff(g, axis=axis, prepend=0.0, append=0.0)
    return g


def product_of_others(x, axis=None):
    """Each element's derivative of ``np.prod(x, axis)``: the product of the other elements of
    its slice; y / x where no element is 0 (and y neither overflows nor underflows), else from
    the products before and after it (no division: exact where x has zeros)."""
    x = np.asarray(x)
    if x.ndim == 0 or x.size == 0:
        return np.ones_like(x, dtype=np.result_type(x, 1.0))
    product = np.prod(x, axis=axis, keepdims=True)
    if np.all(x != 0) and np.all(np.isfinite(product)) and np.all(product != 0):
        return product / x  # no zero, no overflow or underflow: the quotient is as exact
    axes = tuple(range(x.ndim)) if axis is None else _normalize_axes(axis, x.ndim)
    order = [a for a in range(x.ndim) if a not in axes] + list(axes)
    moved = np.transpose(x, order)
    rows = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))
    ones = np.ones(rows.shape[:-1] + (1,), dtype=np.result_type(x, 1.0))
    before = np.cumprod(np.concatenate([ones, rows[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, rows[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return np.transpose((before * after).reshape(moved.shape), np.argsort(order))


def product_of_others_tangent(t, x, axis=None):
    """The tangent of ``product_of_others(x, axis)`` along ``t``: for each element i, the sum
    over the others j of t_j times the product of the elements but i and j. By the count of
    zeros in the slice (0, 1, 2, more), dividing by nonzero elements only."""
    x = np.asarray(x)
    t = np.broadcast_to(t, np.shape(x))
    if x.ndim == 0:
        return np.zeros_like(x, dtype=np.result_type(x, 1.0))
    zero = x == 0
    zeros = np.sum(zero, axis=axis, keepdims=True)
    safe = np.where(zero, 1.0, x)
    product = np.prod(safe, axis=axis, keepdims=True)  # of the nonzero elements
    ratio = t / safe
    over_nonzero = np.sum(np.where(zero, 0.0, ratio), axis=axis, keepdims=True)
    at_zeros = np.sum(np.where(zero, t, 0.0), axis=axis, keepdims=True)
    none = product / safe * (over_nonzero - ratio)
    one = np.where(zero, product * over_nonzero, at_zeros * product / safe)
    two = np.where(zero, (at_zeros - t) * product, 0.0)
    return np.where(zeros == 0, none, np.where(zeros == 1, one, np.where(zeros == 2, two, 0.0)))


def weights_along(weights, x, axis=None):
    """np.average's ``weights`` as an array of x's shape: ones for None, a 1-D array laid
    along ``axis``, or weights of x's shape."""
    x_shape = np.shape(x)
    if weights is None:
        return np.ones(x_shape)
    weights = np.asarray(weights)
    if weights.shape != x_shape and weights.ndim == 1 and isinstance(axis, int):
        laid = [1] * len(x_shape)
        laid[axis % len(x_shape)] = weights.size
        weights = np.reshape(weights, laid)
    return np.broadcast_to(weights, x_shape)


def weights_along_adjoint(g, weights, axis=None):
    """The transpose of ``weights_along``: ``g`` (of x's shape) summed back to the weights'."""
    g = np.asarray(g)
    if np.shape(weights) == g.shape:
        return g
    others = tuple(i for i in range(g.ndim) if i != axis % g.ndim)
    return np.reshape(np.sum(g, axis=others), np.shape(weights))


def _sorted_rows(x, axis):
    """x with the axes ``axis`` reduces moved last and flattened into one, each such row's
    ranks (a stable argsort: at ties, the first in memory order ranks lower), and what
    puts it back: (rows, ranks, order of the moved axes, their shape)."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else _normalize_axes(axis, x.ndim)
    order = [a for a in range(x.ndim) if a not in axes] + list(axes)
    moved = np.transpose(x, order)
    rows = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))
    return rows, np.argsort(rows, axis=-1, kind="stable"), order, moved.shape


def _interpolated_ranks(q, count):
    """np.quantile's linear method: the ranks below and above each q, and the weight of the
    one above."""
    position = np.asarray(q, dtype=float) * (count - 1)
    lower = np.clip(np.floor(position), 0, count - 1).astype(int)
    return lower, np.minimum(lower + 1, count - 1), position - lower


def quantile_tangent(t, x, q, axis=None, keepdims=False):
    """The tangent of ``np.quantile(x, q, axis, keepdims=keepdims)`` (linear method) along t:
    t at the element(s) each quantile selects, split as the quantile interpolates."""
    rows, ranks, order, _ = _sorted_rows(x, axis)
    t_rows = np.transpose(np.broadcast_to(t, np.shape(x)), order).reshape(rows.shape)
    t_sorted = np.take_along_axis(t_rows, ranks, axis=-1)
    lower, upper, above = _interpolated_ranks(q, rows.shape[-1])
    quantiles = np.ndim(q)
    leading = list(range(-quantiles, 0)), list(range(quantiles))
    above = np.reshape(above, np.shape(q) + (1,) * (rows.ndim - 1))
    result = ((1.0 - above) * np.moveaxis(t_sorted[..., lower], *leading)
              + above * np.moveaxis(t_sorted[..., upper], *leading))
    if keepdims:
        result = np.reshape(result, np.shape(q) + _kept_shape(np.shape(x), axis))
    return result[()] if result.ndim == 0 else result


def quantile_adjoint(g, x, q, axis=None, keepdims=False):
    """The adjoint of ``np.quantile(x, q, axis, keepdims=keepdims)`` (linear method): each
    g to the element(s) its quantile selects, split as it interpolates (quantile_tangent's
    transpose)."""
    rows, ranks, order, moved_shape = _sorted_rows(x, axis)
    lower, upper, above = _interpolated_ranks(q, rows.shape[-1])
    quantile_shape = np.shape(q)
    reduced_shape = _kept_shape(np.shape(x), axis) if keepdims else rows.shape[:-1]
    g = np.reshape(np.broadcast_to(g, quantile_shape + reduced_shape),
                   quantile_shape + rows.shape[:-1])
    sorted_adjoint = np.zeros(rows.shape, dtype=np.result_type(g, 1.0))
    for index in np.ndindex(quantile_shape):
        sorted_adjoint[..., lower[index]] += (1.0 - above[index]) * g[index]
        sorted_adjoint[..., upper[index]] += above[index] * g[index]
    rows_adjoint = np.empty_like(sorted_adjoint)
    np.put_along_axis(rows_adjoint, ranks, sorted_adjoint, axis=-1)
    return np.transpose(rows_adjoint.reshape(moved_shape), np.argsort(order))


def _kept_shape(shape, axis):
    """The shape of a reduction over ``axis`` with keepdims: size 1 on the reduced axes."""
    axes = range(len(shape)) if axis is None else _normalize_axes(axis, len(shape))
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


# Bernoulli numbers B2, B4, ..., B16: the asymptotic series of the polygamma functions
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def math_polygamma(n, x):
    """The n-th derivative of digamma at a Python float x (not 0 or a negative integer): the
    derivatives of math.lgamma. x is moved up to 12 or more by the recurrence
    psi_n(x) = psi_n(x + 1) - (-1)^n n! / x^(n + 1), then the asymptotic series (8 terms:
    relative error below 1e-16 there)."""
    x = float(x)
    factorial = math.factorial(n)
    shifted = 0.0
    while x < 12.0:
        shifted -= (-1) ** n * factorial / x ** (n + 1)
        x += 1.0
    if n == 0:
        series = math.log(x) - 0.5 / x - sum(
            b / (2 * k * x ** (2 * k)) for k, b in enumerate(_BERNOULLI, 1))
    else:
        series = (-1) ** (n + 1) * (
            math.factorial(n - 1) / x ** n + factorial / (2.0 * x ** (n + 1)) + sum(
                b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
                for k, b in enumerate(_BERNOULLI, 1)))
    return shifted + series


# cumprod's derivatives, by recurrences along the scanned axis (no division: exact where x
# has zeros); a Python loop over that axis, vectorized over the others


def _scanned(value, shape, axis):
    """``value`` broadcast to ``shape`` (x's, or the flattened x's for an adjoint of a scan
    with axis=None), as a float array with the scanned axis first."""
    value = np.broadcast_to(np.asarray(value, dtype=np.result_type(value, 1.0)), shape)
    return np.reshape(value, (-1,)) if axis is None else np.moveaxis(value, axis, 0)


def _scan_output_shape(x, axis):
    return (np.size(x),) if axis is None else np.shape(x)


def _unscanned(value, x, axis, flat):
    """The inverse of ``_scanned``: the scanned axis back in place, x's shape for an adjoint
    (``flat`` False) or the flattened one for axis=None."""
    if axis is None:
        return value if flat else np.reshape(value, np.shape(x))
    return np.moveaxis(value, 0, axis)


def cumprod_tangent(t, x, axis=None):
    """The tangent of ``np.cumprod(x, axis)`` along t: T_i = T_(i-1) x_i + y_(i-1) t_i."""
    xs, ts = _scanned(x, np.shape(x), axis), _scanned(t, np.shape(x), axis)
    product, tangent = np.ones(xs.shape[1:]), np.zeros(xs.shape[1:])
    result = np.empty(xs.shape)
    for i in range(xs.shape[0]):
        product, tangent = product * xs[i], tangent * xs[i] + product * ts[i]
        result[i] = tangent
    return _unscanned(result, x, axis, flat=True)


def cumprod_adjoint(g, x, axis=None):
    """The adjoint of ``np.cumprod(x, axis)``: x_j gets y_(j-1) R_j, where R_j = g_j +
    x_(j+1) R_(j+1) (the transpose of cumprod_tangent)."""
    xs, gs = _scanned(x, np.shape(x), axis), _scanned(g, _scan_output_shape(x, axis), axis)
    before = np.cumprod(np.concatenate([np.ones((1,) + xs.shape[1:]), xs[:-1]]), axis=0)
    following = np.concatenate([xs[1:], np.zeros((1,) + xs.shape[1:])])  # R's factor
    return _unscanned(before * _suffix_recurrence(gs, following), x, axis, flat=False)


def _suffix_recurrence(g, a):
    """R along axis 0 with R_j = g_j + a_j R_(j+1), R past the end 0 (a's last element is 0).

    A long axis (np.cumprod(x) of a large x) runs in blocks of about sqrt(n) elements: a
    Python loop over the positions in a block, vectorized over the blocks, gives each block's
    R as if R after it were 0, and the product of its a's from each position to its end; a
    loop over the blocks then carries R back from block to block (the same sums and
    products, grouped otherwise: no division, exact where x has zeros)."""
    count, others = g.shape[0], g.shape[1:]
    if count <= 64:
        result = np.empty(g.shape)
        rest = np.zeros(others)
        for j in range(count - 1, -1, -1):
            rest = g[j] + a[j] * rest
            result[j] = rest
        return result
    length = int(np.ceil(np.sqrt(count)))
    blocks = -(-count // length)
    padded = blocks * length  # padding: g and a 0 there, so R is 0 there and adds nothing
    # (position in block, block, others...), each position's row contiguous
    g_blocks, a_blocks = (np.ascontiguousarray(np.swapaxes(np.concatenate(
        [v, np.zeros((padded - count,) + others)]).reshape((blocks, length) + others), 0, 1))
        for v in (g, a))
    local, carried = np.empty(g_blocks.shape), np.empty(g_blocks.shape)
    rest, factor = np.zeros((blocks,) + others), np.ones((blocks,) + others)
    for j in range(length - 1, -1, -1):
        rest = g_blocks[j] + a_blocks[j] * rest
        factor = a_blocks[j] * factor
        local[j], carried[j] = rest, factor
    starts = np.zeros((blocks + 1,) + others)  # R at each block's first element (0 past them)
    for block in range(blocks - 1, -1, -1):
        starts[block] = local[0, block] + carried[0, block] * starts[block + 1]
    result = local + carried * starts[1:]
    return np.swapaxes(result, 0, 1).reshape((padded,) + others)[:count]


def cumprod_adjoint_tangent(g, x, s, axis=None):
    """The derivative of ``cumprod_adjoint(g, x, axis)`` in x along s (prod's second
    derivative, a symmetric map of s: its own transpose)."""
    xs, ss = _scanned(x, np.shape(x), axis), _scanned(s, np.shape(x), axis)
    gs = _scanned(g, _scan_output_shape(x, axis), axis)
    count = xs.shape[0]
    before = np.empty(xs.shape)
    before_tangent = np.empty(xs.shape)
    product, tangent = np.ones(xs.shape[1:]), np.zeros(xs.shape[1:])
    for j in range(count):
        before[j], before_tangent[j] = product, tangent
        product, tangent = product * xs[j], tangent * xs[j] + product * ss[j]
    result = np.empty(xs.shape)
    rest, rest_tangent = np.zeros(xs.shape[1:]), np.zeros(xs.shape[1:])
    for j in range(count - 1, -1, -1):
        if j + 1 < count:
            rest, rest_tangent = (gs[j] + xs[j + 1] * rest,
                                  ss[j + 1] * rest + xs[j + 1] * rest_tangent)
        else:
            rest = gs[j]
        result[j] = before_tangent[j] * rest + before[j] * rest_tangent
    return _unscanned(result, x, axis, flat=False)


def cumprod_second(t, s, x, axis=None):
    """cumprod's second derivative along t and s: B_i = B_(i-1) x_i + T_(i-1) s_i +
    S_(i-1) t_i, T and S its tangents along t and s."""
    xs, ts, ss = (_scanned(value, np.shape(x), axis) for value in (x, t, s))
    zeros = np.zeros(xs.shape[1:])
    product, along_t, along_s, both = np.ones(xs.shape[1:]), zeros, zeros, zeros
    result = np.empty(xs.shape)
    for i in range(xs.shape[0]):
        product, along_t, along_s, both = (
            product * xs[i], along_t * xs[i] + product * ts[i], along_s * xs[i] + product * ss[i],
            both * xs[i] + along_t * ss[i] + along_s * ts[i])
        result[i] = both
    return _unscanned(result, x, axis, flat=True)
# ---- shape and indexing functions (srcad/templates/numpy_shape.py): the transposed maps


def rollaxis_destination(axis, start, ndim):
    """Where ``np.rollaxis(x, axis, start)`` puts ``axis`` (as ``np.moveaxis`` would)."""
    axis = axis % ndim
    start = start + ndim if start < 0 else start
    return start - 1 if start > axis else start


def untiled(g, x, reps):
    """Adjoint of ``np.tile(x, reps)``: the tiles of ``g`` summed onto x's shape."""
    reps = tuple(np.atleast_1d(reps))
    shape = np.shape(x)
    rank = max(len(shape), len(reps))
    shape = (1,) * (rank - len(shape)) + shape
    reps = (1,) * (rank - len(reps)) + reps
    interleaved = [size for pair in zip(reps, shape) for size in pair]
    summed = np.sum(np.reshape(g, interleaved), axis=tuple(range(0, 2 * rank, 2)))
    return np.reshape(summed, np.shape(x))


def _along(axis, ndim, index):
    """An index picking ``index`` along ``axis`` and everything along the other axes."""
    return (slice(None),) * (axis % ndim) + (index,)


def unrepeated(g, x, repeats, axis=None):
    """Adjoint of ``np.repeat(x, repeats, axis)``: each run of copies summed back."""
    shape = np.shape(x)
    g = np.asarray(g, dtype=np.result_type(g, np.float64))
    if g.ndim == 0:  # one value for every copy
        g = np.broadcast_to(g, np.shape(np.repeat(np.zeros(shape), repeats, axis)))
    if axis is None:
        g, axis, count = np.ravel(g), 0, np.size(x)
    else:
        axis = axis % len(shape)
        count = shape[axis]
    counts = np.broadcast_to(np.asarray(repeats, dtype=np.intp), (count,))  # (NumPy's rule)
    outer, inner = g.shape[:axis], g.shape[axis + 1:]
    if count == 0 or not counts.any():
        return np.zeros(shape, dtype=g.dtype)
    if np.all(counts == counts[0]):
        # every element repeated r times: g's axis as (count, r), the r copies added up
        # slice by slice (a sum over a short inner axis, or np.add.at, is many times slower)
        copies = int(counts[0])
        runs = np.reshape(g, outer + (count, copies) + inner)
        if copies > 16:
            return np.reshape(np.sum(runs, axis=axis + 1), shape)
        if copies == 1:
            return np.reshape(g, shape)
        index = (slice(None),) * (axis + 1)
        total = runs[index + (0,)] + runs[index + (1,)]
        for copy in range(2, copies):
            total += runs[index + (copy,)]
        return np.reshape(total, shape)
    # runs of different lengths: each summed from its start (an empty run gets 0)
    nonempty = counts > 0
    starts = (np.cumsum(counts) - counts)[nonempty]
    out = np.zeros(outer + (count,) + inner, dtype=g.dtype)
    out[(slice(None),) * axis + (nonempty,)] = np.add.reduceat(g, starts, axis=axis)
    return np.reshape(out, shape)


def untaken(g, x, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take(x, indices, axis, mode=mode)``: ``g`` added where it was taken
    from (repeated indices accumulate)."""
    size = np.size(x) if axis is None else np.shape(x)[axis % np.ndim(x)]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = indices % size
    elif mode == "clip":
        indices = np.clip(indices, 0, size - 1)
    # increasing indices (np.compress's, np.extract's, np.delete's kept ones) never repeat:
    # assigned, not accumulated (np.add.at is many times slower on large arrays)
    unique = indices.ndim == 1 and (indices.size < 2 or bool(np.all(indices[1:] > indices[:-1])))
    if axis is None:
        flat = np.zeros(np.size(x), dtype=np.result_type(g, np.float64))
        if unique:
            flat[indices] = g
        else:
            np.add.at(flat, indices, g)
        return np.reshape(flat, np.shape(x))
    out = np.zeros(np.shape(x), dtype=np.result_type(g, np.float64))
    axis = axis % np.ndim(x)
    if unique:  # a 1-D index keeps x's axes in place: g has the shape of out[..., indices, ...]
        out[(slice(None),) * axis + (indices,)] = g
        return out
    # np.take(x, i, axis) puts i's axes where ``axis`` was: move them last for add.at
    g = np.asarray(g)
    g = np.moveaxis(g, tuple(range(axis, axis + indices.ndim)),
                    tuple(range(g.ndim - indices.ndim, g.ndim)))
    moved = np.moveaxis(out, axis, -1)  # a view: add.at writes into out
    np.add.at(moved, (Ellipsis, indices), g)
    return out


def untaken_along_axis(g, x, indices, axis):
    """Adjoint of ``np.take_along_axis(x, indices, axis)``: ``g`` added where it was taken
    from."""
    if axis is None:
        flat = np.zeros(np.size(x), dtype=np.result_type(g, np.float64))
        np.add.at(flat, np.asarray(indices), g)
        return np.reshape(flat, np.shape(x))
    out = np.zeros(np.shape(x), dtype=np.result_type(g, np.float64))
    indices = np.asarray(indices)
    ndim, axis = np.ndim(x), axis % np.ndim(x)
    shape = np.broadcast_shapes(np.shape(g), indices.shape)
    grids = np.ogrid[tuple(slice(n) for n in shape)]
    # an axis of x of size 1 broadcast against the indices: every copy adds to its element
    index = tuple(indices if i == axis else 0 if np.shape(x)[i] == 1 else grids[i]
                  for i in range(ndim))
    np.add.at(out, index, np.broadcast_to(g, shape))
    return out


def order_of(y, x, axis=-1):
    """Indices ``p`` with ``np.take_along_axis(x, p, axis) == y`` for ``y`` a permutation of
    x along ``axis`` (np.sort, np.partition): matched through both arrays' sort orders."""
    if axis is None:
        x, axis = np.ravel(x), -1
    from_x = np.argsort(x, axis=axis, kind="stable")
    from_y = np.argsort(y, axis=axis, kind="stable")
    order = np.empty_like(from_x)
    np.put_along_axis(order, from_y, from_x, axis=axis)
    return order


PADDED_BY_COPIES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad_sources(shape, pad_width, mode):
    """For each element of ``np.pad(x, pad_width, mode)``, the flat index of the element of
    x it copies (-1 for a constant)."""
    if mode not in PADDED_BY_COPIES:
        raise UnsupportedOperationError(
            "srcad differentiates np.pad with mode %s, not %r" % (
                ", ".join(PADDED_BY_COPIES), mode))
    sources = np.reshape(np.arange(int(np.prod(shape))), shape)
    if mode == "constant":
        return np.pad(sources, pad_width, mode="constant", constant_values=-1)
    return np.pad(sources, pad_width, mode=mode)


def padded(x, pad_width, mode="constant"):
    """``np.pad(x, pad_width, mode)`` with zeros for constants: the linear part of np.pad."""
    if mode == "constant":
        return np.pad(x, pad_width)
    _pad_sources(np.shape(x), pad_width, mode)  # the check of the mode
    return np.pad(x, pad_width, mode=mode)


def unpadded(g, x, pad_width, mode="constant"):
    """Adjoint of ``np.pad(x, pad_width, mode)``: each element of ``g`` added to the element
    of x it copies (the center, and the edges or reflections of x)."""
    if mode == "constant":
        width = np.broadcast_to(np.asarray(pad_width, dtype=int), (np.ndim(x), 2))
        center = tuple(slice(before, np.shape(g)[i] - after)
                       for i, (before, after) in enumerate(width))
        return np.array(np.asarray(g)[center], dtype=np.result_type(g, np.float64))
    sources = np.ravel(_pad_sources(np.shape(x), pad_width, mode))
    flat = np.bincount(sources, weights=np.ravel(g), minlength=np.size(x))
    return np.reshape(flat, np.shape(x))


def joined(joiner, pieces):
    """``joiner(pieces)`` (np.hstack, np.vstack, np.dstack, np.column_stack)."""
    return joiner(pieces)


def _joined_layout(joiner, shape):
    """The shape a piece of ``shape`` takes inside ``joiner``'s result, and the axis joined."""
    if joiner is np.vstack:
        shape = (1,) * (2 - len(shape)) + shape if len(shape) < 2 else shape
        return shape, 0
    if joiner is np.dstack:
        if len(shape) == 0:
            shape = (1, 1, 1)
        elif len(shape) == 1:
            shape = (1,) + shape + (1,)
        elif len(shape) == 2:
            shape = shape + (1,)
        return shape, 2
    if joiner is np.column_stack:
        shape = (shape[0], 1) if len(shape) == 1 else (1, 1) if len(shape) == 0 else shape
        return shape, 1
    shape = shape or (1,)  # np.hstack
    return shape, 0 if len(shape) == 1 else 1


def unjoined(g, joiner, pieces):
    """Adjoint of ``joined(joiner, pieces)``: ``g`` cut back into one part per piece."""
    g = np.asarray(g)
    if isinstance(pieces, np.ndarray) and pieces.ndim and len(pieces) and g.ndim:
        # the rows of one array (np.vstack(x)): g's joined axis split into (piece, its
        # length), that first: an array shaped like pieces, not a loop over its rows
        shape, axis = _joined_layout(joiner, pieces.shape[1:])
        split = g.shape[:axis] + (len(pieces), shape[axis]) + g.shape[axis + 1:]
        return np.reshape(np.moveaxis(np.reshape(g, split), axis, 0), pieces.shape)
    parts = Parts()
    start = 0
    for piece in pieces:
        shape, axis = _joined_layout(joiner, np.shape(piece))
        index = [slice(None)] * g.ndim
        index[axis] = slice(start, start + shape[axis])
        parts.append(np.reshape(g[tuple(index)], np.shape(piece)))
        start += shape[axis]
    return parts


def _chosen_masks(condlist):
    """For np.select: where each choice is taken (its condition, no earlier one), and where
    none is (the default)."""
    taken = np.zeros((), dtype=bool)
    masks = []
    for condition in condlist:
        condition = np.asarray(condition, dtype=bool)
        masks.append(condition & ~taken)
        taken = taken | condition
    return masks, ~taken


def select_adjoint(g, condlist, choicelist):
    """Adjoint of ``np.select(condlist, choicelist, default)`` for the choices: ``g`` where
    each choice was taken, summed back to its shape."""
    masks, _ = _chosen_masks(condlist)
    return Parts(unbroadcast(np.where(mask, g, 0.0), choice)
                 for mask, choice in zip(masks, choicelist))


def unselected(g, condlist):
    """``g`` where no condition of np.select holds (where its default is taken), else 0."""
    _, none = _chosen_masks(condlist)
    return np.where(none, g, 0.0)


def _gradient_axes(f, spacing, axis):
    """The axes np.gradient differentiates along, each with its (scalar) spacing, and
    whether it returns one array (one axis) rather than a tuple."""
    ndim = np.ndim(f)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    if len(spacing) == 0:
        steps = (1.0,) * len(axes)
    elif len(spacing) == 1:
        steps = tuple(spacing) * len(axes)
    else:
        steps = tuple(spacing)
    if any(np.ndim(step) != 0 for step in steps):
        raise UnsupportedOperationError(
            "srcad differentiates np.gradient with scalar spacings, not coordinate arrays")
    return axes, steps, len(axes) == 1


def gradient_of(f, spacing, axis=None, edge_order=1):
    """``np.gradient(f, *spacing, axis=axis, edge_order=edge_order)``."""
    return np.gradient(f, *spacing, axis=axis, edge_order=edge_order)


def gradient_adjoint(g, f, spacing, axis=None, edge_order=1):
    """Adjoint of ``np.gradient(f, *spacing, axis=axis, edge_order=edge_order)`` (scalar
    spacings): each difference's weights put back on the elements it reads."""
    axes, steps, single = _gradient_axes(f, spacing, axis)
    out = np.zeros(np.shape(f))
    for part, along, step in zip([g] if single else g, axes, steps):
        part = np.moveaxis(np.broadcast_to(np.asarray(part, dtype=float), np.shape(f)),
                           along, 0) / step
        back = np.moveaxis(out, along, 0)  # a view: written through into out
        back[2:] += part[1:-1] / 2.0  # central differences (f[i+1] - f[i-1]) / 2h
        back[:-2] -= part[1:-1] / 2.0
        if edge_order == 1:  # (f[1] - f[0]) / h and (f[-1] - f[-2]) / h
            back[0] -= part[0]
            back[1] += part[0]
            back[-1] += part[-1]
            back[-2] -= part[-1]
        else:  # (-3 f[0] + 4 f[1] - f[2]) / 2h and (3 f[-1] - 4 f[-2] + f[-3]) / 2h
            back[0] -= 1.5 * part[0]
            back[1] += 2.0 * part[0]
            back[2] -= 0.5 * part[0]
            back[-1] += 1.5 * part[-1]
            back[-2] -= 2.0 * part[-1]
            back[-3] += 0.5 * part[-1]
    return out


def _meshgrid_axis(position, count, indexing):
    """The axis of np.meshgrid's grids along which its argument ``position`` varies."""
    if indexing == "xy" and count >= 2 and position < 2:
        return 1 - position
    return position


def meshgrid_adjoint(g, x, position, indexing="xy"):
    """Adjoint of np.meshgrid for its argument ``position`` (``x``): that grid's adjoint
    summed over the axes along which x is repeated."""
    part = np.asarray(g[position])
    if part.ndim == 0:  # a zero: the grid was not used
        return np.zeros(np.shape(x)) + part
    along = _meshgrid_axis(position, len(g), indexing)
    others = tuple(axis for axis in range(part.ndim) if axis != along)
    return np.reshape(np.sum(part, axis=others), np.shape(x))


def meshgrid_part(h, a, position, indexing="xy"):
    """Transpose of ``meshgrid_adjoint(a, x, position, indexing)``: a zero adjoint like
    ``a`` but for grid ``position``, ``h`` repeated across it."""
    parts = Parts(np.zeros(np.shape(part)) for part in a)
    along = _meshgrid_axis(position, len(a), indexing)
    shape = [1] * len(np.shape(parts[position]))
    shape[along] = -1
    parts[position] = np.broadcast_to(np.reshape(h, shape), np.shape(parts[position])) * 1.0
    return parts


def meshgrid_tangent(tangents, arrays, sparse=False, indexing="xy"):
    """Tangent of ``np.meshgrid(*arrays, sparse=sparse, indexing=indexing)``: the grids of
    the tangents of the arrays given (not None)."""
    given = [t for t, x in zip(tangents, arrays) if x is not None]
    return np.meshgrid(*given, sparse=sparse, indexing=indexing)


def meshgrid_tangent_adjoint(g, tangents, arrays, sparse=False, indexing="xy"):
    """Transpose of ``meshgrid_tangent`` in its tangents: each given array's grid adjoint
    summed back (0 for the arrays not given)."""
    parts = Parts()
    position = 0
    count = sum(x is not None for x in arrays)
    for tangent, x in zip(tangents, arrays):
        if x is None:
            parts.append(0.0)
            continue
        along = _meshgrid_axis(position, count, indexing)
        part = np.asarray(g[position])
        others = tuple(axis for axis in range(part.ndim) if axis != along)
        parts.append(np.reshape(np.sum(part, axis=others), np.shape(tangent)))
        position += 1
    return parts


def _flat_positions(shape):
    """An array of ``shape`` holding each element's flat index."""
    return np.reshape(np.arange(int(np.prod(shape, dtype=int))), shape)


def undeleted(g, arr, obj, axis=None):
    """Adjoint of ``np.delete(arr, obj, axis)``: ``g`` put back where the kept elements were
    (zeros where elements were deleted)."""
    # the kept positions along the axis (of the flattened arr for axis=None), by the same
    # call on their indices: increasing, so g is assigned there, not accumulated
    shape = np.shape(arr)
    if axis is None:
        kept = np.delete(np.arange(np.size(arr)), obj)
        flat = np.zeros(np.size(arr), dtype=np.result_type(g, np.float64))
        flat[kept] = np.ravel(g)
        return np.reshape(flat, shape)
    axis = axis % len(shape)
    kept = np.delete(np.arange(shape[axis]), obj)
    out = np.zeros(shape, dtype=np.result_type(g, np.float64))
    out[(slice(None),) * axis + (kept,)] = g
    return out


def _insert_sources(arr, obj, values, axis):
    """Where each element of ``np.insert(arr, obj, values, axis)`` comes from: 1 + its flat
    index in arr, or -(1 + its flat index in values)."""
    from_arr = _flat_positions(np.shape(arr)) + 1
    from_values = -(_flat_positions(np.shape(values)) + 1)
    return np.ravel(np.insert(from_arr, obj, from_values, axis))


def insert_adjoint(g, arr, obj, values, axis=None, which=0):
    """Adjoint of ``np.insert(arr, obj, values, axis)`` for arr (``which`` 0) or for values
    (1): the elements of ``g`` that came from it, added up where values were broadcast."""
    arr_shape, values_shape = np.shape(arr), np.shape(values)
    if np.ndim(g) == 0 or (axis is not None and not arr_shape):
        return _insert_adjoint_by_sources(g, arr, obj, values, axis, which)
    # along the axis (of the flattened arr for axis=None): which slots of the result hold
    # the inserted values (the j-th of them marked j + 1), by the same call on a 1-D
    # stand-in, so NumPy's rules for obj (a scalar, a slice, a list, unsorted) are its own
    along = 0 if axis is None else axis % len(arr_shape)
    size = np.size(arr) if axis is None else arr_shape[along]
    slots = np.insert(np.zeros(size, dtype=np.intp), obj,
                      np.arange(1, np.shape(g)[along] - size + 1))
    from_values = np.flatnonzero(slots)
    if which == 0:
        return np.reshape(np.delete(g, from_values, along), arr_shape)
    # the slab of g the values filled, in values' order along the axis
    slab = np.take(g, from_values[np.argsort(slots[from_values], kind="stable")], axis=along)
    if len(values_shape) > slab.ndim:
        return _insert_adjoint_by_sources(g, arr, obj, values, axis, which)
    # values as NumPy wrote them there: with leading axes of length 1, and for a scalar obj
    # their first axis moved to the axis (np.insert's own rule)
    written = (1,) * (slab.ndim - len(values_shape)) + values_shape
    scalar_obj = not isinstance(obj, slice) and np.ndim(obj) == 0
    if scalar_obj:
        written = written[1:along + 1] + written[:1] + written[along + 1:]
    summed = tuple(i for i, (n, m) in enumerate(zip(written, slab.shape)) if n == 1 != m)
    if summed:
        slab = np.sum(slab, axis=summed, keepdims=True)
    if scalar_obj:
        slab = np.moveaxis(slab, along, 0)
    return np.reshape(slab, values_shape)


def _insert_adjoint_by_sources(g, arr, obj, values, axis=None, which=0):
    """``insert_adjoint`` by the source of every element of the result (a g of one value
    broadcast, and values of more axes than the result)."""
    sources = _insert_sources(arr, obj, values, axis)
    g = np.ravel(np.broadcast_to(g, np.shape(sources) if np.ndim(g) == 0 else np.shape(g)))
    taken = sources > 0 if which == 0 else sources < 0
    positions = np.abs(sources[taken]) - 1
    like = arr if which == 0 else values
    flat = np.bincount(positions, weights=g[taken], minlength=np.size(like))
    return np.reshape(flat, np.shape(like))


def inserted_part(h, arr, obj, values, axis=None, which=0):
    """``np.insert`` with ``h`` in place of arr (``which`` 0) or of values (1) and zeros for
    the other: the transpose of ``insert_adjoint``."""
    if which == 0:
        return np.insert(np.asarray(h, dtype=float), obj, np.zeros(np.shape(values)), axis)
    return np.insert(np.zeros(np.shape(arr)), obj, h, axis)


def clipped_to_max(x, low, high):
    """For ``np.clip(x, low, high)``: where the result is ``high``, x aside (where x is
    above it, and everywhere when low > high: NumPy's clip is minimum(maximum(x, low), high))."""
    above = np.greater(x, high)
    return above if low is None else above | np.greater(low, high)


def choice_masks(a, count):
    """For ``np.choose(a, choices)``: where each of the ``count`` choices is taken."""
    return [np.asarray(a) == i for i in range(count)]


# ---- linear algebra (srcad/templates/numpy_linalg.py)


def matrix_transpose(x):
    """Each matrix of a stack transposed (its last two axes swapped)."""
    return np.swapaxes(x, -1, -2)


def solve_columns(v, x, a):
    """``v`` (shaped like ``x = np.linalg.solve(a, b)``, or like b) as a stack of matrices:
    with a trailing axis of one column when ``x`` is a vector right-hand side's solution
    (``x`` has one axis fewer than ``a``: NumPy's rule, in every version)."""
    return np.expand_dims(v, -1) if np.ndim(x) == np.ndim(a) - 1 else v


def from_triangle(x, uplo="L"):
    """The symmetric matrices whose lower (``uplo="L"``) or upper triangle is that of
    ``x``: what np.linalg.eigh and cholesky read of their argument."""
    if uplo == "L":
        kept, mirrored = np.tril(x), np.tril(x, -1)
    else:
        kept, mirrored = np.triu(x), np.triu(x, 1)
    return kept + matrix_transpose(mirrored)


def to_triangle(x, uplo="L"):
    """The adjoint of ``from_triangle``: each mirrored entry's adjoint added to its
    original, in the triangle read (the other triangle gets none)."""
    both = x + matrix_transpose(x)
    triangle = np.tril(both) if uplo == "L" else np.triu(both)
    return triangle - 0.5 * both * np.eye(np.shape(x)[-1])


def diagonal_adjoint(diagonal, x, offset=0, axis1=0, axis2=1):
    """The adjoint of ``np.diagonal(x, offset, axis1, axis2)``: zeros shaped like x with
    ``diagonal`` (its last axis along the diagonal, or of length one: np.trace) on it."""
    result = np.zeros(np.shape(x), dtype=np.result_type(diagonal, x, 1.0))
    planes = np.moveaxis(result, (axis1, axis2), (-2, -1))  # a view: writes reach result
    length = np.diagonal(planes, offset, -2, -1).shape[-1]
    steps = np.arange(length)
    planes[..., steps + max(-offset, 0), steps + max(offset, 0)] = diagonal
    return result


def diag_adjoint(g, v, k=0):
    """The adjoint of ``np.diag(v, k)``: the k-th diagonal of ``g`` for a vector ``v``;
    ``g`` on the k-th diagonal of zeros shaped like ``v`` for a matrix."""
    return np.diag(g, k) if np.ndim(v) == 1 else diagonal_adjoint(g, v, k)


def _tensordot_axes(a_ndim, b_ndim, axes):
    """np.tensordot's ``axes`` (an int, or a pair of sequences or ints) as two lists of
    non-negative axes, paired in order."""
    if isinstance(axes, (int, np.integer)):
        return list(range(a_ndim - axes, a_ndim)), list(range(axes))
    axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    return [i % a_ndim for i in axes_a], [i % b_ndim for i in axes_b]


def tensordot_adjoint_axes(a, b, axes, which):
    """How the adjoint of ``np.tensordot(a, b, axes)`` flows back to a (``which=0``) or b:
    ``(contracted, order)`` such that it is ``np.transpose(np.tensordot(g, b, contracted),
    order)`` for a, ``np.transpose(np.tensordot(a, g, contracted), order)`` for b."""
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    axes_a, axes_b = _tensordot_axes(a_ndim, b_ndim, axes)
    free_a = [i for i in range(a_ndim) if i not in axes_a]
    free_b = [i for i in range(b_ndim) if i not in axes_b]
    if which == 0:  # g's trailing (free b) axes against b's free axes: free a, then the
        # axes of a paired with b's remaining axes, in b's order
        contracted = (list(range(len(free_a), len(free_a) + len(free_b))), free_b)
        paired = [axes_a[axes_b.index(i)] for i in sorted(axes_b)]
        return contracted, tuple(int(i) for i in np.argsort(free_a + paired))
    contracted = (free_a, list(range(len(free_a))))  # paired with a's remaining, then free b
    paired = [axes_b[axes_a.index(i)] for i in sorted(axes_a)]
    return contracted, tuple(int(i) for i in np.argsort(paired + free_b))


def inner_axes(a, b):
    """np.inner(a, b) as np.tensordot(a, b, inner_axes(a, b)): over the last axes, or a
    product when either is a scalar."""
    return 0 if np.ndim(a) == 0 or np.ndim(b) == 0 else ([-1], [-1])


def kron_plan(a, b):
    """For the adjoint of ``np.kron(a, b)``: the result's shape with a's and b's axes
    interleaved, a's and b's shapes padded to one rank, a's and b's axes in the
    interleaved shape, and the padded axes."""
    ndim = max(np.ndim(a), np.ndim(b))
    a_shape = (1,) * (ndim - np.ndim(a)) + np.shape(a)
    b_shape = (1,) * (ndim - np.ndim(b)) + np.shape(b)
    interleaved = tuple(n for pair in zip(a_shape, b_shape) for n in pair)
    return (interleaved, a_shape, b_shape, tuple(range(0, 2 * ndim, 2)),
            tuple(range(1, 2 * ndim, 2)), tuple(range(ndim)))


def block_upper(a, e):
    """The block matrices [[a, e], [0, a]] (of stacks): a matrix function f of them holds
    f(a)'s derivative in the direction e in its upper right block."""
    e = np.broadcast_to(e, np.broadcast_shapes(np.shape(a), np.shape(e)))
    a = np.broadcast_to(a, np.shape(e))
    return np.concatenate([np.concatenate([a, e], -1),
                           np.concatenate([np.zeros_like(a), a], -1)], -2)


def block_diagonal_sum(g):
    """The adjoint of ``block_upper(a, e)`` for a: the sum of g's two diagonal blocks."""
    size = np.shape(g)[-1] // 2
    return g[..., :size, :size] + g[..., size:, size:]


def upper_right_block(g):
    """The upper right block of block matrices (the adjoint of ``block_upper`` for e)."""
    size = np.shape(g)[-1] // 2
    return g[..., :size, size:]


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum_specs(subscripts, *operands):
    """np.einsum's subscripts in explicit form: (one subscript per operand slot, four slots
    as rt.contract takes, None for an absent operand; the output's), ellipses written as
    letters (aligned right, as NumPy broadcasts them) and an implicit output made explicit
    (ellipsis first, then the letters seen once, in ASCII order)."""
    if not isinstance(subscripts, str):
        raise UnsupportedOperationError(
            "srcad differentiates np.einsum with its subscripts first, as a string (not the "
            "form interleaving operands and lists of axes)", None,
            'Write the subscripts as a string: np.einsum("ij,jk->ik", a, b).')
    text = subscripts.replace(" ", "")
    inputs, output = text.split("->") if "->" in text else (text, None)
    present = [x for x in operands if x is not None]
    specs = inputs.split(",")
    spare = [c for c in _LETTERS if c not in text]
    widths = [np.ndim(x) - (len(s) - 3) for s, x in zip(specs, present) if "..." in s]
    ellipsis = "".join(spare[:max(widths, default=0)])
    specs = [s.replace("...", ellipsis[len(ellipsis) - (np.ndim(x) - (len(s) - 3)):])
             if "..." in s else s for s, x in zip(specs, present)]
    if output is None:
        counts = collections.Counter("".join(specs))
        output = ellipsis + "".join(sorted(c for c, n in counts.items()
                                           if n == 1 and c not in ellipsis))
    else:
        output = output.replace("...", ellipsis)
    specs = iter(specs)
    slots = tuple(next(specs) if x is not None else None for x in operands)
    return slots + (None,) * (4 - len(slots)), output


def contract(specs, target, shape, x0, x1=None, x2=None, x3=None):
    """np.einsum of the operands whose subscript in ``specs`` (four, one per slot) is not
    None into ``target``
    subscripts of ``shape``. Unlike einsum's output, ``target`` may repeat a letter (the
    result is zero off that diagonal) and hold letters no operand has (constant along
    them), and a size-one axis of ``shape`` sums the result over that axis: what the
    adjoint of np.einsum for one operand needs, and its tangent."""
    operands = [x for s, x in zip(specs, (x0, x1, x2, x3)) if s is not None]
    subscripts = [s for s in specs if s is not None]
    spare = [c for c in _LETTERS if c not in "".join(subscripts) + target]
    seen, written = set(), ""
    for letter, size in zip(target, shape):
        known = any(letter in s for s in subscripts)
        if letter in seen:  # a repeated letter: a fresh one, tied to it by the identity
            fresh = spare.pop()
            operands.append(np.eye(size))
            subscripts.append(letter + fresh)
            letter = fresh
        elif not known:  # a letter no operand has: constant along it
            operands.append(np.ones(size))
            subscripts.append(letter)
        seen.add(letter)
        written += letter
    result = np.einsum(",".join(subscripts) + "->" + written, *operands)
    summed = tuple(i for i, (n, m) in enumerate(zip(shape, np.shape(result))) if n == 1 != m)
    if summed:
        result = np.sum(result, axis=summed, keepdims=True)
    if np.shape(result) != tuple(shape):
        result = np.array(np.broadcast_to(result, shape))
    return result


def triangle(x, lower=False):
    """The lower (``lower=True``) or upper triangle of each matrix: what
    scipy.linalg.solve_triangular reads of its matrix."""
    return np.tril(x) if lower else np.triu(x)


def residual_weights(g, like):
    """np.linalg.lstsq's residuals' adjoint ``g`` as a row against the (M, K) residual
    matrix (``like`` has K columns); zeros when lstsq returned no residuals (rank < N or
    M <= N: an empty array)."""
    columns = np.shape(like)[-1]
    if np.size(g) != columns:
        return np.zeros((1, columns))
    return np.reshape(g, (1, columns))


def residuals_like(row, residuals):
    """``row`` (1, K) shaped like lstsq's ``residuals``; zeros (an empty array) when there
    are none. The transpose of ``residual_weights``."""
    if np.size(residuals) != np.size(row):
        return np.zeros(np.shape(residuals))
    return np.reshape(row, np.shape(residuals))


def three_vectors(x, vector_axis=-1, axis=None):
    """``x``, an operand of np.cross whose derivative is taken: its vectors must have 3
    components (NumPy 2 deprecates 2-vectors, whose cross product is a scalar)."""
    if np.shape(x)[vector_axis if axis is None else axis] != 3:
        raise UnsupportedOperationError(
            "srcad differentiates np.cross of 3-vectors only, not of an array of shape %s"
            % (np.shape(x),), None, "Append a zero component to 2-vectors.")
    return x


# ---- np.linalg.norm of every order (srcad/templates/numpy_reductions.py)


def _norm_axes(x, ord, axis):
    """The axes np.linalg.norm(x, ord, axis) reduces: None for the 2-norm of x flattened,
    one axis (a vector norm) or two (a matrix norm), as NumPy reads its arguments."""
    ndim = np.ndim(x)
    if axis is None:
        return None if ord is None else tuple(range(ndim))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    return tuple(int(a) % ndim for a in axes)


def _power_of_ratio(magnitude, norm, exponent):
    """(magnitude / norm) ** exponent, 0 where magnitude is 0 and the exponent negative
    (and no warning): the slices' factors in a p-norm's derivatives."""
    ratio = magnitude / norm
    if exponent >= 0:
        return np.power(ratio, exponent)
    return np.power(np.where(magnitude == 0, 1.0, ratio), exponent) * (magnitude != 0)


def _p_norm_gradient(x, p, axes, t=None):
    """The gradient sign(x) (|x| / y) ** (p - 1) of y = (sum |x|^p) ** (1/p) over ``axes``
    (None: all); with ``t``, the Hessian's product with t instead:
    (p - 1) / y ((|x| / y) ** (p - 2) t - G <G, t>). Both 0 where y is 0."""
    x = np.asarray(x, dtype=float)
    magnitude = np.abs(x)
    if p == 2:
        y = np.sqrt(np.sum(x * x, axis=axes, keepdims=True))
    else:
        summed = np.sum(_power_of_ratio(magnitude, 1.0, p), axis=axes, keepdims=True)
        y = nonzero(summed) ** (1.0 / p) * (summed != 0)
        if p < 0:  # a zero element makes the sum of |x|^p infinite: y = 0
            y = np.where(np.any(magnitude == 0, axis=axes, keepdims=True), 0.0, y)
    divisor = nonzero(y)
    gradient = np.sign(x) * _power_of_ratio(magnitude, divisor, p - 1) * (y != 0)
    if t is None:
        return gradient
    along = np.sum(gradient * t, axis=axes, keepdims=True)
    return (p - 1) / divisor * (_power_of_ratio(magnitude, divisor, p - 2) * t
                                - gradient * along) * (y != 0)


def _shared_extremes(x, sums, reduced, largest):
    """sign(x) on the slices (``sums``: |x| summed, broadcasting against x) that reach the
    max (``largest``) or min over ``reduced``, shared equally among tied slices."""
    extreme = (np.max if largest else np.min)(sums, axis=reduced, keepdims=True)
    tied = sums == extreme
    return np.sign(x) * tied / np.sum(tied, axis=reduced, keepdims=True)


def _reciprocal(v):
    """1 / v, read as 0 where v is 0 (the Hessian of a matrix norm where it has none)."""
    return np.where(v == 0, 0.0, 1.0 / nonzero(v))


def _singular_pairs(x):
    """x's reduced SVD, its matrices the last two axes."""
    return np.linalg.svd(x, full_matrices=False)


def _spectral_gradient(u, vh, index):
    """u_i v_iᵀ, the gradient of the singular value s_i."""
    return u[..., :, index:index + 1 or None] * vh[..., index:index + 1 or None, :]


def _spectral_hessian_product(x, t, index):
    """d(u_i v_iᵀ) in the direction t, s_i simple and nonzero: with R = uᵀ t v and
    f_j = 1 / (s_i² - s_j²) (j ≠ i), du_i = u (f ∘ (R_{:,i} s_i + s ∘ R_{i,:})) + (1 - u uᵀ)
    t v_i / s_i and dv_i the same with t transposed (svd's tangent, numpy_linalg.py, one
    column)."""
    u, s, vh = _singular_pairs(x)
    v = matrix_transpose(vh)
    k = np.shape(s)[-1]
    index = index % k
    rotated = np.matmul(matrix_transpose(u), np.matmul(t, v))
    chosen = s[..., index:index + 1]
    differences = chosen * chosen - s * s
    gaps = _reciprocal(differences)
    column, row = rotated[..., :, index], rotated[..., index, :]
    moved_v = np.matmul(t, v[..., :, index:index + 1])[..., 0]
    moved_u = np.matmul(matrix_transpose(t), u[..., :, index:index + 1])[..., 0]
    inverse = _reciprocal(chosen)
    u_dot = (np.matmul(u, np.expand_dims(gaps * (column * chosen + s * row), -1))[..., 0]
             + (moved_v - np.matmul(u, np.expand_dims(column, -1))[..., 0]) * inverse)
    v_dot = (np.matmul(v, np.expand_dims(gaps * (s * column + row * chosen), -1))[..., 0]
             + (moved_u - np.matmul(v, np.expand_dims(row, -1))[..., 0]) * inverse)
    return (np.expand_dims(u_dot, -1) * np.expand_dims(v[..., :, index], -2)
            + np.expand_dims(u[..., :, index], -1) * np.expand_dims(v_dot, -2))


def _nuclear_hessian_product(x, t):
    """d(u vᵀ) in the direction t (the polar factor; singular values nonzero): with
    R = uᵀ t v, u ((R - Rᵀ) / (s_i + s_j)) vᵀ + (1 - u uᵀ) t v s⁻¹ vᵀ + u s⁻¹ uᵀ t (1 - v vᵀ)
    (svd's tangent, numpy_linalg.py, where the 1 / (s_j² - s_i²) terms cancel)."""
    u, s, vh = _singular_pairs(x)
    v = matrix_transpose(vh)
    rotated = np.matmul(matrix_transpose(u), np.matmul(t, v))
    sums = _reciprocal(np.expand_dims(s, -1) + np.expand_dims(s, -2))
    inverse = _reciprocal(s)
    moved_v = np.matmul(t, v)
    moved_u = np.matmul(matrix_transpose(t), u)
    beside_u = moved_v - np.matmul(u, rotated)
    beside_v = moved_u - np.matmul(v, matrix_transpose(rotated))
    return (np.matmul(u, np.matmul((rotated - matrix_transpose(rotated)) * sums, vh))
            + np.matmul(beside_u * np.expand_dims(inverse, -2), vh)
            + np.matmul(u * np.expand_dims(inverse, -2), matrix_transpose(beside_v)))


def _matrix_norm_gradient(x, ord, t):
    """A matrix norm's gradient (``t`` None) or Hessian's product with t, the matrices the
    last two axes of x."""
    if ord in (1, -1, np.inf, -np.inf):
        if t is not None:
            return np.zeros(np.shape(x))
        summed = -2 if ord in (1, -1) else -1  # column sums (1) or row sums (inf)
        sums = np.sum(np.abs(x), axis=summed, keepdims=True)
        return _shared_extremes(x, sums, -1 if summed == -2 else -2, ord > 0)
    if ord == "nuc":
        if t is not None:
            return _nuclear_hessian_product(x, t)
        u, s, vh = _singular_pairs(x)
        return np.matmul(u, vh)
    index = 0 if ord == 2 else -1  # ord=-2: the smallest singular value
    if t is not None:
        return _spectral_hessian_product(x, t, index)
    u, s, vh = _singular_pairs(x)
    return _spectral_gradient(u, vh, index)


def _norm_derivative(x, ord, axis, t):
    axes = _norm_axes(x, ord, axis)
    if ord in (None, "fro") or axes is None:
        return _p_norm_gradient(x, 2, axes, t)
    x = np.asarray(x, dtype=float)
    if len(axes) == 2:
        moved = np.moveaxis(x, axes, (-2, -1))
        moved_t = None if t is None else np.moveaxis(t, axes, (-2, -1))
        return np.moveaxis(_matrix_norm_gradient(moved, ord, moved_t), (-2, -1), axes)
    if ord == 0 or ord in (1, np.inf, -np.inf) and t is not None:
        return np.zeros(np.shape(x))
    if ord == 1:
        return np.sign(x)
    if ord in (np.inf, -np.inf):
        return _shared_extremes(x, np.abs(x), axes, ord > 0)
    return _p_norm_gradient(x, float(ord), axes, t)


def norm_gradient(x, ord=None, axis=None):
    """The gradient of each norm np.linalg.norm(x, ord, axis) takes, shaped like x (its
    adjoint is g, expanded over the reduced axes, times this). What it is at kinks and
    ties: srcad/templates/numpy_reductions.py."""
    return _norm_derivative(x, ord, axis, None)


def norm_hessian_product(t, x, ord=None, axis=None):
    """The derivative of ``norm_gradient(x, ord, axis)`` in the direction t: the Hessian of
    each norm (symmetric: also the adjoint) applied to t's slices."""
    return _norm_derivative(x, ord, axis, np.asarray(t, dtype=float))


# ---- scipy.linalg's factorizations (srcad/templates/scipy_linalg.py)


def uplo(lower):
    """The triangle a factorization reads: "L" for lower=True, else "U"."""
    return "L" if lower else "U"


def lower_factor(c, lower):
    """A Cholesky factor as the lower one: ``c`` itself (``lower``) or each matrix
    transposed (an upper factor); its own inverse."""
    return c if lower else matrix_transpose(c)


def other_triangle(x, lower):
    """The strict triangle opposite the one a factorization with ``lower`` reads: what
    scipy.linalg.cho_factor leaves of its argument beside the factor."""
    return np.triu(x, 1) if lower else np.tril(x, -1)


def output_layout(condition, layout):
    """``layout`` when ``condition`` holds, else None (the whole tuple). A layout says which
    parts of a factorization's full result a call returns: None all (a tuple), an int k the
    part k alone (not in a tuple), a tuple of ints those parts (in a tuple)."""
    return layout if condition else None


def output_part(y, index, layout=None, like=None):
    """Part ``index`` of a factorization's full result, ``y`` returned in ``layout``
    (output_layout); zeros like ``like`` for a part the call does not return."""
    if layout is None:
        part = y[index]
    elif isinstance(layout, tuple):
        part = y[layout.index(index)] if index in layout else 0.0
    else:
        part = y if index == layout else 0.0
    if like is not None and np.ndim(part) == 0 and np.ndim(like) != 0:
        return np.zeros(np.shape(like))  # a zero adjoint, written as a scalar
    return part


def output_part_adjoint(g, y, index, layout=None, like=None):
    """The transpose of ``output_part`` in y: ``g`` at part ``index`` of y's layout."""
    if layout is None or isinstance(layout, tuple):
        count = len(y) if layout is None else len(layout)
        position = index if layout is None else (layout.index(index) if index in layout
                                                  else None)
        return Parts(g if i == position else 0.0 for i in range(count))
    return g if index == layout else np.zeros(np.shape(y))


def if_output(layout, index, term):
    """``term`` (an adjoint's term made from part ``index`` of a factorization's result) if
    the call returns that part in ``layout`` (output_layout), else zeros of its shape: the
    adjoint of a part not returned is zero, even where ``term`` is not finite (the gaps of
    repeated eigenvalues times that zero adjoint)."""
    if layout is None or (index in layout if isinstance(layout, tuple) else index == layout):
        return term
    return zeros_like(term)


def outputs(parts, layout=None):
    """A factorization's full result (or tangent) ``parts`` in ``layout`` (output_layout)."""
    if layout is None:
        return tuple(parts)
    if isinstance(layout, tuple):
        return tuple(parts[i] for i in layout)
    return parts[layout]


def rows_like(x, like):
    """``x`` with zero rows appended to ``like``'s number of rows (scipy.linalg.qr's r of
    mode 'r': zero rows below a tall matrix's k)."""
    missing = np.shape(like)[-2] - np.shape(x)[-2]
    if missing <= 0:
        return x
    zeros = np.zeros(np.shape(x)[:-2] + (missing, np.shape(x)[-1]))
    return np.concatenate([x, zeros], axis=-2)


def _band_diagonals(l_and_u, n):
    """(row of the band form, diagonal offset) for each stored diagonal of an n×n matrix."""
    lower, upper = l_and_u
    return [(row, upper - row) for row in range(lower + upper + 1) if abs(upper - row) < n]


def banded_dense(ab, l_and_u):
    """The n×n matrix scipy.linalg.solve_banded reads from its band form ``ab``
    (a[i, j] = ab[u + i - j, j]); ab's unused corners are not read."""
    n = np.shape(ab)[-1]
    dense = np.zeros((n, n), dtype=np.result_type(ab, 1.0))
    for row, rows, columns in _band_positions(l_and_u, n):
        dense[rows, columns] = ab[row, columns]
    return dense


def band_of(dense, l_and_u):
    """The band form (l + u + 1, n) of a matrix's band (corners zero): the transpose of
    ``banded_dense``."""
    n = np.shape(dense)[-1]
    lower, upper = l_and_u
    ab = np.zeros((lower + upper + 1, n), dtype=np.result_type(dense, 1.0))
    for row, rows, columns in _band_positions(l_and_u, n):
        ab[row, columns] = dense[rows, columns]
    return ab


def _band_positions(l_and_u, n):
    """(row of the band form, the matrix's rows, its columns) of each stored diagonal."""
    steps = np.arange(n)
    for row, offset in _band_diagonals(l_and_u, n):
        length = n - abs(offset)
        yield row, steps[:length] + max(-offset, 0), steps[:length] + max(offset, 0)
# ---- convolutions and correlations (srcad/templates/numpy_numerical.py, scipy_signal.py)
# A convolution's result in a mode is a window of its full result; its adjoint zero-pads
# g back to the full result's shape and correlates that with the other operand ('valid')

_NUMPY_MODES = {0: "valid", 1: "same", 2: "full"}


def _mode_name(mode):
    """NumPy's mode may be given by number (0 'valid', 1 'same', 2 'full')."""
    return _NUMPY_MODES.get(mode, mode) if not isinstance(mode, str) else mode


def _window_starts(shape1, shape2, mode, convention):
    """Per axis, where the result of a convolution of operands of shapes ``shape1`` and
    ``shape2`` in ``mode`` starts in their full convolution (for a correlation: in the full
    convolution with the second operand reversed). In 'valid' mode that is the smaller
    length less one, whichever operand it belongs to; in 'same' mode the libraries differ
    for even lengths:

    * "scipy" (scipy.signal.convolve, correlate, convolve2d): the result has in1's shape,
      centered: (m - 1) // 2, m the length of in2;
    * "correlate2d" (scipy.signal.correlate2d): m // 2;
    * "numpy.convolve": the result has the longer length, (shorter - 1) // 2;
    * "numpy.correlate": (m - 1) // 2 when a is the longer, n // 2 when v is (NumPy
      correlates v with a and reverses the result), n = len(a), m = len(v).
    """
    mode = _mode_name(mode)
    starts = []
    for n, m in zip(shape1, shape2):
        if mode == "full":
            starts.append(0)
        elif mode == "valid":
            starts.append(min(n, m) - 1)
        elif mode != "same":
            raise ValueError("unknown convolution mode %r" % (mode,))
        elif convention == "numpy.convolve":
            starts.append((min(n, m) - 1) // 2)
        elif convention == "numpy.correlate" and m > n:
            starts.append(n // 2)
        elif convention == "correlate2d":
            starts.append(m // 2)
        else:
            starts.append((m - 1) // 2)
    return starts


def convolution_padding(g, in1, in2, mode, convention):
    """The pad widths that put ``g``, the adjoint of a convolution's (or correlation's) result
    in ``mode``, in its place in the full result (zeros elsewhere): np.pad's pad_width.
    ``convention`` says where each library's 'same' window starts (_window_starts)."""
    shape1, shape2 = np.shape(in1) or (1,), np.shape(in2) or (1,)
    starts = _window_starts(shape1, shape2, mode, convention)
    return tuple((start, n + m - 1 - start - length) for start, n, m, length in zip(
        starts, shape1, shape2, np.shape(g) or (1,)))


# ---- polynomials, interpolation, quadrature (srcad/templates/numpy_numerical.py)


def polynomial_exponents(p):
    """The power of x each coefficient of ``np.polyval(p, x)`` multiplies: N - 1, ..., 1, 0."""
    if np.ndim(p) != 1:
        raise UnsupportedOperationError(
            "srcad differentiates np.polyval with a vector of coefficients only, not an "
            "array of shape %s" % (np.shape(p),), None,
            "Evaluate each polynomial separately, or write Horner's scheme out.")
    return np.arange(np.shape(p)[0] - 1, -1, -1, dtype=float)


def _interp_segments(x, knots):
    """For np.interp(x, knots, ...): the segment each x falls in (knots[j] <= x < knots[j + 1]), its
    width, x's place in it (0 to 1), and where x is inside a segment at all."""
    knots = np.asarray(knots, dtype=float)
    segment = np.searchsorted(knots, x, side="right") - 1
    inside = (segment >= 0) & (segment < knots.size - 1)
    segment = np.clip(segment, 0, max(knots.size - 2, 0))
    if knots.size < 2:
        return segment, np.ones(np.shape(segment)), np.zeros(np.shape(segment)), inside
    width = knots[segment + 1] - knots[segment]
    return segment, width, (x - knots[segment]) / width, inside


def _like_x(values, x):
    return np.float64(values) if np.ndim(x) == 0 else values


def interp_slope(x, knots, fp):
    """The slope of ``np.interp(x, knots, fp)`` at each x: its segment's, 0 outside knots's range.
    At a knot, the slope of the segment to its right (at the last knot, 0)."""
    segment, width, _, inside = _interp_segments(x, knots)
    fp = np.asarray(fp)
    if fp.size < 2:
        return _like_x(np.zeros(np.shape(segment)), x)
    return _like_x(np.where(inside, (fp[segment + 1] - fp[segment]) / width, 0.0), x)


def interp_slope_transpose(c, x, knots):
    """Adjoint of ``interp_slope(x, knots, fp)`` in fp: each c spread onto its segment's ends."""
    segment, width, _, inside = _interp_segments(x, knots)
    count = np.size(knots)
    share = np.ravel(np.broadcast_to(np.where(inside, c / width, 0.0), np.shape(segment)))
    flat = np.ravel(segment)
    if count < 2:
        return np.zeros(count)
    return (np.bincount(flat + 1, weights=share, minlength=count)
            - np.bincount(flat, weights=share, minlength=count))


def interp_linear(x, knots, f, left=None, right=None):
    """The part of ``np.interp(x, knots, fp, left, right)`` that is linear in fp (a left or
    right value given is a constant: 0 here)."""
    return np.interp(x, knots, f, left=None if left is None else 0.0,
                     right=None if right is None else 0.0)


def interp_transpose(c, x, knots, left=None, right=None):
    """Adjoint of ``np.interp(x, knots, fp, left, right)`` in fp: each c shared between the
    ends of its x's segment; beyond knots's range, to the end whose value np.interp returns
    (none when left, or right, is given; np.interp returns fp[-1] at x = knots[-1] always)."""
    segment, _, place, inside = _interp_segments(x, knots)
    count = np.size(knots)
    c = np.ravel(np.broadcast_to(c, np.shape(segment)))
    x = np.ravel(np.broadcast_to(x, np.shape(segment)))
    segment, place, inside = np.ravel(segment), np.ravel(place), np.ravel(inside)
    last = np.asarray(knots)[-1]
    first_weight = np.where(inside, 1.0 - place, 0.0)
    last_weight = np.where(inside, place, 0.0)
    result = (np.bincount(segment, weights=c * first_weight, minlength=count)
              + np.bincount(np.minimum(segment + 1, count - 1), weights=c * last_weight,
                            minlength=count))
    below = x < np.asarray(knots)[0]
    if left is None:
        result[0] += np.sum(c[below])
    at_or_above = ~inside & ~below & ((x == last) | (right is None))
    result[-1] += np.sum(c[at_or_above])
    return result


def _along_axis_shape(axis, ndim, length):
    """A shape of ``ndim`` dimensions, ``length`` along ``axis``, 1 elsewhere."""
    shape = [1] * ndim
    shape[axis] = length
    return tuple(shape)


def trapezoid_weights(x, dx, samples, axis=-1):
    """``np.trapezoid(samples, x, dx, axis)`` is ``np.sum(samples * w, axis)``: the weights
    w, half the widths of the intervals on each side of a sample (x's, or dx when x is
    None), broadcastable against samples. Linear in x."""
    ndim = max(np.ndim(samples), np.ndim(x) if x is not None else 0)
    if x is None or np.ndim(x) == 1:
        count = np.shape(samples)[axis] if x is None else np.shape(x)[0]
        widths = np.full(count - 1, dx, dtype=float) if x is None else np.diff(x)
        weights = 0.5 * (np.pad(widths, (0, 1)) + np.pad(widths, (1, 0)))
        return np.reshape(weights, _along_axis_shape(axis, ndim, count))
    widths = np.diff(x, axis=axis)
    before, after = [(0, 0)] * np.ndim(x), [(0, 0)] * np.ndim(x)
    before[axis], after[axis] = (1, 0), (0, 1)
    return 0.5 * (np.pad(widths, after) + np.pad(widths, before))


def trapezoid_weights_transpose(c, x, samples, axis=-1):
    """Adjoint of ``trapezoid_weights(x, dx, samples, axis)`` in x (not None), for ``c`` of
    the weights' shape or broadcast with samples'."""
    ndim = np.ndim(c)
    if np.ndim(x) == 1:
        c = np.sum(c, axis=tuple(a for a in range(ndim) if a != axis % ndim))
        axis = 0
    halves = 0.5 * (np.take(c, np.arange(np.shape(c)[axis] - 1), axis)
                    + np.take(c, np.arange(1, np.shape(c)[axis]), axis))
    before, after = [(0, 0)] * np.ndim(c), [(0, 0)] * np.ndim(c)
    before[axis], after[axis] = (1, 0), (0, 1)
    return unbroadcast(np.pad(halves, before) - np.pad(halves, after), x)


# ---- covariance and correlation (srcad/templates/numpy_numerical.py)


def cov_variables(m, rowvar=True):
    """The matrix np.cov and np.corrcoef read m as: one row per variable, one column per
    observation (m transposed when rowvar is False, unless it is a vector)."""
    variables = np.array(m, ndmin=2, dtype=np.result_type(m, np.float64))
    return variables if rowvar or np.ndim(m) == 1 else variables.T


def cov_variables_adjoint(cotangent, m, rowvar=True):
    """Adjoint of ``cov_variables(m, rowvar)``: a cotangent of its shape back to m's."""
    if not (rowvar or np.ndim(m) == 1):
        cotangent = np.transpose(cotangent)
    return np.reshape(cotangent, np.shape(m))


def cov_shape(variables):
    """The shape of the covariance matrix of ``variables`` (one row each), before NumPy
    squeezes it."""
    count = np.shape(variables)[0]
    return (count, count)


def cov_divisor(variables, bias=False, ddof=None):
    """np.cov's normalization: the number of observations less ddof (1 unless bias, when
    ddof is None)."""
    if ddof is None:
        ddof = 0 if bias else 1
    return np.shape(variables)[1] - ddof


def logspace_log_base(base, y, axis=0):
    """log(base) as np.logspace(start, stop, num, endpoint, base, dtype, axis) = y raises
    it, broadcastable against y (an array base gets the new axis, as NumPy does)."""
    log_base = np.log(base)
    if np.ndim(log_base) == 0:
        return log_base
    return np.expand_dims(np.array(log_base, ndmin=np.ndim(y) - 1), axis)


def valid_correlation(big, small):
    """``scipy.signal.correlate(big, small, 'valid')``, ``big`` at least as large as ``small``
    along every axis (srcad/templates/scipy_signal.py: a convolution's adjoint). When small
    is not tiny, by FFTs of big's size: the result is the start of the circular
    correlation, which does not wrap there. (SciPy's FFT method pads both to the sum of
    their sizes: 4 times the work in 2-D when both are large, as for a kernel's adjoint,
    and its direct method is slower still.)"""
    from scipy import fft, signal

    big, small = np.asarray(big), np.asarray(small)
    if small.size <= 64 or np.iscomplexobj(big) or np.iscomplexobj(small):
        return signal.correlate(big, small, "valid")
    sizes = [fft.next_fast_len(n, real=True) for n in big.shape]
    product = fft.rfftn(big, sizes) * np.conj(fft.rfftn(small, sizes))
    window = tuple(slice(0, b - s + 1) for b, s in zip(big.shape, small.shape))
    return fft.irfftn(product, sizes)[window]


def polyval_adjoint(g, x, like):
    """Adjoint of ``np.polyval(p, x)`` in p, of ``like``'s length N: the sums of g times
    x ** (N - 1), ..., x, 1, by N multiplications (no array of all the powers)."""
    count = polynomial_exponents(like).size  # and the check that like is a vector
    result = np.zeros(count)
    term = np.broadcast_to(g, np.broadcast_shapes(np.shape(g), np.shape(x)))
    for position in range(count - 1, -1, -1):
        result[position] = np.sum(term)
        if position:
            term = term * x
    return result


def item_index(x, args):
    """The index ``x.item(*args)`` reads, as a tuple (for its adjoint, rt.unindex)."""
    shape = np.shape(x)
    if not args:
        if np.size(x) != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return (0,) * len(shape)
    if len(args) == 1 and isinstance(args[0], tuple):
        return args[0]
    if len(args) == 1:
        return np.unravel_index(args[0] % max(np.size(x), 1), shape)
    return tuple(args)


def full_covariance(cov, size):
    """scipy.stats.multivariate_normal's covariance as a (size, size) matrix: a number times
    the identity, a vector on the diagonal, a matrix as it is."""
    if np.ndim(cov) == 0:
        return cov * np.eye(size)
    if np.ndim(cov) == 1:
        return np.diag(cov)
    return cov


def covariance_part(g, cov):
    """The transpose of ``full_covariance(cov, size)``: a matrix's adjoint ``g`` as cov's:
    its trace (a number), its diagonal (a vector), itself (a matrix)."""
    if np.ndim(cov) == 0:
        return np.trace(g)
    if np.ndim(cov) == 1:
        return np.diagonal(g).copy()
    return g


def simplex_point(x, alpha):
    """scipy.stats.dirichlet's x with all its components: as given, or, with one fewer than
    alpha has, completed by the last one (1 less the others' sum) as scipy does."""
    x = np.asarray(x)
    if x.ndim and x.shape[0] + 1 == np.size(alpha):
        return np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)], axis=0)
    return x


# ---- scipy.special (srcad/templates/scipy_special.py)


def _over_x(y, x, sign):
    """y / x for y = J1(x) (``sign`` -1) or I1(x) (+1), by the series 1/2 + sign x^2/16 +
    x^4/384 + sign x^6/18432 where |x| < 0.01 (exact in floats there; y / x is 0 / 0 at 0)."""
    x = np.asarray(x, dtype=np.result_type(x, 1.0))
    quotient = np.array(y / nonzero(x), dtype=x.dtype)
    near = np.abs(x) < 0.01
    if np.any(near):
        squared = x[near] * x[near]
        quotient[near] = 0.5 + squared * (sign * 0.0625 + squared * (
            1.0 / 384.0 + sign * squared / 18432.0))
    return quotient[()] if quotient.ndim == 0 else quotient  # (a NumPy scalar for a scalar)


def j1_over_x(y, x):
    """J1(x) / x, given y = scipy.special.j1(x): 1/2 at 0 (the series near 0)."""
    return _over_x(y, x, -1.0)


def i1_over_x(y, x):
    """I1(x) / x, given y = scipy.special.i1(x): 1/2 at 0 (the series near 0)."""
    return _over_x(y, x, 1.0)
