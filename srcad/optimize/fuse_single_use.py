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

from collections import Counter

import gast

from .. import syntax
from ..annotations import comment_text
from .remove_dead_code import _pure


def fuse_single_use(tree: gast.FunctionDef, resolve, keep=frozenset()) -> gast.FunctionDef:
    """``keep``: names never fused away (e.g. derivative variables, for readability)."""
    reads = Counter(n.id for n in syntax.names(tree) if isinstance(n.ctx, gast.Load))
    stores = Counter(n.id for n in syntax.names(tree)
                     if isinstance(n.ctx, (gast.Store, gast.Del)))
    params = {a.id for a in tree.args.args}
    tree.body = _block(tree.body, reads, stores, params | set(keep), resolve)
    return tree


def _block(statements, reads, stores, keep, resolve):
    for statement in statements:
        for field in ("body", "orelse"):
            if isinstance(statement, (gast.For, gast.While, gast.If)):
                setattr(statement, field, _block(getattr(statement, field), reads, stores, keep,
                                                 resolve))
    out = []
    for statement in statements:
        if out and _fusable(out[-1], reads, stores, keep, resolve) and isinstance(
                statement, (gast.Assign, gast.Return, gast.Expr)):
            previous = out[-1]
            name = previous.targets[0].id
            replacer = _ReplaceOnce(name, previous.value)
            statement.value = replacer.visit(statement.value)
            if replacer.done:
                out.pop()
        out.append(statement)
    return out


def _fusable(statement, reads, stores, keep, resolve) -> bool:
    return (isinstance(statement, gast.Assign) and comment_text(statement) is None
            and len(statement.targets) == 1 and isinstance(statement.targets[0], gast.Name)
            and statement.targets[0].id not in keep
            and reads[statement.targets[0].id] == 1 and stores[statement.targets[0].id] == 1
            and _pure(statement.value, resolve))


class _ReplaceOnce(gast.NodeTransformer):
    def __init__(self, name, value):
        self.name = name
        self.value = value
        self.done = False

    def visit_Name(self, node):
        if not self.done and isinstance(node.ctx, gast.Load) and node.id == self.name:
            self.done = True
            return self.value
        return node
