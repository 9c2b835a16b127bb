"""A tiny central finite-difference helper, private to the API/error/cache tests.

Kept separate from tests/gradcheck.py on purpose, so these tests do not depend on it.
"""

import numpy as np


def numeric_grad(f, args, index, eps=1e-6, kwargs=None):
    """Central differences of scalar ``f(*args, **kwargs)`` w.r.t. positional ``args[index]``.

    A Python float argument gives a Python float; an array gives an array of its shape.
    """
    kwargs = kwargs or {}
    x = args[index]
    scalar = np.ndim(x) == 0
    base = np.array(x, dtype=float)
    out = np.zeros_like(base)
    for position in np.ndindex(base.shape):
        values = []
        for sign in (1.0, -1.0):
            moved = base.copy()
            moved[position] += sign * eps
            call_args = list(args)
            call_args[index] = float(moved) if scalar else moved
            values.append(float(f(*call_args, **kwargs)))
        out[position] = (values[0] - values[1]) / (2 * eps)
    return float(out) if scalar else out


def assert_close(actual, expected, rtol=1e-5, atol=1e-7):
    """Values close and, for arrays, shapes equal."""
    assert np.shape(actual) == np.shape(expected), (np.shape(actual), np.shape(expected))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def assert_gradients_match(function, args, wrt, gradients=None):
    """srcad's gradients for positions ``wrt`` agree with central differences.

    Also checks the gradient has its argument's shape, and is a Python float for
    a Python float argument.
    """
    import srcad

    if gradients is None:
        gradients = srcad.grad(function, wrt=tuple(wrt))(*args)
    for position, gradient in zip(wrt, gradients):
        assert_close(gradient, numeric_grad(function, args, position))
        if isinstance(args[position], float):
            assert type(gradient) is float
