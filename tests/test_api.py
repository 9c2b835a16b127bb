"""The public API of srcad.grad / value_and_grad / check_grad / templates.

Every gradient is checked against central finite differences (tests/_fd.py).
Functions to differentiate live at module level: srcad reads their source.
"""

import numpy as np
import pytest

import srcad
from srcad import d

try:
    from . import _fd
except ImportError:
    import _fd

numeric_grad = _fd.numeric_grad
assert_close = _fd.assert_close


# ---- functions under test


def f2(x, y):
    return np.sin(x) * y + x ** 2


def f3(a, b, c):
    t = a * b
    u = np.exp(c) + t
    return u * a - b / c


def dense(W, b, x):
    h = np.tanh(np.dot(x, W) + b)
    return np.sum(h * h)


def with_default(x, scale=3.0):
    return scale * x * x


def ignores_y(x, y):
    return x * x + 1.0


def stopped(x, y):
    z = srcad.stop_gradient(x * y)
    return z * x + y


def loss_with_aux(x, y):
    loss = x * y + np.sin(x)
    return loss, x + y


def array_loss_with_aux(W, x):
    out = np.dot(x, W)
    return np.sum(out * out), out


def swap(a, b):
    a, b = b, a
    return a * 2.0 + b


def augmented(x, y):
    z = x * y
    z += x
    z *= y
    return z


@srcad.grad
def decorated_plain(x, y):
    return x * x * y


@srcad.grad(wrt=(0, "y"))
def decorated_wrt(x, y):
    return x * x * y + np.cos(y)


# a helper srcad must treat as a primitive: registered with a deliberately wrong template
def myfun(x):
    return np.sin(x)


@srcad.adjoint(myfun)
def myfun_adj(y, x):
    d[x] += d[y] * 2.0  # wrong on purpose: the derivative of sin is cos


def uses_myfun(x):
    return myfun(x) * 3.0


# a helper with a correct user template
def softplus(x):
    return np.log1p(np.exp(x))


@srcad.adjoint(softplus)
def softplus_adj(y, x):
    d[x] += d[y] / (1.0 + np.exp(-x))


def uses_softplus(x, w):
    return np.sum(softplus(x * w))


# a user function declared non-differentiable: no gradient flows through it
def quantize(x):
    return np.round(x)


srcad.nondifferentiable(quantize)


def uses_quantize(x):
    return quantize(x) * x


def inplace_candidate(x, y):
    z = x * 2.0
    w = z + y
    return np.sum(w * w)


RNG = np.random.RandomState(42)


# ---- forms of grad


def test_grad_as_plain_decorator():
    g = decorated_plain(1.5, 2.0)
    assert_close(g, 2 * 1.5 * 2.0)
    assert hasattr(decorated_plain, "source")
    assert "def " in decorated_plain.source


def test_grad_as_decorator_with_wrt():
    gx, gy = decorated_wrt(1.5, 0.7)
    fun = decorated_wrt.__wrapped__
    assert_close(gx, numeric_grad(fun, (1.5, 0.7), 0))
    assert_close(gy, numeric_grad(fun, (1.5, 0.7), 1))


def test_grad_called_with_wrt():
    g = srcad.grad(f2, wrt=1)
    assert_close(g(0.3, 1.7), numeric_grad(f2, (0.3, 1.7), 1))
    assert_close(g(0.3, 1.7), np.sin(0.3))


def test_grad_default_wrt_is_first_argument():
    g = srcad.grad(f2)
    assert_close(g(0.3, 1.7), numeric_grad(f2, (0.3, 1.7), 0))


# ---- wrt forms


@pytest.mark.parametrize("wrt, index", [(0, 0), (1, 1), (2, 2), ("a", 0), ("b", 1), ("c", 2),
                                        (-1, 2), (-2, 1), (-3, 0)])
def test_wrt_single(wrt, index):
    args = (0.4, -1.3, 0.8)
    g = srcad.grad(f3, wrt=wrt)(*args)
    assert type(g) is float
    assert_close(g, numeric_grad(f3, args, index))


def test_wrt_tuple_returns_tuple_in_order():
    args = (0.4, -1.3, 0.8)
    g = srcad.grad(f3, wrt=(2, "a", -2))(*args)
    assert isinstance(g, tuple) and len(g) == 3
    for got, index in zip(g, (2, 0, 1)):
        assert_close(got, numeric_grad(f3, args, index))


@pytest.mark.parametrize("wrt", [(1,), ("b",), [1]])
def test_wrt_one_tuple_returns_one_tuple(wrt):
    args = (0.4, -1.3, 0.8)
    g = srcad.grad(f3, wrt=wrt)(*args)
    assert isinstance(g, tuple) and len(g) == 1
    assert_close(g[0], numeric_grad(f3, args, 1))


def test_wrt_all_arrays():
    W, b, x = RNG.randn(4, 3), RNG.randn(3), RNG.randn(5, 4)
    gW, gb, gx = srcad.grad(dense, wrt=(0, 1, 2))(W, b, x)
    for got, index in zip((gW, gb, gx), range(3)):
        assert_close(got, numeric_grad(dense, (W, b, x), index))


# ---- value_and_grad, has_aux


def test_value_and_grad():
    value, g = srcad.value_and_grad(f2, wrt=(0, 1))(0.3, 1.7)
    assert_close(value, f2(0.3, 1.7))
    assert_close(g[0], numeric_grad(f2, (0.3, 1.7), 0))
    assert_close(g[1], numeric_grad(f2, (0.3, 1.7), 1))


def test_value_and_grad_single():
    value, g = srcad.value_and_grad(f2)(0.3, 1.7)
    assert_close(value, f2(0.3, 1.7))
    assert type(g) is float
    assert_close(g, numeric_grad(f2, (0.3, 1.7), 0))


def test_value_and_grad_arrays():
    W, b, x = RNG.randn(4, 3), RNG.randn(3), RNG.randn(5, 4)
    value, g = srcad.value_and_grad(dense, wrt=0)(W, b, x)
    assert_close(value, dense(W, b, x))
    assert_close(g, numeric_grad(dense, (W, b, x), 0))


def test_grad_has_aux():
    g, aux = srcad.grad(loss_with_aux, wrt=(0, 1), has_aux=True)(0.5, 2.0)
    assert_close(aux, 2.5)
    loss_only = lambda x, y: loss_with_aux(x, y)[0]  # noqa: E731
    assert_close(g[0], numeric_grad(loss_only, (0.5, 2.0), 0))
    assert_close(g[1], numeric_grad(loss_only, (0.5, 2.0), 1))


def test_value_and_grad_has_aux():
    (value, aux), g = srcad.value_and_grad(loss_with_aux, has_aux=True)(0.5, 2.0)
    assert_close(value, loss_with_aux(0.5, 2.0)[0])
    assert_close(aux, 2.5)
    loss_only = lambda x, y: loss_with_aux(x, y)[0]  # noqa: E731
    assert_close(g, numeric_grad(loss_only, (0.5, 2.0), 0))


def test_has_aux_array_aux_is_the_primal_value():
    W, x = RNG.randn(3, 2), RNG.randn(4, 3)
    g, aux = srcad.grad(array_loss_with_aux, has_aux=True)(W, x)
    assert_close(aux, np.dot(x, W))
    loss_only = lambda W, x: array_loss_with_aux(W, x)[0]  # noqa: E731
    assert_close(g, numeric_grad(loss_only, (W, x), 0))


# ---- calling conventions


def test_keyword_arguments():
    g = srcad.grad(f2, wrt=(0, 1))
    by_position = g(0.3, 1.7)
    by_keyword = g(y=1.7, x=0.3)
    mixed = g(0.3, y=1.7)
    for got in (by_keyword, mixed):
        assert_close(got[0], by_position[0])
        assert_close(got[1], by_position[1])
    assert_close(by_keyword[1], numeric_grad(f2, (0.3, 1.7), 1))


def test_default_parameter_values():
    g = srcad.grad(with_default)
    assert_close(g(2.0), numeric_grad(with_default, (2.0,), 0))
    assert_close(g(2.0), 12.0)
    assert_close(g(2.0, 5.0), 20.0)
    assert_close(g(2.0, scale=5.0), 20.0)


def test_gradient_with_respect_to_defaulted_parameter():
    g = srcad.grad(with_default, wrt="scale")
    assert_close(g(2.0), 4.0)
    assert_close(g(2.0), numeric_grad(with_default, (2.0, 3.0), 1))


def test_augmented_assignment():
    args = (0.7, -1.2)
    gx, gy = srcad.grad(augmented, wrt=(0, 1))(*args)
    assert_close(gx, numeric_grad(augmented, args, 0))
    assert_close(gy, numeric_grad(augmented, args, 1))


def test_tuple_swap_assignment():
    value, (ga, gb) = srcad.value_and_grad(swap, wrt=(0, 1))(1.0, 2.0)
    assert_close(value, swap(1.0, 2.0))
    assert_close(ga, numeric_grad(swap, (1.0, 2.0), 0))
    assert_close(gb, numeric_grad(swap, (1.0, 2.0), 1))


# ---- types and shapes


def test_python_floats_give_python_floats():
    gx, gy = srcad.grad(f2, wrt=(0, 1))(0.3, 1.7)
    assert type(gx) is float
    assert type(gy) is float


def test_python_int_argument_gives_float_gradient():
    g = srcad.grad(f2, wrt=1)(2, 3)
    assert type(g) is float
    assert_close(g, np.sin(2.0))


def test_arrays_give_arrays_of_same_shape():
    W, b, x = RNG.randn(4, 3), RNG.randn(3), RNG.randn(5, 4)
    gW, gb, gx = srcad.grad(dense, wrt=(0, 1, 2))(W, b, x)
    for got, arg in zip((gW, gb, gx), (W, b, x)):
        assert isinstance(got, np.ndarray)
        assert got.shape == arg.shape


def test_scalar_broadcast_against_array_gives_float():
    # y is a Python float broadcast against an array x: its gradient is summed to a float
    x = RNG.randn(3, 2)
    g = srcad.grad(inplace_candidate, wrt=1)(x, 0.5)
    assert type(g) is float
    assert_close(g, numeric_grad(inplace_candidate, (x, 0.5), 1))


def test_unused_argument_scalar_gradient_is_zero():
    g = srcad.grad(ignores_y, wrt=1)(0.3, 1.7)
    assert g == 0.0
    assert type(g) is float


def test_unused_argument_array_gradient_is_zeros():
    x, y = RNG.randn(3), RNG.randn(2, 5)
    g = srcad.grad(lambda_free_sum, wrt=1)(x, y)
    assert isinstance(g, np.ndarray)
    assert g.shape == (2, 5)
    assert not g.any()


def lambda_free_sum(x, y):
    return np.sum(x * x)


# ---- stop_gradient


def test_stop_gradient_blocks_gradient():
    gx, gy = srcad.grad(stopped, wrt=(0, 1))(0.5, 2.0)
    # z is a constant for differentiation: d/dx (z * x + y) = z, d/dy = 1
    assert_close(gx, 0.5 * 2.0)
    assert_close(gy, 1.0)
    # and it differs from the true derivative
    assert not np.isclose(gx, numeric_grad(stopped, (0.5, 2.0), 0))


# ---- check_grad


def test_check_grad_passes_for_correct_gradients():
    assert srcad.check_grad(f2, 0.3, 1.7, wrt=(0, 1)) is True
    W, b, x = RNG.randn(4, 3), RNG.randn(3), RNG.randn(5, 4)
    assert srcad.check_grad(dense, W, b, x, wrt=(0, 1)) is True


def test_check_grad_catches_wrong_template():
    with pytest.raises(AssertionError, match="finite differences"):
        srcad.check_grad(uses_myfun, 0.4)


def test_wrong_template_is_really_used():
    # the wrong template says d myfun/dx = 2: the gradient is 3 * 2
    assert_close(srcad.grad(uses_myfun)(0.4), 6.0)


# ---- user templates


def test_user_adjoint_template():
    x, w = RNG.randn(4), 0.7
    gx, gw = srcad.grad(uses_softplus, wrt=(0, 1))(x, w)
    assert_close(gx, numeric_grad(uses_softplus, (x, w), 0))
    assert_close(gw, numeric_grad(uses_softplus, (x, w), 1))
    assert type(gw) is float


def test_user_nondifferentiable():
    x = 1.3
    g = srcad.grad(uses_quantize)(x)
    # quantize(x) is a constant: d/dx (q * x) = q
    assert_close(g, np.round(x))


# ---- arguments are not mutated


def test_callers_arrays_not_mutated():
    W, b, x = RNG.randn(4, 3), RNG.randn(3), RNG.randn(5, 4)
    copies = [a.copy() for a in (W, b, x)]
    g = srcad.grad(dense, wrt=(0, 1, 2))
    g(W, b, x)
    g(W, b, x)
    for original, copy in zip((W, b, x), copies):
        np.testing.assert_array_equal(original, copy)


def test_callers_arrays_not_mutated_broadcast():
    x, y = RNG.randn(3, 2), RNG.randn(2)
    copies = x.copy(), y.copy()
    gx, gy = srcad.grad(inplace_candidate, wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(x, copies[0])
    np.testing.assert_array_equal(y, copies[1])
    assert_close(gy, numeric_grad(inplace_candidate, (x, y), 1))


def test_gradient_does_not_alias_argument():
    # d/dy of sum(w*w) where w = 2x + y is 2w: a fresh array, never the caller's y
    x, y = RNG.randn(3, 2), RNG.randn(3, 2)
    gx, gy = srcad.grad(inplace_candidate, wrt=(0, 1))(x, y)
    assert not np.shares_memory(gy, y)
    assert not np.shares_memory(gx, x)


def plain_sum(x):
    return np.sum(x)


def sum_of_square_of_sum(x, y):
    z = x + y
    return np.sum(z * z)


def test_array_gradient_is_a_writeable_array():
    g = srcad.grad(plain_sum)(np.ones((2, 3)))
    assert_close(g, np.ones((2, 3)))
    g *= 0.5  # users update gradients in place
    assert_close(g, np.full((2, 3), 0.5))


def test_returned_gradients_do_not_alias_each_other():
    x, y = RNG.randn(3), RNG.randn(3)
    gx, gy = srcad.grad(sum_of_square_of_sum, wrt=(0, 1))(x, y)
    assert_close(gx, numeric_grad(sum_of_square_of_sum, (x, y), 0))
    assert_close(gy, numeric_grad(sum_of_square_of_sum, (x, y), 1))
    assert not np.shares_memory(gx, gy)


def test_repeated_calls_give_independent_results():
    W, b, x = RNG.randn(4, 3), RNG.randn(3), RNG.randn(5, 4)
    g = srcad.grad(dense, wrt=(0, 1))
    first = g(W, b, x)
    saved = [a.copy() for a in first]
    g(W * 2.0, b - 1.0, x)  # a second call must not overwrite the first results
    for a, s in zip(first, saved):
        np.testing.assert_array_equal(a, s)


# ---- several specializations


def test_float_then_array_specializations():
    g = srcad.grad(f2, wrt=(0, 1))
    gx, gy = g(0.3, 1.7)
    assert type(gx) is float
    assert_close(gx, numeric_grad(f2, (0.3, 1.7), 0))

    x = RNG.randn(3)
    summed = lambda x, y: np.sum(f2(x, y))  # noqa: E731
    gxa, gya = srcad.grad(f2_summed, wrt=(0, 1))(x, 1.7)
    assert_close(gxa, numeric_grad(summed, (x, 1.7), 0))
    assert_close(gya, numeric_grad(summed, (x, 1.7), 1))


def f2_summed(x, y):
    return np.sum(np.sin(x) * y + x ** 2)


def test_same_grad_float_then_array_then_float():
    g = srcad.grad(f2_summed, wrt=(0, 1))
    summed_args = [(0.3, 1.7), (RNG.randn(3), 1.7), (RNG.randn(2, 2), RNG.randn(2)), (0.9, -0.4)]
    for args in summed_args:
        gx, gy = g(*args)
        assert np.shape(gx) == np.shape(args[0])
        assert np.shape(gy) == np.shape(args[1])
        assert_close(gx, numeric_grad(f2_summed, args, 0))
        assert_close(gy, numeric_grad(f2_summed, args, 1))
    assert type(g(0.3, 1.7)[0]) is float
    assert len(g.specializations) >= 3


def test_int_then_float_specializations():
    g = srcad.grad(f2, wrt=0)
    assert_close(g(2, 3), numeric_grad(f2, (2.0, 3.0), 0))
    assert_close(g(2.0, 3.0), numeric_grad(f2, (2.0, 3.0), 0))
    assert_close(g(np.float64(2.0), 3.0), numeric_grad(f2, (2.0, 3.0), 0))


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x, y):
        return self.scale * x * x * y


def test_bound_method_differentiates_after_self():
    model = Model(3.0)
    g = srcad.grad(model.loss)(2.0, 5.0)
    assert g == pytest.approx(3.0 * 2 * 2.0 * 5.0)
    gx, gy = srcad.grad(model.loss, wrt=(0, "y"))(2.0, 5.0)
    assert (gx, gy) == (pytest.approx(60.0), pytest.approx(12.0))
    assert srcad.grad(Model(1.0).loss, wrt=1)(2.0, 5.0) == pytest.approx(4.0)
