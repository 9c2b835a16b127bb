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


@adjoint(rt.match_tangent)
def match_tangent(y, t, value):
    d[t] += rt.unbroadcast(d[y], t)


@tangent(rt.match_tangent)
def match_tangent(y, t, value):  # noqa: F811
    d[y] = rt.match_tangent(d[t], value)


@adjoint(rt.match_type, rt.owned)
def passed_on(y, g, x=None):
    d[g] += d[y]


@tangent(rt.match_type, rt.owned)
def passed_on(y, g, x=None):  # noqa: F811
    d[y] = d[g]


nondifferentiable(rt.zeros_like, rt.method_axes, rt.inverse_transpose_axes, rt.reduced_size,
                  rt.check_scalar_output)
shape_rule(shapes.elementwise, np.where)


# The helpers below are linear in the adjoint they transform: each tangent applies the
# helper to the tangent; each adjoint is the transposed map.
@adjoint(rt.unbroadcast)
def unbroadcast(y, g, x):
    d[g] += np.broadcast_to(d[y], np.shape(g))


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


@tangent(rt.add_at)
def add_at(z, total, index, g):
    d[z] = rt.add_at(d[total], index, d[g])

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
