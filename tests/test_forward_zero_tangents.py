"""Forward mode when some operands have no tangent (optimize/simplify_zeros.py).

An argument without a tangent enters the tangent code as an explicit zero that
the pass removes. Removing ``+ 0`` is right only when the other term already has
the shape of the sum: in ``sin(x) + y`` with x of shape (4,) and y of shape
(3, 4), ``sin_dot`` has shape (4,) but the sum's tangent has shape (3, 4), so
``np.sum`` of it counts every row. Each case here is checked against a central
finite difference, for every shape pairing and for both operand orders.
"""

import zlib

import numpy as np
import pytest

import srcad

from ._fd import assert_close


def plus(x, y):
    return np.sum(np.sin(x) + y)


def plus_reversed(x, y):
    return np.sum(y + np.sin(x))


def minus(x, y):
    return np.sum(np.sin(x) - y)


def minus_reversed(x, y):
    return np.sum(y - np.sin(x))


def times_sum(x, y):
    return np.sum((np.sin(x) + y) * np.cos(x))


def array_output(x, y):
    return np.sin(x) - y


SHAPES = {"scalar": (), "row": (4,), "column": (3, 1), "full": (3, 4)}


def value(shape, seed_text):
    rng = np.random.default_rng(zlib.crc32(seed_text.encode()))
    return float(rng.uniform(-1.0, 1.0)) if shape == () else rng.uniform(-1.0, 1.0, shape)


def central_difference(function, x, y, direction, eps=1e-6):
    step = direction * eps
    return (np.asarray(function(x + step, y)) - np.asarray(function(x - step, y))) / (2 * eps)


CASES = [(function, x_shape, y_shape)
         for function in (plus, plus_reversed, minus, minus_reversed, times_sum, array_output)
         for x_shape in SHAPES for y_shape in SHAPES]


@pytest.mark.parametrize("function, x_shape, y_shape", CASES,
                         ids=["%s-x_%s-y_%s" % (f.__name__, xs, ys) for f, xs, ys in CASES])
def test_tangent_of_x_only_matches_finite_differences(function, x_shape, y_shape):
    """jvp with a tangent for x and none for y, y possibly broadcasting x up."""
    label = "%s %s %s" % (function.__name__, x_shape, y_shape)
    x = value(SHAPES[x_shape], "x " + label)
    y = value(SHAPES[y_shape], "y " + label)
    direction = value(SHAPES[x_shape], "direction " + label)
    out, tangent = srcad.jvp(function, (x, y), (direction, None))
    assert_close(out, function(x, y))
    assert_close(tangent, central_difference(function, x, y, direction))


def test_the_reported_case():
    """The program the issue names: a tangent of shape (4,) summed over a (3, 4) broadcast."""
    x = np.array([0.1, 0.2, -0.3, 0.7])
    y = np.ones((3, 4))
    direction = np.array([1.0, -1.0, 0.5, 2.0])
    _, tangent = srcad.jvp(plus, (x, y), (direction, None))
    assert tangent == pytest.approx(3 * np.sum(np.cos(x) * direction), rel=1e-12)


@pytest.mark.parametrize("x_shape, y_shape", [("scalar", "scalar"), ("row", "row"),
                                              ("full", "full"), ("full", "row"),
                                              ("full", "scalar")])
@pytest.mark.parametrize("function", [plus, plus_reversed, minus, minus_reversed])
def test_a_zero_that_keeps_the_shape_is_dropped(function, x_shape, y_shape):
    """Where x's term already has the sum's shape, the specialized tangent code carries no
    zero for y: nothing is computed for an argument without a tangent."""
    x, y = value(SHAPES[x_shape], "x"), value(SHAPES[y_shape], "y")
    source = srcad.source(function, wrt=0, mode="forward", example_args=(x, y))
    assert "zeros_like" not in source, source
    direction = value(SHAPES[x_shape], "direction")
    _, tangent = srcad.jvp(function, (x, y), (direction, None))
    assert_close(tangent, central_difference(function, x, y, direction))
