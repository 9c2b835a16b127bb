"""The debug mode that checks each pass's postcondition (srcad/invariants.py).

A deliberately broken pass must be caught at that pass, with the pass, the
invariant and the offending line named; correct output must pass every check.
"""

import textwrap
import types

import gast
import numpy as np
import pytest

import srcad
from srcad import invariants, pipeline
from srcad.annotations import set_origin
from srcad.invariants import BrokenInvariantError


def scalar_loop(x, n):
    s = 0.0
    for i in range(n):
        if x > 10.0:
            break
        s = s + np.sin(x) * x
        x = x * 1.5
    return s


def tuple_helper(x):
    pair = (x * 2.0, x + 1.0)
    a, b = pair
    return a * b


# what tests/conftest.py switched on for the whole session (read before any fixture runs)
CHECKED_SESSION = invariants.enabled()


def test_the_test_suite_runs_with_checks_on():
    assert CHECKED_SESSION


@pytest.fixture(autouse=True)
def _checks_on_and_no_disk_cache(monkeypatch):
    """Every test runs the pipeline (a cached result would skip the broken pass), with the
    checks on even where the suite is run without them (to time it)."""
    monkeypatch.setenv("SRCAD_CACHE", "0")
    monkeypatch.setenv(invariants.ENVIRONMENT_VARIABLE, "1")


def test_checks_are_off_by_default(monkeypatch):
    monkeypatch.delenv(invariants.ENVIRONMENT_VARIABLE)
    assert not invariants.enabled()
    monkeypatch.setenv(invariants.ENVIRONMENT_VARIABLE, "0")
    assert not invariants.enabled()


def test_every_pass_of_the_pipeline_has_checks():
    for name in ("parse", "fence", "lower_exits", "to_anf", "propagate_writes", "split_tuples",
                 "rename_versions", "reverse", "forward", "lower_accumulations",
                 "specialize_runtime_calls", "simplify_zeros", "fold_constants",
                 "propagate_copies", "remove_dead_code", "accumulate_in_place",
                 "fuse_single_use"):
        assert invariants.CHECKS[name], name


def test_correct_output_passes_every_check():
    assert srcad.grad(_fresh(scalar_loop))(0.3, 4) == pytest.approx(
        _numeric(lambda x: scalar_loop(x, 4), 0.3), rel=1e-6)
    assert srcad.grad(_fresh(tuple_helper))(0.7) == pytest.approx(4 * 0.7 + 2.0)
    assert srcad.jvp(_fresh(scalar_loop), (0.3, 4), (1.0, None))[1] == pytest.approx(
        _numeric(lambda x: scalar_loop(x, 4), 0.3), rel=1e-6)


def _fresh(function):
    """A new function object with ``function``'s code: srcad's in-memory cache (the
    function's ``__dict__``) knows nothing of it, so the pipeline runs."""
    return types.FunctionType(function.__code__, function.__globals__, function.__name__)


def _numeric(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def _broken(monkeypatch, pass_name, breaking):
    """Make the pipeline's ``pass_name`` break its output with ``breaking(tree)``."""
    original = getattr(pipeline, pass_name)

    def broken_pass(*args, **keywords):
        tree = original(*args, **keywords)
        breaking(tree)
        return tree

    monkeypatch.setattr(pipeline, pass_name, broken_pass)


def _statement(source, like):
    statement = gast.parse(textwrap.dedent(source)).body[0]
    set_origin(statement, like)
    return gast.copy_location(statement, like)


def _insert_before_return(source):
    def breaking(tree):
        tree.body.insert(len(tree.body) - 1, _statement(source, tree.body[-1]))
    return breaking


def _first_loop(tree):
    return next(n for n in gast.walk(tree) if isinstance(n, (gast.For, gast.While)))


def _caught(pass_name, invariant, mode="grad"):
    with pytest.raises(BrokenInvariantError) as caught:
        if mode == "grad":
            srcad.grad(_fresh(scalar_loop))(0.3, 4)
        else:
            srcad.jvp(_fresh(scalar_loop), (0.3, 4), (1.0, None))
    error = caught.value
    assert error.pass_name == pass_name
    assert invariant in error.invariant
    assert "after %s, %s" % (pass_name, invariant) in str(error)
    assert "offending statement: " in str(error)
    return error


def test_a_break_left_by_lower_exits_is_caught(monkeypatch):
    _broken(monkeypatch, "lower_exits",
            lambda tree: _first_loop(tree).body.append(gast.Break()))
    _caught("lower_exits", "a break or continue remains")


def test_a_nested_operation_left_by_to_anf_is_caught(monkeypatch):
    _broken(monkeypatch, "to_anf", _insert_before_return("t = np.sin(x * 2.0)"))
    error = _caught("to_anf", "an assignment's value is not one operation on atoms")
    assert "t = np.sin(x * 2.0)" in str(error)
    assert "from the user's code at " in str(error)


def test_an_unpacking_left_by_split_tuples_is_caught(monkeypatch):
    _broken(monkeypatch, "split_tuples", _insert_before_return("u, v = x"))
    _caught("split_tuples", "an assignment still unpacks")


def test_a_second_assignment_left_by_rename_versions_is_caught(monkeypatch):
    _broken(monkeypatch, "rename_versions", _insert_before_return("s = x"))
    _caught("rename_versions", "s is assigned twice on one path")


def test_a_loop_body_assignment_that_is_not_a_carry_is_caught(monkeypatch):
    _broken(monkeypatch, "rename_versions",
            lambda tree: _first_loop(tree).body.insert(0, _statement("s = x", tree.body[-1])))
    _caught("rename_versions", "s, assigned before a loop, is assigned in its body")


def test_an_accumulation_left_by_lower_accumulations_is_caught(monkeypatch):
    _broken(monkeypatch, "lower_accumulations", _insert_before_return("x_bar += 1.0"))
    _caught("lower_accumulations", "an accumulation (+=, -= or del) remains")


def test_an_unbound_adjoint_read_is_caught(monkeypatch):
    _broken(monkeypatch, "lower_accumulations", _insert_before_return("q = nowhere_bar * 2.0"))
    _caught("lower_accumulations", "nowhere_bar is read but nothing binds it")


def test_an_unbound_tangent_read_in_forward_mode_is_caught(monkeypatch):
    _broken(monkeypatch, "forward", _insert_before_return("q = nowhere_dot * 2.0"))
    _caught("forward", "nowhere_dot is read but nothing binds it", mode="jvp")


def test_a_constant_operation_left_by_fold_constants_is_caught(monkeypatch):
    _broken(monkeypatch, "fold_constants", _insert_before_return("q = 2.0 * 3.0"))
    _caught("fold_constants", "an operator with only constant operands remains")


def test_a_self_copy_left_by_propagate_copies_is_caught(monkeypatch):
    _broken(monkeypatch, "propagate_copies", _insert_before_return("x = x"))
    _caught("propagate_copies", "a copy of a name to itself remains")


def test_fold_constants_may_leave_an_operation_that_raises():
    tree = gast.parse("def f(x):\n    y = 1 / 0\n    return y\n").body[0]
    invariants.check("fold_constants", tree)


def test_checks_on_source_text():
    def check(pass_name, source):
        invariants.check(pass_name, gast.parse(textwrap.dedent(source)).body[0],
                         invariants.Context(lambda name: range if name == "range"
                                            else invariants.MISSING))

    check("lower_exits", """
        def f(x, n):
            for i in range(n)[::-1]:
                x = x * 2.0
            return x
        """)
    with pytest.raises(BrokenInvariantError, match="a return other than the last"):
        check("lower_exits", """
            def f(x):
                if x > 0:
                    return x
                return -x
            """)
    with pytest.raises(BrokenInvariantError, match="iterates over something other"):
        check("lower_exits", """
            def f(xs):
                for row in xs:
                    pass
                return xs
            """)
    with pytest.raises(BrokenInvariantError, match="a loop keeps an else clause"):
        check("lower_exits", """
            def f(x, n):
                while x < n:
                    x = x + 1
                else:
                    x = 0
                return x
            """)
