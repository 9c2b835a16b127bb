"""NumPy's elementwise functions of one argument (and a few of two)."""

import builtins

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import (adjoint, d, facts, nondifferentiable, shape_rule, stop_gradient,
                            tangent)


@adjoint(np.sin)
def sin(y, x):
    d[x] += d[y] * np.cos(x)


@tangent(np.sin)
def sin(y, x):  # noqa: F811
    d[y] = d[x] * np.cos(x)


@adjoint(np.cos)
def cos(y, x):
    d[x] -= d[y] * np.sin(x)


@tangent(np.cos)
def cos(y, x):  # noqa: F811
    d[y] = -d[x] * np.sin(x)


@adjoint(np.tan)
def tan(y, x):
    d[x] += d[y] * (1.0 + y * y)


@tangent(np.tan)
def tan(y, x):  # noqa: F811
    d[y] = d[x] * (1.0 + y * y)


@adjoint(np.arcsin)
def arcsin(y, x):
    d[x] += d[y] / np.sqrt(1.0 - x * x)


@tangent(np.arcsin)
def arcsin(y, x):  # noqa: F811
    d[y] = d[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arccos)
def arccos(y, x):
    d[x] -= d[y] / np.sqrt(1.0 - x * x)


@tangent(np.arccos)
def arccos(y, x):  # noqa: F811
    d[y] = -d[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arctan)
def arctan(y, x):
    d[x] += d[y] / (1.0 + x * x)


@tangent(np.arctan)
def arctan(y, x):  # noqa: F811
    d[y] = d[x] / (1.0 + x * x)


@adjoint(np.sinh)
def sinh(y, x):
    d[x] += d[y] * np.cosh(x)


@tangent(np.sinh)
def sinh(y, x):  # noqa: F811
    d[y] = d[x] * np.cosh(x)


@adjoint(np.cosh)
def cosh(y, x):
    d[x] += d[y] * np.sinh(x)


@tangent(np.cosh)
def cosh(y, x):  # noqa: F811
    d[y] = d[x] * np.sinh(x)


@adjoint(np.tanh)
def tanh(y, x):
    d[x] += d[y] * (1.0 - y * y)


@tangent(np.tanh)
def tanh(y, x):  # noqa: F811
    d[y] = d[x] * (1.0 - y * y)


@adjoint(np.arcsinh)
def arcsinh(y, x):
    d[x] += d[y] / np.sqrt(x * x + 1.0)


@tangent(np.arcsinh)
def arcsinh(y, x):  # noqa: F811
    d[y] = d[x] / np.sqrt(x * x + 1.0)


@adjoint(np.arccosh)
def arccosh(y, x):
    d[x] += d[y] / np.sqrt(x * x - 1.0)


@tangent(np.arccosh)
def arccosh(y, x):  # noqa: F811
    d[y] = d[x] / np.sqrt(x * x - 1.0)


@adjoint(np.arctanh)
def arctanh(y, x):
    d[x] += d[y] / (1.0 - x * x)


@tangent(np.arctanh)
def arctanh(y, x):  # noqa: F811
    d[y] = d[x] / (1.0 - x * x)


@adjoint(np.exp)
def exp(y, x):
    d[x] += d[y] * y


@tangent(np.exp)
def exp(y, x):  # noqa: F811
    d[y] = d[x] * y


@adjoint(np.exp2)
def exp2(y, x):
    d[x] += d[y] * y * np.log(2.0)


@tangent(np.exp2)
def exp2(y, x):  # noqa: F811
    d[y] = d[x] * y * np.log(2.0)


@adjoint(np.expm1)
def expm1(y, x):
    d[x] += d[y] * (y + 1.0)


@tangent(np.expm1)
def expm1(y, x):  # noqa: F811
    d[y] = d[x] * (y + 1.0)


@adjoint(np.log)
def log(y, x):
    d[x] += d[y] / x


@tangent(np.log)
def log(y, x):  # noqa: F811
    d[y] = d[x] / x


@adjoint(np.log2)
def log2(y, x):
    d[x] += d[y] / (x * np.log(2.0))


@tangent(np.log2)
def log2(y, x):  # noqa: F811
    d[y] = d[x] / (x * np.log(2.0))


@adjoint(np.log10)
def log10(y, x):
    d[x] += d[y] / (x * np.log(10.0))


@tangent(np.log10)
def log10(y, x):  # noqa: F811
    d[y] = d[x] / (x * np.log(10.0))


@adjoint(np.log1p)
def log1p(y, x):
    d[x] += d[y] / (1.0 + x)


@tangent(np.log1p)
def log1p(y, x):  # noqa: F811
    d[y] = d[x] / (1.0 + x)


@adjoint(np.sqrt)
def sqrt(y, x):
    d[x] += d[y] * 0.5 / y


@tangent(np.sqrt)
def sqrt(y, x):  # noqa: F811
    d[y] = d[x] * 0.5 / y


@adjoint(np.cbrt)
def cbrt(y, x):
    d[x] += d[y] / (3.0 * y * y)


@tangent(np.cbrt)
def cbrt(y, x):  # noqa: F811
    d[y] = d[x] / (3.0 * y * y)


@adjoint(np.square)
def square(y, x):
    d[x] += d[y] * 2.0 * x


@tangent(np.square)
def square(y, x):  # noqa: F811
    d[y] = d[x] * 2.0 * x


@adjoint(np.reciprocal)
def reciprocal(y, x):
    d[x] -= d[y] * y * y


@tangent(np.reciprocal)
def reciprocal(y, x):  # noqa: F811
    d[y] = -d[x] * y * y


@adjoint(np.abs, np.absolute, np.fabs, builtins.abs)
def absolute(y, x):
    d[x] += d[y] * np.sign(x)


@tangent(np.abs, np.absolute, np.fabs, builtins.abs)
def absolute(y, x):  # noqa: F811
    d[y] = d[x] * np.sign(x)


@adjoint(np.arctan2)
def arctan2(z, y, x):
    d[y] += rt.unbroadcast(d[z] * x / (x * x + y * y), y)
    d[x] -= rt.unbroadcast(d[z] * y / (x * x + y * y), x)


@tangent(np.arctan2)
def arctan2(z, y, x):  # noqa: F811
    d[z] = (d[y] * x - d[x] * y) / (x * x + y * y)


@adjoint(np.hypot)
def hypot(z, x, y):
    d[x] += rt.unbroadcast(d[z] * x / z, x)
    d[y] += rt.unbroadcast(d[z] * y / z, y)


@tangent(np.hypot)
def hypot(z, x, y):  # noqa: F811
    d[z] = (d[x] * x + d[y] * y) / z


@adjoint(np.maximum)
def maximum(z, x, y):
    d[x] += rt.unbroadcast(d[z] * (x >= y), x)
    d[y] += rt.unbroadcast(d[z] * (x < y), y)


@tangent(np.maximum)
def maximum(z, x, y):  # noqa: F811
    d[z] = np.where(x >= y, d[x], d[y])


@adjoint(np.minimum)
def minimum(z, x, y):
    d[x] += rt.unbroadcast(d[z] * (x <= y), x)
    d[y] += rt.unbroadcast(d[z] * (x > y), y)


@tangent(np.minimum)
def minimum(z, x, y):  # noqa: F811
    d[z] = np.where(x <= y, d[x], d[y])


@adjoint(builtins.float)
def to_float(y, x):
    d[x] += d[y]


@tangent(builtins.float)
def to_float(y, x):  # noqa: F811
    d[y] = d[x]


shape_rule(shapes.elementwise, np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan,
           np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh, np.arctanh, np.exp, np.exp2,
           np.expm1, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.cbrt, np.square,
           np.reciprocal, np.abs, np.absolute, np.fabs, np.arctan2, np.hypot, np.maximum,
           np.minimum, np.sign, np.floor, np.ceil, np.round, np.where, np.logical_and,
           np.logical_or, np.logical_not, np.isnan, np.isfinite, np.isinf)
shape_rule(shapes.operator_elementwise, builtins.abs)
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
