"""In-place updates: right gradients, and the caller's arrays are never changed."""

import numpy as np
import pytest

import srcad
from tests import inplace_functions as ip
from tests._fd import numeric_grad

RNG = np.random.RandomState(7)
CASES = [
    (ip.set_element, (RNG.randn(4), 0.7), (0, 1)),
    (ip.add_to_element, (RNG.randn(4), 0.3), (0, 1)),
    (ip.slice_and_rows, (RNG.randn(4, 3), RNG.randn(3)), (0, 1)),
    (ip.mask_and_fancy, (np.array([0.1, 1.2, -0.3, 0.9]), 0.6), (0, 1)),
    (ip.inplace_operators, (RNG.randn(5), RNG.randn(5)), (0, 1)),
    (ip.fill_in_loop, (RNG.randn(6),), (0,)),
    (ip.overwrite_then_read, (RNG.randn(3),), (0,)),
    (ip.mutates_argument_copy, (RNG.randn(3),), (0,)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__)
def test_gradient_matches_finite_differences(case):
    function, args, wrt = case
    copies = [np.copy(a) for a in args]
    gradients = srcad.grad(function, wrt=wrt)(*args)
    for original, after in zip(copies, args):
        np.testing.assert_array_equal(original, after)  # nothing the caller passed changed
    for index, gradient in zip(wrt, gradients):
        expected = numeric_grad(function, [np.copy(a) for a in args], index)
        np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-7)


def test_function_that_mutates_its_argument_still_does_so_when_called_directly():
    # srcad changes nothing about the user's function itself
    x = np.ones(3)
    ip.mutates_argument_copy(x)
    assert x[0] == 3.0
