"""The arguments a derivative is called with: binding them, and checking they can be differentiated.

Every derivative srcad returns binds its arguments as the function would
(positionally or by keyword, defaults applied), so generated code, which
takes every parameter positionally, is called with all of them.

A value differentiated with respect to must be a number, a numeric array, or
a container of them: a string, a function, ``None`` or a bool has no
derivative, and differentiating with respect to one gives an error naming the
parameter and pointing at its definition, never a zero gradient or NumPy's
TypeError from deep inside generated code. Python ints are numbers (their
gradient is a float, as for any real argument).
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import NondifferentiableArgumentError, SrcadError
from .parse import read

_NUMERIC_DTYPE_KINDS = frozenset("iuf")


def bind(signature, args, kwargs) -> tuple:
    """All parameters' values for a call with ``args`` and ``kwargs``, defaults applied."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


def nondifferentiable(value) -> str | None:
    """What ``value`` is, if srcad cannot differentiate with respect to it; None if it can."""
    kind = type(value)
    if kind is float or kind is int:
        return None
    if kind is np.ndarray:
        if value.dtype.kind == "c":
            return "a complex array (srcad differentiates real-valued functions)"
        if value.dtype.kind in _NUMERIC_DTYPE_KINDS:
            return None
        return "an array of dtype %s" % value.dtype
    if isinstance(value, (complex, np.complexfloating)):
        return "a complex number (srcad differentiates real-valued functions)"
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return "a bool"
    if isinstance(value, (str, bytes)):
        return "a string"
    if isinstance(value, np.generic) and not isinstance(value, numbers.Number):
        return "a NumPy %s" % type(value).__name__
    if callable(value):
        return "a function (%s)" % getattr(value, "__qualname__", type(value).__name__)
    return None


def plainly_differentiable(value) -> bool:
    """A Python float or a numeric ndarray: what a call's arguments are checked for first (a
    derivative's call costs a few microseconds; ``nondifferentiable`` is for the rest)."""
    kind = type(value)
    return kind is float or (kind is np.ndarray and value.dtype.kind in _NUMERIC_DTYPE_KINDS)


def check(origin, names, values, what="differentiate with respect to") -> None:
    """Raise NondifferentiableArgumentError for the first of ``values`` that has no derivative.

    ``names`` are the parameters the values are bound to, declared by the
    user's function ``origin`` (the error points at its parameter).
    """
    for name, value in zip(names, values):
        described = nondifferentiable(value)
        if described is not None:
            raise NondifferentiableArgumentError(
                "cannot %s parameter %r: its argument is %s, not a number or a numeric array"
                % (what, name, described), _parameter_location(origin, name),
                "Leave %r out of wrt (it is then held constant), or pass a number or an array."
                % name)


def _parameter_location(function, name):
    try:
        parsed = read(function)
    except SrcadError:  # no source to point at: the message still names the parameter
        return None
    for arg in parsed.tree.args.args:
        if arg.id == name:
            return parsed.location(arg)
    return parsed.location(parsed.tree)
