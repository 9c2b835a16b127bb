"""Python constructs normalize rewrites, checked to first and second order.

Each function (tests/construct_functions.py) exercises one rewrite whose slip
would change results: ``and``/``or`` chains of three operands (short-circuit as
nested branches), a nested def called with and without its default, ``sum`` with
a start value, asserts and raises kept as checks, annotated assignments, inner
loops whose trip count or recomputed values depend on the outer iteration, a
parameter without a tangent that a loop rebinds, and forward mode over gradient
code with several gradients. Each is run where the rewritten piece decides the
result (e.g. the third operand of ``and`` false), and checked: value, reverse
gradient and jvp against central finite differences, hvp against finite
differences of the gradient.
"""

import numpy as np
import pytest

import srcad
from tests import construct_functions as cf
from tests._fd import assert_close, numeric_grad

EPS = 1e-6


def directional_difference(function, args, tangents):
    """Central difference of ``function`` along ``tangents`` (None: held constant)."""
    plus = [a if t is None else a + EPS * t for a, t in zip(args, tangents)]
    minus = [a if t is None else a - EPS * t for a, t in zip(args, tangents)]
    return (function(*plus) - function(*minus)) / (2 * EPS)


def check_first_order(function, args, wrt):
    gradients = srcad.grad(function, wrt=tuple(wrt))(*args)
    for position, gradient in zip(wrt, gradients):
        assert_close(gradient, numeric_grad(function, args, position))
    tangents = [0.5 + 0.25 * i if i in wrt else None for i in range(len(args))]
    out, tangent = srcad.jvp(function, args, tangents)
    assert out == pytest.approx(function(*args), rel=1e-12, abs=1e-12)
    assert_close(tangent, directional_difference(function, args, tangents))


def check_hvp(function, args, position=0):
    """H v by srcad (forward over reverse) against differences of srcad's gradient."""
    direction = 0.75
    gradient = srcad.grad(function, wrt=position)
    moved = [list(args), list(args)]
    moved[0][position] += EPS * direction
    moved[1][position] -= EPS * direction
    expected = (gradient(*moved[0]) - gradient(*moved[1])) / (2 * EPS)
    assert_close(srcad.hvp(function, wrt=position)(*args, direction), expected, rtol=1e-5,
                 atol=1e-6)


BRANCH_CASES = [
    (cf.all_three_positive, (1.0, 2.0, -3.0)),  # only the third operand is false
    (cf.all_three_positive, (1.0, 2.0, 3.0)),
    (cf.all_three_positive, (1.0, -2.0, 3.0)),
    (cf.any_of_three, (1.0, 2.0, 3.0)),  # only the third operand is true
    (cf.any_of_three, (1.0, 2.0, -3.0)),
    (cf.any_of_three, (1.0, 6.0, -3.0)),
    (cf.flag_of_three, (1.0, 2.0, -3.0)),
    (cf.flag_of_three, (1.0, 2.0, 3.0)),
]


@pytest.mark.parametrize("function, args", BRANCH_CASES,
                         ids=["%s-%s" % (f.__name__, a) for f, a in BRANCH_CASES])
def test_boolean_chains_of_three_operands(function, args):
    check_first_order(function, args, (0, 1, 2))
    check_hvp(function, args, 0)


CASES = [
    (cf.nested_def_with_default, (2.0,), (0,)),
    (cf.summed_generator_with_start, (2.0,), (0,)),
    (cf.summed_list_with_start, (2.0, 0.5), (0, 1)),
    (cf.annotated_assignment, (0.7,), (0,)),
    (cf.checked_square, (0.7,), (0,)),
    (cf.triangular_loops, (0.9, 4), (0,)),
    (cf.inner_loop_reads_outer_value, (0.7, 3), (0,)),
    (cf.inner_loop_reads_outer_value, (1.2, 3), (0,)),
    (cf.inner_loop_in_branch_reads_outer_value, (0.7, 3), (0,)),
    (cf.inner_loop_in_branch_reads_outer_value, (1.2, 4), (0,)),
]


@pytest.mark.parametrize("function, args, wrt", CASES,
                         ids=["%s-%s" % (f.__name__, a) for f, a, _ in CASES])
def test_value_gradient_and_tangent(function, args, wrt):
    check_first_order(function, args, wrt)


@pytest.mark.parametrize("function, args", [
    (cf.nested_def_with_default, (2.0,)),
    (cf.summed_generator_with_start, (2.0,)),
    (cf.annotated_assignment, (0.7,)),
    (cf.checked_square, (0.7,)),
])
def test_second_order(function, args):
    check_hvp(function, args)


@pytest.mark.parametrize("x, error, message", [(-0.5, AssertionError, "x must be positive"),
                                               (11.0, ValueError, "x is too large")])
def test_asserts_and_raises_still_check_the_arguments(x, error, message):
    """Derivative code runs the function's own checks, as the function would."""
    with pytest.raises(error, match=message):
        srcad.grad(cf.checked_square)(x)
    with pytest.raises(error, match=message):
        srcad.jvp(cf.checked_square, (x,), (1.0,))


def test_parameter_without_tangent_rebound_in_a_loop():
    """y has no tangent but becomes varied in the loop: its tangent starts at zero."""
    args = (0.7, 0.5)
    out, tangent = srcad.jvp(cf.parameter_rebound_in_loop, args, (1.0, None))
    assert out == pytest.approx(cf.parameter_rebound_in_loop(*args))
    assert_close(tangent, directional_difference(cf.parameter_rebound_in_loop, args,
                                                 (1.0, None)))


def test_forward_mode_over_gradient_code_with_two_gradients():
    """jvp of the compiled gradient for (array, float) arguments: the Hessian times a
    direction, both gradients at once, against differences of the gradient."""
    x, s = np.array([0.5, -1.0, 2.0]), 2.0
    gradient = srcad.grad(cf.scaled_sum, wrt=(0, 1))
    compiled = gradient.generated_for(x, s).function
    dx, ds = np.array([1.0, 0.5, -0.25]), 0.75
    (gx, gs), (tx, ts) = srcad.jvp(compiled, (x, s), (dx, ds))
    plus = gradient(x + EPS * dx, s + EPS * ds)
    minus = gradient(x - EPS * dx, s - EPS * ds)
    assert_close(tx, (plus[0] - minus[0]) / (2 * EPS))
    assert_close(ts, (plus[1] - minus[1]) / (2 * EPS))
    assert_close(gx, np.full(3, s))
    assert gs == pytest.approx(np.sum(x))


def read_before_assigned_in_a_loop(x):
    for i in range(3):
        if i > 0:
            x = x + prev * x  # prev: last iteration's (bound to None before the loop)
        prev = np.sin(x) * 0.5
    return x


def test_a_name_a_loop_reads_before_assigning_it():
    # the binding rename_versions puts before the loop records the loop as its origin (it
    # had none: the invariant checks failed, fuzz seed 1417546034 through an hvp)
    check_first_order(read_before_assigned_in_a_loop, (0.7,), (0,))
    check_hvp(read_before_assigned_in_a_loop, (0.7,))
