"""The front's fast helpers (issue 10) give what their plain definitions give, on many trees.

Each one is compared with the walk it replaced, over every function of srcad's own source
(the syntax its passes meet, nested defs, comprehensions and lambdas included).
"""

from __future__ import annotations

import pathlib
from collections import Counter

import gast
import pytest

from srcad import fence, naming, parse, syntax
from srcad.annotations import Origin
from srcad.normalize import calls_by_value
from srcad.normalize.rename_versions import _Assigned

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _functions():
    for path in sorted((ROOT / "srcad").rglob("*.py")):
        for node in gast.walk(gast.parse(path.read_text())):
            if isinstance(node, gast.FunctionDef):
                yield node


FUNCTIONS = list(_functions())


def test_the_corpus_is_large():
    assert len(FUNCTIONS) > 1000


def test_checked_nodes_are_those_walk_gives_of_the_checked_types():
    for function in FUNCTIONS:
        for statement in syntax.statements(function):
            expected = [node for node in syntax.walk(statement)
                        if type(node) in fence._CHECKED_EXPRESSIONS]
            found = fence._checked_nodes(statement)
            assert [id(n) for n in found] == [id(n) for n in expected]


class _Normalizer:
    def __init__(self):
        self.store_counts = Counter()
        self.fixed_containers = {}


def test_note_assignments_returns_the_stored_names_and_counts_the_stores():
    for function in FUNCTIONS:
        normalizer = _Normalizer()
        assigned = calls_by_value.note_assignments(normalizer, function.body)
        module = gast.Module(body=list(function.body), type_ignores=[])
        assert assigned == syntax.stored_names(module)
        expected = Counter(node.id for node in syntax.walk(module)
                           if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store))
        expected.update(node.name for node in syntax.walk(module)
                        if isinstance(node, gast.FunctionDef))
        assert +normalizer.store_counts == +expected


def test_assigned_names_of_a_statement_are_its_stored_names():
    assigned = _Assigned()
    for function in FUNCTIONS:
        for statement in syntax.statements(function):
            assert assigned.of(statement) == syntax.stored_names(statement)
        assert assigned.within(function.body) == syntax.stored_names(
            gast.Module(body=list(function.body), type_ignores=[]))


def test_origin_made_without_init_is_the_dataclass_value():
    made = parse._origin("f.py", 3, 4, None)
    expected = Origin("f.py", 3, 4, None)
    assert made == expected and hash(made) == hash(expected)
    assert type(made) is Origin and vars(made) == vars(expected)
    with pytest.raises(AttributeError):  # still frozen
        made.lineno = 5


@pytest.mark.parametrize("text", ["x", "_tape", "sum", "lambda", "<lambda>", "1st", "a.b",
                                  "__", "", "W_1", "class", "x_bar"])
@pytest.mark.parametrize("private", [False, True])
def test_base_name_is_the_plain_rule(text, private):
    base = ("_" if private else "") + (naming.identifier(text).strip("_") or "tmp")
    if base in naming._RESERVED:
        base = naming._INSTEAD_OF_BUILTIN.get(base, base + "_value")
    if base[0].isdigit():
        base = "v" + base
    assert naming._base_name(text, private) == base
    assert naming._base_name(text, private) == base  # (the second time from the table)
