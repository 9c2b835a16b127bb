"""The shortcuts of shape inference and the specializing passes give what the plain way
gives: the assignment counts shapes.infer makes in its walk are ``syntax.names``' counts,
and the names the transform's hook reads once specialized (names_read_once_specialized,
which copies and specializes only the parts of a compound statement holding a call to
specialize) are those of the whole statement copied and specialized."""

from __future__ import annotations

from collections import Counter

import gast
import numpy as np
import pytest

from srcad import invariants, pipeline, syntax
from srcad.analysis import shapes
from srcad.optimize import specialize_runtime_calls as specialize
from srcad.request import ReverseRequest


def _loops_and_branches(W, b, x):
    s = np.sum(x * x) * 0.1
    v = x
    for i in range(3):
        e = np.dot(W, v) * 0.2
        if s > 0.5:
            s = s + np.mean(e) * 0.1
        else:
            s = s - np.mean(e * e) * 0.1
        for j in range(2):  # a loop in a loop: its adjoint is one statement of the outer's
            if np.sum(v) > 0.0:
                v = v * 0.9 + np.sum(e * v) * b
            v = np.tanh(v + e * 0.1 + b)
    while s > 10.0:
        s = s / 2.0
    return s + np.sum(v * v)


def _arguments():
    rng = np.random.default_rng(3)
    return rng.normal(size=(4, 4)), rng.normal(size=(1,)), rng.normal(size=4)


def _generate(monkeypatch, function, arguments):
    """Generate ``function``'s specialized gradient; the hook's statements and answers, and
    the trees shapes.infer saw (with the counts it made) are recorded."""
    hooks, inferred = [], []
    reads_once = pipeline._reads_once_specialized
    infer = shapes.infer

    def recorded_hook(kinds_env, namer, resolve, aliases):
        reads = reads_once(kinds_env, namer, resolve, aliases)

        def recorded(statements, read_now, shapes):
            assert set(read_now) == set(syntax.load_names(statements))  # what reverse passes
            env = dict(kinds_env)
            for name in read_now:
                if namer.primal_of(name) in kinds_env:
                    env[name] = kinds_env[namer.primal_of(name)]
            copies = [syntax.deepcopy(s) for s in statements]
            hooks.append((copies, env, resolve, aliases, reads(statements, read_now, shapes)))
            return hooks[-1][-1]

        return recorded

    def recorded_infer(tree, params, resolve, counts=None):
        counts = {} if counts is None else counts
        env = infer(tree, params, resolve, counts)
        inferred.append((syntax.deepcopy(tree), dict(counts)))
        return env

    monkeypatch.setattr(pipeline, "_reads_once_specialized", recorded_hook)
    monkeypatch.setattr(pipeline.shapes, "infer", recorded_infer)
    kinds = tuple(shapes.of_value(a) for a in arguments)
    pipeline.generate_reverse(function, ReverseRequest(wrt=["W", "b", "x"], single=False),
                              kinds)
    return hooks, inferred


def test_counts_of_infer_are_the_assignments_of_the_tree(monkeypatch):
    _, inferred = _generate(monkeypatch, _loops_and_branches, _arguments())
    assert len(inferred) == 2  # the normalized function, the generated code
    for tree, counts in inferred:
        expected = Counter(n.id for n in syntax.names(tree)
                           if type(n.ctx) in (gast.Store, gast.Del))
        assert counts == expected


def _read_each_specialized(specializer, statements) -> set:
    """The names ``statements`` read once each is specialized on its own."""
    read = set()
    for statement in statements:
        read |= syntax.load_names(specializer.visit(syntax.deepcopy(statement)))
    return read


def test_reads_once_specialized_part_by_part_are_the_whole_statements(monkeypatch):
    hooks, _ = _generate(monkeypatch, _loops_and_branches, _arguments())
    assert hooks
    for statements, env, resolve, aliases, answer in hooks:
        whole = specialize._Specialize(env, resolve, aliases)
        assert answer == _read_each_specialized(whole, statements)
        # the same statements inside a loop and a branch: taken part by part
        compound = gast.For(
            target=syntax.name("k", store=True),
            iter=syntax.call("range", syntax.name("n_steps")),
            body=[gast.If(test=syntax.name("flag"),
                          body=[syntax.deepcopy(s) for s in statements[::2]],
                          orelse=[syntax.deepcopy(s) for s in statements[1::2]])],
            orelse=[], type_comment=None)
        expected = syntax.load_names(whole.visit(syntax.deepcopy(compound)))
        assert {"n_steps", "flag", "range"} <= expected
        assert specialize.names_read_once_specialized(
            [compound], env, resolve, aliases) == expected


def _repeated_in_a_loop(W, b, x):
    v = x
    s = 0.0
    for i in range(3):
        u = v * b + x  # the same shapes of statements, names of the same kinds
        w = u * b + x
        s = s + np.sum(w * W[0]) + np.sum(u * x)
        v = np.tanh(w) * 0.5 + u * 0.5
    return s + np.sum(v)


def test_statements_specialized_alike_are_asked_about_once(monkeypatch):
    """The hook specializes one statement of each template statement and kinds of names
    (templates.instantiate's ``shapes``), and reads the others' names in its answer: its
    answer is still that of every statement specialized."""
    asked = []
    read_once = specialize.names_read_once_specialized

    def counted(statements, *rest):
        asked.append(len(statements))
        return read_once(statements, *rest)

    monkeypatch.setattr(specialize, "names_read_once_specialized", counted)
    # the work counted is the hook's own: with invariant checks on, it also specializes
    # every statement to check its answer (the answer is checked below all the same)
    monkeypatch.setenv(invariants.ENVIRONMENT_VARIABLE, "0")
    hooks, _ = _generate(monkeypatch, _repeated_in_a_loop, _arguments())
    assert hooks
    for statements, env, resolve, aliases, answer in hooks:
        whole = specialize._Specialize(env, resolve, aliases)
        assert answer == _read_each_specialized(whole, statements)
    assert sum(asked) < sum(len(statements) for statements, *_ in hooks)


def test_a_wrong_answer_for_statements_specialized_alike_is_caught(monkeypatch):
    """With invariant checks on, the hook's grouped answer is compared with specializing
    every statement: a group reading the wrong names fails at the pass."""
    monkeypatch.setenv(invariants.ENVIRONMENT_VARIABLE, "1")
    alike = specialize._specialized_alike

    def merged_too_much(shape, env, aliases):  # every statement of a template alike
        return None if alike(shape, env, aliases) is None else shape[0]

    monkeypatch.setattr(specialize, "_specialized_alike", merged_too_much)
    with pytest.raises(invariants.BrokenInvariantError, match="specialized alike"):
        _generate(monkeypatch, _repeated_in_a_loop, _arguments())
