"""Elementwise functions: NumPy's, and the math module's twins from the same entries.

``elementwise(np.sin, math.sin, derivative="g * xp.cos(x)")`` gives both their
adjoint ``d[x] += d[y] * np.cos(x)`` (``math.cos`` for math.sin) and tangent
``d[y] = d[x] * np.cos(x)``, and a shape rule (srcad/vocabulary.py).
"""

import builtins
import math

import numpy as np

from srcad.analysis import shapes
from srcad.registry import facts, nondifferentiable, shape_rule, stop_gradient
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
    """np.zeros_like(x) and its twins: an array of x's shape (unless given another)."""
    x = shapes.plain(x)
    return x if isinstance(x, shapes.Array) and "shape" not in kwargs else shapes.UNKNOWN


shape_rule(_filled_array, np.zeros, np.ones, np.empty)
shape_rule(_array_like, np.zeros_like, np.ones_like, np.empty_like)
