"""``srcad.grad(f)`` without the disk cache runs the transform in check-only mode
(pipeline.check): every error generating the code would raise, it raises, with the same
message and location, and it generates nothing."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import srcad
from srcad import cache, errors, pipeline
from srcad.registry import d
from srcad.request import ReverseRequest
from tests import test_errors


def _scaled(x):
    return 2.0 * x


@srcad.adjoint(_scaled)
def _scaled_adjoint(y, x):
    d[x] += d[y] * twice_undefined(x)  # noqa: F821 (what the test is about)


def uses_a_template_naming_an_unknown_name(x):
    return _scaled(x) + 1.0


def full_singular_vectors(x):
    return np.linalg.svd(x)[0]  # a constraint of svd's record rejects full_matrices=True


def dict_with_a_computed_key(x, key):
    values = {key: x * 2.0}
    return values[key]


def _erring_functions():
    functions = [f for name, f in vars(test_errors).items()
                 if inspect.isfunction(f) and not name.startswith(("test_", "_"))
                 and f.__module__ == test_errors.__name__]
    return functions + [uses_a_template_naming_an_unknown_name, full_singular_vectors,
                        dict_with_a_computed_key]


def _outcome(run, function):
    params = list(inspect.signature(function).parameters)
    request = ReverseRequest(params[:1], single=True, function=function)
    try:
        run(request)
    except (errors.SrcadError, NameError, TypeError) as error:
        return type(error), str(error), getattr(error, "location", None)
    return None


@pytest.mark.parametrize("function", _erring_functions(), ids=lambda f: f.__name__)
def test_check_raises_what_generating_raises(function):
    generated = _outcome(pipeline.generate, function)
    checked = _outcome(pipeline.check, function)
    assert checked == generated


def test_the_erring_functions_do_err():
    failing = [f for f in _erring_functions() if _outcome(pipeline.generate, f) is not None]
    assert uses_a_template_naming_an_unknown_name in failing
    assert full_singular_vectors in failing and test_errors.calls_helper in failing
    assert len(failing) >= 20


def test_grad_checks_without_generating(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")
    cache.clear()
    with pytest.raises(NameError, match="twice_undefined"):
        srcad.grad(uses_a_template_naming_an_unknown_name)
    gradient = srcad.grad(test_errors.returns_array)  # fails only when it runs
    assert cache.statistics["generated"] == 0
    with pytest.raises(errors.NonScalarOutputError):
        gradient(np.ones(3))
