"""One request path: what grad() does at once, what it leaves for the first call, and
the derivative object it returns (the same for functions and bound methods)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import srcad
from srcad import cache, errors, pipeline
from srcad.api import BoundDerivative, Derivative, Specializations
from srcad.request import ForwardRequest, ReverseRequest, parse_wrt
from tests import test_errors


def cubic(x, y):
    return x ** 3 * y + np.sin(y)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, w, x):
        return self.scale * np.sum((w * x) ** 2)


@pytest.fixture
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")
    cache.clear()


def test_grad_generates_nothing_until_called(no_disk_cache):
    gradient = srcad.grad(cubic, wrt=(0, 1))
    assert cache.statistics["generated"] == 0
    gradient(0.5, 1.5)
    assert cache.statistics["generated"] == 1  # the specialization the call runs, only
    gradient(0.7, 1.1)
    assert cache.statistics["generated"] == 1
    assert "def grad_cubic" in gradient.source  # the generic code, made when asked
    assert cache.statistics["generated"] == 2


def accumulates(x, y):
    total = x * y
    total += y  # a write into total, or a rebinding: propagate_writes asks which
    return np.sum(total * x)


def _front_kept(function, wrt):
    return cache.memory.lookup(function, ("front", wrt, False, ()), counted=False)


def summed_cubic(x, y):
    return np.sum(x ** 3 * y + np.sin(y))


def test_the_check_hands_its_front_to_the_first_call(no_disk_cache):
    gradient = srcad.grad(summed_cubic, wrt=(0, 1))  # normalize asks nothing about kinds
    assert _front_kept(summed_cubic, ("x", "y")) is not None
    floats = gradient(0.5, 1.5)
    x, y = np.array([0.5, -0.2]), np.array([1.5, 0.3])
    arrays = gradient(x, y)  # a second specialization takes the kept front again
    assert np.allclose(floats, (3 * 0.5 ** 2 * 1.5, 0.5 ** 3 + np.cos(1.5)))
    assert all(np.allclose(a, b) for a, b in zip(arrays, (3 * x ** 2 * y, x ** 3 + np.cos(y))))
    request = ReverseRequest(("x", "y"), single=False).of(
        summed_cubic, tuple(srcad.analysis.shapes.of_value(a) for a in (x, y)), name="g")
    from_kept = pipeline.generate(request)
    cache.clear()
    assert _front_kept(summed_cubic, ("x", "y")) is None
    assert pipeline.generate(request).source == from_kept.source


def looped(x, w):
    total = 0.0
    for i in range(3):
        h = np.tanh(w * x + i)
        if np.sum(h) > 0.0:
            total = total + np.sum(h * h)
        else:
            total = total - np.sum(h)
    return total * 2.0


@pytest.mark.parametrize("derivative", ["grad", "jvp"])
def test_requests_share_the_kept_front_and_leave_it_as_it_was(no_disk_cache, derivative):
    """The transforms (and the passes after them) read the normalized tree and never change
    it: every request takes the kept front's tree itself, not a copy."""
    import gast

    x, w = np.array([0.5, -0.2]), np.array([1.5, 0.3])
    kind = (ReverseRequest if derivative == "grad" else ForwardRequest)(("x", "w"))
    pipeline.check(kind.of(looped))  # what grad() runs at once: the front is kept
    kept = _front_kept(looped, ("x", "w"))
    assert kept is not None
    before = gast.dump(kept.tree)
    for values in ((x, w), (0.5, 1.5)):
        kinds = tuple(srcad.analysis.shapes.of_value(v) for v in values)
        if derivative == "jvp":
            kinds += kinds  # the tangents have their values' kinds
        pipeline.generate(kind.of(looped, kinds))
        pipeline.generate(kind.of(looped))  # generic code
    assert _front_kept(looped, ("x", "w")) is kept
    assert gast.dump(kept.tree) == before
    assert pipeline._front(looped, kind.of(looped), None, None).tree is kept.tree


def test_a_stage_that_changes_the_kept_front_fails_at_that_stage(no_disk_cache, monkeypatch):
    """With invariant checks on, the kept front is compared before and after a generation."""
    import gast

    from srcad.invariants import BrokenInvariantError
    from srcad.transform import reverse as reverse_module

    monkeypatch.setenv("SRCAD_CHECK_INVARIANTS", "1")
    gradient = srcad.grad(looped, wrt=(0, 1))
    taking = reverse_module._Sweeps.forward

    def forward_changing_its_input(self, statements, in_loop=False):
        swept = taking(self, statements, in_loop)
        for statement in statements:
            if isinstance(statement, gast.Assign):
                statement.value = gast.Constant(value=1.0, kind=None)
        return swept

    monkeypatch.setattr(reverse_module._Sweeps, "forward", forward_changing_its_input)
    with pytest.raises(BrokenInvariantError, match="after reverse, the normalized tree"):
        gradient(np.array([0.5, -0.2]), np.array([1.5, 0.3]))


def test_a_front_that_depends_on_the_kinds_is_not_kept(no_disk_cache):
    gradient = srcad.grad(accumulates, wrt=(0, 1))
    assert _front_kept(accumulates, ("x", "y")) is None
    x, y = np.array([0.5, -0.2]), np.array([1.5, 0.3])
    expected = (2 * x * y + y, x * x + x)
    assert all(np.allclose(a, b) for a, b in zip(gradient(x, y), expected))
    assert np.allclose(gradient(0.5, 1.5), (2 * 0.5 * 1.5 + 1.5, 0.25 + 0.5))


@pytest.mark.parametrize("function, error", [
    (case[0], errors.UnsupportedSyntaxError) for case in test_errors.UNSUPPORTED
    if case[0] is not test_errors.uses_async] + [
    (test_errors.calls_helper, errors.UnsupportedSyntaxError),  # found by the transform
    (test_errors.calls_unknown_numpy, errors.MissingTemplateError),
], ids=lambda value: getattr(value, "__name__", None))
def test_errors_come_at_grad_time_without_the_disk_cache(no_disk_cache, function, error):
    with pytest.raises(error) as caught:
        srcad.grad(function)
    assert caught.value.location is not None
    assert cache.statistics["generated"] == 0


@pytest.mark.parametrize("request_of", [ReverseRequest, ForwardRequest])
def test_check_runs_the_stages_up_to_the_transform(request_of):
    with pytest.raises(errors.MissingTemplateError):
        pipeline.check(request_of(["x"], function=test_errors.calls_unknown_numpy))
    pipeline.check(request_of(["x"], function=cubic))


def test_a_request_is_all_the_driver_needs():
    request = ReverseRequest(("x", "y"), single=False, function=cubic, kinds=None,
                             name="gradient_of_cubic")
    generated = pipeline.generate(request)
    assert generated.name == "gradient_of_cubic"
    np.testing.assert_allclose(generated.function(0.5, 1.5),
                               srcad.grad(cubic, wrt=(0, 1))(0.5, 1.5))
    # what the persistent cache keys on: the fields that shape the code, never the function
    assert "cubic" not in repr(request) and "wrt=('x', 'y')" in repr(request)
    assert request.of(np.sin) == request  # the function is no part of equality


@pytest.mark.parametrize("disk_cache", ["0", "1"])
def test_derivative_of_a_function_and_of_a_bound_method_behave_alike(monkeypatch, disk_cache):
    monkeypatch.setenv("SRCAD_CACHE", disk_cache)
    model = Model(1.5)
    w, x = np.array([0.3, -0.2]), np.array([1.0, 2.0])
    of_method = srcad.grad(model.loss)
    of_function = srcad.grad(Model.loss, wrt=1)
    assert isinstance(of_method, BoundDerivative) and isinstance(of_function, Derivative)
    np.testing.assert_allclose(of_method(w, x), of_function(model, w, x))
    np.testing.assert_allclose(of_method(w, x=x), of_function(model, w, x=x))
    assert of_method.source_for(w, x) == of_function.source_for(model, w, x)
    assert of_method.generated_for(w, x) is of_function.generated_for(model, w, x)
    assert of_method.source == of_function.source
    assert of_method.specializations is of_function.specializations
    assert of_method.__wrapped__ is of_function and of_function.__wrapped__ is Model.loss
    assert of_method.__name__ == of_function.__name__ == "loss"
    # either is differentiated again, as a function srcad made
    np.testing.assert_allclose(srcad.jacobian(of_method)(w, x),
                               srcad.jacobian(of_function, wrt=1)(model, w, x))


def test_one_specialization_per_kinds_under_threads():
    made = []

    def generate(kinds):
        made.append(kinds)
        return kinds

    table = Specializations(generate)
    threads = [threading.Thread(target=table.for_values, args=((1.0, np.ones(3)),))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and list(table.table) == made


@pytest.mark.parametrize("entry", [srcad.jacobian, srcad.hvp, srcad.hessian])
@pytest.mark.parametrize("wrt, words", [
    (2, "wrt=2 is out of range: cubic has 2 parameter(s) (x, y)"),
    ("z", "wrt='z' is not a parameter of cubic; its parameters are: x, y"),
    ((0, 0), "wrt names 'x' twice"),
    ((), "wrt is empty"),
])
def test_every_entry_point_reads_wrt_alike(entry, wrt, words):
    with pytest.raises(errors.InvalidArgumentError) as caught:
        entry(cubic, wrt=wrt)
    assert words in str(caught.value)
    with pytest.raises(errors.InvalidArgumentError) as caught:
        parse_wrt(cubic, wrt)
    assert words in str(caught.value)


class Decorated:
    scale = 3.0

    @srcad.grad(wrt=1)
    def slope(self, x):
        return self.scale * x * x


def test_a_derivative_decorating_a_method_binds_like_a_function():
    model = Decorated()
    assert model.slope(2.0) == pytest.approx(12.0)
    assert Decorated.slope(model, 2.0) == pytest.approx(12.0)
    assert srcad.grad(model.slope)(2.0) == pytest.approx(6.0)  # d/dx of 6x: self held


def _smooth(u, width):
    return 0.5 * (1.0 + np.tanh(u / width)) * u


def looped_with_helper(W, x):
    s = np.sum(x * x)
    v = x
    for i in range(3):
        e = np.dot(W, v) * 0.2
        if s > 0.5:
            s = s + np.mean(e)
        else:
            s = s - np.mean(e * e)
        v = _smooth(np.tanh(v + e), 2.0)
    return s + np.sum(v * v)


@pytest.mark.parametrize("derive", [
    lambda: srcad.grad(looped_with_helper, wrt=(0, 1))(np.eye(3) * 0.5, np.arange(3.0)),
    lambda: srcad.jvp(looped_with_helper, (np.eye(3) * 0.5, np.arange(3.0)), (None, np.ones(3))),
    lambda: srcad.hvp(looped_with_helper, wrt=1)(np.eye(3) * 0.5, np.arange(3.0), np.ones(3)),
    lambda: srcad.grad(looped_with_helper).source,
], ids=["grad", "jvp", "hvp", "generic source"])
def test_a_generation_leaves_no_cycle_holding_its_trees(no_disk_cache, derive):
    """The stages run with the collector paused (pipeline.collector_paused): a reference cycle
    that holds tree nodes (a closure calling itself, say) keeps a whole tree alive until a
    collection, which then pays for scanning it (shapes._Ranges was such a closure)."""
    import gc

    import gast

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        derive()
        gc.collect()
        nodes = [type(o).__name__ for o in gc.garbage if isinstance(o, gast.AST)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert nodes == []
