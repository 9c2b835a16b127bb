"""srcad.syntax's tree helpers do what their plain (slow) definitions do, on many trees.

Each helper is compared with a reference written the obvious way (gast's own walks and
visitors), over every function of srcad's source and tests and over generated code.
"""

from __future__ import annotations

import pathlib

import gast
import pytest

from srcad import annotations, syntax

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE_FILES = sorted((ROOT / "srcad").rglob("*.py"))


def _trees():
    """Every function definition of srcad's own source (the syntax its passes use)."""
    for path in SOURCE_FILES:
        tree = gast.parse(path.read_text())
        for node in gast.walk(tree):
            if isinstance(node, gast.FunctionDef):
                yield node


def _generated_trees():
    import numpy as np

    from srcad import pipeline
    from srcad.request import ReverseRequest
    from tests.test_golden import _load_subjects, _mlp_args

    subjects = _load_subjects()
    captured = []
    original = pipeline.emit.to_source

    def capture(tree):
        captured.append(syntax.deepcopy(tree))
        return original(tree)

    pipeline.emit.to_source = capture
    try:
        for function, args in ((subjects.scalar, (1.0, 2.0)), (subjects.mlp, _mlp_args()),
                               (subjects.broadcast, (np.ones((2, 3)), np.ones(3)))):
            request = ReverseRequest(wrt=list(function.__code__.co_varnames[:2]), single=False)
            from srcad.analysis import shapes
            pipeline.generate_reverse(function, request,
                                      tuple(shapes.of_value(a) for a in args))
    finally:
        pipeline.emit.to_source = original
    return captured


def _reference_deepcopy(node):
    """syntax.deepcopy as first written: a constructor call per node."""
    if isinstance(node, list):
        return [_reference_deepcopy(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    new = type(node)(**{f: _reference_deepcopy(getattr(node, f, None)) for f in node._fields})
    for key in node.__dict__.keys() - set(node._fields):
        setattr(new, key, getattr(node, key))
    return new


def _assert_same_copy(copy, reference, original):
    """``copy`` and ``reference`` are equal fresh copies of ``original``: new nodes and
    lists, the same leaf values, contexts and operators, the very same non-field
    attributes (annotations)."""
    if isinstance(original, list):
        assert type(copy) is list and copy is not original
        assert len(copy) == len(reference) == len(original)
        for items in zip(copy, reference, original):
            _assert_same_copy(*items)
        return
    if not isinstance(original, gast.AST):
        assert copy is original
        return
    if not original._fields and not original.__dict__:  # a context, an operator: shared
        assert copy is original
        return
    assert type(copy) is type(original) and copy is not original
    assert copy.__dict__.keys() == reference.__dict__.keys()
    for key, value in copy.__dict__.items():
        if key in original._fields:
            _assert_same_copy(value, reference.__dict__[key], getattr(original, key, None))
        else:
            assert value is original.__dict__[key]


def test_deepcopy_copies_as_the_reference_does():
    count = 0
    for tree in list(_trees()) + _generated_trees():
        _assert_same_copy(syntax.deepcopy(tree), _reference_deepcopy(tree), tree)
        count += 1
    assert count > 900


def test_deepcopy_keeps_annotations_and_fills_missing_fields():
    statement = gast.parse("y = f(x)").body[0]
    origin = annotations.Origin("f.py", 3, 4)
    annotations.set_origin(statement, origin)
    annotations.mark_carry(statement)
    partial = gast.Return()  # a field never set is None in the copy
    copied = syntax.deepcopy([statement, partial])
    assert annotations.origin(copied[0]) is origin and annotations.is_carry(copied[0])
    assert copied[0].value is not statement.value
    assert copied[0].targets[0].ctx is statement.targets[0].ctx  # (no fields: shared)
    assert copied[1].value is None and type(copied[1]) is gast.Return


class _ReferenceRename(gast.NodeTransformer):
    def __init__(self, mapping, loads_only):
        self.mapping = mapping
        self.loads_only = loads_only

    def visit_Name(self, node):
        if node.id in self.mapping and (not self.loads_only or isinstance(node.ctx, gast.Load)):
            node.id = self.mapping[node.id]
        return node


def _dump(tree) -> str:
    return gast.dump(tree)


@pytest.mark.parametrize("loads_only", [False, True])
def test_rename_renames_as_the_reference_does(loads_only):
    for index, tree in enumerate(_trees()):
        if index % 2 != loads_only:  # half the functions each way
            continue
        identifiers = sorted({n.id for n in gast.walk(tree) if isinstance(n, gast.Name)})
        mapping = {name: name + "_renamed" for name in identifiers[::2]}
        renamed, reference = syntax.deepcopy(tree), syntax.deepcopy(tree)
        assert syntax.rename(renamed, mapping, loads_only) is renamed
        _ReferenceRename(mapping, loads_only).visit(reference)
        assert _dump(renamed) == _dump(reference)


def _reference_walk_own(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in gast.iter_child_nodes(current):
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                stack.append(child)


def test_walk_own_walks_as_the_reference_does():
    for tree in _trees():
        assert list(syntax.walk_own(tree)) == list(_reference_walk_own(tree))
        body = gast.Module(body=tree.body, type_ignores=[])
        assert list(syntax.walk_own(body)) == list(_reference_walk_own(body))


def test_walk_walks_as_gast_walk_does():
    for tree in _trees():
        assert list(syntax.walk(tree)) == list(gast.walk(tree))


def test_nodes_walk_as_gast_walk_does_but_contexts_and_operators():
    def leaves(tree):  # the contexts and operators: what a node's ctx, op or ops holds
        found = set()
        for node in gast.walk(tree):
            for field in ("ctx", "op"):
                if isinstance(getattr(node, field, None), gast.AST):
                    found.add(id(getattr(node, field)))
            found.update(id(op) for op in getattr(node, "ops", ()))
        return found

    for tree in list(_trees()) + _generated_trees():
        left_out = leaves(tree)
        assert list(syntax.nodes(tree)) == [
            node for node in gast.walk(tree) if id(node) not in left_out]


def _reference_names(node):
    """The Name nodes of ``node`` (not those inside a Name: a parameter's annotation)."""
    if isinstance(node, gast.Name):
        return [node]
    found = []
    for child in gast.iter_child_nodes(node):
        found.extend(_reference_names(child))
    return found


def test_names_find_the_names_gast_finds():
    for tree in list(_trees()) + _generated_trees():
        reference = _reference_names(tree)
        assert sorted(map(id, syntax.names(tree))) == sorted(map(id, reference))
        assert syntax.load_names(tree) == {n.id for n in reference
                                           if isinstance(n.ctx, gast.Load)}
        assert syntax.stored_names(tree) == {n.id for n in reference
                                             if isinstance(n.ctx, (gast.Store, gast.Del))}
