"""Second derivatives through the tape: each value read back has its own activity.

Gradient code records values in a loop (``_tape.append((a, b))``) and reads them back in the
adjoint loop. Differentiated again (hvp, hessian), each layout of records gets a list of its
own (normalize/split_tapes.py) and the activity analysis follows each element of those
tuples (analysis/activity.py, ``_element_edges``): a value recorded beside
varied ones but itself no derivative's (a constant array, an order computed from the loop
counter) stays without one. Taken whole, such a value needed a derivative, and a function
with none in that argument (``scipy.stats.dirichlet.pdf``'s point, a Bessel function's
order) was refused at second order although the first derivative was given.
"""

from __future__ import annotations

import textwrap

import gast
import numpy as np
import pytest

import srcad
from srcad import runtime
from srcad.analysis.activity import analyze_activity
from srcad.analysis.operations import UNRESOLVED

scipy = pytest.importorskip("scipy")
from scipy import special, stats  # noqa: E402


def _activity(source, wrt, outputs):
    tree = gast.parse(textwrap.dedent(source)).body[0]

    def resolve(node):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == "rt":
            return getattr(runtime, node.attr, UNRESOLVED)
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == "np":
            return getattr(np, node.attr, UNRESOLVED)
        return UNRESOLVED

    return analyze_activity(tree, wrt, outputs, resolve)


# the normalized form of a tape, as gradient code has it when differentiated again
_TAPE = """
    def g(x, n):
        _tape = []
        for i in range(n):
            c = np.ones(3)
            y = np.sin(x) * c
            items = (y, c)
            tape = rt.appended(_tape, items)
            _tape = tape
        total = 0.0
        for j in range(n):
            popped = _tape[-1]
            tape_2 = rt.all_but_last(_tape)
            y_2 = popped[0]
            c_2 = popped[1]
            %s
            total_2 = total + np.sum(y_2 * c_2)
            total = total_2
            _tape = tape_2
        return total
    """


def test_an_element_read_back_has_the_activity_of_what_was_recorded_there():
    activity = _activity(_TAPE % "pass", ["x"], ["total"])
    assert activity.is_active("y_2")
    assert not activity.is_active("c_2")  # np.ones(3), recorded beside y
    assert activity.is_active("popped") and activity.is_active("_tape")  # the whole, as ever


def test_a_whole_value_recorded_reaches_every_element():
    # a varied value appended as it is (not a tuple made here) may be any element
    source = (_TAPE % "pass").replace("tape_2 = rt.all_but_last(_tape)",
                                      "tape_2 = rt.appended(rt.all_but_last(_tape), x)")
    activity = _activity(source, ["x"], ["total"])
    assert activity.is_active("c_2")
    source = (_TAPE % "pass").replace("            _tape = tape\n",
                                      "            _tape = rt.appended(tape, x)\n")
    assert _activity(source, ["x"], ["total"]).is_active("c_2")


def test_names_assigned_otherwise_or_parameters_are_taken_whole():
    # the tape unpacked, a parameter's elements, a list assigned otherwise: whole names
    source = (_TAPE % "pass").replace("c_2 = popped[1]", "w, c_2 = popped")
    assert _activity(source, ["x"], ["total"]).is_active("c_2")
    activity = _activity("""
        def g(x, pair):
            a = pair[1]
            return a
        """, ["pair"], ["a"])
    assert activity.is_active("a")
    source = (_TAPE % "pass").replace("        total = 0.0\n",
                                      "        total = 0.0\n        _tape = [x, x]\n")
    assert _activity(source, ["x"], ["total"]).is_active("c_2")


def _loop_of_dirichlet(x):
    values = [stats.dirichlet.pdf(np.array([0.2, 0.5]), 2.0 + np.sin(x)) * 0.9 ** k
              for k in range(2)]
    return values[0] + values[1]


def _loop_of_bessel(x):
    total = 0.0
    for k in range(3):
        order = 0.5 + 0.25 * k
        total = total + np.sum(special.jv(order, x * (1.0 + 0.1 * k)) ** 2)
    return total


def _tape_shared_by_loops(x):
    # one tape for three layouts: a branch's record, the loop's, and whole values the
    # comprehension's loop records (normalize/split_tapes.py gives each its own list)
    total = 0.0
    for k in range(3):
        if np.sum(x) > -10.0:
            total = total + np.sum(special.gammainc(1.5 + 0.5 * k, 1.2 + x ** 2))
    rows = [np.tanh(x + c) for c in range(2)]
    return total + np.sum(rows[0] * rows[1])


@pytest.mark.parametrize("function", [_loop_of_dirichlet, _loop_of_bessel,
                                      _tape_shared_by_loops])
def test_second_derivatives_of_a_function_without_a_derivative_in_a_recorded_argument(
        function):
    x = np.array([0.3, -0.2, 0.5])
    v = np.array([1.0, 0.5, -0.3])
    gradient = srcad.grad(function)
    step = 1e-6
    expected = (gradient(x + step * v) - gradient(x - step * v)) / (2 * step)
    np.testing.assert_allclose(srcad.hvp(function)(x, v), expected, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(srcad.hessian(function)(x) @ v, expected, rtol=1e-5,
                               atol=1e-8)


def test_a_recorded_argument_that_is_varied_is_still_refused():
    # the point of the simplex made from x: no derivative in it, at first or second order
    def point_varies(x):
        total = 0.0
        for k in range(2):
            point = np.array([0.2, 0.3]) + 0.01 * np.sin(x[:2])
            total = total + stats.dirichlet.pdf(point, np.array([2.0, 3.0, 4.0]))
        return total

    with pytest.raises(srcad.SrcadError, match="no derivative of this function"):
        srcad.grad(point_varies)(np.array([0.1, 0.2, 0.3]))
