"""scipy.special: log-sum-exp and softmax, the gamma and error function families, Bessel
functions, entropies. Registered only when SciPy imports (it is an optional dependency:
without it this module registers nothing).

Derivatives are written with scipy.special's own functions (the derivative of gammaln
is digamma, of digamma polygamma(1, .)...), so second order works through them.

Points where srcad's derivative is not the function's (or the function has none):

* ``xlogy(x, y)`` is 0 at x = 0 whatever y: srcad's derivative in x there is log(y)
  (-inf at y = 0), in y it is x / y (0 for y != 0, nan at x = y = 0);
  ``xlog1py(x, y)`` alike with log1p(y) and x / (1 + y).
* ``entr(x)`` at x = 0: -inf (the one-sided derivative -log(x) - 1); ``rel_entr(x, y)``
  at x = 0: -inf in x, 0 in y.
* ``ive(v, x)`` = iv(v, x) exp(-|x|), ``i0e`` and ``i1e`` have a kink at x = 0: srcad
  uses sign(0) = 0 there.
* ``rgamma`` at a pole of gamma (0, -1, -2...): nan (digamma is infinite there).
* ``i1`` where it overflows (|x| > 713): nan (its derivative, I0 - I1 / x, is inf - inf
  there).
* ``gammasgn`` is piecewise constant: non-differentiable (its derivative is 0 wherever it
  exists).
* No derivative in an order or a shape parameter: ``polygamma``'s n and ``yn``'s n
  (integers), ``iv``/``ive``/``kv``/``jv``/``yv``'s order v, ``gammainc``/``gammaincc``'s a and
  ``betainc``'s a and b (a derivative there has no closed form in scipy.special):
  srcad raises UnsupportedOperationError at a call where a derivative would flow into
  one of them. ``multigammaln``'s d is an integer. ``logsumexp(..., return_sign=True)``
  is refused the same way (its sign output is a step function).
"""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, nondifferentiable, shape_rule, tangent
from srcad.vocabulary import binary, elementwise, no_derivative_in

try:
    from scipy import special
except ImportError:  # SciPy is optional: without it this module registers nothing
    special = None

SQRT_PI_OVER_2 = 0.886226925452758  # sqrt(pi) / 2
TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi)
INVERSE_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
SQRT_2PI = 2.5066282746310002


def _no_sign(arguments, carries, resolve):
    """logsumexp(..., return_sign=True) returns (value, sign): refused (see the doc)."""
    value = arguments.get("return_sign")
    if isinstance(value, gast.Constant) and value.value is False:
        return None
    return ("srcad differentiates scipy.special.logsumexp with return_sign=False only",
            ("Leave return_sign out; for signed weights b, the result is nan where the "
             "weighted sum is negative."))


def _reduction_like_first(x, *rest, **kwargs):
    """softmax and log_softmax: the shape of their input."""
    return shapes.elementwise(x)


_NONE, _FALSE = shapes.Known(None), shapes.Known(False)


def _logsumexp_shape(a, axis=_NONE, b=_NONE, keepdims=_FALSE, **kwargs):
    """A reduction of a (of its broadcast with b, when b is given). (SciPy 1.17 keeps the
    dims of a 0-d input as shape (1,): unknown then.)"""
    whole = shapes.elementwise(a, b) if b != _NONE else shapes.plain(a)
    if keepdims != _FALSE and not (isinstance(whole, shapes.Array) and whole.ndim):
        return shapes.UNKNOWN
    return shapes.reduction(whole, axis, keepdims=keepdims)


if special is not None:
    # ---- one argument, elementwise
    elementwise(special.expit, derivative="g * y * (1.0 - y)")
    elementwise(special.logit, derivative="g / (x * (1.0 - x))")
    elementwise(special.log_expit, derivative="g * special.expit(-x)")
    elementwise(special.gammaln, derivative="g * special.digamma(x)")
    elementwise(special.gamma, derivative="g * y * special.digamma(x)")
    elementwise(special.rgamma, derivative="-g * y * special.digamma(x)")
    elementwise(special.digamma, derivative="g * special.polygamma(1, x)")  # also special.psi
    elementwise(special.erf, derivative="g * TWO_OVER_SQRT_PI * np.exp(-x * x)")
    elementwise(special.erfc, derivative="-g * TWO_OVER_SQRT_PI * np.exp(-x * x)")
    elementwise(special.erfinv, derivative="g * SQRT_PI_OVER_2 * np.exp(y * y)")
    elementwise(special.erfcinv, derivative="-g * SQRT_PI_OVER_2 * np.exp(y * y)")
    elementwise(special.ndtr, derivative="g * INVERSE_SQRT_2PI * np.exp(-0.5 * x * x)")
    elementwise(special.ndtri, derivative="g * SQRT_2PI * np.exp(0.5 * y * y)")
    # phi(x) / Phi(x) as exp(-x^2 / 2 - log Phi(x)): finite far into the left tail
    elementwise(special.log_ndtr, derivative="g * INVERSE_SQRT_2PI * np.exp(-0.5 * x * x - y)")
    elementwise(special.entr, derivative="-g * (np.log(x) + 1.0)")
    elementwise(special.i0, derivative="g * special.i1(x)")
    elementwise(special.j0, derivative="-g * special.j1(x)")
    # Order-1 Bessel functions by the recurrence Z1' = Z0 - Z1 / x (K1' = -K0 - K1 / x),
    # from the result: 0.5 (Z0 - Z2) costs an order-2 evaluation, 10 to 35 times Z1's own.
    # J1(x) / x and I1(x) / x by rt.j1_over_x and rt.i1_over_x: 1/2 at 0, their series near
    # 0, and their own derivatives (second order) -J2(x) / x and I2(x) / x, which do not
    # cancel near 0 as the quotient's would (relative 1e-16 / x^2).
    elementwise(special.i1, derivative="g * (special.i0(x) - rt.i1_over_x(y, x))")
    elementwise(special.j1, derivative="g * (special.j0(x) - rt.j1_over_x(y, x))")

    # d/dx (x^-1 J1(x)) = -x^-1 J2(x), d/dx (x^-1 I1(x)) = x^-1 I2(x) (J2(x)/x, I2(x)/x are 0
    # at 0); y = J1(x) (I1(x)) is a function of x: its derivative is in these, none in y
    @adjoint(rt.j1_over_x)
    def j1_over_x(q, y, x):
        d[x] -= d[q] * special.jv(2, x) / rt.nonzero(x)

    @tangent(rt.j1_over_x)
    def j1_over_x(q, y, x):  # noqa: F811
        d[q] = -d[x] * special.jv(2, x) / rt.nonzero(x)

    @adjoint(rt.i1_over_x)
    def i1_over_x(q, y, x):
        d[x] += d[q] * special.iv(2, x) / rt.nonzero(x)

    @tangent(rt.i1_over_x)
    def i1_over_x(q, y, x):  # noqa: F811
        d[q] = d[x] * special.iv(2, x) / rt.nonzero(x)

    shape_rule(shapes.elementwise, rt.j1_over_x, rt.i1_over_x)
    elementwise(special.y0, derivative="-g * special.y1(x)")
    elementwise(special.y1, derivative="g * (special.y0(x) - y / x)")
    # exponentially scaled: i0e(x) = i0(x) exp(-|x|), erfcx(x) = exp(x^2) erfc(x)
    elementwise(special.i0e, derivative="g * (special.i1e(x) - np.sign(x) * y)")
    # (the series of exp(-|x|) I1(x) / x: 1/2 - |x|/2 + 5 x^2/16 - 7 |x|^3/48 + 7 x^4/128)
    elementwise(special.i1e, derivative="g * (special.i0e(x) - np.where(np.abs(x) < 1e-4, 0.5 "
                                        "+ np.abs(x) * (np.abs(x) * (0.3125 + np.abs(x) * ("
                                        "0.0546875 * np.abs(x) - 0.14583333333333334)) - 0.5), "
                                        "y / rt.nonzero(x)) - np.sign(x) * y)")
    elementwise(special.erfcx, derivative="g * (2.0 * x * y - TWO_OVER_SQRT_PI)")
    elementwise(special.k0, derivative="-g * special.k1(x)")
    elementwise(special.k1, derivative="-g * (special.k0(x) + y / x)")
    nondifferentiable(special.gammasgn)
    shape_rule(shapes.elementwise, special.gammasgn)

    # ---- two arguments, both differentiable
    binary(special.xlogy, dx="g * np.log(y)", dy="g * x / y", shape=shapes.elementwise)
    binary(special.xlog1py, dx="g * np.log1p(y)", dy="g * x / (1.0 + y)",
           shape=shapes.elementwise)
    binary(special.rel_entr, dx="g * (np.log(x / y) + 1.0)", dy="-g * x / y",
           shape=shapes.elementwise)
    # betaln and beta: digamma(x + y), shared by both arguments' shares, computed once
    @adjoint(special.betaln)
    def betaln(z, x, y):
        of_sum = special.digamma(x + y)
        d[x] += rt.unbroadcast(d[z] * (special.digamma(x) - of_sum), x)
        d[y] += rt.unbroadcast(d[z] * (special.digamma(y) - of_sum), y)

    @tangent(special.betaln)
    def betaln(z, x, y):  # noqa: F811
        of_sum = special.digamma(x + y)
        d[z] = d[x] * (special.digamma(x) - of_sum) + d[y] * (special.digamma(y) - of_sum)

    @adjoint(special.beta)
    def beta(z, x, y):
        of_sum = special.digamma(x + y)
        d[x] += rt.unbroadcast(d[z] * z * (special.digamma(x) - of_sum), x)
        d[y] += rt.unbroadcast(d[z] * z * (special.digamma(y) - of_sum), y)

    @tangent(special.beta)
    def beta(z, x, y):  # noqa: F811
        of_sum = special.digamma(x + y)
        d[z] = z * (d[x] * (special.digamma(x) - of_sum) + d[y] * (special.digamma(y) - of_sum))

    shape_rule(shapes.elementwise, special.betaln, special.beta)

    # ---- an order (or shape parameter) first, differentiable in x only
    @adjoint(special.polygamma)
    def polygamma(y, n, x):
        d[x] += rt.unbroadcast(d[y] * special.polygamma(n + 1, x), x)

    @tangent(special.polygamma)
    def polygamma(y, n, x):  # noqa: F811
        d[y] = d[x] * special.polygamma(n + 1, x)

    @adjoint(special.iv)
    def iv(y, v, x):
        d[x] += rt.unbroadcast(d[y] * 0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x)),
                               x)

    @tangent(special.iv)
    def iv(y, v, x):  # noqa: F811
        d[y] = d[x] * 0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x))

    @adjoint(special.ive)
    def ive(y, v, x):
        d[x] += rt.unbroadcast(d[y] * (0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x))
                                       - np.sign(x) * y), x)

    @tangent(special.ive)
    def ive(y, v, x):  # noqa: F811
        d[y] = d[x] * (0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x))
                       - np.sign(x) * y)

    @adjoint(special.kv)
    def kv(y, v, x):
        d[x] -= rt.unbroadcast(d[y] * 0.5 * (special.kv(v - 1.0, x) + special.kv(v + 1.0, x)),
                               x)

    @tangent(special.kv)
    def kv(y, v, x):  # noqa: F811
        d[y] = -d[x] * 0.5 * (special.kv(v - 1.0, x) + special.kv(v + 1.0, x))

    @adjoint(special.jv)
    def jv(y, v, x):
        d[x] += rt.unbroadcast(d[y] * 0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x)),
                               x)

    @tangent(special.jv)
    def jv(y, v, x):  # noqa: F811
        d[y] = d[x] * 0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x))

    @adjoint(special.yv)
    def yv(y, v, x):
        d[x] += rt.unbroadcast(d[y] * 0.5 * (special.yv(v - 1.0, x) - special.yv(v + 1.0, x)),
                               x)

    @tangent(special.yv)
    def yv(y, v, x):  # noqa: F811
        d[y] = d[x] * 0.5 * (special.yv(v - 1.0, x) - special.yv(v + 1.0, x))

    @adjoint(special.yn)
    def yn(y, n, x):
        d[x] += rt.unbroadcast(d[y] * 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x)), x)

    @tangent(special.yn)
    def yn(y, n, x):  # noqa: F811
        d[y] = d[x] * 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x))

    # regularized incomplete gamma functions: d/dx P(a, x) = x^(a-1) e^(-x) / Gamma(a)
    @adjoint(special.gammainc)
    def gammainc(y, a, x):
        d[x] += rt.unbroadcast(d[y] * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)), x)

    @tangent(special.gammainc)
    def gammainc(y, a, x):  # noqa: F811
        d[y] = d[x] * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a))

    @adjoint(special.gammaincc)
    def gammaincc(y, a, x):
        d[x] -= rt.unbroadcast(d[y] * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)), x)

    @tangent(special.gammaincc)
    def gammaincc(y, a, x):  # noqa: F811
        d[y] = -d[x] * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a))

    # regularized incomplete beta function: d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b)
    @adjoint(special.betainc)
    def betainc(y, a, b, x):
        d[x] += rt.unbroadcast(d[y] * np.exp((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x)
                                             - special.betaln(a, b)), x)

    @tangent(special.betainc)
    def betainc(y, a, b, x):  # noqa: F811
        d[y] = d[x] * np.exp((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x)
                             - special.betaln(a, b))

    constraint(no_derivative_in("n", why="an integer order"), special.polygamma, special.yn)
    constraint(no_derivative_in("v", why="the order of a Bessel function"),
               special.iv, special.ive, special.kv, special.jv, special.yv)
    constraint(no_derivative_in("a", why="the shape parameter of an incomplete gamma "
                                          "function"), special.gammainc, special.gammaincc)
    constraint(no_derivative_in("a", "b", why="the shape parameters of an incomplete beta "
                                               "function"), special.betainc)
    shape_rule(shapes.elementwise, special.polygamma, special.iv, special.ive, special.kv,
               special.jv,
               special.yv, special.yn, special.gammainc, special.gammaincc, special.betainc)

    # multigammaln(a, d) = const + sum over j < d of gammaln(a - j / 2)
    @adjoint(special.multigammaln)
    def multigammaln(y, a, dimension):  # scipy's d, renamed: d[...] is template notation
        d[a] += d[y] * np.sum(special.digamma(np.expand_dims(a, -1)
                                              - 0.5 * np.arange(dimension)), axis=-1)

    @tangent(special.multigammaln)
    def multigammaln(y, a, dimension):  # noqa: F811
        d[y] = d[a] * np.sum(special.digamma(np.expand_dims(a, -1)
                                             - 0.5 * np.arange(dimension)), axis=-1)

    constraint(no_derivative_in("dimension", why="an integer dimension"), special.multigammaln)
    shape_rule(shapes.elementwise, special.multigammaln)

    # ---- softmax family: the weights exp(a - logsumexp(a)) are at most 1, so no overflow
    # shares = exp(a - y) with y's reduced axes put back (rt.reduced_kept): y is the stable
    # result itself, not computed again
    @adjoint(special.logsumexp)
    def logsumexp(y, a, axis=None, b=None, keepdims=False, return_sign=False):
        kept = rt.reduced_kept(y, a, b, axis, keepdims)
        spread = rt.reduced_kept(d[y], a, b, axis, keepdims)
        shares = np.exp(a - kept)
        d[a] += rt.unbroadcast(spread * rt.weighted(shares, b), a)
        d[b] += rt.unbroadcast(spread * shares, b)

    @tangent(special.logsumexp)
    def logsumexp(y, a, axis=None, b=None, keepdims=False, return_sign=False):  # noqa: F811
        shares = np.exp(a - rt.reduced_kept(y, a, b, axis, keepdims))
        d[y] = np.sum(rt.weighted(shares, b) * d[a] + shares * d[b], axis=axis,
                      keepdims=keepdims)

    constraint(_no_sign, special.logsumexp)
    shape_rule(_logsumexp_shape, special.logsumexp)

    @adjoint(special.softmax)
    def softmax(y, x, axis=None):
        d[x] += y * (d[y] - np.sum(d[y] * y, axis=axis, keepdims=True))

    @tangent(special.softmax)
    def softmax(y, x, axis=None):  # noqa: F811
        d[y] = y * (d[x] - np.sum(d[x] * y, axis=axis, keepdims=True))

    @adjoint(special.log_softmax)
    def log_softmax(y, x, axis=None):
        d[x] += d[y] - np.exp(y) * np.sum(d[y], axis=axis, keepdims=True)

    @tangent(special.log_softmax)
    def log_softmax(y, x, axis=None):  # noqa: F811
        d[y] = d[x] - np.sum(np.exp(y) * d[x], axis=axis, keepdims=True)

    shape_rule(_reduction_like_first, special.softmax, special.log_softmax)
