"""Reductions and scans: sum, mean, prod, var, std, max, min, ptp, median, quantile,
percentile, average, norm, the nan-ignoring ones, cumsum, cumprod and diff, as functions
and as array methods, with axis/keepdims/ddof. ``reduction`` (srcad/vocabulary.py) declares
the linear ones.

At ties, max, min, ptp (and nanmax, nanmin) share the derivative equally among the tied
extremes (rt.extremum_adjoint). std at a slice of equal values (std 0, not differentiable)
reads its derivative as 0, in every order."""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, facts, shape_rule, tangent
from srcad.vocabulary import linear, reduction


reduction(np.sum, np.ndarray.sum, transpose="rt.expand_reduced(g, x, axis, keepdims)")
# g divided before it is spread (a division per reduced value, the spread a broadcast view)
reduction(np.mean, np.ndarray.mean,
          transpose="rt.expand_reduced(g / rt.reduced_size(x, axis), x, axis, keepdims)")
shape_rule(shapes.reduction, np.max, np.min, np.ndarray.max, np.ndarray.min)


@adjoint(np.max, np.amax, np.ndarray.max, np.min, np.amin, np.ndarray.min)
def extremum(y, x, axis=None, out=None, keepdims=False):
    d[x] += rt.extremum_adjoint(d[y], x, y, axis, keepdims)


@tangent(np.max, np.amax, np.ndarray.max, np.min, np.amin, np.ndarray.min)
def extremum(y, x, axis=None, out=None, keepdims=False):  # noqa: F811
    d[y] = np.sum(rt.extremum_adjoint(np.ones_like(y), x, y, axis, keepdims) * d[x], axis=axis,
                  keepdims=keepdims)


# nanmax and nanmin: a nan element never equals the extremum, so it gets no derivative
@adjoint(np.nanmax, np.nanmin)
def nan_extremum(y, x, axis=None, out=None, keepdims=False):
    d[x] += rt.extremum_adjoint(d[y], x, y, axis, keepdims)


@tangent(np.nanmax, np.nanmin)
def nan_extremum(y, x, axis=None, out=None, keepdims=False):  # noqa: F811
    d[y] = np.sum(rt.extremum_adjoint(np.ones_like(y), x, y, axis, keepdims) * d[x], axis=axis,
                  keepdims=keepdims)


# np.linalg.norm, every ord and axis NumPy accepts: the adjoint is ȳ (expanded over the
# reduced axes) times each norm's gradient, rt.norm_gradient; its own derivative is each
# norm's Hessian (rt.norm_hessian_product: second order; third order is not supported).
# The gradient, per vector slice (one axis, or x flattened when ord and axis are None):
#   2 (the default): x / y;  any other real p (fractional, negative): sign(x) (|x| / y)^(p-1);
#   1: sign(x);  inf / -inf: sign(x) at the largest / smallest |x|, shared equally among
#   ties;  0 (a count of nonzeros): 0.
# per matrix (two axes, or a 2-D x with ord given; stacks over the other axes):
#   'fro' (and ord None): x / y;  1 / -1: sign(x) on the column of largest / smallest
#   absolute sum, shared equally among tied columns (inf / -inf: rows, the same);
#   2 / -2: u vᵀ of the largest / smallest singular value;  'nuc': U Vᵀ (reduced SVD).
# Kinks: where a vector norm or 'fro' is 0 (x = 0; for a negative p, any zero element) srcad
# returns 0 for its gradient and Hessian; an element at 0 gets sign(0) = 0 (ord 1, inf,
# matrix 1 and inf) and, for p < 1, 0; at ties (inf, -inf, matrix ±1 and ±inf) the derivative
# is shared as above. 2 / -2 need the chosen singular value simple and nonzero, 'nuc' all
# singular values nonzero: elsewhere (a zero matrix, a repeated extreme singular value, a
# singular matrix) srcad returns the u vᵀ of NumPy's SVD, one subgradient, and a Hessian
# that reads 1 / 0 as 0 (near there it grows like 1 / the gap).
@adjoint(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's parameter name
    d[x] += rt.expand_reduced(d[y], x, axis, keepdims) * rt.norm_gradient(x, ord, axis)


@tangent(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):  # noqa: A002, F811
    d[y] = np.sum(rt.norm_gradient(x, ord, axis) * d[x], axis=axis, keepdims=keepdims)


shape_rule(shapes.reduction, np.amax, np.amin, np.nanmax, np.nanmin)


def _order_without_derivative(arguments, carries, resolve):
    """ord is a constant of the norm: a derivative with respect to it is not supported."""
    order = arguments.get("ord")
    if order is not None and carries(order):
        return ("srcad differentiates np.linalg.norm in x, not in ord",
                "Pass ord as a constant (or wrap it in srcad.stop_gradient).")
    return None


constraint(_order_without_derivative, np.linalg.norm)


def _norm_shape(x, ord=None, axis=shapes.Known(None), keepdims=shapes.Known(False), **kwargs):
    return shapes.reduction(x, axis, keepdims=keepdims)


shape_rule(_norm_shape, np.linalg.norm)


# var = sum((x - mean)^2) / (n - ddof) over the reduced axes
@adjoint(np.var, np.ndarray.var)
def var(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] += rt.expand_reduced(d[y], x, axis, keepdims) * (
        (x - np.mean(x, axis=axis, keepdims=True)) * (2.0 / (rt.reduced_size(x, axis) - ddof)))


@tangent(np.var, np.ndarray.var)
def var(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):  # noqa: F811
    d[y] = np.sum(d[x] * (x - np.mean(x, axis=axis, keepdims=True)), axis=axis,
                  keepdims=keepdims) * (2.0 / (rt.reduced_size(x, axis) - ddof))


# std = sqrt(var); where it is 0 (equal values) its derivative is read as 0
@adjoint(np.std, np.ndarray.std)
def std(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] += rt.expand_reduced(d[y] / rt.nonzero(y), x, axis, keepdims) * (
        (x - np.mean(x, axis=axis, keepdims=True)) / (rt.reduced_size(x, axis) - ddof))


@tangent(np.std, np.ndarray.std)
def std(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):  # noqa: F811
    d[y] = np.sum(d[x] * (x - np.mean(x, axis=axis, keepdims=True)), axis=axis,
                  keepdims=keepdims) / (rt.nonzero(y) * (rt.reduced_size(x, axis) - ddof))


shape_rule(shapes.reduction, np.var, np.ndarray.var, np.std, np.ndarray.std)
facts(np.var, np.ndarray.var, np.std, np.ndarray.std, allocating=True)


# ptp = max - min (ties shared as max's and min's)
@adjoint(np.ptp)
def ptp(y, x, axis=None, out=None, keepdims=False):
    d[x] += (rt.extremum_adjoint(d[y], x, np.max(x, axis=axis, keepdims=keepdims), axis, keepdims)
             - rt.extremum_adjoint(d[y], x, np.min(x, axis=axis, keepdims=keepdims), axis,
                                   keepdims))


@tangent(np.ptp)
def ptp(y, x, axis=None, out=None, keepdims=False):  # noqa: F811
    d[y] = np.sum((rt.extremum_adjoint(np.ones_like(y), x, np.max(x, axis=axis, keepdims=keepdims),
                                       axis, keepdims)
                   - rt.extremum_adjoint(np.ones_like(y), x,
                                         np.min(x, axis=axis, keepdims=keepdims), axis, keepdims))
                  * d[x], axis=axis, keepdims=keepdims)


shape_rule(shapes.reduction, np.ptp)
facts(np.ptp, allocating=True)


# nansum and nanmean skip nan elements: they get no derivative (nanmean divides by the count
# of the others)
linear(np.nansum, parameters="y, x, axis=None, dtype=None, out=None, keepdims=False",
       transpose="np.where(np.isnan(x), 0.0, rt.expand_reduced(g, x, axis, keepdims))",
       tangent="np.sum(np.where(np.isnan(x), 0.0, d[x]), axis=axis, keepdims=keepdims)",
       shape=shapes.reduction)
linear(np.nanmean, parameters="y, x, axis=None, dtype=None, out=None, keepdims=False",
       transpose="np.where(np.isnan(x), 0.0, rt.expand_reduced(g, x, axis, keepdims) / np.sum("
                 "np.logical_not(np.isnan(x)), axis=axis, keepdims=True))",
       tangent="np.sum(np.where(np.isnan(x), 0.0, d[x]), axis=axis, keepdims=keepdims) / np.sum("
               "np.logical_not(np.isnan(x)), axis=axis, keepdims=keepdims)",
       shape=shapes.reduction)
facts(np.nansum, np.nanmean, allocating=True)


def _cumulative_shape(x, axis=shapes.Known(None), *rest, **kwargs):
    """cumsum, cumprod: x's shape along an axis; flattened (one axis) without."""
    x = shapes.plain(x)
    if not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    if isinstance(x, shapes.Scalar):
        return shapes.Array((True,))
    if not isinstance(x, shapes.Array) or axis.value is not None or x.ndim == 1:
        return x
    if all(one is True for one in x.ones):
        return shapes.Array((True,))
    return shapes.Array((False,) if False in x.ones else (None,))


# cumsum: linear; its transpose sums g from each element to the end (rt.reverse_cumsum)
linear(np.cumsum, np.ndarray.cumsum, parameters="y, x, axis=None, dtype=None, out=None",
       transpose="rt.reverse_cumsum(g, x, axis)", tangent="np.cumsum(d[x], axis=axis)",
       shape=_cumulative_shape)
facts(np.cumsum, np.ndarray.cumsum, allocating=True)


# cumprod: derivatives by recurrences along the axis (rt.cumprod_adjoint, rt.cumprod_tangent:
# no division by x, exact where x has zeros; a Python loop over the scanned axis, vectorized
# over the others); second order too, third order not supported
@adjoint(np.cumprod, np.ndarray.cumprod)
def cumprod(y, x, axis=None, dtype=None, out=None):
    d[x] += rt.cumprod_adjoint(d[y], x, axis)


@tangent(np.cumprod, np.ndarray.cumprod)
def cumprod(y, x, axis=None, dtype=None, out=None):  # noqa: F811
    d[y] = rt.cumprod_tangent(d[x], x, axis)


shape_rule(_cumulative_shape, np.cumprod, np.ndarray.cumprod)
facts(np.cumprod, np.ndarray.cumprod, allocating=True)


def _difference_shape(x, n=shapes.Known(1), axis=shapes.Known(-1), *rest, **kwargs):
    """diff: x's shape, the differenced axis shorter (of a size not known here)."""
    x = shapes.plain(x)
    if not isinstance(x, shapes.Array) or not isinstance(axis, shapes.Known) or not x.ndim:
        return shapes.UNKNOWN
    differenced = axis.value % x.ndim
    return shapes.Array(tuple(None if i == differenced else one for i, one in enumerate(x.ones)))


# diff (without prepend/append): linear; its transpose is rt.diff_adjoint
linear(np.diff, parameters="y, x, n=1, axis=-1", transpose="rt.diff_adjoint(g, n, axis)",
       tangent="np.diff(d[x], n, axis)", shape=_difference_shape)
facts(np.diff, allocating=True)


# prod: each element's derivative is the product of the others in its slice
# (rt.product_of_others, without dividing by x: exact where x has zeros, any number of them);
# second order too (rt.product_of_others_tangent); third order is not supported (a
# MissingTemplateError for rt.product_of_others_tangent)
@adjoint(np.prod, np.ndarray.prod)
def prod(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] += rt.expand_reduced(d[y], x, axis, keepdims) * rt.product_of_others(x, axis)


@tangent(np.prod, np.ndarray.prod)
def prod(y, x, axis=None, dtype=None, out=None, keepdims=False):  # noqa: F811
    d[y] = np.sum(d[x] * rt.product_of_others(x, axis), axis=axis, keepdims=keepdims)


shape_rule(shapes.reduction, np.prod, np.ndarray.prod)
facts(np.prod, np.ndarray.prod, allocating=True)


# average = sum(w x) / sum(w) over the axes (w: the weights laid over x, ones without):
# its derivative in x is w / sum(w), in w (x - average) / sum(w)
@adjoint(np.average)
def average(y, x, axis=None, weights=None, returned=False, keepdims=False):
    laid = rt.weights_along(weights, x, axis)
    share = rt.expand_reduced(d[y], x, axis, keepdims) / np.sum(laid, axis=axis, keepdims=True)
    d[x] += share * laid
    d[weights] += rt.weights_along_adjoint(
        share * (x - rt.expand_reduced(y, x, axis, keepdims)), weights, axis)


@tangent(np.average)
def average(y, x, axis=None, weights=None, returned=False, keepdims=False):  # noqa: F811
    laid = rt.weights_along(weights, x, axis)
    d[y] = (np.sum(d[x] * laid, axis=axis, keepdims=keepdims)
            + np.sum(rt.weights_along(d[weights], x, axis)
                     * (x - rt.expand_reduced(y, x, axis, keepdims)), axis=axis,
                     keepdims=keepdims)) / np.sum(laid, axis=axis, keepdims=keepdims)


def _average_returns_one_value(arguments, carries, resolve):
    """average(..., returned=True) returns a pair (average, sum of weights): not supported."""
    returned = arguments.get("returned")
    if returned is None or (isinstance(returned, gast.Constant) and not returned.value):
        return None
    return ("srcad differentiates np.average without returned=True",
            "Compute the sum of the weights apart: np.sum(weights).")


constraint(_average_returns_one_value, np.average)
shape_rule(shapes.reduction, np.average)
facts(np.average, allocating=True)


# median, quantile, percentile (linear interpolation, NumPy's default method): the derivative
# goes to the element(s) each one selects, split as it interpolates between two; at ties the
# first tied element in memory order is the one selected (a stable sort)
@adjoint(np.quantile)
def quantile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    d[x] += rt.quantile_adjoint(d[y], x, q, axis, keepdims)


@tangent(np.quantile)
def quantile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",  # noqa: F811
             keepdims=False):
    d[y] = rt.quantile_tangent(d[x], x, q, axis, keepdims)


@adjoint(np.percentile)
def percentile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    d[x] += rt.quantile_adjoint(d[y], x, np.true_divide(q, 100.0), axis, keepdims)


@tangent(np.percentile)
def percentile(y, x, q, axis=None, out=None, overwrite_input=False,  # noqa: F811
               method="linear", keepdims=False):
    d[y] = rt.quantile_tangent(d[x], x, np.true_divide(q, 100.0), axis, keepdims)


@adjoint(np.median)
def median(y, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[x] += rt.quantile_adjoint(d[y], x, 0.5, axis, keepdims)


@tangent(np.median)
def median(y, x, axis=None, out=None, overwrite_input=False, keepdims=False):  # noqa: F811
    d[y] = rt.quantile_tangent(d[x], x, 0.5, axis, keepdims)


def _linear_quantile(arguments, carries, resolve):
    """Quantiles by linear interpolation (the default), of an x left as it is, at q without
    a derivative."""
    method = arguments.get("method")
    if method is not None and not (isinstance(method, gast.Constant)
                                   and method.value == "linear"):
        return ("srcad differentiates quantiles with NumPy's default method='linear' only",
                "Leave method out (or write method='linear').")
    overwrite = arguments.get("overwrite_input")
    if overwrite is not None and not (isinstance(overwrite, gast.Constant)
                                      and not overwrite.value):
        return ("srcad cannot differentiate a quantile that overwrites its input",
                "Leave overwrite_input out.")
    if "q" in arguments and carries(arguments["q"]):
        return ("srcad differentiates a quantile in x, not in q",
                "Pass q as a constant (or wrap it in srcad.stop_gradient).")
    return None


constraint(_linear_quantile, np.quantile, np.percentile, np.median)


def _quantile_shape(x, q=shapes.Known(0.5), axis=shapes.Known(None), *rest,
                    keepdims=shapes.Known(False), **kwargs):
    """The reduction's shape, after q's axes."""
    reduced = shapes.reduction(x, axis, keepdims=keepdims)
    if isinstance(q, shapes.IndexTuple) and all(  # a list of quantiles
            isinstance(shapes.plain(part), shapes.Scalar) for part in q.parts):
        q = shapes.Array((len(q.parts) == 1,))
    q = shapes.plain(q)
    if isinstance(q, shapes.Scalar) or reduced is shapes.UNKNOWN:
        return reduced
    if not isinstance(q, shapes.Array):
        return shapes.UNKNOWN
    return shapes.Array(q.ones + (reduced.ones if isinstance(reduced, shapes.Array) else ()))


shape_rule(_quantile_shape, np.quantile, np.percentile)
shape_rule(lambda x, axis=shapes.Known(None), *rest, keepdims=shapes.Known(False), **kwargs:
           shapes.reduction(x, axis, keepdims=keepdims), np.median)
facts(np.quantile, np.percentile, np.median, allocating=True)


# nanvar, nanstd, nanprod, nancumsum, nancumprod: var, std, prod, cumsum, cumprod of the
# elements that are not nan (NumPy's definitions: a nan counts as absent, as 1 in a product, as
# 0 in a sum); a nan element gets no derivative
@adjoint(np.nanvar)
def nanvar(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] += np.where(np.isnan(x), 0.0, rt.expand_reduced(d[y], x, axis, keepdims) * (
        (x - np.nanmean(x, axis=axis, keepdims=True)) * 2.0
        / (np.sum(np.logical_not(np.isnan(x)), axis=axis, keepdims=True) - ddof)))


@tangent(np.nanvar)
def nanvar(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):  # noqa: F811
    d[y] = np.sum(np.where(np.isnan(x), 0.0, d[x] * (x - np.nanmean(x, axis=axis, keepdims=True))),
                  axis=axis, keepdims=keepdims) * 2.0 / (
        np.sum(np.logical_not(np.isnan(x)), axis=axis, keepdims=keepdims) - ddof)


# nanstd = sqrt(nanvar); where it is 0 its derivative is read as 0, as std's
@adjoint(np.nanstd)
def nanstd(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] += np.where(np.isnan(x), 0.0, rt.expand_reduced(d[y] / rt.nonzero(y), x, axis, keepdims)
                     * (x - np.nanmean(x, axis=axis, keepdims=True))
                     / (np.sum(np.logical_not(np.isnan(x)), axis=axis, keepdims=True) - ddof))


@tangent(np.nanstd)
def nanstd(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):  # noqa: F811
    d[y] = np.sum(np.where(np.isnan(x), 0.0, d[x] * (x - np.nanmean(x, axis=axis, keepdims=True))),
                  axis=axis, keepdims=keepdims) / (rt.nonzero(y) * (
                      np.sum(np.logical_not(np.isnan(x)), axis=axis, keepdims=keepdims) - ddof))


@adjoint(np.nanprod)
def nanprod(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] += np.where(np.isnan(x), 0.0, rt.expand_reduced(d[y], x, axis, keepdims)
                     * rt.product_of_others(np.where(np.isnan(x), 1.0, x), axis))


@tangent(np.nanprod)
def nanprod(y, x, axis=None, dtype=None, out=None, keepdims=False):  # noqa: F811
    d[y] = np.sum(np.where(np.isnan(x), 0.0, d[x])
                  * rt.product_of_others(np.where(np.isnan(x), 1.0, x), axis),
                  axis=axis, keepdims=keepdims)


linear(np.nancumsum, parameters="y, x, axis=None, dtype=None, out=None",
       transpose="np.where(np.isnan(x), 0.0, rt.reverse_cumsum(g, x, axis))",
       tangent="np.cumsum(np.where(np.isnan(x), 0.0, d[x]), axis=axis)")


@adjoint(np.nancumprod)
def nancumprod(y, x, axis=None, dtype=None, out=None):
    d[x] += np.where(np.isnan(x), 0.0,
                     rt.cumprod_adjoint(d[y], np.where(np.isnan(x), 1.0, x), axis))


@tangent(np.nancumprod)
def nancumprod(y, x, axis=None, dtype=None, out=None):  # noqa: F811
    d[y] = rt.cumprod_tangent(np.where(np.isnan(x), 0.0, d[x]), np.where(np.isnan(x), 1.0, x),
                              axis)


shape_rule(shapes.reduction, np.nanvar, np.nanstd, np.nanprod)
shape_rule(_cumulative_shape, np.nancumsum, np.nancumprod)
facts(np.nanvar, np.nanstd, np.nanprod, np.nancumsum, np.nancumprod, allocating=True)
