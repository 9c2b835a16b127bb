"""Copy and constant propagation within each block.

For ``a = b`` (``b`` a name or a constant), later statements of the same block
read ``b`` instead of ``a`` until ``a`` or ``b`` is assigned again. When that
replaced every read of ``a`` in the function, the copy itself goes::

    div_bar = 1.0                  sum_bar = 1.0 / n
    sum_bar = div_bar / n     ->   h_bar = np.dot(add_bar, W2.T)
    out_bar = add_bar
    h_bar = np.dot(out_bar, W2.T)

    x_2_bar = x_bar                    (inside a loop body)
    x_2_bar = x_2_bar + g     ->   x_2_bar = x_bar + g

A loop or branch inside the range is entered only if it assigns neither
name; ``a = a`` left behind by the replacement is removed.
"""

from __future__ import annotations

from collections import Counter

import gast

from .. import syntax


def propagate_copies(tree: gast.FunctionDef) -> gast.FunctionDef:
    params = {a.id for a in tree.args.args}
    for _ in range(4):  # a copy made constant by an outer one propagates on the next round
        reads = Counter(n.id for n in syntax.names(tree) if isinstance(n.ctx, gast.Load))
        changes = [0]
        tree.body = _block(tree.body, params, reads, changes)
        if not changes[0]:
            break
    return tree


def _is_copy(statement, params) -> bool:
    return (isinstance(statement, gast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
            and statement.targets[0].id not in params
            and isinstance(statement.value, (gast.Name, gast.Constant)))


def _block(statements, params, reads, changes):
    statements = list(statements)
    for statement in statements:
        for field in ("body", "orelse"):
            if isinstance(statement, (gast.For, gast.While, gast.If)):
                setattr(statement, field, _block(getattr(statement, field), params, reads, changes)
                        or ([gast.Pass()] if field == "body" else []))
    stores = [syntax.stored_names(s) for s in statements]  # replacing never changes them
    out = []
    for index, statement in enumerate(statements):
        if _is_copy(statement, params):
            target = statement.targets[0].id
            replaced, overwritten = _replace_forward(statements, stores, index + 1, target,
                                                     statement.value)
            reads[target] -= replaced
            changes[0] += replaced
            if isinstance(statement.value, gast.Name):
                reads[statement.value.id] += replaced
            if reads[target] == 0 or overwritten:
                changes[0] += 1
                continue  # no read can see the copy any more: it is dead
        if _is_self_assignment(statement):
            changes[0] += 1
            continue
        out.append(statement)
    return out


def _is_self_assignment(statement) -> bool:
    return (isinstance(statement, gast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
            and isinstance(statement.value, gast.Name)
            and statement.value.id == statement.targets[0].id)


def _replace_forward(statements, stores, start, target, source) -> tuple[int, bool]:
    """Replace reads of ``target`` by ``source`` from ``start`` on.

    Returns how many reads were replaced, and whether the range ended where a
    plain statement assigns ``target`` again (so nothing after can see the copy).
    """
    blockers = {target}
    if isinstance(source, gast.Name):
        blockers.add(source.id)
    replaced = 0
    for statement, stored in zip(statements[start:], stores[start:]):
        if isinstance(statement, (gast.For, gast.While, gast.If)):
            if stored & blockers:
                return replaced, False
            replaced += _replace_in(statement, target, source)
            continue
        value = statement.value if isinstance(statement, (gast.Assign, gast.Expr,
                                                           gast.Return)) else None
        if value is not None:
            replaced += _replace_in(statement, target, source, only_value=True)
        if stored & blockers:
            return replaced, target in stored and isinstance(statement, gast.Assign)
    return replaced, False


def _replace_in(node, target, source, only_value=False) -> int:
    replacer = _Replace(target, source)
    if only_value:
        node.value = replacer.visit(node.value) if node.value is not None else None
    else:
        replacer.visit(node)
    return replacer.count


class _Replace(gast.NodeTransformer):
    def __init__(self, target, source):
        self.target = target
        self.source = source
        self.count = 0

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id == self.target:
            self.count += 1
            return gast.copy_location(syntax.deepcopy(self.source), node)
        return node
