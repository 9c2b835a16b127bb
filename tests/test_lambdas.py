"""Lambdas given to srcad: read from their file (on the line their code starts), and
differentiated like the ``def`` they stand for, in every mode and when called from a def."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import srcad
from srcad import cache, errors
from tests import gradcheck

W = np.array([0.3, -0.4, 1.2])
DATA = np.array([1.5, 0.5, -2.0])


def loss(w, data):
    return np.sum(np.tanh(w * data) ** 2)


def test_grad_of_a_lambda_closing_over_data():
    gradient = srcad.grad(lambda w: loss(w, DATA))(W)
    gradcheck.assert_close(gradient, gradcheck.numerical_gradient(lambda w: loss(w, DATA),
                                                                  (W,), 0))
    assert "def grad_lambda(" in srcad.grad(lambda w: loss(w, DATA)).source


def make_objective(data):
    return lambda params: loss(params, data)  # a builder returning a lambda


def test_grad_of_a_lambda_a_builder_returned():
    objective = make_objective(DATA * 2.0)
    gradcheck.assert_close(srcad.grad(objective)(W),
                           gradcheck.numerical_gradient(objective, (W,), 0))


def test_a_lambda_with_defaults_and_several_parameters():
    def expected(x, y):
        return np.cos(x) * y, np.sin(x)

    gradient = srcad.grad(lambda x, y, k=1.0: np.sum(k * np.sin(x) * y), wrt=(0, 1))(W, DATA)
    for got, want in zip(gradient, expected(W, DATA)):
        gradcheck.assert_close(got, want)


def test_two_lambdas_on_one_line_each_get_their_own_derivative():
    square, sine = srcad.grad(lambda x: np.sum(x ** 2)), srcad.grad(lambda x: np.sum(np.sin(x)))
    gradcheck.assert_close(square(W), 2 * W)
    gradcheck.assert_close(sine(W), np.cos(W))


def test_identical_lambdas_on_one_line_are_one_function():
    same = [lambda x: np.sum(x * 2.0), lambda x: np.sum(x * 2.0)]
    gradcheck.assert_close(srcad.grad(same[1])(W), np.full(3, 2.0))


def test_a_lambda_made_by_a_lambda():
    cubic = (lambda a: lambda x: np.sum(a * x ** 3))(2.0)
    gradcheck.assert_close(srcad.grad(cubic)(W), 6 * W ** 2)


squared = lambda t: t * t  # noqa: E731 - a module-level lambda, called from a def


def uses_a_module_lambda(x):
    return np.sum(squared(x) * 3.0)


def test_a_module_level_lambda_called_from_a_def_is_inlined(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")
    cache.clear()
    gradient = srcad.grad(uses_a_module_lambda)
    gradcheck.assert_close(gradient(W), 6 * W)
    # its result is named for what it is, not "<lambda>"
    source = gradient.source_for(W)
    assert "lambda_result" in source and "<lambda>" not in source


def test_every_transformation_of_a_lambda():
    cubic = lambda x: np.sum(x ** 3)  # noqa: E731
    gradcheck.assert_close(srcad.hvp(cubic)(W, np.ones(3)), 6 * W)
    value, tangent = srcad.jvp(lambda x: np.sin(x), (W,), (np.ones(3),))
    gradcheck.assert_close(tangent, np.cos(W))
    gradcheck.assert_close(srcad.jacobian(lambda x: np.sin(x) * 2.0)(W), np.diag(2 * np.cos(W)))
    value, gradient = srcad.value_and_grad(lambda x: np.sum(x ** 2))(W)
    gradcheck.assert_close(gradient, 2 * W)


def test_an_error_in_a_lambda_points_into_it():
    with pytest.raises(errors.MissingTemplateError) as caught:
        srcad.grad(lambda x: np.sum(np.frompyfunc(x)))
    location = caught.value.location
    assert location.filename == __file__
    assert location.line.strip().startswith("srcad.grad(lambda x: np.sum(np.frompyfunc(x)))")
    assert location.line[location.col:].startswith("np.frompyfunc(x)")


def test_lambdas_on_one_line_that_cannot_be_told_apart_are_a_located_error():
    # the same parameters and names, different constants: only Python 3.11's positions
    # tell them apart
    pair = [lambda x: np.sum(x * 2.0), lambda x: np.sum(x * 3.0)]
    if sys.version_info >= (3, 11):
        gradcheck.assert_close(srcad.grad(pair[1])(W), np.full(3, 3.0))
        return
    with pytest.raises(errors.SourceUnavailableError) as caught:
        srcad.grad(pair[1])
    assert "2 lambdas on this line" in str(caught.value)
    assert caught.value.location.line.strip().startswith("pair = [lambda")


def test_a_lambda_without_a_file_is_a_clear_error():
    namespace = {"np": np}
    exec("f = lambda x: np.sum(x * x)", namespace)
    with pytest.raises(errors.SourceUnavailableError):
        srcad.grad(namespace["f"])


def apply_to(function, value):
    return function(value)


def passes_lambdas(x):
    total = np.sum(apply_to(lambda t: t * t * x[0], x))
    total = total + sum(map(lambda t: np.sin(t), x))
    total = total + np.sum(apply_to(value=x, function=lambda t: np.exp(t)))
    for k in range(3):  # each lambda reads the k of its own iteration, as Python's does
        total = total + np.sum(apply_to(lambda t: t * k, x))
    return total


def calls_lambdas_where_written(x):
    total = np.sum((lambda t, s=2.0: np.sin(t) * s)(x))
    return total + np.sum((lambda: x * x[1])()) + (lambda *parts: sum(parts))(x[0], x[1])


def test_a_lambda_called_where_it_is_written():
    from tests.test_regressions import check_all_modes

    check_all_modes(calls_lambdas_where_written, [W], 0)


def sorts_with_a_key(x):
    return np.sum(sorted(x, key=lambda t: -t)[0])


def test_lambdas_passed_to_calls_inside_the_function():
    from tests.test_regressions import check_all_modes

    check_all_modes(passes_lambdas, [W], 0)
    gradcheck.assert_close(srcad.grad(passes_lambdas, optimize=False)(W),
                           srcad.grad(passes_lambdas)(W))


def test_a_lambda_passed_to_a_call_srcad_does_not_inline_is_a_located_error():
    with pytest.raises(errors.UnsupportedSyntaxError) as caught:
        srcad.grad(sorts_with_a_key)(W)
    assert "sorted(x, key=lambda t: -t)" in caught.value.location.line


def layer(weight):
    def apply(x):
        return np.tanh(weight * x)
    return apply


def make_sine(a):
    return lambda t: np.sin(a * t)


def calls_what_builders_return(x):
    total = np.sum(layer(2.0)(x))  # called where it is made
    first, second = layer(1.0), layer(-0.5)  # two closures, each with its own weight
    total = total + np.sum(first(x) * second(x))
    for k in range(3):
        step = layer(k * 0.5)
        total = total + np.sum(step(x))
    return total + np.sum(make_sine(3.0)(x))


def picks_a_builder_by_a_branch(x, c):
    if c > 0:
        step = layer(1.0)
    else:
        step = layer(2.0)
    return np.sum(step(x))


def test_a_function_a_builder_returns_is_inlined_where_it_is_called():
    from tests.test_regressions import check_all_modes

    check_all_modes(calls_what_builders_return, [W], 0)
    gradcheck.assert_close(srcad.grad(calls_what_builders_return, optimize=False)(W),
                           srcad.grad(calls_what_builders_return)(W))


def test_a_name_bound_to_one_of_two_closures_is_a_located_error():
    with pytest.raises(errors.MissingTemplateError) as caught:
        srcad.grad(picks_a_builder_by_a_branch)(W, 1.0)
    assert "step(x)" in caught.value.location.line
