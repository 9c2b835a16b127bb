"""Zero adjoints in specialized code: ``rt.zeros_like`` of an array becomes
``np.zeros(x.shape, x.dtype if x.dtype.kind in 'fc' else np.float64)`` once the kinds are
known (specialize_zeros, after simplify_zeros). Its dtype is no kind: the result must be the
helper's (an inexact dtype kept, float64 for integers and bools), and a name a placeholder
binds (None on some paths) keeps the helper."""

import numpy as np
import pytest

import srcad


def _ignores_its_second(x, n):
    return np.sum(x * 2.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int8,
                                   np.uint8])
def test_zero_gradient_of_an_unused_array_has_the_helpers_dtype(dtype):
    x, n = np.ones(3), np.ones((2, 1), dtype=dtype)
    grad = srcad.grad(_ignores_its_second, wrt=(0, 1))
    source = grad.source_for(x, n)
    assert "rt.zeros_like" not in source and "np.zeros(n.shape" in source
    _, n_bar = grad(x, n)
    expected = np.dtype(dtype) if np.dtype(dtype).kind in "fc" else np.dtype(np.float64)
    assert type(n_bar) is np.ndarray and n_bar.shape == (2, 1) and n_bar.dtype == expected
    assert not n_bar.any()


def _assigned_on_one_path(x):
    if x[0] > 0.0:
        return x @ x
    else:
        y = x * 2.0
    return np.sum(y * y)


def test_a_name_a_placeholder_binds_keeps_the_helper():
    grad = srcad.grad(_assigned_on_one_path)
    x = np.array([0.5, -0.2])
    assert "rt.zeros_like(y)" in grad.source_for(x)
    np.testing.assert_allclose(grad(x), 2.0 * x)
    np.testing.assert_allclose(grad(-x), -8.0 * x)

