"""srcad's own runtime helpers (srcad.runtime, ``rt`` in generated code).

Generated code calls them; differentiating that code again (a Hessian-vector
product is the gradient of a directional derivative) needs their derivatives.
Their shape rules tell shape inference what they return, and their
*specializers* (optimize/specialize_runtime_calls.py) replace a call by what it
reduces to when the kinds of its arguments are known.
"""

import gast
import numpy as np

from srcad import registry
from srcad import runtime as rt
from srcad import syntax
from srcad.analysis import shapes
from srcad.analysis.shapes import ANY_SCALAR, FLOAT, UNKNOWN, Array, Scalar, plain
from srcad.registry import (adjoint, d, facts, nondifferentiable, shape_rule, specializer,
                            tangent)
from srcad.templates import numpy_numerical, numpy_shape
from srcad.vocabulary import binary, elementwise, linear, multilinear


# ---- shape rules


def _like(position):
    def rule(*args, **kwargs):
        value = plain(args[position]) if len(args) > position else UNKNOWN
        return ANY_SCALAR if isinstance(value, Scalar) else value
    return rule


def _match_type_shape(g, x, *rest, **kwargs):
    x = plain(x)
    if isinstance(x, Scalar) and x.kind in ("float", "int", "bool"):
        return FLOAT
    return plain(g) if plain(g) != UNKNOWN else x


def _zeros_like_shape(x, *rest, **kwargs):
    if x == shapes.Known(None):
        return FLOAT  # (no number: 0.0, the zero tangent of an argument given as None)
    x = plain(x)
    return FLOAT if isinstance(x, Scalar) else x


def _unbroadcast_shape(g, x, *rest, **kwargs):
    g, x = plain(g), plain(x)
    if shapes.has_no_axes(x):  # g itself when it has no axes either, else np.sum: NumPy's
        if shapes.has_no_axes(g):
            return g
        return shapes.NUMPY_SCALAR if isinstance(g, Array) else ANY_SCALAR
    return x


def _log_of_base_shape(a, *rest, **kwargs):  # a Python float for any np.ndim 0, as at run time
    return FLOAT if shapes.has_no_axes(a) else shapes.elementwise(a)


def _array_of_shape(*items, **kwargs):
    parts = [plain(i) for i in items]
    if all(isinstance(p, Scalar) for p in parts):
        return Array((len(parts) == 1,))
    if all(isinstance(p, Array) for p in parts) and len({p.ones for p in parts}) == 1:
        return Array((len(parts) == 1,) + parts[0].ones)
    return UNKNOWN


elementwise(rt.log_of_base, derivative="g / x", shape=_log_of_base_shape)
binary(rt.times_log_of_base, dx="rt.times_log_of_base(g, y)", dy="g * x / y",
       shape=lambda h, a, **kwargs: shapes.operator_elementwise(h, _log_of_base_shape(a)))
facts(rt.times_log_of_base, linear_in=(0,))
elementwise(rt.nonzero, derivative="g * (x != 0)")


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


linear(rt.match_tangent, parameters="y, t, value", transpose="rt.unbroadcast(g, t)")
# match_type and owned change a gradient's type or ownership, never its value; their
# tangents keep doing so (the tangent of a Python float's gradient is a Python float)
linear(rt.match_type, parameters="y, a, x", transpose="g")
linear(rt.owned, parameters="y, a", transpose="g")


nondifferentiable(rt.zeros_like, rt.method_axes, rt.inverse_transpose_axes, rt.reduced_size,
                  rt.written_in_place, rt.writes_through, rt.views_into, rt.same_object,
                  rt.views_whole, rt.may_share, rt.unit_seed, rt.keys_of, rt.check_discrete,
                  rt.check_mapping)


linear(rt.check_scalar_output, parameters="y, value, where", transpose="g",
       tangent="d[value]")
shape_rule(shapes.elementwise, np.where)


# The helpers below are linear in the adjoint they transform: each tangent applies the
# helper to the tangent; each adjoint is the transposed map.
linear(rt.unbroadcast, parameters="y, a, x", transpose="rt.unbroadcast(g, a)")
linear(rt.expand_reduced, parameters="y, a, x, axis=None, keepdims=False",
       transpose="np.sum(g, axis=axis, keepdims=keepdims)")
linear(rt.unindex, parameters="y, a, x, index", transpose="g[index]")
# iterated_adjoint(g, items) and iterated_tangent(t, items) are linear maps (the identity,
# or zero for a dict), each the transpose of the other
linear(rt.iterated_adjoint, parameters="y, a, items", transpose="rt.iterated_tangent(g, items)")
linear(rt.iterated_tangent, parameters="y, a, items", transpose="rt.iterated_adjoint(g, items)")
shape_rule(shapes.same_as_first, rt.iterated_adjoint, rt.iterated_tangent)
# sequence_adjoint(g, items) is the identity on one adjoint per element (a list's, or an
# array of items' shape), or zero for a dict: so is its transpose; sequence_tangent(t, items)
# lists t's elements, and its transpose stacks them back
linear(rt.sequence_adjoint, parameters="y, a, items",
       transpose="rt.iterated_adjoint(g, items)")
linear(rt.sequence_tangent, parameters="y, a, items",
       transpose="rt.sequence_adjoint(g, items)")
# sum_adjoint(g, items) gives each item g (summed to its shape), sum_tangent(t, items) adds
# the items' tangents: each the other's transpose
linear(rt.sum_adjoint, parameters="y, a, items",
       transpose="rt.unbroadcast(rt.sum_tangent(g, items), a)")
linear(rt.sum_tangent, parameters="y, a, items", transpose="rt.sum_adjoint(g, items)")
# {**first, **second}: each key's adjoint goes to the dict whose value the merge kept
@adjoint(rt.merged)
def merged(y, first, second):
    d[first] += rt.entries_of(d[y], first, second)
    d[second] += rt.entries_of(d[y], second)


@tangent(rt.merged)
def merged(y, first, second):  # noqa: F811
    d[y] = rt.merged_tangent(d[first], d[second], first, second)


# merged_tangent is linear in the two tangents together (a sum of two projections); one
# helper, not a sum, so that a zero tangent of one dict still gives its keys zeros
@adjoint(rt.merged_tangent)
def merged_tangent(y, first_tangent, second_tangent, first, second):
    d[first_tangent] += rt.entries_of(d[y], first, second)
    d[second_tangent] += rt.entries_of(d[y], second)


@tangent(rt.merged_tangent)
def merged_tangent(y, first_tangent, second_tangent, first, second):  # noqa: F811
    d[y] = rt.merged_tangent(d[first_tangent], d[second_tangent], first, second)


# picking a dict adjoint's entries by key: the transpose puts them back at a's keys
linear(rt.entries_of, parameters="y, a, like, dropped=()",
       transpose="rt.entries_of(g, a, dropped)")
# unfield(g, x, name) and field_of(t, x, name) are linear maps, each the other's transpose
linear(rt.unfield, parameters="y, a, x, name", transpose="rt.field_of(g, x, name)")
linear(rt.field_of, parameters="y, a, x, name", transpose="rt.unfield(g, x, name)")
linear(rt.without, parameters="y, a, index", transpose="rt.without(g, index)")
linear(rt.extremum_adjoint, parameters="out, a, x, y, axis=None, keepdims=False",
       transpose="np.sum(g * rt.extremum_adjoint(np.ones_like(y), x, y, axis, keepdims), "
       "axis=axis, keepdims=keepdims)")


# dot_adjoint_left(h, a, b) is the gradient of w -> <h, dot(w, b)>: bilinear in h and b
multilinear(rt.dot_adjoint_left, parameters="y, h, a, b",
            transposes={"h": "np.dot(g, b)", "b": "rt.dot_adjoint_right(h, g, b)"})
multilinear(rt.dot_adjoint_right, parameters="y, h, a, b",
            transposes={"h": "np.dot(a, g)", "a": "rt.dot_adjoint_left(h, a, g)"})
multilinear(rt.matmul_adjoint_left, parameters="y, h, a, b",
            transposes={"h": "np.matmul(g, b)", "b": "rt.matmul_adjoint_right(h, g, b)"})
multilinear(rt.matmul_adjoint_right, parameters="y, h, a, b",
            transposes={"h": "np.matmul(a, g)", "a": "rt.matmul_adjoint_left(h, a, g)"})
# weighted(values, weights) = values * weights (values when weights is None: a
# default-less weight, scipy.special.logsumexp's b): bilinear
multilinear(rt.weighted, parameters="y, values, weights",
            transposes={"values": "rt.unbroadcast(rt.weighted(g, weights), values)",
                        "weights": "rt.unbroadcast(g * values, weights)"},
            shape=lambda values, weights=None, **kwargs: (
                plain(values) if weights in (None, shapes.Known(None))
                else shapes.operator_elementwise(values, weights)))


# norm_adjoint(g, x, y) = g * x / y, with g and y expanded over the reduced axes (and
# y = 0, where x = 0, read as 1: the derivative at 0 is taken as 0, in every order)
@adjoint(rt.norm_adjoint)
def norm_adjoint(out, g, x, y, ord=None, axis=None, keepdims=False):  # noqa: A002
    d[g] += np.sum(d[out] * rt.norm_adjoint(np.ones_like(y), x, y, ord, axis, keepdims),
                   axis=axis, keepdims=keepdims)
    d[x] += rt.norm_adjoint(g, d[out], y, ord, axis, keepdims)
    d[y] -= np.sum(d[out] * rt.norm_adjoint(g / rt.nonzero(y), x, y, ord, axis, keepdims),
                   axis=axis, keepdims=keepdims)


@tangent(rt.norm_adjoint)
def norm_adjoint(out, g, x, y, ord=None, axis=None, keepdims=False):  # noqa: A002, F811
    d[out] = (rt.norm_adjoint(d[g], x, y, ord, axis, keepdims)
              + rt.norm_adjoint(g, d[x], y, ord, axis, keepdims)
              - rt.norm_adjoint(g * d[y] / rt.nonzero(y), x, y, ord, axis, keepdims))


# norm_gradient(x) (np.linalg.norm's gradient): its derivative is each norm's Hessian,
# symmetric, so its adjoint and tangent are the same map; that map, norm_hessian_product,
# has no template (third derivatives of norm: not supported)
@adjoint(rt.norm_gradient)
def norm_gradient(out, x, ord=None, axis=None):  # noqa: A002
    d[x] += rt.norm_hessian_product(d[out], x, ord, axis)


@tangent(rt.norm_gradient)
def norm_gradient(out, x, ord=None, axis=None):  # noqa: A002, F811
    d[out] = rt.norm_hessian_product(d[x], x, ord, axis)


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
linear(rt.pieces_of, parameters="parts, a, trick, pieces", transpose="rt.concatenated(trick, g)")
linear(rt.split_along, parameters="parts, a, pieces, axis=0",
       transpose="np.concatenate(g, axis=axis)")
linear(rt.unstacked, parameters="parts, a, pieces, axis=0", transpose="np.stack(g, axis=axis)")


def _parts_like(position, scalar_part):
    """The shape rule of a helper cutting an adjoint into one part per piece (the list in
    argument ``position``): each part has its piece's shape; a scalar piece's part is
    ``scalar_part`` (a 0-d array where the helper reshapes, a NumPy scalar where it takes
    an item)."""

    def rule(*args, **kwargs):
        pieces = args[position] if len(args) > position else UNKNOWN
        if not isinstance(pieces, shapes.IndexTuple):
            return UNKNOWN
        parts = []
        for piece in pieces.parts:
            piece = plain(piece)
            if isinstance(piece, Scalar):
                parts.append(scalar_part)
            elif isinstance(piece, Array):
                parts.append(piece)
            else:
                return UNKNOWN
        return shapes.IndexTuple(tuple(parts), adds_items=True)

    return rule


shape_rule(_parts_like(2, Array(())), rt.pieces_of, rt.unjoined)
shape_rule(_parts_like(1, Array(())), rt.split_along)
shape_rule(_parts_like(1, ANY_SCALAR), rt.unstacked)
shape_rule(_parts_like(2, ANY_SCALAR), rt.select_adjoint)  # each summed to its choice's shape


# ``for x in items`` iterates over rt.iterated(items): the items themselves, or a dict's keys
linear(rt.iterated, parameters="y, items", transpose="rt.iterated_adjoint(g, items)",
       tangent="rt.iterated_tangent(d[items], items)")


shape_rule(shapes.same_as_first, rt.iterated)


shape_rule(_unbroadcast_shape, rt.unbroadcast)
# np.broadcast_to(g, np.shape(x)): an array of x's shape; g itself for a scalar x (what its
# specializer makes of it: no 0-d array)
shape_rule(lambda g, x, *rest, **kwargs: (
    plain(g) if shapes.has_no_axes(g) else shapes.NUMPY_SCALAR) if isinstance(plain(x), Scalar)
    else plain(x), rt.expand_reduced)
shape_rule(_like(1), rt.dot_adjoint_left, rt.matmul_adjoint_left)
# the adjoints of max/min and norm: x's shape (g and y broadcast over it)
shape_rule(_like(1), rt.extremum_adjoint, rt.norm_adjoint)
shape_rule(_like(2), rt.dot_adjoint_right, rt.matmul_adjoint_right)
def _unindex_shape(g, x, index):
    """x's pattern; for a list or tuple x (an item's adjoint), a Parts of one part per item:
    zeros of its shape, g added at ``index`` (a scalar item's part: 0.0, or g's scalar)."""
    if isinstance(x, shapes.IndexTuple):
        return _parts_like(0, ANY_SCALAR)(x)
    return plain(x) if isinstance(plain(x), Array) else UNKNOWN


shape_rule(_unindex_shape, rt.unindex)
shape_rule(_match_type_shape, rt.match_type)
shape_rule(shapes.same_as_first, rt.owned)
def _match_tangent_shape(t, value, *rest, **kwargs):
    t, value = plain(t), plain(value)
    if value == UNKNOWN or value == Array(()) and isinstance(t, Scalar):
        return t  # (a scalar tangent of a 0-d array: of its shape, so itself)
    return value


shape_rule(_match_tangent_shape, rt.match_tangent)
shape_rule(_zeros_like_shape, rt.zeros_like)
shape_rule(lambda x, y, *rest, **kwargs: shapes.operator_elementwise(x, y), rt.power_derivative)
shape_rule(lambda y, *rest, **kwargs: shapes.operator_elementwise(y), rt.falling_factorial)
shape_rule(shapes.same_as_first, rt.check_scalar_output)
shape_rule(lambda output: shapes.FLOAT if shapes.has_no_axes(output) else (
    Array(plain(output).ones) if isinstance(plain(output), Array) else UNKNOWN), rt.unit_seed)
shape_rule(shapes.integer, rt.reduced_size)
shape_rule(_array_of_shape, rt.array_of)
# a copy of the adjoint with zeros written in: its pattern
shape_rule(lambda g, *rest, **kwargs: plain(g) if isinstance(plain(g), Array) else UNKNOWN,
           rt.without)


# ---- facts for the optimizer (linear() and multilinear() above record linearity)

facts(rt.zeros_like, rt.unindex, allocating=True)
# checks raise located errors at run time, and add_at writes into its first argument: a call
# is kept even when its result is not read
facts(rt.check_scalar_output, rt.check_unshared, rt.check_separate, rt.check_holds_nothing,
      rt.cannot_follow_write, rt.check_writable, rt.check_not_written, rt.check_discrete,
      rt.check_mapping, rt.add_at, pure=False)


# ---- specializers: what a call reduces to once its arguments' kinds are known


def _axes_constant(axes):
    return syntax.constant(axes[0] if len(axes) == 1 else tuple(axes))


def _unbroadcast(pass_, args, kinds):
    g, x = args
    g_kind, x_kind = kinds
    if isinstance(x_kind, Scalar) and isinstance(g_kind, Scalar):
        return g
    if isinstance(x_kind, Scalar) and isinstance(g_kind, Array):
        return syntax.call(pass_.np("sum"), g)
    if not (isinstance(x_kind, Array) and isinstance(g_kind, Array)):
        return None
    lead = g_kind.ndim - x_kind.ndim
    if lead < 0:
        return None
    kept, spread = [], False
    for axis, x_one in enumerate(x_kind.ones):
        g_one = g_kind.ones[lead + axis]
        if x_one is g_one and x_one is not None:  # both 1, or both larger (equal: NumPy)
            continue
        if x_one is True and g_one is False:
            kept.append(axis)
            continue
        if x_one is False and g_one is True:  # g of size 1 where x is larger: broadcast
            spread = True
            continue
        return None  # an unknown size decides at run time
    # the array method: same result as np.sum, without np.sum's Python-level dispatch
    result = g
    if lead:
        result = syntax.call(syntax.attribute(result, "sum"),
                             axis=_axes_constant(list(range(lead))))
    if kept:
        result = syntax.call(syntax.attribute(result, "sum"), axis=_axes_constant(kept),
                             keepdims=syntax.constant(True))
    if spread:  # (a read-only view, as rt.unbroadcast returns then)
        result = syntax.call(pass_.np("broadcast_to"), result,
                             syntax.attribute(pass_.shape_source(x), "shape"))
    return result


def _zeros_like(pass_, args, kinds):
    """0.0 for a scalar; for an array, zeros of its shape in its dtype when inexact, float64
    otherwise (an integer or bool array's adjoint is a float array), as rt.zeros_like does:
    the dtype is no kind, so the choice stays in the code, without the helper's type tests."""
    x = args[0]
    if isinstance(kinds[0], Scalar) or (type(x) is gast.Constant and x.value is None):
        return syntax.constant(0.0)  # (None: no number, 0.0 as rt.zeros_like gives)
    if not (pass_.zeros_simplified and isinstance(kinds[0], Array) and type(x) is gast.Name
            and pass_.bound_everywhere(x)):
        # (before simplify_zeros, which reads rt.zeros_like as a zero; a name a placeholder
        # binds may hold None where a zero adjoint is made for it: rt.zeros_like gives 0.0)
        return None
    inexact = gast.Compare(left=syntax.attribute(syntax.attribute(x.id, "dtype"), "kind"),
                           ops=[gast.In()], comparators=[syntax.constant("fc")])
    shape = syntax.attribute(syntax.name(pass_.shape_source(x).id), "shape")
    return syntax.call(pass_.np("zeros"), shape, gast.IfExp(
        test=inexact, body=syntax.attribute(x.id, "dtype"), orelse=pass_.np("float64")))


def _match_type(pass_, args, kinds):
    g, x = args
    g_kind, x_kind = kinds
    if isinstance(x_kind, Scalar) and x_kind.kind in ("float", "int", "bool"):
        if g_kind == shapes.FLOAT:
            return g
        if isinstance(g_kind, Scalar) or g_kind == Array(()) or x_kind.kind != "bool":
            # float(g) for any other g, as at run time (a float's own float() is itself)
            return syntax.call(syntax.name("float"), g)
        return None
    if isinstance(x_kind, Array) or x_kind == shapes.NUMPY_SCALAR:
        return g  # no Python scalar: its gradient as it is
    if x_kind == shapes.ANY_SCALAR and pass_.exact_parameter(x):
        return g  # an argument that is a scalar but no Python one (np.float64): g as it is
    return None  # a name that held a Python float at one point and a NumPy scalar at another


def _check_scalar_output(pass_, args, kinds):
    return args[0] if isinstance(kinds[0], Scalar) else None


def _unit_seed(pass_, args, kinds):
    return syntax.constant(1.0) if isinstance(kinds[0], Scalar) else None


def _constant_argument(pass_, args, position, default):
    """The constant value of argument ``position`` (``default`` when it is not given), or
    _NOT_CONSTANT: an int, a bool, None, or a tuple of ints (an axis)."""
    if len(args) <= position:
        return default
    value = shapes.evaluate(args[position], pass_.env, pass_.resolve)
    if not isinstance(value, shapes.Known):
        return _NOT_CONSTANT
    value = value.value
    if value is None or type(value) in (int, bool) or (
            type(value) is tuple and value and all(type(v) is int for v in value)):
        return value
    return _NOT_CONSTANT


_NOT_CONSTANT = object()


def _normalized_axes(axis, ndim):
    """A constant axis argument of a reduction of a rank-``ndim`` array, as sorted axes."""
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(-ndim <= a < ndim for a in axes):
        return None
    return tuple(sorted(a % ndim for a in axes))


def _expand_reduced(pass_, args, kinds):
    """``rt.expand_reduced(g, x, axis, keepdims)`` for an array x and constant axis and
    keepdims: g (with the reduced axes put back) broadcast to x's shape."""
    if isinstance(kinds[1], Scalar):
        return args[0]
    axis = _constant_argument(pass_, args, 2, None)
    keepdims = _constant_argument(pass_, args, 3, False)
    if not isinstance(kinds[1], Array) or _NOT_CONSTANT in (axis, keepdims) or type(
            keepdims) is not bool:
        return None
    g = args[0]
    if axis is not None and not keepdims:
        axes = _normalized_axes(axis, kinds[1].ndim)
        if axes is None:
            return None
        g = syntax.call(pass_.np("expand_dims"), g, _axes_constant(axes))
    shape = syntax.attribute(pass_.shape_source(args[1]), "shape")
    return syntax.call(pass_.np("broadcast_to"), g, shape)


def _unindex(pass_, args, kinds):
    """``rt.unindex(g, x, index)`` for an array x and an index of full slices and Nones
    (``x[:, np.newaxis]``): ``x[index]`` is x with axes of size 1 put in, each element once,
    so its adjoint is g reshaped to x's shape."""
    if len(args) != 3 or not isinstance(kinds[1], Array) or not isinstance(kinds[0], Array):
        return None
    index = args[2]
    parts = index.elts if type(index) is gast.Tuple else [index]
    if not parts or not all(_inserts_or_keeps_axis(pass_, part) for part in parts):
        return None
    shape = syntax.attribute(pass_.shape_source(args[1]), "shape")
    return syntax.call(syntax.attribute(args[0], "reshape"), shape)


def _inserts_or_keeps_axis(pass_, part) -> bool:
    """Whether an index part is None (np.newaxis) or a full slice (``:``, ``slice(None)``)."""
    if type(part) is gast.Call and not part.keywords and all(
            type(a) is gast.Constant and a.value is None for a in part.args) and len(
            part.args) <= 3 and pass_.resolve(part.func) is slice:
        return True
    value = shapes.evaluate(part, pass_.env, pass_.resolve)
    return value == shapes.FULL_SLICE or value == shapes.Known(None)


def _reduced_size(pass_, args, kinds):
    """``rt.reduced_size(x, axis)`` for an array x and a constant axis: ``x.size``, or the
    product of the reduced sizes."""
    axis = _constant_argument(pass_, args, 1, None)
    if isinstance(kinds[0], Scalar) and axis is None:
        return syntax.constant(1)  # a scalar is one element
    if not isinstance(kinds[0], Array) or axis is _NOT_CONSTANT or type(axis) is bool:
        return None
    x = pass_.shape_source(args[0])
    if axis is None:
        return syntax.attribute(x, "size")
    axes = _normalized_axes(axis, kinds[0].ndim)
    if axes is None:
        return None
    sizes = [gast.Subscript(value=syntax.attribute(syntax.deepcopy(x), "shape"),
                            slice=syntax.constant(a), ctx=gast.Load()) for a in axes]
    product = sizes[0]
    for size in sizes[1:]:
        product = gast.BinOp(left=product, op=gast.Mult(), right=size)
    return product


def _transpose(node):
    return syntax.attribute(node, "T")


def _rank(kind):
    """An array's rank (a scalar: None), or -1 when the kind is neither."""
    if isinstance(kind, Scalar):
        return None
    return kind.ndim if isinstance(kind, Array) else -1


def _scaled_adjoint(pass_, g, g_kind, other, other_kind, x, x_kind):
    """``rt.unbroadcast(g * other, x)`` specialized (a product by a scalar), or None."""
    product = gast.BinOp(left=g, op=gast.Mult(), right=other)
    return _unbroadcast(pass_, [product, x], [shapes.elementwise(g_kind, other_kind), x_kind])


def _dot_adjoint_left(pass_, args, kinds):
    """rt.dot_adjoint_left's formula for the operands' ranks (runtime.py)."""
    g, a, b = args
    g_kind, a_kind, b_kind = kinds
    a_ndim, b_ndim = _rank(a_kind), _rank(b_kind)
    if -1 in (a_ndim, b_ndim):
        return None
    if a_ndim in (None, 0) or b_ndim in (None, 0):
        return _scaled_adjoint(pass_, g, g_kind, b, b_kind, a, a_kind)
    if a_ndim == 2 and b_ndim == 2:
        return syntax.call(pass_.np("dot"), g, _transpose(b))
    if a_ndim == 1 and b_ndim == 2:
        return syntax.call(pass_.np("dot"), b, g)
    if a_ndim == 2 and b_ndim == 1:
        return syntax.call(pass_.np("outer"), g, b)
    if a_ndim == 1 and b_ndim == 1:
        return gast.BinOp(left=g, op=gast.Mult(), right=b)
    if b_ndim == 1:  # np.multiply.outer(g, b), written with functions srcad differentiates
        return gast.BinOp(left=syntax.call(pass_.np("expand_dims"), g, syntax.constant(-1)),
                          op=gast.Mult(), right=b)
    g_ndim = a_ndim - 1 + b_ndim - 1
    if not (isinstance(g_kind, Array) and g_kind.ndim == g_ndim):
        return None  # the axes contracted are counted on g
    b_axes = tuple(range(b_ndim - 2)) + (b_ndim - 1,)
    return syntax.call(pass_.np("tensordot"), g, b, syntax.constant(
        (tuple(range(a_ndim - 1, g_ndim)), b_axes)))


def _dot_adjoint_right(pass_, args, kinds):
    """rt.dot_adjoint_right's formula for the operands' ranks (runtime.py)."""
    g, a, b = args
    g_kind, a_kind, b_kind = kinds
    a_ndim, b_ndim = _rank(a_kind), _rank(b_kind)
    if -1 in (a_ndim, b_ndim):
        return None
    if a_ndim in (None, 0) or b_ndim in (None, 0):
        return _scaled_adjoint(pass_, g, g_kind, a, a_kind, b, b_kind)
    if a_ndim == 2 and b_ndim in (1, 2):
        return syntax.call(pass_.np("dot"), _transpose(a), g)
    if a_ndim == 1 and b_ndim == 2:
        return syntax.call(pass_.np("outer"), a, g)
    if a_ndim == 1 and b_ndim == 1:
        return gast.BinOp(left=g, op=gast.Mult(), right=a)
    lead = tuple(range(a_ndim - 1))
    contribution = syntax.call(pass_.np("tensordot"), a, g, syntax.constant((lead, lead)))
    if b_ndim == 1:
        return contribution
    return syntax.call(pass_.np("moveaxis"), contribution, syntax.constant(0),
                       syntax.constant(-2))


def _swapped(pass_, x):
    return syntax.call(pass_.np("swapaxes"), x, syntax.constant(-1), syntax.constant(-2))


def _with_new_axis(x, before_last=False):
    """``x[..., None]`` (``x[..., None, :]`` when ``before_last``)."""
    parts = [syntax.constant(Ellipsis), syntax.constant(None)]
    if before_last:
        parts.append(gast.Slice(lower=None, upper=None, step=None))
    return gast.Subscript(value=x, slice=gast.Tuple(elts=parts, ctx=gast.Load()),
                          ctx=gast.Load())


def _last_dropped(x):
    """``x[..., 0]``."""
    return gast.Subscript(value=x, slice=gast.Tuple(
        elts=[syntax.constant(Ellipsis), syntax.constant(0)], ctx=gast.Load()), ctx=gast.Load())


def _vector_matmul_adjoint(pass_, args, kinds, left):
    """rt.matmul_adjoint_left (``left``) or _right where an operand is a vector: the
    helper's own formula for those ranks, then summed back (_unbroadcast)."""
    g, a, b = args
    g_kind, a_kind, b_kind = kinds
    if not (isinstance(a_kind, Array) and isinstance(b_kind, Array)
            and min(a_kind.ndim, b_kind.ndim) == 1
            and isinstance(g_kind, (Array, Scalar))):
        return None
    both = a_kind.ndim == 1 and b_kind.ndim == 1
    if both != isinstance(g_kind, Scalar):
        return None
    if both:  # a scalar g: g * b (g * a)
        product = gast.BinOp(left=g, op=gast.Mult(), right=b if left else a)
        return _unbroadcast(pass_, [product, a if left else b],
                            [b_kind if left else a_kind, a_kind if left else b_kind])
    if left and b_kind.ndim == 1:  # g (a's batch and rows) times b: np.multiply.outer
        contribution = gast.BinOp(left=_with_new_axis(g), op=gast.Mult(), right=b)
        kind = Array(g_kind.ones + b_kind.ones)
    elif left:  # a vector: b @ g, per batch entry
        contribution = _last_dropped(syntax.call(pass_.np("matmul"), b, _with_new_axis(g)))
        kind = shapes.matmul(b_kind, Array(g_kind.ones + (True,)))
        kind = Array(kind.ones[:-1]) if isinstance(kind, Array) else UNKNOWN
    elif a_kind.ndim == 1:  # a times g (b's batch and columns), per batch entry
        column = gast.Subscript(value=a, slice=gast.Tuple(
            elts=[gast.Slice(lower=None, upper=None, step=None), syntax.constant(None)],
            ctx=gast.Load()), ctx=gast.Load())
        contribution = syntax.call(pass_.np("multiply"), column,
                                   _with_new_axis(g, before_last=True))
        kind = shapes.elementwise(Array(a_kind.ones + (True,)),
                                  Array(g_kind.ones[:-1] + (True, g_kind.ones[-1])))
    else:  # b a vector: aᵀ @ g, per batch entry
        contribution = _last_dropped(syntax.call(pass_.np("matmul"), _swapped(pass_, a),
                                                 _with_new_axis(g)))
        swapped = Array(a_kind.ones[:-2] + (a_kind.ones[-1], a_kind.ones[-2]))
        kind = shapes.matmul(swapped, Array(g_kind.ones + (True,)))
        kind = Array(kind.ones[:-1]) if isinstance(kind, Array) else UNKNOWN
    if not isinstance(kind, Array):
        return None
    return _unbroadcast(pass_, [contribution, a if left else b], [kind, a_kind if left else b_kind])


def _matmul_adjoint(left):
    """rt.matmul_adjoint_left (g @ bᵀ summed back to a's shape) or _right (aᵀ @ g summed
    back to b's), for operands of rank 2 or more (stacks that may broadcast) or vectors."""

    def rule(pass_, args, kinds):
        g, a, b = args
        g_kind, a_kind, b_kind = kinds
        if any(isinstance(k, Array) and k.ndim == 1 for k in (a_kind, b_kind)):
            return _vector_matmul_adjoint(pass_, args, kinds, left=left)
        if not all(isinstance(k, Array) and k.ndim >= 2 for k in (a_kind, b_kind)):
            return None
        if a_kind.ndim == 2 and b_kind.ndim == 2:
            return (_dot_adjoint_left if left else _dot_adjoint_right)(pass_, args, kinds)
        if not (isinstance(g_kind, Array) and g_kind.ndim >= 2):
            return None
        other_kind = b_kind if left else a_kind
        swapped = Array(other_kind.ones[:-2] + (other_kind.ones[-1], other_kind.ones[-2]))
        if left:
            contribution = syntax.call(pass_.np("matmul"), g, _swapped(pass_, b))
            return _unbroadcast(pass_, [contribution, a],
                                [shapes.matmul(g_kind, swapped), a_kind])
        contribution = syntax.call(pass_.np("matmul"), _swapped(pass_, a), g)
        return _unbroadcast(pass_, [contribution, b], [shapes.matmul(swapped, g_kind), b_kind])

    return rule


_matmul_adjoint_left = _matmul_adjoint(left=True)
_matmul_adjoint_right = _matmul_adjoint(left=False)


def _owned(pass_, args, kinds):
    return args[0] if isinstance(kinds[0], Scalar) else None


def _owned_tuple(pass_, args, kinds):
    if all(isinstance(k, Scalar) for k in kinds):
        return gast.Tuple(elts=list(args), ctx=gast.Load())
    return None


def _match_tangent(pass_, args, kinds):
    tangent, value = kinds
    if tangent == value and isinstance(value, Array) and None not in value.ones:
        return args[0]
    if value == Array(()) and isinstance(tangent, Scalar):
        return args[0]  # shape () both: nothing to broadcast, as at run time
    if isinstance(value, Array) and None not in value.ones and (
            isinstance(tangent, Scalar) or isinstance(tangent, Array) and tangent.ndim
            <= value.ndim and None not in tangent.ones):
        # a tangent that broadcasts to the output (a constant's zero, a scalar's tangent)
        shape = syntax.attribute(pass_.shape_source(args[1]), "shape")
        broadcast = syntax.call(pass_.np("broadcast_to"), args[0], shape)
        return syntax.call(syntax.attribute(broadcast, "copy"))
    if isinstance(value, Scalar) and (isinstance(tangent, Scalar) or tangent == Array(())):
        # (a 0-d array tangent, np.ones_like(x) of a scalar's: shape () as well)
        if value.kind == "float" and tangent != shapes.FLOAT:
            return syntax.call(syntax.name("float"), args[0])
        # a Python float tangent is kept for any scalar; any scalar tangent for a value
        # that is no Python float (shape () both: nothing to broadcast)
        if value.kind != "scalar" or tangent == shapes.FLOAT or pass_.made_by_numpy(args[1]):
            return args[0]
    return None


def _check_unshared(pass_, args, kinds):
    # a scalar is never written in place, nor shares an array's memory: nothing to check
    if isinstance(kinds[0], Scalar) or isinstance(kinds[2], Scalar):
        return syntax.constant(None)
    return None


def _check_separate(pass_, args, kinds):
    if isinstance(kinds[0], Scalar) or isinstance(kinds[1], Scalar):
        return syntax.constant(None)
    return None


def _check_holds_nothing(pass_, args, kinds):
    return syntax.constant(None) if isinstance(kinds[0], (Array, Scalar)) else None


def _written_in_place(pass_, args, kinds):
    if isinstance(kinds[0], Scalar):
        return syntax.constant(False)
    if isinstance(kinds[0], Array):
        return syntax.constant(True)
    return None


def _writes_through(pass_, args, kinds):
    if isinstance(kinds[2], Scalar):  # a scalar part is a copy, never written in place
        return syntax.constant(False)
    return None


def _number(node):
    """The value of a numeric literal (``2.0``, ``-1``), or None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return sign * node.value
    return None


def _power_derivative(pass_, args, kinds):
    """``rt.power_derivative(x, 3.0, 1)`` -> ``3.0 * x ** 2.0``, for a constant exponent.

    Kept as a call where the helper's care is needed: a zero coefficient (``x ** 0``),
    or a negative power of a Python float, which raises ZeroDivisionError at 0.
    """
    if len(args) not in (2, 3):
        return None
    exponent = _number(args[1])
    order = _number(args[2]) if len(args) == 3 else 1
    if exponent is None or type(order) is not int or order < 0:
        return None
    coefficient = 1
    for j in range(order):
        coefficient *= exponent - j
    power = exponent - order
    python_scalar = isinstance(kinds[0], Scalar) and kinds[0].kind in ("float", "int", "bool")
    if coefficient == 0 or (power < 0 and python_scalar) or not isinstance(
            kinds[0], (Scalar, Array)):
        return None
    return gast.BinOp(left=syntax.constant(coefficient), op=gast.Mult(), right=gast.BinOp(
        left=args[0], op=gast.Pow(), right=syntax.constant(power)))


def _iterated(pass_, args, kinds):
    """``rt.iterated(x)``, its adjoint and its tangent are x (or g, t) unless x is a dict."""
    return args[0] if isinstance(kinds[-1], (Array, Scalar)) else None


specializer(_check_unshared, rt.check_unshared)
specializer(_check_separate, rt.check_separate)
specializer(_check_holds_nothing, rt.check_holds_nothing)
specializer(lambda p, a, k: syntax.constant(None) if isinstance(k[0], Scalar) else None,
            rt.check_not_written)
specializer(_written_in_place, rt.written_in_place)
specializer(_writes_through, rt.writes_through)
specializer(_writes_through, rt.views_into)  # a scalar part is no view either
specializer(lambda p, a, k: syntax.constant(False) if isinstance(k[1], Scalar) else None,
            rt.views_whole)
specializer(_power_derivative, rt.power_derivative)
specializer(_iterated, rt.iterated, rt.iterated_adjoint, rt.iterated_tangent)
specializer(_match_tangent, rt.match_tangent)
specializer(_owned, rt.owned)
specializer(_owned_tuple, rt.owned_tuple)
specializer(_unbroadcast, rt.unbroadcast)
specializer(_zeros_like, rt.zeros_like)
specializer(_match_type, rt.match_type)
specializer(_check_scalar_output, rt.check_scalar_output)
specializer(_unit_seed, rt.unit_seed)
specializer(_expand_reduced, rt.expand_reduced)
specializer(_unindex, rt.unindex)
specializer(_reduced_size, rt.reduced_size)
specializer(_dot_adjoint_left, rt.dot_adjoint_left)
specializer(_dot_adjoint_right, rt.dot_adjoint_right)
def _weighted(pass_, args, kinds):
    """``rt.weighted(values, None)`` is values; with weights of a known kind, a product."""
    values, weights = args
    if isinstance(weights, gast.Constant) and weights.value is None:
        return values
    if isinstance(kinds[1], (Array, Scalar)):
        return gast.BinOp(left=values, op=gast.Mult(), right=weights)
    return None


specializer(_weighted, rt.weighted)
specializer(_matmul_adjoint_left, rt.matmul_adjoint_left)
specializer(_matmul_adjoint_right, rt.matmul_adjoint_right)


# the axes of x.transpose(*axes) and of its inverse, when they are constants: constants
def _method_axes_value(axes):
    if isinstance(axes, shapes.Known) and isinstance(axes.value, tuple):
        return shapes.Known(rt.method_axes(axes.value))
    return shapes.UNKNOWN


def _inverse_axes_value(axes, ndim=None, *rest):
    """The inverse permutation of constant axes; NumPy's negative axes need the rank."""
    if axes == shapes.Known(None):
        return axes
    if isinstance(axes, shapes.Known) and isinstance(axes.value, tuple) and all(
            type(a) is int and a >= 0 for a in axes.value):
        return shapes.Known(tuple(int(a) for a in rt.inverse_transpose_axes(
            axes.value, len(axes.value))))
    return shapes.UNKNOWN


def _as_constant(rule):
    """A specializer writing the call as the constant its shape rule computes."""
    def specialize(pass_, args, kinds):
        values = [shapes.evaluate(a, pass_.env, pass_.resolve) for a in args]
        value = rule(*values)
        if not isinstance(value, shapes.Known):
            return None
        if value.value is not None and not all(type(v) is int for v in value.value):
            return None
        return syntax.constant(None if value.value is None else tuple(
            int(v) for v in value.value))
    return specialize


shape_rule(_method_axes_value, rt.method_axes)
shape_rule(_inverse_axes_value, rt.inverse_transpose_axes)
specializer(_as_constant(_method_axes_value), rt.method_axes)
specializer(_as_constant(_inverse_axes_value), rt.inverse_transpose_axes)


# the scans' adjoints (numpy_reductions.py): linear in g, each the transpose of the scan
linear(rt.reverse_cumsum, parameters="y, a, x, axis=None", transpose="np.cumsum(g, axis=axis)")
shape_rule(_like(1), rt.reverse_cumsum)
linear(rt.diff_adjoint, parameters="y, a, n=1, axis=-1", transpose="np.diff(g, n, axis)")


def _undifferenced_shape(g, n=shapes.Known(1), axis=shapes.Known(-1), *rest, **kwargs):
    """diff_adjoint: g's shape, the differenced axis n longer (so never of size 1)."""
    g = plain(g)
    if not isinstance(g, Array) or not isinstance(axis, shapes.Known) or not g.ndim:
        return UNKNOWN
    longer = axis.value % g.ndim
    return Array(tuple(False if i == longer else one for i, one in enumerate(g.ones)))


shape_rule(_undifferenced_shape, rt.diff_adjoint)


# product_of_others(x) (prod's adjoint): its derivative is the symmetric matrix of products of
# all elements but two, so its adjoint and tangent are the same map; that map,
# product_of_others_tangent, has no template (third derivatives of prod: not supported)
@adjoint(rt.product_of_others)
def product_of_others(p, x, axis=None):
    d[x] += rt.product_of_others_tangent(d[p], x, axis)


@tangent(rt.product_of_others)
def product_of_others(p, x, axis=None):  # noqa: F811
    d[p] = rt.product_of_others_tangent(d[x], x, axis)


shape_rule(_like(0), rt.product_of_others)
shape_rule(_like(1), rt.product_of_others_tangent)
facts(rt.product_of_others, rt.product_of_others_tangent, allocating=True)
shape_rule(_like(0), rt.norm_gradient)
shape_rule(_like(1), rt.norm_hessian_product)
facts(rt.norm_gradient, rt.norm_hessian_product, allocating=True)


# np.average's weights laid over x (numpy_reductions.py): linear in the weights, x read for
# its shape only; each map the other's transpose
linear(rt.weights_along, parameters="y, weights, x, axis=None",
       transpose="rt.weights_along_adjoint(g, weights, axis)")
linear(rt.weights_along_adjoint, parameters="y, a, weights, axis=None",
       transpose="rt.weights_along(g, a, axis)")
shape_rule(_like(1), rt.weights_along, rt.weights_along_adjoint)


# quantile_adjoint and quantile_tangent (numpy_reductions.py): linear in g (in t), piecewise
# constant in x (which elements are selected), each the other's transpose
linear(rt.quantile_adjoint, parameters="y, a, x, q, axis=None, keepdims=False",
       transpose="rt.unbroadcast(rt.quantile_tangent(g, x, q, axis, keepdims), a)")
linear(rt.quantile_tangent, parameters="y, a, x, q, axis=None, keepdims=False",
       transpose="rt.unbroadcast(rt.quantile_adjoint(g, x, q, axis, keepdims), a)")
shape_rule(_like(1), rt.quantile_adjoint)


def _quantile_tangent_shape(t, x, q=shapes.Known(0.5), axis=shapes.Known(None),
                            keepdims=shapes.Known(False), *rest, **kwargs):
    reduced = shapes.reduction(x, axis, keepdims=keepdims)
    q = plain(q)
    if isinstance(q, Scalar) or reduced is UNKNOWN:
        return reduced
    if not isinstance(q, Array):
        return UNKNOWN
    return Array(q.ones + (reduced.ones if isinstance(reduced, Array) else ()))


shape_rule(_quantile_tangent_shape, rt.quantile_tangent)


# the derivatives of math.lgamma (math_module.py): each polygamma's derivative is the next
@adjoint(rt.math_polygamma)
def math_polygamma(p, n, x):
    d[x] += d[p] * rt.math_polygamma(n + 1, x)


@tangent(rt.math_polygamma)
def math_polygamma(p, n, x):  # noqa: F811
    d[p] = d[x] * rt.math_polygamma(n + 1, x)


shape_rule(shapes.python_float, rt.math_polygamma)


# cumprod's adjoint and tangent (numpy_reductions.py), each linear in its first argument
# (each the other's transpose there); in x, cumprod's second derivative: the symmetric
# rt.cumprod_adjoint_tangent and the bilinear rt.cumprod_second, which have no templates
# (third derivatives of cumprod are not supported)
@adjoint(rt.cumprod_adjoint)
def cumprod_adjoint(out, g, x, axis=None):
    d[g] += rt.cumprod_tangent(d[out], x, axis)
    d[x] += rt.cumprod_adjoint_tangent(g, x, d[out], axis)


@tangent(rt.cumprod_adjoint)
def cumprod_adjoint(out, g, x, axis=None):  # noqa: F811
    d[out] = rt.cumprod_adjoint(d[g], x, axis) + rt.cumprod_adjoint_tangent(g, x, d[x], axis)


@adjoint(rt.cumprod_tangent)
def cumprod_tangent(out, t, x, axis=None):
    d[t] += rt.unbroadcast(rt.cumprod_adjoint(d[out], x, axis), t)
    d[x] += rt.cumprod_adjoint_tangent(d[out], x, t, axis)


@tangent(rt.cumprod_tangent)
def cumprod_tangent(out, t, x, axis=None):  # noqa: F811
    d[out] = rt.cumprod_tangent(d[t], x, axis) + rt.cumprod_second(t, d[x], x, axis)


shape_rule(_like(1), rt.cumprod_adjoint)
shape_rule(lambda t, x, axis=shapes.Known(None), *rest, **kwargs: registry.lookup(
    np.cumprod).shape_rule(x, axis), rt.cumprod_tangent)  # cumprod's own shape
# the transposed maps of the shape functions (srcad/templates/numpy_shape.py): each linear in
# its first argument a (g is, as in every rule, the derivative flowing back), its transpose the
# function it transposes
linear(rt.untiled, parameters="y, a, x, reps", transpose="np.tile(g, reps)")
linear(rt.unrepeated, parameters="y, a, x, repeats, axis=None",
       transpose="np.repeat(g, repeats, axis)")
linear(rt.untaken, parameters='y, a, x, indices, axis=None, mode="raise"',
       transpose="np.take(g, indices, axis, mode=mode)")
linear(rt.untaken_along_axis, parameters="y, a, x, indices, axis",
       transpose="np.take_along_axis(g, indices, axis)")
linear(rt.padded, parameters='y, x, pad_width, mode="constant"',
       transpose="rt.unpadded(g, x, pad_width, mode)")
linear(rt.unpadded, parameters='y, a, x, pad_width, mode="constant"',
       transpose="rt.padded(g, pad_width, mode)")
multilinear(rt.joined, parameters="y, joiner, pieces",
            transposes={"pieces": "rt.unjoined(g, joiner, pieces)"})
linear(rt.unjoined, parameters="parts, a, joiner, pieces", transpose="rt.joined(joiner, g)")
nondifferentiable(rt.rollaxis_destination, rt.order_of, rt.clipped_to_max)


def _clipped_to_max_shape(x, low=shapes.Known(None), high=shapes.Known(None), *rest, **kwargs):
    """np.greater(x, high) (or'ed with np.greater(low, high)): the bounds given broadcast."""
    given = [v for v in (x, low, high) if v != shapes.Known(None)]
    return shapes.elementwise(*given)


shape_rule(_clipped_to_max_shape, rt.clipped_to_max)


def _shape_of_second(g, x, *rest, **kwargs):
    """A transposed map's result has the shape of the argument it goes back to."""
    x = plain(x)
    return x if isinstance(x, Array) else UNKNOWN


shape_rule(_shape_of_second, rt.untiled, rt.unrepeated, rt.untaken, rt.untaken_along_axis,
           rt.unpadded)
shape_rule(numpy_shape.pad_shape, rt.padded)
# np.select's adjoints: masks of g (the conditions are constants)
linear(rt.select_adjoint, parameters="parts, a, condlist, choicelist",
       transpose="np.select(condlist, g, np.zeros(np.shape(a)))")
linear(rt.unselected, parameters="y, a, condlist", transpose="rt.unselected(g, condlist)")
shape_rule(_like(0), rt.unselected)
# np.gradient's differences and their transpose
linear(rt.gradient_of, parameters="y, h, spacing, axis=None, edge_order=1",
       transpose="rt.gradient_adjoint(g, h, spacing, axis, edge_order)")
linear(rt.gradient_adjoint, parameters="y, a, f, spacing, axis=None, edge_order=1",
       transpose="rt.gradient_of(g, spacing, axis, edge_order)")
shape_rule(_shape_of_second, rt.gradient_adjoint)
# np.meshgrid's adjoint of one array, its transpose (one grid, the others zero), its tangent
linear(rt.meshgrid_adjoint, parameters='y, a, x, position, indexing="xy"',
       transpose="rt.meshgrid_part(g, a, position, indexing)")
linear(rt.meshgrid_part, parameters='y, h, a, position, indexing="xy"',
       transpose="rt.meshgrid_adjoint(g, h, position, indexing)")
linear(rt.meshgrid_tangent, parameters='y, tangents, arrays, sparse=False, indexing="xy"',
       transpose="rt.meshgrid_tangent_adjoint(g, tangents, arrays, sparse, indexing)")
linear(rt.meshgrid_tangent_adjoint,
       parameters='y, a, tangents, arrays, sparse=False, indexing="xy"',
       transpose="rt.meshgrid_tangent(g, arrays, sparse, indexing)")
# np.delete's and np.insert's adjoints and their transposes
linear(rt.undeleted, parameters="y, a, arr, obj, axis=None",
       transpose="np.delete(g, obj, axis)")
linear(rt.insert_adjoint, parameters="y, a, arr, obj, values, axis=None, which=0",
       transpose="rt.inserted_part(g, arr, obj, values, axis, which)")
linear(rt.inserted_part, parameters="y, h, arr, obj, values, axis=None, which=0",
       transpose="rt.insert_adjoint(g, arr, obj, values, axis, which)")
shape_rule(_shape_of_second, rt.undeleted)


# linear algebra's helpers (srcad/templates/numpy_linalg.py): linear, each other's transposes
linear(rt.matrix_transpose, parameters="y, x", transpose="rt.matrix_transpose(g)")
linear(rt.solve_columns, parameters="y, v, x, a", transpose="np.reshape(g, np.shape(v))")
linear(rt.from_triangle, parameters='y, x, uplo="L"', transpose="rt.to_triangle(g, uplo)")
linear(rt.to_triangle, parameters='y, x, uplo="L"', transpose="rt.from_triangle(g, uplo)")
linear(rt.diagonal_adjoint, parameters="y, diagonal, x, offset=0, axis1=0, axis2=1",
       transpose="rt.unbroadcast(np.diagonal(g, offset, axis1, axis2), diagonal)")
linear(rt.diag_adjoint, parameters="y, h, v, k=0", transpose="np.diag(g, k)")
nondifferentiable(rt.tensordot_adjoint_axes, rt.inner_axes, rt.kron_plan)
# linear in a and e together (not in each alone: not multilinear, whose facts say the
# result is zero when either is)
@adjoint(rt.block_upper)
def block_upper(y, a, e):
    d[a] += rt.unbroadcast(rt.block_diagonal_sum(d[y]), a)
    d[e] += rt.unbroadcast(rt.upper_right_block(d[y]), e)


@tangent(rt.block_upper)
def block_upper(y, a, e):  # noqa: F811
    d[y] = rt.block_upper(d[a], d[e])


linear(rt.block_diagonal_sum, parameters="y, blocks", transpose="rt.block_upper(g, 0.0 * g)")
linear(rt.upper_right_block, parameters="y, blocks", transpose="rt.block_upper(0.0 * g, g)")
# rt.contract's adjoint for one operand is a contraction of g with the others, into that
# operand's subscripts: rt.contract again (g in the first slot, the operand's slot empty)
multilinear(rt.contract, parameters="y, specs, target, shape, x0, x1=None, x2=None, x3=None",
            transposes={"x0": "rt.contract((target, specs[1], specs[2], specs[3]), specs[0], "
                              "np.shape(x0), g, x1, x2, x3)",
                        "x1": "rt.contract((target, specs[0], specs[2], specs[3]), specs[1], "
                              "np.shape(x1), g, x0, x2, x3)",
                        "x2": "rt.contract((target, specs[0], specs[1], specs[3]), specs[2], "
                              "np.shape(x2), g, x0, x1, x3)",
                        "x3": "rt.contract((target, specs[0], specs[1], specs[2]), specs[3], "
                              "np.shape(x3), g, x0, x1, x2)"})
nondifferentiable(rt.einsum_specs)
linear(rt.triangle, parameters="y, x, lower=False", transpose="rt.triangle(g, lower)")



# ---- shape rules of the linear algebra helpers


def _matrix_transpose_shape(x, *rest, **kwargs):
    """Each matrix of the stack transposed: the last two sizes swapped."""
    x = plain(x)
    if not isinstance(x, Array) or x.ndim < 2:
        return UNKNOWN
    return Array(x.ones[:-2] + (x.ones[-1], x.ones[-2]))


def _square_like(x, *rest, **kwargs):
    """A helper of matrices (stacks) giving x's shape: from_triangle, to_triangle..."""
    x = plain(x)
    return x if isinstance(x, Array) and x.ndim >= 2 else UNKNOWN


def _solve_columns_shape(v, x, a, *rest, **kwargs):
    """v, with an axis of one column when x is a vector right-hand side's solution."""
    v, x, a = plain(v), plain(x), plain(a)
    if not all(isinstance(k, Array) for k in (v, x, a)):
        return UNKNOWN
    return Array(v.ones + (True,)) if x.ndim == a.ndim - 1 else v


shape_rule(_matrix_transpose_shape, rt.matrix_transpose)
shape_rule(_square_like, rt.from_triangle, rt.to_triangle, rt.triangle)
shape_rule(_solve_columns_shape, rt.solve_columns)
# the adjoints of np.diagonal and np.diag: x's (v's) shape
shape_rule(_like(1), rt.diagonal_adjoint, rt.diag_adjoint)
linear(rt.residual_weights, parameters="y, h, like", transpose="rt.residuals_like(g, h)")
linear(rt.residuals_like, parameters="y, row, residuals",
       transpose="rt.residual_weights(g, row)")
linear(rt.three_vectors, parameters="y, x, vector_axis=-1, axis=None", transpose="g")
# scipy.linalg's factorizations (srcad/templates/scipy_linalg.py): a factor transposed or a
# triangle kept (each its own transpose), and a part of a result picked (its transpose puts
# g back in that part)
linear(rt.lower_factor, parameters="y, c, lower", transpose="rt.lower_factor(g, lower)")
linear(rt.other_triangle, parameters="y, x, lower", transpose="rt.other_triangle(g, lower)")
linear(rt.output_part, parameters="part, y, index, layout=None, like=None",
       transpose="rt.output_part_adjoint(g, y, index, layout, like)")
linear(rt.output_part_adjoint, parameters="y, h, whole, index, layout=None, like=None",
       transpose="rt.output_part(g, index, layout, h)")
multilinear(rt.if_output, parameters="y, layout, index, term",  # linear in term
            transposes={"term": "rt.if_output(layout, index, g)"},
            shape=lambda layout, index, term, **kwargs: plain(term))
nondifferentiable(rt.uplo, rt.output_layout)
linear(rt.banded_dense, parameters="y, ab, l_and_u", transpose="rt.band_of(g, l_and_u)")
linear(rt.band_of, parameters="y, dense, l_and_u", transpose="rt.banded_dense(g, l_and_u)")
# convolutions' pad widths, polyval's exponents (numpy_numerical.py, scipy_signal.py)
nondifferentiable(rt.convolution_padding, rt.polynomial_exponents)
# np.polyval's adjoint in p (srcad/templates/numpy_numerical.py): linear in g; in x, the
# sums of g x^(k-1) weighted by k (one fewer coefficient), 0 for the constant term
@adjoint(rt.polyval_adjoint)
def polyval_adjoint(y, g, x, like):
    d[g] += rt.unbroadcast(np.polyval(d[y], x), g)
    d[x] += rt.unbroadcast(g * np.polyval(d[y][:-1] * rt.polynomial_exponents(like)[:-1], x), x)


@tangent(rt.polyval_adjoint)
def polyval_adjoint(y, g, x, like):  # noqa: F811
    d[y] = rt.polyval_adjoint(d[g], x, like) + np.append(
        rt.polynomial_exponents(like)[:-1] * rt.polyval_adjoint(g * d[x], x, like[:-1]), 0.0)


# np.interp's helpers (srcad/templates/numpy_numerical.py): the slope is piecewise constant
# in x (no derivative there), the linear part and its transpose move with x along a segment
multilinear(rt.interp_slope, parameters="y, x, knots, fp",
            transposes={"fp": "rt.interp_slope_transpose(g, x, knots)"})
multilinear(rt.interp_slope_transpose, parameters="y, c, x, knots",
            transposes={"c": "rt.interp_slope(x, knots, g)"})


@adjoint(rt.interp_linear)
def interp_linear(y, x, knots, f, left=None, right=None):
    d[f] += rt.interp_transpose(d[y], x, knots, left, right)
    d[x] += d[y] * rt.interp_slope(x, knots, f)


@tangent(rt.interp_linear)
def interp_linear(y, x, knots, f, left=None, right=None):  # noqa: F811
    d[y] = rt.interp_linear(x, knots, d[f], left, right) + d[x] * rt.interp_slope(x, knots, f)


@adjoint(rt.interp_transpose)
def interp_transpose(y, c, x, knots, left=None, right=None):
    d[c] += rt.unbroadcast(rt.interp_linear(x, knots, d[y], left, right), c)
    d[x] += rt.unbroadcast(c * rt.interp_slope(x, knots, d[y]), x)


@tangent(rt.interp_transpose)
def interp_transpose(y, c, x, knots, left=None, right=None):  # noqa: F811
    d[y] = rt.interp_transpose(d[c], x, knots, left, right) + rt.interp_slope_transpose(
        c * d[x], x, knots)


# np.trapezoid's weights, linear in x, and their transpose
multilinear(rt.trapezoid_weights, parameters="y, x, dx, samples, axis=-1",
            transposes={"x": "rt.trapezoid_weights_transpose(g, x, samples, axis)"})
multilinear(rt.trapezoid_weights_transpose, parameters="y, c, x, samples, axis=-1",
            transposes={"c": "np.broadcast_to(rt.trapezoid_weights(g, 1.0, samples, axis), "
                             "np.shape(c))"})
# np.cov's and np.corrcoef's (srcad/templates/numpy_numerical.py): m as rows of variables
linear(rt.cov_variables, parameters="y, m, rowvar=True",
       transpose="rt.cov_variables_adjoint(g, m, rowvar)")
linear(rt.cov_variables_adjoint, parameters="y, cotangent, m, rowvar=True",
       transpose="rt.cov_variables(g, rowvar)")
nondifferentiable(rt.cov_shape, rt.cov_divisor, rt.logspace_log_base)


# ---- shape rules of helpers forward mode calls, so that what follows them stays specialized


def _sum_tangent_shape(t, items, *rest, **kwargs):
    """sum_tangent(t, items): an array tangent's rows summed (np.sum(t, axis=0)); a zero
    scalar tangent itself; a list's tangents added (nothing known)."""
    t = plain(t)
    if isinstance(t, Array):
        return shapes.reduction(t, shapes.Known(0))
    return t if isinstance(t, Scalar) else UNKNOWN


def _order_shape(y, x, axis=shapes.Known(-1), *rest, **kwargs):
    """order_of(y, x, axis): indices of x's shape (np.argsort's); of the flattened x for axis
    None (one element if x has one; more if any axis has more; else unknown)."""
    x = plain(x)
    if not isinstance(x, Array) or not isinstance(axis, shapes.Known):
        return UNKNOWN
    if axis.value is None:
        return Array((True if all(one is True for one in x.ones) else
                      False if False in x.ones else None,))
    return x


shape_rule(_sum_tangent_shape, rt.sum_tangent)
shape_rule(_order_shape, rt.order_of)
shape_rule(_like(1), rt.cumprod_adjoint_tangent)  # x's shape, as cumprod_adjoint's
shape_rule(lambda t, s, x, axis=shapes.Known(None), *rest, **kwargs: registry.lookup(
    np.cumprod).shape_rule(x, axis), rt.cumprod_second)  # cumprod's own shape, as its tangent's


def _cov_variables_shape(m, rowvar=shapes.Known(True), *rest, **kwargs):
    """rt.cov_variables(m, rowvar): m as a matrix (a number 1 x 1, a vector one row),
    transposed when rowvar is False and m is a matrix."""
    m = plain(m)
    if isinstance(m, Scalar):
        return Array((True, True))
    if not isinstance(m, Array) or m.ndim > 2:
        return UNKNOWN
    if m.ndim < 2:
        return Array((True,) * (2 - m.ndim) + m.ones)
    if not isinstance(rowvar, shapes.Known):
        return Array((None, None)) if m.ones[0] != m.ones[1] else m
    return m if rowvar.value else Array(m.ones[::-1])


def _cov_variables_adjoint_shape(cotangent, m, *rest, **kwargs):
    """rt.cov_variables_adjoint(cotangent, m, rowvar): np.reshape to m's shape (a 0-d array for
    a number m)."""
    m = plain(m)
    return Array(()) if isinstance(m, Scalar) else m if isinstance(m, Array) else UNKNOWN


shape_rule(_cov_variables_shape, rt.cov_variables)
shape_rule(_cov_variables_adjoint_shape, rt.cov_variables_adjoint)


def _polyval_adjoint_shape(g, x, like, *rest, **kwargs):
    """rt.polyval_adjoint(g, x, like) and rt.polynomial_exponents(like): a vector of like's
    length (one entry per coefficient)."""
    like = plain(like)
    return like if isinstance(like, Array) and like.ndim == 1 else UNKNOWN


def _trapezoid_weights_shape(x, dx, samples, axis=shapes.Known(-1), *rest, **kwargs):
    """rt.trapezoid_weights(x, dx, samples, axis): x's pattern for an array x; for x None or a
    vector, size 1 but along ``axis`` (samples' size there, or x's), of the larger rank."""
    x, samples = (None if x == shapes.Known(None) else plain(x)), plain(samples)
    if isinstance(x, Scalar):
        x = None  # (the zero tangent of an x given as None; a number x raises)
    if isinstance(x, Array) and x.ndim > 1:
        return x
    if not (isinstance(samples, Array) and (x is None or isinstance(x, Array))):
        return UNKNOWN
    ndim = max(samples.ndim, x.ndim if x is not None else 0)
    if not (isinstance(axis, shapes.Known) and type(axis.value) is int
            and -ndim <= axis.value < ndim and -samples.ndim <= axis.value < samples.ndim):
        return UNKNOWN
    along = samples.ones[axis.value] if x is None else x.ones[0]
    return Array(tuple(along if i == axis.value % ndim else True for i in range(ndim)))


def _logspace_log_base_shape(base, y, axis=shapes.Known(0), *rest, **kwargs):
    """rt.logspace_log_base(base, y, axis): a NumPy scalar for a scalar base; an array base's
    pattern, of y's rank less one, with a new axis of size 1 at ``axis``."""
    base, y = plain(base), plain(y)
    if isinstance(base, Scalar):
        return shapes.NUMPY_SCALAR  # np.log of it
    if not (isinstance(base, Array) and isinstance(y, Array) and base.ndim < y.ndim
            and isinstance(axis, shapes.Known) and type(axis.value) is int
            and -y.ndim <= axis.value < y.ndim):
        return UNKNOWN
    ones = (True,) * (y.ndim - 1 - base.ndim) + base.ones
    where = axis.value % y.ndim
    return Array(ones[:where] + (True,) + ones[where:])


shape_rule(_polyval_adjoint_shape, rt.polyval_adjoint)
shape_rule(lambda p, *rest, **kwargs: _polyval_adjoint_shape(None, None, p), rt.polynomial_exponents)
shape_rule(numpy_numerical.interpolated_shape, rt.interp_slope, rt.interp_linear)
shape_rule(lambda c, x, knots, *rest, **kwargs: numpy_numerical.knots_shape(knots),
           rt.interp_slope_transpose, rt.interp_transpose)
shape_rule(_trapezoid_weights_shape, rt.trapezoid_weights)
shape_rule(lambda c, x, *rest, **kwargs: plain(x) if isinstance(plain(x), Array) else UNKNOWN,
           rt.trapezoid_weights_transpose)
shape_rule(_logspace_log_base_shape, rt.logspace_log_base)


# rt.reduced_kept(y, a, b, axis, keepdims): y (a reduction of a, broadcast with b) with the
# reduced axes back as size 1 (scipy.special.logsumexp's adjoint): a reshape of y
linear(rt.reduced_kept, parameters="k, y, a, b=None, axis=None, keepdims=False",
       transpose="np.reshape(g, np.shape(y))")


def _reduced_whole(a, b):
    """The kind of a broadcast with b (b None: a's)."""
    return plain(a) if b == shapes.Known(None) else shapes.elementwise(a, b)


def _reduced_kept_shape(y, a, b=shapes.Known(None), axis=shapes.Known(None),
                        keepdims=shapes.Known(False), *rest, **kwargs):
    if axis == shapes.Known(None) and keepdims == shapes.Known(False):
        return plain(y)
    whole = _reduced_whole(a, b)
    if not isinstance(whole, Array) or whole.ndim == 0:
        return UNKNOWN  # (0-d operands: y reshaped to (), a NumPy scalar or a 0-d array)
    return shapes.reduction(whole, axis, keepdims=shapes.Known(True))


def _reduced_kept(pass_, args, kinds):
    """y itself, or np.expand_dims(y, axes), for constant axis and keepdims and an a (and b) of
    known rank at least 1."""
    y = args[0]
    b = args[2] if len(args) > 2 else syntax.constant(None)
    axis = _constant_argument(pass_, args, 3, None)
    keepdims = _constant_argument(pass_, args, 4, False)
    if _NOT_CONSTANT in (axis, keepdims) or type(keepdims) is not bool:
        return None
    if axis is None and not keepdims:
        return y
    b_kind = shapes.Known(None) if len(args) <= 2 else shapes.evaluate(
        b, pass_.env, pass_.resolve)
    whole = _reduced_whole(kinds[1], b_kind)
    if not isinstance(whole, Array) or whole.ndim == 0:
        return None
    if keepdims:
        return y  # (a reduction with keepdims of an array of rank 1 or more: its rank)
    axes = _normalized_axes(axis, whole.ndim)
    if axes is None:
        return None
    return syntax.call(pass_.np("expand_dims"), y, _axes_constant(axes))


shape_rule(_reduced_kept_shape, rt.reduced_kept)
specializer(_reduced_kept, rt.reduced_kept)


# ---- shape rules of the linear algebra and gather helpers' results


def _block_upper_shape(a, e, *rest, **kwargs):
    """[[a, e], [0, a]]: a and e broadcast, each matrix twice as large (never 1)."""
    both = shapes.elementwise(a, e)
    if not isinstance(both, Array) or both.ndim < 2:
        return UNKNOWN
    return Array(both.ones[:-2] + (False, False))


def _half_blocks_shape(g, *rest, **kwargs):
    """A block of half of g's last size, of each matrix of g: its size not told."""
    g = plain(g)
    return Array(g.ones[:-2] + (None, None)) if isinstance(g, Array) and g.ndim >= 2 else UNKNOWN


def _factor_or_transposed_shape(c, lower=UNKNOWN, *rest, **kwargs):
    """c, or each matrix of c transposed (as ``lower`` says at run time)."""
    c = plain(c)
    if not isinstance(c, Array) or c.ndim < 2:
        return UNKNOWN
    return shapes.join(c, Array(c.ones[:-2] + (c.ones[-1], c.ones[-2])))


def _banded_dense_shape(ab, l_and_u, *rest, **kwargs):
    """The n×n matrix of a band form (l + u + 1, n)."""
    ab = plain(ab)
    return Array((ab.ones[-1],) * 2) if isinstance(ab, Array) and ab.ndim == 2 else UNKNOWN


def _band_of_shape(dense, l_and_u, *rest, **kwargs):
    """A band form (l + u + 1, n) of an n×n matrix (l + u + 1 may be 1)."""
    dense = plain(dense)
    return Array((None, dense.ones[-1])) if isinstance(dense, Array) and dense.ndim == 2 else (
        UNKNOWN)


def _residual_weights_shape(g, like, *rest, **kwargs):
    """One row of like's columns."""
    like = plain(like)
    return Array((True, like.ones[-1])) if isinstance(like, Array) and like.ndim else UNKNOWN


def _array_copy_shape(total, *rest, **kwargs):
    """An array like ``total`` (a copy of it, written into)."""
    total = plain(total)
    return total if isinstance(total, Array) else UNKNOWN




def _gradient_of_shape(f, spacing=UNKNOWN, axis=shapes.Known(None), edge_order=None, **kwargs):
    return numpy_shape.gradient_shape(f, axis=axis)


shape_rule(_block_upper_shape, rt.block_upper)
shape_rule(_half_blocks_shape, rt.block_diagonal_sum, rt.upper_right_block)
shape_rule(_factor_or_transposed_shape, rt.lower_factor)
shape_rule(_array_copy_shape, rt.other_triangle, rt.three_vectors, rt.added_at)
shape_rule(_array_copy_shape, rt.add_at)  # total itself, written into
shape_rule(_banded_dense_shape, rt.banded_dense)
shape_rule(_band_of_shape, rt.band_of)
shape_rule(_residual_weights_shape, rt.residual_weights)
shape_rule(_shape_of_second, rt.residuals_like)
shape_rule(_gradient_of_shape, rt.gradient_of)


# scipy.stats.multivariate_normal's covariance: a number, a vector or a matrix made a matrix
linear(rt.full_covariance, parameters="y, c, size", transpose="rt.covariance_part(g, c)")
linear(rt.covariance_part, parameters="y, a, c",
       transpose="rt.full_covariance(g, np.shape(a)[-1])")
def _full_covariance_shape(cov, size, **kwargs):
    """A (size, size) matrix: cov's own for a matrix."""
    cov = plain(cov)
    if isinstance(cov, Array) and cov.ndim == 2:
        return cov
    if not (isinstance(cov, Scalar) or isinstance(cov, Array) and cov.ndim == 1):
        return UNKNOWN
    if isinstance(size, shapes.Known) and type(size.value) is int:
        return Array((size.value == 1,) * 2)
    return Array((cov.ones[0],) * 2) if isinstance(cov, Array) else Array((None, None))


shape_rule(_full_covariance_shape, rt.full_covariance)
shape_rule(lambda g, cov, **kwargs: shapes.NUMPY_SCALAR if isinstance(plain(cov), Scalar) else (
    plain(cov) if isinstance(plain(cov), Array) else UNKNOWN), rt.covariance_part)  # (a trace)

# dirichlet's x completed to the simplex: alpha only tells how many components (x itself
# carries no derivative: dirichlet.logpdf refuses one in x)
nondifferentiable(rt.simplex_point)
shape_rule(lambda x, alpha, **kwargs: Array((None,) + plain(x).ones[1:]) if isinstance(
    plain(x), Array) and plain(x).ndim else UNKNOWN, rt.simplex_point)


def _meshgrid_tangent_shape(tangents, arrays, sparse=shapes.Known(False),
                            indexing=shapes.Known("xy"), **kwargs):
    """The grids of the tangents of the arrays given (a zero tangent: a grid of length 1
    there, broadcast later)."""
    if not (isinstance(tangents, shapes.IndexTuple) and isinstance(arrays, shapes.IndexTuple)):
        return UNKNOWN
    given = [t for t, x in zip(tangents.parts, arrays.parts) if x != shapes.Known(None)]
    return numpy_shape.meshgrid_shape(*given, sparse=sparse, indexing=indexing)


def _meshgrid_adjoint_shape(g, x, *rest, **kwargs):
    """x's shape: a 0-d array (or a NumPy scalar) for a number."""
    x = plain(x)
    return Array(()) if isinstance(x, Scalar) else _shape_of_second(g, x)


shape_rule(_meshgrid_tangent_shape, rt.meshgrid_tangent)
shape_rule(_meshgrid_adjoint_shape, rt.meshgrid_adjoint)


# ---- the parts of a scipy.linalg factorization's result (rt.output_layout): which parts a
# call returns, when its keywords are constants


def _output_layout_shape(condition, layout, **kwargs):
    """The layout when the condition holds, else None (the whole tuple)."""
    if not (isinstance(condition, shapes.Known) and type(condition.value) is bool and isinstance(
            layout, shapes.Known)):
        return UNKNOWN
    return layout if condition.value else shapes.Known(None)


def _outputs_shape(parts, layout=shapes.Known(None), **kwargs):
    """All the parts (a tuple), those the layout names (a tuple), or the one it names."""
    if not isinstance(parts, shapes.IndexTuple) or not isinstance(layout, shapes.Known):
        return UNKNOWN
    value = layout.value
    try:
        if value is None:
            return shapes.IndexTuple(parts.parts)
        if type(value) is tuple:
            return shapes.IndexTuple(tuple(parts.parts[i] for i in value))
        return parts.parts[value] if type(value) is int else UNKNOWN
    except IndexError:
        return UNKNOWN


def _output_part_shape(y, index, layout=shapes.Known(None), like=shapes.Known(None), **kwargs):
    """Part ``index`` of y in its layout; a part the call does not return is 0.0, or zeros of
    like's shape (as is any number where like is an array)."""
    if not (isinstance(index, shapes.Known) and type(index.value) is int and isinstance(
            layout, shapes.Known)):
        return UNKNOWN
    value = layout.value
    if value is None:
        part = shapes.getitem(y, index)
    elif type(value) is tuple:
        part = shapes.getitem(y, shapes.Known(value.index(index.value))) if (
            index.value in value) else FLOAT
    elif type(value) is int:
        part = plain(y) if index.value == value else FLOAT
    else:
        return UNKNOWN
    like_kind = plain(like)
    if like != shapes.Known(None) and (isinstance(part, Scalar) or part == Array(())):
        if isinstance(like_kind, Array) and like_kind.ndim:
            return like_kind
        return part if isinstance(like_kind, (Scalar, Array)) else UNKNOWN
    return part


shape_rule(_output_layout_shape, rt.output_layout)
shape_rule(_outputs_shape, rt.outputs)
shape_rule(_output_part_shape, rt.output_part)
