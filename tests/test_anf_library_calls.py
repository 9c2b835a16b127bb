"""to_anf's shortcut for calls of library primitives (_ToANF.calls_primitive_as_written)
skips every step of operation_Call for a call of a NumPy or builtin function with templates
by a static name, except the callees operation_Call lowers (_LOWERED_CALLEES). A lowering
added to operation_Call for another library callee must be listed there, or the shortcut
skips it: the normalized code of the test corpus is the same with the shortcut and without."""

from __future__ import annotations

import importlib
import inspect

from srcad import pipeline
from srcad.errors import SrcadError
from srcad.normalize.to_anf import _ToANF
from srcad.request import ReverseRequest

MODULES = ["tests.alias_functions", "tests.call_functions", "tests.comprehension_functions",
           "tests.construct_functions", "tests.container_argument_functions",
           "tests.container_functions", "tests.control_flow_functions",
           "tests.inplace_functions", "tests.math_functions", "tests.mode_functions",
           "tests.template_combos", "tests.scipy_combos", "tests._golden_functions"]


def _normalized(function) -> str:
    params = list(inspect.signature(function).parameters)
    stages = {}
    try:
        pipeline._front(function, ReverseRequest(wrt=params[:1]), None, stages)
    except SrcadError as error:
        return "error: %s" % type(error).__name__
    return stages["normalize"]


def _corpus():
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # (tests.scipy_combos without SciPy)
            continue
        for value in vars(module).values():
            if inspect.isfunction(value) and value.__module__ == name and (
                    value.__name__ != "<lambda>") and inspect.signature(value).parameters:
                yield value


def test_the_shortcut_normalizes_library_calls_as_operation_call_does(monkeypatch):
    functions = list(_corpus())
    with_shortcut = {f: _normalized(f) for f in functions}
    taken = []
    original = _ToANF.calls_primitive_as_written

    def counted(self, node):
        answer = original(self, node)
        taken.append(answer)
        return answer

    monkeypatch.setattr(_ToANF, "calls_primitive_as_written", counted)
    for function in functions:
        _normalized(function)
    assert sum(taken) > 1000  # calls the shortcut takes, in the corpus
    monkeypatch.setattr(_ToANF, "calls_primitive_as_written", lambda self, node: False)
    differing = [f.__qualname__ for f in functions if _normalized(f) != with_shortcut[f]]
    assert not differing, differing[:10]
