"""The front's fast helpers (issue 10) give what their plain definitions give, on many trees.

Each one is compared with the walk it replaced, over every function of srcad's own source
(the syntax its passes meet, nested defs, comprehensions and lambdas included).
"""

from __future__ import annotations

import pathlib
from collections import Counter

import gast
import numpy as np
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


def _fields(node) -> dict:
    return {key: list(value) if type(value) is list else value
            for key, value in node.__dict__.items()}


def _snapshot(tree) -> list:
    return [(node, _fields(node)) for node in gast.walk(tree)]


def _unchanged(snapshot, tree) -> bool:
    return (all(_fields(node) == fields for node, fields in snapshot)
            and len(snapshot) == sum(1 for _ in gast.walk(tree)))


def test_origin_reads_what_getattr_reads():
    parsed = parse.read(_loops_of_every_kind)
    for function in FUNCTIONS[:200]:
        for node in gast.walk(function):
            end = getattr(node, "end_lineno", None)
            expected = Origin(parsed.filename, getattr(node, "lineno", 1) + parsed.line_offset,
                              getattr(node, "col_offset", 0) + parsed.col_offset,
                              None if end is None else end + parsed.line_offset)
            assert parsed.origin(node) == expected


def test_lower_exits_leaves_its_input_as_it_was():
    """lower_exits makes the statements and calls it changes: normalize gives it the parsed
    function's own tree (every function of srcad's source: loops of every kind)."""
    from srcad.namespace import Aliases
    from srcad.normalize.lower_exits import lower_exits
    from srcad.resolve import Resolver

    parsed = parse.read(_loops_of_every_kind)
    lowered = 0
    for function in FUNCTIONS:
        if not function.body or not isinstance(function.body[-1], gast.Return):
            continue
        namer = naming.Namer(parse.all_identifiers(function))
        aliases = Aliases(parsed, namer)
        before = _snapshot(function)
        result = lower_exits(function, namer, Resolver(parsed, aliases, namer), aliases)
        assert _unchanged(before, function)
        lowered += result.body is not function.body
    assert lowered > 500


def _loops_of_every_kind(xs, pairs, W):
    total = 0.0
    for x in xs:
        if x > 10.0:
            break
        total = total + x * x
    for a, b in zip(*pairs):
        total = total + a * b
    for i in reversed(range(len(xs))):
        if i == 0:
            continue
        total = total + xs[i] * 0.5
    for k, row in enumerate(W):
        total = total + sum(map(np.tanh, row)) * k
    for u, v in zip(xs, xs[::-1]):
        total = total + u * v
    steps = 0
    while steps < 3:
        steps = steps + 1
        total = total * 0.9
    if total > 1e6:
        return total * 0.0
    return total + sum(t * t for t in xs)


def _loop_else_without_break(xs, pairs, W):
    # (an else without a break runs after the loop, located at the loop: lower_exits locates a
    # copy; it once relocated the parsed tree's own statement)
    total = xs[0] * W[0, 0]
    while total < 3.0:
        total = total * 2.0 + 0.1
    else:
        total = total - xs[1]
    for row in W:
        total = total + np.sum(row * row)
    else:
        total = total * 0.5
    return total * total + pairs[0][0]


@pytest.mark.parametrize("function", [_loops_of_every_kind, _loop_else_without_break])
def test_the_front_leaves_the_parsed_tree_as_it_was(function):
    """normalize reads the parsed function's tree, shared with every later request for the
    function (a specialization, srcad.source, error locations): no stage changes a node of
    it, and a second derivative of the function is the same code, with the right values."""
    import numpy as np

    import srcad
    from srcad import cache
    from tests._fd import assert_close, numeric_grad

    xs = [0.3, 1.2, -0.7, 2.0]
    pairs = [[0.5, 1.5], [2.0, -1.0]]
    W = np.array([[0.1, 0.2], [0.3, -0.4]])
    cache.clear()  # (which forgets the parse too: the one read here is the one shared below)
    parsed = parse.read(function)
    before = _snapshot(parsed.tree)
    first = srcad.grad(function, wrt=(2,))
    (value,) = first(xs, pairs, W)
    text = srcad.source(function, wrt=(2,), example_args=(xs, pairs, W))
    assert parse.read(function).tree is parsed.tree
    assert _unchanged(before, parsed.tree)
    assert srcad.source(function, wrt=(0, 2), example_args=(xs, pairs, W)) != text
    assert srcad.source(function, wrt=(2,), example_args=(xs, pairs, W)) == text
    assert parse.read(function).tree is parsed.tree
    assert _unchanged(before, parsed.tree)
    assert_close(value, numeric_grad(function, (xs, pairs, W), 2))


def test_renamed_function_is_a_renamed_copy():
    """inline's one-walk copy of a callee renamed is what a copy renamed in place gives (every
    function of srcad's source, nested defs and lambdas keeping their own names)."""
    from srcad.normalize import inline

    for function in FUNCTIONS:
        names = sorted({n.id for n in syntax.names(function)} | {
            s.name for s in syntax.statements(function) if isinstance(s, gast.FunctionDef)})
        mapping = {name: name + "_2" for name in names[::2]}
        before = _snapshot(function)
        expected = syntax.deepcopy(function)
        inline._rename_tree(expected, mapping)
        renamed = inline._renamed_function(function, mapping)
        assert gast.dump(renamed, include_attributes=True) == gast.dump(
            expected, include_attributes=True)
        assert _unchanged(before, function)
