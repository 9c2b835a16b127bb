"""The math module's functions without a NumPy twin (Python floats in, Python floats out).

math.sin, math.exp and the others that share NumPy's derivatives are declared
with them in numpy_elementwise.py; math.pow with ``**`` in operators.py.
"""

import math

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, d, nondifferentiable, shape_rule, tangent
from srcad.vocabulary import elementwise

elementwise(math.fabs, derivative="g * math.copysign(1.0, x)")
elementwise(math.erf, derivative="g * 1.1283791670955126 * math.exp(-x * x)")  # 2 / sqrt(pi)
elementwise(math.erfc, derivative="-g * 1.1283791670955126 * math.exp(-x * x)")
elementwise(math.degrees, derivative="g * 57.29577951308232")
elementwise(math.radians, derivative="g * 0.017453292519943295")
# lgamma's derivative is digamma, gamma's gamma * digamma (rt.math_polygamma: no SciPy needed)
elementwise(math.lgamma, derivative="g * rt.math_polygamma(0, x)")
elementwise(math.gamma, derivative="g * y * rt.math_polygamma(0, x)")


@adjoint(math.log)
def log(y, x, base=math.e):
    d[x] += d[y] / (x * math.log(base))
    d[base] -= d[y] * y / (base * math.log(base))


@tangent(math.log)
def log(y, x, base=math.e):  # noqa: F811
    d[y] = d[x] / (x * math.log(base)) - d[base] * y / (base * math.log(base))


# |x| with the sign of y: differentiable in x (its derivative in y is 0 but at y = 0)
@adjoint(math.copysign)
def copysign(z, x, y):
    d[x] += d[z] * math.copysign(1.0, x) * math.copysign(1.0, y)


@tangent(math.copysign)
def copysign(z, x, y):  # noqa: F811
    d[z] = d[x] * math.copysign(1.0, x) * math.copysign(1.0, y)


# fsum(items): an exactly rounded sum, the derivative of a sum
@adjoint(math.fsum)
def fsum(y, items):
    d[items] += rt.sum_adjoint(d[y], items)


@tangent(math.fsum)
def fsum(y, items):  # noqa: F811
    d[y] = float(rt.sum_tangent(d[items], items))


shape_rule(shapes.python_float, math.log, math.copysign, math.floor, math.ceil, math.fsum)

# piecewise constant (derivative 0 wherever it exists) or integer-valued
nondifferentiable(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
                  math.factorial, math.gcd, math.comb, math.perm)
