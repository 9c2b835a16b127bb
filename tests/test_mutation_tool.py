"""The mutator behind tests/mutation/run.py: deterministic, complete, never a no-op."""

import ast
import importlib.util
import os
import sys

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutation", "mutate.py")
_spec = importlib.util.spec_from_file_location("srcad_mutation_mutate", _PATH)
mutate = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mutate  # dataclasses look their module up there
_spec.loader.exec_module(mutate)

SOURCE = '''\
"""Module docstring: not mutated."""
from __future__ import annotations

LIMIT = 3  # module level: not mutated


def passes(x: int, items, flag=True) -> bool:
    """Docstring: not mutated."""
    assert x is not None, "asserts are not mutated"
    total: int = 0
    for item in items:
        if item < x and flag:
            total += item
        elif not item:
            continue
        else:
            break
    while total > 10 or x == 0:
        total = total - 1
    del items
    return any(i >= 0 for i in [x, -x]) if total else total * 2 // 1 == 0
'''

OPERATORS = {"compare", "boolop", "not", "condition", "drop-branch", "constant", "return",
             "statement", "arith", "loop-jump", "any-all"}


def test_every_operator_applies_and_each_mutant_changes_the_code():
    mutants = mutate.mutants("example.py", SOURCE)
    assert {m.operator for m in mutants} == OPERATORS
    original = mutate.unparsed_source(SOURCE)
    for mutant in mutants:
        text = mutate.mutated_source(SOURCE, mutant.index)
        ast.parse(text)
        assert text != original, mutant.describe()


def test_mutants_are_deterministic_and_keys_unique():
    first = mutate.mutants("example.py", SOURCE)
    second = mutate.mutants("example.py", SOURCE)
    assert [m.key for m in first] == [m.key for m in second]
    assert len({m.key for m in first}) == len(first)


def test_keys_do_not_depend_on_line_numbers():
    shifted = SOURCE.replace("def passes", "\n\n# a comment\ndef passes")
    assert ({m.key for m in mutate.mutants("example.py", shifted)}
            == {m.key for m in mutate.mutants("example.py", SOURCE)})


def test_docstrings_asserts_annotations_and_module_level_are_left_alone():
    kept = ['"""Module docstring: not mutated."""', '"""Docstring: not mutated."""',
            "assert x is not None, 'asserts are not mutated'", "LIMIT = 3",
            "def passes(x: int, items, flag=", ") -> bool:"]
    for mutant in mutate.mutants("example.py", SOURCE):
        text = mutate.mutated_source(SOURCE, mutant.index)
        for piece in kept:
            assert piece in text, (piece, mutant.describe())


def test_spans_locate_the_statement_that_runs():
    mutants = mutate.mutants("example.py", SOURCE)
    lines = SOURCE.splitlines()
    for mutant in mutants:
        if mutant.span is None:  # a default value: runs when the def runs
            assert lines[mutant.line - 1].startswith("def ")
            continue
        first, last = mutant.span
        assert first <= mutant.line <= max(last, first), mutant.describe()
