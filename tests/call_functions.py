"""Functions calling other functions, differentiated in tests/test_calls.py."""

import numpy as np

from tests import call_helpers as helpers
from tests.call_helpers import rhs, scaled_norm


def square(x):
    return x * x


def poly(x, a=2.0, b=1.0):
    return a * x * x + b * x


def uses_square(x):
    return square(x) + square(2.0 * x)


def keyword_and_defaults(x, y):
    return poly(x) + poly(y, b=3.0) + poly(x, 0.5, b=y)


def call_in_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + poly(x * i, a=0.1)
    return s


def imported_helpers(x, y):
    k1, k2 = rhs(x, y, 1.1, 0.4)
    return k1 * k2 + helpers.sigmoid(x) + scaled_norm(np.array([x, y]))


def rk4_with_helper(a, b, u0):
    x = u0[0]
    y = u0[1]
    dt = 0.01
    for i in range(20):
        k1x, k1y = rhs(x, y, a, b)
        k2x, k2y = rhs(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, a, b)
        x = x + dt * k2x
        y = y + dt * k2y
    return x * y


def nested_def_closure(x, w):
    scale = np.sum(w * w)

    def inner(t):
        return np.tanh(t * scale) + t

    return inner(x) * inner(2.0 * x)


def lambda_closure(x, y):
    shift = y * 2.0
    f = lambda t: t * t + shift  # noqa: E731
    return f(x) + f(y)


def helper_with_branch_and_loop(x):
    return helpers.piecewise(x) + helpers.iterate(x, 4)


def helper_with_early_return(x):
    return helpers.clipped(x) * x


def chain_of_helpers(x):
    return helpers.outer_helper(x)


def uses_math_helper(x):
    return helpers.angle(x, 2.0 * x)


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def returns_tuple_helper(x):
    a, b = helpers.pair(x)
    return a * b


def ignores_inactive_logging_helper(x):
    helpers.log_value(3)
    return x * x


def unused_stop_gradient_helper(x):
    y = helpers.frozen(x)
    return x * y


def active_logging(x):
    return helpers.log_value(x) * x


def recursive_sum(x, n):
    if n == 0:
        return x
    return np.sin(x) + recursive_sum(x * 1.1, n - 1)


def calls_recursive(x):
    return recursive_power(x, 4) * recursive_sum(x, 3)
