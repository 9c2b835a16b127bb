"""Copy and constant propagation for single-assignment names in straight-line code.

For a top-level ``a = b`` (``b`` a name or a constant) where ``a`` is assigned
only there and ``b`` is not assigned again afterwards, every read of ``a``
becomes a read of ``b`` and the copy disappears::

    div_bar = 1.0                  sum_bar = 1.0 / n
    sum_bar = div_bar / n     ->   dot_bar = add_bar
    dot_bar = add_bar

Copies inside loops and branches are left alone (a later redefinition of
``b`` inside the loop could be read through ``a``).
"""

from __future__ import annotations

from collections import Counter

import gast


def propagate_copies(tree: gast.FunctionDef) -> gast.FunctionDef:
    counts = Counter(n.id for n in gast.walk(tree)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)))
    params = {a.id for a in tree.args.args}
    stored_in_compound = set()
    last_store = {}
    for index, statement in enumerate(tree.body):
        for n in gast.walk(statement):
            if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
                last_store[n.id] = index
                if not isinstance(statement, (gast.Assign, gast.Expr, gast.Return)):
                    stored_in_compound.add(n.id)
    replacements = {}
    body = []
    for index, statement in enumerate(tree.body):
        _Replace(replacements).visit(statement)
        if (isinstance(statement, gast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], gast.Name)
                and statement.targets[0].id not in params | stored_in_compound
                and counts[statement.targets[0].id] == 1
                and (isinstance(statement.value, gast.Constant)
                     or (isinstance(statement.value, gast.Name)
                         and statement.value.id not in stored_in_compound
                         and last_store.get(statement.value.id, -1) <= index))):
            replacements[statement.targets[0].id] = statement.value
            continue
        body.append(statement)
    tree.body = body
    return tree


class _Replace(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.replacements:
            replacement = self.replacements[node.id]
            return gast.copy_location(
                gast.Name(id=replacement.id, ctx=gast.Load(), annotation=None, type_comment=None)
                if isinstance(replacement, gast.Name)
                else gast.Constant(value=replacement.value, kind=None), node)
        return node
