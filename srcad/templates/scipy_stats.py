"""scipy.stats densities as users call them: ``st.norm.logpdf(x, loc, scale)`` and the like,
with gradients in every argument. Registered only when SciPy imports (it is optional).

``scipy.stats.norm`` is an object (an rv_continuous instance): ``st.norm.logpdf`` is a
bound method, and its templates are registered on that bound method (a call through
the module-level object keeps it: normalize/calls_by_value.py leaves a bound method
with templates of its own to the registry). Keyword arguments bind by scipy's names
(``loc=``, ``scale=``); omitted ones are scipy's defaults (0 and 1).

A location-scale density is f(z) / scale with z = (x - loc) / scale, so with
s = (log f)'(z): d logpdf / dx = s / scale, d / dloc = -s / scale and
d / dscale = -(1 + s z) / scale. Outside a density's support (x < loc for expon,
scale <= 0) scipy returns -inf or nan, and so do these derivatives.

Not differentiable: ``poisson.logpmf``'s k and loc (integers) and ``dirichlet.logpdf``'s x
(scipy refuses a point off the simplex): srcad raises UnsupportedOperationError at a call
where a derivative would flow into them. An x of one component fewer than alpha's, which
scipy completes to the simplex, is completed the same way (rt.simplex_point) for the
derivative in alpha.
"""

import gast
import numpy as np

from srcad import registry
from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, shape_rule, tangent
from srcad.templates.scipy_special import INVERSE_SQRT_2PI, SQRT_2PI
from srcad.vocabulary import exp_of, formula, no_derivative_in

try:
    from scipy import special, stats
except ImportError:  # SciPy is optional: without it this module registers nothing
    stats = None


# Shape rules: the broadcast of every argument, passed by position or by keyword (a rule
# that read positional ones only would miss `scale=s`, and get the result's shape wrong)
_DEFAULT_LOC, _DEFAULT_SCALE = shapes.Known(0.0), shapes.Known(1.0)


def _location_scale_shape(x, loc=_DEFAULT_LOC, scale=_DEFAULT_SCALE):
    return shapes.elementwise(x, loc, scale)


def _one_shape_parameter_shape(x, a, loc=_DEFAULT_LOC, scale=_DEFAULT_SCALE):
    return shapes.elementwise(x, a, loc, scale)


def _quantile_shape(q, loc=_DEFAULT_LOC, scale=_DEFAULT_SCALE):
    return shapes.elementwise(q, loc, scale)


def _t_shape(x, df, loc=_DEFAULT_LOC, scale=_DEFAULT_SCALE):
    return shapes.elementwise(x, df, loc, scale)


def _two_shape_parameters_shape(x, a, b, loc=_DEFAULT_LOC, scale=_DEFAULT_SCALE):
    return shapes.elementwise(x, a, b, loc, scale)


def _poisson_shape(k, mu, loc=_DEFAULT_LOC):
    return shapes.elementwise(k, mu, loc)


def _dirichlet_shape(x, alpha):
    """One value per sample: a scalar for one x (a vector), a vector for x of shape (k, n)."""
    x = shapes.plain(x)
    if isinstance(x, shapes.Array) and x.ndim == 1:
        return shapes.NUMPY_SCALAR
    if isinstance(x, shapes.Array) and x.ndim == 2:
        return shapes.Array((x.ones[1],))
    return shapes.UNKNOWN


def _mean_given(arguments, carries, resolve):
    """multivariate_normal.logpdf: srcad differentiates it given a mean (its size is the
    dimension; scipy's default None takes it from cov instead)."""
    mean = arguments["mean"]
    if isinstance(mean, gast.Constant) and mean.value is None:
        return ("srcad differentiates scipy.stats.multivariate_normal.logpdf given its mean, "
                "not mean=None",
                "Pass the mean: multivariate_normal.logpdf(x, np.zeros(k), cov).")
    return None


def _multivariate_normal_shape(x, mean=shapes.UNKNOWN, *rest, **kwargs):
    """One value per sample, the sizes of 1 squeezed out (a scalar for one sample): x's
    axes but the last, or x's own for samples of one number (a mean of size 1)."""
    x, mean = shapes.plain(x), shapes.plain(mean)
    if isinstance(mean, shapes.Scalar) or mean == shapes.Array((True,)):
        samples = x.ones if isinstance(x, shapes.Array) and x.ndim == 1 else None
    elif isinstance(mean, shapes.Array) and mean.ndim == 1 and mean.ones[0] is False:
        samples = x.ones[:-1] if isinstance(x, shapes.Array) and x.ndim else None
    else:
        return shapes.UNKNOWN
    if isinstance(x, shapes.Scalar):
        samples = ()
    if samples is None or None in samples:
        return shapes.UNKNOWN
    kept = tuple(one for one in samples if one is False)
    return shapes.Array(kept) if kept else shapes.NUMPY_SCALAR


if stats is not None:
    # ---- the normal distribution: s = -z
    @adjoint(stats.norm.logpdf)
    def norm_logpdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        slope = -z / scale
        d[x] += rt.unbroadcast(d[y] * slope, x)
        d[loc] -= rt.unbroadcast(d[y] * slope, loc)
        d[scale] += rt.unbroadcast(d[y] * (z * z - 1.0) / scale, scale)

    @tangent(stats.norm.logpdf)
    def norm_logpdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = (d[x] - d[loc]) * (-z / scale) + d[scale] * (z * z - 1.0) / scale

    @adjoint(stats.norm.pdf)
    def norm_pdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        slope = -y * z / scale
        d[x] += rt.unbroadcast(d[y] * slope, x)
        d[loc] -= rt.unbroadcast(d[y] * slope, loc)
        d[scale] += rt.unbroadcast(d[y] * y * (z * z - 1.0) / scale, scale)

    @tangent(stats.norm.pdf)
    def norm_pdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = y * ((d[x] - d[loc]) * (-z / scale) + d[scale] * (z * z - 1.0) / scale)

    # cdf(x) = Phi(z): its derivative in x is the density phi(z) / scale
    @adjoint(stats.norm.cdf)
    def norm_cdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        density = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z) / scale
        d[x] += rt.unbroadcast(d[y] * density, x)
        d[loc] -= rt.unbroadcast(d[y] * density, loc)
        d[scale] -= rt.unbroadcast(d[y] * density * z, scale)

    @tangent(stats.norm.cdf)
    def norm_cdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z) / scale * (d[x] - d[loc] - d[scale] * z)

    @adjoint(stats.norm.sf)
    def norm_sf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        density = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z) / scale
        d[x] -= rt.unbroadcast(d[y] * density, x)
        d[loc] += rt.unbroadcast(d[y] * density, loc)
        d[scale] += rt.unbroadcast(d[y] * density * z, scale)

    @tangent(stats.norm.sf)
    def norm_sf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z) / scale * (d[loc] - d[x] + d[scale] * z)

    # logcdf: phi(z) / Phi(z) as exp(-z^2 / 2 - logcdf), finite far into the left tail
    @adjoint(stats.norm.logcdf)
    def norm_logcdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        ratio = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z - y) / scale
        d[x] += rt.unbroadcast(d[y] * ratio, x)
        d[loc] -= rt.unbroadcast(d[y] * ratio, loc)
        d[scale] -= rt.unbroadcast(d[y] * ratio * z, scale)

    @tangent(stats.norm.logcdf)
    def norm_logcdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z - y) / scale * (
            d[x] - d[loc] - d[scale] * z)

    @adjoint(stats.norm.logsf)
    def norm_logsf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        ratio = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z - y) / scale
        d[x] -= rt.unbroadcast(d[y] * ratio, x)
        d[loc] += rt.unbroadcast(d[y] * ratio, loc)
        d[scale] += rt.unbroadcast(d[y] * ratio * z, scale)

    @tangent(stats.norm.logsf)
    def norm_logsf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = INVERSE_SQRT_2PI * np.exp(-0.5 * z * z - y) / scale * (
            d[loc] - d[x] + d[scale] * z)

    # ppf(q) = loc + scale * ndtri(q): d / dq = scale / phi(ndtri(q))
    @adjoint(stats.norm.ppf)
    def norm_ppf(y, q, loc=0.0, scale=1.0):
        z = (y - loc) / scale
        d[q] += rt.unbroadcast(d[y] * scale * SQRT_2PI * np.exp(0.5 * z * z), q)
        d[loc] += rt.unbroadcast(d[y], loc)
        d[scale] += rt.unbroadcast(d[y] * z, scale)

    @tangent(stats.norm.ppf)
    def norm_ppf(y, q, loc=0.0, scale=1.0):  # noqa: F811
        z = (y - loc) / scale
        # (d[loc] times ones: alone, it must still take the result's shape)
        d[y] = d[q] * scale * SQRT_2PI * np.exp(0.5 * z * z) + d[loc] * np.ones_like(y) + d[
            scale] * z

    # ---- Student's t: s = -(df + 1) z / (df + z^2)
    @adjoint(stats.t.logpdf)
    def t_logpdf(y, x, df, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = -(df + 1.0) * z / (df + z * z)
        d[x] += rt.unbroadcast(d[y] * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * (1.0 + score * z) / scale, scale)
        d[df] += rt.unbroadcast(d[y] * 0.5 * (
            special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df
            - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * (df + z * z))), df)

    @tangent(stats.t.logpdf)
    def t_logpdf(y, x, df, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = -(df + 1.0) * z / (df + z * z)
        d[y] = ((d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale
                + d[df] * 0.5 * (special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df)
                                 - 1.0 / df - np.log1p(z * z / df)
                                 + (df + 1.0) * z * z / (df * (df + z * z))))

    @adjoint(stats.t.pdf)
    def t_pdf(y, x, df, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = -(df + 1.0) * z / (df + z * z)
        d[x] += rt.unbroadcast(d[y] * y * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * y * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * y * (1.0 + score * z) / scale, scale)
        d[df] += rt.unbroadcast(d[y] * y * 0.5 * (
            special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df
            - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * (df + z * z))), df)

    @tangent(stats.t.pdf)
    def t_pdf(y, x, df, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = -(df + 1.0) * z / (df + z * z)
        d[y] = y * ((d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale
                    + d[df] * 0.5 * (special.digamma(0.5 * (df + 1.0))
                                     - special.digamma(0.5 * df) - 1.0 / df
                                     - np.log1p(z * z / df)
                                     + (df + 1.0) * z * z / (df * (df + z * z))))

    # ---- gamma(a): log f(z) = (a - 1) log z - z - gammaln(a), s = (a - 1) / z - 1
    @adjoint(stats.gamma.logpdf)
    def gamma_logpdf(y, x, a, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = (a - 1.0) / z - 1.0
        d[x] += rt.unbroadcast(d[y] * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * (1.0 + score * z) / scale, scale)
        d[a] += rt.unbroadcast(d[y] * (np.log(z) - special.digamma(a)), a)

    @tangent(stats.gamma.logpdf)
    def gamma_logpdf(y, x, a, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = (a - 1.0) / z - 1.0
        d[y] = ((d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale
                + d[a] * (np.log(z) - special.digamma(a)))

    # ---- beta(a, b): log f(z) = (a - 1) log z + (b - 1) log(1 - z) - betaln(a, b)
    @adjoint(stats.beta.logpdf)
    def beta_logpdf(y, x, a, b, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
        d[x] += rt.unbroadcast(d[y] * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * (1.0 + score * z) / scale, scale)
        d[a] += rt.unbroadcast(d[y] * (np.log(z) - special.digamma(a)
                                       + special.digamma(a + b)), a)
        d[b] += rt.unbroadcast(d[y] * (np.log1p(-z) - special.digamma(b)
                                       + special.digamma(a + b)), b)

    @tangent(stats.beta.logpdf)
    def beta_logpdf(y, x, a, b, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
        d[y] = ((d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale
                + d[a] * (np.log(z) - special.digamma(a) + special.digamma(a + b))
                + d[b] * (np.log1p(-z) - special.digamma(b) + special.digamma(a + b)))

    # ---- the standard location-scale families: s = -1 (expon), -sign(z) (laplace: srcad
    # takes sign(0) = 0 at its kink x = loc), -2 z / (1 + z^2) (cauchy), -tanh(z / 2)
    # (logistic)
    @adjoint(stats.expon.logpdf)
    def expon_logpdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        d[x] -= rt.unbroadcast(d[y] / scale, x)
        d[loc] += rt.unbroadcast(d[y] / scale, loc)
        d[scale] += rt.unbroadcast(d[y] * (z - 1.0) / scale, scale)

    @tangent(stats.expon.logpdf)
    def expon_logpdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        d[y] = (d[loc] - d[x]) / scale + d[scale] * (z - 1.0) / scale

    @adjoint(stats.laplace.logpdf)
    def laplace_logpdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = -np.sign(z)
        d[x] += rt.unbroadcast(d[y] * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * (1.0 + score * z) / scale, scale)

    @tangent(stats.laplace.logpdf)
    def laplace_logpdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = -np.sign(z)
        d[y] = (d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale

    @adjoint(stats.cauchy.logpdf)
    def cauchy_logpdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = -2.0 * z / (1.0 + z * z)
        d[x] += rt.unbroadcast(d[y] * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * (1.0 + score * z) / scale, scale)

    @tangent(stats.cauchy.logpdf)
    def cauchy_logpdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = -2.0 * z / (1.0 + z * z)
        d[y] = (d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale

    @adjoint(stats.logistic.logpdf)
    def logistic_logpdf(y, x, loc=0.0, scale=1.0):
        z = (x - loc) / scale
        score = -np.tanh(0.5 * z)
        d[x] += rt.unbroadcast(d[y] * score / scale, x)
        d[loc] -= rt.unbroadcast(d[y] * score / scale, loc)
        d[scale] -= rt.unbroadcast(d[y] * (1.0 + score * z) / scale, scale)

    @tangent(stats.logistic.logpdf)
    def logistic_logpdf(y, x, loc=0.0, scale=1.0):  # noqa: F811
        z = (x - loc) / scale
        score = -np.tanh(0.5 * z)
        d[y] = (d[x] - d[loc]) * score / scale - d[scale] * (1.0 + score * z) / scale

    # ---- poisson: logpmf(k, mu, loc) = (k - loc) log mu - mu - gammaln(k - loc + 1)
    @adjoint(stats.poisson.logpmf)
    def poisson_logpmf(y, k, mu, loc=0):
        d[mu] += rt.unbroadcast(d[y] * ((k - loc) / mu - 1.0), mu)

    @tangent(stats.poisson.logpmf)
    def poisson_logpmf(y, k, mu, loc=0):  # noqa: F811
        d[y] = d[mu] * ((k - loc) / mu - 1.0)

    constraint(no_derivative_in("k", "loc", why="an integer count"), stats.poisson.logpmf)

    # ---- dirichlet: logpdf(x, alpha) = sum((alpha - 1) log x) - sum(gammaln(alpha))
    # + gammaln(sum(alpha)), x's first axis the components (one column per sample; one
    # fewer than alpha's: completed to sum to 1, as scipy does). In alpha only: scipy
    # refuses an x off the simplex, so no derivative in x is defined.
    @adjoint(stats.dirichlet.logpdf)
    def dirichlet_logpdf(y, x, alpha):
        d[alpha] += np.dot(np.log(rt.simplex_point(x, alpha)), d[y]) - np.sum(d[y]) * (
            special.digamma(alpha) - special.digamma(np.sum(alpha)))

    @tangent(stats.dirichlet.logpdf)
    def dirichlet_logpdf(y, x, alpha):  # noqa: F811
        d[y] = np.dot(d[alpha], np.log(rt.simplex_point(x, alpha))) - np.sum(d[alpha] * (
            special.digamma(alpha) - special.digamma(np.sum(alpha))))

    constraint(no_derivative_in("x", why="a point of the simplex: scipy refuses any other, "
                                          "so no derivative in x is defined"),
               stats.dirichlet.logpdf)
    shape_rule(_dirichlet_shape, stats.dirichlet.logpdf)

    shape_rule(_location_scale_shape, stats.norm.logpdf, stats.norm.pdf, stats.norm.cdf,
               stats.norm.sf, stats.norm.logcdf, stats.norm.logsf, stats.expon.logpdf,
               stats.laplace.logpdf, stats.cauchy.logpdf, stats.logistic.logpdf)
    shape_rule(_quantile_shape, stats.norm.ppf)
    shape_rule(_t_shape, stats.t.logpdf, stats.t.pdf)
    shape_rule(_one_shape_parameter_shape, stats.gamma.logpdf)
    shape_rule(_two_shape_parameters_shape, stats.beta.logpdf)
    shape_rule(_poisson_shape, stats.poisson.logpmf)

    _PAIRS = [(dist.pdf, dist.logpdf) for dist in (
        stats.gamma, stats.beta, stats.expon, stats.laplace, stats.cauchy, stats.logistic,
        stats.dirichlet)]
    # the density (the mass function) of a distribution with a log density: exp of it, its
    # derivatives the log density's times y; the same points without a derivative
    exp_of(*_PAIRS, (stats.poisson.pmf, stats.poisson.logpmf))


def _multivariate_normal_common(tangent: bool) -> list:
    """The covariance matrix scipy uses (S), its inverse applied to each sample's difference
    from the mean (``solved``): shared by the adjoint and the tangent."""
    lines = ["size = np.size(mean)",
             "full = rt.full_covariance(cov, size)",
             "lower = np.tril(np.ones((size, size)))",
             "symmetric = full * lower + np.transpose(full * (lower - np.eye(size)))",
             "differences = np.reshape(x - mean, (-1, size))",
             "solved = np.transpose(np.linalg.solve(symmetric, np.transpose(differences)))"]
    if tangent:
        lines += ["full_tangent = rt.full_covariance(d[cov], size)",
                  "symmetric_tangent = full_tangent * lower + np.transpose("
                  "full_tangent * (lower - np.eye(size)))"]
    return lines


def _multivariate_normal_adjoint(weight: str) -> list:
    """The adjoint of logpdf (``weight`` d[y]) or of pdf = exp(logpdf) (y * d[y])."""
    return _multivariate_normal_common(False) + [
        "folded = 2.0 * lower - np.eye(size)",
        "weights = np.reshape(%s, (-1, 1))" % weight,
        "d[x] -= rt.unbroadcast(np.reshape(weights * solved, np.shape(x - mean)), x)",
        "d[mean] += rt.unbroadcast(np.reshape(weights * solved, np.shape(x - mean)), mean)",
        "d[cov] += rt.covariance_part(0.5 * folded * (np.dot(np.transpose(weights * solved), "
        "solved) - np.sum(weights) * np.linalg.solve(symmetric, np.eye(size))), cov)"]


def _multivariate_normal_tangent(factor: str) -> list:
    """The tangent of logpdf (``factor`` "") or of pdf (y times logpdf's: "y * ")."""
    return _multivariate_normal_common(True) + [
        "d[y] = %snp.reshape(np.sum(solved * (0.5 * np.dot(solved, symmetric_tangent) - "
        "np.reshape(d[x] - d[mean], (-1, size))), axis=1) - 0.5 * np.sum(np.linalg.solve("
        "symmetric, np.eye(size)) * symmetric_tangent), np.shape(y))" % factor]


if stats is not None and all(getattr(registry.lookup(np.linalg.solve), kind, None) is not None
                             for kind in ("adjoint", "tangent")):
    _MULTIVARIATE_NORMAL = "y, x, mean=None, cov=1, allow_singular=False"
    # ---- multivariate_normal
    # logpdf(x, mean, cov): x of shape (k,) or (..., k) (k = the mean's
    # size; for k = 1 a vector x is k samples), one value per sample (squeezed, as scipy does).
    # The covariance is a matrix, a vector (its diagonal) or a number (times the identity):
    # rt.full_covariance makes the matrix, rt.covariance_part takes its gradient's diagonal or
    # trace back. scipy reads a matrix cov's lower
    # triangle only (an eigendecomposition of it), so the covariance used is
    # S = tril(cov) + tril(cov, -1).T, and cov's gradient is that of S folded onto the lower
    # triangle: for a symmetric cov, every symmetric change of cov gets the usual
    # 0.5 * (a a.T - inv(S)) summed over samples, a = S^-1 (x - mean). The templates need
    # np.linalg.solve's own (second order differentiates them): registered with them.
    formula(stats.multivariate_normal.logpdf, kind="adjoint", parameters=_MULTIVARIATE_NORMAL,
            lines=_multivariate_normal_adjoint("d[y]"))
    formula(stats.multivariate_normal.logpdf, kind="tangent", parameters=_MULTIVARIATE_NORMAL,
            lines=_multivariate_normal_tangent(""))
    # pdf = exp(logpdf): logpdf's formulas, the derivative flowing in multiplied by y
    formula(stats.multivariate_normal.pdf, kind="adjoint", parameters=_MULTIVARIATE_NORMAL,
            lines=_multivariate_normal_adjoint("y * d[y]"))
    formula(stats.multivariate_normal.pdf, kind="tangent", parameters=_MULTIVARIATE_NORMAL,
            lines=_multivariate_normal_tangent("y * "))

    constraint(_mean_given, stats.multivariate_normal.logpdf, stats.multivariate_normal.pdf)
    shape_rule(_multivariate_normal_shape, stats.multivariate_normal.logpdf,
               stats.multivariate_normal.pdf)

