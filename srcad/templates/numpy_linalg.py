"""Products: np.dot (and the .dot method), np.outer. (`@` is in operators.py.)"""

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, d, facts, shape_rule, tangent


@adjoint(np.dot, np.ndarray.dot)
def dot(z, x, y):
    d[x] += rt.dot_adjoint_left(d[z], x, y)
    d[y] += rt.dot_adjoint_right(d[z], x, y)


@tangent(np.dot, np.ndarray.dot)
def dot(z, x, y):  # noqa: F811
    d[z] = np.dot(d[x], y) + np.dot(x, d[y])


@adjoint(np.outer)
def outer(z, x, y):
    d[x] += np.reshape(np.dot(d[z], np.ravel(y)), np.shape(x))
    d[y] += np.reshape(np.dot(np.ravel(x), d[z]), np.shape(y))


@tangent(np.outer)
def outer(z, x, y):  # noqa: F811
    d[z] = np.outer(d[x], y) + np.outer(x, d[y])


shape_rule(shapes.dot, np.dot, np.ndarray.dot)
# products: zero when either factor is zero, and a fresh array
facts(np.dot, np.outer, np.tensordot, linear_in=(0, 1), allocating=True)
facts(np.inner, linear_in=(0, 1))
