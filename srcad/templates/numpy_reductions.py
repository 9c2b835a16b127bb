"""Reductions: sum, mean, max, min and norm, as functions and as array methods, with
axis/keepdims. ``reduction`` (srcad/vocabulary.py) declares the linear ones."""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, shape_rule, tangent
from srcad.vocabulary import reduction


reduction(np.sum, np.ndarray.sum, transpose="rt.expand_reduced(g, x, axis, keepdims)")
reduction(np.mean, np.ndarray.mean,
          transpose="rt.expand_reduced(g, x, axis, keepdims) / rt.reduced_size(x, axis)")
shape_rule(shapes.reduction, np.max, np.min, np.prod, np.ndarray.max, np.ndarray.min,
           np.ndarray.prod)


@adjoint(np.max, np.amax, np.ndarray.max, np.min, np.amin, np.ndarray.min)
def extremum(y, x, axis=None, out=None, keepdims=False):
    d[x] += rt.extremum_adjoint(d[y], x, y, axis, keepdims)


@tangent(np.max, np.amax, np.ndarray.max, np.min, np.amin, np.ndarray.min)
def extremum(y, x, axis=None, out=None, keepdims=False):  # noqa: F811
    d[y] = np.sum(rt.extremum_adjoint(np.ones_like(y), x, y, axis, keepdims) * d[x], axis=axis,
                  keepdims=keepdims)


@adjoint(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's parameter name
    d[x] += rt.norm_adjoint(d[y], x, y, ord, axis, keepdims)


@tangent(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):  # noqa: A002, F811
    d[y] = np.sum(rt.norm_adjoint(np.ones_like(y), x, y, ord, axis, keepdims) * d[x], axis=axis,
                  keepdims=keepdims)


shape_rule(shapes.reduction, np.amax, np.amin)


def _two_norm(arguments, carries, resolve):
    """A constant ord other than the 2-norm or Frobenius norm is an error at the call (an
    ord=2 of a matrix, the spectral norm, only when the derivative runs: rt.norm_adjoint)."""
    order = arguments["ord"]
    if isinstance(order, gast.Constant):
        value = order.value
    elif isinstance(order, gast.UnaryOp) and isinstance(order.operand, gast.Constant):
        value = -order.operand.value if isinstance(order.op, gast.USub) else None
    else:  # a static reference (np.inf), or a value known only at run time
        value = resolve(order)
        if not isinstance(value, (int, float, str)):
            return None
    if value in (None, 2, "fro"):
        return None
    return ("srcad differentiates np.linalg.norm for the 2-norm of vectors and the Frobenius "
            "norm of arrays, not ord=%r" % (value,),
            "Write the norm out (e.g. np.sum(np.abs(x)) for ord=1).")


constraint(_two_norm, np.linalg.norm)


def _norm_shape(x, ord=None, axis=shapes.Known(None), keepdims=shapes.Known(False), **kwargs):
    return shapes.reduction(x, axis, keepdims=keepdims)


shape_rule(_norm_shape, np.linalg.norm)
