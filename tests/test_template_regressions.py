"""Minimal programs for bugs the combination checks (tests/test_template_combos.py) found.

Each test names the template, runtime helper or rule that was wrong and what
it gave. Expected values are worked out by hand or by central differences.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from tests._fd import assert_close, numeric_grad


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


# ---------------------------------------------------------- rt.unbroadcast


def set_row_from_a_row(x, v):
    y = x * 1.0
    y[1] = v
    return np.sum(np.sin(y) * np.arange(1.0, 7.0).reshape(2, 3))


def test_unbroadcast_of_a_lower_rank_adjoint_broadcasts_it():
    # y[1] = v with v of shape (1, 3): v's adjoint is y_bar[1], of shape (3,); it was
    # summed to one number and spread (all three entries equal) instead of reshaped
    rng = _rng("set_row_from_a_row")
    x, v = rng.standard_normal((2, 3)), rng.standard_normal((1, 3))
    gradient = srcad.grad(set_row_from_a_row, wrt=1)(x, v)
    assert_close(gradient, numeric_grad(set_row_from_a_row, (x, v), 1))


def unbroadcast_directly(g, x):
    return np.sum(np.sin(rt.unbroadcast(g, x)))


@pytest.mark.parametrize("g_shape, x_shape", [((), (3,)), ((1, 3), (2, 3)), ((2, 3), (3,))])
def test_adjoint_of_unbroadcast_is_unbroadcast_back(g_shape, x_shape):
    # the adjoint template used np.broadcast_to(d[y], shape of g): it failed for a scalar
    # g, and np.broadcast_to has no tangent (hvp through it failed); the specialization
    # of unbroadcast(g, x) returned g unchanged where g had size 1 and x did not
    rng = _rng("unbroadcast %s %s" % (g_shape, x_shape))
    g = float(rng.standard_normal()) if g_shape == () else rng.standard_normal(g_shape)
    x = rng.standard_normal(x_shape)
    for optimize in (True, False):
        gradient = srcad.grad(unbroadcast_directly, optimize=optimize)(g, x)
        assert_close(gradient, numeric_grad(unbroadcast_directly, (g, x), 0))
        v = np.ones_like(g) if g_shape else 1.0
        gradient_of = srcad.grad(unbroadcast_directly)
        eps = 1e-6
        expected = (gradient_of(g + eps * v, x) - gradient_of(g - eps * v, x)) / (2 * eps)
        assert_close(srcad.hvp(unbroadcast_directly, optimize=optimize)(g, x, v), expected,
                     rtol=1e-5, atol=1e-6)


# ------------------------------------------- types of second derivatives


def cube(x):
    return x ** 3 + math.sin(x)


def test_unspecialized_hvp_of_a_python_float_is_a_python_float():
    # the tangents of rt.match_type and rt.owned passed an np.float64 through unchanged,
    # and rt.match_tangent took an np.float64 for a Python float (it subclasses float)
    product = srcad.hvp(cube, optimize=False)(0.7, 1.0)
    assert type(product) is float
    assert product == pytest.approx(6 * 0.7 - math.sin(0.7))


def log_of_base_directly(a):
    return rt.log_of_base(a)


def test_tangent_of_log_of_base_of_a_numpy_scalar_is_a_python_float():
    # rt.log_of_base returns a Python float for every scalar; its shape rule said "any
    # scalar", so the specialized jvp left its tangent an np.float64
    value, tangent = srcad.jvp(log_of_base_directly, (np.float64(2.0),), (1.0,))
    assert type(value) is float and type(tangent) is float and tangent == 0.5


# ------------------------------------------------------------ x % y, sum


def mod(x, y):
    return x % y


@pytest.mark.parametrize("optimize", [True, False])
def test_tangent_of_mod_has_the_output_shape(optimize):
    # w13: with no tangent for y, the tangent of x % y was x's tangent, unbroadcast
    y = np.array([0.9, 1.3, 0.8, 1.1])
    out, out_dot = srcad.jvp(mod, (2.1, y), (1.0, None), optimize=optimize)
    assert np.shape(out_dot) == (4,) and np.all(out_dot == 1.0)
    out, out_dot = srcad.jvp(mod, (np.ones(4), np.ones((3, 4)) * 0.7), (np.ones(4), None),
                             optimize=optimize)
    assert np.shape(out_dot) == (3, 4) and np.all(out_dot == 1.0)


def test_tangent_of_mod_reads_no_zero_tangent():
    source = srcad.source(mod, wrt=0, mode="forward", example_args=(2.1, np.ones(4)))
    assert "zeros_like" not in source


def sum_with_start(items, start):
    return np.sum(np.sin(sum(items, start)))


def test_sum_with_a_start_broadcast_over_the_items():
    # sum(items, start): start's adjoint was the whole result's (TypeError for a float
    # start), and its tangent was not broadcast to the result's shape
    rng = _rng("sum_with_start")
    items, start = rng.standard_normal((2, 3)), 0.4
    gradients = srcad.grad(sum_with_start, wrt=(0, 1))(items, start)
    assert type(gradients[1]) is float
    assert_close(gradients[1], numeric_grad(sum_with_start, (items, start), 1))
    _, tangent = srcad.jvp(lambda_free_sum, (items, start), (None, 1.0))
    assert np.shape(tangent) == (3,) and np.all(tangent == 1.0)


def lambda_free_sum(items, start):
    return sum(items, start)


# ------------------------------------------------------------- x ** y at 0


def power_by_zero(x):
    return np.power(x, 0.0)


def power_by_one(x):
    return x ** 1.0


def square(x):
    return x ** 2


def math_power_by_zero(x):
    return math.pow(x, 0.0)


@pytest.mark.parametrize("optimize", [True, False])
def test_derivatives_of_powers_at_zero(optimize):
    # c13: d/dx x ** 0 at x = 0 was 0 * 0 ** -1: ZeroDivisionError (Python floats), nan
    # (arrays); second derivatives of x ** 1 and x ** 2 at 0 had the same problem
    assert srcad.grad(power_by_zero, optimize=optimize)(0.0) == 0.0
    assert srcad.jvp(power_by_zero, (0.0,), (1.0,), optimize=optimize)[1] == 0.0
    assert srcad.hvp(power_by_zero, optimize=optimize)(0.0, 1.0) == 0.0
    assert srcad.grad(math_power_by_zero, optimize=optimize)(0.0) == 0.0
    assert srcad.grad(power_by_one, optimize=optimize)(0.0) == 1.0
    assert srcad.hvp(power_by_one, optimize=optimize)(0.0, 1.0) == 0.0
    assert srcad.hvp(square, optimize=optimize)(0.0, 1.0) == 2.0
    at_zero = np.zeros(3)
    np.testing.assert_array_equal(srcad.grad(lambda_free_power_sum, optimize=optimize)(at_zero),
                                  np.ones(3))


def lambda_free_power_sum(x):
    return np.sum(x ** 0.0 + x ** 1.0)  # d/dx = 0 + 1


def test_derivative_of_a_root_at_zero_is_infinite_not_an_exception():
    with np.errstate(divide="ignore"):
        assert srcad.grad(lambda_free_root)(0.0) == math.inf


def lambda_free_root(x):
    return x ** 0.5


def test_constant_powers_are_inlined_where_specialized():
    source = srcad.source(square, example_args=(1.5,))
    assert "power_derivative" not in source and "2.0 * x" in source


# ------------------------------------------- values declared non-differentiable


def linspace_squares(x, y):
    return np.sum(np.linspace(x, y, 5) ** 2)


def test_linspace_is_differentiable_in_start_and_stop():
    # w12: np.linspace was declared non-differentiable: gradients 0.0 with no error
    gradients = srcad.grad(linspace_squares, wrt=(0, 1))(1.2, 3.4)
    assert gradients == pytest.approx((8.75, 14.25), rel=1e-12)
    assert srcad.jvp(linspace_squares, (1.2, 3.4), (1.0, 0.0))[1] == pytest.approx(8.75)


def linspace_with_step(x):
    samples, step = np.linspace(0.0, x, 5, retstep=True)
    return np.sum(samples) * step


def test_linspace_with_retstep_is_a_located_error():
    with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
        srcad.grad(linspace_with_step)(1.0)
    assert "retstep" in str(error.value) and "test_template_regressions.py:" in str(error.value)


def full_like_of_an_element(x):
    return np.sum(np.full_like(x, x[0]) * x)


def arange_from(start):
    return np.sum(np.arange(start, 3.0) ** 2)


def copysign_of(x):
    return math.copysign(x, -1.0) * 2.0


def test_fill_values_and_starts_are_differentiable():
    # np.full_like's fill value, np.arange's start and math.copysign's x were declared
    # non-differentiable: their gradients were silently 0
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(srcad.grad(full_like_of_an_element)(x), [7.0, 1.0, 1.0])
    assert srcad.grad(arange_from)(0.5) == pytest.approx(2 * (0.5 + 1.5 + 2.5))
    assert srcad.grad(copysign_of)(0.7) == -2.0
    assert srcad.grad(copysign_of)(-0.7) == 2.0


# ------------------------------------------------------- np.r_, np.c_, np.mgrid


def rows_joined(x):
    return np.sum(np.r_[x, x] * np.arange(1.0, 7.0)[:, None])


def columns_joined(x, y):
    return np.sum(np.sin(np.c_[x, y, 2.0 * x]))


def test_r_and_c_are_differentiated():
    # w11: np.r_[x, x] was an index of a constant object: zero gradient, and jvp never
    # returned (rt.zeros_like(np.r_) iterated np.r_ forever)
    x = np.ones((3, 2))
    np.testing.assert_array_equal(srcad.grad(rows_joined)(x), [[5, 5], [7, 7], [9, 9]])
    assert srcad.jvp(rows_joined, (x,), (np.ones((3, 2)),)) == (42.0, 42.0)
    x, y = np.array([0.0, 1.0, 2.0]), np.ones(3)
    assert_close(srcad.grad(columns_joined)(x, y), np.cos(x) + 2 * np.cos(2 * x))


def test_zeros_like_never_iterates_an_object():
    assert rt.zeros_like(np.r_) == 0.0 and rt.zeros_like(None) == 0.0


def grid(x):
    return np.sum(np.mgrid[0:x:5j] ** 2)


def test_an_index_that_carries_a_gradient_is_a_located_error():
    with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
        srcad.grad(grid)(1.5)
    message = str(error.value)
    assert "np.mgrid" in message and "np.linspace" in message
    assert "test_template_regressions.py:" in message


# ------------------------------------------------------------------- records

Pair = __import__("collections").namedtuple("Pair", "w b")


def record_adjoint_stacked(g):
    return np.sum(np.sin(np.array(rt.unfield(g, Pair(np.ones(3), np.ones(3)), "b"))))


def test_field_of_an_adjoint_stacked_in_an_array():
    # the adjoint of a namedtuple's adjoint passed to np.array is an array stacking the
    # fields' adjoints; rt.field_of (the adjoint of rt.unfield: derivatives of gradient
    # code) read it by attribute name: AttributeError
    g = np.array([0.3, -0.4, 1.2])
    assert_close(srcad.grad(record_adjoint_stacked)(g), np.cos(g))


def one_norm(x):
    return np.linalg.norm(x, 1)


def max_norm(x):
    return np.linalg.norm(x, ord=np.inf)


def norm_of_a_differentiated_order(x, p):
    return np.linalg.norm(x, p)


def test_norm_orders_once_refused_are_differentiated():
    # ord=1 and ord=inf were refused (a located error); every ord is now differentiated
    x = np.array([0.5, -2.0, 1.5])
    assert_close(srcad.grad(one_norm)(x), np.sign(x))
    assert_close(srcad.grad(max_norm)(x), np.array([0.0, -1.0, 0.0]))


def test_a_norm_differentiated_in_its_order_is_a_located_error():
    with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
        srcad.grad(norm_of_a_differentiated_order, wrt=(0, 1))(np.ones(3), 3.0)
    assert "not in ord" in str(error.value) and "test_template_regressions.py:" in str(
        error.value)


def joined_with_a_directive(x):
    return np.sum(np.r_["0,2", x, x])


def test_r_with_a_directive_is_a_located_error():
    with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
        srcad.grad(joined_with_a_directive)(np.ones(3))
    assert "np.r_/np.c_ with a string directive" in str(error.value)


def _others_by_deletion(x):
    return np.array([np.prod(np.delete(x, i)) for i in range(x.size)])


def _pairs_by_deletion(t, x):
    return np.array([sum(t[j] * np.prod(np.delete(x, [i, j])) for j in range(x.size) if j != i)
                     for i in range(x.size)])


@pytest.mark.parametrize("zeros", [0, 1, 2, 3, 4])
def test_derivatives_of_prod_with_zeros_divide_by_no_zero(zeros):
    # prod's adjoint is not y / x (nan at a zero): the products of the others, and their
    # tangent, checked against products over the elements left after deleting one or two
    rng = np.random.default_rng(zlib.crc32(b"prod with %d zeros" % zeros))
    x = rng.uniform(-2.0, 2.0, 6)
    x[rng.choice(6, size=zeros, replace=False)] = 0.0
    t = rng.uniform(-1.0, 1.0, 6)
    assert_close(rt.product_of_others(x), _others_by_deletion(x))
    assert_close(rt.product_of_others_tangent(t, x), _pairs_by_deletion(t, x))
    rows = np.stack([x, x[::-1], np.roll(x, 2)])
    assert_close(rt.product_of_others(rows, 1)[2], _others_by_deletion(np.roll(x, 2)))
    assert_close(rt.product_of_others_tangent(t, rows, 1)[1], _pairs_by_deletion(t, x[::-1]))


def sin_of_prod(x):
    return np.sin(np.prod(x))


def test_hessian_of_prod_with_two_zeros():
    x = np.array([0.0, 1.5, -0.7, 0.0])
    hessian = srcad.hessian(sin_of_prod)(x)
    expected = np.zeros((4, 4))
    expected[0, 3] = expected[3, 0] = np.cos(0.0) * 1.5 * -0.7  # only the two zeros' pair
    assert_close(hessian, expected)
    assert_close(srcad.grad(sin_of_prod)(x), np.zeros(4))


def nearest_quantile(x):
    return np.quantile(x, 0.3, method="nearest")


def quantile_at_a_varied_q(q):
    return np.quantile(np.array([1.0, 2.0, 4.0]), q)


def overwritten_median(x):
    return np.median(x * 1.0, overwrite_input=True)


def test_quantiles_srcad_cannot_differentiate_are_located_errors():
    for function, argument, message in (
            (nearest_quantile, np.ones(3), "method='linear' only"),
            (quantile_at_a_varied_q, 0.3, "in x, not in q"),
            (overwritten_median, np.ones(3), "overwrites its input")):
        with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
            srcad.grad(function)(argument)
        assert message in str(error.value) and "test_template_regressions.py:" in str(error.value)


def median_of_even_count(x):
    return np.median(x)


def test_median_of_an_even_count_splits_between_the_two_middle_elements():
    assert_close(srcad.grad(median_of_even_count)(np.array([3.0, -1.0, 0.5, 2.0])),
                 np.array([0.0, 0.0, 0.5, 0.5]))


@pytest.mark.parametrize("zeros", [0, 1, 2, 3])
@pytest.mark.parametrize("shape, axis", [((6,), None), ((3, 4), 1), ((3, 4), None),
                                         ((2, 3, 4), -2)])
def test_derivatives_of_cumprod_with_zeros(zeros, shape, axis):
    # recurrences without division: against central differences of np.cumprod and of its
    # tangent, and each map against its transpose
    rng = np.random.default_rng(zlib.crc32(b"cumprod %d %r %r" % (zeros, shape, axis)))
    x = rng.uniform(-2.0, 2.0, shape)
    x.reshape(-1)[rng.choice(x.size, size=zeros, replace=False)] = 0.0
    t, s = rng.uniform(-1.0, 1.0, shape), rng.uniform(-1.0, 1.0, shape)
    g = rng.uniform(-1.0, 1.0, np.shape(np.cumprod(x, axis=axis)))
    eps = 1e-6

    def along(f, direction):
        return (f(x + eps * direction) - f(x - eps * direction)) / (2 * eps)

    tangent = rt.cumprod_tangent(t, x, axis)
    assert_close(tangent, along(lambda v: np.cumprod(v, axis=axis), t), atol=1e-7)
    assert np.isclose(np.sum(g * tangent), np.sum(rt.cumprod_adjoint(g, x, axis) * t))
    second = rt.cumprod_second(t, s, x, axis)
    assert_close(second, along(lambda v: rt.cumprod_tangent(t, v, axis), s), atol=1e-6)
    adjoint_tangent = rt.cumprod_adjoint_tangent(g, x, s, axis)
    assert_close(adjoint_tangent, along(lambda v: rt.cumprod_adjoint(g, v, axis), s), atol=1e-6)
    assert np.isclose(np.sum(g * second), np.sum(adjoint_tangent * t))


def zero_weighted_matrix_norms(x):
    return 0.0 * np.linalg.norm(x, "nuc") + 0.0 * np.linalg.norm(x, -2) + np.sum(x ** 2)


def test_hvp_through_matrix_norms_of_a_zero_matrix_is_finite():
    # the spectral and nuclear norms' Hessians divide by singular values and their gaps:
    # at a zero matrix they read 1 / 0 as 0 (documented), so a zero weight gives zero
    x = np.zeros((2, 3))
    assert_close(srcad.hvp(zero_weighted_matrix_norms)(x, np.ones((2, 3))), 2.0 * np.ones((2, 3)))


@pytest.mark.parametrize("zeros", [0, 3])
@pytest.mark.parametrize("shape, axis", [((150,), None), ((3, 90), 1), ((70, 2), 0)])
def test_cumprod_adjoint_of_a_long_axis_runs_in_blocks(zeros, shape, axis):
    # more than 64 elements along the scan: rt._suffix_recurrence's blocked path, which
    # groups the recurrence's products otherwise; against central differences of the loss
    rng = np.random.default_rng(zlib.crc32(b"cumprod blocks %d %r %r" % (zeros, shape, axis)))
    x = rng.uniform(0.8, 1.2, shape)
    x.reshape(-1)[rng.choice(x.size, size=zeros, replace=False)] = 0.0
    g = rng.uniform(-1.0, 1.0, np.shape(np.cumprod(x, axis=axis)))
    expected = numeric_grad(lambda v: np.sum(g * np.cumprod(v, axis=axis)), (x,), 0)
    assert_close(rt.cumprod_adjoint(g, x, axis), expected, atol=1e-6)
    t = rng.uniform(-1.0, 1.0, shape)
    assert np.isclose(np.sum(g * rt.cumprod_tangent(t, x, axis)),
                      np.sum(rt.cumprod_adjoint(g, x, axis) * t))
