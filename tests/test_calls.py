"""User-defined calls: inlined callees, nested functions, lambdas, imports."""

import numpy as np
import pytest

import srcad
from srcad import errors
from tests import call_functions as cf
from tests._fd import assert_gradients_match, numeric_grad

RNG = np.random.RandomState(5)
CASES = [
    (cf.uses_square, (0.7,), (0,)),
    (cf.keyword_and_defaults, (0.7, -1.3), (0, 1)),
    (cf.call_in_loop, (0.7, 5), (0,)),
    (cf.imported_helpers, (0.7, 1.3), (0, 1)),
    (cf.rk4_with_helper, (1.1, 0.4, np.array([2.0, 1.5])), (0, 1, 2)),
    (cf.nested_def_closure, (0.3, RNG.randn(3) * 0.5), (0, 1)),
    (cf.lambda_closure, (0.3, -0.8), (0, 1)),
    (cf.helper_with_branch_and_loop, (1.5,), (0,)),
    (cf.helper_with_branch_and_loop, (0.5,), (0,)),
    (cf.helper_with_early_return, (6.0,), (0,)),
    (cf.helper_with_early_return, (2.0,), (0,)),
    (cf.chain_of_helpers, (0.4,), (0,)),
    (cf.uses_math_helper, (0.4,), (0,)),
    (cf.returns_tuple_helper, (0.4,), (0,)),
    (cf.ignores_inactive_logging_helper, (0.4,), (0,)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__ + "-" + str(c[1][0])[:6])
def test_gradient_matches_finite_differences(case):
    function, args, wrt = case
    assert_gradients_match(function, args, wrt)


def test_inlined_source_says_where_lines_come_from():
    source = srcad.source(cf.imported_helpers, wrt=(0, 1), example_args=(0.7, 1.3))
    assert "call_helpers.py:" in source  # comments name the callee's file and line
    assert "def grad_imported_helpers" in source and "def rhs" not in source


@pytest.mark.parametrize("function, args", [
    (cf.recursive_power, (1.3, 5)),
    (cf.recursive_power, (1.3, 0)),
    (cf.recursive_sum, (0.4, 4)),
    (cf.calls_recursive, (0.8,)),
])
def test_recursion(function, args):
    gradient = srcad.grad(function)(*args)
    assert gradient == pytest.approx(numeric_grad(function, args, 0), rel=1e-6)


def test_active_call_to_function_that_cannot_be_inlined_is_reported_in_the_callee():
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(cf.active_logging)(1.0)
    assert "call_helpers.py" in str(info.value) and "`try`" in str(info.value)


def test_callee_free_names_resolve_in_the_callee_module():
    # SCALE is a global of call_helpers, not of call_functions
    gradient = srcad.grad(cf.chain_of_helpers)(0.4)
    assert gradient == pytest.approx(numeric_grad(cf.chain_of_helpers, (0.4,), 0), rel=1e-6)
