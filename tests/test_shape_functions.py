"""The shape functions of srcad/templates/numpy_shape.py beyond the template combinations:
the calls srcad refuses (located errors) and the precision of their shape rules."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import srcad
from tests._fd import assert_close, numeric_grad


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def pad_by_a_varied_constant(x, c):
    return np.sum(np.pad(x, 1, constant_values=c) ** 2)


def pad_odd_reflection(x):
    return np.sum(np.pad(x, 1, mode="reflect", reflect_type="odd") ** 2)


def pad_linear_ramp(x):
    return np.sum(np.pad(x, 1, mode="linear_ramp") ** 2)


def pad_by_a_mode_given_late(x, mode):
    return np.sum(np.pad(x, 1, mode=mode) ** 2)


def gradient_by_a_varied_spacing(x, h):
    return np.sum(np.gradient(x, h) ** 2)


@pytest.mark.parametrize("function, wrt, message", [
    (gradient_by_a_varied_spacing, 1, "not in its spacing"),
    (pad_by_a_varied_constant, 1, "not in constant_values"),
    (pad_odd_reflection, 0, "reflect_type 'even'"),
    (pad_linear_ramp, 0, "not 'linear_ramp'"),
])
def test_a_pad_srcad_cannot_differentiate_is_a_located_error(function, wrt, message):
    x = np.ones((2, 3))
    with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
        srcad.grad(function, wrt=wrt)(x, 0.5) if wrt else srcad.grad(function)(x)
    text = str(error.value)
    assert message in text and "test_shape_functions.py" in text
    assert "np.pad" in text or "np.gradient" in text


def test_a_pad_mode_known_only_when_it_runs_is_checked_then():
    x = np.ones((2, 3))
    with pytest.raises(srcad.errors.UnsupportedOperationError, match="not 'mean'"):
        srcad.grad(pad_by_a_mode_given_late)(x, "mean")
    gradient = srcad.grad(pad_by_a_mode_given_late)(x * 0.5, "wrap")
    assert_close(gradient, numeric_grad(pad_by_a_mode_given_late, (x * 0.5, "wrap"), 0))


def pad_by_a_constant(x, c):
    return np.sum(np.pad(x, 1, constant_values=c) ** 2)


def test_a_constant_pad_value_not_differentiated_is_allowed():
    x = _rng("pad_by_a_constant").standard_normal((2, 3))
    gradient = srcad.grad(pad_by_a_constant)(x, 0.5)
    assert_close(gradient, numeric_grad(pad_by_a_constant, (x, 0.5), 0))


def layer_of_shape_functions(x, b):
    y = np.tile(x, (2, 1)) * b
    z = np.flip(np.roll(y, 1, axis=0), axis=1)
    w = np.moveaxis(np.atleast_3d(z), 0, -1) * b[0]
    v = np.hstack([np.swapaxes(w, 0, 1)[0], np.take(w[:, 0, :], [0, 2], axis=1)])
    v = np.rot90(v, 3, axes=(1, 0)) * b[1]
    return np.sum(np.sort(v, axis=0) * v) * np.sum(np.pad(v, 1, mode="edge") ** 2)


def test_shape_rules_leave_no_broadcasting_helper_in_specialized_code():
    rng = _rng("layer_of_shape_functions")
    x, b = rng.standard_normal((2, 3)), rng.standard_normal(3)
    gradient = srcad.grad(layer_of_shape_functions, wrt=(0, 1))
    source = gradient.source_for(x, b)
    assert "rt.unbroadcast" not in source, source
    for got, p in zip(gradient(x, b), (0, 1)):
        assert_close(got, numeric_grad(layer_of_shape_functions, (x, b), p))


def gradient_by_coordinates(x):
    return np.sum(np.gradient(x, np.array([0.0, 1.0, 3.0])) ** 2)


def test_a_gradient_by_coordinates_is_refused_when_it_runs():
    with pytest.raises(srcad.errors.UnsupportedOperationError, match="scalar spacings"):
        srcad.grad(gradient_by_coordinates)(np.array([1.0, 2.0, 4.0]))


def choose_clipped(x):
    return np.sum(np.choose(np.array([0, 3, 1]), [x, x ** 2], mode="clip"))


def test_a_choose_with_indices_out_of_range_is_a_located_error():
    with pytest.raises(srcad.errors.UnsupportedOperationError) as error:
        srcad.grad(choose_clipped)(np.ones(3))
    assert "mode 'raise'" in str(error.value) and "test_shape_functions.py" in str(error.value)
