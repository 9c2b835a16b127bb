"""srcad's own runtime helpers, so that generated code can be differentiated again.

Forward-mode code calls a few helpers of srcad.runtime; differentiating that
code (a Hessian-vector product is the gradient of a directional derivative)
needs their derivatives too.
"""

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, d, nondifferentiable, shape_rule, tangent


@adjoint(rt.log_of_base)
def log_of_base(y, a):
    d[a] += d[y] / a


@tangent(rt.log_of_base)
def log_of_base(y, a):  # noqa: F811
    d[y] = d[a] / a


# power_derivative(x, y, n) = falling_factorial(y, n) * x ** (y - n), the n-th derivative
# of x ** y: its derivative in x is the next one; in y, the product rule
@adjoint(rt.power_derivative)
def power_derivative(p, x, y, n=1):
    d[x] += rt.unbroadcast(d[p] * rt.power_derivative(x, y, n + 1), x)
    d[y] += rt.unbroadcast(d[p] * (p * rt.log_of_base(x) + rt.falling_factorial(y, n, 1)
                                   * rt.power_derivative(x, y - n, 0)), y)


@tangent(rt.power_derivative)
def power_derivative(p, x, y, n=1):  # noqa: F811
    d[p] = d[x] * rt.power_derivative(x, y, n + 1) + d[y] * (
        p * rt.log_of_base(x) + rt.falling_factorial(y, n, 1) * rt.power_derivative(x, y - n, 0))


@adjoint(rt.falling_factorial)
def falling_factorial(f, y, n, k=0):
    d[y] += d[f] * rt.falling_factorial(y, n, k + 1)


@tangent(rt.falling_factorial)
def falling_factorial(f, y, n, k=0):  # noqa: F811
    d[f] = d[y] * rt.falling_factorial(y, n, k + 1)


@adjoint(rt.match_tangent)
def match_tangent(y, t, value):
    d[t] += rt.unbroadcast(d[y], t)


@tangent(rt.match_tangent)
def match_tangent(y, t, value):  # noqa: F811
    d[y] = rt.match_tangent(d[t], value)


# match_type and owned change a gradient's type or ownership, never its value; their
# tangents keep doing so (the tangent of a Python float's gradient is a Python float)
@adjoint(rt.match_type)
def match_type(y, g, x):
    d[g] += d[y]


@tangent(rt.match_type)
def match_type(y, g, x):  # noqa: F811
    d[y] = rt.match_type(d[g], x)


@adjoint(rt.owned)
def owned(y, g):
    d[g] += d[y]


@tangent(rt.owned)
def owned(y, g):  # noqa: F811
    d[y] = rt.owned(d[g])


nondifferentiable(rt.zeros_like, rt.method_axes, rt.inverse_transpose_axes, rt.reduced_size)


@adjoint(rt.check_scalar_output)
def check_scalar_output(y, value, where):
    d[value] += d[y]


@tangent(rt.check_scalar_output)
def check_scalar_output(y, value, where):  # noqa: F811
    d[y] = d[value]
shape_rule(shapes.elementwise, np.where)


# The helpers below are linear in the adjoint they transform: each tangent applies the
# helper to the tangent; each adjoint is the transposed map.
@adjoint(rt.unbroadcast)
def unbroadcast(y, g, x):
    d[g] += rt.unbroadcast(d[y], g)


@tangent(rt.unbroadcast)
def unbroadcast(y, g, x):  # noqa: F811
    d[y] = rt.unbroadcast(d[g], x)


@adjoint(rt.expand_reduced)
def expand_reduced(y, g, x, axis=None, keepdims=False):
    d[g] += np.sum(d[y], axis=axis, keepdims=keepdims)


@tangent(rt.expand_reduced)
def expand_reduced(y, g, x, axis=None, keepdims=False):  # noqa: F811
    d[y] = rt.expand_reduced(d[g], x, axis, keepdims)


@adjoint(rt.unindex)
def unindex(y, g, x, index):
    d[g] += d[y][index]


@tangent(rt.unindex)
def unindex(y, g, x, index):  # noqa: F811
    d[y] = rt.unindex(d[g], x, index)


# iterated_adjoint(g, items) and iterated_tangent(t, items) are linear maps (the identity,
# or zero for a dict), each the transpose of the other
@adjoint(rt.iterated_adjoint)
def iterated_adjoint(y, g, items):
    d[g] += rt.iterated_tangent(d[y], items)


@tangent(rt.iterated_adjoint)
def iterated_adjoint(y, g, items):  # noqa: F811
    d[y] = rt.iterated_adjoint(d[g], items)


@adjoint(rt.iterated_tangent)
def iterated_tangent(y, t, items):
    d[t] += rt.iterated_adjoint(d[y], items)


@tangent(rt.iterated_tangent)
def iterated_tangent(y, t, items):  # noqa: F811
    d[y] = rt.iterated_tangent(d[t], items)


shape_rule(shapes.same_as_first, rt.iterated_adjoint, rt.iterated_tangent)


# unfield(g, x, name) and field_of(t, x, name) are linear maps, each the other's transpose
@adjoint(rt.unfield)
def unfield(y, g, x, name):
    d[g] += rt.field_of(d[y], x, name)


@tangent(rt.unfield)
def unfield(y, g, x, name):  # noqa: F811
    d[y] = rt.unfield(d[g], x, name)


@adjoint(rt.field_of)
def field_of(y, t, x, name):
    d[t] += rt.unfield(d[y], x, name)


@tangent(rt.field_of)
def field_of(y, t, x, name):  # noqa: F811
    d[y] = rt.field_of(d[t], x, name)


@adjoint(rt.without)
def without(y, g, index):
    d[g] += rt.without(d[y], index)


@tangent(rt.without)
def without(y, g, index):  # noqa: F811
    d[y] = rt.without(d[g], index)


@adjoint(rt.extremum_adjoint)
def extremum_adjoint(out, g, x, y, axis=None, keepdims=False):
    d[g] += np.sum(d[out] * rt.extremum_adjoint(np.ones_like(y), x, y, axis, keepdims),
                   axis=axis, keepdims=keepdims)


@tangent(rt.extremum_adjoint)
def extremum_adjoint(out, g, x, y, axis=None, keepdims=False):  # noqa: F811
    d[out] = rt.extremum_adjoint(d[g], x, y, axis, keepdims)


# dot_adjoint_left(g, a, b) is the gradient of w -> <g, dot(w, b)>: bilinear in g and b
@adjoint(rt.dot_adjoint_left)
def dot_adjoint_left(y, g, a, b):
    d[g] += np.dot(d[y], b)
    d[b] += rt.dot_adjoint_right(g, d[y], b)


@tangent(rt.dot_adjoint_left)
def dot_adjoint_left(y, g, a, b):  # noqa: F811
    d[y] = rt.dot_adjoint_left(d[g], a, b) + rt.dot_adjoint_left(g, a, d[b])


@adjoint(rt.dot_adjoint_right)
def dot_adjoint_right(y, g, a, b):
    d[g] += np.dot(a, d[y])
    d[a] += rt.dot_adjoint_left(g, a, d[y])


@tangent(rt.dot_adjoint_right)
def dot_adjoint_right(y, g, a, b):  # noqa: F811
    d[y] = rt.dot_adjoint_right(d[g], a, b) + rt.dot_adjoint_right(g, d[a], b)


@adjoint(rt.matmul_adjoint_left)
def matmul_adjoint_left(y, g, a, b):
    d[g] += np.matmul(d[y], b)
    d[b] += rt.matmul_adjoint_right(g, d[y], b)


@tangent(rt.matmul_adjoint_left)
def matmul_adjoint_left(y, g, a, b):  # noqa: F811
    d[y] = rt.matmul_adjoint_left(d[g], a, b) + rt.matmul_adjoint_left(g, a, d[b])


@adjoint(rt.matmul_adjoint_right)
def matmul_adjoint_right(y, g, a, b):
    d[g] += np.matmul(a, d[y])
    d[a] += rt.matmul_adjoint_left(g, a, d[y])


@tangent(rt.matmul_adjoint_right)
def matmul_adjoint_right(y, g, a, b):  # noqa: F811
    d[y] = rt.matmul_adjoint_right(d[g], a, b) + rt.matmul_adjoint_right(g, d[a], b)


# norm_adjoint(g, x, y) = g * x / y, with g and y expanded over the reduced axes
@adjoint(rt.norm_adjoint)
def norm_adjoint(out, g, x, y, ord=None, axis=None, keepdims=False):  # noqa: A002
    d[g] += np.sum(d[out] * rt.norm_adjoint(np.ones_like(y), x, y, ord, axis, keepdims),
                   axis=axis, keepdims=keepdims)
    d[x] += rt.norm_adjoint(g, d[out], y, ord, axis, keepdims)
    d[y] -= np.sum(d[out] * rt.norm_adjoint(g / y, x, y, ord, axis, keepdims), axis=axis,
                   keepdims=keepdims)


@tangent(rt.norm_adjoint)
def norm_adjoint(out, g, x, y, ord=None, axis=None, keepdims=False):  # noqa: A002, F811
    d[out] = (rt.norm_adjoint(d[g], x, y, ord, axis, keepdims)
              + rt.norm_adjoint(g, d[x], y, ord, axis, keepdims)
              - rt.norm_adjoint(g * d[y] / y, x, y, ord, axis, keepdims))


# forward mode's in-place list operations: followed in forward mode only (reverse mode
# needs every version of a list, so srcad refuses to reverse code that calls them)
FORWARD_ONLY = (rt.append_in_place, rt.pop_in_place, rt.add_at)


# the tangent is added on a copy: total's tangent may be shared with another value's once
# optimize/ has dropped a zero term or a product by 1.0 (x * 1.0 is fresh, x_dot is not)
@tangent(rt.add_at)
def add_at(z, total, index, g):
    d[z] = rt.added_at(d[total], index, d[g])

@tangent(rt.append_in_place)
def append_in_place(z, items, value):
    d[z] = rt.append_in_place(d[items], d[value])


@tangent(rt.pop_in_place)
def pop_in_place(z, items):
    d[z] = rt.pop_in_place(d[items])


@adjoint(rt.added_at)
def added_at(z, total, index, g):
    d[total] += d[z]
    d[g] += rt.unbroadcast(d[z][index], g)


@tangent(rt.added_at)
def added_at(z, total, index, g):  # noqa: F811
    d[z] = rt.added_at(d[total], index, d[g])


# cutting an adjoint into one part per piece (np.r_/np.c_, np.concatenate, np.stack) is
# linear: the tangent cuts the tangent, the adjoint joins the parts' adjoints back
@adjoint(rt.pieces_of)
def pieces_of(parts, g, trick, pieces):
    d[g] += rt.concatenated(trick, d[parts])


@tangent(rt.pieces_of)
def pieces_of(parts, g, trick, pieces):  # noqa: F811
    d[parts] = rt.pieces_of(d[g], trick, pieces)


@adjoint(rt.split_along)
def split_along(parts, g, pieces, axis=0):
    d[g] += np.concatenate(d[parts], axis=axis)


@tangent(rt.split_along)
def split_along(parts, g, pieces, axis=0):  # noqa: F811
    d[parts] = rt.split_along(d[g], pieces, axis)


@adjoint(rt.unstacked)
def unstacked(parts, g, pieces, axis=0):
    d[g] += np.stack(d[parts], axis=axis)


@tangent(rt.unstacked)
def unstacked(parts, g, pieces, axis=0):  # noqa: F811
    d[parts] = rt.unstacked(d[g], pieces, axis)
