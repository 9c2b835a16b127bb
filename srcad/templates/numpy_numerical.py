"""NumPy's numerical routines: convolve and correlate (1-D, modes full, same, valid),
polyval, interp, trapezoid, cov, corrcoef, logspace.

np.convolve and np.correlate are bilinear in their operands. The result in a mode is a
window of the full result (rt.convolution_padding: 'valid' takes the middle whichever
operand is the longer; 'same' has the longer length, and np.correlate, which correlates
v with a and reverses the result when v is the longer, starts its window one element
later than np.convolve for an even length); the adjoint pads g back to the full result
with zeros and correlates it with the other operand in 'valid' mode: np.correlate or
np.convolve again, so second order works through these same templates.

Points where srcad's derivative is not the function's (or the function has none):

* ``np.interp(x, xp, fp)`` is piecewise linear in x, with kinks at the knots xp: at a knot
  srcad uses the slope of the segment to its right (at the last knot xp[-1], and beyond
  either end, 0: the slope of the constant np.interp continues with). No derivative flows
  into xp, left or right (srcad raises UnsupportedOperationError at a call where one
  would), and ``period`` must be None.
* ``np.polyval(p, x)``: p a vector of coefficients (an array of them is refused when the
  derivative runs); a poly1d is not differentiated.
* ``np.trapezoid(y, x, dx, axis)``: derivatives in y and x; dx is held constant (an error
  at the call where a derivative would flow into it).
* ``np.cov(m, rowvar, bias, ddof)`` and ``np.corrcoef(x, rowvar)`` of one array of
  variables: a second array ``y`` and the weights (fweights, aweights) are refused at the
  call. The diagonal of corrcoef is 1 (NumPy clips its result to [-1, 1]): its derivative
  there is 0; where a variable is constant, corrcoef is nan and so is its derivative.
* ``np.logspace(start, stop, ...)``: derivatives in start and stop (arrays too); the base
  is held constant (an error at the call where a derivative would flow into it).
"""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, shape_rule, tangent
from srcad.templates import numpy_creation
from srcad.vocabulary import multilinear, no_derivative_in

_FULL, _VALID = shapes.Known("full"), shapes.Known("valid")
_NONE, _TRUE = shapes.Known(None), shapes.Known(True)


def _length_is_one(mode, first, second):
    """Whether an axis of a convolution's result in ``mode`` has length 1, from whether the
    operands' have (True, False, or None: unknown): 'full' n + m - 1 and NumPy's 'same'
    max(n, m) are 1 when both are; 'valid' |n - m| + 1 when both are, not when only one is;
    SciPy's 'same' has in1's length."""
    if mode in ("full", "numpy same"):
        if first is False or second is False:
            return False
        return True if first and second else None
    if mode == "valid":
        if first is None or second is None or (first is False and second is False):
            return None
        return first and second
    return first  # SciPy's 'same'


def convolution_shape(in1, in2, mode, same="scipy"):
    """The abstract result of a convolution or correlation of in1 and in2 in ``mode`` (a
    shapes.Known, or unknown): arrays of in1's rank, each axis 1 or not when the operands'
    tell (``same``: "numpy" for np.convolve's and np.correlate's 'same', the longer's)."""
    in1, in2 = shapes.plain(in1), shapes.plain(in2)
    if isinstance(in1, shapes.Scalar):
        in1 = shapes.Array((True,))
    if isinstance(in2, shapes.Scalar):
        in2 = shapes.Array((True,))
    if not isinstance(in1, shapes.Array):
        return shapes.UNKNOWN
    mode = mode.value if isinstance(mode, shapes.Known) else None
    mode = {0: "valid", 1: "same", 2: "full"}.get(mode, mode) if not isinstance(mode, str) \
        else mode
    if (not isinstance(in2, shapes.Array) or in2.ndim != in1.ndim
            or mode not in ("full", "same", "valid")):
        return shapes.Array((None,) * in1.ndim)
    if mode == "same" and same == "numpy":
        mode = "numpy same"
    return shapes.Array(tuple(_length_is_one(mode, a, b) for a, b in zip(in1.ones, in2.ones)))


def _numpy_convolution_shape(default_mode):
    def rule(a, v, mode=default_mode, *rest, **kwargs):
        return convolution_shape(a, v, mode, same="numpy")
    return rule


# np.convolve: the adjoint pads g back to the full result with zeros (rt.convolution_padding)
# and correlates it with the other operand in 'valid' mode; a number for an operand is a
# vector of one element (np.ravel)
multilinear(np.convolve, parameters='y, a, v, mode="full"',
            transposes={"a": "np.reshape(np.correlate(np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.convolve')), np.ravel(v), 'valid'), np.shape(a))",
                        "v": "np.reshape(np.correlate(np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.convolve')), np.ravel(a), 'valid'), np.shape(v))"},
            shape=_numpy_convolution_shape(_FULL))
# np.correlate(a, v) is the convolution of a with v reversed: v's adjoint is reversed back,
# which np.correlate(a, padded g, 'valid') does (NumPy reverses the result when the second
# operand is the longer)
multilinear(np.correlate, parameters='y, a, v, mode="valid"',
            transposes={"a": "np.reshape(np.convolve(np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.correlate')), v, 'valid'), np.shape(a))",
                        "v": "np.reshape(np.correlate(a, np.pad(g, rt.convolution_padding("
                             "g, a, v, mode, 'numpy.correlate')), 'valid'), np.shape(v))"},
            shape=_numpy_convolution_shape(_VALID))


def _shape_of_second(first, second, *rest, **kwargs):
    second = shapes.plain(second)
    return shapes.NUMPY_SCALAR if isinstance(second, shapes.Scalar) else second


# y = p[0] x^(N-1) + ... + p[N-1]: linear in p (its adjoint: g against x's powers,
# rt.polyval_adjoint), and dy/dx = polyval of the derivative's coefficients
@adjoint(np.polyval)
def polyval(y, p, x):
    d[p] += rt.polyval_adjoint(d[y], x, p)
    d[x] += d[y] * np.polyval(p[:-1] * rt.polynomial_exponents(p)[:-1], x)


@tangent(np.polyval)
def polyval(y, p, x):  # noqa: F811
    d[y] = np.polyval(d[p], x) + d[x] * np.polyval(p[:-1] * rt.polynomial_exponents(p)[:-1], x)


shape_rule(_shape_of_second, np.polyval)


# np.interp, piecewise linear in x: the slope of x's segment (at a knot, of the segment to its
# right; 0 at the last knot and beyond); linear in fp: rt.interp_transpose shares g between
# the ends of x's segment
@adjoint(np.interp)
def interp(y, x, xp, fp, left=None, right=None, period=None):
    d[x] += d[y] * rt.interp_slope(x, xp, fp)
    d[fp] += rt.interp_transpose(d[y], x, xp, left, right)


@tangent(np.interp)
def interp(y, x, xp, fp, left=None, right=None, period=None):  # noqa: F811
    d[y] = d[x] * rt.interp_slope(x, xp, fp) + rt.interp_linear(x, xp, d[fp], left, right)


def _without_period(arguments, carries, resolve):
    period = arguments.get("period")
    if isinstance(period, gast.Constant) and period.value is None:
        return None
    return ("srcad differentiates np.interp without a period only",
            "Reduce x modulo the period yourself and extend xp and fp by one period.")


constraint(no_derivative_in("xp", "left", "right", why="the knots and the values beyond "
                                                    "them are held constant"), np.interp)
constraint(_without_period, np.interp)
def interpolated_shape(x, *rest, **kwargs):
    """np.interp(x, ...) and its helpers' values at x: x's pattern; a NumPy scalar for a
    scalar x (a Python float too)."""
    x = shapes.plain(x)
    return shapes.ANY_SCALAR if isinstance(x, shapes.Scalar) else x


def knots_shape(knots):
    """A vector of one entry per knot (np.interp's adjoint in fp)."""
    knots = shapes.plain(knots)
    if isinstance(knots, shapes.Array) and knots.ndim == 1:
        return knots
    return shapes.UNKNOWN


shape_rule(interpolated_shape, np.interp)


# np.trapezoid(y, x, dx, axis) = np.sum(y * w, axis), the weights w linear in x
@adjoint(np.trapezoid)
def trapezoid(r, y, x=None, dx=1.0, axis=-1):
    d[y] += rt.unbroadcast(np.expand_dims(d[r], axis) * rt.trapezoid_weights(x, dx, y, axis), y)
    d[x] += rt.trapezoid_weights_transpose(np.expand_dims(d[r], axis) * y, x, y, axis)


@tangent(np.trapezoid)
def trapezoid(r, y, x=None, dx=1.0, axis=-1):  # noqa: F811
    d[r] = np.trapezoid(d[y], x, dx, axis) + np.sum(
        y * rt.trapezoid_weights(d[x], dx, y, axis), axis)


constraint(no_derivative_in("dx", why="the spacing of the samples is held constant"),
           np.trapezoid)


def _trapezoid_shape(y, x=_NONE, dx=None, axis=shapes.Known(-1), *rest, **kwargs):
    """np.trapezoid(y, x, dx, axis): a sum along ``axis`` of y's intervals times x's widths
    (x None or a vector: y's; an array of y's rank: broadcast with y's) without that axis (a
    NumPy scalar for a vector y)."""
    y, x = shapes.plain(y), (shapes.plain(x) if x != _NONE else None)
    if not isinstance(y, shapes.Array) or not isinstance(axis, shapes.Known) or type(
            axis.value) is not int or not -y.ndim <= axis.value < y.ndim:
        return shapes.UNKNOWN
    if isinstance(x, shapes.Array) and x.ndim > 1:
        if x.ndim != y.ndim:
            return shapes.UNKNOWN
        y = shapes.elementwise(x, y)
    elif not (x is None or isinstance(x, shapes.Array)):
        return shapes.UNKNOWN
    kept = y.ones[:axis.value % y.ndim] + y.ones[axis.value % y.ndim + 1:]
    return shapes.Array(kept) if kept else shapes.NUMPY_SCALAR


shape_rule(_trapezoid_shape, np.trapezoid)


def _one_array_of_variables(arguments, carries, resolve):
    """np.cov and np.corrcoef of one array, without weights."""
    for name in ("y", "fweights", "aweights"):
        value = arguments.get(name)
        if value is not None and not (isinstance(value, gast.Constant) and value.value is None):
            return ("srcad differentiates np.cov and np.corrcoef of one array of variables, "
                    "without %s" % name,
                    "Stack the variables into one array (np.vstack([m, y]), or "
                    "np.column_stack with rowvar=False)." if name == "y" else
                    "Write the weighted covariance out with np.average and np.dot.")
    return None


# C = Xc Xcᵀ / (N - ddof), Xc = X less its rows' means: X̄ = (C̄ + C̄ᵀ) Xc / (N - ddof),
# whose rows have mean 0 already (Xc's have), so the centering's adjoint leaves it as is
@adjoint(np.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    variables = rt.cov_variables(m, rowvar)
    centered = variables - np.mean(variables, axis=1, keepdims=True)
    square = np.reshape(d[c], rt.cov_shape(variables))
    d[m] += rt.cov_variables_adjoint(np.matmul(square + np.transpose(square), centered)
                                     / rt.cov_divisor(variables, bias, ddof), m, rowvar)


@tangent(np.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,  # noqa: F811
        aweights=None, dtype=None):
    variables = rt.cov_variables(m, rowvar)
    product = np.matmul(rt.cov_variables(d[m], rowvar), np.transpose(
        variables - np.mean(variables, axis=1, keepdims=True)))
    d[c] = np.reshape((product + np.transpose(product)) / rt.cov_divisor(variables, bias, ddof),
                      np.shape(c))


# R = U Uᵀ, U the centered rows scaled to norm 1 (the normalization cancels): Ū = (R̄ + R̄ᵀ) U,
# and through u = x / |x|, x̄ = (ū - u (u·ū)) / |x|, rows of mean 0 again
@adjoint(np.corrcoef)
def corrcoef(r, x, y=None, rowvar=True, dtype=None):
    variables = rt.cov_variables(x, rowvar)
    centered = variables - np.mean(variables, axis=1, keepdims=True)
    lengths = np.sqrt(np.sum(centered * centered, axis=1, keepdims=True))
    unit = centered / lengths
    square = np.reshape(d[r], rt.cov_shape(variables))
    unit_bar = np.matmul(square + np.transpose(square), unit)
    d[x] += rt.cov_variables_adjoint(
        (unit_bar - unit * np.sum(unit * unit_bar, axis=1, keepdims=True)) / lengths, x, rowvar)


@tangent(np.corrcoef)
def corrcoef(r, x, y=None, rowvar=True, dtype=None):  # noqa: F811
    variables = rt.cov_variables(x, rowvar)
    centered = variables - np.mean(variables, axis=1, keepdims=True)
    lengths = np.sqrt(np.sum(centered * centered, axis=1, keepdims=True))
    unit = centered / lengths
    moved = rt.cov_variables(d[x], rowvar)
    moved = moved - np.mean(moved, axis=1, keepdims=True)
    product = np.matmul((moved - unit * np.sum(unit * moved, axis=1, keepdims=True)) / lengths,
                        np.transpose(unit))
    d[r] = np.reshape(product + np.transpose(product), np.shape(r))


constraint(_one_array_of_variables, np.cov, np.corrcoef)


def _covariance_shape(m, y=_NONE, rowvar=_TRUE, *rest, **kwargs):
    """np.cov(m, y, rowvar): a matrix of a row and a column per variable
    (m's rows, or its columns when rowvar is False and m is no vector), squeezed: a 0-d array
    for one variable (a number or a vector m)."""
    m = shapes.plain(m)
    if y != _NONE:
        return shapes.UNKNOWN
    if isinstance(m, shapes.Scalar) or (isinstance(m, shapes.Array) and m.ndim <= 1):
        return shapes.Array(())
    if not isinstance(m, shapes.Array) or m.ndim != 2 or not isinstance(rowvar, shapes.Known):
        return shapes.UNKNOWN
    one = m.ones[0] if rowvar.value else m.ones[1] if m.ones[0] is False or m.ones[1] else None
    # (a 1 x N matrix with rowvar False is N variables from NumPy 2.2 on, one before: numpy
    # issue 27658)
    if one is None:
        return shapes.UNKNOWN  # squeezed to 0-d or not: the rank is not known
    return shapes.Array(()) if one else shapes.Array((False, False))


def _correlation_shape(x, *rest, **kwargs):
    """np.corrcoef: np.cov's, but a NumPy scalar for one variable (NumPy divides the 0-d
    covariance by itself)."""
    shape = _covariance_shape(x, *rest, **kwargs)
    return shapes.NUMPY_SCALAR if shape == shapes.Array(()) else shape


shape_rule(_covariance_shape, np.cov)
shape_rule(_correlation_shape, np.corrcoef)


# y = base ** linspace(start, stop, ...): dy = y log(base) d(linspace), whose adjoint is
# linspace's (srcad/templates/numpy_creation.py)
@adjoint(np.logspace)
def logspace(y, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    d[start] += rt.unbroadcast(np.sum(d[y] * y * rt.logspace_log_base(base, y, axis)
                                      * rt.linspace_weights(y, num, endpoint, axis, 0),
                                      axis=axis), start)
    d[stop] += rt.unbroadcast(np.sum(d[y] * y * rt.logspace_log_base(base, y, axis)
                                     * rt.linspace_weights(y, num, endpoint, axis, 1),
                                     axis=axis), stop)


@tangent(np.logspace)
def logspace(y, start, stop, num=50, endpoint=True, base=10.0, dtype=None,  # noqa: F811
             axis=0):
    d[y] = y * rt.logspace_log_base(base, y, axis) * np.linspace(d[start], d[stop], num,
                                                                 endpoint, axis=axis)


constraint(no_derivative_in("base", why="it is held constant"), np.logspace)


def _logspace_shape(start, stop, num=shapes.Known(50), endpoint=None,
                    base=shapes.Known(10.0), dtype=None, axis=shapes.Known(0)):
    return numpy_creation.spaced_shape(start, stop, num, axis, base)


shape_rule(_logspace_shape, np.logspace)
