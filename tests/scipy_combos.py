"""SciPy's cases of tests/template_combos.py (scipy.special, scipy.stats densities).

SciPy is an optional dependency: tests/template_combos.py imports this module (which
adds its cases to CASES) only when SciPy imports, so the case table stays importable
without it. Inputs stay inside each function's domain.
"""

from __future__ import annotations

import numpy as np
import scipy.stats as st
from scipy import signal, special

from srcad import registry
from srcad import runtime as rt
from tests.template_combos import (
    ARRAYS,
    COLUMN,
    F64,
    FULL,
    KINDS,
    ROW,
    SCALAR,
    SOME_PAIRS,
    THREE_D,
    VECTOR,
    ZERO_D,
    _draw,
    anything,
    case,
    far_apart,
    fixed,
    nonzero,
    pairs,
    positive,
    unit,
    wide,
)

between_0_and_1 = _draw(0.1, 0.9)
near_one = _draw(0.2, 1.8)
above_two = _draw(2.0, 3.0)
above_minus_half = _draw(-0.5, 2.0)
degrees_of_freedom = _draw(2.0, 5.0)


# ------------------------------------------------- scipy.special, one argument

def special_expit(x):
    return special.expit(x)


def special_logit(x):
    return special.logit(x)


def special_log_expit(x):
    return special.log_expit(x)


def special_gammaln(x):
    return special.gammaln(x)


def special_gamma(x):
    return special.gamma(x)


def special_rgamma(x):
    return special.rgamma(x)


def special_digamma(x):
    return special.digamma(x)


def special_psi(x):
    return special.psi(x)


def special_erf(x):
    return special.erf(x)


def special_erfc(x):
    return special.erfc(x)


def special_erfinv(x):
    return special.erfinv(x)


def special_erfcinv(x):
    return special.erfcinv(x)


def special_ndtr(x):
    return special.ndtr(x)


def special_ndtri(x):
    return special.ndtri(x)


def special_log_ndtr(x):
    return special.log_ndtr(x)


def special_entr(x):
    return special.entr(x)


def special_i0(x):
    return special.i0(x)


def special_i1(x):
    return special.i1(x)


def special_j0(x):
    return special.j0(x)


def special_j1(x):
    return special.j1(x)


def special_y0(x):
    return special.y0(x)


def special_y1(x):
    return special.y1(x)


def special_i0e(x):
    return special.i0e(x)


def special_i1e(x):
    return special.i1e(x)


def special_erfcx(x):
    return special.erfcx(x)


def special_k0(x):
    return special.k0(x)


def special_k1(x):
    return special.k1(x)


def special_gammasgn_times(x):
    return special.gammasgn(x) * x  # gammasgn alone: derivative 0, nothing to check


UNARY_KINDS = (SCALAR, F64, VECTOR, COLUMN, FULL)
for _f, _domain in [
        (special_expit, anything), (special_logit, between_0_and_1),
        (special_log_expit, wide), (special_gammaln, positive), (special_gamma, positive),
        (special_rgamma, positive), (special_digamma, positive), (special_psi, positive),
        (special_erf, anything), (special_erfc, anything), (special_erfinv, unit),
        (special_erfcinv, near_one), (special_ndtr, anything), (special_ndtri, between_0_and_1),
        (special_log_ndtr, wide), (special_entr, positive), (special_i0, anything),
        (special_i1, anything), (special_j0, wide), (special_j1, wide), (special_y0, positive),
        (special_y1, positive), (special_gammasgn_times, wide), (special_i0e, nonzero),
        (special_i1e, nonzero), (special_erfcx, anything), (special_k0, positive),
        (special_k1, positive)]:
    case(_f, (_domain,), UNARY_KINDS)


# ------------------------------------------------ scipy.special, two arguments

def special_xlogy(x, y):
    return special.xlogy(x, y)


def special_xlog1py(x, y):
    return special.xlog1py(x, y)


def special_rel_entr(x, y):
    return special.rel_entr(x, y)


def special_beta(x, y):
    return special.beta(x, y)


def special_betaln(x, y):
    return special.betaln(x, y)


for _f, _domains in [(special_xlogy, (anything, positive)),
                     (special_xlog1py, (anything, above_minus_half)),
                     (special_rel_entr, (positive, positive)), (special_beta, (positive, positive)),
                     (special_betaln, (positive, positive))]:
    case(_f, _domains, SOME_PAIRS, (0, 1))


# ------------------------- an order or shape parameter first, held constant

def special_polygamma(n, x):
    return special.polygamma(n, x)


def special_polygamma_orders(x):
    return special.polygamma(np.array([0, 1, 2]), x)  # orders broadcast against x


def special_iv(v, x):
    return special.iv(v, x)


def special_ive(v, x):
    return special.ive(v, x)


def special_jv(v, x):
    return special.jv(v, x)


def special_kv(v, x):
    return special.kv(v, x)


def special_yv(v, x):
    return special.yv(v, x)


def special_yn(n, x):
    return special.yn(n, x)


def special_gammainc(a, x):
    return special.gammainc(a, x)


def special_gammaincc(a, x):
    return special.gammaincc(a, x)


def special_betainc(a, b, x):
    return special.betainc(a, b, x)


def special_multigammaln(a, d):
    return special.multigammaln(a, d)


for _f, _order, _domain in [(special_polygamma, 1, positive), (special_iv, 1.5, positive),
                            (special_ive, 1.5, positive), (special_jv, 1.5, positive),
                            (special_yv, 1.5, positive), (special_kv, 1.5, positive),
                            (special_yn, 2, positive), (special_gammainc, 2.5, positive),
                            (special_gammaincc, 2.5, positive)]:
    case(_f, (fixed(_order), _domain), [(None, k) for k in KINDS], (1,))
case(special_polygamma_orders, (positive,), [SCALAR, VECTOR, FULL])
case(special_betainc, (fixed(2.0), fixed(3.0), between_0_and_1),
     [(None, None, k) for k in KINDS], (2,))
case(special_multigammaln, (above_two, fixed(3)), [(k, None) for k in KINDS])


# ----------------------------------------- logsumexp, softmax, log_softmax

def logsumexp_all(x):
    return special.logsumexp(x)


def logsumexp_last_axis(x):
    return special.logsumexp(x, axis=-1)


def logsumexp_first_axis_kept(x):
    return special.logsumexp(x, axis=0, keepdims=True)


def logsumexp_axes(x):
    return special.logsumexp(x, axis=(0, -1))


def logsumexp_weighted(x, b):
    return special.logsumexp(x, axis=-1, b=b)


def logsumexp_weighted_all(x, b):
    return special.logsumexp(x, None, b)


def softmax_all(x):
    return special.softmax(x)


def softmax_last_axis(x):
    return special.softmax(x, axis=-1)


def softmax_first_axis(x):
    return special.softmax(x, axis=0)


def log_softmax_all(x):
    return special.log_softmax(x)


def log_softmax_last_axis(x):
    return special.log_softmax(x, axis=-1)


def log_softmax_first_axis(x):
    return special.log_softmax(x, 0)


case(logsumexp_all, (anything,), [SCALAR, ZERO_D] + list(ARRAYS) + [THREE_D])
case(logsumexp_last_axis, (anything,), list(ARRAYS) + [THREE_D])
case(logsumexp_first_axis_kept, (anything,), list(ARRAYS) + [THREE_D])
case(logsumexp_axes, (anything,), [ROW, COLUMN, FULL, THREE_D])
case(logsumexp_weighted, (anything, positive),
     [(FULL, FULL), (FULL, VECTOR), (VECTOR, VECTOR), (COLUMN, ROW), (VECTOR, FULL),
      (FULL, SCALAR)], (0, 1))
case(logsumexp_weighted_all, (anything, positive), [(FULL, FULL), (ROW, COLUMN)], (0, 1))
# (a softmax over an axis of length 1 is constant: no such combination)
for _f, _combos in [(softmax_all, ARRAYS), (log_softmax_all, ARRAYS),
                    (softmax_last_axis, (VECTOR, ROW, FULL)),
                    (log_softmax_last_axis, (VECTOR, ROW, FULL)),
                    (softmax_first_axis, (VECTOR, COLUMN, FULL)),
                    (log_softmax_first_axis, (VECTOR, COLUMN, FULL))]:
    case(_f, (anything,), list(_combos) + [THREE_D])


# the runtime helper logsumexp's templates call: values * weights, or values for None
def weighted(x, w):
    return rt.weighted(x, w)


def weighted_by_none(x):
    return rt.weighted(x, None)


case(weighted, (anything, anything), pairs(), (0, 1))
case(weighted_by_none, (anything,), KINDS)


# -------------------------------------------------------- scipy.stats densities

LOCATION_SCALE = [(SCALAR, SCALAR, SCALAR), (VECTOR, SCALAR, SCALAR), (FULL, VECTOR, SCALAR),
                  (COLUMN, ROW, COLUMN), (F64, SCALAR, FULL)]


def norm_logpdf(x, loc, scale):
    return st.norm.logpdf(x, loc, scale)


def norm_pdf(x, loc, scale):
    return st.norm.pdf(x, loc, scale)


def norm_cdf(x, loc, scale):
    return st.norm.cdf(x, loc, scale)


def norm_logcdf(x, loc, scale):
    return st.norm.logcdf(x, loc, scale)


def norm_sf(x, loc, scale):
    return st.norm.sf(x, loc, scale)


def norm_logsf(x, loc, scale):
    return st.norm.logsf(x, loc, scale)


def norm_ppf(q, loc, scale):
    return st.norm.ppf(q, loc, scale)


def expon_logpdf(x, loc, scale):
    return st.expon.logpdf(x, loc, scale)


def laplace_logpdf(x, loc, scale):
    return st.laplace.logpdf(x, loc, scale)


def cauchy_logpdf(x, loc, scale):
    return st.cauchy.logpdf(x, loc, scale)


def logistic_logpdf(x, loc, scale):
    return st.logistic.logpdf(x, loc, scale)


for _f, _domains, _accept in [
        (norm_logpdf, (anything, anything, positive), None),
        (norm_pdf, (anything, anything, positive), None),
        (norm_cdf, (anything, anything, positive), None),
        (norm_logcdf, (anything, anything, positive), None),
        (norm_sf, (anything, anything, positive), None),
        (norm_logsf, (anything, anything, positive), None),
        (norm_ppf, (between_0_and_1, anything, positive), None),
        (expon_logpdf, (positive, _draw(-0.4, 0.2), positive), None),
        (laplace_logpdf, (anything, anything, positive), far_apart(0, 1)),
        (cauchy_logpdf, (anything, anything, positive), None),
        (logistic_logpdf, (anything, anything, positive), None)]:
    case(_f, _domains, LOCATION_SCALE, (0, 1, 2), accept=_accept)


def norm_logpdf_standard(x):
    return st.norm.logpdf(x)


def norm_logpdf_keywords(x, s):
    return st.norm.logpdf(x, scale=s, loc=0.5)


def norm_cdf_scale_keyword(x, s):
    return st.norm.cdf(x, 0.5, scale=s)


case(norm_logpdf_standard, (anything,), UNARY_KINDS)
case(norm_logpdf_keywords, (anything, positive), [(FULL, SCALAR), (VECTOR, FULL)], (0, 1))
case(norm_cdf_scale_keyword, (anything, positive), [(FULL, SCALAR), (SCALAR, VECTOR)], (0, 1))


def t_logpdf(x, df, loc, scale):
    return st.t.logpdf(x, df, loc, scale)


def t_pdf(x, df, loc, scale):
    return st.t.pdf(x, df, loc, scale)


def gamma_logpdf(x, a, loc, scale):
    return st.gamma.logpdf(x, a, loc, scale)


SHAPED_LOCATION_SCALE = [(SCALAR, SCALAR, SCALAR, SCALAR), (VECTOR, SCALAR, SCALAR, SCALAR),
                         (FULL, VECTOR, SCALAR, COLUMN), (COLUMN, ROW, VECTOR, SCALAR)]
for _f, _domains in [
        (t_logpdf, (anything, degrees_of_freedom, anything, positive)),
        (t_pdf, (anything, degrees_of_freedom, anything, positive)),
        (gamma_logpdf, (positive, positive, _draw(-0.4, 0.2), positive))]:
    case(_f, _domains, SHAPED_LOCATION_SCALE, (0, 1, 2, 3))


def t_logpdf_standard(x, df):
    return st.t.logpdf(x, df)


case(t_logpdf_standard, (anything, degrees_of_freedom), [(VECTOR, SCALAR), (FULL, COLUMN)],
     (0, 1))


def beta_logpdf(x, a, b, loc, scale):
    return st.beta.logpdf(x, a, b, loc, scale)


case(beta_logpdf, (_draw(0.2, 0.8), positive, positive, _draw(-0.1, 0.1), _draw(1.2, 1.5)),
     [(SCALAR,) * 5, (VECTOR, SCALAR, SCALAR, SCALAR, SCALAR),
      (FULL, VECTOR, COLUMN, SCALAR, SCALAR)], (0, 1, 2, 3, 4))


def poisson_logpmf(mu):
    return st.poisson.logpmf(np.array([0.0, 1.0, 3.0]), mu)


def poisson_logpmf_shifted(k, mu):
    return st.poisson.logpmf(k, mu, 1)


case(poisson_logpmf, (positive,), [SCALAR, VECTOR, FULL])
case(poisson_logpmf_shifted, (fixed(4), positive), [(None, k) for k in KINDS], (1,))


# the densities of those with a log density (vocabulary.exp_of): two shape combinations each
def expon_pdf(x, loc, scale):
    return st.expon.pdf(x, loc, scale)


def laplace_pdf(x, loc, scale):
    return st.laplace.pdf(x, loc, scale)


def cauchy_pdf(x, loc, scale):
    return st.cauchy.pdf(x, loc, scale)


def logistic_pdf(x, loc, scale):
    return st.logistic.pdf(x, loc, scale)


def gamma_pdf(x, a, loc, scale):
    return st.gamma.pdf(x, a, loc, scale)


def beta_pdf(x, a, b):
    return st.beta.pdf(x, a, b)


def poisson_pmf(mu):
    return st.poisson.pmf(np.array([0.0, 1.0, 3.0]), mu)


PAIR_OF_LOCATION_SCALES = [(VECTOR, SCALAR, SCALAR), (FULL, VECTOR, COLUMN)]
for _f, _domains, _accept in [
        (expon_pdf, (positive, _draw(-0.4, 0.2), positive), None),
        (laplace_pdf, (anything, anything, positive), far_apart(0, 1)),
        (cauchy_pdf, (anything, anything, positive), None),
        (logistic_pdf, (anything, anything, positive), None)]:
    case(_f, _domains, PAIR_OF_LOCATION_SCALES, (0, 1, 2), accept=_accept)
case(gamma_pdf, (positive, positive, _draw(-0.4, 0.2), positive),
     [(VECTOR, SCALAR, SCALAR, SCALAR), (FULL, VECTOR, SCALAR, COLUMN)], (0, 1, 2, 3))
case(beta_pdf, (_draw(0.2, 0.8), positive, positive), [(VECTOR, SCALAR, SCALAR),
                                                       (FULL, VECTOR, COLUMN)], (0, 1, 2))
case(poisson_pmf, (positive,), [SCALAR, VECTOR])


SIMPLEX_POINT = np.array([0.2, 0.5, 0.3])
SIMPLEX_POINTS = np.array([[0.2, 0.3], [0.5, 0.3], [0.3, 0.4]])  # one sample per column


def dirichlet_logpdf(x, alpha):
    return st.dirichlet.logpdf(x, alpha)


case(dirichlet_logpdf, (fixed(SIMPLEX_POINT), positive), [(None, VECTOR)], (1,))


def dirichlet_pdf(x, alpha):
    return st.dirichlet.pdf(x, alpha)


case(dirichlet_pdf, (fixed(SIMPLEX_POINT), positive), [(None, VECTOR)], (1,))
case(dirichlet_logpdf, (fixed(SIMPLEX_POINTS), positive), [(None, VECTOR)], (1,),
     name="dirichlet_logpdf_of_samples")
# one component fewer than alpha's: scipy completes x to the simplex (was an internal
# ValueError, a shape mismatch, in the derivative)
case(dirichlet_logpdf, (fixed(SIMPLEX_POINT[:-1]), positive), [(None, VECTOR)], (1,),
     name="dirichlet_logpdf_completed")


# multivariate_normal.logpdf is registered with np.linalg.solve's templates (its own use
# them): its cases too
def covariance(shape, rng):
    """A symmetric positive definite matrix of shape (k, k), well conditioned."""
    factor = rng.uniform(-1.0, 1.0, shape)
    return np.dot(factor, factor.T) + shape[0] * np.eye(shape[0])


def multivariate_normal_logpdf(x, mean, cov):
    return st.multivariate_normal.logpdf(x, mean, cov)


def multivariate_normal_logpdf_keywords(x, mean, cov):
    return st.multivariate_normal.logpdf(x, cov=cov, mean=mean)


if registry.lookup(st.multivariate_normal.logpdf) is not None:
    SQUARE = (3, 3)
    case(multivariate_normal_logpdf, (anything, anything, covariance),
         [(VECTOR, VECTOR, SQUARE), (FULL, VECTOR, SQUARE), ((1, 3), VECTOR, SQUARE),
          (THREE_D, VECTOR, SQUARE), ((2, 1, 3), VECTOR, SQUARE)],
         (0, 1, 2))
    case(multivariate_normal_logpdf_keywords, (anything, anything, covariance),
         [(FULL, VECTOR, SQUARE)], (0, 1, 2))


def variances(shape, rng):
    """Positive variances: a diagonal covariance (a vector) or a multiple of the identity."""
    return rng.uniform(0.5, 2.0, shape)


def multivariate_normal_logpdf_diagonal(x, mean, cov):
    return st.multivariate_normal.logpdf(x, mean, cov)


def multivariate_normal_pdf(x, mean, cov):
    return st.multivariate_normal.pdf(x, mean, cov)


if registry.lookup(st.multivariate_normal.logpdf) is not None:
    # a vector cov is the diagonal, a number the identity's multiple; for a mean of size 1, a
    # vector x is that many samples (was a silently wrong gradient for a vector cov)
    case(multivariate_normal_logpdf_diagonal, (anything, anything, variances),
         [(VECTOR, VECTOR, VECTOR), (FULL, VECTOR, SCALAR), (VECTOR, SCALAR, SCALAR),
          (VECTOR, (1,), (1,))], (0, 1, 2))
    case(multivariate_normal_pdf, (anything, anything, covariance),
         [(VECTOR, VECTOR, SQUARE), (FULL, VECTOR, SQUARE)], (0, 1, 2))


# ------------------------------------------------------------------ scipy.signal
# each mode at once (the 'same' windows differ for even lengths; 'valid' swaps the
# operands when the second is the larger)
def signal_convolve_and_correlate(in1, in2):
    return np.concatenate([np.ravel(signal.convolve(in1, in2)),
                           np.ravel(signal.convolve(in1, in2, "same", method="direct")),
                           np.ravel(signal.convolve(in1, in2, mode="valid", method="fft")),
                           np.ravel(signal.correlate(in1, in2)),
                           np.ravel(signal.correlate(in1, in2, "same", method="fft")),
                           np.ravel(signal.correlate(in1, in2, mode="valid"))])


def signal_convolve2d_and_correlate2d(in1, in2):
    return np.concatenate([np.ravel(signal.convolve2d(in1, in2)),
                           np.ravel(signal.convolve2d(in1, in2, "same")),
                           np.ravel(signal.convolve2d(in1, in2, mode="valid",
                                                      boundary="fill", fillvalue=0)),
                           np.ravel(signal.correlate2d(in1, in2)),
                           np.ravel(signal.correlate2d(in1, in2, "same")),
                           np.ravel(signal.correlate2d(in1, in2, mode="valid"))])


case(signal_convolve_and_correlate, (anything, anything), [((4, 3), (2, 2)), ((2, 3), (3, 4))],
     (0, 1))
case(signal_convolve2d_and_correlate2d, (anything, anything), [((2, 3), (3, 4))], (0, 1))


# the convolutions' adjoints' correlation: directly (a small operand) and by FFTs
def valid_correlation(big, small):
    return rt.valid_correlation(big, small)


case(valid_correlation, (anything, anything), [((9, 9), (9, 8))], (0, 1))
# ------------------------------------ scipy.integrate (srcad/templates/scipy_integrate.py)
# Solved at tight tolerances, so the derivatives (accurate to about the tolerance) pass the
# differences' and the dot-product test's tolerances. The adjoint sweeps the gradient calls
# (odeint_adjoint, solve_ivp_adjoint) have a tangent only (hvp: forward over reverse), so
# their cases are forward-only, without third derivatives.
from scipy import integrate  # noqa: E402

from srcad.templates.scipy_integrate import odeint_adjoint, solve_ivp_adjoint  # noqa: E402

ODE_TIMES = np.array([0.0, 0.4, 1.0])
ODE_TOLERANCE = 1e-12
SAMPLES = (len(ODE_TIMES), 3)


def _relaxation(y, t, k):
    """A nonlinear relaxation, k broadcast against y (a float or one rate per component)."""
    return -k * y + 0.5 * np.sin(y + t)


def _relaxation_time_first(t, y, k):
    return _relaxation(y, t, k)


def integrate_odeint(y0, k):
    return integrate.odeint(_relaxation, y0, ODE_TIMES, args=(k,), rtol=ODE_TOLERANCE,
                            atol=ODE_TOLERANCE)


def integrate_solve_ivp(y0, k):
    return integrate.solve_ivp(_relaxation_time_first, (0.0, 1.0), y0, method="DOP853",
                               t_eval=ODE_TIMES[1:], args=(k,), rtol=ODE_TOLERANCE,
                               atol=ODE_TOLERANCE).y


def integrate_odeint_adjoint(g, ys, k):
    adjoints = odeint_adjoint(g, ys, _relaxation, ys[0], ODE_TIMES, (k,), ODE_TOLERANCE,
                              ODE_TOLERANCE, 0.0, 0, False)
    return adjoints[0] + adjoints[1][-1] + adjoints[2][0]


def integrate_solve_ivp_adjoint(y_bar, k):
    """The adjoint sweep of solve_ivp's gradient, for the cotangent y_bar of sol.y."""
    sol = integrate.solve_ivp(_relaxation_time_first, (0.0, 1.0), np.ones(3), method="DOP853",
                              t_eval=ODE_TIMES[1:], args=(k,), rtol=ODE_TOLERANCE,
                              atol=ODE_TOLERANCE)
    adjoints = solve_ivp_adjoint({"y": y_bar}, sol, _relaxation_time_first, (0.0, 1.0),
                                 np.ones(3), "DOP853", (k,), ODE_TOLERANCE, ODE_TOLERANCE,
                                 np.inf)
    return adjoints[0] + adjoints[1][0]


case(integrate_odeint, (anything, positive), [(VECTOR, SCALAR), (VECTOR, VECTOR)], (0, 1))
case(integrate_solve_ivp, (anything, positive), [(VECTOR, SCALAR)], (0, 1))
_THIRD_ORDER = "third derivatives through scipy.integrate are not written"
case(integrate_odeint_adjoint, (anything, anything, positive),
     [(SAMPLES, SAMPLES, SCALAR), (SAMPLES, SAMPLES, VECTOR)], (0, 1, 2), forward_only=True,
     second_order=_THIRD_ORDER)
case(integrate_solve_ivp_adjoint, (anything, positive), [((3, 2), VECTOR)], (0, 1),
     forward_only=True, second_order=_THIRD_ORDER)


# ------------------------- scipy.special: order-1 Bessel derivatives near 0 (i12c)
def bessel_near_zero(x):
    """j1 and i1 on both sides of the switch to the series of J1(x)/x, I1(x)/x at |x| = 0.01."""
    return (special.j1(x * 0.01) + special.i1(x * 0.01)) * 100.0


def bessel_over_x(x):
    """rt.j1_over_x and rt.i1_over_x themselves (their adjoints: grad of grad of j1, i1)."""
    return rt.j1_over_x(special.j1(x), x) * rt.i1_over_x(special.i1(x), x)


case(bessel_near_zero, (anything,), [VECTOR, FULL])
case(bessel_over_x, (anything,), [VECTOR, FULL])
