"""NumPy's numerical routines and scipy.signal (srcad/templates/numpy_numerical.py,
scipy_signal.py): what the case table (tests/template_combos.py) does not show.

The convolutions' windows for every length pair (the case table tries a few), an operand
that is a number, the calls srcad refuses.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import srcad
from srcad import runtime as rt
from srcad.errors import UnsupportedOperationError
from tests._fd import assert_close, numeric_grad

try:
    from scipy import signal
except ImportError:  # SciPy is optional: its tests are skipped
    signal = None

MODES = ("full", "same", "valid")


def _window(g, in1, in2, mode, convention):
    """The window ``rt.convolution_padding`` places g at, as slices of the full result."""
    return tuple(slice(before, before + length) for (before, _), length in zip(
        rt.convolution_padding(g, in1, in2, mode, convention), np.shape(g)))


def test_numpy_windows_for_every_length_pair():
    rng = np.random.default_rng(0)
    for n, m in itertools.product(range(1, 7), repeat=2):
        a, v = rng.normal(size=n), rng.normal(size=m)
        for mode in MODES + (0, 1, 2):
            convolved = np.convolve(a, v, mode)
            window = _window(convolved, a, v, mode, "numpy.convolve")
            assert_close(convolved, np.convolve(a, v, "full")[window])
            correlated = np.correlate(a, v, mode)
            window = _window(correlated, a, v, mode, "numpy.correlate")
            assert_close(correlated, np.convolve(a, v[::-1], "full")[window])


def test_scipy_windows_for_shape_pairs():
    pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(1)
    shapes = [(1, 1), (2, 3), (3, 2), (4, 4), (3, 5), (1, 4)]
    for shape1, shape2 in itertools.product(shapes, repeat=2):
        in1, in2 = rng.normal(size=shape1), rng.normal(size=shape2)
        full = signal.convolve(in1, in2, method="direct")
        full_correlation = signal.convolve(in1, in2[::-1, ::-1], method="direct")
        nested = np.all(np.greater_equal(shape1, shape2)) or np.all(
            np.less_equal(shape1, shape2))
        for mode in MODES if nested else MODES[:2]:
            for function, whole, convention in (
                    (signal.convolve, full, "scipy"), (signal.convolve2d, full, "scipy"),
                    (signal.correlate, full_correlation, "scipy"),
                    (signal.correlate2d, full_correlation, "correlate2d")):
                result = function(in1, in2, mode)
                window = _window(result, in1, in2, mode, convention)
                assert_close(result, whole[window])


def convolve_with_a_number(v):
    return np.sum(np.sin(np.convolve(2.0, v, "same")))


def convolve_a_number(x):
    return np.sum(np.sin(np.convolve(x, np.array([1.0, -2.0, 0.5]))))


def test_np_convolve_of_a_number():
    v = np.array([0.3, -0.7, 1.1])
    assert_close(srcad.grad(convolve_with_a_number)(v), numeric_grad(convolve_with_a_number, [v], 0))
    gradient = srcad.grad(convolve_a_number)(0.8)
    assert type(gradient) is float
    assert gradient == pytest.approx(numeric_grad(convolve_a_number, [0.8], 0), rel=1e-6)


def wrapped_convolution(image, kernel):
    return np.sum(signal.convolve2d(image, kernel, boundary="wrap"))


def filled_with_ones(image, kernel):
    return np.sum(signal.correlate2d(image, kernel, "same", fillvalue=1.0))


@pytest.mark.parametrize("f", [wrapped_convolution, filled_with_ones])
def test_boundaries_other_than_zeros_are_refused(f):
    pytest.importorskip("scipy.signal")
    with pytest.raises(UnsupportedOperationError) as caught:
        srcad.grad(f)(np.ones((3, 3)), np.ones((2, 2)))
    message = str(caught.value)
    assert "boundary='fill' and fillvalue=0 only" in message
    assert "test_numerical.py:" in message and "^" in message


def cov_of_two(x, y):
    return np.sum(np.cov(x, y))


def weighted_cov(x, w):
    return np.sum(np.cov(x, aweights=w))


def corrcoef_of_two(x, y):
    return np.sum(np.corrcoef(x, y))


def interp_in_knots(x, xp):
    return np.sum(np.interp(x, xp, np.array([0.0, 1.0, 0.5])))


def periodic_interp(x, fp):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 2.0]), fp, period=3.0))


def trapezoid_in_spacing(y, dx):
    return np.trapezoid(y, dx=dx)


def logspace_in_base(start, base):
    return np.sum(np.logspace(start, 2.0, 4, base=base + 2.0))


@pytest.mark.parametrize("f, expected", [
    (cov_of_two, "of one array of variables, without y"),
    (weighted_cov, "without aweights"),
    (corrcoef_of_two, "without y"),
    (interp_in_knots, "in its argument 'xp'"),
    (periodic_interp, "without a period only"),
    (trapezoid_in_spacing, "in its argument 'dx'"),
    (logspace_in_base, "in its argument 'base'"),
])
def test_arguments_without_a_derivative_are_refused_at_the_call(f, expected):
    args = (np.array([0.2, 0.9, 1.4]), np.array([0.0, 1.0, 2.0]))
    with pytest.raises(UnsupportedOperationError) as caught:
        srcad.grad(f, wrt=(0, 1))(*args)
    message = str(caught.value)
    assert expected in message and "test_numerical.py:" in message and "^" in message


def polyval_of_coefficient_rows(p, x):
    return np.sum(np.polyval(p, x))


def test_polyval_of_an_array_of_coefficients_is_refused():
    with pytest.raises(UnsupportedOperationError, match="vector of coefficients only"):
        srcad.grad(polyval_of_coefficient_rows)(np.ones((3, 2)), np.array([0.5, 2.0]))


def interp_at(x):
    return np.interp(x, np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 1.0]))


def test_interp_slope_at_knots_and_beyond():
    """At a knot, the slope of the segment to its right; at the last knot and beyond, 0."""
    slopes = [srcad.grad(interp_at)(x) for x in (-1.0, 0.0, 0.5, 1.0, 3.0, 4.0)]
    assert slopes == [0.0, 2.0, 2.0, -0.5, 0.0, 0.0]


def polyval_at_zero(p, x):
    return np.sum(np.polyval(p, x) ** 2)


def test_polyval_second_order_at_zero_is_finite():
    p, x = np.array([1.5, -2.0, 0.5]), np.array([0.0, 1.0])
    hessian = srcad.hessian(polyval_at_zero, wrt=1)(p, x)
    assert np.all(np.isfinite(hessian))
    gradient = srcad.grad(polyval_at_zero, wrt=0)(p, x)
    assert_close(gradient, numeric_grad(polyval_at_zero, [p, x], 0))


def smoothed(image, kernel):
    return np.sum(np.sin(signal.convolve(image, kernel, "same"))
                  * np.cos(signal.correlate(image, kernel, "valid")[0, 0]))


def test_convolution_adjoints_by_ffts():
    """Operands of more than 64 elements: rt.valid_correlation correlates by FFTs."""
    pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(2)
    image, kernel = rng.normal(size=(12, 10)), rng.normal(size=(9, 8))
    gradients = srcad.grad(smoothed, wrt=(0, 1))(image, kernel)
    for position in (0, 1):
        assert_close(gradients[position], numeric_grad(smoothed, [image, kernel], position),
                     atol=1e-6)


def filtered(image, kernel):
    return np.sum(signal.convolve(image, kernel, "same") ** 2
                  + np.convolve(image[0], kernel[0])[0])


def test_specialized_code_of_full_and_same_modes_has_no_unbroadcast():
    """The shape rules know which axes of a 'full' or 'same' result have length 1."""
    pytest.importorskip("scipy.signal")
    source = srcad.grad(filtered, wrt=(0, 1)).source_for(np.ones((5, 4)), np.ones((3, 2)))
    assert "rt.unbroadcast" not in source, source
