"""What code written in a notebook does beside computing (issue 11, item 8): prints and
logs its progress (with f-strings and str.format), asserts, and returns its loss as an
array holding one number. The primal keeps those effects; the derivatives ignore the text.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import srcad
from tests._fd import assert_close
from tests.test_regressions import check_all_modes

log = logging.getLogger("srcad.tests.notebook")

X = np.array([0.3, -0.4, 1.2])


def prints_its_progress(x, steps=3):
    total = 0.0
    for step in range(steps):
        value = np.sum(np.sin(x * (step + 1)))
        message = f"step {step}: {value:{steps + 5}.3f} max={np.max(x)!r}"
        if step == 1:
            print(message)
        total = total + value
    print("total {:.4f}".format(total), "of", steps, sep=" ")
    return total


def logs_and_asserts(x):
    y = np.tanh(x) * 2.0
    log.info("norm %s", np.linalg.norm(y))
    logging.getLogger(__name__).debug(f"y = {y}")
    assert np.all(np.isfinite(y)), f"not finite: {y}"
    loss = np.sum(y ** 2)
    assert loss >= 0.0
    return loss


def returns_one_number_in_an_array(x):
    return np.sum(np.exp(x) * x, keepdims=True)


def returns_a_one_by_one_matrix(x):
    column = np.cos(x)[:, None]
    return column.T @ column


def returns_a_zero_dimensional_array(x):
    return np.asarray(np.sum(x ** 3))


@pytest.mark.parametrize("function", [prints_its_progress, logs_and_asserts])
def test_printing_and_logging_stay_in_the_primal(function, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    check_all_modes(function, [X], 0)
    assert srcad.grad(function, optimize=False)(X) == pytest.approx(srcad.grad(function)(X))
    if function is prints_its_progress:
        printed = capsys.readouterr().out
        assert "step 1:" in printed and "total" in printed
        assert "print(" in srcad.grad(function).source_for(X)  # the gradient prints too
    else:
        assert any("norm" in record.getMessage() for record in caplog.records)


def test_an_f_string_is_text_without_a_derivative():
    source = srcad.jvp(prints_its_progress, (X,), (np.ones(3),))  # no template needed
    assert_close(source[0], prints_its_progress(X))


def test_a_failing_assert_still_fails():
    with pytest.raises(AssertionError, match="not finite"):
        srcad.grad(logs_and_asserts)(np.array([np.nan, 1.0]))


@pytest.mark.parametrize("function, shape", [
    (returns_one_number_in_an_array, (1,)),
    (returns_a_one_by_one_matrix, (1, 1)),
    (returns_a_zero_dimensional_array, ()),
])
def test_an_array_holding_one_number_is_a_scalar_loss(function, shape):
    assert np.shape(function(X)) == shape

    def as_number(x):
        return float(np.reshape(function(x), ()))

    for optimize in (True, False):
        gradient = srcad.grad(function, optimize=optimize)(X)
        assert_close(gradient, srcad.grad(as_number_of(function))(X))
    value, gradient = srcad.value_and_grad(function)(X)
    assert np.shape(value) == shape
    assert_close(srcad.hvp(function)(X, np.ones(3)), srcad.hvp(as_number_of(function))(X,
                                                                                  np.ones(3)))
    check_all_modes(as_number_of(function), [X], 0)
    assert as_number(X) == pytest.approx(float(np.reshape(value, ())))


def as_number_of(function):
    """``function``'s loss as a plain number (a def srcad reads, calling ``function``)."""
    return {returns_one_number_in_an_array: one_number_loss,
            returns_a_one_by_one_matrix: one_by_one_loss,
            returns_a_zero_dimensional_array: zero_dimensional_loss}[function]


def one_number_loss(x):
    return returns_one_number_in_an_array(x)[0]


def one_by_one_loss(x):
    return returns_a_one_by_one_matrix(x)[0, 0]


def zero_dimensional_loss(x):
    return returns_a_zero_dimensional_array(x)[()]
