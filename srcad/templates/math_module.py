"""The math module's differentiable functions (Python floats in, Python floats out)."""

import math

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, d, nondifferentiable, shape_rule, tangent


@adjoint(math.sin)
def sin(y, x):
    d[x] += d[y] * math.cos(x)


@tangent(math.sin)
def sin(y, x):  # noqa: F811
    d[y] = d[x] * math.cos(x)


@adjoint(math.cos)
def cos(y, x):
    d[x] -= d[y] * math.sin(x)


@tangent(math.cos)
def cos(y, x):  # noqa: F811
    d[y] = -d[x] * math.sin(x)


@adjoint(math.tan)
def tan(y, x):
    d[x] += d[y] * (1.0 + y * y)


@tangent(math.tan)
def tan(y, x):  # noqa: F811
    d[y] = d[x] * (1.0 + y * y)


@adjoint(math.asin)
def asin(y, x):
    d[x] += d[y] / math.sqrt(1.0 - x * x)


@tangent(math.asin)
def asin(y, x):  # noqa: F811
    d[y] = d[x] / math.sqrt(1.0 - x * x)


@adjoint(math.acos)
def acos(y, x):
    d[x] -= d[y] / math.sqrt(1.0 - x * x)


@tangent(math.acos)
def acos(y, x):  # noqa: F811
    d[y] = -d[x] / math.sqrt(1.0 - x * x)


@adjoint(math.atan)
def atan(y, x):
    d[x] += d[y] / (1.0 + x * x)


@tangent(math.atan)
def atan(y, x):  # noqa: F811
    d[y] = d[x] / (1.0 + x * x)


@adjoint(math.atan2)
def atan2(z, y, x):
    d[y] += d[z] * x / (x * x + y * y)
    d[x] -= d[z] * y / (x * x + y * y)


@tangent(math.atan2)
def atan2(z, y, x):  # noqa: F811
    d[z] = (d[y] * x - d[x] * y) / (x * x + y * y)


@adjoint(math.sinh)
def sinh(y, x):
    d[x] += d[y] * math.cosh(x)


@tangent(math.sinh)
def sinh(y, x):  # noqa: F811
    d[y] = d[x] * math.cosh(x)


@adjoint(math.cosh)
def cosh(y, x):
    d[x] += d[y] * math.sinh(x)


@tangent(math.cosh)
def cosh(y, x):  # noqa: F811
    d[y] = d[x] * math.sinh(x)


@adjoint(math.tanh)
def tanh(y, x):
    d[x] += d[y] * (1.0 - y * y)


@tangent(math.tanh)
def tanh(y, x):  # noqa: F811
    d[y] = d[x] * (1.0 - y * y)


@adjoint(math.asinh)
def asinh(y, x):
    d[x] += d[y] / math.sqrt(x * x + 1.0)


@tangent(math.asinh)
def asinh(y, x):  # noqa: F811
    d[y] = d[x] / math.sqrt(x * x + 1.0)


@adjoint(math.acosh)
def acosh(y, x):
    d[x] += d[y] / math.sqrt(x * x - 1.0)


@tangent(math.acosh)
def acosh(y, x):  # noqa: F811
    d[y] = d[x] / math.sqrt(x * x - 1.0)


@adjoint(math.atanh)
def atanh(y, x):
    d[x] += d[y] / (1.0 - x * x)


@tangent(math.atanh)
def atanh(y, x):  # noqa: F811
    d[y] = d[x] / (1.0 - x * x)


@adjoint(math.exp)
def exp(y, x):
    d[x] += d[y] * y


@tangent(math.exp)
def exp(y, x):  # noqa: F811
    d[y] = d[x] * y


@adjoint(math.expm1)
def expm1(y, x):
    d[x] += d[y] * (y + 1.0)


@tangent(math.expm1)
def expm1(y, x):  # noqa: F811
    d[y] = d[x] * (y + 1.0)


@adjoint(math.log)
def log(y, x, base=math.e):
    d[x] += d[y] / (x * math.log(base))
    d[base] -= d[y] * y / (base * math.log(base))


@tangent(math.log)
def log(y, x, base=math.e):  # noqa: F811
    d[y] = d[x] / (x * math.log(base)) - d[base] * y / (base * math.log(base))


@adjoint(math.log2)
def log2(y, x):
    d[x] += d[y] / (x * math.log(2.0))


@tangent(math.log2)
def log2(y, x):  # noqa: F811
    d[y] = d[x] / (x * math.log(2.0))


@adjoint(math.log10)
def log10(y, x):
    d[x] += d[y] / (x * math.log(10.0))


@tangent(math.log10)
def log10(y, x):  # noqa: F811
    d[y] = d[x] / (x * math.log(10.0))


@adjoint(math.log1p)
def log1p(y, x):
    d[x] += d[y] / (1.0 + x)


@tangent(math.log1p)
def log1p(y, x):  # noqa: F811
    d[y] = d[x] / (1.0 + x)


@adjoint(math.sqrt)
def sqrt(y, x):
    d[x] += d[y] * 0.5 / y


@tangent(math.sqrt)
def sqrt(y, x):  # noqa: F811
    d[y] = d[x] * 0.5 / y


@adjoint(math.pow)
def pow(z, x, y):
    d[x] += d[z] * rt.power_derivative(x, y, 1)
    d[y] += d[z] * z * rt.log_of_base(x)


@tangent(math.pow)
def pow(z, x, y):  # noqa: F811
    d[z] = d[x] * rt.power_derivative(x, y, 1) + d[y] * z * rt.log_of_base(x)


@adjoint(math.hypot)
def hypot(z, x, y):
    d[x] += d[z] * x / z
    d[y] += d[z] * y / z


@tangent(math.hypot)
def hypot(z, x, y):  # noqa: F811
    d[z] = (d[x] * x + d[y] * y) / z


@adjoint(math.fabs)
def fabs(y, x):
    d[x] += d[y] * math.copysign(1.0, x)


@tangent(math.fabs)
def fabs(y, x):  # noqa: F811
    d[y] = d[x] * math.copysign(1.0, x)


@adjoint(math.erf)
def erf(y, x):
    d[x] += d[y] * 1.1283791670955126 * math.exp(-x * x)


@tangent(math.erf)
def erf(y, x):  # noqa: F811
    d[y] = d[x] * 1.1283791670955126 * math.exp(-x * x)


@adjoint(math.erfc)
def erfc(y, x):
    d[x] -= d[y] * 1.1283791670955126 * math.exp(-x * x)


@tangent(math.erfc)
def erfc(y, x):  # noqa: F811
    d[y] = -d[x] * 1.1283791670955126 * math.exp(-x * x)


@adjoint(math.degrees)
def degrees(y, x):
    d[x] += d[y] * 57.29577951308232


@tangent(math.degrees)
def degrees(y, x):  # noqa: F811
    d[y] = d[x] * 57.29577951308232


@adjoint(math.radians)
def radians(y, x):
    d[x] += d[y] * 0.017453292519943295


@tangent(math.radians)
def radians(y, x):  # noqa: F811
    d[y] = d[x] * 0.017453292519943295


shape_rule(shapes.python_float, math.sin, math.cos, math.tan, math.asin, math.acos, math.atan,
           math.atan2, math.sinh, math.cosh, math.tanh, math.asinh, math.acosh, math.atanh,
           math.exp, math.expm1, math.log, math.log2, math.log10, math.log1p, math.sqrt,
           math.pow, math.hypot, math.fabs, math.erf, math.erfc, math.degrees, math.radians,
           math.copysign, math.floor, math.ceil)

# |x| with the sign of y: differentiable in x (its derivative in y is 0 but at y = 0)
@adjoint(math.copysign)
def copysign(z, x, y):
    d[x] += d[z] * math.copysign(1.0, x) * math.copysign(1.0, y)


@tangent(math.copysign)
def copysign(z, x, y):  # noqa: F811
    d[z] = d[x] * math.copysign(1.0, x) * math.copysign(1.0, y)


# piecewise constant (derivative 0 wherever it exists) or integer-valued
nondifferentiable(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
                  math.factorial, math.gcd, math.comb, math.perm)
