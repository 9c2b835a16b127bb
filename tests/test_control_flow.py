"""Control flow: every construct's gradient against central finite differences."""

import numpy as np
import pytest

import srcad
from tests import control_flow_functions as cf
from tests._fd import assert_gradients_match

RNG = np.random.RandomState(0)
CASES = [
    (cf.branch_on_value, (0.8, 1.3), (0, 1)),
    (cf.branch_on_value, (0.2, 1.3), (0, 1)),
    (cf.branch_without_else, (0.8,), (0,)),
    (cf.branch_without_else, (0.3,), (0,)),
    (cf.elif_chain, (-1.5,), (0,)),
    (cf.elif_chain, (0.5,), (0,)),
    (cf.elif_chain, (1.5,), (0,)),
    (cf.elif_chain, (2.5,), (0,)),
    (cf.conditional_expression, (2.0, 1.0), (0, 1)),
    (cf.conditional_expression, (1.0, 2.0), (0, 1)),
    (cf.bool_ops, (1.0, 2.0), (0, 1)),
    (cf.bool_ops, (-1.0, 2.0), (0, 1)),
    (cf.bool_ops, (-6.0, 2.0), (0, 1)),
    (cf.chained_comparison, (0.5,), (0,)),
    (cf.chained_comparison, (1.5,), (0,)),
    (cf.condition_on_integer, (1.3, 4), (0,)),
    (cf.condition_on_integer, (1.3, 3), (0,)),
    (cf.for_range_start_stop_step, (1.3, 11), (0,)),
    (cf.for_negative_step, (0.7,), (0,)),
    (cf.for_reversed_range, (0.7,), (0,)),
    (cf.loop_over_rows, (RNG.randn(4, 3),), (0,)),
    (cf.loop_over_list, (0.4,), (0,)),
    (cf.loop_enumerate_zip, (RNG.randn(5), RNG.randn(4)), (0, 1)),
    (cf.while_on_value, (0.5,), (0,)),
    (cf.while_counter, (0.5, 7), (0,)),
    (cf.nested_loops, (RNG.randn(3, 3) * 0.5, RNG.randn(3)), (0, 1)),
    (cf.loop_with_branch, (0.3, 8), (0,)),
    (cf.data_dependent_trip_count, (3.3,), (0,)),
    (cf.data_dependent_trip_count, (0.55,), (0,)),
    (cf.break_in_loop, (0.7,), (0,)),
    (cf.break_in_loop, (0.01,), (0,)),
    (cf.continue_in_loop, (0.9,), (0,)),
    (cf.early_return, (2.5,), (0,)),
    (cf.early_return, (1.0,), (0,)),
    (cf.early_return, (0.2,), (0,)),
    (cf.return_from_nested_loop, (1.3,), (0,)),
    (cf.return_from_nested_loop, (0.001,), (0,)),
    (cf.for_else, (1.5,), (0,)),
    (cf.for_else, (3.5,), (0,)),
    (cf.while_else, (0.7,), (0,)),
    (cf.loop_never_runs, (1.3, 0), (0,)),
    (cf.loop_never_runs, (1.3, 3), (0,)),
    (cf.loop_carried_array, (RNG.randn(3, 3) * 0.5, RNG.randn(3)), (0, 1)),
    (cf.recurrence, (3.1, 0.3), (0, 1)),
    (cf.math_in_loop, (0.4,), (0,)),
    (cf.while_inside_for, (1.7,), (0,)),
    (cf.for_inside_while, (0.4, np.array([0.3, -0.2, 0.5])), (0, 1)),
    (cf.branchy_while_with_break, (1.1,), (0,)),
    (cf.branchy_while_with_break, (3.1,), (0,)),
    (cf.array_state_with_branch, (RNG.randn(3, 3) * 0.6, RNG.randn(3)), (0, 1)),
    (cf.end_value_only, (0.3,), (0,)),  # the adjoint reads only each iteration's end value
]


def _id(case):
    function, args, _ = case
    return "%s-%s" % (function.__name__, "-".join(
        str(a) if np.ndim(a) == 0 else "array" for a in args))


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_gradient_matches_finite_differences(case):
    function, args, wrt = case
    assert_gradients_match(function, args, wrt)


@pytest.mark.parametrize("case", CASES[:12], ids=[_id(c) for c in CASES[:12]])
def test_unspecialized_code_agrees(case):
    """Code generated for unknown argument types computes the same gradient."""
    from srcad import pipeline
    from srcad.request import ReverseRequest

    function, args, wrt = case
    params = function.__code__.co_varnames[:function.__code__.co_argcount]
    request = ReverseRequest(wrt=[params[i] for i in wrt], single=False)
    generic = pipeline.generate_reverse(function, request, None).function(*args)
    specialized = srcad.grad(function, wrt=wrt)(*args)
    for a, b in zip(generic, specialized):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_hundred_thousand_iterations():
    gradient = srcad.grad(cf.long_loop)(1.5, 100_000)
    assert gradient == pytest.approx(100_000 * 1e-5)


def test_loop_stays_a_loop():
    source = srcad.source(cf.recurrence, wrt=(0, 1), example_args=(3.1, 0.3))
    loops = [line.strip() for line in source.splitlines() if line.strip().startswith("for ")]
    assert loops == ["for i in range(50):", "for i in reversed(range(50)):"]
    assert "reversed(range(50))" in source


@pytest.mark.parametrize("optimize", [False, ("specialize",), ("recompute", "specialize")])
@pytest.mark.parametrize("case", CASES[::3], ids=[_id(c) for c in CASES[::3]])
def test_every_optimization_level_is_correct(case, optimize):
    """Switching optimizations off changes the code, never the gradient."""
    function, args, wrt = case
    reference = srcad.grad(function, wrt=wrt)(*args)
    got = srcad.grad(function, wrt=wrt, optimize=optimize)(*args)
    for a, b in zip(got, reference):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_unknown_optimization_is_rejected():
    with pytest.raises(srcad.SrcadError, match="unknown optimization"):
        srcad.grad(cf.recurrence, optimize=("inline_everything",))
