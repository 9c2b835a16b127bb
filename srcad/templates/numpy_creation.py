"""Arrays made from values: np.full, np.full_like, np.linspace, np.arange.

Their results depend on the values passed (the fill value, the start, stop and
step), so they are differentiable in those; only shapes, counts and dtypes are
not. An integer result (an explicit integer dtype, or the dtype of an integer
array for np.full_like) is rounded: its derivative is 0 (``rt.if_inexact``).
"""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, nondifferentiable, shape_rule, tangent
from srcad.vocabulary import linear


@adjoint(np.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    d[fill_value] += rt.unbroadcast(rt.if_inexact(d[y], y), fill_value)


@tangent(np.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None):  # noqa: F811
    d[y] = rt.if_inexact(rt.match_tangent(d[fill_value], y), y)


@adjoint(np.full)
def full(y, shape, fill_value, dtype=None, order="C"):
    d[fill_value] += rt.unbroadcast(rt.if_inexact(d[y], y), fill_value)


@tangent(np.full)
def full(y, shape, fill_value, dtype=None, order="C"):  # noqa: F811
    d[y] = rt.if_inexact(rt.match_tangent(d[fill_value], y), y)


# y = start (1 - t) + stop t, t = 0, 1/(num - 1), ..., 1 along the new axis: stop's share is
# g contracted with t along the axis (np.tensordot: no product array of y's size), start's
# sum(g) less that
@adjoint(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    toward_stop = np.tensordot(rt.if_inexact(d[y], y), rt.linspace_fractions(num, endpoint),
                               axes=([axis], [0]))
    d[start] += rt.unbroadcast(np.sum(rt.if_inexact(d[y], y), axis=axis) - toward_stop, start)
    d[stop] += rt.unbroadcast(toward_stop, stop)


@tangent(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None,  # noqa: F811
             axis=0):
    d[y] = rt.if_inexact(np.linspace(d[start], d[stop], num, endpoint, axis=axis), y)


def _without_step(arguments, carries, resolve):
    retstep = arguments.get("retstep")
    if isinstance(retstep, gast.Constant) and retstep.value is False:
        return None
    return ("srcad differentiates np.linspace(start, stop, ...) without retstep=True",
            "Compute the step from start and stop: (stop - start) / (num - 1).")


constraint(_without_step, np.linspace)


# np.arange(start, stop, step) = start + step * [0, 1, ...]; the stop only sets the length
@adjoint(np.arange)
def arange(y, start, stop=None, step=None, dtype=None):
    d[start] += np.sum(d[y] * rt.arange_weights(y, stop, 0))
    d[step] += np.sum(d[y] * rt.arange_weights(y, stop, 1))


@tangent(np.arange)
def arange(y, start, stop=None, step=None, dtype=None):  # noqa: F811
    d[y] = d[start] * rt.arange_weights(y, stop, 0) + d[step] * rt.arange_weights(y, stop, 1)


linear(rt.if_inexact, parameters="z, a, y", transpose="rt.if_inexact(g, y)")


nondifferentiable(rt.linspace_weights, rt.arange_weights, rt.linspace_fractions)
shape_rule(lambda num, endpoint: shapes.Array((None,)), rt.linspace_fractions)
shape_rule(shapes.same_as_first, rt.if_inexact, rt.linspace_weights, rt.arange_weights)


def _arange_shape(*args, **kwargs):
    """np.arange(...): one dimension, its length known (and so whether it is 1) when every
    bound is a constant number."""
    bounds = [a.value if isinstance(a, shapes.Known) else None for a in args[:3]]
    if args and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds) \
            and not kwargs:
        return shapes.Array((np.arange(*bounds).size == 1,))
    return shapes.Array((None,))


shape_rule(_arange_shape, np.arange)


def _full_shape(shape, fill_value=None, *rest, **kwargs):
    """np.full: an array of ``shape`` (the fill value broadcast into it)."""
    return shapes.made_of_shape(shape)


def _full_like_shape(a, fill_value=None, dtype=None, order=None, subok=None,
                     shape=shapes.Known(None), **kwargs):
    """np.full_like: an array of a's shape (a 0-d one for a scalar), or of ``shape``."""
    if shape != shapes.Known(None):
        return shapes.made_of_shape(shape)
    a = shapes.plain(a)
    if isinstance(a, shapes.Scalar):
        return shapes.Array(())
    return a if isinstance(a, shapes.Array) else shapes.UNKNOWN


shape_rule(_full_shape, np.full)
shape_rule(_full_like_shape, np.full_like)


def spaced_shape(start, stop, num=shapes.Known(50), axis=shapes.Known(0), *others):
    """np.logspace's result (numpy_numerical.py): start's, stop's (and the ``others``')
    broadcast pattern, with the num samples' axis put in at ``axis``."""
    shape = shapes.elementwise(start, stop, *others)
    if isinstance(shape, shapes.Scalar):  # scalar operands (a NumPy scalar)
        shape = shapes.Array(())
    if not isinstance(shape, shapes.Array) or not isinstance(axis, shapes.Known) or type(
            axis.value) is not int or not -shape.ndim - 1 <= axis.value <= shape.ndim:
        return shapes.UNKNOWN
    if isinstance(num, shapes.Known) and type(num.value) is int:
        samples = num.value == 1
    elif isinstance(num, shapes.Dimension):  # (x.shape[0] samples)
        samples = num.one
    elif shapes.plain(num) == shapes.Scalar("int"):
        samples = None
    else:
        return shapes.UNKNOWN
    where = axis.value % (shape.ndim + 1)
    return shapes.Array(shape.ones[:where] + (samples,) + shape.ones[where:])


def _linspace_shape(start, stop, num=shapes.Known(50), endpoint=shapes.Known(True),
                    retstep=shapes.Known(False), dtype=None, axis=shapes.Known(0), **kwargs):
    """np.linspace: start and stop broadcast, with the ``num`` samples' axis put in at
    ``axis`` (1 when num is the constant 1)."""
    ends = shapes.elementwise(start, stop)
    if retstep != shapes.Known(False) or not isinstance(axis, shapes.Known) or type(
            axis.value) is not int:
        return shapes.UNKNOWN
    if isinstance(ends, shapes.Scalar):
        ends = shapes.Array(())
    if not isinstance(ends, shapes.Array) or not -ends.ndim - 1 <= axis.value <= ends.ndim:
        return shapes.UNKNOWN
    count = num.value if isinstance(num, shapes.Known) and type(num.value) is int else None
    ones = list(ends.ones)
    ones.insert(axis.value % (ends.ndim + 1), None if count is None else count == 1)
    return shapes.Array(tuple(ones))


shape_rule(_linspace_shape, np.linspace)
