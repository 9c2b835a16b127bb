"""Put a temporary read once, by the very next statement, back into that statement.

A-normal form names every intermediate value. Where nothing else reads one
(the reverse sweep included), the name only keeps the value alive until the
function returns, which for large arrays costs memory and page faults, and
makes the code longer than the user's. After this pass::

    dot = np.dot(x, W1)                 add = np.dot(x, W1) + b1
    add = dot + b1            ->        y_shape_item = y.shape[0]
    y_shape = y.shape
    y_shape_item = y_shape[0]

Only effect-free expressions move, and only into the statement right after
them, so evaluation order is unchanged.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..annotations import comment_text
from .statement_facts import COMPOUND, StatementFacts


def fuse_single_use(tree: gast.FunctionDef, resolve, keep=frozenset(),
                    facts: StatementFacts | None = None, confirm: bool = False
                    ) -> gast.FunctionDef:
    """``keep``: names never fused away (e.g. derivative variables, for readability);
    ``facts``: what earlier passes learned about the statements (statement_facts.py), its
    read and assignment counts among them when kept (kept here too). ``confirm`` (a debug
    mode): check the kept counts against the tree's."""
    if facts is None:
        facts = StatementFacts(resolve)
    if facts.reads is None or facts.stores is None:
        facts.reads, facts.stores = facts.counts(tree)
    elif confirm:
        _confirm_counts(tree, facts)
    reads, stores = facts.reads, facts.stores
    params = {a.id for a in tree.args.args}
    # the names read once and assigned once: a statement fusing never changes how often
    # another name is read or assigned (the value it moves reads what it read)
    once = {name for name, count in reads.items() if count == 1 and stores[name] == 1}
    once -= params
    once.difference_update(keep)
    tree.body = _block(tree.body, once, facts)
    return tree


def _block(statements, once, facts):
    for statement in statements:
        if type(statement) in COMPOUND:
            statement.body = _block(statement.body, once, facts)
            statement.orelse = _block(statement.orelse, once, facts)
    out = []
    previous = None
    Assign, Name = gast.Assign, gast.Name
    for statement in statements:
        # fused: an effect-free value assigned to a name read once (here, when found here),
        # assigned once, and kept by nobody
        if (type(previous) is Assign and type(statement) in _FUSED_INTO
                and len(previous.targets) == 1 and type(previous.targets[0]) is Name
                and previous.targets[0].id in once and comment_text(previous) is None
                and facts.pure(previous)):
            name = previous.targets[0].id
            value, done = _replace_read(statement.value, name, previous.value)
            statement.value = value
            if done:
                facts.moved_into(statement, name, previous)
                facts.reads[name] -= 1  # (its one read and assignment are gone)
                facts.stores[name] -= 1
                out.pop()
        out.append(statement)
        previous = statement
    return out


_FUSED_INTO = (gast.Assign, gast.Return, gast.Expr)  # the statements a value moves into


def _confirm_counts(tree, facts):
    """The read and assignment counts kept by the passes before are the tree's."""
    reads, stores = facts.counts(tree)
    for kept, counted in ((facts.reads, reads), (facts.stores, stores)):
        if +kept != +counted or any(count < 0 for count in kept.values()):
            raise AssertionError("fuse_single_use: the counts kept are not the tree's")


def _replace_read(node, name, value):
    """``node`` with its read of ``name`` (the only one: ``name`` is read once in the whole
    function) replaced by ``value``; returns the node and whether the read was found."""
    Name, Load, AST = gast.Name, gast.Load, gast.AST
    if type(node) is Name and type(node.ctx) is Load and node.id == name:
        return value, True
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        fields = syntax.child_fields(kind)
        for field in fields:
            child = getattr(current, field, None)
            if type(child) is list:
                for index, item in enumerate(child):
                    if type(item) is Name and type(item.ctx) is Load and item.id == name:
                        child[index] = value
                        return node, True
                    if isinstance(item, AST):
                        stack.append(item)
            elif type(child) is Name and type(child.ctx) is Load and child.id == name:
                setattr(current, field, value)
                return node, True
            elif isinstance(child, AST):
                stack.append(child)
    return node, False
