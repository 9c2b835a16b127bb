"""Elementwise functions: NumPy's, and the math module's twins from the same entries.

``elementwise(np.sin, math.sin, derivative="g * xp.cos(x)")`` gives both their
adjoint ``d[x] += d[y] * np.cos(x)`` (``math.cos`` for math.sin) and tangent
``d[y] = d[x] * np.cos(x)``, and a shape rule (srcad/vocabulary.py).
"""

import builtins
import math

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, d, facts, nondifferentiable, shape_rule, stop_gradient, tangent
from srcad.vocabulary import binary, elementwise, linear

elementwise(np.sin, math.sin, derivative="g * xp.cos(x)")
elementwise(np.cos, math.cos, derivative="-g * xp.sin(x)")
elementwise(np.tan, math.tan, derivative="g * (1.0 + y * y)")
elementwise(np.arcsin, math.asin, derivative="g / xp.sqrt(1.0 - x * x)")
elementwise(np.arccos, math.acos, derivative="-g / xp.sqrt(1.0 - x * x)")
elementwise(np.arctan, math.atan, derivative="g / (1.0 + x * x)")
elementwise(np.sinh, math.sinh, derivative="g * xp.cosh(x)")
elementwise(np.cosh, math.cosh, derivative="g * xp.sinh(x)")
elementwise(np.tanh, math.tanh, derivative="g * (1.0 - y * y)")
elementwise(np.arcsinh, math.asinh, derivative="g / xp.sqrt(x * x + 1.0)")
elementwise(np.arccosh, math.acosh, derivative="g / xp.sqrt(x * x - 1.0)")
elementwise(np.arctanh, math.atanh, derivative="g / (1.0 - x * x)")
elementwise(np.exp, math.exp, derivative="g * y")
elementwise(np.exp2, derivative="g * y * np.log(2.0)")
elementwise(np.expm1, math.expm1, derivative="g * (y + 1.0)")
elementwise(np.log, derivative="g / x")  # math.log(x, base): math_module.py
elementwise(np.log2, math.log2, derivative="g / (x * xp.log(2.0))")
elementwise(np.log10, math.log10, derivative="g / (x * xp.log(10.0))")
elementwise(np.log1p, math.log1p, derivative="g / (1.0 + x)")
elementwise(np.sqrt, math.sqrt, derivative="g * 0.5 / y")
elementwise(np.cbrt, derivative="g / (3.0 * y * y)")
elementwise(np.square, derivative="g * 2.0 * x")
elementwise(np.reciprocal, derivative="-g * y * y")
elementwise(np.abs, np.absolute, np.fabs, derivative="g * np.sign(x)")
elementwise(builtins.abs, derivative="g * np.sign(x)", shape=shapes.operator_elementwise)

binary(np.arctan2, math.atan2, dx="g * y / (y * y + x * x)", dy="-g * x / (y * y + x * x)",
       tangent="(d[x] * y - d[y] * x) / (y * y + x * x)", shape=shapes.elementwise)
binary(np.hypot, math.hypot, dx="g * x / z", dy="g * y / z",
       tangent="(d[x] * x + d[y] * y) / z", shape=shapes.elementwise)
binary(np.maximum, dx="g * (x >= y)", dy="g * (x < y)", tangent="np.where(x >= y, d[x], d[y])",
       shape=shapes.elementwise)
binary(np.minimum, dx="g * (x <= y)", dy="g * (x > y)", tangent="np.where(x <= y, d[x], d[y])",
       shape=shapes.elementwise)


# logaddexp(x, y) = z: each share exp(x - z) is at most 1, so large inputs never overflow
binary(np.logaddexp, dx="g * np.exp(x - z)", dy="g * np.exp(y - z)", shape=shapes.elementwise)
binary(np.logaddexp2, dx="g * np.exp2(x - z)", dy="g * np.exp2(y - z)",
       shape=shapes.elementwise)
# fmax and fmin ignore a nan operand: the other one gets the derivative (both when both are
# nan); at a tie, as np.maximum and np.minimum, x gets it
binary(np.fmax, dx="g * ((x >= y) | np.isnan(y))", dy="g * ((x < y) | np.isnan(x))",
       tangent="np.where((x >= y) | np.isnan(y), d[x], d[y])", shape=shapes.elementwise)
binary(np.fmin, dx="g * ((x <= y) | np.isnan(y))", dy="g * ((x > y) | np.isnan(x))",
       tangent="np.where((x <= y) | np.isnan(y), d[x], d[y])", shape=shapes.elementwise)
# fmod(x, y) = x - trunc(x / y) * y (the sign of x); at the jumps, where x / y is an
# integer, the derivative in y is the one from the right of the quotient's step
binary(np.fmod, dx="g", dy="-g * np.trunc(x / y)",
       tangent="rt.match_tangent(d[x], z) - d[y] * np.trunc(x / y)", shape=shapes.elementwise)
# heaviside(x, h) is 0, 1, or h where x == 0: only that h carries a derivative
binary(np.heaviside, dx="0.0 * g", dy="g * (x == 0)", tangent="d[y] * (x == 0)",
       shape=shapes.elementwise)
elementwise(np.rad2deg, np.degrees, derivative="g * 57.29577951308232")  # 180 / pi
elementwise(np.deg2rad, np.radians, derivative="g * 0.017453292519943295")  # pi / 180
# sinc(x) = sin(pi x) / (pi x): (cos(pi x) - sinc(x)) / x cancels near 0, where its Taylor
# series (to x^5, exact to 1e-15 below 0.01) takes over; both are differentiated again for
# second order (-pi^2 / 3 at 0)
elementwise(np.sinc, derivative="g * np.where(np.abs(x) < 0.01, x * (x * x * (3.246969701133414"
            " - x * x * 1.144510944732505) - 3.289868133696453),"
            " (np.cos(3.141592653589793 * x) - y) / rt.nonzero(x))")
# on real input (srcad differentiates real functions): real and conj are the identity,
# imag is 0
elementwise(np.real, np.conj, np.conjugate, np.ndarray.real, np.ndarray.conj,
            np.ndarray.conjugate, derivative="g")
elementwise(np.imag, np.ndarray.imag, derivative="0.0 * g")


def _part_of_number(x, *rest, **kwargs):
    """np.real(x), x.conj() ...: of a scalar, the scalar's own attribute (0.5.real is a Python
    float, True.real an int: no NumPy scalar); of an array, an array like it."""
    x = shapes.plain(x)
    if isinstance(x, shapes.Scalar):
        return shapes.Scalar("int") if x.kind == "bool" else x
    return shapes.elementwise(x)


shape_rule(_part_of_number, np.real, np.imag, np.ndarray.real, np.ndarray.imag,
           np.ndarray.conj, np.ndarray.conjugate)


# where(condition, x, y): each element from x or y; the condition carries no derivative
@adjoint(np.where)
def where(z, condition, x, y):
    d[x] += rt.unbroadcast(np.where(condition, d[z], 0.0), x)
    d[y] += rt.unbroadcast(np.where(condition, 0.0, d[z]), y)


@tangent(np.where)
def where(z, condition, x, y):  # noqa: F811
    d[z] = rt.match_tangent(np.where(condition, d[x], d[y]), z)


# clip(x, low, high) = minimum(maximum(x, low), high), as NumPy computes it: x where it is inside
# [low, high] (at a bound too: x gets the derivative there), the bound it is beyond outside;
# when low > high the result is high everywhere (x and low get nothing). A bound that is None
# is a constant. Each tangent term has y's shape on its own (optimize/simplify_zeros drops
# the zero ones).
@adjoint(np.clip)
def clip(y, x, a_min=None, a_max=None):
    d[x] += rt.unbroadcast(d[y] * (y == x), x)
    d[a_min] += rt.unbroadcast(d[y] * ((x < a_min) & (y == a_min)), a_min)
    d[a_max] += rt.unbroadcast(d[y] * rt.clipped_to_max(x, a_min, a_max), a_max)


@tangent(np.clip)
def clip(y, x, a_min=None, a_max=None):  # noqa: F811
    d[y] = (rt.match_tangent(d[x] * (y == x), y)
            + rt.match_tangent(d[a_min] * ((x < a_min) & (y == a_min)), y)
            + rt.match_tangent(d[a_max] * rt.clipped_to_max(x, a_min, a_max), y))


@adjoint(np.ndarray.clip)
def clip_method(y, x, min=None, max=None):  # noqa: A002 - NumPy's parameter names
    d[x] += rt.unbroadcast(d[y] * (y == x), x)
    d[min] += rt.unbroadcast(d[y] * ((x < min) & (y == min)), min)
    d[max] += rt.unbroadcast(d[y] * rt.clipped_to_max(x, min, max), max)


@tangent(np.ndarray.clip)
def clip_method(y, x, min=None, max=None):  # noqa: A002, F811
    d[y] = (rt.match_tangent(d[x] * (y == x), y)
            + rt.match_tangent(d[min] * ((x < min) & (y == min)), y)
            + rt.match_tangent(d[max] * rt.clipped_to_max(x, min, max), y))


def _clip_shape(x, *bounds, **kwargs):
    """The broadcast of x and the bounds given (None is no bound)."""
    given = [b for b in list(bounds) + list(kwargs.values())
             if not (isinstance(b, shapes.Known) and b.value is None)]
    return shapes.elementwise(x, *given)


# nan_to_num: the finite elements pass through, the replaced ones are constants
@adjoint(np.nan_to_num)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[x] += d[y] * np.isfinite(x)


@tangent(np.nan_to_num)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):  # noqa: F811
    d[y] = d[x] * np.isfinite(x)


# copysign(x, y) = |x| with y's sign: derivative sign(x) sign(y) in x (signed zeros
# included: 1 at x = +0.0), 0 in y (where it exists)
@adjoint(np.copysign)
def copysign(z, x, y):
    d[x] += rt.unbroadcast(d[z] * np.copysign(1.0, x) * np.copysign(1.0, y), x)


@tangent(np.copysign)
def copysign(z, x, y):  # noqa: F811
    d[z] = rt.match_tangent(d[x] * np.copysign(1.0, x) * np.copysign(1.0, y), z)


# ldexp(x, i) = x * 2 ** i for integers i (no derivative)
@adjoint(np.ldexp)
def ldexp(z, x, i):
    d[x] += rt.unbroadcast(np.ldexp(d[z], i), x)


@tangent(np.ldexp)
def ldexp(z, x, i):  # noqa: F811
    d[z] = rt.match_tangent(np.ldexp(d[x], i), z)


# float_power: np.power's derivatives (in float64)
binary(np.float_power, dx="g * rt.power_derivative(x, y, 1)",
       dy="rt.times_log_of_base(g * z, x)", shape=shapes.elementwise)

shape_rule(_clip_shape, np.clip, np.ndarray.clip)
shape_rule(shapes.elementwise, np.nan_to_num, np.copysign, np.ldexp)
facts(np.clip, np.ndarray.clip, np.nan_to_num, allocating=True)


linear(builtins.float, parameters="y, x", transpose="g", tangent="d[x]")


shape_rule(shapes.elementwise, np.sign, np.floor, np.ceil, np.round, np.where, np.logical_and,
           np.logical_or, np.logical_not, np.isnan, np.isfinite, np.isinf)
shape_rule(shapes.shape_of, np.ndarray.shape, np.shape)
shape_rule(shapes.integer, np.ndarray.ndim, np.ndarray.size, np.ndim, np.size, builtins.len,
           builtins.int)
shape_rule(shapes.python_float, builtins.float)

nondifferentiable(
    np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, np.isnan, np.isfinite, np.isinf,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor, np.greater, np.less,
    np.greater_equal, np.less_equal, np.equal, np.not_equal, np.zeros_like, np.ones_like,
    np.empty_like, np.zeros, np.ones, np.empty, np.eye,
    np.identity, np.argmax, np.argmin, np.argsort, np.shape, np.ndim, np.size,
    np.ndarray.shape, np.ndarray.ndim, np.ndarray.size, np.ndarray.dtype, np.ndarray.argmax,
    np.ndarray.argmin, np.ndarray.argsort, builtins.len, builtins.range, builtins.int,
    builtins.bool, builtins.round, builtins.isinstance, builtins.type, stop_gradient,
)

# fresh arrays (ufuncs are known to allocate without being listed)
facts(np.zeros, np.zeros_like, np.ones_like, np.where, allocating=True)


def _filled_array(shape, *rest, **kwargs):
    """np.zeros(shape), np.ones(shape), np.empty(shape): an array of that shape, its
    size-1 axes known when the shape is a constant."""
    value = shape.value if isinstance(shape, shapes.Known) else None
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    if isinstance(value, tuple) and all(
            isinstance(n, int) and not isinstance(n, bool) for n in value):
        return shapes.Array(tuple(n == 1 for n in value))
    return shapes.UNKNOWN


def _array_like(x, *rest, **kwargs):
    """np.zeros_like(x) and its twins: an array of x's shape (unless given another); of a
    scalar, a 0-d array."""
    x = shapes.plain(x)
    if "shape" in kwargs:
        return shapes.UNKNOWN
    if isinstance(x, shapes.Scalar):
        return shapes.Array(())
    return x if isinstance(x, shapes.Array) else shapes.UNKNOWN


shape_rule(_filled_array, np.zeros, np.ones, np.empty)
shape_rule(_array_like, np.zeros_like, np.ones_like, np.empty_like)


def _size(n):
    """Whether an int argument (a constant, or one of an array's sizes) is 1, or UNKNOWN."""
    if isinstance(n, shapes.Known) and type(n.value) is int:
        return n.value == 1
    if isinstance(n, shapes.Dimension) and n.one is not None:
        return n.one
    return shapes.UNKNOWN


def _eye_shape(n, m=shapes.Known(None), *rest, **kwargs):
    """np.eye(n, m=None, ...): an n x m (n x n) matrix."""
    m = kwargs.get("M", m)
    rows = _size(n)
    columns = rows if m == shapes.Known(None) else _size(m)
    if shapes.UNKNOWN in (rows, columns):
        return shapes.UNKNOWN
    return shapes.Array((rows, columns))


shape_rule(_eye_shape, np.eye)
