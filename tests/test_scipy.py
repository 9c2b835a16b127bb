"""SciPy's functions (an optional dependency): what the case table does not show.

Every scipy.special and scipy.stats template is checked to second order on broadcast
combinations by tests/test_template_combos.py (its cases: tests/scipy_combos.py). Here:
srcad without SciPy, stability for large inputs, the calls users write (names imported
from scipy.stats, keyword arguments), and the arguments srcad has no derivative in.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedOperationError
from tests._fd import assert_close, numeric_grad

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_srcad_works_without_scipy(tmp_path):
    """With scipy not importable, srcad imports, loads every template module, and
    differentiates; no scipy primitive is registered."""
    program = tmp_path / "without_scipy.py"
    program.write_text(textwrap.dedent("""
        import sys
        sys.modules["scipy"] = None  # import scipy now raises ImportError

        import numpy as np
        import srcad
        from srcad import registry


        def f(x):
            return np.sum(np.tanh(x) * x)


        x = np.array([0.5, -1.0])
        gradient = srcad.grad(f)(x)
        expected = np.tanh(x) + x * (1.0 - np.tanh(x) ** 2)
        assert np.allclose(gradient, expected), gradient
        names = [entry.name for entry in registry.registered()]
        assert not [n for n in names if "scipy" in n], names
        assert "scipy" not in sys.modules or sys.modules["scipy"] is None
        print("ok", len(names))
    """))
    environment = dict(os.environ, PYTHONPATH=REPOSITORY, SRCAD_CACHE="0")
    run = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                         env=environment, cwd=str(tmp_path), timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ok")


special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")
from scipy import linalg  # after the skip
from scipy.stats import norm


def logsumexp_of_large(x):
    return special.logsumexp(x * 1000.0, axis=-1)[0]


def softmax_of_large(x):
    return special.softmax(x * 1000.0, axis=-1)[0, 1]


def log_softmax_of_large(x):
    return special.log_softmax(x * 1000.0, axis=-1)[0, 1]


@pytest.mark.parametrize("f", [logsumexp_of_large, softmax_of_large, log_softmax_of_large])
def test_softmax_family_is_stable_for_large_inputs(f):
    """exp(1000) overflows; the derivatives stay finite (weights exp(a - logsumexp) <= 1)."""
    x = np.array([[1.0, 1.002, 0.999], [0.3, 0.1, 0.2]])
    gradient = srcad.grad(f)(x)
    assert np.all(np.isfinite(gradient))
    hessian_vector = srcad.hvp(f)(x, np.ones_like(x))
    assert np.all(np.isfinite(hessian_vector))


def test_logsumexp_large_gradient_is_the_softmax():
    x = np.array([[1.0, 1.002, 0.999]])
    gradient = srcad.grad(logsumexp_of_large)(x)
    assert_close(gradient[0], 1000.0 * special.softmax(1000.0 * x[0]))


def imported_name(x, mu, sigma):
    return np.sum(norm.logpdf(x, mu, sigma) + norm.logcdf(x, loc=mu, scale=sigma))


def every_keyword(x, mu, sigma):
    return np.sum(stats.norm.pdf(scale=sigma, x=x, loc=mu))


@pytest.mark.parametrize("f", [imported_name, every_keyword])
def test_distributions_as_users_call_them(f):
    x, mu, sigma = np.array([0.3, -1.2, 2.0]), 0.4, 1.7
    gradients = srcad.grad(f, wrt=(0, 1, 2))(x, mu, sigma)
    for position, gradient in enumerate(gradients):
        assert_close(gradient, numeric_grad(f, [x, mu, sigma], position))
    assert type(gradients[1]) is float


def order_of_bessel(v, x):
    return np.sum(special.iv(v, x))


def shape_of_incomplete_gamma(a, x):
    return np.sum(special.gammainc(a, x))


def shape_of_incomplete_beta(a, x):
    return np.sum(special.betainc(2.0, a, x))


def order_of_polygamma(n, x):
    return np.sum(special.polygamma(n, x))


def count_of_poisson(k, mu):
    return np.sum(stats.poisson.logpmf(k, mu))


def signed_logsumexp(a, b):
    value, sign = special.logsumexp(a, b=b, return_sign=True)
    return value * sign


@pytest.mark.parametrize("f, argument", [
    (order_of_bessel, "'v'"), (shape_of_incomplete_gamma, "'a'"),
    (shape_of_incomplete_beta, "'b'"), (order_of_polygamma, "'n'"),
    (count_of_poisson, "'k'")])
def test_no_derivative_in_an_order_or_shape_parameter(f, argument):
    with pytest.raises(UnsupportedOperationError) as caught:
        srcad.grad(f, wrt=0)(1.5, np.array([0.5, 1.0]))
    message = str(caught.value)
    assert "no derivative of this function in its argument %s" % argument in message
    assert "test_scipy.py" in message and "^" in message
    # in the other argument, the derivative is there
    gradient = srcad.grad(f, wrt=1)(2.0, np.array([0.5, 0.7]))
    assert_close(gradient, numeric_grad(f, [2.0, np.array([0.5, 0.7])], 1))


def test_logsumexp_with_its_sign_is_refused():
    with pytest.raises(UnsupportedOperationError, match="return_sign=False only"):
        srcad.grad(signed_logsumexp)(np.array([0.5, 1.0]), np.array([1.0, -2.0]))


def test_scipy_names_in_messages():
    from srcad import registry

    assert registry.describe(stats.norm.logpdf) == "scipy.stats.norm.logpdf"
    assert registry.describe(special.gammaln) == "scipy.special.gammaln"
    assert registry.describe(special.logsumexp) == "scipy.special.logsumexp"


def dirichlet_in_x(x, alpha):
    return stats.dirichlet.logpdf(x, alpha)


def test_dirichlet_has_no_derivative_in_x():
    with pytest.raises(UnsupportedOperationError, match="argument 'x'"):
        srcad.grad(dirichlet_in_x)(np.array([0.2, 0.8]), np.array([1.5, 2.0]))


def standard_multivariate_normal(x):
    return stats.multivariate_normal.logpdf(x)


def multivariate_normal_in_all(x, mean, cov):
    return np.sum(stats.multivariate_normal.logpdf(x, mean, cov))


def multivariate_normal_of_identity(x, mean):
    return np.sum(stats.multivariate_normal.logpdf(x, mean))


def test_multivariate_normal():
    """Registered with np.linalg.solve's templates: given a mean (a covariance matrix, a
    vector of variances, a number times the identity, or the identity)."""
    from srcad import registry

    if registry.lookup(stats.multivariate_normal.logpdf) is None:
        pytest.skip("np.linalg.solve has no templates here")
    with pytest.raises(UnsupportedOperationError, match="given its mean"):
        srcad.grad(standard_multivariate_normal)(np.array([0.5, 1.0]))
    args = [np.array([[0.5, 1.0], [-0.2, 0.3]]), np.array([0.1, -0.4])]
    gradients = srcad.grad(multivariate_normal_of_identity, wrt=(0, 1))(*args)
    for position, gradient in enumerate(gradients):
        assert_close(gradient, numeric_grad(multivariate_normal_of_identity, args, position))
    rng = np.random.default_rng(3)
    factor = rng.normal(size=(3, 3))
    args = [rng.normal(size=(4, 3)), rng.normal(size=3), factor @ factor.T + 3.0 * np.eye(3)]
    gradients = srcad.grad(multivariate_normal_in_all, wrt=(0, 1, 2))(*args)
    for position, gradient in enumerate(gradients):
        assert_close(gradient, numeric_grad(multivariate_normal_in_all, args, position))
    # scipy reads cov's lower triangle only: so does the gradient
    assert np.all(np.triu(gradients[2], 1) == 0.0)


# ---- scipy.linalg's factorizations: keyword values srcad cannot differentiate


def scipy_svd_full(a):
    return np.sum(linalg.svd(a)[0])


def scipy_qr_full(a):
    return np.sum(linalg.qr(a)[1])


def scipy_eigh_generalized(a):
    return np.sum(linalg.eigh(a, a + 3.0 * np.eye(2), eigvals_only=True))


def scipy_cholesky_overwriting(a):
    return np.sum(linalg.cholesky(a, overwrite_a=True))


@pytest.mark.parametrize("function, message", [
    (scipy_svd_full, "full_matrices=False"), (scipy_qr_full, "mode in"),
    (scipy_eigh_generalized, "b in"), (scipy_cholesky_overwriting, "overwrite_a=True")])
def test_scipy_linalg_keywords_without_a_derivative_are_located_errors(function, message):
    # the defaults of svd (full_matrices=True) and qr (mode='full') included: the extra
    # columns of a tall matrix's full factors are not unique
    with pytest.raises(UnsupportedOperationError, match=message) as error:
        srcad.grad(function)(np.eye(2) * 2.0)
    assert "test_scipy.py:" in str(error.value)


def scipy_cho_solve_twice(a, b):
    factor = linalg.cho_factor(a)
    return np.sum(np.sin(linalg.cho_solve(factor, b)) * linalg.cho_solve(factor, b))


def test_cho_factor_used_twice():
    """One factor, two solves: the factor's adjoint (a tuple's) is the sum of both."""
    rng = np.random.default_rng(5)
    factor = rng.normal(size=(3, 3))
    args = [factor @ factor.T + 3.0 * np.eye(3), rng.normal(size=3)]
    gradients = srcad.grad(scipy_cho_solve_twice, wrt=(0, 1))(*args)
    for position, gradient in enumerate(gradients):
        assert_close(gradient, numeric_grad(scipy_cho_solve_twice, args, position))


def bessel_sum(x):
    return np.sum(special.j1(x) + special.i1(x) + special.i1e(x))


def test_order_one_bessel_derivatives_at_and_near_zero():
    """J1' = J0 - J1/x (I1' = I0 - I1/x): J1(x)/x and I1(x)/x are 1/2 at 0, their series
    agree with the quotient to the last bits where both are exact (|x| near 0.01)."""
    from srcad import runtime as rt

    x = np.array([1e-12, -3e-5, 2e-3, -0.0099, 0.0101, 0.5, -7.0])
    for helper, function in ((rt.j1_over_x, special.j1), (rt.i1_over_x, special.i1)):
        assert helper(function(0.0), 0.0) == 0.5
        np.testing.assert_allclose(helper(function(x), x), function(x) / x, rtol=1e-15)
    points = np.array([0.0, 0.3, -2.0])
    gradient = srcad.grad(bessel_sum)(points)
    # (the derivatives as 0.5 (Z0 -+ Z2), the order-2 formula srcad no longer evaluates)
    expected = (0.5 * (special.j0(points) - special.jv(2, points))
                + 0.5 * (special.i0(points) + special.iv(2, points))
                + 0.5 * (special.i0e(points) + special.ive(2, points))
                - np.sign(points) * special.i1e(points))
    np.testing.assert_allclose(gradient, expected, rtol=1e-14)
