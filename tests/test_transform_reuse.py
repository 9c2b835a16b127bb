"""The first call's reverse transform takes over what ``srcad.grad(f)``'s check found in the
kept front (transform/reverse.py: _TemplateUse, _Survey): the code it generates is the code
generated without the check, byte for byte, and a template registered (or a primitive
declared non-differentiable) in between is what the code uses."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad import cache, pipeline, registry
from srcad.analysis import shapes
from srcad.registry import d
from srcad.request import ReverseRequest
from tests._fd import assert_close, numeric_grad


def loops_and_branches(x, w):
    s = np.sum(x * w) * 0.1
    v = x
    for i in range(3):
        e = np.tanh(v * w) * 0.3
        if s > 0.0:
            s = s + np.mean(e) * 0.1
        else:
            s = s - np.mean(e * e) * 0.1
        v = v + e * 0.1
    k = 0
    while k < 2:
        s = s * 1.01 + np.sum(np.sin(v))
        k = k + 1
    pair = {"a": s, "b": np.sum(v)}
    return pair["a"] * pair["b"] + np.linalg.norm(x[1:])


def overwriting(x):
    x = np.exp(x)
    x = x * x
    return np.sum(x)


def _request(function, args):
    params = ["x", "w"][:len(args)]
    kinds = tuple(shapes.of_value(a) for a in args)
    return ReverseRequest(params, single=len(params) == 1, function=function).of(
        function, kinds)


@pytest.mark.parametrize("function, args", [
    (loops_and_branches, (np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 1.5, 4))),
    (overwriting, (np.linspace(-0.5, 0.5, 3),)),
], ids=["loops_and_branches", "overwriting"])
def test_generated_after_the_check_is_generated_without_it(function, args):
    request = _request(function, args)
    cache.clear()
    pipeline.check(request)
    after_check = pipeline.generate(request).source
    again = pipeline.generate(request).source  # (the front and its template uses kept)
    cache.clear()
    alone = pipeline.generate(request).source
    assert after_check == alone
    assert again == alone


def _cube(x):
    return x * x * x


def _uses_cube(x):
    return np.sum(_cube(x))


def test_a_template_registered_after_grad_is_used():
    x = np.linspace(0.2, 1.0, 4)

    @srcad.adjoint(_cube)
    def wrong_cube_adjoint(y, x):
        d[x] += d[y] * 2.0  # (wrong on purpose: replaced below)

    cache.clear()
    gradient = srcad.grad(_uses_cube)  # its check binds the wrong template

    @srcad.adjoint(_cube)
    def cube_adjoint(y, x):
        d[x] += d[y] * 3.0 * x * x

    assert_close(gradient(x), numeric_grad(_uses_cube, (x,), 0))


def _halved(x):
    return 0.5 * x


@srcad.adjoint(_halved)
def _halved_adjoint(y, x):
    d[x] += d[y] * 0.5


def _uses_halved(x):
    return np.sum(_halved(x) * x)


def test_a_primitive_declared_nondifferentiable_after_grad_carries_no_gradient():
    x = np.linspace(0.2, 1.0, 4)
    cache.clear()
    gradient = srcad.grad(_uses_halved)  # its check binds _halved's template
    assert "* 0.5" in srcad.grad(_uses_halved).source_for(x)  # (the template's product)
    cache.clear()
    gradient = srcad.grad(_uses_halved)
    srcad.nondifferentiable(_halved)
    try:
        assert "* 0.5" not in gradient.source_for(x)  # nothing flows back through _halved
    finally:
        registry.lookup(_halved).differentiable = True
